"""Real ordering and visibility bugs from the public record (litmus/realbugs/, issue 13 item 3).

Every bug has a ``<slug>+buggy.litmus`` and a ``<slug>+fixed.litmus``; their Expect= entries come
from the bug report, the fix and its authors' explanation (cited in Source=), never from
gdrcheck. Both engines must meet every expectation. Where the current models (or the front end)
do not, the case is marked ``xfail(strict=True)`` with the missing rule or syntax, so that it
flips when the model or the parser is fixed. docs/realbugs.md has the table and the reasons.

Files that the front end cannot read yet are named ``<slug>+buggy.litmus.pending``: the library-wide
commands and tests (``gdrcheck refines``/``diff`` with no FILES, tests/test_refine.py,
tests/test_refinement_library.py) walk ``litmus/**/*.litmus`` and treat an unreadable file as bad
input. ``test_file_parses`` is ``xfail(strict=True)`` for them: when it passes, rename the file to
``.litmus`` and drop it from ``UNPARSED``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from gdrcheck.analysis.check import check_test
from gdrcheck.analysis.models import ModelSpec
from gdrcheck.analysis.options import CheckOptions
from gdrcheck.litmus import load_litmus

ROOT = Path(__file__).resolve().parents[1]
REALBUGS = ROOT / "litmus" / "realbugs"
FILES = sorted([*REALBUGS.glob("*.litmus"), *REALBUGS.glob("*.litmus.pending")])

# Files the front end cannot read yet, with the syntax they need (docs/litmus-format.md §10, §6).
_PENDING = ".litmus.pending"
UNPARSED: dict[str, str] = {
    # none now: the last ones (§6.1 TMA/mbarrier, §6.2 multicast) parse since issues 14 and 15
}

_HYBRID_TMA_FLAG = (
    "contested, not a missing rule: the DeepEP fix (4e33d43) adds only fence.release.sys on "
    "the writer; the reader still polls with ld.relaxed.sys (no acquire pattern, PTX ISA "
    "§8.8) and TMA-loads the chunk with no fence.proxy.async (§9.7.9.25.2: a generic write "
    "and an async-proxy read need a proxy fence), so under the ISA the stale chunk stays "
    "Allowed; NCCL 3f29db27 fixes the derived NCCL-EP code with fence.acq_rel.sys after "
    "the poll (nccl-ep-dispatch-tail-tma); on an H200 the spinning reader never read the stale "
    "chunk (0 in 1.84e8, stand-in), so the fix holds there by the loop's branch, not by the ISA "
    "(docs/realbugs.md, 'On the H200')")

# Expectations the current models miss: (file, model+variants) -> the missing rule, cited.
KNOWN_MISSES: dict[tuple[str, str], str] = {
    ("deepep-hybrid-tma-flag+fixed.litmus", "lsa"): _HYBRID_TMA_FLAG,
    ("deepep-hybrid-tma-flag+fixed.litmus", "ptx75"): _HYBRID_TMA_FLAG,
    ("nvshmem-ring-reduce-signal+fixed.litmus", "nvshmem-ibgda"): (
        "not a missing rule but a finding: nvshmem_signal_wait_until is a volatile spin with no "
        "fence (NVIDIA/nvshmem@2d7d25f src/include/device/nvshmem_defines.h:583-586), so on "
        "IBGDA the reader's relaxed load of x0 may still be satisfied before the signal read "
        "(PTX: no acquire pattern); the fix the maintainer's explanation implies (a signal per "
        "chunk) is Forbidden only with an acquire after the wait (shmem.wait_until adds "
        "__threadfence, nvshmem_defines.h:566-571)"),
    ("trtllm-mnnvl-cta-arrive+fixed.litmus", "ptx"): (
        "the fix (TensorRT-LLM PR #8612) pairs red.release.gpu with a volatile (relaxed) spin "
        "loop and a control-dependent store; specs/ptx-axioms.cat synchronizes a release only "
        "with an acquire pattern (ASPLOS'19 Fig. 4) and No-Thin-Air (acyclic rf | dep, :34) "
        "does not count the reads-before-release po edge, so load buffering stays Allowed: "
        "either [R]; po; [W & REL] is missing from the No-Thin-Air check or the fix is "
        "incomplete per PTX (the poll needs ld.acquire)"),
}


def _raw_expectations(path: Path) -> list[tuple[str, str]]:
    """(model+variants, verdict) from the Expect= lines, read textually (for files the parser
    cannot read yet); same splitting as gdrcheck.litmus.ast.Test._entries."""
    out: list[tuple[str, str]] = []
    for line in path.read_text().splitlines():
        if line.startswith("Expect="):
            for item in line[len("Expect="):].split(","):
                model, _, verdict = item.strip().rpartition(":")
                if model:
                    out.append((model, verdict))
    return out


CASES = [(f, spec, verdict) for f in FILES for spec, verdict in _raw_expectations(f)]


def test_realbugs_are_there() -> None:
    """At least 15 bugs, each with a buggy and a fixed test."""
    slugs = {f.name.split("+")[0] for f in FILES}
    assert len(slugs) >= 15
    names = {f.name for f in FILES}
    for slug in slugs:
        for kind in ("buggy", "fixed"):
            assert {f"{slug}+{kind}.litmus", f"{slug}+{kind}.litmus.pending"} & names, slug


def test_lists_name_existing_files() -> None:
    names = {f.name for f in FILES}
    assert set(UNPARSED) == {n for n in names if n.endswith(".pending")}
    assert {name for name, _ in KNOWN_MISSES} <= names


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_every_file_cites_and_expects(path: Path) -> None:
    text = path.read_text()
    assert any(line.startswith("Source=") for line in text.splitlines()), path.name
    assert _raw_expectations(path), f"{path.name} has no Expect= entries"
    assert "(*" in text and "*)" in text, f"{path.name} has no explanatory comment"


@pytest.mark.parametrize(
    "path",
    [pytest.param(f, marks=pytest.mark.xfail(strict=True, reason=UNPARSED[f.name]))
     if f.name in UNPARSED else f for f in FILES],
    ids=lambda p: p.name,
)
def test_file_parses(path: Path) -> None:
    test = load_litmus(str(path))
    assert test.expectations


def _case_param(path: Path, spec: str, verdict: str) -> object:
    key = (path.name, spec)
    if path.name in UNPARSED:
        return pytest.param(path, spec, verdict, marks=pytest.mark.skip(
            reason=f"does not parse yet: needs {UNPARSED[path.name]}"))
    if key in KNOWN_MISSES:
        return pytest.param(path, spec, verdict, marks=pytest.mark.xfail(
            strict=True, reason=KNOWN_MISSES[key]))
    return pytest.param(path, spec, verdict)


@pytest.mark.parametrize("engine", ["smt", "explicit"])
@pytest.mark.parametrize(
    "path,spec,verdict",
    [_case_param(f, s, v) for f, s, v in CASES],
    ids=[f"{f.name}:{s}" for f, s, _ in CASES],
)
def test_realbug_expectation(path: Path, spec: str, verdict: str, engine: str) -> None:
    test = load_litmus(str(path))
    name, *variants = spec.split("+")
    res = check_test(test, ModelSpec(name, tuple(variants)), options=CheckOptions(engine=engine))
    assert res.verdict == verdict, (
        f"{path.name} under {spec} ({engine}): expected {verdict}, got {res.verdict}; "
        f"rejected by {res.axioms}"
    )
