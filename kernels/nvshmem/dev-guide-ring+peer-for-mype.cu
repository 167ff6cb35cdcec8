// NVIDIA/nvshmem@2d7d25f0816235e3c2b51779571ec032606ea0dd examples/dev-guide-ring.cu, lines 1-24, with one bug (the line marked
// 'gdrcheck-mutant'): each PE puts its peer's id for its own (the wrong variable), so PE 1
// receives 1 where the print of main (l.42) implies the ring's 0.
// gdrcheck: --kernel simple_shift --ranks 2 --check host_check -m nvshmem-api -m nvshmem-ibgda \
//   --expect nvshmem-api:Allowed --expect nvshmem-ibgda:Allowed
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
#include <cuda.h>
#include <nvshmem.h>
#include <nvshmemx.h>

__global__ void simple_shift(int *destination) {
    int mype = nvshmem_my_pe();
    int npes = nvshmem_n_pes();
    int peer = (mype + 1) % npes;

    nvshmem_int_p(destination, peer, peer);  // gdrcheck-mutant: peer for mype
}

// gdrcheck-host: main's host side, in device syntax (docs/kernels.md, "Host code").
#include <assert.h>

// examples/dev-guide-ring.cu:38-42: after nvshmemx_barrier_all_on_stream and the copy back,
// PE mype prints the message it received: the id of the PE before it in the ring.
__device__ void host_check(int *destination) {
    int mype = nvshmem_my_pe();
    int npes = nvshmem_n_pes();
    assert(*destination == (mype + npes - 1) % npes);
}
