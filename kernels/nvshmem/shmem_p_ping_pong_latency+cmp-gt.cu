// NVIDIA/nvshmem@2d7d25f0816235e3c2b51779571ec032606ea0dd perftest/device/pt-to-pt/shmem_p_ping_pong_latency.cu, lines 1-74, with one bug
// (the line marked 'gdrcheck-mutant'): the initiator (pe 0) waits with NVSHMEM_CMP_GT for
// NVSHMEM_CMP_EQ (l.63), flag > 1, while the responder sets the flag to 1 (l.47): PE 0's
// wait_until never returns.
// gdrcheck: --kernel ping_pong --ranks 2 --block 2 --arg pe=0,1 --arg len=2 --arg iter=1 \
//   -m nvshmem-api -m nvshmem-ibgda --liveness nvshmem-api:Hang --liveness nvshmem-ibgda:Hang
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
                nvshmem_uint64_wait_until(flag_d, NVSHMEM_CMP_GT, (i + 1));  // gdrcheck-mutant: GT for EQ
            }
            __syncthreads();
        }
    }

    if (!tid) nvshmem_quiet();
}

#if defined __cplusplus || defined NVSHMEM_HOSTLIB_ONLY
}
#endif
