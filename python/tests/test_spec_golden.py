"""The PyTorch module against the golden outputs of the independent
simulator of docs/model-format.md (model/testdata/spec/simulate.py).

model/testdata/spec/golden holds, for every recipe's exported model (every
weighting) and for the hand-written model/testdata/spec/models/ahat-ties.json,
the simulator's outputs at every format (see model/testdata/spec/gen.py).
Each model is loaded with cookbook_torch.load(path, dtype=FORMAT) at fp64,
fp32, fp16, bf16, fp8-e4m3 and fp8-e5m2 (the module has no exact mode, so
the "exact" cases are not run here) and run on each golden input; every
stored value must equal the module's exactly (the same rational, the same
sign of zero, NaN for NaN, the same infinity) and so must the decided
symbol. A case the simulator makes an error must raise ValueError.

The module's attention loops in Python, so long inputs cost seconds: of
ahat-ties's cases longer than LONG = 20 positions only those where a count
of m tied positions that the format does not hold meets one that it does
run here (m = 257 in bf16, LONG_RUN); the others (every format at m = 256,
257, 2048 and 2049) are skipped. And of each model's cases at one format,
at most PER_FORMAT = 8 run, spread evenly over the golden file's order
(the strings of length 1, of length 2, then the random ones), so the
test stays within a minute on 2 cores. The engine's Go test runs every
case.

Run with Debian's Python, which has torch (python3-torch):

    /usr/bin/python3 -m unittest python/tests/test_spec_golden.py -v
"""

import json
import math
import multiprocessing
import os
import sys
import time
import unittest
from fractions import Fraction

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
SPEC = os.path.join(ROOT, "model", "testdata", "spec")
sys.path.insert(0, os.path.join(ROOT, "python"))

import torch  # noqa: E402,F401

import cookbook_torch  # noqa: E402

FORMATS = ["fp64", "fp32", "fp16", "bf16", "fp8-e4m3", "fp8-e5m2"]
LONG = 20
LONG_RUN = {("bf16", 257)}
PER_FORMAT = 8


def same(want, v):
    """Whether the float v is the golden text want."""
    if want == "nan":
        return math.isnan(v)
    if want == "+inf":
        return v == math.inf
    if want == "-inf":
        return v == -math.inf
    if not math.isfinite(v):
        return False
    if want == "-0":
        return v == 0 and math.copysign(1, v) < 0
    w = Fraction(want)
    if Fraction(v) != w:
        return False
    return w != 0 or math.copysign(1, v) > 0


def symbols_of(case):
    if "input_rle" in case:
        return [s for s, k in case["input_rle"] for _ in range(k)]
    return case["input"]


def run_job(job):
    """One model at one format: (name, cases, values, skipped, mismatches)."""
    name, model_path, golden_path, fmt = job
    torch.set_num_threads(1)
    with open(golden_path, encoding="utf-8") as f:
        golden = json.load(f)
    mismatches, cases, values, skipped = [], 0, 0, 0
    model = None
    todo = []
    for case in golden["cases"]:
        if case["format"] != fmt:
            continue
        syms = symbols_of(case)
        if len(syms) > LONG and (fmt, len(syms)) not in LONG_RUN:
            skipped += 1
            continue
        todo.append((case, syms))
    if len(todo) > PER_FORMAT:
        step = len(todo) / PER_FORMAT
        picked = [todo[int(k * step)] for k in range(PER_FORMAT - 1)] + [todo[-1]]
        skipped += len(todo) - len(picked)
        todo = picked
    for case, syms in todo:
        where = "%s at %s on %r" % (name, fmt, " ".join(syms) if len(syms) < 12 else
                                    "%s… (%d symbols)" % (syms[0], len(syms)))
        cases += 1
        try:
            if model is None:
                model = cookbook_torch.load(model_path, dtype=fmt)
            y = model(syms)
            decided = model.decide(y)
            rows = y.tolist()
        except ValueError as e:
            if "error" not in case:
                mismatches.append("%s: the module raised %s; the spec computes %s" % (where, e, case["outputs"]))
            continue
        if "error" in case:
            mismatches.append("%s: the spec makes this an error (%s); the module ran it" % (where, case["error"]))
            continue
        positions = case.get("positions") or list(range(1, len(rows) + 1))
        for p, want in zip(positions, case["outputs"]):
            row, sym = rows[p - 1], decided[p - 1] or ""
            if sym != want["symbol"]:
                mismatches.append("%s position %d: symbol %r, the spec %r" % (where, p, sym, want["symbol"]))
            if len(row) != len(want["values"]):
                mismatches.append("%s position %d: %d values, the spec %d" % (where, p, len(row), len(want["values"])))
                continue
            for comp, (w, v) in enumerate(zip(want["values"], row)):
                values += 1
                if not same(w, v):
                    mismatches.append("%s position %d component %d: module %r (%s), spec %s" % (
                        where, p, comp, v, Fraction(v) if math.isfinite(v) else v, w))
    return name, cases, values, skipped, mismatches


class TestSpecGolden(unittest.TestCase):
    def test_golden(self):
        t0 = time.time()
        with open(os.path.join(SPEC, "golden", "INDEX.json"), encoding="utf-8") as f:
            index = json.load(f)
        jobs = [(e["name"], os.path.join(SPEC, e["model"]), os.path.join(SPEC, e["golden"]), fmt)
                for e in index["models"] for fmt in FORMATS]
        # the long ones first (ahat-ties runs hundreds of positions)
        jobs.sort(key=lambda j: (j[0] != "ahat-ties", j[0].startswith("induction") is False))
        mismatches, cases, values, skipped = [], 0, 0, 0
        ctx = multiprocessing.get_context("fork")
        with ctx.Pool(os.cpu_count() or 1) as pool:
            for _, c, v, s, mm in pool.imap_unordered(run_job, jobs):
                cases, values, skipped = cases + c, values + v, skipped + s
                mismatches += mm
        print("\ntest_spec_golden: %d models, %d cases, %d values compared, %d cases skipped (long, or past PER_FORMAT), "
              "%.1f s" % (len(index["models"]), cases, values, skipped, time.time() - t0))
        self.assertFalse(mismatches, "%d mismatches:\n%s" % (len(mismatches), "\n".join(sorted(mismatches)[:60])))


if __name__ == "__main__":
    unittest.main()
