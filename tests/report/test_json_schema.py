"""The JSON report validates against docs/json-schema.json (schema gdrcheck.check/2)."""

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
SCHEMA_PATH = ROOT / "docs" / "json-schema.json"
SB = str(ROOT / "litmus" / "classic" / "SB.litmus")
MP = str(ROOT / "litmus" / "classic" / "MP.litmus")
MP_PTX = str(ROOT / "litmus" / "ptx" / "MP+rel+acq-gpu.litmus")
SB_FENCE_CTA = str(ROOT / "litmus" / "ptx" / "SB+fence.sc.ctas.litmus")
IRIW = str(ROOT / "litmus" / "classic" / "IRIW.litmus")

FIELDS = (
    "schema", "test", "file", "model", "engine", "condition", "quantifier", "verdict", "ok",
    "observation", "positive", "negative", "axioms", "flags", "liveness", "live", "live_reason",
    "vacuous", "vacuity", "blocked", "states", "witness", "time", "reason", "expect", "lints",
)


@pytest.fixture(scope="module")
def schema() -> dict[str, Any]:
    s = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator.check_schema(s)
    return s


@pytest.fixture(scope="module")
def output_validator(schema: dict[str, Any]) -> Any:
    """Validates the output of `check --format json`: always a list (issue 24)."""
    return jsonschema.Draft202012Validator(schema)


@pytest.fixture(scope="module")
def validator(schema: dict[str, Any]) -> Any:
    """Validates one record (the schema's $defs/record)."""
    return jsonschema.Draft202012Validator({**schema, "oneOf": [{"$ref": "#/$defs/record"}]})


def check_json(*args: str, code: int = 0) -> Any:
    """The records of a check: a list, however many (one shape for one or many)."""
    r = CliRunner().invoke(main, ["check", *args, "--format", "json"])
    assert r.exit_code == code, r.stdout + r.stderr
    out = json.loads(r.stdout)
    assert isinstance(out, list), out
    s = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator(s).validate(out)
    return out


def check_one(*args: str, code: int = 0) -> Any:
    """The one record of a check of one test under one model."""
    (rec,) = check_json(*args, code=code)
    return rec


# --------------------------------------------------------------------------
# Real output validates, and says what it should
# --------------------------------------------------------------------------


def test_sb_x86tso_allowed(validator: Any) -> None:
    rec = check_one(SB, "--model", "x86tso", "--states")
    validator.validate(rec)
    assert isinstance(rec, dict)
    assert list(rec) == list(FIELDS)
    assert rec["schema"] == "gdrcheck.check/2"
    # the default engine is auto: SB has 4 candidates, the enumerator answers
    assert (rec["test"], rec["model"], rec["engine"]) == ("SB", "x86tso", "explicit")
    assert rec["condition"] == "exists (0:EAX=0 /\\ 1:EAX=0)"
    assert rec["quantifier"] == "exists"
    assert rec["verdict"] == "Allowed"
    assert rec["ok"] is True
    assert rec["observation"] == "Sometimes"
    assert rec["positive"] is True and rec["negative"] is True
    assert rec["axioms"] == [] and rec["flags"] == []
    assert len(rec["states"]) == 4
    assert {"0:EAX": 0, "1:EAX": 0} in rec["states"]
    # the witness reaches the outcome of the condition
    w = rec["witness"]
    assert w["state"] == {"0:EAX": 0, "1:EAX": 0}
    reads = {e["id"]: e for e in w["events"] if e["kind"] == "R"}
    assert all(reads[r]["value"] == 0 for _, r in w["rf"])
    assert sorted(w["co"]) == ["x", "y"]
    assert rec["reason"] is None
    assert rec["expect"] == {"verdict": "Allowed", "met": True}


@pytest.mark.parametrize("args,engine", [
    ((SB,), "explicit"),  # 4 candidates: the portfolio takes the enumerator
    ((SB, "--engine", "smt"), "smt"),
    ((SB, "--engine", "explicit"), "explicit"),
    ((str(ROOT / "litmus" / "ptx75" / "MP+mbarrier-2arrivals.litmus"),), "smt"),  # 96
])
def test_the_engine_field_names_the_engine_that_answered(validator: Any, args: tuple[str, ...],
                                                         engine: str) -> None:
    model = "ptx75" if "ptx75" in args[0] else "x86tso"
    rec = check_one(*args, "--model", model)
    validator.validate(rec)
    assert rec["engine"] == engine


def test_mp_ptx_forbidden(validator: Any) -> None:
    rec = check_one(MP_PTX, "--model", "ptx", "--states")
    validator.validate(rec)
    assert rec["verdict"] == "Forbidden"
    assert rec["ok"] is False
    assert rec["observation"] == "Never"
    assert rec["positive"] is False and rec["negative"] is True
    assert rec["axioms"] == ["Causality"]
    assert rec["witness"] is None
    assert rec["states"] and {"1:r1": 1, "1:r2": 0} not in rec["states"]
    assert rec["expect"] == {"verdict": "Forbidden", "met": True}


def test_two_files_print_a_list(output_validator: Any, validator: Any) -> None:
    recs = check_json(SB, MP, "--model", "x86tso", "--states")
    output_validator.validate(recs)
    assert isinstance(recs, list) and len(recs) == 2
    for rec in recs:
        validator.validate(rec)
    assert [(r["test"], r["verdict"]) for r in recs] == [("SB", "Allowed"), ("MP", "Forbidden")]
    assert recs[1]["axioms"] == ["tso"]


def test_models_of_expect_line_print_a_list(output_validator: Any) -> None:
    recs = check_json(MP_PTX)
    output_validator.validate(recs)
    assert [(r["model"], r["verdict"]) for r in recs] == [
        ("ptx", "Forbidden"), ("sc", "Forbidden"),
    ]
    assert all(r["states"] is None for r in recs)


def test_witness_extra_fso(validator: Any) -> None:
    rec = check_one(SB_FENCE_CTA, "--model", "ptx")
    validator.validate(rec)
    assert rec["verdict"] == "Allowed"
    fences = [e for e in rec["witness"]["events"] if e["kind"] == "F"]
    assert len(fences) == 2 and all(e["loc"] is None and e["value"] is None for e in fences)
    assert all({"SC", "ACQ_REL", "CTA"} <= set(e["tags"]) for e in fences)
    (pair,) = rec["witness"]["extra"]["fso"]
    assert sorted(pair) == sorted(e["id"] for e in fences)


# eight stores to x: 8! coherence orders to enumerate (seconds), read in milliseconds;
# x = 4 (P0's last store last in coherence) is allowed: coherence orders only each
# thread's own stores here (herd7: x86tso.cat uniproc)
MANY_ORDERS = """X86 many-orders
Expect=x86tso:Allowed
{ x = 0; }
 P0          | P1          ;
 MOV [x],$1  | MOV [x],$5  ;
 MOV [x],$2  | MOV [x],$6  ;
 MOV [x],$3  | MOV [x],$7  ;
 MOV [x],$4  | MOV [x],$8  ;
exists (x = 4)
"""


def test_unknown_record(validator: Any, tmp_path: Path) -> None:
    # the explicit engine runs out of time enumerating (--timeout bounds the reading of
    # the test too, so the limit must let it be read); the expectation is not met (exit 1)
    path = tmp_path / "many-orders.litmus"
    path.write_text(MANY_ORDERS)
    rec = check_one(str(path), "--model", "x86tso", "--engine", "explicit", "--timeout",
                    "0.5", code=1)
    validator.validate(rec)
    assert rec["verdict"] == "Unknown"
    assert rec["ok"] is None and rec["observation"] is None
    assert rec["reason"] == "timeout while enumerating candidates"
    assert rec["expect"] == {"verdict": "Allowed", "met": False}


def test_undefined_record(validator: Any, tmp_path: Path) -> None:
    (tmp_path / "racy.cat").write_text(
        '"racy"\nacyclic po | rf | co | fr as sc\nflag ~empty rf & ext as race\n'
    )
    rec = check_one(SB, "-I", str(tmp_path), "--model", "racy")
    validator.validate(rec)
    assert rec["verdict"] == "Undefined"
    assert rec["ok"] is None
    assert rec["flags"] == ["race"]
    assert rec["expect"] is None


# --------------------------------------------------------------------------
# The schema rejects what is not a gdrcheck.check/2 record
# --------------------------------------------------------------------------


@pytest.fixture(scope="module")
def good() -> dict[str, Any]:
    return check_one(SB, "--model", "x86tso", "--states")  # type: ignore[no-any-return]


@pytest.mark.parametrize("field", FIELDS)
def test_missing_field_is_rejected(validator: Any, output_validator: Any,
                                   good: dict[str, Any], field: str) -> None:
    bad = copy.deepcopy(good)
    del bad[field]
    if field == "lints":  # only check's records have it ($defs/run-line has none)
        assert validator.is_valid(bad)
        return
    assert not validator.is_valid(bad)
    assert not output_validator.is_valid([good, bad])
    assert not output_validator.is_valid(good)  # a record alone is not the output


@pytest.mark.parametrize(
    "change",
    [
        {"schema": "gdrcheck.check/1"},  # the schema before vacuity
        {"verdict": "Maybe"},
        {"verdict": "Required"},  # Required needs a forall condition
        {"ok": None},  # Allowed: ok is a boolean
        {"observation": None},
        {"reason": "solver: timeout"},  # a reason only comes with Unknown
        {"positive": 1},
        {"states": [{"0:EAX": "0"}]},
        {"expect": {"verdict": "Allowed"}},
        {"extra-field": 1},
    ],
)
def test_wrong_values_are_rejected(validator: Any, good: dict[str, Any],
                                   change: dict[str, Any]) -> None:
    bad = {**copy.deepcopy(good), **change}
    assert not validator.is_valid(bad)


def test_bad_witness_is_rejected(validator: Any, good: dict[str, Any]) -> None:
    bad = copy.deepcopy(good)
    del bad["witness"]["events"][0]["tags"]
    assert not validator.is_valid(bad)
    bad = copy.deepcopy(good)
    bad["witness"]["rf"][0] = [1, 2, 3]
    assert not validator.is_valid(bad)
