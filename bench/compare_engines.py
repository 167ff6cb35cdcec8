"""The portfolio against z3: does ``--engine auto`` answer every test as ``--engine smt``?

    PYTHONPATH=$PWD python bench/compare_engines.py [DIR_OR_PEER ...] [--json out.json]

Default: every test of litmus/ under every model of its Expect= lines, and the peer
suites in $GDRCHECK_PEERS (herd-x86 under x86tso and sc, dat3m-ptx under ptx,
dat3m-ptx75 under ptx75, as ``gdrcheck validate`` runs them). For each (test, model)
the portfolio takes the explicit engine (at most AUTO_EXPLICIT_BOUND candidates),
the test is answered by both engines, twice: without and with ``states``. Compared:
verdict, positive/negative, flags, liveness, vacuous, vacuity (the words), blocked
waits; with states: the set of final states and the per-side counts. The axioms named
(``Rejected-by``) and the presence of a witness are compared too, but listed apart:
they are output, not the answer (docs/output.md, ``Rejected-by``); the checks the
explicit engine names are confirmed in z3 (the outcome with only those checks asserted,
every candidate kept, is unsat).
Exit status 1 when an answer differs.
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from gdrcheck.analysis.check import check_test
from gdrcheck.analysis.options import AUTO_EXPLICIT_BOUND, CheckOptions
from gdrcheck.analysis.validate import PEER_SUITES, peers_dir
from gdrcheck.engine.explicit import candidate_bound
from gdrcheck.engine.result import Result
from gdrcheck.errors import InputError
from gdrcheck.litmus import ast as A
from gdrcheck.litmus import load_litmus
from gdrcheck.lower import lower

ROOT = Path(__file__).resolve().parents[1]
PEERS = peers_dir()  # GDRCHECK_PEERS: the peer suites (docs/peer-differences.md)


@dataclass(frozen=True)
class Job:
    suite: str
    path: Path
    model: str
    variants: tuple[str, ...]

    @property
    def label(self) -> str:
        return f"{self.path} {'+'.join((self.model, *self.variants))}"


def library_jobs(root: Path) -> Iterator[Job]:
    for path in sorted(root.rglob("*.litmus")):
        try:
            test = load_litmus(str(path))
        except InputError:
            continue
        seen: set[tuple[str, tuple[str, ...]]] = set()
        for e in test.expectations:
            if (e.model, e.variants) not in seen:
                seen.add((e.model, e.variants))
                yield Job(root.name, path, e.model, e.variants)


def peer_jobs(folder: Path) -> Iterator[Job]:
    herd = folder / "herd7-verdicts.csv"
    if herd.exists():
        with herd.open() as fh:
            for rec in csv.reader(fh):
                if len(rec) == 3 and rec[0] != "file":
                    yield Job(folder.name, folder / rec[0], rec[1], ())
        return
    for exp in sorted(folder.glob("*-expected.csv")):
        model = "ptx75" if exp.name.startswith("PTXv7_5") else "ptx"
        with exp.open() as fh:
            for rec in csv.reader(fh):
                if len(rec) == 2 and rec[1].strip().isdigit():
                    yield Job(folder.name, folder / rec[0], model, ())


def answer(r: Result, states: bool) -> dict[str, object]:
    out: dict[str, object] = {
        "verdict": str(r.verdict), "positive": r.positive, "negative": r.negative,
        "flags": sorted(r.flags), "liveness": sorted(r.liveness), "vacuous": r.vacuous,
        "vacuity": r.vacuity, "blocked": sorted(w.text for w in r.blocked),
    }
    if states:
        out["states"] = None if r.states is None else sorted(
            tuple(sorted(s)) for s in r.states)
        out["pos_states"], out["neg_states"] = r.pos_states, r.neg_states
    return out


def confirmed_by_z3(test: A.Test, job: Job, r: Result) -> bool:
    """Do the checks the explicit engine names rule its outcome out in z3 too? P (~P
    for forall) with only those checks asserted, over every candidate (no pruning),
    must be unsat."""
    import z3

    from gdrcheck.analysis.check import prepare
    from gdrcheck.engine.smt import build_query, query_solver

    _, loaded, chosen = prepare(test, job.model, job.variants)
    q = build_query(lower(test), loaded.stmts, chosen, test, loaded.path_of)
    s = query_solver(q)
    named = set(r.axioms)
    lits = [lit for n, lit in q.axiom_lits.items() if n.split("#")[0] in named]
    target = z3.Not(q.prop) if r.quantifier == "forall" else q.prop
    return bool(s.check(*lits, target) == z3.unsat)


def output(r: Result) -> dict[str, object]:
    return {"axioms": sorted(r.axioms), "witness": r.witness is not None}


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("roots", nargs="*", type=Path)
    ap.add_argument("--json", type=Path)
    args = ap.parse_args()
    peers = [] if PEERS is None else [PEERS / p for p in PEER_SUITES if (PEERS / p).is_dir()]
    if PEERS is None and not args.roots:
        print("GDRCHECK_PEERS is not set: the peer suites are skipped", file=sys.stderr)
    roots = args.roots or [ROOT / "litmus", *peers]
    smt, auto = CheckOptions(engine="smt"), CheckOptions(engine="auto")
    counts: dict[str, dict[str, int]] = {}
    diffs: list[dict[str, object]] = []
    out_diffs: list[dict[str, object]] = []
    t0 = time.perf_counter()
    for root in roots:
        is_peer = PEERS is not None and root.parent == PEERS
        jobs = peer_jobs(root) if is_peer else library_jobs(root)
        c = counts.setdefault(root.name, {"pairs": 0, "explicit": 0, "same": 0,
                                          "differ": 0, "error": 0, "axioms_differ": 0,
                                          "axioms_confirmed": 0, "axioms_unconfirmed": 0})
        for job in jobs:
            c["pairs"] += 1
            try:
                test: A.Test = load_litmus(str(job.path))
                if candidate_bound(lower(test, smt.unroll)) > AUTO_EXPLICIT_BOUND:
                    continue  # the portfolio takes z3: the same engine, the same answer
                c["explicit"] += 1
                differ = False
                for states in (False, True):
                    a = check_test(test, job.model, job.variants, smt.overlay(states=states))
                    b = check_test(test, job.model, job.variants, auto.overlay(states=states))
                    assert b.engine == "explicit", (job.label, b.engine)
                    if answer(a, states) != answer(b, states):
                        differ = True
                        diffs.append({"job": job.label, "states": states,
                                      "smt": answer(a, states), "auto": answer(b, states)})
                    if not states and b.axioms:
                        ok = confirmed_by_z3(test, job, b)
                        c["axioms_confirmed" if ok else "axioms_unconfirmed"] += 1
                        if not ok:
                            print(f"UNCONFIRMED {job.label}: {b.axioms}")
                    if not states and output(a) != output(b):
                        c["axioms_differ"] += 1
                        out_diffs.append({"job": job.label, "verdict": str(a.verdict),
                                          "smt": output(a), "auto": output(b)})
                c["differ" if differ else "same"] += 1
            except InputError as err:
                c["error"] += 1
                print(f"error {job.label}: {err}", file=sys.stderr)
    print(json.dumps(counts, indent=1))
    for d in diffs:
        print("ANSWER DIFFERS", json.dumps(d))
    print(f"{len(out_diffs)} (test, model) pairs name other axioms or differ in witness")
    for d in out_diffs[:40]:
        print("  output:", json.dumps(d))
    print(f"{time.perf_counter() - t0:.1f} s", file=sys.stderr)
    if args.json:
        args.json.write_text(json.dumps({"counts": counts, "answer_diffs": diffs,
                                         "output_diffs": out_diffs}, indent=1))
    return 1 if diffs else 0


if __name__ == "__main__":
    sys.exit(main())
