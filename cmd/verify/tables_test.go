package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/transformer-cookbook/verify/proofs"
	"github.com/transformer-cookbook/verify/recipes"
)

// overWide returns the lines of out longer than lineWidth runes.
func overWide(out string) []string {
	var wide []string
	for _, l := range strings.Split(out, "\n") {
		if utf8.RuneCountInString(l) > 100 {
			wide = append(wide, l)
		}
	}
	return wide
}

func TestClip(t *testing.T) {
	for _, tc := range []struct {
		s    string
		n    int
		want string
	}{
		{"abcdef", 6, "abcdef"},
		{"abcdef", 5, "abcd…"},
		{"ab, cdef", 4, "ab…"}, // no dangling comma before the ellipsis
		{"ℝ^d → ℝ^d", 4, "ℝ^d…"},
		{"ℝ^d → ℝ^d", 9, "ℝ^d → ℝ^d"},
		{"abc", 0, ""},
	} {
		if got := clip(tc.s, tc.n); got != tc.want {
			t.Errorf("clip(%q, %d) = %q, want %q", tc.s, tc.n, got, tc.want)
		}
	}
}

func TestWrap(t *testing.T) {
	for _, tc := range []struct {
		first, indent, s string
		width            int
		want             []string
	}{
		{"a  ", "   ", "one two three four", 12, []string{"a  one two", "   three", "   four"}},
		{"", "", "short", 80, []string{"short"}},
		// A word longer than the line stays whole.
		{"x ", "  ", "ab 0123456789abc cd", 10, []string{"x ab", "  0123456789abc", "  cd"}},
		// "γ = 1" is not split at its "=": the unit moves to the next line.
		{"", "", "the gap is γ = 1 here", 14, []string{"the gap is", "γ = 1 here"}},
		// A relation chain longer than a line breaks after its operators.
		{"", "", "a = b = c = d", 5, []string{"a =", "b =", "c = d"}},
		{"", "", "a = b = c = d", 9, []string{"a = b =", "c = d"}},
		// "−" as an operator, at most width runes (not bytes) per line.
		{"", "", "ε − δ ≤ ε", 5, []string{"ε −", "δ ≤ ε"}},
		{"", "", "ε − δ ≤ ε", 9, []string{"ε − δ ≤ ε"}},
	} {
		if got := wrap(tc.first, tc.indent, tc.s, tc.width); strings.Join(got, "|") != strings.Join(tc.want, "|") {
			t.Errorf("wrap(%q, %q, %q, %d) = %q, want %q", tc.first, tc.indent, tc.s, tc.width, got, tc.want)
		}
	}
}

// TestWriteFitted: columns as wide as their widest cell or their cap, the
// last one clipped to the line, and a first cell over its cap on a line
// of its own.
func TestWriteFitted(t *testing.T) {
	var b bytes.Buffer
	long := strings.Repeat("x", 120)
	err := writeFitted(&b, []column{{"name", 6}, {"v", 0}, {"text", 0}}, [][]string{
		{"a", "yes", "short"},
		{"longname", "no", long},
	})
	if err != nil {
		t.Fatal(err)
	}
	// Columns: name 4 wide (its header; "longname", over the cap of 6,
	// has a line of its own), v 3 wide, gaps of 2: text starts at 11 and
	// takes the remaining 89 runes.
	want := "name  v    text\n" +
		"a     yes  short\n" +
		"longname\n" +
		"      no   " + strings.Repeat("x", 88) + "…\n"
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}

// TestBinaryListWidth: every line 'verify list' prints fits 100 columns,
// for the table, --params, and each recipe shown alone.
func TestBinaryListWidth(t *testing.T) {
	check := func(args ...string) string {
		t.Helper()
		stdout, stderr, status := execVerify(t, args...)
		if status != 0 || stderr != "" {
			t.Fatalf("%q: status %d, stderr %q", args, status, stderr)
		}
		for _, l := range overWide(stdout) {
			t.Errorf("%q: %d runes: %s", args, utf8.RuneCountInString(l), l)
		}
		return stdout
	}
	out := check("list")
	// One row per recipe, the header and the closing line (two names too
	// long for the column take an extra line each).
	names := recipes.Names()
	for _, n := range names {
		if findRow(out, n) == "" {
			t.Errorf("list has no row for %s", n)
		}
	}
	if !strings.Contains(out, "'verify list NAME'") {
		t.Errorf("list does not say how to show one recipe:\n%s", out)
	}
	check("list", "--params")
	for _, n := range names {
		if out := check("list", n); !strings.HasPrefix(out, "recipe      "+n+"\n") {
			t.Errorf("list %s starts %q", n, strings.SplitN(out, "\n", 2)[0])
		}
	}
}

// TestListOne shows the lookup of §Quadratic Maximization
// (\label{sec:quadratic-maximization} in the paper): index lookup under
// AHAT (the default), UHAT and SMAT, exact, with its parameter and the
// claims about its section, which the registry names attn.lookup-qm.*.
func TestListOne(t *testing.T) {
	out, stderr, status := runCmd("list", "lookup")
	if status != 0 {
		t.Fatalf("status %d: %s", status, stderr)
	}
	for _, want := range []string{
		"section     §Quadratic Maximization (sec:quadratic-maximization)\n",
		"computes    index lookup by quadratic maximization",
		"weightings  AHAT (the default), UHAT, SMAT\n",
		"exact       yes",
		"precision   exact",
		"  --param values=bits  ",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("list lookup lacks %q:\n%s", want, out)
		}
	}
	var qm int
	for _, c := range proofs.All() {
		if c.Section == "Quadratic Maximization" {
			qm++
			if row := findRow(out, c.ID); !strings.Contains(row, string(c.Recorded)) {
				t.Errorf("claim %s: row %q, want its recorded verdict %s", c.ID, row, c.Recorded)
			}
		}
	}
	if qm == 0 {
		t.Fatal("the registry has no claim about §Quadratic Maximization")
	}
	// The almost orthogonal lookup is another section's.
	if strings.Contains(out, "attn.lookup-ao.gap") {
		t.Errorf("list lookup shows a claim of §Almost Orthogonal Embeddings:\n%s", out)
	}
	// A recipe without attention or parameters says so.
	out, _, _ = runCmd("list", "add")
	for _, want := range []string{"weightings  — (no attention", "parameters  none\n", "§Addition and Subtraction (sec:ffnn_addition)"} {
		if !strings.Contains(out, want) {
			t.Errorf("list add lacks %q:\n%s", want, out)
		}
	}
}

// TestListJSON: one document of the schema verify/list/1 with every recipe, or
// the one named.
func TestListJSON(t *testing.T) {
	type doc struct {
		Schema  string `json:"schema"`
		Recipes []struct {
			Name       string   `json:"name"`
			Section    string   `json:"section"`
			Label      string   `json:"label"`
			Weightings []string `json:"weightings"`
			Exact      bool     `json:"exact"`
			Precision  string   `json:"precision"`
			Params     []struct {
				Name, Default, Doc string
			} `json:"params"`
			Claims []struct {
				ID       string `json:"id"`
				Recorded string `json:"recorded"`
			} `json:"claims"`
		} `json:"recipes"`
	}
	read := func(args ...string) doc {
		t.Helper()
		out, stderr, status := runCmd(args...)
		var d doc
		if err := json.Unmarshal([]byte(out), &d); err != nil || status != 0 {
			t.Fatalf("%q: status %d, %v, stderr %q", args, status, err, stderr)
		}
		if d.Schema != "verify/list/1" {
			t.Errorf("%q: schema %q, want verify/list/1", args, d.Schema)
		}
		return d
	}
	all := read("list", "--json")
	if len(all.Recipes) != len(recipes.Names()) {
		t.Errorf("--json lists %d recipes, the registry has %d", len(all.Recipes), len(recipes.Names()))
	}
	for _, r := range all.Recipes {
		if r.Name == "" || r.Section == "" || r.Weightings == nil || r.Params == nil || r.Claims == nil {
			t.Errorf("incomplete recipe %+v", r)
		}
	}
	one := read("list", "lookup", "--json")
	if len(one.Recipes) != 1 {
		t.Fatalf("list lookup --json: %d recipes", len(one.Recipes))
	}
	r := one.Recipes[0]
	if r.Name != "lookup" || r.Section != "Quadratic Maximization" || r.Label != "sec:quadratic-maximization" ||
		strings.Join(r.Weightings, ",") != "AHAT,UHAT,SMAT" || !r.Exact || r.Precision != "exact" ||
		len(r.Params) != 1 || r.Params[0].Name != "values" || r.Params[0].Default != "bits" {
		t.Errorf("lookup: %+v", r)
	}
	for _, c := range r.Claims {
		if !strings.HasPrefix(c.ID, "attn.lookup-qm.") && !strings.Contains(c.ID, "quadratic") {
			t.Errorf("lookup: claim %s is not about §Quadratic Maximization", c.ID)
		}
	}
}

// TestListBadInput: an unknown recipe, two names, or --markdown with a
// name is bad input: exit 2, nothing on stdout, one line on stderr.
func TestListBadInput(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"list", "lokup"}, `unknown recipe "lokup"`},
		{[]string{"list", "lookup", "add"}, "at most one recipe name"},
		{[]string{"list", "lookup", "--markdown"}, "--markdown"},
		{[]string{"list", "--markdown", "--json"}, "--markdown"},
		{[]string{"list", "--bogus"}, "unknown flag"},
	} {
		stdout, stderr, status := runCmd(tc.args...)
		if status != 2 || stdout != "" || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, tc.want) {
			t.Errorf("%q: status %d, stdout %q, stderr %q; want 2, nothing, one line with %q", tc.args, status, stdout, stderr, tc.want)
		}
	}
}

// syntheticResults gives every claim of the registry a result without
// running its checker (which takes minutes): evidence longer than any
// line, wide runes, a changed verdict and an error among them, so that
// the table and the explanation meet their worst cases.
func syntheticResults() []proofs.Result {
	long := strings.Repeat("ℝ^d → ℝ^d: 1/3 ∈ [0.333, 0.334], every input of length ≤ 8 (510 inputs); ", 12)
	var rs []proofs.Result
	for k, c := range proofs.All() {
		ev := &proofs.Evidence{Verdict: c.Recorded, Summary: long, Explain: []string{long, "short line"}}
		r := proofs.Result{Claim: c, Evidence: ev}
		switch k % 50 {
		case 7:
			ev.Verdict = proofs.OutOfScope
			if c.Recorded == proofs.OutOfScope {
				ev.Verdict = proofs.Refuted
			}
		case 8:
			r = proofs.Result{Claim: c, Err: errors.New(long)}
		}
		rs = append(rs, r)
	}
	return rs
}

// TestClaimsTableWidth: the table of every claim in the registry fits
// 100 columns with each ID whole, and the explanation wraps to 100
// columns.
func TestClaimsTableWidth(t *testing.T) {
	results := syntheticResults()
	var b bytes.Buffer
	if err := writeClaimsTable(&b, results); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, l := range overWide(out) {
		t.Errorf("%d runes: %s", utf8.RuneCountInString(l), l)
	}
	if tally := proofs.Tally(results); !strings.HasSuffix(strings.Join(strings.Fields(out), " "), tally) {
		t.Errorf("the table does not end with the tally %q", tally)
	}
	for _, r := range results {
		row := findRow(out, r.Claim.ID)
		if row == "" {
			t.Errorf("no row for %s", r.Claim.ID)
		}
		if r.Changed() && r.Err == nil && !strings.Contains(out, r.Verdict()+" (recorded "+string(r.Claim.Recorded)+")") {
			t.Errorf("%s: the changed verdict is not shown", r.Claim.ID)
		}
	}
	b.Reset()
	if err := writeClaimsExplained(&b, results[:20]); err != nil {
		t.Fatal(err)
	}
	for _, l := range overWide(b.String()) {
		t.Errorf("--explain: %d runes: %s", utf8.RuneCountInString(l), l)
	}
	// Nothing of the evidence is lost to the wrapping.
	first := results[0]
	if !strings.Contains(strings.Join(strings.Fields(b.String()), " "), strings.Join(strings.Fields(first.Claim.Statement), " ")) {
		t.Errorf("--explain lacks the statement of %s", first.Claim.ID)
	}
}

// TestBinaryClaimsWidth: one claim's table and explanation, with the
// checker's real evidence, fit 100 columns except for a single word too
// long for any line.
func TestBinaryClaimsWidth(t *testing.T) {
	for _, args := range [][]string{
		{"claims", "--id", "attn.lookup-ao.gap.sqrt-dkey"},
		{"claims", "--id", "attn.lookup-ao.gap.sqrt-dkey", "--explain"},
	} {
		stdout, stderr, status := execVerify(t, args...)
		if status != 0 {
			t.Fatalf("%q: status %d: %s", args, status, stderr)
		}
		for _, l := range overWide(stdout) {
			if len(strings.Fields(l)) > 1 {
				t.Errorf("%q: %d runes: %s", args, utf8.RuneCountInString(l), l)
			}
		}
	}
}
