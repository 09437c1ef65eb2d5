package recipes_test

import (
	"fmt"
	"math/big"
	"math/rand/v2"
	"os"
	"testing"

	"github.com/transformer-cookbook/verify/check"
	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/model/eval"
	"github.com/transformer-cookbook/verify/numeric"
	"github.com/transformer-cookbook/verify/recipes"
)

// Measurements (DYCK_MEASURE=1): the largest length at which each
// construction stays exact at each precision, for the report.

func TestDyckMeasure(t *testing.T) {
	if os.Getenv("DYCK_MEASURE") == "" {
		t.Skip("set DYCK_MEASURE=1 to measure the precision limits")
	}
	precisions := []string{"fp16", "bf16", "fp32", "fp64", "24", "53"}
	dyckMeasureLimits(t, precisions)
	dyckMeasureTies(t, precisions)
	dyckMeasureExternalCheck(t, precisions)
}

// dyckMeasureLimits logs each construction's sampled limit at each
// precision.
func dyckMeasureLimits(t *testing.T, precisions []string) {
	measure := func(r *recipes.Recipe, w model.Weighting, maxN int, params map[string]string) {
		for _, p := range precisions {
			n := maxN
			if p == "24" || p == "53" {
				n = min(n, 512) // big.Float is slow; fp32 and fp64 round alike
			}
			rep, err := check.Run(r, check.Options{Precision: numeric.MustParsePrecision(p), Weighting: w, MaxN: n,
				Params: params, Cases: 16, Exhaustive: 256, Seed: 1})
			if err != nil {
				t.Logf("%s %s %v %s: %v", r.Name, recipes.WeightingAcronym(w), params, p, err)
				continue
			}
			line := fmt.Sprintf("%-8s %-10s %-28s N=%-5d %-5s sampled limit %d", r.Name, recipes.WeightingAcronym(w), fmt.Sprint(params), n, p, rep.Limit)
			if f := rep.FirstFailure; f != nil {
				in := f.Input
				if len(in) > 30 {
					in = in[:30] + "…"
				}
				line += fmt.Sprintf("; first failure n=%d pos %d %q: %s", f.N, f.Position, in, f.Reason)
			}
			t.Log(line)
		}
	}
	measure(recipes.Dyck1, model.AverageHardmax, 256, nil)
	measure(recipes.Dyck1, model.Softmax, 256, nil)
	for _, n := range []int{16, 64, 256, 1024} {
		measure(recipes.Dyck1N, model.AverageHardmax, n, nil)
	}
	for _, w := range recipes.Dyck12.Weightings {
		for _, check := range []string{"avg", "max"} {
			measure(recipes.Dyck12, w, 2048, map[string]string{"check": check, "outputs": "accept"})
		}
	}
	measure(recipes.Dyck12, model.LeftHardmax, 256, map[string]string{"outputs": "accept"})
	measure(recipes.Dyck12, model.LeftHardmax, 64, nil)
	for _, check := range []string{"avg", "max"} {
		measure(recipes.DyckKD, model.LeftHardmax, 2048, map[string]string{"check": check, "outputs": "accept"})
	}
}

// dyckMeasureTies logs where the round constructions' heads first tie:
// two consecutive encodings round alike, and the first even n ≤ 4096 at
// which a member built around such a pair (dyckCollisionString) is
// decided wrong, check=max.
func dyckMeasureTies(t *testing.T, precisions []string) {
	for _, w := range recipes.Dyck12.Weightings {
		for _, p := range precisions {
			if p == "24" || p == "53" {
				continue // as fp32 and fp64: no tie below n = 2^23
			}
			found := false
			for n := 2; n <= 4096 && !found; n += 2 {
				con := construct(t, recipes.Dyck12, w, n, map[string]string{"check": "max", "outputs": "accept"})
				r, err := eval.New(numeric.MustParsePrecision(p), con.Model)
				if err != nil {
					t.Fatal(err)
				}
				for _, j := range dyckCollisions(r, n) {
					text, ok := dyckCollisionString(n, j)
					if !ok {
						continue
					}
					out := dyckOutputs(t, con.Model, p, text, 0)
					if !out[0].Equals(big.NewRat(1, 1)) {
						t.Logf("dyck12 %s %s: first tie-made failure at n = %d (encodings %d/n, %d/n round alike): accept = %s on %.20s…", recipes.WeightingAcronym(w), p, n, j, j+1, out[0].Text, text)
						found = true
						break
					}
				}
			}
			if !found {
				t.Logf("dyck12 %s %s: no tie-made failure up to n = 4096", recipes.WeightingAcronym(w), p)
			}
		}
	}
}

// dyckMeasureExternalCheck logs Dyck-1's external check, which the
// uniform construction leaves outside: the largest n at which
// (t_i = 0 ∧ B_i/i = 0) is membership at every position of the sampled
// strings.
func dyckMeasureExternalCheck(t *testing.T, precisions []string) {
	con := construct(t, recipes.Dyck1, model.AverageHardmax, 1024, nil)
	for _, p := range precisions {
		r, err := eval.New(numeric.MustParsePrecision(p), con.Model)
		if err != nil {
			t.Fatal(err)
		}
		rng := rand.New(rand.NewPCG(1, 2))
		limit := 0
	lengths:
		for _, n := range check.DefaultLengths(1, 1024) {
			cases, _ := con.Inputs(n, rng, check.CasesAt(16, n))
			for _, c := range cases {
				res, err := r.Run(c.Symbols, false)
				if err != nil {
					t.Fatal(err)
				}
				for i, o := range res.Outputs {
					accept := o.Values[0].Equals(new(big.Rat)) && o.Values[1].Equals(new(big.Rat))
					if accept != recipes.DyckMember(c.Symbols[:i+1], 0) {
						t.Logf("dyck1 external check %s: limit %d; first wrong at n=%d pos %d %q: B/i = %s, t = %s", p, limit, n, i+1, check.CaseText(con.Model, c), o.Values[0].Text, o.Values[1].Text)
						break lengths
					}
				}
			}
			limit = n
		}
		if limit == 1024 {
			t.Logf("dyck1 external check %s: right up to 1024", p)
		}
	}
}
