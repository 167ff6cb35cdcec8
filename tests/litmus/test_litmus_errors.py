"""Malformed inputs: a LitmusError with the exact file:line:col and a readable message."""

from __future__ import annotations

import pytest

from gdrcheck.errors import InputError, LitmusError
from gdrcheck.litmus import load_litmus, parse_litmus

PTX = (
    "PTX T\n"
    "{ x=0; }\n"
    " P0@cta 0,gpu 0 | P1@cta 0,gpu 0 ;\n"
    " {a} | {b} ;\n"
    "exists (P1:r0 == 0)\n"
)


def ptx(a: str, b: str = "ld.weak r0, x") -> str:
    return PTX.replace("{a}", a).replace("{b}", b)


GIN = (
    "GIN T\n"
    "{ x=0; S : signal; C : counter; }\n"
    " P0@cta 0,gpu 0,node 0 | P1@cta 0,gpu 1,node 1 ;\n"
    " {a} | {b} ;\n"
    "exists (1:r0 = 0)\n"
)


def gin(a: str, b: str = "ld.weak r0, x") -> str:
    return GIN.replace("{a}", a).replace("{b}", b)


def x86(a: str) -> str:
    return f"X86 T\n{{ }}\n P0 | P1 ;\n {a} | MOV EAX,[x] ;\nexists (1:EAX=0)\n"


def table(rows: str, cond: str = "exists (P0:r0 == 0)", init: str = "x=0;") -> str:
    return f"PTX T\n{{ {init} }}\n{rows}{cond}\n"


CASES = [
    # instructions
    (ptx("st.weak x, 1", "foo.bar r0, x"), "4:17",
     "unknown instruction 'foo.bar' (PTX tests support ld, st, suld, sust, tld, ld.const (cold), "
     "atom, red, cp.async.bulk, mbarrier, multimem, fence, membar, bar, barrier, barrier.cluster, "
     "mapa, st.async, red.async, griddepcontrol, branches, goto, setp, selp and register ops)"),
    (ptx("st.weak x, 1", "ld.acquire r0, x"), "4:17",
     "strong operation 'ld.acquire' needs a scope (.cta, .cluster, .gpu or .sys)"),
    (ptx("st.release x, 1"), "4:2",
     "strong operation 'st.release' needs a scope (.cta, .cluster, .gpu or .sys)"),
    (ptx("atom.acquire.add r0, x, 1"), "4:2",
     "strong operation 'atom.acquire.add' needs a scope (.cta, .cluster, .gpu or .sys)"),
    (ptx("red.add x, 1"), "4:2",
     "strong operation 'red.add' needs a scope (.cta, .cluster, .gpu or .sys)"),
    (ptx("fence.sc"), "4:2", "'fence.sc' needs a scope (.cta, .cluster, .gpu or .sys)"),
    # setp and selp (PTX ISA §9.7.6.2, §9.7.6.3) on the dialect's integer registers
    (ptx("setp r1, r0, 3"), "4:2",
     "'setp' needs a comparison (setp.eq, .ne, .lt, .le, .gt or .ge)"),
    (ptx("setp.lo.u32 r1, r0, 3"), "4:6",
     "'setp.lo.u32': the registers of a litmus test hold mathematical integers, so the "
     "unsigned comparison '.lo' is not supported (write .lt, .le, .gt or .ge)"),
    (ptx("setp.lt.f32 r1, r0, 3"), "4:9",
     "'setp.lt.f32': the registers of a litmus test hold integers, not floats ('.f32' is not "
     "supported)"),
    (ptx("setp.eq.and.s32 r1, r0, 3, r2"), "4:9",
     "'setp.eq.and.s32': setp with a Boolean operator ('.and') is not supported (combine the "
     "predicates with and, or, xor)"),
    (ptx("setp.eq.lt r1, r0, 3"), "4:9",
     "'setp.eq.lt' has two comparison qualifiers ('.eq' and '.lt')"),
    (ptx("setp.eq r1, r0"), "4:2", "'setp.eq' takes 3 operands (setp.eq p, a, b), found 2"),
    (ptx("setp.eq 1, r0, 2"), "4:10",
     "expected a destination register (the predicate: 1 or 0), found '1'"),
    (ptx("selp.s32 r1, r0, 3"), "4:2", "'selp.s32' takes 4 operands (selp d, a, b, c), found 3"),
    (ptx("selp.gt r1, r0, 3, r2"), "4:6",
     "unknown qualifier '.gt' in 'selp.gt' (selp takes none)"),
    (ptx("selp r1, x@1, 3, r2"), "4:11", "expected a register or an integer, found 'x@1'"),
    (ptx("ld.weak.gpu r1, x"), "4:2", "'ld.weak.gpu': a .weak operation takes no scope"),
    (ptx("ld.gpu r1, x"), "4:2", "'ld.gpu': a scope needs a strong semantics (.relaxed, .acquire)"),
    (ptx("ld.foo.gpu r1, x"), "4:4",
     "unknown qualifier '.foo' in 'ld.foo.gpu' (ld accepts .weak, .relaxed, .acquire, .volatile, "
     ".cta, .cluster, .gpu, .sys, .const, .shared, .shared::cta, .shared::cluster)"),
    (ptx("st.acquire.gpu x, 1"), "4:4",
     "unknown qualifier '.acquire' in 'st.acquire.gpu' (st accepts .weak, .relaxed, .release, "
     ".volatile, .cta, .cluster, .gpu, .sys, .shared, .shared::cta, .shared::cluster)"),
    (ptx("ld.relaxed.acquire.gpu r1, x"), "4:12",
     "'ld.relaxed.acquire.gpu' has two semantics qualifiers ('.relaxed' and '.acquire')"),
    (ptx("atom.relaxed.gpu r0, x, 1"), "4:2",
     "'atom.relaxed.gpu' needs an operation (.add, .sub, .mul, .div, .and, .or, .xor, .exch, "
     ".cas, .inc, .dec, .min or .max)"),
    (ptx("atom.relaxed.gpu.cas r0, x, 1"), "4:2",
     "'atom.relaxed.gpu.cas' takes 4 operands (atom.sem.scope.cas r, x, expected, new), found 3"),
    (ptx("st.weak x, 1", "ld.weak r0, x, y"), "4:32",
     "'ld.weak' takes 2 operands (ld{.sem}{.scope} r, x), found 3"),
    (ptx("st.weak x, 1", "ld.weak r0"), "4:17",
     "'ld.weak' takes 2 operands (ld{.sem}{.scope} r, x), found 1"),
    (ptx("st.weak x, 1", "ld.weak r0,"), "4:28", "unexpected end of the instruction; "
     "expected an operand"),
    (ptx("st.weak x 1"), "4:12", "unexpected '1' in the instruction; expected ','"),
    (ptx("st.weak x, 1 # 2"), "4:15", "unexpected character '#' in the instruction; expected ','"),
    (ptx("st.weak 1, 1"), "4:10", "expected a location, found '1'"),
    (ptx("ld.weak 1, x"), "4:10", "expected a destination register, found '1'"),
    (ptx("st.weak x, [y]"), "4:13", "expected a register or an integer, found '[y]'"),
    (ptx("bne r0, 0, LC05"), "4:13", "label LC05 is not defined in thread P0"),
    (table(" P0 ;\n LC00: ;\n LC00: ;\n"), "5:2", "label LC00 is defined twice in thread P0"),
    (ptx("bar.cta.sync"), "4:2",
     "'bar.cta.sync' takes 1 to 3 operands (bar.cta.sync id{, count}), found none"),
    (ptx("bar.cta 1"), "4:2", "'bar.cta' needs .sync or .arrive"),
    (ptx("gin.put c0, x@1, buf"), "4:2", "unknown instruction 'gin.put' (gin.* calls need a GIN "
     "test)"),
    # GIN calls
    (gin("gin.put c0, x@1, buf, sig=T"), "4:28",
     "'T' is not a signal: declare it in the init block ('T : signal;')"),
    (gin("gin.put c0, x@1, buf, ctr=D"), "4:28",
     "'D' is not a counter: declare it in the init block ('D : counter;')"),
    (gin("gin.put c0, x@1, buf, vsig=S"), "4:29",
     "'S' is a signal or counter; a VA signal needs a window location"),
    (gin("gin.put c0, x@1, buf, sig=S@2"), "4:28",
     "the signal of a put is on the put's peer: write S, not S@2"),
    (gin("gin.put c0, x@1, buf, sig=S, wsig=S"), "4:31",
     "option 'wsig=S' conflicts with an earlier one in 'gin.put'"),
    (gin("gin.put c0, x@1, buf, foo=1"), "4:24",
     "unknown option 'foo=1' for 'gin.put' (expected sig=, wsig=, vsig=, lsig=, ctr=, given=, "
     "required= or aggregate)"),
    (gin("gin.put c0, x@1, buf, given=warp"), "4:30",
     "expected a scope for given= (thread, cta, gpu or sys), found 'warp'"),
    (gin("gin.put c0, x@1, buf, required=cta"), "4:33",
     "expected a scope for required= (gpu or sys), found 'cta'"),
    (gin("gin.put c0, x@1, 7"), "4:19",
     "expected a source location, found '7' (gin.put_value puts an immediate value)"),
    (gin("gin.put x0, x@1, buf"), "4:10", "expected a GIN context such as c0, found 'x0'"),
    (gin("gin.put c0, x@1"), "4:2",
     "'gin.put' takes 3 operands (gin.put c0, x@1, buf{, sig=S}{, ctr=C}{, options}), found 2"),
    (gin("gin.signal c0, S@1, weak, va"), "4:28",
     "option 'va' conflicts with an earlier one in 'gin.signal'"),
    (gin("gin.signal c0, S@1, ctr=C"), "4:22",
     "unknown option 'ctr=C' for 'gin.signal' (expected weak, va, legacy, given=, required= or "
     "aggregate)"),
    (gin("gin.wait_signal S@1, 1"), "4:18",
     "a rank waits on, reads and resets its own signals: write S, not S@1"),
    (gin("gin.wait_signal S, x+1"), "4:21",
     "expected the threshold: an integer, a register (r0) or a register plus an integer "
     "(r0+2), found 'x+1'"),
    (gin("gin.wait_counter S, 1"), "4:19",
     "'S' is not a counter: declare it in the init block ('S : counter;')"),
    (gin("gin.barrier c0, all"), "4:18",
     "expected a barrier kind (put, get or none), found 'all'"),
    (gin("gin.puts c0, x@1, buf"), "4:2",
     "unknown GIN call 'gin.puts' (gin.put, gin.put_value, gin.signal, gin.flush, gin.get, "
     "gin.wait_signal, gin.wait_counter, gin.read_signal, gin.read_counter, gin.reset_signal, "
     "gin.reset_counter, gin.barrier, gin.flush_async, gin.wait)"),
    (gin("gin.read_signal.weak r0, S"), "4:17",
     "unknown qualifier '.weak' in 'gin.read_signal.weak' (gin.read_signal accepts .relaxed)"),
    (gin("shmem.wait_until S, 1, 1"), "4:22",
     "expected a comparison (>=, ==, !=, >, <, <=), found '1'"),
    (gin("shmem.put_signal x@1, buf, S, 1, inc"), "4:35",
     "expected a signal operation (add or set), found 'inc'"),
    (gin("shmem.fence 1"), "4:14", "'shmem.fence' takes 0 operands (shmem.fence), found 1"),
    (gin("st.weak x@-1, 1"), "4:12", "a rank is a number >= 0, found -1"),
    # X86
    (x86("MOV [x],[y]"), "4:10", "'MOV' cannot move from memory to memory"),
    (x86("MOV [x],x"), "4:10", "expected a register, [location] or $value, found 'x'"),
    (x86("MOV $1,EAX"), "4:6", "'MOV' needs a register or a [location] here, found '$1'"),
    (x86("ADD [x],$1"), "4:2", "unknown instruction 'ADD' (X86 tests support MOV, XCHG, MFENCE "
     "and LOCK ADD|XADD|CMPXCHG|INC|DEC|XCHG)"),
    (x86("LOCK XADD [x],$1"), "4:16",
     "'LOCK XADD' needs a register as its second operand, found '$1'"),
    (x86("LOCK INC EAX"), "4:11", "'LOCK INC' needs a [location] as its first operand, "
     "found 'EAX'"),
    (x86("MOV EBX,[EAX]"), "4:10", "indirect addressing [EAX] is not supported"),
    (x86("LC0:"), "4:2", "labels are not supported in X86 tests"),
    # thread table
    (table(" P0 | P1 ;\n ld.weak r0, x | st.weak x, 1\n"), "4:30", "expected ';' at end of row"),
    (table(" P0 | P1\n ld.weak r0, x | st.weak x, 1 ;\n"), "3:9", "expected ';' at end of row"),
    (table(" P0 | P1 | P1 ;\n ld.weak r0, x | st.weak x, 1 ;\n"), "3:12",
     "thread header P1 appears twice"),
    (table(" P0 | P2 ;\n ld.weak r0, x | st.weak x, 1 ;\n"), "3:7",
     "expected thread header P1 here (threads are numbered P0, P1, ... from the left), found P2"),
    (table(" P0 | P1 ;\n ld.weak r0, x | st.weak x, 1 | st.weak x, 2 ;\n"), "4:33",
     "this row has 3 cells but the header names 2 threads"),
    (table(" P0 | Q1 ;\n ld.weak r0, x | st.weak x, 1 ;\n"), "3:7",
     "expected a thread header such as P1 or P1@cta 0,gpu 0, found 'Q1'"),
    (table(" P0@cta 0,gpu 0,foo 1 ;\n ld.weak r0, x ;\n"), "3:17",
     "unknown placement 'foo 1' in the header of P0 (expected 'cta N', 'cluster N', 'gpu N', "
     "'node N', 'grid N', 'host' or 'launched')"),
    (table(" P0@cta 0,cta 1 ;\n ld.weak r0, x ;\n"), "3:11",
     "'cta' appears twice in the placement of P0"),
    (table(" P0@host,gpu 1 ;\n ld.weak r0, x ;\n"), "3:2",
     "host thread P0 cannot have a cta, a cluster or a gpu"),
    (table(" P0 | ;\n ld.weak r0, x ;\n"), "3:7", "empty thread header: expected P1"),
    (table("", "exists (x = 1)"), "3:1",
     "expected the thread table (a header row such as 'P0 | P1 ;')"),
    # conditions
    (table(" P0 | P1 ;\n ld.weak r0, x | st.weak x, 1 ;\n", "exists (P7:r0 == 0)"), "5:9",
     "unknown thread P7 in condition"),
    (table(" P0 ;\n ld.weak r0, x ;\n", "locations [x; 1:r0;] exists (x = 0)"), "5:15",
     "unknown thread P1 in locations"),
    (table(" P0 ;\n ld.weak r0, x ;\n", "filter (2:r0 = 1) exists (x = 0)"), "5:9",
     "unknown thread P2 in filter"),
    (table(" P0 ;\n ld.weak r0, x ;\n", "exists (Q0:r0 == 0)"), "5:9",
     "expected a thread such as P1 or 1 before ':', found 'Q0'"),
    (table(" P0 ;\n ld.weak r0, x ;\n", "exists (P0:r0 == 0 /\\ )"), "5:23",
     "unexpected ')' in the condition; expected '(', '[', 'false', 'true', '~', a name or an "
     "integer"),
    (table(" P0 ;\n ld.weak r0, x ;\n", "exists (P0:r0 == 0"), "5:19",
     "unexpected end of the condition; expected ')'"),
    (table(" P0 ;\n ld.weak r0, x ;\n", "exists (P0:r0 == 0) garbage"), "5:21",
     "unexpected 'garbage' in the condition; expected '/\\\\', '\\\\/' or the end of the file"),
    (table(" P0 ;\n ld.weak r0, x ;\n", ""), "4:17",
     "expected a condition (exists, ~exists or forall) after the thread table"),
    # init block
    (table(" P0 ;\n ld.weak r0, x ;\n", init="x=0 y=1;"), "2:7",
     "unexpected 'y' in the init block; expected ';' or '}'"),
    (table(" P0 ;\n ld.weak r0, x ;\n", init="P3:r0=1;"), "2:3",
     "unknown thread P3 in the init block"),
    (table(" P0 ;\n ld.weak r0, x ;\n", init="S : sig;"), "2:7",
     "unknown declaration 'sig' (expected signal, counter, host, shared or mbarrier)"),
    (table(" P0 ;\n ld.weak r0, x ;\n", init="S : signal = 1;"), "2:16",
     "a signal starts at 0 and takes no initial value: write 'S : signal;'"),
    (table(" P0 ;\n ld.weak r0, x ;\n", init="S : signal; S : counter;"), "2:15",
     "'S' is declared twice in the init block"),
    (table(" P0 ;\n ld.weak r0, x ;\n", init="window W loose = {f};"), "2:12",
     "unknown window flag 'loose' (expected 'strict' or 'line')"),
    (table(" P0 ;\n ld.weak r0, x ;\n", init="P0:r0;"), "2:6",
     "expected '=' and an initial value for register 0:r0"),
    ("PTX T\n{ x=0;\n P0 ;\n ld.weak r0, x ;\nexists (x = 0)\n", "2:1",
     "the init block is never closed: expected '}'"),
    # header, doc, metadata, comments
    ("", "1:1", "empty file: expected a header line such as 'PTX MP'"),
    ("ARM T\n{ }\n", "1:1", "unknown architecture 'ARM' (gdrcheck reads X86, PTX and GIN tests)"),
    ("PTX\n{ }\n", "1:4", "missing test name after 'PTX'"),
    ("PTX A B\n{ }\n", "1:7", "unexpected 'B' after the test name"),
    ('PTX T\n"never closed\n{ }\n', "2:1", "doc string is never closed: expected '\"'"),
    # any number of doc strings (docs/litmus-format.md §1): the second one is never closed
    ('PTX T\n"a"\n"b\n{ }\n', "3:1", "doc string is never closed: expected '\"'"),
    ("PTX T\n(* never closed\n{ }\n", "2:1", "comment '(*' is never closed: expected '*)'"),
    ("PTX T\n{ x = 0; } (* (* nested *)\n", "2:12",
     "comment '(*' is never closed: expected '*)'"),
    ("PTX T\nsome text\n{ }\n", "2:1",
     "unexpected 'some': expected a metadata line 'Key=Value' or '{' to start the init block"),
    ("PTX T\nKey=Value\n", "2:10", "expected '{' to start the init block"),
    ("PTX T\nExpect=gin-api:Forbiden\n{ }\n", "2:8",
     "unknown verdict 'Forbiden' in Expect= (expected Allowed, Forbidden, Required or Undefined)"),
    ("PTX T\nExpect=gin-api:Forbidden, GIN:Allowed\n{ }\n", "2:27",
     "bad model name 'GIN' in Expect= (lower-case letters, digits and '-')"),
    ("PTX T\nExpect=gin-api\n{ }\n", "2:8",
     "bad Expect= entry 'gin-api': expected model{+variant}:Verdict, e.g. gin-api:Forbidden"),
    ("PTX T\nExpect=gin-api+pcie ro:Allowed\n{ }\n", "2:8",
     "bad variant name 'pcie ro' in Expect="),
]


@pytest.mark.parametrize(("text", "where", "message"), CASES,
                         ids=[f"{i}:{m[:40]}" for i, (_, _, m) in enumerate(CASES)])
def test_error(text: str, where: str, message: str) -> None:
    with pytest.raises(LitmusError) as info:
        parse_litmus(text, "t.litmus")
    err = info.value
    assert err.message == message
    assert f"{err.pos.line}:{err.pos.col}" == where
    assert err.path == "t.litmus"
    assert err.source == text
    assert str(err).splitlines()[0] == f"t.litmus:{where}: {message}"


def test_rendering_shows_the_line_and_a_caret() -> None:
    with pytest.raises(LitmusError) as info:
        parse_litmus(ptx("st.weak x, 1", "ld.acquire r0, x"), "mp.litmus")
    assert info.value.render() == (
        "mp.litmus:4:17: strong operation 'ld.acquire' needs a scope "
        "(.cta, .cluster, .gpu or .sys)\n"
        "   st.weak x, 1 | ld.acquire r0, x ;\n"
        "                  ^"
    )


def test_error_without_path() -> None:
    with pytest.raises(LitmusError) as info:
        parse_litmus("PTX T\n{ }\n P0 ;\n foo ;\nexists (true)\n")
    assert str(info.value).startswith("<input>:4:2: unknown instruction 'foo'")


def test_missing_file(tmp_path: object) -> None:
    with pytest.raises(InputError) as info:
        load_litmus("/nonexistent/dir/t.litmus")
    assert info.value.path == "/nonexistent/dir/t.litmus"
    assert "cannot read the file" in info.value.message


@pytest.mark.parametrize("text", [
    "PTX T\n{ x = = }\n P0 ;\nexists (true)\n",
    "PTX T\n{ }\n P0 ;\n ld.weak r0, x | ;\nexists (true /\\)\n",
    "PTX T\n{ }\n P0 ;\n ld.weak ,,, ;\nexists (true)\n",
    "PTX T\n{ }\n P0 ;\n $$$ ;\nexists (true)\n",
    "PTX T\n{ }\n P0 ;\n ld.weak r0, x ;\nexists (x = 1) exists (x = 2)\n",
    "GIN T\n{ }\n P0 ;\n gin.put ;\nexists (true)\n",
    "X86 T\n{ }\n P0 ;\n LOCK ;\nexists (true)\n",
    "X86 T\n{ }\n P0 ;\n MOV [x ;\nexists (true)\n",
])
def test_garbage_gives_litmus_errors(text: str) -> None:
    with pytest.raises(LitmusError) as info:
        parse_litmus(text, "g.litmus")
    assert info.value.pos.line > 0
