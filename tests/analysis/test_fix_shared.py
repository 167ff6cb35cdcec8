"""The shared selector encoding of ``gdrcheck fix`` (gdrcheck/analysis/fix_shared.py)
answers every candidate set as the edited test's own check does.

Each case: every single edit, and random sets of edits (at most one per place, as the
search proposes them), judged by the shared encoding under assumptions and by checking
the edited test on its own; the two must agree, and the shared program with the set's
selectors fixed must be the edited test's program.
"""

from __future__ import annotations

import dataclasses
import random
from pathlib import Path

import pytest

from gdrcheck.analysis.fix import _judge
from gdrcheck.analysis.fix_shared import (
    build_shared,
    canonical,
    project_matches,
    selector,
    shared_judge,
)
from gdrcheck.analysis.models import ModelSpec
from gdrcheck.analysis.options import DEFAULT_OPTIONS
from gdrcheck.analysis.strengthen import apply_edits, candidates
from gdrcheck.litmus import load_litmus
from gdrcheck.lower import lower

ROOT = Path(__file__).resolve().parents[2]
LIB = ROOT / "litmus"

CASES = [
    ("classic/SB.litmus", ["x86tso"]),
    ("ptx/MP+weaks.litmus", ["ptx"]),  # ld/st release-acquire alternatives, six fences
    ("ptx/IRIW+fence.sc.gpu+fence.sc.cta.litmus", ["ptx", "sc"]),  # fence.sc: fso clocks
    ("gin/05-MP+put+signal-otherctx.litmus", ["gin-gdaki", "gin-proxy"]),  # contexts
    ("gin/19-TMA+put+sig.litmus", ["gin-gdaki"]),  # fence.proxy.async
    ("deepep/V2-dispatch+default-window.litmus", ["gin-api"]),  # a strict window
    ("nvshmem/09-MP+put+put.litmus", ["nvshmem-ibgda"]),  # shmem.fence / shmem.quiet
]


@pytest.mark.parametrize("path,models", CASES, ids=[c[0] for c in CASES])
def test_the_shared_encoding_answers_as_each_edited_test(path: str, models: list[str]
                                                         ) -> None:
    test = load_litmus(LIB / path)
    specs = [ModelSpec.of(m) for m in models]
    edits = candidates(test)
    judge = shared_judge(test, edits, specs, DEFAULT_OPTIONS)
    assert judge is not None
    # every edit of one instruction for one shares (the others take the fallback)
    assert judge.sp.shared == frozenset(i for i, e in enumerate(edits) if e.simple)
    slots: dict[tuple[int, int, str], list[int]] = {}
    for i, e in enumerate(edits):
        if e.simple:
            slots.setdefault(e.slot, []).append(i)
    rng = random.Random(16)
    sets = [[i] for i in range(len(edits)) if edits[i].simple]
    sets += [[rng.choice(g) for g in slots.values() if rng.random() < 0.4] for _ in range(25)]
    forall = test.condition.quantifier == "forall"
    for chosen in sets:
        assert project_matches(judge.sp, test, edits, chosen, DEFAULT_OPTIONS.unroll)
        _, ok = _judge(apply_edits(test, [edits[i] for i in chosen]), specs, False,
                       DEFAULT_OPTIONS)
        assert judge.judge(chosen, forall) == ok, [edits[i].text for i in chosen]


def test_the_projection_catches_a_program_that_is_not_the_edited_one() -> None:
    test = load_litmus(LIB / "ptx/MP+weaks.litmus")
    edits = candidates(test)
    sp = build_shared(test, edits, DEFAULT_OPTIONS.unroll)
    assert sp is not None
    j = next(i for i, e in enumerate(edits) if e.entry == "st.release")
    assert project_matches(sp, test, edits, [j], DEFAULT_OPTIONS.unroll)
    # the same program with that alternative's tags dropped is no longer the edited one
    events = [dataclasses.replace(e, alts=tuple(
        dataclasses.replace(a, tags=e.tags) if a.selector == selector(j) else a
        for a in e.alts)) for e in sp.program.events]
    broken = dataclasses.replace(sp, program=dataclasses.replace(sp.program, events=events))
    assert not project_matches(broken, test, edits, [j], DEFAULT_OPTIONS.unroll)
    # with every selector off, the shared program is the test's own
    assert canonical(sp.program) == canonical(lower(test))
