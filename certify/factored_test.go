package certify

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/transformer-cookbook/verify/internal/testenv"
	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/numeric"
	"github.com/transformer-cookbook/verify/recipes"
)

// TestFactoredFirstPass: the first pass over the embeddings computes each
// query, key and value once per class of symbols and positions, where
// held states are projected one by one. Both must reach the same
// verdict, the same suspects and the same breaks on every recipe: the
// factoring is only sound if the classes are. It compares at lengths 2
// and 5; TestLongFactoredFirstPass, at 1, 2, 3, 5, 8 and 13.
func TestFactoredFirstPass(t *testing.T) {
	factoredFirstPass(t, []int{2, 5})
}

// TestLongFactoredFirstPass is TestFactoredFirstPass at lengths 1, 2, 3,
// 5, 8 and 13.
func TestLongFactoredFirstPass(t *testing.T) {
	testenv.Long(t)
	factoredFirstPass(t, []int{1, 2, 3, 5, 8, 13})
}

// factoredFirstPass compares the factored and the plain first pass on
// every recipe at each of five precisions and each of lengths.
func factoredFirstPass(t *testing.T, lengths []int) {
	exactly := func(ref, got model.PositionOutput) (bool, string) {
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
	precisions := []string{"fp8-e4m3", "bf16", "fp16", "fp32", "24"}
	compared := 0
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
				in := Input{Reference: con.Model, Model: con.Model, Precision: numeric.MustParsePrecision(p),
					Symbols: con.Symbols, MapSymbol: mapSymbol, Right: exactly, MaxWork: 1 << 24}
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
					continue
				}
				compared++
				name := fmt.Sprintf("%s at %s, n = %d", r.Name, p, n)
				if factored.Certified != plain.Certified {
					t.Errorf("%s: factored certified = %v (%s), plain %v (%s)", name, factored.Certified, factored.Why, plain.Certified, plain.Why)
				}
				if d := cmp.Diff(plain.Suspects, factored.Suspects); d != "" {
					t.Errorf("%s: suspects (-plain +factored):\n%s", name, d)
				}
				if d := cmp.Diff(plain.Breaks, factored.Breaks); d != "" {
					t.Errorf("%s: breaks (-plain +factored):\n%s", name, d)
				}
			}
		}
	}
	if compared < 100 {
		t.Errorf("only %d analyses compared: the recipes did not build", compared)
	}
	t.Logf("%d analyses compared", compared)
}
