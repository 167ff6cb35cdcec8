"""``float`` data in the kernel front end (docs/kernels.md, "Why the floats are not
approximated"): exact binary32 arithmetic (gdrcheck/kernel/binary32.py) on concrete values,
float loads and stores of integer floats, comparisons of values read, and the refusals.

The expected encodings are IEEE 754-2019's binary32 (§3.4: sign, 8-bit biased exponent, 23-bit
trailing significand) under roundTiesToEven (§4.3.1, the default, §4.3.3); each is worked out
in its comment, and numpy's float32 (the host CPU's IEEE arithmetic, an implementation
independent of binary32.py) is the oracle of the randomised check."""

from __future__ import annotations

import random
import re
import struct
from fractions import Fraction
from pathlib import Path

import pytest

import gdrcheck
from gdrcheck.kernel import KernelError, binary32, load_kernel, make_run
from gdrcheck.litmus import parse_litmus

F = Fraction
TWO = F(2)


def test_rounding_to_nearest_even() -> None:
    # 0.1 = 1.6 * 2^-4; 1.6 * 2^23 = 13421772.8 rounds to 13421773 = 0x4CCCCD: the encoding
    # is 0 01111011 10011001100110011001101 = 0x3DCCCCCD
    assert binary32.to_bits(binary32.round32(F(1, 10))) == 0x3DCCCCCD
    # 1/3 = 1.333.. * 2^-2; 1.333.. * 2^23 = 11184810.67 rounds up to 0xAAAAAB: 0x3EAAAAAB
    assert binary32.to_bits(binary32.div(F(1), F(3))) == 0x3EAAAAAB
    # 2^24 + 1 lies halfway between 2^24 and 2^24 + 2: the tie goes to the even significand
    assert binary32.round32(F(2 ** 24 + 1)) == 2 ** 24
    assert binary32.round32(F(2 ** 24 + 3)) == 2 ** 24 + 4
    assert binary32.add(F(2 ** 24), F(1)) == 2 ** 24
    # 1 + 2^-24 is halfway between 1 and 1 + 2^-23: ties to 1 (even)
    assert binary32.add(F(1), TWO ** -24) == 1
    assert binary32.add(F(1), 3 * TWO ** -24) == 1 + TWO ** -22
    # subnormals (§3.4 d): the quantum is 2^-149; 2^-150 ties to 0, 3 * 2^-150 to 2^-148
    assert binary32.to_bits(TWO ** -149) == 0x00000001
    assert binary32.round32(TWO ** -150) == 0
    assert binary32.round32(3 * TWO ** -150) == TWO ** -148
    assert binary32.round32(-F(1, 10)) == -binary32.round32(F(1, 10))
    # the largest finite value is (2 - 2^-23) * 2^127 = 0x7F7FFFFF; beyond it, overflow
    assert binary32.to_bits(binary32.MAX_FINITE) == 0x7F7FFFFF
    with pytest.raises(binary32.Binary32Error):
        binary32.mul(binary32.MAX_FINITE, F(2))
    with pytest.raises(binary32.Binary32Error):
        binary32.div(F(1), F(0))
    with pytest.raises(binary32.Binary32Error):
        binary32.from_double(0.1)  # the binary64 0.1 is not a binary32 value


def test_operations_agree_with_the_hosts_ieee_float32() -> None:
    np = pytest.importorskip("numpy")
    rng = random.Random(26)
    ops = {"add": (binary32.add, np.add), "sub": (binary32.sub, np.subtract),
           "mul": (binary32.mul, np.multiply), "div": (binary32.div, np.divide)}
    for _ in range(2000):
        bits = [rng.getrandbits(32) & 0xBFFFFFFF for _ in range(2)]  # |x| < 2: no overflow
        xs = [binary32.from_bits(b) for b in bits]
        for name, (ours, theirs) in ops.items():
            if name == "div" and xs[1] == 0:
                continue
            want = theirs(np.float32(float(xs[0])), np.float32(float(xs[1])))
            (want_bits,) = struct.unpack("<I", struct.pack("<f", float(want)))
            if np.isinf(want):
                continue
            # values, not encodings: a Fraction has one zero (the sign of a zero result is
            # not kept; a division by either zero is refused)
            assert ours(xs[0], xs[1]) == binary32.from_bits(want_bits), (name, bits)


def _write(tmp_path: Path, text: str, name: str = "k.cu") -> Path:
    src = tmp_path / name
    src.write_text(text)
    return src


CONST = """\
#include <assert.h>
__global__ void k(float *out, int *n) {
  float x = 3.0f * 0.5f + 0.5f;
  if (threadIdx.x == 0) {
    out[0] = x;
  } else {
    float v = out[0];
    assert(v != 2.0f);
    n[0] = (int)(x * 0.1f * 10.0f);
  }
}
"""


def test_float_constants_loads_stores_and_comparisons(tmp_path: Path) -> None:
    # 3 * 0.5 + 0.5 = 2 exactly; the reader's assert fails when it sees the store, holds
    # when it reads the initial 0 (no ordering: both outcomes, PTX ISA §8 weak accesses)
    src = _write(tmp_path, CONST)
    kt = load_kernel(src, make_run("k", 1, block=2))
    rows = [[ln.text for ln in th] for th in kt.rows]
    assert rows[0] == ["st.weak out, 2"]
    assert rows[1][:2] == ["ld.weak r0, out", "bne r0, 2, L01"]
    # 2 * 0.1f = 0x3E4CCCCD (0.2f, the exponent one more than 0.1f's); times 10 is
    # 2.0000000298.. which rounds to 2 (the neighbours are 2 and 2 + 2^-22): (int) 2
    assert rows[1][-1] == "st.weak n, 2"
    assert gdrcheck.check_kernel(src, "k", 1, "ptx75", block=2).verdict == "Allowed"
    held = _write(tmp_path, CONST.replace("v != 2.0f", "v == 0.0f || v == 2.0f"), "h.cu")
    assert gdrcheck.check_kernel(held, "k", 1, "ptx75", block=2).verdict == "Forbidden"


def test_a_comparison_with_a_constant_that_is_not_an_integer(tmp_path: Path) -> None:
    # v and w hold integer floats only here (their writes store 2 and 3, kept as themselves),
    # so v < 2.5 is v <= 2 and v == 2.5 is false
    src = _write(tmp_path, """\
#include <assert.h>
__global__ void k(float *out) {
  if (threadIdx.x == 0) { out[0] = 2.0f; out[1] = 3.0f; }
  else { float v = out[0]; float w = out[1]; assert(v < 2.5f && w != 2.5f && !(w > 2.5f)); }
}
""")
    kt = load_kernel(src, make_run("k", 1, block=2))
    text = "\n".join(ln.text for ln in kt.rows[1])
    # the conjunction is one predicate (setp, and) and one branch on it
    assert re.search(r"setp\.le r\d+, r0, 2\n", text)
    assert re.search(r"setp\.le r\d+, r1, 2\n", text)  # !(w > 2.5): fcmp ule w, 2.5: w <= 2
    # w is 0 or 3: !(w > 2.5) fails when w = 3 is read
    assert gdrcheck.check_kernel(src, "k", 1, "ptx75", block=2).verdict == "Allowed"
    only_v = _write(tmp_path, src.read_text().replace(" && !(w > 2.5f)", ""), "v.cu")
    assert gdrcheck.check_kernel(only_v, "k", 1, "ptx75", block=2).verdict == "Forbidden"


@pytest.mark.parametrize(("body", "col", "what"), [
    ("out[1] = 1.0f / (out[0] - out[0]);", 17, "a float division by zero"),
    # rsqrtf(2) is any binary32 within 2^-22.9 (relative) of 1/sqrt(2) = 0.70710678..: the
    # neighbours 0.70710677 (0x3F3504F3) and 0.70710683 (0x3F3504F4) both are, so the
    # difference with 0.70710677f may be 0 or positive and its square below 0.5 or not
    ("if (rsqrtf(2.0f) * rsqrtf(2.0f) < 0.5f) out[0] = 1.0f;", 35,
     "holds for some values of the interval and not for others"),
    ("out[0] = rsqrtf(2.0f) - 0.70710677f;", 10, "holds both signs"),
    # rsqrtf(2) - 0.70710683f is in [-2^-23, 0]: every binary32 value between, far more
    # than a code holds
    ("out[0] = rsqrtf(2.0f) - 0.70710683f;", 10, "of more than 65535 values"),
    ("if (n[1]) out[0] = 1.0f; else n[0] = *(int *)out;", 40, "both as float and as integer"),
])
def test_float_refusals(tmp_path: Path, body: str, col: int, what: str) -> None:
    src = _write(tmp_path, "__global__ void k(float *out, int *n) {\n  " + body + "\n}\n")
    with pytest.raises(KernelError) as err:
        load_kernel(src, make_run("k", 1))
    msg = str(err.value)
    assert what in msg
    assert msg.startswith(f"{src}:2:{col}: "), msg


TABLE = """\
#include <assert.h>
__global__ void k(float *x, float *y) {
  if (threadIdx.x == 0) { x[0] = 3.0f; x[1] = 4.0f; }
  SYNC
  if (threadIdx.x != 0) {
    float a = x[0], b = x[1];
    float s = (a * a + b * b) / 5.0f;
    y[0] = (a + b) / 2.0f;
    assert(COND);
  }
}
"""


def test_float_operations_on_values_read_are_tables(tmp_path: Path) -> None:
    # x[0] holds 0 or 3, x[1] 0 or 4 (the values their writes store, and the initial 0):
    # s = (a*a + b*b) / 5 is 0, 9/5, 16/5 or 5 (exact: 25 / 5), so `s` near 5 is the
    # outcome where both stores are seen; a + b takes 0, 3, 4 or 7, integer floats added as
    # litmus integers (exact), and y[0] = (a + b) / 2 takes 0, 1.5, 2 or 3.5
    racy = _write(tmp_path, TABLE.replace("SYNC", "").replace("COND", "s < 4.9f || s > 5.1f"))
    kt = load_kernel(racy, make_run("k", 1, block=2))
    lines = [ln.text for ln in kt.rows[1]]
    store = next(k for k, ln in enumerate(lines) if ln.startswith("st.weak y, "))
    # a + b is the register sum; the table of y[0] is selected without a branch: selp over
    # the codes of its four results (binary32.encode: 2 is itself, 1.5 = 0x3FC00000 and
    # 3.5 = 0x40600000 are 2^32 + their encodings)
    assert not any(ln[0] == "b" for ln in lines[:store])
    assert any(re.fullmatch(r"add r\d+, r0, r1", ln) for ln in lines)
    chosen = {int(v) for ln in lines[:store] if ln.startswith(("selp ", "mov "))
              for v in ln.split(", ")[1:3] if v.isdigit()}
    assert chosen == {0, 2, 2 ** 32 + 0x3FC00000, 2 ** 32 + 0x40600000}
    assert gdrcheck.check_kernel(racy, "k", 1, "ptx75", block=2).verdict == "Allowed"
    # __syncthreads orders both stores before the reads (PTX ISA §9.7.13.1, bar.sync), so
    # s is 25 / 5 = 5 exactly and the sum 7
    synced = _write(tmp_path, TABLE.replace("SYNC", "__syncthreads();")
                    .replace("COND", "s == 5.0f"), "s.cu")
    assert gdrcheck.check_kernel(synced, "k", 1, "ptx75", block=2).verdict == "Forbidden"
    # 9/5 is 1.8f = 0x3FE66666 (1.8 * 2^23 = 15099494.4 rounds down): s is never 1.8 as a
    # decimal, and s == 1.8f holds only when x[0] is seen without x[1]; barred by the barrier
    near = _write(tmp_path, TABLE.replace("SYNC", "__syncthreads();")
                  .replace("COND", "s != 1.8f"), "n.cu")
    assert gdrcheck.check_kernel(near, "k", 1, "ptx75", block=2).verdict == "Forbidden"
    seen = _write(tmp_path, TABLE.replace("SYNC", "").replace("COND", "s != 1.8f"), "m.cu")
    assert gdrcheck.check_kernel(seen, "k", 1, "ptx75", block=2).verdict == "Allowed"


def test_the_values_of_a_location_are_a_fixpoint_over_its_writes(tmp_path: Path) -> None:
    # y's write stores x + 1 for each value x may hold (0, 3): y holds 0, 1 or 4; thread 0
    # reads 4 when thread 1 saw its x (nothing orders the two threads)
    src = _write(tmp_path, """\
#include <assert.h>
__global__ void k(float *x, float *y) {
  if (threadIdx.x == 0) { x[0] = 3.0f; float v = y[0]; assert(COND); }
  else y[0] = x[0] + 1.0f;
}
""".replace("COND", "v != 4.0f"))
    assert gdrcheck.check_kernel(src, "k", 1, "ptx75", block=2).verdict == "Allowed"
    never = _write(tmp_path, src.read_text().replace("v != 4.0f", "v != 2.0f && v < 4.5f"),
                   "n.cu")
    assert gdrcheck.check_kernel(never, "k", 1, "ptx75", block=2).verdict == "Forbidden"


REDUCTION = """\
#include <assert.h>
// the first half of NCCL's blockRMSNorm (07_kernel_fusion/include/rmsnorm_utils.cuh:87-100)
__global__ void k(float *token_data, int hidden_dim) {
  extern __shared__ float reduction_buffer[];
  float thread_sum = 0.0f;
  for (int i = threadIdx.x; i < hidden_dim; i += blockDim.x) {
    float val = token_data[i];
    thread_sum += val * val;
  }
  reduction_buffer[threadIdx.x] = thread_sum;
  __syncthreads();
  for (int s = blockDim.x / 2; s >= 1; s /= 2) {
    if (threadIdx.x < s) {
      reduction_buffer[threadIdx.x] += reduction_buffer[threadIdx.x + s];
    }
    __syncthreads();
  }
  if (threadIdx.x == 0) assert(reduction_buffer[0] / hidden_dim != 12.5f);
}
__device__ void init(float *token_data, int hidden_dim) {
  token_data[0] = 3.0f;
  token_data[1] = 4.0f;
}
"""


def test_a_reduction_in_place_reads_no_later_write_of_its_own_thread(tmp_path: Path) -> None:
    # reduction_buffer[0] += reduction_buffer[1] reads the location it then writes: without
    # Causality (ASPLOS'19 Axiom 6: a read never observes its own thread's later write) its
    # values would grow each round of the fixpoint; with it the sum is 9 + 16 = 25 and the
    # mean 25 / 2 = 12.5 exactly (an integer over a power of two, a binary32 value)
    src = _write(tmp_path, REDUCTION)
    kt = load_kernel(src, make_run("k", 1, block=2, args=("hidden_dim=2",), init="init"))
    text = "\n".join(ln.text for ln in kt.rows[0])
    # the squares are tables (a product of registers stays one: non-linear arithmetic for
    # the solver), their sum an integer float, exact: the litmus add of the registers; the
    # mean 25 / 2 = 12.5 is compared as the sum 25 (never 41 = 25 + 16)
    assert re.search(r"^add r\d+, r\d+, r\d+$", text, re.M)
    assert re.search(r"^bne r\d+, 25, ", text, re.M)


def test_the_reduction_is_checked(tmp_path: Path) -> None:
    # the tables are selections (setp/selp), not branches: the two threads lower to a few
    # events and the check answers at once (it did not finish in 10 minutes as branches).
    # bar.sync makes the threads' earlier accesses performed with respect to each other
    # (PTX ISA §9.7.13.1; ASPLOS'19 Fig. 7: bar.sync is a synchronisation in 'cause'), so
    # thread 0 reads 9 and 16 and the mean is 12.5: the assert (!= 12.5) fails in every
    # execution, and its negation holds in every one
    src = _write(tmp_path, REDUCTION)
    args = ("hidden_dim=2",)
    kt = load_kernel(src, make_run("k", 1, block=2, args=args, init="init"))
    assert sum(1 for th in kt.rows for ln in th if ln.text.startswith(("ld.", "st."))) == 8
    assert not any(ln.text.startswith("b") and not ln.text.startswith("bar.")
                   for ln in kt.rows[0][:-3])  # one branch: the assert's, at the end
    res = gdrcheck.check_kernel(src, "k", 1, "ptx75", block=2, args={"hidden_dim": [2]},
                                init="init")
    assert res.verdict == "Allowed"
    # what --emit-litmus prints parses back to the same test, with the same verdict
    again = parse_litmus(kt.text, "red.litmus")
    assert again == kt.test and gdrcheck.check(again, "ptx75").verdict == "Allowed"
    holds = _write(tmp_path, REDUCTION.replace("!= 12.5f", "== 12.5f"), "h.cu")
    res = gdrcheck.check_kernel(holds, "k", 1, "ptx75", block=2, args={"hidden_dim": [2]},
                                init="init")
    assert res.verdict == "Forbidden"
    # without the barrier after the first stores, thread 0 may read its partner's slot
    # before the partner's store (weak accesses of two threads, unordered): a mean of 4.5
    # (9 / 2) or 8 (16 / 2) can be seen
    racy = _write(tmp_path, REDUCTION.replace("!= 12.5f", "== 12.5f").replace(
        "  reduction_buffer[threadIdx.x] = thread_sum;\n  __syncthreads();",
        "  reduction_buffer[threadIdx.x] = thread_sum;"), "r.cu")
    res = gdrcheck.check_kernel(racy, "k", 1, "ptx75", block=2, args={"hidden_dim": [2]},
                                init="init")
    assert res.verdict == "Allowed"


def test_a_conversion_that_gives_one_integer_is_that_integer(tmp_path: Path) -> None:
    # v is 0 or 1 (the initial value, the store): v * 0.5 + 1 is 1 or 1.5, both (int) 1, so
    # the assert holds in every execution. The branch chain this replaced jumped past its
    # only move (a table of one result) and left n at 0: the assert failed, Allowed
    src = _write(tmp_path, """\
#include <assert.h>
__global__ void k(float *x) {
  if (threadIdx.x == 0) { x[0] = 1.0f; }
  else { float v = x[0]; int n = (int)(v * 0.5f + 1.0f); assert(n == 1); }
}
""")
    assert gdrcheck.check_kernel(src, "k", 1, "ptx75", block=2).verdict == "Forbidden"
    two = _write(tmp_path, src.read_text().replace("0.5f + 1.0f", "2.0f + 1.0f"), "t.cu")
    assert gdrcheck.check_kernel(two, "k", 1, "ptx75", block=2).verdict == "Allowed"  # n = 3
