"""Model acceptance (@accepts pragmas, test features) and ``gdrcheck check --model all``.

The --model all tests run on a models directory of their own (copies of sc.cat and
x86tso.cat, and small models with pragmas), so that they do not depend on which
models specs/ holds at the time.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from gdrcheck.analysis.check import check_test
from gdrcheck.analysis.models import _load, accepting_models
from gdrcheck.cat.loader import DEFAULT_ACCEPTS, SPECS_DIR, load_model, parse_accepts
from gdrcheck.cli import main
from gdrcheck.errors import CatError, UnsupportedError
from gdrcheck.litmus import load_litmus, parse_litmus
from gdrcheck.litmus.features import test_features as features_of

ROOT = Path(__file__).resolve().parents[2]
SB = str(ROOT / "litmus" / "classic" / "SB.litmus")
MP_PTX = str(ROOT / "litmus" / "ptx" / "MP+rel+acq-gpu.litmus")

GIN_TEST = (
    "GIN MP+put+strongsig\n"
    "{ x = 0; buf@0 = 1; S : signal; }\n"
    " P0@cta 0,gpu 0,node 0 | P1@cta 0,gpu 1,node 1 ;\n"
    " gin.put c0, x@1, buf, sig=S | gin.wait_signal S, 1 ;\n"
    " | ld.relaxed.sys r0, x ;\n"
    "exists (1:r0 = 0)\n"
)
SHMEM_TEST = (
    "GIN MP+shmem\n"
    "{ x = 0; buf@0 = 1; }\n"
    " P0@cta 0,gpu 0,node 0 | P1@cta 0,gpu 1,node 1 ;\n"
    " shmem.put x@1, buf     | add r1, r1, 1 ;\n"
    "exists (x@1 = 0)\n"
)


def run(*args: str) -> tuple[int, str, str]:
    r = CliRunner().invoke(main, list(args))
    return r.exit_code, r.stdout, r.stderr


@pytest.fixture
def specs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A models directory: sc (no pragma: X86 and PTX) and x86tso (X86 only), a PTX-only model
    with a variant, and a GIN-only model."""
    d = tmp_path / "specs"
    d.mkdir()
    for name in ("sc.cat", "x86tso.cat"):
        shutil.copy(SPECS_DIR / name, d / name)
    (d / "onlyptx.cat").write_text(
        '"only PTX"\n(* @accepts: PTX *)\nvariant "strict" "also po-loc"\n'
        "if strict then acyclic po | rf | co | fr as sc else acyclic po-loc | rf as coh end\n"
    )
    (d / "onlygin.cat").write_text('"only GIN"\n(* @accepts: PTX GIN *)\nacyclic po as po\n')
    monkeypatch.setenv("GDRCHECK_SPECS", str(d))
    _load.cache_clear()
    yield d
    _load.cache_clear()


# --------------------------------------------------------------------------
# @accepts pragmas and features
# --------------------------------------------------------------------------


def test_pragma_parsing() -> None:
    assert parse_accepts('"m"\nacyclic po\n') == DEFAULT_ACCEPTS == {"X86", "PTX"}
    assert parse_accepts('"m"\n(* @accepts: PTX GIN *)\nacyclic po\n') == {"PTX", "GIN"}
    assert parse_accepts("(* @accepts: ptx, shmem *)") == {"PTX", "SHMEM"}
    assert parse_accepts("(* @accepts: PTX *)\n(* @accepts: GIN *)") == {"PTX", "GIN"}
    # only top-level comments count, and not strings
    assert parse_accepts('(* a (* @accepts: GIN *) *) include "(* @accepts: GIN *)"') == \
        DEFAULT_ACCEPTS


def test_bad_pragma_is_a_cat_error_with_position() -> None:
    with pytest.raises(CatError) as info:
        parse_accepts('"m"\n\n  (* @accepts: PTX CUDA *)\n', "m.cat")
    assert "unknown feature 'CUDA'" in info.value.render()
    assert info.value.render().startswith("m.cat:3:3:")


def test_loaded_models_carry_accepts(specs: Path) -> None:
    assert load_model("sc").accepts == {"X86", "PTX"}
    assert load_model("onlygin").accepts == {"PTX", "GIN"}


def test_features() -> None:
    assert features_of(load_litmus(SB)) == {"X86"}
    assert features_of(load_litmus(MP_PTX)) == {"PTX"}
    assert features_of(parse_litmus(GIN_TEST)) == {"GIN", "PTX"}
    assert features_of(parse_litmus(SHMEM_TEST)) == {"SHMEM"}  # register ops are neutral


def test_accepting_models(specs: Path) -> None:
    assert accepting_models(load_litmus(SB)) == ["sc", "x86tso"]
    # a model that accepts PTX and GIN also describes a test of PTX instructions only
    assert accepting_models(load_litmus(MP_PTX)) == ["onlygin", "onlyptx", "sc"]
    assert accepting_models(parse_litmus(GIN_TEST)) == ["onlygin"]
    assert accepting_models(parse_litmus(SHMEM_TEST)) == []


def test_project_models_accept_the_classic_tests() -> None:
    _load.cache_clear()
    names = accepting_models(load_litmus(SB))
    assert {"sc", "x86tso", "ptx"} <= set(names)


def test_check_test_refuses_what_the_model_does_not_describe(specs: Path) -> None:
    with pytest.raises(UnsupportedError, match="model 'onlyptx' does not describe X86 "
                       r"instructions \(it accepts PTX\)"):
        check_test(load_litmus(SB), "onlyptx")
    with pytest.raises(UnsupportedError, match="model 'sc' does not describe GIN calls "
                       r"\(it accepts X86, PTX\)"):
        check_test(parse_litmus(GIN_TEST), "sc")


# --------------------------------------------------------------------------
# check --model all
# --------------------------------------------------------------------------


def _rows(out: str) -> dict[str, list[str]]:
    """model -> cells of the rows of rich tables in ``out``."""
    rows: dict[str, list[str]] = {}
    for line in out.splitlines():
        cells = [c.strip() for c in line.strip("│ ").split("│")]
        if len(cells) == 6 and cells[0] not in ("model", ""):
            rows[cells[0]] = cells
    return rows


def test_all_on_sb(specs: Path) -> None:
    code, out, err = run("check", SB, "--model", "all")
    assert code == 0, out + err
    assert "SB (" in out
    rows = _rows(out)
    assert set(rows) == {"sc", "x86tso"}
    assert rows["sc"][1:4] == ["Forbidden", "Forbidden", "✓"]
    assert rows["sc"][5] == "sc"
    assert rows["x86tso"][1:4] == ["Allowed", "Allowed", "✓"]
    assert float(rows["x86tso"][4]) >= 0
    assert "\x1b[" not in out  # no colour when not a tty


def _mp_sc_only(tmp_path: Path) -> str:
    """MP_PTX with the Expect= entries of the models in the fixture's directory only (an
    entry naming a model not on the search path is an error)."""
    f = tmp_path / "MP-sc.litmus"
    f.write_text(Path(MP_PTX).read_text().replace("Expect=ptx:Forbidden,sc:Forbidden",
                                                  "Expect=sc:Forbidden"))
    return str(f)


def test_expect_naming_a_model_not_on_the_path_is_exit_2(specs: Path) -> None:
    code, _, err = run("check", MP_PTX, "--model", "all")
    assert code == 2
    assert "MP+rel+acq-gpu.litmus:3:8: unknown model 'ptx' in Expect=" in err


def test_all_on_a_ptx_test(specs: Path, tmp_path: Path) -> None:
    code, out, _ = run("check", _mp_sc_only(tmp_path), "--model", "all")
    assert code == 0
    rows = _rows(out)
    assert set(rows) == {"onlygin", "onlyptx", "sc"}
    assert rows["sc"][1:4] == ["Forbidden", "Forbidden", "✓"]
    assert rows["onlyptx"][2:4] == ["-", "-"]  # no Expect= entry for it


def test_all_with_a_variant_applies_it_where_it_exists(specs: Path, tmp_path: Path) -> None:
    mp = _mp_sc_only(tmp_path)
    code, out, _ = run("check", mp, "--model", "all+strict")
    assert code == 0
    assert set(_rows(out)) == {"onlygin", "onlyptx+strict", "sc"}
    code, out2, _ = run("check", mp, "--model", "all", "--variant", "strict")
    assert code == 0 and set(_rows(out2)) == set(_rows(out))


def test_all_with_a_variant_no_model_has_is_exit_2(specs: Path) -> None:
    code, _, err = run("check", SB, "--model", "all+nosuch")
    assert code == 2
    assert "no model has variant nosuch" in err


def test_all_mismatch_is_exit_1(specs: Path, tmp_path: Path) -> None:
    f = tmp_path / "SB-wrong.litmus"
    f.write_text(Path(SB).read_text().replace("sc:Forbidden", "sc:Allowed"))
    code, out, err = run("check", str(f), "--model", "all")
    assert code == 1
    assert _rows(out)["sc"][1:4] == ["Forbidden", "Allowed", "✗"]
    assert "1 expectation(s) not met" in err


def test_no_accepting_model_is_exit_2(specs: Path, tmp_path: Path) -> None:
    f = tmp_path / "shmem.litmus"
    f.write_text(SHMEM_TEST)
    code, _, err = run("check", str(f), "--model", "all")
    assert code == 2
    assert "no model accepts test 'MP+shmem' (it uses SHMEM)" in err


@pytest.mark.parametrize("model", ["nosuchmodel", "all,sc", "all+", "sc,,x86tso+"])
def test_bad_model_name_is_exit_2(model: str) -> None:
    code, out, err = run("check", SB, "--model", model)
    assert code == 2
    assert "Traceback" not in out + err
    assert err.strip()


def test_all_json_is_a_list_of_check_records(specs: Path) -> None:
    jsonschema = pytest.importorskip("jsonschema")
    schema: dict[str, Any] = json.loads((ROOT / "docs" / "json-schema.json").read_text())
    code, out, _ = run("check", SB, "--model", "all", "--format", "json")
    assert code == 0
    recs = json.loads(out)
    jsonschema.Draft202012Validator(schema).validate(recs)
    assert isinstance(recs, list)
    assert [(r["model"], r["verdict"], r["expect"]) for r in recs] == [
        ("sc", "Forbidden", {"verdict": "Forbidden", "met": True}),
        ("x86tso", "Allowed", {"verdict": "Allowed", "met": True}),
    ]


def test_table_format_for_named_models(specs: Path) -> None:
    code, out, _ = run("check", SB, "--model", "sc,x86tso", "--format", "table")
    assert code == 0
    assert set(_rows(out)) == {"sc", "x86tso"}


def test_all_reports_a_failing_model_in_its_row_and_goes_on(specs: Path) -> None:
    (specs / "broken.cat").write_text('"broken"\nacyclic po | nosuchrel as oops\n')
    code, out, err = run("check", SB, "--model", "all")
    assert code == 2
    rows = _rows(out)
    assert rows["broken"][1] == "Error"
    assert rows["sc"][1:4] == ["Forbidden", "Forbidden", "✓"]
    assert "unbound name 'nosuchrel'" in err


# --------------------------------------------------------------------------
# gdrcheck verdicts
# --------------------------------------------------------------------------


def test_verdicts_page(tmp_path: Path) -> None:
    lib = tmp_path / "lib"
    (lib / "fam").mkdir(parents=True)
    shutil.copy(SB, lib / "fam" / "SB.litmus")
    text = Path(SB).read_text().replace("sc:Forbidden", "sc:Allowed").replace("X86 SB", "X86 SBw")
    (lib / "fam" / "SBw.litmus").write_text(text)
    out = tmp_path / "docs" / "verdicts.md"
    out.parent.mkdir()
    r = CliRunner().invoke(main, ["verdicts", str(lib), "-o", str(out)])
    assert r.exit_code == 1  # one expectation is not met
    page = out.read_text()
    assert "**4 expectations, 3 met**, 1 not met; 2 tests in 1 family." in page
    assert "## fam" in page
    assert "| test | x86tso | sc |" in page
    assert "| [SB](../lib/fam/SB.litmus) | Allowed ✓ | Forbidden ✓ |" in page
    assert "| [SBw](../lib/fam/SBw.litmus) | Allowed ✓ | Forbidden ✗ (expected Allowed) |" in page
    # deterministic: a second run writes the same page
    CliRunner().invoke(main, ["verdicts", str(lib), "-o", str(out)])
    assert out.read_text() == page
