#!/usr/bin/env python3
"""Golden correct roundings of the irrational references of the recipes
layernorm, lh, ln-circumvent, pe-ao and pe-sinusoidal (irrational_test.go).

Run from check/testdata:  python3 gen_irrational.py > irrational.txt

Each line: "EXPR<TAB>TARGET<TAB>VALUE", EXPR in numeric.ParseExpr's syntax
(the text the recipes' references print), TARGET a bit count P (round to
nearest, ties to even, at P significand bits, unbounded exponent) or an
IEEE-style format name, VALUE the correctly rounded value of EXPR as an
exact fraction. mpmath evaluates EXPR at 2000 bits; the rounding is done
here with exact integers (Fraction), independently of the Go code, and
checked to be the same at 4000 bits. Every value here is irrational, so no
tie arises; each is far inside its format's range (no overflow), and one is
an fp16 subnormal.
"""
import re
from fractions import Fraction

import mpmath

# The references, as the recipes print them (check/compare.go's text()).
EXPRS = [
    # layernorm, d = 3, input (-13/2, 27/4, 0) at fp8-e4m3's rounding.
    "((-20/3)*(1/sqrt(547/18)))+0",
    "((41/6)*(1/sqrt(547/18)))+0",
    "((-1/6)*(1/sqrt(547/18)))+0",
    # layernorm, input (-13/2, 27/4, 0) at the wider formats.
    "((-79/12)*(1/sqrt(2107/72)))+0",
    "((20/3)*(1/sqrt(2107/72)))+0",
    "((-1/12)*(1/sqrt(2107/72)))+0",
    # lh(a/b) = sqrt(2/(x^2+1))*[x, 1, -x, -1].
    "sqrt(2/4097)*64",
    "sqrt(2/4097)*1",
    "sqrt(2/65)*(-8)",
    "sqrt(2/677)*26",
    # ln-circumvent, c = 1/sqrt(|x|^2/d).
    "(1/sqrt(85/2))*(-6)",
    "(1/sqrt(845/16))*(-27/4)",
    "(1/sqrt(1193/32))*(-13/4)",
    # pe-ao's entries.
    "1*(1/sqrt(156))",
    "(-1)*(1/sqrt(156))",
    # pe-sinusoidal, M = 10000, d = 4.
    "cos(1)",
    "sin(1)",
    "cos(1*exp(-((1/2)*log(10000))))",
    "sin(1*exp(-((1/2)*log(10000))))",
    "sin(63*exp(-((1/2)*log(10000))))",
    "cos(63)",
    # an fp16 subnormal (fp16's least normal is 2^-14).
    "sqrt(2)/1048576",
]

# name: (significand bits P, least normal exponent, or None: unbounded)
TARGETS = [
    ("fp8-e4m3", 4, -6),
    ("fp8-e5m2", 3, -14),
    ("bf16", 8, -126),
    ("fp16", 11, -14),
    ("fp32", 24, -126),
    ("fp64", 53, -1022),
    ("24", 24, None),
    ("53", 53, None),
    ("113", 113, None),
]

FUNCS = {"sqrt": mpmath.sqrt, "exp": mpmath.exp, "log": mpmath.log,
         "sin": mpmath.sin, "cos": mpmath.cos}


def value(expr, bits):
    mpmath.mp.prec = bits
    # Integers become mpf, so that 20/3 is a quotient at `bits` bits, not a
    # Python float.
    py = re.sub(r"\b(\d+)\b", r"mpmath.mpf(\1)", expr)
    return eval(py, {"mpmath": mpmath, **FUNCS})


def round_to(x, p, emin):
    """x (an mpf) rounded to nearest, ties to even, at p bits."""
    if x == 0:
        return Fraction(0)
    _, k = mpmath.frexp(x)  # x = m 2^k, 1/2 <= |m| < 1
    e = int(k) - 1  # 2^e <= |x| < 2^(e+1)
    if emin is not None:
        e = max(e, emin)  # subnormal: the spacing stops shrinking
    q = e - p + 1  # the spacing 2^q
    scaled = x * mpmath.mpf(2) ** (-q)
    n = int(mpmath.floor(scaled))
    frac = scaled - n
    if frac > 0.5 or frac == 0.5 and n % 2 == 1:
        n += 1
    assert frac != 0.5, "a tie: not irrational?"
    return Fraction(n) * Fraction(2) ** q


def main():
    for expr in EXPRS:
        lo, hi = value(expr, 2000), value(expr, 4000)
        for name, p, emin in TARGETS:
            a, b = round_to(lo, p, emin), round_to(hi, p, emin)
            assert a == b, (expr, name)
            print(f"{expr}\t{name}\t{a.numerator}/{a.denominator}")


if __name__ == "__main__":
    main()
