package recipes_test

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/transformer-cookbook/verify/check"
	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/model/eval"
	"github.com/transformer-cookbook/verify/numeric"
	"github.com/transformer-cookbook/verify/recipes"
)

// TestMultiHeadExpected: on "2:1 3:0 1:1" (n = 3, v = (1, 0, 1)) the
// queries (2, 3, 1) retrieve c1 = (v_2, v_3, v_1) = (0, 1, 1), and the
// reversed queries n+1−q = (2, 1, 3) retrieve c2 = (v_2, v_1, v_3) =
// (0, 1, 1); y = c1 + c2 = (0, 2, 2).
func TestMultiHeadExpected(t *testing.T) {
	con := construct(t, recipes.MultiHead, model.AverageHardmax, 3, nil)
	got := recipes.MultiHeadExpected(predCase(t, con, "2:1 3:0 1:1"))
	want := [][]string{{"0", "0", "0"}, {"2", "1", "1"}, {"2", "1", "1"}}
	for i := range want {
		for k, w := range want[i] {
			if got[i].Values[k].Cmp(rat(w)) != 0 {
				t.Errorf("position %d, output %d: %s, want %s", i+1, k, got[i].Values[k].RatString(), w)
			}
		}
	}
}

// TestMultiHeadLayers: the simulation has one head per attention
// sublayer, the multi-head model both heads in its first.
func TestMultiHeadLayers(t *testing.T) {
	for _, w := range recipes.MultiHead.Weightings {
		sim := construct(t, recipes.MultiHead, w, 4, nil).Model
		multi := construct(t, recipes.MultiHead, w, 4, map[string]string{"form": "multi-head"}).Model
		var simHeads []int
		for _, l := range sim.Layers {
			if l.Attention != nil {
				simHeads = append(simHeads, len(l.Attention.Heads))
			}
		}
		if !slices.Equal(simHeads, []int{1, 1}) {
			t.Errorf("%s simulation: heads per attention sublayer %v, want [1 1]", recipes.WeightingAcronym(w), simHeads)
		}
		if a := multi.Layers[0].Attention; a == nil || len(a.Heads) != 2 {
			t.Errorf("%s multi-head: the first layer does not have two heads", recipes.WeightingAcronym(w))
		}
	}
}

// multiHeadInputs returns every valid input up to length enumerated
// ((2n)^n of length n), then count seeded random ones of each length up
// to maxN.
func multiHeadInputs(enumerated, maxN, count int) []recipes.Case {
	rng := rand.New(rand.NewPCG(11, 12))
	var cases []recipes.Case
	for n := 1; n <= maxN; n++ {
		budget := count
		if n <= enumerated {
			budget = 1 << 20
		}
		cs, _ := recipes.LookupInputs(n, rng, budget)
		cases = append(cases, cs...)
	}
	return cases
}

// TestMultiHeadSimulationEqualsMultiHead: the section's claim, checked
// exactly. In exact arithmetic the simulation (two single-head layers,
// then addition) and the two-head layer give identical outputs (y, c1,
// c2) on every input up to length 3 under AHAT (2 + 16 + 216 inputs) and
// up to length 2 under UHAT, and on seeded random inputs up to 6, and
// both equal the reference (v_{q_i} + v_{n+1−q_i}, v_{q_i}, v_{n+1−q_i}).
func TestMultiHeadSimulationEqualsMultiHead(t *testing.T) {
	for _, tc := range []struct {
		w          model.Weighting
		enumerated int
	}{{model.AverageHardmax, 3}, {model.LeftHardmax, 2}} {
		w := tc.w
		sim := construct(t, recipes.MultiHead, w, 6, nil)
		multi := construct(t, recipes.MultiHead, w, 6, map[string]string{"form": "multi-head"})
		rs, err := eval.New(numeric.MustParsePrecision("exact"), sim.Model)
		if err != nil {
			t.Fatal(err)
		}
		rm, err := eval.New(numeric.MustParsePrecision("exact"), multi.Model)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range multiHeadInputs(tc.enumerated, 6, 2) {
			a, err := rs.Run(c.Symbols, false)
			if err != nil {
				t.Fatal(err)
			}
			b, err := rm.Run(c.Symbols, false)
			if err != nil {
				t.Fatal(err)
			}
			want := recipes.MultiHeadExpected(c)
			for i := range want {
				for k, v := range want[i].Values {
					x, y := a.Outputs[i].Values[k], b.Outputs[i].Values[k]
					if !x.Equals(v) || !y.Equals(v) {
						t.Fatalf("%s on %s, position %d, %s: simulation %s, multi-head %s, reference %s",
							recipes.WeightingAcronym(w), check.CaseText(sim.Model, c), i+1, sim.Model.Output.Labels[k], x.Text, y.Text, v.RatString())
					}
				}
			}
		}
	}
}

// TestMultiHeadSimulationSameRounding: the simulation is exact even where
// the arithmetic is not: each head reads the same components in either
// model, and adding its output to a zero component rounds nothing, so at
// fp16 (past the length, 46, where quadratic maximisation's scores
// collide: see TestLookupRoundingTies) the two models print the same
// values, right or wrong, under every weighting.
func TestMultiHeadSimulationSameRounding(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, w := range recipes.MultiHead.Weightings {
		sim := construct(t, recipes.MultiHead, w, 47, nil)
		multi := construct(t, recipes.MultiHead, w, 47, map[string]string{"form": "multi-head"})
		for _, n := range []int{5, 47} {
			cs, _ := recipes.LookupInputs(n, rng, 1)
			for _, c := range cs {
				a := runCase(t, sim, "fp16", c)
				b := runCase(t, multi, "fp16", c)
				for i := range a {
					for k := range a[i].Values {
						if a[i].Values[k].Text != b[i].Values[k].Text {
							t.Fatalf("%s fp16 n = %d, position %d: simulation %s, multi-head %s", recipes.WeightingAcronym(w), n, i+1, a[i].Values[k].Text, b[i].Values[k].Text)
						}
					}
				}
			}
		}
	}
}

// TestMultiHeadSoftmax: under SMAT, both forms pass the sweep at 53 bits
// up to N = 8: y exact, |c1 − v|, |c2 − v| ≤ 1/4. (Under AHAT and UHAT
// TestMultiHeadSimulationEqualsMultiHead compares both forms with the
// reference exactly.)
func TestMultiHeadSoftmax(t *testing.T) {
	for _, form := range []string{"simulation", "multi-head"} {
		rep, err := check.Run(recipes.MultiHead, check.Options{Precision: numeric.MustParsePrecision("53"),
			Weighting: model.Softmax, MaxN: 8, Params: map[string]string{"form": form}, Cases: 3, Exhaustive: 36, Seed: 4})
		if err != nil {
			t.Fatal(err)
		}
		if !rep.Passed {
			t.Fatalf("SMAT %s: %+v", form, rep.FirstFailure)
		}
	}
}

// TestMultiHeadPerturbedCaught: giving head 2 the query n − q instead of
// n+1 − q (a −1 on the component 1 in its first query row) is caught. On
// "1:0 1:1" (n = 2, v = (0, 1)), position 1 has q = 1: head 2 should
// retrieve v_{n+1−q} = v_2 = 1, so y = v_1 + v_2 = 1; perturbed, it
// retrieves v_{n−q} = v_1 = 0 and y = 0.
func TestMultiHeadPerturbedCaught(t *testing.T) {
	for _, form := range []string{"simulation", "multi-head"} {
		con := construct(t, recipes.MultiHead, model.AverageHardmax, 2, map[string]string{"form": form})
		m := con.Model
		head2 := m.Layers[0].Attention.Heads[1:]
		if form == "simulation" {
			head2 = m.Layers[1].Attention.Heads
		}
		one := slices.Index(m.Components, "1")
		head2[0].Q.Set(0, one, numeric.LitInt(-1))
		c := predCase(t, con, "1:0 1:1")
		got := runCase(t, con, "exact", c)[0].Values[0]
		want := recipes.MultiHeadExpected(c)[0].Values[0]
		if !got.Equals(rat("0")) || want.Cmp(rat("1")) != 0 {
			t.Errorf("%s perturbed: y_1 = %s (reference %s), want 0 (reference 1)", form, got.Text, want.RatString())
		}
	}
}

// TestMultiHeadFP16Tie: head 2 inherits quadratic maximisation's first
// fp16 collision (TestLookupRoundingTies, by hand: with query 46, the
// scores 2·46·45 − 45² = 2115 and 2·46·46 − 46² = 2116 both round to
// 2116). With n = 46 and q_1 = 1, head 2's query is n+1−q_1 = 46, exact
// in fp16; with v_46 = 1 and every other value 0, c2 at position 1 is
// (0 + 1)/2 under AHAT instead of 1, in both forms, while head 1 (query
// 1: scores 2j − j², no collision) is right.
func TestMultiHeadFP16Tie(t *testing.T) {
	const n = 46
	qs, vs := make([]int, n), make([]int, n)
	for i := range qs {
		qs[i] = 1
	}
	vs[n-1] = 1
	in := lookupInput(qs, vs)
	for _, form := range []string{"simulation", "multi-head"} {
		con := construct(t, recipes.MultiHead, model.AverageHardmax, n, map[string]string{"form": form})
		out := runCase(t, con, "fp16", recipes.Case{Symbols: in})[0].Values
		if !out[1].Equals(rat("0")) || !out[2].Equals(rat("1/2")) {
			t.Errorf("%s fp16: c1, c2 = %s, %s at position 1, want 0, 1/2", form, out[1].Text, out[2].Text)
		}
	}
}
