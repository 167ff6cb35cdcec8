"""Calls in a kernel's IR: NVVM intrinsics, inline PTX and the ``__gdrcheck_*`` intrinsics
of the shipped headers, each lowered to litmus instructions (docs/kernels.md, "The intrinsic
convention" and its table).
"""

from __future__ import annotations

import re
from collections.abc import Callable

from gdrcheck.kernel import binary32
from gdrcheck.kernel.binary32 import FVal
from gdrcheck.kernel.extract import (
    MULTICAST,
    AssertSite,
    Extractor,
    Frame,
    HostFailure,
    ThreadExtractor,
)
from gdrcheck.kernel.ir import Asm, FuncRef, GlobalRef, Instr, SrcPos
from gdrcheck.kernel.nccl import BARRIER_NAMES, LsaTeam, lsa_team
from gdrcheck.kernel.values import (
    Cmp,
    CondInt,
    FSym,
    Opaque,
    Ptr,
    Sym,
    Value,
    is_cond,
    negate,
)

SIGNAL_OPS = {9: "set", 10: "add"}
"""NVSHMEM_SIGNAL_SET, NVSHMEM_SIGNAL_ADD (nvshmem_common_transport.h:39)."""

CMPS = {0: "==", 1: "!=", 2: ">", 3: "<=", 4: "<", 5: ">="}
"""nvshmemi_cmp_type (nvshmem_constants.h:48-56) -> the litmus comparison."""

_SREG_RE = re.compile(r"llvm\.nvvm\.read\.ptx\.sreg\.(tid|ntid|ctaid|nctaid)\.([xyz])")
_IGNORED = re.compile(r"llvm\.(dbg\.|lifetime\.|assume|experimental\.noalias|"
                      r"invariant\.|sideeffect)")
_BARRIERS = ("llvm.nvvm.barrier0", "llvm.nvvm.barrier.cta.sync.aligned.all",
             "llvm.nvvm.barrier.cta.sync.all", "llvm.nvvm.barrier.sync")
_MEMBARS = {"llvm.nvvm.membar.cta": "cta", "llvm.nvvm.membar.gl": "gpu",
            "llvm.nvvm.membar.sys": "sys"}
_MINMAX = {"smax": max, "smin": min, "umax": max, "umin": min}
# float math (docs/kernels.md, "Floats"): llvm.fabs.f32 is fabsf (exact), llvm.sqrt.f32 is
# sqrtf correctly rounded (IEEE 754-2019 §5.4.1; sqrt.rn.f32 without fast-math), and
# clang's __nvvm_rsqrt_approx_{f,ftz_f} is libdevice's __nv_rsqrtf: rsqrt.approx{.ftz}.f32,
# any binary32 value within its error bound (PTX ISA §9.7.3, rsqrt)
_FLOAT_MATH: dict[str, Callable[[FVal], FVal]] = {
    "llvm.fabs.f32": binary32.fabs,
    "llvm.sqrt.f32": binary32.fsqrt,
    "llvm.nvvm.rsqrt.approx.f": binary32.rsqrt_approx,
    "llvm.nvvm.rsqrt.approx.ftz.f": lambda x: binary32.rsqrt_approx(x, ftz=True),
}

Handler = Callable[["ThreadExtractor", "Frame", Instr, list[Value]], Value | None]


class Calls:
    """The lowering of every call the extraction knows."""

    def __init__(self, ex: Extractor) -> None:
        self.ex = ex
        self.intrinsics: dict[str, Handler] = {
            "__gdrcheck_shmem_my_pe": _my_pe,
            "__gdrcheck_shmem_n_pes": _n_pes,
            "__gdrcheck_shmem_ptr": _shmem_ptr,
            "__gdrcheck_shmem_p": _shmem_p,
            "__gdrcheck_shmem_put": _shmem_put,
            "__gdrcheck_shmem_put_signal": _shmem_put_signal,
            "__gdrcheck_shmem_signal_op": _shmem_signal_op,
            "__gdrcheck_shmem_fence": _plain("shmem.fence"),
            "__gdrcheck_shmem_quiet": _plain("shmem.quiet"),
            "__gdrcheck_shmem_barrier_all": _barrier_all,
            "__gdrcheck_shmem_wait_until": _shmem_wait_until,
            "__gdrcheck_shmem_signal_wait_until": _shmem_signal_wait_until,
            "__gdrcheck_shmem_atomic": _shmem_atomic,
            "__gdrcheck_shmem_atomic_fetch": _shmem_atomic_fetch,
            "__gdrcheck_shmem_put_group": _shmem_put_group,
            "__gdrcheck_shmem_put_signal_group": _shmem_put_signal_group,
            "__gdrcheck_cuda_assert": _assert,
            "__gdrcheck_cuda_cvta_global": _cvta_global,
            "__gdrcheck_lsa_local_pointer": _lsa_local_pointer,
            "__gdrcheck_lsa_pointer": _lsa_pointer,
            "__gdrcheck_lsa_peer_pointer": _lsa_peer_pointer,
            "__gdrcheck_lsa_barrier_arrive": _lsa_barrier_arrive,
            "__gdrcheck_lsa_barrier_wait": _lsa_barrier_wait,
            "__gdrcheck_lsa_barrier_mm_arrive": _lsa_barrier_mm_arrive,
            "__gdrcheck_lsa_barrier_mm_wait": _lsa_barrier_mm_wait,
            "__gdrcheck_lsa_multimem_pointer": _lsa_multimem_pointer,
            "__gdrcheck_gin_put": _gin_put,
            "__gdrcheck_gin_put_value": _gin_put_value,
            "__gdrcheck_gin_signal": _gin_signal,
            "__gdrcheck_gin_flush": _gin_flush,
            "__gdrcheck_gin_read_signal": _gin_read_signal,
            "__gdrcheck_gin_wait_signal": _gin_wait_signal,
            "__gdrcheck_gin_reset_signal": _gin_reset_signal,
            "__gdrcheck_gin_barrier_signal": _gin_barrier_signal,
            "__gdrcheck_gin_barrier_wait": _gin_barrier_wait,
            "__gdrcheck_gin_barrier_refuse": _gin_barrier_refuse,
        }

    def call(self, th: ThreadExtractor, fr: Frame, ins: Instr) -> Value | None:
        callee = ins.callee
        if isinstance(callee, Asm):
            return inline_ptx(th, fr, ins, callee)
        if not isinstance(callee, FuncRef):
            raise self.ex.error(ins.pos, "an indirect call (through a function pointer) is "
                                "not supported")
        name = callee.name
        if _IGNORED.match(name):
            return None
        m = _SREG_RE.fullmatch(name)
        if m:
            return _special_register(th, m.group(1), m.group(2))
        if name in _BARRIERS:
            th.epoch += 1  # docs/kernels.md, "Assumed values"
            # a CTA of one thread: the barrier waits for that thread alone (PTX ISA §9.7.13.1,
            # bar.sync: "the threads of the CTA"), which program order already orders
            if th.ex.config.block > 1:
                th.emit("bar.sync 0", ins.pos, "__syncthreads")
            return None
        if name in _MEMBARS:
            th.emit(f"fence.sc.{_MEMBARS[name]}", ins.pos, "__threadfence")
            return None
        mm = re.fullmatch(r"llvm\.(smax|smin|umax|umin)\.i\d+", name)
        if mm:
            a, b = (th.value(fr, o, ins) for o in ins.args)
            if isinstance(a, int) and isinstance(b, int):
                return _MINMAX[mm.group(1)](a, b)
            raise self.ex.error(ins.pos, f"{mm.group(1)} of a value read from memory is not "
                                "supported")
        if name.startswith("llvm.memset."):
            dst, byte, n = (th.value(fr, o, ins) for o in ins.args[:3])
            if not isinstance(dst, Ptr):
                raise self.ex.error(ins.pos, "a memset of something that is not an array")
            th.local_memset(dst, byte, n, ins.pos)
            return None
        if name in _FLOAT_MATH:
            (a,) = (th.value(fr, o, ins) for o in ins.args)
            return th.funary(a, _FLOAT_MATH[name], ins.pos, name)
        handler = self.intrinsics.get(name)
        if handler is None:
            if name.startswith("__gdrcheck_"):
                raise self.ex.error(ins.pos, f"the intrinsic {name} is not known to this "
                                    "version of the extraction")
            if name.startswith("llvm."):
                raise self.ex.error(ins.pos, f"the LLVM intrinsic {name} is not supported "
                                    "(a struct copy, memset or math the extraction does not "
                                    "model)")
            raise self.ex.error(ins.pos, f"a call of {name}, which has no definition in the "
                                "file or in gdrcheck's headers")
        args = [_arg(th, fr, o, ins) for o in ins.args]
        return handler(th, fr, ins, args)


def _arg(th: ThreadExtractor, fr: Frame, op: object, ins: Instr) -> Value:
    if isinstance(op, GlobalRef):
        return Opaque(th.ex.module.strings.get(op.name, op.name))
    return th.value(fr, op, ins)  # type: ignore[arg-type]


def _special_register(th: ThreadExtractor, reg: str, axis: str) -> int:
    cfg = th.ex.config
    code = th.code
    x = axis == "x"
    return {"tid": code.tid if x else 0, "ntid": cfg.block if x else 1,
            "ctaid": code.cta if x else 0, "nctaid": cfg.grid if x else 1}[reg]


# --------------------------------------------------------------------------
# Inline PTX
# --------------------------------------------------------------------------


def inline_ptx(th: ThreadExtractor, fr: Frame, ins: Instr, asm: Asm) -> Value | None:
    """The asm's PTX with its operands replaced by registers and locations; the litmus
    parser reads it when the test is parsed (errors come back at this line)."""
    constraints = [c for c in asm.constraints.split(",") if not c.startswith("~")]
    outputs = [c for c in constraints if c.startswith("=")]
    if len(outputs) > 1:
        raise th.ex.error(ins.pos, "inline asm with more than one output is not supported")
    args = list(ins.args)
    dst = th.reg(fr.depth, ins.name) if outputs else None
    body = asm.template.strip()
    if any(c.lstrip("=") == "f" for c in constraints):
        return _float_asm(th, fr, ins, body, constraints, dst)
    texts: list[str] = []
    for k, c in enumerate(constraints):
        if c.startswith("="):
            texts.append(dst or "")
            continue
        op = args[k - len(outputs)]
        v = th.value(fr, op, ins)
        texts.append(_asm_operand(th, v, ins.pos, 64 if c in ("l", "n") else 32))
    if "{" in body or ".reg" in body:
        raise th.ex.error(ins.pos, "inline asm with a block or register declarations is not "
                          "supported (one PTX instruction per statement)")
    statements = [s.strip() for s in body.split(";") if s.strip()]
    if not statements:
        return None
    for stmt in statements:
        access = _access_size(stmt)

        def operand(m: re.Match[str], access: int = access) -> str:
            k = int(m.group(2))
            if k >= len(texts):
                raise th.ex.error(ins.pos, f"inline asm names ${k}, which it does not have")
            text = texts[k]
            if text.startswith("{P:"):
                base, rank, offset = text[3:-1].split(":")
                return th.loc(Ptr(base, int(rank), int(offset)), access, ins.pos)
            if m.group(1):
                raise th.ex.error(ins.pos, f"inline asm dereferences ${k}, which is not an "
                                  "address into a kernel parameter's buffer")
            return text

        out = re.sub(r"(\[)?\$(\d+)\]?", operand, stmt)
        th.emit(out, ins.pos, ins.pos.api if ins.pos and ins.pos.api else stmt.split()[0])
    return Sym(dst) if dst else None


_MULTIMEM_F32 = re.compile(
    r"multimem\.(ld_reduce|st)((?:\.(?:weak|relaxed|acquire|release|cta|cluster|gpu|sys|"
    r"global))*)\.(?:(add)\.f32|b32)\s+(.*)")


def _float_asm(th: ThreadExtractor, fr: Frame, ins: Instr, body: str, constraints: list[str],
               dst: str | None) -> Value | None:
    """Inline PTX with ``f`` (float) operands: the multimem float accesses of NCCL's
    RMSNorm examples (07_kernel_fusion/include/rmsnorm_utils.cuh:29-48), each reading or
    writing float codes (binary32.encode) of every copy of a multicast location:
    ``multimem.ld_reduce{.sem}{.scope}.global.add.f32 %0, [%1]`` and
    ``multimem.st{.sem}{.scope}.global.b32 [%0], %1``. Other PTX on floats is refused."""
    pos = ins.pos
    stmts = [x.strip() for x in body.split(";") if x.strip()]
    m = _MULTIMEM_F32.fullmatch(stmts[0]) if len(stmts) == 1 else None
    if m is None:
        raise th.ex.error(pos, f"inline asm on float operands ({body[:50]!r}): only "
                          "multimem.ld_reduce...add.f32 and multimem.st...b32 of floats are "
                          "supported")
    kind, quals, add, operands = m.groups()
    ops = [o.strip() for o in operands.split(",")]
    if kind == "ld_reduce" and (add is None or constraints[:2] != ["=f", "l"]
                                or ops != ["$0", "[$1]"]):
        raise th.ex.error(pos, "multimem.ld_reduce of floats: expected "
                          "'multimem.ld_reduce.global.add.f32 %0, [%1];' with \"=f\", \"l\"")
    if kind == "st" and (constraints[:2] != ["l", "f"] or ops != ["[$0]", "$1"]):
        raise th.ex.error(pos, "multimem.st of a float: expected "
                          "'multimem.st.global.b32 [%0], %1;' with \"l\", \"f\"")
    p = th.value(fr, ins.args[0], ins)
    if not isinstance(p, Ptr) or not p.base.startswith(MULTICAST):
        raise th.ex.error(pos, f"multimem.{kind} of floats through an address that is not a "
                          "multimem pointer (ncclGetLsaMultimemPointer)")
    mc = th.loc(p, 4, pos, is_float=True)
    under = p.base[len(MULTICAST):]
    team = _whole_team(th, ins, f"multimem.{kind}")
    copies = [th.loc(Ptr(under, r, p.offset), 4, pos, is_float=True)
              for r in range(team.first, team.first + team.size)]
    what = pos.api if pos and pos.api else f"multimem.{kind}"
    if kind == "st":
        code = th.float_litmus(th.value(fr, ins.args[1], ins), copies, pos)
        text = code.reg if isinstance(code, Sym) else str(code)
        th.emit(f"multimem.st{quals.replace('.global', '')} {mc}, {text}", pos, what)
        return None
    assert dst is not None
    # the models add litmus integers (docs/litmus-format.md §11): the float sum when every
    # value each copy may hold is an integer float and every partial sum is exact
    # (magnitudes at most 2^24: any order of the additions gives the same sum)
    th.float_seq += 1  # one read of every copy
    sums: set[int] = {0}
    for where in copies:
        vals = th.float_values(where)
        bad = [v for v in vals if abs(v) > binary32.EXACT]
        if bad:
            raise th.ex.error(pos, f"multimem.ld_reduce.add.f32 of {where.split(':')[1]} on "
                              f"rank {where.split(':')[2]}, which may hold "
                              f"{binary32.show(binary32.decode(bad[0]))}: the models add litmus "
                              "integers, which are float sums only for integer floats of "
                              "magnitude at most 2^24")
        sums = {a + b for a in sums for b in vals}
        if any(abs(x) > binary32.EXACT for x in sums):
            raise th.ex.error(pos, "multimem.ld_reduce.add.f32: a sum of the values the copies "
                              "may hold exceeds 2^24 in magnitude (the float sum would round)")
    th.emit(f"multimem.ld_reduce{quals.replace('.global', '')}.add {dst}, {mc}", pos, what)
    th.guard(dst, sorted(sums), pos)
    return FSym((dst,), tuple(((n,), binary32.decode(n)) for n in sorted(sums)))


def _cvta_global(th: ThreadExtractor, fr: Frame, ins: Instr, args: list[Value]) -> Value:
    """``__cvta_generic_to_global(p)``: the global address of a generic pointer to global
    memory; here the address itself (an operand of inline PTX)."""
    if not isinstance(args[0], Ptr):
        raise th.ex.error(ins.pos, "__cvta_generic_to_global of something that is not an "
                          "address into a kernel parameter's buffer")
    return args[0]


def _asm_operand(th: ThreadExtractor, v: Value, pos: SrcPos | None, bits: int) -> str:
    """An asm input: a location placeholder, a register, or a constant (the signed value of
    its register's width: "r" 32 bits, "l" 64)."""
    if isinstance(v, Ptr):
        return f"{{P:{v.base}:{v.rank}:{v.offset}}}"
    s = th.scalar(v, pos, "inline asm")
    if isinstance(s, Sym):
        return s.reg
    s &= (1 << bits) - 1
    return str(s - (1 << bits) if s >> (bits - 1) else s)


def _access_size(stmt: str) -> int:
    m = re.search(r"\.[usb](8|16|32|64)\b", stmt.split()[0])
    return int(m.group(1)) // 8 if m else 4


# --------------------------------------------------------------------------
# NVSHMEM (docs/kernels.md, the intrinsic table)
# --------------------------------------------------------------------------


def _int(th: ThreadExtractor, v: Value, ins: Instr, what: str) -> int:
    if isinstance(v, int):
        return v
    raise th.ex.error(ins.pos, f"{_api(ins)}: {what} is a value read from memory; the litmus "
                      "call takes a constant (not supported yet)")


def _ptr(th: ThreadExtractor, v: Value, ins: Instr, what: str) -> Ptr:
    if isinstance(v, Ptr):
        return v
    raise th.ex.error(ins.pos, f"{_api(ins)}: {what} is not an address into a kernel "
                      "parameter's (symmetric) buffer")


def _pe(th: ThreadExtractor, v: Value, ins: Instr) -> int:
    pe = _int(th, v, ins, "the PE")
    if not 0 <= pe < th.ex.config.ranks:
        raise th.ex.error(ins.pos, f"{_api(ins)}: PE {pe} of {th.ex.config.ranks} (--ranks)")
    return pe


def _symmetric(th: ThreadExtractor, p: Ptr, ins: Instr, what: str) -> Ptr:
    """A symmetric address is the caller's own: NVSHMEM calls take local addresses."""
    if p.rank != th.code.rank:
        raise th.ex.error(ins.pos, f"{_api(ins)}: {what} is another PE's address (from "
                          "nvshmem_ptr); NVSHMEM calls take symmetric addresses")
    return p


def _api(ins: Instr) -> str:
    return ins.pos.api if ins.pos and ins.pos.api else "the call"


def _sig_op(th: ThreadExtractor, v: Value, ins: Instr) -> str:
    op = _int(th, v, ins, "the signal operation")
    if op not in SIGNAL_OPS:
        raise th.ex.error(ins.pos, f"{_api(ins)}: signal operation {op} is neither "
                          "NVSHMEM_SIGNAL_SET (9) nor NVSHMEM_SIGNAL_ADD (10)")
    return SIGNAL_OPS[op]


def _cmp(th: ThreadExtractor, v: Value, ins: Instr) -> str:
    op = _int(th, v, ins, "the comparison")
    if op not in CMPS:
        raise th.ex.error(ins.pos, f"{_api(ins)}: comparison {op} is not an NVSHMEM_CMP_*")
    return CMPS[op]


def _signed64(v: int) -> int:
    v &= (1 << 64) - 1
    return v - (1 << 64) if v >> 63 else v


def _my_pe(th: ThreadExtractor, fr: Frame, ins: Instr, args: list[Value]) -> Value:
    return th.code.rank


def _n_pes(th: ThreadExtractor, fr: Frame, ins: Instr, args: list[Value]) -> Value:
    return th.ex.config.ranks


def _shmem_ptr(th: ThreadExtractor, fr: Frame, ins: Instr, args: list[Value]) -> Value:
    p = _symmetric(th, _ptr(th, args[0], ins, "the address"), ins, "the address")
    pe = _pe(th, args[1], ins)
    cfg = th.ex.config
    if cfg.node_of(pe) != cfg.node_of(th.code.rank):
        return 0  # nvshmem_ptr: NULL when the PE is not reachable by load/store
    return Ptr(p.base, pe, p.offset)


def _shmem_p(th: ThreadExtractor, fr: Frame, ins: Instr, args: list[Value]) -> Value | None:
    """nvshmem_TYPE_p: the value is a constant or a value read (a register: ``shmem.p
    x@1, r0``, docs/litmus-format.md §10)."""
    dest = _symmetric(th, _ptr(th, args[0], ins, "dest"), ins, "dest")
    raw = th.scalar(args[1], ins.pos, f"{_api(ins)}'s value")
    value = raw.reg if isinstance(raw, Sym) else str(_signed64(raw))
    elem = _int(th, args[2], ins, "the element size")
    pe = _pe(th, args[3], ins)
    th.emit(f"shmem.p {th.loc(dest, elem, ins.pos, pe)}, {value}", ins.pos, _api(ins))
    return None


def _elements(th: ThreadExtractor, p: Ptr, n: int, elem: int, ins: Instr) -> list[Ptr]:
    """The element addresses of an n-element (n-byte for putmem: elem 1) transfer."""
    size = th.ex.elem_size(p.base, elem, ins.pos)
    total = n * elem
    if total % size:
        raise th.ex.error(ins.pos, f"{_api(ins)}: {total} bytes of {p.base}, whose elements "
                          f"are {size} bytes")
    return [Ptr(p.base, p.rank, p.offset + k * size) for k in range(total // size)]


def _shmem_put(th: ThreadExtractor, fr: Frame, ins: Instr, args: list[Value]) -> Value | None:
    dest = _symmetric(th, _ptr(th, args[0], ins, "dest"), ins, "dest")
    src = _symmetric(th, _ptr(th, args[1], ins, "source"), ins, "source")
    n = _int(th, args[2], ins, "the number of elements")
    elem = _int(th, args[3], ins, "the element size")
    pe = _pe(th, args[4], ins)
    nbi = _int(th, args[5], ins, "nbi")
    op = "shmem.put_nbi" if nbi else "shmem.put"
    size = th.ex.elem_size(dest.base, elem, ins.pos)
    for d, s in zip(_elements(th, dest, n, elem, ins), _elements(th, src, n, elem, ins),
                    strict=True):
        th.emit(f"{op} {th.loc(d, size, ins.pos, pe)}, {th.loc(s, size, ins.pos)}", ins.pos,
                _api(ins))
    return None


def _shmem_put_signal(th: ThreadExtractor, fr: Frame, ins: Instr,
                      args: list[Value]) -> Value | None:
    dest = _symmetric(th, _ptr(th, args[0], ins, "dest"), ins, "dest")
    src = _symmetric(th, _ptr(th, args[1], ins, "source"), ins, "source")
    n = _int(th, args[2], ins, "the number of elements")
    elem = _int(th, args[3], ins, "the element size")
    sig = _symmetric(th, _ptr(th, args[4], ins, "sig_addr"), ins, "sig_addr")
    value = _signed64(_int(th, args[5], ins, "the signal value"))
    op = _sig_op(th, args[6], ins)
    pe = _pe(th, args[7], ins)
    nbi = _int(th, args[8], ins, "nbi")
    dests = _elements(th, dest, n, elem, ins)
    srcs = _elements(th, src, n, elem, ins)
    if len(dests) != 1:
        raise th.ex.error(ins.pos, f"{_api(ins)} of {len(dests)} elements: the litmus "
                          "put_signal moves one word (set the count to 1 with --arg)")
    size = th.ex.elem_size(dest.base, elem, ins.pos)
    call = "shmem.put_signal_nbi" if nbi else "shmem.put_signal"
    th.emit(f"{call} {th.loc(dests[0], size, ins.pos, pe)}, {th.loc(srcs[0], size, ins.pos)}, "
            f"{th.loc(sig, 8, ins.pos, pe)}, {value}, {op}", ins.pos, _api(ins))
    return None


def _shmem_signal_op(th: ThreadExtractor, fr: Frame, ins: Instr,
                     args: list[Value]) -> Value | None:
    sig = _symmetric(th, _ptr(th, args[0], ins, "sig_addr"), ins, "sig_addr")
    value = _signed64(_int(th, args[1], ins, "the signal value"))
    op = _sig_op(th, args[2], ins)
    pe = _pe(th, args[3], ins)
    th.emit(f"shmem.signal_op {th.loc(sig, 8, ins.pos, pe)}, {value}, {op}", ins.pos, _api(ins))
    return None


def _shmem_wait_until(th: ThreadExtractor, fr: Frame, ins: Instr,
                      args: list[Value]) -> Value | None:
    ivar = _symmetric(th, _ptr(th, args[0], ins, "ivar"), ins, "ivar")
    elem = _int(th, args[1], ins, "the element size")
    cmp = _cmp(th, args[2], ins)
    value = _signed64(_int(th, args[3], ins, "the comparison value"))
    th.emit(f"shmem.wait_until {th.loc(ivar, elem, ins.pos)}, {cmp}, {value}", ins.pos,
            _api(ins))
    return None


def _shmem_signal_wait_until(th: ThreadExtractor, fr: Frame, ins: Instr,
                             args: list[Value]) -> Value | None:
    sig = _symmetric(th, _ptr(th, args[0], ins, "sig_addr"), ins, "sig_addr")
    cmp = _cmp(th, args[1], ins)
    value = _signed64(_int(th, args[2], ins, "the comparison value"))
    th.emit(f"shmem.signal_wait_until {th.loc(sig, 8, ins.pos)}, {cmp}, {value}", ins.pos,
            _api(ins))
    return Opaque("the value nvshmem_signal_wait_until returns (not extracted yet)")


AMO_OPS = {4: "shmem.atomic_add", 3: "shmem.atomic_set"}
"""The non-fetching nvshmemi_amo_t values of the headers (nvshmem_common_transport.h:43-45):
NVSHMEMI_AMO_ADD (atomic_add, and atomic_inc as an add of 1, nvshmem_defines.h:887),
NVSHMEMI_AMO_SET (atomic_set, l.1219)."""


def _shmem_atomic(th: ThreadExtractor, fr: Frame, ins: Instr, args: list[Value]) -> Value | None:
    """nvshmem_TYPE_atomic_{add,inc,set}: shmem.atomic_add / shmem.atomic_set on the PE's
    copy (a constant value)."""
    target = _symmetric(th, _ptr(th, args[0], ins, "the target"), ins, "the target")
    elem = _int(th, args[1], ins, "the element size")
    op = _int(th, args[2], ins, "the AMO")
    if op not in AMO_OPS:
        raise th.ex.error(ins.pos, f"{_api(ins)}: AMO {op} is not one the headers make")
    value = _signed64(_int(th, args[3], ins, "the value"))
    pe = _pe(th, args[4], ins)
    th.emit(f"{AMO_OPS[op]} {th.loc(target, elem, ins.pos, pe)}, {value}", ins.pos, _api(ins))
    return None


def _shmem_atomic_fetch(th: ThreadExtractor, fr: Frame, ins: Instr,
                        args: list[Value]) -> Value | None:
    raise th.ex.error(ins.pos, f"{_api(ins)}: a fetching AMO (its value comes back from the "
                      "target PE) is not modelled yet: the litmus vocabulary has no fetching "
                      "NVSHMEM AMO")


GROUPS = {1: "warp", 3: "block"}
"""nvshmemi threadgroup_t (nvshmemi_common_device_defines.cuh:32-41)."""


def _group(th: ThreadExtractor, v: Value, ins: Instr) -> bool:
    """Whether this thread issues the group's operation (thread 0 of the warp or block);
    a warp collective needs the CTA to be one warp (the litmus PTX has no bar.warp.sync:
    then the warp's __syncwarp is the CTA's bar.sync over the same threads)."""
    group = GROUPS.get(_int(th, v, ins, "the thread group"))
    if group is None:
        raise th.ex.error(ins.pos, f"{_api(ins)}: thread group {v}")
    if group == "warp" and th.ex.config.block > 32:
        raise th.ex.error(ins.pos, f"{_api(ins)}: a warp collective call in a CTA of "
                          f"{th.ex.config.block} threads (--block) is not supported: a CTA of "
                          "at most one warp (32 threads) only")
    return th.code.tid % 32 == 0 if group == "warp" else th.code.tid == 0


def _group_call(th: ThreadExtractor, fr: Frame, ins: Instr, args: list[Value],
                call: Handler) -> Value | None:
    """A warp or block collective call: nvshmemi_put_signal<T, SCOPE> and nvshmemi_put(_nbi)
    (NVIDIA/nvshmem@2d7d25f src/include/non_abi/device/common/nvshmemi_common_device.cuh:
    480-505, 553-561) synchronise the group (nvshmemi_threadgroup_sync: __syncwarp or
    __syncthreads, nvshmemi_common_device_defines.cuh:90-114), make one operation, and
    synchronise it again; the proxy path posts it from thread 0 of the group alone
    (non_abi/device/pt-to-pt/transfer_device.cuh.in:113-116, 143-145)."""
    leader = _group(th, args[-1], ins)
    what = f"{_api(ins)} (group sync)"
    th.emit("bar.sync 0", ins.pos, what)
    if leader:
        call(th, fr, ins, args[:-1])
    th.emit("bar.sync 0", ins.pos, what)
    return None


def _shmem_put_group(th: ThreadExtractor, fr: Frame, ins: Instr,
                     args: list[Value]) -> Value | None:
    return _group_call(th, fr, ins, args, _shmem_put)


def _shmem_put_signal_group(th: ThreadExtractor, fr: Frame, ins: Instr,
                            args: list[Value]) -> Value | None:
    return _group_call(th, fr, ins, args, _shmem_put_signal)


def _barrier_all(th: ThreadExtractor, fr: Frame, ins: Instr,
                 args: list[Value]) -> Value | None:
    """nvshmem_barrier_all: every PE's threads pass it (an epoch, docs/kernels.md "Assumed
    values", as a CTA barrier is)."""
    th.epoch += 1
    th.emit("shmem.barrier_all", ins.pos, _api(ins))
    return None


def _plain(call: str) -> Handler:
    def handler(th: ThreadExtractor, fr: Frame, ins: Instr, args: list[Value]) -> Value | None:
        th.emit(call, ins.pos, _api(ins))
        return None

    return handler


# --------------------------------------------------------------------------
# NCCL LSA (docs/kernels.md, "NCCL"; gdrcheck/kernel/include/nccl_device.h)
# --------------------------------------------------------------------------

LSA_INBOX = "ncclLsaInbox"
HYBRID_LSA_INBOX = "ncclHybridLsaInbox"
"""The LSA barriers' inboxes: on rank k, element ``index * ranks + sender`` is the word
``sender`` stores its arrivals at barrier ``index`` into (lsa_barrier__funcs.h:75-76)."""

_ORDERS = ("relaxed", "consume", "acquire", "release", "acq_rel", "seq_cst")
"""cuda::memory_order's values (gdrcheck/kernel/include/cuda/atomic)."""


def _order(th: ThreadExtractor, v: Value, ins: Instr) -> str:
    k = _int(th, v, ins, "the memory order")
    if not 0 <= k < len(_ORDERS):
        raise th.ex.error(ins.pos, f"{_api(ins)}: memory order {k} is not a cuda::memory_order")
    return _ORDERS[k]


def _team(th: ThreadExtractor, ins: Instr) -> LsaTeam:
    cfg = th.ex.config
    team = lsa_team([cfg.node_of(r) for r in range(cfg.ranks)], th.code.rank)
    if team is None:
        raise th.ex.error(ins.pos, f"{_api(ins)}: the ranks of a node are not contiguous "
                          "(--nodes): NCCL's LSA team is modelled as contiguous world ranks")
    return team


def _window(th: ThreadExtractor, v: Value, ins: Instr) -> Ptr:
    w = _ptr(th, v, ins, "the window")
    if w.offset or w.rank != th.code.rank:
        raise th.ex.error(ins.pos, f"{_api(ins)}: the window is not a kernel parameter of "
                          "type ncclWindow_t")
    return w


def _lsa_local_pointer(th: ThreadExtractor, fr: Frame, ins: Instr, args: list[Value]) -> Value:
    w = _window(th, args[0], ins)
    return Ptr(w.base, w.rank, _int(th, args[1], ins, "the offset"))


def _lsa_pointer(th: ThreadExtractor, fr: Frame, ins: Instr, args: list[Value]) -> Value:
    """ncclGetLsaPointer(w, offset, peer): ``peer`` is an LSA rank (core.h:269)."""
    w = _window(th, args[0], ins)
    offset = _int(th, args[1], ins, "the offset")
    peer = _int(th, args[2], ins, "the peer")
    team = _team(th, ins)
    if not 0 <= peer < team.size:
        raise th.ex.error(ins.pos, f"{_api(ins)}: peer {peer} is not an LSA rank (the LSA "
                          f"team of rank {th.code.rank} has {team.size} ranks, --nodes)")
    return Ptr(w.base, team.first + peer, offset)


def _lsa_peer_pointer(th: ThreadExtractor, fr: Frame, ins: Instr, args: list[Value]) -> Value:
    """ncclGetPeerPointer(w, offset, peer): ``peer`` is a world rank (core.h:270); only a
    rank of the caller's LSA team is reachable by load/store."""
    w = _window(th, args[0], ins)
    offset = _int(th, args[1], ins, "the offset")
    peer = _pe(th, args[2], ins)
    team = _team(th, ins)
    if not team.first <= peer < team.first + team.size:
        raise th.ex.error(ins.pos, f"{_api(ins)}: rank {peer} is not in the LSA team of rank "
                          f"{th.code.rank} (another node, --nodes): it takes GIN")
    return Ptr(w.base, peer, offset)


def _barrier_args(th: ThreadExtractor, ins: Instr,
                  args: list[Value]) -> tuple[int, int, str, LsaTeam, list[int], int]:
    """(index, epoch, order, team, the world ranks of this thread's peers, the barrier
    resource)."""
    index, epoch, _, trank, tsize, crank, csize, resource = (
        _int(th, a, ins, what) if k != 2 else 0 for k, (a, what) in enumerate(zip(
            args, ("the barrier index", "the epoch", "", "the team rank", "the team size",
                   "the thread rank", "the Coop size", "the barrier handle"), strict=True)))
    order = _order(th, args[2], ins)
    team = _team(th, ins)
    if (trank, tsize) != (team.rank, team.size):
        raise th.ex.error(ins.pos, f"{_api(ins)}: an LSA barrier over a team other than the "
                          f"LSA team (rank {trank} of {tsize}; the LSA team: {team.rank} of "
                          f"{team.size}) is not supported")
    # lsa_barrier__funcs.h:73-74 and :119-120: this thread's share of the peers
    peers = [team.first + i + (1 if trank <= i else 0) for i in range(crank, tsize - 1, csize)]
    return index, epoch, order, team, peers, resource


LSA_MC_INBOX = "ncclLsaMcInbox"
"""The multimem LSA barriers' inboxes: element ``index`` of rank k is barrier ``index``'s
word ``mcInbox`` (lsa_barrier__types.h:30-39: ``state + 2 * nBarriers + index``), which the
multicast object ``ncclMc_ncclLsaMcInbox`` reaches on every rank."""


def _whole_team(th: ThreadExtractor, ins: Instr, what: str) -> LsaTeam:
    """The LSA team, which must hold every rank: one multicast object (calls.py) is bound to
    the copies of all the test's ranks."""
    team = _team(th, ins)
    if team.size != th.ex.config.ranks:
        raise th.ex.error(ins.pos, f"{_api(ins)}: {what} with ranks on several nodes "
                          "(--nodes): a multicast object per LSA team is not modelled yet")
    return team


def _lsa_multimem_pointer(th: ThreadExtractor, fr: Frame, ins: Instr,
                          args: list[Value]) -> Value:
    """impl/core__funcs.h:144-154: the window's address in the LSA team's multicast object;
    multimem.st/.red/.ld_reduce through it reach every rank's copy (litmus-format.md §11)."""
    w = _window(th, args[0], ins)
    _whole_team(th, ins, "a multimem pointer")
    return Ptr(MULTICAST + w.base, w.rank, _int(th, args[1], ins, "the offset"))


def _mm_barrier_args(th: ThreadExtractor, ins: Instr, args: list[Value],
                     names: tuple[str, ...]) -> tuple[list[int], str, LsaTeam]:
    values = [_int(th, a, ins, what) if what else 0 for a, what in zip(args, names,
                                                                       strict=True)]
    order = _order(th, args[names.index("")], ins)
    team = _whole_team(th, ins, "a multimem LSA barrier")
    trank, tsize = values[-3], values[-2]
    if (trank, tsize) != (team.rank, team.size):
        raise th.ex.error(ins.pos, f"{_api(ins)}: an LSA barrier over a team other than the "
                          f"LSA team (rank {trank} of {tsize}) is not supported")
    return values, order, team


def _lsa_barrier_mm_arrive(th: ThreadExtractor, fr: Frame, ins: Instr,
                           args: list[Value]) -> Value | None:
    """lsa_barrier__funcs.h:57-67: thread 0 of the Coop adds 1 to the barrier's inbox word
    of every rank with multimem.red.release.sys.add.u32 (relaxed when releaseOrderOf(order)
    is, utility.h:350); no fence: the release is the red's own."""
    (index, _, trank, tsize, crank), order, _ = _mm_barrier_args(
        th, ins, args, ("the barrier index", "", "the team rank", "the team size",
                        "the thread rank"))
    release = {"acquire": "relaxed", "acq_rel": "release", "consume": "relaxed",
               "seq_cst": "release"}.get(order, order)
    if crank == 0:
        mc = th.loc(Ptr(MULTICAST + LSA_MC_INBOX, th.code.rank, 4 * index), 4, ins.pos)
        th.emit(f"multimem.red.{release}.sys.add {mc}, 1", ins.pos,
                f"ncclLsaBarrierSession::arrive ({order}, multimem)")
    return None


def _lsa_barrier_mm_wait(th: ThreadExtractor, fr: Frame, ins: Instr,
                         args: list[Value]) -> Value:
    """lsa_barrier__funcs.h:96-116: thread 0 loads its own copy of the inbox word
    (acquireOrderOf(order), utility.h:345; cuda::atomic_ref's system scope) until it reaches
    epoch + nRanks (a blocking wait) and advances its epoch by nRanks; the other threads'
    epoch stays."""
    (index, epoch, _, trank, tsize, crank), order, team = _mm_barrier_args(
        th, ins, args, ("the barrier index", "the epoch", "", "the team rank",
                        "the team size", "the thread rank"))
    if crank != 0:
        return epoch
    acquire = {"release": "relaxed", "acq_rel": "acquire",
               "consume": "acquire"}.get(order, order)
    what = f"ncclLsaBarrierSession::wait ({order}, multimem)"
    slot = th.loc(Ptr(LSA_MC_INBOX, th.code.rank, 4 * index), 4, ins.pos)
    got = th.fresh_reg("lsa")
    head, done = th.label(), th.label()
    target = epoch + team.size
    th.emit(f"{head}:", ins.pos)
    if acquire == "seq_cst":  # the ASPLOS'19 mapping (include/cuda/atomic)
        th.emit("fence.sc.sys", ins.pos, what)
    th.emit(f"ld.{'relaxed' if acquire == 'relaxed' else 'acquire'}.sys {got}, {slot}",
            ins.pos, what)
    th.emit(f"bge {got}, {target}, {done}", ins.pos, what)
    th.emit(f"goto {head}", ins.pos, what)
    th.emit(f"{done}:", ins.pos)
    return target & 0xFFFFFFFF


def _inbox(th: ThreadExtractor, owner: int, index: int, sender: int, resource: int,
           ins: Instr) -> str:
    """The inbox slot of ``sender`` in ``owner``'s barrier ``index``: ncclLsaInbox for the
    communicator's lsaBarrier, ncclHybridLsaInbox for hybridLsaBarrier."""
    if resource not in (0, 3):
        raise th.ex.error(ins.pos, f"{_api(ins)}: an LSA barrier over a handle that is not "
                          "the communicator's lsaBarrier or hybridLsaBarrier")
    ranks = th.ex.config.ranks
    base = LSA_INBOX if resource == 0 else HYBRID_LSA_INBOX
    return th.loc(Ptr(base, owner, 4 * (index * ranks + sender)), 4, ins.pos)


def _lsa_barrier_arrive(th: ThreadExtractor, fr: Frame, ins: Instr,
                        args: list[Value]) -> Value | None:
    """lsa_barrier__funcs.h:68-78: cuda::atomic_thread_fence(releaseOrderOf(order)) when the
    team has more than one rank (system scope: .sys), then a relaxed store of epoch+1 into
    each of this thread's peers' inbox slot of this rank."""
    index, epoch, order, team, peers, resource = _barrier_args(th, ins, args)
    release = {"acquire": "relaxed", "acq_rel": "release"}.get(order, order)  # utility.h:350
    what = f"ncclLsaBarrierSession::arrive ({order})"
    if team.size > 1 and release != "relaxed":
        th.emit("fence.sc.sys" if release == "seq_cst" else "fence.acq_rel.sys", ins.pos, what)
    for peer in peers:
        th.emit(f"st.relaxed.sys {_inbox(th, peer, index, th.code.rank, resource, ins)}, "
                f"{epoch + 1}", ins.pos, what)
    return None


def _lsa_barrier_wait(th: ThreadExtractor, fr: Frame, ins: Instr, args: list[Value]) -> Value:
    """lsa_barrier__funcs.h:118-137: for each of this thread's peers, load the own inbox slot
    of that peer (acquireOrderOf(order), utility.h:345) until it reaches epoch+1 (a blocking
    wait: the litmus loop is cut at --unroll); the new epoch is epoch+1."""
    index, epoch, order, _, peers, resource = _barrier_args(th, ins, args)
    acquire = {"release": "relaxed", "acq_rel": "acquire",
               "consume": "acquire"}.get(order, order)  # utility.h:345
    what = f"ncclLsaBarrierSession::wait ({order})"
    for peer in peers:
        slot = _inbox(th, th.code.rank, index, peer, resource, ins)
        got = th.fresh_reg("lsa")
        head, done = th.label(), th.label()
        th.emit(f"{head}:", ins.pos)
        if acquire == "seq_cst":  # the ASPLOS'19 mapping (include/cuda/atomic)
            th.emit("fence.sc.sys", ins.pos, what)
        sem = "relaxed" if acquire == "relaxed" else "acquire"
        th.emit(f"ld.{sem}.sys {got}, {slot}", ins.pos, what)
        th.emit(f"bge {got}, {epoch + 1}, {done}", ins.pos, what)
        th.emit(f"goto {head}", ins.pos, what)
        th.emit(f"{done}:", ins.pos)
    return (epoch + 1) & 0xFFFFFFFF


# --------------------------------------------------------------------------
# NCCL GIN (docs/kernels.md, "NCCL"; docs/litmus-format.md §9)
# --------------------------------------------------------------------------

GIN_ACTIONS = {1: ("sig", False), 2: ("wsig", False), 3: ("lsig", False), 4: ("sig", True),
               5: ("wsig", True), 6: ("lsig", True)}
"""The remote action kinds of nccl_device.h's __gdrcheck_gin_action -> (the litmus put
option, whether it adds a value): ncclGin_StrongSignalInc, WeakSignalInc, SignalInc
(deprecated), StrongSignalAdd, WeakSignalAdd, SignalAdd (deprecated), gin.h:59-91."""


def _signal_name(th: ThreadExtractor, v: Value, ins: Instr) -> str:
    k = _int(th, v, ins, "the signal index")
    name = f"ncclGinSignal{k}"
    th.ex.signals.add(name)
    return name


def _context(th: ThreadExtractor, v: Value, ins: Instr) -> str:
    k = _int(th, v, ins, "the GIN context index")
    if k < 0:
        raise th.ex.error(ins.pos, f"{_api(ins)}: GIN context {k}")
    return f"c{k}"


def _action(th: ThreadExtractor, args: list[Value], ins: Instr) -> tuple[str, str, bool] | None:
    """(option, signal with its add, weak) of a remote action; None for ncclGin_None."""
    kind = _int(th, args[0], ins, "the remote action")
    if kind == 0:
        return None
    if kind not in GIN_ACTIONS:
        raise th.ex.error(ins.pos, f"{_api(ins)}: remote action kind {kind}")
    option, adds = GIN_ACTIONS[kind]
    sig = _signal_name(th, args[1], ins)
    value = _signed64(_int(th, args[2], ins, "the signal value"))
    if adds and value != 1:
        sig = f"{sig}+{value}"
    elif not adds and value != 1:
        raise th.ex.error(ins.pos, f"{_api(ins)}: an increment by {value}")
    return option, sig, option == "wsig"


def _gin_put(th: ThreadExtractor, fr: Frame, ins: Instr, args: list[Value]) -> Value | None:
    """ncclGin::put (gin.h:250-256): one gin.put per element of the window (the litmus put
    moves one word); the signal goes with the last, which a strong signal covers with the
    earlier puts on the context to that peer (R-GIN-3); a weak one covers only its own put
    (R-GIN-4), so a weak signal on a put of several elements is refused."""
    ctx = _context(th, args[0], ins)
    peer = _pe(th, args[1], ins)
    dst = _window(th, args[2], ins)
    dst_off = _int(th, args[3], ins, "the destination offset")
    src = _window(th, args[4], ins)
    src_off = _int(th, args[5], ins, "the source offset")
    nbytes = _int(th, args[6], ins, "the size")
    action = _action(th, args[7:10], ins)
    # a window has no element type: the one its other accesses gave, else one word of the
    # put's size (up to 8 bytes)
    known = [th.ex.elems[b] for b in (dst.base, src.base) if b in th.ex.elems]
    word = known[0] if known else min(nbytes, 8)
    for b in (dst.base, src.base):
        th.ex.elem_size(b, word, ins.pos)
    dests = _elements(th, Ptr(dst.base, peer, dst_off), nbytes, 1, ins)
    srcs = _elements(th, Ptr(src.base, th.code.rank, src_off), nbytes, 1, ins)
    if len(dests) != len(srcs):
        raise th.ex.error(ins.pos, f"{_api(ins)}: source and destination windows have "
                          "different element sizes")
    if action is not None and action[2] and len(dests) != 1:
        raise th.ex.error(ins.pos, f"{_api(ins)}: a weak signal on a put of {len(dests)} "
                          "elements (the litmus put moves one word; a weak signal covers "
                          "only its own put, R-GIN-4): give a count of one element")
    for k, (d, sr) in enumerate(zip(dests, srcs, strict=True)):
        dsize = th.ex.elem_size(d.base, 1, ins.pos)
        # a put copies bytes: its buffers take the kind their other accesses give
        dloc = th.loc(d, dsize, ins.pos, peer, is_float=None)
        sloc = th.loc(sr, th.ex.elem_size(sr.base, 1, ins.pos), ins.pos, is_float=None)
        th.float_copy(dloc, sloc, ins.pos)
        text = f"gin.put {ctx}, {dloc}, {sloc}"
        if action is not None and k == len(dests) - 1:
            text += f", {action[0]}={action[1]}"
        th.emit(text, ins.pos, _api(ins))
    return None


def _gin_put_value(th: ThreadExtractor, fr: Frame, ins: Instr,
                   args: list[Value]) -> Value | None:
    """ncclGin::putValue (gin.h:285-290)."""
    ctx = _context(th, args[0], ins)
    peer = _pe(th, args[1], ins)
    dst = _window(th, args[2], ins)
    dst_off = _int(th, args[3], ins, "the destination offset")
    value = _signed64(_int(th, args[4], ins, "the value"))
    size = _int(th, args[5], ins, "the value's size")
    action = _action(th, args[6:9], ins)
    text = (f"gin.put_value {ctx}, {th.loc(Ptr(dst.base, peer, dst_off), size, ins.pos, peer)}, "
            f"{value}")
    if action is not None:
        text += f", {action[0]}={action[1]}"
    th.emit(text, ins.pos, _api(ins))
    return None


def _gin_signal(th: ThreadExtractor, fr: Frame, ins: Instr, args: list[Value]) -> Value | None:
    """ncclGin::signal (gin.h:303-308): gin.signal on the peer's signal."""
    ctx = _context(th, args[0], ins)
    peer = _pe(th, args[1], ins)
    action = _action(th, args[2:5], ins)
    if action is None:
        raise th.ex.error(ins.pos, f"{_api(ins)}: a signal with ncclGin_None")
    option, sig, _ = action
    name, plus, add = sig.partition("+")
    flag = {"sig": "", "wsig": ", weak", "lsig": ", legacy"}[option]
    th.emit(f"gin.signal {ctx}, {name}@{peer}{plus}{add}{flag}", ins.pos, _api(ins))
    return None


def _acquire_only(th: ThreadExtractor, v: Value, ins: Instr, relaxed_ok: bool) -> str:
    order = _order(th, v, ins)
    if order in ("acquire", "seq_cst", "consume") or (relaxed_ok and order == "relaxed"):
        return "relaxed" if order == "relaxed" else "acquire"
    raise th.ex.error(ins.pos, f"{_api(ins)} with memory order {order} is not modelled "
                      "(the litmus call is an acquire)")


def _gin_flush(th: ThreadExtractor, fr: Frame, ins: Instr, args: list[Value]) -> Value | None:
    """ncclGin::flush (gin.h:312-314): gin.flush on the context (R-GIN-8)."""
    ctx = _context(th, args[0], ins)
    _acquire_only(th, args[1], ins, relaxed_ok=False)
    th.emit(f"gin.flush {ctx}", ins.pos, _api(ins))
    return None


def _gin_read_signal(th: ThreadExtractor, fr: Frame, ins: Instr, args: list[Value]) -> Value:
    """ncclGin::readSignal (gin.h:344-345): gin.read_signal (acquire, or .relaxed)."""
    sig = _signal_name(th, args[0], ins)
    if _int(th, args[1], ins, "bits") != 64:
        raise th.ex.error(ins.pos, f"{_api(ins)}: a read of fewer than 64 bits is not modelled")
    order = _acquire_only(th, args[2], ins, relaxed_ok=True)
    if th.host == "check":
        raise th.ex.error(ins.pos, "a host check reads a signal (only buffers)")
    dst = th.reg(fr.depth, ins.name)
    call = "gin.read_signal.relaxed" if order == "relaxed" else "gin.read_signal"
    th.emit(f"{call} {dst}, {sig}", ins.pos, _api(ins))
    return Sym(dst)


def _wait_on(th: ThreadExtractor, sig: str, least: str, order: str, ins: Instr,
             what: str) -> None:
    """NCCL's wait for a signal (impl/gin__funcs.h:985-987: loads of order ``order`` until
    the value reaches ``least``): an acquire wait is the litmus gin.wait_signal (a blocking
    acquire wait, R-GIN-10); a relaxed one the loop itself, over gin.read_signal.relaxed (a
    side-effect-free spin: a blocking wait, docs/kernels.md "Extraction"). A seq_cst load
    is ``fence.sc.sys`` before an acquire one (the ASPLOS'19 mapping, include/cuda/atomic)."""
    if order == "seq_cst":
        th.emit("fence.sc.sys", ins.pos, what)
    if order != "relaxed":
        th.emit(f"gin.wait_signal {sig}, {least}", ins.pos, what)
        return
    got = th.fresh_reg("sig")
    head, done = th.label(), th.label()
    th.emit(f"{head}:", ins.pos)
    th.emit(f"gin.read_signal.relaxed {got}, {sig}", ins.pos, what)
    th.emit(f"bge {got}, {least}, {done}", ins.pos, what)
    th.emit(f"goto {head}", ins.pos, what)
    th.emit(f"{done}:", ins.pos)


def _gin_wait_signal(th: ThreadExtractor, fr: Frame, ins: Instr,
                     args: list[Value]) -> Value | None:
    """ncclGin::waitSignal (gin.h:352-354, impl/gin__funcs.h:975-990): gin.wait_signal S,
    least (a blocking acquire wait, R-GIN-10), or a relaxed poll. A threshold computed from
    a value read (``readSignal(S) + n``, 02_alltoall_gin main.cu:101) is the register that
    holds it (docs/litmus-format.md §9, "A threshold in a register")."""
    sig = _signal_name(th, args[0], ins)
    least = args[1]
    if isinstance(least, int):
        text = str(_signed64(least))
    elif isinstance(least, Sym):
        text = least.reg
    else:
        raise th.ex.error(ins.pos, f"{_api(ins)}: a threshold that is a condition")
    if _int(th, args[2], ins, "bits") != 64:
        raise th.ex.error(ins.pos, f"{_api(ins)}: a wait on fewer than 64 bits is not modelled")
    order = _order(th, args[3], ins)
    order = "acquire" if order in ("consume", "acq_rel") else order
    if order not in ("relaxed", "acquire", "seq_cst"):
        raise th.ex.error(ins.pos, f"{_api(ins)} with memory order {order} (a load's order is "
                          "relaxed, acquire or seq_cst)")
    _wait_on(th, sig, text, order, ins, _api(ins))
    return None


def _barrier_signal_name(th: ThreadExtractor, resource: int, k: int, ins: Instr) -> str:
    """A GIN barrier's signal ``k`` of resource ``resource`` (the handle's): a litmus signal
    of its own, apart from the user's ncclGinSignal<k> (NCCL allocates the barrier signals
    past the user's, gin_barrier__funcs.h:17)."""
    name = BARRIER_NAMES.get(resource)
    if name is None or "Gin" not in name:
        raise th.ex.error(ins.pos, "a GIN barrier session over a handle that is not one of "
                          "the communicator's GIN barrier handles")
    sig = f"{name}_{k}"
    th.ex.signals.add(sig)
    return sig


def _gin_barrier_signal(th: ThreadExtractor, fr: Frame, ins: Instr,
                        args: list[Value]) -> Value | None:
    """gin_barrier__funcs.h:104-106: ncclGin::signal of ncclGin_SignalInc (deprecated: the
    litmus ``legacy`` signal, R-GIN-5) on the peer's barrier signal of this rank, with
    givenRelease thread_scope_thread (the call releases, R-GIN-13) unless the barrier's
    release order is relaxed (thread_scope_system: ``given=sys``)."""
    ctx = _context(th, args[0], ins)
    peer = _pe(th, args[1], ins)
    resource = _int(th, args[2], ins, "the barrier handle")
    sig = _barrier_signal_name(th, resource, _int(th, args[3], ins, "the barrier signal"), ins)
    given = ", given=sys" if _int(th, args[4], ins, "the release") else ""
    th.emit(f"gin.signal {ctx}, {sig}@{peer}, legacy{given}", ins.pos,
            "ncclGinBarrierSession::sync (signal)")
    return None


def _gin_barrier_wait(th: ThreadExtractor, fr: Frame, ins: Instr,
                      args: list[Value]) -> Value | None:
    """gin_barrier__funcs.h:107-116: ``waitVal = ++shadow`` of the signal, then
    waitSignal(ncclCoopThread(), signal, waitVal, 32, acquireOrderOf(order)). The shadow
    starts at 0 (one launch) and is the rank's: one thread of the rank owns it (NCCL's peer
    split gives each signal of a barrier to one thread of the Coop); a second thread is
    refused. 32-bit rolling comparison (gin.h:316-322) is >= for values below 2^31."""
    resource = _int(th, args[0], ins, "the barrier handle")
    k = _int(th, args[1], ins, "the barrier signal")
    sig = _barrier_signal_name(th, resource, k, ins)
    order = _order(th, args[2], ins)
    order = "acquire" if order in ("consume", "acq_rel") else order
    if order not in ("relaxed", "acquire", "seq_cst"):
        raise th.ex.error(ins.pos, f"{_api(ins)}: a barrier wait of order {order}")
    key = (th.code.rank, sig)
    owner = th.ex.shadow_owner.setdefault(key, th.code.index)
    if owner != th.code.index:
        raise th.ex.error(ins.pos, f"two threads of rank {th.code.rank} wait on the GIN "
                          f"barrier signal {sig} (NCCL's signal shadow, shared by them, is "
                          "not modelled): give each barrier index one Coop")
    shadows = th.state.shadows
    shadows[key] = shadows.get(key, 0) + 1
    _wait_on(th, sig, str(shadows[key]), order, ins, "ncclGinBarrierSession::sync (wait)")
    return None


def _gin_barrier_refuse(th: ThreadExtractor, fr: Frame, ins: Instr,
                        args: list[Value]) -> Value | None:
    why = _int(th, args[0], ins, "the reason")
    raise th.ex.error(ins.pos, {
        1: "ncclTeamRail: the nodes do not all have the same number of ranks (--nodes): "
           "NCCL's rail team divides the ranks by the LSA size (core__funcs.h:35-41)",
        2: "ncclBarrierSession::sync with ncclGinFenceLevel::Put: NCCL then takes the world "
           "GIN barrier unless comm.ginContextsRailed (barrier__funcs.h:76-87), a property "
           "of the communicator the configuration does not give"}.get(
        why, f"a barrier the extraction does not model ({why})"))


def _gin_reset_signal(th: ThreadExtractor, fr: Frame, ins: Instr,
                      args: list[Value]) -> Value | None:
    """ncclGin::resetSignal (gin.h:377): gin.reset_signal (R-GIN-11)."""
    th.emit(f"gin.reset_signal {_signal_name(th, args[0], ins)}", ins.pos, _api(ins))
    return None


# --------------------------------------------------------------------------
# assert (docs/kernels.md, "Properties")
# --------------------------------------------------------------------------


def _assert(th: ThreadExtractor, fr: Frame, ins: Instr, args: list[Value]) -> Value | None:
    ok = args[0]
    expr = args[1].why if isinstance(args[1], Opaque) else "assert"
    if th.host == "check":
        holds = th.truth(ok, ins.pos, "an assert")
        if holds is not True:
            fails = (not holds) if isinstance(holds, bool) else negate(holds)
            th.ex.host_failures.append(HostFailure(th.code.rank, ins.pos, expr, fails))
        return None
    site = (fr.depth, f"assert@{ins.pos}#{id(ins)}")

    def flag() -> str:
        """The site's flag register, a term of the condition once some path may set it
        (an assert that holds on every path the thread takes names no register)."""
        fresh = site not in th.regs
        reg = th.reg(*site)
        if fresh:
            th.ex.asserts.append(AssertSite(th.code.index, reg, ins.pos, expr))
        return reg

    what = f"assert({expr})"
    cond = ok != 0 if isinstance(ok, int) else th.truth(ok, ins.pos, "an assert")
    if isinstance(cond, bool):
        if not cond:
            th.emit(f"mov {flag()}, 1", ins.pos, what)
        return None
    if isinstance(ok, CondInt) or is_cond(ok) or isinstance(ok, (Sym, Cmp)):
        reg = flag()
        passed = th.label()
        th.jump_if(cond, passed, ins.pos)
        th.emit(f"mov {reg}, 1", ins.pos, what)
        th.emit(f"{passed}:", ins.pos)
    return None
