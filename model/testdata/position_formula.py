#!/usr/bin/env python3
"""Reference values of a position formula (docs/model-format.md, Positions).

Run from model/testdata:  python3 position_formula.py formula.json > formula_golden.txt

Reads the "positions.formula" of a JSON model file with the standard
library's json, and prints pe_n(i) at the lengths and positions below, one
component a line:

  n I i J c K VALUE

VALUE is the exact fraction p/q when every term on the component is
rational, and otherwise "~" and the real value to 60 significant digits
(mpmath at 400 bits). The definitions are the documentation's, written
out here independently of the engine: i/n is Fraction(i, n), (-1)^i is -1
at odd i, one-hot of size K puts 1 at component c0 + i - 1 when i <= K,
and sinusoidal of size D and base M puts cos(i * M^(-2c/D)) at c0 + 2c and
sin(i * M^(-2c/D)) at c0 + 2c + 1. Terms on one component add; a scale
multiplies its term.
"""
import json
import sys
from fractions import Fraction

import mpmath

mpmath.mp.prec = 400


def mp(x):
    """x as an mpf (a Fraction exactly, to 400 bits)."""
    if isinstance(x, Fraction):
        return mpmath.mpf(x.numerator) / x.denominator
    return x


def add(a, b):
    """a + b, exact while both are Fractions."""
    if isinstance(a, Fraction) and isinstance(b, Fraction):
        return a + b
    return mp(a) + mp(b)


def mul(a, b):
    if isinstance(a, Fraction) and isinstance(b, Fraction):
        return a * b
    return mp(a) * mp(b)


def weight(text):
    """A scale or base: a rational (Fraction), or an irrational (mpf).

    The weights of formula.json are integers, fractions, decimals and
    sqrt(k) for an integer k.
    """
    if text.startswith("sqrt(") and text.endswith(")"):
        return mpmath.sqrt(int(text[5:-1]))
    return Fraction(text)


def values(terms, d, i, n):
    out = [Fraction(0)] * d
    for t in terms:
        f, c0 = t["function"], t["component"]
        scale = weight(t.get("scale", "1"))
        if f == "sinusoidal":
            size, base = t["size"], mp(weight(t["base"]))
            for c in range(size // 2):
                arg = i * mpmath.power(base, mpmath.mpf(-2 * c) / size)
                out[c0 + 2 * c] = add(out[c0 + 2 * c], mul(scale, mpmath.cos(arg)))
                out[c0 + 2 * c + 1] = add(out[c0 + 2 * c + 1], mul(scale, mpmath.sin(arg)))
            continue
        if f == "one-hot":
            if i <= t["size"]:
                out[c0 + i - 1] = add(out[c0 + i - 1], scale)
            continue
        v = {
            "1": Fraction(1),
            "i": Fraction(i),
            "n": Fraction(n),
            "i/n": Fraction(i, n),
            "1/i": Fraction(1, i),
            "i^2": Fraction(i * i),
            "(-1)^i": Fraction(-1 if i % 2 else 1),
        }[f]
        out[c0] = add(out[c0], mul(scale, v))
    return out


def main():
    with open(sys.argv[1]) as f:
        # Numbers keep their text, which is their exact value.
        model = json.load(f, parse_float=str, parse_int=str)
    terms, d = model["positions"]["formula"], int(model["d"])
    for t in terms:
        t["component"] = int(t["component"])
        if "size" in t:
            t["size"] = int(t["size"])
    points = [(n, i) for n in range(1, 8) for i in range(1, n + 1)]
    points += [(100, i) for i in (1, 2, 3, 50, 99, 100)]
    for n, i in points:
        for c, v in enumerate(values(terms, d, i, n)):
            if isinstance(v, Fraction):
                text = str(v.numerator) if v.denominator == 1 else f"{v.numerator}/{v.denominator}"
            else:
                text = "~" + mpmath.nstr(v, 60, min_fixed=-5, max_fixed=5)
            print(f"n {n} i {i} c {c} {text}")


if __name__ == "__main__":
    main()
