"""Litmus text -> :class:`~gdrcheck.litmus.ast.Test` (docs/litmus-format.md).

The file shape is split by hand: the header line, the doc string and the
``Key=Value`` metadata lines are read raw (a URL in a doc string or in
``Source=`` is not a comment); from the init block on, comments are blanked
out (replaced by spaces, so every offset keeps its line and column), the braces
of the init block are matched, the thread table is cut into rows (one per
line, each ending with ``;``) and cells (``|``), and the condition starts at
the first row that begins with ``exists``, ``~exists``, ``forall``,
``locations`` or ``filter``. The init block, the condition and each cell are
then parsed with lark (grammar.py) in the file's own coordinates.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Literal, NoReturn, cast

from lark import Token, Tree

from gdrcheck.errors import InputError, LitmusError, Pos
from gdrcheck.litmus.ast import (
    AliasDecl,
    And,
    Arch,
    BoolConst,
    Cmp,
    Condition,
    ConstTerm,
    CounterDecl,
    HostDecl,
    InitItem,
    InitLoc,
    InitReg,
    Layout,
    LocRef,
    LocTerm,
    MbarrierDecl,
    Meta,
    MulticastDecl,
    Not,
    Or,
    Placement,
    Prop,
    Proxy,
    Quantifier,
    RegTerm,
    SharedDecl,
    SignalDecl,
    Term,
    Test,
    Thread,
    WindowDecl,
    locations_named,
    registers_written,
)
from gdrcheck.litmus.grammar import parse_section as _parse_section
from gdrcheck.litmus.grammar import token_pos, tree_pos
from gdrcheck.litmus.instructions import (
    Cell,
    ThreadContext,
    build_thread,
    cell_from_tree,
    check_host_threads,
    destinations,
    mapa_targets,
)

ARCHS: tuple[Arch, ...] = ("X86", "PTX", "GIN")
VERDICTS = ("Allowed", "Forbidden", "Required", "Undefined")

_META_RE = re.compile(r"([A-Za-z_][A-Za-z0-9_.-]*)[ \t]*=([^\n]*)")
_COMMENT_RE = re.compile(r"\(\*|//")
_NESTED_RE = re.compile(r"\(\*|\*\)")
_BRACE_RE = re.compile(r"[{}]")
_COND_START_RE = re.compile(r"(?:~\s*exists|exists|forall|locations|filter)\b")
_HEADER_RE = re.compile(r"P([0-9]+)[ \t]*(?:@(.*))?", re.S)
_PLACEMENT_RE = re.compile(r"(cta|gpu|node|grid|cluster)[ \t]+([0-9]+)|host|launched")
_THREAD_RE = re.compile(r"P([0-9]+)")
_MODEL_RE = re.compile(r"[a-z0-9-]+")
_VARIANT_RE = re.compile(r"[A-Za-z0-9._-]+")

MAX_DIGITS = 100
"""The most digits an integer may have (2^128 has 39; Python converts at most 4,300)."""

MAX_NESTING = 100
"""How deeply ``~``, ``/\\`` and ``\\/`` may nest in a condition or filter (a deeper one
is refused: the later stages walk propositions recursively)."""


_ALIAS_PROXIES = ("generic", "surface", "texture", "constant")


def _fail(message: str, pos: Pos) -> NoReturn:
    raise LitmusError(message, None, pos)


def _after(tok: Token) -> Pos:
    pos = token_pos(tok)
    return Pos(pos.line, pos.col + len(str(tok)))


def _check_digits(digits: str, pos: Pos) -> None:
    if len(digits.lstrip("$-")) > MAX_DIGITS:
        _fail(f"integer too long ({len(digits.lstrip('$-'))} digits; at most {MAX_DIGITS})",
              pos)


def parse_section(start: str, text: str, at: Pos,
                  tick: Callable[[], None] | None = None) -> Tree:
    """grammar.parse_section, with every integer's length checked (walked without
    recursion) before anything converts it."""
    tree = _parse_section(start, text, at, tick=tick)
    stack: list[Tree | Token | None] = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, Tree):
            stack.extend(node.children)
        elif isinstance(node, Token) and node.type in ("INT", "IMM"):
            _check_digits(str(node), token_pos(node))
    return tree


def parse_litmus(text: str, path: str | None = None,
                 tick: Callable[[], None] | None = None) -> Test:
    """Parse a litmus test; errors are :class:`LitmusError` with ``file:line:col``.
    ``tick`` (a deadline's poll, ``Callable[[], None]``) is called while parsing: in the
    init block and the condition every few hundred tokens, and at each cell."""
    try:
        test = _Parser(text, tick).parse()
    except InputError as exc:
        raise exc.with_context(path, text) from None
    return replace(test, path=path, source=text)


# --------------------------------------------------------------------------
# Comments
# --------------------------------------------------------------------------


def _comment_end(text: str, start: int, where: _Parser) -> int:
    """Offset just after the comment that starts at ``start``."""
    if text.startswith("//", start):
        end = text.find("\n", start)
        return len(text) if end < 0 else end
    depth = 0
    for m in _NESTED_RE.finditer(text, start):
        depth += 1 if m.group() == "(*" else -1
        if depth == 0:
            return m.end()
    _fail("comment '(*' is never closed: expected '*)'", where.pos(start))


def _blank_comments(text: str, start: int, where: _Parser) -> str:
    """``text`` with the comments after ``start`` replaced by spaces (newlines kept)."""
    pieces = [text[:start]]
    i = start
    while (m := _COMMENT_RE.search(text, i)) is not None:
        end = _comment_end(text, m.start(), where)
        pieces.append(text[i : m.start()])
        pieces.append(re.sub(r"[^\n]", " ", text[m.start() : end]))
        i = end
    pieces.append(text[i:])
    return "".join(pieces)


# --------------------------------------------------------------------------
# The parser
# --------------------------------------------------------------------------


class _Parser:
    def __init__(self, text: str, tick: Callable[[], None] | None = None) -> None:
        self.text = text
        self.tick = tick
        self.line_starts = [0] + [m.end() for m in re.finditer("\n", text)]
        self.arch: Arch = "PTX"
        self.nthreads = 0

    def pos(self, offset: int) -> Pos:
        line = bisect.bisect_right(self.line_starts, offset)
        return Pos(line, offset - self.line_starts[line - 1] + 1)

    def end_pos(self, text: str, offset: int) -> Pos:
        """Just after the last non-blank character of ``text`` before ``offset``."""
        return self.pos(len(text[:offset].rstrip()))

    def skip(self, i: int) -> int:
        """Skip blanks and comments in the raw text (before the init block)."""
        text = self.text
        while i < len(text):
            if text[i].isspace():
                i += 1
            elif text.startswith("(*", i) or text.startswith("//", i):
                i = _comment_end(text, i, self)
            else:
                break
        return i

    # ---- the file shape

    def parse(self) -> Test:
        text = self.text
        i = self.skip(0)
        if i >= len(text):
            _fail("empty file: expected a header line such as 'PTX MP'", self.pos(i))
        arch, name, i = self.header(i)
        self.arch = arch
        docs, meta, i = self.doc_and_meta(i)
        blanked = _blank_comments(text, i, self)
        init_end = self.init_end(blanked, i)
        init_tree = parse_section("init_items", blanked[i + 1 : init_end], self.pos(i + 1),
                                  self.tick)
        init = self.init_items(init_tree)
        rows, cond_start = self.table(blanked, init_end + 1)
        headers = rows[0]
        threads = self.threads(blanked, headers, rows[1:], init)
        self.nthreads = len(threads)
        self.check_init_threads(init)
        conds = parse_section("conds", blanked[cond_start:], self.pos(cond_start), self.tick)
        locations, filt, condition = self.conditions(conds)
        doc = "\n".join(docs) if docs else None
        layout = self.layout(blanked, i, init_end, rows, cond_start)
        test = Test(arch, name, doc, meta, init, threads, locations, filt, condition,
                    docs=docs, layout=layout)
        _check_observed(test)
        return test

    def layout(self, blanked: str, open_: int, close: int,
               rows: list[list[tuple[int, int]]], cond_start: int) -> Layout:
        """Where the init items, the table's cells and the condition lie (gdrcheck fix
        edits the text there): the init items are the non-blank pieces between the
        block's ``;`` (as the grammar reads them), an instruction is a non-blank cell."""
        items: list[tuple[int, int]] = []
        start = open_ + 1
        for piece in blanked[open_ + 1 : close].split(";"):
            lead = len(piece) - len(piece.lstrip())
            if piece.strip():
                items.append((start + lead, start + len(piece.rstrip())))
            start += len(piece) + 1
        places = tuple(
            tuple(r for r, row in enumerate(rows) if r and column < len(row)
                  and blanked[row[column][0] : row[column][1]].strip())
            for column in range(len(rows[0])))
        return Layout((open_, close), tuple(items),
                      tuple(tuple(row) for row in rows), places, cond_start)

    def header(self, i: int) -> tuple[Arch, str, int]:
        text = self.text
        eol = text.find("\n", i)
        eol = len(text) if eol < 0 else eol
        comment = _COMMENT_RE.search(text, i, eol)
        end = comment.start() if comment else eol
        words = list(re.finditer(r"\S+", text[i:end]))
        arch = words[0].group()
        if arch not in ARCHS:
            _fail(f"unknown architecture {arch!r} (gdrcheck reads X86, PTX and GIN tests)",
                  self.pos(i))
        if len(words) < 2:
            _fail(f"missing test name after {arch!r}", self.pos(i + words[0].end()))
        if len(words) > 2:
            _fail(f"unexpected {words[2].group()!r} after the test name",
                  self.pos(i + words[2].start()))
        return cast(Arch, arch), words[1].group(), end

    def doc_and_meta(self, i: int) -> tuple[tuple[str, ...], tuple[Meta, ...], int]:
        text = self.text
        docs: list[str] = []
        meta: list[Meta] = []
        while True:
            i = self.skip(i)
            if i >= len(text):
                _fail("expected '{' to start the init block", self.end_pos(text, i))
            if text[i] == "{":
                return tuple(docs), tuple(meta), i
            if text[i] == '"':
                # any number of doc strings (docs/litmus-format.md §1; Dat3M writes a
                # description, then a URL, ...)
                end = text.find('"', i + 1)
                if end < 0:
                    _fail("doc string is never closed: expected '\"'", self.pos(i))
                docs.append(text[i + 1 : end])
                i = end + 1
                continue
            m = _META_RE.match(text, i)
            if m is None:
                word = re.match(r"\S+", text[i:])
                found = word.group() if word else text[i]
                _fail(f"unexpected {found!r}: expected a metadata line 'Key=Value' or '{{' to "
                      "start the init block", self.pos(i))
            raw = m.group(2)
            value_at = self.pos(i + m.start(2) - m.start() + len(raw) - len(raw.lstrip()))
            item = Meta(m.group(1), raw.strip(), self.pos(i), value_at)
            if item.key in ("Expect", "Liveness"):
                self.check_expect(item, i + m.start(2) - m.start())
            meta.append(item)
            i = m.end()

    def check_expect(self, item: Meta, value_offset: int) -> None:
        key = item.key
        allowed = VERDICTS if key == "Expect" else ("Hang", "Live")
        offset = value_offset
        for raw in self.text[value_offset:].split("\n", 1)[0].split(","):
            entry = raw.strip()
            at = self.pos(offset + len(raw) - len(raw.lstrip()))
            offset += len(raw) + 1
            if not entry:
                continue
            model_part, colon, verdict = entry.rpartition(":")
            if not colon:
                _fail(f"bad {key}= entry {entry!r}: expected model{{+variant}}:Verdict, "
                      "e.g. gin-api:Forbidden", at)
            names = model_part.split("+")
            if not _MODEL_RE.fullmatch(names[0]):
                _fail(f"bad model name {names[0]!r} in {key}= (lower-case letters, digits "
                      "and '-')", at)
            for variant in names[1:]:
                if not _VARIANT_RE.fullmatch(variant):
                    _fail(f"bad variant name {variant!r} in {key}=", at)
            if verdict not in allowed:
                words = ", ".join(allowed[:-1]) + " or " + allowed[-1]
                _fail(f"unknown verdict {verdict!r} in {key}= (expected {words})", at)

    def init_end(self, blanked: str, start: int) -> int:
        depth = 0
        for m in _BRACE_RE.finditer(blanked, start):
            depth += 1 if m.group() == "{" else -1
            if depth == 0:
                return m.start()
        _fail("the init block is never closed: expected '}'", self.pos(start))

    def table(self, blanked: str, k: int) -> tuple[list[list[tuple[int, int]]], int]:
        """Rows of the thread table as lists of cells (start, end offsets), and the
        offset where the condition starts."""
        n = len(blanked)
        rows: list[list[tuple[int, int]]] = []
        while True:
            while k < n and blanked[k].isspace():
                k += 1
            if k >= n:
                if not rows:
                    _fail("expected the thread table (a header row such as 'P0 | P1 ;')",
                          self.end_pos(blanked, k))
                _fail("expected a condition (exists, ~exists or forall) after the thread table",
                      self.end_pos(blanked, k))
            if _COND_START_RE.match(blanked, k):
                if not rows:
                    _fail("expected the thread table (a header row such as 'P0 | P1 ;')",
                          self.pos(k))
                return rows, k
            semi = blanked.find(";", k)
            eol = blanked.find("\n", k)
            eol = n if eol < 0 else eol
            if semi < 0 or semi > eol:
                _fail("expected ';' at end of row", self.end_pos(blanked, eol))
            cells = []
            start = k
            for m in re.finditer(r"\|", blanked[k:semi]):
                cells.append((start, k + m.start()))
                start = k + m.end()
            cells.append((start, semi))
            rows.append(cells)
            k = semi + 1

    # ---- threads

    def threads(
        self,
        blanked: str,
        headers: list[tuple[int, int]],
        rows: list[list[tuple[int, int]]],
        init: Sequence[InitItem],
    ) -> tuple[Thread, ...]:
        heads: list[tuple[int, Placement, Pos]] = []
        seen: set[int] = set()
        for column, (start, end) in enumerate(headers):
            index, placement, pos = self.thread_header(blanked, start, end, column)
            if index in seen:
                _fail(f"thread header P{index} appears twice", pos)
            if index != column:
                _fail(f"expected thread header P{column} here (threads are numbered P0, P1, ... "
                      f"from the left), found P{index}", pos)
            seen.add(index)
            heads.append((index, placement, pos))
        columns: list[list[Cell]] = [[] for _ in heads]
        for row in rows:
            for column, (start, end) in enumerate(row):
                raw = blanked[start:end]
                body = raw.strip()
                if not body:
                    continue
                at = self.pos(start + len(raw) - len(raw.lstrip()))
                if column >= len(heads):
                    _fail(f"this row has {len(row)} cells but the header names {len(heads)} "
                          f"thread{'s' if len(heads) > 1 else ''}", at)
                if self.tick is not None:
                    self.tick()
                tree = parse_section("cell", body, at)
                columns[column].append(cell_from_tree(tree))
        signals = frozenset(i.name for i in init if isinstance(i, SignalDecl))
        counters = frozenset(i.name for i in init if isinstance(i, CounterDecl))
        shared = frozenset(i.name for i in init if isinstance(i, SharedDecl))
        mbarriers = frozenset(i.name for i in init if isinstance(i, MbarrierDecl))
        multicasts = frozenset(i.name for i in init if isinstance(i, MulticastDecl))
        out = []
        for (index, placement, pos), cells in zip(heads, columns, strict=True):
            dests = destinations(cells) if self.arch != "X86" else frozenset()
            ctx = ThreadContext(self.arch, index, dests, signals, counters, shared, mbarriers,
                                multicasts, host=placement.host,
                                launched=placement.launched, mapped=mapa_targets(cells))
            out.append(Thread(index, placement, build_thread(cells, ctx), pos))
        check_host_threads(out)
        return tuple(out)

    def thread_header(
        self, blanked: str, start: int, end: int, column: int
    ) -> tuple[int, Placement, Pos]:
        raw = blanked[start:end]
        lead = len(raw) - len(raw.lstrip())
        body = raw.strip()
        pos = self.pos(start + lead)
        if not body:
            _fail(f"empty thread header: expected P{column}", pos)
        m = _HEADER_RE.fullmatch(body)
        if m is None:
            _fail(f"expected a thread header such as P{column} or P{column}@cta 0,gpu 0, "
                  f"found {body!r}", pos)
        _check_digits(m.group(1), pos)
        index = int(m.group(1))
        if m.group(2) is None:
            return index, Placement(), pos
        fields: dict[str, int | None] = {}
        offset = start + lead + m.start(2)
        for item in m.group(2).split(","):
            word = item.strip()
            at = self.pos(offset + len(item) - len(item.lstrip()))
            offset += len(item) + 1
            pm = _PLACEMENT_RE.fullmatch(word)
            if pm is None:
                _fail(f"unknown placement {word!r} in the header of P{index} (expected "
                      "'cta N', 'cluster N', 'gpu N', 'node N', 'grid N', 'host' or "
                      "'launched')", at)
            key = pm.group(1) or pm.group(0)
            if pm.group(2):
                _check_digits(pm.group(2), at)
            if key in fields:
                _fail(f"{key!r} appears twice in the placement of P{index}", at)
            fields[key] = int(pm.group(2)) if pm.group(2) else None
        if "host" in fields and ("cta" in fields or "gpu" in fields or "cluster" in fields):
            _fail(f"host thread P{index} cannot have a cta, a cluster or a gpu", pos)
        if "launched" in fields and ("host" in fields or "gpu" not in fields):
            _fail(f"'launched' marks a GPU thread started by a host's cuda.launch: P{index} "
                  "needs a gpu and cannot be a host thread", pos)
        if "grid" in fields and "host" in fields:
            _fail(f"host thread P{index} cannot belong to a grid ('grid N' places a GPU "
                  "thread in the N-th kernel of a stream)", pos)
        placement = Placement(
            cta=fields.get("cta"), gpu=fields.get("gpu"), node=fields.get("node"),
            host="host" in fields, launched="launched" in fields, grid=fields.get("grid"),
            cluster=fields.get("cluster"),
        )
        return index, placement, pos

    # ---- init block

    def init_items(self, tree: Tree) -> tuple[InitItem, ...]:
        items: list[InitItem] = []
        declared: dict[str, Pos] = {}
        initialised: dict[tuple[str, int | None], Pos] = {}
        registers: dict[tuple[int, str], Pos] = {}
        for child in tree.children:
            if child is None:
                continue
            item = self.init_item(cast(Tree, child))
            if isinstance(item, AliasDecl):
                self.check_alias(item, items)
            if isinstance(item, MulticastDecl):
                self.check_multicast(item, items)
            if isinstance(item, (SignalDecl, CounterDecl, HostDecl, WindowDecl, AliasDecl,
                                 SharedDecl, MbarrierDecl, MulticastDecl)):
                if item.name in declared:
                    _fail(f"{item.name!r} is declared twice in the init block", item.pos)
                declared[item.name] = item.pos
            elif isinstance(item, InitLoc):
                key = (item.loc.name, item.loc.rank)
                if key in initialised:
                    first = initialised[key]
                    _fail(f"{item.loc} is initialised twice in the init block (first at "
                          f"{first.line}:{first.col})", item.pos)
                initialised[key] = item.pos
            elif isinstance(item, InitReg):
                rkey = (item.thread, item.reg)
                if rkey in registers:
                    first = registers[rkey]
                    _fail(f"register {item.thread}:{item.reg} is initialised twice in the "
                          f"init block (first at {first.line}:{first.col})", item.pos)
                registers[rkey] = item.pos
            items.append(item)
        return tuple(items)

    def init_item(self, tree: Tree) -> InitItem:
        kids = tree.children
        pos = tree_pos(tree)
        if tree.data == "loc_init":
            return InitLoc(self.loc(cast(Tree, kids[0])), int(cast(Token, kids[1])), pos)
        if tree.data == "typed_init":
            name = cast(Token, kids[1])
            return InitLoc(LocRef(str(name), None, token_pos(name)), int(cast(Token, kids[2])),
                           pos)
        if tree.data == "alias_decl":
            name, proxy, word, target = (cast(Token, k) for k in kids)
            if str(word) != "aliases":
                _fail(f"expected 'aliases' in the alias declaration of {str(name)!r} "
                      f"(e.g. '{name} @ generic aliases x'), found {str(word)!r}",
                      token_pos(word))
            if str(proxy) not in _ALIAS_PROXIES:
                _fail(f"unknown proxy {str(proxy)!r} in the alias declaration of "
                      f"{str(name)!r} (expected generic, surface, texture or constant)",
                      token_pos(proxy))
            return AliasDecl(str(name), cast(Proxy, str(proxy)), str(target), pos)
        if tree.data in ("multicast_all", "multicast_list"):
            return self.multicast_decl(tree)
        if tree.data == "window_decl":
            return _window_decl(kids, pos)
        assert tree.data == "colon_init"
        lhs, rhs, count, value = cast(Token, kids[0]), cast(Token, kids[1]), kids[2], kids[3]
        kind = str(rhs)
        if kind == "mbarrier" and lhs.type != "INT" and not _THREAD_RE.fullmatch(str(lhs)):
            if count is None:
                _fail(f"an mbarrier declares its expected arrivals per phase: write "
                      f"'{lhs} : mbarrier N;'", _after(rhs))
            if value is not None:
                _fail("an mbarrier takes no initial value (it starts in phase 0)",
                      tree_pos(cast(Tree | Token, value)))
            n = int(cast(Token, count))
            if n < 1:
                _fail(f"an mbarrier expects at least one arrival per phase, found {n}",
                      token_pos(cast(Token, count)))
            return MbarrierDecl(str(lhs), n, pos)
        if count is not None:
            _fail(f"unexpected {str(count)!r}: only an mbarrier declaration takes a count "
                  "('mb : mbarrier 2')", token_pos(cast(Token, count)))
        if lhs.type == "INT" or _THREAD_RE.fullmatch(str(lhs)):
            thread = self.thread_id(lhs)
            reg = self.reg_name(str(rhs))
            if value is None:
                _fail(f"expected '=' and an initial value for register {thread}:{reg}",
                      token_pos(rhs))
            if isinstance(value, Tree):
                return InitReg(thread, reg, self.loc(value), pos)
            return InitReg(thread, reg, int(cast(Token, value)), pos)
        if kind == "shared":
            if isinstance(value, Tree):
                _fail("expected an integer initial value", tree_pos(value))
            return SharedDecl(str(lhs), 0 if value is None else int(cast(Token, value)), pos)
        if kind in ("signal", "counter"):
            if value is not None:
                _fail(f"a {kind} starts at 0 and takes no initial value: write "
                      f"'{lhs} : {kind};'", tree_pos(cast(Tree | Token, value)))
            if kind == "signal":
                return SignalDecl(str(lhs), pos)
            return CounterDecl(str(lhs), pos)
        if kind == "host":
            if isinstance(value, Tree):
                _fail("expected an integer initial value", tree_pos(value))
            return HostDecl(str(lhs), 0 if value is None else int(cast(Token, value)), pos)
        _fail(f"unknown declaration {kind!r} (expected signal, counter, host, shared or "
              "mbarrier)", token_pos(rhs))

    # ---- multicast objects (docs/litmus-format.md §11)

    def multicast_decl(self, tree: Tree) -> MulticastDecl:
        word, name = cast(Token, tree.children[0]), cast(Token, tree.children[1])
        if str(word) != "multicast":
            _fail(f"unknown declaration {str(word)!r} (expected 'multicast M = x' or "
                  "'multicast M = {x@0, x@1}')", token_pos(word))
        if self.arch != "GIN":
            _fail("a multicast object binds the copies of a location on several ranks: "
                  "it needs a GIN test", token_pos(word))
        pos = tree_pos(tree)
        if tree.data == "multicast_all":
            return MulticastDecl(str(name), str(cast(Token, tree.children[2])), (), pos)
        copies = tuple(self.loc(cast(Tree, c)) for c in tree.children[2:])
        seen: set[str] = set()
        for copy in copies:
            if copy.rank is None:
                _fail(f"a listed copy names its rank: write {copy.name}@k", copy.pos)
            if str(copy) in seen:
                _fail(f"{copy} is bound twice to {str(name)!r}", copy.pos)
            seen.add(str(copy))
        return MulticastDecl(str(name), None, copies, pos)

    def check_multicast(self, item: MulticastDecl, earlier: Sequence[InitItem]) -> None:
        """The copies of a multicast object are global locations declared before it."""
        known = {i.loc.name for i in earlier if isinstance(i, InitLoc)}
        other = {i.name: type(i).__name__ for i in earlier
                 if isinstance(i, (SignalDecl, CounterDecl, HostDecl, SharedDecl, MbarrierDecl,
                                   MulticastDecl, AliasDecl))}
        names = [item.target] if item.target is not None else [c.name for c in item.copies]
        for target in names:
            assert target is not None
            if target == item.name:
                _fail(f"{item.name!r} cannot be bound to itself", item.pos)
            if target in other:
                _fail(f"{item.name!r} is bound to {target!r}, which is not a global location "
                      f"({other[target].removesuffix('Decl').lower()} declaration): a "
                      "multicast object binds global memory", item.pos)
            if target not in known:
                _fail(f"{item.name!r} is bound to {target!r}, which is not a location of the "
                      f"init block: declare it first, e.g. '{target} = 0;'", item.pos)

    def check_alias(self, item: AliasDecl, earlier: Sequence[InitItem]) -> None:
        """The target of an alias is a location declared before it (or an alias)."""
        known = {str(i.loc) for i in earlier if isinstance(i, InitLoc)}
        known |= {i.name for i in earlier if isinstance(i, AliasDecl)}
        if item.target == item.name:
            _fail(f"{item.name!r} cannot alias itself", item.pos)
        if item.target not in known:
            shared = {i.name for i in earlier if isinstance(i, (SharedDecl, MbarrierDecl))}
            why = (" (shared memory and mbarriers have no aliases)" if item.target in shared
                   else f": declare it first, e.g. '{item.target} = 0;'")
            _fail(f"{item.name!r} aliases {item.target!r}, which is not a location of the "
                  f"init block{why}", item.pos)

    def loc(self, tree: Tree) -> LocRef:
        name, rank = cast(Token, tree.children[0]), tree.children[1]
        if rank is None:
            return LocRef(str(name), None, token_pos(name))
        value = int(cast(Token, rank))
        if value < 0:
            _fail(f"a rank is a number >= 0, found {value}", token_pos(cast(Token, rank)))
        return LocRef(str(name), value, token_pos(name))

    def thread_id(self, tok: Token) -> int:
        text = str(tok)
        m = _THREAD_RE.fullmatch(text)
        if m is None and not text.isdigit():
            _fail(f"expected a thread such as P1 or 1 before ':', found {text!r}", token_pos(tok))
        _check_digits(m.group(1) if m else text, token_pos(tok))
        return int(m.group(1)) if m else int(text)

    def reg_name(self, name: str) -> str:
        return name.upper() if self.arch == "X86" else name

    def check_init_threads(self, init: Sequence[InitItem]) -> None:
        for item in init:
            if isinstance(item, InitReg) and item.thread >= self.nthreads:
                _fail(f"unknown thread P{item.thread} in the init block", item.pos)

    # ---- conditions

    def conditions(self, tree: Tree) -> tuple[tuple[Term, ...], Prop | None, Condition]:
        loc_tree, filter_tree, cond_tree = tree.children
        locations: tuple[Term, ...] = ()
        if isinstance(loc_tree, Tree):
            locations = tuple(
                self.term(cast(Tree, t), "locations") for t in loc_tree.children if t is not None
            )
        filt = None
        if isinstance(filter_tree, Tree):
            filt = self.prop(cast(Tree, filter_tree.children[0]), "filter")
        cond = cast(Tree, cond_tree)
        quant_tok = cast(Token, cond.children[0])
        quant = cast(Quantifier, "~exists" if str(quant_tok).startswith("~") else str(quant_tok))
        prop = self.prop(cast(Tree, cond.children[1]), "condition")
        return locations, filt, Condition(quant, prop, token_pos(quant_tok))

    def prop(self, tree: Tree, where: str) -> Prop:
        _check_nesting(tree, where)
        return self._prop(tree, where)

    def _prop(self, tree: Tree, where: str) -> Prop:
        data = tree.data
        if data == "prop_or":
            return Or(tuple(self._prop(cast(Tree, c), where) for c in tree.children))
        if data == "prop_and":
            return And(tuple(self._prop(cast(Tree, c), where) for c in tree.children))
        if data == "prop_not":
            return Not(self._prop(cast(Tree, tree.children[0]), where))
        if data == "prop_true":
            return BoolConst(True)
        if data == "prop_false":
            return BoolConst(False)
        assert data == "prop_cmp"
        lhs, op, rhs = tree.children
        lhs_term = self.term(cast(Tree, lhs), where)
        op_name: Literal["=", "!="] = "!=" if str(op) == "!=" else "="
        return Cmp(op_name, lhs_term, self.term(cast(Tree, rhs), where), lhs_term.pos)

    def term(self, tree: Tree, where: str) -> Term:
        data = tree.data
        kids = tree.children
        pos = tree_pos(tree)
        if data == "const_term":
            return ConstTerm(int(cast(Token, kids[0])), pos)
        if data == "loc_term":
            return LocTerm(self.loc(cast(Tree, kids[0])), pos)
        thread_tok = cast(Token, kids[0])
        thread = self.thread_id(thread_tok)
        if thread >= self.nthreads:
            _fail(f"unknown thread P{thread} in {where}", pos)
        return RegTerm(thread, self.reg_name(str(kids[1])), pos)


def _check_nesting(tree: Tree, where: str) -> None:
    """Refuse a proposition nested more than MAX_NESTING deep (walked without recursion),
    at the first operator past the limit."""
    stack: list[tuple[Tree, int]] = [(tree, 0)]
    while stack:
        node, depth = stack.pop()
        if node.data not in ("prop_or", "prop_and", "prop_not"):
            continue
        if depth >= MAX_NESTING:
            _fail(f"the {where} is nested too deeply (more than {MAX_NESTING} levels of "
                  "~, /\\ and \\/)", tree_pos(node))
        stack.extend((cast(Tree, c), depth + 1) for c in node.children)


_CLAUSE = {"locations": "locations list", "filter": "filter", "condition": "condition"}


def _check_observed(test: Test) -> None:
    """Every register that ``locations``, ``filter`` or the condition names is written by
    its thread (or initialised), and every location is declared in the init block or
    accessed by an instruction: anything else would silently read 0."""
    written = {t.index: registers_written(t) for t in test.threads}
    for item in test.init:
        if isinstance(item, InitReg):
            written.setdefault(item.thread, frozenset())
            written[item.thread] = written[item.thread] | {item.reg}
    named = locations_named(test)
    multicast = {i.name: i for i in test.init if isinstance(i, MulticastDecl)}
    clauses: list[tuple[str, Sequence[Term | Prop]]] = [
        ("locations", test.locations),
        ("filter", [test.filter] if test.filter is not None else []),
        ("condition", [test.condition.prop]),
    ]
    for where, roots in clauses:
        clause = _CLAUSE[where]
        for term in _terms(roots):
            if isinstance(term, LocTerm) and term.loc.name in multicast:
                decl = multicast[term.loc.name]
                copies = (", ".join(str(c) for c in decl.copies) if decl.copies
                          else f"{decl.target}@k")
                _fail(f"{term.loc.name!r} is a multicast object: the {clause} names its "
                      f"copies ({copies}), never the object", term.pos)
            if isinstance(term, RegTerm) and term.reg not in written.get(term.thread, ()):
                _fail(f"register {term.thread}:{term.reg} in the {clause} is never written by "
                      f"P{term.thread} (nor initialised in the init block)", term.pos)
            if isinstance(term, LocTerm) and term.loc.name not in named:
                _fail(f"location {term.loc} in the {clause} is neither declared in the init "
                      "block nor accessed by any instruction", term.pos)


def _terms(roots: Sequence[Term | Prop]) -> list[Term]:
    """The terms of ``roots``, left to right (walked without recursion)."""
    out: list[Term] = []
    stack: list[Term | Prop] = list(reversed(roots))
    while stack:
        node = stack.pop()
        if isinstance(node, (And, Or)):
            stack.extend(reversed(node.args))
        elif isinstance(node, Not):
            stack.append(node.arg)
        elif isinstance(node, Cmp):
            stack.extend((node.rhs, node.lhs))
        elif isinstance(node, (RegTerm, LocTerm, ConstTerm)):
            out.append(node)
    return out


def _window_decl(kids: Sequence[object], pos: Pos) -> WindowDecl:
    """``window W {strict} {line} = {f, g : 120}`` (docs/litmus-format.md §8, "128-byte
    lines"): a line window's members are 8-byte words of one 128-byte aligned line at the
    byte offsets given (by default 8 past the previous member, the first at 0)."""
    name = cast(Token, kids[0])
    flags = [k for k in kids[1:] if isinstance(k, Token)]
    members = [k for k in kids[1:] if isinstance(k, Tree)]
    seen: set[str] = set()
    for f in flags:
        if str(f) not in ("strict", "line"):
            _fail(f"unknown window flag {str(f)!r} (expected 'strict' or 'line')", token_pos(f))
        if str(f) in seen:
            _fail(f"window flag {str(f)!r} given twice", token_pos(f))
        seen.add(str(f))
    line = "line" in seen
    names: list[str] = []
    offsets: list[int] = []
    for m in members:
        mname, moff = cast(Token, m.children[0]), m.children[1]
        names.append(str(mname))
        if moff is None:
            offsets.append(offsets[-1] + 8 if offsets else 0)
            continue
        if not line:
            _fail(f"a byte offset ({mname} : {moff}) is given only in a 'line' window",
                  token_pos(cast(Token, moff)))
        off = int(str(moff))
        if off % 8 or off >= 128 or (offsets and off <= offsets[-1]):
            _fail(f"the offset of {mname} must be a multiple of 8 below 128, above the previous "
                  f"member's", token_pos(cast(Token, moff)))
        offsets.append(off)
    if line and offsets and offsets[-1] >= 128:
        _fail(f"window {name}: {len(names)} 8-byte words do not fit in one 128-byte line",
              token_pos(name))
    return WindowDecl(str(name), "strict" in seen, tuple(names), pos, line=line,
                      offsets=tuple(offsets) if line else ())
