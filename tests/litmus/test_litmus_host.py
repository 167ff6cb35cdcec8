"""Host-initiated RDMA and kernel boundaries (docs/litmus-format.md §12): parsing, printing,
features, and the input rules of docs/input-rules.md."""

from __future__ import annotations

import pytest

from gdrcheck.litmus import ast as A
from gdrcheck.litmus import parse_litmus
from gdrcheck.litmus.features import test_features as features_of
from gdrcheck.litmus.printer import print_litmus
from tests.litmus.test_input_rules import error, where

HEAD = ("P0@host,node 0 | P1@host,node 1 | P2@cta 0,gpu 1,node 1,launched ;\n")


def gin(p0: str, p1: str, p2: str, header: str = HEAD, init: str = "x = 0; buf@0 = 1;",
        cond: str = "exists (2:r0 = 0)") -> str:
    rows = []
    cols = [c.split(";") for c in (p0, p1, p2)]
    for i in range(max(len(c) for c in cols)):
        rows.append(" " + " | ".join(c[i].strip() if i < len(c) else "" for c in cols) + " ;")
    return f"GIN T\n{{ {init} }}\n {header}" + "\n".join(rows) + f"\n{cond}\n"


GOOD = gin("ibv.write_imm q0, x@1, buf@0", "ibv.wait_recv q0; cuda.launch P2",
           "ld.weak r0, x")


def test_host_calls_parse_into_their_nodes() -> None:
    t = parse_litmus(GOOD)
    assert t.threads[0].instrs == (A.HostVerb("write_imm", "q0", A.LocRef("x", 1),
                                              A.LocRef("buf", 0)),)
    assert t.threads[1].instrs == (A.HostWaitCompletion("recv", "q0"), A.CudaLaunch(2))
    assert t.threads[2].placement == A.Placement(cta=0, gpu=1, node=1, launched=True)
    assert t.threads[0].placement == A.Placement(node=0, host=True)


def test_every_host_call_round_trips_through_the_printer() -> None:
    text = gin("ibv.write q0, x@1, buf@0; ibv.atomic_add q1, f@1, 2; ibv.wait_send q0",
               "cuda.launch P2; cuda.flush_rdma; cuda.sync P2",
               "stream.wait_value f, >=, 1, flush; ld.weak r0, x",
               init="x = 0; f = 0; buf@0 = 1;")
    t = parse_litmus(text)
    again = parse_litmus(print_litmus(t))
    assert again == t
    assert "stream.wait_value f, >=, 1, flush" in print_litmus(t)
    assert "launched" in print_litmus(t)


def test_host_calls_need_the_host_feature() -> None:
    assert features_of(parse_litmus(GOOD)) == frozenset({"HOST", "PTX"})


@pytest.mark.parametrize("text,at,message", [
    (gin("ibv.write_imm q0, x@1, buf@0", "ibv.wait_recv q0; cuda.launch P2", "ld.weak r0, x",
         header="P0@host,node 0 | P1@host,node 1 | P2@cta 0,gpu 1,node 1 ;\n"),
     "5:5", "cuda.launch P2: P2 is not declared 'launched'"),
    (gin("ibv.write_imm q0, x@1, buf@0", "ibv.wait_recv q0", "ld.weak r0, x"),
     "3:36", "P2 is declared 'launched' but no host thread launches it"),
    (gin("cuda.launch P2", "cuda.launch P2", "ld.weak r0, x"),
     "4:19", "P2 is launched twice (first at 4:2)"),
    (gin("cuda.sync P2; cuda.launch P2", "", "ld.weak r0, x"),
     "4:2", "cuda.sync P2 comes before this thread's cuda.launch P2"),
    (gin("cuda.launch P7", "", "ld.weak r0, x"), "4:2",
     "cuda.launch P7: there is no thread P7"),
    (gin("cuda.launch P2", "", "ld.weak r0, x; stream.wait_value x, >=, 1"),
     "5:8", "stream.wait_value must be the first instruction"),
    (gin("ibv.write x0, x@1, buf@0", "", ""), "4:12",
     "expected a queue pair such as q0, found 'x0'"),
    (gin("ibv.wait_recv c0", "", ""), "4:16", "expected a queue pair such as q0"),
    (gin("", "", "ibv.write q0, x@0, buf@1", header="P0@host,node 0 | P1@host,node 1 | "
         "P2@cta 0,gpu 1,node 1 ;\n", cond="exists (x@0 = 0)"),
     "4:8", "'ibv.write' is a host call: it belongs to a host thread"),
    (gin("stream.wait_value x, >=, 1", "", ""), "4:2",
     "stream.wait_value is the GPU front end's wait before a kernel starts"),
    (gin("cuda.launch P2; L0:; beq r1, 0, L0", "", "ld.weak r0, x"), "4:2",
     "a thread that launches or waits for kernels has no branches"),
    (gin("cuda.launch P2", "", "stream.wait_value x, >=, 1, now; ld.weak r0, x"), "4:50",
     "expected 'flush'"),
    (gin("", "", "", header="P0@host,node 0 | P1@host,node 1 | P2@host,node 1,launched ;\n",
         cond="exists (x@0 = 0)"), "3:36", "'launched' marks a GPU thread"),
])
def test_host_input_rules(text: str, at: str, message: str) -> None:
    err = error(text)
    assert message in err.message
    assert where(err) == at


def test_host_calls_need_a_gin_test() -> None:
    err = error("PTX T\n{ x = 0; }\n P0 ;\n ibv.wait_send q0 ;\nexists (x = 0)\n")
    assert "ibv.* calls need a GIN test" in err.message
