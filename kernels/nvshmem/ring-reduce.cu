// NVIDIA/nvshmem@2d7d25f0816235e3c2b51779571ec032606ea0dd examples/ring-reduce.cu, lines 1-41 and 88-144: the includes, the
// kernel and the helper before it (atol_scaled, lines 42-86, is host code: cut); main (l.146-)
// is left out and its host side is the two functions at the end.
// Expected (the host's check is the assert of host_check, main l.99-103: dst[i] == i * npes):
// 2 PEs, 2 chunks of one int: nvshmem-api Forbidden: PE 1 waits for signal >= chunk + 1 and
// every signal it receives comes from one of PE 0's put_signal_nbi, each of which delivers its
// data before its signal (R-SH-4; PE 0 sends no broadcast to PE 1: mype < npes - 2 is false).
// nvshmem-ibgda Allowed, also +ack-placed: nvshmem_signal_wait_until is the wait loop and a
// volatile read, no fence (nvshmem_defines.h:582-586), so PE 1's reads of dst are not ordered
// after its poll (as in ring-bcast.cu).
// gdrcheck: --kernel ring_reduce --ranks 2 --arg nreduce=2 --arg chunk_size=4 \
//   --init host_init --check host_check -m nvshmem-api -m nvshmem-ibgda \
//   -m nvshmem-ibgda+ack-placed --expect nvshmem-api:Forbidden --expect nvshmem-ibgda:Allowed \
//   --expect nvshmem-ibgda+ack-placed:Allowed --liveness nvshmem-api:Live
/*
 * Copyright (c) 2024, NVIDIA CORPORATION.  All rights reserved.
 *
 * NVIDIA CORPORATION and its licensors retain all intellectual property
 * and proprietary rights in and to this software, related documentation
 * and any modifications thereto.  Any use, reproduction, disclosure or
 * distribution of this software and related documentation without an express
 * license agreement from NVIDIA CORPORATION is strictly prohibited.
 *
 * See License.txt for license information
 */

/* This example performs an allreduce operation using ring algorithm when
   GPUs are connected via remote interconect like IB/RoCE/EFA, etc.
   It does ring reduce followed by ring broadcast. We use single threaded put_signal API
   as single thread is sufficient for remote transfers. The example is expected
   to be performant only when GPUs are connected via remote interconnect. */

#include <stdio.h>
#include <stdint.h>
#include <cuda.h>
#include <nvshmem.h>
#include <nvshmemx.h>
#include <unistd.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#undef CUDA_CHECK
#define CUDA_CHECK(stmt)                                                          \
    do {                                                                          \
        cudaError_t result = (stmt);                                              \
        if (cudaSuccess != result) {                                              \
            fprintf(stderr, "[%s:%d] cuda failed with %s \n", __FILE__, __LINE__, \
                    cudaGetErrorString(result));                                  \
            exit(-1);                                                             \
        }                                                                         \
    } while (0)

/* atol() + optional scaled suffix recognition: 1K, 2M, 3G, 1T */
// gdrcheck-cut: lines 42-87 (atol_scaled: host code)
__global__ void ring_reduce(int *dst, const int *src, size_t nreduce, uint64_t *signal,
                            size_t chunk_size) {
    int mype = nvshmem_my_pe();
    int npes = nvshmem_n_pes();
    int peer = (mype + 1) % npes;

    int thread_id = threadIdx.x;
    int num_threads = blockDim.x;
    int num_blocks = gridDim.x;
    int block_idx = blockIdx.x;
    size_t elems_per_block = nreduce / num_blocks;

    // Change src, dst, nreduce, signal to what this block is going to process
    // Each CTA will work independently
    if (elems_per_block * (blockIdx.x + 1) > nreduce) return;
    src = src + block_idx * elems_per_block;
    dst = dst + block_idx * elems_per_block;
    nreduce = elems_per_block;
    signal = signal + block_idx;

    size_t chunk_elems = chunk_size / sizeof(int);
    size_t num_chunks = nreduce / chunk_elems;

    // reduce phase
    for (size_t chunk = 0; chunk < num_chunks; chunk++) {
        if (mype != 0) {
            if (thread_id == 0) nvshmem_signal_wait_until(signal, NVSHMEM_CMP_GE, chunk + 1);

            __syncthreads();
            for (size_t i = thread_id; i < chunk_elems; i += num_threads) {
                dst[i] = dst[i] + src[i];
            }
            __syncthreads();
        }
        if (thread_id == 0)
            nvshmem_int_put_signal_nbi(dst, (mype == 0) ? src : dst, chunk_elems, signal, 1,
                                       NVSHMEM_SIGNAL_ADD, peer);
        src = src + chunk_elems;
        dst = dst + chunk_elems;
    }

    // Broadcast phase
    dst = dst - num_chunks * chunk_elems;
    if (thread_id == 0) {
        for (size_t chunk = 0; chunk < num_chunks; chunk++) {
            if (mype < npes - 1) {  // Last pe already has the final result
                nvshmem_signal_wait_until(signal, NVSHMEM_CMP_GE,
                                          (mype == 0) ? chunk + 1 : num_chunks + chunk + 1);
            }
            if (mype < npes - 2)
                nvshmem_int_put_signal_nbi(dst, dst, chunk_elems, signal, 1, NVSHMEM_SIGNAL_ADD,
                                           peer);
            dst = dst + chunk_elems;
        }
        *signal = 0;  // reset for next iteration
    }
}

// gdrcheck-host: main's host side, in device syntax (docs/kernels.md, "Host code").
#include <assert.h>

// examples/ring-reduce.cu main: data_h[i] = i, copied to src on every PE before the launch.
__device__ void host_init(int *dst, const int *src, size_t nreduce, uint64_t *signal,
                          size_t chunk_size) {
    for (size_t i = 0; i < nreduce; i++) ((int *)src)[i] = (int)i;
}

// examples/ring-reduce.cu main, "validate output": dst[i] == i * npes on every PE.
__device__ void host_check(int *dst, const int *src, size_t nreduce, uint64_t *signal,
                           size_t chunk_size) {
    int npes = nvshmem_n_pes();
    for (size_t i = 0; i < nreduce; i++) assert(dst[i] == (int)i * npes);
}
