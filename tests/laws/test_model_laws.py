"""The models' own laws, checked on random programs (issue 5; docs/laws.md):

- monotonicity: a stronger program (a weak signal made strong, a stronger access, a
  blocking call, an inserted fence, flush or quiet) reaches no final state the
  weaker one does not, under every model;
- refinement: gin-gdaki, gin-proxy and gin-efa reach no state gin-api does not; nvshmem-ibgda
  (with the two assumptions docs/refinement.md names) none that nvshmem-api does not;
- variants: a weakening variant never removes a reachable state, a strengthening
  one never adds one.

A failing example is written to $GDRCHECK_COUNTEREXAMPLES (default
/tmp/gdrcheck-counterexamples) as a litmus file and named in the assertion. The ``slow``
versions draw bigger programs (``python -m pytest -m slow tests/laws``).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gdrcheck.analysis.check import check_test
from gdrcheck.analysis.options import CheckOptions
from gdrcheck.engine.result import State
from gdrcheck.gin_strategies import GinProgram, gin_programs, strengthenings

OUT = Path(os.environ.get("GDRCHECK_COUNTEREXAMPLES", "/tmp/gdrcheck-counterexamples"))
# the long profile (HYPOTHESIS_PROFILE=long) scales these up
_N = settings.default.max_examples
FAST = settings(max_examples=15 if _N < 100 else _N // 10, deadline=None,
                suppress_health_check=list(HealthCheck))
SLOW = settings(max_examples=150 if _N < 100 else _N, deadline=None,
                suppress_health_check=list(HealthCheck))

GIN_MODELS = ["gin-api", "gin-gdaki", "gin-proxy", "gin-gdaki+pcie-ro+nic-atomic-pcie",
              "gin-gdaki+gdr-order-none+adaptive-routing", "gin-efa"]
SHMEM_MODELS = ["nvshmem-api", "nvshmem-ibgda", "nvshmem-ibgda+no-pcie-ro+ack-placed"]


def states(p: GinProgram, model: str) -> set[State]:
    res = check_test(p.test(), model, options=CheckOptions(states=True))
    assert res.verdict != "Unknown", res.reason
    return set(res.states or [])


def save(p: GinProgram, law: str) -> Path:
    OUT.mkdir(parents=True, exist_ok=True)
    path = OUT / f"{law}-{abs(hash(p.text())) % 10**8}.litmus"
    path.write_text(p.text())
    return path


def _extra(a: set[State], b: set[State]) -> list[str]:
    return ["; ".join(f"{k}={v}" for k, v in s) for s in sorted(a - b)][:3]


# -- monotonicity ---------------------------------------------------------------


@st.composite
def strengthened(draw: st.DrawFn, family: str, ranks: int, max_ops: int
                 ) -> tuple[GinProgram, GinProgram]:
    p = draw(gin_programs(family, ranks, max_ops))  # type: ignore[arg-type]
    stronger = strengthenings(p)
    return p, stronger[draw(st.integers(0, len(stronger) - 1))]


def _monotone(pair: tuple[GinProgram, GinProgram], models: list[str]) -> None:
    weak, strong = pair
    for model in models:
        sw, ss = states(weak, model), states(strong, model)
        if not ss <= sw:
            path = save(strong, "monotonicity")
            raise AssertionError(
                f"{model}: the stronger program {path} reaches {_extra(ss, sw)}, which the "
                f"weaker one ({save(weak, 'monotonicity-weaker')}) does not")


@FAST
@given(strengthened("gin", 2, 4))
def test_monotonicity_gin(pair: tuple[GinProgram, GinProgram]) -> None:
    _monotone(pair, GIN_MODELS)


@FAST
@given(strengthened("shmem", 2, 4))
def test_monotonicity_shmem(pair: tuple[GinProgram, GinProgram]) -> None:
    _monotone(pair, SHMEM_MODELS)


# -- refinement -------------------------------------------------------------------


def _refines(p: GinProgram, impl: str, spec: str) -> None:
    si = states(p, impl)
    spec_res = check_test(p.test(), spec, options=CheckOptions(states=True))
    if spec_res.verdict == "Undefined":
        return  # misuse: anything goes
    ss = set(spec_res.states or [])
    if not si <= ss:
        path = save(p, f"refines-{impl}-{spec}")
        raise AssertionError(f"{impl} reaches {_extra(si, ss)} that {spec} forbids: {path}")


@FAST
@given(gin_programs("gin", 2, 4))
@pytest.mark.parametrize("impl", ["gin-gdaki", "gin-proxy", "gin-efa", "gin-efa+ofi-before-pr1249"])
def test_gin_backends_refine_the_api(impl: str, p: GinProgram) -> None:
    _refines(p, impl, "gin-api")


@FAST
@given(gin_programs("shmem", 2, 4))
def test_ibgda_refines_the_api_under_its_assumptions(p: GinProgram) -> None:
    _refines(p, "nvshmem-ibgda+no-pcie-ro+ack-placed", "nvshmem-api")


# -- variants ---------------------------------------------------------------------

WEAKENING = {
    "gin-gdaki": ["pcie-ro", "nic-atomic-pcie", "ib-waw-unordered", "adaptive-routing",
                  "gdr-order-none", "ro-passes-atomic+pcie-ro",
                  # issue 13: fewer releases, block-scope reservation, no GPUDirect order,
                  # a flush that does not cover gets
                  "gdaki-release-emulated", "gdaki-cta-sharing", "gdaki-thread-sharing",
                  "gdr-guide-3.7",
                  "nccl-2.30.4"],
    "gin-api": ["strong-signals-not-required"],
    # issue 15: the plugin's weak-signal mode, a platform needing a GPUDirect flush
    "gin-efa": ["ofi-weak-signal-mode", "efa-gdr-flush-required", "nccl-2.30.4"],
    "nvshmem-ibgda": ["nic-atomic-pcie", "ib-waw-unordered", "adaptive-routing",
                      "gdr-order-none", "ro-passes-atomic", "gdr-guide-3.7"],
}
STRENGTHENING = {
    "gin-gdaki": ["ack-placed", "gdr-order-all", "nic-sees-async"],
    "gin-api": ["weak-as-strong", "nccl-2.28", "iso-hb"],
    # issue 15: before PR #1249 a signal's completion waited for its delivery
    "gin-efa": ["ofi-before-pr1249", "nic-sees-async"],
    # issue 13: sharing a QP only adds order (QP per call is the weakest choice)
    "nvshmem-ibgda": ["no-pcie-ro", "ack-placed", "ibgda-single-qp", "ibgda-qp-per-cta",
                      "ibgda-explicit-qp"],
}


def _variant_law(p: GinProgram, model: str) -> None:
    base = states(p, model)
    for v in WEAKENING.get(model, []):
        weaker = states(p, f"{model}+{v}")
        if not base <= weaker:
            raise AssertionError(f"{model}+{v} loses {_extra(base, weaker)}: "
                                 f"{save(p, 'variant-' + v)}")
    for v in STRENGTHENING.get(model, []):
        stronger = states(p, f"{model}+{v}")
        if not stronger <= base:
            raise AssertionError(f"{model}+{v} adds {_extra(stronger, base)}: "
                                 f"{save(p, 'variant-' + v)}")


@FAST
@given(gin_programs("gin", 2, 4))
@pytest.mark.parametrize("model", ["gin-api", "gin-gdaki", "gin-efa"])
def test_variants_gin(model: str, p: GinProgram) -> None:
    _variant_law(p, model)


@FAST
@given(gin_programs("shmem", 2, 4))
def test_variants_shmem(p: GinProgram) -> None:
    _variant_law(p, "nvshmem-ibgda")


# -- bigger programs (python -m pytest -m slow tests/laws) --------------------------


@pytest.mark.slow
@SLOW
@given(strengthened("gin", 3, 6))
def test_monotonicity_gin_large(pair: tuple[GinProgram, GinProgram]) -> None:
    _monotone(pair, GIN_MODELS)


@pytest.mark.slow
@SLOW
@given(gin_programs("gin", 3, 6))
def test_refinement_gin_large(p: GinProgram) -> None:
    _refines(p, "gin-gdaki", "gin-api")
    _refines(p, "gin-proxy", "gin-api")
    _refines(p, "gin-efa", "gin-api")


@pytest.mark.slow
@SLOW
@given(gin_programs("shmem", 3, 6))
def test_refinement_and_variants_shmem_large(p: GinProgram) -> None:
    _refines(p, "nvshmem-ibgda+no-pcie-ro+ack-placed", "nvshmem-api")
    _variant_law(p, "nvshmem-ibgda")
