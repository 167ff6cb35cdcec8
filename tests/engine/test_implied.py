"""The facts the model's axioms imply before the encoding (gdrcheck/engine/implied.py):
found where the axioms give them, not found where they do not, and never a different
verdict or set of final states from the explicit enumerator (which prunes nothing)."""

from __future__ import annotations

from pathlib import Path

import pytest

from gdrcheck.analysis.check import check_test, prepare
from gdrcheck.analysis.options import DEFAULT_OPTIONS, CheckOptions
from gdrcheck.engine.base import static_env
from gdrcheck.engine.implied import implied_facts
from gdrcheck.litmus import ast as A
from gdrcheck.litmus import parse_litmus
from gdrcheck.lower import lower


def _ptx(name: str, body: list[str], cond: str, init: str = "x=0;") -> A.Test:
    rows = "\n".join(f" {ins} ;" for ins in body)
    return parse_litmus(f"PTX {name}\n{{ {init} }}\n P0@cta 0,gpu 0 ;\n{rows}\n{cond}\n",
                        f"{name}.litmus")


def _facts(test: A.Test, model: str, options: CheckOptions = DEFAULT_OPTIONS):  # noqa: ANN202
    _, loaded, chosen = prepare(test, model, (), options)
    prog = lower(test)
    exe = {e.eid: True for e in prog.events}
    return prog, implied_facts(prog, loaded.stmts, chosen, static_env(prog, exe))  # type: ignore[arg-type]


def _writes(prog, loc: str = "x") -> list[int]:  # noqa: ANN001
    return [e.eid for e in prog.events if e.kind == "W" and e.loc == loc and not e.is_init]


def _agree(test: A.Test, model: str, options: CheckOptions = DEFAULT_OPTIONS) -> str:
    smt = check_test(test, model, options=options.overlay(engine="smt", states=True))
    exp = check_test(test, model, options=options.overlay(engine="explicit", states=True))
    assert smt.verdict == exp.verdict, (test.name, model, smt.verdict, exp.verdict)
    assert smt.states == exp.states, (test.name, model)
    return str(smt.verdict)


@pytest.mark.parametrize("model,axiom", [("ptx", "SC-per-Location"), ("sc", "sc")])
def test_coherence_follows_po_loc(model: str, axiom: str) -> None:
    test = _ptx("W4", [f"st.relaxed.gpu x, {i}" for i in range(1, 5)], "exists (x == 1)")
    prog, facts = _facts(test, model)
    w = _writes(prog)
    assert facts.co == {(a, b) for i, a in enumerate(w) for b in w[i + 1:]}
    assert facts.axioms == (axiom,)
    res = check_test(test, model)
    assert res.verdict == "Forbidden" and axiom in res.axioms
    assert _agree(test, model) == "Forbidden"


def test_weak_writes_of_one_thread_too() -> None:
    """Two weak writes related by program order are morally strong (ASPLOS'19 §3.1)."""
    test = _ptx("W3w", [f"st.weak x, {i}" for i in range(1, 4)], "exists (x == 1)")
    prog, facts = _facts(test, "ptx")
    assert len(facts.co) == 3
    assert _agree(test, "ptx") == "Forbidden"


def test_reads_from_candidates_against_po_loc() -> None:
    """A read does not read the initial write once its thread wrote the location, nor a
    later write of its thread."""
    test = _ptx("WRW", ["st.relaxed.gpu x, 1", "ld.relaxed.gpu r0, x", "st.relaxed.gpu x, 2"],
                "exists (0:r0 != 1)")
    prog, facts = _facts(test, "ptx")
    init = next(e.eid for e in prog.events if e.is_init and e.loc == "x")
    r = next(e.eid for e in prog.events if e.kind == "R")
    w1, w2 = _writes(prog)
    assert facts.no_rf == {(init, r), (w2, r)}
    assert _agree(test, "ptx") == "Forbidden"


CUSTOM = {
    # no coherence axiom at all: every order is allowed
    "nocoh": "acyclic rf as rf-only\n",
    # the axiom only under a variant
    "varcoh": 'variant "coh" "po-loc in co"\nif "coh" then\n  acyclic po-loc | co as coh\nend\n',
    # immediate coherence only: not monotone in co; it fixes the order of two writes (no
    # write can come between them), not of three
    "imm": "acyclic po-loc | (co \\ (co; co)) as imm\n",
    # a flag is not an axiom
    "flagged": "flag ~acyclic po-loc | co as cyc\n",
}


@pytest.fixture()
def models(tmp_path: Path) -> CheckOptions:
    for name, body in CUSTOM.items():
        (tmp_path / f"{name}.cat").write_text(f'"{name}"\n{body}')
    return CheckOptions(include_dirs=(str(tmp_path),))


@pytest.mark.parametrize("model,fixed", [
    ("nocoh", (False, False, False)), ("varcoh", (False, False, False)),
    ("varcoh+coh", (True, True, True)), ("imm", (False, False, True)),
    ("flagged", (False, False, False)),
])
def test_only_where_the_model_says_so(models: CheckOptions, model: str,
                                      fixed: tuple[bool, ...]) -> None:
    tests = [
        _ptx("W3", [f"st.relaxed.gpu x, {i}" for i in range(1, 4)], "exists (x == 1)"),
        _ptx("W3m", [f"st.relaxed.gpu x, {i}" for i in range(1, 4)], "exists (x == 2)"),
        _ptx("WRW", ["st.relaxed.gpu x, 1", "ld.relaxed.gpu r0, x", "st.relaxed.gpu x, 2"],
             "exists (0:r0 != 1)"),
    ]
    for test, want in zip(tests, fixed, strict=True):
        _, facts = _facts(test, model, models)
        assert bool(facts.co) == want, (model, test.name)
        _agree(test, model, models)
