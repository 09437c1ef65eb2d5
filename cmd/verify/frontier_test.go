package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFrontierCommand runs the lookup's frontier at fp16, where the
// scores 2115 and 2116 first tie at n = 46 (⌊√2048⌋ = 45), writes the
// JSON and a plot, and leaves nothing else in the directory. Below 46 the
// analysis proves every length up to it faithful to the construction (the
// mark ᶠ, limit_level "faithful" and every_length in the JSON: the
// construction itself is sampled, so not ᶜ).
func TestFrontierCommand(t *testing.T) {
	dir := t.TempDir()
	out, plot := filepath.Join(dir, "f.json"), filepath.Join(dir, "f.svg")
	stdout, stderr, status := runCmd("frontier", "--recipe", "lookup", "--precision", "fp16", "--max-n", "60", "--out", out, "--plot", plot)
	if status != 0 {
		t.Fatalf("status %d: %s", status, stderr)
	}
	// precision, limit, decides to, "n = 46", cause: the lookup's y is
	// wrong and undecided (1/2) at its first failure, so it decides no
	// further than it is exact ("—").
	if f := field(t, stdout, "fp16"); f[1] != "45ᶠ" || f[2] != "—" || f[5] != "46" || f[6] != "tie" {
		t.Errorf("fp16 row %q, want limit 45 proved faithful at every length, first failure n = 46, a tie", f)
	}
	var doc frontierDoc
	data, err := os.ReadFile(out)
	if err != nil || json.Unmarshal(data, &doc) != nil || len(doc.Reports) != 1 || doc.Reports[0].Rows[0].Limit != 45 || doc.Reports[0].Rows[0].LimitLevel != "faithful" ||
		!doc.Reports[0].Rows[0].Every {
		t.Errorf("--out: %v, %.300s", err, data)
	}
	if svg, err := os.ReadFile(plot); err != nil || !strings.Contains(string(svg), "<svg") {
		t.Errorf("--plot: %v", err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 2 {
		t.Errorf("the directory holds %d files, want f.json and f.svg only", len(entries))
	}
}

// TestFrontierMergeCommand: a sweep in three phase-1 shards and two
// phase-2 shards merges into the report of one run, byte for byte,
// whatever the order of the files; so do the phase-1 shards alone (the
// merge runs phase 2). With the bisection, and without (--no-bisect on
// every run).
func TestFrontierMergeCommand(t *testing.T) {
	for _, extra := range [][]string{nil, {"--no-bisect"}} {
		testMergeCommand(t, extra)
	}
}

func testMergeCommand(t *testing.T, extra []string) {
	dir := t.TempDir()
	args := append([]string{"frontier", "--recipe", "lookup", "--precision", "fp16,bf16", "--max-n", "40"}, extra...)
	whole := filepath.Join(dir, "whole.json")
	if _, stderr, status := runCmd(append(args, "--out", whole)...); status != 0 {
		t.Fatalf("whole run: %s", stderr)
	}
	var p1, p2 []string
	for _, k := range []string{"3/3", "1/3", "2/3"} {
		path := filepath.Join(dir, "p1-"+k[:1]+".json")
		stdout, stderr, status := runCmd(append(args, "--shard", k, "--out", path)...)
		if status != 0 {
			t.Fatalf("shard %s: %s", k, stderr)
		}
		if !strings.Contains(stdout, "phase 1, shard "+k) || !strings.Contains(stdout, "fp16  n = ") {
			t.Errorf("shard %s prints:\n%s", k, stdout)
		}
		p1 = append(p1, path)
	}
	for _, k := range []string{"2/2", "1/2"} {
		path := filepath.Join(dir, "p2-"+k[:1]+".json")
		stdout, stderr, status := runCmd(append([]string{"frontier", "--phase", "2", "--shard", k, "--out", path}, p1...)...)
		if status != 0 {
			t.Fatalf("phase 2, shard %s: %s", k, stderr)
		}
		if !strings.Contains(stdout, "phase 2, shard "+k) {
			t.Errorf("phase 2, shard %s prints:\n%s", k, stdout)
		}
		p2 = append(p2, path)
	}
	want, _ := os.ReadFile(whole)
	for _, files := range [][]string{append(p2, p1...), p1} {
		merged := filepath.Join(dir, "merged.json")
		if _, stderr, status := runCmd(append([]string{"merge", "--out", merged}, files...)...); status != 0 {
			t.Fatalf("merge: %s", stderr)
		}
		got, _ := os.ReadFile(merged)
		if !bytes.Equal(want, got) || len(want) == 0 {
			t.Errorf("merged %d files differ from the whole run (%d and %d bytes)", len(files), len(want), len(got))
		}
	}
}

func TestFrontierBadInput(t *testing.T) {
	dir := t.TempDir()
	shard := filepath.Join(dir, "s1.json")
	if _, stderr, status := runCmd("frontier", "--recipe", "lookup", "--precision", "bf16", "--max-n", "8", "--shard", "1/2", "--out", shard); status != 0 {
		t.Fatal(stderr)
	}
	notJSON := filepath.Join(dir, "x.json")
	os.WriteFile(notJSON, []byte("{\"reports\": [{\"recipe\": 3}]}"), 0o644)
	// Other names of one output, or of an input: a link to a file not
	// yet written, a hard link.
	alias, hard := filepath.Join(dir, "alias.svg"), filepath.Join(dir, "hard.json")
	if err := os.Symlink("same.svg", alias); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(shard, hard); err != nil {
		t.Fatal(err)
	}
	same := filepath.Join(dir, "same.svg")
	tests := []struct {
		args []string
		msg  string
	}{
		{[]string{"frontier"}, "--recipe NAME"},
		{[]string{"frontier", "--recipe", "nosuch"}, "nosuch"},
		{[]string{"frontier", "--recipe", "lookup", "--all"}, "not both"},
		{[]string{"frontier", "--recipe", "lookup", "--precision", "fp17"}, "--precision"},
		{[]string{"frontier", "--recipe", "lookup", "--shard", "0/3"}, "--shard"},
		{[]string{"frontier", "--recipe", "lookup", "--shard", "4/3"}, "--shard"},
		{[]string{"frontier", "--recipe", "lookup", "--max-n", "0"}, "--max-n"},
		{[]string{"frontier", "--recipe", "lookup", "--weighting", "all"}, "one weighting"},
		{[]string{"frontier", "--recipe", "lookup", "--plot", filepath.Join(dir, "p.pdf")}, ".svg or .png"},
		{[]string{"frontier", "--recipe", "lookup", "--out", filepath.Join(dir, "no", "such", "dir.json")}, "cannot write"},
		{[]string{"frontier", "--recipe", "lookup", "--out", ""}, "--out: the file name is empty"},
		{[]string{"frontier", "--recipe", "lookup", "--out", same, "--plot", same}, "name the same file"},
		{[]string{"frontier", "--recipe", "lookup", "--out", same, "--plot", alias}, "name the same file"},
		{[]string{"merge", shard, "--out", ""}, "--out: the file name is empty"},
		{[]string{"merge", shard, notJSON, "--out", hard}, "also an input"},
		{[]string{"merge", shard, notJSON, "--out", notJSON}, "also an input"},
		{[]string{"frontier", "--recipe", "lookup,dyck1", "--param", "x=1"}, "no recipe given takes"},
		{[]string{"frontier", "--recipe", "lookup,dyck1", "--weighting", "uhat"}, "one recipe"},
		{[]string{"merge"}, "needs the JSON files"},
		{[]string{"merge", filepath.Join(dir, "missing.json")}, "missing.json"},
		{[]string{"merge", notJSON}, "not a frontier report"},
		{[]string{"merge", shard}, "1 report for 2 shards: shard 2/2 missing"},
		{[]string{"merge", shard, shard}, "appears twice"},
		{[]string{"frontier", "--phase", "2", "--shard", "1/2"}, "needs the JSON files of every phase-1 shard"},
		{[]string{"frontier", "--phase", "2", "--recipe", "lookup", shard}, "--recipe does not apply to phase 2"},
		{[]string{"frontier", "--phase", "2", "--param", "x=1", shard}, "--param does not apply to phase 2"},
		{[]string{"frontier", "--phase", "2", shard}, "1 report for 2 shards"},
		{[]string{"frontier", "--phase", "3", shard}, "--phase must be 1 or 2"},
		{[]string{"frontier", "--phase", "1", "--recipe", "lookup"}, "--phase 1 goes with --shard"},
		{[]string{"frontier", "--recipe", "lookup", "--shard", "1/2", "--plot", filepath.Join(dir, "p.svg")}, "--plot draws a whole sweep"},
	}
	for _, tc := range tests {
		out, errOut, status := runCmd(tc.args...)
		if status != 2 || out != "" || strings.Count(errOut, "\n") != 1 || !strings.Contains(errOut, tc.msg) {
			t.Errorf("%q: status %d, stdout %.80q, stderr %q; want 2, nothing, one line with %q", tc.args, status, out, errOut, tc.msg)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 4 {
		t.Errorf("bad input left files behind: %d entries", len(entries))
	}
}

// TestFrontierModel: 'verify frontier --model FILE --spec NAME' measures
// the model of a file against the recipe's reference. The lookup written
// by export has the lookup's frontier (at fp16 the scores 2115 and 2116
// first tie at n = 46, as in TestFrontierCommand); the same file with the
// row of c in the unembedding doubled reads c = 2 for the input "1:1" of
// length 1, so it fails at n = 1 at every precision: limit 0.
func TestFrontierModel(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "lookup.json")
	if _, stderr, status := runCmd("export", "--recipe", "lookup", "--n", "60", "--out", path); status != 0 {
		t.Fatal(stderr)
	}
	stdout, stderr, status := runCmd("frontier", "--model", path, "--spec", "lookup", "--precision", "fp16", "--quiet")
	if status != 0 {
		t.Fatalf("status %d: %s", status, stderr)
	}
	if !strings.HasPrefix(stdout, "model "+path+" against lookup") {
		t.Errorf("the report does not name the model file:\n%s", stdout)
	}
	if f := field(t, stdout, "fp16"); f[1] != "45ᶠ" || f[5] != "46" || f[6] != "tie" {
		t.Errorf("fp16 row %q, want limit 45, first failure n = 46, a tie", f)
	}

	var doc map[string]any
	data, _ := os.ReadFile(path)
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	out := doc["output"].(map[string]any)
	for k, label := range out["labels"].([]any) {
		if label == "c" {
			for i, w := range out["w"].([]any)[k].([]any) {
				if w != "0" {
					out["w"].([]any)[k].([]any)[i] = "2*(" + w.(string) + ")"
				}
			}
		}
	}
	broken := filepath.Join(dir, "broken.json")
	data, _ = json.Marshal(doc)
	os.WriteFile(broken, data, 0o644)
	stdout, stderr, status = runCmd("frontier", "--model", broken, "--spec", "lookup", "--precision", "fp64,exact", "--max-n", "8", "--json", "--quiet")
	if status != 0 {
		t.Fatalf("status %d: %s", status, stderr)
	}
	var fd frontierDoc
	if err := json.Unmarshal([]byte(stdout), &fd); err != nil || len(fd.Reports) != 1 || fd.Reports[0].Model != broken {
		t.Fatalf("%v: %.300s", err, stdout)
	}
	for _, row := range fd.Reports[0].Rows {
		if row.Limit != 0 || row.Failure == nil || row.Failure.N != 1 {
			t.Errorf("%s: limit %d, failure %+v; want limit 0, failure at n = 1", row.Precision, row.Limit, row.Failure)
		}
	}

	for _, tc := range []struct {
		args []string
		msg  string
	}{
		{[]string{"frontier", "--model", path}, "--spec NAME"},
		{[]string{"frontier", "--spec", "lookup"}, "--spec goes with --model"},
		{[]string{"frontier", "--model", path, "--spec", "lookup", "--all"}, "--all does not apply"},
		{[]string{"frontier", "--model", path, "--spec", "lookup", "--shard", "1/2"}, "--shard does not apply"},
		{[]string{"frontier", "--model", path, "--spec", "lookup", "--max-n", "61"}, "covers lengths up to 60"},
		{[]string{"frontier", "--model", filepath.Join(dir, "none.json"), "--spec", "lookup"}, "none.json"},
	} {
		out, errOut, status := runCmd(tc.args...)
		if status != 2 || out != "" || strings.Count(errOut, "\n") != 1 || !strings.Contains(errOut, tc.msg) {
			t.Errorf("%q: status %d, stdout %.80q, stderr %q; want 2, nothing, one line with %q", tc.args, status, out, errOut, tc.msg)
		}
	}
}

// TestShardCountsBounded: a shard count is bounded by the units of work
// the sweep has, refused with one line (it used to make a slice per
// shard: a panic at 2^63 − 1, minutes at 10^8); phase 2 and the merge
// make nothing per shard, so a count of 2^63 − 1 in phase 2 runs at once
// (the shards past the first have nothing), and merge files claiming
// 2^63 − 1 shards are refused with the first few missing, not a list of
// them all.
func TestShardCountsBounded(t *testing.T) {
	const huge = "9223372036854775807"
	for _, shard := range []string{huge + "/" + huge, "1/1152921504606846976", "1/100000000"} {
		out, errOut, status := runCmd("frontier", "--recipe", "lookup", "--precision", "fp16", "--max-n", "16", "--shard", shard)
		if status != 2 || strings.Count(errOut, "\n") != 1 || !strings.Contains(errOut, "at most") || out != "" {
			t.Errorf("--shard %s: status %d, stderr %q, stdout %q", shard, status, errOut, out)
		}
	}
	dir := t.TempDir()
	files := lookupShards(t, dir, 16)
	if _, errOut, status := runCmd(append([]string{"frontier", "--phase", "2", "--shard", "1/" + huge, "--out", filepath.Join(dir, "p2.json"), "--quiet"}, files...)...); status != 0 {
		t.Errorf("phase 2 of 2^63 − 1 shards: status %d, %s", status, errOut)
	}
	var tampered []string
	for k, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		data = bytes.Replace(data, []byte(fmt.Sprintf(`"shard": "%d/2"`, k+1)), []byte(fmt.Sprintf(`"shard": "%d/%s"`, k+1, huge)), 1)
		g := filepath.Join(dir, fmt.Sprintf("bad-%d.json", k+1))
		if err := os.WriteFile(g, data, 0o644); err != nil {
			t.Fatal(err)
		}
		tampered = append(tampered, g)
	}
	_, errOut, status := runCmd(append([]string{"merge", "--out", filepath.Join(dir, "m.json")}, tampered...)...)
	if status != 2 || !strings.Contains(errOut, "missing") || len(errOut) > 400 {
		t.Errorf("merge of shards claiming 2^63 − 1: status %d, stderr %q", status, errOut)
	}
}

// TestOutputsDistinct: an output path that is another output, or one of
// the inputs (under another spelling too), is refused with one line
// before anything runs, and the input is left as it was: --out and
// --plot on one file kept only the plot, and a merge wrote over its own
// input.
func TestOutputsDistinct(t *testing.T) {
	dir := t.TempDir()
	files := lookupShards(t, dir, 8)
	before, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	same := filepath.Join(dir, "same.svg")
	for _, args := range [][]string{
		{"frontier", "--recipe", "lookup", "--precision", "fp16", "--max-n", "8", "--out", same, "--plot", same},
		{"merge", files[0], files[1], "--out", files[0]},
		{"merge", files[0], files[1], "--out", filepath.Join(dir, ".", "p1-2.json")},
		{"merge", files[0], files[1], "--out", same, "--plot", same},
	} {
		_, errOut, status := runCmd(args...)
		if status != 2 || strings.Count(errOut, "\n") != 1 {
			t.Errorf("%v: status %d, stderr %q", args, status, errOut)
		}
	}
	if after, err := os.ReadFile(files[0]); err != nil || !bytes.Equal(before, after) {
		t.Errorf("the merge's input changed (%v)", err)
	}
	if _, err := os.Stat(same); err == nil {
		t.Errorf("%s written", same)
	}
}

// TestMergeReadsStdin: "-" among merge's files is standard input, as the
// docs say (it was taken for an unknown flag): the merge of a shard piped
// in is the merge of the files.
func TestMergeReadsStdin(t *testing.T) {
	dir := t.TempDir()
	files := lookupShards(t, dir, 8)
	want := filepath.Join(dir, "files.json")
	if _, errOut, status := execVerify(t, "merge", files[0], files[1], "--out", want); status != 0 {
		t.Fatalf("merge of the files: %s", errOut)
	}
	first, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	got := filepath.Join(dir, "stdin.json")
	if _, errOut, status := execVerifyStdin(t, first, "merge", "-", files[1], "--out", got); status != 0 {
		t.Fatalf("merge - %s: status %d, %s", files[1], status, errOut)
	}
	a, _ := os.ReadFile(want)
	b, _ := os.ReadFile(got)
	if !bytes.Equal(a, b) {
		t.Errorf("the merge with a shard on stdin differs from the merge of the files")
	}
}

// lookupShards writes the two phase-1 shards of the lookup's fp16 sweep
// to maxN into dir and returns their paths.
func lookupShards(t *testing.T, dir string, maxN int) []string {
	t.Helper()
	var files []string
	for k := 1; k <= 2; k++ {
		f := filepath.Join(dir, fmt.Sprintf("p1-%d.json", k))
		if _, errOut, status := runCmd("frontier", "--recipe", "lookup", "--precision", "fp16", "--max-n", fmt.Sprint(maxN), "--shard", fmt.Sprintf("%d/2", k), "--out", f, "--quiet"); status != 0 {
			t.Fatalf("phase 1 shard %d: %s", k, errOut)
		}
		files = append(files, f)
	}
	return files
}
