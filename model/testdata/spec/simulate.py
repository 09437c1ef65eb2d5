#!/usr/bin/env python3
"""An independent simulator of docs/model-format.md.

Written from the documents alone (docs/model-format.md, docs/precisions.md),
without the engine's Go code or the repository's python/ package, so that
golden files made with it (gen.py) test the engine and the PyTorch module
against the specification, not against each other.

Every value is an exact rational (fractions.Fraction) or one of the IEEE
specials; every operation of a rounding format is computed exactly and
then rounded once, to nearest, ties to even, with the format's subnormals
and overflow (to +-inf, or to NaN in fp8-e4m3, which has no infinities).
Transcendental functions (exp, sqrt, log, sin, cos, erf, tanh, pi) are
evaluated with mpmath at PREC bits and then rounded once to the format.

Usage as a module:

    m = load("model.json")               # the JSON model file
    out = run(m, ["a", "b"], "fp16")      # list per position of (symbol, [values])

Values print with text(v): "p/q" (or an integer), "-0", "nan", "+inf",
"-inf". run raises SpecError for what the spec makes an error when the
model runs (an irrational weight or a softmax of unequal scores in exact
mode, a zero layer-norm denominator, an input longer than a table covers).

As a script: simulate.py MODEL.json FORMAT SYMBOL... prints each position.
"""

import json
import math
import sys
from fractions import Fraction

import mpmath

PREC = 320  # bits for transcendental evaluation before the one rounding
mpmath.mp.prec = PREC


class SpecError(Exception):
    """What the specification makes an error when the model runs."""


# --- Values -----------------------------------------------------------------

NAN, PINF, NINF = "nan", "+inf", "-inf"


class _NegZero:
    def __repr__(self):
        return "-0"


NEG0 = _NegZero()
ZERO = Fraction(0)
ONE = Fraction(1)


def is_nan(x):
    return x is NAN


def is_inf(x):
    return x is PINF or x is NINF


def is_zero(x):
    return x is NEG0 or (isinstance(x, Fraction) and x == 0)


def is_finite(x):
    return x is NEG0 or isinstance(x, Fraction)


def neg_sign(x):
    """The sign bit."""
    if x is NEG0 or x is NINF:
        return True
    if isinstance(x, Fraction):
        return x < 0
    return False


def val(x):
    """The real value of a finite value."""
    return ZERO if x is NEG0 else x


def text(x):
    if x is NEG0:
        return "-0"
    if isinstance(x, str):
        return x
    if x.denominator == 1:
        return str(x.numerator)
    return "%d/%d" % (x.numerator, x.denominator)


def parse_text(s):
    if s in (NAN, PINF, NINF):
        return {"nan": NAN, "+inf": PINF, "-inf": NINF}[s]
    if s == "-0":
        return NEG0
    return Fraction(s)


# --- Formats ----------------------------------------------------------------

class Format:
    """Binary floating point: p significand bits (the leading one
    included), normal exponents emin .. emax (value 1.f * 2^e), largest
    finite maxval, infinities or not (then overflow is NaN)."""

    def __init__(self, name, p, emin, emax, maxval, has_inf):
        self.name, self.p, self.emin, self.emax = name, p, emin, emax
        self.maxval, self.has_inf = Fraction(maxval), has_inf

    def __repr__(self):
        return self.name


def _ieee(name, p, ebits):
    emax = 2 ** (ebits - 1) - 1
    return Format(name, p, 1 - emax, emax, (2 - Fraction(1, 2 ** (p - 1))) * Fraction(2) ** emax, True)


FORMATS = {
    "exact": None,
    "fp64": _ieee("fp64", 53, 11),
    "fp32": _ieee("fp32", 24, 8),
    "fp16": _ieee("fp16", 11, 5),
    "bf16": _ieee("bf16", 8, 8),
    # OCP E4M3FN: bias 7, exponent field 15 is normal except that
    # S.1111.111 is NaN; largest finite 1.75 * 2^8 = 448; no infinities.
    "fp8-e4m3": Format("fp8-e4m3", 4, -6, 8, 448, False),
    # E5M2: IEEE-like, largest finite 1.75 * 2^15 = 57344.
    "fp8-e5m2": _ieee("fp8-e5m2", 3, 5),
}
FORMAT_NAMES = ["exact", "fp64", "fp32", "fp16", "bf16", "fp8-e4m3", "fp8-e5m2"]


def _floor_log2(n, d):
    """floor(log2(n/d)) for positive integers."""
    e = n.bit_length() - d.bit_length()
    if e >= 0:
        if n < (d << e):
            e -= 1
    else:
        if (n << -e) < d:
            e -= 1
    return e


def round_frac(x, F):
    """x (a Fraction) rounded once to F: to nearest, ties to even, with
    subnormals; overflow gives +-inf, or NaN without infinities; a nonzero
    x that rounds to zero keeps its sign (-0)."""
    if F is None:
        return x
    if x == 0:
        return ZERO
    neg = x < 0
    n, d = abs(x.numerator), x.denominator
    e = max(_floor_log2(n, d), F.emin)
    sh = e - F.p + 1  # the quantum is 2^sh
    if sh >= 0:
        num, den = n, d << sh
    else:
        num, den = n << -sh, d
    k, r = divmod(num, den)
    if 2 * r > den or (2 * r == den and k & 1):
        k += 1
    if k == 0:
        return NEG0 if neg else ZERO
    v = Fraction(k << sh) if sh >= 0 else Fraction(k, 1 << -sh)
    if v > F.maxval:
        if not F.has_inf:
            return NAN
        return NINF if neg else PINF
    return -v if neg else v


def _special(x, F):
    """An infinite result in F (NaN when F has no infinities)."""
    if x is NAN:
        return NAN
    if F is not None and not F.has_inf and is_inf(x):
        return NAN
    return x


def add(a, b, F):
    if F is None:
        return a + b
    if a is NAN or b is NAN:
        return NAN
    if is_inf(a) or is_inf(b):
        if is_inf(a) and is_inf(b) and a is not b:
            return NAN
        return _special(a if is_inf(a) else b, F)
    if is_zero(a) and is_zero(b):
        return NEG0 if (a is NEG0 and b is NEG0) else ZERO
    s = val(a) + val(b)
    if s == 0:
        return ZERO  # an exact zero sum of nonzeros is +0 (round to nearest)
    return round_frac(s, F)


def neg(a):
    if a is NAN:
        return NAN
    if a is PINF:
        return NINF
    if a is NINF:
        return PINF
    if a is NEG0:
        return ZERO
    if a == 0:
        return NEG0
    return -a


def sub(a, b, F):
    if F is None:
        return a - b
    return add(a, neg(b), F)


def mul(a, b, F):
    if F is None:
        return a * b
    if a is NAN or b is NAN:
        return NAN
    sgn = neg_sign(a) != neg_sign(b)
    if is_inf(a) or is_inf(b):
        if is_zero(a) or is_zero(b):
            return NAN
        return _special(NINF if sgn else PINF, F)
    if is_zero(a) or is_zero(b):
        return NEG0 if sgn else ZERO
    return round_frac(a * b, F)


def div(a, b, F):
    if F is None:
        if b == 0:
            raise SpecError("division by zero in exact arithmetic")
        return a / b
    if a is NAN or b is NAN:
        return NAN
    sgn = neg_sign(a) != neg_sign(b)
    if is_inf(a):
        if is_inf(b):
            return NAN
        return _special(NINF if sgn else PINF, F)
    if is_inf(b):
        return NEG0 if sgn else ZERO
    if is_zero(b):
        if is_zero(a):
            return NAN
        return _special(NINF if sgn else PINF, F)
    if is_zero(a):
        return NEG0 if sgn else ZERO
    return round_frac(a / b, F)


def less(a, b):
    """a < b (False when either is NaN); -0 == +0."""
    if a is NAN or b is NAN:
        return False
    if a is b and is_inf(a):
        return False
    if a is NINF or b is PINF:
        return True
    if a is PINF or b is NINF:
        return False
    return val(a) < val(b)


def equal(a, b):
    if a is NAN or b is NAN:
        return False
    if is_inf(a) or is_inf(b):
        return a is b
    return val(a) == val(b)


def mpf_to_frac(x):
    sign, man, e, _ = mpmath.mpf(x)._mpf_
    if not man:
        return ZERO
    v = Fraction(man) * Fraction(2) ** e
    return -v if sign else v


def round_mpf(x, F):
    """An irrational real (an mpf at PREC bits) rounded once to F."""
    return round_frac(mpf_to_frac(x), F)


def sqrt_round(a, F):
    if F is None:
        if a < 0:
            raise SpecError("sqrt of a negative number")
        r = _exact_sqrt(a)
        if r is None:
            raise SpecError("irrational square root in exact arithmetic")
        return r
    if a is NAN or a is NINF:
        return NAN
    if a is PINF:
        return _special(PINF, F)
    if a is NEG0:
        return NEG0
    if a < 0:
        return NAN
    if a == 0:
        return ZERO
    r = _exact_sqrt(a)
    if r is not None:
        return round_frac(r, F)
    return round_mpf(mpmath.sqrt(mpmath.mpf(a.numerator) / a.denominator), F)


def _exact_sqrt(a):
    if a < 0:
        return None
    n, d = a.numerator, a.denominator
    rn, rd = math.isqrt(n), math.isqrt(d)
    if rn * rn == n and rd * rd == d:
        return Fraction(rn, rd)
    return None


def _mp(a):
    return mpmath.mpf(a.numerator) / a.denominator


def exp_round(a, F):
    if F is None:
        if a != 0:
            raise SpecError("exp of a nonzero rational is irrational (exact mode)")
        return ONE
    if a is NAN:
        return NAN
    if a is NINF:
        return ZERO
    if a is PINF:
        return _special(PINF, F)
    if is_zero(a):
        return ONE
    if a > 100000:
        return _special(PINF, F)
    if a < -100000:
        return ZERO
    return round_mpf(mpmath.exp(_mp(a)), F)


def _func_round(fn, a, F, name):
    """erf or tanh, rounded once (both odd, |value| < 1)."""
    if F is None:
        if a != 0:
            raise SpecError("%s of a nonzero rational is irrational (exact mode)" % name)
        return ZERO
    if a is NAN:
        return NAN
    if a is PINF:
        return ONE
    if a is NINF:
        return -ONE
    if is_zero(a):
        return a
    return round_mpf(fn(_mp(a)), F)


# --- Weight texts -----------------------------------------------------------

class Irr:
    """An irrational real, held at PREC bits (and its text)."""

    def __init__(self, x):
        self.x = x


def _num(v):
    return _mp(v) if isinstance(v, Fraction) else v.x


def _tokens(s):
    out, i = [], 0
    while i < len(s):
        c = s[i]
        if c.isspace():
            i += 1
        elif c.isdigit():
            j = i
            while j < len(s) and s[j].isdigit():
                j += 1
            if j < len(s) and s[j] == "." and j + 1 < len(s) and s[j + 1].isdigit():
                j += 1
                while j < len(s) and s[j].isdigit():
                    j += 1
            if j < len(s) and s[j] in "eE":
                k = j + 1
                if k < len(s) and s[k] in "+-":
                    k += 1
                if k < len(s) and s[k].isdigit():
                    while k < len(s) and s[k].isdigit():
                        k += 1
                    j = k
            out.append(("num", s[i:j]))
            i = j
        elif c.isalpha():
            j = i
            while j < len(s) and s[j].isalpha():
                j += 1
            out.append(("id", s[i:j]))
            i = j
        elif c in "+-*/()":
            out.append((c, c))
            i += 1
        else:
            raise ValueError("bad weight %r" % s)
    return out


def _decimal(t):
    mant, _, ex = t.replace("E", "e").partition("e")
    v = Fraction(mant)  # Fraction reads "1.25" exactly
    if ex:
        v *= Fraction(10) ** int(ex)
    return v


class _Parser:
    def __init__(self, s):
        self.t, self.i = _tokens(s), 0

    def peek(self):
        return self.t[self.i][0] if self.i < len(self.t) else None

    def take(self):
        tok = self.t[self.i]
        self.i += 1
        return tok

    def sum(self):
        v = self.product()
        while self.peek() in ("+", "-"):
            op = self.take()[0]
            w = self.product()
            v = _op(op, v, w)
        return v

    def product(self):
        v = self.unary()
        while self.peek() in ("*", "/"):
            op = self.take()[0]
            w = self.unary()
            v = _op(op, v, w)
        return v

    def unary(self):
        if self.peek() == "-":
            self.take()
            v = self.unary()
            return -v if isinstance(v, Fraction) else Irr(-v.x)
        return self.atom()

    def atom(self):
        kind, t = self.take()
        if kind == "num":
            return _decimal(t)
        if kind == "(":
            v = self.sum()
            assert self.take()[0] == ")"
            return v
        if kind == "id":
            if t == "pi":
                return Irr(mpmath.pi)
            assert self.take()[0] == "("
            a = self.sum()
            assert self.take()[0] == ")"
            return _func(t, a)
        raise ValueError("bad token %r" % t)


def _op(op, a, b):
    if isinstance(a, Fraction) and isinstance(b, Fraction):
        return {"+": lambda: a + b, "-": lambda: a - b, "*": lambda: a * b, "/": lambda: a / b}[op]()
    # a rational zero times anything is the rational 0
    if op == "*" and ((isinstance(a, Fraction) and a == 0) or (isinstance(b, Fraction) and b == 0)):
        return ZERO
    if op == "/" and isinstance(a, Fraction) and a == 0:
        return ZERO
    x, y = _num(a), _num(b)
    return Irr({"+": x + y, "-": x - y, "*": x * y, "/": x / y}[op])


def _func(name, a):
    if isinstance(a, Fraction):
        if name == "sqrt":
            r = _exact_sqrt(a)
            if r is not None:
                return r
        elif name == "log" and a == 1:
            return ZERO
        elif name == "exp" and a == 0:
            return ONE
        elif name == "sin" and a == 0:
            return ZERO
        elif name == "cos" and a == 0:
            return ONE
    x = _num(a)
    return Irr({"sqrt": mpmath.sqrt, "log": mpmath.log, "exp": mpmath.exp,
                "sin": mpmath.sin, "cos": mpmath.cos}[name](x))


_weight_cache = {}


def weight_value(w):
    """The exact value of a weight (a JSON string or number's text): a
    Fraction, or an Irr."""
    s = w if isinstance(w, str) else json.dumps(w)
    v = _weight_cache.get(s)
    if v is None:
        p = _Parser(s)
        v = p.sum()
        assert p.i == len(p.t), s
        _weight_cache[s] = v
    return v


def round_value(v, F):
    """An exact parameter value (Fraction or Irr) rounded once to F."""
    if isinstance(v, Fraction):
        return round_frac(v, F)
    if F is None:
        raise SpecError("irrational weight in exact mode")
    return round_mpf(v.x, F)


# --- The model file ---------------------------------------------------------

def load(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


class Rounded:
    """The parameters of a model rounded to one format."""

    def __init__(self, m, fmt):
        self.m, self.F, self.fmt = m, FORMATS[fmt], fmt
        r = self.r
        d = m["d"]
        self.we = [[ZERO] * d if row is None else [r(x) for x in row] for row in m["word_embedding"]]
        self.layers = []
        for L in m["layers"]:
            RL = {"attention_residual": L["attention_residual"], "feed_forward_residual": L["feed_forward_residual"]}
            for k in ("attention_norm", "feed_forward_norm"):
                if k in L:
                    RL[k] = self.norm(L[k])
            if "attention" in L:
                a = L["attention"]
                heads = []
                for h in a["heads"]:
                    heads.append({"q": self.mat(h["query"]), "k": self.mat(h["key"]), "v": self.mat(h["value"]),
                                  "dkey": len(h["query"])})
                RL["attention"] = {"mask": a["mask"], "weighting": a["weighting"], "scale": a["scale"],
                                   "tau": r(a["temperature"]) if "temperature" in a else None,
                                   "tau_exact": weight_value(a["temperature"]) if "temperature" in a else None,
                                   "heads": heads}
            if "feed_forward" in L:
                f = L["feed_forward"]
                RL["feed_forward"] = {"act": f["activation"], "w1": self.mat(f["w1"]),
                                      "b1": [r(x) for x in f["b1"]] if "b1" in f else None,
                                      "w2": self.mat(f["w2"]),
                                      "b2": [r(x) for x in f["b2"]] if "b2" in f else None}
            self.layers.append(RL)
        self.final_norm = self.norm(m["final_norm"]) if "final_norm" in m else None
        self.out = self.mat(m["output"]["w"])

    def r(self, w):
        return round_value(weight_value(w), self.F)

    def mat(self, rows):
        return [[self.r(x) for x in row] for row in rows]

    def norm(self, nm):
        return {"eps": self.r(nm["eps"]),
                "gamma": [self.r(x) for x in nm["gamma"]] if "gamma" in nm else None,
                "beta": [self.r(x) for x in nm["beta"]] if "beta" in nm else None,
                "select": self.mat(nm["select"]) if "select" in nm else None}


def positions_exact(m, n):
    """pe_n(i) for i = 1..n, exact (Fraction or Irr per component), or None."""
    p = m.get("positions")
    if p is None:
        return None
    d = m["d"]
    if "table" in p:
        if n > m["max_n"]:
            raise SpecError("input of length %d beyond the table's max_n %d" % (n, m["max_n"]))
        rows = p["table"][n - 1] if p["depends_on_n"] else p["table"][:n]
        return [[weight_value(x) for x in row] for row in rows]
    pe = [[ZERO] * d for _ in range(n)]
    for t in p["formula"]:
        s = weight_value(t["scale"]) if "scale" in t else ONE
        c0, f = t["component"], t["function"]
        for i in range(1, n + 1):
            contrib = []  # (component, exact value)
            if f == "1":
                contrib = [(c0, ONE)]
            elif f == "i":
                contrib = [(c0, Fraction(i))]
            elif f == "n":
                contrib = [(c0, Fraction(n))]
            elif f == "i/n":
                contrib = [(c0, Fraction(i, n))]
            elif f == "1/i":
                contrib = [(c0, Fraction(1, i))]
            elif f == "i^2":
                contrib = [(c0, Fraction(i * i))]
            elif f == "(-1)^i":
                contrib = [(c0, Fraction(-1 if i % 2 else 1))]
            elif f == "one-hot":
                contrib = [(c0 + k, ONE if k == i - 1 else ZERO) for k in range(t["size"])]
            elif f == "sinusoidal":
                D, M = t["size"], weight_value(t["base"])
                for c in range(D // 2):
                    if c == 0:
                        arg = Fraction(i)
                    else:
                        arg = Irr(i * mpmath.exp(-(mpmath.mpf(2 * c) / D) * mpmath.log(_num(M))))
                    contrib.append((c0 + 2 * c, _func("cos", arg)))
                    contrib.append((c0 + 2 * c + 1, _func("sin", arg)))
            else:
                raise ValueError("unknown position function %r" % f)
            for comp, v in contrib:
                pe[i - 1][comp] = _op("+", pe[i - 1][comp], _op("*", s, v))
    return pe


# --- The forward pass -------------------------------------------------------

def matvec(W, x, b, F):
    """y_r = ((W[r][1] x_1 + W[r][2] x_2) + ...) + b[r], one rounding per
    product and per sum, left to right (b only when present). In exact
    arithmetic terms with a zero weight are skipped."""
    out = []
    for r, row in enumerate(W):
        acc = None
        for w, xv in zip(row, x):
            if F is None:
                if w == 0:
                    continue
                t = w * xv
                acc = t if acc is None else acc + t
                continue
            if is_zero(w) and is_finite(xv):
                # the product is a signed zero: it leaves a nonzero or
                # special acc as it is
                t = NEG0 if neg_sign(w) != neg_sign(xv) else ZERO
                if acc is None:
                    acc = t
                elif is_zero(acc):
                    acc = NEG0 if (acc is NEG0 and t is NEG0) else ZERO
                continue
            t = mul(w, xv, F)
            acc = t if acc is None else add(acc, t, F)
        if acc is None:
            acc = ZERO
        if b is not None:
            acc = b[r] + acc if F is None else add(acc, b[r], F)
        out.append(acc)
    return out


def dot(a, b, F):
    return matvec([a], b, None, F)[0]


def layer_norm(x, nm, F):
    if nm["select"] is not None:
        x = matvec(nm["select"], x, None, F)
    m = len(x)
    if F is None:
        S = sum(x[1:], x[0])
        mu = S / m
        c = [xk - mu for xk in x]
        Q = sum((ck * ck for ck in c[1:]), c[0] * c[0])
        var = Q / m
        r = sqrt_round(var + nm["eps"], None)
        if r == 0:
            raise SpecError("layer norm: sqrt(var + eps) = 0")
        y = [ck / r for ck in c]
    else:
        S = x[0]
        for xk in x[1:]:
            S = add(S, xk, F)
        # m is a constant rounded once to the format, like every other
        # (docs/model-format.md: exact for every width the format holds).
        fm = round_frac(Fraction(m), F)
        mu = div(S, fm, F)
        c = [sub(xk, mu, F) for xk in x]
        Q = mul(c[0], c[0], F)
        for ck in c[1:]:
            Q = add(Q, mul(ck, ck, F), F)
        var = div(Q, fm, F)
        r = sqrt_round(add(var, nm["eps"], F), F)
        if is_zero(r):
            raise SpecError("layer norm: sqrt(var + eps) = 0")
        y = [div(ck, r, F) for ck in c]
    if nm["gamma"] is not None:
        y = [mul(yk, g, F) if F is not None else yk * g for yk, g in zip(y, nm["gamma"])]
    if nm["beta"] is not None:
        y = [add(yk, b, F) if F is not None else yk + b for yk, b in zip(y, nm["beta"])]
    return y


def softmax(s, F):
    """The weights of the scores s (a list), as printed."""
    if F is None:
        if any(x != s[0] for x in s):
            raise SpecError("softmax of unequal scores in exact mode")
        return [Fraction(1, len(s))] * len(s)
    m = None
    for x in s:
        if x is NAN:
            continue
        if m is None or less(m, x):
            m = x
    if m is None:
        return [NAN] * len(s)
    e = [exp_round(sub(x, m, F), F) for x in s]
    S = e[0]
    for ej in e[1:]:
        S = add(S, ej, F)
    return [div(ej, S, F) for ej in e]


def visible(mask, i, n):
    if mask == "none":
        return list(range(1, n + 1))
    if mask == "future":
        return list(range(1, i + 1))
    if mask == "strict-future":
        return list(range(1, i))
    if mask == "past":
        return list(range(i, n + 1))
    if mask == "strict-past":
        return list(range(i + 1, n + 1))
    raise ValueError(mask)


def attention(a, xs, d, F, notes, only=None):
    n = len(xs)
    total = None
    for h in a["heads"]:
        q = [matvec(h["q"], x, None, F) for x in xs]
        k = [matvec(h["k"], x, None, F) for x in xs]
        v = [matvec(h["v"], x, None, F) for x in xs]
        dk = h["dkey"]
        c = None
        c_irr = False
        if a["scale"] == "sqrt-d-key" and dk > 1:
            r = _exact_sqrt(Fraction(dk))
            if F is None:
                if r is None:
                    c_irr = True  # exact mode compares the unscaled scores
                else:
                    c = r
            else:
                c = r if r is not None else round_mpf(mpmath.sqrt(dk), F)
                c = round_frac(c, F) if isinstance(c, Fraction) else c
        outs = []
        for i in range(1, n + 1):
            if only is not None and i not in only:
                outs.append([ZERO] * d)  # not computed (see run's query_positions)
                continue
            J = visible(a["mask"], i, n)
            if not J:
                outs.append([ZERO] * d)
                continue
            s = []
            for j in J:
                sc = dot(q[i - 1], k[j - 1], F)
                if c is not None:
                    sc = div(sc, c, F)
                if a["tau"] is not None:
                    if F is None and not isinstance(a["tau_exact"], Fraction):
                        raise SpecError("irrational temperature in exact mode")
                    if not less(ZERO, a["tau"]):
                        raise SpecError("temperature must be positive")
                    sc = div(sc, a["tau"], F)
                s.append(sc)
            wt = a["weighting"]
            if wt == "softmax":
                alpha = softmax(s, F)
            else:
                if any(x is NAN for x in s):
                    alpha = [NAN] * len(s)
                else:
                    mx = s[0]
                    for x in s[1:]:
                        if less(mx, x):
                            mx = x
                    M = [t for t, x in enumerate(s) if equal(x, mx)]
                    alpha = [ZERO] * len(s)
                    if wt == "lhardmax":
                        alpha[M[0]] = ONE
                    elif wt == "rhardmax":
                        alpha[M[-1]] = ONE
                    elif wt == "avghardmax":
                        w = round_frac(Fraction(1, len(M)), F)  # fl(1/|M|), one rounding
                        for t in M:
                            alpha[t] = w
                    else:
                        raise ValueError(wt)
            o = []
            # A zero weight skips a position whose value is finite in every
            # component (docs/model-format.md), and is kept in every one
            # where a component is not.
            vfinite = {j: all(is_finite(x) for x in v[j - 1]) for j in J}
            for comp in range(d):
                acc = None
                for t, j in enumerate(J):
                    vv = v[j - 1][comp]
                    al = alpha[t]
                    if F is None:
                        if al == 0:
                            continue
                        term = al * vv
                        acc = term if acc is None else acc + term
                        continue
                    if is_zero(al) and vfinite[j]:
                        continue
                    term = mul(al, vv, F)
                    acc = term if acc is None else add(acc, term, F)
                o.append(ZERO if acc is None else acc)
            outs.append(o)
        if total is None:
            total = outs
        else:
            total = [[(add(x, y, F) if F is not None else x + y) for x, y in zip(ro, rn)] for ro, rn in zip(total, outs)]
    return total


def feed_forward(f, xs, F):
    out = []
    for x in xs:
        z = matvec(f["w1"], x, f["b1"], F)
        a = [activation(f["act"], zk, F) for zk in z]
        out.append(matvec(f["w2"], a, f["b2"], F))
    return out


_CONST = {}


def const(name, F):
    key = (name, F.name if F else "exact")
    if key not in _CONST:
        v = {"1/sqrt2": Irr(1 / mpmath.sqrt(2)), "sqrt(2/pi)": Irr(mpmath.sqrt(2 / mpmath.pi)),
             "0.044715": Fraction("0.044715"), "1.702": Fraction("1.702")}[name]
        _CONST[key] = round_value(v, F)
    return _CONST[key]


def activation(act, z, F):
    if act == "linear":
        return z
    if act == "relu":
        if z is NAN:
            return NAN
        return z if less(ZERO, z) else ZERO
    half = Fraction(1, 2)
    if act == "gelu":
        t = mul(z, const("1/sqrt2", F), F)
        e = _func_round(mpmath.erf, t, F, "erf")
        u = add(e, ONE, F)
        return mul(mul(half, z, F), u, F)
    if act == "gelu-tanh":
        z3 = mul(mul(z, z, F), z, F)
        i = add(z, mul(const("0.044715", F), z3, F), F)
        t = mul(const("sqrt(2/pi)", F), i, F)
        u = add(_func_round(mpmath.tanh, t, F, "tanh"), ONE, F)
        return mul(mul(half, z, F), u, F)
    if act == "gelu-sigmoid":
        t = neg(mul(const("1.702", F), z, F))
        e = exp_round(t, F)
        return div(z, add(e, ONE, F), F)
    raise ValueError(act)


def sublayer(h, norm, residual, f, norm_mode, F):
    """One sublayer (f None when absent) under the norm placement."""
    A = (lambda x, y: add(x, y, F)) if F is not None else (lambda x, y: x + y)
    if f is None:
        if norm is None:
            return h
        if norm_mode == "post":
            if residual:
                return [layer_norm(x, norm, F) for x in h]
            return [layer_norm([ZERO] * len(x), norm, F) for x in h]
        # pre-norm: f = 0
        return h if residual else [[ZERO] * len(x) for x in h]
    if norm is None:
        y = f(h)
        return [[A(a, b) for a, b in zip(ya, ha)] for ya, ha in zip(y, h)] if residual else y
    if norm_mode == "post":
        y = f(h)
        if residual:
            y = [[A(a, b) for a, b in zip(ya, ha)] for ya, ha in zip(y, h)]
        return [layer_norm(x, norm, F) for x in y]
    if norm_mode == "pre":
        y = f([layer_norm(x, norm, F) for x in h])
        return [[A(a, b) for a, b in zip(ya, ha)] for ya, ha in zip(y, h)] if residual else y
    raise SpecError("a norm with norm placement %r" % norm_mode)


def run(m, symbols, fmt, R=None, query_positions=None):
    """The outputs at every position: a list of (symbol or "", [values]).
    With query_positions (1-based), attention computes only those query
    positions (the others are NaN placeholders): valid for models with
    one attention layer, whose outputs at those positions need no other."""
    F = FORMATS[fmt]
    if R is None:
        R = Rounded(m, fmt)
    n = len(symbols)
    d = m["d"]
    idx = {s: k for k, s in enumerate(m["alphabet"])}
    pe = positions_exact(m, n)
    h = []
    for i, s in enumerate(symbols):
        we = R.we[idx[s]]
        if pe is None:
            h.append(list(we))
        else:
            per = [round_value(v, F) for v in pe[i]]
            h.append([add(a, b, F) if F is not None else a + b for a, b in zip(we, per)])
    notes = []
    if query_positions is not None:
        assert sum(1 for RL in R.layers if "attention" in RL) <= 1
    for RL in R.layers:
        a = RL.get("attention")
        h = sublayer(h, RL.get("attention_norm"), RL["attention_residual"],
                     (lambda xs, a=a: attention(a, xs, d, F, notes, query_positions)) if a else None, m["norm"], F)
        f = RL.get("feed_forward")
        h = sublayer(h, RL.get("feed_forward_norm"), RL["feed_forward_residual"],
                     (lambda xs, f=f: feed_forward(f, xs, F)) if f else None, m["norm"], F)
    if R.final_norm is not None:
        h = [layer_norm(x, R.final_norm, F) for x in h]
    out = []
    kind = m["output"]["kind"]
    for x in h:
        y = matvec(R.out, x, None, F)
        sym = ""
        if kind == "sign":
            sym = "1" if less(ZERO, y[0]) else "0"
        elif kind == "argmax":
            best = 0
            for k in range(1, len(y)):
                if less(y[best], y[k]):
                    best = k
            sym = m["output"]["labels"][best]
        elif kind == "softmax":
            y = softmax(y, F)
        out.append((sym, y))
    return out


if __name__ == "__main__":
    mm = load(sys.argv[1])
    for pos, (sym, ys) in enumerate(run(mm, sys.argv[3:], sys.argv[2]), 1):
        print(pos, sym, " ".join(text(y) for y in ys))
