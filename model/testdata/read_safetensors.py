#!/usr/bin/env python3
"""Read a safetensors file with the Python standard library alone.

An independent check of model.WriteSafetensors (the safetensors package is
not needed): it parses the file as the format's specification says, checks
its framing, and prints a JSON summary that safetensors_test.go compares
with what the engine wrote:

    {"header_length": N,
     "metadata": {"format": "pt", "cookbook_architecture": {...parsed...}},
     "tensors": {"embed.weight": {"dtype": "F64", "shape": [2, 2],
                                  "values": [1.0, 0.0, 0.0, 0.0]}, ...}}

Usage: read_safetensors.py FILE
"""

import json
import struct
import sys

SIZES = {"F32": (4, "<f"), "F64": (8, "<d")}


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
        size, fmt = SIZES[info["dtype"]]
        count = 1
        for dim in info["shape"]:
            count *= dim
        if begin != at or end - begin != count * size:
            raise ValueError("tensor %s: offsets [%d, %d] do not follow %d" % (name, begin, end, at))
        if begin % size != 0 or (8 + n + begin) % size != 0:
            raise ValueError("tensor %s is not aligned" % name)
        at = end
        values = [struct.unpack_from(fmt, buf, begin + k * size)[0] for k in range(count)]
        tensors[name] = {"dtype": info["dtype"], "shape": info["shape"], "values": values}
    if at != len(buf):
        raise ValueError("%d bytes after the last tensor" % (len(buf) - at))
    return {"header_length": n, "metadata": metadata, "tensors": tensors}


if __name__ == "__main__":
    json.dump(read(sys.argv[1]), sys.stdout)
