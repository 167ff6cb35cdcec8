"""The PTX 7.5+ syntax: doc strings, virtual aliases, surface/texture/constant
accesses, proxy fences (Dartagnan's PTX 7.5 tests), shared memory, mbarriers and TMA
copies (docs/litmus-format.md §7.3): parsing, round trip, and file:line:col errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from gdrcheck.analysis.validate import peer_suite
from gdrcheck.errors import LitmusError, Pos
from gdrcheck.litmus import ast as A
from gdrcheck.litmus import parse_litmus
from gdrcheck.litmus.features import test_features
from gdrcheck.litmus.printer import print_litmus

FULL = """PTX T1
"first"
"https://example.com/second (* not a comment *)"
Expect=ptx75:Allowed
{
x = 0;
y @ generic aliases x;
s @ surface aliases x;
t @ texture aliases y;
c @ constant aliases x;
sm : shared = 3;
mb : mbarrier 2;
}
 P0@cta 0,gpu 0                   | P1@cta 0,gpu 0            ;
 sust.weak s, 2                   | mbarrier.wait mb          ;
 fence.proxy.surface              | ld.weak r1, sm            ;
 fence.proxy.async.shared::cta    | cold.weak r2, c           ;
 cp.async.bulk sm, x, mb          | tld.weak r3, t            ;
 mbarrier.arrive.expect_tx mb, 1  | ld.const r4, c            ;
 cp.async.bulk x, sm              | suld.weak r5, s           ;
 cp.async.bulk.commit_group       | mbarrier.arrive.relaxed mb ;
 cp.async.bulk.wait_group 0       | fence.proxy.alias         ;
 fence.proxy.async.global         | ld.shared::cta r6, sm     ;
 cp.async.bulk.wait_group.read 1  |                           ;
exists (P1:r1 == 1)
"""


def test_every_doc_string_is_kept() -> None:
    test = parse_litmus(FULL)
    assert test.docs == ("first", "https://example.com/second (* not a comment *)")
    assert test.doc == "first\nhttps://example.com/second (* not a comment *)"
    assert test.meta_values("Expect") == ["ptx75:Allowed"]


def test_doc_and_docs_follow_each_other() -> None:
    test = parse_litmus(FULL)
    one = A.Test(test.arch, test.name, "only", test.meta, test.init, test.threads,
                 test.locations, test.filter, test.condition)
    assert one.docs == ("only",)
    none = A.Test(test.arch, test.name, None, test.meta, test.init, test.threads,
                  test.locations, test.filter, test.condition)
    assert none.docs == () and "\"" not in print_litmus(none).splitlines()[1]


def test_the_new_syntax_parses_into_the_ast() -> None:
    test = parse_litmus(FULL)
    init = test.init
    assert A.AliasDecl("y", "generic", "x") in init
    assert A.AliasDecl("s", "surface", "x") in init
    assert A.SharedDecl("sm", 3) in init
    assert A.MbarrierDecl("mb", 2) in init
    p0, p1 = (t.instrs for t in test.threads)
    assert p0[0] == A.PtxStore("weak", None, A.LocRef("s"), A.Const(2), proxy="surface")
    assert p0[2] == A.PtxFence("proxy.async.shared::cta", None)
    assert p0[3] == A.PtxBulkLoad(A.LocRef("sm"), A.LocRef("x"), A.LocRef("mb"))
    assert p0[4] == A.PtxMbarArrive(A.LocRef("mb"), "release", 1)
    assert p0[5] == A.PtxBulkStore(A.LocRef("x"), A.LocRef("sm"))
    assert p0[6] == A.PtxBulkCommit()
    assert p0[7] == A.PtxAsyncWait(0) and p0[9] == A.PtxAsyncWait(1, read=True)
    assert p1[0] == A.PtxMbarWait(A.LocRef("mb"), "acquire")
    assert p1[2] == A.PtxLoad("weak", None, A.Reg("r2"), A.LocRef("c"), proxy="constant")
    assert p1[3].proxy == "texture" and p1[5].proxy == "surface"  # type: ignore[union-attr]
    assert p1[4] == p1[2].__class__("weak", None, A.Reg("r4"), A.LocRef("c"), proxy="constant")
    assert p1[6] == A.PtxMbarArrive(A.LocRef("mb"), "relaxed", None)
    assert test_features(test) == {"PTX", "PTX75"}


def test_round_trip() -> None:
    test = parse_litmus(FULL)
    again = parse_litmus(print_litmus(test))
    assert again == test
    assert again.docs == test.docs


def test_a_ptx60_test_needs_no_ptx75() -> None:
    test = parse_litmus("PTX T\n{ x=0; }\n P0 ;\n st.weak x, 1 ;\n fence.proxy.async ;\n"
                        "exists (x == 1)\n")
    assert test_features(test) == {"PTX"}


def _peer_files(name: str) -> list[Path]:
    folder = peer_suite(name)
    if folder is None:
        pytest.skip(f"peer suite {name} is not present (GDRCHECK_PEERS names the folder of "
                    "the peer suites: docs/peer-differences.md)")
    return sorted(folder.rglob("*.litmus"))


@pytest.mark.parametrize("suite", ["dat3m-ptx75", "dat3m-ptx"])
def test_dartagnan_tests_parse_and_round_trip(suite: str) -> None:
    files = _peer_files(suite)
    assert len(files) == {"dat3m-ptx75": 81, "dat3m-ptx": 104}[suite]
    for f in files:
        test = parse_litmus(f.read_text(), str(f))
        assert parse_litmus(print_litmus(test)) == test, f.name


def _t(init: str, a: str, b: str = "ld.weak r0, x") -> str:
    return (f"PTX T\n{{ {init} }}\n P0@cta 0,gpu 0 | P1@cta 0,gpu 0 ;\n {a} | {b} ;\n"
            "exists (P1:r0 == 0)\n")


_DECLS = "x=0; s : shared = 0; mb : mbarrier 1;"
ERRORS = [
    (_t("x=0; y @ generic alias x;", "st.weak x, 1"), Pos(2, 20), "expected 'aliases'"),
    (_t("x=0; y @ global aliases x;", "st.weak x, 1"), Pos(2, 12), "unknown proxy 'global'"),
    (_t("x=0; y @ generic aliases z;", "st.weak x, 1"), Pos(2, 8),
     "'y' aliases 'z', which is not a location"),
    (_t("x=0; mb : mbarrier;", "st.weak x, 1"), Pos(2, 21), "expected arrivals per phase"),
    (_t("x=0; mb : mbarrier 0;", "st.weak x, 1"), Pos(2, 22), "at least one arrival"),
    (_t("x=0; S : signal 2;", "st.weak x, 1"), Pos(2, 19), "only an mbarrier declaration"),
    (_t(_DECLS, "fence.proxy.foo"), Pos(4, 14), "unknown proxy kind '.foo'"),
    (_t(_DECLS, "sust.relaxed.gpu x, 1"), Pos(4, 6), "unknown qualifier '.relaxed'"),
    (_t(_DECLS, "cp.async.bulk x, x, mb"), Pos(4, 16), "a TMA load writes shared memory"),
    (_t(_DECLS, "mbarrier.wait x"), Pos(4, 16), "expected an mbarrier"),
    (_t(_DECLS, "mbarrier.arrive.acquire mb"), Pos(4, 17), "unknown qualifier '.acquire'"),
    (_t(_DECLS, "mbarrier.arrive.expect_tx mb"), Pos(4, 2), "takes 2 operands"),
    (_t(_DECLS, "ld.shared r1, x"), Pos(4, 16), "'x' is not declared 'x : shared'"),
    (_t(_DECLS, "ld.weak r1, mb"), Pos(4, 14), "'mb' is an mbarrier"),
    (_t(_DECLS, "red.relaxed.cta.add mb, 1"), Pos(4, 22), "'mb' is an mbarrier"),
    (_t(_DECLS, "cp.async.bulk.wait_group -1"), Pos(4, 27), "a group count is >= 0"),
    (_t(_DECLS, "mbarrier.foo mb"), Pos(4, 2), "unknown instruction 'mbarrier.foo'"),
    (_t(_DECLS, "suld.weak r1, s"), Pos(4, 16), "a surface access cannot name shared memory"),
    (_t(_DECLS, "cp.async.bulk s, mb"), Pos(4, 16), "the destination of a bulk copy is global"),
    (_t(_DECLS, "cp.async.bulk.wait_group.write 0"), Pos(4, 2),
     "unknown instruction 'cp.async.bulk.wait_group.write'"),
]


@pytest.mark.parametrize("text,pos,message", ERRORS, ids=[m for _, _, m in ERRORS])
def test_errors_give_file_line_col(text: str, pos: Pos, message: str) -> None:
    with pytest.raises(LitmusError) as info:
        parse_litmus(text, "t.litmus")
    err = info.value
    assert err.pos == pos
    assert message in str(err)
    assert f"t.litmus:{pos.line}:{pos.col}" in err.render()
