"""The z3 engine: every candidate execution of a test at once, in one formula.

Candidate executions are encoded once (:class:`Encoding`): a Boolean per
branch block (which path each thread runs), a Boolean per possible rf edge,
an integer coherence position per write, an integer Fence-SC clock per
``fence.sc`` and an integer arrival position per barrier arrival. The model
is evaluated over these by the cat interpreter with the
:class:`~gdrcheck.engine.backends.SymbolicBackend`; each named check becomes
a formula guarded by its own tracking literal, so an unsat answer yields the
names of the checks that rule the outcome out (an unsat core). A verdict is
one satisfiability query (forall tests and the herd Observation line need a
second); final states are listed only on request.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import z3

from gdrcheck.cat import ast as C
from gdrcheck.cat.demand import demands
from gdrcheck.cat.interp import CheckResult, Interpreter, union
from gdrcheck.cat.polarity import one_sided_closures
from gdrcheck.cat.values import Formula, Pair, RelV, SetV, f_and, f_and_all, to_z3
from gdrcheck.engine.backends import SymbolicBackend
from gdrcheck.engine.base import Frame, base_env, selector_var, static_env, when
from gdrcheck.engine.chains import RmwChain, rmw_chains
from gdrcheck.engine.deadline import NO_DEADLINE, Deadline, Expired
from gdrcheck.engine.graphs import digraph, is_acyclic
from gdrcheck.engine.implied import NO_FACTS, Facts, implied_facts, model_checks
from gdrcheck.engine.observe import Observables
from gdrcheck.engine.result import Result, State, Verdict, Witness, WitnessEvent, split_flags
from gdrcheck.litmus import ast as A
from gdrcheck.lower.program import BinOp, CmpExpr, Expr, Ite, Program, ReadVal

DEMAND_MIN_EVENTS = 48
"""The z3 engine's default: the demand analysis and closures after po (gdrcheck/cat/
demand.py) on tests of at least this many events. On the library's small tests the
analysis (a few milliseconds) costs more than it saves (bench/bench_relations.py); the
answers are the same either way (tests/engine/test_one_sided.py runs it on every test)."""

TICK_EVERY = 256
"""Iterations of a cheap inner loop between two looks at the time limit."""


def _bit(t: z3.ArithRef) -> z3.BoolRef | None:
    """``t == 1`` when the term ``t`` is 0 or 1 in every model (the constants 0 and 1, and
    ``If(c, x, y)`` of such terms); None when its form does not show it."""
    if z3.is_int_value(t):
        v = t.as_long()  # type: ignore[attr-defined]
        return z3.BoolVal(v == 1) if v in (0, 1) else None
    if z3.is_app_of(t, z3.Z3_OP_ITE):
        c, x, y = t.children()
        bx, by = _bit(x), _bit(y)
        if bx is None or by is None:
            return None
        return z3.If(c, bx, by)  # type: ignore[no-any-return]
    return None


def _z3_binop(op: str, a: z3.ArithRef, b: z3.ArithRef) -> z3.ArithRef:
    if op == "add":
        return a + b
    if op == "sub":
        return a - b
    if op == "mul":
        return a * b
    if op == "div":  # rounded toward zero, as eval_binop (z3's own division floors)
        pa, pb = z3.If(a >= 0, a, -a), z3.If(b >= 0, b, -b)
        q = pa / pb
        return z3.If(b == 0, 0, z3.If((a >= 0) == (b >= 0), q, -q))
    if op == "min":
        return z3.If(a <= b, a, b)
    if op == "max":
        return z3.If(a >= b, a, b)
    # of two values that are 0 or 1 (PTX setp's predicates, their and/or): the same bit
    # operation on Booleans, exact and without bit-vectors (z3's Int2BV/BV2Int made a
    # 58-event kernel test, an RMSNorm table of 13 predicates, take minutes)
    ba, bb = _bit(a), _bit(b)
    if ba is not None and bb is not None:
        r_bit = {"and": z3.And(ba, bb), "or": z3.Or(ba, bb), "xor": z3.Xor(ba, bb)}[op]
        return z3.If(r_bit, z3.IntVal(1), z3.IntVal(0))
    # bitwise operations on integers: go through 64-bit vectors
    x, y = z3.Int2BV(a, 64), z3.Int2BV(b, 64)
    r = {"and": x & y, "or": x | y, "xor": x ^ y}[op]
    return z3.BV2Int(r, is_signed=True)


def _cmp(op: str, a: z3.ArithRef, b: z3.ArithRef) -> z3.BoolRef:
    return {
        "eq": a == b, "ne": a != b, "lt": a < b, "le": a <= b, "gt": a > b, "ge": a >= b,
    }[op]


@dataclass
class Encoding:
    """The candidate executions of one program, as z3 terms and constraints."""

    program: Program
    frame: Frame
    constraints: list[z3.BoolRef]
    read_val: dict[int, z3.ArithRef]
    final_mem: dict[str, z3.ArithRef]
    final_reg: dict[tuple[int, str], z3.ArithRef]
    rf_var: dict[Pair, Formula]
    co_pos: dict[int, z3.ArithRef | int]
    fso_clock: dict[int, z3.ArithRef]
    blocks: dict[int, Formula] = field(default_factory=dict)
    """Block id -> when the block runs."""
    static: dict[str, Any] = field(default_factory=dict)
    """The static built-in names (gdrcheck/engine/base.py, static_env)."""
    facts: Facts = NO_FACTS
    """What the model's axioms fix before the encoding (gdrcheck/engine/implied.py)."""
    chains: tuple[RmwChain, ...] = ()
    """The read-modify-write chains whose adjacency the model's axioms imply
    (gdrcheck/engine/chains.py)."""

    def value(self, e: Expr) -> z3.ArithRef:
        return z3_value(e, self.read_val, self.terms)

    terms: dict[int, tuple[Expr, z3.ArithRef]] = field(default_factory=dict)
    """The z3 term of each expression already built (by identity: a register's value is
    shared by every expression that reads it, ``or r, r, g`` chains it)."""


def z3_value(e: Expr, read_val: Mapping[int, z3.ArithRef],
             memo: dict[int, tuple[Expr, z3.ArithRef]] | None = None) -> z3.ArithRef:
    """The z3 term of ``e``, the values of the reads being ``read_val``'s terms (what
    :func:`gdrcheck.lower.program.eval_expr` computes for one execution); ``memo`` keeps
    the term of each shared sub-expression (by identity, the expression kept with it)."""
    if isinstance(e, int):
        return z3.IntVal(e)
    if isinstance(e, ReadVal):
        return read_val[e.eid]
    if memo is None:
        memo = {}
    known = memo.get(id(e))
    if known is not None and known[0] is e:
        return known[1]
    term: z3.ArithRef
    if isinstance(e, Ite):  # selp, setp (docs/litmus-format.md §7.2)
        c = e.cond
        cond = _cmp(c.op, z3_value(c.left, read_val, memo), z3_value(c.right, read_val, memo))
        then, else_ = z3_value(e.then, read_val, memo), z3_value(e.else_, read_val, memo)
        term = z3.If(cond, then, else_)
    else:
        assert isinstance(e, BinOp)
        term = _z3_binop(e.op, z3_value(e.left, read_val, memo),
                         z3_value(e.right, read_val, memo))
    memo[id(e)] = (e, term)
    return term


def encode_candidates(prog: Program, model: tuple[Sequence[C.Stmt], frozenset[str]] | None = None,
                      tick: Callable[[], None] = NO_DEADLINE.tick, chains: bool = True
                      ) -> Encoding:
    """The candidate executions of ``prog``. With ``model`` (its statements and the
    variants on), the candidates that the model's acyclicity axioms rule out by a cycle
    of two edges with po-loc are left out (gdrcheck/engine/implied.py): the consistent
    executions, and so every verdict, stay the same. ``tick`` (a deadline's) is called in
    every loop over events, blocks and pairs of writes: it raises when the time is up.
    With ``model`` and ``chains``, the facts of its read-modify-write chains are stated
    too (gdrcheck/engine/chains.py; ``chains=False`` only to measure what they save)."""
    cons: list[z3.BoolRef] = []
    ev = prog.events

    # -- paths -------------------------------------------------------------
    read_val = {e.eid: z3.Int(f"v{e.eid}") for e in ev if e.kind == "R"}
    enc = Encoding(prog, None, cons, read_val, {}, {}, {}, {}, {})  # type: ignore[arg-type]
    block_f: dict[int, Formula] = {}
    # A block whose sibling is a dead end (a cut leaf with no events and no sub-blocks:
    # the failing outcome of a blocking wait) runs whenever its parent does; its
    # condition becomes a constraint. Semantics-preserving (executions down the dead
    # end are discarded anyway), and it keeps every event after a wait "must".
    busy = {e.block for e in ev} | {b.parent for b in prog.blocks if b.parent is not None}
    dead = {lf.block for lf in prog.leaves if lf.cut} - busy
    first_of: dict[tuple[int | None, CmpExpr | None, bool], int] = {}
    for blk in prog.blocks:  # the first block of each (parent, condition, outcome)
        first_of.setdefault((blk.parent, blk.cond, blk.positive), blk.bid)
    for blk in prog.blocks:
        tick()
        if blk.parent is None:
            block_f[blk.bid] = True
            continue
        assert blk.cond is not None
        c = _cmp(blk.cond.op, enc.value(blk.cond.left), enc.value(blk.cond.right))
        if not blk.positive:
            c = z3.Not(c)
        sibling = first_of.get((blk.parent, blk.cond, not blk.positive))
        if sibling is not None and sibling in dead and blk.bid not in dead:
            cons.append(z3.Implies(to_z3(block_f[blk.parent]), c))
            block_f[blk.bid] = block_f[blk.parent]
            continue
        var = z3.Bool(f"blk{blk.bid}")
        cons.append(var == to_z3(f_and(block_f[blk.parent], c)))
        block_f[blk.bid] = var
    for leaf in prog.leaves:
        if leaf.cut:
            cons.append(z3.Not(to_z3(block_f[leaf.block])))
    # an event with a guard (gdrcheck fix) exists only when its selector is on
    exe: dict[int, Formula] = {
        e.eid: f_and(block_f[e.block], z3.Or([selector_var(g) for g in e.guard]))
        if e.guard else block_f[e.block] for e in ev}
    enc.blocks = block_f
    enc.static = static_env(prog, exe, tick)
    facts = NO_FACTS
    if model is not None:
        facts = implied_facts(prog, model[0], model[1], enc.static, tick)
    if model is not None and chains:
        checks, recs = model_checks(model[0], model[1])
        enc.chains = rmw_chains(prog, checks, recs, enc.static,
                                {eid for eid, f in exe.items() if f is True}, tick)
    enc.facts = facts

    # -- rf ----------------------------------------------------------------
    rmw_partner = {r: w for r, w in prog.rmw}
    writes_at: dict[str, list[int]] = {}
    for e in ev:
        if e.kind == "W" and e.loc is not None:
            writes_at.setdefault(e.loc, []).append(e.eid)
    rf: dict[Pair, Formula] = {}
    for r in ev:
        if r.kind != "R":
            continue
        tick()
        cands = [w for w in writes_at.get(r.loc or "", [])
                 if w != rmw_partner.get(r.eid) and (w, r.eid) not in facts.no_rf]
        if len(cands) == 1:
            rf[(cands[0], r.eid)] = exe[r.eid]
        else:
            for w in cands:
                rf[(w, r.eid)] = z3.Bool(f"rf_{w}_{r.eid}")
        lits = [to_z3(rf[(w, r.eid)]) for w in cands]
        if len(cands) > 1:
            cons.append(z3.Implies(to_z3(exe[r.eid]), z3.PbEq([(x, 1) for x in lits], 1)))
            cons.append(z3.Implies(z3.Not(to_z3(exe[r.eid])), z3.Not(z3.Or(lits))))
        for i, w in enumerate(cands):
            if i % TICK_EVERY == 0:
                tick()
            f = rf[(w, r.eid)]
            cons.append(z3.Implies(to_z3(f), to_z3(exe[w])))
            cons.append(z3.Implies(to_z3(f), read_val[r.eid] == enc.value(ev[w].value or 0)))
        if not cands:
            cons.append(z3.Not(to_z3(exe[r.eid])))

    # -- values must be well founded (herd: no value out of thin air) -------
    edges = [*rf, *prog.data]
    if not is_acyclic(edges, tick):
        clk = {n: z3.Int(f"vclk{n}") for n in digraph(edges)}
        tick()
        for i, (a, b) in enumerate(rf):
            if i % TICK_EVERY == 0:
                tick()
            cons.append(z3.Implies(to_z3(rf[(a, b)]), clk[a] < clk[b]))
        for i, (a, b) in enumerate(prog.data):
            if i % TICK_EVERY == 0:
                tick()
            cons.append(z3.Implies(to_z3(exe[b]), clk[a] < clk[b]))

    # -- co: one integer position per write, init writes first ---------------
    co_pos: dict[int, z3.ArithRef | int] = {}
    co: dict[Pair, Formula] = {}
    fw: dict[int, Formula] = {}
    final_mem: dict[str, z3.ArithRef] = {}
    for loc, ws in writes_at.items():
        tick()
        real = [w for w in ws if not ev[w].is_init]
        for w in ws:
            co_pos[w] = 0 if ev[w].is_init else z3.Int(f"co{w}")
        if len(real) > 1:
            cons.append(z3.Distinct([co_pos[w] for w in real]))  # type: ignore[misc]
        for w in real:
            cons.append(co_pos[w] >= 1)  # type: ignore[operator]
        for i, (a, b) in enumerate(itertools.permutations(ws, 2)):
            if i % TICK_EVERY == 0:
                tick()
            if ev[b].is_init or (b, a) in facts.co:
                continue
            if ev[a].is_init:
                co[(a, b)] = exe[b]
            elif (a, b) in facts.co:  # fixed by po-loc (implied.py)
                both = f_and(exe[a], exe[b])
                co[(a, b)] = both
                if (a, b) in facts.chain:  # the others follow by transitivity
                    lt = co_pos[a] < co_pos[b]  # type: ignore[operator]
                    cons.append(lt if both is True else z3.Implies(to_z3(both), lt))
            else:
                co[(a, b)] = f_and_all([exe[a], exe[b], co_pos[a] < co_pos[b]])  # type: ignore[operator, list-item]
        fin = z3.Int(f"final_{loc}")
        final_mem[loc] = fin
        for w in ws:
            tick()
            if any(co.get((w, o)) is True for o in ws):
                continue  # never the last write
            later = [to_z3(co[(w, o)]) for o in ws if (w, o) in co]
            last = f_and(exe[w], z3.Not(z3.Or(later)) if later else True)
            fw[w] = last
            cons.append(z3.Implies(to_z3(last), fin == enc.value(ev[w].value or 0)))
    enc.co_pos = co_pos
    for ch in enc.chains:
        tick()
        cons.extend(_chain_facts(ch, enc, rf))
    for alias, loc in prog.aliases.items():
        if loc in final_mem:
            final_mem[alias] = final_mem[loc]

    # -- Fence-SC order: a clock per fence.sc --------------------------------
    # (with gdrcheck fix's alternatives: the fences that are fence.sc under some of them)
    sc_when = {e.eid: when(e, lambda x: "SC" in x.tags) for e in ev if e.kind == "F"}
    scf = [f for f, w in sc_when.items() if w is not None]
    fso: dict[Pair, Formula] = {}
    fso_clock = {f: z3.Int(f"fsc{f}") for f in scf}
    if len(scf) > 1:
        cons.append(z3.Distinct([fso_clock[f] for f in scf]))
    for i, (a, b) in enumerate(itertools.permutations(scf, 2)):
        if i % TICK_EVERY == 0:
            tick()
        fso[(a, b)] = f_and_all([exe[a], exe[b], sc_when[a], sc_when[b],  # type: ignore[list-item]
                                 fso_clock[a] < fso_clock[b]])

    # -- barriers ------------------------------------------------------------
    syncbar = _barriers(prog, enc, exe, cons, tick)

    enc.frame = Frame(prog, exe, rf, co, fw, fso, syncbar)
    enc.final_mem = final_mem
    enc.rf_var = rf
    enc.fso_clock = fso_clock

    # -- final registers -----------------------------------------------------
    for t in range(prog.nthreads):
        leaves = [lf for lf in prog.leaves_of(t) if not lf.cut]
        regs = {r for lf in leaves for r, _ in lf.regs}
        for reg in regs:
            term: z3.ArithRef | None = None
            for lf in leaves:
                tick()
                val = enc.value(dict(lf.regs).get(reg, 0))
                term = val if term is None else z3.If(to_z3(block_f[lf.block]), val, term)
            assert term is not None
            enc.final_reg[(t, reg)] = term
    return enc


def _chain_facts(ch: RmwChain, enc: Encoding, rf: dict[Pair, Formula]) -> list[z3.BoolRef]:
    """What every consistent execution satisfies on an RMW chain (gdrcheck/engine/
    chains.py): coherence positions 1..n (no loss: only their order matters), each RMW
    reading the write just before its own, and, for additions, the value it reads as the
    initial value plus the increments of the RMWs before it."""
    pos = enc.co_pos
    out: list[z3.BoolRef] = []
    n = len(ch.rmws)
    sources = [ch.init, *(w for _, w in ch.rmws)]
    init_val = enc.value(enc.program.events[ch.init].value or 0)
    for k, (r, w) in enumerate(ch.rmws):
        out.append(pos[w] <= n)  # type: ignore[arg-type, operator]
        for s in sources:
            f = rf.get((s, r))
            if f is not None and s != w:
                out.append(z3.Implies(to_z3(f), pos[s] == pos[w] - 1))  # type: ignore[arg-type, operator]
        if ch.adds is not None:
            before = [z3.If(pos[w2] < pos[w], c, 0)  # type: ignore[operator]
                      for j, ((_, w2), c) in enumerate(zip(ch.rmws, ch.adds, strict=True))
                      if j != k]
            out.append(enc.read_val[r] == init_val + z3.Sum(before))
    return out


def chain_lemmas(enc: Encoding) -> dict[int, dict[str, list[tuple[Pair, z3.BoolRef]]]]:
    """For the cat interpreter's ``let rec`` bindings (by statement id and name): the
    pairs (w_a, r_b) of each chain that the binding relates whenever co(w_a, w_b)."""
    out: dict[int, dict[str, list[tuple[Pair, z3.BoolRef]]]] = {}
    pos = enc.co_pos
    for ch in enc.chains:
        for stmt, name in ch.observed:
            lst = out.setdefault(stmt, {}).setdefault(name, [])
            lst.extend(((wa, rb), pos[wa] < pos[wb])  # type: ignore[misc, operator]
                       for _, wa in ch.rmws for rb, wb in ch.rmws if wa != wb)
    return out


def _same_barrier(enc: Encoding, x: int, y: int) -> z3.BoolRef | bool:
    ex, ey = enc.program.events[x], enc.program.events[y]
    ix, iy = ex.barrier_id or (), ey.barrier_id or ()
    if len(ix) != len(iy):
        return False
    eqs = []
    for a, b in zip(ix, iy, strict=True):
        if isinstance(a, int) and isinstance(b, int):
            if a != b:
                return False
        else:
            eqs.append(enc.value(a) == enc.value(b))
    return True if not eqs else z3.And(eqs)


def _barriers(prog: Program, enc: Encoding, exe: dict[int, Formula],
              cons: list[z3.BoolRef], tick: Callable[[], None]) -> dict[Pair, Formula]:
    """syncbar: the arrivals each barrier wait waits for (docs/ptx-barriers.md)."""
    ev = prog.events
    arrivals = [e for e in ev if "ARRIVE" in e.tags]
    waits = [e for e in ev if "WAIT" in e.tags]
    if not waits:
        return {}
    # generation: how many earlier arrivals of the same thread at the same barrier
    # (the k-th use of a barrier by one thread meets the k-th use by the others)
    gen: dict[int, z3.ArithRef] = {}
    for x in arrivals:
        tick()
        earlier = [p for p in prog.ancestors(x.eid) if "ARRIVE" in ev[p].tags]
        terms = []
        for p in earlier:
            s_px = _same_barrier(enc, p, x.eid)
            if s_px is not False:
                terms.append(z3.If(to_z3(f_and(exe[p], s_px)), 1, 0))
        gen[x.eid] = z3.Sum(terms) if terms else z3.IntVal(0)

    def same_gen(x: int, y: int) -> z3.BoolRef | bool:
        ids = _same_barrier(enc, x, y)
        if ids is False:
            return False
        gx, gy = z3.simplify(gen[x]), z3.simplify(gen[y])
        if z3.is_int_value(gx) and z3.is_int_value(gy):
            return ids if gx.as_long() == gy.as_long() else False  # type: ignore[attr-defined]
        return to_z3(f_and(ids, gx == gy))

    same: dict[Pair, z3.BoolRef | bool] = {}
    for x in arrivals:
        tick()
        for y in arrivals:
            if x.gpu == y.gpu and x.cta == y.cta:
                same[(x.eid, y.eid)] = same_gen(x.eid, y.eid)
    quorum = any(w.quorum is not None for w in waits)
    pos = {a.eid: z3.Int(f"arr{a.eid}") for a in arrivals} if quorum else {}
    if quorum and len(arrivals) > 1:
        cons.append(z3.Distinct(list(pos.values())))
    out: dict[Pair, Formula] = {}
    for w in waits:
        own = w.parent  # the arrival event of the same bar.sync
        assert own is not None
        if w.quorum is not None:
            peers = [a.eid for a in arrivals if (a.eid, own) in same]
            count = z3.Sum([z3.If(to_z3(f_and(exe[a], same[(a, own)])), 1, 0) for a in peers])
            cons.append(z3.Implies(to_z3(exe[w.eid]), count >= w.quorum))
        for a in arrivals:
            tick()
            if a.thread == w.thread or (a.eid, own) not in same:
                continue
            s = same[(a.eid, own)]
            if s is False:
                continue
            f = f_and_all([exe[a.eid], exe[w.eid], s])  # type: ignore[list-item]
            if w.quorum is not None:
                earlier = []
                for z in arrivals:
                    sz = same.get((z.eid, a.eid), False)
                    if z.eid == a.eid or sz is False:
                        continue
                    cond = f_and_all([exe[z.eid], sz, pos[z.eid] < pos[a.eid]])  # type: ignore[list-item]
                    earlier.append(z3.If(to_z3(cond), 1, 0))
                before = z3.Sum(earlier) if earlier else z3.IntVal(0)
                f = f_and(f, z3.Or(pos[a.eid] <= pos[own], before < w.quorum))
            out[(a.eid, w.eid)] = f
    return out


# --------------------------------------------------------------------------
# Solving
# --------------------------------------------------------------------------


@dataclass
class Query:
    """An encoded test under a model: ready for satisfiability queries."""

    enc: Encoding
    backend: SymbolicBackend
    checks: list[CheckResult]
    axiom_lits: dict[str, z3.BoolRef]
    flag_terms: dict[str, z3.BoolRef]
    prop: z3.BoolRef
    filter: z3.BoolRef | None
    observables: Observables
    used_variants: frozenset[str] = frozenset()
    """With ``variant_vars``: the variants that can change a formula (the others are
    inert for this test)."""


def _empty_names(env: dict[str, Any]) -> frozenset[str]:
    """The built-in sets and relations with no pair or element in any execution."""
    return frozenset(k for k, v in env.items() if isinstance(v, (SetV, RelV)) and not v.m)


def build_query(prog: Program, stmts: Sequence[C.Stmt], variants: frozenset[str],
                test: A.Test, path_of: Any = None,
                variant_vars: dict[str, z3.BoolRef] | None = None,
                deadline: Deadline = NO_DEADLINE, prune: bool = False,
                chains: bool = True, one_sided: bool = True, demand: bool = True,
                demand_min_events: int = DEMAND_MIN_EVENTS) -> Query:
    """Encode ``test`` under the model ``stmts``. ``variant_vars`` (gdrcheck sweep)
    leaves those variants free: z3 Booleans instead of fixed choices (the cat
    interpreter's symbolic-variant mode); a check inside an ``if`` then applies only
    under its guard. Raises :class:`~gdrcheck.engine.deadline.Expired` when
    ``deadline`` passes (it is looked at between steps: each cat statement, each
    fixpoint round, each check). ``prune``: leave out the candidates that the model's
    acyclicity axioms rule out at once (:func:`encode_candidates`); not with
    ``variant_vars``, and not where every candidate matters (explain looks for
    candidates that fail each axiom). ``one_sided``: the closures that reach only
    antitone uses are encoded in the closure direction alone (gdrcheck/cat/polarity.py:
    the consistent executions are the same). ``demand``: each relation keeps only the pairs
    that can reach a check (gdrcheck/cat/demand.py: every check's formula is the same),
    in a test of at least ``demand_min_events`` events (below, the analysis costs more
    than it saves)."""
    demand = demand and len(prog.events) >= demand_min_events
    model = (stmts, variants) if prune and variant_vars is None else None
    enc = encode_candidates(prog, model, deadline.tick, chains)
    deadline.tick()
    env = base_env(enc.frame, deadline.tick, enc.static)
    # po is the ancestor order of each thread's event tree, a pair's formula its later
    # event's, unless gdrcheck fix guards an event (base.static_env): then closures
    # after po may be built over its immediate steps (SymbolicBackend.after_po)
    plain_po = demand and not any(e.guard for e in prog.events)
    parent = ({e.eid: e.parent for e in prog.events
               if e.parent is not None and not e.is_init} if plain_po else None)
    if parent is not None:  # every pair of po must reach its later event by such steps
        po_m = env["po"].m
        plain_po = all(b in parent and (parent[b], b) in po_m for _, b in po_m)
    backend = SymbolicBackend(deadline.tick, chain_lemmas(enc),
                              po=env["po"] if plain_po else None, parent=parent)
    deadline.tick()
    ev = Interpreter(env, backend, variants, path_of, symbolic_variants=variant_vars,
                     tick=deadline.tick,
                     one_sided=one_sided_closures(stmts, _empty_names(env)) if one_sided
                     else frozenset(),
                     demands=demands(stmts, env) if demand else None).run(stmts)
    enc.constraints.extend(backend.defs)
    backend.defs = []
    # deadlock freedom: no barrier waits for an arrival that comes after it
    if enc.frame.syncbar:
        progress = union(env["po"], RelV(dict(enc.frame.syncbar)))
        assert isinstance(progress, RelV)
        enc.constraints.append(backend.acyclic(progress, "barrier"))
    axiom_lits: dict[str, z3.BoolRef] = {}
    flag_terms: dict[str, z3.BoolRef] = {}
    for i, c in enumerate(ev.checks):
        deadline.tick()
        holds = backend.holds(c)
        if c.guard is not True:  # symbolic variants: the check applies under its guard
            holds = z3.And(c.guard, holds) if c.flag else z3.Implies(c.guard, holds)
        if c.flag:
            if c.name in flag_terms and c.guard is not True:  # one flag, several guards
                holds = z3.Or(flag_terms[c.name], holds)
            flag_terms[c.name] = holds
        else:
            lit = z3.Bool(f"axiom!{i}!{c.name}")
            axiom_lits[c.name if c.name not in axiom_lits else f"{c.name}#{i}"] = lit
            enc.constraints.append(z3.Implies(lit, holds))
    enc.constraints.extend(backend.defs)
    obs = Observables(test)
    prop = obs.prop_z3(test.condition.prop, enc)
    filt = obs.prop_z3(test.filter, enc) if test.filter is not None else None
    return Query(enc, backend, ev.checks, axiom_lits, flag_terms, prop, filt, obs,
                 frozenset(ev.used_variants))


def query_solver(q: Query, timeout: float | None = None) -> z3.Solver:
    """A solver holding the candidate executions of ``q`` (and its filter)."""
    s = z3.Solver()
    if timeout:
        s.set("timeout", max(1, int(timeout * 1000)))
    s.add(q.enc.constraints)
    if q.filter is not None:
        s.add(q.filter)
    return s


class SmtEngine:
    name = "smt"

    def __init__(self, timeout: float | None = None, prune: bool = True,
                 chains: bool = True, one_sided: bool = True, demand: bool = True,
                 demand_min_events: int = DEMAND_MIN_EVENTS) -> None:
        self.timeout = timeout
        self.demand = demand
        self.demand_min_events = demand_min_events
        """The demand analysis runs on tests of at least this many events."""
        """Keep of each relation only the pairs that can reach a check
        (gdrcheck/cat/demand.py), and build one-sided closures after po over po's
        immediate steps (SymbolicBackend.after_po); off only to measure what that saves,
        and to check that the verdicts are the same."""
        self.one_sided = one_sided
        """Encode the closures that only antitone uses reach in the closure direction
        alone (gdrcheck/cat/polarity.py); off only to measure what that saves, and to check
        that the verdicts are the same."""
        self.prune = prune
        """Leave out the candidates the model's acyclicity axioms rule out at once
        (gdrcheck/engine/implied.py); off only to measure what that saves."""
        self.chains = chains
        """With ``prune``: state what the model implies on read-modify-write chains
        (gdrcheck/engine/chains.py); off only to measure what that saves."""

    def run(self, prog: Program, stmts: Sequence[C.Stmt], variants: frozenset[str],
            test: A.Test, model_name: str, states: bool = False, path_of: Any = None,
            deadline: Deadline | None = None) -> Result:
        """The verdict; ``deadline`` (default: ``timeout`` seconds from now) bounds the
        encoding and every solver call together."""
        t0 = time.perf_counter()
        if deadline is None:
            deadline = Deadline(self.timeout)
        quant = test.condition.quantifier
        res = Result(test.name, model_name, self.name, quant, Verdict.UNKNOWN, None, None)

        def finish(reason: str | None = None) -> Result:
            res.time = time.perf_counter() - t0
            if reason:
                res.verdict, res.reason = Verdict.UNKNOWN, reason
            return res

        try:
            deadline.tick()
            q = build_query(prog, stmts, variants, test, path_of, deadline=deadline,
                            prune=self.prune, chains=self.chains, one_sided=self.one_sided,
                            demand=self.demand, demand_min_events=self.demand_min_events)
        except Expired:
            return finish("timeout while encoding")
        s = query_solver(q)
        lits = list(q.axiom_lits.values())

        # flags (Undefined takes precedence): one query asks whether any flag can fire;
        # only when one can is each asked alone (the usual answer, none, costs one call)
        some_flag = (deadline.check(s, *lits, z3.Or(list(q.flag_terms.values())))
                     if q.flag_terms else z3.unsat)
        if some_flag == z3.unknown:
            return finish(deadline.why(s))
        for name, term in q.flag_terms.items() if some_flag == z3.sat else ():
            a = deadline.check(s, *lits, term)
            if a == z3.unknown:
                return finish(deadline.why(s))
            if a == z3.sat:
                res.flags.append(name)
        # the proposition
        first = q.prop if quant != "forall" else z3.Not(q.prop)
        a = deadline.check(s, *lits, first)
        if a == z3.unknown:
            return finish(deadline.why(s))
        if quant == "forall":
            res.negative = a == z3.sat
            if res.negative:
                res.witness = self._witness(q, s.model())
            else:
                res.axioms = self._core(s, q)
            a2 = deadline.check(s, *lits, q.prop)
            if a2 == z3.unknown:
                return finish(deadline.why(s))
            res.positive = a2 == z3.sat
            if res.positive and res.witness is None:
                res.witness = self._witness(q, s.model())
            res.verdict = (Verdict.REQUIRED if not res.negative
                           else Verdict.ALLOWED if res.positive else Verdict.FORBIDDEN)
        else:
            res.positive = a == z3.sat
            if res.positive:
                res.witness = self._witness(q, s.model())
                a2 = deadline.check(s, *lits, z3.Not(q.prop))
                if a2 == z3.unknown:
                    return finish(deadline.why(s))
                res.negative = a2 == z3.sat
                res.verdict = Verdict.ALLOWED
            else:
                res.axioms = self._core(s, q)
                a2 = deadline.check(s, *lits, z3.Not(q.prop))
                if a2 == z3.unknown:
                    return finish(deadline.why(s))
                res.negative = a2 == z3.sat
                res.verdict = Verdict.FORBIDDEN
        res.flags, res.liveness = split_flags(sorted(res.flags))  # as the explicit engine
        if res.flags:
            res.verdict = Verdict.UNDEFINED
        if states:
            all_states = self.enumerate_states(q, s, lits, deadline)
            if all_states is None:
                reason = deadline.why(s) if deadline.expired() else None
                return finish(reason or "solver gave up while listing states")
            res.states = all_states
            sat_p = [st for st in all_states if q.observables.eval_state(test.condition.prop, st)]
            res.pos_states = len(sat_p)
            res.neg_states = len(all_states) - len(sat_p)
            res.negative = res.neg_states > 0
        return finish()

    def _core(self, s: z3.Solver, q: Query) -> list[str]:
        core = {str(x) for x in s.unsat_core()}
        # the axioms that left candidates out of the encoding rule those out too
        pruned = set(q.enc.facts.axioms) | {a for ch in q.enc.chains for a in ch.axioms}
        return [name for name, lit in q.axiom_lits.items()
                if str(lit) in core or name.split("#")[0] in pruned]

    def enumerate_states(self, q: Query, s: z3.Solver, lits: list[z3.BoolRef],
                         deadline: Deadline = NO_DEADLINE) -> list[State] | None:
        """All final states (herd's States): on request only, exponential in general."""
        terms = q.observables.terms_z3(q.enc)
        s.push()
        out: list[State] = []
        while True:
            a = deadline.check(s, *lits)
            if a == z3.unknown:
                s.pop()
                return None
            if a == z3.unsat:
                break
            m = s.model()
            vals = [m.eval(t, model_completion=True).as_long() for _, t in terms]  # type: ignore[attr-defined]
            out.append(tuple((name, v) for (name, _), v in zip(terms, vals, strict=True)))
            s.add(z3.Or([t != v for (_, t), v in zip(terms, vals, strict=True)]))
            if not terms:
                break
        s.pop()
        return sorted(out)

    def _witness(self, q: Query, m: z3.ModelRef) -> Witness:
        return witness_of_model(q, m)


def witness_of_model(q: Query, m: z3.ModelRef) -> Witness:
    """The execution that a z3 model of ``q`` describes."""
    enc = q.enc
    prog = enc.program

    def true(f: Formula) -> bool:
        return bool(z3.is_true(m.eval(to_z3(f), model_completion=True)))

    executed = [e for e in prog.events if true(enc.frame.exec[e.eid])]
    wevents = []
    for e in executed:
        if e.kind == "R":
            val: int | None = m.eval(enc.read_val[e.eid], model_completion=True).as_long()  # type: ignore[attr-defined]
        elif e.kind == "W":
            val = m.eval(enc.value(e.value or 0), model_completion=True).as_long()  # type: ignore[attr-defined]
        else:
            val = None
        wevents.append(WitnessEvent(e.eid, e.thread, e.kind, e.loc, val, e.label,
                                    tuple(sorted(e.tags)), e.agent))
    rf = [p for p, f in enc.rf_var.items() if true(f)]
    co: dict[str, list[int]] = {}
    for e in executed:
        if e.kind == "W" and e.loc is not None:
            co.setdefault(e.loc, []).append(e.eid)
    for _loc, ws in co.items():
        ws.sort(key=lambda w: 0 if prog.events[w].is_init else
                m.eval(enc.co_pos[w], model_completion=True).as_long())  # type: ignore[union-attr]
    terms = q.observables.terms_z3(enc)
    state = tuple((name, m.eval(t, model_completion=True).as_long())  # type: ignore[attr-defined]
                  for name, t in terms)
    extra = {
        "fso": [p for p, f in enc.frame.fso.items() if true(f)],
        "syncbar": [p for p, f in enc.frame.syncbar.items() if true(f)],
    }
    return Witness(wevents, rf, co, state, {k: v for k, v in extra.items() if v})


def cmp_to_z3(c: CmpExpr, enc: Encoding) -> z3.BoolRef:
    return _cmp(c.op, enc.value(c.left), enc.value(c.right))
