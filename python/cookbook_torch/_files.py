"""Reading and writing the model files (docs/model-format.md): the JSON
file, with every weight exact, and the safetensors file, with the weights
as tensors and the architecture in its metadata.

Both readers turn a file into the same two things: the architecture (the
JSON object without its weights) and a state dict of exact values named as
the safetensors file names its tensors; _build makes the module from them,
rounding each value once to the dtype the module runs in. A new tensor
dtype is one entry of _DTYPES, a new form of position encodings one entry
of _POSITION_FORMS.
"""

import json
import math
import os
import struct
import tempfile
from fractions import Fraction

import torch

from . import _numbers as num
from ._model import (Attention, Embedding, FeedForward, Head, Layer, LayerNorm, Linear, Positions, Transformer,
                     _Arith, _FORMATS)

__all__ = ["load", "save"]

FORMAT = "transformer-cookbook-model"
ARCH_KEY = "cookbook_architecture"


class ModelFileError(ValueError):
    """A model file the module cannot read: the message names the file and
    the field, tensor or entry."""


# --- Architecture fields ----------------------------------------------------

# The fields of each object, and which of them hold weights (present in the
# JSON file, absent from the safetensors architecture).
_FIELDS = {
    "model": ({"format", "version", "name", "max_n", "d", "components", "alphabet", "positions", "norm", "layers",
               "final_norm", "output"}, {"word_embedding"}),
    "positions": ({"name", "depends_on_n", "formula"}, {"table"}),
    "layer": ({"attention_norm", "attention", "attention_residual", "feed_forward_norm", "feed_forward",
               "feed_forward_residual"}, set()),
    "attention": ({"mask", "weighting", "scale", "temperature", "heads"}, set()),
    "head": (set(), {"query", "key", "value"}),
    "feed_forward": ({"activation"}, {"w1", "b1", "w2", "b2"}),
    "norm": ({"eps"}, {"gamma", "beta", "select"}),
    "output": ({"kind", "labels"}, {"w"}),
}


def _check_fields(obj, kind, path, with_weights):
    if not isinstance(obj, dict):
        raise ModelFileError("%s: want an object" % path)
    plain, weights = _FIELDS[kind]
    known = plain | weights if with_weights else plain
    for k in obj:
        if k not in known:
            if k in weights:
                raise ModelFileError("%s.%s: a weight in the architecture (the safetensors file holds it as a tensor)" % (path, k))
            raise ModelFileError("%s: unknown field %r" % (path, k))


def _need(obj, key, path, types, what):
    if key not in obj:
        raise ModelFileError("%s: missing field %r" % (path, key))
    v = obj[key]
    if not isinstance(v, types) or isinstance(v, bool) and bool not in (types if isinstance(types, tuple) else (types,)):
        raise ModelFileError("%s.%s: want %s" % (path, key, what))
    return v


def _int_field(obj, key, path):
    v = obj.get(key)
    if key not in obj:
        raise ModelFileError("%s: missing field %r" % (path, key))
    if isinstance(v, bool) or not isinstance(v, int):
        raise ModelFileError("%s.%s: want an integer written without fraction or exponent, got %r" % (path, key, v))
    return v


# --- Exact values ----------------------------------------------------------

class _ExactTensor:
    """A tensor of exact values: nested lists of num.Weight (from JSON), or
    a float64 tensor holding the stored numbers exactly (from
    safetensors)."""

    def __init__(self, weights=None, floats=None, shape=None):
        self.weights, self.floats, self.shape = weights, floats, shape

    def to(self, dtype):
        A = _Arith(dtype)
        if self.floats is not None:
            # Casting float64 to float32, or rounding to an emulated
            # format, rounds once, to nearest, from the exact stored value.
            return A.round(self.floats.to(A.dtype))

        def walk(x):
            return [walk(e) for e in x] if isinstance(x, list) else x.round(A.fmt)
        return torch.tensor(walk(self.weights), dtype=A.dtype).reshape(self.shape)

    def texts(self):
        if self.weights is None:
            return None

        def walk(x):
            return [walk(e) for e in x] if isinstance(x, list) else x.text
        return walk(self.weights)


def _weights(value, path, rank):
    """The nested list of weights at path (rank 1: vector, 2: matrix, 3: a
    list of matrices), parsed; rows must agree in length."""
    if rank == 0:
        if isinstance(value, bool) or not isinstance(value, (str, int)):
            raise ModelFileError("%s: want a weight (a string or a number), got %s" % (path, type(value).__name__))
        try:
            return num.parse_weight(value, path)
        except ValueError as e:
            raise ModelFileError(str(e)) from None
    if not isinstance(value, list) or (rank == 2 and not value):
        raise ModelFileError("%s: want %s" % (path, {1: "a list of weights", 2: "a non-empty list of rows",
                                                     3: "a list of matrices"}[rank]))
    out = [_weights(v, "%s[%d]" % (path, i), rank - 1) for i, v in enumerate(value)]
    if rank == 2:
        width = len(out[0])
        if width == 0:
            raise ModelFileError("%s[0]: an empty row" % path)
        for i, row in enumerate(out):
            if len(row) != width:
                raise ModelFileError("%s[%d]: %d entries, want %d (as row 0)" % (path, i, len(row), width))
    return out


def _matrix(value, path, rows=None, cols=None):
    w = _weights(value, path, 2)
    if rows is not None and len(w) != rows:
        raise ModelFileError("%s: %d rows, want %d" % (path, len(w), rows))
    if cols is not None and len(w[0]) != cols:
        raise ModelFileError("%s[0]: %d entries, want %d" % (path, len(w[0]), cols))
    return _ExactTensor(weights=w, shape=(len(w), len(w[0])))


def _vector(value, path, n=None):
    w = _weights(value, path, 1)
    if n is not None and len(w) != n:
        raise ModelFileError("%s: %d entries, want %d" % (path, len(w), n))
    return _ExactTensor(weights=w, shape=(len(w),))


# --- Position forms --------------------------------------------------------

def _positions_table(obj, path, max_n, d):
    """The table form: N rows of d (peₙ(i) = table[i−1]), or N blocks of n
    rows when the encodings depend on n, stored padded as [N, N, d]."""
    if obj["depends_on_n"]:
        blocks = _weights(obj["table"], path + ".table", 3)
        if len(blocks) != max_n:
            raise ModelFileError("%s.table: %d blocks, want max_n = %d (one per length)" % (path, len(blocks), max_n))
        zero = num.parse_weight("0")
        padded = []
        for n, block in enumerate(blocks, 1):
            if len(block) != n or any(len(r) != d for r in block):
                raise ModelFileError("%s.table[%d]: want %d rows of %d entries (pe_n(i) for n = %d)" % (path, n - 1, n, d, n))
            padded.append(block + [[zero] * d for _ in range(max_n - n)])
        return _ExactTensor(weights=padded, shape=(max_n, max_n, d))
    return _matrix(obj["table"], path + ".table", max_n, d)


_FORMULA_FUNCTIONS = {
    "1": lambda i, n: Fraction(1),
    "i": lambda i, n: Fraction(i),
    "n": lambda i, n: Fraction(n),
    "i/n": lambda i, n: Fraction(i, n),
    "1/i": lambda i, n: Fraction(1, i),
    "i^2": lambda i, n: Fraction(i * i),
    "(-1)^i": lambda i, n: Fraction(-1 if i % 2 else 1),
}


def _formula_term_values(term, path, i, n):
    """The term's contributions at position i of length n: a list of
    (component, text) with text an exact expression of the weight grammar
    (docs/model-format.md, Positions: Formula)."""
    f, c0 = term["function"], term["component"]
    if f in _FORMULA_FUNCTIONS:
        return [(c0, str(_FORMULA_FUNCTIONS[f](i, n)))]
    size = term.get("size")
    if f == "one-hot":
        return [(c0 + k, "1" if k == i - 1 else "0") for k in range(size)]
    if f == "sinusoidal":
        base, out = term["base"], []
        for c in range(size // 2):
            # c = 0: cos(i), sin(i); else the frequency M^(−2c/D) as the
            # documentation writes it, exp(−((2c/D)·log M)).
            arg = str(i) if c == 0 else "%d*exp(-((%s)*log(%s)))" % (i, Fraction(2 * c, size), base)
            out += [(c0 + 2 * c, "cos(%s)" % arg), (c0 + 2 * c + 1, "sin(%s)" % arg)]
        return out
    raise ModelFileError("%s: function %r: want one of %s, one-hot, sinusoidal" % (path, f, ", ".join(_FORMULA_FUNCTIONS)))


def _positions_formula(obj, path, max_n, d):
    """The formula form: peₙ(i) the sum of the terms' values times their
    scales, computed exactly for every length up to max_n, as the table
    form's [N, d] or [N, N, d] table (each entry one exact value, rounded
    once when the module is built, as the engine rounds it)."""
    terms = obj["formula"]
    if not isinstance(terms, list) or not terms:
        raise ModelFileError("%s.formula: want a non-empty list of terms" % path)
    for k, t in enumerate(terms):
        where = "%s.formula[%d]" % (path, k)
        if not isinstance(t, dict) or not isinstance(t.get("function"), str):
            raise ModelFileError("%s: want a term object with a function" % where)
        c0 = t.get("component")
        if isinstance(c0, bool) or not isinstance(c0, int) or c0 < 0:
            raise ModelFileError("%s.component: want an integer ≥ 0" % where)
        width = t.get("size", 1) if t["function"] in ("one-hot", "sinusoidal") else 1
        if c0 + width > d:
            raise ModelFileError("%s: writes components %d … %d of d = %d" % (where, c0, c0 + width - 1, d))
    dep = obj["depends_on_n"]

    def row(i, n):
        parts = [[] for _ in range(d)]
        for k, t in enumerate(terms):
            scale = t.get("scale", "1")
            for c, text in _formula_term_values(t, "%s.formula[%d]" % (path, k), i, n):
                parts[c].append(text if scale == "1" else "(%s)*(%s)" % (scale, text))
        out = []
        for c in range(d):
            if not parts[c]:
                out.append(num.parse_weight("0"))
                continue
            text = " + ".join("(%s)" % p for p in parts[c]) if len(parts[c]) > 1 else parts[c][0]
            w = num.parse_weight(text, "%s: component %d at i = %d, n = %d" % (path, c, i, n))
            # A rational value keeps the plain text of its fraction, as a
            # table would hold it.
            out.append(num.parse_weight(str(w.value)) if w.rational else w)
        return out

    if dep:
        zero = num.parse_weight("0")
        blocks = [[row(i, n) for i in range(1, n + 1)] + [[zero] * d for _ in range(max_n - n)] for n in range(1, max_n + 1)]
        return _ExactTensor(weights=blocks, shape=(max_n, max_n, d))
    return _ExactTensor(weights=[row(i, max_n) for i in range(1, max_n + 1)], shape=(max_n, d))


# A form reads the JSON positions object (its name, depends_on_n and the
# form's own field) and returns the exact table: [N, d], or [N, N, d] when
# the encodings depend on n.
_POSITION_FORMS = {"table": _positions_table, "formula": _positions_formula}


# --- JSON ------------------------------------------------------------------

class _Number(str):
    """A JSON number kept as its text, read exactly as a weight."""


def _no_duplicates(pairs):
    out = {}
    for k, v in pairs:
        if k in out:
            raise ModelFileError("field %r given twice" % k)
        out[k] = v
    return out


def _reject_constant(name):
    raise ModelFileError("%s is not a number a model file may hold" % name)


def _read_json(path):
    with open(path, "rb") as f:
        data = f.read()
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    try:
        doc = json.loads(data.decode("utf-8"), parse_float=_Number, parse_constant=_reject_constant,
                         object_pairs_hook=_no_duplicates)
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise ModelFileError("not a JSON model file: %s" % e) from None
    if not isinstance(doc, dict):
        raise ModelFileError("want a JSON object")
    tensors = {}
    _check_fields(doc, "model", "model", True)
    d = _int_field(doc, "d", "model")
    max_n = _int_field(doc, "max_n", "model")
    alphabet = _need(doc, "alphabet", "model", list, "a list of symbols")
    we = _need(doc, "word_embedding", "model", list, "one row per symbol")
    if len(we) != len(alphabet):
        raise ModelFileError("word_embedding: %d rows for %d symbols" % (len(we), len(alphabet)))
    zero = num.parse_weight("0")
    rows = []
    for s, row in enumerate(we):
        if row is None:
            rows.append([zero] * d)
        else:
            rows.append(_vector(row, "word_embedding[%d]" % s, d).weights)
    tensors["embed.weight"] = _ExactTensor(weights=rows, shape=(len(rows), d))
    arch = {k: v for k, v in doc.items() if k != "word_embedding"}
    if "positions" in doc:
        pos = doc["positions"]
        if not isinstance(pos, dict):
            raise ModelFileError("positions: want an object")
        forms = [k for k in pos if k not in ("name", "depends_on_n")]
        for k in forms:
            if k not in _POSITION_FORMS:
                raise ModelFileError("positions.%s: position encodings given as %r are not supported by cookbook_torch (it reads: %s)"
                                     % (k, k, ", ".join(_POSITION_FORMS)))
        if len(forms) != 1:
            raise ModelFileError("positions: want one of %s" % ", ".join(_POSITION_FORMS))
        _need(pos, "depends_on_n", "positions", bool, "true or false")
        if forms[0] == "formula":
            # As a safetensors file keeps it: in the architecture, the
            # table computed when the module is built.
            _positions_formula(pos, "positions", max_n, d)  # its errors name the JSON field
            arch["positions"] = {k: v for k, v in pos.items() if k in ("name", "depends_on_n", "formula")}
        else:
            tensors["pos_embed.weight"] = _POSITION_FORMS[forms[0]](pos, "positions", max_n, d)
            arch["positions"] = {k: v for k, v in pos.items() if k in ("name", "depends_on_n")}
    layers = _need(doc, "layers", "model", list, "a list of layers")
    arch_layers = []
    for l, layer in enumerate(layers):
        lp = "layers[%d]" % l
        _check_fields(layer, "layer", lp, True)
        al = dict(layer)
        for key, short in (("attention_norm", "attn_norm"), ("feed_forward_norm", "ffn_norm")):
            if key in layer:
                al[key] = _json_norm(layer[key], "%s.%s" % (lp, key), "layers.%d.%s" % (l, short), tensors)
        if "attention" in layer:
            att = layer["attention"]
            _check_fields(att, "attention", lp + ".attention", True)
            heads = _need(att, "heads", lp + ".attention", list, "a list of heads")
            for h, head in enumerate(heads):
                hp = "%s.attention.heads[%d]" % (lp, h)
                _check_fields(head, "head", hp, True)
                base = "layers.%d.attn.heads.%d." % (l, h)
                for key, proj in (("query", "q_proj"), ("key", "k_proj"), ("value", "v_proj")):
                    tensors[base + proj + ".weight"] = _matrix(_need(head, key, hp, list, "a matrix"), "%s.%s" % (hp, key))
            al["attention"] = dict(att, heads=[{} for _ in heads])
        if "feed_forward" in layer:
            ff = layer["feed_forward"]
            fp = lp + ".feed_forward"
            _check_fields(ff, "feed_forward", fp, True)
            base = "layers.%d.ffn." % l
            tensors[base + "fc1.weight"] = _matrix(_need(ff, "w1", fp, list, "a matrix"), fp + ".w1")
            tensors[base + "fc2.weight"] = _matrix(_need(ff, "w2", fp, list, "a matrix"), fp + ".w2")
            for key, name in (("b1", "fc1.bias"), ("b2", "fc2.bias")):
                if key in ff:
                    tensors[base + name] = _vector(ff[key], "%s.%s" % (fp, key))
            al["feed_forward"] = {"activation": ff.get("activation")}
        arch_layers.append(al)
    arch["layers"] = arch_layers
    if "final_norm" in doc:
        arch["final_norm"] = _json_norm(doc["final_norm"], "final_norm", "final_norm", tensors)
    out = doc.get("output")
    _check_fields(out, "output", "output", True)
    tensors["unembed.weight"] = _matrix(_need(out, "w", "output", list, "a matrix"), "output.w", cols=d)
    arch["output"] = {k: v for k, v in out.items() if k != "w"}
    return arch, tensors


def _json_norm(obj, path, name, tensors):
    _check_fields(obj, "norm", path, True)
    for key, suffix in (("gamma", ".weight"), ("beta", ".bias")):
        if key in obj:
            tensors[name + suffix] = _vector(obj[key], "%s.%s" % (path, key))
    if "select" in obj:
        tensors[name + ".select.weight"] = _matrix(obj["select"], path + ".select")
    return {k: v for k, v in obj.items() if k == "eps"}


# --- safetensors -------------------------------------------------------------

def _decode(fmt_char, size):
    def decode(raw, shape):
        n = len(raw) // size
        return torch.tensor(struct.unpack("<%d%s" % (n, fmt_char), raw), dtype=torch.float64).reshape(shape)
    return decode


def _decode_bf16(raw, shape):
    # A bfloat16 is the upper half of the float32 with the same bits.
    n = len(raw) // 2
    wide = b"".join(b"\0\0" + raw[2 * i:2 * i + 2] for i in range(n))
    return torch.tensor(struct.unpack("<%df" % n, wide), dtype=torch.float64).reshape(shape)


def _fp8_table(exp_bits, bias, ieee_nans):
    """The values of the 256 bytes of an 8-bit format with exp_bits of
    exponent (and 7 − exp_bits of fraction), from its definition: exponent
    field 0 is subnormal (f·2^(1−bias−m)); with IEEE NaNs (E5M2) the
    all-ones exponent is ±inf (fraction 0) or NaN; without (E4M3, as
    torch.float8_e4m3fn) it holds normal numbers, except S.1111.111, NaN."""
    m = 7 - exp_bits
    out = []
    for b in range(256):
        frac, ef, neg = b & ((1 << m) - 1), (b >> m) & ((1 << exp_bits) - 1), b >> 7
        top = (1 << exp_bits) - 1
        if ef == top and ieee_nans:
            v = math.nan if frac else math.inf
        elif ef == top and frac == (1 << m) - 1:
            v = math.nan
        elif ef == 0:
            v = math.ldexp(frac, 1 - bias - m)
        else:
            v = math.ldexp(frac | 1 << m, ef - bias - m)
        out.append(-v if neg else v)
    return out


def _decode_table(table):
    def decode(raw, shape):
        return torch.tensor([table[b] for b in raw], dtype=torch.float64).reshape(shape)
    return decode


# Each dtype decodes its little-endian bytes into a float64 tensor holding
# the stored numbers exactly (every format of at most 53 bits fits), and
# runs by default at the precision given (a torch dtype, or an emulated
# format's name).
_DTYPES = {
    "F64": (8, _decode("d", 8), torch.float64),
    "F32": (4, _decode("f", 4), torch.float32),
    "F16": (2, _decode("e", 2), "fp16"),
    "BF16": (2, _decode_bf16, "bf16"),
    "F8_E4M3": (1, _decode_table(_fp8_table(4, 7, False)), "fp8-e4m3"),
    "F8_E5M2": (1, _decode_table(_fp8_table(5, 15, True)), "fp8-e5m2"),
}

# The precisions from narrowest to widest: a file of several dtypes runs,
# as in the engine, at the first whose format holds every number of every
# dtype (so that loading rounds no weight).
_NARROWEST_FIRST = ("fp8-e4m3", "fp8-e5m2", "fp16", "bf16", torch.float32, torch.float64)


def _holds(wide, narrow):
    """Whether every number of the format narrow is a number of wide."""
    return (wide.p >= narrow.p and wide.emin - wide.p <= narrow.emin - narrow.p
            and wide.max_finite >= narrow.max_finite)


def _default_precision(dtypes):
    if not dtypes:
        return torch.float64
    fmts = [_FORMATS[_DTYPES[dt][2]] for dt in dtypes]
    for prec in _NARROWEST_FIRST:
        if all(_holds(_FORMATS[prec], f) for f in fmts):
            return prec
    return torch.float64


def _read_safetensors(path):
    size = os.path.getsize(path)
    with open(path, "rb") as f:
        head = f.read(8)
        if len(head) < 8:
            raise ModelFileError("not a safetensors file: shorter than its 8-byte header length")
        (n,) = struct.unpack("<Q", head)
        if n > min(size - 8, 100 << 20):
            raise ModelFileError("not a safetensors file: a header of %d bytes in a file of %d" % (n, size))
        try:
            header = json.loads(f.read(n).decode("utf-8"), object_pairs_hook=_no_duplicates)
        except (UnicodeDecodeError, json.JSONDecodeError) as e:
            raise ModelFileError("safetensors header: %s" % e) from None
        data = f.read()
    meta = header.pop("__metadata__", None) or {}
    if ARCH_KEY not in meta:
        raise ModelFileError("safetensors metadata: no %r (the architecture)" % ARCH_KEY)
    try:
        arch = json.loads(meta[ARCH_KEY], parse_float=_Number, parse_constant=_reject_constant,
                          object_pairs_hook=_no_duplicates)
    except json.JSONDecodeError as e:
        raise ModelFileError("%s: %s" % (ARCH_KEY, e)) from None
    tensors, dtypes, spans = {}, set(), []
    for name, info in header.items():
        if not isinstance(info, dict) or set(info) != {"dtype", "shape", "data_offsets"}:
            raise ModelFileError("tensor %s: want dtype, shape and data_offsets" % name)
        dt = info["dtype"]
        if dt not in _DTYPES:
            raise ModelFileError("tensor %s: dtype %s is not supported by cookbook_torch (it reads %s)" % (name, dt, ", ".join(_DTYPES)))
        width, decode, _ = _DTYPES[dt]
        shape, (begin, end) = tuple(info["shape"]), info["data_offsets"]
        if end - begin != width * math.prod(shape) or not 0 <= begin <= end <= len(data):
            raise ModelFileError("tensor %s: data_offsets %s do not hold a %s tensor of shape %s" % (name, info["data_offsets"], dt, list(shape)))
        spans.append((begin, end))
        t = decode(data[begin:end], shape)
        bad = (~torch.isfinite(t)).nonzero()
        if bad.numel():
            idx = "".join("[%d]" % i for i in bad[0].tolist())
            raise ModelFileError("%s%s: %s, not a finite number" % (name, idx, t[tuple(bad[0].tolist())].item()))
        tensors[name] = _ExactTensor(floats=t, shape=shape)
        dtypes.add(dt)
    spans.sort()
    at = 0
    for begin, end in spans:
        if begin != at:
            raise ModelFileError("tensor data: bytes %d to %d are %s" % (min(at, begin), max(at, begin), "overlapped" if begin < at else "not in any tensor"))
        at = end
    if at != len(data):
        raise ModelFileError("tensor data: %d bytes after the last tensor" % (len(data) - at))
    return arch, tensors, _default_precision(dtypes)


# --- Building the module ---------------------------------------------------

def _build(arch, tensors, dtype, with_weights):
    """The Transformer of an architecture and its exact tensors, each
    rounded once to dtype."""
    _check_fields(arch, "model", "model", with_weights)
    if arch.get("format") != FORMAT:
        raise ModelFileError("format: want %r, got %r" % (FORMAT, arch.get("format")))
    if _int_field(arch, "version", "model") != 1:
        raise ModelFileError("version: %r is not a version this module reads (1)" % arch["version"])
    d, max_n = _int_field(arch, "d", "model"), _int_field(arch, "max_n", "model")
    if d < 1 or max_n < 1:
        raise ModelFileError("d and max_n must be at least 1")
    used = set()

    def take(name, required=True):
        if name not in tensors:
            if required:
                raise ModelFileError("missing tensor %s" % name)
            return None
        used.add(name)
        return tensors[name].to(dtype)

    def norm(obj, name, path):
        if obj is None:
            return None
        _check_fields(obj, "norm", path, with_weights)
        eps = _need(obj, "eps", path, (str, int), "a weight")
        return LayerNorm(eps=_text(eps, path + ".eps"), weight=take(name + ".weight", False), bias=take(name + ".bias", False),
                         select=take(name + ".select.weight", False), dtype=dtype)

    try:
        positions = None
        if "positions" in arch:
            pos = arch["positions"]
            _check_fields(pos, "positions", "positions", with_weights)
            dep = _need(pos, "depends_on_n", "positions", bool, "true or false")
            if "formula" in pos:
                # A safetensors file keeps a formula in its architecture,
                # with no position tensor.
                table = _positions_formula(pos, "positions", max_n, d).to(dtype)
            else:
                table = take("pos_embed.weight")
            positions = Positions(table, depends_on_n=dep, name=pos.get("name", ""), dtype=dtype, formula=pos.get("formula"))
        layers = []
        for l, layer in enumerate(_need(arch, "layers", "model", list, "a list of layers")):
            lp = "layers[%d]" % l
            _check_fields(layer, "layer", lp, with_weights)
            attn = ffn = None
            if "attention" in layer:
                a = layer["attention"]
                _check_fields(a, "attention", lp + ".attention", with_weights)
                heads = []
                for h, head in enumerate(_need(a, "heads", lp + ".attention", list, "a list of heads")):
                    _check_fields(head, "head", "%s.attention.heads[%d]" % (lp, h), with_weights)
                    base = "layers.%d.attn.heads.%d." % (l, h)
                    heads.append(Head(take(base + "q_proj.weight"), take(base + "k_proj.weight"), take(base + "v_proj.weight"), dtype=dtype))
                tau = a.get("temperature")
                attn = Attention(heads, mask=_need(a, "mask", lp + ".attention", str, "a mask name"),
                                 weighting=_need(a, "weighting", lp + ".attention", str, "a weighting name"),
                                 scale=_need(a, "scale", lp + ".attention", str, "a scale name"),
                                 temperature=None if tau is None else _text(tau, lp + ".attention.temperature"))
            if "feed_forward" in layer:
                f = layer["feed_forward"]
                _check_fields(f, "feed_forward", lp + ".feed_forward", with_weights)
                base = "layers.%d.ffn." % l
                ffn = FeedForward(take(base + "fc1.weight"), take(base + "fc2.weight"), take(base + "fc1.bias", False),
                                  take(base + "fc2.bias", False), activation=_need(f, "activation", lp + ".feed_forward", str, "an activation name"),
                                  dtype=dtype)
            layers.append(Layer(attn=attn, ffn=ffn,
                                attn_norm=norm(layer.get("attention_norm"), "layers.%d.attn_norm" % l, lp + ".attention_norm"),
                                ffn_norm=norm(layer.get("feed_forward_norm"), "layers.%d.ffn_norm" % l, lp + ".feed_forward_norm"),
                                attn_residual=_need(layer, "attention_residual", lp, bool, "true or false"),
                                ffn_residual=_need(layer, "feed_forward_residual", lp, bool, "true or false")))
        out = arch.get("output")
        _check_fields(out, "output", "output", with_weights)
        model = Transformer(alphabet=_need(arch, "alphabet", "model", list, "a list of symbols"),
                            embed=Embedding(take("embed.weight"), dtype=dtype),
                            unembed=Linear(take("unembed.weight"), dtype=dtype), layers=layers,
                            norm=_need(arch, "norm", "model", str, "none, post or pre"), positions=positions,
                            final_norm=norm(arch.get("final_norm"), "final_norm", "final_norm"),
                            output=_need(out, "kind", "output", str, "an output kind"), labels=out.get("labels"),
                            components=arch.get("components"), max_n=max_n, name=_need(arch, "name", "model", str, "a string"))
    except ModelFileError:
        raise
    except ValueError as e:
        raise ModelFileError(str(e)) from None
    if model.d != d:
        raise ModelFileError("embed.weight has %d columns, d = %d" % (model.d, d))
    extra = sorted(set(tensors) - used)
    if extra:
        raise ModelFileError("tensor %s: the architecture has no place for it" % extra[0])
    return model


def _text(v, path):
    if isinstance(v, bool) or not isinstance(v, (str, int)):
        raise ModelFileError("%s: want a weight" % path)
    try:
        return num.parse_weight(v, path).text
    except ValueError as e:
        raise ModelFileError(str(e)) from None


def load(path, dtype=None):
    """Read a model file (.json or .safetensors) as a Transformer module.

    Every weight is rounded once, from its exact value, to dtype: the
    engine's precision fp64 is torch.float64 (or "fp64"), fp32
    torch.float32 (or "fp32"); "fp16", "bf16", "fp8-e4m3" and "fp8-e5m2"
    are emulated, as the engine emulates them, in float64 tensors holding
    numbers of the format. The default is float64 for JSON, and for
    safetensors the precision of the tensors' dtype (F16: "fp16", BF16:
    "bf16", F8_E4M3: "fp8-e4m3", F8_E5M2: "fp8-e5m2"; for several dtypes
    the narrowest that holds them all, as the engine chooses).
    Load in the dtype you will run in: module.to(torch.float32) rounds the
    float64 values again, which is not always the single rounding the
    engine makes. Errors (ModelFileError, a ValueError) name the file and
    the field."""
    path = os.fspath(path)
    ext = os.path.splitext(path)[1].lower()
    try:
        if ext == ".json":
            arch, tensors = _read_json(path)
            default = torch.float64
        elif ext == ".safetensors":
            arch, tensors, default = _read_safetensors(path)
        else:
            raise ModelFileError("%r must end in .json or .safetensors" % path)
        dtype = default if dtype is None else dtype
        try:
            dtype = _Arith(dtype).precision
        except (ValueError, TypeError):
            raise ModelFileError("dtype %s: cookbook_torch runs in torch.float64 (fp64), torch.float32 (fp32), "
                                 "or the emulated fp16, bf16, fp8-e4m3, fp8-e5m2" % (dtype,)) from None
        model = _build(arch, tensors, dtype, False)
    except ModelFileError as e:
        raise ModelFileError("%s: %s" % (path, e)) from None
    params = dict(model.named_parameters())
    for name, t in tensors.items():
        if t.weights is not None:
            params[name].exact = t.texts()
    return model


# --- Writing -----------------------------------------------------------------

def _exact_text(x):
    """The exact value of a float, as a fraction in lowest terms."""
    if not math.isfinite(x):
        raise ValueError("%r is not a finite number" % x)
    f = Fraction(x)
    return str(f.numerator) if f.denominator == 1 else "%d/%d" % (f.numerator, f.denominator)


def _texts(name, tensor, fmt):
    """The weights of one parameter as texts: the exact text it was built
    or read from (its attribute exact) where the value is still that
    text's rounding, else the value's own."""
    known = getattr(tensor, "exact", None)
    values = tensor.detach().tolist()

    def walk(v, k, where):
        if isinstance(v, list):
            return [walk(e, k[i] if k is not None else None, "%s[%d]" % (where, i)) for i, e in enumerate(v)]
        if k is not None:
            r = num.parse_weight(k).round(fmt)
            if r == v and math.copysign(1, r) == math.copysign(1, v):
                return k
        try:
            return _exact_text(v)
        except ValueError as e:
            raise ValueError("%s%s: %s" % (name, where, e)) from None
    return walk(values, known, "")


def _to_document(module):
    """The JSON model file of a Transformer, as a dict."""
    module.validate()
    fmt = _FORMATS[module.dtype]
    sd = dict(module.named_parameters())

    def w(name):
        return _texts(name, sd[name], fmt)

    doc = {"format": FORMAT, "version": 1, "name": module.name, "max_n": module.max_n, "d": module.d}
    if module.components is not None:
        doc["components"] = list(module.components)
    doc["alphabet"] = list(module.alphabet)
    doc["word_embedding"] = w("embed.weight")
    if module.pos_embed is not None and module.pos_embed.formula is not None:
        pe = module.pos_embed
        doc["positions"] = {"name": pe.name, "depends_on_n": pe.depends_on_n, "formula": pe.formula}
    elif module.pos_embed is not None:
        pe = module.pos_embed
        table = w("pos_embed.weight")
        if pe.depends_on_n:
            table = [table[n - 1][:n] for n in range(1, module.max_n + 1)]
        else:
            table = table[:module.max_n]
        doc["positions"] = {"name": pe.name, "depends_on_n": pe.depends_on_n, "table": table}
    doc["norm"] = module.norm

    def norm(ln, name):
        out = {"eps": ln.eps}
        if ln.weight is not None:
            out["gamma"] = w(name + ".weight")
        if ln.bias is not None:
            out["beta"] = w(name + ".bias")
        if ln.select is not None:
            out["select"] = w(name + ".select.weight")
        return out

    layers = []
    for l, layer in enumerate(module.layers):
        out = {}
        if layer.attn_norm is not None:
            out["attention_norm"] = norm(layer.attn_norm, "layers.%d.attn_norm" % l)
        if layer.attn is not None:
            a = layer.attn
            att = {"mask": a.mask, "weighting": a.weighting, "scale": a.scale}
            if a.temperature is not None:
                att["temperature"] = a.temperature
            att["heads"] = [{"query": w("layers.%d.attn.heads.%d.q_proj.weight" % (l, h)),
                             "key": w("layers.%d.attn.heads.%d.k_proj.weight" % (l, h)),
                             "value": w("layers.%d.attn.heads.%d.v_proj.weight" % (l, h))} for h in range(len(a.heads))]
            out["attention"] = att
        out["attention_residual"] = layer.attn_residual
        if layer.ffn_norm is not None:
            out["feed_forward_norm"] = norm(layer.ffn_norm, "layers.%d.ffn_norm" % l)
        if layer.ffn is not None:
            base = "layers.%d.ffn." % l
            ff = {"activation": layer.ffn.activation, "w1": w(base + "fc1.weight")}
            if layer.ffn.fc1.bias is not None:
                ff["b1"] = w(base + "fc1.bias")
            ff["w2"] = w(base + "fc2.weight")
            if layer.ffn.fc2.bias is not None:
                ff["b2"] = w(base + "fc2.bias")
            out["feed_forward"] = ff
        out["feed_forward_residual"] = layer.ffn_residual
        layers.append(out)
    doc["layers"] = layers
    if module.final_norm is not None:
        doc["final_norm"] = norm(module.final_norm, "final_norm")
    doc["output"] = {"kind": module.output, "w": w("unembed.weight")}
    if module.labels is not None:
        doc["output"]["labels"] = list(module.labels)
    return doc


def _format(v, indent):
    """JSON with a list of scalars (a row of weights) on one line, as
    export writes it."""
    inner = indent + "  "
    if isinstance(v, dict):
        if not v:
            return "{}"
        return "{\n" + ",\n".join(inner + json.dumps(k, ensure_ascii=False) + ": " + _format(x, inner) for k, x in v.items()) + "\n" + indent + "}"
    if isinstance(v, list) and any(isinstance(x, (list, dict)) for x in v):
        return "[\n" + ",\n".join(inner + _format(x, inner) for x in v) + "\n" + indent + "]"
    return json.dumps(v, ensure_ascii=False, separators=(", ", ": "))


def save(module, path):
    """Write a Transformer as a JSON model file that 'verify check --model'
    reads. Each weight is written exactly: the text it was loaded from when
    its value is unchanged, else the exact value of its float (0.1 in
    float64 is 3602879701896397/36028797018963968, so the file means what
    the module computes). The file is written whole or not at all."""
    path = os.fspath(path)
    if os.path.splitext(path)[1].lower() != ".json":
        raise ValueError("%r: save writes JSON model files (.json)" % path)
    text = _format(_to_document(module), "") + "\n"
    directory = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=".cookbook-", suffix=".json", dir=directory)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        # mkstemp makes the file 0600; a saved model is a plain file, as
        # 'verify export' writes it: 0666 less the umask.
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise
