"""Lowering of multimem accesses to NVLink SHARP multicast objects (docs/litmus-format.md §11).

A multicast object ``M`` is bound to copies of one global location on the ranks of one
node (``multicast M = inbox``: inbox on every rank of the test; ``multicast M = {x@0,
x@2}``: the listed copies). The PTX ISA says what a multimem instruction does to them and
nothing more (§8.2.3 "Multimem Addresses": "a virtual address which points to multiple
distinct memory locations across devices"; §9.7.9.14: ``multimem.st`` "performs a store
operation ... to all the memory locations pointed to by the multimem address",
``multimem.red`` "a reduction operation on all the memory locations", ``multimem.ld_reduce``
loads "from all of the multiple memory locations" and returns the reduction of the values
loaded; the semantics qualifier gives "the memory synchronizing effect ... as described in
Memory Consistency Model"). gdrcheck reads this as one PTX memory operation per bound copy,
as the memory model reads a vector access (§8.2.4: "a set of equivalent memory operations
with a scalar data type, executed in an unspecified order"):

- ``multimem.st.sem.scope M, v``: a write of ``v`` to each copy, with the tags of
  ``st.sem.scope`` (``WEAK``, or ``RLX``/``REL`` and the scope);
- ``multimem.red.sem.scope.add M, v``: on each copy, a read and a write linked by
  ``rmw`` (``ATOM``), the read ``RLX``, the write ``RLX`` or ``REL``, as ``red``;
- ``multimem.ld_reduce.sem.scope.op r, M``: a read of each copy (``WEAK``, ``RLX`` or
  ``ACQ``); ``r`` is the reduction (add, min, max) of the values read.

A plain ``ld`` or ``st`` of ``M`` itself is legal syntax but undefined behaviour (§8.2.3:
"the behavior of accessing a multimem address in any other memory operation is
undefined"): it is one access of a location named after the object (``M``), tagged
``MMPLAIN``, which specs/multimem.cat flags (verdict Undefined).

Every per-copy event is also tagged ``MM``, and the static relation ``mmi`` links the
per-copy events of one instruction (both directions), so a model can tell them apart:
specs/multimem.cat takes them out of program order among themselves (the ISA's
"unspecified order"), unless the variant ``mm-copies-in-order`` says otherwise.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence

from gdrcheck.errors import UnsupportedError
from gdrcheck.litmus import ast as A
from gdrcheck.lower.builder import PathState
from gdrcheck.lower.gin import World
from gdrcheck.lower.program import BinOp, Expr
from gdrcheck.lower.ptx import SCOPE_TAG, value

INSTRS = (A.MultimemStore, A.MultimemRed, A.MultimemLdReduce)

MM = "MM"
"""The tag of every per-copy event of a multimem instruction."""


def bindings(test: A.Test, world: World) -> dict[str, list[A.LocRef]]:
    """The copies (``x@k``) each multicast object of ``test`` is bound to, in order:
    the listed ones, or the target on every rank of the test. All copies are on one node
    (a multicast object spans the GPUs of one NVLink domain)."""
    out: dict[str, list[A.LocRef]] = {}
    for item in test.init:
        if not isinstance(item, A.MulticastDecl):
            continue
        try:
            if item.target is not None:
                refs = [A.LocRef(item.target, k, item.pos) for k in world.ranks]
                refs = [r for r in refs if item.target not in world.only_on
                        or r.rank in world.only_on[item.target]]
            else:
                refs = list(item.copies)
            copies = [world.loc(r, None) for r in refs]
        except UnsupportedError as err:
            err.pos = item.pos
            raise err.with_context(test.path, test.source) from None
        if not copies:
            raise UnsupportedError(f"multicast object '{item.name}' has no copy",
                                   test.path, item.pos, test.source)
        nodes = {n for c in copies
                 if (n := world.node_of.get(int(c.rsplit("@", 1)[1]))) is not None}
        if len(nodes) > 1:
            raise UnsupportedError(
                f"multicast object '{item.name}' binds copies on nodes "
                f"{', '.join(str(n) for n in sorted(nodes))}: a multicast object spans the "
                "GPUs of one node (list the copies: multicast M = {x@0, x@1})",
                test.path, item.pos, test.source)
        out[item.name] = refs
    return out


def _mem_tags(sem: str, scope: str | None) -> set[str]:
    if sem == "weak":
        return {"WEAK"}
    assert scope is not None
    return {{"relaxed": "RLX", "acquire": "ACQ", "release": "REL"}[sem], SCOPE_TAG[scope]}


def step(st: PathState, ins: A.MultimemStore | A.MultimemRed | A.MultimemLdReduce, label: str,
         bound: Sequence[A.LocRef], resolve: Callable[[A.LocRef], str]) -> Iterator[PathState]:
    """The per-copy events of one multimem instruction (see the module doc). ``resolve``
    names a copy, refusing one the issuing thread cannot reach (another node's memory)."""
    st.pc += 1
    copies = [resolve(A.LocRef(r.name, r.rank, ins.mc.pos)) for r in bound]
    per_copy: list[list[int]] = []
    if isinstance(ins, A.MultimemStore):
        tags = _mem_tags(ins.sem, ins.scope) | {MM}
        v = value(st, ins.value)
        for loc in copies:
            per_copy.append([st.emit("W", loc, tags, label, value=v, scope=ins.scope,
                                     pos=ins.pos).eid])
    elif isinstance(ins, A.MultimemRed):
        s = SCOPE_TAG[ins.scope]
        wsem = "REL" if ins.sem == "release" else "RLX"
        v = value(st, ins.value)
        for loc in copies:
            rv = st.read(loc, {"RLX", s, "ATOM", "RED", MM}, label, scope=ins.scope,
                         pos=ins.pos)
            w = st.emit("W", loc, {wsem, s, "ATOM", MM}, label, value=BinOp(ins.op, rv, v),
                        scope=ins.scope, pos=ins.pos)
            st.builder.rmw.add((rv.eid, w.eid))
            st.builder.data.add((rv.eid, w.eid))
            per_copy.append([rv.eid, w.eid])
    else:
        tags = _mem_tags(ins.sem, ins.scope) | {MM}
        acc: Expr | None = None
        for loc in copies:
            rv = st.read(loc, tags, label, scope=ins.scope, pos=ins.pos)
            per_copy.append([rv.eid])
            acc = rv if acc is None else BinOp(ins.op, acc, rv)
        assert acc is not None
        st.regs[ins.dst.name] = acc
    # mmi: the events of different copies of this instruction (an RMW's read and write,
    # on one copy, stay in program order)
    mmi = st.builder.relations.setdefault("mmi", set())
    for i, mine in enumerate(per_copy):
        for j, theirs in enumerate(per_copy):
            if i != j:
                mmi.update((a, b) for a in mine for b in theirs)
    yield st


def plain_step(st: PathState, ins: A.PtxLoad | A.PtxStore, label: str) -> Iterator[PathState]:
    """A plain ld / st of the multicast object itself: one access of the location ``M``,
    tagged ``MMPLAIN`` (undefined behaviour, PTX ISA §8.2.3; see the module doc)."""
    st.pc += 1
    tags = _mem_tags(ins.sem if ins.sem != "volatile" else "relaxed",
                     "sys" if ins.sem == "volatile" else ins.scope) | {"MMPLAIN"}
    scope = "sys" if ins.sem == "volatile" else ins.scope
    if isinstance(ins, A.PtxStore):
        st.emit("W", ins.loc.name, tags, label, value=value(st, ins.value), scope=scope,
                pos=ins.pos)
    else:
        st.regs[ins.dst.name] = st.read(ins.loc.name, tags, label, scope=scope, pos=ins.pos)
    yield st
