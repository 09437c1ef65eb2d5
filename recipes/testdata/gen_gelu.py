#!/usr/bin/env python3
"""Golden values of the GELU product of §Multiplication, from mpmath.

Usage: python3 gen_gelu.py > gelu.txt

Each line is "act x y value ratio": value = sqrt(pi/2)*(GELU(x+y) - GELU(x)
- GELU(y)) at 50 significant digits, for act = erf (GELU(z) = z*Phi(z)) and
act = tanh (z/2*(1 + tanh(sqrt(2/pi)*(z + 0.044715 z^3)))), and ratio =
|value - x*y| / (|x| + |y|)^3, the quantity the paper bounds by 1/4. The
grid covers [-2, 2]^2 in steps of 1/4, plus tiny and large arguments.
"""
from fractions import Fraction
from mpmath import mp, mpf, erf, sqrt, pi, tanh

mp.dps = 60


def gelu(z):
    return z / 2 * (1 + erf(z / sqrt(2)))


def gelu_tanh(z):
    return z / 2 * (1 + tanh(sqrt(2 / pi) * (z + mpf("0.044715") * z**3)))


points = [Fraction(a, 4) for a in range(-8, 9)]
extra = [Fraction(1, 1024), Fraction(-3, 512), Fraction(5, 1), Fraction(-7, 1)]
pairs = [(x, y) for x in points for y in points] + [(x, y) for x in extra for y in extra]
for name, g in (("erf", gelu), ("tanh", gelu_tanh)):
    for x, y in pairs:
        X, Y = mpf(x.numerator) / x.denominator, mpf(y.numerator) / y.denominator
        v = sqrt(pi / 2) * (g(X + Y) - g(X) - g(Y))
        s = abs(X) + abs(Y)
        ratio = abs(v - X * Y) / s**3 if s else mpf(0)
        print(name, x, y, mp.nstr(v, 50), mp.nstr(ratio, 20))
