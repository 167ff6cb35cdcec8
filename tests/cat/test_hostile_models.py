"""Hostile cat models (issue 25 item 6): a bad file in an -I directory, expressions of
any length, nesting past the limit, files too large, a deadline while parsing."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from gdrcheck.analysis.check import check_test
from gdrcheck.analysis.models import _load
from gdrcheck.cat import ast
from gdrcheck.cat.loader import load_model
from gdrcheck.cat.parser import CHAIN_FOLD, parse_cat
from gdrcheck.errors import CatError, Pos
from gdrcheck.limits import MAX_EXPR_DEPTH, MAX_MODEL_BYTES
from gdrcheck.litmus import load_litmus

ROOT = Path(__file__).parents[2]
CORR = str(ROOT / "litmus" / "classic" / "CoRR.litmus")
# herd7 x86tso.cat "uniproc" (acyclic po-loc | com) forbids CoRR: Alglave et al. TOPLAS
# 2014 (Herding cats) §4, coRR; without it (only po | rf acyclic, which CoRR's cycle
# does not close) the outcome is allowed.
UNIPROC = "po-loc | rf | co | fr"


def gdrcheck(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "gdrcheck", *args], capture_output=True,
                          text=True, cwd=ROOT, timeout=120,
                          env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})


@pytest.fixture
def bad_dir(tmp_path: Path) -> Path:
    d = tmp_path / "models"
    d.mkdir()
    (d / "bad.cat").write_bytes(b'"bad"\n(* caf\xe9 *)\nacyclic po\n')
    (d / "good.cat").write_text(f'"good"\nacyclic {UNIPROC}\n')
    return d


def test_a_non_utf8_model_is_an_error_at_its_byte(bad_dir: Path) -> None:
    with pytest.raises(CatError) as info:
        load_model("bad", [str(bad_dir)])
    assert info.value.pos == Pos(2, 7)
    assert "not UTF-8 text: byte 0xe9" in info.value.message
    assert "Traceback" not in info.value.render()


def test_models_lists_the_good_ones_and_reports_the_bad(bad_dir: Path) -> None:
    r = gdrcheck("models", "-I", str(bad_dir))
    assert r.returncode == 2, r.stderr
    assert "Traceback" not in r.stderr
    assert f"{bad_dir / 'bad.cat'}:2:7: the model file is not UTF-8 text" in r.stderr
    assert "good" in r.stdout and "x86tso" in r.stdout


def test_check_uses_the_good_model_beside_a_bad_one(bad_dir: Path) -> None:
    r = gdrcheck("check", "-I", str(bad_dir), "-m", "good", CORR)
    assert r.returncode == 0, r.stderr
    assert "Verdict CoRR good Forbidden" in r.stdout
    r = gdrcheck("check", "-I", str(bad_dir), "-m", "all", CORR)
    assert r.returncode == 2  # the bad file is reported; every other model answers
    assert "Traceback" not in r.stderr and "bad.cat:2:7:" in r.stderr
    assert "good" in r.stdout and "x86tso" in r.stdout


def test_the_web_app_starts_beside_a_bad_model(bad_dir: Path) -> None:
    pytest.importorskip("starlette")
    from starlette.testclient import TestClient

    from gdrcheck.web.app import create_app

    with TestClient(create_app([str(bad_dir)])) as client:
        r = client.get("/api/models")
    assert r.status_code == 200
    assert "good" in {m["name"] for m in r.json()["models"]}


@pytest.mark.parametrize("op", ["|", ";", "&", "++"])
def test_a_long_chain_is_folded_balanced(op: str) -> None:
    n = 5_000
    model = parse_cat(f'"long"\nlet r = {f" {op} ".join(["po"] * n)}\n')
    expr = model.stmts[0].bindings[0].expr  # type: ignore[union-attr]
    depth, count, stack = 0, 0, [(expr, 1)]
    while stack:
        e, d = stack.pop()
        depth = max(depth, d)
        if isinstance(e, ast.Binary):
            assert e.op == op
            stack += [(e.left, d + 1), (e.right, d + 1)]
        else:
            count += 1
    assert count == n and depth <= 14  # log2(5000) + 1


def test_a_short_chain_keeps_the_parser_shape() -> None:
    text = " | ".join(f"r{i}" for i in range(CHAIN_FOLD))
    expr = parse_cat(f"let x = {text}\n").stmts[0].bindings[0].expr  # type: ignore[union-attr]
    assert isinstance(expr, ast.Binary) and expr.left == ast.Var("r0")  # right-associative


def test_a_long_chain_means_what_the_short_one_means(tmp_path: Path) -> None:
    # 600 operands (491 gave a RecursionError): the union is uniproc's, so CoRR stays
    # Forbidden; a long difference chain (a \ b \ c ...) is a \ (b | c | ...)
    long = tmp_path / "long.cat"
    long.write_text('"long"\nacyclic ' + " | ".join([UNIPROC] * 150) + "\n")
    diff = tmp_path / "diff.cat"
    diff.write_text('"diff"\nacyclic (' + UNIPROC + ") " + " \\ rf" * 600 + "\n")
    test = load_litmus(CORR)
    assert str(check_test(test, str(long)).verdict) == "Forbidden"
    assert str(check_test(test, str(diff)).verdict) == "Allowed"  # rf taken away: no cycle


@pytest.mark.parametrize("expr", ["~" * 300 + "po", "po" + "^-1" * 300,
                                  "f(" * 300 + "po" + ")" * 300, "(po \\ " * 300 + "po" +
                                  ")" * 300],
                         ids=["complement", "inverse", "application", "difference"])
def test_too_deep_an_expression_is_an_error(expr: str, tmp_path: Path) -> None:
    path = tmp_path / "deep.cat"
    path.write_text(f'"deep"\nlet f(x) = x\nlet r = {expr}\nacyclic r\n')
    r = gdrcheck("check", "-m", str(path), CORR)
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert f"{path}:3:" in r.stderr
    assert f"nested too deeply (more than {MAX_EXPR_DEPTH} levels" in r.stderr


def test_as_deep_as_allowed_still_checks(tmp_path: Path) -> None:
    path = tmp_path / "deep.cat"
    path.write_text('"deep"\nlet r = ' + "~" * (MAX_EXPR_DEPTH - 6) + "(" + UNIPROC +
                    ")\nacyclic r\n")
    # an even number of complements is the relation itself
    assert str(check_test(load_litmus(CORR), str(path)).verdict) == "Forbidden"


def test_deep_if_blocks_and_conditions_are_errors() -> None:
    n = MAX_EXPR_DEPTH + 1
    with pytest.raises(CatError, match="'if' blocks nested too deeply"):
        parse_cat('variant "v"\n' + "if v then " * n + "acyclic po " + "end " * n)
    with pytest.raises(CatError, match="variant condition nested too deeply"):
        parse_cat('variant "v"\nif ' + "not " * n + "v then acyclic po end\n")


def test_a_model_file_over_the_limit_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "big.cat"
    path.write_text('"big"\n' + "(* padding *)\n" * (MAX_MODEL_BYTES // 14 + 1))
    with pytest.raises(CatError, match="larger than 1 MiB, the limit of a model file"):
        load_model(str(path))
    _load.cache_clear()


def test_the_parse_stops_at_the_deadline() -> None:
    calls = 0

    class Expired(Exception):
        pass

    def tick() -> None:
        nonlocal calls
        calls += 1
        if calls > 3:
            raise Expired

    text = '"big"\n' + "".join(f"let r{i} = po | rf\n" for i in range(2000))
    with pytest.raises(Expired):
        parse_cat(text, "big.cat", tick)
    assert calls == 4
    parse_cat(text[:2000], "small.cat", lambda: None)  # a tick that never fires: parsed
