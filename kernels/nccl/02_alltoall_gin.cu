// NVIDIA/nccl@5067397c docs/examples/06_device_api/02_alltoall_gin/c/main.cu, lines 1-105: the
// kernel, unmodified apart from the lines marked gdrcheck; pureGinAlltoAll and main (lines
// 107-310) are left out: main.cu:222 launches PureGinAlltoAllKernel<float> (instantiated
// below) and its host side is the two functions at the end.
// Expected (the host's check, main.cu:233-248: recvbuff[src * count + i] on rank r is
// src * 1000 + r * 100 + i): Forbidden under gin-api. Each rank puts its block for rank r
// into r's recvbuff with a weak signal (main.cu:91-96), which guarantees that put
// (gin.h:80-81, R-GIN-4); the receiving CTA waits for the signal to reach its value before
// the puts (read before the first barrier, main.cu:82-85) plus nRanks (main.cu:98-101), an
// acquire (gin.h:352-354, R-GIN-10): every block has landed before the kernel ends and the
// host reads (main.cu:226-234). The host code is ordered with its rank's kernel only
// (stream order): --host-order stream. --unroll 1: the only loops on values read are the
// barrier waits' spins (docs/kernels.md). 3 ranks need a CTA of 2 threads: with one, the
// GIN barrier deadlocks (docs/kernels.md "Found"); the same reasoning gives Forbidden.
// gdrcheck: --kernel PureGinAlltoAllKernel<float> --ranks 2 --grid 1 --block 1 \
//   --arg sendoffset=0 --arg recvoffset=0 --arg count=1 --init host_init --check host_check \
//   --host-order stream --unroll 1 -m gin-api --expect gin-api:Forbidden
// gdrcheck: --kernel PureGinAlltoAllKernel<float> --ranks 3 --grid 1 --block 2 \
//   --arg sendoffset=0 --arg recvoffset=0 --arg count=1 --init host_init --check host_check \
//   --host-order stream --unroll 1 -m gin-api --expect gin-api:Forbidden
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
 * NCCL Device API Pure GIN AlltoAll Example
 *
 * This example demonstrates NCCL's GPU-Initiated Networking (GIN) capabilities
 * for performing AlltoAll collective operations directly from GPU kernels using
 * only network-based communication.
 * GIN enables GPU kernels to initiate network communication without CPU
 * intervention, providing low-latency communication for distributed applications.
 *
 * Learning Objectives:
 * - Understand pure GIN (GPU-Initiated Networking) communication
 * - Learn how to use ncclGin for device-initiated network communication
 * - See pure GIN AlltoAll implementation for network-based communication
 * - Practice GIN barriers and signal-based synchronization
 *
 * Key GIN Concepts:
 * - ncclGin: Device-side networking object for kernel-initiated communication
 * - GIN contexts: Network communication channels for parallel operations
 * - GIN signals: Completion notifications for asynchronous operations
 * - GIN barriers: Network-based synchronization across ranks
 * - One-sided put operations: Direct remote memory writes over network
 *
 * When to Use Pure GIN:
 * - Communication between ranks that cannot use LSA (different nodes)
 * - Network-based collective operations in multi-node environments
 * - Scenarios where all communication must go through the network
 * - Testing network performance without local optimizations
 *
 * Performance Considerations:
 * - GIN provides network communication from GPU kernels
 * - All communication goes through the network (no local optimizations)
 * - Signal-based completion detection enables asynchronous operation
 * - Multiple GIN contexts can improve parallel communication performance
 *
 * Device setup (this example):
 * - worldGinBarrierCount and ginSignalCount: one per CTA (grid dimension x).
 * - ginConnectionType NCCL_GIN_CONNECTION_FULL: full GIN connectivity (each rank to all peers).
 * - ncclGinBarrierSession for cross-rank barriers before the puts.
 * - A single GIN context (index 0) is used for simplicity; production code may
 *   use multiple contexts for throughput.
 *
 * Kernel notes:
 * - signalIndex is blockIdx.x; all puts targeting a given rank use the same
 *   signal index, so only the CTA receivingCta must waitSignal for nRanks.
 * - Before exit, flush() all outgoing puts: it does not guarantee remote
 *   completion, but makes the local send buffer safe to reuse.
 */

// Grid width (CTAs). Must match reqs.worldGinBarrierCount and reqs.ginSignalCount.
#define NCCL_DEVICE_CTA_COUNT 16
#define NCCL_DEVICE_THREADS_PER_CTA 512

// ==========================================================================
// Device Kernel Implementations
// ==========================================================================

// Pure GIN alltoall: one put per (src rank, peer) partitioned across threads.
template <typename T>
__global__ void PureGinAlltoAllKernel(ncclWindow_t sendwin, size_t sendoffset,
                                      ncclWindow_t recvwin, size_t recvoffset,
                                      size_t count, struct ncclDevComm devComm) {
  int ginContext = 0; // single context for simplicity
  unsigned int signalIndex = blockIdx.x;
  ncclGin gin { devComm, ginContext };
  uint64_t signalValue = gin.readSignal(signalIndex);

  ncclGinBarrierSession<ncclCoopCta> bar { ncclCoopCta(), gin, ncclTeamTagWorld(), blockIdx.x };
  bar.sync(ncclCoopCta(), cuda::memory_order_acquire, ncclGinFenceLevel::None);

  int tid = threadIdx.x + blockIdx.x * blockDim.x;
  int nthreads = blockDim.x * gridDim.x;

  const size_t size = count * sizeof(T);
  for (int r = tid; r < devComm.nRanks; r += nthreads) {
    gin.put(ncclTeamWorld(devComm), r,
        recvwin, recvoffset + devComm.rank * size,
        sendwin, sendoffset + r * size,
        size, ncclGin_WeakSignalInc{signalIndex});
  }

  // Wait only on the CTA whose blockIdx.x (signalIndex) accumulates all puts to this rank.
  int receivingCta = (devComm.rank % nthreads) / blockDim.x;
  if (blockIdx.x == receivingCta)
    gin.waitSignal(ncclCoopCta(), signalIndex, signalValue + devComm.nRanks);

  gin.flush(ncclCoopCta());
  bar.sync(ncclCoopCta(), cuda::memory_order_release, ncclGinFenceLevel::None);
}

// gdrcheck-host: main.cu:222 launches this instance
template __global__ void PureGinAlltoAllKernel<float>(ncclWindow_t, size_t, ncclWindow_t, size_t,
                                                      size_t, struct ncclDevComm);

// gdrcheck-host: main.cu:179-185, rank r's sendbuff holds r * 1000 + dest * 100 + i for
// element i of destination dest (float in main; int here: the values are moved, never
// computed on, and exact in both), copied before the kernel is launched on the same stream;
// main.cu:219 clears recvbuff (zero-initialised here).
__device__ void host_init(ncclWindow_t sendwin, size_t sendoffset, ncclWindow_t recvwin,
                          size_t recvoffset, size_t count, struct ncclDevComm devComm) {
  int* send = (int*)ncclGetLocalPointer(sendwin, sendoffset);
  for (int dest = 0; dest < devComm.nRanks; dest++)
    for (size_t i = 0; i < count; i++)
      send[dest * count + i] = devComm.rank * 1000 + dest * 100 + i;
}

// gdrcheck-host: main.cu:226-248, after cudaStreamSynchronize of its own stream.
__device__ void host_check(ncclWindow_t sendwin, size_t sendoffset, ncclWindow_t recvwin,
                           size_t recvoffset, size_t count, struct ncclDevComm devComm) {
  int* recv = (int*)ncclGetLocalPointer(recvwin, recvoffset);
  for (int src = 0; src < devComm.nRanks; src++)
    for (size_t i = 0; i < count; i++)
      assert(recv[src * count + i] == src * 1000 + devComm.rank * 100 + i);
}
