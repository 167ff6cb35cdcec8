"""The documented name of the hypothesis strategies for GIN and NVSHMEM programs; they
live in :mod:`gdrcheck.gen.gin_strategies`::

    from gdrcheck.gin_strategies import gin_tests
"""

from gdrcheck.gen.gin_strategies import (
    GIN_OPS,
    SHMEM_OPS,
    GinProgram,
    gin_programs,
    gin_tests,
    strengthenings,
)

__all__ = ["gin_tests", "gin_programs", "GinProgram", "strengthenings", "GIN_OPS", "SHMEM_OPS"]
