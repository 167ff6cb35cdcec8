"""litmus7's layout for a hardware run (:mod:`gdrcheck.hw.run`), each observed state
held against the model."""

from __future__ import annotations

from gdrcheck.hw.run import HwResult


def format_result(res: HwResult) -> str:
    """litmus7's layout, with each state held against the model."""
    if res.stand_in:
        where = res.device + ", STAND-IN: one CTA per GPU on one GPU, not NVLink"
    elif res.one_device:
        where = (f"{res.device}, ONE DEVICE: the test's {res.gpus} GPUs as {res.gpus} "
                 "launches on one GPU, not NVLink")
    elif res.gpus > 1:
        where = f"{res.gpus} x {res.device}, peer access"
    else:
        where = res.device
    lines = [f"Test {res.test} (gdrcheck hw, {where})",
             f"Histogram ({len(res.histogram)} states)"]
    for st, c in sorted(res.histogram.items(), key=lambda kv: -kv[1]):
        mark = ""
        if res.model is not None:
            mark = ("  FORBIDDEN BY MODEL" if st in res.forbidden_states
                    else f"  consistent with {res.model}")
        lines.append(f"{c:<10} :> {st}{mark}")
    lines.append(f"Observation {res.test} {res.observation} {res.positive} "
                 f"{res.iterations - res.positive}")
    if res.model is not None:
        lines.append(f"Model {res.model}: {res.model_verdict}")
        if res.forbidden_states:
            lines.append(f"SOUNDNESS FAILURE: {len(res.forbidden_states)} observed state(s) "
                         f"forbidden by {res.model}")
    if res.config:
        lines.append(f"Harness {res.config}")
    if res.timeouts:
        lines.append(f"Left out {res.timeouts} instance(s): a thread gave up waiting "
                     "(mbarrier wait or spin loop)")
    lines.append(f"Time {res.test} {res.seconds:.2f}")
    return "\n".join(lines)
