// A condition on values read, carried around a loop: its register is read again in the
// second iteration, so the first iteration's answer is kept in a register of its own.
#include <assert.h>
__global__ void k(int *x, int *y) {
    int ok = 1;
    for (int i = 0; i < 2; i++) {
        int v = *(volatile int *)x;
        ok = ok && (v == i);
    }
    assert(ok);
}
