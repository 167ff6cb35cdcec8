"""Running generated kernels on a GPU with CuPy, and litmus7-style results (issue 6).

:func:`run_test` compiles the kernel of :mod:`gdrcheck.hw.codegen` (CuPy RawModule,
``-arch`` of the device), runs ``iterations`` instances in launches of ``batch``
(fresh memory, a fresh random thread-to-instance permutation and optional stress
blocks each launch), and counts the final states over the test's observables
(registers and locations of its condition and ``locations [...]``). Each observed
state is then checked against the model (``check_test(..., states=True)``): a state
the model forbids is a soundness failure of the model.
"""

from __future__ import annotations

import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from gdrcheck.errors import InputError
from gdrcheck.hw.codegen import Kernel, generate
from gdrcheck.litmus import ast as A

STRIDE = 32  # words between two locations of one instance (128 bytes: a cache line)


class NoGpu(InputError):
    """No CUDA device (or no CuPy) on this machine."""


@dataclass
class HwResult:
    test: str
    file: str | None
    iterations: int
    histogram: dict[str, int]  # "1:r0=1; x=2" -> count
    positive: int  # runs whose state satisfies the condition's proposition
    seconds: float
    device: str
    model: str | None = None
    forbidden_states: list[str] = field(default_factory=list)  # observed but forbidden
    model_verdict: str | None = None
    source: str = ""
    stand_in: bool = False  # CTAs of one GPU stood in for several GPUs (no NVLink)

    @property
    def observation(self) -> str:
        if self.positive == 0:
            return "Never"
        return "Always" if self.positive == self.iterations else "Sometimes"

    def json(self) -> dict[str, Any]:
        return {
            "schema": "gdrcheck.hw/1", "test": self.test, "file": self.file,
            "iterations": self.iterations, "histogram": self.histogram,
            "positive": self.positive, "observation": self.observation,
            "seconds": round(self.seconds, 3), "device": self.device, "model": self.model,
            "model_verdict": self.model_verdict, "forbidden_states": self.forbidden_states,
            "stand_in": self.stand_in,
        }


def _cupy() -> Any:
    try:
        import cupy
        n = cupy.cuda.runtime.getDeviceCount()
    except Exception as exc:  # noqa: BLE001 - any import or driver failure means no GPU
        raise NoGpu(f"gdrcheck hw needs an NVIDIA GPU and CuPy: {exc}") from None
    if n == 0:
        raise NoGpu("gdrcheck hw needs an NVIDIA GPU: none found")
    return cupy


def state_key(names: list[str], values: tuple[int, ...]) -> str:
    return "; ".join(f"{n}={v}" for n, v in zip(names, values, strict=True))


def run_test(test: A.Test, iterations: int = 100_000, batch: int = 32 * 1024,
             stress: int = 0, seed: int = 1, stand_in: bool = False) -> HwResult:
    """Run ``test`` ``iterations`` times on the GPU; no model check (see check_states)."""
    cp = _cupy()
    import numpy as np

    from gdrcheck.engine.observe import Observables

    k: Kernel = generate(test, stand_in=stand_in)
    dev = cp.cuda.Device()
    props = cp.cuda.runtime.getDeviceProperties(dev.id)
    name = props["name"].decode() if isinstance(props["name"], bytes) else str(props["name"])
    arch = f"-arch=sm_{props['major']}{props['minor']}"
    mod = cp.RawModule(code=k.source, options=(arch,), name_expressions=None)
    fn = mod.get_function("litmus")
    obs = Observables(test)
    names = list(obs.terms)
    nlocs = max(1, len(k.locations))
    nregs = max(1, len(k.regs))
    reg_slot = {f"{t}:{r}": i for i, (t, r) in enumerate(k.regs)}
    loc_slot = {n: i for i, n in enumerate(k.locations)}
    rng = np.random.default_rng(seed)
    hist: Counter[tuple[int, ...]] = Counter()
    scratch_words = 1 << 20
    scratch = cp.zeros(scratch_words, dtype=cp.int32)
    t0 = time.perf_counter()
    done = 0
    while done < iterations:
        n = min(batch, iterations - done)
        init = np.zeros((n, nlocs, STRIDE), dtype=np.int32)
        for loc, v in k.init.items():
            init[:, loc_slot[loc], 0] = v
        locs = cp.asarray(init.reshape(-1))
        out = cp.zeros(n * nregs, dtype=cp.int32)
        bar = cp.zeros(n, dtype=cp.int32)
        perm = cp.asarray(rng.permutation(n).astype(np.int32))
        blocks = stress + len(k.groups) * ((n + 31) // 32)
        fn((blocks,), (32 * k.warps,), (locs, out, perm, bar, np.int32(n), np.int32(STRIDE),
                                          scratch, np.int32(scratch_words), np.int32(stress)))
        cp.cuda.runtime.deviceSynchronize()
        mem = cp.asnumpy(locs).reshape(n, nlocs, STRIDE)[:, :, 0]
        regs = cp.asnumpy(out).reshape(n, nregs)
        cols = []
        for term in names:
            if term in reg_slot:
                cols.append(regs[:, reg_slot[term]])
            elif term in loc_slot:
                cols.append(mem[:, loc_slot[term]])
            else:
                cols.append(np.zeros(n, dtype=np.int32))
        rows = np.stack(cols, axis=1) if cols else np.zeros((n, 0), dtype=np.int32)
        uniq, counts = np.unique(rows, axis=0, return_counts=True)
        for row, c in zip(uniq, counts, strict=True):
            hist[tuple(int(x) for x in row)] += int(c)
        done += n
    secs = time.perf_counter() - t0
    positive = sum(c for st, c in hist.items()
                   if obs.eval_state(test.condition.prop, tuple(zip(names, st, strict=True))))
    return HwResult(test.name, test.path, iterations,
                    {state_key(names, st): c for st, c in sorted(hist.items())},
                    positive, secs, name, source=k.source,
                    stand_in=stand_in and test.arch == "GIN")


def check_states(res: HwResult, test: A.Test, model: str = "ptx") -> HwResult:
    """Hold the observed states against the model: any state the model's consistent
    executions cannot reach is a soundness failure of the model."""
    from gdrcheck.analysis.check import check_test
    from gdrcheck.analysis.options import CheckOptions

    r = check_test(test, model, options=CheckOptions(states=True))
    allowed = {state_key([n for n, _ in st], tuple(v for _, v in st)) for st in r.states or []}
    res.model = model
    res.model_verdict = r.verdict
    res.forbidden_states = sorted(s for s in res.histogram if s not in allowed)
    return res
