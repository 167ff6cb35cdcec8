// NVIDIA/nvshmem@2d7d25f0816235e3c2b51779571ec032606ea0dd perftest/device/pt-to-pt/shmem_p_ping_pong_latency.cu, lines 1-74: the kernel, unmodified apart from
// the lines marked 'gdrcheck' (main and test_ping_pong are left out).
// Launched as test_ping_pong does (1 CTA per PE, l.79-83; 2 threads of its threads_per_block,
// -t 512 in shmem_p_ping_pong_latency.args), pe = my PE, len = 2 ints (one per thread), iter 1.
// Each nvshmem_int_p puts the value its thread reads from data_d (l.41, l.52: line numbers of
// the original file, as below): a register. Expected: no asserts (main checks nothing,
// l.91-206): Forbidden, and Live: each nvshmem_uint64_wait_until(flag_d, EQ, i+1) (l.36,
// l.63) is answered by the peer's nvshmemx_signal_op(flag_d, i+1, SET) (l.47, l.58), which
// every thread of the CTA reaches through __syncthreads (l.38, l.43, l.49, l.54, l.60, l.65).
// gdrcheck: --kernel ping_pong --ranks 2 --block 2 --arg pe=0,1 --arg len=2 --arg iter=1 \
//   -m nvshmem-api -m nvshmem-ibgda --expect nvshmem-api:Forbidden \
//   --expect nvshmem-ibgda:Forbidden --liveness nvshmem-api:Live --liveness nvshmem-ibgda:Live
/*
 * Copyright (c) 2018-2025, NVIDIA CORPORATION.  All rights reserved.
 *
 * NVIDIA CORPORATION and its licensors retain all intellectual property
 * and proprietary rights in and to this software, related documentation
 * and any modifications thereto.  Any use, reproduction, disclosure or
 * distribution of this software and related documentation without an express
 * license agreement from NVIDIA CORPORATION is strictly prohibited.
 *
 * See License.txt for license information
 */

#include <stdio.h>
#include <assert.h>
#include <cuda.h>
#include <cuda_runtime.h>
#include <unistd.h>
#include <nvshmem.h>  // gdrcheck-note: for "utils.h", which includes nvshmem.h and
#include <nvshmemx.h> // nvshmemx.h (perftest/common/utils.h)

#define CUMODULE_NAME "shmem_p_ping_pong_latency.cubin"
#define UNROLL 8

#if defined __cplusplus || defined NVSHMEM_HOSTLIB_ONLY
extern "C" {
#endif

__global__ void ping_pong(int *data_d, uint64_t *flag_d, int len, int pe, int iter) {
    int i, j, tid, peer;

    peer = !pe;
    tid = threadIdx.x;

    for (i = 0; i < iter; i++) {
        if (pe) {
            if (!tid) {
                nvshmem_uint64_wait_until(flag_d, NVSHMEM_CMP_EQ, (i + 1));
            }
            __syncthreads();

            for (j = tid; j < len; j += blockDim.x) {
                nvshmem_int_p(data_d + j, *(data_d + j), peer);
            }
            __syncthreads();

            if (!tid) {
                nvshmem_fence();
                nvshmemx_signal_op(flag_d, (i + 1), NVSHMEM_SIGNAL_SET, peer);
            }
            __syncthreads();
        } else {
            for (j = tid; j < len; j += blockDim.x) {
                nvshmem_int_p(data_d + j, *(data_d + j), peer);
            }
            __syncthreads();

            if (!tid) {
                nvshmem_fence();
                nvshmemx_signal_op(flag_d, (i + 1), NVSHMEM_SIGNAL_SET, peer);
            }
            __syncthreads();

            if (!tid) {
                nvshmem_uint64_wait_until(flag_d, NVSHMEM_CMP_EQ, (i + 1));
            }
            __syncthreads();
        }
    }

    if (!tid) nvshmem_quiet();
}

#if defined __cplusplus || defined NVSHMEM_HOSTLIB_ONLY
}
#endif
