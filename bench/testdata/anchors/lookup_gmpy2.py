#!/usr/bin/env python3
"""One exact forward pass of the quadratic-maximization lookup, in Python
rationals: an anchor for the engine's exact arithmetic.

The model is the one of the cookbook's section Quadratic Maximization
(verify's recipe "lookup", average-hard attention): the residual stream at
position j = 1..n is (q, 1, j, j^2, v, c, y); one head with
W^Q = [q; 1], W^K = [2j; -j^2], W^V = [v] gives the scores
s_ij = 2 q_i j - j^2, uniquely maximal at j = q_i, and c_i the mean of the
values at the maximal positions; a feed-forward layer writes
y = 2 ReLU(c - 1/4) - 2 ReLU(c - 3/4), which rounds c to a bit. Every
number is an exact rational: gmpy2.mpq (GMP) by default, or Python's
fractions.Fraction with --arith fraction; or, for the rounding anchors,
a float64 numpy pass (--arith numpy: the n x n scores as one array,
the row maxima, ties and means vectorised, as numpy users write it) or
mpmath binary floats of --bits bits (--arith mpmath, default 24). The matrices are applied as
matrices (every product of a row and the stream), the scores as dot
products q_i . k_j, the maximum and its ties found in one sweep per
query, as a plain implementation of the pass would.

The input is drawn as verify draws the lookup's (the query uniform in
[1, n], or half the time within 8 of n; the value a random bit), from
Python's own generator seeded with --seed: the cost of the pass does not
depend on which input it is. The outputs are checked against the
definition (c_i = y_i = v_{q_i}); a wrong one exits with status 1.

Usage: lookup_gmpy2.py N [--arith gmpy2|fraction|numpy|mpmath] [--bits P] [--seed S]
Compare the whole process's CPU time, e.g.
  /usr/bin/time -f "%U %S" python3 lookup_gmpy2.py 2048
  /usr/bin/time -f "%U %S" verify --recipe lookup --precision exact \\
      --lengths 2048 --max-n 2048 --cases 1
It prints n, the arithmetic, and the CPU seconds of the pass alone.
"""

import argparse
import random
import sys
import time


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("n", type=int)
    ap.add_argument("--arith", choices=["gmpy2", "fraction", "numpy", "mpmath"], default="gmpy2")
    ap.add_argument("--bits", type=int, default=24, help="mpmath's precision")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    n = args.n
    if n < 1:
        sys.exit("n must be at least 1")
    rng = random.Random(args.seed)
    qs, vs = [], []
    for _ in range(n):
        q = 1 + rng.randrange(n)
        if rng.randrange(2) == 0:
            q = max(1, n - rng.randrange(8))
        qs.append(q)
        vs.append(rng.randrange(2))

    if args.arith == "numpy":
        return numpy_pass(n, qs, vs)
    if args.arith == "gmpy2":
        from gmpy2 import mpq as Q
    elif args.arith == "mpmath":
        import mpmath
        mpmath.mp.prec = args.bits

        def Q(a, b=1):
            return mpmath.mpf(a) / b
    else:
        from fractions import Fraction as Q

    start = time.process_time()
    zero, one = Q(0), Q(1)
    # Residual stream (q, 1, j, j^2, v, c, y) at positions j = 1..n.
    x = [[Q(qs[j - 1]), one, Q(j), Q(j * j), Q(vs[j - 1]), zero, zero] for j in range(1, n + 1)]
    WQ = [[Q(a) for a in r] for r in ([1, 0, 0, 0, 0], [0, 1, 0, 0, 0])]
    WK = [[Q(a) for a in r] for r in ([0, 0, 2, 0, 0], [0, 0, 0, -1, 0])]
    WV = [[Q(a) for a in r] for r in ([0, 0, 0, 0, 1],)]

    def matvec(w, v):
        out = []
        for row in w:
            s = row[0] * v[0]
            for a, b in zip(row[1:], v[1:]):
                s = s + a * b
            out.append(s)
        return out

    queries = [matvec(WQ, xi) for xi in x]
    keys = [matvec(WK, xi) for xi in x]
    vals = [matvec(WV, xi)[0] for xi in x]

    # Average-hard attention: the mean of the values at the maximal scores,
    # found in one sweep per query (a list of the scores and max() is no
    # faster: the rational operations dominate).
    for i in range(n):
        q0, q1 = queries[i]
        it = iter(keys)
        k0, k1 = next(it)
        best, ties, j = q0 * k0 + q1 * k1, [0], 0
        for k0, k1 in it:
            j += 1
            s = q0 * k0 + q1 * k1
            if s > best:
                best, ties = s, [j]
            elif s == best:
                ties.append(j)
        c = zero
        for j in ties:
            c = c + vals[j]
        x[i][5] = x[i][5] + c / Q(len(ties))

    # Feed-forward GTZero_{1/2}(c - 1/4): W1 = [1; 1], b1 = [-1/4; -3/4],
    # W2 = [2, -2].
    quarter, three_quarters, two = Q(1, 4), Q(3, 4), Q(2)
    for i in range(n):
        c = x[i][5]
        h1 = max(zero, c - quarter)
        h2 = max(zero, c - three_quarters)
        x[i][6] = x[i][6] + (two * h1 - two * h2)
    cpu = time.process_time() - start

    for i in range(n):
        want = vs[qs[i] - 1]
        if x[i][5] != want or x[i][6] != want:
            print(f"position {i + 1}: c = {x[i][5]}, y = {x[i][6]}, want v_{qs[i]} = {want}", file=sys.stderr)
            sys.exit(1)
    print(f"n = {n}, {args.arith}: one pass, {n * n} scores, {cpu:.3f} CPU-s; every c_i and y_i = v_q_i")


def numpy_pass(n, qs, vs):
    """The same pass in float64 numpy: scores 2 q_i j - j^2 as an n x n
    array, the ties of each row's maximum, their values' mean, then y."""
    import numpy as np

    start = time.process_time()
    q = np.array(qs, dtype=np.float64)
    v = np.array(vs, dtype=np.float64)
    j = np.arange(1, n + 1, dtype=np.float64)
    scores = 2 * q[:, None] * j[None, :] - (j * j)[None, :]
    ties = scores == scores.max(axis=1)[:, None]
    c = (ties * v[None, :]).sum(axis=1) / ties.sum(axis=1)
    y = 2 * np.maximum(0, c - 0.25) - 2 * np.maximum(0, c - 0.75)
    cpu = time.process_time() - start
    want = v[np.array(qs) - 1]
    if not (np.array_equal(c, want) and np.array_equal(y, want)):
        sys.exit("numpy: a wrong output")
    print(f"n = {n}, numpy float64: one pass, {n * n} scores, {cpu:.3f} CPU-s; every c_i and y_i = v_q_i")


if __name__ == "__main__":
    main()
