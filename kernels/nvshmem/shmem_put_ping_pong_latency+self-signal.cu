// NVIDIA/nvshmem@2d7d25f0816235e3c2b51779571ec032606ea0dd perftest/device/pt-to-pt/shmem_put_ping_pong_latency.cu, lines 1-54: the kernel, unmodified apart from
// the lines marked 'gdrcheck' (main and the host functions are left out).
// Launched as main does (1 CTA of 1 thread per PE, pe = my PE; len = 2 ints).
// gdrcheck-mutant: the responder (pe 1) signals its own flag (pe for peer): PE 0's wait never returns
// gdrcheck: --kernel ping_pong --ranks 2 --arg pe=0,1 --arg len=2 --arg iter=1 -m nvshmem-api -m nvshmem-ibgda --liveness nvshmem-api:Hang --liveness nvshmem-ibgda:Hang
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

#define CUMODULE_NAME "shmem_put_ping_pong_latency.cubin"

#include <stdio.h>
#include <assert.h>
#include <cuda.h>
#include <cuda_runtime.h>
#include <unistd.h>
#include <nvshmem.h>  // gdrcheck-note: for "utils.h", which includes nvshmem.h and
#include <nvshmemx.h> // nvshmemx.h (perftest/common/utils.h)

#if defined __cplusplus || defined NVSHMEM_HOSTLIB_ONLY
extern "C" {
#endif

__global__ void ping_pong(int *data_d, uint64_t *flag_d, int len, int pe, int iter) {
    int i, peer;
    peer = !pe;

    for (i = 0; i < iter; i++) {
        if (pe) {
            nvshmem_uint64_wait_until(flag_d, NVSHMEM_CMP_EQ, (i + 1));

            nvshmem_int_put_nbi(data_d, data_d, len, peer);

            nvshmem_fence();

            nvshmemx_signal_op(flag_d, i + 1, NVSHMEM_SIGNAL_SET, pe);
        } else {
            nvshmem_int_put_nbi(data_d, data_d, len, peer);

            nvshmem_fence();

            nvshmemx_signal_op(flag_d, i + 1, NVSHMEM_SIGNAL_SET, peer);

            nvshmem_uint64_wait_until(flag_d, NVSHMEM_CMP_EQ, (i + 1));
        }
    }
    nvshmem_quiet();
}

#if defined __cplusplus || defined NVSHMEM_HOSTLIB_ONLY
}
#endif
