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
