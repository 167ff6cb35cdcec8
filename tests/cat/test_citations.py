"""Every check and every variant of specs/*.cat names its source next to it (issue 28 item 6).

A check (``acyclic``, ``irreflexive``, ``empty``, flagged or not) or a ``variant`` line is
cited when a primary-source citation stands in its own text (a variant's description), in
the comment directly above it, or, inside an ``if`` block of several checks, in the
comment at the head of that block. A citation is what docs/sources.md accepts: a
``repo@commit`` path, a git tag or commit of a named repository, a pull request or issue
number, a document section (``§``) or URL, a paper's figure, herd7's library file.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

SPECS = Path(__file__).resolve().parents[2] / "specs"

CITATION = re.compile(
    r"[\w.-]+/[\w.-]+@[0-9a-f]{6,}"  # repo@commit
    r"|\btag v\d"  # a release tag
    r"|\bcommits? [0-9a-f]{7,}"  # a commit of a named repository
    r"|\b[0-9a-f]{7,8}\b.*\bPR #\d+|PR #\d+"  # a pull request
    r"|issue #\d+|#\d+\)"
    r"|§\s*\d"  # a document section
    r"|https?://|docs\.nvidia\.com|lore\.kernel\.org"
    r"|ASPLOS'19|Fig\. \d"
    r"|herdtools7|Herding cats"
)
CHECK = re.compile(r"^(flag\s+)?~?(acyclic|irreflexive|empty)\b")
STATEMENT = re.compile(r"^(let|include|variant|if|else|end|flag|acyclic|irreflexive|empty)\b")


def _items(path: Path) -> list[tuple[int, str, str]]:
    """(line, statement, the text that may cite it) for every check and variant."""
    lines = path.read_text(encoding="utf-8").split("\n")
    items: list[tuple[int, str, str]] = []
    depth = 0  # comment nesting at the start of the line
    block_head = ""  # the comment at the head of the innermost if-block
    for number, raw in enumerate(lines, 1):
        text = raw.strip()
        was_in_comment = depth > 0
        depth = max(0, depth + text.count("(*") - text.count("*)"))
        if was_in_comment or text.startswith("(*"):
            continue
        if text.startswith("if "):
            block_head = _comment_after(lines, number)
        elif text == "end":
            block_head = ""
        if not (CHECK.match(text) or text.startswith("variant ")):
            continue
        items.append((number, text, text + " " + _comment_above(lines, number) + " " + block_head))
    return items


def _comment_above(lines: list[str], number: int) -> str:
    """The comment that ends on the line just above line ``number`` (1-based)."""
    k = number - 2
    if k < 0 or not lines[k].strip().endswith("*)"):
        return ""
    block: list[str] = []
    while k >= 0:
        block.insert(0, lines[k])
        if "(*" in lines[k]:
            break
        k -= 1
    return " ".join(block)


def _comment_after(lines: list[str], number: int) -> str:
    """The comment that starts on the line just below line ``number`` (an if-block's head)."""
    block: list[str] = []
    for raw in lines[number:]:
        if not block and not raw.strip().startswith("(*"):
            return ""
        block.append(raw)
        if "*)" in raw:
            break
    return " ".join(block)


FILES = sorted(SPECS.glob("*.cat"))


@pytest.mark.parametrize("path", FILES, ids=[p.name for p in FILES])
def test_every_check_and_variant_is_cited(path: Path) -> None:
    uncited = [
        f"{path.name}:{n}: {text}"
        for n, text, context in _items(path)
        if not CITATION.search(context)
    ]
    assert not uncited, "checks or variants without a source next to them:\n" + "\n".join(uncited)


def test_the_scan_sees_the_checks() -> None:
    """The scan finds the models' checks (a scan that found none would pass vacuously)."""
    axioms = [text for path in FILES for _, text, _ in _items(path) if CHECK.match(text)]
    variants = [text for path in FILES for _, text, _ in _items(path) if text.startswith("variant")]
    assert any(text.endswith("as Causality") for text in axioms)
    assert any(text.endswith("as tso") for text in axioms)
    assert len(axioms) >= 30 and len(variants) >= 50
