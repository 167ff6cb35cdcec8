// NVIDIA/nccl@5067397c docs/examples/07_kernel_fusion/03_rmsnorm_gin/c/main.cu, lines 1-212:
// the kernel, unmodified apart from the lines marked gdrcheck, with the device functions of
// include/rmsnorm_utils.cuh (l.18-108) in place of its #include; rms_norm and main (lines
// 214-401) are left out and their host side is the functions at the end.
// Mutant (gdrcheck-mutant): the phase-1 wait counts nRanks - 1 increments (main.cu:135), as
// if a rank's put to itself (the loop of main.cu:123-131 includes peer == rank) carried no
// signal. Expected: Allowed under gin-api: the wait returns once either put's increment
// has arrived (the signal counts every inbound put on signalIndex, main.cu:50-52), and the
// other put's data is ordered before nothing the reduction does (R-GIN-4: a weak signal
// guarantees its own put only), so the sum (main.cu:159) may read the still-zero slot of
// window_recv, and the normalised token differs from the host's reference.
// Of the original: expected (the host's check, main.cu:349-362 and rmsnorm_utils.cuh:171-183: every element
// of the rank's window_send is within the tolerances of the reference; main.cu:387-390
// reports FAILED otherwise): Forbidden under gin-api. Phase 1 puts this rank's partial of
// each peer's token into the peer's window_recv with a weak signal increment
// (main.cu:123-131), which guarantees that put (gin.h:80-81, R-GIN-4); the owner waits for
// nRanks increments (main.cu:135, an acquire, gin.h:352-354, R-GIN-10) before it sums them
// (main.cu:156-160); the flush (main.cu:138, local completion: the sources are read,
// R-GIN-8) and the release barrier (main.cu:193) come before the peers' phase-3 puts
// overwrite window_send with the normalised tokens (main.cu:198-203), and the second wait
// (main.cu:207, 2 * nRanks increments) orders those before the kernel ends and the host
// reads (stream order, main.cu:342-359). The extraction assumes (docs/kernels.md, "Assumed
// values"): without it, the phase-1 put's copy of window_send would carry the phase-3
// values around the loop; the verdict proves the assumption too.
// --host-order stream: the host code is ordered with its own rank's kernel only.
// --unroll 1: the only loops on values read are the waits' spins (docs/kernels.md).
// The configuration: 2 ranks on two nodes (GIN between them), one CTA of one thread
// (main's launch is tokens_per_gpu CTAs of 256 threads), sequence_length 2 (one token a
// rank), hidden_dim 1, eps 1 (main.cu:221 passes 1e-6: with one dimension x * rsqrt(x^2 +
// 1e-6) is 1 within the tolerance whatever the sum x, so a wrong sum would pass the check;
// with eps 1 it is x / sqrt(x^2 + 1), which tells the sums apart).
// gdrcheck: --kernel RMSNormGIN --ranks 2 --nodes 0,1 --grid 1 --block 1 \
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
 * RMSNorm with GPU-Initiated Networking (GIN)
 *
 * This example demonstrates fused computation and communication for distributed
 * RMSNorm using NCCL's GPU-Initiated Networking (GIN) mechanism. GIN enables
 * GPU kernels to directly initiate network communication without CPU involvement,
 * supporting both intra-node and inter-node communication.
 *
 * The kernel performs three phases in a single launch:
 *   1. Reduce-Scatter: Gather and sum partial results using GIN PUT
 *   2. RMS Normalization: Compute and apply RMSNorm to each token
 *   3. All-Gather: Broadcast normalized results using GIN PUT
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

// Kernel: Fused RMSNorm with GIN Communication
//==============================================================================
/*
 * Performs distributed RMSNorm using GIN for network-based communication.
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
 *   - Phase 1: One thread block per token on this rank. Each block exchanges partial
 *     activations so every rank's receive window holds all peers' contributions for
 *     the tokens it owns, then reduces (sums) in place to the full activation.
 *   - Phase 3: Each GPU broadcasts normalized results back to all peers using
 *              PUT (gin.put) to update their window_send buffers
 *
 * Synchronization:
 *   - Each PUT (gin.put) uses ncclGin_WeakSignalInc on the peer, which adds one
 *     completion increment to that peer's local signal; waitSignal/readSignal on a rank therefore count inbound signaled PUTs
 *     from others. For outbound PUTs, gin.flush ensures this rank's pending GIN work has
 *     locally consumed its source buffers so those regions (e.g. slices of window_send /
 *     window_recv used as PUT sources) can be safely overwritten or reused.
 *   - Phase 1: gin.waitSignal waits until every peer has finished PUT of the partial
 *     contribution for token_idx (the token owned by this rank and block) into this rank's
 *     window_recv—one remote completion signal per peer before we reduce.
 *   - Phase 3: the second wait is the same idea for all-gather: every peer has finished
 *     PUT of the normalized slice this block needs from them into this rank's window_send.
 *   - ncclGinBarrierSession (world team): acquire at kernel entry; release before
 *     Phase 3 and after Phase 3 for collective phase ordering.
 *   - Signal values accumulate across phases (no reset between phases)
 *
 * Parameters:
 *   window_send     - Window for sending data (source and final destination)
 *   window_recv     - Window for receiving data (intermediate staging)
 *   devComm         - NCCL device communicator with GIN context
 *   sequence_length - Total number of tokens across all GPUs
 *   hidden_dim      - Dimensionality of each token
 *   eps             - Epsilon for numerical stability
 */
__global__ void RMSNormGIN(ncclWindow_t window_send, ncclWindow_t window_recv, ncclDevComm devComm,
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

  ncclGinBarrierSession<ncclCoopCta> bar { coop, gin, ncclTeamTagWorld(), blockIdx.x };
  bar.sync(coop, cuda::memory_order_acquire, ncclGinFenceLevel::None);

  //============================================================================
  // Phase 1: Reduce-Scatter via GIN PUT
  //============================================================================
  // This block owns one token: token_idx = rank * gridDim.x + blockIdx.x.
  // (1) Exchange: for each peer, a PUT (gin.put) sends this rank's partial for the slice
  //     that peer needs; symmetrically we receive every peer's contribution for
  //     token_idx into window_recv (strided layout).
  // (2) waitSignal waits for inbound signaled PUT payloads before reduction.
  //     gin.flush ensures our Phase 1 PUT sources in window_send are safe to reuse.
  //
  // Receive layout (peer-major in each rank's window): for peer p = 0..nRanks-1,
  // the H*B floats for that peer are [token0][token1]...[token_{B-1}], each token
  // having H dims. Flat offset from buffer start: p*H*B + b*H + j for peer p,
  // local token index b, dimension j. This block (b = blockIdx.x) uses my_token_data
  // at float offset b*H; peer p contributes at j + p*H*B relative to that pointer.
  //
  // Threading: each thread issues PUTs (gin.put) to a subset of peers (stride blockDim.x).
  //
  // Synchronization: gin.waitSignal(signalValue + nRanks) waits until all peers have
  // finished PUT of their partial contribution for token_idx—the token this rank and
  // block own—into this rank's window_recv (each peer's PUT carries a completion increment on this
  // signalIndex, so the local counter rises by nRanks).
  //----------------------------------------------------------------------------

  size_t my_window_offset = (token_idx * hidden_dim) * sizeof(float);

  for (int peer = threadIdx.x; peer < nRanks; peer += blockDim.x) {
    const int peer_token_idx = peer * gridDim.x + blockIdx.x;
    size_t peer_window_offset = (peer_token_idx * hidden_dim) * sizeof(float);

    // PUT: send our token data to peer's receive window
    gin.put(ncclTeamWorld(devComm), peer, window_recv, my_window_offset,
            window_send, peer_window_offset, sizeof(float) * hidden_dim,
            ncclGin_WeakSignalInc{signalIndex});
  }

  // Wait until every peer has completed its signaled PUT delivering its contribution for
  // token_idx into this rank's window_recv (reduce-scatter gather for this block's token).
  gin.waitSignal(coop, signalIndex, signalValue + devComm.nRanks - 1); // gdrcheck-mutant: main.cu:135 waits for nRanks
  // Flush completes our outbound Phase 1 PUTs locally so window_send regions used as
  // PUT sources can be safely reused by subsequent operations on this rank.
  gin.flush(coop);

  //----------------------------------------------------------------------------
  // Reduction: Sum contributions from all peers
  //----------------------------------------------------------------------------
  // After the reduce-scatter phase, the receive window contains contributions
  // from all peers in a strided layout. We need to sum across the peer dimension.
  //
  // Contiguous layout in window_recv: token0_peer0, token1_peer0, token2_peer0, ...,
  // token_{B-1}_peer0, then token0_peer1, token1_peer1, token2_peer1, ... (peer changes
  // after each block of B*H floats). Reduction uses peer 0's row as accumulator.
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
  // Phase 3: All-Gather via GIN PUT
  //============================================================================
  // Broadcast the normalized token back to all GPUs. Each GPU needs the complete
  // normalized results for the next layer computation.
  //
  // Communication Pattern:
  //   Each thread writes a subset of peers (stride blockDim.x).
  //   The normalized data from window_recv is copied to the appropriate
  //   position in each peer's window_send buffer.
  //
  // Synchronization:
  //   bar.sync(release) before Phase 3 publishes Phase 2 stores and participates in
  //   the world-team barrier so no rank starts Phase 3 PUTs until every rank has finished
  //   normalization. Signal values accumulate across phases.
  //   After Phase 1 wait, the signal has risen by nRanks (one inbound PUT per peer for
  //   token_idx). After Phase 3 wait, by 2*nRanks total (second inbound round per peer).
  //----------------------------------------------------------------------------

  // Release: publish normalization writes before Phase 3 PUTs
  bar.sync(coop, cuda::memory_order_release, ncclGinFenceLevel::None);

  size_t final_token_offset = (token_idx * hidden_dim) * sizeof(float);
  my_window_offset = (blockIdx.x * hidden_dim) * sizeof(float);

  for (int peer = threadIdx.x; peer < nRanks; peer += blockDim.x) {
    // PUT: send normalized data to peer's send window
    gin.put(ncclTeamWorld(devComm), peer, window_send, final_token_offset,
            window_recv, my_window_offset, sizeof(float) * hidden_dim,
            ncclGin_WeakSignalInc{signalIndex});
  }

  // Wait until every peer has completed its signaled PUT for Phase 3 all-gather: each
  // sends its normalized token slice into this rank's window_send where we expect it.
  gin.waitSignal(coop, signalIndex, signalValue + 2 * devComm.nRanks);
  // Phase 3 PUT used window_recv as source; flush lets us treat that staging as consumed
  // before the kernel ends and the host reuses the allocation.
  gin.flush(coop);
  bar.sync(coop, cuda::memory_order_release, ncclGinFenceLevel::None);
}

//==============================================================================
// Host code (gdrcheck-host): rms_norm (main.cu:217-394) around the launch, as the functions
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

// gdrcheck-host: main.cu:289-307, initialize_data(h_data, tensor_size, my_rank) and its copy
// into window_send's buffer d_data_send before the launch (cudaMemcpy, main.cu:307; the
// launch is on stream, main.cu:339-340); window_recv is not initialised (ncclMemAlloc,
// main.cu:302: the litmus location starts at 0)
__device__ void host_init(ncclWindow_t window_send, ncclWindow_t window_recv,
                          ncclDevComm devComm, const int sequence_length,
                          const int hidden_dim, const float eps) {
  const int tensor_size = sequence_length * hidden_dim;
  float h_data[GDRCHECK_MAX_TENSOR];
  initialize_data(h_data, tensor_size, devComm.rank);
  float *d_data_send = (float *)ncclGetLocalPointer(window_send, 0);
  for (int i = 0; i < tensor_size; i++) d_data_send[i] = h_data[i];
}

// gdrcheck-host: main.cu:342-362, after cudaStreamSynchronize the reference of every rank's
// data (rms_norm_generate) against the rank's copy of window_send (verify_results);
// main.cu:387-390 reports FAILED when it is false
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
