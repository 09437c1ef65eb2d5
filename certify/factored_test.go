package certify

import (
	"fmt"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/transformer-cookbook/verify/internal/testenv"
	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/model/eval"
	"github.com/transformer-cookbook/verify/numeric"
	"github.com/transformer-cookbook/verify/recipes"
)

// TestFactoredFirstPass: the first pass over the embeddings computes each
// query, key and value once per class of symbols and positions, where
// held states are projected one by one. Both must reach the same
// verdict, the same suspects and the same breaks on every recipe: the
// factoring is only sound if the classes are. It compares at lengths 2
// and 5; TestLongFactoredFirstPass, at 1, 3, 8 and 13 besides.
func TestFactoredFirstPass(t *testing.T) {
	factoredFirstPass(t, []int{2, 5})
}

// TestLongFactoredFirstPass is TestFactoredFirstPass at lengths 1, 3, 8
// and 13 (the default tier runs 2 and 5, which CI runs as well).
func TestLongFactoredFirstPass(t *testing.T) {
	testenv.Long(t)
	factoredFirstPass(t, []int{1, 3, 8, 13})
}

// factoredFirstPass compares the factored and the plain first pass on
// every recipe at each of five precisions and each of lengths.
func factoredFirstPass(t *testing.T, lengths []int) {
	compared := 0
	eachAnalysis(t, lengths, func(name string, in Input, n int) {
		factored, err := Length(in, n)
		if err != nil {
			t.Fatal(err)
		}
		in.unfactored = true
		plain, err := Length(in, n)
		if err != nil {
			t.Fatal(err)
		}
		if factored.OverBudget || plain.OverBudget {
			return
		}
		compared++
		if factored.Certified != plain.Certified {
			t.Errorf("%s: factored certified = %v (%s), plain %v (%s)", name, factored.Certified, factored.Why, plain.Certified, plain.Why)
		}
		if d := cmp.Diff(plain.Suspects, factored.Suspects); d != "" {
			t.Errorf("%s: suspects (-plain +factored):\n%s", name, d)
		}
		if d := cmp.Diff(plain.Breaks, factored.Breaks); d != "" {
			t.Errorf("%s: breaks (-plain +factored):\n%s", name, d)
		}
	})
	if compared < 100 {
		t.Errorf("only %d analyses compared: the recipes did not build", compared)
	}
	t.Logf("%d analyses compared", compared)
}

// TestFastMatchesGeneral: where a list of symbols serves several
// positions, one symbol stands for the others of its classes
// (sharedList), and most queries are decided on float64s, key by key
// (fastOutputs, with the exact scores of small integers summed without
// checks); the general code visits every symbol and compares every item
// by the backend's own comparisons. On every recipe, and on the lookup
// with one weight changed so that its order breaks at some lengths, the
// two must give the same result, field for field: the verdict, the
// suspects and breaks with their witnesses, the states held and the work
// charged. With half that work as the budget, they must stop alike.
func TestFastMatchesGeneral(t *testing.T) {
	compared, stopped := 0, 0
	compare := func(name string, in Input, n int) {
		fast, err := Length(in, n)
		if err != nil {
			t.Fatal(err)
		}
		in.general = true
		general, err := Length(in, n)
		if err != nil {
			t.Fatal(err)
		}
		compared++
		if d := cmp.Diff(general, fast, ignoreTyped); d != "" {
			t.Errorf("%s: (-general +fast):\n%s", name, d)
		}
		if n < 5 || fast.Work < 4 {
			return
		}
		in.MaxWork = fast.Work / 2
		general, err = Length(in, n)
		if err != nil {
			t.Fatal(err)
		}
		in.general = false
		fast, err = Length(in, n)
		if err != nil {
			t.Fatal(err)
		}
		if fast.OverBudget {
			stopped++
		}
		if d := cmp.Diff(general, fast, ignoreTyped); d != "" {
			t.Errorf("%s with a budget of %d: (-general +fast):\n%s", name, in.MaxWork, d)
		}
	}
	eachAnalysis(t, []int{2, 5}, compare)
	// The lookup with its key's j² weight 65/64 of the construction's:
	// the scores' order is lost past some length, at every precision.
	r, err := recipes.Get("lookup")
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []model.Weighting{model.AverageHardmax, model.LeftHardmax} {
		con, err := r.Construct(w, 40, nil)
		if err != nil {
			t.Fatal(err)
		}
		ref, err := r.Construct(w, 40, nil)
		if err != nil {
			t.Fatal(err)
		}
		k := con.Model.Layers[0].Attention.Heads[0].K
		changed := false
		for x, e := range k.Data {
			if v, ok, err := e.Rat(); err == nil && ok && v.Sign() < 0 {
				k.Data[x] = numeric.Lit(new(big.Rat).Mul(v, big.NewRat(65, 64)))
				changed = true
			}
		}
		if !changed {
			t.Fatal("the lookup's W^K has no negative weight to change")
		}
		for _, p := range []string{"fp64", "fp16", "24"} {
			for _, n := range []int{3, 9, 33} {
				in := Input{Reference: ref.Model, Model: con.Model, Precision: numeric.MustParsePrecision(p),
					Symbols: con.Symbols, Right: exactlyRight, MaxWork: 1 << 24}
				compare(fmt.Sprintf("lookup %s, W^K changed, at %s, n = %d", w, p, n), in, n)
			}
		}
	}
	if compared < 250 || stopped < 50 {
		t.Errorf("only %d analyses compared, %d stopped by the budget: the recipes did not build", compared, stopped)
	}
	t.Logf("%d analyses compared, %d stopped by the budget", compared, stopped)
}

// exactlyRight is the comparison of a position that claims exact
// outputs: the same symbol and the same values.
func exactlyRight(ref, got eval.PositionOutput) (bool, string) {
	if ref.Symbol != got.Symbol {
		return false, "symbol " + got.Symbol + ", want " + ref.Symbol
	}
	for k := range ref.Values {
		want, ok := ref.Values[k].Rat()
		if !ok || !got.Values[k].Equals(want) {
			return false, got.Values[k].Text + ", want " + ref.Values[k].Text
		}
	}
	return true, ""
}

// eachAnalysis calls f with the analysis input of every recipe that
// builds with its defaults for N = 16 and reads strings, at each of five
// precisions and each of lengths, and a name for it.
func eachAnalysis(t *testing.T, lengths []int, f func(name string, in Input, n int)) {
	t.Helper()
	precisions := []string{"fp8-e4m3", "bf16", "fp16", "fp32", "24"}
	for _, r := range recipes.All() {
		if r.Literal() {
			continue
		}
		con, err := r.Construct(r.DefaultWeighting(), 16, nil)
		if err != nil {
			continue // recipes that need parameters for a model
		}
		if probe, _ := con.Inputs(max(1, r.MinN), rand.New(rand.NewPCG(0, 1)), 1); len(probe) == 0 || probe[0].Stream != nil {
			continue // real-valued inputs: nothing to factor
		}
		var mapSymbol func(int) int
		if con.AdaptSymbols != nil {
			mapSymbol = func(s int) int { return con.AdaptSymbols([]int{s})[0] }
		}
		for _, p := range precisions {
			for _, n := range lengths {
				if n < r.MinN {
					continue
				}
				// A budget of 2^22: the recipes whose average-hard ties
				// hold several values (dyck1-n, induction-frequent) run
				// past n = 2 since the analysis follows such ties, and
				// at 2^24 these comparisons took 80 s of the default
				// tier; each path must still stop where the other does.
				in := Input{Reference: con.Model, Model: con.Model, Precision: numeric.MustParsePrecision(p),
					Symbols: con.Symbols, MapSymbol: mapSymbol, Right: exactlyRight, MaxWork: 1 << 22}
				f(fmt.Sprintf("%s at %s, n = %d", r.Name, p, n), in, n)
			}
		}
	}
}
