"""IEEE 754 binary32 arithmetic in exact rationals (docs/kernels.md, "Why the floats are not
approximated").

A binary32 value is held as a ``Fraction`` (its exact value; infinities and NaN are refused
by the callers). Each operation computes the exact rational result and rounds it once to
binary32 with roundTiesToEven (IEEE 754-2019 §4.3.1, the default attribute, §4.3.3), which
is what the PTX ``add/sub/mul.rn.f32`` and ``div.rn.f32`` instructions do and what clang's
``fadd/fsub/fmul/fdiv`` of ``float`` compile to for ``sm_*`` without fast-math flags.
"""

from __future__ import annotations

import struct
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction

PRECISION = 24  # binary32: p = 24 (IEEE 754-2019 Table 3.5)
EMIN = -126
EMAX = 127
MAX_FINITE = Fraction(2 ** PRECISION - 1, 1) * Fraction(2) ** (EMAX - PRECISION + 1)


class Binary32Error(ValueError):
    """A result that is not a finite binary32 value (overflow or a division by zero)."""


def _round_half_even(q: Fraction) -> int:
    n = q.numerator // q.denominator
    rest = q - n
    if rest > Fraction(1, 2) or (rest == Fraction(1, 2) and n % 2):
        n += 1
    return n


def round32(q: Fraction) -> Fraction:
    """``q`` rounded to binary32, roundTiesToEven (subnormals included)."""
    if q == 0:
        return Fraction(0)
    sign = -1 if q < 0 else 1
    a = abs(q)
    e = a.numerator.bit_length() - a.denominator.bit_length()
    if Fraction(2) ** e > a:
        e -= 1
    # 2^e <= a < 2^(e+1); the quantum is 2^(e-p+1), never below the subnormal one
    quantum_exp = max(e, EMIN) - PRECISION + 1
    quantum = Fraction(2) ** quantum_exp
    r = _round_half_even(a / quantum) * quantum
    if r > MAX_FINITE:
        raise Binary32Error(f"{float(q)!r} overflows binary32")
    return sign * r


def add(a: Fraction, b: Fraction) -> Fraction:
    return round32(a + b)


def sub(a: Fraction, b: Fraction) -> Fraction:
    return round32(a - b)


def mul(a: Fraction, b: Fraction) -> Fraction:
    return round32(a * b)


def div(a: Fraction, b: Fraction) -> Fraction:
    if b == 0:
        raise Binary32Error("a float division by zero")
    return round32(a / b)


def from_bits(bits: int) -> Fraction:
    """The value of a binary32 encoding (finite values only)."""
    (f,) = struct.unpack("<f", struct.pack("<I", bits & 0xFFFFFFFF))
    if f != f or f in (float("inf"), float("-inf")):
        raise Binary32Error(f"the binary32 encoding {bits:#010x} is not finite")
    return Fraction(f)


def to_bits(q: Fraction) -> int:
    """The encoding of a binary32 value (``q`` must be one)."""
    if round32(q) != q:
        raise Binary32Error(f"{q} is not a binary32 value")
    (bits,) = struct.unpack("<I", struct.pack("<f", float(q)))
    return int(bits)


def from_double(x: float) -> Fraction:
    """A ``float`` constant of the LLVM IR (printed as the binary64 of its value)."""
    q = Fraction(x)
    if round32(q) != q:
        raise Binary32Error(f"the constant {x!r} is not a binary32 value")
    return q


# --------------------------------------------------------------------------
# Directed rounding, square roots, rsqrt.approx.f32, intervals
# --------------------------------------------------------------------------


class Undecided(Binary32Error):
    """A comparison (or conversion) whose outcome differs between the values of an interval:
    refused at its line, never guessed (docs/kernels.md, "Floats")."""


def next_up(q: Fraction) -> Fraction:
    """The least binary32 value above ``q`` (a binary32 value)."""
    if q == 0:
        return Fraction(2) ** (EMIN - PRECISION + 1)
    bits = to_bits(q)
    return from_bits(bits + 1) if q > 0 else from_bits(bits - 1)


def next_down(q: Fraction) -> Fraction:
    return -next_up(-q)


def round_down(q: Fraction) -> Fraction:
    """The greatest binary32 value at most ``q`` (roundTowardNegative, IEEE 754-2019 §4.3.2)."""
    r = round32(q)
    return next_down(r) if r > q else r


def round_up(q: Fraction) -> Fraction:
    """The least binary32 value at least ``q`` (roundTowardPositive)."""
    r = round32(q)
    return next_up(r) if r < q else r


def _sqrt_bounds(q: Fraction, bits: int = 80) -> tuple[Fraction, Fraction]:
    """Rationals ``lo <= sqrt(q) <= hi`` (``q >= 0``), ``hi - lo <= 2^-bits * ...``."""
    from math import isqrt
    scale = 4 ** bits
    n = q.numerator * q.denominator * scale  # sqrt(q) = sqrt(num * den) / den
    s = isqrt(n)
    d = q.denominator * 2 ** bits
    return Fraction(s, d), Fraction(s + 1, d)


def sqrt(q: Fraction) -> Fraction:
    """squareRoot (IEEE 754-2019 §5.4.1), correctly rounded, roundTiesToEven: the host's
    ``sqrtf`` and the PTX ``sqrt.rn.f32`` (clang's ``llvm.sqrt.f32`` without fast-math)."""
    if q < 0:
        raise Binary32Error(f"the square root of {float(q)!r} is NaN")
    if q == 0:
        return Fraction(0)
    lo, _ = _sqrt_bounds(q)
    r = round32(lo)
    # sqrt(q) rounds to r iff it lies between the midpoints around r (ties: the even one)
    while True:
        up = next_up(r)
        mid = (r + up) / 2
        if mid * mid < q or (mid * mid == q and to_bits(up) % 2 == 0):
            r = up
            continue
        down = next_down(r)
        mid = (down + r) / 2
        if mid * mid > q or (mid * mid == q and to_bits(down) % 2 == 0):
            r = down
            continue
        return r


# PTX ISA, "Floating Point Instructions: rsqrt" (§9.7.3): "The maximum relative error for
# rsqrt.f32 over the entire positive finite floating-point range is 2^-22.9." 2^-22.9 is
# 1.27765...e-7; RSQRT_ERROR is a rational above it (a wider interval: never fewer values).
# The sentence was read as quoted by a public PTX test suite, not in a stored ISA copy
# (docs/kernels.md, "rsqrtf").
RSQRT_ERROR = Fraction(12777, 10 ** 11)


@dataclass(frozen=True)
class Interval:
    """Any binary32 value in ``[lo, hi]`` (``lo < hi``, both binary32 values): the result of
    ``rsqrt.approx.f32``, which the PTX ISA bounds but does not fix, and what is computed from
    it. A comparison is decided only when every value of the interval decides it alike."""

    lo: Fraction
    hi: Fraction


FVal = Fraction | Interval


def make(lo: Fraction, hi: Fraction) -> FVal:
    return lo if lo == hi else Interval(lo, hi)


def bounds(v: FVal) -> tuple[Fraction, Fraction]:
    return (v.lo, v.hi) if isinstance(v, Interval) else (v, v)


def rsqrt_approx(x: FVal, ftz: bool = False) -> FVal:
    """``rsqrt.approx{.ftz}.f32``: the binary32 values within RSQRT_ERROR of 1/sqrt(x)
    (relative), for every x of ``x``."""
    lo_x, hi_x = bounds(x)
    if lo_x <= 0:
        raise Binary32Error(f"rsqrt.approx.f32 of {float(lo_x)!r} (+Inf, -Inf or NaN for a "
                            "value that is not positive)")
    tiny = Fraction(2) ** EMIN
    if ftz and lo_x < tiny:
        raise Binary32Error(f"rsqrt.approx.ftz.f32 of the subnormal {float(lo_x)!r} (flushed "
                            "to zero: +Inf)")
    # 1/sqrt is decreasing: the least result comes from hi_x, the greatest from lo_x
    _, s_hi = _sqrt_bounds(hi_x)
    s_lo, _ = _sqrt_bounds(lo_x)
    least = (1 - RSQRT_ERROR) / s_hi
    most = (1 + RSQRT_ERROR) / s_lo
    return make(round_up(least), round_down(most))


def _lift(fn: Callable[[Fraction, Fraction], Fraction], a: FVal, b: FVal) -> FVal:
    """``fn`` (an exact rational operation rounded once, monotone in each argument on the
    box, as + - * / are where the divisor keeps its sign) over every pair of values: the
    rounded extremes of the corners bound every result (rounding is monotone)."""
    if not isinstance(a, Interval) and not isinstance(b, Interval):
        return fn(a, b)
    (a0, a1), (b0, b1) = bounds(a), bounds(b)
    corners = [fn(x, y) for x in (a0, a1) for y in (b0, b1)]
    return make(min(corners), max(corners))


def fadd(a: FVal, b: FVal) -> FVal:
    return _lift(add, a, b)


def fsub(a: FVal, b: FVal) -> FVal:
    return _lift(sub, a, b)


def fmul(a: FVal, b: FVal) -> FVal:
    return _lift(mul, a, b)


def fdiv(a: FVal, b: FVal) -> FVal:
    b0, b1 = bounds(b)
    if b0 <= 0 <= b1:
        raise Binary32Error("a float division by zero" if b0 == b1 else
                            f"a float division by an interval [{float(b0)!r}, {float(b1)!r}] "
                            "that holds zero")
    return _lift(div, a, b)


def fneg(a: FVal) -> FVal:
    lo, hi = bounds(a)
    return make(-hi, -lo)


def fabs(a: FVal) -> FVal:
    lo, hi = bounds(a)
    if lo >= 0:
        return a
    if hi <= 0:
        return fneg(a)
    return make(Fraction(0), max(-lo, hi))


def fsqrt(a: FVal) -> FVal:
    lo, hi = bounds(a)
    return make(sqrt(lo), sqrt(hi))


def show(v: FVal) -> str:
    if isinstance(v, Interval):
        return f"[{float(v.lo)!r}, {float(v.hi)!r}]"
    return repr(float(v))


def compare(rel: str, a: FVal, b: FVal) -> bool:
    """``a rel b`` (eq ne lt le gt ge) when every value of the intervals agrees; else
    :class:`Undecided`."""
    (a0, a1), (b0, b1) = bounds(a), bounds(b)
    if rel in ("gt", "ge"):
        return compare("lt" if rel == "gt" else "le", b, a)
    if rel == "ne":
        return not compare("eq", a, b)
    if rel == "eq":
        if a0 == a1 == b0 == b1:
            return True
        if a1 < b0 or b1 < a0:
            return False
    elif rel == "lt":
        if a1 < b0:
            return True
        if a0 >= b1:
            return False
    elif rel == "le":
        if a1 <= b0:
            return True
        if a0 > b1:
            return False
    raise Undecided(f"{show(a)} {rel} {show(b)} holds for some values of the interval and "
                    "not for others (rsqrt.approx.f32's error bound, PTX ISA §9.7.3)")


def trunc(a: FVal) -> int:
    """``fptosi``'s truncation toward zero, the same for every value of an interval."""
    def t(q: Fraction) -> int:
        return q.numerator // q.denominator if q >= 0 else -((-q.numerator) // q.denominator)
    lo, hi = bounds(a)
    if t(lo) != t(hi):
        raise Undecided(f"the conversion of {show(a)} to an integer differs within the "
                        "interval")
    return t(lo)


# --------------------------------------------------------------------------
# A float in memory as a litmus integer (docs/kernels.md, "Floats in memory")
# --------------------------------------------------------------------------

EXACT = 1 << 24  # every integer of magnitude at most 2^24 is a binary32 value (p = 24)
CODE_VALUE = 1 << 32  # + the encoding: a binary32 value that is not such an integer
CODE_INTERVAL = 1 << 33  # + (encoding of lo) * 2^16 + the ulps from lo to hi
MAX_ULPS = (1 << 16) - 1


def encode(v: FVal) -> int:
    """The litmus integer of a float in memory: an integer of magnitude at most 2^24 is
    itself (so the models' integer sums are the float sums while they are exact); any other
    binary32 value is CODE_VALUE + its encoding; an interval of one sign, CODE_INTERVAL +
    its least value's encoding * 2^16 + its width in ulps. The three ranges are disjoint
    (|n| <= 2^24 < 2^32 <= CODE_VALUE + bits < 2^33 <= CODE_INTERVAL + ...)."""
    if isinstance(v, Interval):
        if v.lo < 0 < v.hi:
            raise Binary32Error(f"a float interval {show(v)} that holds both signs is stored "
                                "(its code is of one sign)")
        lo_bits = to_bits(v.lo) if v.lo != 0 else 0
        hi_bits = to_bits(v.hi) if v.hi != 0 else (0x80000000 if v.lo < 0 else 0)
        ulps = abs(hi_bits - lo_bits)
        if ulps > MAX_ULPS:
            raise Binary32Error(f"a float interval {show(v)} of more than {MAX_ULPS} values is "
                                "stored")
        return CODE_INTERVAL + (lo_bits << 16) + ulps
    if v.denominator == 1 and abs(v) <= EXACT:
        return int(v)
    return CODE_VALUE + to_bits(v)


def decode(code: int) -> FVal:
    """The float a litmus integer of :func:`encode` stands for."""
    if abs(code) <= EXACT:
        return Fraction(code)
    if CODE_VALUE <= code < CODE_INTERVAL:
        return from_bits(code - CODE_VALUE)
    if code >= CODE_INTERVAL:
        rest = code - CODE_INTERVAL
        lo_bits, ulps = rest >> 16, rest & MAX_ULPS
        lo = from_bits(lo_bits)
        hi = from_bits(lo_bits - ulps if lo_bits >> 31 else lo_bits + ulps)
        return make(lo, hi)
    raise Binary32Error(f"{code} is not the code of a float")
