"""The catalogue entries of issue 16's second round, each the cheapest repair of a test
whose verdicts before and after come from the sources (never from gdrcheck's output).

- bundle-signal: a put and a separate *weak* signal on another context. Before:
  Allowed under gin-api, gin-gdaki and gin-proxy — a weak signal covers only the put it
  is bundled with (R-GIN-4, device_gin.rst: "Weak signals imply only the visibility of
  the put data the signal is attached to"), here none, and contexts are not ordered
  against each other (R-GIN-7). Neither a strong signal nor the put's context alone
  repairs it (each costs 1, both 2); bundling (cost 1) gives litmus/gin/02's program,
  Forbidden under all three (R-GIN-2: "The visibility of the signal on the destination
  peer implies the visibility of the put data it is attached to").
- put_signal: ``shmem.put_nbi`` then ``shmem.signal_op`` to the same PE. Before:
  Allowed under nvshmem-api (R-SH-5: a put followed by an AMO to the same PE is
  unordered without fence). ``shmem.fence`` repairs it at cost 2 (litmus/nvshmem/04b,
  nvshmem-api:Forbidden, R-SH-1); put_signal at cost 1 gives litmus/nvshmem/01's
  program, nvshmem-api:Forbidden (R-SH-4: "The completion of signal update ...
  indicates the delivery of its corresponding dest data words").
- counter-wait: litmus/gin/14 (source reuse without flush, Allowed under gin-api,
  gin-gdaki, gin-proxy: R-GIN-8, R-IB-6) becomes litmus/gin/15's program (a counter and
  a wait for it, Forbidden under the three: R-GIN-9), cost 2.
- flush-reuse (issue 24): litmus/gin/14 also becomes litmus/gin/13's program (a flush of
  the put's context before its source is written again, Forbidden under the three:
  R-GIN-8; NVIDIA/nccl@f0e545a5 docs/userguide/source/api/device_gin.rst:58-61), cost 2,
  as cheap as the counter.
- self-signal (issue 24): litmus/gin/self-put+flag (Allowed) becomes
  litmus/gin/self-put+selfsig+wait+flag (Forbidden), NVIDIA/nccl@f0e545a5
  src/include/nccl_device/impl/gin_barrier__funcs.h:138-143, cost 3.
- signal-per-chunk (issue 24): litmus/nvshmem/ring-reduce+put_signal_nbi-cumulative
  (Allowed under nvshmem-api and nvshmem-ibgda, NVIDIA/nvshmem issue #84) becomes
  litmus/nvshmem/ring-reduce+put_signal_nbi-per-chunk (Forbidden), cost 1.
- the reordering (issue 24, not a strengthening): litmus/gin/MP+signal+put-late (Allowed,
  R-GIN-3) has no repair; the put moved before its signal is litmus/gin/04b (Forbidden).
- mbarrier.release: litmus/ptx75/MP+mbarrier-relaxed (Allowed: a relaxed arrival starts
  no release pattern, PTX ISA §8.8) becomes litmus/ptx75/MP+mbarrier (Forbidden: the
  release pattern mbarrier.arrive.release, the acquire pattern of the default wait,
  PTX ISA §8.8, §9.7.13.15), cost 1.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from gdrcheck.analysis.check import check_test
from gdrcheck.analysis.fix import fix
from gdrcheck.analysis.strengthen import apply_edits, candidates
from gdrcheck.litmus import ast as A
from gdrcheck.litmus import load_litmus, parse_litmus
from gdrcheck.litmus.printer import instr, print_litmus

ROOT = Path(__file__).resolve().parents[2]
LIB = ROOT / "litmus"

BUNDLE = """GIN MP+put+weaksignal-otherctx
{ x = 0; buf@0 = 1; S : signal; }
 P0@cta 0,gpu 0,node 0    | P1@cta 0,gpu 1,node 1 ;
 gin.put c0, x@1, buf     | gin.wait_signal S, 1  ;
 gin.signal c1, S@1, weak | ld.relaxed.sys r0, x  ;
exists (1:r0 = 0)
"""

PUT_SIGNAL = """GIN MP+put_nbi+signal_op
{ x = 0; S = 0; buf@0 = 1; }
 P0@cta 0,gpu 0,node 0       | P1@cta 0,gpu 1,node 1     ;
 shmem.put_nbi x@1, buf      | shmem.wait_until S, >=, 1 ;
 shmem.signal_op S@1, 1, add | ld.relaxed.sys r0, x      ;
exists (1:r0 = 0)
"""

WAIT_RELAXED = """PTX MP+mbarrier-relaxed-wait
{
x = 0;
mb : mbarrier 1;
}
 P0@cta 0,gpu 0      | P1@cta 0,gpu 0           ;
 st.weak x, 1        | mbarrier.wait.relaxed mb ;
 mbarrier.arrive mb  | ld.weak r0, x            ;
exists (P1:r0 == 0)
"""

GIN3 = ["gin-api", "gin-gdaki", "gin-proxy"]


def _texts(test: A.Test, thread: int) -> list[str]:
    return [instr(i) for i in test.threads[thread].instrs]


def _fixed(test: A.Test, models: list[str], cost: int, entry: str) -> A.Test:
    for m in models:  # the cited verdict before
        assert check_test(test, m).verdict == "Allowed", m
    r = fix(test, models, all_minimal=True)
    assert r.status == "fixed"
    assert [(p.cost, [e.entry for e in p.edits]) for p in r.repairs] == [(cost, [entry])]
    rep = r.repairs[0].test
    again = parse_litmus(print_litmus(rep), "repaired.litmus")  # as printed
    for m in models:  # the cited verdict after
        res = check_test(again, m)
        assert res.verdict == "Forbidden" and not res.vacuous, m
    return again


def test_a_weak_signal_on_another_context_is_bundled_with_its_put() -> None:
    rep = _fixed(parse_litmus(BUNDLE, "bundle.litmus"), GIN3, 1, "bundle-signal")
    # litmus/gin/02's put
    assert _texts(rep, 0) == _texts(load_litmus(LIB / "gin/02-MP+put+weaksig.litmus"), 0)


def test_a_put_and_its_signal_op_become_a_put_signal() -> None:
    rep = _fixed(parse_litmus(PUT_SIGNAL, "putsig.litmus"), ["nvshmem-api"], 1,
                 "put_signal")
    assert _texts(rep, 0) == ["shmem.put_signal_nbi x@1, buf, S, 1, add"]


def test_a_reused_source_waits_for_a_counter() -> None:
    r = fix(load_litmus(LIB / "gin/14-reuse+put-noflush.litmus"), GIN3, all_minimal=True)
    # as cheap as the flush (test_a_reused_source_is_flushed_first_as_gin_13_does)
    (rep,) = [p.test for p in r.repairs if p.edits[0].entry == "counter-wait"]
    # litmus/gin/15 (its counter named C)
    human = load_litmus(LIB / "gin/15-reuse+put+counter.litmus")
    assert [t.replace("C0_1", "C") for t in _texts(rep, 0)] == _texts(human, 0)
    assert any(isinstance(x, A.CounterDecl) for x in rep.init)


def test_a_relaxed_mbarrier_arrival_is_made_release() -> None:
    rep = _fixed(load_litmus(LIB / "ptx75/MP+mbarrier-relaxed.litmus"), ["ptx75"], 1,
                 "mbarrier.release")
    assert _texts(rep, 0) == _texts(load_litmus(LIB / "ptx75/MP+mbarrier.litmus"), 0)


def test_a_relaxed_mbarrier_wait_is_offered_acquire() -> None:
    t = parse_litmus(WAIT_RELAXED, "wait.litmus")
    es = [e for e in candidates(t) if e.entry == "mbarrier.acquire"]
    assert len(es) == 1
    assert _texts(apply_edits(t, es), 1)[0] == "mbarrier.wait.acquire.cta mb"


@pytest.mark.parametrize("signal_ctx,uses_elsewhere,peer", [
    ("c0", False, 1), ("c1", False, 1), ("c1", True, 1), ("c0", False, 2)])
def test_bundling_is_offered_only_where_it_loses_nothing(signal_ctx: str,
                                                         uses_elsewhere: bool,
                                                         peer: int) -> None:
    # a strong signal on context d also covers earlier puts on d (R-GIN-3): moved to the
    # put's context it would not, so with another use of d it is not a strengthening;
    # and a bundled signal goes to the put's peer, so only a signal to it can be bundled
    # (litmus/gin/07 signals rank 1 after a put to rank 2)
    other = " gin.put c1, y@1, buf2 |                       ;\n" if uses_elsewhere else ""
    text = f"""GIN bundle-where
{{ x = 0; y = 0; buf@0 = 1; buf2@0 = 1; S : signal; }}
 P0@cta 0,gpu 0,node 0 | P1@cta 0,gpu 1,node 1 ;
{other} gin.put c0, x@1, buf  | gin.wait_signal S, 1  ;
 gin.signal {signal_ctx}, S@{peer}   | ld.relaxed.sys r0, x  ;
exists (1:r0 = 0)
"""
    t = parse_litmus(text, "w.litmus")
    offered = [e for e in candidates(t) if e.entry == "bundle-signal"]
    assert len(offered) == (0 if uses_elsewhere or peer != 1 else 1)


@pytest.mark.parametrize("buggy,human,where", [
    # the TMA copy reads s, written generically just before: the proxy fence between
    # them (PTX ISA §8.6.1; the test's own comment: "st s -> fence.proxy.async.shared::cta
    # -> TMA read of s: the async read must see 1"), ptx75:Forbidden
    ("TMA-store+wait+release+no-fence", "TMA-store+wait+release+proxy-fence", (0, 1)),
    # DeepEP #642: the consumer's generic read of the stage, then its arrival that lets
    # the producer's TMA overwrite it: the proxy fence between (DeepEP's fix),
    # ptx75:Forbidden
    ("DeepEP-642-stage-reuse+no-fence", "DeepEP-642-stage-reuse+proxy-fence", (1, 1)),
])
def test_a_generic_access_before_the_async_proxy_gets_a_proxy_fence(
        buggy: str, human: str, where: tuple[int, int]) -> None:
    test = load_litmus(LIB / "ptx75" / f"{buggy}.litmus")
    r = fix(test, ["ptx75"])
    assert r.status == "fixed" and r.repairs[0].cost == 2  # the human fix: one fence
    (e,) = r.repairs[0].edits
    assert e.entry == "fence.proxy.async" and (e.thread, e.index) == where
    fixed = load_litmus(LIB / "ptx75" / f"{human}.litmus")
    assert isinstance(fixed.threads[e.thread].instrs[e.index], A.PtxFence)  # same place
    again = parse_litmus(print_litmus(r.repairs[0].test), "repaired.litmus")
    res = check_test(again, "ptx75")
    assert res.verdict == "Forbidden" and not res.vacuous


def test_a_relaxed_multimem_arrive_is_made_release() -> None:
    """litmus/multimem/02 (the LSA barrier's arrive as a relaxed multimem.red: Allowed,
    NCCL 5067397c lsa_barrier__funcs.h:57-65) is repaired by making rank 0's arrive
    multimem.red.release.sys, as litmus/multimem/01 (the release arrive of
    lsa_barrier__funcs.h:61-62, Forbidden) writes it; 01 makes both ranks' arrives
    release, the repair needs only the writer's (cost 3 against the human fix's 6)."""
    t = load_litmus(LIB / "multimem/02-lsa-barrier-mp+relaxed-arrive.litmus")
    rep = _fixed(t, ["lsa"], 3, "multimem.release")
    human = load_litmus(LIB / "multimem/01-lsa-barrier-mp+release.litmus")
    assert _texts(rep, 0) == _texts(human, 0)


def test_a_multimem_ld_reduce_is_offered_acquire() -> None:
    t = load_litmus(LIB / "multimem/04c-ld-reduce-may-miss.litmus")
    es = [e for e in candidates(t) if e.entry == "multimem.acquire"]
    assert es and all("ld_reduce.acquire" in instr(e.instr) for e in es)  # type: ignore[arg-type]


NEW_ENTRIES = {"mbarrier.release", "mbarrier.acquire", "bundle-signal", "put_signal",
               "counter-wait", "fence.proxy.async", "multimem.release", "multimem.acquire",
               "flush-reuse", "self-signal", "signal-per-chunk"}


@pytest.mark.slow  # the whole library under every catalogue entry: 4-9 minutes on 2 cores
def test_the_new_entries_add_no_outcome_on_the_library() -> None:
    """Monotonicity (docs/laws.md) of each new entry wherever the library takes it:
    under every model of the test's Expect= lines, the edited test reaches no final
    state the test does not, and fires no misuse flag it does not."""
    import dataclasses

    from gdrcheck.analysis.models import expected_specs
    from gdrcheck.analysis.options import DEFAULT_OPTIONS
    from gdrcheck.errors import InputError

    opts = dataclasses.replace(DEFAULT_OPTIONS, states=True)
    checked = set()
    tests = [(load_litmus(f), None) for f in sorted(LIB.glob("*/*.litmus"))]
    tests += [(parse_litmus(BUNDLE, "bundle.litmus"), GIN3),
              (parse_litmus(PUT_SIGNAL, "putsig.litmus"), ["nvshmem-api", "nvshmem-ibgda"]),
              (parse_litmus(WAIT_RELAXED, "wait.litmus"), ["ptx75"])]
    for t, models in tests:
        edits = [e for e in candidates(t) if e.entry in NEW_ENTRIES]
        for s in (models or expected_specs(t)) if edits else []:
            try:
                base = check_test(t, s, options=opts)
            except InputError:  # a variant a model does not have (yet)
                continue
            for e in edits:
                r = check_test(apply_edits(t, [e]), s, options=opts)
                assert set(r.states or []) <= set(base.states or []), (t.name, str(s), e.text)
                assert set(r.flags) <= set(base.flags), (t.name, str(s), e.text)
                checked.add(e.entry)
    assert checked == NEW_ENTRIES


def _program(t: A.Test) -> list[list[str]]:
    return [_texts(t, k) for k in range(len(t.threads))]


def test_a_reused_source_is_flushed_first_as_gin_13_does() -> None:
    r = fix(load_litmus(LIB / "gin/14-reuse+put-noflush.litmus"), GIN3, all_minimal=True)
    assert r.status == "fixed"
    assert sorted((p.cost, [e.entry for e in p.edits]) for p in r.repairs) == \
        [(2, ["counter-wait"]), (2, ["flush-reuse"])]
    (rep,) = [p for p in r.repairs if p.edits[0].entry == "flush-reuse"]
    assert _program(rep.test) == _program(load_litmus(LIB / "gin/13-reuse+put+flush.litmus"))
    assert set(rep.verdicts.values()) == {"Forbidden"}


def test_a_put_to_oneself_gets_a_signal_to_oneself_and_its_wait() -> None:
    test = load_litmus(LIB / "gin/self-put+flag.litmus")
    assert fix(test, GIN3, max_cost=2).status == "impossible"  # nothing cheaper works
    rep = _fixed(test, GIN3, 3, "self-signal")
    human = load_litmus(LIB / "gin/self-put+selfsig+wait+flag.litmus")
    assert [x.replace("T0_0", "T") for x in _texts(rep, 0)] == _texts(human, 0)


def test_each_chunk_gets_a_signal_word_of_its_own() -> None:
    test = load_litmus(LIB / "nvshmem/ring-reduce+put_signal_nbi-cumulative.litmus")
    models = ["nvshmem-api", "nvshmem-ibgda"]
    rep = _fixed(test, models, 1, "signal-per-chunk")
    human = load_litmus(LIB / "nvshmem/ring-reduce+put_signal_nbi-per-chunk.litmus")
    assert _program(rep) == _program(human)


def test_signal_per_chunk_is_offered_only_where_the_test_cannot_tell() -> None:
    text = (LIB / "nvshmem/ring-reduce+put_signal_nbi-cumulative.litmus").read_text()
    entries = [e.entry for e in candidates(parse_litmus(text, "a.litmus"))]
    assert entries.count("signal-per-chunk") == 1
    for changed in (text.replace("shmem.wait_until S, >=, 1", "shmem.wait_until S, >=, 2"),
                    text.replace("exists (1:r0 = 0)", "exists (1:r0 = 0 /\\ S = 2)")):
        t = parse_litmus(changed, "b.litmus")
        assert "signal-per-chunk" not in [e.entry for e in candidates(t)], changed[-60:]


def test_a_put_after_its_signal_is_reported_as_a_reordering() -> None:
    test = load_litmus(LIB / "gin/MP+signal+put-late.litmus")
    r = fix(test, GIN3)
    assert r.status == "impossible" and not r.repairs
    ((words, moved),) = r.reorderings
    assert words.startswith("move P0:2 before P0:1")
    assert _program(moved.test) == _program(load_litmus(LIB / "gin/04b-MP+put+signal.litmus"))
    assert moved.verdicts == dict.fromkeys(GIN3, "Forbidden")
    # the file is edited in place: two cells swapped, every other line the user's
    assert moved.text.splitlines()[:10] == test.source.splitlines()[:10]
