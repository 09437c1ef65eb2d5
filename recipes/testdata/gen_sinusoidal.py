#!/usr/bin/env python3
"""Golden values of the sinusoidal position encoding of the cookbook, from mpmath.

Usage: python3 gen_sinusoidal.py > sinusoidal.txt

§Sinusoidal Positional Encoding: for 0 <= c <= d/2 - 1,
pe(i, 2c+1) = sin(i / M^(2c/d)) and pe(i, 2c) = cos(i / M^(2c/d)), with the
1-based position i. Each line is "d M i component value" (component 0-based,
value at 40 significant digits), computed here independently of the engine.
"""
from mpmath import mp, mpf, sin, cos

mp.dps = 50
for d, M in ((6, 10000), (4, 7)):
    for i in (1, 2, 7, 33, 100):
        for c in range(d // 2):
            arg = mpf(i) / mpf(M) ** (mpf(2 * c) / d)
            print(d, M, i, 2 * c, mp.nstr(cos(arg), 40))
            print(d, M, i, 2 * c + 1, mp.nstr(sin(arg), 40))
