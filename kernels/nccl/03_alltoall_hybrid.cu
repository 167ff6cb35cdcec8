// NVIDIA/nccl@5067397c docs/examples/06_device_api/03_alltoall_hybrid/c/main.cu, lines 1-130: the
// kernel, unmodified apart from the lines marked gdrcheck; hybridAlltoAll and main (lines
// 136-310) are left out: main.cu:249 launches HybridAlltoAllKernel<float> (instantiated
// below as <int>: see there) and its host side is the two functions at the end.
// Expected (the host's check, main.cu:258-270: recvbuff[src * count + i] on rank r is
// src * 1000 + r * 100 + i): Forbidden under gin-api. A peer outside the LSA team gets a
// put with a weak signal that covers it (main.cu:98-109; gin.h:80-81, R-GIN-4), and the
// receiving CTA's acquire wait for the signal's value before the puts (main.cu:82) plus the
// number of remote peers (main.cu:121-125; gin.h:352-354, R-GIN-10) comes before the kernel
// ends; an LSA peer (here: the rank itself) gets plain stores (main.cu:111-118), ordered
// before the host's read by the closing release barrier (main.cu:129, the LSA half of
// ncclBarrierSession: barrier__funcs.h) and stream order. The host code is ordered with its
// rank's kernel only (stream order): --host-order stream. --unroll 1: the only loops on
// values read are the barrier waits' spins (docs/kernels.md). Two configurations: two
// ranks on two nodes (the peer by GIN, the rank itself by LSA) and on one node (both by
// LSA: no remote peer, no wait). Liveness on two nodes is asked of gin-gdaki: under gin-api
// and gin-proxy the first barrier's signal (given=sys) is not ordered after the acquire
// readSignal, the imprecision docs/kernels.md describes for 02_alltoall_gin.
// gdrcheck: --kernel HybridAlltoAllKernel<int> --ranks 2 --nodes 0,1 --grid 1 --block 1 \
//   --arg sendoffset=0 --arg recvoffset=0 --arg count=1 --init host_init --check host_check \
//   --host-order stream --unroll 1 -m gin-api -m gin-gdaki --expect gin-api:Forbidden \
//   --liveness gin-gdaki:Live
// gdrcheck: --kernel HybridAlltoAllKernel<int> --ranks 2 --nodes 0,0 --grid 1 --block 1 \
//   --arg sendoffset=0 --arg recvoffset=0 --arg count=1 --init host_init --check host_check \
//   --host-order stream --unroll 1 -m gin-api --expect gin-api:Forbidden --liveness gin-api:Live
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
 * NCCL Device API Hybrid AlltoAll Example
 *
 * This example demonstrates NCCL's hybrid communication approach that combines
 * GPU-Initiated Networking (GIN) for remote peers with Load Store Access (LSA)
 * for local peers, optimizing AlltoAll collective operations.
 *
 * Learning Objectives:
 * - Understand hybrid communication optimization
 * - Learn when to use GIN vs LSA for different peer types
 * - Practice combining network and memory-based communication
 * - See performance optimization through intelligent peer selection
 *
 * Key Hybrid Concepts:
 * - LSA (Load Store Access): Direct memory access for local peers
 * - GIN (GPU-Initiated Networking): Network communication for remote peers
 * - Peer classification: Distinguishing between local and remote peers
 * - Hybrid synchronization: Combining LSA and GIN completion mechanisms
 * - Performance optimization: Using the fastest method for each peer type
 *
 * When to Use Hybrid:
 * - Multi-node environments with both local and remote peers
 * - Performance-critical applications requiring optimal communication
 * - Mixed communication patterns (intra-node + inter-node)
 * - Production workloads where efficiency matters
 *
 * Performance Benefits:
 * - LSA provides low-latency local communication
 * - GIN handles remote communication efficiently
 * - Reduced network traffic for local operations
 * - Optimal bandwidth utilization across communication types
 *
 * Implementation notes (this example):
 * - GIN for peers outside the LSA team; LSA stores for peers on the same node.
 * - ginConnectionType NCCL_GIN_CONNECTION_FULL: full GIN connectivity (each rank to all peers).
 * - Uses ncclBarrierSession (LSA + GIN hybrid world barrier), not
 *   ncclGinBarrierSession, so reqs sets barrierCount, not worldGinBarrierCount.
 * - Hybrid does not set lsaBarrierCount separately; barrierCount governs both
 *   LSA and GIN sides of ncclBarrierSession.
 *
 * Kernel flow:
 * - Acquire barrier before remote puts and local LSA copies.
 * - waitSignal only on receivingCta; threshold is numRemotePeers (not nRanks).
 * - Final release barrier after flush so LSA and GIN participants align.
 * - A single GIN context (index 0) is used for simplicity; production code may
 *   use multiple contexts for throughput.
 */

// Grid width (CTAs). Must match reqs.barrierCount and reqs.ginSignalCount.
#define NCCL_DEVICE_CTA_COUNT 16
#define NCCL_DEVICE_THREADS_PER_CTA 512

// ==========================================================================
// Device Kernel Implementation
// ==========================================================================

// Hybrid alltoall: GIN puts for non-LSA ranks; LSA stores for the LSA team.
template <typename T>
__global__ void HybridAlltoAllKernel(ncclWindow_t sendwin, size_t sendoffset,
                                      ncclWindow_t recvwin, size_t recvoffset,
                                      size_t count, struct ncclDevComm devComm) {
  int ginContext = 0; // single context for simplicity
  unsigned int signalIndex = blockIdx.x;
  ncclGin gin { devComm, ginContext };
  uint64_t signalValue = gin.readSignal(signalIndex);

  ncclBarrierSession<ncclCoopCta> bar { ncclCoopCta(), ncclTeamTagWorld(), gin, blockIdx.x };
  bar.sync(ncclCoopCta(), cuda::memory_order_acquire, ncclGinFenceLevel::None);

  int tid = threadIdx.x + blockIdx.x * blockDim.x;
  int nthreads = blockDim.x * gridDim.x;

  ncclTeam world = ncclTeamWorld(devComm);
  ncclTeam lsa = ncclTeamLsa(devComm);
  const int startLsa = world.rank - lsa.rank;
  const int lsaSize = lsa.nRanks;

  const size_t size = count * sizeof(T);

  // Remote ranks: world ranks below and above the LSA range (split loops for clarity).
  for (int r = tid; r < startLsa; r += nthreads) {
    gin.put(world, r,
        recvwin, recvoffset + world.rank * size,
        sendwin, sendoffset + r * size,
        size, ncclGin_WeakSignalInc{signalIndex});
  }
  for (int r = startLsa + lsaSize + tid; r < world.nRanks; r += nthreads) {
    gin.put(world, r,
        recvwin, recvoffset + world.rank * size,
        sendwin, sendoffset + r * size,
        size, ncclGin_WeakSignalInc{signalIndex});
  }

  // Local ranks: LSA ranks (single loop for clarity).
  T* sendLocal = (T*)ncclGetLocalPointer(sendwin, sendoffset);
  for (size_t offset = tid; offset < count; offset += nthreads) {
    for (int lp = 0; lp < lsa.nRanks; lp++) {
      int wr = startLsa + lp;
      T* recvPtr = (T*)ncclGetLsaPointer(recvwin, recvoffset, lp);
      recvPtr[world.rank * count + offset] = sendLocal[wr * count + offset];
    }
  }

  int numRemotePeers = world.nRanks - lsa.nRanks;
  // Wait only on the CTA whose signalIndex sees all GIN puts targeting this rank.
  int receivingCta = (world.rank % nthreads) / blockDim.x;
  if (blockIdx.x == receivingCta)
    gin.waitSignal(ncclCoopCta(), signalIndex, signalValue + numRemotePeers);

  gin.flush(ncclCoopCta());

  bar.sync(ncclCoopCta(), cuda::memory_order_release, ncclGinFenceLevel::None);
}

// gdrcheck-host: main.cu:249 launches HybridAlltoAllKernel<float>; gdrcheck-note: the int
// instance instead (the extraction reads integer elements only; the kernel moves T values,
// main.cu:117, and computes on none, and the host's values, main.cu:208 and 266, are
// integers exact in both types)
template __global__ void HybridAlltoAllKernel<int>(ncclWindow_t, size_t, ncclWindow_t, size_t,
                                                   size_t, struct ncclDevComm);

// gdrcheck-host: main.cu:203-209, rank r's sendbuff holds r * 1000 + dest * 100 + i for
// element i of destination dest (float in main; int here: the values are moved, never
// computed on, and exact in both), copied before the kernel is launched on the same stream;
// main.cu:246 clears recvbuff (zero-initialised here).
__device__ void host_init(ncclWindow_t sendwin, size_t sendoffset, ncclWindow_t recvwin,
                          size_t recvoffset, size_t count, struct ncclDevComm devComm) {
  int* send = (int*)ncclGetLocalPointer(sendwin, sendoffset);
  for (int dest = 0; dest < devComm.nRanks; dest++)
    for (size_t i = 0; i < count; i++)
      send[dest * count + i] = devComm.rank * 1000 + dest * 100 + i;
}

// gdrcheck-host: main.cu:253-270, after cudaStreamSynchronize of its own stream.
__device__ void host_check(ncclWindow_t sendwin, size_t sendoffset, ncclWindow_t recvwin,
                           size_t recvoffset, size_t count, struct ncclDevComm devComm) {
  int* recv = (int*)ncclGetLocalPointer(recvwin, recvoffset);
  for (int src = 0; src < devComm.nRanks; src++)
    for (size_t i = 0; i < count; i++)
      assert(recv[src * count + i] == src * 1000 + devComm.rank * 100 + i);
}
