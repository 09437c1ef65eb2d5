"""The transformer of the model files as torch.nn.Modules, computed in the
engine's order of operations (docs/model-format.md, "Evaluation order").

Every sum runs left to right with one rounding per product and per sum:
matrix products are written as a loop over the input's columns, each step
one elementwise multiply and one elementwise add over all rows and
positions at once, so torch never reorders or fuses them (a matmul would
sum in blocks, and in float32 may accumulate in a wider type). exp, erf and
tanh are correctly rounded, as the engine's are (see _numbers).
"""

import copy
import math
from fractions import Fraction

import torch
from torch import nn

from . import _numbers as num
from ._numbers import parse_weight

__all__ = ["Transformer", "Layer", "Attention", "Head", "FeedForward", "LayerNorm", "Linear",
           "Embedding", "Positions", "MASKS", "WEIGHTINGS", "SCALES", "ACTIVATIONS", "NORMS", "OUTPUTS"]

MASKS = ("none", "future", "strict-future", "past", "strict-past")
WEIGHTINGS = ("softmax", "lhardmax", "rhardmax", "avghardmax")
SCALES = ("sqrt-d-key", "none")
ACTIVATIONS = ("relu", "gelu", "gelu-tanh", "gelu-sigmoid", "linear")
NORMS = ("none", "post", "pre")
OUTPUTS = ("readout", "sign", "argmax", "softmax")


def _choice(value, known, what):
    if value not in known:
        raise ValueError("unknown %s %r (known: %s)" % (what, value, ", ".join(known)))
    return value


# --- Arithmetic ------------------------------------------------------------

class _Arith:
    """The operations of one precision on torch tensors, each rounded once.

    The native IEEE formats (torch.float64, torch.float32): torch's
    elementwise +, −, ×, ÷ and √ on CPU are correctly rounded in the
    tensor's own dtype. The emulated formats ("fp16", "bf16", "fp8-e4m3",
    "fp8-e5m2", as the engine's numeric/emulated.go): the values are
    float64 tensors holding numbers of the format, and each operation is
    computed in float64 and rounded once to the format (round_to_format).
    That is the correctly rounded result: float64's 53 bits are at least
    2p + 2 for every p ≤ 11 (+, −, ×, ÷, √ of two p-bit values, rounded to
    53 bits then to p, round as once to p: Figueroa 1995), and it is
    exactly what the engine computes. exp, erf and tanh are correctly
    rounded to the format directly (_numbers)."""

    def __init__(self, dtype):
        dtype = _PRECISION_NAMES.get(dtype, dtype)
        if dtype not in _FORMATS:
            raise ValueError("cookbook_torch runs in torch.float64 (the engine's fp64), torch.float32 (fp32) or one of "
                             "the emulated precisions %s; %s is not supported" % (", ".join(_EMULATED), dtype))
        self.precision, self.fmt = dtype, _FORMATS[dtype]
        self.emulated = isinstance(dtype, str)
        # The dtype of the tensors: float64 for an emulated format.
        self.dtype = torch.float64 if self.emulated else dtype

    def round(self, t):
        """t rounded to the format (nothing to do in a native one)."""
        return round_to_format(t, self.fmt) if self.emulated else t

    def tensor(self, values):
        return self.round(torch.tensor(values, dtype=self.dtype))

    def const(self, w):
        """A weight (text, Fraction or int) rounded once to the format."""
        if not isinstance(w, num.Weight):
            w = parse_weight(w if isinstance(w, str) else Fraction(w))
        return torch.tensor(w.round(self.fmt), dtype=self.dtype)

    def add(self, a, b):
        return self.round(a + b)

    def sub(self, a, b):
        return self.round(a - b)

    def mul(self, a, b):
        return self.round(a * b)

    def div(self, a, b):
        # A divisor broadcast from one value could be turned into a product
        # by its reciprocal; a divisor of the full shape cannot.
        a, b = torch.broadcast_tensors(a, b)
        return self.round(a / b.contiguous())

    def sqrt(self, a):
        return self.round(torch.sqrt(a))

    def _map(self, f, a):
        out = [f(x, self.fmt) for x in a.reshape(-1).tolist()]
        return torch.tensor(out, dtype=self.dtype).reshape(a.shape)

    def exp(self, a):
        return self._map(num.exp, a)

    def erf(self, a):
        return self._map(num.erf, a)

    def tanh(self, a):
        return self._map(num.tanh, a)


_FORMATS = {torch.float64: num.BINARY64, torch.float32: num.BINARY32, "fp16": num.BINARY16, "bf16": num.BFLOAT16,
            "fp8-e4m3": num.FP8_E4M3, "fp8-e5m2": num.FP8_E5M2}
_EMULATED = ("fp16", "bf16", "fp8-e4m3", "fp8-e5m2")
# The engine's names of the two native precisions.
_PRECISION_NAMES = {"fp64": torch.float64, "fp32": torch.float32}


def precision_of(dtype):
    """The canonical precision of a dtype argument: torch.float64,
    torch.float32, or the name of an emulated format; ValueError else."""
    return _Arith(dtype).precision


def _pow2(k):
    """2^k, exactly, for integer tensors k within float64's normal range."""
    return ((k + 1023) << 52).view(torch.float64)


def round_to_format(t, fmt):
    """The float64 tensor t rounded elementwise to the format, to nearest
    with ties to even, with its subnormals; a result beyond fmt.max_finite
    (and ±inf) overflows to ±inf, or to NaN in a format without
    infinities; NaN stays NaN, and a zero or a result rounded to zero keeps
    its sign. Exact: every step is a float64 operation without rounding (a
    scaling by a power of two, and torch.round, which rounds half to
    even)."""
    x = t.to(torch.float64)
    finite = torch.isfinite(x)
    nz = finite & (x != 0)
    xs = torch.where(nz, x, torch.ones_like(x))
    _, e2 = torch.frexp(xs)                       # |xs| = f·2^e2 with ½ ≤ f < 1
    e = e2.to(torch.int64) - 1                    # 2^e ≤ |xs| < 2^(e+1)
    q = torch.clamp(e, min=fmt.emin) - (fmt.p - 1)  # the spacing of the format at xs is 2^q
    # xs·2^−q < 2^p: scaling up a float64 (subnormal or not) or down to
    # at least 2^(p−1) is exact; so is m·2^q for the integer m ≤ 2^p
    # (or it is +inf, past every max_finite).
    m = torch.round(xs * _pow2(-q))
    r = m * _pow2(q)
    over = torch.abs(r) > fmt.max_finite
    if fmt.has_inf:
        big = torch.copysign(torch.full_like(x, math.inf), x)
    else:
        big = torch.full_like(x, math.nan)
    r = torch.where(over, big, r)
    r = torch.where(nz, r, x)                     # ±0 and NaN as they are
    inf = torch.isinf(x)
    return torch.where(inf, big, r)


def _emulated(dtype):
    """The name of the emulated format a dtype argument names, or None for
    a native dtype (a module's attribute precision)."""
    a = _Arith(dtype)
    return a.precision if a.emulated else None


def _arith(module, dtype):
    """The arithmetic of a module: its emulated format, else the tensors'
    dtype."""
    return _Arith(getattr(module, "precision", None) or dtype)


def _matvec(A, w, x, bias=None):
    """W x (+ b) for every vector of x ([..., c] → [..., r]): per row,
    W[r][1]·x₁ + W[r][2]·x₂ + … left to right, then the bias."""
    acc = A.mul(w[:, 0], x[..., 0:1])
    for k in range(1, w.shape[1]):
        acc = A.add(acc, A.mul(w[:, k], x[..., k:k + 1]))
    if bias is not None:
        acc = A.add(acc, bias)
    return acc


def _ordered_sum(A, terms):
    total = terms[0]
    for t in terms[1:]:
        total = A.add(total, t)
    return total


def _softmax(A, s):
    """exp(s − max) / Σ exp(s − max), the sum left to right (a NaN score
    makes every weight NaN)."""
    if torch.isnan(s).any():
        m = torch.tensor(math.nan, dtype=s.dtype)
    else:
        m = s.max()
    e = A.exp(A.sub(s, m))
    total = _ordered_sum(A, [e[k] for k in range(e.shape[0])])
    return A.div(e, total)


def _mask_range(mask, i, n):
    """The 0-based positions [lo, hi) query i (0-based) sees."""
    return {"none": (0, n), "future": (0, i + 1), "strict-future": (0, i),
            "past": (i, n), "strict-past": (i + 1, n)}[mask]


def _as_parameter(values, dtype, name, shape=None):
    """A parameter of the given dtype from a tensor, or from nested lists of
    weights: numbers, Fractions or texts of the weight grammar ("1/3",
    "sqrt(2)/2"), each rounded once to dtype. The texts stay with the
    parameter (its attribute exact), so that save writes 1/3, not the
    float nearest to it."""
    texts = None
    A = _Arith(dtype)
    if isinstance(values, torch.Tensor):
        t = A.round(values.detach().to(A.dtype))
    else:
        fmt = A.fmt

        def walk(v, where):
            if isinstance(v, (list, tuple)):
                pairs = [walk(e, "%s[%d]" % (where, i)) for i, e in enumerate(v)]
                return [p[0] for p in pairs], [p[1] for p in pairs]
            w = parse_weight(_weight_text(v, where), where)
            return w.round(fmt), w.text
        rounded, texts = walk(values, name)
        t = torch.tensor(rounded, dtype=A.dtype)
    if shape is not None and tuple(t.shape) != tuple(shape):
        raise ValueError("%s has shape %s, want %s" % (name, list(t.shape), list(shape)))
    p = nn.Parameter(t, requires_grad=False)
    p.exact = texts
    return p


# --- Modules ---------------------------------------------------------------

class Linear(nn.Module):
    """A weight matrix [out, in] (nn.Linear's layout) and an optional bias,
    applied in the engine's order."""

    def __init__(self, weight, bias=None, dtype=torch.float64):
        super().__init__()
        self.precision = _emulated(dtype)
        self.weight = _as_parameter(weight, dtype, "weight")
        if self.weight.dim() != 2 or 0 in self.weight.shape:
            raise ValueError("a weight matrix must be 2-dimensional and non-empty, got shape %s" % list(self.weight.shape))
        self.bias = None if bias is None else _as_parameter(bias, dtype, "bias", (self.weight.shape[0],))

    def forward(self, x):
        return _matvec(_arith(self, self.weight.dtype), self.weight, x, self.bias)


class Embedding(nn.Module):
    """The word embedding: one row of d per symbol."""

    def __init__(self, weight, dtype=torch.float64):
        super().__init__()
        self.precision = _emulated(dtype)
        self.weight = _as_parameter(weight, dtype, "embed.weight")


class Positions(nn.Module):
    """Position encodings as a table: weight [N, d] with peₙ(i) = weight[i−1]
    when depends_on_n is false, or [N, N, d] with peₙ(i) = weight[n−1][i−1]
    (entries with i > n unused)."""

    def __init__(self, weight, depends_on_n=False, name="", dtype=torch.float64, formula=None):
        super().__init__()
        self.precision = _emulated(dtype)
        self.weight = _as_parameter(weight, dtype, "pos_embed.weight")
        self.depends_on_n, self.name = bool(depends_on_n), name
        # formula, when the file gave one, is its list of terms
        # (docs/model-format.md): save writes it back instead of the table.
        self.formula = formula
        want = 3 if self.depends_on_n else 2
        if self.weight.dim() != want or (self.depends_on_n and self.weight.shape[0] != self.weight.shape[1]):
            raise ValueError("pos_embed.weight has shape %s, want %s" % (
                list(self.weight.shape), "[N, N, d]" if self.depends_on_n else "[N, d]"))

    @property
    def max_n(self):
        return self.weight.shape[0]

    def table(self, n):
        """pe_n(1) … pe_n(n) as [n, d]."""
        if n > self.max_n:
            raise ValueError("the input has %d positions, but the position encodings stop at N = %d" % (n, self.max_n))
        return self.weight[n - 1, :n] if self.depends_on_n else self.weight[:n]


class LayerNorm(nn.Module):
    """(x − μ)/√(σ² + ε) ⊙ γ + β over the m entries of x, after the selection
    W^N (select, [m, d]) when given. eps is a weight of the file's grammar
    (text, Fraction or number), rounded when the model runs."""

    def __init__(self, eps="0", weight=None, bias=None, select=None, dtype=torch.float64):
        super().__init__()
        self.precision = _emulated(dtype)
        self.eps = _weight_text(eps, "eps")
        self.select = None if select is None else Linear(select, dtype=dtype)
        self.weight = None if weight is None else _as_parameter(weight, dtype, "weight")
        self.bias = None if bias is None else _as_parameter(bias, dtype, "bias")

    def forward(self, x):
        A = _arith(self, x.dtype)
        if self.select is not None:
            x = _matvec(A, self.select.weight, x)
        m = x.shape[-1]
        count = A.tensor(float(m))
        mu = A.div(_ordered_sum(A, [x[..., k] for k in range(m)]), count)
        centred = A.sub(x, mu[..., None])
        sq = _ordered_sum(A, [A.mul(centred[..., k], centred[..., k]) for k in range(m)])
        var = A.div(sq, count)
        den = A.sqrt(A.add(var, A.const(self.eps)))
        y = A.div(centred, den[..., None])
        if self.weight is not None:
            y = A.mul(y, self.weight)
        if self.bias is not None:
            y = A.add(y, self.bias)
        return y


class Head(nn.Module):
    """One attention head: q_proj, k_proj ([d_key, d_in]) and v_proj ([d, d_in])."""

    def __init__(self, query, key, value, dtype=torch.float64):
        super().__init__()
        self.precision = _emulated(dtype)
        self.q_proj = Linear(query, dtype=dtype)
        self.k_proj = Linear(key, dtype=dtype)
        self.v_proj = Linear(value, dtype=dtype)
        if self.q_proj.weight.shape != self.k_proj.weight.shape:
            raise ValueError("a head's query is %s and its key %s: they must have the same shape" % (
                list(self.q_proj.weight.shape), list(self.k_proj.weight.shape)))


class Attention(nn.Module):
    """A self-attention sublayer: the sum of its heads."""

    def __init__(self, heads, mask="none", weighting="softmax", scale="sqrt-d-key", temperature=None):
        super().__init__()
        self.mask = _choice(mask, MASKS, "mask")
        self.weighting = _choice(weighting, WEIGHTINGS, "weighting")
        self.scale = _choice(scale, SCALES, "scale")
        self.temperature = None if temperature is None else _weight_text(temperature, "temperature")
        self.heads = nn.ModuleList(heads)
        if not self.heads:
            raise ValueError("an attention sublayer needs at least one head")

    def forward(self, x):
        A = _arith(self.heads[0], x.dtype)
        # Every row of a projection is its own ordered sum, so the heads'
        # rows stacked into one matrix give the same values in one pass.
        rows = [(h.q_proj.weight, h.k_proj.weight, h.v_proj.weight) for h in self.heads]
        stacked = [_matvec(A, torch.cat([r[p] for r in rows]), x) for p in range(3)]
        total, at = None, [0, 0, 0]
        for q_w, k_w, v_w in rows:
            parts = []
            for p, w in enumerate((q_w, k_w, v_w)):
                parts.append(stacked[p][:, at[p]:at[p] + w.shape[0]])
                at[p] += w.shape[0]
            o = self._head(A, *parts)
            total = o if total is None else A.add(total, o)
        return total

    def _head(self, A, q, k, v):
        n = q.shape[0]
        d_key, d = q.shape[1], v.shape[1]
        s = A.mul(q[:, None, 0], k[None, :, 0])
        for c in range(1, d_key):
            s = A.add(s, A.mul(q[:, None, c], k[None, :, c]))
        if self.scale == "sqrt-d-key" and d_key != 1:
            s = A.div(s, A.sqrt(A.tensor(float(d_key))))
        if self.temperature is not None:
            tau = A.const(self.temperature)
            if not tau > 0:
                raise ValueError("temperature τ = %s must be positive" % self.temperature)
            s = A.div(s, tau)
        finite = torch.isfinite(v).all(dim=1).tolist()
        zero = torch.zeros(d, dtype=A.dtype)
        out = []
        for i in range(n):
            lo, hi = _mask_range(self.mask, i, n)
            if lo >= hi:
                out.append(zero)  # nothing to attend to: the output is 0
                continue
            scores = s[i, lo:hi]
            weights, picked = self._weights(A, scores)
            o = None
            for kk in range(hi - lo):
                j = lo + kk
                w = weights[kk] if picked is None else (weights if kk in picked else None)
                # A zero weight adds nothing to a finite value (0·∞ is NaN).
                if (w is None or w == 0) and finite[j]:
                    continue
                t = A.mul(w if w is not None else torch.zeros((), dtype=A.dtype), v[j])
                o = t if o is None else A.add(o, t)
            out.append(zero if o is None else o)
        return torch.stack(out)

    def _weights(self, A, scores):
        """The softmax weights (and None), or for a hard weighting the one
        weight of the selected positions and the set of them."""
        if self.weighting == "softmax":
            return _softmax(A, scores), None
        if torch.isnan(scores).any():
            nan = torch.tensor(math.nan, dtype=A.dtype)
            return nan, set(range(scores.shape[0]))
        m = scores.max()
        ties = (scores == m).nonzero().reshape(-1).tolist()  # +0 and −0 tie
        if self.weighting == "lhardmax":
            return A.tensor(1.0), {ties[0]}
        if self.weighting == "rhardmax":
            return A.tensor(1.0), {ties[-1]}
        # 1/|M| rounded once (not 1/fl(|M|): fp8-e5m2 does not hold 9).
        return A.const(Fraction(1, len(ties))), set(ties)


class FeedForward(nn.Module):
    """W2 act(W1 x + b1) + b2: fc1 ([hidden, d_in], bias b1) and fc2 ([d, hidden], bias b2)."""

    def __init__(self, w1, w2, b1=None, b2=None, activation="relu", dtype=torch.float64):
        super().__init__()
        self.precision = _emulated(dtype)
        self.activation = _choice(activation, ACTIVATIONS, "activation")
        self.fc1 = Linear(w1, b1, dtype=dtype)
        self.fc2 = Linear(w2, b2, dtype=dtype)
        if self.fc2.weight.shape[1] != self.fc1.weight.shape[0]:
            raise ValueError("fc2 has %d columns, fc1 %d rows: they must agree" % (self.fc2.weight.shape[1], self.fc1.weight.shape[0]))

    def forward(self, x):
        A = _arith(self, x.dtype)
        z = _matvec(A, self.fc1.weight, x, self.fc1.bias)
        return _matvec(A, self.fc2.weight, _activate(A, self.activation, z), self.fc2.bias)


def _activate(A, act, z):
    if act == "linear":
        return z
    if act == "relu":
        # max(0, z): +0 for z ≤ 0 (−0 too), NaN stays NaN.
        return torch.where(z > 0, z, torch.where(torch.isnan(z), z, torch.zeros_like(z)))
    one = A.tensor(1.0)
    half_z = A.mul(A.tensor(0.5), z)
    if act == "gelu":
        t = A.mul(z, A.const("1/sqrt(2)"))
        return A.mul(half_z, A.add(A.erf(t), one))
    if act == "gelu-tanh":
        z3 = A.mul(A.mul(z, z), z)
        inner = A.add(z, A.mul(A.const("0.044715"), z3))
        t = A.mul(A.const("sqrt(2/pi)"), inner)
        return A.mul(half_z, A.add(A.tanh(t), one))
    t = -A.mul(A.const("1.702"), z)
    return A.div(z, A.add(A.exp(t), one))


class Layer(nn.Module):
    """An attention sublayer then a feed-forward sublayer, either absent,
    each with its residual switch and, under post- or pre-norm, its norm."""

    def __init__(self, attn=None, ffn=None, attn_norm=None, ffn_norm=None, attn_residual=True, ffn_residual=True):
        super().__init__()
        self.attn_norm, self.attn, self.ffn_norm, self.ffn = attn_norm, attn, ffn_norm, ffn
        self.attn_residual, self.ffn_residual = bool(attn_residual), bool(ffn_residual)


class Transformer(nn.Module):
    """A transformer of the model files (docs/model-format.md).

    The state dict's names are the safetensors file's tensor names
    (embed.weight, pos_embed.weight, layers.L.attn.heads.H.q_proj.weight, …,
    unembed.weight). Calling the module on an input (a string, a list of
    symbols, or of indices into the alphabet) returns the output values at
    every position, [n, k]: the logits W h for "readout", "sign" and
    "argmax", the distribution for "softmax"; decide() reads the symbols.

    The forward pass is the engine's inference, in the module's dtype
    (torch.float64 or torch.float32), bit for bit; it is not written for
    training (no gradients flow through exp, erf and tanh).
    """

    def __init__(self, alphabet, embed, unembed, layers=(), norm="none", positions=None, final_norm=None,
                 output="readout", labels=None, components=None, max_n=None, name="model", dtype=torch.float64):
        super().__init__()
        self.name = name
        self.alphabet = list(alphabet)
        if not self.alphabet or len(set(self.alphabet)) != len(self.alphabet):
            raise ValueError("the alphabet must be non-empty with distinct symbols")
        if isinstance(embed, Embedding):
            self.embed = embed
        else:
            self.embed = Embedding(embed, dtype=dtype)
        self.pos_embed = positions
        self.layers = nn.ModuleList(layers)
        self.norm = _choice(norm, NORMS, "norm placement")
        self.final_norm = final_norm
        self.unembed = unembed if isinstance(unembed, Linear) else Linear(unembed, dtype=self.dtype)
        self.output = _choice(output, OUTPUTS, "output kind")
        self.labels = None if labels is None else list(labels)
        self.components = None if components is None else list(components)
        if max_n is None:
            max_n = positions.max_n if positions is not None else 1
        self.max_n = int(max_n)
        self.validate()

    @property
    def d(self):
        return self.embed.weight.shape[1]

    @property
    def dtype(self):
        """The precision the module runs in: torch.float64, torch.float32,
        or the name of an emulated format ("fp16", "bf16", "fp8-e4m3",
        "fp8-e5m2"), whose values are float64 tensors."""
        return self.embed.precision or self.embed.weight.dtype

    def validate(self):
        """Check the shapes against each other, as the engine's reader does;
        ValueError names the part."""
        d = self.d
        tensor_dtype = _Arith(self.dtype).dtype  # refuses a dtype the module does not run in
        for name, p in self.named_parameters():
            if p.dtype != tensor_dtype:
                raise ValueError("%s is %s, the embedding %s: every tensor must have one dtype (module.to(dtype) converts them)" % (name, p.dtype, tensor_dtype))
        for name, m in self.named_modules():
            if getattr(m, "precision", self.embed.precision) != self.embed.precision:
                raise ValueError("%s runs at %s, the embedding at %s: every part must run in one precision" % (
                    name, m.precision or "its tensors' dtype", self.embed.precision or "its tensors' dtype"))
        if tuple(self.embed.weight.shape) != (len(self.alphabet), d):
            raise ValueError("embed.weight has shape %s, want [%d, d]" % (list(self.embed.weight.shape), len(self.alphabet)))
        if self.components is not None and len(self.components) != d:
            raise ValueError("components has %d names for d = %d" % (len(self.components), d))
        if self.pos_embed is not None:
            if self.pos_embed.weight.shape[-1] != d or self.pos_embed.max_n < self.max_n:
                raise ValueError("pos_embed.weight has shape %s for d = %d, max_n = %d" % (list(self.pos_embed.weight.shape), d, self.max_n))
        for l, layer in enumerate(self.layers):
            for part, norm in (("attn", layer.attn_norm), ("ffn", layer.ffn_norm)):
                where = "layers.%d.%s_norm" % (l, part)
                d_in = self._check_norm(norm, where, d)
                sub = layer.attn if part == "attn" else layer.ffn
                if sub is None:
                    continue
                if part == "attn":
                    for h, head in enumerate(sub.heads):
                        hw = "layers.%d.attn.heads.%d" % (l, h)
                        if head.q_proj.weight.shape[1] != d_in or head.k_proj.weight.shape[1] != d_in:
                            raise ValueError("%s: q_proj and k_proj need %d columns (d_in)" % (hw, d_in))
                        if tuple(head.v_proj.weight.shape) != (d, d_in):
                            raise ValueError("%s.v_proj.weight has shape %s, want [%d, %d]" % (hw, list(head.v_proj.weight.shape), d, d_in))
                else:
                    if sub.fc1.weight.shape[1] != d_in or sub.fc2.weight.shape[0] != d:
                        raise ValueError("layers.%d.ffn: fc1 needs %d columns (d_in) and fc2 %d rows (d)" % (l, d_in, d))
        if self.final_norm is not None:
            if self.norm != "pre":
                raise ValueError("final_norm needs the pre-norm placement")
            if self.final_norm.select is not None:
                raise ValueError("final_norm cannot select components")
            self._check_norm(self.final_norm, "final_norm", d)
        w = self.unembed.weight
        if w.shape[1] != d:
            raise ValueError("unembed.weight has %d columns for d = %d" % (w.shape[1], d))
        if self.output == "sign" and w.shape[0] != 1:
            raise ValueError("a sign output has one row of unembed.weight, not %d" % w.shape[0])
        if self.output in ("argmax", "softmax") and self.labels is None:
            raise ValueError("an %s output needs labels" % self.output)
        if self.labels is not None and self.output != "sign" and len(self.labels) != w.shape[0]:
            raise ValueError("%d labels for %d rows of unembed.weight" % (len(self.labels), w.shape[0]))

    def _check_norm(self, norm, where, d):
        if norm is None:
            return d
        if self.norm == "none":
            raise ValueError("%s: layer norms need the post or pre placement" % where)
        m = d
        if norm.select is not None:
            if self.norm != "pre":
                raise ValueError("%s: select is allowed under pre-norm only" % where)
            if norm.select.weight.shape[1] != d:
                raise ValueError("%s.select.weight has %d columns for d = %d" % (where, norm.select.weight.shape[1], d))
            m = norm.select.weight.shape[0]
        for name, p in (("weight", norm.weight), ("bias", norm.bias)):
            if p is not None and tuple(p.shape) != (m,):
                raise ValueError("%s.%s has shape %s, want [%d]" % (where, name, list(p.shape), m))
        return m

    def rounded(self, dtype):
        """A copy in another dtype, each weight rounded once from its exact
        text where it has one (module.to(dtype) would round the rounded
        float64 value again, which is not always the same)."""
        A = _Arith(dtype)
        new = copy.deepcopy(self)
        for (_, p), (_, old) in zip(new.named_parameters(), self.named_parameters()):
            texts = getattr(old, "exact", None)
            if texts is None:
                p.data = A.round(old.data.to(A.dtype))
            else:
                def walk(t):
                    return [walk(e) for e in t] if isinstance(t, list) else parse_weight(t).round(A.fmt)
                p.data = torch.tensor(walk(texts), dtype=A.dtype).reshape(old.shape)
            p.exact = texts
        for m in new.modules():
            if hasattr(m, "precision"):
                m.precision = _emulated(dtype)
        return new

    # --- running ------------------------------------------------------------

    def tokenize(self, text):
        """Split text into indices of the alphabet as the engine does: at
        white space when it has any, else by longest match."""
        fields = text.split()
        index = {s: k for k, s in enumerate(self.alphabet)}
        if len(fields) > 1 or (len(fields) == 1 and fields[0] != text):
            out = []
            for i, f in enumerate(fields):
                if f not in index:
                    raise ValueError("input %r: %r at position %d is not a symbol of the alphabet" % (text, f, i + 1))
                out.append(index[f])
            return out
        out, pos = [], 0
        while pos < len(text):
            best = max((s for s in self.alphabet if text.startswith(s, pos)), key=len, default=None)
            if not best:
                raise ValueError("input %r: no symbol of the alphabet at offset %d" % (text, pos))
            out.append(index[best])
            pos += len(best)
        return out

    def forward(self, x):
        """The outputs at every position for the input x: a string, a list
        of symbols or of alphabet indices, or a 1-D integer tensor."""
        if isinstance(x, str):
            x = self.tokenize(x)
        if isinstance(x, torch.Tensor):
            x = x.tolist()
        idx = []
        for i, s in enumerate(x):
            if isinstance(s, str):
                if s not in self.alphabet:
                    raise ValueError("input position %d: %r is not a symbol of the alphabet" % (i + 1, s))
                s = self.alphabet.index(s)
            if not 0 <= s < len(self.alphabet):
                raise ValueError("input position %d: symbol index %d outside the alphabet of %d symbols" % (i + 1, s, len(self.alphabet)))
            idx.append(s)
        if not idx:
            raise ValueError("empty input: a transformer maps non-empty strings")
        with torch.no_grad():
            h = self.embed.weight[idx].clone()
            if self.pos_embed is not None:
                h = _Arith(self.dtype).add(h, self.pos_embed.table(len(idx)))
            return self._forward(h)

    def run_stream(self, h0):
        """The outputs for a given initial residual stream ([n, d]; entries
        may be exact: Fractions or weight texts, each rounded once), in
        place of the embeddings: how inputs that are vectors are run."""
        A = _Arith(self.dtype)
        if not isinstance(h0, torch.Tensor):
            h0 = A.tensor([[A.const(v).item() for v in row] for row in h0])
        if h0.dim() != 2 or h0.shape[1] != self.d or h0.shape[0] == 0:
            raise ValueError("the initial stream must be [n, %d] with n ≥ 1, got %s" % (self.d, list(h0.shape)))
        with torch.no_grad():
            return self._forward(A.round(h0.to(A.dtype)))

    def _forward(self, h):
        A = _Arith(self.dtype)
        for layer in self.layers:
            if layer.attn is not None or layer.attn_norm is not None:
                h = self._sublayer(A, h, layer.attn_norm, layer.attn_residual, layer.attn)
            if layer.ffn is not None or layer.ffn_norm is not None:
                h = self._sublayer(A, h, layer.ffn_norm, layer.ffn_residual, layer.ffn)
        if self.final_norm is not None and self.norm == "pre":
            h = self.final_norm(h)
        y = _matvec(A, self.unembed.weight, h)
        if self.output == "softmax":
            y = torch.stack([_softmax(A, y[i]) for i in range(y.shape[0])])
        return y

    def _sublayer(self, A, h, norm, residual, f):
        x = norm(h) if norm is not None and self.norm == "pre" else h
        out = f(x) if f is not None else None
        if out is None:
            nxt = h if residual else torch.zeros_like(h)
        elif residual:
            nxt = A.add(out, h)
        else:
            nxt = out
        if norm is not None and self.norm == "post":
            nxt = norm(nxt)
        return nxt

    def decide(self, y):
        """The symbol at each position of the outputs y: "1"/"0" for a sign
        (0 and NaN reject), the label of the leftmost largest logit for an
        argmax, None for the other kinds."""
        if self.output == "sign":
            return ["1" if v > 0 else "0" for v in y[:, 0].tolist()]
        if self.output == "argmax":
            out = []
            for row in y.tolist():
                best = 0
                for k in range(1, len(row)):
                    if row[k] > row[best]:
                        best = k
                out.append(self.labels[best])
            return out
        return [None] * y.shape[0]


def _weight_text(w, what):
    """A scalar weight kept as exact text: a string of the grammar, an int,
    a Fraction, or a float (its exact binary value)."""
    if isinstance(w, float):
        if not math.isfinite(w):
            raise ValueError("%s must be finite, got %r" % (what, w))
        w = Fraction(w)
    if isinstance(w, (int, Fraction)) and not isinstance(w, bool):
        w = Fraction(w)
        return str(w.numerator) if w.denominator == 1 else "%d/%d" % (w.numerator, w.denominator)
    parse_weight(w, what)  # raises when it is not a weight
    return w
