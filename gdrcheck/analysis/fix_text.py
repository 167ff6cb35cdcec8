"""The repair as an edit of the user's own text (``gdrcheck fix``).

A repair is a set of catalogue edits (:mod:`gdrcheck.analysis.strengthen`) of the parsed
test; this module makes each of them a textual edit of the file the test was parsed
from, at the places the parser recorded (:class:`gdrcheck.litmus.ast.Layout`), so that
everything the edit does not touch — the header, doc strings, ``Expect=``/``Source=``
lines, comments, blank lines, the condition as the user spelled it, the column layout —
stays byte for byte as it was:

- an instruction replaced: its cell's text, in its own column, padded to the cell's
  width (the separator stays where it was);
- an instruction inserted: into a blank cell of its thread's column between the
  instructions it goes between, else as a new row laid out as the rows around it
  (their indentation, each column's width, ``|`` and ``;`` in the same columns);
- an instruction removed (the second of two bundled into one): its cell blanked, the
  row deleted when nothing is left in it;
- an init item replaced in place; a declared counter added after the last item (on a
  line of its own, indented like it, when the block has one item per line).

When a new text is wider than its column and the column is aligned in every row, the
column is widened in every row, so the table stays aligned. The edited text is parsed
again and compared with the edited test (:func:`apply_edits`): :func:`edit_source`
returns None when they differ or the test has no layout, and the caller falls back to
the round-trip printer.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass, field

from gdrcheck.analysis.strengthen import Edit, apply_edits
from gdrcheck.errors import InputError
from gdrcheck.litmus import ast as A
from gdrcheck.litmus.parser import parse_litmus
from gdrcheck.litmus.printer import init_item, instr, print_litmus


@dataclass
class _Cell:
    start: int
    end: int
    text: str | None = None
    """The new body (None: unchanged; "": blanked)."""


@dataclass
class _Row:
    """A new row: the instruction ``text`` in column ``column``, laid out as row
    ``template``; placed before table row ``before`` (None: after the last row)."""

    column: int
    text: str
    template: int
    before: int | None
    order: int


@dataclass
class _Plan:
    cells: dict[tuple[int, int], _Cell] = field(default_factory=dict)
    rows: list[_Row] = field(default_factory=list)


def _line_start(src: str, offset: int) -> int:
    return src.rfind("\n", 0, offset) + 1


def _split(raw: str) -> tuple[str, str, str]:
    body = raw.strip()
    if not body:  # a blank cell: all of it padding
        return "", "", raw
    lead = raw[: len(raw) - len(raw.lstrip())]
    return lead, body, raw[len(lead) + len(body):]


def edit_source(test: A.Test, edits: Sequence[Edit]) -> str | None:
    """``test``'s source text with ``edits`` made in it, or None (no layout, or the
    edited text does not parse to the edited test)."""
    src, lay = test.source, test.layout
    if src is None or lay is None:
        return None
    try:
        text = _edit(test, src, lay, edits)
    except (_Cannot, IndexError):  # IndexError: a layout that is not this test's
        return None
    try:
        again = parse_litmus(text, test.path)
    except InputError:
        return None
    want = apply_edits(test, list(edits))
    if again.init != want.init or again.threads != want.threads:
        return None
    return text


class _Cannot(Exception):
    """An edit this module cannot make in the text (the caller re-prints)."""


def _edit(test: A.Test, src: str, lay: A.Layout, edits: Sequence[Edit]) -> str:
    nl = "\r\n" if "\r\n" in src else "\n"
    plan = _Plan()
    splices: list[tuple[int, int, str]] = []
    adds: list[str] = []
    for e in edits:
        adds.extend(init_item(x) for x in e.init_add)  # type: ignore[arg-type]
        if e.action == "init":
            a, b = lay.items[e.index]
            splices.append((a, b, init_item(e.instr)))  # type: ignore[arg-type]
    if adds:
        splices.append(_init_adds(src, lay, adds, nl))
    order = 0
    per_thread: dict[int, list[Edit]] = {}
    for e in edits:
        if e.action != "init":
            per_thread.setdefault(e.thread, []).append(e)
    for t, es in sorted(per_thread.items()):
        places = lay.places[t]
        n = len(test.threads[t].instrs)
        gaps: dict[int, list[str]] = {}
        for e in es:
            if e.action == "insert":
                gaps.setdefault(e.index, []).append(instr(e.instr))  # type: ignore[arg-type]
        for e in es:
            if e.action != "replace":
                continue
            new = e.instr if isinstance(e.instr, tuple) else (e.instr,)
            row = places[e.index]
            first = instr(new[0]) if new else ""  # type: ignore[arg-type]
            plan.cells[(row, t)] = _Cell(*lay.rows[row][t], text=first)
            for k in range(1, e.span):
                gone = places[e.index + k]
                plan.cells[(gone, t)] = _Cell(*lay.rows[gone][t], text="")
            if len(new) > 1:  # after the replaced one, before what came after it
                rest = [instr(x) for x in new[1:]]  # type: ignore[arg-type]
                gaps[e.index + e.span] = rest + gaps.get(e.index + e.span, [])
        for g, texts in sorted(gaps.items()):
            prev = places[g - 1] if g > 0 else 0
            nxt = places[g] if g < n else None
            blanks = [r for r in range(prev + 1, len(lay.rows) if nxt is None else nxt)
                      if t < len(lay.rows[r]) and (r, t) not in plan.cells
                      and not src[slice(*lay.rows[r][t])].strip()]
            for r, text in zip(blanks, texts, strict=False):
                plan.cells[(r, t)] = _Cell(*lay.rows[r][t], text=text)
            for text in texts[len(blanks):]:
                template = nxt if nxt is not None else (places[g - 1] if g > 0 else 0)
                plan.rows.append(_Row(t, text, template, nxt, order))
                order += 1
    splices.extend(_table(src, lay, plan, nl))
    out = src
    # from the end, so that offsets stay valid; at one offset, the later splice first, so
    # that the text keeps the splices' order
    for _, (a, b, s) in sorted(enumerate(splices), key=lambda x: (x[1][0], x[1][1], x[0]),
                               reverse=True):
        out = out[:a] + s + out[b:]
    return out


def _init_adds(src: str, lay: A.Layout, adds: list[str], nl: str) -> tuple[int, int, str]:
    """Where and what to insert for the init items ``adds`` (declared counters)."""
    open_, close = lay.init
    if not lay.items:
        return (open_ + 1, open_ + 1, "".join(f" {a};" for a in adds))
    _, end = lay.items[-1]
    rest = src[end:close]
    semi = end + (len(rest) - len(rest.lstrip()) if rest.lstrip().startswith(";") else -1)
    own_line = "\n" in src[end:close]
    if own_line:
        ls = _line_start(src, lay.items[-1][0])
        indent = src[ls: lay.items[-1][0]]
        if indent.strip():
            indent = " " * len(indent)
        eol = src.find("\n", end)
        text = "".join(f"{nl}{indent}{a};" for a in adds)
        at = eol - (1 if nl == "\r\n" else 0)
        if semi < 0:
            return (end, end, ";" + text)
        return (at, at, text)
    if semi < 0:
        return (end, end, "".join(f"; {a}" for a in adds))
    return (semi + 1, semi + 1, "".join(f" {a};" for a in adds))


def _col(src: str, offset: int) -> int:
    return offset - _line_start(src, offset)


def _table(src: str, lay: A.Layout, plan: _Plan, nl: str) -> list[tuple[int, int, str]]:
    """The splices of the thread table: changed cells, widened columns, new rows,
    deleted rows."""
    ncols = len(lay.rows[0])
    # the width each column needs: an aligned column (its separator in one place in
    # every row) is widened in every row to fit the widest new text
    aligned = [len({_col(src, row[c][1]) for row in lay.rows if c < len(row)}) == 1
               and all(c < len(row) for row in lay.rows) for c in range(ncols)]
    grow = [0] * ncols

    def need(c: int, width: int, lead: str, text: str, trail: str) -> int:
        return len(lead) + len(text) + (1 if trail or c < ncols - 1 else 0) - width

    def column_lead(c: int) -> str:
        """The blanks before the text of column ``c``'s first non-blank cell."""
        for row in lay.rows:
            if c < len(row) and src[row[c][0]:row[c][1]].strip():
                return _split(src[row[c][0]:row[c][1]])[0]
        return " " if c else ""

    for (_r, c), edited in plan.cells.items():
        if edited.text:
            lead, _, trail = _split(src[edited.start:edited.end])
            lead = lead or column_lead(c)
            grow[c] = max(grow[c], need(c, edited.end - edited.start, lead, edited.text, trail))
    for nr in plan.rows:
        a, b = lay.rows[nr.template][nr.column]
        lead, _, trail = _split(src[a:b])
        lead = lead or column_lead(nr.column)
        grow[nr.column] = max(grow[nr.column], need(nr.column, b - a, lead, nr.text, trail))
    splices: list[tuple[int, int, str]] = []
    deleted: set[int] = set()
    for r, row in enumerate(lay.rows):
        if r and _all_blank(src, lay, plan, r):
            deleted.add(r)
            ls, eol = _line_start(src, row[0][0]), src.find("\n", row[-1][1])
            if src[ls:row[0][0]].strip() or src[row[-1][1] + 1: eol if eol >= 0 else None].strip():
                raise _Cannot("a row to delete shares its line")
            splices.append((ls, eol + 1 if eol >= 0 else len(src), ""))
            continue
        for c, (a, b) in enumerate(row):
            cell = plan.cells.get((r, c))
            wider = grow[c] if aligned[c] and grow[c] > 0 else 0
            if cell is None or cell.text is None:
                if wider:
                    splices.append((b, b, " " * wider))
                continue
            raw = src[a:b]
            lead, _, trail = _split(raw)
            if cell.text == "":
                splices.append((a, b, " " * (len(raw) + wider)))
                continue
            lead = lead or column_lead(c)
            width = len(raw) + wider
            body = lead + cell.text
            tail = max(width - len(body), 1 if trail or c < ncols - 1 else 0)
            splices.append((a, b, body + " " * tail))
    for nr in sorted(plan.rows, key=lambda x: (x.before is None, x.before or 0, x.order)):
        tmpl = lay.rows[nr.template]
        cells = []
        for c, (a, b) in enumerate(tmpl):
            width = b - a + (grow[c] if aligned[c] and grow[c] > 0 else 0)
            if c != nr.column:
                cells.append(" " * width)
                continue
            lead, _, trail = _split(src[a:b])
            lead = lead or column_lead(c)
            body = lead + nr.text
            cells.append(body + " " * max(width - len(body), 1 if trail or c < ncols - 1
                                          else 0))
        if nr.column >= len(tmpl):
            raise _Cannot("the template row has no cell for the column")
        ls = _line_start(src, tmpl[0][0])
        indent = src[ls:tmpl[0][0]]
        if indent.strip():
            indent = " " * len(indent)
        text = indent + "|".join(cells) + ";"
        before = nr.before
        while before is not None and before in deleted:
            before = before + 1 if before + 1 < len(lay.rows) else None
        if before is not None:
            at = lay.rows[before][0][0]
            ls = _line_start(src, at)
            if src[ls:at].strip():
                raise _Cannot("the row to insert before shares its line")
            splices.append((ls, ls, text + nl))
            continue
        # after the last row: at the start of the condition's line when it has one
        at = lay.condition
        ls = _line_start(src, at)
        if not src[ls:at].strip() and ls > lay.rows[-1][-1][1]:
            splices.append((ls, ls, text + nl))
        else:
            end = lay.rows[-1][-1][1] + 1
            splices.append((end, end, nl + text))
    return splices


def _all_blank(src: str, lay: A.Layout, plan: _Plan, r: int) -> bool:
    """Does row ``r`` hold nothing once the plan is made (a removed instruction)?"""
    removed = False
    for c, (a, b) in enumerate(lay.rows[r]):
        cell = plan.cells.get((r, c))
        if cell is not None and cell.text is not None:
            if cell.text:
                return False
            removed = True
        elif src[a:b].strip():
            return False
    return removed


def repair_text(test: A.Test, edits: Sequence[Edit]) -> tuple[str, bool]:
    """The repaired file's text, and whether it had to be re-printed: the user's text
    edited (:func:`edit_source`), else the round-trip printer's text of the edited test
    without its ``Expect=``/``Liveness=`` lines (a test built in code has no text)."""
    text = edit_source(test, edits)
    if text is not None:
        return text, False
    edited = apply_edits(test, list(edits))
    plain = dataclasses.replace(edited, meta=tuple(
        m for m in edited.meta if m.key not in ("Expect", "Liveness")))
    return print_litmus(plain), True
