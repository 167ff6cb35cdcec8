"""A kernel whose extraction assumes (docs/kernels.md, "Assumed values"): the verdict from
its test and the same test with the assumption kept.

The extracted test's condition is "an assert fails, or the assumption fails" (its
assumption registers, the host check's final values outside their tables). Forbidden
there proves both that no assert fails and that the assumption holds in every execution:
the kernel's Forbidden. Allowed there is the kernel's Allowed only when an execution in
which the assumption holds fails an assert: the first answer's witness may show one (its
final state satisfies the second condition), else the second test's condition asks
exactly that.
When none does, every failing execution breaks the assumption, and the values it computes
with are not the kernel's: the answer is Unknown, never a guess.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from gdrcheck.analysis.check import check_test
from gdrcheck.analysis.models import ModelSpec
from gdrcheck.analysis.options import DEFAULT_OPTIONS, CheckOptions
from gdrcheck.engine.deadline import Deadline
from gdrcheck.engine.observe import Observables
from gdrcheck.engine.result import Result, Verdict
from gdrcheck.litmus import ast as A

BROKEN = ("some execution breaks the extraction's assumption (a float read sees a value "
          "stored by a thread past more CTA barriers than the reader, docs/kernels.md "
          "\"Assumed values\") and none that keeps it fails an assert: what the kernel "
          "computes there is not known")


def check_assumed(test: A.Test, kept: A.Test | None, model: str | ModelSpec,
                  variants: Sequence[str] = (),
                  options: CheckOptions = DEFAULT_OPTIONS) -> Result:
    """The kernel's verdict: ``test``'s, unless it is Allowed and ``kept`` (the condition
    with the assumption kept, None when the extraction assumes nothing) is not."""
    deadline = Deadline(options.timeout)
    res = check_test(test, model, variants, options, deadline)
    if kept is None or res.verdict != Verdict.ALLOWED:
        return res
    if res.witness is not None and Observables(kept).eval_state(kept.condition.prop,
                                                                res.witness.state):
        return res  # the witness fails an assert and keeps the assumption: no second query
    real = check_test(kept, model, variants, options, deadline)
    elapsed = res.time + real.time
    if real.verdict in (Verdict.ALLOWED, Verdict.UNDEFINED):
        return replace(real, test=res.test, time=elapsed)
    reason = (BROKEN if real.verdict == Verdict.FORBIDDEN
              else f"the question with the assumption kept: {real.reason or real.verdict}")
    return replace(res, verdict=Verdict.UNKNOWN, positive=None, reason=reason, time=elapsed)
