"""``gdrcheck sweep``: under which combinations of a model's variants is an outcome allowed?

The variants are free Booleans in ONE z3 encoding of the test: the cat interpreter
evaluates ``if "v" then ... else ... end`` symbolically (both branches, merged under
the condition; :class:`~gdrcheck.cat.interp.Interpreter` with ``symbolic_variants``),
and the checks inside a branch are guarded by its condition. A variant whose
conditions change no value and guard no check that can fail cannot change the verdict
and is not enumerated; of the others, one whose verdicts agree in every pair of
combinations that differ only in it (on / off) is *inert* too. The variants left are
those that "can change this test".

The verdict of every combination of the others is then read off the one encoding by
incremental queries with the variants as assumptions: the proposition (and, for
``forall``, its negation) and every misuse flag. The combinations are split as a tree
(a cube of fixed variants at each node); an unsatisfiable cube answers for all its
completions at once, and its unsat core (which variant literals it needed) prunes
sibling cubes; a satisfiable one answers for the full assignment its model chose.

Variants are combined freely, also those a model documents as alternatives
(``gdr-order-none`` / ``-owner`` / ``-all``): the model's ``if`` chain decides what a
combination means (in gdr.cat ``gdr-order-none`` wins over ``gdr-order-all``).
Variants given with the model (``--model gin-gdaki+pcie-ro``) and the test's
``Variant=`` lines are fixed on and not swept. The *default* combination is the one
with no swept variant on.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

import z3

from gdrcheck.analysis.models import (
    ModelSpec,
    accepts,
    check_model_names,
    check_variants,
    expected_verdict,
    get_model,
)
from gdrcheck.analysis.options import DEFAULT_OPTIONS, CheckOptions
from gdrcheck.engine.deadline import NO_DEADLINE, Deadline, Expired
from gdrcheck.engine.result import LIVENESS_PREFIX, Verdict
from gdrcheck.engine.smt import build_query, query_solver
from gdrcheck.errors import InputError, UnsupportedError
from gdrcheck.litmus import ast as A
from gdrcheck.lower import lower

Combo = frozenset[str]
"""A combination: the swept variants that are on."""


@dataclass(frozen=True)
class Flip:
    """A minimal set of variants that changes the default verdict."""

    variants: tuple[str, ...]
    verdict: Verdict


@dataclass
class SweepResult:
    test: str
    file: str | None
    model: str  # NAME or NAME+FIXED+...
    quantifier: str
    fixed: tuple[str, ...]
    """Variants on in every combination (from --model NAME+V and the test's Variant=)."""
    relevant: tuple[str, ...]
    """The swept variants that change the verdict in some pair of combinations (one
    with the variant on, the same one with it off)."""
    inert: tuple[str, ...]
    """Declared variants that change no verdict of this test (not enumerated)."""
    verdicts: dict[Combo, Verdict]
    """The verdict of every combination of the relevant variants."""
    flags: dict[Combo, tuple[str, ...]] = field(default_factory=dict)
    """The misuse flags that fire, for the combinations where some do (Undefined)."""
    time: float = 0.0
    queries: int = 0

    @property
    def swept(self) -> tuple[str, ...]:
        return tuple(sorted(self.relevant + self.inert))

    @property
    def default(self) -> Verdict:
        """The verdict with no swept variant on."""
        return self.verdicts[frozenset()]

    def verdict(self, variants: Iterable[str]) -> Verdict:
        """The verdict of any combination of the swept variants (inert ones ignored)."""
        on = frozenset(variants)
        unknown = on - set(self.swept) - set(self.fixed)
        if unknown:
            raise InputError(f"not a variant of the sweep: {', '.join(sorted(unknown))}")
        return self.verdicts[on & frozenset(self.relevant)]

    def counts(self) -> dict[str, int]:
        """Verdict -> number of combinations of all swept variants (inert included)."""
        mult = 2 ** len(self.inert)
        out: dict[str, int] = {}
        for v in self.verdicts.values():
            out[v] = out.get(v, 0) + mult
        return dict(sorted(out.items()))

    def flips(self) -> list[Flip]:
        """The inclusion-minimal sets of variants whose verdict differs from the
        default's (sorted by size, then name)."""
        base = self.default
        differ = [c for c, v in self.verdicts.items() if v != base]
        minimal = [c for c in differ if not any(o < c for o in differ)]
        minimal.sort(key=lambda c: (len(c), sorted(c)))
        return [Flip(tuple(sorted(c)), self.verdicts[c]) for c in minimal]

    def rows(self) -> list[tuple[Combo, Verdict]]:
        """Every combination of the relevant variants with its verdict, by size then
        name."""
        return sorted(self.verdicts.items(), key=lambda kv: (len(kv[0]), sorted(kv[0])))


def _lit(var: z3.BoolRef, on: bool) -> z3.BoolRef:
    return var if on else z3.Not(var)


class _Region:
    """The combinations (of ``names``) under which ``term`` is satisfiable with every
    axiom, found by splitting cubes (see the module docstring)."""

    def __init__(self, solver: z3.Solver, lits: list[z3.BoolRef],
                 var: dict[str, z3.BoolRef], names: Sequence[str],
                 deadline: Deadline = NO_DEADLINE) -> None:
        self.s, self.lits, self.var, self.names = solver, lits, var, list(names)
        self.deadline = deadline
        self.queries = 0

    def sat_set(self, term: z3.BoolRef) -> set[Combo]:
        out: set[Combo] = set()
        cores: list[dict[str, bool]] = []
        lit_name = {}
        for n in self.names:
            lit_name[str(_lit(self.var[n], True))] = (n, True)
            lit_name[str(_lit(self.var[n], False))] = (n, False)

        def covered(cube: dict[str, bool]) -> bool:
            return any(all(cube.get(k) == v for k, v in core.items()) for core in cores)

        def rec(cube: dict[str, bool], known: dict[str, bool] | None) -> None:
            if covered(cube):
                return
            if known is None:
                assumptions = [*self.lits, *(_lit(self.var[n], v) for n, v in cube.items())]
                self.queries += 1
                a = self.deadline.check(self.s, *assumptions, term)
                if a == z3.unknown:
                    raise _Unknown(self.deadline.why(self.s))
                if a == z3.unsat:
                    core: dict[str, bool] = {}
                    for c in self.s.unsat_core():
                        hit = lit_name.get(str(c))
                        if hit is not None:
                            core[hit[0]] = hit[1]
                    cores.append(core)
                    return
                m = self.s.model()
                known = {n: bool(z3.is_true(m.eval(self.var[n], model_completion=True)))
                         for n in self.names}
            out.add(frozenset(n for n, v in known.items() if v))
            free = [n for n in self.names if n not in cube]
            if not free:
                return
            n = free[0]
            rec({**cube, n: known[n]}, known)
            rec({**cube, n: not known[n]}, None)

        # the term itself may be a trivially-false formula: one query settles it
        rec({}, None)
        return out


class _Unknown(Exception):
    pass


def sweep_test(
    test: A.Test,
    model: str | ModelSpec,
    options: CheckOptions = DEFAULT_OPTIONS,
) -> SweepResult:
    """The verdict of ``test`` under every combination of ``model``'s variants."""
    t0 = time.perf_counter()
    spec = ModelSpec.of(model)
    check_model_names(test, options.include_dirs)
    loaded = get_model(spec.name, options.include_dirs)
    check_variants(spec, loaded)
    if not accepts(loaded, test):
        raise UnsupportedError(f"model '{spec.name}' does not accept test '{test.name}'",
                               test.path)
    fixed = frozenset(spec.variants) | frozenset(test.variants)
    free = sorted(loaded.variant_names - fixed)
    var = {n: z3.Bool(f"variant!{n}") for n in free}
    # --timeout: one budget for the sweep of one test under one model (the lowering, the
    # encoding and every query), as for a check
    deadline = Deadline(options.timeout)
    step = "lowering"
    try:
        prog = lower(test, options.unroll, deadline.tick)
        step = "encoding"
        q = build_query(prog, loaded.stmts, fixed, test, loaded.path_of, variant_vars=var,
                        deadline=deadline)
    except Expired:
        raise InputError(f"timeout while {step} (--timeout {options.timeout:g} s): the "
                         "sweep has no verdict") from None
    relevant = tuple(n for n in free if n in q.used_variants)
    inert = tuple(n for n in free if n not in q.used_variants)
    s = query_solver(q)
    region = _Region(s, list(q.axiom_lits.values()), var, relevant, deadline)
    try:
        flag_sets = {name: region.sat_set(term) for name, term in q.flag_terms.items()
                     if not name.startswith(LIVENESS_PREFIX)}
        quant = test.condition.quantifier
        pos = region.sat_set(q.prop)
        neg = region.sat_set(z3.Not(q.prop)) if quant == "forall" else set()
    except _Unknown as err:
        if deadline.expired():
            raise InputError(f"timeout after {region.queries} queries (--timeout "
                             f"{options.timeout:g} s for the whole sweep): the sweep has "
                             "no verdict") from None
        raise InputError(f"the solver gave up during the sweep: {err}") from None
    verdicts: dict[Combo, Verdict] = {}
    flags: dict[Combo, tuple[str, ...]] = {}
    for bits in itertools.product((False, True), repeat=len(relevant)):
        combo = frozenset(n for n, b in zip(relevant, bits, strict=True) if b)
        fired = tuple(sorted(n for n, st in flag_sets.items() if combo in st))
        if fired:
            flags[combo] = fired
            verdicts[combo] = Verdict.UNDEFINED
        elif quant == "forall":
            verdicts[combo] = (Verdict.REQUIRED if combo not in neg
                               else Verdict.ALLOWED if combo in pos else Verdict.FORBIDDEN)
        else:
            verdicts[combo] = Verdict.ALLOWED if combo in pos else Verdict.FORBIDDEN
    # a variant the encoding uses may still flip no verdict: it cannot change the test
    changing = tuple(n for n in relevant
                     if any(verdicts[c] != verdicts[c | {n}] for c in verdicts if n not in c))
    keep = frozenset(changing)
    inert = tuple(sorted(inert + tuple(n for n in relevant if n not in keep)))
    verdicts = {c: v for c, v in verdicts.items() if c <= keep}
    flags = {c: f for c, f in flags.items() if c <= keep}
    return SweepResult(test.name, test.path, str(spec),
                       test.condition.quantifier, tuple(sorted(fixed)), changing, inert,
                       verdicts, flags, time.perf_counter() - t0, region.queries)


def expected_for(test: A.Test, r: SweepResult, combo: Iterable[str]) -> str | None:
    """The test's Expect= verdict for exactly this model and combination, if any."""
    return expected_verdict(test, ModelSpec.parse(r.model), tuple(combo))
