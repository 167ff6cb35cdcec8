// NVIDIA/nvshmem@2d7d25f0816235e3c2b51779571ec032606ea0dd examples/dev-guide-ring.cu, lines 1-24: the kernel, unmodified; main (lines
// 26-47) is left out and its host side is host_check at the end.
// main launches simple_shift<<<1, 1>>> (l.37), then nvshmemx_barrier_all_on_stream (l.38),
// copies destination back (l.39) and prints "%d: received message %d" (l.42): it checks
// nothing. The message it prints is the one the kernel's only write into the PE's
// destination puts there: PE (mype + npes - 1) % npes puts its own id into its peer
// (mype + 1) % npes (l.21, l.23). host_check asserts what the print implies.
// Expected: Forbidden under both models: the p is the only write into each destination and
// the host reads after the kernel and the barrier (the final state).
// gdrcheck: --kernel simple_shift --ranks 2 --check host_check -m nvshmem-api -m nvshmem-ibgda \
//   --expect nvshmem-api:Forbidden --expect nvshmem-ibgda:Forbidden \
//   --liveness nvshmem-api:Live --liveness nvshmem-ibgda:Live
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

    nvshmem_int_p(destination, mype, peer);
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
