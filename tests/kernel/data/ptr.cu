// nvshmem_ptr: a direct (LSA) store when the peer shares the node, else NVSHMEM calls.
#include <nvshmem.h>
#include <assert.h>
__global__ void k(int *x, int *flag) {
    int me = nvshmem_my_pe();
    int peer = 1 - me;
    int *p = (int *)nvshmem_ptr(x, peer);
    volatile int *f = (volatile int *)nvshmem_ptr(flag, peer);
    if (me == 0) {
        if (p) {
            *p = 42;
            __threadfence_system();
            *f = 1;
        } else {
            nvshmem_int_p(x, 42, peer);
            nvshmem_quiet();
            nvshmem_int_p(flag, 1, peer);
        }
    } else {
        while (*(volatile int *)flag != 1) {}
        __threadfence_system();
        assert(*(volatile int *)x == 42);
    }
}
