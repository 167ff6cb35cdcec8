/* gdrcheck: NVSHMEM extensions (nvshmemx_signal_op is in nvshmem.h).
 *
 * The warp and block collective RMA calls of NVIDIA/nvshmem@2d7d25f0816235e3c2b51779571ec032606ea0dd
 * src/include/device/nvshmemx_defines.h: nvshmemx_TYPE_put_{warp,block} (l.46-56),
 * nvshmemx_TYPE_put_nbi_{warp,block} (l.254-264), nvshmemx_TYPE_put_signal_{warp,block}
 * (l.110-122), nvshmemx_TYPE_put_signal_nbi_{warp,block} (l.151-164) and
 * nvshmemx_putmem_signal(_nbi)_{warp,block} (l.124-135, 166-178). Every thread of the group
 * calls with the same arguments; the group makes one operation (docs/kernels.md, "Warp and
 * block collective calls"). */
#include <nvshmem.h>

#define __GDRCHECK_SHMEMX_GROUP(NAME, TYPE, GROUP, G)                                        \
    __GDRCHECK_API void nvshmemx_##NAME##_put_##GROUP(TYPE *dest, const TYPE *source,       \
                                                      size_t nelems, int pe) {              \
        __gdrcheck_shmem_put_group(dest, source, nelems, sizeof(TYPE), pe, 0, G);           \
    }                                                                                       \
    __GDRCHECK_API void nvshmemx_##NAME##_put_nbi_##GROUP(TYPE *dest, const TYPE *source,   \
                                                          size_t nelems, int pe) {          \
        __gdrcheck_shmem_put_group(dest, source, nelems, sizeof(TYPE), pe, 1, G);           \
    }                                                                                       \
    __GDRCHECK_API void nvshmemx_##NAME##_put_signal_##GROUP(                               \
        TYPE *dest, const TYPE *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, \
        int sig_op, int pe) {                                                               \
        __gdrcheck_shmem_put_signal_group(dest, source, nelems, sizeof(TYPE), sig_addr,     \
                                          signal, sig_op, pe, 0, G);                        \
    }                                                                                       \
    __GDRCHECK_API void nvshmemx_##NAME##_put_signal_nbi_##GROUP(                           \
        TYPE *dest, const TYPE *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, \
        int sig_op, int pe) {                                                               \
        __gdrcheck_shmem_put_signal_group(dest, source, nelems, sizeof(TYPE), sig_addr,     \
                                          signal, sig_op, pe, 1, G);                        \
    }
#define __GDRCHECK_SHMEMX_GROUPS(NAME, TYPE)                                                 \
    __GDRCHECK_SHMEMX_GROUP(NAME, TYPE, warp, 1)                                            \
    __GDRCHECK_SHMEMX_GROUP(NAME, TYPE, block, 3)
__GDRCHECK_SHMEM_RMA_TYPES(__GDRCHECK_SHMEMX_GROUPS)

#define __GDRCHECK_SHMEMX_PUTMEM_SIGNAL(GROUP, G)                                            \
    __GDRCHECK_API void nvshmemx_putmem_signal_##GROUP(void *dest, const void *source,      \
                                                       size_t bytes, uint64_t *sig_addr,    \
                                                       uint64_t signal, int sig_op,         \
                                                       int pe) {                            \
        __gdrcheck_shmem_put_signal_group(dest, source, bytes, 1, sig_addr, signal, sig_op, \
                                          pe, 0, G);                                        \
    }                                                                                       \
    __GDRCHECK_API void nvshmemx_putmem_signal_nbi_##GROUP(void *dest, const void *source,  \
                                                           size_t bytes, uint64_t *sig_addr, \
                                                           uint64_t signal, int sig_op,     \
                                                           int pe) {                        \
        __gdrcheck_shmem_put_signal_group(dest, source, bytes, 1, sig_addr, signal, sig_op, \
                                          pe, 1, G);                                        \
    }
__GDRCHECK_SHMEMX_PUTMEM_SIGNAL(warp, 1)
__GDRCHECK_SHMEMX_PUTMEM_SIGNAL(block, 3)
