"""What ``gdrcheck kernel`` prints after herd's layout: the kernel's answer in words and the
witness in terms of the user's source lines (docs/kernels.md, "Output")."""

from __future__ import annotations

from gdrcheck.engine.result import Result, Witness
from gdrcheck.kernel import binary32
from gdrcheck.kernel.extract import Line
from gdrcheck.kernel.test import KernelTest
from gdrcheck.litmus import printer


def _float(code: int) -> str:
    """The float a code in memory stands for (docs/kernels.md, "Floats in memory")."""
    try:
        return binary32.show(binary32.decode(code))
    except binary32.Binary32Error:
        return "?"


def _where(ln: Line | None) -> str:
    if ln is None or ln.pos is None:
        return "(no source line)"
    return str(ln.pos)


def _described(ln: Line | None) -> str:
    if ln is None:
        return "?"
    what = f"{ln.what} " if ln.what else ""
    return f"{_where(ln)} {what}{ln.text}".rstrip()


def kernel_summary(kt: KernelTest, res: Result) -> list[str]:
    """One ``Kernel`` line (and the lines it names) for a result."""
    name = kt.test.name
    head = f"Kernel {name} {res.model}:"
    if res.verdict == "Unknown":
        return [f"{head} unknown ({res.reason or 'no answer'})"]
    if res.verdict == "Undefined":
        return [f"{head} undefined: the model flags {', '.join(res.flags) or 'misuse'}"]
    if res.vacuous:
        out = [f"{head} no execution completes: every execution hangs at a wait"]
        for w in res.blocked:
            out.append(f"  never satisfied: {_described(kt.source_of(w.thread, w.row - 1))}")
        return out
    if res.verdict == "Allowed":
        failing = _failing(kt, res.witness)
        out = [f"{head} an assert can fail"]
        out.extend(f"  {where} assert({expr}) fails on P{t}" for t, where, expr in failing)
        if not failing:
            out.extend(f"  {f.pos or '?'} assert({f.expr}) of the host check can fail on "
                       f"rank {f.rank}" for f in kt.extraction.host_failures)
        return out
    held = ([f"  and the extraction's assumption holds in every execution ({ASSUMED})"]
            if kt.extraction.assumes else [])
    if not kt.extraction.asserts and not kt.extraction.host_failures:
        return [f"{head} no assert to fail; some execution completes", *held]
    return [f"{head} no assert can fail", *held]


ASSUMED = ("each float read sees a value stored by a thread that had passed no more CTA "
           "barriers than the reader, docs/kernels.md \"Assumed values\"")


def _failing(kt: KernelTest, w: Witness | None) -> list[tuple[int, str, str]]:
    if w is None:
        return []
    state = dict(w.state)
    out = []
    for a in kt.extraction.asserts:
        if state.get(f"{a.thread}:{a.reg}") == 1:
            out.append((a.thread, str(a.pos) if a.pos else "?", a.expr))
    return out


def source_witness(kt: KernelTest, w: Witness) -> list[str]:
    """The witness's thread events, each with the source line of its instruction."""
    out = ["Witness in the source:"]
    for th in kt.test.threads:
        printed = [printer.instr(i) for i in th.instrs]
        events = [e for e in w.events if e.thread == th.index and not e.agent]
        if not events:
            continue
        code = kt.extraction.threads[th.index]
        out.append(f"  P{th.index} (rank {code.rank}, CTA {code.cta}, thread {code.tid}):")
        k = 0
        for e in events:
            label = e.label
            found = None
            for step in range(len(printed)):
                j = (k + step) % len(printed)
                if printed[j] == label:
                    found = j
                    break
            ln = kt.source_of(th.index, found) if found is not None else None
            if found is not None:
                k = found
            value = (f" {e.kind}({e.loc})={e.value}" if e.kind in ("R", "W") and e.loc
                     else "")
            if value and e.loc and isinstance(e.value, int) \
                    and kt.extraction.float_location(e.loc):
                value += f" (float {_float(e.value)})"
            what = f" {ln.what}" if ln is not None and ln.what else ""
            out.append(f"    {_where(ln)}{what}: {label}{value}")
    return out
