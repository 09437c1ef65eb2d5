package recipes_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/model/eval"
	"github.com/transformer-cookbook/verify/model/modelfile"
	"github.com/transformer-cookbook/verify/numeric"
	"github.com/transformer-cookbook/verify/recipes"
)

// eachRecipe runs f on the model of every recipe under each of its
// weightings, built for lengths up to N = small (or 4 where the width or
// alphabet grows with N, up to the recipe's own limit).
func eachRecipe(t *testing.T, small int, f func(t *testing.T, r *recipes.Recipe, w model.Weighting, con *recipes.Construction, maxN int)) {
	for _, r := range recipes.All() {
		weightings := r.Weightings
		if len(weightings) == 0 {
			weightings = []model.Weighting{r.DefaultWeighting()}
		}
		for _, w := range weightings {
			t.Run(r.Name+"/"+w.String(), func(t *testing.T) {
				t.Parallel()
				maxN := small
				if r.LimitN > 0 {
					maxN = min(max(4, small/8), r.LimitN)
				}
				if small <= 6 {
					maxN = min(r.DefaultMaxN, maxN)
				}
				maxN = max(maxN, r.MinN, 1)
				con, err := r.Construct(w, maxN, nil)
				if err != nil {
					t.Fatal(err)
				}
				f(t, r, w, con, maxN)
			})
		}
	}
}

// fileTerm is a term of a position formula as docs/model-format.md
// defines it, read here without the engine's reader.
type fileTerm struct {
	Function  string `json:"function"`
	Component int    `json:"component"`
	Size      int    `json:"size"`
	Scale     string `json:"scale"`
	Base      string `json:"base"`
}

// formulaAt is the value the documentation gives a formula at position i
// of a length-n input, component by component: an exact rational, or nil
// with the float64 value for an irrational (sinusoidal) entry.
func formulaAt(t *testing.T, terms []fileTerm, d, i, n int) ([]*big.Rat, []float64) {
	t.Helper()
	exact := make([]*big.Rat, d)
	approx := make([]float64, d)
	for c := range exact {
		exact[c] = new(big.Rat)
	}
	for _, term := range terms {
		scale := big.NewRat(1, 1)
		if term.Scale != "" {
			if _, ok := scale.SetString(term.Scale); !ok {
				t.Fatalf("scale %q: the recipes' scales are rational", term.Scale)
			}
		}
		add := func(c int, v *big.Rat) { exact[c].Add(exact[c], v.Mul(v, scale)) }
		c := term.Component
		switch term.Function {
		case "1":
			add(c, big.NewRat(1, 1))
		case "i":
			add(c, big.NewRat(int64(i), 1))
		case "n":
			add(c, big.NewRat(int64(n), 1))
		case "i/n":
			add(c, big.NewRat(int64(i), int64(n)))
		case "1/i":
			add(c, big.NewRat(1, int64(i)))
		case "i^2":
			add(c, big.NewRat(int64(i)*int64(i), 1))
		case "(-1)^i":
			add(c, big.NewRat(int64(1-2*(i%2)), 1))
		case "one-hot":
			if i <= term.Size {
				add(c+i-1, big.NewRat(1, 1))
			}
		case "sinusoidal":
			var m float64
			fmt.Sscan(term.Base, &m)
			s, _ := scale.Float64()
			for k := 0; k < term.Size/2; k++ {
				arg := float64(i) * math.Pow(m, -float64(2*k)/float64(term.Size))
				exact[c+2*k], exact[c+2*k+1] = nil, nil
				approx[c+2*k], approx[c+2*k+1] = s*math.Cos(arg), s*math.Sin(arg)
			}
		default:
			t.Fatalf("unknown function %q", term.Function)
		}
	}
	return exact, approx
}

// TestPositionFormulaEveryRecipe checks, for every recipe whose position
// embedding has a formula, that the formula's values — computed here from
// the documented definitions — equal the recipe's own embedding at every
// position i ≤ n of every length n up to 12 and of 31, 100 and 257, as
// far as the model built for N = 257 (or the recipe's limit, or 32 where
// the width grows with N) goes. The formula is the one the JSON export
// writes when the embedding depends on n, and the model's Terms
// otherwise. It also checks that every recipe's
// embedding is exported in time linear in N: by a formula, or as an
// embedding declared independent of n.
func TestPositionFormulaEveryRecipe(t *testing.T) {
	eachRecipe(t, 257, func(t *testing.T, r *recipes.Recipe, w model.Weighting, con *recipes.Construction, maxN int) {
		m := con.Model
		if m.Position == nil {
			return
		}
		if _, known := m.Position.DependsOnN(); !known {
			t.Fatalf("the position embedding %q has neither a formula nor IndependentOfN: its export samples every (i, n)", m.Position.Name)
		}
		if m.Position.Terms == nil {
			return
		}
		var terms []fileTerm
		for _, pt := range m.Position.Terms {
			ft := fileTerm{Function: pt.Function.String(), Component: pt.Component, Size: pt.Size}
			if !pt.Scale.IsZero() {
				ft.Scale = pt.Scale.String()
			}
			if !pt.Base.IsZero() {
				ft.Base = pt.Base.String()
			}
			terms = append(terms, ft)
		}
		var file bytes.Buffer
		if err := modelfile.WriteJSON(context.Background(), &file, m, maxN); err != nil {
			t.Fatal(err)
		}
		var f struct {
			Positions struct {
				Formula []fileTerm `json:"formula"`
			} `json:"positions"`
		}
		if err := json.Unmarshal(file.Bytes(), &f); err != nil {
			t.Fatal(err)
		}
		if dep, _ := m.Position.DependsOnN(); dep != (f.Positions.Formula != nil) {
			t.Fatalf("depends on n: %v, but the file's formula is %v", dep, f.Positions.Formula)
		}
		if f.Positions.Formula != nil {
			if fmt.Sprint(f.Positions.Formula) != fmt.Sprint(normalScales(terms)) {
				t.Fatalf("the file's formula %v is not the model's %v", f.Positions.Formula, terms)
			}
			terms = f.Positions.Formula
		}
		for _, n := range []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 31, 100, 257} {
			if n > maxN {
				break
			}
			for i := 1; i <= n; i++ {
				exact, approx := formulaAt(t, terms, m.D, i, n)
				got := m.Position.Vector(i, n)
				for c := range exact {
					if exact[c] == nil {
						if n > 31 {
							continue // enclosures are slow; the irrational entries up to n = 31 suffice
						}
						lo, hi, err := got[c].Enclose(80)
						a, b := ratFloat(lo), ratFloat(hi)
						if tol := 1e-12 * max(1, math.Abs(approx[c])); err != nil || math.Abs(a-approx[c]) > tol || math.Abs(b-approx[c]) > tol {
							t.Fatalf("n = %d, i = %d, component %d: the recipe gives %v ∈ [%v, %v], the formula ≈ %v", n, i, c, got[c], a, b, approx[c])
						}
						continue
					}
					v, ok, err := got[c].Rat()
					if err != nil || !ok || v.Cmp(exact[c]) != 0 {
						t.Fatalf("n = %d, i = %d, component %d (%s): the recipe gives %v, the formula %s", n, i, c, m.Components[c], got[c], exact[c].RatString())
					}
				}
			}
		}
	})
}

// normalScales drops the scales of 1, which the file leaves out.
func normalScales(terms []fileTerm) []fileTerm {
	out := append([]fileTerm(nil), terms...)
	for k := range out {
		if out[k].Scale == "1" {
			out[k].Scale = ""
		}
	}
	return out
}

func ratFloat(r *big.Rat) float64 {
	if r == nil {
		return math.NaN()
	}
	f, _ := r.Float64()
	return f
}

// TestSafetensorsRoundTripEveryRecipe writes every recipe's model as
// safetensors in F64 and F32 and reads it back: a position formula in n
// goes in the architecture (no position tensor), any other embedding in
// a tensor of one row per position, and the model read back computes
// what the original computes at the dtype's precision (fp64, fp32), on an
// input of every length up to N and two of length N: each weight is
// rounded once to the dtype either way.
func TestSafetensorsRoundTripEveryRecipe(t *testing.T) {
	eachRecipe(t, 6, func(t *testing.T, r *recipes.Recipe, w model.Weighting, con *recipes.Construction, maxN int) {
		for _, tc := range []struct{ dtype, prec string }{{"F64", "fp64"}, {"F32", "fp32"}} {
			// Rounded: most recipes have weights (1/3, log 8) that no
			// binary dtype holds, which the plain writer refuses.
			var file bytes.Buffer
			if _, err := modelfile.WriteSafetensorsRounded(context.Background(), &file, con.Model, maxN, tc.dtype); err != nil {
				t.Fatalf("%s: %v", tc.dtype, err)
			}
			back, gotN, err := modelfile.ReadSafetensors(bytes.NewReader(file.Bytes()))
			if err != nil {
				t.Fatalf("%s: %v", tc.dtype, err)
			}
			if gotN != maxN {
				t.Errorf("max_n = %d, want %d", gotN, maxN)
			}
			if p := con.Model.Position; p != nil {
				dep, _ := p.DependsOnN()
				hasTensor := bytes.Contains(file.Bytes(), []byte(`"pos_embed.weight":{"dtype":"`+tc.dtype+`","shape":[`+fmt.Sprint(maxN)+`,`))
				if hasTensor == dep || dep && back.Position.Terms == nil {
					t.Errorf("%s: depends on n %v, position tensor [N, d] %v, formula read back %v", tc.dtype, dep, hasTensor, back.Position.Terms != nil)
				}
			}
			prec := numeric.MustParsePrecision(tc.prec)
			orig, errO := eval.New(prec, con.Model)
			read, errR := eval.New(prec, back)
			if fmt.Sprint(errO) != fmt.Sprint(errR) {
				t.Fatalf("%s: instantiating: %v / %v", tc.prec, errO, errR)
			}
			if errO != nil {
				if !errors.Is(errO, numeric.ErrIrrational) {
					t.Fatalf("%s: %v", tc.prec, errO)
				}
				continue
			}
			rng := rand.New(rand.NewPCG(3, 4))
			runs := 0
			for n := max(r.MinN, 1); n <= maxN; n++ {
				budget := 1
				if n == maxN {
					budget = 2
				}
				cases, _ := con.Inputs(n, rng, budget)
				for _, c := range cases {
					a, errA := runCaseText(orig, c)
					b, errB := runCaseText(read, c)
					if a != b || fmt.Sprint(errA) != fmt.Sprint(errB) {
						t.Fatalf("%s, n = %d: the original gives\n%s%v\nthe model read back\n%s%v", tc.dtype, n, a, errA, b, errB)
					}
					runs++
				}
			}
			if runs == 0 {
				t.Fatal("no input ran")
			}
		}
	})
}
