/* gdrcheck's NCCL device API subset (docs/kernels.md, "NCCL"): LSA pointers and barriers,
 * the basic ncclGin calls, GIN barrier sessions and hybrid (LSA + GIN) barrier sessions.
 *
 * Names and signatures as NVIDIA/nccl@5067397c declares them (each cited where it is
 * reproduced). Each function follows the intrinsic convention: one call of an extern "C"
 * __gdrcheck_lsa_* declaration, which the extractor lowers to the litmus test's PTX (LSA
 * loads and stores are PTX accesses of a peer's location, docs/litmus-format.md §8).
 *
 * Cut (clang's error at the user's line when a kernel uses them): ncclGinAllContexts,
 * rail-team barriers (ncclTeamTagRail), the free-function barriers, multimem pointers other than ncclGetLsaMultimemPointer, ncclSymPtr, the LL all-to-all, reduce-copy, VA signals,
 * counters, get, flushAsync/wait, the signal shadows, ncclGin's LocalAction / Coop /
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

/* Barrier handles: NCCL's fields (lsa_barrier__types.h, gin_barrier__types.h:14-17). The
 * extraction answers a read of the first field of each handle of the communicator with the
 * number of that barrier resource (gdrcheck/kernel/nccl.py BARRIER_RESOURCES), so that the
 * sessions over lsaBarrier and hybridLsaBarrier (or worldGinBarrier, hybridRailGinBarrier,
 * hybridWorldGinBarrier) use barriers of their own, as NCCL's distinct allocations do. */
struct ncclLsaBarrierHandle {
    uint32_t bufHandle;
    int nBarriers;
};
typedef struct ncclLsaBarrierHandle ncclLsaBarrierHandle_t;
struct ncclGinBarrierHandle {
    uint32_t signal0; /* ncclGinSignal_t */
    uint32_t unused;  /* ncclDevResourceHandle_t */
};
typedef struct ncclGinBarrierHandle ncclGinBarrierHandle_t;

/* src/include/nccl_device/impl/comm__types.h:27-34: NCCL's leading fields, in NCCL's order
 * and at NCCL's offsets (magic 0, version 4, rank 8, nRanks 12, nRanks_rcp32 16, lsaRank 20,
 * lsaSize 24, lsaSize_rcp32 28). The kernel parameter of this type is the communicator:
 * the extractor answers a read of rank, nRanks, lsaRank, lsaSize from the configuration
 * (gdrcheck/kernel/nccl.py DEV_COMM_FIELDS); any other field read is refused. The handles
 * that follow keep their names (comm__types.h:38-69) but not NCCL's offsets. */
struct ncclDevComm {
    unsigned int magic;
    unsigned int version;
    int rank, nRanks;
    uint32_t nRanks_rcp32;
    int lsaRank, lsaSize;
    uint32_t lsaSize_rcp32;
    ncclLsaBarrierHandle_t lsaBarrier;            /* offset 32 */
    ncclGinBarrierHandle_t railGinBarrier;        /* 40 */
    ncclGinBarrierHandle_t worldGinBarrier;       /* 48 */
    ncclLsaBarrierHandle_t hybridLsaBarrier;      /* 56 */
    ncclGinBarrierHandle_t hybridRailGinBarrier;  /* 64 */
    ncclGinBarrierHandle_t hybridWorldGinBarrier; /* 72 */
    uint32_t ginContextCount;                     /* 80: impl/comm__types.h:54, the number
                                                     of GIN contexts (at least 1): not in
                                                     the configuration; blockIdx.x % it is
                                                     0 for CTA 0 alone (docs/kernels.md) */
};
typedef struct ncclDevComm ncclDevComm_t;

extern "C" {
__device__ void *__gdrcheck_lsa_local_pointer(ncclWindow_t w, size_t offset);
__device__ void *__gdrcheck_lsa_pointer(ncclWindow_t w, size_t offset, int lsaPeer);
__device__ void *__gdrcheck_lsa_peer_pointer(ncclWindow_t w, size_t offset, int worldPeer);
__device__ void __gdrcheck_lsa_barrier_arrive(uint32_t index, uint32_t epoch, int order,
                                              int teamRank, int teamSize, int coopRank,
                                              int coopSize, uint32_t resource);
__device__ uint32_t __gdrcheck_lsa_barrier_wait(uint32_t index, uint32_t epoch, int order,
                                                int teamRank, int teamSize, int coopRank,
                                                int coopSize, uint32_t resource);
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
    uint32_t resource; /* the handle's barrier resource (lsaBarrier or hybridLsaBarrier) */

    /* lsa_barrier.h:23-24 */
    __device__ __forceinline__ ncclLsaBarrierSession(Coop c, ncclDevComm const &comm,
                                                     ncclTeam tm, ncclLsaBarrierHandle handle,
                                                     uint32_t idx, bool mm = false)
        : coop(c), team(tm), index(idx), epoch(0), multimem(mm), resource(handle.bufHandle) {
        (void)comm;
    }
    /* lsa_barrier.h:26-27 */
    __device__ __forceinline__ ncclLsaBarrierSession(Coop c, ncclDevComm const &comm,
                                                     ncclTeamTagLsa, uint32_t idx,
                                                     bool mm = false)
        : coop(c), team(ncclTeamLsa(comm)), index(idx), epoch(0), multimem(mm),
          resource(comm.lsaBarrier.bufHandle) {}
    ncclLsaBarrierSession(ncclLsaBarrierSession const &) = delete; /* lsa_barrier.h:31 */

    /* lsa_barrier.h:33 */
    __device__ __forceinline__ void arrive(Coop, cuda::memory_order order) {
        coop.sync();
        if (multimem)
            __gdrcheck_lsa_barrier_mm_arrive(index, (int)order, team.rank, team.nRanks,
                                             coop.thread_rank());
        else
            __gdrcheck_lsa_barrier_arrive(index, epoch, (int)order, team.rank, team.nRanks,
                                          coop.thread_rank(), coop.size(), resource);
    }
    /* lsa_barrier.h:34 */
    __device__ __forceinline__ void wait(Coop, cuda::memory_order order) {
        if (multimem)
            epoch = __gdrcheck_lsa_barrier_mm_wait(index, epoch, (int)order, team.rank,
                                                   team.nRanks, coop.thread_rank());
        else
            epoch = __gdrcheck_lsa_barrier_wait(index, epoch, (int)order, team.rank,
                                                team.nRanks, coop.thread_rank(), coop.size(),
                                                resource);
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
    /* gin.h:312-314 (the descriptor cut; the Coop's threads each flush their own puts),
     * between the two coop.sync() of impl/gin__funcs.h:753-759 */
    template <typename Coop>
    __device__ __forceinline__ void flush(Coop coop, cuda::memory_order ord = cuda::memory_order_acquire) const {
        coop.sync();
        __gdrcheck_gin_flush(contextIndex, (int)ord);
        coop.sync();
    }
    /* gin.h:344-345 */
    __device__ __forceinline__ uint64_t readSignal(ncclGinSignal_t signal, int bits = 64,
                                                   cuda::memory_order ord = cuda::memory_order_acquire) const {
        return __gdrcheck_gin_read_signal(signal, bits, (int)ord);
    }
    /* gin.h:352-354; impl/gin__funcs.h:975-990: coop.sync(), the Coop's thread 0 polls the
     * signal with loads of order `ord` until it reaches `least`, coop.sync() */
    template <typename Coop>
    __device__ __forceinline__ void waitSignal(Coop coop, ncclGinSignal_t signal, uint64_t least,
                                               int bits = 64,
                                               cuda::memory_order ord = cuda::memory_order_acquire) const {
        coop.sync();
        if (coop.thread_rank() == 0) __gdrcheck_gin_wait_signal(signal, least, bits, (int)ord);
        coop.sync();
    }
    /* gin.h:377 */
    __device__ __forceinline__ void resetSignal(ncclGinSignal_t signal) const {
        __gdrcheck_gin_reset_signal(signal);
    }
};

/* ---- memory orders: src/include/nccl_device/utility.h:345-354 (NCCL's code) ------------- */
__GDRCHECK_API cuda::memory_order __gdrcheck_acquireOrderOf(cuda::memory_order ord) {
    return ord == cuda::memory_order_release ? cuda::memory_order_relaxed :
           ord == cuda::memory_order_acq_rel ? cuda::memory_order_acquire : ord;
}
__GDRCHECK_API cuda::memory_order __gdrcheck_releaseOrderOf(cuda::memory_order ord) {
    return ord == cuda::memory_order_acquire ? cuda::memory_order_relaxed :
           ord == cuda::memory_order_acq_rel ? cuda::memory_order_release : ord;
}

/* ---- GIN barrier sessions: src/include/nccl_device/gin_barrier.h:26-73 ------------------ */

/* gin_barrier.h:26-42 */
enum ncclGinFenceLevel : uint32_t {
    None = 0,
    Put = 1u << 0,
    Get = 1u << 1,
    Relaxed = None,
};
__GDRCHECK_API constexpr ncclGinFenceLevel operator|(ncclGinFenceLevel a, ncclGinFenceLevel b) {
    return static_cast<ncclGinFenceLevel>(static_cast<uint32_t>(a) | static_cast<uint32_t>(b));
}
__GDRCHECK_API constexpr ncclGinFenceLevel operator&(ncclGinFenceLevel a, ncclGinFenceLevel b) {
    return static_cast<ncclGinFenceLevel>(static_cast<uint32_t>(a) & static_cast<uint32_t>(b));
}

extern "C" {
/* ncclGin::signal(team, peer, ncclGin_SignalInc{signal}, ncclCoopThread(), ncclGin_None(),
 * givenRelease) of gin_barrier__funcs.h:104-106 to world rank `peer`, on barrier resource
 * `resource`'s signal `signal` (relative to the handle's signal0) */
__device__ void __gdrcheck_gin_barrier_signal(int context, int peer, uint32_t resource,
                                              uint32_t signal, int givenSystem);
/* gin_barrier__funcs.h:107-116: waitVal = ++shadow of the signal; waitSignal(ncclCoopThread(),
 * signal, waitVal, 32, order) */
__device__ void __gdrcheck_gin_barrier_wait(uint32_t resource, uint32_t signal, int order);
/* a barrier the configuration cannot decide (refused at the caller's line) */
__device__ void __gdrcheck_gin_barrier_refuse(int why);
}

/* gin_barrier.h:54-73 and impl/gin_barrier__types.h:20-34; the functions are those of
 * impl/gin_barrier__funcs.h:13-34 and :68-172, for one context (ncclGin) and no timeout.
 * The signal shadows (gin_barrier__funcs.h:107-108) are NCCL's per-signal counters of the
 * waits posted: the extraction keeps them per rank, starting at 0 (one launch: the
 * signals and their shadows are fresh). */
template <typename Coop>
struct ncclGinBarrierSession {
    Coop coop;
    ncclGin net;
    ncclTeam team;
    ncclGinBarrierHandle handle;
    int index;
    ncclGinSignal_t signal;

    /* gin_barrier__funcs.h:13-19 */
    __device__ __forceinline__ ncclGinBarrierSession(Coop c, ncclGin n, ncclTeam tm,
                                                     ncclGinBarrierHandle h, uint32_t barrierIndex)
        : coop(c), net(n), team(tm), handle(h), index((int)barrierIndex) {
        signal = barrierIndex * team.nRanks; /* + handle.signal0: the resource names it */
    }
    /* gin_barrier__funcs.h:29-33 */
    __device__ __forceinline__ ncclGinBarrierSession(Coop c, ncclGin n, ncclTeamTagWorld,
                                                     uint32_t barrierIndex)
        : ncclGinBarrierSession(c, n, ncclTeamWorld(n.comm), n.comm.worldGinBarrier,
                                barrierIndex) {}
    ncclGinBarrierSession(ncclGinBarrierSession const &) = delete; /* gin_barrier.h:68 */

    /* gin_barrier.h:70-71; gin_barrier__funcs.h:71-165 (syncInternal<false>) */
    __device__ __forceinline__ void sync(Coop, cuda::memory_order ord,
                                         ncclGinFenceLevel fence = ncclGinFenceLevel::Put |
                                                                   ncclGinFenceLevel::Get) {
        coop.sync();
        /* gin_barrier__funcs.h:128 */
        int nPeerSigs = (fence & ncclGinFenceLevel::Put) ? team.nRanks : team.nRanks - 1;
        /* gin_barrier__funcs.h:148-153 */
        for (int i = coop.thread_rank(); i < nPeerSigs; i += coop.size()) {
            int peer = 1 + team.rank + i;
            if (team.nRanks <= peer) peer -= team.nRanks;
            /* signalAndWait, gin_barrier__funcs.h:103-119 */
            __gdrcheck_gin_barrier_signal(
                net.contextIndex, net.world(team, peer), handle.signal0, signal + team.rank,
                __gdrcheck_releaseOrderOf(ord) != cuda::memory_order_relaxed ? 0 : 1);
            __gdrcheck_gin_barrier_wait(handle.signal0, signal + peer,
                                        (int)__gdrcheck_acquireOrderOf(ord));
        }
        /* gin_barrier__funcs.h:158-160 (fenceFlush: this->net.flush(this->coop, order)) */
        if (fence & ncclGinFenceLevel::Get) net.flush(coop, __gdrcheck_acquireOrderOf(ord));
        coop.sync(); /* gin_barrier__funcs.h:163 */
    }
};

/* ---- hybrid barrier sessions: src/include/nccl_device/barrier.h:18-41 ------------------- */

/* ncclTeamRail, impl/core__funcs.h:35-41 (NCCL's code, the division exact: every node has
 * lsaSize ranks, which the extraction checks) */
__GDRCHECK_API ncclTeam ncclTeamRail(ncclDevComm const &comm) {
    ncclTeam ans;
    ans.nRanks = comm.nRanks / comm.lsaSize;
    ans.rank = comm.rank / comm.lsaSize;
    ans.stride = comm.lsaSize;
    if (comm.nRanks % comm.lsaSize != 0) __gdrcheck_gin_barrier_refuse(1);
    return ans;
}

/* barrier.h:18-41, impl/barrier__types.h:14-26, impl/barrier__funcs.h:29-39 (the world
 * constructor) and :82-98 (sync). The optional members are present (the world constructor
 * makes all three). */
template <typename Coop>
struct ncclBarrierSession {
    Coop coop;
    ncclGin gin;
    ncclLsaBarrierSession<Coop> innerLsaBar;
    ncclGinBarrierSession<Coop> outerRailGinBar;
    ncclGinBarrierSession<Coop> outerWorldGinBar;

    /* barrier.h:25; barrier__funcs.h:29-39 */
    __device__ __forceinline__ ncclBarrierSession(Coop c, ncclTeamTagWorld, ncclGin g,
                                                  uint32_t index, bool multimem = false)
        : coop(c), gin(g),
          innerLsaBar(c, g.comm, ncclTeamLsa(g.comm), g.comm.hybridLsaBarrier, index, multimem),
          outerRailGinBar(c, g, ncclTeamRail(g.comm), g.comm.hybridRailGinBarrier, index),
          outerWorldGinBar(c, g, ncclTeamWorld(g.comm), g.comm.hybridWorldGinBarrier, index) {}
    ncclBarrierSession(ncclBarrierSession const &) = delete; /* barrier.h:30 */

    /* barrier.h:32-33; barrier__funcs.h:60-72 */
    __device__ __forceinline__ ncclLsaBarrierSession<Coop> &lsaBarrier() { return innerLsaBar; }
    __device__ __forceinline__ ncclGinBarrierSession<Coop> &ginBarrier() { return outerRailGinBar; }

    /* barrier.h:35-36; barrier__funcs.h:82-98. useWorldForFence (barrier__funcs.h:76-79)
     * is false without ncclGinFenceLevel::Put; with Put it reads comm.ginContextsRailed,
     * a property of the communicator the configuration does not give: refused. */
    __device__ __forceinline__ void sync(Coop, cuda::memory_order ord,
                                         ncclGinFenceLevel fence = ncclGinFenceLevel::Put |
                                                                   ncclGinFenceLevel::Get) {
        if (fence & ncclGinFenceLevel::Put) __gdrcheck_gin_barrier_refuse(2);
        innerLsaBar.sync(coop, __gdrcheck_releaseOrderOf(ord));
        outerRailGinBar.sync(coop, __gdrcheck_acquireOrderOf(ord), fence);
    }
};
#endif
