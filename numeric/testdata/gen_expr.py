#!/usr/bin/env python3
"""Golden values for Backend.Eval of irrational expressions (expr_test.go).

Run from numeric/testdata:  python3 gen_expr.py > expr.txt

Each line: "EXPR<TAB>TARGET<TAB>VALUE" where EXPR is in ParseExpr's syntax,
TARGET is a bit count P (round to nearest even at P significand bits,
unbounded exponent) or an IEEE format name, and VALUE is the correctly
rounded result as an exact hex float; or "EXPR<TAB>bounds<TAB>LO<TAB>HI"
with LO < EXPR < HI, 600-bit hex floats, for Expr.Enclose. mpmath evaluates each expression at
600 bits; the rounding is done here with exact integers, and checked to be
the same at 1200 bits.
"""
import mpmath
from fractions import Fraction

EXPRS = [
    ("pi", lambda: mpmath.pi),
    ("sqrt(pi/2)", lambda: mpmath.sqrt(mpmath.pi / 2)),
    ("sqrt(2/pi)", lambda: mpmath.sqrt(2 / mpmath.pi)),
    ("1/sqrt(2)", lambda: 1 / mpmath.sqrt(2)),
    ("sqrt(2)*3/7", lambda: mpmath.sqrt(2) * 3 / 7),
    ("log(8*16)", lambda: mpmath.log(128)),
    ("log(8*100)/1", lambda: mpmath.log(800)),
    ("log(3)/log(2)", lambda: mpmath.log(3) / mpmath.log(2)),
    ("exp(1)", lambda: mpmath.e),
    ("exp(-1/3)+pi", lambda: mpmath.exp(mpmath.mpf(-1) / 3) + mpmath.pi),
    ("-(sqrt(pi)-1)", lambda: -(mpmath.sqrt(mpmath.pi) - 1)),
    ("1e-30*pi", lambda: mpmath.mpf(10) ** -30 * mpmath.pi),
    ("1e30/pi", lambda: mpmath.mpf(10) ** 30 / mpmath.pi),
    # sin and cos: small, tiny, negative, near zeros of the function (355 is
    # within 3e-5 of 113*pi, 355/113 within 3e-7 of pi), large (1e6, 2^50), an exact value reached
    # through pi (sin(pi/6) = 1/2), and angles of sinusoidal position
    # encodings i/10000^(2c/d) for positions i up to 4096.
    ("sin(1)", lambda: mpmath.sin(1)),
    ("cos(1)", lambda: mpmath.cos(1)),
    ("sin(-1/3)", lambda: mpmath.sin(mpmath.mpf(-1) / 3)),
    ("cos(-5/2)", lambda: mpmath.cos(mpmath.mpf(-5) / 2)),
    ("sin(1e-10)", lambda: mpmath.sin(mpmath.mpf(10) ** -10)),
    ("cos(1e-10)", lambda: mpmath.cos(mpmath.mpf(10) ** -10)),
    ("sin(355)", lambda: mpmath.sin(355)),
    ("cos(355/2)", lambda: mpmath.cos(mpmath.mpf(355) / 2)),
    # ... and arguments that are not dyadic, so enclosed as intervals:
    # 355/113 is within 3e-7 of pi
    ("sin(355/113)", lambda: mpmath.sin(mpmath.mpf(355) / 113)),
    ("cos(355/226)", lambda: mpmath.cos(mpmath.mpf(355) / 226)),
    ("sin(pi/6)", lambda: mpmath.sin(mpmath.pi / 6)),
    ("cos(3*pi/4)", lambda: mpmath.cos(3 * mpmath.pi / 4)),
    ("sin(1000000)", lambda: mpmath.sin(1000000)),
    ("cos(-1000000)", lambda: mpmath.cos(-1000000)),
    ("sin(1125899906842624)", lambda: mpmath.sin(2 ** 50)),
    ("cos(1125899906842624)", lambda: mpmath.cos(2 ** 50)),
    ("sin(4096)", lambda: mpmath.sin(4096)),
    ("cos(4096)", lambda: mpmath.cos(4096)),
    ("sin(4096/100)", lambda: mpmath.sin(mpmath.mpf(4096) / 100)),
    ("cos(4095/100)", lambda: mpmath.cos(mpmath.mpf(4095) / 100)),
    ("sin(4096/sqrt(10))", lambda: mpmath.sin(4096 / mpmath.sqrt(10))),
    ("cos(4096*exp(-(2*37/512)*log(10000)))",
     lambda: mpmath.cos(4096 * mpmath.exp(-(mpmath.mpf(2 * 37) / 512) * mpmath.log(10000)))),
    ("sin(4095*exp(-(2*255/512)*log(10000)))",
     lambda: mpmath.sin(4095 * mpmath.exp(-(mpmath.mpf(2 * 255) / 512) * mpmath.log(10000)))),
    ("cos(17*exp(-(2*3/64)*log(10000)))",
     lambda: mpmath.cos(17 * mpmath.exp(-(mpmath.mpf(2 * 3) / 64) * mpmath.log(10000)))),
    ("sin(exp(1))*cos(log(3))", lambda: mpmath.sin(mpmath.e) * mpmath.cos(mpmath.log(3))),
]

# name: (p, emin, emax, has_inf); emin is the exponent of the smallest
# normal, values below use the fixed spacing 2^(emin-p+1).
FORMATS = {
    "fp64": (53, -1022, 1023, True),
    "fp32": (24, -126, 127, True),
    "fp16": (11, -14, 15, True),
    "bf16": (8, -126, 127, True),
    "fp8-e4m3": (4, -6, 8, False),
    "fp8-e5m2": (3, -14, 15, True),
}
E4M3_MAX = 448


def round_fraction(x, p, emin=None):
    """Round the exact Fraction x to nearest-even with p significand bits
    (spacing fixed at 2^(emin-p+1) below 2^emin when emin is given)."""
    if x == 0:
        return Fraction(0)
    sign = -1 if x < 0 else 1
    a = abs(x)
    e = a.numerator.bit_length() - a.denominator.bit_length()
    if Fraction(2) ** e > a:
        e -= 1
    if emin is not None and e < emin:
        e = emin
    q = Fraction(2) ** (e - p + 1)
    m = a / q
    n = m.numerator // m.denominator
    r = m - n
    if r > Fraction(1, 2) or (r == Fraction(1, 2) and n % 2 == 1):
        n += 1
    return sign * n * q


def to_fraction(v):
    sign, man, exp, _ = mpmath.mpf(v)._mpf_  # v = (-1)^sign * man * 2^exp
    return (-1) ** sign * Fraction(man) * Fraction(2) ** exp


def hexf(f):
    if f == 0:
        return "0x0p+0"
    s = "-" if f < 0 else ""
    f = abs(f)
    # f = m / 2^k with m odd
    num, den = f.numerator, f.denominator
    k = den.bit_length() - 1
    assert den == 1 << k
    while num % 2 == 0 and num > 0 and k > -10000:
        num //= 2
        k -= 1
    return "%s0x%xp%+d" % (s, num, -k)


def target_round(x, target):
    if target.isdigit():
        return hexf(round_fraction(x, int(target)))
    p, emin, emax, has_inf = FORMATS[target]
    r = round_fraction(x, p, emin)
    if target == "fp8-e4m3":
        if abs(r) > E4M3_MAX:
            return "NaN"
        return hexf(r)
    maxf = (2 - Fraction(2) ** (1 - p)) * Fraction(2) ** emax
    if abs(r) > maxf:
        return "+Inf" if r > 0 else "-Inf"
    return hexf(r)


def bounds(fn):
    """Rationals lo < v < hi, 600-bit dyadics: mpmath's value at 1200 bits,
    widened by 2^-1150 relatively (far more than its error; rounding a
    rounded value again would not be a bound), then rounded down and up,
    and checked against the value at 2400 bits."""
    with mpmath.workprec(1200):
        v = fn()
        d = abs(v) * mpmath.ldexp(1, -1150)
    with mpmath.workprec(600):
        lo = mpmath.fsub(v, d, rounding='f')
        hi = mpmath.fadd(v, d, rounding='c')
        flo, fhi = to_fraction(lo), to_fraction(hi)
    with mpmath.workprec(2400):
        assert lo < fn() < hi
    return hexf(flo), hexf(fhi)


print("# generated by gen_expr.py: EXPR TARGET VALUE (tab-separated)")
print("# or EXPR bounds LO HI: LO < EXPR < HI, for Expr.Enclose")
for text, fn in EXPRS:
    for target in ["2", "11", "24", "53", "113", "300"] + list(FORMATS):
        with mpmath.workprec(600):
            a = target_round(to_fraction(fn()), target)
        with mpmath.workprec(1200):
            b = target_round(to_fraction(fn()), target)
        assert a == b, (text, target)
        print("%s\t%s\t%s" % (text, target, a))
    print("%s\tbounds\t%s\t%s" % ((text,) + bounds(fn)))
