"""Parse a ``.cat`` model into the :mod:`gdrcheck.cat.ast`.

The grammar (``cat.lark``) is LALR(1) over a herd7-compatible subset of cat.

Lexical rules
    Comments ``(* ... *)`` (nestable) and ``//`` or ``#`` to the end of the line.
    Identifiers are letters, digits, ``_``, ``-`` and ``.`` not starting with a
    digit (``po-loc``, ``dmb.full``, ``axiom-Coherence``), optionally ending
    with ``'``. There is no minus operator: ``a-b`` is one identifier. ``_`` alone
    is the universal set, ``0`` and ``{}`` the empty relation. Keywords are
    reserved: ``let rec and acyclic irreflexive empty flag as include if then
    else end show unshow variant not begin`` plus herd's ``procedure call forall
    match with from enum fun in try do when debug instructions default yield
    undefined_unless subset``, which are rejected as unsupported constructs.

Operator precedence, loosest first::

    |          union                      right-associative
    ++         set add (same as union)    right-associative
    ;          sequence                   right-associative
    \\          difference                 left-associative
    &          intersection               right-associative
    *          cartesian product          non-associative
    ~          complement (prefix)
    + * ? ^-1  closures, inverse (postfix)

This is the order of herd7's own parser (``%right UNION``, ``%right
PLUSPLUS``, ``%right SEMI``, ``%left DIFF``, ``%right INTER`` in
``lib/modelParser.mly``). herd's manual (doc/herd.tex, Model definitions)
lists ``&`` before ``\\``, i.e. the other way round; the manual and the
implementation disagree, and herd7 computes with the implementation's order,
so ``a \\ b & c`` is ``a \\ (b & c)`` here as in herd7. ``a & b \\ c`` denotes the
same relation under both readings.

A ``*`` is the cartesian product when the next token starts an operand (a
name, ``_``, ``0``, ``{``, ``[``, ``(``, ``begin`` or ``~``), otherwise it is
the reflexive-transitive closure of what precedes it: ``W * R`` and
``(po | rf)* ; [W]`` both read as intended. herd resolves the same way.

Instructions
    ``let x = e [and y = e']``, ``let f(a, b) = e``, ``let rec x = e [and ...]``;
    ``[flag] [~]acyclic|irreflexive|empty e [as name]``; ``include "file.cat"``;
    ``if [variant] COND [then] ... [else ...] end`` where COND combines quoted or
    bare variant names with ``||``, ``&&``, ``not``/``~`` and parentheses;
    ``show e as name``, ``show a, b``, ``unshow a, b``;
    ``variant "name" ["description"]``. An optional model title comes first:
    ``"x86 TSO"``, a bare name (``PTX``), or herd's ``ARCH "title"``.

Every node's ``pos`` is the line and column where its text starts.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from lark import Lark, Token, Transformer_NonRecursive, v_args
from lark.exceptions import UnexpectedCharacters, UnexpectedInput, UnexpectedToken, VisitError
from lark.tree import Meta

from gdrcheck.cat import ast
from gdrcheck.errors import CatError, Pos
from gdrcheck.grammar_cache import cached_lark, ticking_parse
from gdrcheck.limits import MAX_EXPR_DEPTH

_GRAMMAR = Path(__file__).with_name("cat.lark")

_DOC_HINT = "gdrcheck reads a subset of cat, see docs/cat.md"

# Tokens that can start an operand: a "*" before one of them is a cartesian product.
_OPERAND_START = frozenset({"ID", "UNDERSCORE", "ZERO", "LBRACE", "LSQB", "LPAR", "BEGIN", "TILDE"})

_UNSUPPORTED_WHAT = {
    "in": "let ... in (a local binding)",
    "with": "with ... from",
    "from": "with ... from",
    "fun": "fun (an anonymous function)",
    "do": "forall ... do",
}

# Readable names for terminals in "expected ..." messages.
_TERMINAL_NAMES = {
    "ID": "a name",
    "STRING": 'a string "..."',
    "NEG": "'~'",
    "STAR_INFIX": "'*'",
    "$END": "end of file",
}

_OPERATORS = frozenset(
    "VBAR PLUSPLUS SEMICOLON BACKSLASH AMPERSAND STAR_INFIX PLUS STAR QMARK INV".split()
)
_INSTRUCTION_START = frozenset(
    "LET FLAG NEG ACYCLIC IRREFLEXIVE EMPTY INCLUDE IF SHOW UNSHOW VARIANT".split()
)


def parse_cat(text: str, path: str | None = None,
              tick: Callable[[], None] | None = None) -> ast.Model:
    """Parse the text of a ``.cat`` file. Raises :class:`CatError` on bad input.
    ``tick`` (a deadline's poll, ``Callable[[], None]``) is called every few hundred
    tokens: what it raises (the deadline's ``Expired``) ends the parse."""
    try:
        blanked = _blank_comments(text, path)
        tree = (_lark().parse(blanked) if tick is None
                else ticking_parse(_lark(), blanked, tick))
        title, stmts = _ToAst().transform(tree)
    except CatError as err:
        raise err.with_context(path, text) from None
    except VisitError as err:
        if isinstance(err.orig_exc, CatError):
            raise err.orig_exc.with_context(path, text) from None
        raise
    except UnexpectedInput as err:
        raise _syntax_error(err, path, text) from None
    return ast.Model(title=title, stmts=tuple(stmts), path=path, source=text)


# --------------------------------------------------------------------------
# Lexing
# --------------------------------------------------------------------------


def _blank_comments(text: str, path: str | None) -> str:
    """Replace comments by spaces, keeping newlines so positions do not move.

    ``(* ... *)`` nests; ``//`` and ``#`` run to the end of the line. Strings
    are skipped so that ``"a//b.cat"`` is left alone.
    """
    out = list(text)
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == '"':
            while i + 1 < n and text[i + 1] not in '"\n':
                i += 1
            i += 2
        elif text.startswith("(*", i):
            start, depth = i, 0
            while i < n:
                if text.startswith("(*", i):
                    depth += 1
                    out[i] = out[i + 1] = " "
                    i += 2
                elif text.startswith("*)", i):
                    depth -= 1
                    out[i] = out[i + 1] = " "
                    i += 2
                    if depth == 0:
                        break
                else:
                    if text[i] != "\n":
                        out[i] = " "
                    i += 1
            if depth:
                raise CatError("unterminated comment", path, _pos_of(text, start), text)
        elif text.startswith("//", i) or c == "#":
            while i < n and text[i] != "\n":
                out[i] = " "
                i += 1
        else:
            i += 1
    return "".join(out)


def _pos_of(text: str, offset: int) -> Pos:
    line = text.count("\n", 0, offset) + 1
    return Pos(line, offset - (text.rfind("\n", 0, offset) + 1) + 1)


class _PostLex:
    """Tells infix ``*`` from postfix ``*`` and rejects unsupported constructs."""

    always_accept = ("UNSUPPORTED", "TAG")

    def process(self, stream: Iterator[Token]) -> Iterator[Token]:
        star: Token | None = None
        for tok in stream:
            if tok.type == "UNSUPPORTED":
                what = _UNSUPPORTED_WHAT.get(str(tok), str(tok))
                raise _unsupported(what, tok)
            if tok.type == "TAG":
                raise _unsupported("tag", tok)
            if star is not None:
                kind = "STAR_INFIX" if tok.type in _OPERAND_START else "STAR"
                yield Token.new_borrow_pos(kind, star.value, star)
                star = None
            if tok.type == "STAR":
                star = tok
            else:
                yield tok
        if star is not None:
            yield star


def _unsupported(what: str, tok: Token) -> CatError:
    return CatError(f"unsupported cat construct '{what}' ({_DOC_HINT})", None, _tok_pos(tok))


@functools.cache
def _lark() -> Lark:
    return cached_lark(
        "cat",
        _GRAMMAR.read_text(encoding="utf-8"),
        lexer="basic",
        postlex=_PostLex(),
        propagate_positions=True,
        maybe_placeholders=True,
    )


# --------------------------------------------------------------------------
# Syntax errors
# --------------------------------------------------------------------------


def _syntax_error(err: UnexpectedInput, path: str | None, text: str) -> CatError:
    if isinstance(err, UnexpectedCharacters):
        offset = err.pos_in_stream or 0
        char = text[offset] if offset < len(text) else "?"
        return CatError(f"unexpected character {char!r}", path, Pos(err.line, err.column), text)
    if not isinstance(err, UnexpectedToken):
        return CatError(f"syntax error: {err}", path, Pos(err.line, err.column), text)
    tok = err.token
    if tok.type == "$END":
        pos, message = _end_pos(tok), "unexpected end of file"
    else:
        pos, message = _tok_pos(tok), f"unexpected {_describe_token(tok)}"
    accepted = set(err.interactive_parser.accepts()) if err.interactive_parser else set()
    expected = _describe_expected(accepted)
    if expected:
        message += f"; expected {expected}"
    if tok.type == "STAR_INFIX" and "STAR_INFIX" not in accepted:
        message += " (the cartesian product is non-associative: add parentheses)"
    elif tok.type in _OPERAND_START and _OPERATORS <= accepted:
        message += " (a function is applied as f(x))"
    return CatError(message, path, pos, text)


def _end_pos(tok: Token) -> Pos:
    if tok.end_line is not None and tok.end_column is not None:
        return Pos(tok.end_line, tok.end_column)
    return Pos(1, 1)


def _describe_token(tok: Token) -> str:
    if tok.type == "ID":
        return f"name '{tok}'"
    if tok.type == "STRING":
        return f"string {tok}"
    if str(tok).isalpha():
        return f"keyword '{tok}'"
    return f"'{tok}'"


def _describe_expected(expected: set[str]) -> str:
    if len(expected) > 1:
        expected = expected - {"$END"}
    parts: list[str] = []
    if _OPERAND_START <= expected:
        parts.append("an expression")
        expected -= _OPERAND_START
    if _OPERATORS <= expected:
        parts.append("an operator")
        expected -= _OPERATORS
    if _INSTRUCTION_START <= expected:
        parts.append("an instruction")
        expected -= _INSTRUCTION_START
    parts.extend(sorted(_terminal_name(t) for t in expected))
    if len(parts) > 6:
        return ""
    if len(parts) <= 1:
        return "".join(parts)
    return ", ".join(parts[:-1]) + " or " + parts[-1]


def _terminal_name(name: str) -> str:
    if name in _TERMINAL_NAMES:
        return _TERMINAL_NAMES[name]
    for term in _lark().terminals:
        if term.name == name and term.pattern.type == "str":
            return f"'{term.pattern.value}'"
    return name


# --------------------------------------------------------------------------
# Tree -> AST
# --------------------------------------------------------------------------


def _tok_pos(tok: Token) -> Pos:
    return Pos(tok.line or 0, tok.column or 0)


def _meta_pos(meta: Meta) -> Pos:
    if getattr(meta, "empty", True):
        return Pos(0, 0)
    return Pos(meta.line, meta.column)


def _unquote(tok: Token) -> str:
    s = str(tok)
    return s[1:-1] if tok.type == "STRING" else s


def _binary(op: str) -> Any:
    def build(self: _ToAst, meta: Meta, children: list[Any]) -> ast.Binary:
        return ast.Binary(op, children[0], children[-1], pos=_meta_pos(meta))  # type: ignore[arg-type]

    return build


def _unary(op: str) -> Any:
    def build(self: _ToAst, meta: Meta, children: list[Any]) -> ast.Unary:
        return ast.Unary(op, children[-1 if op == "~" else 0], pos=_meta_pos(meta))  # type: ignore[arg-type]

    return build


@v_args(meta=True)
class _ToAst(Transformer_NonRecursive[Token, Any]):
    """Builds AST nodes bottom-up, without recursion (a tree of any depth). Each method
    gets the rule's meta and children. Every expression is folded (:func:`_fold`) and
    the ``if`` blocks and variant conditions are measured: nothing deeper than
    :data:`~gdrcheck.limits.MAX_EXPR_DEPTH` reaches the later stages, which recurse."""

    def __init__(self) -> None:
        super().__init__()
        self._if_depth: dict[int, int] = {}

    # ---- model -----------------------------------------------------------

    def start(self, meta: Meta, c: list[Any]) -> tuple[str | None, list[ast.Stmt]]:
        return c[0], c[1:]

    def title(self, meta: Meta, c: list[Token | None]) -> str:
        names = [tok for tok in c if tok is not None]
        first = names[0]
        if len(names) == 2 and names[1].type == "ID" and not first[0].isupper():
            # herd's "ARCH name" title starts with an architecture (X86, PTX, AArch64, ...);
            # "acylic po" is a misspelt instruction, not a title.
            raise CatError(f"unknown instruction '{first}'", None, _tok_pos(first))
        return _unquote(names[-1])

    # ---- instructions ----------------------------------------------------

    def let_stmt(self, meta: Meta, c: list[ast.Binding]) -> ast.Let:
        return ast.Let(tuple(c), pos=_meta_pos(meta))

    def letrec_stmt(self, meta: Meta, c: list[ast.Binding]) -> ast.LetRec:
        for b in c:
            if b.params is not None:
                raise CatError(
                    f"unsupported cat construct 'let rec' with parameters ({_DOC_HINT})",
                    None,
                    b.pos,
                )
        return ast.LetRec(tuple(c), pos=_meta_pos(meta))

    def binding(self, meta: Meta, c: list[Any]) -> ast.Binding:
        name, expr = c
        return ast.Binding(str(name), None, _fold(expr), pos=_tok_pos(name))

    def fun_binding(self, meta: Meta, c: list[Any]) -> ast.Binding:
        name, params, expr = c
        names: tuple[str, ...] = params or ()
        for i, p in enumerate(names):
            if p in names[:i]:
                raise CatError(f"parameter '{p}' appears twice in '{name}'", None, _tok_pos(name))
        return ast.Binding(str(name), names, _fold(expr), pos=_tok_pos(name))

    def params(self, meta: Meta, c: list[Token]) -> tuple[str, ...]:
        return tuple(str(t) for t in c)

    def check_stmt(self, meta: Meta, c: list[Any]) -> ast.Check:
        flag, neg, kind, expr, name = c
        return ast.Check(
            kind=kind,
            negated=neg is not None,
            expr=_fold(expr),
            name=None if name is None else str(name),
            flag=flag is not None,
            pos=_meta_pos(meta),
        )

    def check_kind(self, meta: Meta, c: list[Token]) -> str:
        return str(c[0])

    def include_stmt(self, meta: Meta, c: list[Token]) -> ast.Include:
        return ast.Include(_unquote(c[0]), pos=_meta_pos(meta))

    def if_stmt(self, meta: Meta, c: list[Any]) -> ast.IfVariant:
        cond, then, otherwise = c
        pos = _meta_pos(meta)
        _check_cond_depth(cond, pos)
        stmt = ast.IfVariant(cond, tuple(then), tuple(otherwise or ()), pos=pos)
        depth = 1 + max((self._if_depth.get(id(s), 0) for s in (*stmt.then, *stmt.otherwise)),
                        default=0)
        if depth > MAX_EXPR_DEPTH:
            raise CatError(f"'if' blocks nested too deeply (more than {MAX_EXPR_DEPTH} "
                           "levels)", None, pos)
        self._if_depth[id(stmt)] = depth
        return stmt

    def block(self, meta: Meta, c: list[ast.Stmt]) -> list[ast.Stmt]:
        return c

    def show_as(self, meta: Meta, c: list[Any]) -> ast.Show:
        expr, name = c
        return ast.Show((str(name),), _fold(expr), pos=_meta_pos(meta))

    def show_names(self, meta: Meta, c: list[Token]) -> ast.Show:
        return ast.Show(tuple(str(t) for t in c), pos=_meta_pos(meta))

    def unshow_stmt(self, meta: Meta, c: list[Token]) -> ast.Show:
        return ast.Show(tuple(str(t) for t in c), unshow=True, pos=_meta_pos(meta))

    def variant_stmt(self, meta: Meta, c: list[Token | None]) -> ast.VariantDecl:
        name, doc = c
        assert name is not None
        return ast.VariantDecl(
            _unquote(name), "" if doc is None else _unquote(doc), pos=_meta_pos(meta)
        )

    # ---- variant conditions ------------------------------------------------

    def vname(self, meta: Meta, c: list[Token]) -> ast.VName:
        tok = c[-1]
        return ast.VName(_unquote(tok), pos=_tok_pos(tok))

    def vnot(self, meta: Meta, c: list[Any]) -> ast.VNot:
        return ast.VNot(c[-1])

    def vand(self, meta: Meta, c: list[Any]) -> ast.VAnd:
        return ast.VAnd(c[0], c[1])

    def vor(self, meta: Meta, c: list[Any]) -> ast.VOr:
        return ast.VOr(c[0], c[1])

    # ---- expressions -------------------------------------------------------

    union = _binary("|")
    plusplus = _binary("++")
    seq = _binary(";")
    diff = _binary("\\")
    inter = _binary("&")
    cart = _binary("*")
    compl = _unary("~")
    plus = _unary("+")
    star = _unary("*")
    opt = _unary("?")
    inv = _unary("^-1")

    def var(self, meta: Meta, c: list[Token]) -> ast.Var:
        return ast.Var(str(c[0]), pos=_tok_pos(c[0]))

    def universe(self, meta: Meta, c: list[Token]) -> ast.Var:
        return ast.Var("_", pos=_meta_pos(meta))

    def empty(self, meta: Meta, c: list[Token]) -> ast.Empty:
        return ast.Empty(pos=_meta_pos(meta))

    def bracket(self, meta: Meta, c: list[Any]) -> ast.Bracket:
        return ast.Bracket(c[0], pos=_meta_pos(meta))

    def app(self, meta: Meta, c: list[Any]) -> ast.App:
        func, args = c
        return ast.App(str(func), tuple(args or ()), pos=_tok_pos(func))

    def args(self, meta: Meta, c: list[ast.Expr]) -> list[ast.Expr]:
        return c


# --------------------------------------------------------------------------
# Deep expressions
# --------------------------------------------------------------------------

_ASSOCIATIVE = frozenset({"|", "++", ";", "&"})
"""The operators whose chains may be regrouped: union (and ``++``, read as union),
sequence and intersection are associative. A long chain of ``\\`` (left-associative)
becomes one difference by the union of what is taken away."""

CHAIN_FOLD = 16
"""A chain of more operands than this of one associative operator is regrouped into a
balanced tree (depth log2 of its length); shorter ones keep the parser's shape (what the
explanations print)."""


def _chain(e: ast.Binary) -> list[ast.Expr]:
    """The operands of the maximal chain of ``e.op`` under ``e``, left to right."""
    out: list[ast.Expr] = []
    stack: list[ast.Expr] = [e]
    while stack:
        x = stack.pop()
        if isinstance(x, ast.Binary) and x.op == e.op:
            stack += (x.right, x.left)
        else:
            out.append(x)
    return out


def _diff_chain(e: ast.Binary) -> list[ast.Expr]:
    """``a \\ b \\ c ...`` (left-associative): ``[a, b, c, ...]``."""
    rest: list[ast.Expr] = []
    x: ast.Expr = e
    while isinstance(x, ast.Binary) and x.op == "\\":
        rest.append(x.right)
        x = x.left
    return [x, *reversed(rest)]


def _children(e: ast.Expr) -> tuple[list[ast.Expr], bool]:
    """The sub-expressions of ``e`` and whether they are a folded chain's operands."""
    if isinstance(e, ast.Binary):
        if e.op in _ASSOCIATIVE:
            operands = _chain(e)
            if len(operands) > CHAIN_FOLD:
                return operands, True
        if e.op == "\\":
            operands = _diff_chain(e)
            if len(operands) > CHAIN_FOLD:
                return operands, True
        return [e.left, e.right], False
    if isinstance(e, ast.Unary | ast.Bracket):
        return [e.arg], False
    if isinstance(e, ast.App):
        return list(e.args), False
    return [], False


def _balanced(op: Any, items: list[tuple[ast.Expr, int]], pos: Pos) -> tuple[ast.Expr, int]:
    """``items[0] op items[1] op ...`` as a balanced tree, and its depth."""
    while len(items) > 1:
        paired: list[tuple[ast.Expr, int]] = []
        for k in range(0, len(items) - 1, 2):
            (a, da), (b, db) = items[k], items[k + 1]
            paired.append((ast.Binary(op, a, b, pos=a.pos), max(da, db) + 1))
        if len(items) % 2:
            paired.append(items[-1])
        items = paired
    expr, depth = items[0]
    assert isinstance(expr, ast.Binary)
    return dataclasses.replace(expr, pos=pos), depth


def _rebuild(e: ast.Expr, kids: list[ast.Expr], done: list[tuple[ast.Expr, int]],
             folded: bool) -> tuple[ast.Expr, int]:
    if folded:
        assert isinstance(e, ast.Binary)
        if e.op == "\\":  # (a \ b) \ c is a \ (b | c)
            (first, d0), (rest, dr) = done[0], _balanced("|", done[1:], done[1][0].pos)
            return ast.Binary("\\", first, rest, pos=e.pos), max(d0, dr) + 1
        return _balanced(e.op, done, e.pos)
    depth = 1 + max((d for _, d in done), default=0)
    new = [x for x, _ in done]
    if all(a is b for a, b in zip(new, kids, strict=True)):
        return e, depth
    if isinstance(e, ast.Binary):
        return dataclasses.replace(e, left=new[0], right=new[1]), depth
    if isinstance(e, ast.Unary | ast.Bracket):
        return dataclasses.replace(e, arg=new[0]), depth
    assert isinstance(e, ast.App)
    return dataclasses.replace(e, args=tuple(new)), depth


def _fold(root: ast.Expr) -> ast.Expr:
    """``root`` with every chain of more than :data:`CHAIN_FOLD` operands of one
    associative operator regrouped as a balanced tree (the same relation), walked
    without recursion; a CatError where what is left nests deeper than
    :data:`~gdrcheck.limits.MAX_EXPR_DEPTH` (``~~~~r``, ``f(f(f(r)))``, ...)."""
    done: list[tuple[ast.Expr, int]] = []
    todo: list[tuple[ast.Expr, list[ast.Expr] | None, bool]] = [(root, None, False)]
    while todo:
        e, kids, folded = todo.pop()
        if kids is None:
            kids, folded = _children(e)
            todo.append((e, kids, folded))
            todo += ((k, None, False) for k in reversed(kids))
            continue
        n = len(kids)
        results = done[len(done) - n:]
        del done[len(done) - n:]
        new, depth = _rebuild(e, kids, results, folded)
        if depth > MAX_EXPR_DEPTH:
            raise CatError(f"expression nested too deeply (more than {MAX_EXPR_DEPTH} levels; "
                           "name parts of it with let)", None, getattr(e, "pos", Pos()))
        done.append((new, depth))
    return done[0][0]


def _check_cond_depth(cond: ast.VCond, pos: Pos) -> None:
    """A CatError when the variant condition ``cond`` nests deeper than
    :data:`~gdrcheck.limits.MAX_EXPR_DEPTH` (measured without recursion)."""
    stack: list[tuple[ast.VCond, int]] = [(cond, 1)]
    while stack:
        c, depth = stack.pop()
        if depth > MAX_EXPR_DEPTH:
            raise CatError(f"variant condition nested too deeply (more than "
                           f"{MAX_EXPR_DEPTH} levels)", None, pos)
        if isinstance(c, ast.VNot):
            stack.append((c.arg, depth + 1))
        elif not isinstance(c, ast.VName):
            stack += ((c.left, depth + 1), (c.right, depth + 1))
