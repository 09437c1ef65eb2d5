#!/usr/bin/env python3
"""Independent computation, from the paper's formulas, of the softmax
simulation of sec:att_approx under Definition def:attn (scores q.k/sqrt(d_key)).

For a lookup built for N, W^Q is scaled by 1/tau = log(8N)/gamma with the
printed gap gamma of q.k; under def:attn every score is further divided by
sqrt(d_key). For each N and each length n <= N this prints the largest
|c - v| over every input (values v in {0, 1}): with S = sum over j != q of
exp(-(s_q - s_j)), the worst input puts the opposite value at every j != q,
so |c - v| = S/(1 + S). The claim needs it <= 1/4.

  one-hot: q.k = [j = q], gamma = 1, d_key = N
  qm:      q.k = 2qj - j^2, gamma = 1, d_key = 2
  lh:      q.k = 4(qj + 1)/sqrt((q^2 + 1)(j^2 + 1)), gamma = 4 - lh(N-1).lh(N), d_key = 4

Run:  python3 scaled_softmax.py > scaled_softmax.txt
"""
from mpmath import mp, mpf, log, exp, sqrt

mp.dps = 40


def worst(score, N, gamma, dkey):
    inv_tau = log(8 * N) / gamma
    w = mpf(0)
    for n in range(1, N + 1):
        for q in range(1, n + 1):
            S = sum(exp(-(score(q, q) - score(q, j)) * inv_tau / sqrt(dkey))
                    for j in range(1, n + 1) if j != q)
            w = max(w, S / (1 + S))
    return w


def onehot(q, j):
    return mpf(1) if q == j else mpf(0)


def qm(q, j):
    return mpf(2 * q * j - j * j)


def lh(q, j):
    return 4 * mpf(q * j + 1) / sqrt(mpf((q * q + 1) * (j * j + 1)))


def lh_gap(N):
    N = max(N, 2)
    return 4 - lh(N - 1, N)


print("lookup N d_key worst|c-v| ok(<=1/4)")
for N in range(1, 9):
    for name, f, g, d in [("onehot", onehot, mpf(1), N), ("qm", qm, mpf(1), 2), ("lh", lh, lh_gap(N), 4)]:
        for dk, tag in [(1, "q.k"), (d, "q.k/sqrt(d_key)")]:
            w = worst(f, N, g, dk)
            print(f"{name} {tag} N={N} d_key={d} worst={mp.nstr(w, 12)} {'ok' if w <= mpf(1)/4 else 'FAILS'}")
