package positionwise

import (
	"math"
	"math/big"
	"testing"

	"github.com/transformer-cookbook/verify/internal/testenv"
	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/numeric"
)

// perturbations change a model's first feed-forward sublayer, so that the
// analysis is held to models whose rounding is not the recipes' own.
var perturbations = []struct {
	name string
	f    func(ff *model.FeedForward, p numeric.Precision)
}{
	{"as built", func(_ *model.FeedForward, _ numeric.Precision) {}},
	{"W1[1][1] one ulp up", func(ff *model.FeedForward, p numeric.Precision) {
		g, _ := gridOf(p)
		w, _, _ := ff.W1.At(0, 0).Rat()
		f, _ := w.Float64()
		ff.W1.Set(0, 0, numeric.Lit(rat(g.value(g.ord(p.Format.Round(f))+1))))
	}},
	{"an extra hidden unit", func(ff *model.FeedForward, _ numeric.Precision) {
		w1 := model.Zeros(ff.W1.Rows+1, ff.W1.Cols)
		copy(w1.Data, ff.W1.Data)
		for c := 0; c < w1.Cols; c++ {
			w1.Set(ff.W1.Rows, c, numeric.Lit(big.NewRat(int64(2*c-1), 2)))
		}
		w2 := model.Zeros(ff.W2.Rows, ff.W2.Cols+1)
		for r := 0; r < w2.Rows; r++ {
			for c := 0; c < ff.W2.Cols; c++ {
				w2.Set(r, c, ff.W2.At(r, c))
			}
			w2.Set(r, ff.W2.Cols, numeric.LitInt(3))
		}
		ff.W1, ff.W2 = w1, w2
		if ff.B1 != nil {
			ff.B1 = append(append(model.Vector(nil), ff.B1...), numeric.LitInt(0))
		}
	}},
	{"a linear activation", func(ff *model.FeedForward, _ numeric.Precision) { ff.Activation = model.Linear }},
	{"b1 of 1/3", func(ff *model.FeedForward, _ numeric.Precision) {
		ff.B1 = make(model.Vector, ff.W1.Rows)
		for k := range ff.B1 {
			ff.B1[k] = numeric.LitInt(0)
		}
		ff.B1[0] = numeric.Lit(big.NewRat(1, 3))
	}},
}

// perturbed is b with its first feed-forward sublayer changed by f (a
// copy: the recipe's model is not touched).
func perturbed(b built, p numeric.Precision, f func(*model.FeedForward, numeric.Precision)) built {
	m := *b.m
	m.Layers = append([]model.Layer(nil), b.m.Layers...)
	for k := range m.Layers {
		if old := m.Layers[k].FeedForward; old != nil {
			ff := *old
			ff.W1 = model.Matrix{Rows: old.W1.Rows, Cols: old.W1.Cols, Data: append([]numeric.Expr(nil), old.W1.Data...)}
			ff.W2 = model.Matrix{Rows: old.W2.Rows, Cols: old.W2.Cols, Data: append([]numeric.Expr(nil), old.W2.Data...)}
			f(&ff, p)
			m.Layers[k].FeedForward = &ff
			break
		}
	}
	b.m = &m
	return b
}

// agreementModels are the recipes held to the enumeration: every
// position-wise one of §Feed-Forward Layers with real inputs, and scales
// whose products are exact by a power of two up (2), down (1/2) and
// never (3).
var agreementModels = []struct {
	recipe string
	params map[string]string
}{
	{"identity-ffn", nil}, {"zero-ffn", nil}, {"min", nil}, {"max", nil}, {"add", nil}, {"sub", nil},
	{"scale", map[string]string{"c": "2"}}, {"scale", map[string]string{"c": "1/2"}}, {"scale", map[string]string{"c": "3"}},
	{"scale", nil}, {"cpwl", nil}, {"clip", nil}, {"cancel-residual", nil}, {"identity-ffn", map[string]string{"d": "1"}},
}

// TestAnalysisAgreesWithEnumeration: at fp8-e4m3 (and fp8-e5m2 with
// VERIFY_LONG=1), every box the
// analysis proves holds only points where the engine's run equals its
// exact run, for the recipes' models and perturbed ones; and the proofs
// are not vacuous (identity and zero are proved on boxes holding every
// point; on one input, where every point is counted).
func TestAnalysisAgreesWithEnumeration(t *testing.T) {
	formats := []string{"fp8-e4m3"}
	if testenv.LongEnabled() {
		formats = append(formats, "fp8-e5m2")
	}
	for _, pn := range formats {
		p := numeric.MustParsePrecision(pn)
		for _, am := range agreementModels {
			base := build(t, am.recipe, am.params)
			for _, pt := range perturbations {
				if len(base.names) > 1 && pt.name != "as built" && !testenv.LongEnabled() {
					continue // 64,009 points a model: the long tier runs them
				}
				b := perturbed(base, p, pt.f)
				proved, points, bad, why := agreement(t, b, p)
				if bad != nil {
					t.Errorf("%s %v (%s) at %s: a proved box holds (%s), where %s", am.recipe, am.params, pt.name, pn, ratsText(bad), why)
				}
				if pt.name == "as built" && len(b.names) == 1 && (am.recipe == "identity-ffn" || am.recipe == "zero-ffn") {
					g, _ := gridOf(p)
					all := int64(1)
					for range b.names {
						all *= 2*g.maxOrd + 1
					}
					if points != all {
						t.Errorf("%s at %s: %d boxes proved hold %d points, want every one of %d", am.recipe, pn, proved, points, all)
					}
				}
			}
		}
	}
}

// TestLongAnalysisAgreesBF16 is the agreement at bf16 and fp16 on the
// one-input models (65,279 and 63,487 points each).
func TestLongAnalysisAgreesBF16(t *testing.T) {
	testenv.Long(t)
	for _, pn := range []string{"bf16", "fp16"} {
		p := numeric.MustParsePrecision(pn)
		for _, am := range agreementModels {
			base := build(t, am.recipe, am.params)
			if len(base.names) != 1 {
				continue
			}
			for _, pt := range perturbations {
				if _, _, bad, why := agreement(t, perturbed(base, p, pt.f), p); bad != nil {
					t.Errorf("%s %v (%s) at %s: a proved box holds (%s), where %s", am.recipe, am.params, pt.name, pn, ratsText(bad), why)
				}
			}
		}
	}
}

// TestEachPremiseIsNeeded: without any one premise of its rules, the
// analysis proves a box where the engine's run is not the exact one, on
// some model: the agreement test can fail, and these premises are what
// keeps it from failing.
func TestEachPremiseIsNeeded(t *testing.T) {
	p := numeric.MustParsePrecision("fp8-e4m3")
	for _, tc := range []struct {
		mutation, recipe string
		params           map[string]string
	}{
		{"pow2-underflow", "scale", map[string]string{"c": "1/2"}}, // x/2 of a subnormal
		{"sterbenz-loose", "sub", nil},                             // x − y with y up to 4x
		{"quantum-bit", "add", nil},                                // a sum one bit too wide
	} {
		mu := tc.mutation
		t.Run(mu, func(t *testing.T) {
			mutation = mu
			defer func() { mutation = "" }()
			{
				base := build(t, tc.recipe, tc.params)
				for _, pt := range perturbations {
					if len(base.names) > 1 && pt.name != "as built" {
						continue
					}
					if _, _, bad, _ := agreement(t, perturbed(base, p, pt.f), p); bad != nil {
						return
					}
				}
			}
			t.Errorf("without %s, every proved box still agrees with the enumeration", mu)
		})
	}
}

// TestFastEvaluatorIsTheEngine: the enumeration's own evaluator computes
// what the engine's runner computes, bit for bit, on every input of one
// position at fp8-e4m3 (and, with VERIFY_LONG=1, fp8-e5m2 and every bf16
// and fp16 value of the one-input models), perturbed models included.
func TestFastEvaluatorIsTheEngine(t *testing.T) {
	formats := []string{"fp8-e4m3"}
	if testenv.LongEnabled() {
		formats = append(formats, "fp8-e5m2", "bf16", "fp16")
	}
	for _, pn := range formats {
		p := numeric.MustParsePrecision(pn)
		g, _ := gridOf(p)
		for _, am := range agreementModels {
			base := build(t, am.recipe, am.params)
			if len(base.names) > 1 && p.Format.P > 4 {
				continue // 2^32 points
			}
			for _, pt := range perturbations {
				if len(base.names) > 1 && (pt.name != "as built" || pn != "fp8-e4m3") && !testenv.LongEnabled() {
					continue // 64,009 points a model through the engine
				}
				b := perturbed(base, p, pt.f)
				run, _ := runners(t, b.m, p)
				pr := problem(t, b, p, run, nil)
				prog, err := compile(b.m, pr.Round)
				if err != nil {
					t.Fatal(err)
				}
				lo, hi := make([]int64, len(b.names)), make([]int64, len(b.names))
				for k := range lo {
					lo[k], hi[k] = -g.maxOrd, g.maxOrd
				}
				var points [][]*big.Rat
				var fast [][]float64
				eachPoint(lo, hi, func(o []int64) {
					if len(o) > 1 && o[0]%7 != 0 && !testenv.LongEnabled() {
						return // a seventh of the pairs; the long tier runs every one
					}
					x := make([]*big.Rat, len(o))
					h := make([]float64, b.m.D)
					for k := range o {
						x[k] = g.pointValue(o[k])
						h[b.inputs[k]] = g.value(o[k])
					}
					points = append(points, x)
					fast = append(fast, evalFast(prog, h, fastRound(p)))
				})
				res, err := run.RunStream(streams(b, points), false)
				if err != nil {
					t.Fatal(err)
				}
				for i, out := range res.Outputs {
					for k, v := range out.Values {
						f := fast[i][k]
						finite := !math.IsNaN(f) && !math.IsInf(f, 0)
						if finite && !v.Equals(rat(f)) || !finite && v.Lo != nil && v.Lo.Cmp(v.Hi) == 0 {
							t.Fatalf("%s (%s) at %s, (%s): the fast evaluator gives %g, the engine %s", am.recipe, pt.name, pn, ratsText(points[i]), f, v.Text)
						}
					}
				}
			}
		}
	}
}
