"""The PyTorch module against the engine on seeded random models.

The recipes' weights are mostly small integers, whose sums are exact in
any order, so they would not notice a module that sums in another order or
rounds exp differently. These models have weights like 3/7, -0.3 and
sqrt(2)/3, so nearly every operation rounds (and a few like 1e30, which
overflow), and they combine every mask,
weighting, scale, temperature, norm placement (with selective norms and a
final norm), activation, residual switch, absent sublayer, position table
and output kind. Each is written as a JSON model file, run by
'verify run --model FILE --json' and by cookbook_torch.load(FILE) at fp64
(torch.float64) and fp32 (torch.float32), and the outputs must be equal bit
for bit. The engine is an independent implementation; no expected value
comes from either.

COOKBOOK_SEED sets the seed (default 1); the test prints it.
"""

import itertools
import json
import math
import os
import random
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.dirname(HERE))

import torch  # noqa: E402

import cookbook_torch  # noqa: E402
from test_engine_match import SEED, run, same, verify_binary  # noqa: E402

MODELS = 64
MASKS = ["none", "future", "strict-future", "past", "strict-past"]
WEIGHTINGS = ["softmax", "lhardmax", "rhardmax", "avghardmax"]
ACTIVATIONS = ["relu", "gelu", "gelu-tanh", "gelu-sigmoid", "linear"]
IRRATIONAL = ["sqrt(2)/3", "-log(3)", "pi/4", "exp(-1/2)", "sin(1)"]


def weight(rng, zero=0.25):
    r = rng.random()
    if r < zero:
        return "0"
    if rng.random() < 0.006:
        # Products past float32's range (3.4e38), sums past float64's:
        # infinities and NaNs through every operation.
        return rng.choice(["1e25", "-3e30", "1e160", "-2e200"])
    if r < 0.45:
        return str(rng.randint(-3, 3))
    if r < 0.75:
        return "%d/%d" % (rng.randint(-9, 9), rng.choice([3, 7, 10, 11]))
    if r < 0.95:
        return "%s%d.%d" % (rng.choice(["", "-"]), rng.randint(0, 2), rng.randint(1, 99))
    return rng.choice(IRRATIONAL)


def matrix(rng, rows, cols, zero=0.25):
    return [[weight(rng, zero) for _ in range(cols)] for _ in range(rows)]


def norm(rng, d, select):
    out = {"eps": rng.choice(["1/100", "1e-5", "1/3", "0.5"])}
    m = d
    if select:
        m = rng.randint(2, d + 1)
        out["select"] = matrix(rng, m, d)
    if rng.random() < 0.6:
        out["gamma"] = [weight(rng, 0) for _ in range(m)]
    if rng.random() < 0.6:
        out["beta"] = [weight(rng) for _ in range(m)]
    return out, m


def random_model(rng, k):
    d = rng.randint(2, 5)
    max_n = 5
    alphabet = ["a", "b", "c"][:rng.randint(2, 3)]
    placement = rng.choice(["none", "post", "pre"])
    doc = {"format": "transformer-cookbook-model", "version": 1, "name": "random-%d" % k, "max_n": max_n, "d": d,
           "alphabet": alphabet, "word_embedding": [[weight(rng, 0.1) for _ in range(d)] for _ in alphabet]}
    pos = rng.choice([None, "fixed", "by-n"])
    if pos == "fixed":
        doc["positions"] = {"name": "random", "depends_on_n": False, "table": matrix(rng, max_n, d, 0.1)}
    elif pos == "by-n":
        doc["positions"] = {"name": "random by n", "depends_on_n": True,
                            "table": [matrix(rng, n, d, 0.1) for n in range(1, max_n + 1)]}
    doc["norm"] = placement
    layers = []
    for _ in range(rng.randint(1, 3)):
        layer = {}
        for sub in ("attention", "feed_forward"):
            d_in = d
            if placement != "none" and rng.random() < 0.5:
                n, d_in = norm(rng, d, placement == "pre" and rng.random() < 0.4)
                layer[sub + "_norm"] = n
            if rng.random() < 0.85:
                if sub == "attention":
                    att = {"mask": rng.choice(MASKS), "weighting": rng.choice(WEIGHTINGS),
                           "scale": rng.choice(["sqrt-d-key", "none"])}
                    if rng.random() < 0.4:
                        att["temperature"] = rng.choice(["1/2", "3/7", "2", "0.1"])
                    heads = []
                    for _ in range(rng.randint(1, 2)):
                        d_key = rng.randint(1, 3)
                        # A zero query scores every key alike: ties for the
                        # hard weightings, a uniform softmax.
                        qz = 1.0 if rng.random() < 0.3 else 0.25
                        heads.append({"query": matrix(rng, d_key, d_in, qz), "key": matrix(rng, d_key, d_in),
                                      "value": matrix(rng, d, d_in)})
                    att["heads"] = heads
                    layer["attention"] = att
                else:
                    hidden = rng.randint(1, 4)
                    # A zero row of W1 gives pre-activations ±0 (−0 when the
                    # products are −0): ReLU makes both +0.
                    ff = {"activation": rng.choice(ACTIVATIONS), "w1": matrix(rng, hidden, d_in, rng.choice([0.25, 1.0]))}
                    if rng.random() < 0.6:
                        ff["b1"] = [weight(rng) for _ in range(hidden)]
                    ff["w2"] = matrix(rng, d, hidden)
                    if rng.random() < 0.6:
                        ff["b2"] = [weight(rng) for _ in range(d)]
                    layer["feed_forward"] = ff
            layer[sub + "_residual"] = rng.random() < 0.8
        layers.append({k: layer[k] for k in ("attention_norm", "attention", "attention_residual", "feed_forward_norm",
                                            "feed_forward", "feed_forward_residual") if k in layer})
    doc["layers"] = layers
    if placement == "pre" and rng.random() < 0.5:
        doc["final_norm"], _ = norm(rng, d, False)
    kind = rng.choice(["readout", "sign", "argmax", "softmax"])
    rows = 1 if kind == "sign" else rng.randint(2, 3)
    doc["output"] = {"kind": kind, "w": matrix(rng, rows, d)}
    if kind != "sign":
        doc["output"]["labels"] = ["y%d" % r for r in range(rows)]
    return doc


class TestRandomModels(unittest.TestCase):
    def test_random_models(self):
        rng = random.Random(SEED)
        print("\nseed %d (COOKBOOK_SEED): %d random models" % (SEED, MODELS), flush=True)
        with tempfile.TemporaryDirectory() as tmp:
            verify = verify_binary(tmp)
            compared = nonfinite = 0
            for k in range(MODELS):
                doc = random_model(rng, k)
                path = os.path.join(tmp, "random-%d.json" % k)
                with open(path, "w") as f:
                    json.dump(doc, f)
                inputs = [" ".join(t) for n in (1, 2) for t in itertools.product(doc["alphabet"], repeat=n)]
                inputs += [" ".join(rng.choice(doc["alphabet"]) for _ in range(rng.randint(3, 5))) for _ in range(6)]
                lines = os.path.join(tmp, "inputs.txt")
                with open(lines, "w") as f:
                    f.write("\n".join(inputs) + "\n")
                # and one of the emulated precisions in turn (their
                # overflow, NaN and subnormal paths come up here, which
                # the recipes' small integer weights seldom reach).
                low = ("fp16", "bf16", "fp8-e4m3", "fp8-e5m2")[k % 4]
                for precision, dtype in (("fp64", torch.float64), ("fp32", torch.float32), (low, low)):
                    engine = json.loads(run([verify, "run", "--model", path, "--inputs", lines, "--precision", precision,
                                             "--json"]).stdout)["runs"]
                    m = cookbook_torch.load(path, dtype=dtype)
                    for text, r in zip(inputs, engine):
                        y = m(text)
                        symbols = m.decide(y)
                        for pos, row, sym in zip(r["positions"], y.tolist(), symbols):
                            where = "random-%d at %s on %r, position %d" % (k, precision, text, pos["position"])
                            self.assertEqual(pos.get("symbol", ""), sym or "", where)
                            self.assertEqual(len(pos["values"]), len(row), where)
                            for ev, v in zip(pos["values"], row):
                                self.assertTrue(same(ev, v), "%s, %s: module %r, engine %s (%s); model file:\n%s" % (
                                    where, ev["label"], v, ev["text"], ev.get("exact"), json.dumps(doc)))
                                nonfinite += not math.isfinite(v)
                        compared += 1
            print("%d runs compared, %d non-finite values among their outputs" % (compared, nonfinite))


if __name__ == "__main__":
    unittest.main()
