"""save and load: a module built by hand in PyTorch, written with
cookbook_torch.save, is read and checked by 'verify check --model'; files
the module cannot read are refused with an error naming the part.

The module is the paper's First (§First): position encoding (−1)^i,
uniform future-masked attention with W^V = −I into c, then
GTZero_{1/3}(c − 1/3) = 3·ReLU(c − 1/3) − 3·ReLU(c − 2/3). By hand: at
i = 1, c = 1 and first = 3·(2/3) − 3·(1/3) = 1; at i > 1, c ≤ 1/3 and
first = 0. With the biases written exactly ("-1/3") the check passes at
every length in exact arithmetic. Written as Python floats (-1/3), the
biases are the float64 values, and first at i = 1 is 3·fl(1/3) ≠ 1
(fl(2/3) = 2·fl(1/3), so 3·((1 − fl(1/3)) − (1 − 2·fl(1/3))) = 3·fl(1/3)):
the check fails at n = 1, as it should.
"""

import json
import os
import subprocess
import sys
import tempfile
import unittest
from fractions import Fraction

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.dirname(HERE))

import torch  # noqa: E402

import cookbook_torch as ct  # noqa: E402
from test_engine_match import verify_binary  # noqa: E402

N = 8


def read_json(path):
    with open(path) as f:
        return json.load(f)


def first(b1):
    """The paper's First for lengths up to N, built from PyTorch."""
    return ct.Transformer(
        name="first, built in PyTorch", alphabet=["a", "b"], components=["p", "c", "first"],
        embed=torch.zeros(2, 3, dtype=torch.float64),
        positions=ct.Positions([[(-1) ** i, 0, 0] for i in range(1, N + 1)], name="(-1)^i"),
        layers=[ct.Layer(
            attn=ct.Attention([ct.Head(query=[[0, 0, 0]], key=[[0, 0, 0]], value=[[0, 0, 0], [-1, 0, 0], [0, 0, 0]])],
                              mask="future", weighting="avghardmax", scale="none"),
            ffn=ct.FeedForward(w1=[[0, 1, 0], [0, 1, 0]], b1=b1, w2=[[0, 0], [0, 0], [3, -3]], activation="relu"))],
        unembed=[[0, 0, 1], [0, 1, 0]], output="readout", labels=["first", "c"], max_n=N)


class TestFiles(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.verify = verify_binary(cls.tmp.name)

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def check(self, path, *flags):
        p = subprocess.run([self.verify, "check", "--model", path, "--spec", "first", "--json"] + list(flags),
                           capture_output=True, text=True)
        return p.returncode, p.stdout, p.stderr

    def test_first_exact(self):
        model = first(["-1/3", "-2/3"])
        y = model("abab")
        self.assertEqual(y[:, 0].tolist(), [1, 0, 0, 0])  # first
        self.assertEqual(y[:, 1].tolist(), [1, 0, 1 / 3, 0])  # c: the average of −(−1)^j
        path = os.path.join(self.tmp.name, "first.json")
        ct.save(model, path)
        doc = read_json(path)
        self.assertEqual(doc["layers"][0]["feed_forward"]["b1"], ["-1/3", "-2/3"])
        status, out, err = self.check(path)
        self.assertEqual(status, 0, err + out[:2000])
        self.assertIn('"precision": "exact"', out)
        # The file read back is the module: the engine's outputs are its
        # outputs, at fp64 bit for bit.
        run = json.loads(subprocess.run([self.verify, "run", "--model", path, "--input", "abab", "--precision", "fp64",
                                         "--json"], capture_output=True, text=True, check=True).stdout)["runs"][0]
        for pos, row in zip(run["positions"], y.tolist()):
            self.assertEqual([Fraction(v["exact"]) for v in pos["values"]], [Fraction(x) for x in row])
        # Loaded again, it is the same model.
        again = ct.load(path)
        self.assertTrue(torch.equal(again("abbba"), model("abbba")))
        self.assertEqual(again.layers[0].ffn.fc1.bias.exact, ["-1/3", "-2/3"])

    def test_save_mode(self):
        # A saved model is a plain file, as 'verify export' writes one:
        # 0666 less the umask (tempfile's 0600 would hide it from others).
        old = os.umask(0o022)
        try:
            path = os.path.join(self.tmp.name, "mode.json")
            ct.save(first(["-1/3", "-2/3"]), path)
            exported = os.path.join(self.tmp.name, "mode-export.json")
            subprocess.run([self.verify, "export", "--recipe", "first", "--out", exported], check=True, capture_output=True)
        finally:
            os.umask(old)
        self.assertEqual(os.stat(path).st_mode & 0o777, 0o644)
        self.assertEqual(os.stat(exported).st_mode & 0o777, 0o644)

    def test_first_floats(self):
        model = first([-1 / 3, -2 / 3])
        path = os.path.join(self.tmp.name, "first-floats.json")
        ct.save(model, path)
        b1 = read_json(path)["layers"][0]["feed_forward"]["b1"]
        self.assertEqual([Fraction(b) for b in b1], [Fraction(-1 / 3), Fraction(-2 / 3)])
        status, out, err = self.check(path)
        self.assertEqual(status, 1, "the float biases should fail the exact check: " + err)
        report = json.loads(out)["reports"][0]
        self.assertEqual(report["lengths"][0]["n"], 1, out[:1000])
        self.assertLess(report["lengths"][0]["passed"], report["lengths"][0]["cases"])

    def test_float32(self):
        # Built in float64 with exact texts, rounded once to float32.
        model = first(["-1/3", "-2/3"]).rounded(torch.float32)
        self.assertEqual(model.layers[0].ffn.fc1.bias.dtype, torch.float32)
        self.assertEqual(model.layers[0].ffn.fc1.bias.tolist()[0], float(torch.tensor(-1 / 3, dtype=torch.float32)))
        path = os.path.join(self.tmp.name, "first32.json")
        ct.save(model, path)
        self.assertEqual(read_json(path)["layers"][0]["feed_forward"]["b1"], ["-1/3", "-2/3"])

    def test_refused(self):
        model = first(["-1/3", "-2/3"])
        model.layers[0].ffn.fc1.bias.data[0] = float("nan")
        with self.assertRaisesRegex(ValueError, r"layers\.0\.ffn\.fc1\.bias\[0\]: nan is not a finite number"):
            ct.save(model, os.path.join(self.tmp.name, "nan.json"))
        self.assertFalse(os.path.exists(os.path.join(self.tmp.name, "nan.json")))
        with self.assertRaisesRegex(ValueError, "unknown mask 'causal'"):
            ct.Attention([ct.Head([[0]], [[0]], [[0]])], mask="causal")
        path = os.path.join(self.tmp.name, "some.json")
        ct.save(first(["-1/3", "-2/3"]), path)
        with self.assertRaisesRegex(ValueError, "dtype torch.float16: cookbook_torch runs in torch.float64"):
            ct.load(path, dtype=torch.float16)

    def test_docs_example(self):
        """The worked example of docs/pytorch.md is python/examples/first.py,
        and it runs: it writes first.json, which passes the exact check."""
        root = os.path.dirname(os.path.dirname(HERE))
        example = os.path.join(root, "python", "examples", "first.py")
        with open(os.path.join(root, "docs", "pytorch.md")) as f:
            docs = f.read()
        with open(example) as f:
            code = f.read()
        block = docs.split("```python\n", 1)[1].split("```", 1)[0]
        self.assertEqual(block, code, "docs/pytorch.md's example differs from python/examples/first.py")
        cwd = os.path.join(self.tmp.name, "example")
        os.makedirs(cwd)
        env = dict(os.environ, PYTHONPATH=os.path.join(root, "python"))
        p = subprocess.run([sys.executable, example], cwd=cwd, env=env, capture_output=True, text=True)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("[0.0000, 0.3333]", p.stdout)
        status, out, err = self.check(os.path.join(cwd, "first.json"))
        self.assertEqual(status, 0, err + out[:2000])

    def test_load_refusals(self):
        """Each broken file is one ModelFileError naming the file and the
        part, and an unsupported dtype or position form is named."""
        good = os.path.join(self.tmp.name, "good.json")
        ct.save(first(["-1/3", "-2/3"]), good)
        base = read_json(good)

        def variant(edit):
            doc = json.loads(json.dumps(base))
            edit(doc)
            return doc
        cases = [
            (lambda d: d.update(colour="blue"), "model: unknown field 'colour'"),
            (lambda d: d.update(d=3.0), "model.d: want an integer"),
            (lambda d: d["layers"][0]["attention"].update(mask="causal"), "unknown mask 'causal'"),
            (lambda d: d["layers"][0]["feed_forward"].update(b1=["1/0", "0"]), "b1[0]: '1/0' has no real value"),
            (lambda d: d["layers"][0]["feed_forward"].update(b1=["0x1p-3", "0"]), "b1[0]: '0x1p-3' is not a weight"),
            (lambda d: d["layers"][0]["feed_forward"]["w1"][1].append("0"), "w1[1]: 4 entries, want 3"),
            (lambda d: d["positions"].update(formula=[{"function": "i/n", "component": 0}]), "positions: want one of table, formula"),
            (lambda d: d["positions"].update(spiral="i"), "positions.spiral: position encodings given as 'spiral' are not supported"),
            (lambda d: d.update(word_embedding=[["0", "0", "0"]]), "word_embedding: 1 rows for 2 symbols"),
        ]
        for edit, want in cases:
            path = os.path.join(self.tmp.name, "bad.json")
            with open(path, "w") as f:
                json.dump(variant(edit), f)
            with self.subTest(want=want), self.assertRaises(ct.ModelFileError) as cm:
                ct.load(path)
            self.assertIn(path, str(cm.exception))
            self.assertIn(want, str(cm.exception))
        # A safetensors file with a dtype this module does not read.
        st = os.path.join(self.tmp.name, "lookup.safetensors")
        subprocess.run([self.verify, "export", "--recipe", "lookup", "--n", "4", "--out", st], check=True, capture_output=True)
        with open(st, "rb") as f:
            data = f.read()
        n = int.from_bytes(data[:8], "little")
        header = data[8:8 + n].replace(b'"dtype":"F64"', b'"dtype":"I64"', 1)
        self.assertNotEqual(header, data[8:8 + n])
        bf = os.path.join(self.tmp.name, "i64.safetensors")
        with open(bf, "wb") as f:
            f.write(data[:8] + header + data[8 + n:])
        with self.assertRaisesRegex(ct.ModelFileError, "dtype I64 is not supported by cookbook_torch \\(it reads F64, F32, F16, BF16, F8_E4M3, F8_E5M2\\)"):
            ct.load(bf)


if __name__ == "__main__":
    unittest.main()
