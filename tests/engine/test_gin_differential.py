"""The two engines agree on random GIN and NVSHMEM programs, under every GIN model
(with and without the variants that add or remove orders): same verdict, same set
of final states. Programs come from gdrcheck.gin_strategies.gin_tests."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings

from gdrcheck.analysis.check import check_test
from gdrcheck.analysis.options import CheckOptions
from gdrcheck.gin_strategies import gin_tests
from gdrcheck.litmus import ast as A

GIN_MODELS = ["gin-api", "gin-api+weak-as-strong", "gin-gdaki",
              "gin-gdaki+pcie-ro+nic-atomic-pcie+ack-placed", "gin-gdaki+gdr-order-none",
              "gin-proxy+adaptive-routing",
              # issue 13
              "gin-api+nccl-2.28", "gin-gdaki+gdaki-release-emulated+gdaki-cta-sharing",
              "gin-gdaki+gdr-guide-3.7+nccl-2.30.4"]
# the long profile (HYPOTHESIS_PROFILE=long) scales these up
_FAST = 12 if settings.default.max_examples < 100 else 200
_SLOW = 300 if settings.default.max_examples < 100 else 2000
SHMEM_MODELS = ["nvshmem-api", "nvshmem-ibgda", "nvshmem-ibgda+no-pcie-ro+ack-placed",
                # issue 13: the QP choices
                "nvshmem-ibgda+ibgda-single-qp", "nvshmem-ibgda+ibgda-qp-per-cta+ack-placed"]


def _agree(test: A.Test, model: str) -> None:
    z = check_test(test, model, options=CheckOptions(engine="smt", states=True))
    e = check_test(test, model, options=CheckOptions(engine="explicit", states=True))
    assert (z.verdict, z.flags) == (e.verdict, e.flags), (
        f"{model}: smt {z.verdict} {z.flags}, explicit {e.verdict} {e.flags}")
    assert sorted(z.states or []) == sorted(e.states or []), f"{model}: states differ"


@settings(max_examples=_FAST, deadline=None, suppress_health_check=list(HealthCheck))
@given(gin_tests("gin", max_ops=4))
@pytest.mark.parametrize("model", GIN_MODELS)
def test_gin_engines_agree(model: str, test: A.Test) -> None:
    _agree(test, model)


@settings(max_examples=_FAST, deadline=None, suppress_health_check=list(HealthCheck))
@given(gin_tests("shmem", max_ops=4))
@pytest.mark.parametrize("model", SHMEM_MODELS)
def test_shmem_engines_agree(model: str, test: A.Test) -> None:
    _agree(test, model)


@pytest.mark.slow
@settings(max_examples=_SLOW, deadline=None, suppress_health_check=list(HealthCheck))
@given(gin_tests("gin", ranks=3, max_ops=6))
@pytest.mark.parametrize("model", GIN_MODELS)
def test_gin_engines_agree_large(model: str, test: A.Test) -> None:
    _agree(test, model)
