#!/usr/bin/env python3
"""Golden values of Edelman's lemma on score vectors, from mpmath.

Usage: python3 gen_edelman.py > edelman.txt

Each line is "scores | gamma | gap S norm bound": the scores (exact
rationals, comma-separated), the gamma given to 'verify edelman' (empty: the
gap), then the gap (exact), S = sum_{j != j*} e^{s_j - s*}, the norm
||hardmax(s) - softmax(s)||_1 computed from the softmax weights, and the
bound 2n e^{-gamma}, at 50 significant digits (mpmath at 80 digits,
independently of the engine).
"""
from fractions import Fraction as F
from mpmath import mp, mpf, exp

mp.dps = 80

cases = [
    ("1, 3, 2, -1/2", ""),
    ("1, 3, 2, -1/2", "1/2"),
    ("0, 1", ""),
    ("0, 0.001", ""),
    ("-5, 7/3, 2, 2, 1.5, -100", ""),
    ("0, 40, -17", ""),
    ("10, 0, 0, 0, 0, 0, 0, 0, 0, 0", "3"),
    ("1e-3, -1e-3, 2e-3", ""),
    ("-1000, -1001, -999.5", "1/4"),
]


def m(x):
    return mpf(x.numerator) / x.denominator


for scores, gamma in cases:
    s = [F(t.strip()) for t in scores.split(",")]
    n = len(s)
    top = max(s)
    j = s.index(top)
    second = max(v for k, v in enumerate(s) if k != j)
    gap = top - second
    g = F(gamma) if gamma else gap
    z = sum(exp(m(v - top)) for v in s)
    w = [exp(m(v - top)) / z for v in s]
    norm = sum(abs((1 if k == j else 0) - w[k]) for k in range(n))
    S = sum(exp(m(v - top)) for k, v in enumerate(s) if k != j)
    bound = 2 * n * exp(-m(g))
    print(" | ".join([scores, gamma, " ".join([str(gap), mp.nstr(S, 50), mp.nstr(norm, 50), mp.nstr(bound, 50)])]))
