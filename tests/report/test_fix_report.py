"""``gdrcheck fix --format json`` validates against docs/json-schema.json ($defs/fix,
schema gdrcheck.fix/1), in each of its statuses."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from gdrcheck.cli import main

jsonschema = pytest.importorskip("jsonschema")

ROOT = Path(__file__).resolve().parents[2]
LIB = ROOT / "litmus"


@pytest.fixture(scope="module")
def validator() -> Any:
    schema = json.loads((ROOT / "docs" / "json-schema.json").read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator({**schema, "oneOf": [{"$ref": "#/$defs/fix"}]})


def fix_json(*args: str, code: int) -> Any:
    r = CliRunner().invoke(main, ["fix", *args, "--format", "json"])
    assert r.exit_code == code, r.output
    return json.loads(r.stdout)


def test_a_repair_validates(validator: Any) -> None:
    # DeepEP #674 registers the window NCCL_WIN_STRICT_ORDERING (docs/fix.md)
    rec = fix_json(str(LIB / "deepep/V2-dispatch+default-window.litmus"), "-m", "gin-api",
                   code=0)
    validator.validate(rec)
    assert rec["status"] == "fixed" and rec["strategy"] == "shared"
    rep = rec["repairs"][0]
    assert [e["entry"] for e in rep["edits"]] == ["strict-window"]
    assert rep["edits"][0]["action"] == "init" and rep["edits"][0]["thread"] == -1
    assert any(line.startswith("+") and "strict" in line for line in rep["diff"])
    assert rep["verdicts"] == {"gin-api": "Forbidden"}


def test_all_minimal_reencode_impossible_and_already_validate(validator: Any) -> None:
    sb = str(LIB / "classic/SB.litmus")
    rec = fix_json(sb, "-m", "x86tso", "--all-minimal", code=0)
    validator.validate(rec)
    rec = fix_json(sb, "-m", "x86tso", "--every-variant", code=0)
    validator.validate(rec)
    assert rec["strategy"] == "reencode" and rec["shared_edits"] == 0
    rec = fix_json(sb, "-m", "x86tso", "--max-cost", "5", code=1)  # two MFENCEs cost 6
    validator.validate(rec)
    assert rec["status"] == "impossible" and rec["repairs"] == [] and rec["max_cost"] == 5
    # gin/01 expects gin-api:Forbidden (R-GIN-2): nothing to fix
    rec = fix_json(str(LIB / "gin/01-MP+put+strongsig.litmus"), "-m", "gin-api", code=0)
    validator.validate(rec)
    assert rec["status"] == "already" and rec["queries"] == 0


def test_the_schema_rejects_what_it_should(validator: Any) -> None:
    rec = fix_json(str(LIB / "gin/19-TMA+put+sig.litmus"), "-m", "gin-gdaki", code=0)
    validator.validate(rec)
    for mutate in (lambda r: r.pop("queries"), lambda r: r.update(status="maybe"),
                   lambda r: r.update(extra=1), lambda r: r.update(schema="gdrcheck.fix/2"),
                   lambda r: r["repairs"][0]["edits"][0].update(action="delete"),
                   lambda r: r["repairs"][0].update(edits=[])):
        bad = copy.deepcopy(rec)
        mutate(bad)
        assert not validator.is_valid(bad)


def test_the_repaired_file_and_a_reordering_validate(validator: Any) -> None:
    # gin/14 (Allowed, R-GIN-8) flushed as gin/13 does: the record's test is the library
    # file with one row added, its Expect= lines kept and named stale
    path = LIB / "gin/14-reuse+put-noflush.litmus"
    rec = fix_json(str(path), "-m", "gin-api", "--all-minimal", code=0)
    validator.validate(rec)
    (flush,) = [r for r in rec["repairs"] if r["edits"][0]["entry"] == "flush-reuse"]
    assert flush["reprinted"] is False
    assert flush["diff"] == ["@@ -18,0 +19 @@", "+ gin.flush c0                |"
                             "                       ;"]
    original = path.read_text().splitlines()
    assert flush["test"].splitlines() == [*original[:18], flush["diff"][1][1:], *original[18:]]
    assert flush["stale_expect"] == ["line 3: gin-api:Allowed, now Forbidden"]
    # gin/MP+signal+put-late (Allowed, R-GIN-3): no strengthening; the put moved before
    # its signal is gin/04b (Forbidden)
    rec = fix_json(str(LIB / "gin/MP+signal+put-late.litmus"), "-m", "gin-api", code=1)
    validator.validate(rec)
    assert rec["status"] == "impossible" and len(rec["reorderings"]) == 1
    assert rec["reorderings"][0]["verdicts"] == {"gin-api": "Forbidden"}
