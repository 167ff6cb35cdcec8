// litmus/ptx/MP+rel+acq-gpu.litmus (Expect=ptx:Forbidden) with cuda::atomic_ref; with
// -DRELAXED_POLL the poll is relaxed: litmus/ptx/MP+rel+rlx-gpu.litmus (Expect=ptx:Allowed).
#include <cuda/atomic>
#include <assert.h>

#ifdef RELAXED_POLL
#define POLL cuda::memory_order_relaxed
#else
#define POLL cuda::memory_order_acquire
#endif

__global__ void mp(unsigned *data, unsigned *flag) {
    cuda::atomic_ref<unsigned, cuda::thread_scope_device> f(*flag);
    if (blockIdx.x == 0) {
        data[0] = 1;
        f.store(1, cuda::memory_order_release);
    } else {
        while (f.load(POLL) != 1) {
        }
        assert(data[0] == 1);
    }
}
