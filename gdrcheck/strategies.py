"""The documented name of the hypothesis strategies for X86 and PTX tests; they live in
:mod:`gdrcheck.gen.strategies`::

    from gdrcheck.strategies import litmus_tests
"""

from gdrcheck.gen.strategies import (
    OP_EVENTS,
    PTX_OPS,
    X86_OPS,
    count_events,
    estimate_candidates,
    litmus_tests,
    possible_values,
    ptx_tests,
    x86_tests,
)

__all__ = ["X86_OPS", "PTX_OPS", "OP_EVENTS", "litmus_tests", "x86_tests", "ptx_tests",
           "count_events", "estimate_candidates", "possible_values"]
