"""The base relations the ptx75 model reads: vloc (same location, same virtual
address) and the lowering's aob, in both engines' frame."""

from __future__ import annotations

from pathlib import Path

import pytest

from gdrcheck.analysis.check import check_test
from gdrcheck.analysis.options import CheckOptions
from gdrcheck.engine.base import Frame, base_env
from gdrcheck.litmus import load_litmus, parse_litmus
from gdrcheck.lower import lower


def _env(text: str) -> tuple[dict[str, object], dict[str, int]]:
    prog = lower(parse_litmus(text))
    frame = Frame(prog, {e.eid: True for e in prog.events}, {}, {}, {})
    ids = {e.label: e.eid for e in prog.events if not e.is_init}
    return base_env(frame), ids


TEXT = ("PTX T\n{ x = 0; y @ generic aliases x; s : shared = 0; mb : mbarrier 1; }\n"
        " P0 ;\n st.weak x, 1 ;\n st.weak y, 2 ;\n ld.weak r0, x ;\n"
        " cp.async.bulk s, x, mb ;\nexists (0:r0 == 0)\n")


def test_vloc_is_loc_with_the_same_virtual_address() -> None:
    env, ids = _env(TEXT)
    vloc, loc = env["vloc"].m, env["loc"].m  # type: ignore[attr-defined]
    a, b, c = ids["st.weak x, 1"], ids["st.weak y, 2"], ids["ld.weak r0, x"]
    assert (a, b) in loc and (a, b) not in vloc
    assert (a, c) in vloc and (b, b) in vloc


def test_aob_comes_from_the_lowering_and_is_empty_elsewhere() -> None:
    env, _ = _env(TEXT)
    assert env["aob"].m  # type: ignore[attr-defined]
    plain, _ = _env("PTX T\n{ x = 0; }\n P0 ;\n st.weak x, 1 ;\nexists (x == 1)\n")
    assert not plain["aob"].m  # type: ignore[attr-defined]


def test_ptx_does_not_accept_ptx75_tests_and_ptx75_judges_them() -> None:
    test = parse_litmus("PTX A\n{ x = 0; y @ generic aliases x; }\n P0 ;\n st.weak x, 1 ;\n"
                        " fence.proxy.alias ;\n ld.weak r0, y ;\nexists (0:r0 == 0)\n")
    for engine in ("smt", "explicit"):
        assert check_test(test, "ptx75", options=CheckOptions(engine=engine)).verdict == "Forbidden"
    try:
        check_test(test, "ptx")
    except Exception as err:  # noqa: BLE001 - the runner's own error type
        assert "PTX75" in str(err)
    else:
        raise AssertionError("ptx (PTX 6.0) accepted a test with virtual aliases")


def _ptx_library() -> list[tuple[Path, str]]:
    root = Path(__file__).resolve().parents[2] / "litmus" / "ptx"
    out = []
    for f in sorted(root.glob("*.litmus")):
        for e in load_litmus(str(f)).expectations:
            if e.model == "ptx" and not e.variants:
                out.append((f, e.verdict))
    return out


@pytest.mark.parametrize("path,verdict", _ptx_library(), ids=lambda v: getattr(v, "name", v))
def test_ptx75_keeps_the_ptx60_verdicts_of_the_ptx_library(path: Path, verdict: str) -> None:
    """Without aliases or non-generic proxies the PTX 7.5 model is the 6.0 one (PTX ISA
    §8.9.5: proxy-preserved base causality order is base causality order for generic
    operations on one address; §8.7: every operation is generic): ptx75 must meet the
    ptx expectations of litmus/ptx."""
    test = load_litmus(str(path))
    assert check_test(test, "ptx75").verdict == verdict


def test_networking_models_stand_on_ptx75() -> None:
    """Issue 14, item 4: lsa and the GIN and NVSHMEM models take ptx75's GPU side, so on
    PTX 7.5 tests without NIC events they give ptx75's verdicts."""
    root = Path(__file__).resolve().parents[2] / "litmus" / "ptx75"
    files = sorted(root.glob("*.litmus"))
    assert files
    for f in files:
        test = load_litmus(str(f))
        ref = check_test(test, "ptx75").verdict
        for model in ("lsa", "gin-api", "gin-gdaki", "nvshmem-ibgda"):
            assert check_test(test, model).verdict == ref, (f.name, model)
