"""Exact numbers for cookbook_torch: binary formats and rounding to them,
the weight grammar of the model files, and correctly rounded exp, erf and
tanh.

The engine rounds every weight once, from its exact value, to the format a
model runs in, and its elementary functions are correctly rounded. Neither
Python's float parsing (which rounds to float64 first) nor torch's exp
(within an ulp or so) does that, so this module computes both from exact
values: rationals with fractions.Fraction, irrationals as enclosures in
decimal arithmetic that are narrowed until both ends round to the same
float (Ziv's strategy).
"""

import decimal
import math
import re
from fractions import Fraction

__all__ = ["Format", "BINARY64", "BINARY32", "BINARY16", "BFLOAT16", "FP8_E4M3", "FP8_E5M2", "round_fraction", "Weight", "parse_weight",
           "exp", "erf", "tanh"]


class Format:
    """A binary floating-point format: p significand bits (the leading one
    included), normal exponents emin … emax, subnormals below 2^emin, and
    the largest finite value max_finite (by default (2 − 2^(1−p))·2^emax).
    A result whose rounding exceeds max_finite overflows: to ±inf when the
    format has infinities, else to NaN (fp8-e4m3, as the engine's
    numeric/format.go does: torch.float8_e4m3fn has no infinities)."""

    def __init__(self, name, p, emin, emax, has_inf=True, max_finite=None):
        self.name, self.p, self.emin, self.emax, self.has_inf = name, p, emin, emax, has_inf
        self.max_finite = math.ldexp(2 ** p - 1, emax - p + 1) if max_finite is None else max_finite

    def overflow(self, negative):
        """The value of a result beyond max_finite."""
        if not self.has_inf:
            return math.nan
        return -math.inf if negative else math.inf

    def __repr__(self):
        return "Format(%s)" % self.name


BINARY64 = Format("fp64", 53, -1022, 1023)
BINARY32 = Format("fp32", 24, -126, 127)
BINARY16 = Format("fp16", 11, -14, 15)
BFLOAT16 = Format("bf16", 8, -126, 127)
# OCP FP8 E4M3 as torch.float8_e4m3fn: the exponent field 1111 holds
# normal numbers up to 1.75·2^8 = 448 (S.1111.111 is NaN), no infinities.
FP8_E4M3 = Format("fp8-e4m3", 4, -6, 8, has_inf=False, max_finite=448.0)
FP8_E5M2 = Format("fp8-e5m2", 3, -14, 15)


def round_fraction(x, fmt):
    """The value of fmt nearest the rational x (ties to even), as a Python
    float (which holds every value of a format of at most 53 bits exactly);
    past the largest finite value ±inf (NaN in a format without
    infinities), −0.0 for a negative x that rounds
    to zero."""
    x = Fraction(x)
    if x == 0:
        return 0.0
    neg = x < 0
    n, d = abs(x.numerator), x.denominator
    e = n.bit_length() - d.bit_length()  # 2^e ≤ |x| < 2^(e+2)
    if (n << max(0, -e)) < (d << max(0, e)):
        e -= 1
    q = max(e, fmt.emin) - (fmt.p - 1)  # the format's spacing at x is 2^q
    if q <= 0:
        num, den = n << -q, d
    else:
        num, den = n, d << q
    m, r = divmod(num, den)
    if 2 * r > den or (2 * r == den and m & 1):
        m += 1
    if m.bit_length() + q > fmt.emax + 1:
        return fmt.overflow(neg)
    v = math.ldexp(m, q)
    if v > fmt.max_finite:
        return fmt.overflow(neg)
    return -v if neg else v


# --- Decimal enclosures -----------------------------------------------------

_EMAX = 10 ** 6


def _ctx(prec, rounding=decimal.ROUND_HALF_EVEN):
    return decimal.Context(prec=prec, rounding=rounding, Emax=_EMAX, Emin=-_EMAX, traps=[decimal.InvalidOperation, decimal.DivisionByZero])


# Operations written without a context (x + y, -x, abs) run in this one,
# where they are exact; every rounding step names its context.
_EXACT = decimal.Context(prec=decimal.MAX_PREC, Emax=decimal.MAX_EMAX, Emin=decimal.MIN_EMIN,
                         traps=[decimal.InvalidOperation, decimal.DivisionByZero])


def _exactly(f):
    def g(*args):
        with decimal.localcontext(_EXACT):
            return f(*args)
    g.__name__, g.__doc__ = f.__name__, f.__doc__
    return g


def _ulp(x, prec):
    """An upper bound of one unit in the last place of x at prec digits."""
    if x == 0:
        return decimal.Decimal(1).scaleb(-_EMAX)
    return decimal.Decimal(1).scaleb(x.adjusted() - prec + 1)


_pi_cache = [0, None]


def _pi(prec):
    """An enclosure (lo, hi) of π at prec digits (Machin's formula in
    integers with guard digits: each of the few hundred truncations errs by
    less than one unit of 10^-(prec+20))."""
    if _pi_cache[0] < prec:
        g = prec + 20
        unit = 10 ** g

        def atan_inv(k):  # arctan(1/k)·10^g, each term truncated
            total, term, n, sign = 0, unit // k, 1, 1
            while term:
                total += sign * (term // n)
                term //= k * k
                n += 2
                sign = -sign
            return total

        p = 4 * (4 * atan_inv(5) - atan_inv(239))
        err = 10 ** 4  # 20 · (terms) units, generously
        lo = decimal.Decimal(p - err).scaleb(-g)
        hi = decimal.Decimal(p + err).scaleb(-g)
        _pi_cache[0], _pi_cache[1] = prec, (lo, hi)
    return _pi_cache[1]


@_exactly
def _ziv(enclose, fmt, what):
    """Round the real number that enclose(prec) brackets, as (lo, hi)
    Decimals, to fmt: the precision grows until both ends round alike."""
    prec = 40
    while prec <= 8000:
        lo, hi = enclose(prec)
        a, b = round_fraction(Fraction(lo), fmt), round_fraction(Fraction(hi), fmt)
        if a == b and math.copysign(1, a) == math.copysign(1, b) or math.isnan(a) and math.isnan(b):
            return a
        prec *= 2
    raise ValueError("%s: cannot be rounded to %s (is it exactly halfway between two of its values?)" % (what, fmt.name))


# --- Correctly rounded elementary functions of a float --------------------

_cache = {}


def _cached(op, fmt, x, f):
    key = (op, fmt.name, x, math.copysign(1, x))
    r = _cache.get(key)
    if r is None:
        if len(_cache) > 1 << 18:
            _cache.clear()
        r = _cache[key] = f(x, fmt)
    return r


def exp(x, fmt):
    """exp(x) correctly rounded to fmt, for x a value of fmt."""
    return _cached("exp", fmt, x, _exp)


@_exactly
def _exp(x, fmt):
    if math.isnan(x):
        return x
    if math.isinf(x):
        return 0.0 if x < 0 else fmt.overflow(False)
    if abs(x) < 2.0 ** -55:
        return 1.0  # |exp(x) − 1| < 2^-54: below half an ulp of 1 at any p ≤ 53
    if x < (fmt.emin - fmt.p) * math.log(2) - 1:
        return 0.0
    if x > (fmt.emax + 1) * math.log(2) + 1:
        return fmt.overflow(False)
    d = decimal.Decimal(x)  # exact

    def enclose(prec):
        r = _ctx(prec).exp(d)  # correctly rounded: within half an ulp
        u = _ulp(r, prec)
        return r - u, r + u
    return _ziv(enclose, fmt, "exp(%r)" % x)


def tanh(x, fmt):
    """tanh(x) correctly rounded to fmt, for x a value of fmt."""
    return _cached("tanh", fmt, x, _tanh)


@_exactly
def _tanh(x, fmt):
    if math.isnan(x) or x == 0:
        return x  # keeps the sign of zero
    if abs(x) >= 20:
        # 1 − tanh(20) < 2e^-40, far below half an ulp of 1 (2^-54).
        return math.copysign(1.0, x)
    if abs(x) < 2.0 ** -30:
        # tanh(x) = x − x³/3 + …: off x by less than a quarter ulp.
        return x
    d = abs(decimal.Decimal(x))

    def enclose(prec):
        c = _ctx(prec + 10)
        e = c.exp(2 * d)
        t = c.divide(e - 1, e + 1)
        # exp errs by half an ulp, a relative ε; E ↦ (E−1)/(E+1) has
        # derivative 2/(E+1)², and 2E/(E+1)² ≤ 1/2, so that moves t by
        # less than ε; the subtraction and the division add 2ε relative.
        eps = decimal.Decimal(1).scaleb(-(prec + 10) + 1)
        err = eps * (2 + 4 * t)
        if x < 0:
            return -(t + err), -(t - err)
        return t - err, t + err
    return _ziv(enclose, fmt, "tanh(%r)" % x)


def erf(x, fmt):
    """erf(x) correctly rounded to fmt, for x a value of fmt."""
    return _cached("erf", fmt, x, _erf)


@_exactly
def _erf(x, fmt):
    if math.isnan(x) or x == 0:
        return x
    if abs(x) >= 6:
        # 1 − erf(6) ≈ 2.2·10^-17, below half an ulp under 1 (2^-54).
        return math.copysign(1.0, x)
    d = abs(decimal.Decimal(x))

    def enclose(prec):
        # erf(x) = 2/√π · e^{−x²} · Σ 2^n x^{2n+1} / (1·3·…·(2n+1)): all
        # terms positive, so the sum has no cancellation. Each of the N
        # roundings errs by a relative ε; the tail after the last term is
        # below twice it once the ratio 2x²/(2n+3) is below 1/2.
        g = prec + 15
        c = _ctx(g)
        x2 = c.multiply(d, d)
        term = d
        total = d
        n = 0
        tiny = decimal.Decimal(1).scaleb(-g)
        while True:
            n += 1
            term = c.divide(c.multiply(term, 2 * x2), 2 * n + 1)
            total = c.add(total, term)
            if 2 * x2 < (2 * n + 3) / 2 and term < tiny * total:
                break
        pl, ph = _pi(g)
        lo_sqrt_pi, hi_sqrt_pi = pl.sqrt(_ctx(g, decimal.ROUND_FLOOR)), ph.sqrt(_ctx(g, decimal.ROUND_CEILING))
        r = c.multiply(c.multiply(2, c.exp(-x2)), c.divide(total, lo_sqrt_pi))
        rel = decimal.Decimal(n + 20).scaleb(-g + 1) + _ctx(g, decimal.ROUND_CEILING).divide(hi_sqrt_pi - lo_sqrt_pi, lo_sqrt_pi)
        err = r * rel
        if x < 0:
            return -(r + err), -(r - err)
        return r - err, r + err
    return _ziv(enclose, fmt, "erf(%r)" % x)


# --- The weight grammar ----------------------------------------------------

_TOKEN = re.compile(r"\s*(?:(\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)|(sqrt|log|exp|sin|cos|pi)|([-+*/()]))")
_MAX_TEXT = 65536
_MAX_DEPTH = 64
_MAX_EXP = 400


class Weight:
    """A weight of a model file: its exact text, and its value, a Fraction
    when rational, else the expression tree (op, args…) to be enclosed."""

    __slots__ = ("text", "value", "_rounded")

    def __init__(self, text, value):
        self.text, self.value, self._rounded = text, value, {}

    @property
    def rational(self):
        return isinstance(self.value, Fraction)

    def round(self, fmt):
        """The weight rounded once, to nearest, to fmt."""
        r = self._rounded.get(fmt.name)
        if r is None:
            if self.rational:
                r = round_fraction(self.value, fmt)
            else:
                r = _ziv(lambda prec: _enclose(self.value, prec), fmt, repr(self.text))
            self._rounded[fmt.name] = r
        return r

    def __repr__(self):
        return "Weight(%r)" % self.text


_SIMPLE = re.compile(r"-?\d{1,300}(/\d{1,300})?")
_parsed = {}


def parse_weight(text, where="weight"):
    """Parse a weight of the model files' grammar (docs/model-format.md):
    exact decimals and fractions, + − * /, unary minus, parentheses, pi,
    sqrt, log, exp, sin, cos. Errors name where. A Weight is immutable, so
    one is shared by every occurrence of its text (a model's many zeros)."""
    if isinstance(text, str):
        w = _parsed.get(text)
        if w is None:
            w = _parse_weight(text, where)
            if len(_parsed) > 1 << 16:
                _parsed.clear()
            _parsed[text] = w
        return w
    return _parse_weight(text, where)


def _parse_weight(text, where):
    if isinstance(text, bool) or not isinstance(text, (str, int, Fraction)):
        raise ValueError("%s: %r is not a weight (a string or a number)" % (where, text))
    if isinstance(text, (int, Fraction)):
        return Weight(str(text), Fraction(text))
    if _SIMPLE.fullmatch(text):
        if "/" in text and int(text.split("/")[1]) == 0:
            raise ValueError("%s: %r has no real value (division by zero)" % (where, text))
        return Weight(text, Fraction(text))
    if len(text) > _MAX_TEXT:
        raise ValueError("%s: weight text of %d characters, more than %d" % (where, len(text), _MAX_TEXT))
    toks, pos = [], 0
    while pos < len(text):
        if text[pos:].strip() == "":
            break
        m = _TOKEN.match(text, pos)
        if not m:
            raise ValueError("%s: %r is not a weight: unexpected %r at offset %d" % (where, text, text[pos:pos + 8], pos))
        toks.append(m.group(1) or m.group(2) or m.group(3))
        pos = m.end()
    if not toks:
        raise ValueError("%s: empty weight" % where)
    p = _Parser(toks, text, where)
    tree = p.sum(0)
    if p.i != len(toks):
        raise ValueError("%s: %r is not a weight: unexpected %r" % (where, text, toks[p.i]))
    try:
        return Weight(text, _fold(tree))
    except (ZeroDivisionError, ValueError, decimal.InvalidOperation, decimal.DivisionByZero) as e:
        raise ValueError("%s: %r has no real value (%s)" % (where, text, e)) from None


class _Parser:
    def __init__(self, toks, text, where):
        self.toks, self.i, self.text, self.where = toks, 0, text, where

    def err(self, msg):
        raise ValueError("%s: %r is not a weight: %s" % (self.where, self.text, msg))

    def peek(self):
        return self.toks[self.i] if self.i < len(self.toks) else None

    def take(self):
        t = self.peek()
        if t is None:
            self.err("it ends too early")
        self.i += 1
        return t

    def sum(self, depth):
        if depth > _MAX_DEPTH:
            self.err("nested deeper than %d" % _MAX_DEPTH)
        left = self.product(depth + 1)
        while self.peek() in ("+", "-"):
            op = self.take()
            left = (op, left, self.product(depth + 1))
            depth += 1
            if depth > _MAX_DEPTH:
                self.err("nested deeper than %d" % _MAX_DEPTH)
        return left

    def product(self, depth):
        left = self.unary(depth + 1)
        while self.peek() in ("*", "/"):
            op = self.take()
            left = (op, left, self.unary(depth + 1))
            depth += 1
            if depth > _MAX_DEPTH:
                self.err("nested deeper than %d" % _MAX_DEPTH)
        return left

    def unary(self, depth):
        if depth > _MAX_DEPTH:
            self.err("nested deeper than %d" % _MAX_DEPTH)
        if self.peek() == "-":
            self.take()
            return ("neg", self.unary(depth + 1))
        return self.atom(depth + 1)

    def atom(self, depth):
        t = self.take()
        if t == "(":
            e = self.sum(depth + 1)
            if self.take() != ")":
                self.err("unbalanced parentheses")
            return e
        if t == "pi":
            return ("pi",)
        if t in ("sqrt", "log", "exp", "sin", "cos"):
            if self.take() != "(":
                self.err("%s needs parentheses" % t)
            e = self.sum(depth + 1)
            if self.take() != ")":
                self.err("unbalanced parentheses")
            return (t, e)
        if t[0].isdigit():
            m = re.search(r"[eE]([+-]?\d+)$", t)
            if m and abs(int(m.group(1))) > _MAX_EXP:
                self.err("decimal exponent beyond ±%d" % _MAX_EXP)
            return Fraction(t)
        self.err("unexpected %r" % t)


def _isqrt_fraction(x):
    """√x when it is rational, else None."""
    if x < 0:
        raise ValueError("square root of a negative number")
    n, d = x.numerator, x.denominator
    rn, rd = math.isqrt(n), math.isqrt(d)
    if rn * rn == n and rd * rd == d:
        return Fraction(rn, rd)
    return None


def _fold(e):
    """e with its rational parts computed exactly: a Fraction when the
    whole value is rational."""
    if isinstance(e, Fraction):
        return e
    op = e[0]
    args = [_fold(a) for a in e[1:]]
    if all(isinstance(a, Fraction) for a in args):
        if op == "+":
            return args[0] + args[1]
        if op == "-":
            return args[0] - args[1]
        if op == "*":
            return args[0] * args[1]
        if op == "/":
            if args[1] == 0:
                raise ZeroDivisionError("division by zero")
            return args[0] / args[1]
        if op == "neg":
            return -args[0]
        if op == "sqrt":
            r = _isqrt_fraction(args[0])
            if r is not None:
                return r
        if op == "log":
            if args[0] <= 0:
                raise ValueError("log of a number that is not positive")
            if args[0] == 1:
                return Fraction(0)
        if op in ("exp", "sin") and args[0] == 0:
            return Fraction(int(op == "exp"))
        if op == "cos" and args[0] == 0:
            return Fraction(1)
    tree = (op,) + tuple(args)
    with decimal.localcontext(_EXACT):
        _enclose(tree, 30)  # raises when the value is not a real number
    return tree


def _dec(x, prec, rounding):
    """x (a Fraction) as a Decimal rounded in the given direction."""
    c = _ctx(prec, rounding)
    return c.divide(decimal.Decimal(x.numerator), decimal.Decimal(x.denominator))


def _enclose(e, prec):
    """An enclosure (lo, hi) of the value of the tree e, in Decimals of prec
    digits, rounded outward at every step."""
    if isinstance(e, Fraction):
        return _dec(e, prec, decimal.ROUND_FLOOR), _dec(e, prec, decimal.ROUND_CEILING)
    op = e[0]
    down, up = _ctx(prec, decimal.ROUND_FLOOR), _ctx(prec, decimal.ROUND_CEILING)
    if op == "pi":
        lo, hi = _pi(prec)
        return down.plus(lo), up.plus(hi)
    if op == "neg":
        lo, hi = _enclose(e[1], prec)
        return -hi, -lo
    if op in ("+", "-", "*", "/"):
        a, b = _enclose(e[1], prec), _enclose(e[2], prec)
        if op == "+":
            return down.add(a[0], b[0]), up.add(a[1], b[1])
        if op == "-":
            return down.subtract(a[0], b[1]), up.subtract(a[1], b[0])
        if op == "/":
            if b[0] <= 0 <= b[1]:
                if b[0] == 0 == b[1]:
                    raise ZeroDivisionError("division by zero")
                return _enclose(e, prec * 2) if prec < 4000 else _fail("a divisor cannot be told apart from 0")
            lows = [down.divide(x, y) for x in a for y in b]
            highs = [up.divide(x, y) for x in a for y in b]
            return min(lows), max(highs)
        lows = [down.multiply(x, y) for x in a for y in b]
        highs = [up.multiply(x, y) for x in a for y in b]
        return min(lows), max(highs)
    lo, hi = _enclose(e[1], prec)
    near = _ctx(prec)
    if op == "sqrt":
        if hi < 0:
            raise ValueError("square root of a negative number")
        if lo < 0:
            return _enclose(e, prec * 2) if prec < 4000 else _fail("the square root's argument cannot be told apart from 0")
        return down.next_minus(near.sqrt(lo)), up.next_plus(near.sqrt(hi))
    if op == "log":
        if hi <= 0:
            raise ValueError("log of a number that is not positive")
        if lo <= 0:
            return _enclose(e, prec * 2) if prec < 4000 else _fail("the log's argument cannot be told apart from 0")
        return down.next_minus(near.ln(lo)), up.next_plus(near.ln(hi))
    if op == "exp":
        if hi > 10 ** 7:
            raise ValueError("exp overflows")
        return down.next_minus(near.exp(lo)), up.next_plus(near.exp(hi))
    if op in ("sin", "cos"):
        # Lipschitz 1: f(mid) ± (half the width + the series' error).
        mid = near.divide(lo + hi, 2)
        rad = up.add(up.subtract(hi, lo), _ulp(mid, prec))
        v, err = _sincos(op, mid, prec)
        return down.subtract(v, rad + err), up.add(v, rad + err)
    raise ValueError("unknown function %s" % op)


def _fail(msg):
    raise ValueError(msg)


def _sincos(op, x, prec):
    """sin or cos of the Decimal x with an absolute error bound: x reduced
    by a multiple of 2π (π carried with enough digits for |x|), then the
    Taylor series."""
    mag = max(0, x.adjusted()) + 1
    g = prec + mag + 20
    c = _ctx(g)
    plo, phi = _pi(g)
    two_pi = c.multiply(2, plo)
    k = c.to_integral_value(c.divide(x, two_pi))
    y = c.subtract(x, c.multiply(k, two_pi))
    # y errs from the exact reduction by |k|·2·(phi − plo) plus roundings.
    err = abs(k) * 2 * (phi - plo) + decimal.Decimal(10).scaleb(-g + mag)
    y2 = c.multiply(y, y)
    if op == "sin":
        term, total, n = y, y, 1
    else:
        term, total, n = decimal.Decimal(1), decimal.Decimal(1), 0
    tiny = decimal.Decimal(1).scaleb(-g)
    while True:
        term = c.divide(c.multiply(-term, y2), (n + 1) * (n + 2))
        n += 2
        total = c.add(total, term)
        if abs(term) < tiny and n > 2 * abs(y) + 2:
            break
    err += decimal.Decimal(n + 10).scaleb(-g + 1) * (1 + abs(y)) + tiny
    return total, err
