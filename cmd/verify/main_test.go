package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// runCmd runs the command line in-process and returns its outputs.
func runCmd(args ...string) (stdout, stderr string, status int) {
	var out, errb bytes.Buffer
	status = run(args, &out, &errb)
	return out.String(), errb.String(), status
}

// field returns the whitespace-separated fields of the output line that
// starts with value.
func field(t *testing.T, out, value string) []string {
	t.Helper()
	for _, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		if len(f) > 0 && f[0] == value {
			return f
		}
	}
	t.Fatalf("no line for %q in output:\n%s", value, out)
	return nil
}

// TestRound checks rounded values derived by hand from each format's grid.
func TestRound(t *testing.T) {
	tests := []struct {
		precision, value string
		decimal, frac    string
	}{
		// 0.1 ∈ [2^-4, 2^-3): fp16 spacing 2^(-4-10); 0.1·2^14 = 1638.4 → 1638.
		{"fp16", "0.1", "0.0999755859375", "819/8192"},
		// 1/3 ∈ [2^-2, 2^-1): spacing 2^-12; 4096/3 = 1365.33 → 1365.
		{"fp16", "1/3", "0.333251953125", "1365/4096"},
		// 65519 is below the midpoint 65520 between 65504 and 2^16.
		{"fp16", "65519", "65504", "65504"},
		// The subnormal spacing is 2^-24; 3·2^-26 = 0.75·2^-24 → 2^-24.
		{"fp16", "3/67108864", "0.000000059604644775390625", "1/16777216"},
		// bf16: p = 8, spacing 2^-9 on [1/4, 1/2); 512/3 = 170.67 → 171.
		{"bf16", "1/3", "0.333984375", "171/512"},
		// 464 is the tie between 448 (significand 1.110) and 480 (1.111):
		// ties to even.
		{"fp8-e4m3", "464", "448", "448"},
		// -1/3: spacing 2^-5 on [1/4, 1/2); 32/3 = 10.67 → 11.
		{"fp8-e4m3", "-1/3", "-0.34375", "-11/32"},
		// E5M2: p = 3, spacing 2^-2 on [1, 2): 1.125 is the tie between 1
		// (even) and 1.25.
		{"fp8-e5m2", "1.125", "1", "1"},
		// 3-bit bigfloat: 0.1 ∈ [1/16, 1/8), spacing 2^-6; 6.4 → 6.
		{"3", "0.1", "0.09375", "3/32"},
		// fp32: 1 + 2^-24 is the tie between 1 and 1 + 2^-23: ties to even.
		{"fp32", "16777217/16777216", "1", "1"},
		{"exact", "0.1", "0.1", "1/10"},
	}
	for _, tc := range tests {
		out, errOut, status := runCmd("round", "--precision", tc.precision, tc.value)
		if status != 0 {
			t.Errorf("round %s %s: status %d, stderr %q", tc.precision, tc.value, status, errOut)
			continue
		}
		f := field(t, out, tc.value)
		if f[1] != tc.decimal || f[2] != tc.frac {
			t.Errorf("round --precision %s %s: got %q %q, want %q %q", tc.precision, tc.value, f[1], f[2], tc.decimal, tc.frac)
		}
	}
}

func TestRoundOverflowAndInterval(t *testing.T) {
	out, _, status := runCmd("round", "--precision=fp16", "65520", "-1e6")
	if status != 0 {
		t.Fatalf("status %d", status)
	}
	if f := field(t, out, "65520"); f[1] != "+Inf" {
		t.Errorf("fp16 65520 = %s, want +Inf (the midpoint above 65504 rounds to Inf)", f[1])
	}
	if f := field(t, out, "-1e6"); f[1] != "-Inf" {
		t.Errorf("fp16 -1e6 = %s, want -Inf", f[1])
	}
	out, _, _ = runCmd("round", "--precision", "fp8-e4m3", "465")
	if f := field(t, out, "465"); f[1] != "NaN" {
		t.Errorf("e4m3 465 = %s, want NaN (no infinities)", f[1])
	}
	// interval:24 of 0.1: 0.1·2^27 = 13421772.8, so the enclosure is
	// [13421772, 13421773]/2^27.
	out, _, _ = runCmd("round", "--precision", "interval:24", "0.1")
	f := field(t, out, "0.1")
	want := "[3355443/33554432,"
	if !strings.Contains(strings.Join(f, " "), want) || !strings.Contains(strings.Join(f, " "), "13421773/134217728]") {
		t.Errorf("interval:24 0.1 = %v, want enclosure [13421772/2^27, 13421773/2^27]", f)
	}
}

func TestFormat(t *testing.T) {
	tests := []struct {
		name string
		want []string // facts from IEEE 754 Table 3.5 and OFP8 Table 1
	}{
		{"fp16", []string{"65504", "2^-14", "2^-24", "2^-10", "2046 bit patterns", "16 = 1 sign + 5 exponent + 10"}},
		{"bf16", []string{"2^-133", "254 bit patterns", "emin -126, emax 127"}},
		{"fp8-e4m3", []string{"448", "2^-9", "infinities        no", "2 bit patterns"}},
		{"fp8-e5m2", []string{"57344", "2^-16", "6 bit patterns"}},
		{"fp32", []string{"2^-149", "2^-23"}},
		{"fp64", []string{"2^-1074", "2^-52"}},
		{"24", []string{"none (no subnormals)", "2^-23"}},
		{"interval:53", []string{"outward"}},
		{"exact", []string{"no rounding"}},
	}
	for _, tc := range tests {
		out, errOut, status := runCmd("format", tc.name)
		if status != 0 {
			t.Errorf("format %s: status %d: %s", tc.name, status, errOut)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(out, w) {
				t.Errorf("format %s: output lacks %q:\n%s", tc.name, w, out)
			}
		}
	}
	out, _, status := runCmd("format")
	if status != 0 || !strings.Contains(out, "fp8-e5m2") || !strings.Contains(out, "65504") {
		t.Errorf("format without a name: status %d, output:\n%s", status, out)
	}
}

// TestBadInput: every bad input gets exactly one line on stderr and status 2.
func TestBadInput(t *testing.T) {
	tests := []struct {
		args []string
		msg  string
	}{
		{nil, "no command"},
		{[]string{"frobnicate"}, "unknown command"},
		{[]string{"format", "fp17"}, "valid names: exact"},
		{[]string{"format", "fp16", "bf16"}, "one precision name"},
		{[]string{"format", "0"}, "bit count"},
		{[]string{"format", "1"}, "bit count"},
		{[]string{"format", "interval:"}, "bit count"},
		{[]string{"format", "interval:abc"}, "bit count"},
		{[]string{"format", "99999999"}, "bit count"},
		{[]string{"round", "--precision", "4097", "1/3"}, "from 2 to 4096"},
		{[]string{"check", "--recipe", "lookup", "--precision", "interval:1000000"}, "from 2 to 4096"},
		{[]string{"check", "--recipe", "lookup", "--max-n", "8", "--certificate", ""}, "--certificate: the file name is empty"},
		{[]string{"round", "1"}, "needs --precision"},
		{[]string{"round", "--precision"}, "needs a value"},
		{[]string{"round", "--precision", "fp16"}, "at least one value"},
		{[]string{"round", "--precision", "fp16", "1/0"}, "zero denominator"},
		{[]string{"round", "--precision", "fp16", "inf"}, "not a finite"},
		{[]string{"round", "--precision", "fp16", "1e999999999"}, "out of range"},
		{[]string{"round", "--precision", "fp16", "x"}, "not a number"},
		{[]string{"round", "--bogus", "1", "--precision", "fp16"}, "unknown flag"},
	}
	for _, tc := range tests {
		out, errOut, status := runCmd(tc.args...)
		if status != 2 {
			t.Errorf("%q: status %d, want 2", tc.args, status)
		}
		if strings.Count(errOut, "\n") != 1 || !strings.HasPrefix(errOut, "verify: ") || !strings.Contains(errOut, tc.msg) {
			t.Errorf("%q: stderr %q, want one line containing %q", tc.args, errOut, tc.msg)
		}
		if out != "" {
			t.Errorf("%q: wrote to stdout on error: %q", tc.args, out)
		}
	}
}

// Negative numbers are values, not flags.
func TestRoundNegative(t *testing.T) {
	out, errOut, status := runCmd("round", "-0.5", "--precision", "fp16", "-1/3")
	if status != 0 {
		t.Fatalf("status %d: %s", status, errOut)
	}
	if f := field(t, out, "-0.5"); f[2] != "-1/2" {
		t.Errorf("-0.5 = %v", f)
	}
}

// TestDocsRecipeTable: the table of recipes in docs/recipes.md is what
// 'verify list --markdown' prints, so it lists every recipe as it is.
func TestDocsRecipeTable(t *testing.T) {
	want, _, status := runCmd("list", "--markdown")
	if status != 0 {
		t.Fatalf("list --markdown: status %d", status)
	}
	b, err := os.ReadFile("../../docs/recipes.md")
	if err != nil {
		t.Fatal(err)
	}
	const open, close = "<!-- recipes: generated by 'verify list --markdown' -->\n", "<!-- /recipes -->"
	s := string(b)
	i, j := strings.Index(s, open), strings.Index(s, close)
	if i < 0 || j < i {
		t.Fatalf("docs/recipes.md lacks the markers %q … %q", open, close)
	}
	if got := s[i+len(open) : j]; got != want {
		t.Errorf("docs/recipes.md's recipe table is out of date: run\n  go run ./cmd/verify list --markdown\nand paste it between the markers")
	}
}

// TestRunRationalValues: 'verify run' reads any rational value where a
// construction copies one, compares c exactly, and marks the rounding y,
// claimed for bits only, as not claimed; outside pred's [0, 1] it refuses
// without --outside-domain (exit 2).
func TestRunRationalValues(t *testing.T) {
	out, errOut, status := runCmd("run", "--recipe", "lookup", "--input", "2:3/7 1:-5/2")
	if status != 0 {
		t.Fatalf("status %d: %s", status, errOut)
	}
	// Position 1 queries 2 (v_2 = −5/2), position 2 queries 1 (v_1 = 3/7).
	for _, want := range [][]string{{"1", "2:3/7", "y=0", "c=-5/2", "y=not", "claimed", "c=-5/2", "ok"}, {"2", "1:-5/2", "y=5/14", "c=3/7", "y=not", "claimed", "c=3/7", "ok"}} {
		if f := field(t, out, want[0]); strings.Join(f[:len(want)], " ") != strings.Join(want, " ") {
			t.Errorf("row %s: %q, want %q", want[0], f, want)
		}
	}
	if !strings.Contains(out, "y outside the claimed domain") {
		t.Errorf("no note on y:\n%s", out)
	}
	out, _, status = runCmd("run", "--recipe", "lookup", "--input", "2:1.5 1:-1000", "--weighting", "smat")
	if status != 0 || !strings.Contains(out, "c within 250") {
		t.Errorf("SMAT (status %d): no bound max|v|/4 = 250 in\n%s", status, out)
	}
	_, errOut, status = runCmd("run", "--recipe", "pred", "--input", "0.25, 2")
	if status != 2 || !strings.Contains(errOut, "v = 2 is outside [0, 1]") {
		t.Errorf("pred on 2: status %d, %q", status, errOut)
	}
	_, errOut, status = runCmd("run", "--recipe", "cancel-residual", "--input", "1, 2", "--param", "W1=1 1", "--param", "W2=1 1; 1 1")
	if status != 2 || !strings.Contains(errOut, "W2 is 2×2, but W1 is 1×2") || strings.Count(errOut, "\n") != 1 {
		t.Errorf("cancel-residual with a 2×2 W2 after a 1×2 W1: status %d, %q", status, errOut)
	}
}

// TestRunJSON: 'verify run --json' gives each output's exact value beside
// its printing (none for an infinity) and the input as the model took it;
// --inputs runs every line of a file in one document, and names the line
// of a bad input. Expected values are derived by hand: 1 + 2⁻²⁵ is a
// float64 but rounds to 1 in float32 (below half its ulp 2⁻²³ at 1), and
// 1.5·2¹²⁷ (exact in both formats) doubled is 3·2¹²⁷, exact in float64 and
// past float32's largest finite value, (2 − 2⁻²³)·2¹²⁷.
func TestRunJSON(t *testing.T) {
	type doc struct {
		Weighting string
		Runs      []struct {
			Input     string
			Precision string
			MaxN      int `json:"max_n"`
			Symbols   []int
			Stream    [][]string
			Wrong     int
			Positions []struct {
				Token, Symbol, Verdict string
				Values                 []struct{ Label, Text, Exact string }
			}
		}
	}
	decode := func(out string) doc {
		t.Helper()
		var d doc
		if err := json.Unmarshal([]byte(out), &d); err != nil {
			t.Fatalf("not JSON: %v\n%s", err, out)
		}
		return d
	}
	inputs := filepath.Join(t.TempDir(), "inputs.txt")
	if err := os.WriteFile(inputs, []byte("1, 1/33554432\n\n255211775190703847597530955573826158592, 255211775190703847597530955573826158592\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		precision string
		want      [][2]string // text and exact value of out, per input
		status    int
	}{
		{"fp64", [][2]string{{"1.0000000298023224", "33554433/33554432"}, {"5.104235503814077e+38", "510423550381407695195061911147652317184"}}, 0},
		// Both are findings: the reference is the exact sum.
		{"fp32", [][2]string{{"1", "1"}, {"+Inf", ""}}, 1},
	} {
		out, errOut, status := runCmd("run", "--recipe", "add", "--inputs", inputs, "--precision", tc.precision, "--json")
		if status != tc.status {
			t.Fatalf("%s: status %d, want %d: %s", tc.precision, status, tc.status, errOut)
		}
		d := decode(out)
		if len(d.Runs) != 2 {
			t.Fatalf("%s: %d runs, want 2", tc.precision, len(d.Runs))
		}
		for k, run := range d.Runs {
			if run.Precision != tc.precision || len(run.Positions) != 1 || len(run.Stream) != 1 || run.Symbols != nil {
				t.Fatalf("%s input %d: %+v", tc.precision, k+1, run)
			}
			v := run.Positions[0].Values[0]
			if v.Label != "out" || v.Text != tc.want[k][0] || v.Exact != tc.want[k][1] {
				t.Errorf("%s input %d: out = %+v, want text %q exact %q", tc.precision, k+1, v, tc.want[k][0], tc.want[k][1])
			}
		}
		if got := d.Runs[0].Stream[0][:2]; got[0] != "1" || got[1] != "1/33554432" {
			t.Errorf("%s: stream %q, want the exact input 1, 1/33554432", tc.precision, got)
		}
	}
	// Symbols: indices into the alphabet; the sign's decision per position.
	out, errOut, status := runCmd("run", "--recipe", "dyck1-n", "--input", "()", "--max-n", "4", "--precision", "fp64", "--json")
	if status != 0 {
		t.Fatalf("dyck1-n: status %d: %s", status, errOut)
	}
	d := decode(out)
	if run := d.Runs[0]; len(run.Symbols) != 2 || run.Symbols[0] == run.Symbols[1] || run.MaxN != 4 || d.Weighting != "AHAT" ||
		run.Positions[1].Token != ")" || run.Positions[1].Verdict != "ok" {
		t.Errorf("dyck1-n on (): %+v", d)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--inputs", inputs, "--input", "1, 2"}, "not both"},
		{[]string{"--inputs", filepath.Join(t.TempDir(), "none.txt")}, "--inputs"},
	} {
		_, errOut, status := runCmd(append([]string{"run", "--recipe", "add"}, tc.args...)...)
		if status != 2 || !strings.Contains(errOut, tc.want) || strings.Count(errOut, "\n") != 1 {
			t.Errorf("%q: status %d, %q; want exit 2 naming %q", tc.args, status, errOut, tc.want)
		}
	}
	bad := filepath.Join(t.TempDir(), "bad.txt")
	if err := os.WriteFile(bad, []byte("1, 2\n\n1, 2, 3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, errOut, status := runCmd("run", "--recipe", "add", "--inputs", bad); status != 2 || !strings.Contains(errOut, "--inputs line 3:") {
		t.Errorf("a bad third line: status %d, %q", status, errOut)
	}
}

// TestRunModel: 'verify run --model FILE' runs the model of a file on its
// own, with no recipe: the worked example of docs/model-format.md (the
// fraction of a's so far, minus 1/2), whose outputs on "abb" the page
// computes by hand: 1/2, 0, −1/6, signs 1, 0, 0.
func TestRunModel(t *testing.T) {
	const file = "../../model/testdata/majority.json"
	out, errOut, status := runCmd("run", "--model", file, "--input", "abb", "--json")
	if status != 0 {
		t.Fatalf("status %d: %s", status, errOut)
	}
	var d struct {
		Model string
		Runs  []struct {
			Precision string
			Symbols   []int
			Positions []struct {
				Symbol string
				Values []struct{ Exact string }
			}
		}
	}
	if err := json.Unmarshal([]byte(out), &d); err != nil || d.Model != file || len(d.Runs) != 1 {
		t.Fatalf("%v: %s", err, out)
	}
	run := d.Runs[0]
	if run.Precision != "exact" || len(run.Positions) != 3 || fmt.Sprint(run.Symbols) != "[0 1 1]" {
		t.Fatalf("%+v", run)
	}
	for i, want := range [][2]string{{"1", "1/2"}, {"0", "0"}, {"0", "-1/6"}} {
		if p := run.Positions[i]; p.Symbol != want[0] || len(p.Values) != 1 || p.Values[0].Exact != want[1] {
			t.Errorf("position %d: %+v, want %s with W h = %s", i+1, p, want[0], want[1])
		}
	}
	out, _, status = runCmd("run", "--model", file, "--input", "aab", "--precision", "fp32")
	if status != 0 || !strings.Contains(out, "at precision fp32") || strings.Contains(out, "expected") {
		t.Errorf("text at fp32 (status %d):\n%s", status, out)
	}
	inputs := filepath.Join(t.TempDir(), "in.txt")
	os.WriteFile(inputs, []byte("ab\nac\n"), 0o644)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--recipe", "lookup", "--input", "a"}, "--recipe does not apply with --model"},
		{[]string{"--param", "x=1", "--input", "a"}, "--param does not apply"},
		{[]string{"--inputs", inputs}, "--inputs line 2:"},
		{[]string{"--input", "a", "--precision", "fp17"}, "fp17"},
	} {
		_, errOut, status := runCmd(append([]string{"run", "--model", file}, tc.args...)...)
		if status != 2 || !strings.Contains(errOut, tc.want) || strings.Count(errOut, "\n") != 1 {
			t.Errorf("%q: status %d, %q; want exit 2 naming %q", tc.args, status, errOut, tc.want)
		}
	}
}

// TestRunJSONWrongOnlyWithReference: a model run on its own has nothing to
// be wrong against, so its JSON has no "wrong" count; a recipe's run has
// one, 0 on "1:0 1:1" (both positions look up position 1, whose bit is 0).
func TestRunJSONWrongOnlyWithReference(t *testing.T) {
	file := filepath.Join(t.TempDir(), "l.json")
	if _, errOut, status := runCmd("export", "--recipe", "lookup", "--n", "4", "--out", file); status != 0 {
		t.Fatal(errOut)
	}
	for _, tc := range []struct {
		args      []string
		wantWrong bool
	}{
		{[]string{"--model", file}, false},
		{[]string{"--recipe", "lookup"}, true},
	} {
		out, errOut, status := runCmd(append(append([]string{"run"}, tc.args...), "--input", "1:0 1:1", "--precision", "exact", "--json")...)
		if status != 0 {
			t.Fatalf("%v: status %d: %s", tc.args, status, errOut)
		}
		var d struct{ Runs []map[string]json.RawMessage }
		if err := json.Unmarshal([]byte(out), &d); err != nil || len(d.Runs) != 1 {
			t.Fatalf("%v: %v\n%s", tc.args, err, out)
		}
		wrong, has := d.Runs[0]["wrong"]
		if has != tc.wantWrong || has && string(wrong) != "0" {
			t.Errorf("%v: \"wrong\" present %v (%s), want present %v and 0", tc.args, has, wrong, tc.wantWrong)
		}
	}
}

// TestRunModelThatCannotRun: a model that cannot compute an input (here a
// post-norm layer norm of a constant vector with ε = 0: √(σ² + ε) = 0) is
// at fault as a file is, so the run ends with one line and exit status 2,
// not 1, the status of a finding.
func TestRunModelThatCannotRun(t *testing.T) {
	file := filepath.Join(t.TempDir(), "ln0.json")
	doc := `{"format":"transformer-cookbook-model","version":1,"name":"ln0","max_n":2,"d":2,"components":["x","y"],
"alphabet":["p"],"word_embedding":[["0","0"]],"norm":"post",
"layers":[{"feed_forward_norm":{"eps":"0"},"attention_residual":true,"feed_forward_residual":true}],
"output":{"kind":"readout","w":[["1","0"]]}}`
	if err := os.WriteFile(file, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, extra := range [][]string{nil, {"--json"}} {
		out, errOut, status := runCmd(append([]string{"run", "--model", file, "--input", "p p"}, extra...)...)
		if status != 2 || !strings.Contains(errOut, "cannot run") || strings.Count(strings.TrimSpace(errOut), "\n") > 0 || out != "" {
			t.Errorf("run %v: status %d, stdout %q, stderr %q; want 2, nothing on stdout and one line saying it cannot run", extra, status, out, errOut)
		}
	}
}

// TestUndecidedIsNotAFailure checks that a check interval arithmetic
// cannot decide says so: first's outputs are rational, and its threshold
// 1/3 keeps the enclosure of first = 1 wider than a point at any
// precision, so no input is confirmed and none is refuted. It is not a
// pass (exit 1), and not called a failure; in --json, the first failure
// is marked undecided. A refuted check (fp8, where the lookup fails) is
// still a failure.
func TestUndecidedIsNotAFailure(t *testing.T) {
	out, errOut, status := runCmd("--recipe", "first", "--precision", "interval:128", "--max-n", "4")
	if status != 1 || !strings.Contains(out, "UNDECIDED: at the smallest checked length, n = 1") || strings.Contains(out, "FAIL") ||
		!strings.Contains(errOut, "undecided") {
		t.Errorf("first at interval:128: status %d, stdout:\n%s\nstderr: %s", status, out, errOut)
	}
	out, _, _ = runCmd("--recipe", "first", "--precision", "interval:128", "--max-n", "4", "--json")
	var doc struct {
		Reports []struct {
			FirstFailure *struct {
				Undecided bool `json:"undecided"`
			} `json:"first_failure"`
		} `json:"reports"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil || len(doc.Reports) == 0 || doc.Reports[0].FirstFailure == nil || !doc.Reports[0].FirstFailure.Undecided {
		t.Errorf("first at interval:128 --json: %v, first failure not marked undecided:\n%s", err, out)
	}
	out, errOut, status = runCmd("--recipe", "lookup", "--precision", "fp8-e4m3", "--max-n", "16")
	if status != 1 || !strings.Contains(out, "FAIL") || strings.Contains(out, "UNDECIDED") || !strings.Contains(errOut, "a check failed") {
		t.Errorf("lookup at fp8-e4m3: status %d, stdout:\n%s\nstderr: %s", status, out, errOut)
	}
}

// TestListPrecisionIsTheCheckDefault checks that the precision 'verify
// list' gives every recipe, under its default weighting and under SMAT,
// is the one a check without --precision runs at (the report's
// precision), and that the 53-bit fallback says what it is.
func TestListPrecisionIsTheCheckDefault(t *testing.T) {
	out, _, status := runCmd("list", "--json")
	var doc struct {
		Recipes []struct {
			Name             string   `json:"name"`
			Weightings       []string `json:"weightings"`
			MinN             int      `json:"min_n"`
			Precision        string   `json:"precision"`
			SoftmaxPrecision string   `json:"softmax_precision"`
		} `json:"recipes"`
	}
	if err := json.Unmarshal([]byte(out), &doc); status != 0 || err != nil {
		t.Fatalf("list --json: status %d, %v", status, err)
	}
	checked := func(name, weighting string, n int) (string, []string) {
		args := []string{"--recipe", name, "--max-n", fmt.Sprint(n), "--cases", "1", "--exhaustive", "0", "--json"}
		if weighting != "" {
			args = append(args, "--weighting", weighting)
		}
		out, errOut, _ := runCmd(args...)
		var rep struct {
			Reports []struct {
				Precision string   `json:"precision"`
				Notes     []string `json:"notes"`
			} `json:"reports"`
		}
		if err := json.Unmarshal([]byte(out), &rep); err != nil || len(rep.Reports) == 0 {
			t.Errorf("%s %s: %v %s", name, weighting, err, errOut)
			return "", nil
		}
		return rep.Reports[0].Precision, rep.Reports[0].Notes
	}
	fallbacks := 0
	for _, r := range doc.Recipes {
		got, notes := checked(r.Name, "", max(1, r.MinN))
		if got != r.Precision {
			t.Errorf("%s: list says precision %s, a check runs at %s", r.Name, r.Precision, got)
		}
		if slices.Contains(r.Weightings, "SMAT") {
			want := r.Precision
			if r.SoftmaxPrecision != "" {
				want = r.SoftmaxPrecision
			}
			if got, notes = checked(r.Name, "smat", max(1, r.MinN)); got != want {
				t.Errorf("%s under SMAT: list says precision %s, a check runs at %s", r.Name, want, got)
			}
		}
		if got == "53" {
			fallbacks++
			if len(notes) == 0 || !strings.Contains(notes[0], "not of the model's exact real outputs") {
				t.Errorf("%s at 53 bits: the note %q does not say what 53 bits check", r.Name, notes)
			}
		}
	}
	if fallbacks == 0 {
		t.Errorf("no recipe runs at 53 bits by default: hardmax-softmax's 1/τ = log(8N)/γ is irrational")
	}
	out, _, _ = runCmd("list", "hardmax-softmax")
	if !strings.Contains(out, "53 (a check's default; 53: each operation rounded to 53 bits") {
		t.Errorf("list hardmax-softmax does not give its default precision 53:\n%s", out)
	}
}

// fullWriter fails every write, as a full disk does.
type fullWriter struct{}

func (fullWriter) Write([]byte) (int, error) { return 0, errors.New("no space left on device") }

// TestWriteErrorIsExit2: a report that cannot be written is exit 2 with
// one line on stderr, whatever the command (a check that passes, one that
// fails, a table, JSON, help): it used to exit 0 (or 1) with the report
// lost.
func TestWriteErrorIsExit2(t *testing.T) {
	for _, args := range [][]string{
		{"--recipe", "lookup", "--max-n", "8"},
		{"--recipe", "lookup", "--precision", "fp8-e4m3", "--max-n", "16"},
		{"--recipe", "lookup", "--max-n", "4", "--json"},
		{"edelman", "--scores", "1,0"},
		{"list"},
		{"help"},
		{"round", "--precision", "fp16", "0.1"},
	} {
		var errb bytes.Buffer
		status := run(args, fullWriter{}, &errb)
		if status != 2 || strings.Count(errb.String(), "\n") != 1 || !strings.Contains(errb.String(), "writing standard output") {
			t.Errorf("%v to a full disk: status %d, stderr %q", args, status, errb.String())
		}
	}
}

// TestConflictingOrEmptyFlags: flags that cannot all hold are refused
// with one line, as elsewhere: claims --markdown --json used to drop
// --markdown, and export --dtype ” to take F64.
func TestConflictingOrEmptyFlags(t *testing.T) {
	for _, args := range [][]string{
		{"claims", "--markdown", "--json"},
		{"claims", "--errata", "--markdown", "--id", "ln.hash.literal"},
		{"export", "--recipe", "lookup", "--n", "2", "--dtype", "", "--out", filepath.Join(t.TempDir(), "x.safetensors")},
	} {
		out, errOut, status := runCmd(args...)
		if status != 2 || strings.Count(errOut, "\n") != 1 || out != "" {
			t.Errorf("%q: status %d, stdout %q, stderr %q", args, status, out, errOut)
		}
	}
}

// TestMessagesClipInput: a message names a long input by its first
// characters and its length, in one short line (it echoed a 131 KB
// recipe name whole).
func TestMessagesClipInput(t *testing.T) {
	long := strings.Repeat("x", 100000)
	for _, args := range [][]string{
		{"--recipe", long},
		{"--recipe", "lookup", "--precision", long},
		{"--recipe", "lookup", "--weighting", long},
		{"claims", "--id", long},
		{long},
		{"list", "--" + long},
	} {
		_, errOut, status := runCmd(args...)
		if status != 2 || strings.Count(errOut, "\n") != 1 || len(errOut) > 600 || !strings.Contains(errOut, "characters)") {
			t.Errorf("%.40q…: status %d, stderr of %d bytes: %.300q", args, status, len(errOut), errOut)
		}
	}
}
