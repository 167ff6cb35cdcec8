"""The examples of docs/litmus-format.md and docs/tutorial.md are real: every
```` ```litmus ```` block parses, and every verdict the page states is checked.

A page states a verdict with a comment right after the block:

    <!-- expect: MODEL:VERDICT [MODEL:VERDICT ...] source=lib:FOLDER/FILE.litmus -->

The verdict must come from a cited source, never from gdrcheck's own output. The
``source`` is one of

- ``lib:FOLDER/FILE.litmus``: a file of the litmus library whose ``Expect=`` line has the
  same entry and whose ``Source=`` line cites where it comes from; the block must be that
  file's test (the same init block, threads and condition, printed canonically; the
  name, doc strings and metadata may be shortened);
- ``rules:R-GIN-3,R-GIN-10``: rule ids of docs/sources.md (each a row of its table, with
  its primary source and quote), from which the page derives the verdict in its text;
- ``format:N``: section N of docs/litmus-format.md, whose definitions alone decide it.

The verdict is then checked by running the model on the block's text, as a reader would.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from pathlib import Path

import pytest

import gdrcheck
from gdrcheck.litmus import ast as A
from gdrcheck.litmus import load_litmus, parse_litmus, print_litmus

ROOT = Path(__file__).resolve().parents[1]
PAGES = ("docs/litmus-format.md", "docs/tutorial.md")

_BLOCK_RE = re.compile(r"^```litmus[ \t]*\n(.*?)^```[ \t]*\n(?:<!-- expect: (.*?) -->)?",
                       re.S | re.M)


@dataclass(frozen=True)
class Example:
    page: str
    line: int
    text: str
    expect: str | None

    @property
    def id(self) -> str:
        return f"{self.page}:{self.line}"


def examples() -> list[Example]:
    out: list[Example] = []
    for page in PAGES:
        text = (ROOT / page).read_text(encoding="utf-8")
        for m in _BLOCK_RE.finditer(text):
            line = text.count("\n", 0, m.start()) + 2
            out.append(Example(page, line, m.group(1), m.group(2)))
    return out


EXAMPLES = examples()
CLAIMS = [e for e in EXAMPLES if e.expect is not None]


def _body(test: A.Test) -> str:
    """The test without its name, doc strings and metadata, printed canonically."""
    return print_litmus(replace(test, name="T", doc=None, docs=(), meta=()))


def _claim(e: Example) -> tuple[list[tuple[str, str]], str]:
    words = e.expect.split() if e.expect else []
    sources = [w.removeprefix("source=") for w in words if w.startswith("source=")]
    entries = [tuple(w.rsplit(":", 1)) for w in words if not w.startswith("source=")]
    assert len(sources) == 1, f"{e.id}: an expect comment names one source="
    assert entries, f"{e.id}: an expect comment names at least one MODEL:VERDICT"
    return [(m, v) for m, v in entries], sources[0]


def test_the_pages_have_examples() -> None:
    for page in PAGES:
        found = [e for e in EXAMPLES if e.page == page]
        assert len(found) >= 3, page
    assert len(CLAIMS) >= 10


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda e: e.id)
def test_example_parses(example: Example) -> None:
    parse_litmus(example.text, example.id)


@pytest.mark.parametrize("example", CLAIMS, ids=lambda e: e.id)
def test_stated_verdict_is_cited_and_holds(example: Example) -> None:
    entries, source = _claim(example)
    if source.startswith("lib:"):
        _check_library_source(example, entries, source)
    elif source.startswith("rules:"):
        table = (ROOT / "docs" / "sources.md").read_text(encoding="utf-8")
        for rule in source.removeprefix("rules:").split(","):
            assert f"\n| {rule} |" in table, f"{example.id}: {rule} is not in docs/sources.md"
    elif source.startswith("format:"):
        page = (ROOT / "docs" / "litmus-format.md").read_text(encoding="utf-8")
        section = source.removeprefix("format:")
        assert f"\n## {section}. " in page, f"{example.id}: no section {section}"
    else:
        pytest.fail(f"{example.id}: unknown source {source!r} (lib:, rules: or format:)")
    for model, verdict in entries:
        outcome = gdrcheck.check(example.text, model)
        assert outcome.verdict == verdict, f"{example.id} under {model}: {outcome.verdict}"
        assert not outcome.vacuous, f"{example.id} under {model}: vacuous (nothing completes)"


def _check_library_source(example: Example, entries: list[tuple[str, str]],
                          source: str) -> None:
    lib = load_litmus(source)
    assert lib.sources, f"{source} has no Source= line"
    test = parse_litmus(example.text, example.id)
    assert _body(test) == _body(lib), f"{example.id} is not the test of {source}"
    expected = {("+".join((e.model, *e.variants)), e.verdict) for e in lib.expectations}
    for model, verdict in entries:
        assert (model, verdict) in expected, f"{source} has no Expect= entry {model}:{verdict}"


# ---- no project file points outside the repository

_OUTSIDE_RE = re.compile(r"\.\./shared|/work/shared|shared/(?:design|peers|research)|"
                         r"gin-semantics|mm-anchors")
_TEXT = {".md", ".py", ".litmus", ".cat", ".toml", ".sh", ".txt", ".lark", ".cfg", ".json"}
_SKIP_DIRS = {".git", "build", "dist", "__pycache__", ".hypothesis", ".mypy_cache",
              ".pytest_cache", ".ruff_cache", "node_modules"}
_ALLOWED = {
    # the one documented line that sets GDRCHECK_PEERS when the suites lie beside the
    # checkout (docs/peer-differences.md)
    ".ci/run",
}


def _project_files() -> list[Path]:
    out: list[Path] = []
    for path in ROOT.rglob("*"):
        rel = path.relative_to(ROOT)
        if any(part in _SKIP_DIRS or part.endswith(".egg-info") for part in rel.parts):
            continue
        if rel.parts[:2] == ("docs", "data") or rel.parts[:1] == ("gdrcheck",) and (
                path.is_symlink() or any(p.is_symlink() for p in path.parents)):
            continue  # recorded data; the package's links to specs/, litmus/, docs/
        if path.is_file() and (path.suffix in _TEXT or rel.parts[:1] == (".ci",)):
            out.append(path)
    return out


def test_no_project_file_refers_to_a_path_outside_the_repository() -> None:
    files = _project_files()
    assert len(files) > 300
    bad = []
    for path in files:
        rel = path.relative_to(ROOT).as_posix()
        if rel in _ALLOWED or rel == "tests/test_docs.py":
            continue
        for n, line in enumerate(path.read_text(encoding="utf-8", errors="replace")
                                 .splitlines(), 1):
            if _OUTSIDE_RE.search(line):
                bad.append(f"{rel}:{n}: {line.strip()[:100]}")
    assert not bad, "\n".join(bad)
