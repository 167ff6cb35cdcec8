"""The extracted threads as a GIN litmus test, parsed by the litmus front end, with the map
from each litmus instruction back to its source line (docs/kernels.md, "Properties").
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

from gdrcheck.errors import InputError, Pos
from gdrcheck.kernel.extract import _LOC_RE, MULTICAST, Extraction, KernelError, Line
from gdrcheck.kernel.ir import SrcPos
from gdrcheck.kernel.values import BoolOp, Cond, Not, Scalar, Sym
from gdrcheck.litmus import ast as A
from gdrcheck.litmus import parse_litmus


@dataclass(frozen=True)
class KernelTest:
    """A kernel's extracted test: the litmus text, its parse, and the source map."""

    extraction: Extraction
    text: str
    test: A.Test
    rows: tuple[tuple[Line, ...], ...]  # per thread: the line of each litmus instruction
    # when the extraction assumes (docs/kernels.md, "Assumed values"): the same test over
    # the executions that keep the assumption (a filter), its condition an assert failing
    kept: A.Test | None = None

    def source_of(self, thread: int, instr: int) -> Line | None:
        lines = self.rows[thread] if 0 <= thread < len(self.rows) else ()
        return lines[instr] if 0 <= instr < len(lines) else None


def test_name(ex: Extraction) -> str:
    cfg = ex.config
    return f"{cfg.kernel}+r{cfg.ranks}g{cfg.grid}b{cfg.block}"


def build_test(ex: Extraction, expect: tuple[str, ...] = (),
               liveness: tuple[str, ...] = ()) -> KernelTest:
    """The litmus test of ``ex``; ``expect``/``liveness``: ``MODEL:VERDICT`` entries."""
    cfg = ex.config
    rows = [[_named(ex, ln, th.rank) for ln in th.lines] for th in ex.threads]
    file = Path(ex.path).name
    args = " --arg ".join(f"{k}={','.join(map(_arg_text, v))}" for k, v in cfg.args)
    doc = (f"extracted by gdrcheck kernel from {file}: --kernel {cfg.kernel} --ranks "
           f"{cfg.ranks} --grid {cfg.grid} --block {cfg.block}"
           + (f" --nodes {','.join(map(str, cfg.nodes))}" if cfg.nodes else "")
           + (f" --arg {args}" if args else "")
           + (f"; the condition's {', '.join(f'{t}:{r}' for t, r in ex.guards)} are the "
              "extraction's assumption registers (docs/kernels.md, Assumed values)"
              if ex.guards else ""))
    out = [f"GIN {test_name(ex)}", f'"{doc}"']
    if expect:
        out.append("Expect=" + ",".join(expect))
    if liveness:
        out.append("Liveness=" + ",".join(liveness))
    out.append(f"Source={file}")
    init: list[str] = []
    multicasts: list[str] = []
    for base in sorted(ex.indices):
        for k in sorted(ex.indices[base]):
            name = ex.location_name(base, k)
            if base.startswith(MULTICAST):  # bound on every rank: one LSA team (calls.py)
                under = ex.location_name(base[len(MULTICAST):], k)
                multicasts.append(f"multicast {name} = {under};")
            elif base in ex.shared:
                init.append(f"{name} : shared = 0;")
            elif any((base, r, k) in ex.init_values for r in range(cfg.ranks)):
                init.extend(f"{name}@{r} = {ex.init_values.get((base, r, k), 0)};"
                            for r in range(cfg.ranks))
            else:
                init.append(f"{name} = 0;")
    init.extend(f"{sig} : signal;" for sig in sorted(ex.signals))
    init.extend(multicasts)
    out.append("{ " + " ".join(init) + " }")
    heads = [f"P{th.index}@cta {th.cta},gpu {th.rank},node {cfg.node_of(th.rank)}"
             for th in ex.threads]
    height = max((len(r) for r in rows), default=0)
    cells = [[r[k].text if k < len(r) else "" for k in range(height)] for r in rows]
    widths = [max([len(h), *(len(c) for c in col)]) for h, col in zip(heads, cells,
                                                                        strict=True)]
    first_row = len(out) + 2  # 1-based line of the first instruction row
    out.append(" " + " | ".join(h.ljust(w) for h, w in zip(heads, widths, strict=True)) + " ;")
    for k in range(height):
        out.append(" " + " | ".join(col[k].ljust(w) for col, w in zip(cells, widths,
                                                                      strict=True)) + " ;")
    failures, broken = _failures(ex), _assumption(ex)
    out.append(_exists(failures + broken))
    text = "\n".join(out) + "\n"
    lines = tuple(tuple(Line(c.text, c.pos, c.what) for c in r) for r in rows)
    try:
        test = parse_litmus(text, f"{ex.path} (extracted)")
    except InputError as err:
        raise _at_source(err, ex, lines, widths, first_row) from None
    kept = None
    if broken:  # the executions that keep the assumption, and an assert that fails
        keep = "filter (~(" + " \\/ ".join(broken) + "))"
        kept_text = "\n".join([*out[:-1], keep, _exists(failures)]) + "\n"
        kept = parse_litmus(kept_text, f"{ex.path} (extracted, the assumption kept)")
    # the parser drops empty cells: instruction i of a thread is its i-th non-empty cell
    return KernelTest(ex, text, test, lines, kept)


def _named(ex: Extraction, ln: Line, own: int) -> Line:
    """The line with its locations named: ``x`` on the thread's own rank, else ``x@k``; a
    one-sided call's remote operand ``x@k`` always."""

    def name(m: re.Match[str]) -> str:
        base, rank, index = m.group(1), int(m.group(2)), int(m.group(3))
        remote = m.group(4) is not None
        return ex.location_name(base, index) + ("" if rank == own and not remote
                                                else f"@{rank}")

    text = _LOC_RE.sub(name, ln.text)
    return Line(text, ln.pos, ln.what)


def _exists(terms: list[str]) -> str:
    return "exists (" + " \\/ ".join(terms) + ")" if terms else "exists (false)"


def _failures(ex: Extraction) -> list[str]:
    """Some device assert fails, or some rank's host check does."""
    terms = [f"{a.thread}:{a.reg} = 1" for a in ex.asserts]
    terms.extend(_prop(ex, f.fails, f.pos) for f in ex.host_failures)
    return terms


def _assumption(ex: Extraction) -> list[str]:
    """The extraction's assumption fails (docs/kernels.md, "Assumed values"): some thread's
    assumption register is 1, or some final value the host check reads is none of the
    values its table covers."""
    terms = [f"{t}:{reg} = 1" for t, reg in ex.guards]
    for g in ex.final_guards:
        loc = _term(ex, Sym(g.where))
        terms.append("~(" + " \\/ ".join(f"{loc} = {c}" for c in g.codes) + ")")
    return terms


def _prop(ex: Extraction, c: Cond | bool, pos: SrcPos | None) -> str:
    """A condition over final values as a litmus proposition."""
    if isinstance(c, bool):
        return "true" if c else "false"
    if isinstance(c, Not):
        return f"~({_prop(ex, c.c, pos)})"
    if isinstance(c, BoolOp):
        op = " /\\ " if c.op == "and" else " \\/ "
        return f"({_prop(ex, c.a, pos)}{op}{_prop(ex, c.b, pos)})"
    if c.op not in ("eq", "ne"):
        raise KernelError("a host check compares values read with == or != only (litmus "
                          "conditions)", ex.path, Pos(pos.line, max(pos.col, 1)) if pos else None)
    return f"{_term(ex, c.a)} {'=' if c.op == 'eq' else '!='} {_term(ex, c.b)}"


def _term(ex: Extraction, v: Scalar) -> str:
    if isinstance(v, int):
        return str(v)
    m = _LOC_RE.fullmatch(v.reg)
    if m is None:
        raise KernelError(f"a host check compares {v.reg}, which is not a value read")
    return f"{ex.location_name(m.group(1), int(m.group(3)))}@{m.group(2)}"


def _at_source(err: InputError, ex: Extraction, lines: tuple[tuple[Line, ...], ...],
               widths: list[int], first_row: int) -> InputError:
    """A litmus parse error of an extracted instruction, at the source line it came from."""
    row = err.pos.line - first_row
    col = err.pos.col - 1
    start = 1
    for t, w in enumerate(widths):
        if start <= col < start + w + 3 and 0 <= row < len(lines[t]):
            ln = lines[t][row]
            message = f"{ln.text!r} (from {ln.what or 'the kernel'}): {err.message}"
            if ln.pos is None:
                return KernelError(message, ex.path)
            same = Path(ln.pos.file).resolve() == Path(ex.path).resolve()
            return KernelError(message, ex.path if same else ln.pos.file,
                               Pos(ln.pos.line, max(ln.pos.col, 1)))
        start += w + 3
    return KernelError(f"the extracted test does not parse: {err.message}", ex.path)


def _arg_text(v: int | Fraction) -> str:
    """An --arg value as it was given: an integer, or the decimal a float argument is (its
    denominator divides a power of ten: config.parse_arg reads decimals only)."""
    if isinstance(v, int) or v.denominator == 1:
        return str(int(v))
    digits = 0
    while (v * 10 ** digits).denominator != 1:
        digits += 1
    n = abs(v.numerator * 10 ** digits // v.denominator)
    text = str(n).rjust(digits + 1, "0")
    return ("-" if v < 0 else "") + text[:-digits] + "." + text[-digits:]
