/* gdrcheck: NVSHMEM extensions (nvshmemx_signal_op is in nvshmem.h). */
#include <nvshmem.h>
