#!/usr/bin/env python3
"""Independent simulation of the printed constructions behind the literal
recipes, for the tests of their claims (proofs/all/literal_test.go).

Each construction is simulated from the paper's description, in exact
rationals, with its printed weights multiplied out by hand here, not read
from the engine: the attention scores q_i . k_j, the weighting (leftmost
or rightmost hardmax, or the average of the maximal positions), the
printed feed-forward formulas. Each is compared with the function the
paper says it computes, on every input of every length up to a bound,
enumerated in the engine's order (by length, then lexicographically in
the order of the alphabet). One line per construction and weighting:

    RECIPE WEIGHTING wrong/all for n = 1 ... N  smallest INPUT@POSITION

(smallest - when nothing is wrong). rule-literal is the printed rule of
Most-Frequent Induction alone, on the true bigram counts (weighting -);
amplify-literal counts sign patterns by dimension d = 2 ... 6 instead of
inputs by length, with delta in place of the weighting, and ends with
balanced-only when the right patterns are exactly those with as many + as
-. Run it (python3 with sympy) to regenerate literal_recipes.txt:
python3 literal_recipes.py > literal_recipes.txt
"""
from fractions import Fraction
import itertools

import sympy


def relu(x):
    return max(x, Fraction(0))


def attend(scores, values, weighting):
    """Hard attention over the visible positions (scores, values lists)."""
    best = max(scores)
    top = [j for j, s in enumerate(scores) if s == best]
    if weighting == "UHAT":  # leftmost
        return values[top[0]]
    if weighting == "UHAT-right":
        return values[top[-1]]
    if weighting == "AHAT":
        if isinstance(values[0], tuple):
            return tuple(sum(values[j][k] for j in top) / len(top) for k in range(len(values[0])))
        return sum(values[j] for j in top) / len(top)
    raise ValueError(weighting)


def gtzero(x, eps):
    """GTZero_eps of sec:comparison: W1 = [1; 1], b1 = [0; -eps], W2 = [1/eps, -1/eps]."""
    return relu(x) / eps - relu(x - eps) / eps


def if_(p, x, y):
    """if of sec:ffnn_conditional: ReLU(p + x - 1) + ReLU(-p + y)."""
    return relu(p + x - 1) + relu(-p + y)


# ---------------------------------------------------------------------
# sec:first: p_j = (-1)^j, future-masked head Q = K = 0, V = -I, then
# first = GTZero_{1/3}(c - 1/3). The paper: first = (1, 0, ..., 0), and
# c_i is the average of the values -(-1)^j over j <= i.

def first_literal(word, weighting):
    n = len(word)
    out = []
    for i in range(1, n + 1):
        scores = [Fraction(0)] * i  # q = W^Q p = 0
        values = [-Fraction((-1) ** j) for j in range(1, i + 1)]
        c = attend(scores, values, weighting)
        out.append((gtzero(c - Fraction(1, 3), Fraction(1, 3)), c))
    return out


def first_reference(word):
    out = []
    for i in range(1, len(word) + 1):
        avg = sum(-Fraction((-1) ** j) for j in range(1, i + 1)) / i
        out.append((Fraction(int(i == 1)), avg))
    return out


# ---------------------------------------------------------------------
# sec:predecessor: x_j = (1, (-1)^j, v_j); pred.odd scores
# [1 0 0]x_i . [0 1 0]x_j = (-1)^j, pred.even scores -(-1)^j, both future
# masked with value v_j; then pred = if(GTZero_1((-1)^i), pred.even,
# pred.odd). The paper: pred = (0, v_1, ..., v_{n-1}).

PRED_VALUES = {"0": Fraction(0), "h": Fraction(1, 2), "1": Fraction(1)}


def pred_literal(word, weighting):
    v = [PRED_VALUES[c] for c in word]
    out = []
    for i in range(1, len(word) + 1):
        sign = [Fraction((-1) ** j) for j in range(1, i + 1)]
        odd = attend([s for s in sign], v[:i], weighting)
        even = attend([-s for s in sign], v[:i], weighting)
        is_even = gtzero(Fraction((-1) ** i), Fraction(1))
        out.append((if_(is_even, even, odd),))
    return out


def pred_reference(word):
    v = [PRED_VALUES[c] for c in word]
    return [(Fraction(0),)] + [(x,) for x in v[:-1]]


# ---------------------------------------------------------------------
# Most-Recent Induction: WE(x_j) = e_{x_j}; Pred(x_j) = e_{x_{j-1}}, 0 at
# j = 1; as printed, k_i = WE(x_i), q_j = Pred(x_j), v_j = WE(x_j): the
# query of the attending position i is Pred(x_i) and the key of j is
# WE(x_j), so s_ij = [x_{i-1} = x_j] over j <= i; right-most unique hard
# attention (under AHAT by the tie-breaking term, which makes it so)
# retrieves the symbol x_j at the rightmost maximum. The paper: the symbol
# after the rightmost earlier occurrence of x_i, or x_i if there is none.

def recent_literal(word):
    out = []
    for i in range(len(word)):
        prev = word[i - 1] if i > 0 else None
        scores = [int(prev is not None and word[j] == prev) for j in range(i + 1)]
        best = max(scores)
        j = max(j for j in range(i + 1) if scores[j] == best)
        out.append(word[j])
    return out


def recent_reference(word):
    out = []
    for i, c in enumerate(word):
        earlier = [k for k in range(i) if word[k] == c]
        out.append(word[earlier[-1] + 1] if earlier else c)
    return out


# Most-Frequent Induction: as printed, BigramCount_{s1 s2} by the head
# Q = [e_s1; e_s2], K = Bigram(x_j) = [e_{x_j}; e_{x_{j-1}}], V = 1 under
# average-hard attention over j <= i: the average of the value 1 over the
# maximal positions. Then, for s = x_i, every s' passing
# AND_{s'' != s'} count_{s s'} >= count_{s s''}, and the alphabetically
# first of them. The paper's function (its example ACABDACDCA ->
# ACCBDBAAAC): the most frequent follower of x_i among the bigrams
# x_{j-1} x_j with j <= i, alphabetically first among ties, x_i itself
# when x_i has no follower yet.

def frequent_rule(word, alphabet, count):
    out = []
    for i, s in enumerate(word):
        passing = [t for t in alphabet if all(count(i, s, t) >= count(i, s, u) for u in alphabet if u != t)]
        out.append(passing[0])
    return out


def frequent_literal(word, alphabet):
    def count(i, s1, s2):
        scores, ones = [], []
        for j in range(i + 1):
            prev = word[j - 1] if j > 0 else None
            scores.append(int(word[j] == s1) + int(prev == s2))
            ones.append(Fraction(1))
        return attend(scores, ones, "AHAT")
    return frequent_rule(word, alphabet, count)


def bigram_count(word, i, s1, s2):
    return sum(1 for j in range(1, i + 1) if word[j - 1] == s1 and word[j] == s2)


def frequent_reference(word, alphabet):
    out = []
    for i, s in enumerate(word):
        counts = [bigram_count(word, i, s, t) for t in alphabet]
        if max(counts) == 0:
            out.append(s)
        else:
            out.append(alphabet[counts.index(max(counts))])
    return out


# The printed rule alone (no fallback) on the true bigram counts.
def frequent_rule_exact(word, alphabet):
    return frequent_rule(word, alphabet, lambda i, s, t: bigram_count(word, i, s, t))


# ---------------------------------------------------------------------
# sec:layernorm_amplify: clip_delta with W1 = [1; 1], b1 = [delta; -delta],
# W2 = [1, -1], b2 = -delta on every component, then LN with eps = 0,
# beta = 0, gamma = 1 (Definition of layer normalization, with sympy's
# exact square root). The paper: the result is sign(x) = +-1. One
# zero-mean x per sign pattern with both signs: x_c = m delta where
# positive, -p delta where negative.

def amplify_literal(x, delta):
    clip = [relu(v + delta) - relu(v - delta) - delta for v in x]
    d = len(clip)
    mu = sum(clip) / d
    var = sum((v - mu) ** 2 for v in clip) / d
    return [sympy.Rational(v - mu) / sympy.sqrt(sympy.Rational(var)) for v in clip]


def amplify_sweep(delta, max_d):
    per, smallest, balanced_only = [], "-", True
    for d in range(2, max_d + 1):
        wrong = total = 0
        for signs in itertools.product("+-", repeat=d):
            p, m = signs.count("+"), signs.count("-")
            if p == 0 or m == 0:
                continue
            x = [m * delta if c == "+" else -p * delta for c in signs]
            assert sum(x) == 0 and all(abs(v) >= delta for v in x)
            got = amplify_literal(x, delta)
            bad = [c for c in range(d) if sympy.simplify(got[c] - (1 if signs[c] == "+" else -1)) != 0]
            total += 1
            if bad:
                wrong += 1
                if smallest == "-":
                    smallest = ",".join(str(v) for v in x) + f"@{bad[0] + 1}"
            if bool(bad) == (p == m):
                balanced_only = False
        per.append(f"{wrong}/{total}")
    print("amplify-literal", f"delta={delta}", " ".join(per), "smallest", smallest,
          "balanced-only" if balanced_only else "not-balanced-only")


# ---------------------------------------------------------------------

def sweep(name, weighting, alphabet, max_n, run, reference):
    per, smallest = [], "-"
    for n in range(1, max_n + 1):
        wrong = total = 0
        for t in itertools.product(alphabet, repeat=n):
            word = "".join(t)
            got, want = run(word), reference(word)
            bad = [i for i in range(n) if got[i] != want[i]]
            total += 1
            if bad:
                wrong += 1
                if smallest == "-":
                    smallest = f"{word}@{bad[0] + 1}"
        per.append(f"{wrong}/{total}")
    print(name, weighting, " ".join(per), "smallest", smallest)


sweep("first-literal", "UHAT", "ab", 8, lambda w: first_literal(w, "UHAT"), first_reference)
for wt in ("UHAT-right", "AHAT"):
    sweep("pred-literal", wt, "0h1", 6, lambda w, wt=wt: pred_literal(w, wt), pred_reference)
for wt in ("UHAT-right", "AHAT"):
    sweep("induction-recent-literal", wt, "ABC", 6, recent_literal, recent_reference)
sweep("induction-frequent-literal", "AHAT", "ABC", 5,
      lambda w: frequent_literal(w, "ABC"), lambda w: frequent_reference(w, "ABC"))
sweep("rule-literal", "-", "ABC", 5,
      lambda w: frequent_rule_exact(w, "ABC"), lambda w: frequent_reference(w, "ABC"))
amplify_sweep(Fraction(1, 2), 6)
