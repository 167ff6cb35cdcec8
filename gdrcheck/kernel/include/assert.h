/* gdrcheck's <assert.h> for device code (docs/kernels.md, "Properties"): a failing assert
 * makes the kernel's verdict Allowed. */
#ifndef GDRCHECK_ASSERT_H
#define GDRCHECK_ASSERT_H
#include <__gdrcheck_cuda.h>

extern "C" __device__ void __gdrcheck_cuda_assert(int ok, const char *expr);

#ifdef NDEBUG
#define assert(e) ((void)0)
#else
#define assert(e) __gdrcheck_cuda_assert((e) ? 1 : 0, #e)
#endif
#endif
