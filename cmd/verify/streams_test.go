package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestBinaryStreams: --out - writes the model to stdout and nothing else
// (the summary goes to stderr), and --model - reads it back from stdin,
// its format told by its first bytes: the round trip export | check
// passes, for JSON and safetensors, and so do run and frontier on the
// model from stdin. frontier --out - puts the document alone on stdout.
func TestBinaryStreams(t *testing.T) {
	for _, format := range []string{"json", "safetensors"} {
		model, stderr, status := execVerify(t, "export", "--recipe", "lookup", "--n", "8", "--out", "-", "--format", format)
		if status != 0 || !strings.HasPrefix(stderr, "wrote the model: lookup-AHAT") {
			t.Fatalf("export --out - --format %s: status %d, stderr %q", format, status, stderr)
		}
		if format == "json" && !strings.HasPrefix(model, "{") || format == "safetensors" && (len(model) < 9 || model[7] != 0 || model[8] != '{') {
			t.Errorf("export --format %s wrote %.40q", format, model)
		}
		stdout, stderr, status := execVerifyStdin(t, []byte(model), "check", "--model", "-", "--spec", "lookup")
		if status != 0 || !strings.Contains(stdout, "PASS") || !strings.Contains(stdout, "model from standard input") {
			t.Errorf("export --format %s | check --model -: status %d\n%s%s", format, status, stdout, stderr)
		}
		stdout, stderr, status = execVerifyStdin(t, []byte(model), "run", "--model", "-", "--input", "2:1 1:0", "--precision", "fp64")
		// Position 1 reads v₂ = 0, position 2 reads v₁ = 1.
		if status != 0 || !strings.Contains(findRow(stdout, "1"), "y=0 c=0") || !strings.Contains(findRow(stdout, "2"), "y=1 c=1") {
			t.Errorf("run --model - (%s): status %d\n%s%s", format, status, stdout, stderr)
		}
		stdout, stderr, status = execVerifyStdin(t, []byte(model), "frontier", "--model", "-", "--spec", "lookup", "--precision", "fp16", "--quiet", "--out", "-")
		var doc frontierDoc
		if err := json.Unmarshal([]byte(stdout), &doc); status != 0 || err != nil || len(doc.Reports) != 1 || doc.Reports[0].Model != "standard input" ||
			!strings.Contains(stderr, "model standard input against lookup") {
			t.Errorf("frontier --model - --out - (%s): status %d, %v\nstdout %.200s\nstderr %.200s", format, status, err, stdout, stderr)
		}
	}
	// --out - on merge: the document alone on stdout, the same as --out FILE.
	dir := t.TempDir()
	shards, file := frontierShards(t, dir), filepath.Join(dir, "m.json")
	stdout, _, status := execVerify(t, "merge", shards[0], shards[1], "--out", "-")
	execVerify(t, "merge", shards[0], shards[1], "--out", file)
	if want, _ := os.ReadFile(file); status != 0 || stdout != string(want) || len(want) == 0 {
		t.Errorf("merge --out - printed %d bytes, --out FILE wrote %d: they differ", len(stdout), len(want))
	}

	bad := []struct {
		stdin string
		args  []string
		want  string
	}{
		{"", []string{"check", "--model", "-", "--spec", "lookup"}, "standard input is empty"},
		{"not a model", []string{"check", "--model", "-", "--spec", "lookup"}, "neither a JSON model"},
		{"{\"format\": \"transformer-cookbook-model\"", []string{"run", "--model", "-", "--input", "1:1"}, "standard input"},
		{"", []string{"run", "--model", "-", "--inputs", "-"}, "both read standard input"},
		{"", []string{"export", "--recipe", "lookup", "--out", "-", "--format", "xml"}, "--format must be json or safetensors"},
		{"", []string{"export", "--recipe", "lookup", "--out", filepath.Join(dir, "x.json"), "--format", "safetensors"}, "does not agree"},
		{"", []string{"export", "--recipe", "lookup", "--out", "-", "--dtype", "F32"}, "--dtype applies to .safetensors files"},
		// A weight F16 does not hold: nothing on stdout, not half a file.
		{"", []string{"export", "--recipe", "dyck1-n", "--n", "3", "--out", "-", "--format", "safetensors", "--dtype", "F16"}, "the model not written"},
	}
	for _, tc := range bad {
		stdout, stderr, status := execVerifyStdin(t, []byte(tc.stdin), tc.args...)
		if status != 2 || stdout != "" || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, tc.want) {
			t.Errorf("verify %q: status %d, stdout %.80q, stderr %q; want 2, nothing, one line with %q", tc.args, status, stdout, stderr, tc.want)
		}
	}
}

// TestBinaryRunSizing: run builds its model for the input's positions,
// not its characters. A lookup-ao input of 100 positions (491
// characters) runs with --max-n 100, for which an almost orthogonal
// family exists (not for N = 491); a lookup input of 20,000 positions
// (about 160,000 characters, past the 65,536 the recipe builds) runs at
// fp64. Each position i queries q_i and must read v_{q_i}, the value
// typed at position q_i.
func TestBinaryRunSizing(t *testing.T) {
	for _, tc := range []struct {
		recipe string
		n      int
		args   []string
	}{
		{"lookup-ao", 100, []string{"--max-n", "100"}},
		{"lookup", 20000, []string{"--precision", "fp64"}},
	} {
		// Queries spread over [1, n] by a stride prime to n, values a
		// pattern of bits that is not periodic in the stride.
		qs, vs := make([]int, tc.n), make([]int, tc.n)
		fields := make([]string, tc.n)
		for i := range qs {
			qs[i], vs[i] = (i*7919)%tc.n+1, (i*i/3)%2
		}
		for i := range qs {
			fields[i] = strings.Join([]string{strconv.Itoa(qs[i]), strconv.Itoa(vs[i])}, ":")
		}
		input := strings.Join(fields, " ")
		args := append([]string{"run", "--recipe", tc.recipe, "--inputs", "-", "--json"}, tc.args...)
		stdout, stderr, status := execVerifyStdin(t, []byte(input+"\n"), args...)
		if status != 0 {
			t.Errorf("%s with %d positions (%d characters): status %d: %s", tc.recipe, tc.n, len(input), status, stderr)
			continue
		}
		var d struct {
			Runs []struct {
				MaxN      int `json:"max_n"`
				Wrong     int
				Positions []struct {
					Values []struct{ Label, Exact string }
				}
			}
		}
		if err := json.Unmarshal([]byte(stdout), &d); err != nil || len(d.Runs) != 1 {
			t.Fatalf("%s: %v", tc.recipe, err)
		}
		run := d.Runs[0]
		if run.MaxN != tc.n || run.Wrong != 0 || len(run.Positions) != tc.n {
			t.Errorf("%s: N = %d, %d wrong, %d positions; want N = %d, none wrong", tc.recipe, run.MaxN, run.Wrong, len(run.Positions), tc.n)
			continue
		}
		for i, p := range run.Positions {
			for _, v := range p.Values {
				if v.Label == "c" && v.Exact != strconv.Itoa(vs[qs[i]-1]) {
					t.Errorf("%s: position %d queries %d: c = %s, want %d", tc.recipe, i+1, qs[i], v.Exact, vs[qs[i]-1])
					break
				}
			}
		}
	}
}
