// NVIDIA/nvshmem@2d7d25f0816235e3c2b51779571ec032606ea0dd perftest/device/pt-to-pt/shmem_put_atomic_ping_pong_latency.cu, lines 1-58, with one
// bug (the line marked 'gdrcheck-mutant'): the initiator (pe 0) publishes with
// nvshmem_uint64_atomic_set(flag_d, i, peer) for atomic_inc (original l.48): it sets the
// flag to the iteration index, 0 (an NVSHMEMI_AMO_SET, nvshmem_defines.h:1213-1221), where
// the increment made it 1, so PE 1's wait_until(flag_d, EQ, 1) never returns.
// gdrcheck: --kernel ping_pong --ranks 2 --arg pe=0,1 --arg len=2 --arg iter=1 \
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

#define CUMODULE_NAME "shmem_put_atomic_ping_pong_latency.cubin"

#include <stdio.h>
#include <assert.h>
#include <cuda.h>
#include <cuda_runtime.h>
#include <unistd.h>
#include <nvshmem.h>  // gdrcheck-note: for "utils.h", which includes nvshmem.h and
#include <nvshmemx.h> // nvshmemx.h (perftest/common/utils.h)

#define MAX_MSG_SIZE 1 * 1024 * 1024
#define UNROLL 8

#if defined __cplusplus || defined NVSHMEM_HOSTLIB_ONLY
extern "C" {
#endif

__global__ void ping_pong(int *data_d, uint64_t *flag_d, int len, int pe, int iter) {
    int i, peer;

    peer = !pe;

    for (i = 0; i < iter; i++) {
        if (pe) {
            nvshmem_uint64_wait_until(flag_d, NVSHMEM_CMP_EQ, (i + 1));

            nvshmem_int_put_nbi((int *)data_d, (int *)data_d, len, peer);

            nvshmem_fence();

            nvshmem_uint64_atomic_inc(flag_d, peer);
        } else {
            nvshmem_int_put_nbi((int *)data_d, (int *)data_d, len, peer);

            nvshmem_fence();

            nvshmem_uint64_atomic_set(flag_d, i, peer);  // gdrcheck-mutant: for atomic_inc(flag_d, peer)

            nvshmem_uint64_wait_until(flag_d, NVSHMEM_CMP_EQ, (i + 1));
        }
    }
    nvshmem_quiet();
}

#if defined __cplusplus || defined NVSHMEM_HOSTLIB_ONLY
}
#endif
