package check

import (
	"fmt"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/transformer-cookbook/verify/internal/testenv"
	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/numeric"
	"github.com/transformer-cookbook/verify/recipes"
)

// soundCase is a recipe the soundness test perturbs.
type soundCase struct {
	recipe string
	w      model.Weighting
	params map[string]string
	maxN   int // the N it is built for, and the longest length enumerated
}

var soundCases = []soundCase{
	{"lookup", model.AverageHardmax, nil, 5},
	{"lookup", model.LeftHardmax, nil, 5},
	{"lookup-onehot", model.AverageHardmax, nil, 4},
	{"pred", model.RightHardmax, nil, 7},
	{"pred-strict", model.LeftHardmax, nil, 7},
	{"induction-recent", model.RightHardmax, map[string]string{"alphabet": "ABC"}, 6},
	{"first-uhat", model.LeftHardmax, nil, 8},
	{"multihead", model.LeftHardmax, nil, 4},
	{"tiebreak", model.AverageHardmax, nil, 5},
	{"dyck12", model.LeftHardmax, map[string]string{"check": "max"}, 8},
	{"dyck-kd", model.RightHardmax, map[string]string{"check": "max"}, 5},
}

// perturb changes one weight of m, drawn with rng among the nonzero
// entries of its attention heads and feed-forward sublayers, by a factor
// from a list that has small and large changes; it returns what it did.
func perturb(m *model.Model, rng *rand.Rand) string {
	type slot struct {
		name string
		data []numeric.Expr
	}
	var slots []slot
	for l, layer := range m.Layers {
		if a := layer.Attention; a != nil {
			for h, head := range a.Heads {
				slots = append(slots, slot{fmt.Sprintf("layer %d head %d W^Q", l+1, h+1), head.Q.Data},
					slot{fmt.Sprintf("layer %d head %d W^K", l+1, h+1), head.K.Data},
					slot{fmt.Sprintf("layer %d head %d W^V", l+1, h+1), head.V.Data})
			}
		}
		if f := layer.FeedForward; f != nil {
			slots = append(slots, slot{fmt.Sprintf("layer %d W1", l+1), f.W1.Data}, slot{fmt.Sprintf("layer %d W2", l+1), f.W2.Data})
			if f.B1 != nil {
				slots = append(slots, slot{fmt.Sprintf("layer %d b1", l+1), f.B1})
			}
		}
	}
	factors := []*big.Rat{big.NewRat(-1, 1), big.NewRat(0, 1), big.NewRat(1, 2), big.NewRat(2, 1), big.NewRat(9, 10), big.NewRat(11, 10), big.NewRat(65, 64)}
	for tries := 0; tries < 100; tries++ {
		s := slots[rng.IntN(len(slots))]
		k := rng.IntN(len(s.data))
		x, ok, err := s.data[k].Rat()
		if err != nil || !ok || x.Sign() == 0 {
			continue
		}
		f := factors[rng.IntN(len(factors))]
		y := new(big.Rat).Mul(x, f)
		s.data[k] = numeric.Lit(y)
		return fmt.Sprintf("%s entry %d: %s → %s", s.name, k, x.RatString(), y.RatString())
	}
	return "nothing"
}

// TestCertifiedIsRight: the analysis is sound. For the recipes whose
// analysis can certify, and many seeded random perturbations of one
// weight of each (a model from elsewhere, checked against the recipe's
// construction), at exact arithmetic and three rounding formats, every
// length the analysis certifies has no failing input when every input of
// it is run; and a length where some input fails is never certified. The
// test counts both outcomes, so it cannot pass by certifying nothing or
// by perturbing nothing that matters.
//
// The default run takes the unperturbed model and one perturbation at
// exact and fp16; TestLongCertifiedIsRight, four perturbations at all four
// (about a minute on 2 cores).
func TestCertifiedIsRight(t *testing.T) {
	certifiedIsRight(t, 2, []string{"exact", "fp16"})
}

// TestLongCertifiedIsRight is TestCertifiedIsRight with four perturbed
// models besides the recipe's own, at exact, fp16, bf16 and fp8-e4m3.
func TestLongCertifiedIsRight(t *testing.T) {
	testenv.Long(t)
	certifiedIsRight(t, 5, []string{"exact", "fp16", "bf16", "fp8-e4m3"})
}

// certifiedIsRight runs the soundness check of TestCertifiedIsRight on
// trials models of each sound case (the first unperturbed) at each
// precision.
func certifiedIsRight(t *testing.T, trials int, precisions []string) {
	rng := rand.New(rand.NewPCG(18, 2026))
	var certified, refusedFailing, lengths, decided, decidedInexact int
	for _, sc := range soundCases {
		r, err := recipes.Get(sc.recipe)
		if err != nil {
			t.Fatal(err)
		}
		for trial := 0; trial < trials; trial++ {
			con, err := r.Construct(sc.w, sc.maxN, sc.params)
			if err != nil {
				t.Fatal(err)
			}
			what := "unperturbed"
			if trial > 0 {
				what = perturb(con.Model, rng)
			}
			for _, p := range precisions {
				opts := Options{Precision: numeric.MustParsePrecision(p), Weighting: sc.w, MaxN: sc.maxN, Params: sc.params,
					Model: con.Model, Cases: 1, Seed: 1}
				all := opts
				all.Exhaustive = 1 << 12
				ex, err := NewChecker(r, all)
				if err != nil {
					t.Fatalf("%s %s (%s): %v", sc.recipe, p, what, err)
				}
				opts.Analysis = true
				an, err := NewChecker(r, opts)
				if err != nil {
					t.Fatal(err)
				}
				for n := max(1, r.MinN); n <= sc.maxN; n++ {
					lr := ex.Length(n)
					if !lr.Exhaustive {
						break
					}
					lengths++
					res := an.analyse(n).res
					ok := res != nil && res.Certified
					// Decisions: certified right only if every input
					// run decides right.
					if res != nil && res.Decided {
						decided++
						if lr.Decided < lr.Cases {
							t.Errorf("%s %s at %s, n = %d (%s): decisions certified, but %d of %d inputs decide wrong", sc.recipe, recipes.WeightingAcronym(sc.w), p, n, what, lr.Cases-lr.Decided, lr.Cases)
						}
						if !ok {
							decidedInexact++
						}
					}
					switch {
					case ok && lr.Failure != nil:
						t.Errorf("%s %s at %s, n = %d (%s): certified, but %q fails: %s", sc.recipe, recipes.WeightingAcronym(sc.w), p, n, what, lr.Failure.Input, lr.Failure.Reason)
					case ok:
						certified++
					case lr.Failure != nil:
						refusedFailing++
					}
				}
			}
		}
	}
	t.Logf("%d lengths enumerated: %d certified (and right), %d failing (and not certified); decisions certified at %d (%d of them inexact)", lengths, certified, refusedFailing, decided, decidedInexact)
	if certified < lengths/4 || refusedFailing < 10 || decidedInexact < 10 {
		t.Errorf("the test saw too little: %d certified, %d failing, %d decided but inexact, of %d lengths", certified, refusedFailing, decidedInexact, lengths)
	}
}
