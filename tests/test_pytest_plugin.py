"""The pytest plugin (gdrcheck/pytest_plugin.py): litmus files as test items."""

from __future__ import annotations

import importlib.metadata
import tomllib
from pathlib import Path

import pytest

pytest_plugins = ["pytester"]

ROOT = Path(__file__).resolve().parents[1]
SB = (ROOT / "litmus" / "classic" / "SB.litmus").read_text()
IRIW = (ROOT / "litmus" / "classic" / "IRIW.litmus").read_text()
LIVENESS = (ROOT / "litmus" / "gin" / "20-aggregate-doorbell-liveness.litmus").read_text()

# Load the module under its own name whether or not the pytest11 entry point is
# installed in this environment (-p no:gdrcheck blocks the entry point).
PLUGIN = ("-p", "no:gdrcheck", "-p", "gdrcheck.pytest_plugin")


@pytest.fixture
def suite(pytester: pytest.Pytester) -> pytest.Pytester:
    """A folder with a passing, a failing and a plain (no Expect=) litmus file."""
    pytester.makefile(".litmus", good=SB)
    pytester.makefile(".litmus", bad=SB.replace("x86tso:Allowed", "x86tso:Forbidden"))
    pytester.makefile(".litmus", plain="\n".join(
        line for line in SB.splitlines() if not line.startswith("Expect=")))
    return pytester


def run(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    return pytester.runpytest(*PLUGIN, *args)


def test_litmus_flag_collects_one_item_per_expect_entry(suite: pytest.Pytester) -> None:
    res = run(suite, "--litmus", "--collect-only", "-q")
    ids = [line for line in res.outlines if ".litmus::" in line]
    assert sorted(ids) == ["bad.litmus::sc", "bad.litmus::x86tso", "good.litmus::sc",
                           "good.litmus::x86tso"]


def test_passing_and_failing_files(suite: pytest.Pytester) -> None:
    res = run(suite, "--litmus", "-rf")
    res.assert_outcomes(passed=3, failed=1)
    out = res.stdout.str()
    assert "FAILED bad.litmus::x86tso" in out
    assert "SB under x86tso: expected Forbidden, got Allowed" in out
    # the failure gives the witness execution, not a traceback of the plugin
    assert "Witness execution:" in out
    assert "e3:R(y)=0 [MOV EAX,[y]]" in out
    assert "pytest_plugin.py" not in out


def test_failure_names_the_axiom(pytester: pytest.Pytester) -> None:
    pytester.makefile(".litmus", sbsc=SB.replace("sc:Forbidden", "sc:Allowed"))
    res = run(pytester, "--litmus")
    res.assert_outcomes(passed=1, failed=1)
    res.stdout.fnmatch_lines(["*SB under sc: expected Allowed, got Forbidden (rejected by sc)*",
                              "*Rejected-by sc*"])


def test_directories_are_not_collected_by_default(suite: pytest.Pytester) -> None:
    res = run(suite)
    assert res.ret == pytest.ExitCode.NO_TESTS_COLLECTED


def test_a_file_named_on_the_command_line_is_collected(suite: pytest.Pytester) -> None:
    res = run(suite, "good.litmus")
    res.assert_outcomes(passed=2)
    res = run(suite, "bad.litmus::sc")
    res.assert_outcomes(passed=1)


def test_ini_setting_turns_collection_on(suite: pytest.Pytester) -> None:
    suite.makeini("[pytest]\ngdrcheck_litmus = true\n")
    run(suite).assert_outcomes(passed=3, failed=1)


def test_no_litmus_turns_collection_off(suite: pytest.Pytester) -> None:
    suite.makeini("[pytest]\ngdrcheck_litmus = true\n")
    res = run(suite, "--no-litmus")
    assert res.ret == pytest.ExitCode.NO_TESTS_COLLECTED


def test_liveness_entries_are_items(pytester: pytest.Pytester) -> None:
    pytester.makefile(".litmus", live=LIVENESS)
    pytester.makefile(".litmus", wrong=LIVENESS.replace("gin-gdaki:Hang", "gin-gdaki:Live"))
    res = run(pytester, "--litmus", "-rf", "-v")
    res.assert_outcomes(passed=11, failed=1)
    out = res.stdout.str()
    assert "live.litmus::liveness:gin-gdaki PASSED" in out
    assert "FAILED wrong.litmus::liveness:gin-gdaki" in out
    assert ("20-aggregate-doorbell-liveness under gin-gdaki: expected liveness Live, got Hang "
            "(waits that may hang: doorbell-never-rung)") in out


def test_engine_and_timeout_options(pytester: pytest.Pytester) -> None:
    pytester.makefile(".litmus", iriw=IRIW)
    run(pytester, "--litmus", "--gdrcheck-engine", "explicit").assert_outcomes(passed=2)
    res = run(pytester, "--litmus", "--gdrcheck-engine", "explicit",
              "--gdrcheck-timeout", "1e-9")
    res.assert_outcomes(failed=2)
    res.stdout.fnmatch_lines(["*expected Forbidden, got Unknown (timeout while enumerating*"])


def test_ini_engine_and_timeout(pytester: pytest.Pytester) -> None:
    pytester.makefile(".litmus", iriw=IRIW)
    pytester.makeini("[pytest]\ngdrcheck_litmus = true\ngdrcheck_engine = explicit\n"
                     "gdrcheck_timeout = 1e-9\n")
    run(pytester).assert_outcomes(failed=2)


def test_a_malformed_file_is_a_collection_error(pytester: pytest.Pytester) -> None:
    pytester.makefile(".litmus", broken="X86 broken\nExpect=x86tso:Allowed\n{ x=0; }\n P0 ;\n"
                      " MOVE [x],$1 ;\nexists (x=1)\n")
    res = run(pytester, "--litmus")
    res.assert_outcomes(errors=1)
    out = res.stdout.str()
    assert "broken.litmus:5:" in out
    assert "Traceback" not in out


def test_a_broken_model_fails_its_item_with_the_models_error(pytester: pytest.Pytester
                                                             ) -> None:
    models = pytester.mkdir("models")
    (models / "bad.cat").write_text('"bad"\nacyclic po | nosuchrel as sc\n')
    pytester.makefile(".litmus", sb=SB.replace("Expect=x86tso:Allowed,",
                                               "Expect=x86tso:Allowed,bad:Allowed,"))
    res = run(pytester, "--litmus", "--gdrcheck-include", str(models))
    res.assert_outcomes(passed=2, failed=1)
    res.stdout.fnmatch_lines(["*bad.cat:2:14: unbound name 'nosuchrel'*"])


def test_entry_point_is_declared() -> None:
    meta = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert meta["project"]["entry-points"]["pytest11"] == {"gdrcheck": "gdrcheck.pytest_plugin"}


def test_installed_entry_point_loads_the_plugin(suite: pytest.Pytester,
                                                monkeypatch: pytest.MonkeyPatch,
                                                tmp_path: Path) -> None:
    eps = importlib.metadata.entry_points(group="pytest11")
    if not any(ep.value == "gdrcheck.pytest_plugin" for ep in eps):
        # not installed (or installed from an older checkout): a distribution with the
        # entry point of pyproject.toml, as pip would write it
        dist = tmp_path / "site" / "gdrcheck_ep-0.dist-info"
        dist.mkdir(parents=True)
        (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: gdrcheck-ep\n"
                                       "Version: 0\n")
        (dist / "entry_points.txt").write_text(
            "[pytest11]\ngdrcheck = gdrcheck.pytest_plugin\n")
        monkeypatch.syspath_prepend(str(tmp_path / "site"))
    monkeypatch.delenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", raising=False)
    suite.runpytest("--litmus").assert_outcomes(passed=3, failed=1)
    res = suite.runpytest("-p", "no:gdrcheck", "--litmus")
    assert res.ret == pytest.ExitCode.USAGE_ERROR  # the option is gone with the plugin


NEVER = (Path(__file__).resolve().parent / "fixtures" / "never-satisfied.litmus").read_text()


def test_the_pytest_plugin_fails_a_vacuous_item(pytester: pytest.Pytester) -> None:
    pytester.makefile(".litmus", never=NEVER)
    result = pytester.runpytest("never.litmus")
    result.assert_outcomes(passed=1, failed=1)  # Liveness=Hang holds; Expect= does not
    result.stdout.fnmatch_lines(["*vacuous: no execution completes*"])
