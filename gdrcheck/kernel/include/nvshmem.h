/* gdrcheck's NVSHMEM device API subset (docs/kernels.md).
 *
 * Names and signatures as NVIDIA/nvshmem@2d7d25f0816235e3c2b51779571ec032606ea0dd declares
 * them: src/include/host/nvshmem_api.h (my_pe, n_pes, ptr :75-88; p :199-200; put :205-226;
 * put_nbi :243-258; put_signal(_nbi), putmem_signal(_nbi) :316-352; quiet, fence,
 * signal_wait_until, wait_until :359-365), src/include/host/nvshmem_coll_api.h:39
 * (barrier_all), src/include/host/nvshmemx_api.h:464 (nvshmemx_signal_op), the constants of
 * src/include/device_host_transport/nvshmem_constants.h:48-56 (nvshmemi_cmp_type) and
 * nvshmem_common_transport.h:39 (NVSHMEM_SIGNAL_SET = 9, NVSHMEM_SIGNAL_ADD = 10).
 *
 * Each function is one call of an extern "C" __gdrcheck_shmem_* declaration (the intrinsic
 * convention): the call stays in the IR and the extractor lowers it to a litmus shmem.* call.
 * The integer RMA types only (the standard RMA types of nvshmem_common.cuh:48-73 without
 * half, bfloat16, float and double); calls this header lacks are clang errors at the
 * user's line. */
#ifndef GDRCHECK_NVSHMEM_H
#define GDRCHECK_NVSHMEM_H
#include <__gdrcheck_cuda.h>
#include <stdint.h>

typedef enum nvshmemi_cmp_type {
    NVSHMEM_CMP_EQ = 0,
    NVSHMEM_CMP_NE,
    NVSHMEM_CMP_GT,
    NVSHMEM_CMP_LE,
    NVSHMEM_CMP_LT,
    NVSHMEM_CMP_GE,
    NVSHMEM_CMP_SENTINEL = 0x7fffffff,
} nvshmemx_cmp_type_t;

typedef enum { NVSHMEM_SIGNAL_SET = 9, NVSHMEM_SIGNAL_ADD = 10 } nvshmemx_signal_op_t;

extern "C" {
__device__ int __gdrcheck_shmem_my_pe(void);
__device__ int __gdrcheck_shmem_n_pes(void);
__device__ void *__gdrcheck_shmem_ptr(const void *ptr, int pe);
__device__ void __gdrcheck_shmem_p(void *dest, unsigned long long value, size_t elem, int pe);
__device__ void __gdrcheck_shmem_put(void *dest, const void *source, size_t nelems, size_t elem,
                                     int pe, int nbi);
__device__ void __gdrcheck_shmem_put_signal(void *dest, const void *source, size_t nelems,
                                            size_t elem, uint64_t *sig_addr, uint64_t signal,
                                            int sig_op, int pe, int nbi);
__device__ void __gdrcheck_shmem_signal_op(uint64_t *sig_addr, uint64_t signal, int sig_op,
                                           int pe);
__device__ void __gdrcheck_shmem_fence(void);
__device__ void __gdrcheck_shmem_quiet(void);
__device__ void __gdrcheck_shmem_barrier_all(void);
__device__ void __gdrcheck_shmem_wait_until(void *ivar, size_t elem, int cmp,
                                            unsigned long long cmp_value);
__device__ uint64_t __gdrcheck_shmem_signal_wait_until(uint64_t *sig_addr, int cmp,
                                                       uint64_t cmp_value);
/* The device AMOs: amo_op is NVSHMEM's nvshmemi_amo_t (nvshmem_common_transport.h:41-61). */
__device__ void __gdrcheck_shmem_atomic(void *target, size_t elem, int amo_op,
                                        unsigned long long value, int pe);
__device__ unsigned long long __gdrcheck_shmem_atomic_fetch(const void *target, size_t elem,
                                                            int amo_op,
                                                            unsigned long long value,
                                                            unsigned long long compare, int pe);
/* The warp and block collective calls: group is nvshmemi threadgroup_t's value
   (non_abi/device/threadgroup/nvshmemi_common_device_defines.cuh:32-41: WARP = 1, BLOCK = 3). */
__device__ void __gdrcheck_shmem_put_signal_group(void *dest, const void *source, size_t nelems,
                                                  size_t elem, uint64_t *sig_addr,
                                                  uint64_t signal, int sig_op, int pe, int nbi,
                                                  int group);
__device__ void __gdrcheck_shmem_put_group(void *dest, const void *source, size_t nelems,
                                           size_t elem, int pe, int nbi, int group);
}

__GDRCHECK_API int nvshmem_my_pe() { return __gdrcheck_shmem_my_pe(); }
__GDRCHECK_API int nvshmem_n_pes() { return __gdrcheck_shmem_n_pes(); }
__GDRCHECK_API void *nvshmem_ptr(const void *ptr, int pe) { return __gdrcheck_shmem_ptr(ptr, pe); }

__GDRCHECK_API void nvshmem_quiet() { __gdrcheck_shmem_quiet(); }
__GDRCHECK_API void nvshmem_fence() { __gdrcheck_shmem_fence(); }
__GDRCHECK_API void nvshmem_barrier_all() { __gdrcheck_shmem_barrier_all(); }

__GDRCHECK_API void nvshmemx_signal_op(uint64_t *sig_addr, uint64_t signal, int sig_op, int pe) {
    __gdrcheck_shmem_signal_op(sig_addr, signal, sig_op, pe);
}

__GDRCHECK_API uint64_t nvshmem_signal_wait_until(uint64_t *sig_addr, int cmp, uint64_t cmp_val) {
    return __gdrcheck_shmem_signal_wait_until(sig_addr, cmp, cmp_val);
}

__GDRCHECK_API void nvshmem_putmem(void *dest, const void *source, size_t bytes, int pe) {
    __gdrcheck_shmem_put(dest, source, bytes, 1, pe, 0);
}
__GDRCHECK_API void nvshmem_putmem_nbi(void *dest, const void *source, size_t bytes, int pe) {
    __gdrcheck_shmem_put(dest, source, bytes, 1, pe, 1);
}
__GDRCHECK_API void nvshmem_putmem_signal(void *dest, const void *source, size_t bytes,
                                          uint64_t *sig_addr, uint64_t signal, int sig_op,
                                          int pe) {
    __gdrcheck_shmem_put_signal(dest, source, bytes, 1, sig_addr, signal, sig_op, pe, 0);
}
__GDRCHECK_API void nvshmem_putmem_signal_nbi(void *dest, const void *source, size_t bytes,
                                              uint64_t *sig_addr, uint64_t signal, int sig_op,
                                              int pe) {
    __gdrcheck_shmem_put_signal(dest, source, bytes, 1, sig_addr, signal, sig_op, pe, 1);
}

#define __GDRCHECK_SHMEM_RMA_TYPES(F)                                                        \
    F(char, char)                                                                           \
    F(short, short)                                                                         \
    F(schar, signed char)                                                                   \
    F(int, int)                                                                             \
    F(long, long)                                                                           \
    F(longlong, long long)                                                                  \
    F(uchar, unsigned char)                                                                 \
    F(ushort, unsigned short)                                                               \
    F(uint, unsigned int)                                                                   \
    F(ulong, unsigned long)                                                                 \
    F(ulonglong, unsigned long long)                                                        \
    F(int8, int8_t)                                                                         \
    F(int16, int16_t)                                                                       \
    F(int32, int32_t)                                                                       \
    F(int64, int64_t)                                                                       \
    F(uint8, uint8_t)                                                                       \
    F(uint16, uint16_t)                                                                     \
    F(uint32, uint32_t)                                                                     \
    F(uint64, uint64_t)                                                                     \
    F(size, size_t)                                                                         \
    F(ptrdiff, ptrdiff_t)

#define __GDRCHECK_SHMEM_TYPED(NAME, TYPE)                                                   \
    __GDRCHECK_API void nvshmem_##NAME##_p(TYPE *dest, const TYPE value, int pe) {          \
        __gdrcheck_shmem_p(dest, (unsigned long long)value, sizeof(TYPE), pe);              \
    }                                                                                       \
    __GDRCHECK_API void nvshmem_##NAME##_put(TYPE *dest, const TYPE *source, size_t nelems, \
                                             int pe) {                                      \
        __gdrcheck_shmem_put(dest, source, nelems, sizeof(TYPE), pe, 0);                    \
    }                                                                                       \
    __GDRCHECK_API void nvshmem_##NAME##_put_nbi(TYPE *dest, const TYPE *source,            \
                                                 size_t nelems, int pe) {                   \
        __gdrcheck_shmem_put(dest, source, nelems, sizeof(TYPE), pe, 1);                    \
    }                                                                                       \
    __GDRCHECK_API void nvshmem_##NAME##_put_signal(TYPE *dest, const TYPE *source,         \
                                                    size_t nelems, uint64_t *sig_addr,      \
                                                    uint64_t signal, int sig_op, int pe) {  \
        __gdrcheck_shmem_put_signal(dest, source, nelems, sizeof(TYPE), sig_addr, signal,   \
                                    sig_op, pe, 0);                                         \
    }                                                                                       \
    __GDRCHECK_API void nvshmem_##NAME##_put_signal_nbi(TYPE *dest, const TYPE *source,     \
                                                        size_t nelems, uint64_t *sig_addr,  \
                                                        uint64_t signal, int sig_op,        \
                                                        int pe) {                           \
        __gdrcheck_shmem_put_signal(dest, source, nelems, sizeof(TYPE), sig_addr, signal,   \
                                    sig_op, pe, 1);                                         \
    }
__GDRCHECK_SHMEM_RMA_TYPES(__GDRCHECK_SHMEM_TYPED)

/* nvshmem_common.cuh:156-170: the wait types. */
#define __GDRCHECK_SHMEM_WAIT(NAME, TYPE)                                                    \
    __GDRCHECK_API void nvshmem_##NAME##_wait_until(TYPE *ivar, int cmp, TYPE cmp_value) {  \
        __gdrcheck_shmem_wait_until(ivar, sizeof(TYPE), cmp, (unsigned long long)cmp_value); \
    }
__GDRCHECK_SHMEM_WAIT(short, short)
__GDRCHECK_SHMEM_WAIT(int, int)
__GDRCHECK_SHMEM_WAIT(long, long)
__GDRCHECK_SHMEM_WAIT(longlong, long long)
__GDRCHECK_SHMEM_WAIT(ushort, unsigned short)
__GDRCHECK_SHMEM_WAIT(uint, unsigned int)
__GDRCHECK_SHMEM_WAIT(ulong, unsigned long)
__GDRCHECK_SHMEM_WAIT(ulonglong, unsigned long long)
__GDRCHECK_SHMEM_WAIT(int32, int32_t)
__GDRCHECK_SHMEM_WAIT(int64, int64_t)
__GDRCHECK_SHMEM_WAIT(uint32, uint32_t)
__GDRCHECK_SHMEM_WAIT(uint64, uint64_t)
__GDRCHECK_SHMEM_WAIT(size, size_t)
__GDRCHECK_SHMEM_WAIT(ptrdiff, ptrdiff_t)

/* The device AMOs of src/include/device/nvshmem_defines.h, each type list as it is there.
   atomic_add: NVSHMEMI_AMO_ADD (l.793-812); atomic_inc: NVSHMEMI_AMO_ADD of 1 (l.880-899);
   atomic_set: NVSHMEMI_AMO_SET (l.1213-1236, without float and double); atomic_fetch_add:
   NVSHMEMI_AMO_FETCH_ADD (l.742-784); atomic_fetch_inc: NVSHMEMI_AMO_FETCH_INC (l.821-869);
   atomic_compare_swap: NVSHMEMI_AMO_COMPARE_SWAP (l.907-953); atomic_fetch: a fetch_or of 0,
   NVSHMEMI_AMO_FETCH (l.1184-1211, without float and double). */
#define __GDRCHECK_SHMEM_AMO_ADD(NAME, TYPE)                                                 \
    __GDRCHECK_API void nvshmem_##NAME##_atomic_add(TYPE *target, TYPE value, int pe) {     \
        __gdrcheck_shmem_atomic(target, sizeof(TYPE), 4, (unsigned long long)value, pe);    \
    }                                                                                       \
    __GDRCHECK_API void nvshmem_##NAME##_atomic_inc(TYPE *target, int pe) {                 \
        __gdrcheck_shmem_atomic(target, sizeof(TYPE), 4, 1, pe);                            \
    }                                                                                       \
    __GDRCHECK_API TYPE nvshmem_##NAME##_atomic_fetch_add(TYPE *target, TYPE value, int pe) { \
        return (TYPE)__gdrcheck_shmem_atomic_fetch(target, sizeof(TYPE), 14,                \
                                                   (unsigned long long)value, 0, pe);       \
    }                                                                                       \
    __GDRCHECK_API TYPE nvshmem_##NAME##_atomic_fetch_inc(TYPE *target, int pe) {           \
        return (TYPE)__gdrcheck_shmem_atomic_fetch(target, sizeof(TYPE), 13, 1, 0, pe);     \
    }
__GDRCHECK_SHMEM_AMO_ADD(int, int)
__GDRCHECK_SHMEM_AMO_ADD(long, long)
__GDRCHECK_SHMEM_AMO_ADD(uint, unsigned int)
__GDRCHECK_SHMEM_AMO_ADD(ulong, unsigned long)
__GDRCHECK_SHMEM_AMO_ADD(ulonglong, unsigned long long)
__GDRCHECK_SHMEM_AMO_ADD(int32, int32_t)
__GDRCHECK_SHMEM_AMO_ADD(uint32, uint32_t)
__GDRCHECK_SHMEM_AMO_ADD(uint64, uint64_t)
__GDRCHECK_SHMEM_AMO_ADD(size, size_t)

#define __GDRCHECK_SHMEM_AMO_EXTENDED(NAME, TYPE)                                            \
    __GDRCHECK_API void nvshmem_##NAME##_atomic_set(TYPE *target, TYPE value, int pe) {     \
        __gdrcheck_shmem_atomic(target, sizeof(TYPE), 3, (unsigned long long)value, pe);    \
    }                                                                                       \
    __GDRCHECK_API TYPE nvshmem_##NAME##_atomic_compare_swap(TYPE *target, TYPE compare,    \
                                                             TYPE value, int pe) {          \
        return (TYPE)__gdrcheck_shmem_atomic_fetch(target, sizeof(TYPE), 19,               \
                                                   (unsigned long long)value,              \
                                                   (unsigned long long)compare, pe);        \
    }                                                                                       \
    __GDRCHECK_API TYPE nvshmem_##NAME##_atomic_fetch(const TYPE *target, int pe) {         \
        return (TYPE)__gdrcheck_shmem_atomic_fetch(target, sizeof(TYPE), 12, 0, 0, pe);     \
    }
__GDRCHECK_SHMEM_AMO_EXTENDED(int, int)
__GDRCHECK_SHMEM_AMO_EXTENDED(long, long)
__GDRCHECK_SHMEM_AMO_EXTENDED(longlong, long long)
__GDRCHECK_SHMEM_AMO_EXTENDED(uint, unsigned int)
__GDRCHECK_SHMEM_AMO_EXTENDED(ulong, unsigned long)
__GDRCHECK_SHMEM_AMO_EXTENDED(ulonglong, unsigned long long)
__GDRCHECK_SHMEM_AMO_EXTENDED(int32, int32_t)
__GDRCHECK_SHMEM_AMO_EXTENDED(int64, int64_t)
__GDRCHECK_SHMEM_AMO_EXTENDED(uint32, uint32_t)
__GDRCHECK_SHMEM_AMO_EXTENDED(uint64, uint64_t)
__GDRCHECK_SHMEM_AMO_EXTENDED(size, size_t)
__GDRCHECK_SHMEM_AMO_EXTENDED(ptrdiff, ptrdiff_t)

#define __GDRCHECK_SHMEM_SIZED(BITS)                                                         \
    __GDRCHECK_API void nvshmem_put##BITS(void *dest, const void *source, size_t nelems,    \
                                          int pe) {                                         \
        __gdrcheck_shmem_put(dest, source, nelems, BITS / 8, pe, 0);                        \
    }                                                                                       \
    __GDRCHECK_API void nvshmem_put##BITS##_nbi(void *dest, const void *source,             \
                                                size_t nelems, int pe) {                    \
        __gdrcheck_shmem_put(dest, source, nelems, BITS / 8, pe, 1);                        \
    }                                                                                       \
    __GDRCHECK_API void nvshmem_put##BITS##_signal(void *dest, const void *source,          \
                                                   size_t nelems, uint64_t *sig_addr,       \
                                                   uint64_t signal, int sig_op, int pe) {   \
        __gdrcheck_shmem_put_signal(dest, source, nelems, BITS / 8, sig_addr, signal,       \
                                    sig_op, pe, 0);                                         \
    }                                                                                       \
    __GDRCHECK_API void nvshmem_put##BITS##_signal_nbi(void *dest, const void *source,      \
                                                       size_t nelems, uint64_t *sig_addr,   \
                                                       uint64_t signal, int sig_op,         \
                                                       int pe) {                            \
        __gdrcheck_shmem_put_signal(dest, source, nelems, BITS / 8, sig_addr, signal,       \
                                    sig_op, pe, 1);                                         \
    }
__GDRCHECK_SHMEM_SIZED(8)
__GDRCHECK_SHMEM_SIZED(16)
__GDRCHECK_SHMEM_SIZED(32)
__GDRCHECK_SHMEM_SIZED(64)

#endif
