#!/usr/bin/env python3
"""Hostile-input campaign against the `verify` binary.

Standard library only.  See README.md beside this file.

Every invocation of the binary is recorded as one JSON line in --results
(argv, exit status, wall time, peak RSS, stdout/stderr sizes, first stderr
line, the findings about it); a summary goes to --summary.

The run is reproducible: every argv, every mutated file and every delay is
drawn from random.Random seeded with "--seed" and the category name, before
anything runs (timings, RSS and the outcome of races of course vary).
"""

import argparse
import hashlib
import json
import os
import random
import re
import shutil
import signal
import struct
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))

PANIC_RE = re.compile(r"goroutine |panic:|fatal error:|\[signal SIG|runtime error:|SIGSEGV")
RSS_LIMIT_KB = 2 * 1024 * 1024  # 2 GB
TIMEOUT = 60.0
LONG_LINE = 2000

CATEGORIES = ["malformed", "cmdline", "output", "signals", "merge", "concurrency"]

# ---------------------------------------------------------------------------
# running one invocation


TIME = "/usr/bin/time" if os.access("/usr/bin/time", os.X_OK) else None


def spawn(binary, argv, timefile, **kw):
    """Start the binary under GNU time, so that the peak RSS measured is the binary's own: a child
    of this (large) Python process inherits its RSS high-water mark across exec, so wait4's
    ru_maxrss would report Python's.  Returns the Popen of time (or of the binary)."""
    if TIME:
        return subprocess.Popen([TIME, "-f", "%M", "-o", timefile, binary] + list(argv), **kw)
    return subprocess.Popen([binary] + list(argv), **kw)


def target_pid(p):
    """The pid of the binary: time's child."""
    if not TIME:
        return p.pid
    for _ in range(2000):
        try:
            with open("/proc/%d/task/%d/children" % (p.pid, p.pid)) as f:
                kids = f.read().split()
            if kids:
                return int(kids[0])
        except OSError:
            return None
        if os.waitpid(p.pid, os.WNOHANG) != (0, 0):
            return None
        time.sleep(0.001)
    return None


def finish(p, status, ru, timefile):
    """(exit status, negative for a signal; peak RSS in KB; RSS source)."""
    code = os.waitstatus_to_exitcode(status)
    p.returncode = code
    if not TIME:
        return code, ru.ru_maxrss, "wait4"
    try:
        with open(timefile) as f:
            lines = f.read().splitlines()
        os.unlink(timefile)
    except OSError:
        return code, ru.ru_maxrss, "wait4 (time wrote nothing)"
    rss = None
    for l in lines:
        m = re.match(r"Command terminated by signal (\d+)", l)
        if m:
            code = -int(m.group(1))
        if re.fullmatch(r"\d+", l.strip()):
            rss = int(l.strip())
    if rss is None:
        return code, ru.ru_maxrss, "wait4 (no %M line)"
    return code, rss, "time"


class Runner:
    def __init__(self, binary, work, results_path):
        self.bin = binary
        self.work = work
        self.iodir = os.path.join(work, "io")
        os.makedirs(self.iodir, exist_ok=True)
        self.lock = threading.Lock()
        self.counter = 0
        self.results = open(results_path, "w", encoding="utf-8")
        self.records = []

    def next_id(self):
        with self.lock:
            self.counter += 1
            return self.counter

    def execute(self, argv, cwd=None, stdin=None, stdout_to=None, timeout=TIMEOUT,
                sigplan=(), keep_stdout=False):
        """Run the binary with argv (without the program name).

        stdin: None (/dev/null), bytes, or ("path", PATH).
        stdout_to: None (captured to a file) or a path opened for writing
        (e.g. /dev/full).  sigplan: [(seconds after start, signum), ...].
        Returns (record, stdout bytes or None, stderr text)."""
        rid = self.next_id()
        cwd = cwd or self.work
        base = os.path.join(self.iodir, "r%06d" % rid)
        out_path = stdout_to or base + ".out"
        err_path = base + ".err"
        in_desc = None
        if stdin is None:
            fin = open(os.devnull, "rb")
        elif isinstance(stdin, bytes):
            with open(base + ".in", "wb") as f:
                f.write(stdin)
            fin = open(base + ".in", "rb")
            in_desc = "bytes[%d]" % len(stdin)
        else:
            fin = open(stdin[1], "rb")
            in_desc = "file " + stdin[1]
        fout = open(out_path, "wb")
        ferr = open(err_path, "wb")
        plan = sorted(sigplan)
        sent = []
        hang = False
        timefile = base + ".time"
        t0 = time.monotonic()
        try:
            p = spawn(self.bin, argv, timefile, cwd=cwd, stdin=fin, stdout=fout, stderr=ferr, close_fds=True)
        except Exception as e:  # e.g. argv too long for the kernel
            fin.close(); fout.close(); ferr.close()
            rec = {"id": rid, "argv": abbrev_argv(argv), "spawn_error": repr(e)[:300]}
            return rec, b"", ""
        fin.close(); fout.close(); ferr.close()
        tpid = None
        pause = 0.001
        while True:
            pid, status, ru = os.wait4(p.pid, os.WNOHANG)
            now = time.monotonic()
            if pid:
                break
            if plan and now - t0 >= plan[0][0]:
                _, s = plan.pop(0)
                tpid = tpid or target_pid(p)
                if tpid:
                    os.kill(tpid, s)
                    sent.append((round(time.monotonic() - t0, 4), s))
                pause = 0.001
                continue
            if now - t0 > timeout:
                tpid = tpid or target_pid(p)
                if tpid:
                    os.kill(tpid, signal.SIGKILL)
                pid, status, ru = os.wait4(p.pid, 0)
                hang = True
                break
            time.sleep(pause)
            pause = min(pause * 1.5, 0.02)
        t1 = time.monotonic()
        code, rss, rss_src = finish(p, status, ru, timefile)
        err = b""
        try:
            with open(err_path, "rb") as f:
                err = f.read(8 << 20)
            err_size = os.path.getsize(err_path)
        finally:
            os.unlink(err_path)
        out = None
        if stdout_to is None:
            out_size = os.path.getsize(out_path)
            if keep_stdout:
                with open(out_path, "rb") as f:
                    out = f.read()
            else:
                with open(out_path, "rb") as f:
                    out = f.read(4096)
            os.unlink(out_path)
        else:
            out_size = None
        if os.path.exists(base + ".in"):
            os.unlink(base + ".in")
        text = err.decode("utf-8", "replace")
        lines = text.splitlines()
        rec = {
            "id": rid,
            "argv": abbrev_argv(argv),
            "argv_chars": sum(len(a) for a in argv),
            "cwd": cwd,
            "stdin": in_desc,
            "stdout_to": stdout_to,
            "status": code,
            "wall": round(t1 - t0, 4),
            "rss_kb": rss,
            "rss_source": rss_src,
            "stdout_bytes": out_size,
            "stderr_bytes": err_size,
            "stderr_lines": len(lines),
            "stderr_first": abbrev(lines[0]) if lines else "",
            "stderr_first_len": len(lines[0]) if lines else 0,
            "stderr_max_line": max((len(l) for l in lines), default=0),
            "hang": hang,
            "timeout": timeout,
        }
        if sent:
            rec["signals_sent"] = sent
            rec["stop_after_first_signal"] = round(t1 - t0 - sent[0][0], 4)
        if out is not None and keep_stdout:
            rec["stdout_sha1"] = hashlib.sha1(out).hexdigest()
        return rec, out, text

    def record(self, rec):
        with self.lock:
            self.records.append(rec)
            self.results.write(json.dumps(rec, ensure_ascii=True) + "\n")
            self.results.flush()


def abbrev(s, limit=300):
    if len(s) <= limit:
        return s
    h = hashlib.sha1(s.encode("utf-8", "surrogateescape")).hexdigest()[:10]
    return "%s…<%d chars, sha1 %s>" % (s[:120], len(s), h)


def abbrev_argv(argv):
    return [abbrev(a, 200) for a in argv]


def generic_findings(rec, err_text, allowed=(0, 1, 2, 130), stdout_checked=True, bad_input_rule=True):
    """The findings every run is judged by."""
    f = []
    if "spawn_error" in rec:
        return f
    code = rec["status"]
    m = PANIC_RE.search(err_text)
    if m:
        i = m.start()
        f.append("panic/runtime trace on stderr: %r" % err_text[max(0, i - 40):i + 160])
    if rec["hang"]:
        f.append("hang: killed after %.0f s" % rec.get("timeout", TIMEOUT))
    elif code < 0:
        f.append("ended by signal %d (%s)" % (-code, signal_name(-code)))
    elif code not in allowed:
        f.append("exit status %d not in %s" % (code, sorted(allowed)))
    if bad_input_rule and code == 2 and not rec["hang"]:
        if rec["stderr_lines"] != 1:
            f.append("status 2 with %d stderr lines (want exactly 1)" % rec["stderr_lines"])
        if stdout_checked and rec["stdout_bytes"]:
            f.append("status 2 with %d bytes on stdout" % rec["stdout_bytes"])
    if rec["stderr_max_line"] > LONG_LINE:
        f.append("stderr line of %d characters" % rec["stderr_max_line"])
    if rec["rss_kb"] > RSS_LIMIT_KB:
        f.append("peak RSS %.2f GB" % (rec["rss_kb"] / 1048576))
    return f


def signal_name(n):
    try:
        return signal.Signals(n).name
    except Exception:
        return str(n)


def temp_leftovers(directory, before=()):
    """Files in directory that look like temporary files and were not there before."""
    try:
        names = os.listdir(directory)
    except OSError:
        return []
    return sorted(n for n in names if n not in before and
                  (".tmp" in n or "verify-" in n or n.endswith("~") or ".part" in n))


# ---------------------------------------------------------------------------
# setup: seed exports and shards


class Seeds:
    pass


def setup(runner, work):
    sd = os.path.join(work, "seed")
    os.makedirs(sd, exist_ok=True)
    S = Seeds()
    S.dir = sd
    S.models = []  # (name, path, spec, input)
    exports = [
        ("l.json", ["--recipe", "lookup", "--n", "4"], "lookup", "1:0 2:1"),
        ("d.json", ["--recipe", "dyck1", "--n", "4"], "dyck1", "( ) ( )"),
        ("f.json", ["--recipe", "first", "--n", "4"], "first", "a b"),
        ("h.json", ["--recipe", "lookup-lh", "--n", "4"], "lookup-lh", "1:0 2:1"),
        ("l.safetensors", ["--recipe", "lookup", "--n", "4", "--dtype", "F32"], "lookup", "1:0 2:1"),
        ("f.safetensors", ["--recipe", "first", "--n", "4", "--dtype", "F16", "--round-weights"], "first", "a b"),
    ]
    for name, args, spec, inp in exports:
        path = os.path.join(sd, name)
        rec, _, err = runner.execute(["export"] + args + ["--out", path], cwd=sd)
        rec.update(category="setup", sub="export " + name, findings=generic_findings(rec, err))
        runner.record(rec)
        if rec["status"] == 0 and os.path.exists(path):
            S.models.append((name, path, spec, inp))
    # the dyck1 seed's input must fit n <= 4
    S.models = [(n, p, s, ("( )" if s == "dyck1" else i)) for n, p, s, i in S.models]
    S.shards = {}
    for prec in ["fp16", "fp8-e4m3", "fp8-e5m2"]:
        files = []
        for k in (1, 2):
            path = os.path.join(sd, "p-%s-%d.json" % (prec, k))
            rec, _, err = runner.execute(["frontier", "--recipe", "lookup", "--precision", prec,
                                          "--max-n", "16", "--shard", "%d/2" % k, "--out", path,
                                          "--quiet"], cwd=sd)
            rec.update(category="setup", sub="shard %s %d/2" % (prec, k), findings=generic_findings(rec, err))
            runner.record(rec)
            files.append(path)
        S.shards[prec] = files
    # baselines: merge of the untouched shards, text and JSON, both orders
    S.baseline = {}
    for prec, (a, b) in S.shards.items():
        for order in ("ab", "ba"):
            for js in (False, True):
                files = [a, b] if order == "ab" else [b, a]
                argv = ["merge"] + files + (["--json"] if js else [])
                rec, out, err = runner.execute(argv, cwd=sd, keep_stdout=True)
                rec.update(category="setup", sub="baseline merge %s %s%s" % (prec, order, " json" if js else ""),
                           findings=generic_findings(rec, err))
                runner.record(rec)
                S.baseline[(prec, order, js)] = (rec["status"], out)
        for js in (False, True):
            if S.baseline[(prec, "ab", js)][1] != S.baseline[(prec, "ba", js)][1]:
                S.baseline_order_note = "merge output depends on the order of the shards for %s" % prec
    return S


# ---------------------------------------------------------------------------
# category 1: malformed model files

WEIGHT_KEYS = {"word_embedding", "table", "query", "key", "value", "w1", "b1", "w2", "b2", "w",
               "gamma", "beta", "weight", "bias"}
ENUM_KEYS = {"norm", "mask", "weighting", "scale", "activation", "kind", "format"}
INT_KEYS = {"max_n", "d", "version"}
BOOL_KEYS = {"depends_on_n", "attention_residual", "feed_forward_residual"}

HOSTILE_WEIGHTS = ["--1", "+1", "1/2/3", "1/0", "log(0)", "1e999999", "-1e999999", "1e-999999",
                   "NaN", "nan", "Inf", "-Inf", "∞", "0x1p3", "0x1p99999999", "1_0", " 1", "1 ", "",
                   "½", "١", "1.", "-.5", "1e", "e5", "0/0", "-0", "00001", "1/-2", "-1/-2", "3/0x2",
                   "9" * 5000, "1/" + "9" * 5000, "9" * 100000, "1e-9999999999",
                   "1e+99999999999999999999", "0.1e1000000", "\u0000", "1\u00002", "１", "1,5",
                   "1e308", "1e309", "-1e-400", "0x1.fffffffffffffp1023", "1/" + "0" * 50, "2^3",
                   "sqrt(2)", "pi", "1e9999999999999999999999999999"]
RAW_WEIGHTS = ["1e999999", "-1e999999", "1e-999999", "0.5", "1", "-1", "true", "null", "[]", "{}",
               "[\"1\"]", "9" * 5000, "NaN", "Infinity", "01", "-0", "1.0e+", "\"\\ud800\"",
               "\"\\u0000\""]
HOSTILE_INTS = ["0", "-1", "1", "3", "5", "8", "2147483648", "9223372036854775807",
                "9223372036854775808", "18446744073709551616", "9" * 5000, "1e999999", "4.0", "4.5",
                "\"4\"", "null", "true", "[]", "65536", "16777216", "16777217", "-9223372036854775808",
                "1e9", "4e0"]
HOSTILE_NAMES = ["", "\u0000", "a\u0000b", "\u001b[31mred", "\n", "\t", "x" * 100000, "\\",
                 "../../etc/passwd", "é", "y", "c", "\u202e", "\ufeff", "  ", "\r\n", "%s%n",
                 "a" * 2001]
RAW_NAMES = ["\"\\ud800\"", "\"\\udfff\\ud800\"", "null", "1", "[]", "{}"]
HOSTILE_ENUMS = ["", "bogus", "AHAT", "softmax", "none", "future", "past", "layernorm", "rmsnorm",
                 "gelu", "relu", "RELU", "Softmax", "readout", "\u0000", "x" * 100000]
INVALID_UTF8 = [b"\xff\xfe", b"\xc0\xaf", b"\xed\xa0\x80", b"\x80", b"\xf8\x88\x80\x80\x80",
                b"\xe2\x82", b"\xf4\x90\x80\x80"]


def walk(o, path=()):
    yield path, o
    if isinstance(o, dict):
        for k, v in o.items():
            yield from walk(v, path + (k,))
    elif isinstance(o, list):
        for i, v in enumerate(o):
            yield from walk(v, path + (i,))


def set_path(o, path, v):
    for p in path[:-1]:
        o = o[p]
    o[path[-1]] = v


def get_path(o, path):
    for p in path:
        o = o[p]
    return o


def del_path(o, path):
    for p in path[:-1]:
        o = o[p]
    del o[path[-1]]


class Raw:
    """A JSON token spliced into the text verbatim."""

    def __init__(self, text):
        self.text = text


def dump(rng, doc, style=None):
    raws = []

    def conv(o):
        if isinstance(o, Raw):
            raws.append(o.text)
            return "@@RAW%d@@" % (len(raws) - 1)
        if isinstance(o, dict):
            return {k: conv(v) for k, v in o.items()}
        if isinstance(o, list):
            return [conv(v) for v in o]
        return o

    c = conv(doc)
    style = style if style is not None else rng.choice(["indent", "compact", "ascii"])
    if style == "indent":
        text = json.dumps(c, indent=2, ensure_ascii=False)
    elif style == "compact":
        text = json.dumps(c, separators=(",", ":"), ensure_ascii=False)
    else:
        text = json.dumps(c)
    for i, r in enumerate(raws):
        text = text.replace('"@@RAW%d@@"' % i, r)
    return text.encode("utf-8", "surrogatepass")


def leaf_paths(doc, pred):
    return [p for p, v in walk(doc) if p and pred(p, v)]


def in_keys(p, keys):
    return any(isinstance(x, str) and x in keys for x in p)


def tree_mutation(rng, doc):
    """Mutate a parsed model document in place (or return a replacement); a description."""
    kinds = ["weight", "raw_weight", "int", "name", "raw_name", "enum", "bool", "delete_key",
             "drop_row", "add_elem", "drop_elem", "empty_matrix", "wrong_d", "alphabet",
             "labels_dup", "labels_change", "positions", "layers", "heads", "deep_nesting",
             "huge_array", "unknown_field", "format", "dup_component", "max_n_huge", "type_swap"]
    kind = rng.choice(kinds)
    if kind == "weight":
        ps = leaf_paths(doc, lambda p, v: isinstance(v, str) and in_keys(p, WEIGHT_KEYS))
        if ps:
            p = rng.choice(ps)
            val = rng.choice(HOSTILE_WEIGHTS)
            set_path(doc, p, val)
            return "weight %s = %s" % (fmt_path(p), abbrev(repr(val), 60))
    if kind == "raw_weight":
        ps = leaf_paths(doc, lambda p, v: isinstance(v, str) and in_keys(p, WEIGHT_KEYS))
        if ps:
            p = rng.choice(ps)
            val = rng.choice(RAW_WEIGHTS)
            set_path(doc, p, Raw(val))
            return "weight %s = raw %s" % (fmt_path(p), abbrev(val, 60))
    if kind == "int":
        ps = leaf_paths(doc, lambda p, v: isinstance(p[-1], str) and p[-1] in INT_KEYS)
        if ps:
            p = rng.choice(ps)
            val = rng.choice(HOSTILE_INTS)
            set_path(doc, p, Raw(val))
            return "%s = raw %s" % (fmt_path(p), abbrev(val, 60))
    if kind in ("name", "raw_name"):
        ps = leaf_paths(doc, lambda p, v: isinstance(v, str) and (
            (p[0] in ("components", "alphabet")) or "labels" in p or p in (("name",), ("positions", "name"))))
        if ps:
            p = rng.choice(ps)
            if kind == "name":
                val = rng.choice(HOSTILE_NAMES)
                set_path(doc, p, val)
                return "name %s = %s" % (fmt_path(p), abbrev(repr(val), 60))
            val = rng.choice(RAW_NAMES)
            set_path(doc, p, Raw(val))
            return "name %s = raw %s" % (fmt_path(p), val)
    if kind == "enum":
        ps = leaf_paths(doc, lambda p, v: isinstance(p[-1], str) and p[-1] in ENUM_KEYS)
        if ps:
            p = rng.choice(ps)
            val = rng.choice(HOSTILE_ENUMS)
            set_path(doc, p, val)
            return "enum %s = %s" % (fmt_path(p), abbrev(repr(val), 60))
    if kind == "bool":
        ps = leaf_paths(doc, lambda p, v: isinstance(p[-1], str) and p[-1] in BOOL_KEYS)
        if ps:
            p = rng.choice(ps)
            val = rng.choice(["\"true\"", "1", "0", "null", "false", "true"])
            set_path(doc, p, Raw(val))
            return "bool %s = raw %s" % (fmt_path(p), val)
    if kind == "delete_key":
        ps = leaf_paths(doc, lambda p, v: isinstance(p[-1], str))
        if ps:
            p = rng.choice(ps)
            del_path(doc, p)
            return "delete key %s" % fmt_path(p)
    if kind in ("drop_row", "add_elem", "drop_elem", "empty_matrix"):
        ps = leaf_paths(doc, lambda p, v: isinstance(v, list) and v and isinstance(v[0], list)
                        and in_keys(p, WEIGHT_KEYS))
        if ps:
            p = rng.choice(ps)
            m = get_path(doc, p)
            if kind == "drop_row":
                del m[rng.randrange(len(m))]
            elif kind == "add_elem":
                rng.choice(m).append(rng.choice(["0", "1", "1/2"]))
            elif kind == "drop_elem":
                r = rng.choice(m)
                if r:
                    del r[rng.randrange(len(r))]
            else:
                set_path(doc, p, rng.choice([[], [[]], [[]] * len(m)]))
            return "%s %s" % (kind, fmt_path(p))
    if kind == "wrong_d" and isinstance(doc.get("d"), int):
        doc["d"] = doc["d"] + rng.choice([-1, 1, -doc["d"], 1000])
        return "d = %d" % doc["d"]
    if kind == "alphabet" and isinstance(doc.get("alphabet"), list) and doc["alphabet"]:
        op = rng.choice(["shorter", "longer", "dup", "empty"])
        a = doc["alphabet"]
        if op == "shorter":
            a.pop()
        elif op == "longer":
            a.append("zz")
        elif op == "dup":
            a[-1] = a[0]
        else:
            doc["alphabet"] = []
        return "alphabet " + op
    if kind in ("labels_dup", "labels_change"):
        out = doc.get("output")
        if isinstance(out, dict) and isinstance(out.get("labels"), list) and out["labels"]:
            lab = out["labels"]
            if kind == "labels_dup":
                out["labels"] = [lab[0]] * len(lab)
                return "duplicate output labels %r" % out["labels"]
            op = rng.choice(["drop", "add", "empty", "swap"])
            if op == "drop":
                lab.pop()
            elif op == "add":
                lab.append("extra")
            elif op == "empty":
                out["labels"] = []
            else:
                lab.reverse()
            return "labels " + op
    if kind == "positions" and isinstance(doc.get("positions"), dict):
        pos = doc["positions"]
        op = rng.choice(["drop_row", "add_rows", "depends_on_n", "delete_table", "name"])
        if op == "drop_row" and pos.get("table"):
            pos["table"].pop()
        elif op == "add_rows" and pos.get("table"):
            pos["table"] = pos["table"] * rng.choice([2, 100])
        elif op == "depends_on_n":
            pos["depends_on_n"] = not pos.get("depends_on_n", False)
        elif op == "delete_table":
            pos.pop("table", None)
        else:
            pos["name"] = rng.choice(HOSTILE_NAMES)
        return "positions " + op
    if kind == "layers" and isinstance(doc.get("layers"), list):
        op = rng.choice(["empty", "dup", "dup_many", "delete_attention", "delete_ffn"])
        L = doc["layers"]
        if op == "empty":
            doc["layers"] = []
        elif op == "dup" and L:
            L.append(json.loads(json.dumps(L[0])))
        elif op == "dup_many" and L:
            doc["layers"] = L * rng.choice([100, 2000])
        elif op == "delete_attention" and L:
            L[0].pop("attention", None)
        elif op == "delete_ffn" and L:
            L[-1].pop("feed_forward", None)
        return "layers " + op
    if kind == "heads":
        ps = leaf_paths(doc, lambda p, v: p[-1] == "heads" and isinstance(v, list))
        if ps:
            p = rng.choice(ps)
            h = get_path(doc, p)
            op = rng.choice(["empty", "dup", "dup_many"])
            if op == "empty":
                set_path(doc, p, [])
            elif op == "dup" and h:
                h.append(json.loads(json.dumps(h[0])))
            elif h:
                set_path(doc, p, h * 1000)
            return "heads %s %s" % (op, fmt_path(p))
    if kind == "deep_nesting":
        ps = [p for p, v in walk(doc) if p]
        p = rng.choice(ps)
        depth = rng.choice([100, 1000, 10000, 100000, 1000000])
        if rng.random() < 0.5:
            val = "[" * depth + "]" * depth
        else:
            val = '{"a":' * depth + "1" + "}" * depth
        set_path(doc, p, Raw(val))
        return "deep nesting depth %d at %s" % (depth, fmt_path(p))
    if kind == "huge_array":
        op = rng.choice(["alphabet", "embedding_rows", "row", "components", "b1"])
        n = rng.choice([100000, 1000000])
        if op == "alphabet":
            doc["alphabet"] = ["s%d" % i for i in range(n)]
        elif op == "embedding_rows" and doc.get("word_embedding"):
            doc["word_embedding"] = [doc["word_embedding"][0]] * n
        elif op == "row" and doc.get("word_embedding"):
            doc["word_embedding"][0] = ["0"] * n
        elif op == "components":
            doc["components"] = ["c%d" % i for i in range(n // 10)]
        else:
            ps = leaf_paths(doc, lambda p, v: p[-1] == "b1")
            if ps:
                set_path(doc, ps[0], ["0"] * n)
        return "huge array %s %d" % (op, n)
    if kind == "unknown_field":
        ps = [p for p, v in walk(doc) if isinstance(v, dict)]
        p = rng.choice(ps)
        d = get_path(doc, p) if p else doc
        k = rng.choice(["extra", "__proto__", "", "\u0000", "Max_N", "MAX_N", "d ", "x" * 1000])
        d[k] = rng.choice([1, "x", None, [], {"a": [1, 2]}])
        return "unknown field %r at %s" % (abbrev(k, 30), fmt_path(p))
    if kind == "format":
        op = rng.choice(["format", "version", "no_format"])
        if op == "format":
            doc["format"] = rng.choice(["transformer-cookbook-model ", "Transformer-Cookbook-Model", "", "x"])
        elif op == "version":
            doc["version"] = rng.choice([0, 2, -1, 1.5, "1"])
        else:
            doc.pop("format", None)
        return "header " + op
    if kind == "dup_component" and isinstance(doc.get("components"), list) and len(doc["components"]) > 1:
        doc["components"][1] = doc["components"][0]
        return "duplicate component name %r" % doc["components"][0]
    if kind == "max_n_huge":
        doc["max_n"] = Raw(rng.choice(["65536", "16777216", "2147483647", "4294967296", "1000000000000"]))
        if rng.random() < 0.5 and isinstance(doc.get("positions"), dict):
            doc["positions"]["depends_on_n"] = True
        return "max_n huge %s" % doc["max_n"].text
    if kind == "type_swap":
        ps = [p for p, v in walk(doc) if p]
        p = rng.choice(ps)
        val = rng.choice([Raw("null"), Raw("[]"), Raw("{}"), Raw("0"), Raw("\"\""), Raw("true")])
        set_path(doc, p, val)
        return "type swap %s = %s" % (fmt_path(p), val.text)
    # fall back: a weight
    ps = leaf_paths(doc, lambda p, v: isinstance(v, str) and in_keys(p, WEIGHT_KEYS))
    p = rng.choice(ps)
    set_path(doc, p, "--1")
    return "weight %s = '--1' (fallback from %s)" % (fmt_path(p), kind)


def fmt_path(p):
    return "/" + "/".join(str(x) for x in p)


def text_mutation(rng, data):
    if len(data) < 2:
        return data + b"{", "append '{' to a %d-byte file" % len(data)
    kind = rng.choice(["truncate", "flip", "insert", "bom", "utf16", "utf32", "invalid_utf8",
                       "nul", "control", "trailing", "leading_ws", "crlf", "whole", "dup_key_text"])
    if kind == "truncate":
        cut = rng.choice([0, 1, rng.randrange(len(data)), len(data) - 1, len(data) // 2])
        return data[:cut], "truncate to %d of %d bytes" % (cut, len(data))
    if kind == "flip":
        b = bytearray(data)
        k = rng.choice([1, 2, 4, 8])
        where = []
        for _ in range(k):
            i = rng.randrange(len(b))
            b[i] ^= rng.randrange(1, 256)
            where.append(i)
        return bytes(b), "flip bytes at %s" % where
    if kind == "insert":
        i = rng.randrange(len(data))
        junk = bytes(rng.randrange(256) for _ in range(rng.choice([1, 3, 16])))
        return data[:i] + junk + data[i:], "insert %r at %d" % (junk, i)
    if kind == "bom":
        return b"\xef\xbb\xbf" + data, "UTF-8 BOM"
    if kind == "utf16":
        t = data.decode("utf-8", "surrogateescape")
        enc = rng.choice(["utf-16", "utf-16-le", "utf-16-be"])
        return t.encode(enc, "surrogatepass"), enc
    if kind == "utf32":
        return data.decode("utf-8", "surrogateescape").encode("utf-32", "surrogatepass"), "utf-32"
    if kind == "invalid_utf8":
        # inside a string: after the first quote of a random string
        idx = [m.start() + 1 for m in re.finditer(rb'"[^"\\]', data)]
        i = rng.choice(idx) if idx else 0
        bad = rng.choice(INVALID_UTF8)
        return data[:i] + bad + data[i:], "invalid UTF-8 %r at %d" % (bad, i)
    if kind == "nul":
        i = rng.randrange(len(data))
        return data[:i] + b"\x00" + data[i:], "NUL byte at %d" % i
    if kind == "control":
        idx = [m.start() + 1 for m in re.finditer(rb'"[^"\\]', data)]
        i = rng.choice(idx) if idx else 0
        c = bytes([rng.choice([1, 7, 8, 10, 13, 27, 31, 127])])
        return data[:i] + c + data[i:], "raw control char %r in a string at %d" % (c, i)
    if kind == "trailing":
        t = rng.choice([b"x", b"{}", b"\n\n", b"\x00", b"\n" + data, b" ]", b"//comment"])
        return data + t, "trailing %r" % abbrev(repr(t), 30)
    if kind == "leading_ws":
        n = rng.choice([1, 1000, 1 << 20])
        return b" " * n + data, "leading %d spaces" % n
    if kind == "crlf":
        return data.replace(b"\n", b"\r\n"), "CRLF line ends"
    if kind == "whole":
        t = rng.choice([b"", b"null", b"[]", b"{}", b"\"string\"", b"1", b" ", b"\x00" * 64,
                        b"{" * 100000, b"[" * 1000000])
        return t, "whole file %r" % abbrev(repr(t), 30)
    # duplicate a key textually: "key": value inserted before (original wins) or after
    keys = list(set(re.findall(rb'"([a-z_0-9]+)":', data)))
    keys.sort()
    if not keys:
        return data[:len(data) // 2], "truncate to half (no key to duplicate)"
    k = rng.choice(keys)
    m = list(re.finditer(rb'"' + re.escape(k) + rb'":', data))[0]
    val = rng.choice([b"0", b"\"x\"", b"null", b"[]", b"{}", b"99", b"\"none\""])
    if rng.random() < 0.5:
        return data[:m.start()] + b'"' + k + b'": ' + val + b", " + data[m.start():], \
            "duplicate key %s (value %s) before the original" % (k.decode(), val.decode())
    # after: find the end of the value crudely: insert after the next comma at depth
    j = data.find(b",", m.end())
    if j < 0:
        j = m.end()
    return data[:j] + b', "' + k + b'": ' + val + data[j:], \
        "duplicate key %s (value %s) after the original" % (k.decode(), val.decode())


def st_split(data):
    n = struct.unpack("<Q", data[:8])[0]
    return json.loads(data[8:8 + n].decode("utf-8")), data[8 + n:]


def st_join(header, body, pad=True):
    h = json.dumps(header, separators=(",", ":")).encode("utf-8", "surrogatepass")
    if pad:
        h += b" " * ((8 - len(h) % 8) % 8)
    return struct.pack("<Q", len(h)) + h + body


def safetensors_mutation(rng, data):
    try:
        header, body = st_split(data)
        if not isinstance(header, dict) or not any(k != "__metadata__" for k in header):
            raise ValueError("no tensors")
        for k, v in header.items():
            if k != "__metadata__" and not (isinstance(v, dict) and "data_offsets" in v and "dtype" in v):
                raise ValueError("odd entry")
        if not isinstance(header.get("__metadata__", {}), dict):
            raise ValueError("odd metadata")
    except Exception:
        # an earlier mutation left no header to edit: mutate the bytes
        return text_mutation(rng, data)
    kind = rng.choice(["hdr_len", "dtype", "shape", "offsets", "delete_tensor", "add_tensor",
                       "rename", "arch", "arch_text", "metadata_type", "nan", "truncate_body",
                       "trailing", "flip_body", "flip_header", "dup_key", "text", "pad_nul"])
    tensors = sorted(k for k in header if k != "__metadata__")
    if kind == "hdr_len":
        n = struct.unpack("<Q", data[:8])[0]
        v = rng.choice([0, 1, 7, n + 1, n - 1, len(data), len(data) - 7, 1 << 32, (1 << 63) - 1,
                        1 << 63, (1 << 64) - 1, 100 << 20])
        return struct.pack("<Q", v) + data[8:], "header length field = %d (was %d)" % (v, n)
    if kind == "dtype":
        t = rng.choice(tensors)
        header[t]["dtype"] = rng.choice(["", "F128", "I32", "BOOL", "F64", "F16", "BF16", "f32",
                                          "F8_E4M3", "U8", "I64", None, 32])
        return st_join(header, body), "dtype of %s = %r" % (t, header[t]["dtype"])
    if kind == "shape":
        t = rng.choice(tensors)
        header[t]["shape"] = rng.choice([[], [0, 7], [-1, 7], [2 ** 31, 2 ** 31], [2 ** 62, 4],
                                          [1], [7, 8], [1, 1, 1, 1], ["2", "7"], [2.5, 7],
                                          [2 ** 64, 1]])
        return st_join(header, body), "shape of %s = %r" % (t, header[t]["shape"])
    if kind == "offsets":
        t = rng.choice(tensors)
        a, b = header[t]["data_offsets"]
        header[t]["data_offsets"] = rng.choice([[b, a], [a, b + 4], [0, len(body) + 1],
                                                 [a, 2 ** 63], [-4, b], [a, a], [0, 0],
                                                 [2 ** 64, 2 ** 64 + 4], [a + 1, b + 1], [a]])
        return st_join(header, body), "data_offsets of %s = %r" % (t, header[t]["data_offsets"])
    if kind == "delete_tensor":
        t = rng.choice(tensors)
        del header[t]
        return st_join(header, body), "delete tensor %s" % t
    if kind == "add_tensor":
        name = rng.choice(["extra.weight", "layers.1.ffn.fc1.weight", "", "\u0000", "x" * 5000])
        header[name] = {"dtype": "F32", "shape": [1], "data_offsets": [0, 4]}
        return st_join(header, body), "add tensor %r" % abbrev(name, 30)
    if kind == "rename":
        t = rng.choice(tensors)
        header[t + "x"] = header.pop(t)
        return st_join(header, body), "rename tensor %s" % t
    if kind in ("arch", "arch_text"):
        meta = header.get("__metadata__", {})
        arch = meta.get("cookbook_architecture", "{}")
        if kind == "arch":
            try:
                doc = json.loads(arch)
                desc = tree_mutation(rng, doc)
                meta["cookbook_architecture"] = dump(rng, doc, "compact").decode("utf-8", "surrogatepass")
            except Exception as e:
                desc = "unparseable %r" % e
        else:
            b, desc = text_mutation(rng, arch.encode("utf-8"))
            meta["cookbook_architecture"] = b.decode("utf-8", "surrogateescape")
        header["__metadata__"] = meta
        return st_join(header, body), "architecture metadata: " + desc
    if kind == "metadata_type":
        op = rng.choice(["object", "number", "missing", "delete_arch", "null"])
        if op == "object":
            header["__metadata__"]["cookbook_architecture"] = {"a": 1}
        elif op == "number":
            header["__metadata__"]["format"] = 1
        elif op == "missing":
            del header["__metadata__"]
        elif op == "delete_arch":
            header["__metadata__"].pop("cookbook_architecture", None)
        else:
            header["__metadata__"] = None
        return st_join(header, body), "metadata " + op
    if kind == "nan":
        t = rng.choice(tensors)
        a, b = header[t]["data_offsets"]
        dt = header[t]["dtype"]
        width = {"F64": 8, "F32": 4, "F16": 2, "BF16": 2}.get(dt, 1)
        pat = {8: [b"\x00\x00\x00\x00\x00\x00\xf8\x7f", b"\x00\x00\x00\x00\x00\x00\xf0\x7f",
                   b"\x01\x00\x00\x00\x00\x00\x00\x00"],
               4: [b"\x00\x00\xc0\x7f", b"\x00\x00\x80\x7f", b"\x00\x00\x80\xff", b"\x01\x00\x00\x00"],
               2: [b"\x00\x7e", b"\x00\x7c", b"\x01\x00", b"\xff\x7b"],
               1: [b"\x7f", b"\xff", b"\x01"]}[width]
        v = rng.choice(pat)
        if b - a >= width:
            i = a + width * rng.randrange((b - a) // width)
            body = body[:i] + v + body[i + width:]
        return st_join(header, body), "value %r in %s (%s)" % (v, t, dt)
    if kind == "truncate_body":
        cut = rng.randrange(len(body))
        return st_join(header, body[:cut]), "truncate data to %d of %d" % (cut, len(body))
    if kind == "trailing":
        return data + b"\x00" * rng.choice([1, 8, 4096]), "trailing bytes"
    if kind == "flip_body":
        b = bytearray(data)
        n = struct.unpack("<Q", data[:8])[0]
        i = 8 + n + rng.randrange(len(body))
        b[i] ^= rng.randrange(1, 256)
        return bytes(b), "flip data byte at %d" % i
    if kind == "flip_header":
        b = bytearray(data)
        n = struct.unpack("<Q", data[:8])[0]
        i = 8 + rng.randrange(n)
        b[i] ^= rng.randrange(1, 256)
        return bytes(b), "flip header byte at %d" % i
    if kind == "dup_key":
        h = json.dumps(header, separators=(",", ":"))
        t = rng.choice(tensors)
        entry = json.dumps({"dtype": "F32", "shape": [1], "data_offsets": [0, 4]})
        h = h[:-1] + ',"%s":%s}' % (t, entry)
        hb = h.encode()
        return struct.pack("<Q", len(hb)) + hb + body, "duplicate header key %s (last wins)" % t
    if kind == "pad_nul":
        hb = json.dumps(header, separators=(",", ":")).encode() + b"\x00" * 8
        return struct.pack("<Q", len(hb)) + hb + body, "header padded with NULs"
    # text: the generic text mutations on the whole file
    return text_mutation(rng, data)


def gen_malformed(rng, S, work, target):
    """Jobs of 3 runs (check, run, frontier) per mutant."""
    jobs = []
    d = os.path.join(work, "malformed")
    os.makedirs(d, exist_ok=True)
    seeds = {}
    for name, path, spec, inp in S.models:
        with open(path, "rb") as f:
            seeds[name] = (f.read(), spec, inp)
    names = sorted(seeds)
    i = 0
    while len(jobs) * 3 < target:
        i += 1
        name = rng.choice(names)
        data, spec, inp = seeds[name]
        descs = []
        if name.endswith(".safetensors"):
            for _ in range(rng.choice([1, 1, 2])):
                data, desc = safetensors_mutation(rng, data)
                descs.append(desc)
        else:
            if rng.random() < 0.6:
                doc = json.loads(data)
                for _ in range(rng.choice([1, 1, 1, 2, 3])):
                    descs.append(tree_mutation(rng, doc))
                data = dump(rng, doc)
            if rng.random() < 0.45 or not descs:
                data, desc = text_mutation(rng, data)
                descs.append(desc)
        ext = os.path.splitext(name)[1]
        r = rng.random()
        if r < 0.04:
            ext = ".safetensors" if ext == ".json" else ".json"
            descs.append("extension swapped to " + ext)
        via_stdin = r > 0.9
        path = os.path.join(d, "m%04d%s" % (i, ext))
        with open(path, "wb") as f:
            f.write(data)
        mspec = spec if rng.random() < 0.85 else "lookup"
        model_arg = "-" if via_stdin else path
        stdin = ("file", path) if via_stdin else None
        runs = [
            ["check", "--model", model_arg, "--spec", mspec, "--cases", "2", "--max-n", "4"],
            ["run", "--model", model_arg, "--input", inp if mspec == spec else "1:0 2:1"],
            ["frontier", "--model", model_arg, "--spec", mspec, "--max-n", "4", "--precision", "fp16"],
        ]
        jobs.append(("malformed", "seed %s: %s%s" % (name, "; ".join(descs), " (via stdin)" if via_stdin else ""),
                     {"runs": runs, "stdin": stdin, "file": path}))
    return jobs


def run_malformed(runner, job):
    cat, sub, j = job
    for argv in j["runs"]:
        rec, out, err = runner.execute(argv, stdin=j["stdin"])
        rec.update(category=cat, sub=sub, findings=generic_findings(rec, err))
        runner.record(rec)
    try:
        if os.path.getsize(j["file"]) > (1 << 20):
            os.unlink(j["file"])
    except OSError:
        pass


# ---------------------------------------------------------------------------
# category 2: command lines

D5000 = "9" * 5000
V100K = "x" * 100000
INTS = ["0", "-1", "1", "2", "4", "16", "-0", "+1", "1e3", "0x10", "1_000", "1.5", " 1", "",
        D5000, "-" + D5000, "9223372036854775807", "9223372036854775808", "-9223372036854775808",
        "18446744073709551616", "4294967296", "١٢", "NaN", "inf", "½", "3 ", "0016", "1" + "0" * 30]
SMALL_N = ["1", "2", "3", "4", "8", "12", "16"]
SHARDS = ["9223372036854775807/9223372036854775807", "1/1152921504606846976", "0/0", "-1/2", "1/2",
          "2/2", "3/2", "0/2", "1/0", "a/b", "1/2/3", "/", "1/", "/2", "1/-2", "+1/2", " 1/2",
          "1/2 ", "1/1", "2/1", D5000 + "/" + D5000, "1/" + D5000, "9223372036854775808/9223372036854775808",
          "1/9223372036854775807", "1 / 2", "１/２", "1\\2", "0x1/0x2"]
PRECISIONS = ["fp16", "bf16", "fp32", "fp64", "53", "24", "113", "exact", "fp8-e4m3", "fp8-e5m2",
              "interval:128", "interval:0", "interval:-1", "interval:" + D5000, "interval:", "0", "1",
              "2", "-53", "1048577", "100000000", "fp15", "fp16,fp16", "", ",", "fp16,,bf16", "53.5",
              "1e3", D5000, "FP16", "fp16 ", "interval:53,exact", "float16", "e4m3", "interval:2",
              "fp16," * 20000]
WEIGHTINGS = ["softmax", "SMAT", "AHAT", "UHAT", "UHAT-right", "avghardmax", "lhardmax", "rhardmax",
              "all", "", "bogus", "ahat", "AHAT,SMAT", "all,all", V100K]
PARAMS = ["values=rationals", "values=bits", "values=", "=", "values", "x=1", "d=0", "d=65", "d=1e999",
          "M=0", "M=-1", "M=" + D5000, "d=3", "values=bits=x", "d=" + D5000, "=1", "values=rationals,bits",
          "d=4", "d=1/2", "M=1/0"]
RECIPES_OK = ["lookup", "dyck1", "first", "add", "tiebreak", "pe-linear", "count", "and", "pred",
              "lookup-onehot", "induction-recent", "avg"]
RECIPES_BAD = ["", "bogus", "lookup,dyck1", "LOOKUP", V100K, "../lookup", "lookup\n", "look up",
               "lookup ", "\u202elookup", "lookup\u0000"[:-1] + "\u0001", "-", "--max-n"]
SEEDS = ["0", "-1", D5000, "18446744073709551615", "18446744073709551616", "1.5", "0x1", "", "7"]
LENGTHS = ["1,2,3", "", ",", "1,,2", "16,1", "0", "-1", "1-4", "1..4", D5000, "1," * 50000, "3,3,3",
           "16777217", "4", "1, 2", "2,4,8,16", "9223372036854775807", "1e1"]
INPUTS = ["1:0 2:1", "", " ", "1:0", "0:0", "5:0", "1:2", "1:-3/7", "1:1/0", "1:" + D5000, "1:0 " * 25000,
          "\t", "1:0\n2:1", "( )", "a", "2:1 3:0 1:1", "1:1e999999", "1::0", ":", "1:0  2:1",
          "99999999999999999999:0", "1:0 " * 17, "\u0000"[:0] + "\u0001", "1:½"]
SCORES = ["1,0", "3, 1, 0, -2", "1,1", "", ",", "1", "1/0,0", D5000 + ",0", "1e999999,0",
          "-" + D5000 + ",0", "0," * 50000 + "1", "nan,0", "1,0,", "1;0", "0x1p3,0", "1/" + D5000 + ",0",
          "1e-999999,0", "1,0,0,0", "--1,0", "+1,0", "1/2/3,0", "log(0),1"]
GAMMAS = ["1/2", "0", "-1", "2", D5000, "1/0", "abc", "1e-999999", "1/" + D5000, "", "NaN"]
ROUND_VALUES = ["1/3", "0.1", "-2049", "0x1p-3", "1/0", "0/0", "1e999999", D5000, "--1", "inf", "nan",
                "", "1e-99999999", "-0", "65504", "65520", "1/" + D5000, "0x1p99999999", "+1", "1/2/3",
                "1e99999999999999999999", "0x", "0x1.8p1", "1_0", "٣"]
FORMATS = ["fp16", "bf16", "fp32", "fp64", "fp8-e4m3", "fp8-e5m2", "53", "interval:128", "exact",
           "bogus", "", "0", "1048577", D5000, "fp16,bf16"]
CLAIM_IDS = ["lemma.edelman", "attn.first.exact", "attn.lookup-qm.gap", "example.dyck.definition",
             "attn.pred.exact", "", "bogus", V100K, "lemma.edelman,attn.first.exact", "lemma.*",
             "LEMMA.EDELMAN", " lemma.edelman", "lemma.edelman\n"]
SIZES = ["0", "1", "1KB", "512MiB", "1TB", D5000, "-1", "1.5MB", "1XB", "", "1GiB", "1e9", "0x10",
         "18446744073709551616", "1 KB", "KB", "1kb", "9223372036854775807"]
DTYPES = ["F64", "F32", "F16", "BF16", "F8_E4M3", "F8_E5M2", "", "f32", "I32", "F128", V100K]
UNKNOWN = ["--bogus", "-x", "---max-n", "--max-n=", "--=", "--", "-", "-h", "--help", "-help",
           "--json=false", "--quiet=maybe", "--\u00e9", "--" + V100K, "-" + D5000, "--recipe=",
           "--max_n", "--MAX-N", "—max-n", "--no-such-flag=1"]


def gen_cmdline(rng, S, work, target):
    out = os.path.join(work, "cmdline-out")
    os.makedirs(out, exist_ok=True)
    sh = S.shards["fp16"]
    model = os.path.join(S.dir, "l.json")
    fixed = [
        # the brief's explicit cases first
        ["frontier", "--recipe", "lookup", "--precision", "fp16", "--max-n", "16", "--shard",
         "9223372036854775807/9223372036854775807"],
        ["frontier", "--recipe", "lookup", "--precision", "fp16", "--max-n", "16", "--shard", "1/1152921504606846976"],
        ["frontier", "--recipe", "lookup", "--precision", "fp16", "--max-n", "16", "--shard", "0/0"],
        ["frontier", "--recipe", "lookup", "--precision", "fp16", "--max-n", "16", "--shard", "-1/2"],
        ["check", "--recipe", "lookup", "--max-n", D5000],
        ["check", "--recipe", "lookup", "--max-n", "-4"],
        ["check", "--recipe", "lookup", "--max-n", "16", "--cases", D5000],
        ["check", "--recipe", "lookup", "--max-n", "16", "--seed", D5000],
        ["run", "--recipe", "lookup", "--input", V100K],
        ["run", "--recipe", "lookup", "--input", "1:0 " * 25000],
        ["--recipe", "lookup", "--max-n"],
        ["check", "--recipe"],
        ["check", "--recipe", "lookup", "--max-n", "16", "-"],
        ["merge", "-"],
        ["merge"],
        ["merge", sh[0], sh[1], "-"],
        ["export", "--recipe", "lookup", "--n", "4", "--out", "-"],
        ["export", "--recipe", "lookup", "--n", D5000, "--out", os.path.join(out, "x.json")],
        ["export", "--recipe", "lookup", "--n", "65537", "--out", os.path.join(out, "x.json")],
        ["export", "--recipe", "lookup", "--n", "4", "--out", os.path.join(out, "x.txt")],
        ["export", "--recipe", "lookup", "--n", "4", "--out", os.path.join(out, "x.json"), "--format", "safetensors"],
        ["export", "--recipe", "lookup", "--n", "4", "--out", os.path.join(out, V100K[:300] + ".json")],
        ["export", "--recipe", "lookup", "--n", "4", "--out", os.path.join(out, "x.safetensors"), "--dtype", "F8_E4M3"],
        ["claims", "--id", V100K],
        ["claims", "--id", ""],
        ["claims", "--id"],
        ["help", V100K],
        ["help", "help"],
        ["version", "extra"],
        ["list", V100K],
        ["edelman", "--scores", "1,1"],
        ["edelman", "--scores", "0," * 50000 + "1"],
        ["edelman", "--scores", "1,0", "--gamma", D5000],
        ["round", "--precision", "fp16", D5000],
        ["round", "--precision", "fp16", "1/" + D5000],
        ["round", "--precision", "fp16", "0x1p99999999"],
        ["round", "--precision", "fp16", "1e99999999999999999999"],
        ["round", "--precision", "1048576", "1/3"],
        ["format", D5000],
        ["frontier", "--all", "--recipe", "lookup", "--max-n", "4", "--precision", "fp16"],
        ["frontier", "--phase", "2", "--shard", "1/1"],
        ["frontier", "--phase", "2", "--shard", "1/1", sh[0], sh[1], "--quiet"],
        ["frontier", "--phase", "2", "--shard", "1/1", sh[0], "--quiet"],
        ["frontier", "--phase", "3", "--recipe", "lookup", "--max-n", "4"],
        ["check", "--model", model, "--recipe", "lookup", "--spec", "lookup", "--max-n", "4"],
        ["check", "--model", model, "--max-n", "4"],
        ["run", "--recipe", "lookup", "--input", "1:0", "--inputs", "-"],
        ["check", "--recipe", "lookup", "--max-n", "16", "--quiet", "--progress"],
        ["check", "--recipe", "lookup", "--max-n", "16", "--no-every", "--every-budget", "5"],
        ["check", "--recipe", "lookup", "--max-n", "4", "--max-n", "8"],
        ["check", "--recipe", "lookup", "--recipe", "dyck1", "--max-n", "4"],
        ["--max-n", "4"],
        ["lookup"],
        [""],
        ["-"],
        ["--"],
        ["--", "check"],
        ["check", "--", "--recipe", "lookup"],
        ["completion", "fish"],
        ["completion"],
        ["recheck"],
        ["recheck", "/dev/null"],
        ["recheck", model],
        ["bench", "--bogus"],
        ["check", "--recipe", "lookup", "--max-n", "16", "--max-input-size", D5000],
        ["run", "--recipe", "lookup", "--inputs", "/dev/zero"],
        ["run", "--recipe", "lookup", "--inputs", "/nonexistent/file"],
        ["run", "--recipe", "lookup", "--inputs", S.dir],
        ["check", "--model", "/dev/zero", "--spec", "lookup"],
        ["check", "--model", "/dev/stdin", "--spec", "lookup"],
        ["check", "--model", S.dir + "/", "--spec", "lookup"],
        ["merge", "/dev/zero"],
        ["merge", S.dir],
        ["merge", "/nonexistent.json"],
        ["merge", model],
        ["merge", sh[0], sh[0]],
        ["merge", sh[0]],
        ["merge", sh[0], S.shards["fp8-e4m3"][1]],
        ["merge", "--max-input-size", "1", sh[0], sh[1]],
        # the tool accepts these, at a cost it does not estimate: expect hangs (60 s each)
        ["check", "--recipe", "lookup", "--max-n", "16", "--precision", "65536", "--quiet"],
        ["check", "--recipe", "lookup", "--max-n", "16", "--precision", "1048576", "--quiet"],
        ["check", "--recipe", "lookup", "--max-n", "16", "--precision", "interval:1000000", "--quiet"],
        ["check", "--recipe", "lookup", "--max-n", "16", "--precision", "4096", "--quiet"],
        ["check", "--recipe", "lookup", "--max-n", "16", "--precision", "interval:4096", "--quiet"],
        ["round", "--precision", "4096", "1/3"],
    ]
    jobs = [("cmdline", "fixed", {"argv": a}) for a in fixed]
    n = len(jobs)
    while n < target:
        n += 1
        jobs.append(("cmdline", "random", {"argv": random_cmdline(rng, S, out, n)}))
    return jobs


def random_cmdline(rng, S, out, n):
    cmd = rng.choice(["list", "format", "round", "edelman", "run", "check", "check", "default",
                      "frontier", "frontier", "export", "claims", "merge", "help", "version",
                      "completion"])
    sh = S.shards[rng.choice(sorted(S.shards))]
    # a valid base, then 1-3 hostile alterations
    if cmd == "list":
        base = ["list"] + rng.choice([[], ["lookup"], ["--params"], ["--json"], ["dyck1", "--params"]])
        pool = {"--params": [None], "--json": [None], "_pos": RECIPES_OK + RECIPES_BAD}
    elif cmd == "format":
        base = ["format"] + rng.choice([[], ["fp16"], ["--json"], ["fp8-e4m3", "--json"]])
        pool = {"--json": [None], "_pos": FORMATS}
    elif cmd == "round":
        base = ["round", "--precision", "fp16", "1/3"]
        pool = {"--precision": PRECISIONS, "--json": [None], "_pos": ROUND_VALUES}
    elif cmd == "edelman":
        base = ["edelman", "--scores", "1,0"]
        pool = {"--scores": SCORES, "--gamma": GAMMAS, "--json": [None]}
    elif cmd == "run":
        r = rng.choice(["lookup", "tiebreak", "dyck1", "first"])
        inp = {"lookup": "1:0 2:1", "tiebreak": "2:0.25 1:-5", "dyck1": "( )", "first": "a b"}[r]
        base = ["run", "--recipe", r, "--input", inp]
        pool = {"--recipe": RECIPES_OK + RECIPES_BAD, "--input": INPUTS, "--precision": PRECISIONS,
                "--weighting": WEIGHTINGS, "--param": PARAMS, "--max-n": SMALL_N + INTS, "--trace": [None],
                "--outside-domain": [None], "--json": [None], "--max-input-size": SIZES,
                "--inputs": ["-", "/dev/null", "/nonexistent", S.dir], "--force": [None],
                "--model": [os.path.join(S.dir, "l.json"), "-", "/nonexistent.json"]}
    elif cmd in ("check", "default", "frontier"):
        r = rng.choice(RECIPES_OK)
        base = ([] if cmd == "default" else [cmd if cmd != "default" else "check"]) + \
            ["--recipe", r, "--max-n", rng.choice(SMALL_N)]
        if cmd == "frontier":
            base += ["--precision", rng.choice(["fp16", "bf16", "53", "fp8-e4m3"]), "--quiet"]
        pool = {"--recipe": RECIPES_OK + RECIPES_BAD, "--precision": PRECISIONS, "--weighting": WEIGHTINGS,
                "--param": PARAMS, "--max-n": INTS, "--cases": ["1", "2", "8", "0", "-1", "100001", D5000],
                "--exhaustive": ["0", "1", "256", "1099511627777", "-1", D5000],
                "--seed": SEEDS, "--lengths": LENGTHS, "--all-lengths": [None], "--json": [None],
                "--force": [None], "--no-analysis": [None], "--analysis-budget": INTS,
                "--every-budget": INTS, "--no-every": [None], "--quiet": [None], "--progress": [None],
                "--max-input-size": SIZES, "--spec": RECIPES_OK + RECIPES_BAD,
                "--model": [os.path.join(S.dir, "l.json"), "-", "/nonexistent.json", "/dev/null"]}
        if cmd == "frontier":
            pool.update({"--shard": SHARDS, "--phase": ["1", "2", "0", "3", "-1", D5000, ""],
                         "--no-bisect": [None],
                         "--out": [os.path.join(out, "f%d.json" % n), "-", out, "/nonexistent/x.json",
                                   os.path.join(out, "f%d.txt" % n)],
                         "--plot": [os.path.join(out, "f%d.svg" % n), os.path.join(out, "f%d.png" % n),
                                    os.path.join(out, "f%d.pdf" % n), out],
                         "_pos": [sh[0], sh[1], "-"]})
        else:
            pool["--certificate"] = [os.path.join(out, "c%d.json" % n), out, "/nonexistent/c.json", "-"]
    elif cmd == "export":
        r = rng.choice(RECIPES_OK)
        ext = rng.choice([".json", ".safetensors"])
        base = ["export", "--recipe", r, "--n", rng.choice(["2", "4", "8"]), "--out",
                os.path.join(out, "e%d%s" % (n, ext)), "--quiet"]
        pool = {"--recipe": RECIPES_OK + RECIPES_BAD, "--n": INTS, "--param": PARAMS,
                "--weighting": WEIGHTINGS, "--dtype": DTYPES, "--round-weights": [None],
                "--format": ["json", "safetensors", "", "xml", "JSON"], "--force": [None],
                "--out": ["-", out, "/nonexistent/x.json", os.path.join(out, "e%d.txt" % n), "",
                          os.path.join(out, "e%d" % n), os.path.join(out, ".json")],
                "--progress": [None]}
    elif cmd == "claims":
        base = ["claims", "--id", rng.choice(CLAIM_IDS[:5])]
        pool = {"--id": CLAIM_IDS, "--explain": [None], "--json": [None], "--quiet": [None]}
    elif cmd == "merge":
        base = ["merge", sh[0], sh[1]]
        pool = {"--json": [None], "--max-input-size": SIZES,
                "--out": [os.path.join(out, "m%d.json" % n), "-", out, "/nonexistent/m.json"],
                "--plot": [os.path.join(out, "m%d.svg" % n), os.path.join(out, "m%d.gif" % n)],
                "_pos": ["-", "/nonexistent", S.dir, "/dev/null", os.path.join(S.dir, "l.json"), sh[0]]}
    elif cmd == "help":
        base = ["help"] + rng.choice([[], ["check"], ["frontier"], ["merge"]])
        pool = {"_pos": ["check", "run", "bogus", "", V100K, "help", "--help", "list", "-"]}
    elif cmd == "version":
        base = ["version"]
        pool = {"--json": [None], "_pos": ["x", "-", ""]}
    else:
        base = ["completion", "bash"]
        pool = {"_pos": ["bash", "zsh", "fish", "", "-", V100K]}
    argv = list(base)
    for _ in range(rng.choice([1, 1, 2, 3])):
        alt = rng.choice(["value", "value", "value", "unknown", "missing", "dup", "positional", "eq"])
        flags = [k for k in pool if k != "_pos"]
        if alt == "value" and flags:
            f = rng.choice(flags)
            v = rng.choice(pool[f])
            argv = set_flag(argv, f, v)
        elif alt == "unknown":
            argv.insert(rng.randrange(len(argv) + 1) if rng.random() < 0.3 else len(argv), rng.choice(UNKNOWN))
        elif alt == "missing" and flags:
            f = rng.choice(flags)
            argv = [a for a in argv] + [f]
        elif alt == "dup" and flags:
            f = rng.choice(flags)
            v = rng.choice(pool[f])
            argv += [f] if v is None else [f, v]
        elif alt == "positional" and "_pos" in pool:
            argv.append(rng.choice(pool["_pos"]))
        elif alt == "eq" and flags:
            f = rng.choice(flags)
            v = rng.choice(pool[f])
            argv.append(f + "=" + ("" if v is None else v))
    # keep sweeps small unless --max-n is what is tested: none of these may run long
    return argv


def set_flag(argv, f, v):
    if f in argv:
        i = argv.index(f)
        if v is None:
            return argv
        if i + 1 < len(argv) and not argv[i + 1].startswith("--"):
            argv = argv[:i + 1] + [v] + argv[i + 2:]
            return argv
        return argv[:i + 1] + [v] + argv[i + 1:]
    return argv + ([f] if v is None else [f, v])


def run_cmdline(runner, job):
    cat, sub, j = job
    argv = j["argv"]
    rec, out, err = runner.execute(argv, stdin=b"")
    rec.update(category=cat, sub=sub, findings=generic_findings(rec, err))
    runner.record(rec)


# ---------------------------------------------------------------------------
# category 3: output faults


def gen_output(rng, S, work, target):
    d = os.path.join(work, "output")
    os.makedirs(d, exist_ok=True)
    sh = S.shards["fp16"]
    model = os.path.join(S.dir, "l.json")
    full_cmds = [
        ["--recipe", "lookup", "--max-n", "8"],
        ["check", "--recipe", "lookup", "--max-n", "8"],
        ["check", "--recipe", "lookup", "--max-n", "8", "--json"],
        ["check", "--recipe", "amplify-literal", "--max-n", "8"],  # a failing check: exit 1 otherwise
        ["check", "--model", model, "--spec", "lookup", "--cases", "2", "--max-n", "4"],
        ["edelman", "--scores", "1,0"],
        ["edelman", "--scores", "1,0", "--json"],
        ["list"], ["list", "lookup"], ["list", "--json"], ["list", "--params"],
        ["help"], ["help", "check"], ["check", "--help"], ["version"],
        ["run", "--recipe", "lookup", "--input", "1:0 2:1"],
        ["run", "--recipe", "lookup", "--input", "1:0 2:1", "--json"],
        ["run", "--recipe", "lookup", "--input", "1:0 2:1", "--trace"],
        ["run", "--model", model, "--input", "1:0 2:1"],
        ["format"], ["format", "fp16", "--json"],
        ["round", "--precision", "fp16", "1/3", "0.1"],
        ["claims", "--id", "lemma.edelman"], ["claims", "--id", "lemma.edelman", "--json"],
        ["export", "--recipe", "lookup", "--n", "4", "--out", "-"],
        ["export", "--recipe", "lookup", "--n", "4", "--out", "-", "--format", "safetensors"],
        ["frontier", "--recipe", "lookup", "--precision", "fp16", "--max-n", "8", "--quiet"],
        ["frontier", "--recipe", "lookup", "--precision", "fp16", "--max-n", "8", "--quiet", "--json"],
        ["frontier", "--recipe", "lookup", "--precision", "fp16", "--max-n", "8", "--quiet", "--out", "-"],
        ["merge", sh[0], sh[1]], ["merge", sh[0], sh[1], "--json"],
        ["completion", "bash"],
        ["bench", "--help"],
    ]
    jobs = []
    for c in full_cmds:
        jobs.append(("output", "stdout>/dev/full", {"kind": "devfull", "argv": c}))
    # stdout to a pipe closed at once (SIGPIPE): informational
    for c in [["list", "--json"], ["help"], ["export", "--recipe", "lookup", "--n", "64", "--out", "-"]]:
        jobs.append(("output", "stdout>closed pipe (informational)", {"kind": "pipe", "argv": c}))
    # --out faults
    k = 0

    def fresh():
        nonlocal k
        k += 1
        p = os.path.join(d, "o%03d" % k)
        os.makedirs(p, exist_ok=True)
        return p

    fr = ["frontier", "--recipe", "lookup", "--precision", "fp16", "--max-n", "8", "--quiet"]
    ex = ["export", "--recipe", "lookup", "--n", "4"]
    mg = ["merge", sh[0], sh[1]]
    ck = ["check", "--recipe", "lookup", "--max-n", "8"]
    for base, ext, flag in [(fr, ".json", "--out"), (ex, ".json", "--out"), (ex, ".safetensors", "--out"),
                            (mg, ".json", "--out"), (fr, ".svg", "--plot"), (fr, ".png", "--plot"),
                            (mg, ".svg", "--plot"), (ck, ".json", "--certificate")]:
        cases = [
            ("--out to a directory", os.path.join("@", "dir" + ext), "mkdir"),
            ("path in a non-existent directory", os.path.join("@", "nodir", "x" + ext), None),
            ("to /dev/full", "/dev/full", None),
            ("parent is a regular file", os.path.join("@", "file", "x" + ext), "file"),
            ("name longer than NAME_MAX", os.path.join("@", "n" * 300 + ext), None),
            ("trailing slash", os.path.join("@", "t" + ext) + "/", None),
            ("empty", "", None),
            ("dangling symlink", os.path.join("@", "dangling" + ext), "dangling"),
            ("symlink to a directory", os.path.join("@", "linkdir" + ext), "linkdir"),
            ("existing file is replaced", os.path.join("@", "exist" + ext), "exist"),
            ("fifo", os.path.join("@", "fifo" + ext), "fifo"),
        ]
        for label, path, prep in cases:
            # a directory of its own per case: runs go two at a time
            p = fresh()
            if path.startswith("@/"):
                path = os.path.join(p, path[2:])
            jobs.append(("output", "%s %s %s" % (base[0], flag, label),
                         {"kind": "out", "argv": base + [flag, path], "path": path, "prep": prep, "dir": p,
                          "flag": flag}))
    # --out and --plot the same path, spelled alike or not
    for base in (fr, mg):
        for spell in ("same", "dot", "abs", "symlink", "hardlink", "dotdot"):
            p = fresh()
            jobs.append(("output", "%s --out/--plot same path (%s)" % (base[0], spell),
                         {"kind": "same", "argv": base, "dir": p, "spell": spell}))
    # merge --out one of its inputs, spelled alike or not
    for spell in ("same", "dot", "abs", "symlink", "hardlink", "second", "plot"):
        p = fresh()
        jobs.append(("output", "merge --out its input (%s)" % spell,
                     {"kind": "merge_in", "dir": p, "spell": spell, "shards": sh}))
    # frontier --phase 2 --out one of its phase-1 inputs
    p = fresh()
    jobs.append(("output", "frontier --phase 2 --out its input",
                 {"kind": "phase2_in", "dir": p, "shards": sh}))
    # stderr to /dev/full (a failing command cannot say why; must not hang or crash)
    for c in [["check", "--recipe", "bogus"], ["--recipe", "lookup", "--max-n", "4"]]:
        jobs.append(("output", "stderr>/dev/full", {"kind": "errfull", "argv": c}))
    # top up with more /dev/full runs with --json / text variants
    while len(jobs) < target:
        c = rng.choice(full_cmds)
        jobs.append(("output", "stdout>/dev/full (repeat)", {"kind": "devfull", "argv": c}))
    return jobs


def run_output(runner, job):
    cat, sub, j = job
    kind = j["kind"]
    if kind == "devfull":
        dev_before = set(os.listdir("/dev"))
        rec, out, err = runner.execute(j["argv"], stdout_to="/dev/full")
        f = generic_findings(rec, err, stdout_checked=False)
        if rec["status"] == 0:
            f.append("write error on stdout (/dev/full) but exit 0")
        elif rec["stderr_lines"] == 0:
            f.append("write error on stdout (/dev/full): exit %d without a stderr line" % rec["status"])
        left = temp_leftovers("/dev", dev_before)
        if left:
            f.append("temporary files left in /dev: %s" % left)
        rec.update(category=cat, sub=sub, findings=f)
        runner.record(rec)
        return
    if kind == "errfull":
        rid = runner.next_id()
        t0 = time.monotonic()
        tf = os.path.join(runner.iodir, "f%06d.time" % rid)
        with open("/dev/full", "wb") as ef:
            p = spawn(runner.bin, j["argv"], tf, stdout=subprocess.DEVNULL, stderr=ef, cwd=runner.work)
        pid, status, ru = os.wait4(p.pid, 0)
        code, rss, _ = finish(p, status, ru, tf)
        rec = {"id": rid, "argv": j["argv"], "status": code, "wall": round(time.monotonic() - t0, 4),
               "rss_kb": rss, "stdout_bytes": None, "stderr_bytes": None, "stderr_lines": None,
               "stderr_first": "", "stderr_max_line": 0, "hang": False}
        f = []
        if code < 0 or code not in (0, 1, 2):
            f.append("stderr to /dev/full: status %d" % code)
        rec.update(category=cat, sub=sub, findings=f)
        runner.record(rec)
        return
    if kind == "pipe":
        # a pipe whose reader has gone: the writer gets EPIPE / SIGPIPE
        rid = runner.next_id()
        r, w = os.pipe()
        os.close(r)
        t0 = time.monotonic()
        errp = os.path.join(runner.iodir, "p%06d.err" % rid)
        tf = os.path.join(runner.iodir, "p%06d.time" % rid)
        with open(errp, "wb") as ef:
            p = spawn(runner.bin, j["argv"], tf, stdout=w, stderr=ef, cwd=runner.work)
        os.close(w)
        pid, status, ru = os.wait4(p.pid, 0)
        code, rss, _ = finish(p, status, ru, tf)
        err = open(errp, encoding="utf-8", errors="replace").read()
        os.unlink(errp)
        lines = err.splitlines()
        rec = {"id": rid, "argv": j["argv"], "status": code, "wall": round(time.monotonic() - t0, 4),
               "rss_kb": rss, "stdout_bytes": None, "stderr_bytes": len(err),
               "stderr_lines": len(lines), "stderr_first": abbrev(lines[0]) if lines else "",
               "stderr_max_line": max((len(x) for x in lines), default=0), "hang": False,
               "note": "SIGPIPE (status -13, shell 141) is the conventional end of a writer whose reader is gone; "
                       "not counted as a finding"}
        f = generic_findings(rec, err, allowed=(0, 1, 2, 130, 141), stdout_checked=False)
        f = [x for x in f if "signal 13" not in x]
        if code == 0:
            f.append("stdout to a closed pipe but exit 0")
        rec.update(category=cat, sub=sub, findings=f)
        runner.record(rec)
        return
    if kind == "out":
        path, prep, dd = j["path"], j["prep"], j["dir"]
        target = None
        if prep == "mkdir":
            os.makedirs(path, exist_ok=True)
        elif prep == "file":
            open(os.path.join(dd, "file"), "w").close()
        elif prep == "dangling":
            os.symlink(os.path.join(dd, "nowhere", "x"), path)
        elif prep == "linkdir":
            os.makedirs(os.path.join(dd, "realdir"), exist_ok=True)
            os.symlink(os.path.join(dd, "realdir"), path)
        elif prep == "exist":
            with open(path, "w") as f:
                f.write("old content\n")
        fifo_done = threading.Event()
        fifo_bytes = [0]
        fifo_thread = None
        if prep == "fifo":
            # a reader holds the FIFO open the whole time, as `cat fifo` would
            os.mkfifo(path)
            fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)

            def reader():
                import select
                while True:
                    done = fifo_done.is_set()
                    r, _, _ = select.select([fd], [], [], 0.05)
                    if r:
                        try:
                            b = os.read(fd, 1 << 16)
                        except BlockingIOError:
                            b = b""
                        fifo_bytes[0] += len(b)
                        if b:
                            continue
                    if done:
                        break
                os.close(fd)

            fifo_thread = threading.Thread(target=reader)
            fifo_thread.start()
        before = set(os.listdir(dd))
        dev_before = set(os.listdir("/dev"))
        rec, out, err = runner.execute(j["argv"], cwd=dd, timeout=30 if prep == "fifo" else TIMEOUT)
        if fifo_thread:
            fifo_done.set()
            fifo_thread.join()
            rec["fifo_bytes_read"] = fifo_bytes[0]
        # a side file (--out, --plot, --certificate) that cannot be written after the report is
        # printed: the report on stdout is expected
        side_write = bool(re.search(r"writing|no space left", rec.get("stderr_first", "")))
        f = generic_findings(rec, err, stdout_checked=not side_write)
        left = temp_leftovers(dd, before) + ["/dev/" + x for x in temp_leftovers("/dev", dev_before)]
        if os.path.isdir(os.path.join(dd, "realdir")):
            left += ["realdir/" + x for x in temp_leftovers(os.path.join(dd, "realdir"))]
        if left:
            f.append("temporary/partial files left: %s" % left)
        if rec["status"] == 0:
            if path == "/dev/full":
                f.append("write to /dev/full exited 0")
            elif prep in ("exist", None, "dangling") and path and not os.path.exists(path.rstrip("/")):
                f.append("exit 0 but %s does not exist" % path)
            elif prep == "exist":
                with open(path, "rb") as fh:
                    if fh.read(12) == b"old content\n":
                        f.append("exit 0 but the existing file was not replaced")
        elif rec["status"] == 2 and rec["stderr_lines"] == 0:
            f.append("write failure without a stderr line")
        rec.update(category=cat, sub=sub, findings=f, out_path=abbrev(path, 120))
        runner.record(rec)
        return
    if kind == "same":
        dd, spell = j["dir"], j["spell"]
        a = os.path.join(dd, "same.svg")
        if spell == "same":
            b = "same.svg"; a = "same.svg"
        elif spell == "dot":
            a = "same.svg"; b = "./same.svg"
        elif spell == "abs":
            b = a; a = "same.svg"
        elif spell == "dotdot":
            a = "same.svg"; b = "../" + os.path.basename(dd) + "/same.svg"
        elif spell == "symlink":
            os.symlink("same.svg", os.path.join(dd, "alias.svg"))
            a = "same.svg"; b = "alias.svg"
        else:
            open(os.path.join(dd, "same.svg"), "w").close()
            os.link(os.path.join(dd, "same.svg"), os.path.join(dd, "alias.svg"))
            a = "same.svg"; b = "alias.svg"
        # --out must end in .json?  Try the JSON name as --out with a .svg plot aliasing it is
        # impossible; so --out takes the .svg name (which the tool may refuse for its extension).
        argv = j["argv"] + ["--out", a, "--plot", b]
        before = set(os.listdir(dd))
        rec, out, err = runner.execute(argv, cwd=dd)
        f = generic_findings(rec, err)
        left = temp_leftovers(dd, before)
        if left:
            f.append("temporary files left: %s" % left)
        if rec["status"] == 0:
            sp = os.path.join(dd, "same.svg")
            content = open(sp, "rb").read(200) if os.path.exists(sp) else b"(nothing: same.svg missing)"
            f.append("--out and --plot name one file (%s) and the run exited 0: the file holds only %s"
                     % (spell, "the JSON" if content.lstrip().startswith(b"{") else "the plot"))
        rec.update(category=cat, sub=sub, findings=f)
        runner.record(rec)
        return
    if kind == "merge_in":
        dd, spell = j["dir"], j["spell"]
        p1 = os.path.join(dd, "p1.json")
        p2 = os.path.join(dd, "p2.json")
        shutil.copy(j["shards"][0], p1)
        shutil.copy(j["shards"][1], p2)
        orig = open(p1, "rb").read()
        outarg = {"same": "p1.json", "dot": "./p1.json", "abs": p1, "second": "p2.json"}.get(spell)
        extra = []
        if spell == "symlink":
            os.symlink("p1.json", os.path.join(dd, "alias.json"))
            outarg = "alias.json"
        elif spell == "hardlink":
            os.link(p1, os.path.join(dd, "alias.json"))
            outarg = "alias.json"
        elif spell == "plot":
            outarg = os.path.join(dd, "m.json")
            extra = ["--plot", "p1.json"]
        argv = ["merge", "p1.json", "p2.json", "--out", outarg] + extra
        before = set(os.listdir(dd))
        rec, out, err = runner.execute(argv, cwd=dd)
        f = generic_findings(rec, err)
        left = temp_leftovers(dd, before)
        if left:
            f.append("temporary files left: %s" % left)
        now1 = open(p1, "rb").read()
        if rec["status"] == 0 and spell != "plot":
            f.append("merge --out %r (an input, %s) accepted with exit 0" % (outarg, spell))
        if now1 != orig and rec["status"] != 0:
            f.append("input p1.json was changed although the merge failed")
        rec.update(category=cat, sub=sub, findings=f, input_changed=(now1 != orig))
        runner.record(rec)
        return
    if kind == "phase2_in":
        dd = j["dir"]
        p1 = os.path.join(dd, "p1.json")
        p2 = os.path.join(dd, "p2.json")
        shutil.copy(j["shards"][0], p1)
        shutil.copy(j["shards"][1], p2)
        orig = open(p1, "rb").read()
        argv = ["frontier", "--phase", "2", "--shard", "1/1", "p1.json", "p2.json", "--out", "p1.json", "--quiet"]
        before = set(os.listdir(dd))
        rec, out, err = runner.execute(argv, cwd=dd)
        f = generic_findings(rec, err)
        left = temp_leftovers(dd, before)
        if left:
            f.append("temporary files left: %s" % left)
        if rec["status"] == 0:
            f.append("frontier --phase 2 --out one of its phase-1 inputs accepted with exit 0 (input %s)"
                     % ("overwritten" if open(p1, "rb").read() != orig else "unchanged"))
        rec.update(category=cat, sub=sub, findings=f)
        runner.record(rec)
        return


# ---------------------------------------------------------------------------
# category 4: signals

SWEEPS = [
    ("frontier 53 bits to 30000", ["frontier", "--recipe", "lookup", "--precision", "53", "--max-n", "30000",
                                   "--no-analysis", "--quiet"], "--out", ".json"),
    ("check 113 bits to 8192", ["--recipe", "lookup", "--precision", "113", "--max-n", "8192"],
     "--certificate", ".json"),
]
EXPORT = ("export pe-sinusoidal n=65536 d=64", ["export", "--recipe", "pe-sinusoidal", "--n", "65536",
                                                "--param", "d=64"], "--out", ".json")


def gen_signals(rng, S, work, target):
    d = os.path.join(work, "signals")
    os.makedirs(d, exist_ok=True)
    jobs = []
    plans = []
    # a mix: first SIGINT on a sweep, double SIGINT, SIGTERM/SIGHUP/SIGQUIT, on sweeps and exports
    kinds = (["int"] * 24 + ["int2"] * 10 + ["term"] * 8 + ["hup"] * 6 + ["quit"] * 6 + ["export_int"] * 2 +
             ["export_term"] * 2 + ["export_hup"] * 1 + ["export_quit"] * 1)
    while len(kinds) < target:
        kinds.append(rng.choice(["int", "int2", "term", "hup", "quit"]))
    rng.shuffle(kinds)
    for i, kind in enumerate(kinds[:max(target, 0)]):
        if kind.startswith("export"):
            label, argv, flag, ext = EXPORT
        else:
            label, argv, flag, ext = SWEEPS[i % 2] if rng.random() < 0.5 else SWEEPS[(i + 1) % 2]
        dd = os.path.join(d, "s%03d" % i)
        with_out = kind.startswith("export") or rng.random() < 0.6
        delay = round(rng.uniform(1, 10), 3)
        sig = {"int": signal.SIGINT, "int2": signal.SIGINT, "term": signal.SIGTERM, "hup": signal.SIGHUP,
               "quit": signal.SIGQUIT}[kind.replace("export_", "")]
        plan = [(delay, sig)]
        if kind == "int2":
            plan.append((delay + round(rng.uniform(0.0, 0.05), 4), signal.SIGINT))
        jobs.append(("signals", "%s: %s%s" % (label, kind, " with " + flag if with_out else ""),
                     {"argv": argv, "flag": flag if with_out else None, "ext": ext, "dir": dd, "plan": plan,
                      "kind": kind, "sweep": not kind.startswith("export")}))
    return jobs


def run_signals(runner, job, confirm=True):
    cat, sub, j = job
    dd = j["dir"]
    os.makedirs(dd, exist_ok=True)
    argv = list(j["argv"])
    target = None
    if j["flag"]:
        target = os.path.join(dd, "result" + j["ext"])
        argv += [j["flag"], target]
    before = set(os.listdir(dd))
    rec, out, err = runner.execute(argv, cwd=dd, sigplan=j["plan"], timeout=TIMEOUT, keep_stdout=True)
    kind = j["kind"]
    first_sig = j["plan"][0][1]
    f = []
    finished_first = "signals_sent" not in rec
    if finished_first:
        rec["note"] = "finished before the signal"
        f = generic_findings(rec, err)
    else:
        if kind in ("int", "int2") and j["sweep"]:
            allowed = (130,)
        else:
            allowed = (128 + first_sig,)
        f = generic_findings(rec, err, allowed=allowed, bad_input_rule=False)
        lines = err.splitlines()
        stop = rec["stop_after_first_signal"]
        if kind == "int" and j["sweep"]:
            if stop > 2.0:
                f.append("first SIGINT on a sweep took %.2f s to stop it" % stop)
            n_int = sum(1 for l in lines if "interrupted" in l)
            if n_int != 1:
                f.append("%d 'interrupted' lines on stderr (want 1)" % n_int)
            if not out or not out.strip():
                f.append("nothing on stdout: the lengths checked so far were not printed")
        elif kind == "int2":
            if stop > 2.0:
                f.append("double SIGINT took %.2f s to end the run" % stop)
            if not any("interrupted" in l for l in lines):
                f.append("no 'interrupted' line on stderr")
        else:
            if stop > 2.0:
                f.append("%s took %.2f s to end the run" % (signal_name(first_sig), stop))
            if not any("interrupted" in l for l in lines):
                f.append("no 'interrupted' line on stderr")
        now = set(os.listdir(dd)) - before
        if now:
            f.append("file(s) left behind after the signal: %s" % sorted(now))
    rec.update(category=cat, sub=sub, findings=f)
    runner.record(rec)
    # a slow stop under load is re-measured once, alone
    if confirm and any("took" in x for x in f):
        shutil.rmtree(dd, ignore_errors=True)
        with CONFIRM_LOCK:
            run_signals(runner, (cat, sub + " (re-measured alone)", j), confirm=False)
    shutil.rmtree(dd, ignore_errors=True)


CONFIRM_LOCK = threading.Lock()


# ---------------------------------------------------------------------------
# category 5: tampered merges

EDIT_FIELDS = ["case", "input", "actual", "expected", "reason", "cases", "passed", "n", "of", "from",
               "to", "max_n", "shard", "exact", "decided", "limit", "checked", "precision", "seed",
               "lengths", "level", "exhaustive", "max_error", "position", "recipe", "weighting", "params",
               "phase", "schema", "analysis", "bisect", "decisions", "section", "values", "failure",
               "report", "drawn", "rows", "parts", "reports"]


def mutate_value(rng, v, field):
    if field == "shard" and isinstance(v, str):
        k = v.split("/")[0]
        return rng.choice([k + "/9223372036854775807", "0/2", "3/2", "1/1", "2/2", "1/2", "1/2/3", "-1/2",
                           "1/0", "", k + "/" + D5000, Raw("1"), Raw("null")])
    if isinstance(v, bool):
        return rng.choice([not v, Raw("null"), Raw("1"), Raw("\"true\"")])
    if isinstance(v, int):
        return rng.choice([v + 1, v - 1, 0, -1, v * 2, Raw(str(2 ** 63 - 1)), Raw(str(2 ** 63)),
                           Raw(str(2 ** 64)), Raw("1e999999"), Raw("%d.5" % v), Raw("\"%d\"" % v),
                           Raw("null"), Raw(D5000), Raw("%d.0" % v), Raw("-" + D5000), Raw("%de0" % v)])
    if isinstance(v, str):
        cands = ["", V100K, "\u0000", "\u001b[2J", Raw("\"\\ud800\""), Raw("null"), Raw("1"), v + " ", v.upper()]
        if field == "input" and v:
            syms = v.split(" ")
            i = rng.randrange(len(syms))
            q, _, val = syms[i].partition(":")
            syms2 = list(syms)
            syms2[i] = q + ":" + ("1" if val == "0" else "0")
            cands += [" ".join(syms2), " ".join(reversed(syms)), " ".join(syms[:-1]), v + " 1:0"]
        if field == "precision":
            cands += ["fp32", "bf16", "fp8-e4m3", "fp16", "53"]
        if field == "recipe":
            cands += ["dyck1", "first", "lookup-onehot"]
        if field == "weighting":
            cands += ["SMAT", "UHAT"]
        if field == "level":
            cands += ["exhaustive", "sampled", "faithful", "certified", "proved"]
        if field == "reason":
            cands += ["y = 1, want exactly 1", "ok"]
        if field == "values":
            cands += ["rationals"]
        if field == "schema":
            cands += ["verify/frontier/2", "verify/frontier/0"]
        if re.fullmatch(r"-?\d+(/\d+)?", v):
            cands += ["1", "0", "1/2", "-1", "1/0", "--1", "+1", "1/2/3", "log(0)", "1e999999"]
        return rng.choice(cands)
    if isinstance(v, list):
        cands = [[], v + v[:1], v[:-1], list(reversed(v)), Raw("null"), Raw("{}")]
        if v and all(isinstance(x, int) for x in v):
            cands += [v[:-1] + [v[-1] + 1], sorted(set(v + [9])), v + [2 ** 63]]
        return rng.choice(cands)
    if isinstance(v, dict):
        return rng.choice([{}, Raw("null"), Raw("[]"), dict(v, extra=1)])
    if v is None:
        return rng.choice([Raw("0"), Raw("[]"), Raw("\"\""), Raw("{}"), Raw("1"), Raw("[1,2,3]")])
    return Raw("null")


def gen_merge(rng, S, work, target):
    d = os.path.join(work, "merge")
    os.makedirs(d, exist_ok=True)
    jobs = []
    precs = sorted(S.shards)
    i = 0
    # controls that must merge to the baseline
    controls = ["reindent", "compact", "sort_keys", "crlf", "trailing_ws", "leading_ws"]
    while len(jobs) < target:
        i += 1
        prec = rng.choice(precs) if i > 12 else precs[i % len(precs)]
        which = rng.randrange(2)
        order = "ab" if rng.random() < 0.8 else "ba"
        js = rng.random() < 0.25
        src = S.shards[prec][which]
        with open(src, "rb") as f:
            data = f.read()
        doc = json.loads(data)
        r = rng.random()
        mode = "stdin" if r < 0.08 else "file"
        if i <= len(controls):
            kind = controls[i - 1]
        else:
            kind = rng.choice(["field"] * 10 + ["remove"] * 3 + ["add"] * 2 + ["trailing"] * 2 +
                              ["dup_key"] * 2 + ["part"] * 2 + ["swap_shard", "bom", "utf16", "truncate",
                                                                "flip", "huge", "deep"] + controls)
        desc = kind
        new = None
        if kind == "reindent":
            new = json.dumps(doc, indent=4).encode()
        elif kind == "compact":
            new = json.dumps(doc, separators=(",", ":")).encode()
        elif kind == "sort_keys":
            new = json.dumps(doc, indent=2, sort_keys=True).encode()
        elif kind == "crlf":
            new = data.replace(b"\n", b"\r\n")
        elif kind == "trailing_ws":
            new = data + b"\n \t\n"
        elif kind == "leading_ws":
            new = b"\n\n  " + data
        elif kind == "field":
            field = rng.choice(EDIT_FIELDS)
            ps = [p for p, v in walk(doc) if p and p[-1] == field]
            if not ps:
                # "from" is omitted when zero; add it to a part
                parts = [p for p, v in walk(doc) if p and p[-1] == "parts"]
                if parts and field in ("from", "to", "of"):
                    pp = rng.choice(parts)
                    lst = get_path(doc, pp)
                    j = rng.randrange(len(lst))
                    lst[j][field] = rng.choice([1, 0, -1, 2 ** 63 - 1, 5])
                    desc = "add %s=%s to %s/%d" % (field, lst[j][field], fmt_path(pp), j)
                else:
                    field = "seed"
                    ps = [p for p, v in walk(doc) if p and p[-1] == field]
            if ps:
                p = rng.choice(ps)
                old = get_path(doc, p)
                val = mutate_value(rng, old, field)
                set_path(doc, p, val)
                desc = "%s: %s -> %s" % (fmt_path(p), abbrev(json.dumps(old), 60),
                                         abbrev(val.text if isinstance(val, Raw) else json.dumps(val), 60))
            new = dump(rng, doc, "indent")
        elif kind == "remove":
            ps = [p for p, v in walk(doc) if p and isinstance(p[-1], str)]
            p = rng.choice(ps)
            del_path(doc, p)
            desc = "remove " + fmt_path(p)
            new = dump(rng, doc, "indent")
        elif kind == "add":
            ps = [p for p, v in walk(doc) if isinstance(v, dict)]
            p = rng.choice(ps)
            o = get_path(doc, p) if p else doc
            k = rng.choice(["extra", "note", "Max_N", "shard ", "failure", "from", "limit", "x" * 300])
            if k in o:
                k = k + "_x"
            o[k] = rng.choice([1, "x", None, {"n": 3}, [1, 2], True])
            desc = "add field %r=%r at %s" % (abbrev(k, 20), o[k], fmt_path(p))
            new = dump(rng, doc, "indent")
        elif kind == "trailing":
            t = rng.choice([b"x", b"{}", b"\n{}", b"\x00", b"[]", b"\n" + data, b"null", b"//", b"\xff"])
            new = data + t
            desc = "trailing %r" % abbrev(repr(t), 30)
        elif kind == "dup_key":
            keys = ["max_n", "seed", "shard", "cases", "phase", "limit", "n", "passed", "recipe", "precision"]
            k = rng.choice(keys).encode()
            occ = list(re.finditer(rb'"' + k + rb'": ', data))
            if occ:
                m = rng.choice(occ)
                val = rng.choice([b"0", b"1", b"99", b"\"1/1\"", b"null", b"\"fp32\""])
                if rng.random() < 0.5:
                    new = data[:m.start()] + b'"' + k + b'": ' + val + b", " + data[m.start():]
                    desc = "duplicate key %s=%s before the original" % (k.decode(), val.decode())
                else:
                    j = data.find(b"\n", m.end())
                    line = data[m.end():j]
                    comma = b"," if line.endswith(b",") else b""
                    if comma:
                        new = data[:j] + b' "' + k + b'": ' + val + b"," + data[j:]
                    else:
                        new = data[:j] + b', "' + k + b'": ' + val + data[j:]
                    desc = "duplicate key %s=%s after the original" % (k.decode(), val.decode())
            else:
                new = data
                desc = "duplicate key (no %s; unchanged)" % k.decode()
        elif kind == "part":
            pps = [p for p, v in walk(doc) if p and p[-1] == "parts" and isinstance(v, list) and v]
            p = rng.choice(pps)
            lst = get_path(doc, p)
            op = rng.choice(["drop", "dup", "move_other", "swap_report_drawn"])
            if op == "drop":
                j = rng.randrange(len(lst)); del lst[j]
                desc = "drop part %d of %s" % (j, fmt_path(p))
            elif op == "dup":
                lst.append(json.loads(json.dumps(rng.choice(lst))))
                desc = "duplicate a part in %s" % fmt_path(p)
            elif op == "move_other":
                other = json.loads(open(S.shards[prec][1 - which], "rb").read())
                ops = [q for q, v in walk(other) if q and q[-1] == "parts" and isinstance(v, list) and v]
                lst.append(rng.choice(get_path(other, rng.choice(ops))))
                desc = "copy a part of the other shard into %s" % fmt_path(p)
            else:
                j = rng.randrange(len(lst))
                if "drawn" in lst[j]:
                    lst[j]["report"], lst[j]["drawn"] = lst[j]["drawn"], lst[j]["report"]
                    desc = "swap report and drawn of part %d" % j
                else:
                    lst[j]["report"]["level"] = "exhaustive"
                    desc = "set level=exhaustive in part %d" % j
            new = dump(rng, doc, "indent")
        elif kind == "swap_shard":
            op = rng.choice(["same_twice", "other_sweep", "phase_two_label"])
            if op == "same_twice":
                new = open(S.shards[prec][1 - which], "rb").read()
                desc = "both files are shard %d" % (2 - which)
            elif op == "other_sweep":
                other = rng.choice([q for q in precs if q != prec])
                new = open(S.shards[other][which], "rb").read()
                desc = "shard %d of the %s sweep with shard %d of %s" % (which + 1, other, 2 - which, prec)
            else:
                for p, v in list(walk(doc)):
                    if p and p[-1] == "phase":
                        set_path(doc, p, 2)
                new = dump(rng, doc, "indent")
                desc = "phase set to 2"
        elif kind == "bom":
            new = b"\xef\xbb\xbf" + data
        elif kind == "utf16":
            new = data.decode().encode("utf-16")
        elif kind == "truncate":
            cut = rng.randrange(len(data))
            new = data[:cut]
            desc = "truncate to %d of %d" % (cut, len(data))
        elif kind == "flip":
            b = bytearray(data)
            k = rng.randrange(len(b))
            b[k] ^= rng.randrange(1, 256)
            new = bytes(b)
            desc = "flip byte %d (%r -> %r)" % (k, chr(data[k]), chr(b[k]))
        elif kind == "huge":
            ps = [p for p, v in walk(doc) if p and isinstance(v, int) and not isinstance(v, bool)]
            p = rng.choice(ps)
            val = rng.choice(["1e999999", D5000, str(2 ** 63), "-" + D5000, str(2 ** 64 + 1)])
            set_path(doc, p, Raw(val))
            desc = "huge number at %s = %s" % (fmt_path(p), abbrev(val, 30))
            new = dump(rng, doc, "indent")
        elif kind == "deep":
            depth = rng.choice([1000, 100000, 1000000])
            doc["extra"] = Raw("[" * depth + "]" * depth)
            desc = "unknown field with nesting depth %d" % depth
            new = dump(rng, doc, "indent")
        if new is None:
            new = dump(rng, doc, "indent")
        path = os.path.join(d, "t%04d-%d.json" % (i, which + 1))
        with open(path, "wb") as f:
            f.write(new)
        files = list(S.shards[prec])
        files[which] = path
        if order == "ba":
            files = files[::-1]
        stdin = None
        if mode == "stdin":
            pos = files.index(path)
            files[pos] = "-"
            stdin = ("file", path)
            desc += " (the edited shard on stdin)"
        is_control = kind in controls
        jobs.append(("merge", "%s %s shard %d/2: %s" % (prec, kind, which + 1, desc),
                     {"argv": ["merge"] + files + (["--json"] if js else []), "stdin": stdin, "prec": prec,
                      "order": order, "json": js, "control": is_control, "file": path,
                      "identical": new == data}))
    # merge a - c with stdin, in a few forms
    sh = S.shards["fp16"]
    extra = [
        (["merge", sh[0], "-"], ("file", sh[1]), "fp16 a - (stdin is shard 2)", True),
        (["merge", "-", sh[1]], ("file", sh[0]), "fp16 - b (stdin is shard 1)", True),
        (["merge", sh[0], "-", sh[1]], ("file", sh[1]), "fp16 a - c (stdin repeats shard 2)", False),
        (["merge", sh[0], "-", sh[1]], ("file", sh[0]), "fp16 a - c (stdin repeats shard 1)", False),
        (["merge", sh[0], "-", sh[1]], b"", "fp16 a - c (stdin empty)", False),
        (["merge", sh[0], "-", "-"], ("file", sh[1]), "fp16 a - - (stdin twice)", False),
        (["merge", sh[0], "-", sh[1]], ("file", S.shards["fp8-e4m3"][0]), "fp16 a - c (stdin another sweep)", False),
        (["merge", sh[0], "-", sh[1]], b"{}", "fp16 a - c (stdin {})", False),
        (["merge", sh[0], sh[1], sh[0]], None, "fp16 a b a", False),
    ]
    for argv, stdin, desc, _ in extra:
        jobs.append(("merge", desc, {"argv": argv, "stdin": stdin, "prec": "fp16", "order": "ab", "json": False,
                                     "control": False, "file": None, "identical": False}))
    return jobs


def run_merge(runner, job, S):
    cat, sub, j = job
    rec, out, err = runner.execute(j["argv"], stdin=j["stdin"], keep_stdout=True)
    f = generic_findings(rec, err)
    base_status, base_out = S.baseline[(j["prec"], j["order"], j["json"])]
    code = rec["status"]
    if code in (0, 1):
        if out != base_out:
            f.append("edited shard accepted (exit %d) and the merged report differs from the untouched merge" % code)
            rec["diff"] = first_diff(base_out, out)
        elif code != base_status:
            f.append("edited shard accepted with exit %d (untouched: %d)" % (code, base_status))
        rec["verdict"] = "accepted, same output" if out == base_out else "ACCEPTED, DIFFERENT OUTPUT"
    elif code == 2:
        rec["verdict"] = "refused"
        if j.get("control"):
            rec["note"] = "a whitespace/key-order-only edit refused (allowed)"
    rec.update(category=cat, sub=sub, findings=f)
    runner.record(rec)


def first_diff(a, b):
    a = a or b""
    b = b or b""
    al = a.decode("utf-8", "replace").splitlines()
    bl = b.decode("utf-8", "replace").splitlines()
    for i in range(max(len(al), len(bl))):
        x = al[i] if i < len(al) else "<none>"
        y = bl[i] if i < len(bl) else "<none>"
        if x != y:
            return {"line": i + 1, "untouched": abbrev(x, 240), "edited": abbrev(y, 240)}
    return None


# ---------------------------------------------------------------------------
# category 6: concurrency


def gen_concurrency(rng, S, work, target):
    d = os.path.join(work, "concurrency")
    os.makedirs(d, exist_ok=True)
    kinds = ["export_same_out"] * 10 + ["frontier_same_out"] * 8 + ["merge_same_out"] * 6 + \
            ["read_while_atomic_rewrite"] * 8 + ["read_while_torn_rewrite"] * 8
    while len(kinds) < target:
        kinds.append(rng.choice(kinds))
    jobs = []
    for i, kind in enumerate(kinds[:target]):
        jobs.append(("concurrency", kind, {"kind": kind, "dir": os.path.join(d, "c%03d" % i),
                                           "n": rng.choice([3, 4, 5]), "seed": rng.randrange(1 << 30),
                                           "ext": rng.choice([".json", ".json", ".safetensors"])}))
    return jobs


def run_concurrency(runner, job, S):
    cat, sub, j = job
    dd = j["dir"]
    os.makedirs(dd, exist_ok=True)
    rng = random.Random(j["seed"])
    kind = j["kind"]
    results = []
    lock = threading.Lock()

    def go(argv, **kw):
        rec, out, err = runner.execute(argv, cwd=dd, **kw)
        with lock:
            results.append((rec, out, err))

    if kind in ("export_same_out", "frontier_same_out", "merge_same_out"):
        ext = j["ext"] if kind == "export_same_out" else ".json"
        target = os.path.join(dd, "same" + ext)
        argvs = []
        for k in range(j["n"]):
            if kind == "export_same_out":
                r = ["lookup", "dyck1", "first", "pred", "tiebreak"][k % 5]
                argvs.append(["export", "--recipe", r, "--n", str(rng.choice([4096, 16384, 65536])), "--out", target,
                              "--quiet"] + (["--dtype", "F32", "--round-weights"] if ext == ".safetensors" else []))
            elif kind == "frontier_same_out":
                p = ["fp16", "bf16", "fp8-e4m3", "53", "fp32"][k % 5]
                argvs.append(["frontier", "--recipe", "lookup", "--precision", p, "--max-n", "16", "--out", target,
                              "--quiet"])
            else:
                prec = sorted(S.shards)[k % 3]
                argvs.append(["merge"] + S.shards[prec] + ["--out", target])
        before = set(os.listdir(dd))
        ts = [threading.Thread(target=go, args=(a,)) for a in argvs]
        for t in ts:
            t.start()
        for t in ts:
            t.join()
        ok = [r for r, _, _ in results if r.get("status") == 0]
        extra = []
        if ok and not os.path.exists(target):
            extra.append("%d concurrent writers exited 0 but %s does not exist" % (len(ok), target))
        if os.path.exists(target):
            data = open(target, "rb").read()
            if ext == ".json":
                try:
                    json.loads(data)
                except Exception as e:
                    extra.append("%s is not a whole JSON document after concurrent writes: %s" % (target, e))
            else:
                try:
                    n = struct.unpack("<Q", data[:8])[0]
                    json.loads(data[8:8 + n])
                except Exception as e:
                    extra.append("%s is not a whole safetensors file after concurrent writes: %s" % (target, e))
            # the file must be one writer's output: read it back
            if ext == ".json" and kind == "export_same_out" or ext == ".safetensors":
                rec2, _, err2 = runner.execute(["run", "--model", target, "--input", "x"], cwd=dd)
                rec2.update(category=cat, sub=sub + " (read back)", findings=[
                    x for x in generic_findings(rec2, err2)])
                if rec2["status"] == 2 and re.search(r"unexpected end|truncat|EOF|invalid character|"
                                                     r"not a .*file|parse", rec2["stderr_first"], re.I):
                    rec2["findings"].append("the file written by concurrent writers does not read back: %s"
                                            % rec2["stderr_first"])
                runner.record(rec2)
        left = temp_leftovers(dd, before)
        if left:
            extra.append("temporary files left after concurrent writes: %s" % left)
        for rec, out, err in results:
            rec.update(category=cat, sub=sub, findings=generic_findings(rec, err))
            runner.record(rec)
        if extra:
            results[-1][0]["findings"] += extra
            # re-record the group verdict as its own line
            runner.record({"id": runner.next_id(), "category": cat, "sub": sub + " (group verdict)",
                           "argv": argvs[0], "status": None, "findings": extra, "group": True,
                           "wall": 0, "rss_kb": 0, "stderr_first": ""})
        return
    # readers while the model file is being rewritten
    model = os.path.join(dd, "model.json")
    contents = [open(os.path.join(S.dir, n), "rb").read() for n in ("l.json", "d.json")]
    with open(model, "wb") as f:
        f.write(contents[0])
    stop = threading.Event()
    writes = [0]

    def writer_torn():
        k = 0
        while not stop.is_set():
            data = contents[k % 2]
            k += 1
            with open(model, "wb") as f:
                for off in range(0, len(data), 97):
                    f.write(data[off:off + 97])
                    f.flush()
                    time.sleep(0.0005)
            writes[0] += 1

    wrecs = []

    def writer_atomic():
        k = 0
        while not stop.is_set():
            r = ["lookup", "dyck1"][k % 2]
            k += 1
            rec, out, err = runner.execute(["export", "--recipe", r, "--n", "4", "--out", model, "--quiet"], cwd=dd)
            wrecs.append((rec, err))
            writes[0] += 1

    wt = threading.Thread(target=writer_torn if kind == "read_while_torn_rewrite" else writer_atomic)
    wt.start()
    time.sleep(0.05)
    before = set(os.listdir(dd))
    readers = []
    for k in range(j["n"]):
        argv = rng.choice([
            ["check", "--model", model, "--spec", "lookup", "--cases", "2", "--max-n", "4"],
            ["run", "--model", model, "--input", "1:0 2:1"],
            ["frontier", "--model", model, "--spec", "lookup", "--max-n", "4", "--precision", "fp16"],
        ])
        readers.append(threading.Thread(target=go, args=(argv,)))
    for t in readers:
        t.start()
    for t in readers:
        t.join()
    stop.set()
    wt.join()
    for rec, out, err in results:
        f = generic_findings(rec, err)
        if kind == "read_while_atomic_rewrite" and rec.get("status") == 2 and \
                re.search(r"unexpected end|truncat|EOF|invalid character|empty", rec["stderr_first"], re.I):
            f.append("a reader saw a partly written model while the writer wrote atomically: %s" % rec["stderr_first"])
        rec.update(category=cat, sub=sub + " (reader; %d rewrites)" % writes[0], findings=f)
        runner.record(rec)
    for rec, err in wrecs:
        rec.update(category=cat, sub=sub + " (writer)", findings=generic_findings(rec, err))
        runner.record(rec)
    left = temp_leftovers(dd, before)
    if left:
        runner.record({"id": runner.next_id(), "category": cat, "sub": sub + " (group verdict)", "argv": [],
                       "status": None, "findings": ["temporary files left: %s" % left], "group": True,
                       "wall": 0, "rss_kb": 0, "stderr_first": ""})


# ---------------------------------------------------------------------------
# main


def main():
    ap = argparse.ArgumentParser(description="hostile-input campaign against verify")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--bin", default="/tmp/hostile/verify")
    ap.add_argument("--work", default="/tmp/hostile/work")
    ap.add_argument("--results", default="/tmp/hostile/results.jsonl")
    ap.add_argument("--summary", default=os.path.join(HERE, "last-run.txt"))
    ap.add_argument("--jobs", type=int, default=2, help="runs at once (outside the concurrency category)")
    ap.add_argument("--scale", type=float, default=1.0, help="multiply every category's count (e.g. 0.05 to try)")
    ap.add_argument("--only", default="", help="comma-separated categories to run (default: all)")
    ap.add_argument("--malformed", type=int, default=900)
    ap.add_argument("--cmdline", type=int, default=700)
    ap.add_argument("--output", type=int, default=130)
    ap.add_argument("--signals", type=int, default=60)
    ap.add_argument("--merge", type=int, default=600)
    ap.add_argument("--concurrency", type=int, default=40)
    args = ap.parse_args()

    if not os.access(args.bin, os.X_OK):
        sys.exit("no binary at %s: build it with 'go build -o %s ./cmd/verify'" % (args.bin, args.bin))
    if os.path.isdir(args.work):
        shutil.rmtree(args.work)
    os.makedirs(args.work)
    os.makedirs(os.path.dirname(args.results), exist_ok=True)
    only = set(x for x in args.only.split(",") if x)
    t_start = time.monotonic()
    print("verify hostile-input campaign: seed %d, binary %s" % (args.seed, args.bin), flush=True)
    runner = Runner(args.bin, args.work, args.results)
    S = setup(runner, args.work)
    print("setup: %d seed models, %d shard sweeps" % (len(S.models), len(S.shards)), flush=True)

    def rng_for(cat):
        return random.Random("%d-%s" % (args.seed, cat))

    def count(c):
        return max(1, int(round(getattr(args, c) * args.scale)))

    plan = []
    if not only or "malformed" in only:
        plan.append(("malformed", gen_malformed(rng_for("malformed"), S, args.work, count("malformed")),
                     lambda job: run_malformed(runner, job), args.jobs))
    if not only or "cmdline" in only:
        plan.append(("cmdline", gen_cmdline(rng_for("cmdline"), S, args.work, count("cmdline")),
                     lambda job: run_cmdline(runner, job), args.jobs))
    if not only or "output" in only:
        plan.append(("output", gen_output(rng_for("output"), S, args.work, count("output")),
                     lambda job: run_output(runner, job), args.jobs))
    if not only or "merge" in only:
        plan.append(("merge", gen_merge(rng_for("merge"), S, args.work, count("merge")),
                     lambda job: run_merge(runner, job, S), args.jobs))
    if not only or "concurrency" in only:
        plan.append(("concurrency", gen_concurrency(rng_for("concurrency"), S, args.work, count("concurrency")),
                     lambda job: run_concurrency(runner, job, S), 1))
    if not only or "signals" in only:
        plan.append(("signals", gen_signals(rng_for("signals"), S, args.work, count("signals")),
                     lambda job: run_signals(runner, job), args.jobs))

    for cat, jobs, fn, width in plan:
        t0 = time.monotonic()
        n0 = len(runner.records)
        errors = []

        def safe(job):
            try:
                fn(job)
            except Exception as e:  # a bug of the campaign, not of verify: recorded, not a finding
                import traceback
                errors.append((job[1], traceback.format_exc()))

        with ThreadPoolExecutor(max_workers=width) as ex:
            list(ex.map(safe, jobs))
        n = len([r for r in runner.records[n0:] if not r.get("group")])
        print("%-12s %5d jobs, %5d invocations, %6.1f s%s" % (
            cat, len(jobs), n, time.monotonic() - t0,
            (", %d campaign errors" % len(errors)) if errors else ""), flush=True)
        for sub, tb in errors[:5]:
            print("  campaign error in %r:\n%s" % (sub[:200], tb), flush=True)
    runner.results.close()
    write_summary(args, runner.records, time.monotonic() - t_start, S)


def write_summary(args, records, elapsed, S):
    cats = {}
    inv = 0
    for r in records:
        if r.get("group"):
            continue
        inv += 1
        cats[r["category"]] = cats.get(r["category"], 0) + 1
    findings = [r for r in records if r.get("findings")]
    lines = []
    lines.append("verify hostile-input campaign")
    lines.append("seed %d; binary %s; %.1f min; results %s" % (args.seed, args.bin, elapsed / 60, args.results))
    lines.append("")
    lines.append("invocations per category:")
    for c in ["setup"] + CATEGORIES:
        if c in cats:
            lines.append("  %-12s %5d" % (c, cats[c]))
    lines.append("  %-12s %5d (campaign categories without setup: %d)" % ("total", inv, inv - cats.get("setup", 0)))
    st = {}
    for r in records:
        if r.get("group"):
            continue
        s = r.get("status")
        st[s] = st.get(s, 0) + 1
    lines.append("exit statuses: " + ", ".join("%s: %d" % (k, v) for k, v in sorted(st.items(), key=lambda x: str(x[0]))))
    mr = [r for r in records if r.get("category") == "merge"]
    if mr:
        v = {}
        for r in mr:
            v[r.get("verdict", "other")] = v.get(r.get("verdict", "other"), 0) + 1
        lines.append("tampered merges: " + ", ".join("%s %d" % kv for kv in sorted(v.items())))
    sg = [r for r in records if r.get("category") == "signals" and "stop_after_first_signal" in r]
    if sg:
        stops = sorted(r["stop_after_first_signal"] for r in sg)
        lines.append("signals: %d runs signalled, stop time after the first signal: median %.3f s, max %.3f s"
                     % (len(sg), stops[len(stops) // 2], stops[-1]))
    rss = max((r.get("rss_kb") or 0) for r in records)
    lines.append("largest peak RSS: %.1f MB" % (rss / 1024))
    if getattr(S, "baseline_order_note", None):
        lines.append("note: " + S.baseline_order_note)
    lines.append("")
    lines.append("findings: %d runs with findings (%d finding lines)" % (
        len(findings), sum(len(r["findings"]) for r in findings)))
    # group identical findings (same category, same finding text with numbers blanked)
    groups = {}
    for r in findings:
        for f in r["findings"]:
            key = (r["category"], re.sub(r"\d+(\.\d+)?", "N", f)[:160])
            groups.setdefault(key, []).append((r, f))
    lines.append("distinct kinds: %d" % len(groups))
    for (cat, key), items in sorted(groups.items(), key=lambda kv: (-len(kv[1]), kv[0])):
        lines.append("")
        lines.append("[%s] %s  (%d runs)" % (cat, key, len(items)))
    lines.append("")
    lines.append("every finding:")
    for r in findings:
        lines.append("")
        lines.append("- id %s [%s] %s" % (r["id"], r["category"], abbrev(r.get("sub", ""), 300)))
        lines.append("  argv: %s" % json.dumps(r.get("argv"), ensure_ascii=False)[:1500])
        lines.append("  status %s, %.2f s, RSS %.0f MB, stderr first line: %s" % (
            r.get("status"), r.get("wall") or 0, (r.get("rss_kb") or 0) / 1024, r.get("stderr_first", "")))
        for f in r["findings"]:
            lines.append("  FINDING: %s" % f)
        if r.get("diff"):
            lines.append("  diff: %s" % json.dumps(r["diff"], ensure_ascii=False))
    text = "\n".join(lines) + "\n"
    with open(args.summary, "w", encoding="utf-8") as f:
        f.write(text)
    head = text.split("\nevery finding:")[0]
    print(head)
    print("summary written to %s" % args.summary)


if __name__ == "__main__":
    main()
