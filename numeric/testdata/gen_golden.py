#!/usr/bin/env python3
"""Golden values for exp, log, sqrt, erf and tanh, computed with mpmath.

Run (from any directory; the output goes next to this script):

    python3 numeric/testdata/gen_golden.py

It needs only python3 and mpmath (1.3.0 was used), takes about a minute,
and rewrites

    golden/elementary.txt   the BigFloat precisions 24, 53, 113 and 1000 bits
                            and the IEEE formats fp64, fp32, fp16 and bf16
                            (hard cases, boundaries, special values, samples)
    golden/fp8.txt          fp8-e4m3 and fp8-e5m2, every bit pattern

The output is deterministic: the random choices use fixed seeds, and the
selections depend only on exact integer arithmetic and on mpmath's results
(running it twice gives identical files).

Line format (fields separated by single spaces, an optional "# note" at the
end):

    PREC FUNC ARG RESULT [LO HI] [# note]

PREC is a bit count (24, 53, 113, 1000: a significand of that many bits
with an unbounded exponent, the BigFloat backend) or an IEEE format name
(fp64, fp32, fp16, bf16, fp8-e4m3, fp8-e5m2). FUNC is exp, log, sqrt, erf
or tanh. ARG is exactly representable at PREC. RESULT is FUNC(ARG) rounded
once to PREC, to nearest with ties to even; in the IEEE formats with
subnormals (gradual underflow) and overflow to Inf (to NaN in fp8-e4m3,
which has no Inf). Numbers are written exactly: "0", "-0", or
"[-]0xMpE" meaning (-)M * 2^E with M an odd hexadecimal integer (big.Rat's
SetString in Go reads this form exactly); "inf", "-inf" and "nan" are the
special values. Lines of the bit-count precisions also give LO and HI, the
true value FUNC(ARG) rounded down and up to PREC+64 bits (LO = HI when the
value is exact), so that an interval enclosure can be checked against the
true value rather than against the rounded one.

The note says how the case was chosen and, for an inexact finite result,
"d=2^-k": the distance from the true value to the nearest midpoint between
two neighbouring values of the format, in ulps of the result (1/2 means the
true value is representable; a small d makes the rounding hard to decide).

How the values are computed. The true value is evaluated by mpmath at
working precision W = PREC + 200 bits and taken as an enclosure
[v - |v| 2^(10-W), v + |v| 2^(10-W)] (mpmath is accurate to a few ulps at
W; we allow 1024). If both ends round to the same value of the format, that
is the correctly rounded result, else W is doubled (Ziv's strategy). The
result is then confirmed with a second evaluation at 2W + 100 bits, whose
enclosure must round the same way. The rounding itself (round to nearest
even on a P-bit grid, IEEE subnormals and overflow) is implemented here on
exact Fractions, not by mpmath. Exact results (exp(0), log(1), erf(0),
tanh(0), sqrt of a square) are recognised exactly; the others are
transcendental (or irrational square roots) and never lie on a midpoint.
For erf and tanh with |x| >= 1/2 the complement 1 - |f(x)| (erfc, or
2/(e^(2|x|)+1)) is what mpmath evaluates, so that values like
erf(100) = 1 - 2^-14432.6... are still enclosed tightly; where the
complement is provably below 2^-(W+20) (erfc(x) < e^(-x^2) for x >= 1,
1 - tanh(x) < 2e^(-2x)) the enclosure [1 - 2^-(W+20), 1] is used for
rounding to nearest. exp(x) in an IEEE format is decided without mpmath
when x > emax + 2 (overflow) or x < 0.7 (emin - P) (below half the
smallest subnormal).

How the hard cases are found (see scan()). Around a random argument x0 the
function is replaced by its Taylor polynomial in t, the index of the
argument x0 + t*ulp(x0), expressed in ulps of the result in fixed point
with 160 fractional bits; the polynomial is evaluated for every t in
[-H, H] by exact integer forward differences, and the arguments whose value
is closest to a midpoint (fraction nearest 1/2) are kept. H is chosen so
that the Taylor remainder is below 2^-40 ulps, and the polynomial is
checked against mpmath at both ends of the block. Every kept candidate is
then recomputed from scratch by mpmath, which gives the d in its note.
Some hard cases are also constructed: exp(x) for x = +-(2j+1) 2^-P is
within about x^2/2 of the midpoint 1 + x, sqrt(1 + (2j+1) 2^(1-P)) is
just below the midpoint 1 + (2j+1) 2^-P, and log(1 - u), u = 2^(1-P), is
within u^3/3 of the midpoint -(u + u^2/2). Others come from the
boundaries: arguments next to the point where exp starts rounding to 1,
or erf and tanh to 1, change the result by far less than an ulp per step,
so the one nearest the boundary has its result very close to the midpoint
(at 1000 bits, tanh within 2^-992 ulps). The fp16 and bf16 cases are
chosen from an exhaustive scan of every finite argument. One published
case is included: log of 1.0110001010101000100001100001001101100010100110110110
x 2^678, from the worst cases of Lefevre and Muller for binary64 (listed in
Muller's "Elementary Functions" and the Handbook of Floating-Point
Arithmetic); its logarithm lies within 2^-65 ulps of a binary64 number,
which we verify, so it is hard for directed roundings rather than for
rounding to nearest.
"""

import heapq
import math
import os
import random
import sys
import time
from fractions import Fraction

import mpmath

FUNCS = ["exp", "log", "sqrt", "erf", "tanh"]
MPF = {"exp": mpmath.exp, "log": mpmath.log, "sqrt": mpmath.sqrt,
       "erf": mpmath.erf, "tanh": mpmath.tanh}

NAN, INF, NINF, NZERO = "nan", "inf", "-inf", "-0"
SPECIALS = (NAN, INF, NINF, NZERO)


def log(*a):
    print(*a, file=sys.stderr, flush=True)


# ---------------------------------------------------------------- exact helpers

def pow2(k):
    return Fraction(1 << k) if k >= 0 else Fraction(1, 1 << -k)


def flog2(a):
    """floor(log2(a)) for a Fraction a > 0."""
    e = a.numerator.bit_length() - a.denominator.bit_length()
    if a < pow2(e):
        e -= 1
    assert pow2(e) <= a < pow2(e + 1)
    return e


def round_half_even(n):
    """n (a Fraction) rounded to the nearest integer, ties to even."""
    m = n.numerator // n.denominator  # floor
    r = n - m
    if r > Fraction(1, 2) or (r == Fraction(1, 2) and m % 2 == 1):
        m += 1
    return m


def hexrat(v):
    """Exact text of a value: 0, -0, [-]0xMpE (M odd), inf, -inf, nan."""
    if isinstance(v, str):
        return v
    if v == 0:
        return "0"
    d = v.denominator
    assert d & (d - 1) == 0, "not dyadic: %r" % v
    m, e = v.numerator, -(d.bit_length() - 1)
    while m % 2 == 0:
        m //= 2
        e += 1
    return "%s0x%xp%d" % ("-" if m < 0 else "", abs(m), e)


def same(a, b):
    return type(a) is type(b) and a == b


class Grid:
    """Binary floating point with a p-bit significand: unbounded exponent
    when emin is None (BigFloat), else an IEEE-style format with
    subnormals below 2^emin and overflow above maxfinite."""

    def __init__(self, name, p, emin=None, maxfinite=None, has_inf=True):
        self.name, self.p, self.emin = name, p, emin
        self.maxfinite, self.has_inf = maxfinite, has_inf

    def ieee(self):
        return self.emin is not None

    def qexp(self, a):
        """Exponent q of the spacing 2^q of the grid around a > 0."""
        e = flog2(a)
        if self.emin is not None and e < self.emin:
            e = self.emin
        return e - self.p + 1

    def overflow(self, neg):
        if not self.has_inf:
            return NAN
        return NINF if neg else INF

    def round(self, v):
        """v (a Fraction, or a special) rounded to nearest even."""
        if isinstance(v, str):
            if v in (INF, NINF) and not self.has_inf:
                return NAN
            return v
        if v == 0:
            return Fraction(0)
        neg, a = v < 0, abs(v)
        q = self.qexp(a)
        r = round_half_even(a / pow2(q)) * pow2(q)
        if self.maxfinite is not None and r > self.maxfinite:
            return self.overflow(neg)
        if r == 0:
            return NZERO if neg else Fraction(0)
        return -r if neg else r

    def round_dir(self, v, up):
        """v rounded toward +inf (up) or -inf, unbounded exponent only."""
        assert self.emin is None
        if v == 0:
            return Fraction(0)
        q = self.qexp(abs(v))
        n = v / pow2(q)
        m = n.numerator // n.denominator
        if up and m != n:
            m += 1
        return m * pow2(q)

    def contains(self, v):
        if isinstance(v, str):
            return v != INF and v != NINF or self.has_inf
        if v == 0:
            return True
        r = self.round(v)
        return same(r, v)

    def next_up(self, v):
        """Smallest grid value above the finite grid value v (may exceed
        maxfinite: callers filter with contains)."""
        if v < 0:
            return -self.next_down(-v)
        if v == 0:
            if self.emin is None:
                raise ValueError("no smallest value without emin")
            return pow2(self.emin - self.p + 1)
        return v + pow2(self.qexp(v))

    def next_down(self, v):
        if v <= 0:
            return -self.next_up(-v)
        e = flog2(v)
        if v == pow2(e) and (self.emin is None or e > self.emin):
            return v - pow2(e - self.p)
        return v - pow2(self.qexp(v))

    def dist_mid(self, v):
        """Distance of v > 0 or < 0 (a Fraction) from the nearest midpoint of
        the grid, in units of the spacing around v."""
        a = abs(v)
        n = a / pow2(self.qexp(a))
        f = n - (n.numerator // n.denominator)
        return abs(f - Fraction(1, 2))

    def finite_values(self):
        """Every finite value (IEEE formats only; small formats only)."""
        out = [Fraction(0)]
        e_lo = self.emin - self.p + 1
        pos = []
        # subnormals: k * 2^(emin-p+1), 0 < k < 2^(p-1)
        for k in range(1, 1 << (self.p - 1)):
            pos.append(k * pow2(e_lo))
        e = self.emin
        while True:
            done = False
            for k in range(1 << (self.p - 1), 1 << self.p):
                v = k * pow2(e - self.p + 1)
                if v > self.maxfinite:
                    done = True
                    break
                pos.append(v)
            if done or pos[-1] == self.maxfinite:
                break
            e += 1
        out += pos + [-x for x in pos] + [NZERO]
        return out


def ieee_grid(name, p, ebits, maxfinite=None, has_inf=True):
    bias = (1 << (ebits - 1)) - 1
    emin, emax = 1 - bias, bias
    if maxfinite is None:
        maxfinite = (2 - pow2(1 - p)) * pow2(emax)
    return Grid(name, p, emin, maxfinite, has_inf)


FORMATS = {
    "fp64": ieee_grid("fp64", 53, 11),
    "fp32": ieee_grid("fp32", 24, 8),
    "fp16": ieee_grid("fp16", 11, 5),
    "bf16": ieee_grid("bf16", 8, 8),
    "fp8-e4m3": Grid("fp8-e4m3", 4, -6, Fraction(448), has_inf=False),
    "fp8-e5m2": ieee_grid("fp8-e5m2", 3, 5),
}
assert FORMATS["fp16"].maxfinite == 65504
assert FORMATS["fp8-e5m2"].maxfinite == 57344
assert FORMATS["bf16"].maxfinite == (2 - pow2(-7)) * pow2(127)


def bits_grid(p):
    return Grid(str(p), p)


# ---------------------------------------------------------------- true values

def to_mpf(x):
    """The Fraction x (dyadic) as an exact mpf."""
    n, d = x.numerator, x.denominator
    with mpmath.workprec(max(n.bit_length(), 1) + 8):
        return mpmath.ldexp(mpmath.mpf(n), -(d.bit_length() - 1))


def mpf_frac(v):
    s, m, e, _ = v._mpf_
    if m == 0:
        return Fraction(0)
    r = m * pow2(e)
    return -r if s else r


def exact_value(fn, x):
    """The value of fn(x) when it is rational, else None."""
    if fn == "exp" and x == 0:
        return Fraction(1)
    if fn == "log" and x == 1:
        return Fraction(0)
    if fn in ("erf", "tanh") and x == 0:
        return Fraction(0)
    if fn == "sqrt":
        if x == 0:
            return Fraction(0)
        a, b = math.isqrt(x.numerator), math.isqrt(x.denominator)
        if a * a == x.numerator and b * b == x.denominator:
            return Fraction(a, b)
    return None


def enclosure(fn, x, w, closed_ok=False):
    """[lo, hi] (Fractions) containing fn(x), from mpmath at w bits."""
    ex = exact_value(fn, x)
    if ex is not None:
        return ex, ex
    xm = to_mpf(x)
    if closed_ok and fn in ("erf", "tanh") and (
            fn == "erf" and x * x > w + 20 or fn == "tanh" and abs(x) > (w + 21) / 2):
        # 0 < 1 - |f(x)| < 2^-(w+20): erfc(x) < e^(-x^2) for x >= 1, and
        # 1 - tanh(x) < 2 e^(-2x). This closed enclosure serves rounding to
        # nearest (not directed rounding) and spares mpmath (and Fraction)
        # the values like erfc(65504) = 2^-6.2e9.
        lo, hi = 1 - pow2(-w - 20), Fraction(1)
        return (lo, hi) if x > 0 else (-hi, -lo)
    if fn in ("erf", "tanh") and abs(x) >= Fraction(1, 2):
        # 1 - |f(x)| is computed on its own, with a relative error, so that
        # a value within far less than 2^-w of +-1 is still enclosed tightly
        # (erf(100) = 1 - 2^-14432.6...).
        with mpmath.workprec(w):
            a = abs(xm)
            if fn == "erf":
                c = mpmath.erfc(a)
            else:
                c = 2 / (mpmath.exp(2 * a) + 1)
        c = mpf_frac(c)
        assert c > 0
        lo, hi = 1 - c * (1 + pow2(10 - w)), 1 - c * (1 - pow2(10 - w))
        return (lo, hi) if x > 0 else (-hi, -lo)
    with mpmath.workprec(w):
        y = MPF[fn](xm)
    v = mpf_frac(y)
    assert v != 0
    err = abs(v) * pow2(10 - w)
    return v - err, v + err


def correctly_rounded(fn, x, grid):
    """fn(x) rounded to the grid, with the Ziv loop and the confirmation
    at a higher precision; also returns the enclosure used."""
    w = grid.p + 200
    while True:
        lo, hi = enclosure(fn, x, w, True)
        a, b = grid.round(lo), grid.round(hi)
        if same(a, b):
            break
        w *= 2
        if w > 40000:
            raise RuntimeError("undecided: %s(%s) at %s" % (fn, hexrat(x), grid.name))
    lo2, hi2 = enclosure(fn, x, 2 * w + 100, True)
    if not (same(grid.round(lo2), a) and same(grid.round(hi2), a)):
        raise RuntimeError("confirmation failed: %s(%s) at %s" % (fn, hexrat(x), grid.name))
    return a, (lo2, hi2)


def directed_bounds(fn, x, p):
    """fn(x) rounded down and up to p bits (unbounded exponent)."""
    ex = exact_value(fn, x)
    g = bits_grid(p)
    if ex is not None:
        assert same(g.round(ex), ex)
        return ex, ex
    w = p + 200
    while True:
        lo, hi = enclosure(fn, x, w)
        d1, d2 = g.round_dir(lo, False), g.round_dir(hi, False)
        u1, u2 = g.round_dir(lo, True), g.round_dir(hi, True)
        if d1 == d2 and u1 == u2:
            assert d1 < u1
            return d1, u1
        w *= 2


def ieee_special(fn, x):
    """The IEEE 754 result for a special or zero argument (before the
    format's own mapping of Inf to NaN), or None for a finite nonzero x."""
    if x == NAN:
        return NAN
    if fn == "exp":
        if x == INF:
            return INF
        if x == NINF:
            return Fraction(0)
        if x == NZERO or x == 0:
            return Fraction(1)
        return None
    if fn == "log":
        if x == NZERO or (not isinstance(x, str) and x == 0):
            return NINF
        if x == INF:
            return INF
        if x == NINF or x < 0:
            return NAN
        return None
    if fn == "sqrt":
        if x == NZERO:
            return NZERO
        if x == INF:
            return INF
        if x == NINF:
            return NAN
        if x == 0:
            return Fraction(0)
        if x < 0:
            return NAN
        return None
    # erf, tanh: odd, +-1 at +-inf, keep the sign of zero
    if x == INF:
        return Fraction(1)
    if x == NINF:
        return Fraction(-1)
    if x == NZERO:
        return NZERO
    if x == 0:
        return Fraction(0)
    return None


# ---------------------------------------------------------------- cases

class Case:
    def __init__(self, prec, fn, x, result, bounds=None, note=""):
        self.prec, self.fn, self.x, self.result = prec, fn, x, result
        self.bounds, self.note = bounds, note

    def line(self):
        f = [self.prec, self.fn, hexrat(self.x), hexrat(self.result)]
        if self.bounds is not None:
            f += [hexrat(self.bounds[0]), hexrat(self.bounds[1])]
        s = " ".join(f)
        if self.note:
            s += " # " + self.note
        return s


def dnote(grid, enc, result):
    """The d=2^-k part of a note, for an inexact finite result."""
    lo, hi = enc
    if lo == hi or isinstance(result, str) or result == 0:
        return ""
    v = (lo + hi) / 2
    d = grid.dist_mid(v)
    if d == 0:
        return ""
    return "d=2^%.1f" % math.log2(d)


def make_case(prec, fn, x, note=""):
    """The golden case fn(x) at prec (a bit count or a format name)."""
    if isinstance(prec, int):
        grid = bits_grid(prec)
    else:
        grid = FORMATS[prec]
    assert grid.contains(x), "%s not representable at %s" % (x, prec)
    if grid.ieee():
        sp = ieee_special(fn, x)
        if sp is not None:
            return Case(str(prec), fn, x, grid.round(sp), None, (note + " special").strip())
    if grid.ieee() and fn == "exp" and x > flog2(grid.maxfinite) + 2:
        # exp(x) > e^(emax+2) > 2^(emax+2) > maxfinite + ulp/2: overflow.
        return Case(prec, fn, x, grid.overflow(False), None, (note + " overflow").strip())
    if grid.ieee() and fn == "exp" and x < Fraction(7, 10) * (grid.emin - grid.p):
        # exp(x) < 2^(emin-p) = half the smallest subnormal: rounds to +0.
        return Case(prec, fn, x, Fraction(0), None, (note + " underflow").strip())
    res, enc = correctly_rounded(fn, x, grid)
    bounds = directed_bounds(fn, x, prec + 64) if isinstance(prec, int) else None
    dn = dnote(grid, enc, res)
    note = (note + " " + dn).strip()
    return Case(str(prec), fn, x, res, bounds, note)


# ---------------------------------------------------------------- scanning

def taylor(fn, x0, n):
    """[f^(k)(x0)/k! for k = 0..n] at the current mpmath precision."""
    if fn == "exp":
        e = mpmath.exp(x0)
        return [e / mpmath.factorial(k) for k in range(n + 1)]
    if fn == "log":
        return [mpmath.log(x0)] + [(-1) ** (k + 1) / (k * x0 ** k) for k in range(1, n + 1)]
    if fn == "sqrt":
        s = mpmath.sqrt(x0)
        return [mpmath.binomial(mpmath.mpf(1) / 2, k) * s / x0 ** k for k in range(n + 1)]
    if fn == "erf":
        c = 2 / mpmath.sqrt(mpmath.pi) * mpmath.exp(-x0 * x0)
        out = [mpmath.erf(x0)]
        for k in range(1, n + 1):
            out.append((-1) ** (k - 1) * mpmath.hermite(k - 1, x0) * c / mpmath.factorial(k))
        return out
    if fn == "tanh":
        T = mpmath.tanh(x0)
        poly = [mpmath.mpf(0), mpmath.mpf(1)]  # P_0(T) = T, coefficients low to high
        out = [T]
        for k in range(1, n + 1):
            # P_k = P_{k-1}'(T) (1 - T^2)
            d = [i * poly[i] for i in range(1, len(poly))]
            poly = [mpmath.mpf(0)] * (len(d) + 2)
            for i, c in enumerate(d):
                poly[i] += c
                poly[i + 2] -= c
            out.append(mpmath.polyval(poly[::-1], T) / mpmath.factorial(k))
        return out
    raise ValueError(fn)


DEG = 5      # degree of the Taylor polynomial
FBITS = 160  # fractional bits of the fixed point
HMAX = 1 << 15


def scan_block(fn, p, sign, e, m, best, K):
    """Scan the arguments sign*(m+t)*2^(e-p+1), |t| <= H. best is a heap of
    (-dist, x) of the K closest to a midpoint. Returns the count scanned."""
    g = bits_grid(p)
    u = pow2(e - p + 1)
    x0 = sign * m * u
    with mpmath.workprec(p + FBITS + 96):
        c = taylor(fn, to_mpf(x0), DEG + 1)
        y0 = mpf_frac(c[0])
        if y0 == 0:
            return 0
        qy = g.qexp(abs(y0))
        uy = mpmath.ldexp(1, qy)
        um = to_mpf(Fraction(sign) * u)  # signed step
        a = [c[k] * um ** k / uy for k in range(DEG + 2)]
        # H: Taylor remainder below 2^-40 ulps, inside the binade of x.
        H = HMAX
        rem = abs(a[DEG + 1])
        while H > 16 and rem * mpmath.mpf(H) ** (DEG + 1) > mpmath.ldexp(1, -40):
            H //= 2
        H = min(H, m - (1 << (p - 1)), (1 << p) - 1 - m)
        if H < 16:
            return 0
        A = [int(mpmath.nint(mpmath.ldexp(a[k], FBITS))) for k in range(DEG + 1)]

    def P(t):
        return sum(A[k] * t ** k for k in range(DEG + 1))

    # Both ends of the block: same binade of the result, and the polynomial
    # agrees with mpmath to 2^-36 ulps.
    for t in (-H, H):
        xt = sign * (m + t) * u
        with mpmath.workprec(p + FBITS + 96):
            yt = MPF[fn](to_mpf(xt))
        yf = mpf_frac(yt)
        if yf == 0 or (yf < 0) != (y0 < 0) or g.qexp(abs(yf)) != qy:
            return 0
        if abs(Fraction(P(t), 1 << FBITS) - yf / pow2(qy)) > pow2(-36):
            log("  Taylor polynomial off, block skipped: %s p=%d x0=%s H=%d" % (fn, p, hexrat(x0), H))
            return 0

    # Forward differences from t = -H.
    vals = [P(-H + i) for i in range(DEG + 1)]
    diffs = []
    for _ in range(DEG + 1):
        diffs.append(vals[0])
        vals = [vals[i + 1] - vals[i] for i in range(len(vals) - 1)]
    v, d1, d2, d3, d4, d5 = diffs
    mask = (1 << FBITS) - 1
    half = 1 << (FBITS - 1)
    thr = -best[0][0] if len(best) >= K else (half >> 10)
    t = -H
    for _ in range(2 * H + 1):
        r = (v & mask) - half
        if -thr < r < thr:
            x = sign * (m + t) * u
            heapq.heappush(best, (-abs(r), x))
            if len(best) > K:
                heapq.heappop(best)
            if len(best) >= K:
                thr = -best[0][0]
        v += d1
        d1 += d2
        d2 += d3
        d3 += d4
        d4 += d5
        t += 1
    return 2 * H + 1


# Where to look for hard cases: (weight, sign choices, exponent range of |x|).
DOMAINS = {
    "exp": [(3, (1, -1), (-8, 6)), (1, (1, -1), (-30, -9))],
    "log": [(2, (1,), (-60, 60)), (2, (1,), (-1, 0))],
    "sqrt": [(1, (1,), (-40, 40))],
    "erf": [(3, (1, -1), (-10, 1)), (1, (1,), (1, 2))],
    "tanh": [(3, (1, -1), (-10, 3)), (1, (1,), (3, 4))],
}


def scan(fn, p, budget, K, rng):
    best = []
    n = 0
    doms = DOMAINS[fn]
    weights = [d[0] for d in doms]
    while n < budget:
        _, signs, (elo, ehi) = rng.choices(doms, weights)[0]
        sign = rng.choice(signs)
        e = rng.randint(elo, ehi)
        m = rng.randrange(1 << (p - 1), 1 << p)
        n += scan_block(fn, p, sign, e, m, best, K)
    return [x for _, x in sorted(best, key=lambda b: (-b[0], b[1]))]


def hard_cases(fn, p, budget, K, rng):
    """The K scanned arguments closest to a midpoint, verified by mpmath."""
    t0 = time.time()
    xs = scan(fn, p, budget, 3 * K, rng)
    g = bits_grid(p)
    scored = []
    for x in xs:
        res, enc = correctly_rounded(fn, x, g)
        d = g.dist_mid((enc[0] + enc[1]) / 2)
        scored.append((d, x))
    scored.sort()
    log("  scan %s p=%d: %d args in %.1fs, hardest d=2^%.1f" %
        (fn, p, budget, time.time() - t0, math.log2(scored[0][0])))
    return [x for _, x in scored[:K]]


def exhaustive_hard(fn, fmt, K):
    """The K finite arguments of a small format whose fn value is closest to
    a midpoint (results that overflow or underflow to 0 excluded)."""
    g = FORMATS[fmt]
    cands = []
    maxf, minsub = to_mpf(g.maxfinite), to_mpf(pow2(g.emin - g.p + 1))
    with mpmath.workprec(g.p + 80):
        for x in g.finite_values():
            if isinstance(x, str) or x == 0:
                continue
            if fn in ("log", "sqrt") and x < 0:
                continue
            if exact_value(fn, x) is not None:
                continue
            y = MPF[fn](to_mpf(x))
            if y == 0:
                continue
            a = abs(y)
            if a > maxf or a < minsub / 4:
                continue
            e = int(mpmath.frexp(a)[1]) - 1  # 2^e <= a < 2^(e+1), exactly
            q = max(e, g.emin) - g.p + 1
            n = mpmath.ldexp(a, -q)
            fr = n - mpmath.floor(n)
            cands.append((abs(fr - mpmath.mpf(0.5)), x))
    cands.sort(key=lambda c: (c[0], c[1]))
    return [x for _, x in cands[:K]]


# ---------------------------------------------------------------- arguments

def rand_bits_arg(rng, p, elo, ehi, sign=None):
    """A random p-bit number with exponent in [elo, ehi]."""
    m = rng.randrange(1 << (p - 1), 1 << p)
    e = rng.randint(elo, ehi)
    s = sign if sign is not None else rng.choice((1, -1))
    return s * m * pow2(e - p + 1)


RAND_RANGES = {  # exponent ranges of |x| for random arguments, and signs
    "exp": [((-40, 9), (1, -1))],
    "log": [((-300, 300), (1,)), ((-1, 0), (1,))],
    "sqrt": [((-300, 300), (1,))],
    "erf": [((-40, 3), (1, -1))],
    "tanh": [((-40, 5), (1, -1))],
}


def random_args(fn, p, n, rng, grid=None):
    out = []
    ranges = RAND_RANGES[fn]
    while len(out) < n:
        (elo, ehi), signs = rng.choice(ranges)
        if grid is not None and grid.ieee():
            elo = max(elo, grid.emin - grid.p + 1)
            ehi = min(ehi, flog2(grid.maxfinite))
        x = rand_bits_arg(rng, p, elo, ehi, rng.choice(signs))
        if grid is not None:
            x = grid.round(x)
            if isinstance(x, str) or x == 0:
                continue
        out.append(x)
    return out


def constructed_hard(fn, p):
    """Arguments whose result is within about 2^-p ulps of a midpoint."""
    out = []
    if fn == "exp":
        for j in (0, 1, 5):
            out.append(((2 * j + 1) * pow2(-p), "constructed exp(x)~1+x, 1+x a midpoint"))
            out.append((-(2 * j + 1) * pow2(-p - 1), "constructed exp(x)~1+x, 1+x a midpoint"))
    if fn == "log":
        # log(1 - u), u = 2^(1-P): -(u + u^2/2 + u^3/3 + ...), and u + u^2/2
        # is the midpoint above u (the spacing there is 2^(2-2P)).
        out.append((1 - pow2(1 - p), "constructed log(1-u)~-(u+u^2/2), a midpoint"))
    if fn == "sqrt":
        for j in (0, 1, 7):
            out.append((1 + (2 * j + 1) * pow2(1 - p), "constructed sqrt(1+2d)~1+d, 1+d a midpoint"))
            out.append((1 - (2 * j + 1) * pow2(-p), "constructed sqrt(1-2d)~1-d, 1-d a midpoint"))
        out.append(((1 + pow2(1 - p)) * pow2(200), "constructed sqrt(1+2d) scaled"))
        out.append(((1 - pow2(-p)) * pow2(-300), "constructed sqrt(1-2d) scaled"))
    return out


def threshold_args(grid, t, count=2):
    """Grid values around the real number t (a Fraction): count below
    (including t if it is on the grid) and count above."""
    if grid.ieee():
        # largest grid value <= t
        lo = grid.round(t)
        if isinstance(lo, str):
            lo = grid.maxfinite if t > 0 else -grid.maxfinite
        if lo == NZERO:
            lo = Fraction(0)
    else:
        lo = grid.round(t)
    if lo > t:
        lo = grid.next_down(lo)
    out = [lo]
    v = lo
    for _ in range(count - 1):
        v = grid.next_down(v)
        out.append(v)
    v = lo
    for _ in range(count):
        v = grid.next_up(v)
        out.append(v)
    return [x for x in out if grid.contains(x) and not (grid.ieee() and abs(x) > grid.maxfinite)]


def mp_threshold(expr, p):
    """A real threshold computed by mpmath (expr: function of nothing that
    runs at the current precision) as an exact Fraction of ~p+100 bits."""
    with mpmath.workprec(p + 100):
        return mpf_frac(expr())


def boundary_cases(fn, grid):
    """(arg, note) pairs at the edges of a format or of a function."""
    p = grid.p
    out = []
    one_hi = 1 + pow2(-p)          # midpoint between 1 and its successor
    one_lo = 1 - pow2(-p - 1)      # midpoint between 1 and its predecessor
    if fn == "exp":
        for t, note in [
            (mp_threshold(lambda: mpmath.log(to_mpf(one_hi)), p), "exp rounds to 1 below"),
            (mp_threshold(lambda: mpmath.log(to_mpf(one_lo)), p), "exp rounds to 1 above"),
        ]:
            out += [(x, note) for x in threshold_args(grid, t)]
        if grid.ieee():
            mx, mn, mnorm = grid.maxfinite, pow2(grid.emin - p + 1), pow2(grid.emin)
            ovf = mx + pow2(grid.qexp(mx)) / 2
            for t, note in [
                (mp_threshold(lambda: mpmath.log(to_mpf(ovf)), p), "exp overflow boundary"),
                (mp_threshold(lambda: mpmath.log(to_mpf(mn / 2)), p), "exp underflow-to-0 boundary"),
                (mp_threshold(lambda: mpmath.log(to_mpf(mn * 3 / 2)), p), "exp 1-2 subnormal ulps boundary"),
                (mp_threshold(lambda: mpmath.log(to_mpf(mnorm)), p), "exp normal/subnormal boundary"),
            ]:
                out += [(x, note) for x in threshold_args(grid, t)]
    if fn in ("erf", "tanh"):
        f1 = {"erf": lambda y: mpmath.erfinv(y), "tanh": lambda y: mpmath.atanh(y)}[fn]
        t = mp_threshold(lambda: f1(to_mpf(one_lo)), p)
        out += [(x, fn + " rounds to 1 above") for x in threshold_args(grid, t)]
        out += [(-x, fn + " rounds to -1 below") for x in threshold_args(grid, t, 1)]
        t2 = mp_threshold(lambda: f1(to_mpf(1 - pow2(-p - 1) * 3)), p)
        out += [(x, fn + " within 2 ulps of 1") for x in threshold_args(grid, t2, 1)]
    if grid.ieee():
        mx, mn, mnorm = grid.maxfinite, pow2(grid.emin - p + 1), pow2(grid.emin)
        specials = [Fraction(0), NZERO, NAN]
        if grid.has_inf:
            specials += [INF, NINF]
        out += [(x, "") for x in specials]
        extremes = [mx, -mx, mn, -mn, 2 * mn, 3 * mn, mnorm, -mnorm, mnorm - mn, grid.next_up(mnorm)]
        out += [(x, "extreme") for x in extremes]
        if fn in ("log", "sqrt"):
            out += [(Fraction(-1), "negative"), (-mn, "negative")]
    if fn == "log":
        for x in (1, 2, Fraction(1, 2)):
            x = Fraction(x)
            out += [(x, "near 1"), (grid.next_up(x), "near 1"), (grid.next_down(x), "near 1")]
    if fn == "sqrt":
        for x in (Fraction(9, 4), Fraction(4), Fraction(2), Fraction(3), Fraction(1, 4),
                  Fraction(9, 1 << 40), Fraction(49, 64)):
            if grid.contains(x):
                out.append((x, "square" if exact_value("sqrt", x) is not None else ""))
    if fn == "exp":
        out += [(Fraction(0), "exact"), (Fraction(1), ""), (Fraction(-1), "")]
    if fn in ("erf", "tanh"):
        out += [(Fraction(1, 2), ""), (Fraction(-1, 2), ""), (Fraction(1), "")]
    # Dedupe, keep representable ones.
    seen, res = set(), []
    for x, note in out:
        if not grid.contains(x):
            continue
        k = hexrat(x)
        if k in seen:
            continue
        seen.add(k)
        res.append((x, note))
    return res


def tiny_cases(fn, p):
    """Tiny arguments, where exp ~ 1 + x, erf ~ 2x/sqrt(pi), tanh ~ x, and
    where the engine switches algorithms (around 2^-(w/2+4))."""
    if fn not in ("exp", "erf", "tanh"):
        return []
    ks = [30, 600] if p > 200 else [30, 90, 600]
    out = []
    for k in ks:
        out.append((pow2(-k), "tiny"))
        out.append((-3 * pow2(-k - 1), "tiny"))
    for w in (p + 32, p + 64):
        k = w // 2 + 4
        out.append(((pow2(p) - 1) * pow2(-k - p), "below the tiny-series switch"))
        out.append((pow2(-k) + pow2(-k - p + 1), "above the tiny-series switch"))
    return out


def literature_cases(fn, prec):
    if fn == "log" and prec in (53, "fp64"):
        m = int("10110001010101000100001100001001101100010100110110110", 2)
        return [(m * pow2(678 - 52), "Lefevre-Muller binary64 log worst case")]
    return []


# ---------------------------------------------------------------- assembly

def dedupe(pairs):
    seen, out = set(), []
    for x, note in pairs:
        k = hexrat(x)
        if k not in seen:
            seen.add(k)
            out.append((x, note))
    return out


def gen_bits(p, fn, rng, scan_budget, nhard, nrand):
    g = bits_grid(p)
    pairs = []
    if scan_budget:
        pairs += [(x, "hard") for x in hard_cases(fn, p, scan_budget, nhard, rng)]
    pairs += constructed_hard(fn, p)
    pairs += literature_cases(fn, p)
    pairs += tiny_cases(fn, p)
    pairs += boundary_cases(fn, g)
    if fn == "exp":
        pairs += [(Fraction(s * v), "large") for v in (700, 745, 10000) for s in (1, -1)]
    if fn == "log":
        pairs += [(pow2(k) * 3, "huge/tiny") for k in (5000, -5000, 100000, -100000)]
        pairs += [(1 + pow2(-p + 1), "log(1+ulp)"), (1 - pow2(-p), "log(1-ulp/2)")]
    if fn in ("erf", "tanh"):
        pairs += [(Fraction(s * v), "large") for v in (30, 100) for s in (1, -1)]
    pairs += [(x, "random") for x in random_args(fn, p, nrand, rng)]
    if p >= 200:  # a random argument with all p bits
        for _ in range(3):
            m = rng.randrange(1 << (p - 1), 1 << p)
            e = {"exp": 2, "log": 40, "sqrt": 7, "erf": 0, "tanh": 1}[fn]
            pairs.append((m * pow2(e - p + 1) * rng.choice((1, -1) if fn in ("exp", "erf", "tanh") else (1,)), "random full-width"))
    out = []
    for x, note in dedupe(pairs):
        if not g.contains(x):
            continue
        if fn in ("log",) and x <= 0 or fn == "sqrt" and x < 0:
            continue
        out.append(make_case(p, fn, x, note))
    return out


def gen_ieee(fmt, fn, rng, extra, nrand, nhard_exh=0):
    g = FORMATS[fmt]
    pairs = []
    if nhard_exh:
        pairs += [(x, "hard (exhaustive scan)") for x in exhaustive_hard(fn, fmt, nhard_exh)]
    pairs += [(x, n) for x, n in constructed_hard(fn, g.p)]
    pairs += literature_cases(fn, fmt)
    pairs += extra
    pairs += boundary_cases(fn, g)
    if fn == "exp":
        pairs += [(Fraction(s * v), "large") for v in (700, 745, 10000) for s in (1, -1)]
    if fn in ("erf", "tanh"):
        pairs += [(Fraction(s * v), "large") for v in (30, 100) for s in (1, -1)]
    if fn == "tanh":
        pairs += [(Fraction(1000), "large")]
    pairs += [(x, "tiny") for x in (pow2(-30), -3 * pow2(-31), pow2(-90), pow2(-600))]
    pairs += [(x, "random") for x in random_args(fn, g.p, nrand, rng, g)]
    # random bit patterns: the whole range of the format
    for _ in range(nrand // 3):
        x = g.round(rand_bits_arg(rng, g.p, g.emin - g.p + 1, flog2(g.maxfinite)))
        if not isinstance(x, str) and x != 0:
            pairs.append((x, "random pattern"))
    out = []
    for x, note in dedupe(pairs):
        if not g.contains(x):
            continue
        out.append(make_case(fmt, fn, x, note))
    return out


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    outdir = os.path.join(here, "golden")
    os.makedirs(outdir, exist_ok=True)
    t0 = time.time()
    cases = []
    hard53, hard24 = {}, {}
    # (p, scan budget, hard cases kept, random cases)
    plan = [(24, 1 << 24, 50, 40), (53, 1 << 23, 50, 40), (113, 1 << 21, 30, 20), (1000, 0, 0, 4)]
    for p, budget, nhard, nrand in plan:
        for fn in FUNCS:
            rng = random.Random("golden %d %s" % (p, fn))
            cs = gen_bits(p, fn, rng, budget, nhard, nrand)
            if p == 24:
                hard24[fn] = [c.x for c in cs if c.note.startswith("hard")][:15]
            if p == 53:
                hard53[fn] = [c.x for c in cs if c.note.startswith("hard")][:15]
            log("%4d %-4s %4d cases  (%.0fs)" % (p, fn, len(cs), time.time() - t0))
            cases += cs
    for fmt, hard, nrand, nexh in [("fp64", hard53, 30, 0), ("fp32", hard24, 30, 0),
                                   ("fp16", None, 40, 40), ("bf16", None, 40, 40)]:
        for fn in FUNCS:
            rng = random.Random("golden %s %s" % (fmt, fn))
            extra = [(x, "hard (from the %d-bit scan)" % FORMATS[fmt].p) for x in hard[fn]] if hard else []
            cs = gen_ieee(fmt, fn, rng, extra, nrand, nexh)
            log("%4s %-4s %4d cases  (%.0fs)" % (fmt, fn, len(cs), time.time() - t0))
            cases += cs
    header = [
        "# Golden values of exp, log, sqrt, erf, tanh: generated by ../gen_golden.py",
        "# (mpmath %s); do not edit. See that script for the exact meaning." % mpmath.__version__,
        "# PREC FUNC ARG RESULT [LO HI] [# note]; RESULT = FUNC(ARG) rounded to nearest even",
        "# at PREC; LO, HI = true value rounded down, up to PREC+64 bits (bit-count PRECs).",
        "# Numbers: 0, -0, [-]0xMpE = M*2^E exactly, inf, -inf, nan. d = distance of the",
        "# true value from the nearest midpoint, in ulps.",
    ]
    with open(os.path.join(outdir, "elementary.txt"), "w") as f:
        f.write("\n".join(header) + "\n")
        for c in cases:
            f.write(c.line() + "\n")
    log("elementary.txt: %d cases" % len(cases))

    # fp8: every bit pattern (one NaN), every function.
    fp8 = []
    for fmt in ("fp8-e4m3", "fp8-e5m2"):
        g = FORMATS[fmt]
        args = g.finite_values() + [NAN] + ([INF, NINF] if g.has_inf else [])
        args.sort(key=lambda v: (isinstance(v, str), v if not isinstance(v, str) else 0, str(v)))
        for fn in FUNCS:
            for x in args:
                fp8.append(make_case(fmt, fn, x, "exhaustive"))
    with open(os.path.join(outdir, "fp8.txt"), "w") as f:
        f.write("\n".join(header[:2] + [
            "# Every fp8-e4m3 and fp8-e5m2 value (one NaN) through every function.",
            "# PREC FUNC ARG RESULT [# note]; RESULT = FUNC(ARG) rounded to nearest even,",
            "# with subnormals and overflow (to NaN in fp8-e4m3, which has no Inf).",
        ]) + "\n")
        for c in fp8:
            f.write(c.line() + "\n")
    log("fp8.txt: %d cases; total %.0fs" % (len(fp8), time.time() - t0))


if __name__ == "__main__":
    main()
