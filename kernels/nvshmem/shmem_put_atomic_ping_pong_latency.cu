// NVIDIA/nvshmem@2d7d25f0816235e3c2b51779571ec032606ea0dd perftest/device/pt-to-pt/shmem_put_atomic_ping_pong_latency.cu, lines 1-58: the kernel,
// unmodified apart from the lines marked 'gdrcheck' (main and test_ping_pong are left out).
// Launched as test_ping_pong does (1 CTA of 1 thread per PE, l.63-65), pe = my PE, len = 2
// ints, iter 1 (line numbers of the original file). nvshmem_uint64_atomic_inc is an
// NVSHMEMI_AMO_ADD of 1 (src/include/device/nvshmem_defines.h:880-899): shmem.atomic_add.
// Expected: no asserts (main checks nothing, l.73-200): Forbidden, and Live: each
// nvshmem_uint64_wait_until(flag_d, EQ, i+1) (l.36, l.50) is answered by the peer's
// atomic_inc of the flag (l.42, l.48), from 0 (main's cudaMemset, l.123, 148) to 1.
// gdrcheck: --kernel ping_pong --ranks 2 --arg pe=0,1 --arg len=2 --arg iter=1 \
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

            nvshmem_uint64_atomic_inc(flag_d, peer);

            nvshmem_uint64_wait_until(flag_d, NVSHMEM_CMP_EQ, (i + 1));
        }
    }
    nvshmem_quiet();
}

#if defined __cplusplus || defined NVSHMEM_HOSTLIB_ONLY
}
#endif
