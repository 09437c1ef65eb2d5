"""The exact-number layer of cookbook_torch against mpmath, an independent
implementation (Debian's python3-mpmath, which python3-torch brings).

exp, erf and tanh must be correctly rounded to float64 and float32 (the
engine's are), weights of the grammar rounded once from their exact
value, and rationals rounded to nearest, ties to even, with subnormals
and overflow. The reference is mpmath at 300 bits, rounded by exact
rational arithmetic: nothing here comes from the code under test. Seeded
(COOKBOOK_SEED, default 1).
"""

import math
import os
import random
import struct
import sys
import unittest
from fractions import Fraction

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

import mpmath  # noqa: E402

from cookbook_torch import _numbers as num  # noqa: E402

SEED = int(os.environ.get("COOKBOOK_SEED", "1"))
mpmath.mp.prec = 300


def exact(v):
    """The exact rational value of an mpmath number. Its mantissa is a
    gmpy2 mpz where gmpy2 is installed (mpmath's fast backend), which
    Fraction's arithmetic does not take: int() makes it a Python int."""
    man, e = abs(v).man_exp
    r = Fraction(int(man)) * Fraction(2) ** int(e)
    return -r if v < 0 else r


def nearest(r, p, emin, emax):
    """r rounded to nearest (ties to even) with p significand bits, by
    comparing with the two neighbours: a second, plainer rounding."""
    if r == 0:
        return Fraction(0)
    a = abs(r)
    e = a.numerator.bit_length() - a.denominator.bit_length()
    while Fraction(2) ** e > a:
        e -= 1
    while Fraction(2) ** (e + 1) <= a:
        e += 1
    q = Fraction(2) ** (max(e, emin) - p + 1)
    lo = (a // q) * q
    hi = lo + q
    if a - lo < hi - a or (a - lo == hi - a and (lo / q) % 2 == 0):
        v = lo
    else:
        v = hi
    if v >= Fraction(2) ** (emax + 1):
        return None  # overflow
    return -v if r < 0 else v


def as_float32(x):
    return struct.unpack("f", struct.pack("f", x))[0]


class TestNumbers(unittest.TestCase):
    def test_elementary_functions(self):
        rng = random.Random(SEED)
        funcs = {"exp": (num.exp, mpmath.exp), "erf": (num.erf, mpmath.erf), "tanh": (num.tanh, mpmath.tanh)}
        count = 0
        for _ in range(700):
            x = rng.choice([rng.uniform(-6, 6), rng.uniform(-800, 800), rng.uniform(-1e-6, 1e-6),
                            rng.uniform(-25, 25), rng.uniform(-110, 95), math.ldexp(rng.choice([1, -1]) * rng.random(), rng.randint(-1074, -1000))])
            for fmt, p, emin, emax in ((num.BINARY64, 53, -1022, 1023), (num.BINARY32, 24, -126, 127)):
                xf = x if fmt is num.BINARY64 else as_float32(x) if abs(x) < 3e38 else None
                if xf is None or xf == 0:
                    continue
                for name, (ours, theirs) in funcs.items():
                    want = nearest(exact(theirs(mpmath.mpf(xf))), p, emin, emax)
                    got = ours(xf, fmt)
                    if want is None:
                        self.assertEqual(got, math.inf, "%s(%r) in %s" % (name, xf, fmt.name))
                    else:
                        self.assertEqual(Fraction(got), want, "%s(%r) in %s: %r" % (name, xf, fmt.name, got))
                    count += 1
        self.assertGreater(count, 3000)
        # Signed zeros and non-finite arguments, as the engine treats them.
        for fmt in (num.BINARY64, num.BINARY32):
            self.assertEqual(math.copysign(1, num.tanh(-0.0, fmt)), -1)
            self.assertEqual(math.copysign(1, num.erf(-0.0, fmt)), -1)
            self.assertEqual(num.exp(-0.0, fmt), 1)
            self.assertEqual(num.exp(-math.inf, fmt), 0)
            self.assertEqual(num.exp(math.inf, fmt), math.inf)
            self.assertTrue(math.isnan(num.exp(math.nan, fmt)))
            self.assertEqual(num.tanh(-math.inf, fmt), -1)

    def test_weights(self):
        cases = {"sqrt(2)*(-1/3)": -mpmath.sqrt(2) / 3, "log(512)/(1/4)": mpmath.log(512) * 4,
                 "sin(4*exp(-((1/2)*log(10000))))": mpmath.sin(4 * mpmath.exp(-mpmath.log(10000) / 2)),
                 "-sqrt(pi/2)": -mpmath.sqrt(mpmath.pi / 2), "cos(1e30)": mpmath.cos(mpmath.mpf(10) ** 30),
                 "(-1)*(1/sqrt(200))": -1 / mpmath.sqrt(200), "1/sqrt(2)": 1 / mpmath.sqrt(2),
                 "sqrt(2/pi)": mpmath.sqrt(2 / mpmath.pi), "exp(-1/2) - 0.6": mpmath.exp(-0.5) - mpmath.mpf("0.6")}
        for text, value in cases.items():
            w = num.parse_weight(text)
            self.assertFalse(w.rational, text)
            for fmt, p, emin, emax in ((num.BINARY64, 53, -1022, 1023), (num.BINARY32, 24, -126, 127)):
                self.assertEqual(Fraction(w.round(fmt)), nearest(exact(value), p, emin, emax), "%s in %s" % (text, fmt.name))
        for text, value in {"0.25": Fraction(1, 4), "-1.5e-3": Fraction(-3, 2000), "1e2": Fraction(100), "0.5/3": Fraction(1, 6),
                            "sqrt(9/4)": Fraction(3, 2), "exp(0)*7": Fraction(7), "-3/7": Fraction(-3, 7)}.items():
            w = num.parse_weight(text)
            self.assertTrue(w.rational, text)
            self.assertEqual(w.value, value, text)

    def test_round_fraction(self):
        rng = random.Random(SEED + 1)
        for _ in range(3000):
            r = Fraction(rng.randint(-10 ** 20, 10 ** 20), rng.randint(1, 10 ** 20)) * Fraction(2) ** rng.randint(-1100, 1030)
            for fmt, p, emin, emax in ((num.BINARY64, 53, -1022, 1023), (num.BINARY32, 24, -126, 127)):
                want = nearest(r, p, emin, emax)
                got = num.round_fraction(r, fmt)
                if want is None:
                    self.assertEqual(got, math.inf if r > 0 else -math.inf, "%s in %s" % (r, fmt.name))
                else:
                    self.assertEqual(Fraction(got), want, "%s in %s" % (r, fmt.name))
        # Ties to even, at 1 + 2^-53 and at the smallest subnormals.
        self.assertEqual(num.round_fraction(1 + Fraction(1, 2 ** 53), num.BINARY64), 1.0)
        self.assertEqual(num.round_fraction(1 + Fraction(3, 2 ** 53), num.BINARY64), 1 + 2 ** -51)
        self.assertEqual(num.round_fraction(Fraction(1, 2 ** 1075), num.BINARY64), 0.0)
        self.assertEqual(num.round_fraction(Fraction(3, 2 ** 1076), num.BINARY64), 2 ** -1074)
        self.assertEqual(math.copysign(1, num.round_fraction(Fraction(-1, 2 ** 1076), num.BINARY64)), -1)


if __name__ == "__main__":
    unittest.main()
