package eval_test

import (
	"fmt"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/transformer-cookbook/verify/internal/testenv"
	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/model/eval"
	"github.com/transformer-cookbook/verify/numeric"
	"github.com/transformer-cookbook/verify/recipes"
)

// sameResult describes the first difference between two results (nil
// when they are identical: the same error text, symbols, values as
// rationals and as printed).
func sameResult(a *eval.Result, aerr error, b *eval.Result, berr error) string {
	if (aerr != nil) != (berr != nil) || aerr != nil && aerr.Error() != berr.Error() {
		return fmt.Sprintf("error %v, want %v", aerr, berr)
	}
	if aerr != nil {
		return ""
	}
	if len(a.Outputs) != len(b.Outputs) {
		return fmt.Sprintf("%d outputs, want %d", len(a.Outputs), len(b.Outputs))
	}
	for i := range a.Outputs {
		x, y := a.Outputs[i], b.Outputs[i]
		if x.Symbol != y.Symbol || len(x.Values) != len(y.Values) {
			return fmt.Sprintf("position %d: %q with %d values, want %q with %d", i+1, x.Symbol, len(x.Values), y.Symbol, len(y.Values))
		}
		for k := range x.Values {
			u, v := x.Values[k], y.Values[k]
			if u.Text != v.Text || u.Finite() != v.Finite() || u.Finite() && (u.Lo.Cmp(v.Lo) != 0 || u.Hi.Cmp(v.Hi) != 0) {
				return fmt.Sprintf("position %d value %d: %s, want %s", i+1, k+1, u.Text, v.Text)
			}
		}
	}
	return ""
}

// TestNarrowRunnerIsBigFloat: eval.New's runner for a bigfloat of at
// most 25 bits, which computes in float64 where it can, gives what the
// BigFloat instance gives, error texts included, on every recipe in
// every weighting the paper gives it, on inputs its construction draws
// (or enumerates) at every length up to 6, at 3 and 24 bits (the long
// twin: 2, 5, 11, 24 and 25 bits, lengths up to 8, four times the
// inputs). The softmax recipes leave float64's share of the range (exp
// of large negative scores), so they test the fallback as the others
// test the fast path.
func TestNarrowRunnerIsBigFloat(t *testing.T) {
	bits := []uint{3, 24}
	if testenv.Race {
		bits = []uint{24}
	}
	narrowMatchesBigFloat(t, bits, 6, 6)
}

func TestLongNarrowRunnerIsBigFloat(t *testing.T) {
	testenv.Long(t)
	narrowMatchesBigFloat(t, []uint{2, 5, 11, 24, 25}, 8, 24)
}

func narrowMatchesBigFloat(t *testing.T, bits []uint, maxLen, cases int) {
	for _, r := range recipes.All() {
		ws := r.Weightings
		if len(ws) == 0 {
			ws = []model.Weighting{model.Softmax}
		}
		for _, w := range ws {
			maxN := min(max(r.DefaultMaxN, r.MinN, 1), maxLen)
			con, err := r.Construct(w, maxN, nil)
			if err != nil {
				t.Fatalf("%s %s: %v", r.Name, recipes.WeightingAcronym(w), err)
			}
			for _, p := range bits {
				prec := numeric.Precision{Kind: numeric.KindBigFloat, Bits: p}
				fast, ferr := eval.New(prec, con.Model)
				slow, serr := eval.Instantiate[*big.Float](numeric.NewBigFloat(p), con.Model)
				if (ferr != nil) != (serr != nil) {
					t.Fatalf("%s at %d bits: building: %v, want %v", r.Name, p, ferr, serr)
				}
				if ferr != nil {
					continue
				}
				if fast.Precision() != slow.Precision() || fmt.Sprint(fast.Notes()) != fmt.Sprint(slow.Notes()) {
					t.Fatalf("%s at %d bits: precision %v and notes %q, want %v and %q", r.Name, p, fast.Precision(), fast.Notes(), slow.Precision(), slow.Notes())
				}
				for n := max(r.MinN, 1); n <= maxN; n++ {
					cases, _ := con.Inputs(n, rand.New(rand.NewPCG(uint64(p), uint64(n))), cases)
					for _, c := range cases {
						var diff string
						if c.Stream != nil {
							a, aerr := fast.RunStream(c.Stream, false)
							b, berr := slow.RunStream(c.Stream, false)
							diff = sameResult(a, aerr, b, berr)
						} else {
							a, aerr := fast.Run(c.Symbols, false)
							b, berr := slow.Run(c.Symbols, false)
							diff = sameResult(a, aerr, b, berr)
						}
						if diff != "" {
							t.Fatalf("%s %s at %d bits, n = %d, input %v: %s", r.Name, recipes.WeightingAcronym(w), p, n, c.Symbols, diff)
						}
					}
				}
			}
		}
	}
}

// TestNarrowRunnerConcurrent: runs sharing one runner from several
// goroutines give BigFloat's results, where a run leaves the range (and
// sends every later run to big.Float) while others are under way: the
// softmax lookup's exponentials leave it, the average-hard one's scores
// do not. The race detector watches the switch.
func TestNarrowRunnerConcurrent(t *testing.T) {
	r, err := recipes.Get("lookup")
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []model.Weighting{model.AverageHardmax, model.Softmax} {
		con, err := r.Construct(w, 16, nil)
		if err != nil {
			t.Fatal(err)
		}
		prec := numeric.Precision{Kind: numeric.KindBigFloat, Bits: 24}
		fast, err := eval.New(prec, con.Model)
		if err != nil {
			t.Fatal(err)
		}
		slow, err := eval.Instantiate[*big.Float](numeric.NewBigFloat(24), con.Model)
		if err != nil {
			t.Fatal(err)
		}
		cases, _ := con.Inputs(16, rand.New(rand.NewPCG(3, 16)), 16)
		diffs := make(chan string, len(cases))
		for _, c := range cases {
			go func() {
				a, aerr := fast.Run(c.Symbols, false)
				b, berr := slow.Run(c.Symbols, false)
				diffs <- sameResult(a, aerr, b, berr)
			}()
		}
		for range cases {
			if d := <-diffs; d != "" {
				t.Errorf("lookup %s at 24 bits, concurrent runs: %s", recipes.WeightingAcronym(w), d)
			}
		}
	}
}
