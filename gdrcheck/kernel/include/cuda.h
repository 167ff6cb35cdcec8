/* gdrcheck: the CUDA device subset (docs/kernels.md). */
#include <__gdrcheck_cuda.h>
