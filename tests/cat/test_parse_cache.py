"""The parses of .cat files kept on disk (gdrcheck/cat/loader.py, parse_cached): read back
only for the same text, path and parser; damaged, unwritable and off caches parse again."""

from __future__ import annotations

from pathlib import Path

import pytest

from gdrcheck.cat import loader
from gdrcheck.cat.loader import SPECS_DIR, parse_cached
from gdrcheck.cat.parser import parse_cat
from gdrcheck.errors import CatError


@pytest.mark.parametrize("path", sorted(SPECS_DIR.rglob("*.cat")), ids=lambda p: p.name)
def test_a_kept_parse_is_the_parse(path: Path, tmp_path: Path,
                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GDRCHECK_CACHE_DIR", str(tmp_path))
    text = path.read_text()
    fresh = parse_cat(text, str(path))
    first = parse_cached(text, str(path))  # parsed and written
    assert list(tmp_path.glob("cat-model-*.pickle"))
    kept = parse_cached(text, str(path))  # read back
    assert kept == fresh == first and repr(kept) == repr(fresh)


def test_what_is_read_back(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GDRCHECK_CACHE_DIR", str(tmp_path))
    calls: list[str] = []
    real = loader._parse

    def counting(text: str, path: str, tick: object) -> object:
        calls.append(text)
        return real(text, path, tick)  # type: ignore[arg-type]

    monkeypatch.setattr(loader, "_parse", counting)
    a = 'M\nlet r = po\nacyclic r as a\n'
    parse_cached(a, "m.cat")
    parse_cached(a, "m.cat")
    assert len(calls) == 1
    b = a.replace("po", "rf")  # another text at the same path: parsed, never the old one
    assert parse_cached(b, "m.cat") == parse_cat(b, "m.cat") and len(calls) == 2
    assert parse_cached(a, "n.cat").path == "n.cat" and len(calls) == 3  # another path
    (file,) = [f for f in tmp_path.glob("cat-model-*.pickle")
               if parse_cached(b, "m.cat") and f.read_bytes().find(b"rf") >= 0]
    file.write_bytes(b"damaged")
    assert parse_cached(b, "m.cat") == parse_cat(b, "m.cat") and len(calls) == 4
    with pytest.raises(CatError):  # an error is reported every time, never kept
        parse_cached("M\nlet = \n", "bad.cat")
    with pytest.raises(CatError):
        parse_cached("M\nlet = \n", "bad.cat")


@pytest.mark.parametrize("where", ["off", "file"])
def test_no_cache(where: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    blocked = tmp_path / "f"
    blocked.write_text("")  # a "directory" that is a file: nothing can be kept
    monkeypatch.setenv("GDRCHECK_CACHE_DIR", "off" if where == "off" else str(blocked))
    text = 'M\nlet r = po\n'
    assert parse_cached(text, "m.cat") == parse_cat(text, "m.cat")
