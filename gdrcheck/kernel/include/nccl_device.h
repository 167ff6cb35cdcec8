/* gdrcheck's NCCL device API subset (docs/kernels.md, "NCCL"): LSA pointers and barriers,
 * and the basic ncclGin calls.
 *
 * Names and signatures as NVIDIA/nccl@5067397c declares them (each cited where it is
 * reproduced). Each function follows the intrinsic convention: one call of an extern "C"
 * __gdrcheck_lsa_* declaration, which the extractor lowers to the litmus test's PTX (LSA
 * loads and stores are PTX accesses of a peer's location, docs/litmus-format.md §8).
 *
 * Cut (clang's error at the user's line when a kernel uses them): the GIN barrier, hybrid
 * barriers, multimem pointers other than ncclGetLsaMultimemPointer, ncclSymPtr, the LL
 * all-to-all, reduce-copy, VA signals, counters, get, flushAsync/wait, the signal shadows, ncclGin's LocalAction / Coop /
 * descriptor / release-scope / optFlags arguments, the warp / tile Coop groups, barrier
 * timeouts. */
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
__device__ void __gdrcheck_lsa_barrier_mm_arrive(uint32_t index, int order, int teamRank,
                                                 int teamSize, int coopRank);
__device__ uint32_t __gdrcheck_lsa_barrier_mm_wait(uint32_t index, uint32_t epoch, int order,
                                                   int teamRank, int teamSize, int coopRank);
__device__ void *__gdrcheck_lsa_multimem_pointer(ncclWindow_t w, size_t offset);
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

/* core.h:274, impl/core__funcs.h:152-154: the LSA team's multicast address of the window
 * (ncclGetMultimemPointer over comm.lsaMultimem); only multimem.st / .red / .ld_reduce may
 * use it (docs/litmus-format.md §11) */
__GDRCHECK_API void *ncclGetLsaMultimemPointer(ncclWindow_t w, size_t offset,
                                               ncclDevComm const &comm) {
    (void)comm;
    return __gdrcheck_lsa_multimem_pointer(w, offset);
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
 * is the zero state. With multimem=true (lsa_barrier__funcs.h:57-67 and :96-116), after the
 * same coop.sync() thread 0 of the Coop adds 1 to the barrier's inbox word on every rank of
 * the team with one multimem.red.{release,relaxed}.sys.add.u32 (releaseOrderOf(order)), and
 * waits with loads of its own copy (acquireOrderOf(order)) until epoch + nRanks; its epoch
 * advances by nRanks, the other threads' stays (calls.py, _lsa_barrier_mm_*). */
template <typename Coop>
struct ncclLsaBarrierSession {
    Coop coop;
    ncclTeam team;
    uint32_t index;
    uint32_t epoch;
    bool multimem;

    /* lsa_barrier.h:23-24 */
    __device__ __forceinline__ ncclLsaBarrierSession(Coop c, ncclDevComm const &comm,
                                                     ncclTeam tm, ncclLsaBarrierHandle,
                                                     uint32_t idx, bool mm = false)
        : coop(c), team(tm), index(idx), epoch(0), multimem(mm) {
        (void)comm;
    }
    /* lsa_barrier.h:26-27 */
    __device__ __forceinline__ ncclLsaBarrierSession(Coop c, ncclDevComm const &comm,
                                                     ncclTeamTagLsa, uint32_t idx,
                                                     bool mm = false)
        : coop(c), team(ncclTeamLsa(comm)), index(idx), epoch(0), multimem(mm) {}
    ncclLsaBarrierSession(ncclLsaBarrierSession const &) = delete; /* lsa_barrier.h:31 */

    /* lsa_barrier.h:33 */
    __device__ __forceinline__ void arrive(Coop, cuda::memory_order order) {
        coop.sync();
        if (multimem)
            __gdrcheck_lsa_barrier_mm_arrive(index, (int)order, team.rank, team.nRanks,
                                             coop.thread_rank());
        else
            __gdrcheck_lsa_barrier_arrive(index, epoch, (int)order, team.rank, team.nRanks,
                                          coop.thread_rank(), coop.size());
    }
    /* lsa_barrier.h:34 */
    __device__ __forceinline__ void wait(Coop, cuda::memory_order order) {
        if (multimem)
            epoch = __gdrcheck_lsa_barrier_mm_wait(index, epoch, (int)order, team.rank,
                                                   team.nRanks, coop.thread_rank());
        else
            epoch = __gdrcheck_lsa_barrier_wait(index, epoch, (int)order, team.rank,
                                                team.nRanks, coop.thread_rank(), coop.size());
        coop.sync();
    }
    /* lsa_barrier.h:35 */
    __device__ __forceinline__ void sync(Coop c, cuda::memory_order order) {
        arrive(c, order);
        wait(c, order);
    }
};

/* ---- GIN: src/include/nccl_device/gin.h ------------------------------------------------ */

typedef uint32_t ncclGinSignal_t; /* core.h:29 */

/* Remote actions, gin.h:21 and :59-91 (the deprecated ncclGin_SignalInc / SignalAdd are
 * the strong ones unless the communicator says otherwise: lsig= in the litmus test). */
struct ncclGin_None {};                                                    /* gin.h:21 */
struct ncclGin_StrongSignalAdd { ncclGinSignal_t signal; uint64_t value; }; /* gin.h:59 */
struct ncclGin_WeakSignalAdd { ncclGinSignal_t signal; uint64_t value; };   /* gin.h:64 */
struct ncclGin_SignalAdd { ncclGinSignal_t signal; uint64_t value; };       /* gin.h:69 */
struct ncclGin_StrongSignalInc { ncclGinSignal_t signal; };                 /* gin.h:76 */
struct ncclGin_WeakSignalInc { ncclGinSignal_t signal; };                   /* gin.h:83 */
struct ncclGin_SignalInc { ncclGinSignal_t signal; };                       /* gin.h:88 */

/* The kind of a remote action, as the intrinsics pass it (gdrcheck/kernel/calls.py
 * GIN_ACTIONS): 0 none, 1 strong inc, 2 weak inc, 3 deprecated inc, 4 strong add, 5 weak
 * add, 6 deprecated add. */
struct __gdrcheck_gin_action { int kind; ncclGinSignal_t signal; uint64_t value; };
__GDRCHECK_API __gdrcheck_gin_action __gdrcheck_gin_act(ncclGin_None) { return {0, 0, 0}; }
__GDRCHECK_API __gdrcheck_gin_action __gdrcheck_gin_act(ncclGin_StrongSignalInc a) { return {1, a.signal, 1}; }
__GDRCHECK_API __gdrcheck_gin_action __gdrcheck_gin_act(ncclGin_WeakSignalInc a) { return {2, a.signal, 1}; }
__GDRCHECK_API __gdrcheck_gin_action __gdrcheck_gin_act(ncclGin_SignalInc a) { return {3, a.signal, 1}; }
__GDRCHECK_API __gdrcheck_gin_action __gdrcheck_gin_act(ncclGin_StrongSignalAdd a) { return {4, a.signal, a.value}; }
__GDRCHECK_API __gdrcheck_gin_action __gdrcheck_gin_act(ncclGin_WeakSignalAdd a) { return {5, a.signal, a.value}; }
__GDRCHECK_API __gdrcheck_gin_action __gdrcheck_gin_act(ncclGin_SignalAdd a) { return {6, a.signal, a.value}; }

extern "C" {
__device__ void __gdrcheck_gin_put(int context, int peer, ncclWindow_t dst, size_t dstOffset,
                                   ncclWindow_t src, size_t srcOffset, size_t bytes, int action,
                                   uint32_t signal, uint64_t value);
__device__ void __gdrcheck_gin_put_value(int context, int peer, ncclWindow_t dst,
                                         size_t dstOffset, uint64_t data, size_t bytes,
                                         int action, uint32_t signal, uint64_t value);
__device__ void __gdrcheck_gin_signal(int context, int peer, int action, uint32_t signal,
                                      uint64_t value);
__device__ void __gdrcheck_gin_flush(int context, int order);
__device__ uint64_t __gdrcheck_gin_read_signal(uint32_t signal, int bits, int order);
__device__ void __gdrcheck_gin_wait_signal(uint32_t signal, uint64_t least, int bits, int order);
__device__ void __gdrcheck_gin_reset_signal(uint32_t signal);
}

/* ncclGin (gin.h:120: `using ncclGin = ncclGin_BackendMask<NCCL_GIN_BACKEND_MASK_ALL>;`,
 * the struct of gin.h:204-380). The peer of a call is a rank of `team`; its world rank is
 * comm.rank + (peer - team.rank) * team.stride (NCCL's team arithmetic, core__funcs.h:68). */
struct ncclGin {
    ncclDevComm const &comm;
    int contextIndex;

    /* gin.h:213-215 (the resource sharing mode cut) */
    __device__ __forceinline__ ncclGin(ncclDevComm const &c, int ctx) : comm(c), contextIndex(ctx) {}

    __device__ __forceinline__ int world(ncclTeam team, int peer) const {
        return comm.rank + (peer - team.rank) * team.stride;
    }

    /* gin.h:250-256 (up to remoteAction) */
    template <typename RemoteAction = ncclGin_None>
    __device__ __forceinline__ void put(ncclTeam team, int peer, ncclWindow_t dstWnd,
                                        size_t dstOffset, ncclWindow_t srcWnd, size_t srcOffset,
                                        size_t bytes, RemoteAction remoteAction = ncclGin_None{}) const {
        __gdrcheck_gin_action a = __gdrcheck_gin_act(remoteAction);
        __gdrcheck_gin_put(contextIndex, world(team, peer), dstWnd, dstOffset, srcWnd, srcOffset,
                           bytes, a.kind, a.signal, a.value);
    }
    /* gin.h:285-290 (up to remoteAction) */
    template <typename T, typename RemoteAction = ncclGin_None>
    __device__ __forceinline__ void putValue(ncclTeam team, int peer, ncclWindow_t dstWnd,
                                             size_t dstOffset, T value,
                                             RemoteAction remoteAction = ncclGin_None{}) const {
        __gdrcheck_gin_action a = __gdrcheck_gin_act(remoteAction);
        __gdrcheck_gin_put_value(contextIndex, world(team, peer), dstWnd, dstOffset,
                                 (uint64_t)value, sizeof(T), a.kind, a.signal, a.value);
    }
    /* gin.h:303-308 (up to remoteAction) */
    template <typename RemoteAction>
    __device__ __forceinline__ void signal(ncclTeam team, int peer, RemoteAction remoteAction) const {
        __gdrcheck_gin_action a = __gdrcheck_gin_act(remoteAction);
        __gdrcheck_gin_signal(contextIndex, world(team, peer), a.kind, a.signal, a.value);
    }
    /* gin.h:312-314 (the descriptor cut; the Coop's threads each flush their own puts) */
    template <typename Coop>
    __device__ __forceinline__ void flush(Coop, cuda::memory_order ord = cuda::memory_order_acquire) const {
        __gdrcheck_gin_flush(contextIndex, (int)ord);
    }
    /* gin.h:344-345 */
    __device__ __forceinline__ uint64_t readSignal(ncclGinSignal_t signal, int bits = 64,
                                                   cuda::memory_order ord = cuda::memory_order_acquire) const {
        return __gdrcheck_gin_read_signal(signal, bits, (int)ord);
    }
    /* gin.h:352-354 */
    template <typename Coop>
    __device__ __forceinline__ void waitSignal(Coop, ncclGinSignal_t signal, uint64_t least,
                                               int bits = 64,
                                               cuda::memory_order ord = cuda::memory_order_acquire) const {
        __gdrcheck_gin_wait_signal(signal, least, bits, (int)ord);
    }
    /* gin.h:377 */
    __device__ __forceinline__ void resetSignal(ncclGinSignal_t signal) const {
        __gdrcheck_gin_reset_signal(signal);
    }
};
#endif
