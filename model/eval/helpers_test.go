package eval

import (
	"strings"
	"testing"

	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/model/internal/modeltest"
	"github.com/transformer-cookbook/verify/numeric"
)

// Helpers shared by the tests of this package. Expected values are written
// as exact fractions ("-1/2", "7/3") and compared as strings, so that a
// cmp.Diff shows the whole vector at once.

var (
	rat  = modeltest.Rat
	ex   = modeltest.Ex
	vec  = modeltest.Vec
	rows = modeltest.Rows
	row  = modeltest.Row
)

// tokens tokenizes s for m, failing the test on an error.
func tokens(t *testing.T, m *model.Model, s string) []int {
	t.Helper()
	in, err := m.Tokenize(s)
	if err != nil {
		t.Fatalf("Tokenize(%q): %v", s, err)
	}
	return in
}

// runPrec instantiates m at the named precision and runs it on s with a
// trace.
func runPrec(t *testing.T, prec string, m *model.Model, s string) (*Result, error) {
	t.Helper()
	r, err := New(numeric.MustParsePrecision(prec), m)
	if err != nil {
		return nil, err
	}
	return r.Run(tokens(t, m, s), true)
}

// mustRun is runPrec that fails the test on an error.
func mustRun(t *testing.T, prec string, m *model.Model, s string) *Result {
	t.Helper()
	res, err := runPrec(t, prec, m, s)
	if err != nil {
		t.Fatalf("%s on %q at %s: %v", m.Name, s, prec, err)
	}
	return res
}

// exactStrings returns the exact values of vs, failing the test on a value
// that is not a single finite number.
func exactStrings(t *testing.T, vs []Value) []string {
	t.Helper()
	out := make([]string, len(vs))
	for k, v := range vs {
		r, ok := v.Rat()
		if !ok {
			t.Fatalf("value %d = %s is not an exact point", k+1, v.Text)
		}
		out[k] = r.RatString()
	}
	return out
}

// outputs returns the output values at every position, exactly.
func outputs(t *testing.T, res *Result) [][]string {
	t.Helper()
	out := make([][]string, len(res.Outputs))
	for i, o := range res.Outputs {
		out[i] = exactStrings(t, o.Values)
	}
	return out
}

// scalars returns the single output value at every position, for models
// whose readout has one row.
func scalars(t *testing.T, res *Result) []string {
	t.Helper()
	var out []string
	for i, v := range outputs(t, res) {
		if len(v) != 1 {
			t.Fatalf("position %d: %d output values, want 1", i+1, len(v))
		}
		out = append(out, v[0])
	}
	return out
}

// state returns the exact vectors of the trace state with the given label.
func state(t *testing.T, res *Result, label string) [][]string {
	t.Helper()
	if res.Trace == nil {
		t.Fatal("no trace")
	}
	for _, s := range res.Trace.States {
		if s.Label == label {
			out := make([][]string, len(s.Vectors))
			for i := range s.Vectors {
				out[i] = exactStrings(t, s.Vectors[i])
			}
			return out
		}
	}
	t.Fatalf("no trace state %q in %v", label, labels(res.Trace))
	return nil
}

func labels(tr *Trace) []string {
	var out []string
	for _, s := range tr.States {
		out = append(out, s.Label)
	}
	return out
}

// split turns "1 3/2 2" into []string{"1", "3/2", "2"}.
func split(s string) []string { return strings.Fields(s) }

// wantErr fails unless err is non-nil and its message contains every
// substring.
func wantErr(t *testing.T, err error, subs ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error, want one containing %q", subs)
	}
	for _, s := range subs {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("error %q does not contain %q", err, s)
		}
	}
}
