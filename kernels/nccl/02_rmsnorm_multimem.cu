// NVIDIA/nccl@5067397c docs/examples/07_kernel_fusion/02_rmsnorm_multimem/c/main.cu, lines
// 1-109: the kernel, unmodified apart from the lines marked gdrcheck, with the device
// functions of include/rmsnorm_utils.cuh (l.18-108: multimemLoadSum and multimemStore,
// l.29-48, blockRMSNorm, l.84-108) in place of its #include; rms_norm and main (lines
// 111-310) are left out and their host side is the functions at the end.
// Expected (the host's check, main.cu:263-273 and rmsnorm_utils.cuh:171-183: every element
// of the rank's window is within the tolerances of the reference): Forbidden under lsa.
// The first barrier (multimem, acquire, main.cu:60-65: each CTA's multimem.red on the
// barrier's mcInbox and an acquire poll until all ranks arrived, lsa_barrier__funcs.h:56-116)
// orders every rank's initialised window (main.cu:219) before this CTA's
// multimem.ld_reduce.add.f32 (main.cu:82, rmsnorm_utils.cuh:29-36), which sums its token
// over the ranks (integer floats, exact: the models' integer sum, docs/kernels.md); the
// normalised token is stored to every rank by multimem.st (main.cu:104,
// rmsnorm_utils.cuh:44-48) and the last barrier (release, main.cu:107-108) orders it before
// the peers' kernels end and their host reads (litmus/multimem/04-ld-reduce+barrier.litmus).
// --host-order stream: the host code is ordered with its own rank's kernel only.
// --unroll 1: the only loops on values read are the barrier's spins (docs/kernels.md).
// The configuration: 2 ranks on one node (one multicast object), one CTA of one thread
// (main's launch is tokens_per_gpu CTAs of 256 threads), sequence_length 2, hidden_dim 1,
// eps 1 (main.cu:118 passes 1e-6: with one dimension x * rsqrt(x^2 + 1e-6) is 1 within the
// tolerance whatever the sum x; with eps 1 the sums 5 (both ranks), 2 or 3 (one) differ).
// gdrcheck: --kernel RMSNormMultimem --ranks 2 --nodes 0,0 --grid 1 --block 1 \
//   --arg sequence_length=2 --arg hidden_dim=1 --arg eps=1 \
//   --init host_init --check host_check --host-order stream --unroll 1 \
//   -m lsa --expect lsa:Forbidden
/*************************************************************************
 * SPDX-FileCopyrightText: Copyright (c) 2026 NVIDIA CORPORATION & AFFILIATES. All rights reserved.
 * SPDX-License-Identifier: Apache-2.0
 *
 * See LICENSE.txt for more license information
 *************************************************************************/

/*
 * RMSNorm with Multimem
 *
 * This example demonstrates fused computation and communication for distributed
 * RMSNorm using NCCL's Load Store Accessible (LSA) mechanism, showcasing
 * Multimem capabilities. LSA enables direct peer-to-peer memory access
 * between GPUs on the same node via NVLink.
 *
 * The kernel performs three phases in a single launch:
 *   1. Reduce-Scatter: Gather and sum partial results from all GPUs
 *   2. RMS Normalization: Compute and apply RMSNorm to each token
 *   3. All-Gather: Broadcast normalized results back to all GPUs
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

// Kernel: Fused RMSNorm with Multimem (LSA) Communication
//==============================================================================
/*
 * Performs distributed RMSNorm using LSA for peer-to-peer communication.
 * This example serves as a Multimem showcase.
 *
 * Grid Configuration:
 *   - Grid dimension: tokens_per_gpu (one block per token)
 *   - Block dimension: threads_per_block (typically 256)
 *   - Shared memory: threads_per_block floats for block-level reduction
 *
 * Memory Layout:
 *   - window: Symmetric LSA window containing all tokens (tokens x hidden dimension)
 *   - Results are stored in-place using ncclGetLocalPointer()
 *
 * Synchronization:
 *   - Uses LSA barriers for fine-grained GPU synchronization
 *   - Each block has its own barrier instance (indexed by blockIdx.x)
 *
 * Parameters:
 *   window          - LSA window for peer memory access
 *   devComm         - NCCL device communicator
 *   sequence_length - Total number of tokens across all GPUs
 *   hidden_dim      - Dimensionality of each token
 *   eps             - Epsilon for numerical stability
 */
__global__ void RMSNormMultimem(ncclWindow_t window, ncclDevComm devComm,
                               const int sequence_length, const int hidden_dim, const float eps) {

  // Shared memory buffer for reduction
  extern __shared__ float reduction_buffer[];

  ncclCoopCta coop = ncclCoopCta();

  // Initialize LSA barrier session for this block
  ncclLsaBarrierSession<ncclCoopCta> bar {
    coop, devComm, ncclTeamTagLsa(), blockIdx.x, /*multimem=*/true
  };

  // Initial synchronization across all GPUs
  bar.sync(coop, cuda::memory_order_acquire);

  //----------------------------------------------------------------------------
  // Calculate offsets for this block's token
  //----------------------------------------------------------------------------
  const int rank = devComm.rank;
  const int token_idx = rank * gridDim.x + blockIdx.x;  // Global token index
  const int window_offset = token_idx * hidden_dim * sizeof(float);
  float* local_pointer = (float*)ncclGetLocalPointer(window, window_offset);
  float* multimem_pointer = reinterpret_cast<float*>(ncclGetLsaMultimemPointer(window, window_offset, devComm));

  //============================================================================
  // Phase 1: Reduce-Scatter via Multimem
  //============================================================================
  // Load and sum from all peers. Each rank only needs the reduced result for its
  // own tokens, so we store to local only (no multimemStore here).
  for (int i = threadIdx.x; i < hidden_dim; i += blockDim.x) {
    local_pointer[i] = multimemLoadSum(multimem_pointer + i);
  }

  coop.sync();

  //============================================================================
  // Phase 2: RMS Normalization
  //============================================================================
  // Normalize the reduced token data using block-level RMSNorm.
  // All threads in the block collaborate to:
  //   1. Compute RMS = sqrt(mean(x^2) + eps)
  //   2. Apply normalization: x_i = x_i / RMS
  //----------------------------------------------------------------------------
  blockRMSNorm(local_pointer, hidden_dim, eps, reduction_buffer, coop);

  //============================================================================
  // Phase 3: All-Gather via Multimem
  //============================================================================
  // Broadcast the normalized token back to all GPUs. Each thread writes a
  // subset of dimensions to all peer GPUs using Multimem.
  for (int i = threadIdx.x; i < hidden_dim; i += blockDim.x) {
    float val = local_pointer[i];  // Read once from local
    multimemStore(multimem_pointer + i, val);
  }

  // Final barrier with release semantics to ensure visibility
  bar.sync(coop, cuda::memory_order_release);
}

//==============================================================================
// Host code (gdrcheck-host): rms_norm (main.cu:114-303) around the launch, as the functions
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

// gdrcheck-host: main.cu:196-219, initialize_data(h_data, tensor_size, my_rank) and its copy
// into the window's buffer d_data before the launch (cudaMemcpy, then the launch on stream)
__device__ void host_init(ncclWindow_t window, ncclDevComm devComm,
                          const int sequence_length, const int hidden_dim, const float eps) {
  const int tensor_size = sequence_length * hidden_dim;
  float h_data[GDRCHECK_MAX_TENSOR];
  initialize_data(h_data, tensor_size, devComm.rank);
  float *d_data = (float *)ncclGetLocalPointer(window, 0);
  for (int i = 0; i < tensor_size; i++) d_data[i] = h_data[i];
}

// gdrcheck-host: main.cu:253-273, after cudaStreamSynchronize the reference of every rank's
// data (rms_norm_generate) against the rank's copy of the window (verify_results); main.cu:298
// reports FAILED when it is false
__device__ void host_check(ncclWindow_t window, ncclDevComm devComm,
                           const int sequence_length, const int hidden_dim, const float eps) {
  const int tensor_size = sequence_length * hidden_dim;
  float h_data[GDRCHECK_MAX_TENSOR];
  rms_norm_generate(h_data, tensor_size, sequence_length, hidden_dim, devComm.nRanks, eps);
  const float *h_data_validation = (const float *)ncclGetLocalPointer(window, 0);
  bool success = verify_results(h_data_validation, h_data, tensor_size);
  assert(success);
}
