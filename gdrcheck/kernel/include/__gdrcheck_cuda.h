/* gdrcheck's CUDA device subset (docs/kernels.md, "The CUDA subset").
 *
 * Included before every kernel (clang -include). With -nocudainc clang defines none of
 * CUDA's keywords, so they are defined here; every memory access is inline PTX, whose text
 * survives to the LLVM IR unchanged (docs/kernels.md, "The intrinsic convention"). */
#ifndef GDRCHECK_CUDA_H
#define GDRCHECK_CUDA_H

#define __device__ __attribute__((device))
#define __global__ __attribute__((global))
#define __host__ __attribute__((host))
#define __shared__ __attribute__((shared))
#define __constant__ __attribute__((constant))
#define __forceinline__ inline __attribute__((always_inline))
#define __noinline__ __attribute__((noinline))
#define __launch_bounds__(...) __attribute__((launch_bounds(__VA_ARGS__)))
#define __restrict__ __restrict

#include <__clang_cuda_builtin_vars.h>

typedef __SIZE_TYPE__ size_t;
typedef __PTRDIFF_TYPE__ ptrdiff_t;

#define __GDRCHECK_API static __device__ __forceinline__

struct dim3 {
    unsigned x, y, z;
    __host__ __device__ constexpr dim3(unsigned x_ = 1, unsigned y_ = 1, unsigned z_ = 1)
        : x(x_), y(y_), z(z_) {}
};

/* ---- barriers and fences ------------------------------------------------------------ */

/* __syncthreads() is a clang builtin: @llvm.nvvm.barrier0 (or barrier.cta.sync.aligned.all),
 * read as bar.sync 0. */

/* PTX ISA 8.5 §9.7.13.4: membar.{cta,gl,sys} has the semantics of fence.sc.{cta,gpu,sys}. */
__GDRCHECK_API void __threadfence_block(void) { asm volatile("fence.sc.cta;" ::: "memory"); }
__GDRCHECK_API void __threadfence(void) { asm volatile("fence.sc.gpu;" ::: "memory"); }
__GDRCHECK_API void __threadfence_system(void) { asm volatile("fence.sc.sys;" ::: "memory"); }

/* PTX ISA §9.7.13.3 barrier.cluster (sm_90), CUDA's __cluster_barrier_* builtins: arrive
 * (.release by default, or .relaxed) and wait (.acquire). A configuration places no thread
 * block clusters (no --cluster option): each CTA is a cluster of its own, as in a launch
 * without cluster dimensions, so these synchronise the CTA's threads (docs/ptx-clusters.md).
 * mapa (a peer CTA's shared memory) has no wrapper: its result is an address. */
__GDRCHECK_API void __cluster_barrier_arrive(void) {
    asm volatile("barrier.cluster.arrive;" ::: "memory");
}
__GDRCHECK_API void __cluster_barrier_arrive_relaxed(void) {
    asm volatile("barrier.cluster.arrive.relaxed;" ::: "memory");
}
__GDRCHECK_API void __cluster_barrier_wait(void) {
    asm volatile("barrier.cluster.wait;" ::: "memory");
}

/* ---- atomic functions -----------------------------------------------------------------
 * CUDA C++ Programming Guide, "Atomic Functions": relaxed, device scope; the _block and
 * _system variants have block and system scope. */

#define __GDRCHECK_ATOM(NAME, SUFFIX, SCOPE, OP, T, PTXT, C)                                 \
    __GDRCHECK_API T NAME##SUFFIX(T *address, T val) {                                      \
        T old;                                                                              \
        asm volatile("atom.relaxed." SCOPE ".global." OP "." PTXT " %0, [%1], %2;"          \
                     : "=" C(old) : "l"(address), C(val) : "memory");                       \
        return old;                                                                         \
    }
#define __GDRCHECK_ATOM_SCOPES(NAME, OP, T, PTXT, C)                                         \
    __GDRCHECK_ATOM(NAME, , "gpu", OP, T, PTXT, C)                                          \
    __GDRCHECK_ATOM(NAME, _block, "cta", OP, T, PTXT, C)                                    \
    __GDRCHECK_ATOM(NAME, _system, "sys", OP, T, PTXT, C)
#define __GDRCHECK_ATOM_TYPES(NAME, OP)                                                      \
    __GDRCHECK_ATOM_SCOPES(NAME, OP, int, "s32", "r")                                       \
    __GDRCHECK_ATOM_SCOPES(NAME, OP, unsigned int, "u32", "r")                              \
    __GDRCHECK_ATOM_SCOPES(NAME, OP, unsigned long long, "u64", "l")

__GDRCHECK_ATOM_TYPES(atomicAdd, "add")
__GDRCHECK_ATOM_TYPES(atomicExch, "exch")
__GDRCHECK_ATOM_TYPES(atomicMin, "min")
__GDRCHECK_ATOM_TYPES(atomicMax, "max")
__GDRCHECK_ATOM_TYPES(atomicAnd, "and")
__GDRCHECK_ATOM_TYPES(atomicOr, "or")
__GDRCHECK_ATOM_TYPES(atomicXor, "xor")

#define __GDRCHECK_ATOM_SUB(SUFFIX, T)                                                       \
    __GDRCHECK_API T atomicSub##SUFFIX(T *address, T val) {                                 \
        return atomicAdd##SUFFIX(address, (T)(0 - val));                                    \
    }
__GDRCHECK_ATOM_SUB(, int)
__GDRCHECK_ATOM_SUB(, unsigned int)
__GDRCHECK_ATOM_SUB(_block, int)
__GDRCHECK_ATOM_SUB(_block, unsigned int)
__GDRCHECK_ATOM_SUB(_system, int)
__GDRCHECK_ATOM_SUB(_system, unsigned int)

#define __GDRCHECK_CAS(SUFFIX, SCOPE, T, PTXT, C)                                            \
    __GDRCHECK_API T atomicCAS##SUFFIX(T *address, T compare, T val) {                      \
        T old;                                                                              \
        asm volatile("atom.relaxed." SCOPE ".global.cas." PTXT " %0, [%1], %2, %3;"         \
                     : "=" C(old) : "l"(address), C(compare), C(val) : "memory");           \
        return old;                                                                         \
    }
#define __GDRCHECK_CAS_TYPES(SUFFIX, SCOPE)                                                  \
    __GDRCHECK_CAS(SUFFIX, SCOPE, int, "b32", "r")                                          \
    __GDRCHECK_CAS(SUFFIX, SCOPE, unsigned int, "b32", "r")                                 \
    __GDRCHECK_CAS(SUFFIX, SCOPE, unsigned long long, "b64", "l")
__GDRCHECK_CAS_TYPES(, "gpu")
__GDRCHECK_CAS_TYPES(_block, "cta")
__GDRCHECK_CAS_TYPES(_system, "sys")

/* ---- float math (docs/kernels.md, "Floats") --------------------------------------------
 * CUDA's math functions, as clang's own CUDA headers define them over libdevice
 * (__clang_cuda_math.h: fabsf is __nv_fabsf, sqrtf __nv_sqrtf, rsqrtf __nv_rsqrtf), with
 * libdevice's bodies at nvcc's defaults (-ftz=false, -prec-sqrt=true): fabsf is llvm.fabs,
 * sqrtf llvm.sqrt (sqrt.rn.f32, correctly rounded), rsqrtf rsqrt.approx.f32 (any binary32
 * value within the PTX ISA's error bound, §9.7.3 rsqrt). The host code's sqrtf (<cmath>) is
 * correctly rounded too (IEEE 754-2019 §5.4.1). */
__GDRCHECK_API float fabsf(float x) { return __builtin_fabsf(x); }
__GDRCHECK_API float sqrtf(float x) { return __builtin_sqrtf(x); }
__GDRCHECK_API float rsqrtf(float x) { return __nvvm_rsqrt_approx_f(x); }

/* memset (<cstring>; CUDA declares it for device code): clang's llvm.memset, supported on the
 * local arrays of host code only (docs/kernels.md, "Host code"). */
__GDRCHECK_API void *memset(void *s, int c, size_t n) { return __builtin_memset(s, c, n); }

/* __cvta_generic_to_global (CUDA's sm_20 intrinsics): the global address of a generic
 * pointer, used as an "l" operand of inline PTX; the extraction keeps the address. */
extern "C" __device__ size_t __gdrcheck_cuda_cvta_global(const void *p);
__GDRCHECK_API size_t __cvta_generic_to_global(const void *p) {
    return __gdrcheck_cuda_cvta_global(p);
}

#endif
