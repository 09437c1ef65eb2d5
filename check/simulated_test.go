package check

import (
	"fmt"
	"testing"

	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/numeric"
	"github.com/transformer-cookbook/verify/recipes"
)

// TestSimulatedReference: a lookup under softmax holds log(8N) in W^Q,
// which exact arithmetic cannot compute; the analysis certifies its runs
// against the average-hard construction it simulates
// (Construction.Simulated): hardmax-softmax (the one-hot lookup), the
// quadratic lookup, tie-breaking (the default term, mask and γ, and
// t = j/n unmasked with γ = 1/3) and the two-head lookup (both forms)
// under SMAT. At
// fp16 and bf16 every length 1 … 4 is certified, and every input of
// those lengths, run whole at the format and compared with the recipe's
// intended function (c within 1/4 of the value retrieved, y exactly), is
// right. Against a
// reference whose W^V is doubled (its c is 2v) no length with a 1 to
// retrieve is certified: the proof compares with the reference, not
// with nothing.
func TestSimulatedReference(t *testing.T) {
	const N = 4
	for _, tc := range []struct {
		name   string
		params map[string]string
	}{
		{"hardmax-softmax", nil}, {"lookup", nil}, {"tiebreak", nil}, {"multihead", nil},
		{"multihead", map[string]string{"form": "multi-head"}},
		{"tiebreak", map[string]string{"t": "j/n", "mask": "none", "gamma": "1/3"}},
	} {
		name := tc.name
		if tc.params != nil {
			name += fmt.Sprint(tc.params)
		}
		r, err := recipes.Get(tc.name)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range []string{"fp16", "bf16"} {
			for _, tampered := range []bool{false, true} {
				con, err := r.Construct(model.Softmax, N, tc.params)
				if err != nil {
					t.Fatal(err)
				}
				if con.Simulated == nil {
					t.Fatalf("%s has no simulated construction", name)
				}
				if tampered {
					doubleValues(con.Simulated)
				}
				ck, err := NewChecker(r, Options{Precision: numeric.MustParsePrecision(p), Weighting: model.Softmax, MaxN: N,
					Params: tc.params, Cases: 8, Seed: 1, Analysis: true, Construction: con})
				if err != nil {
					t.Fatal(err)
				}
				for n := 1; n <= N; n++ {
					an := ck.analyseLength(n)
					certified := an.res != nil && an.res.Certified
					if tampered {
						if certified {
							t.Errorf("%s %s n = %d: certified against a reference with W^V doubled", name, p, n)
						}
						continue
					}
					if !certified {
						t.Errorf("%s %s n = %d: not certified: %s", name, p, n, an.why())
						continue
					}
					if bad := wrongInput(t, ck, n); bad != "" {
						t.Errorf("%s %s n = %d: certified, but %s", name, p, n, bad)
					}
				}
			}
		}
	}
}

// doubleValues multiplies W^V of m's attention heads by 2, in place.
func doubleValues(m *model.Model) {
	for _, l := range m.Layers {
		if l.Attention == nil {
			continue
		}
		for h := range l.Attention.Heads {
			v := l.Attention.Heads[h].V
			for k, e := range v.Data {
				v.Data[k] = numeric.Mul(e, numeric.LitInt(2))
			}
		}
	}
}

// wrongInput runs every input of length n through ck's model at its
// precision and compares each position with the recipe's intended
// output: "" when all are right, else the first wrong one.
func wrongInput(t *testing.T, ck *Checker, n int) string {
	t.Helper()
	cases, all := ck.Con.Inputs(n, nil, 1<<16)
	if !all {
		t.Fatalf("n = %d: the inputs are not enumerated", n)
	}
	for _, c := range cases {
		res, err := ck.Runner.Run(c.Symbols, false)
		if err != nil {
			t.Fatal(err)
		}
		for i, want := range ck.Con.Expected(c) {
			if ok, why := Compare(want, res.Outputs[i], ck.Con.Bounds, ck.Con.Model.Output.Labels); !ok {
				return CaseText(ck.Con.Model, c) + ": " + why
			}
		}
	}
	return ""
}
