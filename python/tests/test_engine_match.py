"""The PyTorch module against the engine, on every recipe.

For every recipe 'verify list' names and every weighting the paper gives it,
the model is exported at a small N (JSON, and safetensors F64 and F32), read
with cookbook_torch.load, and run on inputs: every string of the smallest
lengths, then seeded random strings up to length N (or, for recipes whose
inputs are vectors, seeded random rational vectors). The outputs must equal
those of 'verify run --json' bit for bit: at fp64 the JSON file loaded in
torch.float64 and the F64 file, at fp32 the JSON file loaded in
torch.float32 and the F32 file. Equal means the same exact value, the same
sign of zero, NaN for NaN and the same infinity, and the same decision.
cookbook_torch.save must also write back the model it loaded.

The engine is an independent implementation (Go, math/big for exact
values); this test compares the two and takes no expected value from
either.

Run with Debian's Python, which has torch (python3-torch):

    /usr/bin/python3 -m unittest discover -s python/tests -v

VERIFY names a built 'verify' binary (otherwise the test builds one with
'go build'); COOKBOOK_SEED sets the seed of the random inputs (default 1).
"""

import itertools
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
ROOT = os.path.dirname(os.path.dirname(HERE))

import torch  # noqa: E402

import cookbook_torch  # noqa: E402

SEED = int(os.environ.get("COOKBOOK_SEED", "1"))
N = 5               # the length models are exported for (raised to a recipe's minimum)
EXHAUSTIVE = 40     # enumerate every string of a length while the count stays at most this
RANDOM = 8          # then this many seeded strings of random lengths up to N
VECTORS = 12        # seeded inputs for recipes over vectors
VALUES = ["0", "1", "-1", "2", "1/3", "-5/7", "0.1", "-2.5", "3/2", "1e-3", "17", "-1/1024"]


def verify_binary(tmp):
    path = os.environ.get("VERIFY")
    if path:
        return path
    path = os.path.join(tmp, "verify")
    subprocess.run(["go", "build", "-o", path, "./cmd/verify"], cwd=ROOT, check=True)
    return path


def run(cmd, ok=(0,)):
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode not in ok:
        raise RuntimeError("%s: exit %d: %s" % (" ".join(cmd), p.returncode, p.stderr.strip()))
    return p


def recipes(verify):
    """(name, [weighting flag values]) of every recipe, from the table
    'verify list --markdown' prints."""
    out = []
    for line in run([verify, "list", "--markdown"]).stdout.splitlines():
        m = re.match(r"\| `([^`]+)` \| .*? \| ([^|]+) \| (yes|no) \|", line)
        if m:
            ws = [w.strip() for w in m.group(2).split(",") if w.strip() != "—"]
            out.append((m.group(1), ws))
    return out


def same(engine, value):
    """Whether the engine's value (text and exact fraction) is the float
    value, sign of zero included."""
    if "exact" in engine:
        if not math.isfinite(value) or Fraction(engine["exact"]) != Fraction(value):
            return False
        return value != 0 or engine["text"].startswith("-") == (math.copysign(1, value) < 0)
    return {"NaN": math.isnan(value), "+Inf": value == math.inf, "-Inf": value == -math.inf}.get(engine["text"], False)


class Config:
    """One recipe at one weighting: its exported files and its inputs."""

    def __init__(self, verify, tmp, recipe, weighting):
        self.verify, self.recipe, self.weighting = verify, recipe, weighting
        self.tag = recipe + ("-" + weighting if weighting else "")
        self.dir = os.path.join(tmp, self.tag)
        os.makedirs(self.dir, exist_ok=True)
        self.rng = random.Random("%d:%s" % (SEED, self.tag))
        self.wflag = ["--weighting", weighting] if weighting else []

    def export(self):
        self.n = N
        for attempt in range(2):
            p = subprocess.run([self.verify, "export", "--recipe", self.recipe, "--n", str(self.n), "--out",
                                os.path.join(self.dir, "m.json")] + self.wflag, capture_output=True, text=True)
            m = re.search(r"--n must be an integer from (\d+)", p.stderr)
            if p.returncode == 2 and m and attempt == 0:
                self.n = int(m.group(1))
                continue
            if p.returncode != 0:
                raise RuntimeError("export %s: %s" % (self.tag, p.stderr.strip()))
            break
        self.files = {"json": os.path.join(self.dir, "m.json")}
        for dt in ("F64", "F32"):
            f = os.path.join(self.dir, "m-%s.safetensors" % dt)
            # The module reads what the file holds: each weight rounded once
            # to the dtype, which the writer does only when asked.
            run([self.verify, "export", "--recipe", self.recipe, "--n", str(self.n), "--out", f, "--dtype", dt, "--round-weights"] + self.wflag)
            self.files[dt] = f

    def engine(self, lines, precision):
        """'verify run --json' on the input lines; a line the engine
        refuses as bad input (a parse error, a length below the recipe's
        minimum) is dropped, the rest rerun."""
        lines = list(lines)
        while lines:
            f = os.path.join(self.dir, "inputs.txt")
            with open(f, "w") as fh:
                fh.write("\n".join(lines) + "\n")
            p = subprocess.run([self.verify, "run", "--recipe", self.recipe, "--inputs", f, "--max-n", str(self.n),
                                "--precision", precision, "--outside-domain", "--json"] + self.wflag,
                               capture_output=True, text=True)
            m = re.search(r"--inputs line (\d+):", p.stderr)
            if p.returncode == 2 and m:
                del lines[int(m.group(1)) - 1]
                continue
            if p.returncode not in (0, 1) or not p.stdout:
                raise RuntimeError("run %s at %s: exit %d: %s" % (self.tag, precision, p.returncode, p.stderr.strip()))
            return lines, json.loads(p.stdout)["runs"]
        return [], []

    def probe(self, text):
        p = subprocess.run([self.verify, "run", "--recipe", self.recipe, "--input", text, "--max-n", str(self.n),
                            "--precision", "fp64", "--outside-domain", "--json"] + self.wflag, capture_output=True, text=True)
        return p.returncode in (0, 1)

    def inputs(self, alphabet):
        """Input lines: strings of the alphabet, or vectors when the recipe
        reads vectors (found by what 'verify run' accepts)."""
        if self.probe(" ".join(alphabet[:1] * self.n)):
            lines, total = [], 0
            for n in range(1, self.n + 1):
                count = len(alphabet) ** n
                if total + count > EXHAUSTIVE:
                    break
                lines += [" ".join(t) for t in itertools.product(alphabet, repeat=n)]
                total += count
            for _ in range(RANDOM):
                n = self.rng.randint(1, self.n)
                lines.append(" ".join(self.rng.choice(alphabet) for _ in range(n)))
            return "symbols", lines
        for width in range(1, 9):
            if self.probe(", ".join(["1"] * width)):
                lines = []
                for _ in range(VECTORS):
                    n = self.rng.randint(1, min(3, self.n))
                    lines.append("; ".join(", ".join(self.rng.choice(VALUES) for _ in range(width)) for _ in range(n)))
                return "vectors of %d" % width, lines
        raise RuntimeError("%s: 'verify run' accepts neither strings of the alphabet %s nor vectors" % (self.tag, alphabet[:4]))


def check_config(verify, tmp, recipe, weighting):
    """Compare one recipe at one weighting; return (tag, kind, inputs
    compared, list of mismatches)."""
    c = Config(verify, tmp, recipe, weighting)
    c.export()
    models = {}
    for key, dtype in (("json", torch.float64), ("json", torch.float32), ("F64", torch.float64), ("F32", torch.float32)):
        models[key, dtype] = cookbook_torch.load(c.files[key], dtype=dtype)
    kind, lines = c.inputs(models["json", torch.float64].alphabet)
    mismatches, compared = [], 0
    # save writes back the file it read (a null row of the word embedding
    # as the zeros it stands for).
    saved = os.path.join(c.dir, "saved.json")
    cookbook_torch.save(models["json", torch.float64], saved)
    with open(c.files["json"]) as f, open(saved) as g:
        original, again = json.load(f), json.load(g)
    d = original["d"]
    original["word_embedding"] = [row if row is not None else ["0"] * d for row in original["word_embedding"]]
    if original != again:
        mismatches.append("save wrote a different model than the file it loaded")
    for precision, dtype, keys in (("fp64", torch.float64, ("json", "F64")), ("fp32", torch.float32, ("json", "F32"))):
        kept, runs = c.engine(lines, precision)
        if not runs:
            mismatches.append("%s: the engine ran none of the inputs" % precision)
        for text, r in zip(kept, runs):
            if r["precision"] != precision:
                mismatches.append("%s: the engine ran at %s" % (text, r["precision"]))
            for key in keys:
                m = models[key, dtype]
                where = "%s %s on %r" % (key, dtype, text)
                try:
                    y = m.run_stream(r["stream"]) if "stream" in r else m(r["symbols"])
                except ValueError as e:
                    mismatches.append("%s: the module raised %s" % (where, e))
                    continue
                symbols = m.decide(y)
                values = y.tolist()
                for pos, row, sym in zip(r["positions"], values, symbols):
                    if pos.get("symbol", "") != (sym or ""):
                        mismatches.append("%s position %d: symbol %r, engine %r" % (where, pos["position"], sym, pos.get("symbol")))
                    for ev, v in zip(pos["values"], row):
                        if not same(ev, v):
                            mismatches.append("%s position %d %s: %r (%s), engine %s (%s)" % (
                                where, pos["position"], ev["label"], v, Fraction(v) if math.isfinite(v) else v,
                                ev["text"], ev.get("exact")))
                    if len(pos["values"]) != len(row):
                        mismatches.append("%s position %d: %d values, engine %d" % (where, pos["position"], len(row), len(pos["values"])))
                if len(r["positions"]) != len(values):
                    mismatches.append("%s: %d positions, engine %d" % (where, len(values), len(r["positions"])))
            compared += 1
    return c.tag, kind, compared, mismatches


class TestEngineMatch(unittest.TestCase):
    def test_every_recipe(self):
        with tempfile.TemporaryDirectory() as tmp:
            verify = verify_binary(tmp)
            configs = [(r, w) for r, ws in recipes(verify) for w in (ws or [None])]
            self.assertGreater(len(configs), 60, "verify list --markdown gave too few recipes")
            print("\nseed %d (COOKBOOK_SEED), N = %d, %d recipe settings" % (SEED, N, len(configs)), flush=True)
            start = time.time()
            # Two workers: the engine's processes run while Python computes.
            with ThreadPoolExecutor(max_workers=2) as pool:
                results = list(pool.map(lambda rw: check_config(verify, tmp, *rw), configs))
            total = 0
            for (recipe, weighting), (tag, kind, compared, mismatches) in zip(configs, results):
                total += compared
                print("  %-40s %-14s %3d inputs × fp64, fp32 × JSON, safetensors: %s" % (
                    tag, kind, compared // 2, "equal" if not mismatches else "%d MISMATCHES" % len(mismatches)))
                with self.subTest(recipe=recipe, weighting=weighting):
                    self.assertGreater(compared, 0)
                    self.assertEqual(mismatches[:5], [], "%d mismatches" % len(mismatches))
            print("%d runs compared in %.0f s" % (total, time.time() - start))


if __name__ == "__main__":
    unittest.main()
