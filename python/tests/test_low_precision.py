"""The PyTorch module at the low precisions, against the engine, and its
8-bit rounding against values worked out by hand.

For every recipe 'verify list' names (at its first weighting; a seeded
sample when COOKBOOK_LOWP_ALL is not set, to keep the run short), the model
is exported at a small N with 'verify export --dtype D --round-weights' for
D = F16, BF16, F8_E4M3 and F8_E5M2, loaded with cookbook_torch.load (at the
file's default precision: fp16, bf16, fp8-e4m3, fp8-e5m2) and run on the
inputs of test_engine_match; the outputs must equal those of 'verify run
--model FILE --json' bit for bit (the same exact value, sign of zero, NaN,
infinity and decision). A recipe whose weights the writer refuses even
when rounding (a weight beyond the dtype's largest finite number) is
reported as skipped for that dtype. A recipe over vectors, which 'verify
run --model' does not read, is compared with 'verify run --recipe R
--precision P' instead (the file, and the JSON file loaded at P).

VERIFY names a built 'verify' binary; COOKBOOK_SEED sets the seed.
"""

import json
import math
import os
import random
import re
import subprocess
import sys
import tempfile
import time
import unittest
from concurrent.futures import ThreadPoolExecutor
from fractions import Fraction

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
sys.path.insert(0, HERE)

import torch  # noqa: E402

import cookbook_torch  # noqa: E402
from cookbook_torch import _numbers as num  # noqa: E402
from cookbook_torch._model import round_to_format  # noqa: E402
from test_engine_match import SEED, Config, recipes, same, verify_binary  # noqa: E402

DTYPES = {"F16": "fp16", "BF16": "bf16", "F8_E4M3": "fp8-e4m3", "F8_E5M2": "fp8-e5m2"}
SAMPLE = 30         # recipe settings compared (all with COOKBOOK_LOWP_ALL=1)
INPUTS = 16         # input lines per recipe at most


def compare(model, r, where, mismatches):
    y = model.run_stream(r["stream"]) if "stream" in r else model(r["symbols"])
    symbols = model.decide(y)
    values = y.tolist()
    if len(r["positions"]) != len(values):
        mismatches.append("%s: %d positions, engine %d" % (where, len(values), len(r["positions"])))
    for pos, row, sym in zip(r["positions"], values, symbols):
        if "symbol" in pos and pos["symbol"] != (sym or ""):
            mismatches.append("%s position %d: symbol %r, engine %r" % (where, pos["position"], sym, pos["symbol"]))
        if len(pos["values"]) != len(row):
            mismatches.append("%s position %d: %d values, engine %d" % (where, pos["position"], len(row), len(pos["values"])))
        for ev, v in zip(pos["values"], row):
            if not same(ev, v):
                mismatches.append("%s position %d %s: %r (%s), engine %s (%s)" % (
                    where, pos["position"], ev["label"], v, Fraction(v) if math.isfinite(v) else v, ev["text"], ev.get("exact")))


def check_config(verify, tmp, recipe, weighting):
    """(tag, {dtype: inputs compared, or None when export refused}, mismatches)."""
    c = Config(verify, tmp, recipe, weighting)
    c.export()  # the JSON file and the n the recipe needs
    first = cookbook_torch.load(c.files["json"])
    kind, lines = c.inputs(first.alphabet)
    done, mismatches = {}, []
    lines = lines[:INPUTS]
    for dt, precision in DTYPES.items():
        f = os.path.join(c.dir, "m-%s.safetensors" % dt)
        p = subprocess.run([verify, "export", "--recipe", recipe, "--n", str(c.n), "--out", f, "--dtype", dt,
                            "--round-weights"] + c.wflag, capture_output=True, text=True)
        if p.returncode != 0:
            done[dt] = None
            continue
        model = cookbook_torch.load(f)
        if model.dtype != precision:
            mismatches.append("%s: loaded at %s, want %s" % (dt, model.dtype, precision))
        if kind != "symbols":
            # 'verify run --model' reads strings of the alphabet only: the
            # recipe's own run at the precision rounds each exact weight
            # once, as the file and the JSON file loaded at it do.
            kept, runs = c.engine(lines, precision)
            as_json = cookbook_torch.load(c.files["json"], dtype=precision)
            for text, r in zip(kept, runs):
                if r["precision"] != precision:
                    mismatches.append("%s %r: the engine ran at %s" % (dt, text, r["precision"]))
                for m, what in ((model, dt), (as_json, dt + " JSON")):
                    try:
                        compare(m, r, "%s on %r" % (what, text), mismatches)
                    except ValueError as e:
                        mismatches.append("%s on %r: the module raised %s" % (what, text, e))
            done[dt] = len(runs)
            continue
        inputs = os.path.join(c.dir, "inputs-%s.txt" % dt)
        kept = list(lines)
        runs = []
        while kept:
            with open(inputs, "w") as fh:
                fh.write("\n".join(kept) + "\n")
            p = subprocess.run([verify, "run", "--model", f, "--json", "--inputs", inputs], capture_output=True, text=True)
            if p.returncode in (0, 1) and p.stdout:
                runs = json.loads(p.stdout)["runs"]
                break
            m = re.search(r"--inputs line (\d+):", p.stderr)
            if p.returncode == 2 and m:
                del kept[int(m.group(1)) - 1]
                continue
            raise RuntimeError("run --model %s: exit %d: %s" % (f, p.returncode, p.stderr.strip()))
        for text, r in zip(kept, runs):
            if r["precision"] != precision:
                mismatches.append("%s %r: the engine ran at %s" % (dt, text, r["precision"]))
            try:
                compare(model, r, "%s on %r" % (dt, text), mismatches)
            except ValueError as e:
                mismatches.append("%s on %r: the module raised %s" % (dt, text, e))
        done[dt] = len(runs)
    return c.tag, done, mismatches


class TestLowPrecisionEngineMatch(unittest.TestCase):
    def test_recipes(self):
        with tempfile.TemporaryDirectory() as tmp:
            verify = verify_binary(tmp)
            configs = [(r, ws[0] if ws else None) for r, ws in recipes(verify)]
            rng = random.Random("lowp:%d" % SEED)
            if not os.environ.get("COOKBOOK_LOWP_ALL"):
                configs = sorted(rng.sample(configs, min(SAMPLE, len(configs))))
            print("\nseed %d (COOKBOOK_SEED): %d recipe settings at %s" % (SEED, len(configs), ", ".join(DTYPES)), flush=True)
            start = time.time()
            with ThreadPoolExecutor(max_workers=2) as pool:
                results = list(pool.map(lambda rw: check_config(verify, tmp, *rw), configs))
            matched = {dt: 0 for dt in DTYPES}
            for (recipe, weighting), (tag, done, mismatches) in zip(configs, results):
                print("  %-36s %s: %s" % (tag, " ".join("%s %s" % (dt, "-" if n is None else n) for dt, n in done.items()),
                                         "equal" if not mismatches else "%d MISMATCHES" % len(mismatches)))
                for dt, n in done.items():
                    if n and not any(m.startswith(dt + " ") or m.startswith(dt + ":") for m in mismatches):
                        matched[dt] += 1
                with self.subTest(recipe=recipe, weighting=weighting):
                    self.assertEqual(mismatches[:5], [], "%d mismatches" % len(mismatches))
            print("recipes matched: %s (- : export refused); %.0f s" % (
                ", ".join("%s %d" % kv for kv in matched.items()), time.time() - start))
            for dt in DTYPES:
                self.assertGreater(matched[dt], len(configs) // 2, dt)


def r8(fmt, xs):
    return round_to_format(torch.tensor(xs, dtype=torch.float64), fmt).tolist()


class TestFP8Rounding(unittest.TestCase):
    """Expected values from the formats' definitions: E4M3 has p = 4 (3
    fraction bits), emin = −6, subnormals k·2^−9, largest 448 = 1.75·2^8, no
    infinities (overflow is NaN); E5M2 has p = 3, emin = −14, subnormals
    k·2^−16, largest 57344 = 1.75·2^15, overflow to ±inf."""

    def check(self, fmt, cases):
        got = r8(fmt, [x for x, _ in cases])
        for (x, want), g, fr in zip(cases, got, [num.round_fraction(Fraction(x), fmt) if math.isfinite(x) and x != 0 else None for x, _ in cases]):
            where = "%s(%r)" % (fmt.name, x)
            if isinstance(want, float) and math.isnan(want):
                self.assertTrue(math.isnan(g), where)
                if fr is not None:
                    self.assertTrue(math.isnan(fr), where + " (round_fraction)")
                continue
            self.assertEqual(g, want, where)
            self.assertEqual(math.copysign(1, g), math.copysign(1, want), where + ": sign")
            if fr is not None:
                self.assertEqual((fr, math.copysign(1, fr)), (want, math.copysign(1, want)), where + " (round_fraction)")

    def test_e4m3(self):
        f = num.FP8_E4M3
        self.check(f, [
            (1.0, 1.0), (1.0625, 1.0),          # 1 + 2^-4: halfway between 1 and 1.125, ties to even (1)
            (1.1875, 1.25),                     # halfway between 1.125 and 1.25: to 1.25 (even fraction 010)
            (1.07, 1.125), (-1.07, -1.125),
            (0.1, 0.1015625),                   # 0.1 = 1.6·2^-4: 1.625·2^-4 = 13/128
            (2.0 ** -9, 2.0 ** -9),             # smallest subnormal
            (2.0 ** -10, 0.0),                  # half of it: tie to even, 0
            (-(2.0 ** -10), -0.0),              # keeps the sign
            (1.5 * 2.0 ** -10, 2.0 ** -9),      # above the tie
            (3 * 2.0 ** -10, 2.0 ** -8),        # 1.5 subnormal steps: tie to even (2 steps)
            (5 * 2.0 ** -10, 2.0 ** -8),        # 2.5 steps: tie to even (2)
            (2.0 ** -6 - 2.0 ** -11, 2.0 ** -6),  # rounds up to the smallest normal
            (0.875 * 2.0 ** -6, 0.875 * 2.0 ** -6),  # largest subnormal
            (448.0, 448.0), (463.0, 448.0),     # below the halfway point 464
            (464.0, 448.0),                     # halfway between 448 (fraction 110, even) and 480 (111): 448
            (465.0, math.nan),                  # nearer 480, beyond 448 (S.1111.111 is NaN): overflow, NaN
            (500.0, math.nan), (-1e6, math.nan), (math.inf, math.nan), (-math.inf, math.nan),
            (math.nan, math.nan), (0.0, 0.0), (-0.0, -0.0),
            (240.0, 240.0), (248.0, 256.0),     # 1.875·2^7, tie between 240 and 256 (even): 256
        ])

    def test_e5m2(self):
        f = num.FP8_E5M2
        self.check(f, [
            (1.0, 1.0), (1.125, 1.0),           # halfway between 1 and 1.25: ties to even, 1
            (1.375, 1.5),                       # halfway between 1.25 and 1.5: to 1.5 (fraction 10)
            (0.1, 0.09375),                     # 1.6·2^-4 → 1.5·2^-4
            (2.0 ** -16, 2.0 ** -16), (2.0 ** -17, 0.0), (-(2.0 ** -17), -0.0),
            (3 * 2.0 ** -17, 2.0 ** -15),       # 1.5 steps → 2 steps
            (57344.0, 57344.0), (61439.0, 57344.0),
            (61440.0, math.inf),                # halfway to 65536: ties to even, overflow
            (-61440.0, -math.inf), (math.inf, math.inf), (-math.inf, -math.inf), (math.nan, math.nan),
        ])

    def test_fp16_bf16_against_torch(self):
        # torch's own casts (float64 → float32 → half is innocuous for
        # values of float32 range), on seeded random float32 values.
        rng = random.Random(SEED)
        xs = [rng.uniform(-1, 1) * 2.0 ** rng.randint(-30, 20) for _ in range(5000)]
        xs = torch.tensor(xs, dtype=torch.float32).to(torch.float64)
        self.assertTrue(torch.equal(round_to_format(xs, num.BINARY16), xs.to(torch.float32).to(torch.float16).to(torch.float64)))
        self.assertTrue(torch.equal(round_to_format(xs, num.BFLOAT16), xs.to(torch.float32).to(torch.bfloat16).to(torch.float64)))

    def test_every_fp8_value_decodes_and_rounds_to_itself(self):
        from cookbook_torch._files import _DTYPES
        for dt, fmt in (("F8_E4M3", num.FP8_E4M3), ("F8_E5M2", num.FP8_E5M2)):
            t = _DTYPES[dt][1](bytes(range(256)), (256,))
            finite = t[torch.isfinite(t)]
            self.assertEqual(len(finite), 254 if dt == "F8_E4M3" else 248)
            self.assertTrue(torch.equal(round_to_format(finite, fmt), finite), dt)
            self.assertEqual(finite.max().item(), fmt.max_finite)
            self.assertEqual(t[0x7F].item() != t[0x7F].item(), True) if dt == "F8_E4M3" else self.assertEqual(t[0x7C].item(), math.inf)


if __name__ == "__main__":
    unittest.main()
