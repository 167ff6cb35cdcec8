"""A repair of an extracted test, at the kernel's source lines and in the API's spelling
(docs/kernels.md, "Fix"; docs/fix.md, "Kernels").

``gdrcheck fix FILE.cu`` repairs the extracted litmus test (gdrcheck/analysis/fix.py); each
edit names a litmus instruction (thread, index), which the source map of the extraction
(:class:`gdrcheck.kernel.test.KernelTest`) takes back to the line it came from and the API
call it stands for. Every thread of a kernel runs the same code, so the edits of several
threads at one source line are one edit of the source: making the strengthening in every
thread that runs the line is a stronger program than the repaired test, which the repair
search's monotonicity (docs/fix.md) keeps Forbidden.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from gdrcheck.kernel.extract import Line
from gdrcheck.kernel.test import KernelTest
from gdrcheck.litmus import ast as A
from gdrcheck.litmus.printer import instr as print_instr


class EditLike(Protocol):
    """What a repair's edit says (gdrcheck.analysis.strengthen.Edit, read only)."""

    @property
    def entry(self) -> str: ...
    @property
    def cost(self) -> int: ...
    @property
    def thread(self) -> int: ...
    @property
    def index(self) -> int: ...
    @property
    def action(self) -> str: ...
    @property
    def instr(self) -> object: ...
    @property
    def text(self) -> str: ...
    @property
    def span(self) -> int: ...


@dataclass(frozen=True)
class SourceEdit:
    """One edit of the kernel's source: at ``file:line``, what to do, in the API's words."""

    file: str
    line: int
    end_line: int  # the last line the edit touches (a replacement of two calls)
    words: str  # "insert nvshmem_fence() before nvshmemx_signal_op(psync, 1, ...)"
    entry: str  # the catalogue entry (shmem.fence)
    cost: int
    threads: tuple[int, ...]  # the litmus threads whose edits this is

    def render(self) -> str:
        lines = f"{self.line}" if self.end_line == self.line else f"{self.line}-{self.end_line}"
        return f"{self.file}:{lines}: {self.words}"


_SCOPES = {"cta": "cuda::thread_scope_block", "gpu": "cuda::thread_scope_device",
           "sys": "cuda::thread_scope_system"}
_THREADFENCE = {"cta": "__threadfence_block()", "gpu": "__threadfence()",
                "sys": "__threadfence_system()"}
_ORDERS = {"acq_rel": "cuda::memory_order_acq_rel", "acquire": "cuda::memory_order_acquire",
           "release": "cuda::memory_order_release", "sc": "cuda::memory_order_seq_cst"}


def source_edits(kt: KernelTest, edits: list[EditLike]) -> list[SourceEdit]:
    """The repair's edits at the source lines, one per source line and change."""
    out: dict[tuple[str, int, str], SourceEdit] = {}
    for e in sorted(edits, key=lambda e: (e.thread, e.index)):
        se = _one(kt, e)
        key = (se.file, se.line, se.words)
        if key in out:
            old = out[key]
            out[key] = SourceEdit(old.file, old.line, old.end_line, old.words, old.entry,
                                  old.cost, (*old.threads, e.thread))
        else:
            out[key] = se
    return sorted(out.values(), key=lambda s: (s.file, s.line, s.words))


def _one(kt: KernelTest, e: EditLike) -> SourceEdit:
    file = _display(kt.extraction.path)
    if e.thread < 0:  # an init item: the host's initialisation, not a line of the kernel
        return SourceEdit(file, 0, 0, f"in the host's setup: {e.text} (the extracted test's "
                          "init block)", e.entry, e.cost, ())
    new = e.instr if isinstance(e.instr, tuple) else (e.instr,)
    at = _source_line(kt, e.thread, e.index)
    if e.action == "insert":
        if at is not None and at.pos is not None:
            return _edit(kt, e, at, at, f"insert {_spell_all(kt, new, [at])} before "
                         f"{_call_text(kt, at)}")
        before = _previous(kt, e.thread, e.index)
        if before is not None and before.pos is not None:
            return _edit(kt, e, before, before, f"insert {_spell_all(kt, new, [before])} after "
                         f"{_call_text(kt, before)}")
        return SourceEdit(file, 0, 0, f"{e.text} (P{e.thread}: no source line)", e.entry,
                          e.cost, (e.thread,))
    olds = [ln for k in range(e.span) if (ln := _source_line(kt, e.thread, e.index + k))
            is not None and ln.pos is not None]
    if not olds:
        return SourceEdit(file, 0, 0, f"{e.text} (P{e.thread}: no source line)", e.entry,
                          e.cost, (e.thread,))
    what = " and ".join(dict.fromkeys(_call_text(kt, ln) for ln in olds))
    return _edit(kt, e, olds[0], olds[-1], f"replace {what} by {_spell_all(kt, new, olds)}")


def _edit(kt: KernelTest, e: EditLike, first: Line, last: Line, words: str) -> SourceEdit:
    assert first.pos is not None and last.pos is not None
    lines = sorted((first.pos.line, last.pos.line))
    return SourceEdit(_display(first.pos.file), lines[0], lines[1], words, e.entry, e.cost,
                      (e.thread,))


def _display(path: str) -> str:
    try:
        return str(Path(path).resolve().relative_to(Path.cwd()))
    except ValueError:
        return path


def _source_line(kt: KernelTest, thread: int, index: int) -> Line | None:
    """The source of instruction ``index`` (labels count, as in the test's list)."""
    return kt.source_of(thread, index)


def _previous(kt: KernelTest, thread: int, index: int) -> Line | None:
    for k in range(index - 1, -1, -1):
        ln = kt.source_of(thread, k)
        if ln is not None and ln.pos is not None:
            return ln
    return None


def _source_text(kt: KernelTest, ln: Line) -> str:
    assert ln.pos is not None
    same = Path(ln.pos.file).resolve() == Path(kt.extraction.path).resolve()
    try:
        text = (Path(kt.extraction.path).read_text(encoding="utf-8") if same
                else Path(ln.pos.file).read_text(encoding="utf-8"))
    except OSError:
        return ""
    rows = text.splitlines()
    return rows[ln.pos.line - 1] if 0 < ln.pos.line <= len(rows) else ""


def _call_args(kt: KernelTest, ln: Line) -> list[str] | None:
    """The arguments of the call of ``ln.what`` on its source line, as written."""
    name = ln.what
    row = _source_text(kt, ln)
    if not name or not re.fullmatch(r"[A-Za-z_]\w*", name):
        return None
    m = re.search(rf"\b{re.escape(name)}\s*\(", row)
    if m is None:
        return None
    depth, args, cur = 1, [], ""
    for ch in row[m.end():]:
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
            if depth == 0:
                args.append(cur.strip())
                return [a for a in args if a] if args != [""] else []
        if ch == "," and depth == 1:
            args.append(cur.strip())
            cur = ""
        else:
            cur += ch
    return None  # the call goes on past its first line


def _call_text(kt: KernelTest, ln: Line) -> str:
    """``nvshmemx_signal_op(psync, 1, NVSHMEM_SIGNAL_SET, peer)`` as the source has it, else
    what the instruction stands for."""
    args = _call_args(kt, ln)
    if args is not None:
        return f"{ln.what}({', '.join(args)})"
    return ln.what or ln.text


def _spell_all(kt: KernelTest, new: tuple[object, ...], olds: list[Line]) -> str:
    return " and ".join(_spell(kt, x, olds) for x in new)


def _spell(kt: KernelTest, x: object, olds: list[Line]) -> str:
    """The API call, CUDA construct or inline PTX the kernel's author would write for the
    litmus instruction ``x``; the litmus text when there is none."""
    if isinstance(x, A.ShmemCall):
        if x.op in ("fence", "quiet", "barrier_all"):
            return f"nvshmem_{x.op}()"
        if x.op in ("put_signal", "put_signal_nbi") and len(olds) == 2:
            put, sig = (_call_args(kt, ln) for ln in olds)
            name = olds[0].what.replace("_put", "_put_signal", 1)
            if put is not None and sig is not None and len(put) == 4 and len(sig) == 4 \
                    and "_put" in olds[0].what:
                return f"{name}({', '.join([*put[:3], *sig[:3], put[3]])})"
            return f"{name}(...)"
    if isinstance(x, A.PtxFence) and x.scope is not None:
        if x.kind == "sc":
            return _THREADFENCE[x.scope]
        if x.kind in _ORDERS:
            return (f"cuda::atomic_thread_fence({_ORDERS[x.kind]}, {_SCOPES[x.scope]})")
    if isinstance(x, (A.PtxLoad, A.PtxStore)) and x.scope is not None and olds:
        old = olds[0]
        if old.what in ("load", "store", "volatile load", "volatile store"):
            op = "load()" if isinstance(x, A.PtxLoad) else "store(v)"
            order = _ORDERS.get(x.sem, f"cuda::memory_order_{x.sem}")
            return (f"cuda::atomic_ref<T, {_SCOPES[x.scope]}>(...).{op.replace(')', '')}"
                    f"{', ' if isinstance(x, A.PtxStore) else ''}{order})")
        return f"asm volatile(\"{print_instr(x).split()[0]} ...\")"
    return f"`{print_instr(x)}` (the extracted test's spelling)"  # type: ignore[arg-type]
