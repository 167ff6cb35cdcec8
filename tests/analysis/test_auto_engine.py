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
