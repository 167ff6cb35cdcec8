// Two values swapped n times around a loop (a parallel copy of phis), then compared through
// b - 1 (a constant -1 in the IR): the assert holds after an even number of swaps.
#include <assert.h>
__global__ void k(int *x, int n) {
    int a = *(volatile int *)x, b = a + 1;
    for (int i = 0; i < n; i++) { int t = a; a = b; b = t; }
    assert(a == b - 1);
}
