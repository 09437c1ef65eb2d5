#!/usr/bin/env python3
"""Read a safetensors file with the Python standard library alone.

Every dtype the engine writes is decoded here from its definition: F64,
F32 and F16 by struct ('<d', '<f', '<e'), BF16 as the top half of an F32,
F8_E4M3 (float8_e4m3fn) and F8_E5M2 from their bit fields.

An independent check of modelfile.WriteSafetensors (the safetensors package is
not needed): it parses the file as the format's specification says, checks
its framing, and prints a JSON summary that safetensors_test.go compares
with what the engine wrote:

    {"header_length": N,
     "metadata": {"format": "pt", "cookbook_architecture": {...parsed...}},
     "tensors": {"embed.weight": {"dtype": "F64", "shape": [2, 2],
                                  "values": [1.0, 0.0, 0.0, 0.0]}, ...}}

Usage: read_safetensors.py FILE, or read_safetensors.py FILE FILE... for a
JSON list of their summaries (one Python start for many files).
"""

import json
import struct
import sys

SIZES = {"F64": 8, "F32": 4, "F16": 2, "BF16": 2, "F8_E4M3": 1, "F8_E5M2": 1}


def fp8(bits, ebits, bias, ieee):
    """An 8-bit float from its definition: E4M3 as float8_e4m3fn (no
    infinities, NaN at S.1111.111), E5M2 as IEEE."""
    m = 7 - ebits
    mant, field, neg = bits & (2**m - 1), (bits >> m) & (2**ebits - 1), bits >> 7
    if field == 2**ebits - 1 and (ieee or mant == 2**m - 1):
        v = float("nan") if mant or not ieee else float("inf")
    elif field == 0:
        v = mant * 2.0 ** (1 - bias - m)
    else:
        v = (2**m + mant) * 2.0 ** (field - bias - m)
    return -v if neg else v


def value(dtype, buf, at):
    if dtype == "F64":
        return struct.unpack_from("<d", buf, at)[0]
    if dtype == "F32":
        return struct.unpack_from("<f", buf, at)[0]
    if dtype == "F16":
        return struct.unpack_from("<e", buf, at)[0]
    if dtype == "BF16":
        (h,) = struct.unpack_from("<H", buf, at)
        return struct.unpack("<f", struct.pack("<I", h << 16))[0]
    if dtype == "F8_E4M3":
        return fp8(buf[at], 4, 7, False)
    return fp8(buf[at], 5, 15, True)


def no_duplicates(pairs):
    keys = [k for k, _ in pairs]
    if len(keys) != len(set(keys)):
        raise ValueError("duplicate keys in the header")
    return dict(pairs)


def read(path):
    with open(path, "rb") as f:
        data = f.read()
    if len(data) < 8:
        raise ValueError("shorter than the 8-byte header length")
    (n,) = struct.unpack("<Q", data[:8])
    if 8 + n > len(data):
        raise ValueError("header length past the end of the file")
    if n % 8 != 0:
        raise ValueError("header not padded to a multiple of 8 bytes")
    text = data[8 : 8 + n].decode("utf-8")
    if not text.startswith("{"):
        raise ValueError("header does not start with {")
    header = json.loads(text, object_pairs_hook=no_duplicates)
    buf = data[8 + n :]

    metadata = header.pop("__metadata__")
    if not all(isinstance(v, str) for v in metadata.values()):
        raise ValueError("metadata values must be strings")
    metadata = dict(metadata)
    metadata["cookbook_architecture"] = json.loads(metadata["cookbook_architecture"])

    # The tensors must tile the byte buffer: sorted by offset, contiguous,
    # each the size its shape and dtype say, and nothing after the last.
    at = 0
    tensors = {}
    for name, info in sorted(header.items(), key=lambda kv: kv[1]["data_offsets"]):
        begin, end = info["data_offsets"]
        size = SIZES[info["dtype"]]
        count = 1
        for dim in info["shape"]:
            count *= dim
        if begin != at or end - begin != count * size:
            raise ValueError("tensor %s: offsets [%d, %d] do not follow %d" % (name, begin, end, at))
        if begin % size != 0 or (8 + n + begin) % size != 0:
            raise ValueError("tensor %s is not aligned" % name)
        at = end
        values = [value(info["dtype"], buf, begin + k * size) for k in range(count)]
        tensors[name] = {"dtype": info["dtype"], "shape": info["shape"], "values": values}
    if at != len(buf):
        raise ValueError("%d bytes after the last tensor" % (len(buf) - at))
    return {"header_length": n, "metadata": metadata, "tensors": tensors}


if __name__ == "__main__":
    if len(sys.argv) == 2:
        json.dump(read(sys.argv[1]), sys.stdout)
    else:
        json.dump([read(path) for path in sys.argv[1:]], sys.stdout)
