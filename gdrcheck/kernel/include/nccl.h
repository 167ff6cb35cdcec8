/* gdrcheck's subset of NCCL's nccl.h for device code (docs/kernels.md, "NCCL").
 *
 * NVIDIA/nccl@5067397c: src/include/nccl_device/core.h:20 notes that ncclWindow_t is
 * `typedef struct ncclWindow_vidmem* ncclWindow_t;` (declared in nccl.h). The host API
 * (ncclCommInitRank, ncclDevCommCreate, ...) is host code, which gdrcheck does not read. */
#ifndef GDRCHECK_NCCL_H
#define GDRCHECK_NCCL_H
#include <__gdrcheck_cuda.h>
#include <stdint.h>

typedef struct ncclWindow_vidmem *ncclWindow_t;

typedef enum {
    ncclSuccess = 0,
    ncclUnhandledCudaError = 1,
    ncclSystemError = 2,
    ncclInternalError = 3,
    ncclInvalidArgument = 4,
    ncclInvalidUsage = 5,
    ncclRemoteError = 6,
    ncclInProgress = 7,
    ncclTimeout = 8,
} ncclResult_t;
#endif
