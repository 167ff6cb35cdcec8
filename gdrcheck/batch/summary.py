"""What a run found: every record of its keys (resumed and new), the verdict counts,
the unmet expectations and the exit code."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from gdrcheck.batch.jobs import Record, expected
from gdrcheck.litmus import ast as A


@dataclass
class Mismatch:
    key: str
    kind: str  # "expect" | "liveness"
    want: str
    got: str


@dataclass
class BatchReport:
    """Every record of the run's keys (the resumed ones and the new ones)."""

    records: dict[str, Record]
    tests: dict[str, A.Test | None]
    new: int = 0
    resumed: int = 0
    seconds: float = 0.0

    def verdicts(self) -> Counter[str]:
        return Counter(str(r.get("verdict")) for r in self.records.values())

    @property
    def errors(self) -> list[Record]:
        return [r for r in self.records.values() if r.get("verdict") == "Error"]

    def mismatches(self) -> list[Mismatch]:
        out: list[Mismatch] = []
        for key, rec in self.records.items():
            if rec.get("verdict") == "Error":
                continue
            exp = rec.get("expect")
            if isinstance(exp, dict) and not exp.get("met"):
                got = str(rec.get("verdict"))
                if rec.get("vacuous"):
                    got += f" (vacuous: {rec.get('vacuity') or 'no execution completes'})"
                out.append(Mismatch(key, "expect", str(exp.get("verdict")), got))
            test = self.tests.get(key)
            want = None if test is None else expected(test, str(rec.get("model")), True)
            if want is not None:
                got = str(rec.get("live") or ("Hang" if rec.get("liveness") else "Live"))
                if got != want:
                    out.append(Mismatch(key, "liveness", want, got))
        return out

    def expectations(self) -> tuple[int, int, int]:
        """(met, not met, errored) over Expect= and Liveness= entries."""
        total = errored = 0
        for key, rec in self.records.items():
            test = self.tests.get(key)
            n = 0
            if isinstance(rec.get("expect"), dict):
                n += 1
            if test is not None and expected(test, str(rec.get("model")), True) is not None:
                n += 1
            if rec.get("verdict") == "Error":
                errored += n
            else:
                total += n
        failed = len(self.mismatches())
        return total - failed, failed, errored

    @property
    def exit_code(self) -> int:
        """0: every expectation met; 1: one is not; 2: a job could not be checked."""
        return 2 if self.errors else 1 if self.mismatches() else 0
