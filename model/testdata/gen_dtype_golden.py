#!/usr/bin/env python3
"""Golden bytes of the safetensors dtypes, computed without the engine.

Writes dtype_golden.txt, which dtype_test.go compares with the engine's
encoding and decoding. Python's standard library alone (fractions and
struct): numpy and ml_dtypes are not needed.

Each format is described by its definition: significand bits P (with the
implicit bit), exponent width and bias, and whether the all-ones exponent
holds infinities and NaNs (IEEE: F64, F32, F16, BF16, F8_E5M2) or, as in
PyTorch's float8_e4m3fn (safetensors' F8_E4M3), normal numbers except
S.1111.111, which is NaN.

  * Rounding is done on exact fractions: the value's binade gives the
    spacing of the grid, the quotient is rounded half to even, and a result
    beyond the largest finite number overflows (as IEEE 754 defines it:
    round as if the exponent were unbounded, then overflow).
  * Encoding is cross-checked against struct's IEEE encoders: '<d' for F64,
    '<f' for F32, '<e' for F16, and the top 16 bits of '<f' for BF16 (the
    values given to struct are exact, so struct does not round).
  * The 8-bit formats are checked against their table: all 256 bit patterns
    decoded from the definition, each value's encoding found by search. The
    tables are written out whole, and a few entries are asserted by hand
    from the OCP 8-bit specification (E4M3: 448 = 0x7E, 1 = 0x38, NaN =
    0x7F; E5M2: 57344 = 0x7B, 1 = 0x3C, +Inf = 0x7C).

Lines of the output:

  value DTYPE VALUE HEX exact|inexact NEAREST   encoding VALUE (HEX little-endian)
  value DTYPE VALUE overflow                     VALUE rounds beyond the largest finite
  decode DTYPE HEX VALUE                         the value of a bit pattern (nan, inf, -inf)

Usage: gen_dtype_golden.py > dtype_golden.txt
"""

import struct
from fractions import Fraction

# name: (P, exponent bits, IEEE all-ones exponent)
FORMATS = {
    "F64": (53, 11, True),
    "F32": (24, 8, True),
    "F16": (11, 5, True),
    "BF16": (8, 8, True),
    "F8_E4M3": (4, 4, False),
    "F8_E5M2": (3, 5, True),
}


def params(name):
    p, ebits, ieee = FORMATS[name]
    bias = 2 ** (ebits - 1) - 1
    emin = 1 - bias
    if ieee:
        emax = bias
        maxfin = (2 - Fraction(1, 2 ** (p - 1))) * Fraction(2) ** emax
    else:
        # E4M3fn: exponent field 1111 is normal, 1111.111 is NaN, so the
        # largest finite is 1.110 x 2^8 = 448.
        emax = 2 ** ebits - 1 - bias
        maxfin = (2 - Fraction(2, 2 ** (p - 1))) * Fraction(2) ** emax
    return p, ebits, bias, emin, emax, maxfin


def pow2(k):
    return Fraction(2) ** k


def round_to(name, x):
    """x rounded to nearest, ties to even; None on overflow."""
    p, _, _, emin, _, maxfin = params(name)
    if x == 0:
        return Fraction(0)
    a = abs(x)
    e = 0
    while pow2(e) > a:
        e -= 1
    while pow2(e + 1) <= a:
        e += 1
    e = max(e, emin)
    ulp = pow2(e - p + 1)
    q = a / ulp
    n = q.numerator // q.denominator
    rest = q - n
    if rest > Fraction(1, 2) or (rest == Fraction(1, 2) and n % 2 == 1):
        n += 1
    r = n * ulp
    if r > maxfin:
        return None
    return r if x > 0 else -r


def encode(name, x):
    """The bit pattern of x, a finite number of the format."""
    p, ebits, bias, emin, _, _ = params(name)
    sign = 1 if x < 0 else 0
    a = abs(x)
    if a == 0:
        return 0
    if a < pow2(emin):
        field, frac = 0, a / pow2(emin - p + 1)
    else:
        e = 0
        while pow2(e) > a:
            e -= 1
        while pow2(e + 1) <= a:
            e += 1
        field, frac = e + bias, a / pow2(e - p + 1) - 2 ** (p - 1)
    assert frac.denominator == 1, (name, x)
    return sign << (ebits + p - 1) | field << (p - 1) | int(frac)


def decode(name, bits):
    p, ebits, bias, emin, _, _ = params(name)
    ieee = FORMATS[name][2]
    m = p - 1
    mant = bits & (2**m - 1)
    field = (bits >> m) & (2**ebits - 1)
    neg = (bits >> (m + ebits)) & 1
    ones = 2**ebits - 1
    if field == ones and ieee:
        if mant:
            return "nan"
        return "-inf" if neg else "inf"
    if field == ones and not ieee and mant == 2**m - 1:
        return "nan"
    if field == 0:
        v = mant * pow2(emin - m)
    else:
        v = (2**m + mant) * pow2(field - bias - m)
    return -v if neg else v


def size(name):
    p, ebits, _ = FORMATS[name]
    return (1 + ebits + p - 1) // 8


def le_hex(name, bits):
    return bits.to_bytes(size(name), "little").hex()


def struct_bits(name, v):
    """The IEEE encoders of struct, for an exact value v of the format."""
    f = float(v)
    assert Fraction(f) == v
    if name == "F64":
        return struct.unpack("<Q", struct.pack("<d", f))[0]
    if name == "F32":
        return struct.unpack("<I", struct.pack("<f", f))[0]
    if name == "F16":
        return struct.unpack("<H", struct.pack("<e", f))[0]
    if name == "BF16":
        return struct.unpack("<I", struct.pack("<f", f))[0] >> 16
    return None


def text(v):
    if isinstance(v, str):
        return v
    return str(v.numerator) if v.denominator == 1 else "%d/%d" % (v.numerator, v.denominator)


VALUES = [
    "0", "1", "-1", "1/2", "1/4", "-3/4", "3/2", "-11/4", "2", "3", "7", "15", "17",
    "1/3", "-3/7", "1/10", "1/1000",
    "240", "256", "448", "464", "465", "480", "-448", "57344", "61440", "61441",
    "1025", "2049", "2051", "65504", "65519", "65520",
    "1/64", "1/512", "1/1024", "3/2048", "1/65536", "1/131072",
    "1/16777216", "1/33554432", "3/67108864",
    "340282366920938463463374607431768211456",  # 2^128, beyond F32 and BF16
    "338953138925153547590470800371487866880",  # 2^127 x (2 - 2^-7), BF16's largest
]

HAND = {
    ("F8_E4M3", Fraction(448)): 0x7E,
    ("F8_E4M3", Fraction(1)): 0x38,
    ("F8_E4M3", Fraction(-1, 2)): 0xB0,
    ("F8_E4M3", Fraction(1, 512)): 0x01,
    ("F8_E4M3", Fraction(256)): 0x78,
    ("F8_E5M2", Fraction(57344)): 0x7B,
    ("F8_E5M2", Fraction(1)): 0x3C,
    ("F8_E5M2", Fraction(1, 65536)): 0x01,
    ("F16", Fraction(65504)): 0x7BFF,
    ("F16", Fraction(1)): 0x3C00,
    ("BF16", Fraction(1)): 0x3F80,
}


def main():
    out = []
    tables = {}
    for name in ("F8_E4M3", "F8_E5M2"):
        tables[name] = {b: decode(name, b) for b in range(256)}
        assert tables[name][0x7F] == "nan" and tables[name][0xFF] == "nan"
    assert tables["F8_E4M3"][0x7E] == 448 and tables["F8_E4M3"][0x78] == 256
    assert tables["F8_E5M2"][0x7C] == "inf" and tables["F8_E5M2"][0x7B] == 57344

    for name in FORMATS:
        for s in VALUES:
            x = Fraction(s)
            r = round_to(name, x)
            if r is None:
                out.append("value %s %s overflow" % (name, s))
                continue
            bits = encode(name, r)
            assert decode(name, bits) == r
            sb = struct_bits(name, r)
            assert sb is None or sb == bits or (r == 0 and sb & ~(1 << (8 * size(name) - 1)) == 0), (name, s, hex(sb), hex(bits))
            if name in tables:
                found = [b for b, v in tables[name].items() if v == r and not (r == 0 and b & 0x80)]
                assert found == [bits], (name, s, found, bits)
            if (name, r) in HAND and r == x:
                assert HAND[(name, r)] == bits, (name, s)
            out.append("value %s %s %s %s %s" % (name, s, le_hex(name, bits), "exact" if r == x else "inexact", text(r)))

    for name in ("F8_E4M3", "F8_E5M2"):
        for b in range(256):
            out.append("decode %s %s %s" % (name, le_hex(name, b), text(tables[name][b])))
    specials = [("F16", 0x7C00), ("F16", 0xFC00), ("F16", 0x7E00), ("F16", 0x0001), ("F16", 0x8000),
                ("BF16", 0x7F80), ("BF16", 0xFF80), ("BF16", 0x7FC0), ("BF16", 0x0001), ("BF16", 0x7F7F),
                ("F32", 0x7F800000), ("F32", 0x7FC00000), ("F32", 0x00000001),
                ("F64", 0x7FF0000000000000), ("F64", 0x7FF8000000000000), ("F64", 0x0000000000000001)]
    for name, b in specials:
        out.append("decode %s %s %s" % (name, le_hex(name, b), text(decode(name, b))))
    print("\n".join(out))


if __name__ == "__main__":
    main()
