package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestBinaryJSONDocuments: every JSON document the tool prints or writes
// parses, as one object, and names its kind and version in its first
// field, "schema"; docs/commands.md lists every kind.
func TestBinaryJSONDocuments(t *testing.T) {
	dir := t.TempDir()
	shard1, shard2 := filepath.Join(dir, "s1.json"), filepath.Join(dir, "s2.json")
	frontierOut, merged := filepath.Join(dir, "f.json"), filepath.Join(dir, "m.json")
	model := filepath.Join(dir, "lookup.json")
	if _, stderr, status := execVerify(t, "export", "--recipe", "lookup", "--n", "8", "--out", model); status != 0 {
		t.Fatal(stderr)
	}
	frontier := []string{"frontier", "--recipe", "lookup", "--precision", "fp16", "--max-n", "12", "--quiet"}
	tests := []struct {
		kind string
		args []string
		file string // the document is this file, not stdout
	}{
		{"check", []string{"--recipe", "lookup", "--max-n", "6", "--json"}, ""},
		{"check", []string{"check", "--model", model, "--spec", "lookup", "--max-n", "4", "--json"}, ""},
		{"run", []string{"run", "--recipe", "lookup", "--input", "2:1 1:0", "--json"}, ""},
		{"run", []string{"run", "--recipe", "lookup", "--input", "2:1 1:0", "--json", "--trace"}, ""},
		{"run", []string{"run", "--model", model, "--input", "2:1 1:0", "--json"}, ""},
		{"frontier", slices.Concat(frontier, []string{"--json"}), ""},
		{"frontier", slices.Concat(frontier, []string{"--out", frontierOut}), frontierOut},
		{"frontier", slices.Concat(frontier, []string{"--shard", "1/2", "--out", shard1}), shard1},
		{"frontier", slices.Concat(frontier, []string{"--shard", "2/2", "--out", shard2}), shard2},
		{"frontier", []string{"merge", shard1, shard2, "--json"}, ""},
		{"frontier", []string{"merge", shard1, shard2, "--out", merged}, merged},
		{"claims", []string{"claims", "--id", "ffn.min.exact", "--json"}, ""},
		{"bench", []string{"bench", "--quick", "--json", "--case", "^sweep-dyck1-exact$"}, ""},
		{"edelman", []string{"edelman", "--scores", "1, 0", "--json"}, ""},
		{"format", []string{"format", "--json"}, ""},
		{"list", []string{"list", "--json"}, ""},
		{"list", []string{"list", "lookup", "--json"}, ""},
		{"format", []string{"format", "fp16", "--json"}, ""},
		{"round", []string{"round", "--precision", "fp16", "1/3", "--json"}, ""},
	}
	for _, tc := range tests {
		stdout, stderr, status := execVerify(t, tc.args...)
		if status != 0 {
			t.Errorf("verify %q: status %d: %s", tc.args, status, stderr)
			continue
		}
		doc := []byte(stdout)
		if tc.file != "" {
			var err error
			if doc, err = os.ReadFile(tc.file); err != nil {
				t.Errorf("verify %q: %v", tc.args, err)
				continue
			}
		}
		var fields map[string]json.RawMessage
		if err := json.Unmarshal(doc, &fields); err != nil {
			t.Errorf("verify %q: not one JSON object: %v\n%.200s", tc.args, err, doc)
			continue
		}
		want := `{
  "schema": "verify/` + tc.kind + `/1",`
		if string(fields["schema"]) != `"verify/`+tc.kind+`/1"` || !bytes.HasPrefix(doc, []byte(want)) {
			t.Errorf("verify %q: the document does not open with the schema verify/%s/1:\n%.200s", tc.args, tc.kind, doc)
		}
	}
	docs, err := os.ReadFile("../../docs/commands.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, kind := range []string{kindCheck, kindRun, kindFrontier, kindClaims, kindBench, kindEdelman, kindFormat, kindRound, kindList} {
		if !strings.Contains(string(docs), "`verify/"+kind+"/1`") {
			t.Errorf("docs/commands.md does not list the document verify/%s/1", kind)
		}
	}
}

// TestBinaryMergeSchema: merge reads the frontier documents of this
// version, and those written before the schema field existed (the same
// layout); any other version or kind is refused with one line, exit 2.
func TestBinaryMergeSchema(t *testing.T) {
	dir := t.TempDir()
	shards := frontierShards(t, dir)
	data, _ := os.ReadFile(shards[0])
	write := func(name, from, to string) string {
		p := filepath.Join(dir, name)
		if !bytes.Contains(data, []byte(from)) {
			t.Fatalf("%s: no %q in the shard", name, from)
		}
		os.WriteFile(p, bytes.Replace(data, []byte(from), []byte(to), 1), 0o644)
		return p
	}
	unversioned := write("old.json", `"schema": "verify/frontier/1",`, "")
	if stdout, stderr, status := execVerify(t, "merge", unversioned, shards[1], "--json"); status != 0 || !strings.HasPrefix(stdout, "{\n  \"schema\": \"verify/frontier/1\"") {
		t.Errorf("merge of a document without a schema: status %d, %s%.100s", status, stderr, stdout)
	}
	for _, tc := range []struct{ file, want string }{
		{write("v2.json", "verify/frontier/1", "verify/frontier/2"), `schema "verify/frontier/2": this build of verify reads verify/frontier/1 only`},
		{write("run.json", "verify/frontier/1", "verify/run/1"), `a "verify/run/1" document, not verify/frontier`},
		{write("nan.json", "verify/frontier/1", "verify/frontier/x"), `schema "verify/frontier/x"`},
	} {
		stdout, stderr, status := execVerify(t, "merge", tc.file, shards[1])
		if status != 2 || stdout != "" || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, tc.want) || !strings.Contains(stderr, filepath.Base(tc.file)) {
			t.Errorf("merge %s: status %d, stdout %.80q, stderr %q; want 2 and one line naming the file and %q", filepath.Base(tc.file), status, stdout, stderr, tc.want)
		}
	}
}

// frontierShards writes the two shards of a small frontier sweep in dir.
func frontierShards(t *testing.T, dir string) []string {
	t.Helper()
	var files []string
	for _, k := range []string{"1/2", "2/2"} {
		file := filepath.Join(dir, "shard"+k[:1]+".json")
		if _, stderr, status := execVerify(t, "frontier", "--recipe", "lookup", "--precision", "fp16", "--max-n", "12", "--quiet", "--shard", k, "--out", file); status != 0 {
			t.Fatal(stderr)
		}
		files = append(files, file)
	}
	return files
}

// TestRunTraceJSON: --json --trace gives each run its trace, the residual
// stream after each sublayer, a row per component, a value per position,
// each with its exact value. The model is the worked example of
// docs/model-format.md (majority so far) on "abb": the embedding puts
// is_a = 1, 0, 0 and one = 1, 1, 1; the attention averages is_a over the
// prefix into frac_a = 1, 1/2, 1/3 (by hand). At fp32 the last is 1/3
// rounded to 24 bits: 2²⁵/3 = 11184810.67 rounds to 11184811, over 2²⁵.
func TestRunTraceJSON(t *testing.T) {
	const file = "../../model/testdata/majority.json"
	type trace []struct {
		Sublayer   string
		Components []struct {
			Name   string
			Values []struct{ Text, Exact string }
		}
	}
	for _, tc := range []struct {
		precision string
		fracA     [][2]string // text, exact of frac_a after the attention
	}{
		{"exact", [][2]string{{"1", "1"}, {"1/2", "1/2"}, {"1/3", "1/3"}}},
		{"fp32", [][2]string{{"1", "1"}, {"0.5", "1/2"}, {"0.33333334", "11184811/33554432"}}},
	} {
		out, errOut, status := runCmd("run", "--model", file, "--input", "abb", "--precision", tc.precision, "--json", "--trace")
		if status != 0 {
			t.Fatalf("%s: status %d: %s", tc.precision, status, errOut)
		}
		var d struct{ Runs []struct{ Trace trace } }
		if err := json.Unmarshal([]byte(out), &d); err != nil || len(d.Runs) != 1 {
			t.Fatalf("%s: %v\n%s", tc.precision, err, out)
		}
		tr := d.Runs[0].Trace
		if len(tr) != 2 || tr[0].Sublayer != "embedding" || tr[1].Sublayer != "layer 1 attention" {
			t.Fatalf("%s: trace %+v, want the embedding and layer 1's attention", tc.precision, tr)
		}
		want := map[string][]string{"is_a": {"1", "0", "0"}, "one": {"1", "1", "1"}, "frac_a": {"0", "0", "0"}}
		for k, state := range tr {
			var names []string
			for _, c := range state.Components {
				names = append(names, c.Name)
				for i, v := range c.Values {
					w := want[c.Name][i]
					wantText := w
					if k == 1 && c.Name == "frac_a" {
						wantText, w = tc.fracA[i][0], tc.fracA[i][1]
					}
					if v.Exact != w || v.Text != wantText {
						t.Errorf("%s, %s: %s at position %d = %+v, want text %s, exact %s", tc.precision, state.Sublayer, c.Name, i+1, v, wantText, w)
					}
				}
				if len(c.Values) != 3 {
					t.Errorf("%s, %s: %s has %d values, want 3", tc.precision, state.Sublayer, c.Name, len(c.Values))
				}
			}
			if strings.Join(names, " ") != "is_a one frac_a" {
				t.Errorf("%s, %s: components %v", tc.precision, state.Sublayer, names)
			}
		}
	}
	// Without --trace there is no trace.
	out, _, _ := runCmd("run", "--model", file, "--input", "abb", "--json")
	if strings.Contains(out, `"trace"`) {
		t.Errorf("a trace without --trace:\n%s", out)
	}
}

// TestRoundJSON: each value exactly, rounded to the format as an exact
// decimal and fraction, with the error exactly; by hand from each
// format's grid. fp16: 1/3 ∈ [1/4, 1/2) has spacing 2⁻¹², 4096/3 =
// 1365.33 rounds to 1365, and 1365/4096 − 1/3 = (4095 − 4096)/12288.
// 0.1 ∈ [1/16, 1/8): spacing 2⁻¹⁴, 1638.4 rounds to 1638 = 2·819, and
// 819/8192 − 1/10 = (8190 − 8192)/81920. 65520, the midpoint between
// 65504 and 2¹⁶, overflows. interval:24 encloses 0.1 in [13421772,
// 13421773]/2²⁷. exact keeps 1/3, which has no finite decimal.
func TestRoundJSON(t *testing.T) {
	type exactNum struct{ Decimal, Exact string }
	type value struct {
		Input, Format, Value, Text, Error string
		ErrorLo                           string `json:"error_lo"`
		ErrorHi                           string `json:"error_hi"`
		Rounded, Lo, Hi                   *exactNum
		Overflow                          bool
	}
	decode := func(args ...string) []value {
		t.Helper()
		out, errOut, status := runCmd(append([]string{"round", "--json"}, args...)...)
		var d struct {
			Schema, Format string
			Values         []value
		}
		if err := json.Unmarshal([]byte(out), &d); err != nil || status != 0 || d.Schema != "verify/round/1" {
			t.Fatalf("round %q: status %d, %v: %s%s", args, status, err, errOut, out)
		}
		return d.Values
	}
	vs := decode("--precision", "fp16", "1/3", "0.1", "65520")
	if len(vs) != 3 {
		t.Fatalf("%d values, want 3", len(vs))
	}
	for k, want := range []value{
		{Input: "1/3", Format: "fp16", Value: "1/3", Rounded: &exactNum{"0.333251953125", "1365/4096"}, Error: "-1/12288"},
		{Input: "0.1", Format: "fp16", Value: "1/10", Rounded: &exactNum{"0.0999755859375", "819/8192"}, Error: "-1/40960"},
		{Input: "65520", Format: "fp16", Value: "65520", Text: "+Inf", Overflow: true},
	} {
		got := vs[k]
		if got.Input != want.Input || got.Format != want.Format || got.Value != want.Value || got.Error != want.Error || got.Overflow != want.Overflow ||
			(want.Rounded == nil) != (got.Rounded == nil) || want.Rounded != nil && *got.Rounded != *want.Rounded || want.Text != "" && got.Text != want.Text {
			t.Errorf("fp16 %s: %+v (rounded %+v), want %+v (rounded %+v)", want.Input, got, got.Rounded, want, want.Rounded)
		}
	}
	iv := decode("--precision", "interval:24", "0.1")[0]
	if iv.Rounded != nil || iv.Lo == nil || iv.Hi == nil || iv.Lo.Exact != "3355443/33554432" || iv.Hi.Exact != "13421773/134217728" ||
		iv.Hi.Decimal != "0.100000001490116119384765625" || iv.ErrorLo != "-1/167772160" || iv.ErrorHi != "1/671088640" {
		t.Errorf("interval:24 0.1: %+v lo %+v hi %+v", iv, iv.Lo, iv.Hi)
	}
	if ex := decode("--precision", "exact", "1/3")[0]; ex.Rounded == nil || ex.Rounded.Exact != "1/3" || ex.Rounded.Decimal != "" || ex.Error != "0" {
		t.Errorf("exact 1/3: %+v rounded %+v, want 1/3 with no decimal and error 0", ex, ex.Rounded)
	}
}

// TestFormatJSON: the facts of IEEE 754 Table 3.5 and OFP8 Table 1, each
// value exact: fp16's largest finite (2 − 2⁻¹⁰)·2¹⁵ = 2047·2⁵ = 65504,
// its smallest subnormal 2⁻²⁴; e4m3's largest 1.75·2⁸ = 7·2⁶ = 448, no
// infinities, 2 NaN patterns. The 53-bit big.Float's largest is
// (2⁵³ − 1)·2^(2³¹ − 2 − 52), too large to print as a fraction.
func TestFormatJSON(t *testing.T) {
	type bin struct {
		Exact, Significand string
		Exp2               int64
	}
	type format struct {
		Name            string
		SignificandBits int  `json:"significand_bits"`
		StorageBits     int  `json:"storage_bits"`
		MaxFinite       *bin `json:"max_finite"`
		MinSubnormal    *bin `json:"min_subnormal"`
		Epsilon         *bin
		Infinities      bool
		NaNPatterns     int `json:"nan_patterns"`
	}
	decode := func(args ...string) []format {
		t.Helper()
		out, errOut, status := runCmd(append([]string{"format", "--json"}, args...)...)
		var d struct {
			Schema  string
			Formats []format
		}
		if err := json.Unmarshal([]byte(out), &d); err != nil || status != 0 || d.Schema != "verify/format/1" {
			t.Fatalf("format %q: status %d, %v: %s%s", args, status, err, errOut, out)
		}
		return d.Formats
	}
	all := decode()
	var names []string
	for _, f := range all {
		names = append(names, f.Name)
	}
	if strings.Join(names, " ") != "fp64 fp32 fp16 bf16 fp8-e4m3 fp8-e5m2" {
		t.Errorf("format --json lists %v", names)
	}
	f16 := decode("fp16")[0]
	if f16.SignificandBits != 11 || f16.StorageBits != 16 || *f16.MaxFinite != (bin{"65504", "2047", 5}) ||
		*f16.MinSubnormal != (bin{"1/16777216", "1", -24}) || *f16.Epsilon != (bin{"1/1024", "1", -10}) || !f16.Infinities || f16.NaNPatterns != 2046 {
		t.Errorf("fp16: %+v max %+v min subnormal %+v epsilon %+v", f16, f16.MaxFinite, f16.MinSubnormal, f16.Epsilon)
	}
	e4m3 := decode("fp8-e4m3")[0]
	if *e4m3.MaxFinite != (bin{"448", "7", 6}) || e4m3.Infinities || e4m3.NaNPatterns != 2 {
		t.Errorf("fp8-e4m3: %+v max %+v", e4m3, e4m3.MaxFinite)
	}
	b53 := decode("53")[0]
	if b53.MinSubnormal != nil || *b53.MaxFinite != (bin{"", "9007199254740991", 1<<31 - 2 - 52}) {
		t.Errorf("53: %+v max %+v", b53, b53.MaxFinite)
	}
}
