"""Extraction: concrete ids and arguments, unrolled loops, spin loops as litmus loops, asserts
as flags, and every unsupported construct refused at its line."""

from __future__ import annotations

from pathlib import Path

import pytest

from gdrcheck.kernel import KernelError, load_kernel, make_run
from gdrcheck.litmus import ast as A

from .conftest import DATA


def _kernel(tmp_path: Path, body: str, name: str = "k.cu") -> Path:
    src = tmp_path / name
    src.write_text("#include <nvshmem.h>\n#include <assert.h>\n" + body)
    return src


def _instrs(test: A.Test, thread: int) -> list[A.Instr]:
    return [i for i in test.threads[thread].instrs if not isinstance(i, A.Label)]


def test_every_rank_cta_and_thread_is_a_thread_with_its_ids(tmp_path: Path) -> None:
    src = _kernel(tmp_path, "__global__ void k(int *x) {\n"
                  "    int me = nvshmem_my_pe();\n"
                  "    if (threadIdx.x == 1 && blockIdx.x == 0)\n"
                  "        nvshmem_int_p(x + me, me * 10 + (int)blockDim.x,\n"
                  "                      (me + 1) % nvshmem_n_pes());\n"
                  "}\n")
    kt = load_kernel(src, make_run("k", 3, grid=2, block=2))
    assert [(t.rank, t.cta, t.tid) for t in kt.extraction.threads] == [
        (r, c, t) for r in range(3) for c in range(2) for t in range(2)]
    test = kt.test
    puts = {th.index: [i for i in th.instrs if isinstance(i, A.ShmemCall)]
            for th in test.threads}
    # only thread 1 of CTA 0 on each rank: P1, P5, P9
    assert {k for k, v in puts.items() if v} == {1, 5, 9}
    call = puts[5][0]
    assert (call.op, call.dst, call.value) == ("p", A.LocRef("x_1", 2), 12)
    assert test.threads[5].placement == A.Placement(cta=0, gpu=1, node=1)


def test_constant_loops_unroll_and_scalar_arguments_come_from_arg(tmp_path: Path) -> None:
    src = _kernel(tmp_path, "__global__ void k(uint64_t *f, int iter, int pe) {\n"
                  "    for (int i = 0; i < iter; i++)\n"
                  "        nvshmemx_signal_op(f, i + 1, NVSHMEM_SIGNAL_SET, !pe);\n"
                  "}\n")
    kt = load_kernel(src, make_run("k", 2, args=("iter=3", "pe=0,1")))
    ops = [i for i in kt.test.threads[1].instrs if isinstance(i, A.ShmemCall)]
    assert [(o.op, o.signal, o.signal_value, o.signal_op) for o in ops] == [
        ("signal_op", A.LocRef("f", 0), v, "set") for v in (1, 2, 3)]
    with pytest.raises(KernelError, match="'iter' needs a value: --arg iter=VALUE"):
        load_kernel(src, make_run("k", 2, args=("pe=0,1",)))
    with pytest.raises(KernelError, match="no parameter 'nope'"):
        load_kernel(src, make_run("k", 2, args=("iter=1", "pe=0", "nope=1")))
    with pytest.raises(KernelError, match="3 values for 2 ranks"):
        load_kernel(src, make_run("k", 2, args=("iter=1", "pe=0,1,2")))


def test_a_spin_loop_is_a_litmus_loop_and_the_message_passing_verdicts_hold() -> None:
    """mp.cu is litmus/ptx/MP+rel+acq-gpu (Expect=ptx:Forbidden) as a kernel, and with
    -DRELAXED_POLL litmus/ptx/MP+rel+rlx-gpu (Expect=ptx:Allowed)."""
    from gdrcheck.analysis.check import check_test

    kt = load_kernel(DATA / "mp.cu", make_run("mp", 1, grid=2))
    reader = kt.test.threads[1].instrs
    labels = [i.name for i in reader if isinstance(i, A.Label)]
    back = [i for i in reader if isinstance(i, A.Goto) and i.target in labels[:1]]
    assert back, "the spin loop jumps back to its head"
    assert check_test(kt.test, "ptx").verdict == "Forbidden"
    relaxed = load_kernel(DATA / "mp.cu", make_run("mp", 1, grid=2, defines=("RELAXED_POLL",)))
    res = check_test(relaxed.test, "ptx")
    assert res.verdict == "Allowed"
    assert res.witness is not None


@pytest.mark.parametrize(("body", "line", "message"), [
    ("__global__ void k(int *x, int *y) {\n    int i = *y;\n    x[i] = 1;\n}\n", 5,
     "an address computed from a value read"),
    ("__global__ void k(int *x) {\n    __atomic_fetch_add(x, 1, __ATOMIC_RELAXED);\n}\n", 4,
     "an IR atomicrmw"),
    ("__global__ void k(int *x, void (*f)(int *)) {\n    f(x);\n}\n", 4,
     "indirect call"),
    ("__global__ void k(int *x, int *y) {\n    nvshmem_int_p(x, 1, *y);\n}\n", 4,
     "nvshmem_int_p: the PE is a value read from memory"),
    ("__global__ void k(int *x, uint64_t *s) {\n"
     "    nvshmem_int_put_signal(x, x, 2, s, 1, NVSHMEM_SIGNAL_SET, 1);\n}\n", 4,
     "of 2 elements"),
    ("__global__ void k(int *x) {\n    nvshmem_int_p(x, 1, 5);\n}\n", 4, "PE 5 of 2"),
])
def test_unsupported_constructs_are_refused_at_their_line(
        tmp_path: Path, body: str, line: int, message: str) -> None:
    src = _kernel(tmp_path, body)
    with pytest.raises(KernelError, match=message) as info:
        load_kernel(src, make_run("k", 2))
    assert info.value.path == str(src)
    assert info.value.pos.line == line
    assert info.value.render().startswith(f"{src}:{line}:")


def test_assert_on_a_value_read_is_a_flag_in_the_condition(tmp_path: Path) -> None:
    src = _kernel(tmp_path, "__global__ void k(int *x, uint64_t *s) {\n"
                  "    if (nvshmem_my_pe() == 0) {\n"
                  "        nvshmem_int_p(x, 7, 1);\n"
                  "        nvshmem_fence();\n"
                  "        nvshmemx_signal_op(s, 1, NVSHMEM_SIGNAL_SET, 1);\n"
                  "    } else {\n"
                  "        nvshmem_uint64_wait_until(s, NVSHMEM_CMP_EQ, 1);\n"
                  "        assert(*(volatile int *)x == 7);\n"
                  "    }\n}\n")
    kt = load_kernel(src, make_run("k", 2))
    [site] = kt.extraction.asserts
    assert (site.thread, site.pos.line if site.pos else 0) == (1, 10)
    assert site.expr == "*(volatile int *)x == 7"
    assert isinstance(kt.test.condition.prop, A.Cmp)
    loads = [i for i in kt.test.threads[1].instrs if isinstance(i, A.PtxLoad)]
    assert [(ld.sem, ld.loc.name) for ld in loads] == [("volatile", "x")]


def test_the_python_api_checks_a_kernel() -> None:
    """mp.cu with -DRELAXED_POLL: litmus/ptx/MP+rel+rlx-gpu.litmus, Expect=ptx:Allowed."""
    import gdrcheck

    out = gdrcheck.check_kernel(DATA / "mp.cu", "mp", 1, "ptx", grid=2,
                                defines=["RELAXED_POLL"])
    assert out.verdict == "Allowed" and not out.vacuous
    test = gdrcheck.kernel_test(DATA / "mp.cu", "mp", 1, grid=2)
    assert gdrcheck.check(test, "ptx").verdict == "Forbidden"


@pytest.mark.parametrize(("defines", "verdict"), [((), "Forbidden"),
                                                  (("RELAXED_POLL",), "Allowed")])
def test_cuda_atomic_ref_is_inline_ptx_with_its_order_and_scope(
        defines: tuple[str, ...], verdict: str) -> None:
    """mp_atomic_ref.cu: MP+rel+acq-gpu (ptx:Forbidden) and MP+rel+rlx-gpu (ptx:Allowed)."""
    from gdrcheck.analysis.check import check_test

    kt = load_kernel(DATA / "mp_atomic_ref.cu", make_run("mp", 1, grid=2, defines=defines))
    stores = [i for i in kt.test.threads[0].instrs if isinstance(i, A.PtxStore)]
    assert [(s.sem, s.scope) for s in stores] == [("weak", None), ("release", "gpu")]
    loads = [i for i in kt.test.threads[1].instrs if isinstance(i, A.PtxLoad)]
    assert (loads[0].sem, loads[0].scope) == ("relaxed" if defines else "acquire", "gpu")
    assert check_test(kt.test, "ptx").verdict == verdict


def test_nvshmem_ptr_is_a_peer_location_on_the_same_node_else_null() -> None:
    same = load_kernel(DATA / "ptr.cu", make_run("k", 2, nodes="0,0")).test
    stores = [i for i in same.threads[0].instrs if isinstance(i, A.PtxStore)]
    assert [(s.sem, str(s.loc)) for s in stores] == [("weak", "x@1"), ("volatile", "flag@1")]
    apart = load_kernel(DATA / "ptr.cu", make_run("k", 2, nodes="0,1")).test
    calls = [i for i in apart.threads[0].instrs if isinstance(i, A.ShmemCall)]
    assert [(c.op, str(c.dst)) for c in calls] == [("p", "x@1"), ("quiet", "None"),
                                                   ("p", "flag@1")]
    assert apart.threads[1].placement.node == 1


def test_a_condition_carried_around_a_loop_keeps_its_first_value() -> None:
    """carry.cu: ok = (x == 0) && (x == 1) over two reads of x; nothing writes x (it stays
    0), so the second conjunct fails in every execution: Allowed under sc, and the first
    read's answer is not replaced by the second read's."""
    from gdrcheck.analysis.check import check_test

    kt = load_kernel(DATA / "carry.cu", make_run("k", 1))
    text = [i for i in kt.test.threads[0].instrs if not isinstance(i, A.Label)]
    loads = [i for i in text if isinstance(i, A.PtxLoad)]
    assert len(loads) == 2 and loads[0].dst == loads[1].dst
    kept = [i for i in text if isinstance(i, A.LocalOp)]
    assert kept, "the first answer is copied out of the load's register"
    res = check_test(kt.test, "sc")
    assert res.verdict == "Allowed" and not res.vacuous


def test_a_nested_loop_unrolls_with_its_enclosing_loops_values() -> None:
    """ring-reduce's reduce loop: its inner loop's head is reached again with the same phis
    but the next chunk's pointers: not a repeat of the state (both chunks are put)."""
    from .conftest import KERNELS

    kt = load_kernel(KERNELS / "nvshmem" / "ring-reduce.cu",
                     make_run("ring_reduce", 2, args=("nreduce=2", "chunk_size=4")))
    puts = [i for i in kt.test.threads[1].instrs if isinstance(i, A.ShmemCall)
            and i.op == "put_signal_nbi"]
    assert [str(p.dst) for p in puts] == ["dst_0@0", "dst_1@0"]
    assert not any(isinstance(i, A.Goto) for i in kt.test.threads[1].instrs)


@pytest.mark.parametrize(("host", "message"), [
    ("__device__ void init(int *x, int *y) { x[0] = y[0]; }\n", "reads memory"),
    ("__device__ void check(int *x, int *y) { assert(x[0] + y[0] == 2); }\n",
     "does what only a kernel thread can"),
    ("__device__ void check(int *x) { assert(x[0] == 1); }\n",
     "must take the kernel's parameters"),
])
def test_host_functions_do_only_what_the_host_side_can(
        tmp_path: Path, host: str, message: str) -> None:
    src = _kernel(tmp_path, "__global__ void k(int *x, int *y) { x[1] = 1; }\n" + host)
    name = "init" if "void init" in host else "check"
    run = make_run("k", 1, init=name if name == "init" else None,
                   check=name if name == "check" else None)
    with pytest.raises(KernelError, match=message) as info:
        load_kernel(src, run)
    assert info.value.pos.line >= 3


def test_host_init_and_check_become_the_init_block_and_the_condition(tmp_path: Path) -> None:
    src = _kernel(tmp_path, "__global__ void k(int *x) {\n"
                  "    if (nvshmem_my_pe() == 0) nvshmem_int_put(x, x, 1, 1);\n}\n"
                  "__device__ void init(int *x) { x[0] = 5 + nvshmem_my_pe(); }\n"
                  "__device__ void check(int *x) { assert(x[0] == 5); }\n")
    test = load_kernel(src, make_run("k", 2, init="init", check="check")).test
    assert [(str(i.loc), i.value) for i in test.init if isinstance(i, A.InitLoc)] == [
        ("x@0", 5), ("x@1", 6)]
    prop = test.condition.prop
    assert isinstance(prop, A.Or)
    assert [(str(c.lhs), c.op, str(c.rhs)) for c in prop.args if isinstance(c, A.Cmp)] == [
        ("x@0", "!=", "5"), ("x@1", "!=", "5")]


@pytest.mark.parametrize(("n", "verdict"), [(2, "Forbidden"), (3, "Allowed")])
def test_swapping_phis_and_negative_constants(n: int, verdict: str) -> None:
    """swap.cu: a = x, b = x + 1 swapped n times; assert(a == b - 1) holds after an even
    number of swaps and fails after an odd one, whatever x is (plain arithmetic)."""
    from gdrcheck.analysis.check import check_test

    kt = load_kernel(DATA / "swap.cu", make_run("k", 1, args=(f"n={n}",)))
    adds = [i for i in kt.test.threads[0].instrs if isinstance(i, A.LocalOp)
            and i.op == "add"]
    assert A.Const(-1) in adds[-1].args
    assert check_test(kt.test, "sc").verdict == verdict


def test_an_assert_that_holds_on_every_path_names_no_flag(tmp_path: Path) -> None:
    # threadIdx.x < 5 is concrete and true: no path sets the site's flag, so the condition
    # does not name it (it named a register never written: the test did not parse)
    src = _kernel(tmp_path, "__global__ void k(int *x) {\n"
                  "    if (threadIdx.x == 0) x[0] = 1;\n"
                  "    else { int v = x[0]; assert(threadIdx.x < 5); }\n"
                  "}\n")
    kt = load_kernel(src, make_run("k", 1, block=2))
    assert kt.extraction.asserts == []
    assert isinstance(kt.test.condition.prop, A.BoolConst) and not kt.test.condition.prop.value
