"""gdrcheck diff: the tests on which two models (with variants) disagree."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from gdrcheck.analysis.diff import diff_models
from gdrcheck.cli import main
from gdrcheck.errors import InputError
from gdrcheck.report.diff import diff_json

ROOT = Path(__file__).resolve().parents[2]
GIN = ROOT / "litmus" / "gin"
GIN09 = GIN / "09-MP+put+put-flag.litmus"
GIN01 = GIN / "01-MP+put+strongsig.litmus"
SB = ROOT / "litmus" / "classic" / "SB.litmus"


@pytest.fixture(scope="module")
def diff_validator() -> Any:
    jsonschema = pytest.importorskip("jsonschema")
    schema = json.loads((ROOT / "docs" / "json-schema.json").read_text(encoding="utf-8"))
    return jsonschema.Draft202012Validator({**schema, "oneOf": [{"$ref": "#/$defs/diff"}]})


def test_a_variant_that_changes_one_verdict() -> None:
    r = diff_models("gin-gdaki", "gin-gdaki+pcie-ro", [GIN09, GIN01, SB])
    assert (r.a, r.b) == ("gin-gdaki", "gin-gdaki+pcie-ro")
    assert [(x.test, x.a.verdict, x.b.verdict) for x in r.different] == [
        ("09-MP+put+put-flag", "Forbidden", "Allowed")]
    assert r.different[0].a.axioms == ("Causality",)
    assert [x.test for x in r.same] == ["01-MP+put+strongsig"]
    assert [s.test for s in r.skipped] == ["SB"]  # an x86 test: not accepted


def test_the_differences_match_the_expect_lines() -> None:
    # every test of litmus/gin whose Expect= lines give gin-api and gin-gdaki different
    # verdicts is listed, and no other
    from gdrcheck.litmus import load_litmus

    r = diff_models("gin-api", "gin-gdaki", [GIN])
    listed = {x.test for x in r.different}
    expected = set()
    for x in r.rows:
        t = load_litmus(x.file)
        want = {e.model: e.verdict for e in t.expectations if not e.variants}
        if "gin-api" in want and "gin-gdaki" in want and want["gin-api"] != want["gin-gdaki"]:
            expected.add(t.name)
    assert expected and expected <= listed
    for x in r.different:
        assert x.a.verdict != x.b.verdict
    assert not r.inconclusive and not r.errors


def test_bad_models() -> None:
    with pytest.raises(InputError, match="has no variant nope"):
        diff_models("gin-gdaki+nope", "gin-api", [GIN09])
    with pytest.raises(InputError, match="cannot find model"):
        diff_models("no-such-model", "gin-api", [GIN09])


def test_json_validates(diff_validator: Any) -> None:
    rec = diff_json(diff_models("gin-gdaki", "gin-gdaki+pcie-ro", [GIN09, GIN01, SB]))
    diff_validator.validate(rec)
    assert rec["schema"] == "gdrcheck.diff/1"
    assert rec["counts"] == {"compared": 2, "same": 1, "different": 1, "inconclusive": 0,
                             "skipped": 1, "errors": 0}


def test_cli(diff_validator: Any, tmp_path: Path) -> None:
    runner = CliRunner()
    r = runner.invoke(main, ["diff", "-m", "gin-gdaki", "-m", "gin-gdaki+pcie-ro",
                             str(GIN09), str(GIN01)])
    assert r.exit_code == 1, r.output  # some test differs
    assert "09-MP+put+put-flag" in r.stdout and "01-MP+put+strongsig" not in r.stdout
    assert "2 compared: 1 same, 1 different" in r.stdout
    r = runner.invoke(main, ["diff", "-m", "gin-gdaki", "-m", "gin-proxy", str(GIN01),
                             "--all"])
    assert r.exit_code == 0, r.output
    assert "01-MP+put+strongsig" in r.stdout
    r = runner.invoke(main, ["diff", "-m", "gin-gdaki", "-m", "gin-gdaki+pcie-ro",
                             str(GIN09), "--format", "json"])
    rec = json.loads(r.stdout)
    diff_validator.validate(rec)
    assert [x["test"] for x in rec["different"]] == ["09-MP+put+put-flag"]
    # bad input: one model, an unknown variant, an unreadable file
    assert runner.invoke(main, ["diff", "-m", "gin-gdaki", str(GIN09)]).exit_code == 2
    assert runner.invoke(main, ["diff", "-m", "gin-gdaki+x", "-m", "gin-api",
                                str(GIN09)]).exit_code == 2
    bad = tmp_path / "bad.litmus"
    bad.write_text("GIN bad\n{ x = 0; }\n P0 ;\n nonsense ;\nexists (x = 1)\n")
    r = runner.invoke(main, ["diff", "-m", "gin-gdaki", "-m", "gin-api", str(bad)])
    assert r.exit_code == 2 and "bad.litmus" in r.stderr
