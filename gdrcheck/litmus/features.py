"""Which kinds of instructions a test uses, to match against a model's ``@accepts``.

The features are the words of the cat pragma (gdrcheck.cat.loader.FEATURES):

- ``X86``: an X86 test;
- ``PTX``: a PTX test, or a PTX memory access, fence or barrier in a GIN test
  (register arithmetic, labels and branches are neutral);
- ``PTX75``: what the PTX 7.5+ mixed-proxy model describes and PTX 6.0 does not: a
  virtual alias or a shared-memory / mbarrier declaration, a surface, texture or
  constant access, a proxy fence other than ``fence.proxy.async``, a TMA load or
  store, a bulk-group commit, an mbarrier operation (``mbarrier.init`` and
  ``fence.mbarrier_init`` too), ``griddepcontrol`` (docs/litmus-format.md §7, §6.1;
  docs/ptx-pdl-mbarrier.md);
- ``MULTIMEM``: a multicast object (``multicast M = ...``) or a ``multimem.*`` access
  of one (docs/litmus-format.md §11);
- ``GIN``: a ``gin.*`` call;
- ``SHMEM``: a ``shmem.*`` call;
- ``HOST``: host-initiated RDMA and kernel boundaries (docs/litmus-format.md §12): an
  ``ibv.*``, ``cuda.*`` or ``stream.wait_value`` call.
"""

from __future__ import annotations

from gdrcheck.litmus import ast as A

_PTX = (A.PtxLoad, A.PtxStore, A.PtxAtom, A.PtxRed, A.PtxFence, A.PtxBarrier)
_GIN = (A.GinPut, A.GinSignal, A.GinFlush, A.GinFlushAsync, A.GinWaitRequest, A.GinGet,
        A.GinWait, A.GinRead, A.GinReset, A.GinBarrier)


_PTX75 = (A.PtxBulkLoad, A.PtxBulkStore, A.PtxBulkCommit, A.PtxMbarArrive, A.PtxMbarWait,
          A.PtxMbarInit, A.PtxGridDep, A.PtxMapa, A.PtxClusterBarrier, A.PtxStoreAsync)
_PTX75_DECLS = (A.AliasDecl, A.SharedDecl, A.MbarrierDecl)
_MULTIMEM = (A.MultimemStore, A.MultimemRed, A.MultimemLdReduce)


_HOST = (A.HostVerb, A.HostWaitCompletion, A.CudaLaunch, A.CudaSync, A.CudaFlushRdma,
         A.StreamWaitValue)


def instr_feature(instr: A.Instr) -> str | None:
    """The feature one instruction needs, or None for neutral ones (in a GIN test)."""
    if isinstance(instr, _HOST):
        return "HOST"
    if isinstance(instr, _MULTIMEM):
        return "MULTIMEM"
    if isinstance(instr, _PTX75):
        return "PTX75"
    if isinstance(instr, (A.PtxLoad, A.PtxStore)) and instr.proxy != "generic":
        return "PTX75"
    if isinstance(instr, A.PtxFence) and (instr.kind.startswith("proxy.") and not
                                          instr.kind.startswith("proxy.async")
                                          or instr.kind.startswith("mbarrier_init")):
        return "PTX75"
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
    if any(isinstance(item, _PTX75_DECLS) for item in test.init):
        out.add("PTX75")
    if any(isinstance(item, A.MulticastDecl) for item in test.init):
        out.add("MULTIMEM")
    if any(t.placement.grid for t in test.threads):
        out.add("PTX75")  # grids of a stream: programmatic dependent launch
    for thread in test.threads:
        for instr in thread.instrs:
            if test.arch == "X86":
                continue
            f = instr_feature(instr)
            if f is not None:
                out.add(f)
    return frozenset(out)


test_features.__test__ = False  # type: ignore[attr-defined]  # not a pytest test
