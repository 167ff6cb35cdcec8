"""The reports of ``gdrcheck fix`` (:mod:`gdrcheck.analysis.fix`): herd-style text, the
repaired test, and JSON (``gdrcheck.fix/1``)."""

from __future__ import annotations

import dataclasses
import difflib
from typing import TYPE_CHECKING, Any

from gdrcheck.analysis.fix import FixResult, Repair
from gdrcheck.litmus import ast as A
from gdrcheck.litmus.printer import print_litmus
from gdrcheck.report.herd import format_prop

if TYPE_CHECKING:
    from gdrcheck.kernel.test import KernelTest

SCHEMA = "gdrcheck.fix/1"


def repair_diff(test: A.Test, repair: Repair) -> list[str]:
    """The lines the repair changes, as a unified diff (no context lines) of the user's
    file and the repaired one: its hunks name the user's line numbers. A test without
    source text (built in code) or a re-printed repair is diffed as the round-trip
    printer prints both."""
    if test.source is not None and not repair.reprinted:
        before = test.source.splitlines()
    else:
        plain = dataclasses.replace(test, meta=tuple(
            m for m in test.meta if m.key not in ("Expect", "Liveness")))
        before = print_litmus(plain).splitlines()
    after = repair.text.splitlines() if repair.text else print_litmus(repair.test).splitlines()
    return [line for line in difflib.unified_diff(before, after, "before", "after",
                                                  lineterm="", n=0)
            if not line.startswith(("---", "+++"))]


def stale_expectations(test: A.Test, repair: Repair) -> list[str]:
    """The ``Expect=`` entries of the user's file, kept in the repaired one, that the
    repair's verdicts contradict (``line N: model:Verdict, now Verdict``)."""
    out = []
    for e in test.expectations:
        name = "+".join((e.model, *e.variants))
        now = repair.verdicts.get(name)
        if now is not None and now.split(" ")[0] != e.verdict:
            out.append(f"line {e.pos.line}: {name}:{e.verdict}, now {now}")
    return out


def _edit_where(e: Any) -> str:
    return "init" if e.thread < 0 else f"P{e.thread}:{e.index + 1}"


def format_fix(test: A.Test, r: FixResult) -> str:
    cond = f"{test.condition.quantifier} ({format_prop(test.condition.prop)})"
    targets = ", ".join(r.targets) + (" (every variant)" if r.every_variant else "")
    out = [f"Fix {r.test} under {targets}: {cond}",
           "Before " + ", ".join(f"{m} {v}" for m, v in r.before.items())]
    live = r.goal == "live"
    if live:
        out.append("Goal Live under every target, the condition still holding (a hang "
                   "repaired: docs/liveness.md)")
    if r.status == "already":
        out.append("Already Live with its condition holding under every target: nothing "
                   "to fix." if live else "Already forbidden under every target: nothing "
                   "to fix.")
    elif r.status == "impossible":
        limit = f" costing at most {r.max_cost}" if r.max_cost is not None else ""
        what = ("makes the test Live with its condition holding" if live
                else "forbids the outcome")
        out.append(f"No set of catalogued {'changes' if live else 'strengthenings'}{limit} "
                   f"{what} under every target ({r.candidates} candidate "
                   f"{'moves' if live else 'edits'}; gdrcheck fix --help lists the "
                   "catalogue).")
    for n, rep in enumerate(r.repairs, 1):
        out.append(f"Repair {n} (cost {rep.cost}):")
        for e in sorted(rep.edits, key=lambda e: (e.thread, e.index)):
            out.append(f"  {_edit_where(e)} {e.text} [{e.entry}, cost {e.cost}]")
        out.extend(f"  {line}" for line in repair_diff(test, rep))
        out.append("After " + ", ".join(f"{m} {v}" for m, v in rep.verdicts.items()))
        if rep.reprinted:
            out.append("Note the test has no text to edit: the repair is the printer's "
                       "text, without Expect= lines")
        stale = stale_expectations(test, rep)
        if stale:
            out.append("Note the repaired file keeps your Expect= lines; these no longer "
                       "hold: " + "; ".join(stale))
    for words, rep in r.reorderings:
        out.append(f"Reordering (not a strengthening: it changes the order of the program; "
                   f"checked on its own): {words}")
        out.extend(f"  {line}" for line in repair_diff(test, rep))
        out.append("After " + ", ".join(f"{m} {v}" for m, v in rep.verdicts.items()))
    if r.status == "fixed":
        out.append("Minimal: every cheaper set of edits was checked or excluded by "
                   "monotonicity (a subset of a failing set fails)." if not live else
                   "Minimal: every cheaper set was checked, or excluded by monotonicity "
                   "(strengthenings of a set that still hangs, weakened or left out, "
                   "still hang).")
    if r.reason:
        out.append(f"Unknown {r.reason}")
    if r.strategy == "shared" and r.shared_edits:
        how = (f"{r.shared_edits} of them selectors of one shared encoding, "
               f"{r.fallbacks} set(s) encoded on their own")
    elif r.strategy == "shared":
        how = "one set, encoded on its own: the shared encoding is built for the second"
    else:
        how = "each set encoded on its own"
    out.append(f"Queries {r.queries} candidate set(s) checked, {r.candidates} candidate "
               f"edits ({how}), {r.time:.2f} s")
    if r.mismatches:
        out.append(f"Warning the shared encoding called {r.mismatches} set(s) a repair that "
                   "the edited test's own check did not (its answer was kept): a bug, "
                   "please report it")
    return "\n".join(out)


def fix_json(test: A.Test, r: FixResult) -> dict[str, Any]:
    return {
        "schema": SCHEMA,
        "test": r.test,
        "file": r.file,
        "targets": r.targets,
        "every_variant": r.every_variant,
        "condition": f"{test.condition.quantifier} ({format_prop(test.condition.prop)})",
        "status": r.status,
        "goal": r.goal,
        "before": r.before,
        "repairs": [{
            "cost": rep.cost,
            "edits": [{"entry": e.entry, "cost": e.cost, "thread": e.thread,
                       "index": e.index, "action": e.action, "text": e.text}
                      for e in rep.edits],
            "diff": repair_diff(test, rep),
            "test": rep.text or print_litmus(rep.test),
            "reprinted": rep.reprinted,
            "stale_expect": stale_expectations(test, rep),
            "verdicts": rep.verdicts,
        } for rep in r.repairs],
        "reorderings": [{
            "text": words,
            "diff": repair_diff(test, rep),
            "test": rep.text or print_litmus(rep.test),
            "verdicts": rep.verdicts,
        } for words, rep in r.reorderings],
        "candidates": r.candidates,
        "queries": r.queries,
        "strategy": r.strategy,
        "shared_edits": r.shared_edits,
        "fallbacks": r.fallbacks,
        "mismatches": r.mismatches,
        "max_cost": r.max_cost,
        "reason": r.reason,
        "time": round(r.time, 6),
    }


def format_kernel_fix(kt: KernelTest, r: FixResult) -> str:
    """``gdrcheck fix FILE.cu``: each repair of the extracted test as edits of the kernel's
    source lines, in the API's spelling (gdrcheck/kernel/fix.py)."""
    from gdrcheck.kernel.fix import source_edits

    test = kt.test
    cond = f"{test.condition.quantifier} ({format_prop(test.condition.prop)})"
    targets = ", ".join(r.targets) + (" (every variant)" if r.every_variant else "")
    out = [f"Fix {r.test} ({kt.extraction.path}) under {targets}: {cond}",
           "Before " + ", ".join(f"{m} {v}" for m, v in r.before.items())]
    if r.status == "already":
        out.append("Already forbidden under every target: nothing to fix.")
    elif r.status == "impossible":
        limit = f" costing at most {r.max_cost}" if r.max_cost is not None else ""
        out.append(f"No set of catalogued strengthenings{limit} forbids the outcome under "
                   f"every target ({r.candidates} candidate edits; gdrcheck fix --help lists "
                   "the catalogue).")
    for n, rep in enumerate(r.repairs, 1):
        out.append(f"Repair {n} (cost {rep.cost}):")
        for se in source_edits(kt, list(rep.edits)):
            threads = ", ".join(f"P{t}" for t in se.threads)
            out.append(f"  {se.render()} [{se.entry}, cost {se.cost}"
                       + (f"; {threads}" if threads else "") + "]")
        out.append("After " + ", ".join(f"{m} {v}" for m, v in rep.verdicts.items())
                   + " (the extracted test with the repair, re-checked)")
    for words, rep in r.reorderings:
        out.append(f"Reordering (not a strengthening; checked on its own): {words}")
        out.append("After " + ", ".join(f"{m} {v}" for m, v in rep.verdicts.items()))
    if r.status == "fixed":
        out.append("Minimal: every cheaper set of edits was checked or excluded by "
                   "monotonicity (a subset of a failing set fails).")
    if r.reason:
        out.append(f"Unknown {r.reason}")
    out.append(f"Queries {r.queries} candidate set(s) checked, {r.candidates} candidate "
               f"edits, {r.time:.2f} s")
    return "\n".join(out)


def kernel_fix_json(kt: KernelTest, r: FixResult) -> dict[str, Any]:
    """``gdrcheck.fix/1`` of the extracted test, with each repair's ``source_edits``."""
    from gdrcheck.kernel.fix import source_edits

    rec = fix_json(kt.test, r)
    rec["kernel"] = kt.extraction.path
    for out, rep in zip(rec["repairs"], r.repairs, strict=True):
        out["source_edits"] = [{"file": se.file, "line": se.line, "end_line": se.end_line,
                                "text": se.words, "entry": se.entry, "cost": se.cost,
                                "threads": list(se.threads)}
                               for se in source_edits(kt, list(rep.edits))]
    return rec
