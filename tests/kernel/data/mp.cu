// Message passing between two CTAs of one GPU through inline PTX: the shape of
// litmus/ptx/MP+rel+acq-gpu.litmus (release store, acquire load in a spin loop) and, with
// -DRELAXED_POLL, of litmus/ptx/MP+rel+rlx-gpu.litmus.
#include <assert.h>

__device__ __forceinline__ void st_release(unsigned *p, unsigned v) {
    asm volatile("st.release.gpu.global.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}
__device__ __forceinline__ unsigned ld_acquire(unsigned *p) {
    unsigned v;
#ifdef RELAXED_POLL
    asm volatile("ld.relaxed.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
#else
    asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
#endif
    return v;
}

__global__ void mp(unsigned *data, unsigned *flag) {
    if (blockIdx.x == 0) {
        data[0] = 1;
        st_release(flag, 1);
    } else {
        while (ld_acquire(flag) != 1) {
        }
        assert(data[0] == 1);
    }
}
