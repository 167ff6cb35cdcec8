"""Lowering of the PTX dialect (Dartagnan's, and the PTX part of GIN tests).

Event tags (the sets a cat model sees):

- semantics: ``WEAK``, ``RLX``, ``ACQ``, ``REL`` on memory events; ``.volatile``
  is ``.relaxed.sys`` (PTX ISA) and also tagged ``VOL``; fences carry ``SC``
  and ``ACQ_REL`` (a ``fence.sc`` is also a ``fence.acq_rel``, PTX ISA
  "Memory Consistency Model"), ``ACQ_REL``, or ``ACQ`` / ``REL`` for the
  PTX 8.6 one-directional fences; ``membar.{cta,gl,sys}`` is
  ``fence.sc.{cta,gpu,sys}``;
- scopes: ``CTA``, ``GPU``, ``SYS`` on strong operations and fences;
- read-modify-writes (``atom``, ``red``): a read and a write linked by ``rmw``,
  both tagged ``ATOM``; ``.acquire`` makes the read ``ACQ``, ``.release`` the
  write ``REL``, ``.acq_rel`` both, and the other half is ``RLX``;
  a ``cas`` whose comparison fails has no write;
- CTA barriers: ``bar.cta.sync`` is an arrival event (``BAR``, ``ARRIVE``)
  followed by a wait event (``BAR``, ``WAIT``); ``bar.cta.arrive`` is the
  arrival alone. The operands name the barrier: ``bar.cta.sync a`` is barrier
  (a), ``bar.cta.sync a, b`` is barrier (a, b) and ``bar.cta.sync a, b, c``
  is barrier (a, b) with a quorum of c threads — the reading that makes
  Dartagnan's Barrier and named-barrier tests come out as its expected table
  says (docs/ptx-barriers.md).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

from gdrcheck.errors import UnsupportedError
from gdrcheck.litmus import ast as A
from gdrcheck.lower.builder import PathState
from gdrcheck.lower.program import BinOp, CmpExpr, Expr

SCOPE_TAG = {"cta": "CTA", "gpu": "GPU", "sys": "SYS"}
COND = {"eq": "eq", "ne": "ne", "lt": "lt", "le": "le", "gt": "gt", "ge": "ge"}


def value(st: PathState, v: A.Value) -> Expr:
    if isinstance(v, A.Const):
        return v.value
    return st.reg(v.name)


def _mem_tags(sem: str, scope: str | None, kind: str) -> tuple[set[str], str | None]:
    if sem == "volatile":
        return {"RLX", "VOL", "SYS"}, "sys"
    if sem == "weak":
        return {"WEAK"}, None
    tag = {"relaxed": "RLX", "acquire": "ACQ", "release": "REL"}.get(sem)
    if tag is None:
        raise UnsupportedError(f"'.{sem}' is not a semantics of a {kind}")
    assert scope is not None
    return {tag, SCOPE_TAG[scope]}, scope


def _rmw_tags(sem: str, scope: str) -> tuple[set[str], set[str]]:
    s = SCOPE_TAG[scope]
    read_sem = "ACQ" if sem in ("acquire", "acq_rel") else "RLX"
    write_sem = "REL" if sem in ("release", "acq_rel") else "RLX"
    if sem not in ("relaxed", "acquire", "release", "acq_rel"):
        raise UnsupportedError(f"'.{sem}' is not a semantics of an atomic operation")
    return {read_sem, s, "ATOM"}, {write_sem, s, "ATOM"}


def loc_name(loc: A.LocRef) -> str:
    return str(loc)


def step(
    st: PathState, ins: A.Instr, label: str, labels: dict[str, int],
    resolve: Callable[[A.LocRef], str] = loc_name,
) -> Iterator[PathState]:
    here = st.pc
    st.pc += 1
    if isinstance(ins, A.PtxLoad):
        tags, scope = _mem_tags(ins.sem, ins.scope, "load")
        if "REL" in tags:
            raise UnsupportedError("a load cannot be '.release'", pos=ins.pos)
        st.regs[ins.dst.name] = st.read(resolve(ins.loc), tags, label, scope=scope, pos=ins.pos)
    elif isinstance(ins, A.PtxStore):
        tags, scope = _mem_tags(ins.sem, ins.scope, "store")
        if "ACQ" in tags:
            raise UnsupportedError("a store cannot be '.acquire'", pos=ins.pos)
        st.emit("W", resolve(ins.loc), tags, label, value=value(st, ins.value),
                scope=scope, pos=ins.pos)
    elif isinstance(ins, (A.PtxAtom, A.PtxRed)):
        yield from _rmw(st, ins, label, resolve(ins.loc))
        return
    elif isinstance(ins, A.PtxAsyncStore):
        # the async proxy's write (PTX ISA 8.9.1.1: ordered after the thread's prior
        # instructions, not part of its program order: the models decide)
        st.emit("W", resolve(ins.loc), {"WEAK", "ASYNC"}, label, value=value(st, ins.value),
                pos=ins.pos)
    elif isinstance(ins, A.PtxAsyncWait):
        st.emit("F", None, {"ASYNCWAIT"}, label, pos=ins.pos)
    elif isinstance(ins, A.PtxFence):
        if ins.kind.startswith("proxy"):
            st.emit("F", None, {"PROXY"}, label, pos=ins.pos)
        else:
            kind_tags = {
                "sc": {"SC", "ACQ_REL"},
                "acq_rel": {"ACQ_REL"},
                "acquire": {"ACQ"},
                "release": {"REL"},
            }.get(ins.kind)
            if kind_tags is None or ins.scope is None:
                raise UnsupportedError(f"unsupported fence 'fence.{ins.kind}'", pos=ins.pos)
            st.emit("F", None, kind_tags | {SCOPE_TAG[ins.scope]}, label, scope=ins.scope,
                    pos=ins.pos)
    elif isinstance(ins, A.PtxBarrier):
        ops = [value(st, v) for v in ins.operands]
        if not ops:
            raise UnsupportedError("a barrier needs an id", pos=ins.pos)
        quorum: int | None = None
        if len(ops) >= 3:
            q = ops[2]
            if not isinstance(q, int):
                raise UnsupportedError("a barrier's thread count must be a constant",
                                       pos=ins.pos)
            quorum = q
        bid = tuple(ops[:2])
        st.emit("F", None, {"BAR", "ARRIVE", "CTA"}, label, scope="cta", pos=ins.pos,
                barrier_id=bid, quorum=quorum)
        if ins.mode == "sync":
            st.emit("F", None, {"BAR", "WAIT", "CTA"}, label, scope="cta", pos=ins.pos,
                    barrier_id=bid, quorum=quorum)
    elif isinstance(ins, A.LocalOp):
        args = [value(st, v) for v in ins.args]
        if ins.op == "mov":
            st.regs[ins.dst.name] = args[0]
        else:
            st.regs[ins.dst.name] = BinOp(ins.op, args[0], args[1])
    elif isinstance(ins, A.Label):
        pass
    elif isinstance(ins, A.Goto):
        st.pc = _target(labels, ins.target, ins)
    elif isinstance(ins, A.Branch):
        target = _target(labels, ins.target, ins)
        fork = st.fork(CmpExpr(COND[ins.cond], value(st, ins.a), value(st, ins.b)))
        if fork is True:
            st.pc = target
        elif fork is False:
            pass
        else:
            taken, fallthrough = fork
            taken.pc = target
            fallthrough.pc = here + 1
            yield fallthrough
            yield taken
            return
    else:
        raise UnsupportedError(
            f"instruction not supported in this dialect: {type(ins).__name__}", pos=ins.pos
        )
    yield st


def _target(labels: dict[str, int], name: str, ins: A.Goto | A.Branch) -> int:
    if name not in labels:
        raise UnsupportedError(f"label {name} is not defined in this thread", pos=ins.pos)
    return labels[name]


def _rmw(st: PathState, ins: A.PtxAtom | A.PtxRed, label: str,
         loc: str) -> Iterator[PathState]:
    rtags, wtags = _rmw_tags(ins.sem, ins.scope)
    rv = st.read(loc, rtags, label, scope=ins.scope, pos=ins.pos)
    if isinstance(ins, A.PtxAtom):
        st.regs[ins.dst.name] = rv
        operands = [value(st, v) for v in ins.operands]
        op = ins.op
    else:
        operands = [value(st, ins.value)]
        op = ins.op
    if op == "cas":
        if len(operands) != 2:
            raise UnsupportedError("atom.cas needs a compare value and a new value", pos=ins.pos)
        fork = st.fork(CmpExpr("eq", rv, operands[0]))
        branches = [(st, fork)] if isinstance(fork, bool) else [(fork[0], True), (fork[1], False)]
        for s, equal in branches:
            if equal:
                w = s.emit("W", loc, wtags, label, value=operands[1], scope=ins.scope,
                           pos=ins.pos)
                s.builder.rmw.add((rv.eid, w.eid))
            yield s
        return
    if op == "exch":
        new: Expr = operands[0]
    elif op in ("inc", "dec"):
        new = BinOp("add" if op == "inc" else "sub", rv, 1)
    elif op in ("add", "sub", "mul", "div", "and", "or", "xor", "min", "max"):
        new = BinOp(op, rv, operands[0])
    else:
        raise UnsupportedError(f"unsupported atomic operation '{op}'", pos=ins.pos)
    w = st.emit("W", loc, wtags, label, value=new, scope=ins.scope, pos=ins.pos)
    st.builder.rmw.add((rv.eid, w.eid))
    st.builder.data.add((rv.eid, w.eid))
    yield st
