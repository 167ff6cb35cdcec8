// gdrcheck-mutant of 01_allreduce_lsa.cu: the closing barrier is relaxed (memory_order_relaxed
// for memory_order_release, main.cu:98). Expected: Allowed under lsa. A relaxed arrive has no
// release fence (lsa_barrier__funcs.h:69-71 fences with releaseOrderOf(order), utility.h:350),
// so the peer may see the inbox store before the data store of main.cu:92 (R-PTX-2: a relaxed
// store after a weak one is not a release pattern), and the host then reads a stale recvbuff.
// NVIDIA/nccl@5067397c docs/examples/06_device_api/01_allreduce_lsa/c/main.cu, lines 1-99: the
// kernel, unmodified apart from the lines marked gdrcheck; allReduce and main (lines 101-267)
// are left out and their host side is the two functions at the end.
// Expected (the host's check, main.cu:227-235: every element of recvbuff is the sum of the
// ranks): Forbidden under lsa. Each rank reads its peers' sendbuff, initialised by their host
// before their kernel (main.cu:181-184), after the first barrier (an acquire, main.cu:70); it
// writes every peer's recvbuff, and the last barrier (a release, main.cu:95-98: "ensures that
// we received data from everyone before we unblock the stream") orders every peer's writes
// into this rank's recvbuff before this rank's kernel ends and its host reads recvbuff
// (main.cu:219, 227). The barrier is NCCL's (lsa_barrier__funcs.h:55-143): a release fence
// and relaxed .sys stores to the peers' inboxes, acquire loads of the own inbox (R-PTX-7,
// litmus/lsa/25-lsa-barrier.litmus). The host code is ordered with its rank's kernel only
// (stream order): --host-order stream. --unroll 1: the only loops on values read are the
// barrier's side-effect-free spins, whose last iteration alone matters (docs/kernels.md).
// gdrcheck: --kernel simpleAllReduceKernel --ranks 2 --nodes 0,0 --grid 1 --block 1 \
//   --arg sendoffset=0 --arg recvoffset=0 --arg count=2 --init host_init --check host_check \
//   --host-order stream --unroll 1 -m lsa --expect lsa:Allowed --liveness lsa:Live
/*************************************************************************
 * SPDX-FileCopyrightText: Copyright (c) 2025-2026 NVIDIA CORPORATION & AFFILIATES. All rights reserved.
 * SPDX-License-Identifier: Apache-2.0
 *
 * See LICENSE.txt for more license information
 *************************************************************************/

#include "cuda_runtime.h"
#include "nccl.h"
#include "nccl_device.h"
#include <assert.h> // gdrcheck-host: for the host check below
// gdrcheck-cut: #include "utils.h" and the host headers <stdio.h> ... <unistd.h> (host code only)

/*
 * NCCL Device API AllReduce Example
 *
 * This example demonstrates NCCL's Device API, which enables GPU kernels to
 * directly interact with NCCL without CPU intervention. This is particularly
 * powerful for applications that need to perform communication
 * from within CUDA kernels.
 *
 * Learning Objectives:
 * - Understand NCCL Device API vs Host API differences
 * - Learn how to register memory windows for device-side access
 * - See how GPU kernels can perform collective operations directly
 * - Practice LSA (Load Store Access) barrier synchronization
 *
 * Key Device API Concepts:
 * - ncclDevComm: Device-side communicator for kernel use
 * - ncclWindow_t: Memory windows that enable direct peer access
 * - LSA barriers: Synchronization primitives for device-side coordination
 * - ncclGetLsaPointer: Direct access to peer memory from device code
 *
 * When to Use Device API:
 * - Compute kernels that need immediate communication results
 * - Fusion of computation and communication in a single kernel
 * - Reduced host-device synchronization overhead
 * - Custom collective operations not available in standard NCCL
 *
 * Performance Considerations:
 * - Lower latency than host API for small operations
 * - Enables computation-communication overlap within kernels
 * - Requires careful synchronization and memory ordering
 * - LSA barriers add coordination overhead but enable correctness
 */

// Device API kernel launch configuration
// CTA count must match lsaBarrierCount for proper barrier synchronization
#define NCCL_DEVICE_CTA_COUNT 16
#define NCCL_DEVICE_THREADS_PER_CTA 512

// ==========================================================================
// Device Kernel Implementation
// ==========================================================================

// Device kernel that performs AllReduce sum operation
// This kernel demonstrates direct NCCL communication from GPU threads
__global__ void simpleAllReduceKernel(ncclWindow_t sendwin, size_t sendoffset,
                                      ncclWindow_t recvwin, size_t recvoffset,
                                      size_t count, struct ncclDevComm devComm) {
  // LSA barriers enable coordination between GPU threads across different ranks
  // Barrier scope: CTA (all threads in this block participate)
  // Barrier index: blockIdx.x selects this CTA's dedicated barrier (one barrier per CTA)
  ncclLsaBarrierSession<ncclCoopCta> bar { ncclCoopCta(), devComm, ncclTeamLsa(devComm),
                                           devComm.lsaBarrier, blockIdx.x };
  bar.sync(ncclCoopCta(), cuda::memory_order_acquire);

  const int rank = devComm.rank, nRanks = devComm.nRanks;

  // We are going to spread the workload across all GPU ranks.
  // So calculate the global thread ID accross all ranks.
  // This maps global threads to data elements in the data to be reduced
  const int globalTid = threadIdx.x + blockDim.x * (rank + blockIdx.x * nRanks);
  const int globalNthreads = blockDim.x * gridDim.x * nRanks;

  // Grid stride loop over all elements with the globalThreads
  for (size_t offset = globalTid; offset < count; offset += globalNthreads) {
    int v = 0; // gdrcheck-note: float v = 0.0f; (the extraction reads integers; the values, ranks and their sum, are exact in both)
    // Access remote (and local [peer==rank]) memory and reduce locally
    for (int peer=0; peer<nRanks; peer++) {
      // Access peer memory directly using LSA (Load/Store Accessible) pointers
      int* sendPtr = (int*)ncclGetLsaPointer(sendwin, sendoffset, peer); // gdrcheck-note: float* (as above)
      v += sendPtr[offset];
    }
    // Write the result back to remote and local memory
    for (int peer=0; peer<nRanks; peer++) {
      int* recvPtr = (int*)ncclGetLsaPointer(recvwin, recvoffset, peer); // gdrcheck-note: float* (as above)
      recvPtr[offset] = v;
    }
  }
  // Release barrier ensures that we received data from everyone before we unblock the stream
  // and allow the next kernel(s) to process the data.
  // Critical for correctness in device-side collective operations
  bar.sync(ncclCoopCta(), cuda::memory_order_relaxed); // gdrcheck-mutant: memory_order_release
}

// gdrcheck-host: main.cu:181-184, each rank's sendbuff holds its rank (h_data[i] = my_rank),
// copied before the kernel is launched on the same stream.
__device__ void host_init(ncclWindow_t sendwin, size_t sendoffset, ncclWindow_t recvwin,
                          size_t recvoffset, size_t count, struct ncclDevComm devComm) {
  int* send = (int*)ncclGetLocalPointer(sendwin, sendoffset);
  for (size_t i = 0; i < count; i++) send[i] = devComm.rank;
}

// gdrcheck-host: main.cu:219-235, after cudaStreamSynchronize of its own stream, every element
// of the rank's recvbuff is (total_ranks * (total_ranks - 1)) / 2.
__device__ void host_check(ncclWindow_t sendwin, size_t sendoffset, ncclWindow_t recvwin,
                           size_t recvoffset, size_t count, struct ncclDevComm devComm) {
  int* recv = (int*)ncclGetLocalPointer(recvwin, recvoffset);
  int expected = (devComm.nRanks * (devComm.nRanks - 1)) / 2;
  for (size_t i = 0; i < count; i++) assert(recv[i] == expected);
}
