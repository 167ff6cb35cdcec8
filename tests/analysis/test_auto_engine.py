"""The portfolio engine ``auto``: the enumerator for tiny candidate spaces, z3 beyond,
with the verdicts of both."""

from __future__ import annotations

from pathlib import Path

import pytest

from gdrcheck.analysis.check import check_test
from gdrcheck.analysis.options import AUTO_EXPLICIT_BOUND, CheckOptions
from gdrcheck.engine.explicit import candidate_bound
from gdrcheck.gen.families import family
from gdrcheck.litmus import load_litmus, parse_litmus
from gdrcheck.lower import lower

ROOT = Path(__file__).resolve().parents[2]


def test_tiny_tests_go_to_the_enumerator() -> None:
    sb = load_litmus(str(ROOT / "litmus/classic/SB.litmus"))
    assert candidate_bound(lower(sb)) == 4  # two reads, two sources each
    res = check_test(sb, "x86tso", options=CheckOptions(engine="auto"))
    assert (res.engine, res.verdict) == ("explicit", "Allowed")


@pytest.mark.parametrize("size,engine", [(4, "explicit"), (6, "smt")])
def test_the_bound(size: int, engine: str) -> None:
    name, text = family("SB", size, "x86")
    test = parse_litmus(text, f"{name}.litmus")
    assert (candidate_bound(lower(test)) <= AUTO_EXPLICIT_BOUND) == (engine == "explicit")
    res = check_test(test, "x86tso", options=CheckOptions(engine="auto"))
    assert res.engine == engine
    smt = check_test(test, "x86tso", options=CheckOptions(engine="smt"))
    assert smt.engine == "smt"
    assert res.verdict == smt.verdict == "Allowed"


def test_auto_is_the_default() -> None:
    """What a user gets who does not choose: the portfolio, everywhere (CheckOptions,
    the CLI's --engine, the API, the pytest plugin); --engine smt still selects z3."""
    import gdrcheck
    from gdrcheck.cli.options import check_options
    from gdrcheck.pytest_plugin import ENGINES

    assert CheckOptions().engine == "auto" == check_options().engine
    assert ENGINES[2] == "auto"
    sb = load_litmus(str(ROOT / "litmus/classic/SB.litmus"))
    assert check_test(sb, "x86tso").engine == "explicit"
    assert gdrcheck.check(sb, "x86tso").result.engine == "explicit"
    assert gdrcheck.check(sb, "x86tso", engine="smt").result.engine == "smt"
    assert check_test(sb, "x86tso", options=CheckOptions(engine="smt")).engine == "smt"


def test_the_cli_default_is_auto_and_smt_selects_z3() -> None:
    from click.testing import CliRunner

    from gdrcheck.cli import main

    sb = str(ROOT / "litmus/classic/SB.litmus")
    for args, engine in (((), "explicit"), (("--engine", "smt"), "smt"),
                         (("--engine", "auto"), "explicit")):
        r = CliRunner().invoke(main, ["check", sb, "-m", "x86tso", "--format", "json",
                                      *args])
        assert r.exit_code == 0, r.output
        assert f'"engine": "{engine}"' in r.stdout
    help_text = CliRunner().invoke(main, ["check", "--help"]).output
    assert "[default: auto]" in help_text


def test_rejecting_checks_is_an_irredundant_hitting_set() -> None:
    from gdrcheck.engine.explicit import rejecting_checks

    order = {"uniproc": 0, "atomic": 1, "tso": 2}
    # every candidate fails uniproc, some tso too: uniproc alone (the union named tso too)
    assert rejecting_checks([frozenset({"uniproc"}), frozenset({"uniproc", "tso"})],
                            order) == ["uniproc"]
    # a tie goes to the check earlier in the model
    assert rejecting_checks([frozenset({"tso", "uniproc"})], order) == ["uniproc"]
    # greedy takes tso first (a tie, the earliest), then uniproc and atomic, which leave
    # tso redundant: it is dropped
    first = {"tso": 0, "uniproc": 1, "atomic": 2}
    sets = [frozenset(s) for s in ({"tso", "uniproc"}, {"tso", "atomic"}, {"uniproc"},
                                   {"atomic"})]
    assert rejecting_checks(sets, first) == ["uniproc", "atomic"]
    assert rejecting_checks([], order) == []


FORALL_CORR = """X86 CoRR-forall
{ }
 P0          | P1          ;
 MOV [x],$1  | MOV EAX,[x] ;
             | MOV EBX,[x] ;
forall (~(1:EAX=1 /\\ 1:EBX=0))
"""


def test_the_default_names_the_checks_that_rule_the_outcome_out() -> None:
    corr = load_litmus(str(ROOT / "litmus/classic/CoRR.litmus"))
    res = check_test(corr, "x86tso")
    assert (res.engine, res.verdict, res.axioms) == ("explicit", "Forbidden", ["uniproc"])
    # a forall test that is Required names the checks that rule out its negation, as z3
    forall = parse_litmus(FORALL_CORR, "f.litmus")
    for engine in ("auto", "smt"):
        res = check_test(forall, "x86tso", options=CheckOptions(engine=engine))
        assert (res.verdict, res.axioms) == ("Required", ["uniproc"]), engine


def test_the_checks_named_by_the_enumerator_rule_the_outcome_out_in_z3() -> None:
    import z3

    from gdrcheck.analysis.check import prepare
    from gdrcheck.engine.smt import build_query, query_solver

    named = 0
    for path in sorted((ROOT / "litmus/classic").glob("*.litmus")):
        test = load_litmus(str(path))
        res = check_test(test, "x86tso")
        if not res.axioms:
            continue
        named += 1
        _, loaded, chosen = prepare(test, "x86tso")
        q = build_query(lower(test), loaded.stmts, chosen, test, loaded.path_of)
        lits = [lit for n, lit in q.axiom_lits.items() if n.split("#")[0] in res.axioms]
        target = z3.Not(q.prop) if res.quantifier == "forall" else q.prop
        assert query_solver(q).check(*lits, target) == z3.unsat, (path.name, res.axioms)
    assert named >= 15
