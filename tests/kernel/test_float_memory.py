"""Any binary32 value in float memory, rsqrtf's interval, fabsf/sqrtf, float arguments,
multimem float reductions and host code's local arrays (docs/kernels.md, "Floats in
memory", "rsqrtf").

The expected values are IEEE 754-2019's (binary32 §3.4, roundTiesToEven §4.3.1, squareRoot
§5.4.1: correctly rounded) and the PTX ISA's bound for rsqrt.approx.f32 ("Floating Point
Instructions: rsqrt", §9.7.3: "The maximum relative error for rsqrt.f32 over the entire
positive finite floating-point range is 2^-22.9"); numpy's float32 (the host CPU's IEEE
arithmetic) is the oracle of the randomised checks."""

from __future__ import annotations

import random
from decimal import Decimal, getcontext
from fractions import Fraction
from pathlib import Path

import pytest
import z3

import gdrcheck
from gdrcheck.engine.smt import _bit, _z3_binop
from gdrcheck.kernel import KernelError, binary32, load_kernel, make_run
from gdrcheck.kernel.binary32 import Interval
from gdrcheck.kernel.config import parse_arg

F = Fraction


def _write(tmp_path: Path, text: str, name: str = "k.cu") -> Path:
    p = tmp_path / name
    p.write_text(text)
    return p


def _f32(bits: int) -> Fraction:
    return binary32.from_bits(bits)


def test_sqrt_is_correctly_rounded() -> None:
    np = pytest.importorskip("numpy")
    rng = random.Random(754)
    for _ in range(2000):
        bits = rng.getrandbits(31)  # positive
        if (bits >> 23) == 0xFF:
            continue
        x = _f32(bits)
        want = np.sqrt(np.float32(float(x)))  # IEEE squareRoot, correctly rounded
        assert binary32.sqrt(x) == F(float(want)), hex(bits)
    # 2 = 0x40000000: sqrt(2) = 1.41421356.. rounds to 0x3FB504F3 (1.41421353816986)
    assert binary32.to_bits(binary32.sqrt(F(2))) == 0x3FB504F3


def test_rsqrt_interval_is_every_value_within_the_ptx_bound() -> None:
    # the interval's ends are within 2^-22.9 (relative) of 1/sqrt(x) and their outer
    # neighbours are not: every value the PTX ISA allows, and no more than one ulp beyond
    # (RSQRT_ERROR is a rational just above 2^-22.9)
    getcontext().prec = 60
    bound = Decimal(2) ** Decimal("-22.9")
    rng = random.Random(229)
    for _ in range(300):
        bits = rng.randrange(0x00800000, 0x7F000000)
        x = _f32(bits)
        v = binary32.rsqrt_approx(x)
        lo, hi = binary32.bounds(v)
        t = 1 / Decimal(x.numerator / Decimal(x.denominator)).sqrt()

        def rel(q: Fraction, t: Decimal = t) -> Decimal:
            return abs(Decimal(q.numerator) / Decimal(q.denominator) - t) / t
        assert rel(lo) <= bound * Decimal("1.0001") and rel(hi) <= bound * Decimal("1.0001")
        assert rel(binary32.next_down(lo)) > bound and rel(binary32.next_up(hi)) > bound
    # 1/sqrt(4) = 0.5; 2^-22.9 * 0.5 = 2^-23.9 = 6.4e-8: below 0.5 the ulp is 2^-25 (3.0e-8),
    # so 0.5 - 2^-25 and 0.5 - 2^-24 are within, 0.5 - 3 * 2^-25 is not; above, the ulp is
    # 2^-24 (6.0e-8): 0.5 + 2^-24 is within, 0.5 + 2^-23 is not
    assert binary32.rsqrt_approx(F(4)) == Interval(F(1, 2) - F(1, 2 ** 24),
                                                   F(1, 2) + F(1, 2 ** 24))
    with pytest.raises(binary32.Binary32Error, match="not positive"):
        binary32.rsqrt_approx(F(0))


def test_codes_of_floats_in_memory() -> None:
    # integers of magnitude at most 2^24 are themselves (binary32 holds every one, p = 24)
    for n in (0, 1, -7, 2 ** 24, -(2 ** 24)):
        assert binary32.encode(F(n)) == n and binary32.decode(n) == n
    # 0.1f is 0x3DCCCCCD (test_float.py); 2^25 is 0x4C000000: not kept as themselves
    assert binary32.encode(binary32.round32(F(1, 10))) == 2 ** 32 + 0x3DCCCCCD
    assert binary32.encode(F(2 ** 25)) == 2 ** 32 + 0x4C000000
    # an interval: its least value's encoding (0.5 - 2^-24 is 0x3EFFFFFE) and its width in
    # ulps (three steps up to 0.5 + 2^-24 = 0x3F000001)
    half = binary32.rsqrt_approx(F(4))
    assert binary32.encode(half) == 2 ** 33 + (0x3EFFFFFE << 16) + 3
    neg = binary32.fneg(half)
    assert binary32.decode(binary32.encode(neg)) == neg
    # distinct values have distinct codes, and decode inverts encode
    rng = random.Random(32)
    seen: dict[int, object] = {}
    for _ in range(3000):
        bits = rng.getrandbits(32)
        if (bits >> 23) & 0xFF == 0xFF:
            continue
        q = _f32(bits)
        v: binary32.FVal = q
        if rng.random() < 0.3 and q != 0:
            v = binary32.make(q, binary32.next_up(q)) if q > 0 else binary32.make(
                binary32.next_down(q), q)
        code = binary32.encode(v)
        assert binary32.decode(code) == v
        assert seen.setdefault(code, v) == v
    with pytest.raises(binary32.Binary32Error, match="holds both signs"):
        binary32.encode(Interval(F(-1), F(1)))


def test_interval_comparisons_are_decided_or_refused() -> None:
    iv = Interval(F(1), F(2))
    assert binary32.compare("lt", iv, F(3)) and not binary32.compare("gt", iv, F(3))
    assert binary32.compare("ge", iv, F(1)) and not binary32.compare("eq", iv, F(5))
    for rel in ("lt", "le", "eq", "ne", "gt", "ge"):
        with pytest.raises(binary32.Undecided):
            binary32.compare(rel, iv, F(3, 2))
    # rounding is monotone: the sum's interval is the rounded sums of the ends
    assert binary32.fadd(iv, F(1, 10)) == Interval(binary32.add(F(1), F(1, 10)),
                                                   binary32.add(F(2), F(1, 10)))
    with pytest.raises(binary32.Binary32Error, match="holds zero"):
        binary32.fdiv(F(1), Interval(F(-1), F(1)))


NONINT = """\
#include <assert.h>
__global__ void k(float *out) {
  if (threadIdx.x == 0) out[0] = 0.1f;
  else { float v = out[0]; assert(COND); }
}
"""


def test_a_float_that_is_not_an_integer_is_stored_and_read(tmp_path: Path) -> None:
    # the store writes 0.1f's code; the reader sees the initial 0 or 0.1f (no ordering:
    # both, PTX ISA §8 weak accesses), never another value
    src = _write(tmp_path, NONINT.replace("COND", "v == 0.0f || v == 0.1f"))
    kt = load_kernel(src, make_run("k", 1, block=2))
    assert [ln.text for ln in kt.rows[0]] == [f"st.weak out, {2 ** 32 + 0x3DCCCCCD}"]
    assert gdrcheck.check_kernel(src, "k", 1, "ptx75", block=2).verdict == "Forbidden"
    seen = _write(tmp_path, NONINT.replace("COND", "v != 0.1f"), "s.cu")
    assert gdrcheck.check_kernel(seen, "k", 1, "ptx75", block=2).verdict == "Allowed"


RSQRT = """\
#include <assert.h>
__global__ void k(float *x, float eps) {
  if (threadIdx.x == 0) { x[0] = 3.0f; return; }
  float v = x[0];
  x[1] = rsqrtf(v / 2 + eps) * v;
}
__device__ void check(float *x, float eps) {
  float w = x[1];
  assert(COND);
}
"""


def test_rsqrtf_is_an_interval_and_the_host_check_decides_over_it(tmp_path: Path) -> None:
    # x[1] is 0 (never written, or v = 0 read) or 3 * rsqrtf(3/2 + eps): eps = 1e-6 rounds
    # to 0x358637BD (C's 1e-6f); 3/sqrt(1.500001) = 2.44948893.., every value of the
    # interval within 1e-5 of numpy's 2.4494889
    ok = _write(tmp_path, RSQRT.replace("COND", "fabsf(w - 2.4494889f) < 1e-5f || w == 0.0f"))
    run = make_run("k", 1, block=2, args=("eps=1e-6",), check="check")
    assert gdrcheck.check(load_kernel(ok, run).test, "ptx75").verdict == "Forbidden"
    far = _write(tmp_path, RSQRT.replace("COND", "fabsf(w - 2.4494889f) < 1e-9f || w == 0.0f"),
                 "f.cu")
    with pytest.raises(KernelError, match=r"f.cu:9:\d+: .*holds for some values of the "
                       r"interval and not for others"):
        load_kernel(far, make_run("k", 1, block=2, args=("eps=1e-6",), check="check"))
    wrong = _write(tmp_path, RSQRT.replace("COND", "fabsf(w - 2.1213203f) < 1e-5f || w == 0.0f"),
                   "w.cu")
    # 3/sqrt(2) = 2.1213203 is the value for v / 1: not this kernel's
    assert gdrcheck.check(load_kernel(wrong, run).test, "ptx75").verdict == "Allowed"


def test_float_arguments() -> None:
    # a decimal --arg is its exact value (a float parameter rounds it to binary32, as C's
    # 1e-6f is: RSQRT above); an integer stays an integer
    assert parse_arg("eps=1e-6") == ("eps", (F(1, 10 ** 6),))
    assert parse_arg("eps=0.5,2") == ("eps", (F(1, 2), 2))
    with pytest.raises(Exception, match="expected an integer, a decimal"):
        parse_arg("eps=1e-6x")


MM_FLOAT = """\
#include <nccl_device.h>
#include <assert.h>
__global__ void k(ncclWindow_t win, struct ncclDevComm devComm) {
  ncclCoopCta coop = ncclCoopCta();
  ncclLsaBarrierSession<ncclCoopCta> bar {
    coop, devComm, ncclTeamTagLsa(), blockIdx.x, /*multimem=*/true };
  float *mine = (float *)ncclGetLocalPointer(win, 0);
  mine[0] = VALUE;
  bar.sync(coop, cuda::memory_order_acq_rel);
  if (devComm.rank == 0) {
    float *mc = (float *)ncclGetLsaMultimemPointer(win, 0, devComm);
    float sum;
    asm volatile("multimem.ld_reduce.global.add.f32 %0, [%1];"
                 : "=f"(sum) : "l"(__cvta_generic_to_global(mc)) : "memory");
    assert(sum == 3.0f);
  }
}
"""


def test_a_multimem_float_reduction_adds_integer_floats(tmp_path: Path) -> None:
    # rmsnorm_utils.cuh:29-36: the ranks store 1 and 2; after the acq_rel barrier the sum is
    # 3 (litmus/multimem/04-ld-reduce+barrier.litmus: lsa Forbidden)
    src = _write(tmp_path, MM_FLOAT.replace("VALUE", "devComm.rank + 1.0f"))
    rows = [[ln.text for ln in th] for th in load_kernel(
        src, make_run("k", 2, nodes="0,0")).rows]
    assert "multimem.ld_reduce.add r1, ncclMc_win" in rows[0]
    assert gdrcheck.check_kernel(src, "k", 2, "lsa", nodes=[0, 0]).verdict == "Forbidden"
    # 0.5 is not an integer float: the models' integer sum is not its float sum: refused
    half = _write(tmp_path, MM_FLOAT.replace("VALUE", "0.5f"), "h.cu")
    with pytest.raises(KernelError, match=r"h.cu:13:\d+: multimem.ld_reduce.add.f32 of win "
                       r"on rank 0, which may hold 0.5"):
        load_kernel(half, make_run("k", 2, nodes="0,0"))


HOST_LOCAL = """\
#include <assert.h>
__global__ void k(float *x, int n) { }
__device__ void init(float *x, int n) {
  float h[4];
  memset(h, 0, sizeof(h));
  for (int i = 0; i < n; i++) h[i] += (float)(i + 1);
  for (int i = 0; i < n; i++) x[i] = h[i] / 2;
}
__device__ void check(float *x, int n) {
  float h[4];
  for (int i = 0; i < n; i++) h[i] = (i + 1) * 0.5f;
  for (int i = 0; i < n; i++) assert(x[i] == h[i] CMP);
}
"""


def test_host_code_keeps_local_arrays_of_its_own(tmp_path: Path) -> None:
    # the host's arrays are its own memory: no litmus access; the initial values are
    # 1/2, 1, 3/2 and the check compares each with the same values
    src = _write(tmp_path, HOST_LOCAL.replace("CMP", ""))
    run = make_run("k", 1, args=("n=3",), init="init", check="check")
    kt = load_kernel(src, run)
    assert f"x_0@0 = {2 ** 32 + 0x3F000000};" in kt.text  # 0.5f = 0x3F000000
    assert gdrcheck.check_kernel(src, "k", 1, "ptx75", args={"n": [3]}, init="init",
                                 check_fn="check").verdict == "Forbidden"
    off = _write(tmp_path, HOST_LOCAL.replace("CMP", "+ 1.0f"), "o.cu")
    assert gdrcheck.check_kernel(off, "k", 1, "ptx75", args={"n": [3]}, init="init",
                                 check_fn="check").verdict == "Allowed"
    kernel_local = _write(tmp_path, """\
__global__ void k(float *x, int n) { float h[4]; for (int i = 0; i < n; i++) h[i] = x[i];
  for (int i = 0; i < n; i++) x[n - 1 - i] = h[i]; }
""", "l.cu")
    with pytest.raises(KernelError, match="local memory .* in a kernel"):
        load_kernel(kernel_local, make_run("k", 1, args=("n=2",)))


def test_bit_operations_of_predicates_are_boolean() -> None:
    # and/or/xor of two 0/1 terms (setp's predicates) are the Boolean operations, exactly
    c, d = z3.Bools("c d")
    one, zero = z3.IntVal(1), z3.IntVal(0)
    p, q = z3.If(c, one, zero), z3.If(d, one, zero)
    for op, fn in (("and", z3.And), ("or", z3.Or), ("xor", z3.Xor)):
        r = _z3_binop(op, p, q)
        s = z3.Solver()
        s.add(r != z3.If(fn(c, d), one, zero))
        assert s.check() == z3.unsat
        # the 64-bit vector reading agrees
        bv = {"and": z3.Int2BV(p, 64) & z3.Int2BV(q, 64),
              "or": z3.Int2BV(p, 64) | z3.Int2BV(q, 64),
              "xor": z3.Int2BV(p, 64) ^ z3.Int2BV(q, 64)}[op]
        s = z3.Solver()
        s.add(r != z3.BV2Int(bv, is_signed=True))
        assert s.check() == z3.unsat
    assert _bit(z3.IntVal(2)) is None and _bit(z3.Int("x")) is None
    assert _bit(z3.If(c, z3.IntVal(2), zero)) is None


GIN_FLOAT = """\
#include <nccl_device.h>
#include <assert.h>
__global__ void mp(ncclWindow_t src, ncclWindow_t dst, struct ncclDevComm devComm) {
  ncclGin gin { devComm, (int)(blockIdx.x % devComm.ginContextCount) };
  if (devComm.rank == 0) {
    gin.put(ncclTeamWorld(devComm), 1, dst, 0, src, 0, sizeof(float),
            ncclGin_WeakSignalInc{0});
  } else {
    WAIT
    float *d = (float *)ncclGetLocalPointer(dst, 0);
    assert(d[0] == 0.5f);
  }
}
__device__ void init(ncclWindow_t src, ncclWindow_t dst, struct ncclDevComm devComm) {
  float *s = (float *)ncclGetLocalPointer(src, 0);
  s[0] = 0.5f;
}
"""


def test_a_put_copies_float_codes(tmp_path: Path) -> None:
    # rank 1 reads what rank 0's put copied (0.5f, 2^32 + 0x3F000000) once the put's weak
    # signal arrived (it covers its own put, gin.h:80-81, R-GIN-4; the wait is an acquire,
    # R-GIN-10): the assert holds; without the wait rank 1 may read the initial 0.
    # devComm.ginContextCount is a count of at least 1: CTA 0's context 0 % it is 0
    waited = _write(tmp_path, GIN_FLOAT.replace("WAIT", "gin.waitSignal(ncclCoopCta(), 0, 1);"))
    run = make_run("mp", 2, init="init")
    assert gdrcheck.check(load_kernel(waited, run).test, "gin-api").verdict == "Forbidden"
    racy = _write(tmp_path, GIN_FLOAT.replace("WAIT", ""), "r.cu")
    assert gdrcheck.check(load_kernel(racy, run).test, "gin-api").verdict == "Allowed"
    # the count is not in the configuration: CTA 1's 1 % it is not known
    with pytest.raises(KernelError, match=r"k.cu:4:\d+: .*ginContextCount"):
        load_kernel(waited, make_run("mp", 2, grid=2, init="init"))
    # a put between a float and an integer buffer: the codes are not the encodings
    mixed = _write(tmp_path, GIN_FLOAT.replace("WAIT", "").replace(
        "float *d = (float *)ncclGetLocalPointer(dst, 0);\n    assert(d[0] == 0.5f);",
        "int *d = (int *)ncclGetLocalPointer(dst, 0);\n    assert(d[0] == 1);"), "m.cu")
    with pytest.raises(KernelError, match=r"m.cu:6:\d+: a put from src into dst: one holds "
                       r"floats and the other integers"):
        load_kernel(mixed, run)
