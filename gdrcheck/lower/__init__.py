"""Lowering: a litmus :class:`~gdrcheck.litmus.ast.Test` becomes a :class:`Program`.

The same skeleton is produced whatever the model: models differ in their
axioms, not in this code (DESIGN.md).
"""

from __future__ import annotations

from collections.abc import Iterator

from gdrcheck.errors import UnsupportedError
from gdrcheck.litmus import ast as A
from gdrcheck.litmus.printer import instr as print_instr
from gdrcheck.lower import ptx, x86
from gdrcheck.lower.builder import PathState, Placement, ProgramBuilder, build_thread
from gdrcheck.lower.program import Expr, Program

__all__ = ["lower", "Program", "DEFAULT_UNROLL"]

DEFAULT_UNROLL = 2
"""A loop body runs at most this many times on one path (herd7's -unroll default)."""


def _norm_reg(arch: str, name: str) -> str:
    return name.upper() if arch == "X86" else name


def _instr_locations(ins: A.Instr) -> Iterator[A.LocRef]:
    for f in ("loc", "dst", "src", "a", "b"):
        v = getattr(ins, f, None)
        if isinstance(v, A.LocRef):
            yield v
        elif isinstance(v, A.X86Mem):
            yield v.loc


def _prop_terms(p: A.Prop) -> Iterator[A.Term]:
    if isinstance(p, A.Cmp):
        yield p.lhs
        yield p.rhs
    elif isinstance(p, (A.And, A.Or)):
        for a in p.args:
            yield from _prop_terms(a)
    elif isinstance(p, A.Not):
        yield from _prop_terms(p.arg)


def lower(test: A.Test, unroll: int = DEFAULT_UNROLL) -> Program:
    if test.arch == "GIN":
        raise UnsupportedError(
            "GIN and NVSHMEM calls have no meaning in gdrcheck yet (the GIN lowering and "
            "models are the next step); this test parses but cannot be checked",
            test.path,
        )
    if unroll < 1:
        raise UnsupportedError("the unroll bound must be at least 1")
    b = ProgramBuilder()

    # Locations: from the init block, the instructions and the condition.
    init_values: dict[str, int] = {}
    init_regs: dict[int, dict[str, Expr]] = {}
    for item in test.init:
        if isinstance(item, A.InitLoc):
            init_values[str(item.loc)] = item.value
        elif isinstance(item, A.InitReg):
            if not isinstance(item.value, int):
                raise UnsupportedError(
                    "registers holding addresses are not supported", test.path, item.pos
                )
            init_regs.setdefault(item.thread, {})[_norm_reg(test.arch, item.reg)] = item.value
        else:
            raise UnsupportedError(
                f"'{type(item).__name__}' declarations belong to the GIN dialect", test.path,
                getattr(item, "pos", None),
            )
    locations: list[str] = list(init_values)
    for th in test.threads:
        for ins in th.instrs:
            for ref in _instr_locations(ins):
                if str(ref) not in locations:
                    locations.append(str(ref))
    terms = list(_prop_terms(test.condition.prop)) + list(test.locations)
    if test.filter is not None:
        terms += list(_prop_terms(test.filter))
    for t in terms:
        if isinstance(t, A.LocTerm) and str(t.loc) not in locations:
            locations.append(str(t.loc))
    for loc in locations:
        init_values.setdefault(loc, 0)

    # Initial writes: one per location, thread -1, always executed.
    root = b.new_block(-1, None, None, True)
    for loc in locations:
        b.new_event(
            thread=-1, kind="W", loc=loc, tags=frozenset({"INIT"}), block=root, parent=None,
            value=init_values[loc], label=f"{loc}={init_values[loc]}",
        )

    for th in test.threads:
        pl = th.placement
        place = Placement(pl.cta, pl.gpu, pl.node)
        if test.arch == "PTX" and pl.gpu is None and not pl.host:
            # an unplaced PTX thread runs in CTA 0 of GPU 0 (docs/models.md)
            place = Placement(0 if pl.cta is None else pl.cta, 0, pl.node)
        instrs = th.instrs
        labels = {ins.name: i for i, ins in enumerate(instrs) if isinstance(ins, A.Label)}
        texts = [print_instr(ins) for ins in instrs]

        def step(st: PathState, instrs: tuple[A.Instr, ...] = instrs,
                 labels: dict[str, int] = labels, texts: list[str] = texts) -> Iterator[PathState]:
            ins = instrs[st.pc]
            try:
                if test.arch == "X86":
                    yield from x86.step(st, ins, texts[st.pc])
                else:
                    yield from ptx.step(st, ins, texts[st.pc], labels)
            except UnsupportedError as err:
                if not err.pos.line:
                    err.pos = ins.pos
                raise err.with_context(test.path, test.source) from None

        build_thread(b, th.index, place, len(instrs), step, init_regs.get(th.index, {}), unroll)

    return Program(
        name=test.name,
        arch=test.arch,
        events=b.events,
        blocks=b.blocks,
        leaves=b.leaves,
        nthreads=len(test.threads),
        locations=locations,
        init_values=init_values,
        rmw=b.rmw,
        data=b.data,
        addr=b.addr,
        ctrl=b.ctrl,
        unroll=unroll,
    )

