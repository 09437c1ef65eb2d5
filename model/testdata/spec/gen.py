#!/usr/bin/env python3
"""Export every recipe's model and write golden outputs computed by the
independent simulator of docs/model-format.md (simulate.py).

Rerun from the repository root (about 20 s on 2 idle cores; 45-50 s on a loaded machine):

    python3 model/testdata/spec/gen.py            # uses `go build` of ./cmd/verify
    VERIFY=/tmp/v python3 model/testdata/spec/gen.py

It needs mpmath (for exp, sqrt, log, sin, cos, erf, tanh at high precision
before one rounding). It writes

  models/NAME.json   `verify export --recipe R [--weighting W] --n N` for
                     every recipe `verify list` names and every weighting it
                     lists (N = 3, smaller when the file would be large), and
                     the hand-written models/ahat-ties.json,
                     edges-nonfinite.json and layernorm-width-17.json (kept,
                     not regenerated);
  golden/NAME.json   per model, for every format (exact, fp64, fp32, fp16,
                     bf16, fp8-e4m3, fp8-e5m2), per input: the outputs at
                     every position (the symbol, for sign and argmax outputs,
                     and the values: the logits W h, or the distribution for
                     a softmax output), each exactly ("p/q", "-0", "nan",
                     "+inf", "-inf"), or the error the spec makes of the run
                     (an irrational weight, or a softmax of unequal scores,
                     in exact mode; ...);
  golden/INDEX.json  the header: seed, formats, models, and the recipes not
                     covered with the reason.

The engine (`verify run`) is never used for expected values: only `verify
list` and `verify export` are run. model/spec_golden_test.go and
python/tests/test_spec_golden.py hold the engine and the PyTorch module to
these files.
"""

import json
import os
import random
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from itertools import product

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
sys.path.insert(0, HERE)
import simulate as sim  # noqa: E402

SEED = 20250101
N = 3
MAX_MODEL_BYTES = 400_000
CAP = 30          # strings of length 1 and 2 at most
RANDOM = 4        # seeded random strings up to max_n
WMAP = {"SMAT": "softmax", "AHAT": "avghardmax", "UHAT": "lhardmax", "UHAT-right": "rhardmax"}
TIE_COUNTS = [8, 9, 16, 17, 256, 257, 2048, 2049]


def verify_binary(tmp):
    v = os.environ.get("VERIFY")
    if v:
        return v
    v = os.path.join(tmp, "verify")
    subprocess.run(["go", "build", "-o", v, "./cmd/verify"], cwd=ROOT, check=True)
    return v


def export(verify, recipe, weighting, out):
    """Export at N, or smaller when the file is large; returns n."""
    wflag = ["--weighting", weighting] if weighting else []
    for n in (N, 2, 1):
        p = subprocess.run([verify, "export", "--recipe", recipe, "--n", str(n), "--out", out, "--quiet"] + wflag,
                           capture_output=True, text=True)
        if p.returncode != 0:
            raise RuntimeError("export %s %s: %s" % (recipe, weighting, p.stderr))
        if os.path.getsize(out) <= MAX_MODEL_BYTES:
            return n
    return 1


def inputs_for(m, name):
    alpha, maxn = m["alphabet"], m["max_n"]
    out = [[s] for s in alpha]
    if maxn >= 2:
        for a, b in product(alpha, repeat=2):
            if len(out) >= CAP:
                break
            out.append([a, b])
    rng = random.Random("%d:%s" % (SEED, name))
    for _ in range(RANDOM):
        n = rng.randint(1, maxn)
        out.append([rng.choice(alpha) for _ in range(n)])
    return out


def simulate_model(args):
    name, path, inputs, positions = args
    positions = (lambda n: [n]) if positions == "last" else None
    m = sim.load(path)
    cases = []
    t0 = time.time()
    for fmt in sim.FORMAT_NAMES:
        try:
            R = sim.Rounded(m, fmt)
        except sim.SpecError as e:
            R, err = None, str(e)
        for inp in inputs:
            case = {"format": fmt}
            if len(inp) > 50:  # run-length encoded: [[symbol, count], ...]
                rle = []
                for s in inp:
                    if rle and rle[-1][0] == s:
                        rle[-1][1] += 1
                    else:
                        rle.append([s, 1])
                case["input_rle"] = rle
            else:
                case["input"] = inp
            want = positions(len(inp)) if positions else None
            if want is not None:
                case["positions"] = want
            if R is None:
                case["error"] = err
            else:
                try:
                    out = sim.run(m, inp, fmt, R, query_positions=want)
                    if want is not None:
                        out = [out[p - 1] for p in want]
                    case["outputs"] = [{"symbol": s, "values": [sim.text(v) for v in ys]} for s, ys in out]
                except sim.SpecError as e:
                    case["error"] = str(e)
            cases.append(case)
    return name, cases, time.time() - t0


# Hand-written models (kept, not regenerated), run on the same inputs as
# the recipes' models.
HAND_WRITTEN = ["edges-nonfinite", "layernorm-width-17"]


def main():
    t0 = time.time()
    models_dir = os.path.join(HERE, "models")
    golden_dir = os.path.join(HERE, "golden")
    os.makedirs(models_dir, exist_ok=True)
    os.makedirs(golden_dir, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        verify = verify_binary(tmp)
        recipes = json.loads(subprocess.run([verify, "list", "--json"], capture_output=True, text=True,
                                            check=True).stdout)["recipes"]
        jobs, index, not_covered = [], [], []
        for r in recipes:
            for w in (r["weightings"] or [None]):
                weighting = WMAP[w] if w else None
                name = r["name"] + ("-" + weighting if weighting else "")
                path = os.path.join(models_dir, name + ".json")
                n = export(verify, r["name"], weighting, path)
                m = sim.load(path)
                if m["alphabet"] == ["\u00b7"]:
                    os.remove(path)
                    not_covered.append({"recipe": r["name"], "weighting": weighting,
                                        "reason": "inputs are vectors: the model file's input is a string of "
                                                  "its alphabet (here the one placeholder symbol), and "
                                                  "`verify run --model` reads strings only (docs/commands.md, "
                                                  "docs/pytorch.md); the spec does not define how a vector "
                                                  "input enters the stream"})
                    continue
                inputs = inputs_for(m, name)
                index.append({"name": name, "recipe": r["name"], "weighting": weighting, "n": n,
                              "model": "models/%s.json" % name, "golden": "golden/%s.json" % name,
                              "inputs": len(inputs)})
                jobs.append((name, path, inputs, None))
    # hand-written models of what no recipe reaches: overflow to an
    # infinity or NaN, a zero weight on a non-finite value (0·inf), and a
    # layer norm of a width fp8 does not hold (17: fl(17) = 16 in E4M3)
    for name in HAND_WRITTEN:
        path = os.path.join(models_dir, name + ".json")
        m = sim.load(path)
        inputs = inputs_for(m, name)
        index.append({"name": name, "recipe": None, "weighting": None, "n": None,
                      "model": "models/%s.json" % name, "golden": "golden/%s.json" % name,
                      "inputs": len(inputs), "hand_written": True})
        jobs.append((name, path, inputs, None))
    # the hand-written tie model: "a" then m-1 "b"s
    ties = os.path.join(models_dir, "ahat-ties.json")
    tie_inputs = [["a"] + ["b"] * (k - 1) for k in TIE_COUNTS]
    index.append({"name": "ahat-ties", "recipe": None, "weighting": "avghardmax", "n": None,
                  "model": "models/ahat-ties.json", "golden": "golden/ahat-ties.json",
                  "inputs": len(tie_inputs), "stored_positions": "the last only"})
    jobs.append(("ahat-ties", ties, tie_inputs, "last"))
    total_values = total_cases = 0
    with ProcessPoolExecutor() as ex:
        for name, cases, dt in ex.map(_call, jobs):
            total_cases += len(cases)
            total_values += sum(len(o["values"]) + (1 if o["symbol"] else 0)
                                for c in cases for o in c.get("outputs", []))
            with open(os.path.join(golden_dir, name + ".json"), "w") as f:
                json.dump({"model": "models/%s.json" % name, "seed": SEED, "cases": cases}, f,
                          separators=(",", ":"))
                f.write("\n")
            print("%-45s %5d cases %6.1f s" % (name, len(cases), dt), flush=True)
    header = {
        "about": "golden outputs of the independent simulator model/testdata/spec/simulate.py "
                 "(docs/model-format.md); regenerate with model/testdata/spec/gen.py",
        "seed": SEED, "formats": sim.FORMAT_NAMES,
        "inputs": "every string of length 1 and 2 over the alphabet (at most %d), then %d seeded random "
                  "strings of length 1..max_n (random.Random('SEED:NAME'))" % (CAP, RANDOM),
        "models": index, "not_covered": not_covered,
        "cases": total_cases, "values": total_values,
        "seconds": round(time.time() - t0, 1),
    }
    with open(os.path.join(golden_dir, "INDEX.json"), "w") as f:
        json.dump(header, f, indent=1, ensure_ascii=False)
        f.write("\n")
    print("%d models, %d cases, %d values, %.0f s" % (len(index), total_cases, total_values, time.time() - t0))


def _call(job):
    name, path, inputs, positions = job
    return simulate_model((name, path, inputs, positions))


if __name__ == "__main__":
    main()
