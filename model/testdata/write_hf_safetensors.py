#!/usr/bin/env python3
"""Rewrite a model file as Hugging Face's safetensors writer would, in F16
or BF16.

Reads IN (an F64 file written by `verify export`) and writes OUT with every
tensor in DTYPE, or, given OTHER, embed.weight and pos_embed.weight in
OTHER (a file of mixed dtypes, as models that keep their embeddings wider
are). The metadata, with the architecture, is carried over.

With PyTorch and the safetensors package importable, the file is written
by safetensors.torch.save_file. Without them (the python3 first on PATH
here has neither), it is built as that writer builds it
(safetensors/src/tensor.rs, `prepare` and `serialize`): tensors sorted by
dtype, widest alignment first (BF16 before F16), then by name; a compact
JSON header with "__metadata__" first and each tensor's dtype, shape and
data_offsets in that order; the header padded with spaces to a multiple of
8 bytes; little-endian data. F16 is encoded by struct's '<e', BF16 as the
top 16 bits of struct's '<f'; a value that F16 or BF16 does not hold
exactly is an error, so that nothing is rounded here.

Usage: write_hf_safetensors.py IN OUT DTYPE [OTHER]
"""

import json
import struct
import sys

ORDER = {"F16": 7, "BF16": 8, "F32": 11, "F64": 12}  # the Dtype enum's order
SIZE = {"F16": 2, "BF16": 2, "F32": 4, "F64": 8}


def read_f64(path):
    with open(path, "rb") as f:
        data = f.read()
    (n,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8 : 8 + n])
    meta = header.pop("__metadata__")
    buf = data[8 + n :]
    tensors = {}
    for name, info in header.items():
        if info["dtype"] != "F64":
            raise ValueError("%s: %s, want an F64 file" % (name, info["dtype"]))
        begin, end = info["data_offsets"]
        values = [struct.unpack_from("<d", buf, k)[0] for k in range(begin, end, 8)]
        tensors[name] = (info["shape"], values)
    return meta, tensors


def encode(dtype, v):
    if dtype == "F16":
        b = struct.pack("<e", v)
        if struct.unpack("<e", b)[0] != v:
            raise ValueError("%r is not an F16 number" % v)
        return b
    if dtype == "BF16":
        (bits,) = struct.unpack("<I", struct.pack("<f", v))
        if struct.unpack("<f", struct.pack("<I", bits))[0] != v or bits & 0xFFFF:
            raise ValueError("%r is not a BF16 number" % v)
        return struct.pack("<H", bits >> 16)
    if dtype == "F32":
        return struct.pack("<f", v)
    return struct.pack("<d", v)


def dtype_of(name, dtype, other):
    if other and name in ("embed.weight", "pos_embed.weight"):
        return other
    return dtype


def write_torch(out, meta, tensors, dtype, other):
    import torch
    from safetensors.torch import save_file

    kinds = {"F16": torch.float16, "BF16": torch.bfloat16, "F32": torch.float32, "F64": torch.float64}
    sd = {}
    for name, (shape, values) in tensors.items():
        t = torch.tensor(values, dtype=torch.float64).reshape(shape)
        sd[name] = t.to(kinds[dtype_of(name, dtype, other)])
    save_file(sd, out, metadata=meta)


def write_by_hand(out, meta, tensors, dtype, other):
    names = sorted(tensors, key=lambda n: (-ORDER[dtype_of(n, dtype, other)], n))
    header = {"__metadata__": meta}
    data = bytearray()
    for name in names:
        shape, values = tensors[name]
        d = dtype_of(name, dtype, other)
        begin = len(data)
        for v in values:
            data += encode(d, v)
        header[name] = {"dtype": d, "shape": shape, "data_offsets": [begin, len(data)]}
    text = json.dumps(header, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
    text += b" " * ((8 - len(text) % 8) % 8)
    with open(out, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text + bytes(data))


def main():
    src, out, dtype = sys.argv[1:4]
    other = sys.argv[4] if len(sys.argv) > 4 else None
    meta, tensors = read_f64(src)
    try:
        import torch  # noqa: F401
        import safetensors.torch  # noqa: F401
    except ImportError:
        write_by_hand(out, meta, tensors, dtype, other)
        print("hand-built")
        return
    write_torch(out, meta, tensors, dtype, other)
    print("safetensors.torch.save_file")


if __name__ == "__main__":
    main()
