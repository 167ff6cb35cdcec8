/* gdrcheck's NCCL device API subset (docs/kernels.md, "NCCL"): the load/store (LSA) part.
 *
 * Names and signatures as NVIDIA/nccl@5067397c declares them (each cited where it is
 * reproduced). Each function follows the intrinsic convention: one call of an extern "C"
 * __gdrcheck_lsa_* declaration, which the extractor lowers to the litmus test's PTX (LSA
 * loads and stores are PTX accesses of a peer's location, docs/litmus-format.md §8).
 *
 * Cut (clang's error at the user's line when a kernel uses them): ncclGin and the GIN
 * barrier, hybrid barriers, multimem pointers, ncclSymPtr, the LL all-to-all, reduce-copy,
 * the warp / tile / thread Coop groups, barrier timeouts. */
#ifndef GDRCHECK_NCCL_DEVICE_H
#define GDRCHECK_NCCL_DEVICE_H
#include <__gdrcheck_cuda.h>
#include <cuda/atomic>
#include <nccl.h>
#include <stdint.h>

/* src/include/nccl_device/core.h:45-47 */
struct ncclTeam {
    int nRanks, rank, stride;
};
typedef struct ncclTeam ncclTeam_t;

/* core.h:55-57 */
struct ncclTeamTagWorld {};
struct ncclTeamTagLsa {};
struct ncclTeamTagRail {};

/* Opaque handles: only passed to the functions of this header, never read by the kernel.
 * lsa_barrier__types.h / gin_barrier__types.h hold NCCL's (a resource buffer handle and a
 * barrier count). */
struct ncclLsaBarrierHandle {
    uint32_t bufHandle;
    int nBarriers;
};
typedef struct ncclLsaBarrierHandle ncclLsaBarrierHandle_t;
struct ncclGinBarrierHandle {
    uint32_t bufHandle;
    int nBarriers;
};
typedef struct ncclGinBarrierHandle ncclGinBarrierHandle_t;

/* src/include/nccl_device/impl/comm__types.h:27-34: NCCL's leading fields, in NCCL's order
 * and at NCCL's offsets (magic 0, version 4, rank 8, nRanks 12, nRanks_rcp32 16, lsaRank 20,
 * lsaSize 24, lsaSize_rcp32 28). The kernel parameter of this type is the communicator:
 * the extractor answers a read of rank, nRanks, lsaRank, lsaSize from the configuration
 * (gdrcheck/kernel/nccl.py DEV_COMM_FIELDS); any other field read is refused. The handles
 * that follow keep their names (comm__types.h:44-45) but not NCCL's offsets. */
struct ncclDevComm {
    unsigned int magic;
    unsigned int version;
    int rank, nRanks;
    uint32_t nRanks_rcp32;
    int lsaRank, lsaSize;
    uint32_t lsaSize_rcp32;
    ncclLsaBarrierHandle_t lsaBarrier;
    ncclGinBarrierHandle_t railGinBarrier;
};
typedef struct ncclDevComm ncclDevComm_t;

extern "C" {
__device__ void *__gdrcheck_lsa_local_pointer(ncclWindow_t w, size_t offset);
__device__ void *__gdrcheck_lsa_pointer(ncclWindow_t w, size_t offset, int lsaPeer);
__device__ void *__gdrcheck_lsa_peer_pointer(ncclWindow_t w, size_t offset, int worldPeer);
__device__ void __gdrcheck_lsa_barrier_arrive(uint32_t index, uint32_t epoch, int order,
                                              int teamRank, int teamSize, int coopRank,
                                              int coopSize);
__device__ uint32_t __gdrcheck_lsa_barrier_wait(uint32_t index, uint32_t epoch, int order,
                                                int teamRank, int teamSize, int coopRank,
                                                int coopSize);
}

/* ---- teams: src/include/nccl_device/impl/core__funcs.h:15-33 (NCCL's own code) -------- */

/* core.h:210 */
__GDRCHECK_API ncclTeam ncclTeamWorld(ncclDevComm const &comm) {
    ncclTeam ans;
    ans.nRanks = comm.nRanks;
    ans.rank = comm.rank;
    ans.stride = 1;
    return ans;
}

/* core.h:217 */
__GDRCHECK_API ncclTeam ncclTeamLsa(ncclDevComm const &comm) {
    ncclTeam ans;
    ans.nRanks = comm.lsaSize;
    ans.rank = comm.lsaRank;
    ans.stride = 1;
    return ans;
}

/* ---- pointers: core.h:268-270 ------------------------------------------------------- */

/* core.h:268 */
__GDRCHECK_API void *ncclGetLocalPointer(ncclWindow_t w, size_t offset) {
    return __gdrcheck_lsa_local_pointer(w, offset);
}
/* core.h:269 (peer: a rank of the LSA team) */
__GDRCHECK_API void *ncclGetLsaPointer(ncclWindow_t w, size_t offset, int peer) {
    return __gdrcheck_lsa_pointer(w, offset, peer);
}
/* core.h:270 (peer: a world rank, which must be in the caller's LSA team) */
__GDRCHECK_API void *ncclGetPeerPointer(ncclWindow_t w, size_t offset, int peer) {
    return __gdrcheck_lsa_peer_pointer(w, offset, peer);
}

/* ---- Coop groups: src/include/nccl_device/coop.h:156-169 (ncclCoopCta only) ------------ */
struct ncclCoopCta {
    __device__ __forceinline__ int thread_rank() const { return threadIdx.x; }
    __device__ __forceinline__ int size() const { return blockDim.x; }
    __device__ __forceinline__ int num_threads() const { return blockDim.x; }
    __device__ __forceinline__ void sync() { __syncthreads(); }
};

/* ---- LSA barrier sessions: src/include/nccl_device/lsa_barrier.h:21-37 -----------------
 * arrive and wait do what impl/lsa_barrier__funcs.h:55-79 and :85-143 do (the unicast
 * path: no multimem): coop.sync(); a release fence (cuda::atomic_thread_fence of
 * releaseOrderOf(order), utility.h:350) when the team has more than one rank, then a
 * relaxed store of epoch+1 into each peer's inbox slot of this rank; wait: an acquire
 * (acquireOrderOf(order), utility.h:345) load of each of this rank's inbox slots until it
 * reaches epoch+1, epoch += 1, coop.sync(). The peers are split over the Coop's threads as
 * NCCL splits them (i = thread_rank; i < nRanks-1; i += size). The extractor emits those
 * fences, stores and spin loops (calls.py, _lsa_barrier_*). A session's epoch starts at 0:
 * one kernel launch is checked, so the state of earlier launches (lsa_barrier__funcs.h:25-26)
 * is the zero state. */
template <typename Coop>
struct ncclLsaBarrierSession {
    Coop coop;
    ncclTeam team;
    uint32_t index;
    uint32_t epoch;

    /* lsa_barrier.h:23-24 */
    __device__ __forceinline__ ncclLsaBarrierSession(Coop c, ncclDevComm const &comm,
                                                     ncclTeam tm, ncclLsaBarrierHandle,
                                                     uint32_t idx, bool multimem = false)
        : coop(c), team(tm), index(idx), epoch(0) {
        (void)comm;
        (void)multimem;
    }
    /* lsa_barrier.h:26-27 */
    __device__ __forceinline__ ncclLsaBarrierSession(Coop c, ncclDevComm const &comm,
                                                     ncclTeamTagLsa, uint32_t idx,
                                                     bool multimem = false)
        : coop(c), team(ncclTeamLsa(comm)), index(idx), epoch(0) {
        (void)multimem;
    }
    ncclLsaBarrierSession(ncclLsaBarrierSession const &) = delete; /* lsa_barrier.h:31 */

    /* lsa_barrier.h:33 */
    __device__ __forceinline__ void arrive(Coop, cuda::memory_order order) {
        coop.sync();
        __gdrcheck_lsa_barrier_arrive(index, epoch, (int)order, team.rank, team.nRanks,
                                      coop.thread_rank(), coop.size());
    }
    /* lsa_barrier.h:34 */
    __device__ __forceinline__ void wait(Coop, cuda::memory_order order) {
        epoch = __gdrcheck_lsa_barrier_wait(index, epoch, (int)order, team.rank, team.nRanks,
                                            coop.thread_rank(), coop.size());
        coop.sync();
    }
    /* lsa_barrier.h:35 */
    __device__ __forceinline__ void sync(Coop c, cuda::memory_order order) {
        arrive(c, order);
        wait(c, order);
    }
};
#endif
