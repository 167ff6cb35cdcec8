"""What a test observes: the registers and locations of its condition.

A final state (herd's States line) lists the terms of the condition, then
those of ``locations [...]``, in order of first appearance.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    import z3
else:
    from gdrcheck.lazy import z3  # imported on first use (a fast start)

from gdrcheck.engine.result import State
from gdrcheck.errors import UnsupportedError
from gdrcheck.litmus import ast as A


class Encoding(Protocol):
    """The final values of an encoding (:class:`gdrcheck.engine.smt.Encoding` has them):
    all that observing a state needs, so this module does not import the z3 engine."""

    final_mem: dict[str, z3.ArithRef]
    final_reg: dict[tuple[int, str], z3.ArithRef]


def _terms(p: A.Prop | None) -> list[A.Term]:
    if p is None:
        return []
    if isinstance(p, A.Cmp):
        return [p.lhs, p.rhs]
    if isinstance(p, (A.And, A.Or)):
        return [t for a in p.args for t in _terms(a)]
    if isinstance(p, A.Not):
        return _terms(p.arg)
    return []


class Observables:
    def __init__(self, test: A.Test) -> None:
        self.test = test
        self.arch = test.arch
        seen: dict[str, A.Term] = {}
        for t in _terms(test.condition.prop) + list(test.locations) + _terms(test.filter):
            if isinstance(t, A.ConstTerm):
                continue
            seen.setdefault(self.name(t), t)
        self.terms = seen
        self.nthreads = len(test.threads)
        indexes = {th.index for th in test.threads}
        for t in seen.values():
            if isinstance(t, A.RegTerm) and t.thread not in indexes:
                raise UnsupportedError(
                    f"the condition names thread {t.thread}, which the test does not have",
                    test.path, t.pos, test.source,
                )

    def reg(self, name: str) -> str:
        return name.upper() if self.arch == "X86" else name

    def name(self, t: A.Term) -> str:
        if isinstance(t, A.RegTerm):
            return f"{t.thread}:{self.reg(t.reg)}"
        if isinstance(t, A.LocTerm):
            return str(t.loc)
        return str(t.value)

    # -- z3 ------------------------------------------------------------------

    def term_z3(self, t: A.Term, enc: Encoding) -> z3.ArithRef:
        if isinstance(t, A.ConstTerm):
            return z3.IntVal(t.value)
        if isinstance(t, A.RegTerm):
            v = enc.final_reg.get((t.thread, self.reg(t.reg)))
            return v if v is not None else z3.IntVal(0)
        return enc.final_mem[str(t.loc)]

    def terms_z3(self, enc: Encoding) -> list[tuple[str, z3.ArithRef]]:
        return [(n, self.term_z3(t, enc)) for n, t in self.terms.items()]

    def prop_z3(self, p: A.Prop, enc: Encoding) -> z3.BoolRef:
        if isinstance(p, A.Cmp):
            a, b = self.term_z3(p.lhs, enc), self.term_z3(p.rhs, enc)
            return a == b if p.op == "=" else a != b
        if isinstance(p, A.And):
            return z3.And([self.prop_z3(x, enc) for x in p.args])
        if isinstance(p, A.Or):
            return z3.Or([self.prop_z3(x, enc) for x in p.args])
        if isinstance(p, A.Not):
            return z3.Not(self.prop_z3(p.arg, enc))
        return z3.BoolVal(p.value)

    # -- concrete --------------------------------------------------------------

    def eval_state(self, p: A.Prop | None, state: State) -> bool:
        if p is None:
            return True
        vals = dict(state)

        def term(t: A.Term) -> int:
            if isinstance(t, A.ConstTerm):
                return t.value
            return vals[self.name(t)]

        def go(q: A.Prop) -> bool:
            if isinstance(q, A.Cmp):
                eq = term(q.lhs) == term(q.rhs)
                return eq if q.op == "=" else not eq
            if isinstance(q, A.And):
                return all(go(x) for x in q.args)
            if isinstance(q, A.Or):
                return any(go(x) for x in q.args)
            if isinstance(q, A.Not):
                return not go(q.arg)
            return q.value

        return go(p)
