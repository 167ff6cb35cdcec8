"""Lowering of herd7's X86 dialect, as herd7 reads it.

- ``MOV [x],v`` is a write, ``MOV r,[x]`` a read, ``MOV r,v`` a register move;
- ``MFENCE`` is a fence event tagged ``MFENCE``;
- ``XCHG`` with a memory operand and every ``LOCK`` instruction are atomic
  read-modify-writes: a read and a write linked by ``rmw``, both tagged ``X``
  (herd7's set of atomic, locked accesses);
- ``LOCK CMPXCHG [x],r`` reads x; when the value equals EAX it writes r,
  otherwise it only loads the value into EAX (the write is absent, as in herd7).
"""

from __future__ import annotations

from collections.abc import Iterator

from gdrcheck.errors import UnsupportedError
from gdrcheck.litmus import ast as A
from gdrcheck.lower.builder import PathState
from gdrcheck.lower.program import BinOp, CmpExpr, Expr, ReadVal

LOCKED = {"X"}


def _value(st: PathState, op: A.X86Operand) -> Expr:
    if isinstance(op, A.Const):
        return op.value
    if isinstance(op, A.Reg):
        return st.reg(op.name.upper())
    raise UnsupportedError("a memory operand cannot be used here", pos=op.pos)


def _mem(op: A.X86Operand) -> str | None:
    return str(op.loc) if isinstance(op, A.X86Mem) else None


def _rmw(st: PathState, loc: str, label: str, new: Expr | None, pos: A.Pos) -> ReadVal:
    """A locked read followed by a write of ``new`` (None: the read value)."""
    rv = st.read(loc, set(LOCKED), label, pos=pos)
    w = st.emit("W", loc, LOCKED, label, value=rv if new is None else new, pos=pos)
    st.builder.rmw.add((rv.eid, w.eid))
    st.builder.data.add((rv.eid, w.eid))
    return rv


def step(st: PathState, ins: A.Instr, label: str) -> Iterator[PathState]:
    st.pc += 1
    if isinstance(ins, A.X86Mfence):
        st.emit("F", None, {"MFENCE"}, label, pos=ins.pos)
    elif isinstance(ins, A.X86Mov):
        dst, src = ins.dst, ins.src
        if isinstance(dst, A.X86Mem) and isinstance(src, A.X86Mem):
            raise UnsupportedError("MOV from memory to memory is not an x86 instruction",
                                   pos=ins.pos)
        if isinstance(dst, A.X86Mem):
            st.emit("W", str(dst.loc), set(), label, value=_value(st, src), pos=ins.pos)
        elif isinstance(dst, A.Reg):
            if isinstance(src, A.X86Mem):
                st.regs[dst.name.upper()] = st.read(str(src.loc), set(), label, pos=ins.pos)
            else:
                st.regs[dst.name.upper()] = _value(st, src)
        else:
            raise UnsupportedError("MOV into a constant", pos=ins.pos)
    elif isinstance(ins, A.X86Xchg):
        mem, reg = (ins.a, ins.b) if isinstance(ins.a, A.X86Mem) else (ins.b, ins.a)
        if not isinstance(mem, A.X86Mem) or not isinstance(reg, A.Reg):
            if isinstance(ins.a, A.Reg) and isinstance(ins.b, A.Reg):
                a, b = ins.a.name.upper(), ins.b.name.upper()
                st.regs[a], st.regs[b] = st.reg(b), st.reg(a)
                yield st
                return
            raise UnsupportedError("XCHG needs a memory operand and a register", pos=ins.pos)
        old = st.reg(reg.name.upper())
        st.regs[reg.name.upper()] = _rmw(st, str(mem.loc), label, old, ins.pos)
    elif isinstance(ins, A.X86Locked):
        loc = _mem(ins.dst)
        if loc is None:
            raise UnsupportedError(f"LOCK {ins.op} needs a memory destination", pos=ins.pos)
        op = ins.op.upper()
        if op in ("ADD", "SUB", "AND", "OR", "XOR", "XADD", "INC", "DEC"):
            operand: Expr = 1 if ins.src is None else _value(st, ins.src)
            arith = {"XADD": "add", "INC": "add", "DEC": "sub"}.get(op, op.lower())
            rv = st.read(loc, set(LOCKED), label, pos=ins.pos)
            w = st.emit("W", loc, LOCKED, label, value=BinOp(arith, rv, operand), pos=ins.pos)
            st.builder.rmw.add((rv.eid, w.eid))
            st.builder.data.add((rv.eid, w.eid))
            if op == "XADD" and isinstance(ins.src, A.Reg):
                st.regs[ins.src.name.upper()] = rv
        elif op == "XCHG":
            if not isinstance(ins.src, A.Reg):
                raise UnsupportedError("LOCK XCHG needs a register", pos=ins.pos)
            old = st.reg(ins.src.name.upper())
            st.regs[ins.src.name.upper()] = _rmw(st, loc, label, old, ins.pos)
        elif op == "CMPXCHG":
            if ins.src is None:
                raise UnsupportedError("LOCK CMPXCHG needs a source register", pos=ins.pos)
            new = _value(st, ins.src)
            rv = st.read(loc, set(LOCKED), label, pos=ins.pos)
            fork = st.fork(CmpExpr("eq", rv, st.reg("EAX")))
            if fork is True or fork is False:
                branches = [(st, fork)]
            else:
                branches = [(fork[0], True), (fork[1], False)]
            for s, equal in branches:
                if equal:
                    w = s.emit("W", loc, LOCKED, label, value=new, pos=ins.pos)
                    s.builder.rmw.add((rv.eid, w.eid))
                else:
                    s.regs["EAX"] = rv
                yield s
            return
        else:
            raise UnsupportedError(f"LOCK {op} is not supported", pos=ins.pos)
    else:
        raise UnsupportedError(f"not an X86 instruction: {type(ins).__name__}", pos=ins.pos)
    yield st
