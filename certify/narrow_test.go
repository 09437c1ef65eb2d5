package certify

import (
	"fmt"
	"math/big"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/transformer-cookbook/verify/internal/testenv"
	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/model/eval"
	"github.com/transformer-cookbook/verify/numeric"
	"github.com/transformer-cookbook/verify/recipes"
)

// TestNarrowAnalysisIsBigFloat: at a bigfloat of at most 25 bits the
// analysis runs on the runner's float64 instance (eval.NarrowInstance)
// and gives the result it gives on big.Float, field for field (work,
// states, breaks, suspects, candidates' witnesses), on every recipe that
// reads strings at 24 bits (the long twin: 3, 11 and 24), and on the
// lookup with a changed key weight, whose order breaks; with the budget
// and with half of it.
func TestNarrowAnalysisIsBigFloat(t *testing.T) { narrowAnalysis(t, []uint{24}) }

func TestLongNarrowAnalysisIsBigFloat(t *testing.T) {
	testenv.Long(t)
	narrowAnalysis(t, []uint{3, 11, 24})
}

func narrowAnalysis(t *testing.T, widths []uint) {
	compared, fast := 0, 0
	compare := func(name string, in Input, n int) {
		runner, err := eval.New(in.Precision, in.Model)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for _, budget := range []int64{in.MaxWork, 0} {
			in.MaxWork = budget
			if budget == 0 {
				in.MaxWork = 1 << 24
				first, err := Length(in, n)
				if err != nil || first.Work < 4 {
					return
				}
				in.MaxWork = first.Work / 2
			}
			in.Runner = nil
			want, err := Length(in, n)
			if err != nil {
				t.Fatal(err)
			}
			in.Runner = runner
			got, err := Length(in, n)
			if err != nil {
				t.Fatal(err)
			}
			compared++
			if _, nb, ok := eval.NarrowInstance(runner); ok && nb.Exits() == 0 {
				fast++
			}
			if d := cmp.Diff(want, got, ignoreTyped); d != "" {
				t.Errorf("%s, budget %d: (-big.Float +float64):\n%s", name, in.MaxWork, d)
			}
		}
	}
	for _, bits := range widths {
		p := numeric.Precision{Kind: numeric.KindBigFloat, Bits: bits}
		for _, r := range recipes.All() {
			if r.Literal() {
				continue
			}
			con, err := r.Construct(r.DefaultWeighting(), 16, nil)
			if err != nil || con.AdaptSymbols != nil {
				continue
			}
			if probe, _ := con.Inputs(max(1, r.MinN), nil, 1<<20); len(probe) > 0 && probe[0].Stream != nil {
				continue
			}
			for _, n := range []int{2, 5} {
				if n < r.MinN {
					continue
				}
				in := Input{Reference: con.Model, Model: con.Model, Precision: p,
					Symbols: con.Symbols, Right: exactlyRight, MaxWork: 1 << 24}
				compare(fmt.Sprintf("%s at %d bits, n = %d", r.Name, bits, n), in, n)
			}
		}
	}
	r, err := recipes.Get("lookup")
	if err != nil {
		t.Fatal(err)
	}
	con, err := r.Construct(model.AverageHardmax, 40, nil)
	if err != nil {
		t.Fatal(err)
	}
	ref, err := r.Construct(model.AverageHardmax, 40, nil)
	if err != nil {
		t.Fatal(err)
	}
	k := con.Model.Layers[0].Attention.Heads[0].K
	for x, e := range k.Data {
		if v, ok, err := e.Rat(); err == nil && ok && v.Sign() < 0 {
			k.Data[x] = numeric.Lit(new(big.Rat).Mul(v, big.NewRat(65, 64)))
		}
	}
	for _, n := range []int{3, 9, 33} {
		in := Input{Reference: ref.Model, Model: con.Model, Precision: numeric.Precision{Kind: numeric.KindBigFloat, Bits: 24},
			Symbols: con.Symbols, Right: exactlyRight, MaxWork: 1 << 24}
		compare(fmt.Sprintf("lookup, W^K changed, at 24 bits, n = %d", n), in, n)
	}
	if compared < 50*len(widths) || fast < compared/2 {
		t.Errorf("%d analyses compared, %d of them in float64: the test hardly judges the float64 path", compared, fast)
	}
	t.Logf("%d analyses compared, %d in float64", compared, fast)
}
