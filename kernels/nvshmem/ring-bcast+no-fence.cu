// NVIDIA/nvshmem@2d7d25f0816235e3c2b51779571ec032606ea0dd examples/ring-bcast.cu, lines 1-35: the kernel, unmodified; main
// (lines 37-75) is left out and its host side is the two functions at the end.
// gdrcheck-mutant: without nvshmem_fence the signal may overtake the data (R-SH-1: only fence
// or quiet order a put before a later signal): PE 1 forwards its own data to PE 2.
// gdrcheck: --kernel ring_bcast --ranks 3 --arg nelem=1 --arg root=0 --init host_init \
//   --check host_check -m nvshmem-api -m nvshmem-ibgda --expect nvshmem-api:Allowed \
//   --expect nvshmem-ibgda:Allowed --liveness nvshmem-api:Live --liveness nvshmem-ibgda:Live
/*
 * Copyright (c) 2020, NVIDIA CORPORATION.  All rights reserved.
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
#include <stdint.h>
#include <cuda.h>
#include <nvshmem.h>
#include <nvshmemx.h>

__global__ void ring_bcast(int *data, size_t nelem, int root, uint64_t *psync) {
    int mype = nvshmem_my_pe();
    int npes = nvshmem_n_pes();
    int peer = (mype + 1) % npes;

    if (mype == root) *psync = 1;

    nvshmem_signal_wait_until(psync, NVSHMEM_CMP_NE, 0);

    if (mype == npes - 1) return;

    nvshmem_int_put(data, data, nelem, peer);
    // gdrcheck-mutant: nvshmem_fence(); dropped
    nvshmemx_signal_op(psync, 1, NVSHMEM_SIGNAL_SET, peer);

    *psync = 0;
}

// gdrcheck-host: main's host side, in device syntax (docs/kernels.md, "Host code").
#include <assert.h>

// examples/ring-bcast.cu:51-53: data_h[i] = mype + i, copied to data before the launch
// (the copy and the launch are ordered on one stream, behind nvshmemx_barrier_all_on_stream).
__device__ void host_init(int *data, size_t nelem, int root, uint64_t *psync) {
    int mype = nvshmem_my_pe();
    for (size_t i = 0; i < nelem; i++) data[i] = mype + i;
}

// examples/ring-bcast.cu:61-69: after nvshmemx_barrier_all_on_stream and the copy back, every
// PE checks data_h[i] == i (root 0's data) and prints an error otherwise.
__device__ void host_check(int *data, size_t nelem, int root, uint64_t *psync) {
    for (size_t i = 0; i < nelem; i++) assert(data[i] == (int)i);
}
