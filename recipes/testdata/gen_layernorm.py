#!/usr/bin/env python3
"""Golden values of layer normalization (§Layer Normalization), from mpmath.

Usage: python3 gen_layernorm.py > layernorm.txt

Each line is "gamma | beta | eps | x | LN(x)_1 ... LN(x)_d": the parameters
and the input as exact rationals (entries separated by spaces; an empty
gamma or beta means ones or zeros), and LN(x) = (x - mu)/sqrt(var + eps) *
gamma + beta at 50 significant digits, mu the mean and var the population
variance of x, computed in mpmath at 60 digits independently of the engine.
"""
from fractions import Fraction as F
from mpmath import mp, mpf, sqrt

mp.dps = 60

cases = [
    ("", "", "0", "1 2 4"),
    ("2 1 -1/2", "0 1 0", "1/10", "1 2 4"),
    ("", "", "1/100000", "-3 0.5 7 1/3"),
    ("1/2 1/2", "-1 1", "0", "5 -5"),
    ("3 -2 1 0", "1/7 0 0 -2", "2", "0 0 0 1"),
    ("", "", "0", "1e6 -1e-6 3"),
    ("-1", "1/2", "1/4", "42"),  # d = 1: x - mu = 0, LN = beta
    ("", "", "0", "1 3"),  # sigma = 1: rational
]


def rats(s, d, default):
    return [F(x) for x in s.split()] if s.strip() else [F(default)] * d


for g, b, e, xs in cases:
    x = [F(v) for v in xs.split()]
    d = len(x)
    gamma, beta, eps = rats(g, d, 1), rats(b, d, 0), F(e)
    X = [mpf(v.numerator) / v.denominator for v in x]
    mu = sum(X) / d
    var = sum((v - mu) ** 2 for v in X) / d
    s = sqrt(var + mpf(eps.numerator) / eps.denominator)
    out = [(X[k] - mu) / s * (mpf(gamma[k].numerator) / gamma[k].denominator)
           + mpf(beta[k].numerator) / beta[k].denominator for k in range(d)]
    print(" | ".join([g, b, e, xs, " ".join(mp.nstr(v, 50) for v in out)]))
