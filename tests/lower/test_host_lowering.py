"""Host verbs and kernel boundaries become events (gdrcheck/lower/host.py, docs/lowering.md)."""

from __future__ import annotations

import pytest

from gdrcheck.errors import UnsupportedError
from gdrcheck.litmus import parse_litmus
from gdrcheck.lower import lower
from gdrcheck.lower.program import Event, Program

TEST = """GIN T
{ x = 0; y = 0; buf@0 = 1; }
 P0@host,node 0               | P1@host,node 1   | P2@cta 0,gpu 1,node 1,launched ;
 ibv.write q0, y@1, buf@0     | ibv.wait_recv q0 | ld.weak r0, x                  ;
 ibv.write_imm q0, x@1, buf@0 | ibv.wait_recv q0 |                                ;
 ibv.wait_send q0             | cuda.launch P2   |                                ;
                              | cuda.sync P2     |                                ;
exists (2:r0 = 0)
"""


def tagged(p: Program, *tags: str) -> list[Event]:
    return [e for e in p.events if set(tags) <= e.tags]


def test_a_write_is_an_issue_a_nic_read_a_nic_write_and_a_send_completion() -> None:
    p = lower(parse_litmus(TEST))
    issue, = [e for e in tagged(p, "VERBS", "ISSUE") if "IMM" not in e.tags]
    read, write = [e for e in p.events if e.op == issue.op and e.kind in "RW"]
    assert (issue.thread, issue.agent, issue.ctx, issue.peer) == (0, "", "q0.n0", 1)
    assert read.loc == "buf@0" and {"NR", "LCL", "NIC"} <= read.tags
    assert write.loc == "y@1" and {"NW", "RSP", "SO", "RLX", "SYS"} <= write.tags
    assert write.agent == "nic.n0.q0.n1" and write.parent is None
    assert (read.eid, write.eid) in p.data
    assert [e for e in tagged(p, "LC") if e.op == issue.op]


def test_write_imm_increments_the_target_nodes_receive_queue() -> None:
    p = lower(parse_litmus(TEST))
    cqe = tagged(p, "RCQE")
    assert {e.loc for e in cqe} == {"rcq.q0.n1"} and len(cqe) == 2
    assert {(r.eid, w.eid) for r in cqe for w in cqe if r.kind == "R" and w.kind == "W"} <= p.rmw


def test_the_kth_receive_wait_waits_for_k_completions() -> None:
    p = lower(parse_litmus(TEST))
    polls = tagged(p, "CQPOLL")
    assert {e.loc for e in polls} == {"rcq.q0.n1"} and {"ACQ", "SYS"} <= polls[0].tags
    waits = sorted(b.cond.right for b in p.blocks  # type: ignore[union-attr]
                   if b.cond is not None and b.thread == 1 and b.positive)
    assert waits == [1, 2]
    assert sum(1 for lf in p.blocking_waits() if lf.thread == 1) == 2


def test_kstart_and_kend_link_the_markers_to_the_kernel() -> None:
    p = lower(parse_litmus(TEST))
    launch, = tagged(p, "LAUNCH")
    sync, = tagged(p, "KSYNC")
    kernel = {e.eid for e in p.events if e.thread == 2}
    assert p.relations["kstart"] == {(launch.eid, k) for k in kernel}
    assert p.relations["kend"] == {(k, sync.eid) for k in kernel}
    assert tagged(p, "WAITSEND")[0].ctx == "q0.n0"


def test_a_stream_wait_is_a_blocking_relaxed_read_first_in_the_kernel() -> None:
    text = TEST.replace("ld.weak r0, x                  ;",
                        "stream.wait_value y, >=, 1, flush ;", 1).replace(
        "|                                ;\n ibv.wait_send",
        "| ld.weak r0, x ;\n ibv.wait_send", 1)
    p = lower(parse_litmus(text))
    wait, = tagged(p, "SWAIT")
    assert wait.thread == 2 and wait.loc == "y@1" and {"SWFLUSH", "RLX", "SYS"} <= wait.tags
    assert wait.parent is None
    assert any(lf.wait is not None and lf.thread == 2 for lf in p.blocking_waits())


@pytest.mark.parametrize("change,message", [
    (("ibv.write q0, y@1, buf@0", "ibv.write q0, y@0, buf@0"), "the node of rank 0 is not known"),
    (("P2@cta 0,gpu 1,node 1,launched", "P2@cta 0,gpu 1,launched"),
     "the node of rank 1 is not known"),
    (("ibv.write q0, y@1, buf@0", "ibv.write q0, y@1, buf"), "'buf' needs a rank here"),
])
def test_what_the_host_lowering_rejects(change: tuple[str, str], message: str) -> None:
    with pytest.raises(UnsupportedError) as info:
        lower(parse_litmus(TEST.replace(*change), "t.litmus"))
    assert message in info.value.message
