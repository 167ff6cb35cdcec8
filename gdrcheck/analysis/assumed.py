"""A kernel whose extraction assumes (docs/kernels.md, "Assumed values"): the verdict from
its test and the same test over the executions that keep the assumption.

In an execution where every float read sees a value its table covers, the extracted test
computes what the kernel computes; one that reads another value sets an assumption
register at that read (or leaves a final value outside its table), and what it does after
is not the kernel's. The extracted test's condition is "an assert fails, or the assumption
does". Hence:

- Forbidden there (no flag, no such execution): no execution breaks the assumption, so
  every execution of the kernel is one of the test's, and none fails: the kernel's
  Forbidden;
- Allowed there by a witness that keeps the assumption: the kernel's Allowed (the witness
  is a real execution; no flag fires anywhere, or the verdict would be Undefined);
- otherwise (a witness that breaks it, or a flag, Undefined) the second test, ``kept``
  (``filter`` the executions that keep the assumption, ``exists`` an assert that fails),
  decides: Undefined, a flag fires in a real execution; Allowed, a real failure; Forbidden
  or vacuous, what went wrong happens only where the assumption breaks: **Unknown**, never
  a guess.
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
          "\"Assumed values\") and none that keeps it {what}: what the kernel computes "
          "there is not known")


def check_assumed(test: A.Test, kept: A.Test | None, model: str | ModelSpec,
                  variants: Sequence[str] = (),
                  options: CheckOptions = DEFAULT_OPTIONS) -> Result:
    """The kernel's verdict: ``test``'s, unless ``kept`` (the test over the executions that
    keep the assumption; None when the extraction assumes nothing) must decide it."""
    deadline = Deadline(options.timeout)
    res = check_test(test, model, variants, options, deadline)
    if kept is None or res.verdict not in (Verdict.ALLOWED, Verdict.UNDEFINED):
        return res
    if (res.verdict == Verdict.ALLOWED and res.witness is not None
            and Observables(kept).eval_state(kept.filter, res.witness.state)):
        return res  # the witness fails an assert and keeps the assumption: no second query
    real = check_test(kept, model, variants, options, deadline)
    elapsed = res.time + real.time
    if real.verdict in (Verdict.ALLOWED, Verdict.UNDEFINED) and not real.vacuous:
        return replace(real, test=res.test, time=elapsed)
    if real.verdict == Verdict.UNKNOWN:
        reason = f"the question over the executions that keep the assumption: {real.reason}"
    else:
        what = ("fails an assert" if res.verdict == Verdict.ALLOWED
                else f"fires a flag ({', '.join(res.flags)}) or fails an assert")
        reason = BROKEN.format(what=what)
    return replace(res, verdict=Verdict.UNKNOWN, positive=None, reason=reason, time=elapsed)
