"""One execution, evaluated concretely: for explanations and pictures.

A :class:`~gdrcheck.engine.result.Witness` (from either engine, or a candidate
execution z3 found with some axioms switched off) is turned back into a concrete
:class:`~gdrcheck.engine.base.Frame`, and the model is run on it by the cat
interpreter with the :class:`~gdrcheck.engine.backends.ConcreteBackend` — what the
explicit engine does for every candidate — in recording mode, so that each named
relation's value and definition is available afterwards.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import z3

from gdrcheck.cat import ast as C
from gdrcheck.cat.interp import Evaluation, Interpreter
from gdrcheck.cat.values import Formula, Pair
from gdrcheck.engine.backends import ConcreteBackend
from gdrcheck.engine.base import Frame, base_env
from gdrcheck.engine.result import Witness
from gdrcheck.engine.smt import Query, SmtEngine
from gdrcheck.lower.program import Program


def frame_of_witness(prog: Program, w: Witness) -> Frame:
    """The concrete frame of an execution: its events, rf, co and the extra orders."""
    executed = [e.eid for e in w.events]
    exe: dict[int, Formula] = dict.fromkeys(executed, True)
    rf: dict[Pair, Formula] = {(a, b): True for a, b in w.rf}
    co: dict[Pair, Formula] = {}
    fw: dict[int, Formula] = {}
    for ws in w.co.values():
        for i, a in enumerate(ws):
            for b in ws[i + 1:]:
                co[(a, b)] = True
        if ws:
            fw[ws[-1]] = True
    fso: dict[Pair, Formula] = {(a, b): True for a, b in w.extra.get("fso", [])}
    syncbar: dict[Pair, Formula] = {(a, b): True for a, b in w.extra.get("syncbar", [])}
    return Frame(prog, exe, rf, co, fw, fso, syncbar)


def evaluate(prog: Program, frame: Frame, stmts: Sequence[C.Stmt],
             variants: frozenset[str], path_of: Any = None
             ) -> tuple[Evaluation, Interpreter]:
    """Run the model on one concrete execution, recording every binding."""
    interp = Interpreter(base_env(frame), ConcreteBackend(), variants, path_of, record=True)
    return interp.run(stmts), interp


def witness_of_model(q: Query, m: z3.ModelRef) -> Witness:
    """The execution a z3 model of the query describes."""
    return SmtEngine()._witness(q, m)
