"""Which kinds of instructions a test uses, to match against a model's ``@accepts``.

The features are the words of the cat pragma (gdrcheck.cat.loader.FEATURES):

- ``X86``: an X86 test;
- ``PTX``: a PTX test, or a PTX memory access, fence or barrier in a GIN test
  (register arithmetic, labels and branches are neutral);
- ``GIN``: a ``gin.*`` call;
- ``SHMEM``: a ``shmem.*`` call.
"""

from __future__ import annotations

from gdrcheck.litmus import ast as A

_PTX = (A.PtxLoad, A.PtxStore, A.PtxAtom, A.PtxRed, A.PtxFence, A.PtxBarrier)
_GIN = (A.GinPut, A.GinSignal, A.GinFlush, A.GinFlushAsync, A.GinWaitRequest, A.GinGet,
        A.GinWait, A.GinRead, A.GinReset, A.GinBarrier)


def instr_feature(instr: A.Instr) -> str | None:
    """The feature one instruction needs, or None for neutral ones (in a GIN test)."""
    if isinstance(instr, A.ShmemCall):
        return "SHMEM"
    if isinstance(instr, _GIN):
        return "GIN"
    if isinstance(instr, _PTX):
        return "PTX"
    return None


def test_features(test: A.Test) -> frozenset[str]:
    """The features ``test`` needs a model to accept."""
    out: set[str] = set()
    if test.arch == "X86":
        out.add("X86")
    elif test.arch == "PTX":
        out.add("PTX")
    for thread in test.threads:
        for instr in thread.instrs:
            if test.arch == "X86":
                continue
            f = instr_feature(instr)
            if f is not None:
                out.add(f)
    return frozenset(out)


test_features.__test__ = False  # type: ignore[attr-defined]  # not a pytest test
