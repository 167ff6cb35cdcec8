// gdrcheck-mutant of 04_rmsnorm_hybrid.cu: the LSA barrier after phase 1 is relaxed
// (memory_order_relaxed for memory_order_acq_rel, main.cu:177), on one node (--nodes 0,0,
// where that barrier alone orders the peers' phase-1 stores). Expected: Allowed under
// gin-api. A relaxed arrive has no release fence (lsa_barrier__funcs.h:69-71 fences with
// releaseOrderOf(order), utility.h:350) and a relaxed wait no acquire (acquireOrderOf,
// utility.h:345), so the reduction (main.cu:194-199) may read the peer's slot of
// window_recv before the peer's store into it (main.cu:165; R-PTX-2: relaxed accesses
// form no release or acquire pattern), still 0 (ncclMemAlloc'd memory, 0 here), and the
// normalised token differs from the host's reference.
// NVIDIA/nccl@5067397c docs/examples/07_kernel_fusion/04_rmsnorm_hybrid/c/main.cu, lines
// 1-267: the kernel, unmodified apart from the lines marked gdrcheck, with the device
// functions of include/rmsnorm_utils.cuh (l.18-108) in place of its #include; rms_norm and
// main (lines 269-456) are left out and their host side is the functions at the end.
// Expected (the host's check, main.cu:407-417 and rmsnorm_utils.cuh:171-183: every element
// of the rank's window_send is within the tolerances of the reference; main.cu:442-445
// reports FAILED otherwise): Forbidden under gin-api, in both configurations.
// Two nodes (--nodes 0,1: the peer is remote, each LSA team is the rank alone): as
// 03_rmsnorm_gin, phase 1 puts the peer's partial with a weak signal (main.cu:139-156,
// R-GIN-4), the owner waits for numRemotePeers increments (main.cu:171, an acquire,
// R-GIN-10) and flushes (main.cu:173, R-GIN-8) before the world barrier that precedes the
// peer's phase-3 put into window_send (main.cu:234, 240-252), which the second wait covers
// (main.cu:263); the rank's own slot goes through LSA stores (main.cu:159-167, 254-259).
// One node (--nodes 0,0: no GIN put, numRemotePeers 0): phase 1's stores into the peers'
// window_recv (main.cu:159-167) come before the LSA barrier (acq_rel, main.cu:177: "publish
// our same-node stores and acquire peer same-node stores", lsa_barrier__funcs.h:68-137)
// and the reduction after it; the peers' phase-1 reads of window_send come before their
// release of that barrier, so this rank's phase-3 stores into them (main.cu:254-259, after
// the barrier) are not read there; the last barrier (a release, main.cu:266) and the
// stream order's fence before the host reads make those stores visible to the peer's host
// (litmus/lsa/25-lsa-barrier.litmus). The extraction assumes (docs/kernels.md, "Assumed
// values"): window_send is both phase 1's source and phase 3's destination; the verdict
// proves the assumption too.
// --host-order stream: the host code is ordered with its own rank's kernel only.
// --unroll 1: the only loops on values read are the waits' spins (docs/kernels.md).
// The configuration: 2 ranks, one CTA of one thread (main's launch is tokens_per_gpu CTAs
// of 256 threads), sequence_length 2 (one token a rank), hidden_dim 1, eps 1 (main.cu:276
// passes 1e-6: with one dimension x * rsqrt(x^2 + 1e-6) is 1 within the tolerance whatever
// the sum x, so a wrong sum would pass the check; with eps 1 it is x / sqrt(x^2 + 1), which
// tells the sums apart). 4 ranks on two nodes (the smallest mix of LSA peers and remote
// peers: NCCL's rail team needs equal nodes, core__funcs.h:35-41) are refused: the host
// check's comparison of 4 tokens, each a table over the values read, passes 20,000 litmus
// instructions (docs/kernels.md).
// gdrcheck: --kernel RMSNormHybrid --ranks 2 --nodes 0,0 --grid 1 --block 1 \
//   --arg sequence_length=2 --arg hidden_dim=1 --arg eps=1 \
//   --init host_init --check host_check --host-order stream --unroll 1 \
//   -m gin-api --expect gin-api:Allowed
/*************************************************************************
 * SPDX-FileCopyrightText: Copyright (c) 2026 NVIDIA CORPORATION & AFFILIATES. All rights reserved.
 * SPDX-License-Identifier: Apache-2.0
 *
 * See LICENSE.txt for more license information
 *************************************************************************/

/*
 * RMSNorm with Hybrid LSA/GIN Communication
 *
 * This example demonstrates fused computation and communication for distributed
 * RMSNorm using a hybrid approach that combines Load Store Accessible (LSA) for
 * intra-node communication and GIN (GPU-Initiated Networking) for inter-node
 * communication. This pattern is ideal for multi-node systems where GPUs within
 * a node can use fast NVLink (LSA) while communicating across nodes via network (GIN).
 *
 * The kernel performs three phases in a single launch:
 *   1. Reduce-Scatter: Gather and sum partial results using hybrid LSA/GIN
 *   2. RMS Normalization: Compute and apply RMSNorm to each token
 *   3. All-Gather: Broadcast normalized results using hybrid LSA/GIN
 */

#include "cuda_runtime.h" // gdrcheck-host: rmsnorm_utils.cuh:11-12 include <cuda_runtime.h> and "nccl_device.h"
#include "nccl_device.h"
#include <assert.h> // gdrcheck-host: for the host check below
// gdrcheck-cut: #include "utils.h" (host code only) and #include "rmsnorm_utils.cuh"; of the
// gdrcheck-cut: latter, lines 18-108 (the device functions) follow, unmodified; its host
// gdrcheck-cut: functions (l.110-183) are with the host code at the end
//==============================================================================
// Multimem operations (require SM 9.0+)
//==============================================================================
#if __CUDA_ARCH__ >= 900

/**
 * Load and reduce (sum) from multimem address across all LSA peers.
 * Uses PTX multimem.ld_reduce.global.add.f32 instruction.
 * @param addr  Multimem pointer (from ncclGetLsaMultimemPointer)
 * @return      Sum of values from all peers at this address
 */
__device__ __forceinline__ float multimemLoadSum(const float* addr) {
  float value;
  asm volatile("multimem.ld_reduce.global.add.f32 %0, [%1];"
               : "=f"(value)
               : "l"(__cvta_generic_to_global(addr))
               : "memory");
  return value;
}

/**
 * Store value to multimem address (broadcasts to all LSA peers).
 * Uses PTX multimem.st.global.b32 instruction.
 * @param addr  Multimem pointer (from ncclGetLsaMultimemPointer)
 * @param val   Value to store
 */
__device__ __forceinline__ void multimemStore(float* addr, float val) {
  asm volatile("multimem.st.global.b32 [%0], %1;"
               :: "l"(__cvta_generic_to_global(addr)), "f"(val)
               : "memory");
}

#else

__device__ __forceinline__ float multimemLoadSum(const float* addr) {
  (void)addr;  /* Suppress unused parameter warning */
  assert(false && "multimemLoadSum requires CUDA architecture >= 900 (sm_90 or higher)");
  return 0.0f;
}

__device__ __forceinline__ void multimemStore(float* addr, float val) {
  (void)addr;  /* Suppress unused parameter warning */
  (void)val;   /* Suppress unused parameter warning */
  assert(false && "multimemStore requires CUDA architecture >= 900 (sm_90 or higher)");
}

#endif // __CUDA_ARCH__ >= 900

/**
 * Block-level RMS Normalization
 *
 * Performs RMS normalization on a token using all threads in a block.
 * Uses shared memory for efficient parallel reduction.
 *
 * Algorithm:
 *   1. Each thread computes sum of squares for its elements
 *   2. Block-level reduction to get total sum of squares
 *   3. Compute RMS = sqrt(mean_sq + eps)
 *   4. Each thread normalizes its elements by dividing by RMS
 *
 * @param token_data        Pointer to token data (modified in-place)
 * @param hidden_dim        Dimensionality of the token
 * @param eps               Epsilon for numerical stability
 * @param reduction_buffer  Shared memory buffer (size >= blockDim.x floats)
 * @param coop              CTA cooperation handle (use ncclCoopCta() / coop.sync() for block sync)
 */
__device__ __forceinline__ void blockRMSNorm(
    float* token_data, int hidden_dim, float eps, float* reduction_buffer,
    ncclCoopCta coop) {
  float thread_sum = 0.0f;
  for (int i = threadIdx.x; i < hidden_dim; i += blockDim.x) {
    float val = token_data[i];
    thread_sum += val * val;
  }
  reduction_buffer[threadIdx.x] = thread_sum;
  coop.sync();

  for (int s = blockDim.x / 2; s >= 1; s /= 2) {
    if (threadIdx.x < s) {
      reduction_buffer[threadIdx.x] += reduction_buffer[threadIdx.x + s];
    }
    coop.sync();
  }

  float rms_scale = rsqrtf((reduction_buffer[0] / hidden_dim) + eps);

  for (int i = threadIdx.x; i < hidden_dim; i += blockDim.x) {
    token_data[i] *= rms_scale;
  }
  coop.sync();
}
// gdrcheck-cut: #include "nccl_device.h" (above)

// Kernel: Fused RMSNorm with Hybrid LSA/GIN Communication
//==============================================================================
/*
 * Performs distributed RMSNorm using hybrid LSA/GIN communication.
 *
 * Grid Configuration:
 *   - Grid dimension: tokens_per_gpu (one block per token)
 *   - Block dimension: threads_per_block (typically 256)
 *   - Shared memory: threads_per_block floats for block-level reduction
 *
 * Memory Layout:
 *   - window_send: Source window containing input data (tokens x hidden dimension)
 *   - window_recv: Receive window for gathering contributions (tokens x hidden dimension)
 *     The receive window is structured to hold contributions from all peers
 *     in a strided layout: [peer0_data, peer1_data, ..., peerN_data]
 *
 * Communication Pattern:
 *   - Phase 1: Each GPU sends its token data to all peers (hybrid LSA/GIN)
 *              Peers accumulate data in strided layout in window_recv
 *   - Phase 3: Each GPU broadcasts normalized results back to all peers
 *              (hybrid LSA/GIN) to update their window_send buffers
 *
 * Synchronization:
 *   - Signals apply only to remote peers: remote PUT (gin.put) uses ncclGin_WeakSignalInc to
 *     add one completion increment on the destination rank, so waitSignal counts inbound signaled PUTs from remote
 *     (non-LSA) peers only (numRemotePeers = nRanks - lsa.nRanks per round). LSA
 *     stores do not increment this counter—an explicit LSA sub-barrier orders
 *     the LSA path.
 *   - Phase 1: gin.waitSignal waits until every remote peer has finished PUT of its
 *     partial contribution for token_idx (this rank and block's token) into this
 *     rank's window_recv. Same-node peers use LSA stores into recv instead (no signal);
 *     bar.lsaBarrier().sync(acq_rel) after wait + flush publishes local LSA stores
 *     and acquires same-node peers' LSA stores before reduction.
 *   - Phase 3: second wait until every remote peer has finished signaled PUT for
 *     all-gather into this rank's window_send; LSA copies are fenced by barriers.
 *   - gin.flush completes outbound GIN operations locally so window_send / window_recv
 *     regions used as PUT sources can be safely reused (LSA paths unaffected).
 *   - World-team bar.sync (acquire at kernel entry; release before Phase 3;
 *     ncclGinFenceLevel::None) aligns cross-node phases. The Phase 1 reduction
 *     consumes data after remote GIN signal waits and the LSA sub-barrier.
 *   - Signal thresholds accumulate across phases (no reset); each phase adds
 *     numRemotePeers remote completion increments to this block's signalIndex.
 *
 * Parameters:
 *   window_send     - Window for sending data (source and final destination)
 *   window_recv     - Window for receiving data (intermediate staging)
 *   devComm         - NCCL device communicator with GIN context
 *   sequence_length - Total number of tokens across all GPUs
 *   hidden_dim      - Dimensionality of each token
 *   eps             - Epsilon for numerical stability
 */
__global__ void RMSNormHybrid(ncclWindow_t window_send, ncclWindow_t window_recv, ncclDevComm devComm,
                              const int sequence_length, const int hidden_dim, const float eps) {

  // Shared memory buffer for reduction
  extern __shared__ float reduction_buffer[];

  ncclCoopCta coop = ncclCoopCta();

  //----------------------------------------------------------------------------
  // Initialize GIN context and synchronization primitives
  //----------------------------------------------------------------------------
  // Use multiple GIN contexts to spread blocks across network communication channels.
  // This improves parallel communication performance by utilizing all available contexts.
  int ginContext = blockIdx.x % devComm.ginContextCount;
  unsigned int signalIndex = blockIdx.x;  // Each block uses its own signal
  ncclGin gin { devComm, ginContext };
  uint64_t signalValue = gin.readSignal(signalIndex);

  const int rank = devComm.rank;
  const int nRanks = devComm.nRanks;
  const int token_idx = rank * gridDim.x + blockIdx.x;  // Global token index

  ncclTeam world = ncclTeamWorld(devComm);
  ncclTeam lsa = ncclTeamLsa(devComm);
  const int startLsa = world.rank - lsa.rank;
  const int lsaSize = lsa.nRanks;
  const int numRemotePeers = world.nRanks - lsa.nRanks;

  ncclBarrierSession<ncclCoopCta> bar { coop, ncclTeamTagWorld(), gin, blockIdx.x };
  bar.sync(coop, cuda::memory_order_acquire, ncclGinFenceLevel::None);

  //============================================================================
  // Phase 1: Reduce-Scatter via Hybrid LSA/GIN Communication
  //============================================================================
  // This block owns one token: token_idx = rank * gridDim.x + blockIdx.x.
  // Each block sends its token data to all peer GPUs using hybrid communication:
  //   - Remote peers (outside LSA team): PUT (gin.put) with a completion signal (signals only here)
  //   - Local peers (within LSA team): direct LSA stores into window_recv (no signal)
  //
  // Receive layout (peer-major in each rank's window): for global peer p, the H*B
  // floats are [token0][token1]...[token_{B-1}]. Offset p*H*B + b*H + j for peer p,
  // local token b, dim j. Block b uses base &recv[b*H]; peer p at j + p*H*B.
  //   H = hidden_dim, B = tokens_per_gpu (gridDim.x)
  //
  // Communication Pattern:
  //   Each thread initiates PUTs (gin.put) to remote peers (stride blockDim.x)
  //   and direct LSA writes to local peers. All peers send concurrently.
  //
  // Synchronization:
  //   - gin.waitSignal(signalValue + numRemotePeers): every remote peer has finished
  //     its signaled PUT delivering its partial for token_idx into this rank's
  //     window_recv (numRemotePeers increments only—LSA peers are not in this count).
  //   - gin.flush: complete outbound GIN PUTs locally so window_send slices used as
  //     Phase 1 PUT sources can be safely reused.
  //   - bar.lsaBarrier().sync(acq_rel): publish this rank's LSA stores and acquire
  //     same-node peers' LSA stores before reduction loads.
  //----------------------------------------------------------------------------

  size_t my_window_offset = (token_idx * hidden_dim) * sizeof(float);

  // Remote peers: PUT (peers before LSA team)
  for (int peer = threadIdx.x; peer < startLsa; peer += blockDim.x) {
    const int peer_token_idx = peer * gridDim.x + blockIdx.x;
    size_t peer_window_offset = (peer_token_idx * hidden_dim) * sizeof(float);

    gin.put(ncclTeamWorld(devComm), peer, window_recv, my_window_offset,
            window_send, peer_window_offset, sizeof(float) * hidden_dim,
            ncclGin_WeakSignalInc{signalIndex});
  }

  // Remote peers: PUT (peers after LSA team)
  for (int peer = startLsa + lsaSize + threadIdx.x; peer < nRanks; peer += blockDim.x) {
    const int peer_token_idx = peer * gridDim.x + blockIdx.x;
    size_t peer_window_offset = (peer_token_idx * hidden_dim) * sizeof(float);

    gin.put(ncclTeamWorld(devComm), peer, window_recv, my_window_offset,
            window_send, peer_window_offset, sizeof(float) * hidden_dim,
            ncclGin_WeakSignalInc{signalIndex});
  }

  // Send to local peers using LSA direct writes
  for (size_t offset = threadIdx.x; offset < hidden_dim; offset += blockDim.x) {
    for (int lp = 0; lp < lsa.nRanks; lp++) {
      const int peer_token_idx = (lp + startLsa) * gridDim.x + blockIdx.x;
      size_t peer_window_offset = (peer_token_idx * hidden_dim) * sizeof(float);
      float* sendPtr = (float*)ncclGetLocalPointer(window_send, peer_window_offset);
      float* recvPtr = (float*)ncclGetLsaPointer(window_recv, my_window_offset, lp);
      recvPtr[offset] = sendPtr[offset];
    }
  }

  // Remote peers only: wait until each has completed its signaled PUT with its
  // contribution for token_idx into this rank's window_recv (reduce-scatter GIN leg).
  gin.waitSignal(coop, signalIndex, signalValue + numRemotePeers);
  // Flush outbound GIN Phase 1 PUTs so window_send sources are safe to reuse.
  gin.flush(coop);

  // LSA sub-barrier: publish our same-node stores and acquire peer same-node stores.
  // Remote GIN contributions are covered by the waitSignal above.
  bar.lsaBarrier().sync(coop, cuda::memory_order_relaxed); // gdrcheck-mutant: memory_order_acq_rel

  //----------------------------------------------------------------------------
  // Reduction: Sum contributions from all peers
  //----------------------------------------------------------------------------
  // After the reduce-scatter phase, the receive window contains contributions
  // from all peers in a strided layout. We need to sum across the peer dimension.
  //
  // Contiguous layout: token0_peer0, token1_peer0, ..., token_{B-1}_peer0, then
  // token0_peer1, token1_peer1, ... (same peer-major order as 03_rmsnorm_gin).
  //
  // Each thread reduces a subset of dimensions, summing across all peer contributions.

  float *my_token_data = (float*)ncclGetLocalPointer(window_recv, blockIdx.x * hidden_dim * sizeof(float));

  // Sum across all peer contributions for this dimension, using the first row of the
  // corresponding token as a buffer, therefore skip index 0 to avoid adding twice
  for (int peer = 1; peer < nRanks; peer++) {
    for (int j = threadIdx.x; j < hidden_dim; j += blockDim.x) {
      my_token_data[j] += my_token_data[j + peer * hidden_dim * gridDim.x];
    }
  }

  coop.sync();

  //============================================================================
  // Phase 2: RMS Normalization
  //============================================================================
  // Normalize the reduced token data using block-level RMSNorm.
  // All threads in the block collaborate to compute RMS and apply normalization.
  //----------------------------------------------------------------------------
  blockRMSNorm(my_token_data, hidden_dim, eps, reduction_buffer, coop);

  //============================================================================
  // Phase 3: All-Gather via Hybrid LSA/GIN Communication
  //============================================================================
  // Broadcast the normalized token back to all GPUs using hybrid communication:
  //   - Remote peers: use PUT (gin.put)
  //   - Local peers: Use direct LSA memory writes
  //
  // Each GPU needs the complete normalized results for the next layer computation.
  //
  // Communication Pattern:
  //   Each thread writes to a subset of remote peers (stride blockDim.x) via GIN
  //   and to all local peers via LSA. The normalized data from window_recv is
  //   copied to the appropriate position in each peer's window_send buffer.
  //
  // Synchronization:
  //   bar.sync(release) before Phase 3 publishes Phase 2 stores and participates in
  //   the world-team barrier so no rank starts Phase 3 PUT/LSA until every rank has finished
  //   normalization.
  //   GIN signals (remote peers only): after Phase 1 wait the counter rose by
  //   numRemotePeers; Phase 3 wait adds another numRemotePeers (signalValue +
  //   2*numRemotePeers). LSA all-gather uses stores; bar.sync fences them.
  //----------------------------------------------------------------------------

  // Release: publish normalization writes before Phase 3 PUTs / LSA writes
  bar.sync(coop, cuda::memory_order_release, ncclGinFenceLevel::None);

  size_t final_token_offset = (token_idx * hidden_dim) * sizeof(float);
  my_window_offset = (blockIdx.x * hidden_dim) * sizeof(float);

  // Remote peers: PUT (peers before LSA team)
  for (int peer = threadIdx.x; peer < startLsa; peer += blockDim.x) {
    gin.put(ncclTeamWorld(devComm), peer, window_send, final_token_offset,
            window_recv, my_window_offset, sizeof(float) * hidden_dim,
            ncclGin_WeakSignalInc{signalIndex});
  }

  // Remote peers: PUT (peers after LSA team)
  for (int peer = startLsa + lsaSize + threadIdx.x; peer < nRanks; peer += blockDim.x) {
    gin.put(ncclTeamWorld(devComm), peer, window_send, final_token_offset,
            window_recv, my_window_offset, sizeof(float) * hidden_dim,
            ncclGin_WeakSignalInc{signalIndex});
  }

  // Send to local peers using LSA direct writes
  for (size_t offset = threadIdx.x; offset < hidden_dim; offset += blockDim.x) {
    for (int lp = 0; lp < lsa.nRanks; lp++) {
      float* sendPtr = (float*)ncclGetLsaPointer(window_send, final_token_offset, lp);
      sendPtr[offset] = my_token_data[offset];
    }
  }

  // Remote peers only: wait until each has completed signaled Phase 3 PUT into
  // this rank's window_send (all-gather network leg). LSA writes use barriers, not signals.
  gin.waitSignal(coop, signalIndex, signalValue + 2 * numRemotePeers);
  // Flush outbound GIN Phase 3 PUTs so window_recv staging used as source is consumed.
  gin.flush(coop);
  bar.sync(coop, cuda::memory_order_release, ncclGinFenceLevel::None);
}

//==============================================================================
// Host code (gdrcheck-host): rms_norm (main.cu:272-449) around the launch, as the functions
// --init and --check run in stream order on each rank (docs/kernels.md, "Host code").
//==============================================================================
// gdrcheck-note: rmsnorm_utils.cuh:118-128 draws data[i] += dis(gen) from std::mt19937(initial_seed + rank) through std::uniform_real_distribution<float>(0, 1); here data[i] += rank + 2 + i, small integer floats (the multimem examples' reduction adds the values as litmus integers, docs/kernels.md "Floats in memory"; the reference below is computed from the same values)
__device__ inline void initialize_data(float* data, int tensor_size, int rank,
                                       int initial_seed = 42, bool clear_first = true) {
  if (clear_first) {
    memset(data, 0, tensor_size * sizeof(float));
  }
  for (int i = 0; i < tensor_size; i++) {
    data[i] += (float)(rank + 2 + i);
  }
}

// rmsnorm_utils.cuh:140-160, unmodified but for __device__ (the host code runs in the check)
__device__ inline void rms_norm_generate(float* data, int tensor_size, int sequence_length, // gdrcheck-note: inline void
                              int hidden_size, int total_ranks, float eps,
                              int initial_seed = 42) {
  // Clear data only once to accumulate results from all ranks
  memset(data, 0, tensor_size * sizeof(float));
  for (int i = 0; i < total_ranks; i++) {
    initialize_data(data, tensor_size, i, initial_seed, false);
  }

  // Perform RMSNorm for each token
  for (int i = 0; i < sequence_length; i++) {
    float sum_of_squares = 0.0f;
    for (int j = 0; j < hidden_size; j++) {
      sum_of_squares += data[i * hidden_size + j] * data[i * hidden_size + j];
    }
    float rms = 1.0f / sqrtf(sum_of_squares / hidden_size + eps);
    for (int j = 0; j < hidden_size; j++) {
      data[i * hidden_size + j] *= rms;
    }
  }
}

// rmsnorm_utils.cuh:171-183, unmodified but for __device__
__device__ inline bool verify_results(const float* data, const float* expected_data, // gdrcheck-note: inline bool
                           int tensor_size, float abs_tolerance = 1e-5f,
                           float rel_tolerance = 1e-4f) {
  bool success = true;
  for (int i = 0; i < tensor_size; i++) {
    float abs_error = fabsf(data[i] - expected_data[i]);
    float rel_error = abs_error / (fabsf(expected_data[i]) + 1e-10f);
    if (abs_error >= abs_tolerance && rel_error >= rel_tolerance) {
      success = false;
    }
  }
  return success;
}

#define GDRCHECK_MAX_TENSOR 8 // gdrcheck-host: the host's malloc(tensor_size_bytes) as a local array (sequence_length * hidden_dim at most 8)

// gdrcheck-host: main.cu:344-362, initialize_data(h_data, tensor_size, my_rank) and its copy
// into window_send's buffer d_data_send before the launch (cudaMemcpy, main.cu:362; the
// launch is on stream, main.cu:394-395); window_recv is not initialised (ncclMemAlloc,
// main.cu:358: the litmus location starts at 0)
__device__ void host_init(ncclWindow_t window_send, ncclWindow_t window_recv,
                          ncclDevComm devComm, const int sequence_length,
                          const int hidden_dim, const float eps) {
  const int tensor_size = sequence_length * hidden_dim;
  float h_data[GDRCHECK_MAX_TENSOR];
  initialize_data(h_data, tensor_size, devComm.rank);
  float *d_data_send = (float *)ncclGetLocalPointer(window_send, 0);
  for (int i = 0; i < tensor_size; i++) d_data_send[i] = h_data[i];
}

// gdrcheck-host: main.cu:397-417, after cudaStreamSynchronize the reference of every rank's
// data (rms_norm_generate) against the rank's copy of window_send (verify_results);
// main.cu:442-445 reports FAILED when it is false
__device__ void host_check(ncclWindow_t window_send, ncclWindow_t window_recv,
                           ncclDevComm devComm, const int sequence_length,
                           const int hidden_dim, const float eps) {
  const int tensor_size = sequence_length * hidden_dim;
  float h_data[GDRCHECK_MAX_TENSOR];
  rms_norm_generate(h_data, tensor_size, sequence_length, hidden_dim, devComm.nRanks, eps);
  const float *h_data_validation = (const float *)ncclGetLocalPointer(window_send, 0);
  bool success = verify_results(h_data_validation, h_data, tensor_size);
  assert(success);
}
