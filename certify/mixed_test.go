package certify

import (
	"fmt"
	"math/big"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/model/eval"
	"github.com/transformer-cookbook/verify/numeric"
	"github.com/transformer-cookbook/verify/recipes"
)

// withEmbedding is a copy of m whose word embedding of symbol sym has
// component comp changed by delta (the rest shared: nothing else is
// written).
func withEmbedding(t *testing.T, m *model.Model, sym string, comp string, delta int64) *model.Model {
	t.Helper()
	out := *m
	out.WordEmbedding = append([]model.Vector(nil), m.WordEmbedding...)
	s, c := -1, -1
	for k, a := range m.Alphabet {
		if a == sym {
			s = k
		}
	}
	for k, name := range m.Components {
		if name == comp {
			c = k
		}
	}
	if s < 0 || c < 0 {
		t.Fatalf("no symbol %q or component %q in %s", sym, comp, m.Name)
	}
	row := append(model.Vector(nil), m.WordEmbedding[s]...)
	x, ok, err := row[c].Rat()
	if err != nil || !ok {
		t.Fatalf("%s's embedding of %q, %s: not rational", m.Name, sym, comp)
	}
	row[c] = numeric.Lit(new(big.Rat).Add(x, big.NewRat(delta, 1)))
	out.WordEmbedding[s] = row
	return &out
}

// construct builds recipe name with its default parameters for N = maxN.
func construct(t testing.TB, name string, w model.Weighting, maxN int) *recipes.Construction {
	t.Helper()
	r, err := recipes.Get(name)
	if err != nil {
		t.Fatal(err)
	}
	con, err := r.Construct(w, maxN, nil)
	if err != nil {
		t.Fatal(err)
	}
	return con
}

// everyInputRight runs every input of length n that con's symbols allow
// through model m at precision p and through con's exact construction
// (model.Run, whole inputs: none of the analysis's pieces), and returns
// the first input where m is not exactly right, or nil; count is the
// number of inputs run.
func everyInputRight(t *testing.T, con *recipes.Construction, m *model.Model, p string, n int) (bad []int, count int) {
	t.Helper()
	runner, err := eval.New(numeric.MustParsePrecision(p), m)
	if err != nil {
		t.Fatal(err)
	}
	ref, err := eval.New(numeric.MustParsePrecision("exact"), con.Model)
	if err != nil {
		t.Fatal(err)
	}
	lists := make([][]int, n)
	for i := range lists {
		if con.Symbols != nil {
			lists[i] = con.Symbols(i+1, n)
		} else {
			for s := range con.Model.Alphabet {
				lists[i] = append(lists[i], s)
			}
		}
	}
	in := make([]int, n)
	var walk func(i int) []int
	walk = func(i int) []int {
		if i == n {
			count++
			want, err := ref.Run(in, false)
			if err != nil {
				t.Fatal(err)
			}
			got, err := runner.Run(in, false)
			if err != nil {
				t.Fatal(err)
			}
			for k := range want.Outputs {
				if ok, _ := exactlyRight(want.Outputs[k], got.Outputs[k]); !ok {
					return append([]int(nil), in...)
				}
			}
			return nil
		}
		for _, s := range lists[i] {
			in[i] = s
			if bad := walk(i + 1); bad != nil {
				return bad
			}
		}
		return nil
	}
	return walk(0), count
}

// TestMixedEmbeddingReproducer: the lookup for N = 4 with symbol 1:0's
// word embedding given 1 in component j, which the construction computes
// from the position alone. At position 2 of "1:0 2:1" the query q = 2
// scores key 1 (now j = 2, j² = 1) at 2·2·2 − 1 = 7 and key 2 at 4, so
// the model retrieves v_1 = 0 where v_2 = 1 is right, in exact
// arithmetic and every format. A position then holds two keys, and
// the fast comparison of each candidate against the other positions'
// keys (head.kept) combined its two sign tests with Go's precedence,
// ((a ^ b) | c) ^ d, which misses an order that is lost upward: it
// certified the length.
func TestMixedEmbeddingReproducer(t *testing.T) {
	con := construct(t, "lookup", model.AverageHardmax, 4)
	m := withEmbedding(t, con.Model, "1:0", "j", 1)
	for _, p := range []string{"exact", "fp32", "fp16"} {
		bad, _ := everyInputRight(t, con, m, p, 2)
		if bad == nil {
			t.Fatalf("%s: every input of length 2 is right: the perturbation is not the reproducer", p)
		}
		res, err := Length(Input{Reference: con.Model, Model: m, Precision: numeric.MustParsePrecision(p),
			Symbols: con.Symbols, Right: exactlyRight}, 2)
		if err != nil {
			t.Fatal(err)
		}
		if res.Certified {
			t.Errorf("%s, n = 2: certified, but input %v is wrong", p, bad)
		}
	}
}

// TestMixedEmbeddingsSound is the reproducer's class: every change by
// ±1 of one word-embedding entry of the lookup for N = 4 in the
// components the construction computes from the position (j, j², 1),
// for each symbol, at exact arithmetic, fp32 and fp16 and every length
// up to 4. Each length the analysis certifies must have every input
// right when all of them are run, and the fast path must reach the
// general code's result field for field. The test counts certified
// lengths and wrong ones, so it cannot pass by certifying nothing or
// by perturbing nothing that matters.
func TestMixedEmbeddingsSound(t *testing.T) {
	con := construct(t, "lookup", model.AverageHardmax, 4)
	var certified, wrong, inputs int
	for _, comp := range []string{"j", "j²", "1"} {
		for _, sym := range con.Model.Alphabet {
			for _, delta := range []int64{1, -1} {
				m := withEmbedding(t, con.Model, sym, comp, delta)
				for _, p := range []string{"exact", "fp32", "fp16"} {
					for n := 1; n <= 4; n++ {
						name := fmt.Sprintf("%s %+d in %s at %s, n = %d", comp, delta, sym, p, n)
						in := Input{Reference: con.Model, Model: m, Precision: numeric.MustParsePrecision(p),
							Symbols: con.Symbols, Right: exactlyRight}
						res, err := Length(in, n)
						if err != nil {
							t.Fatal(err)
						}
						if res.Refused {
							t.Errorf("%s: the independent checker refused the analysis's proof: %s", name, res.Why)
						}
						in.general = true
						general, err := Length(in, n)
						if err != nil {
							t.Fatal(err)
						}
						if d := cmp.Diff(general, res, ignoreTyped); d != "" {
							t.Errorf("%s: (-general +fast):\n%s", name, d)
						}
						bad, count := everyInputRight(t, con, m, p, n)
						inputs += count
						if bad != nil {
							wrong++
						}
						if res.Certified {
							certified++
							if bad != nil {
								t.Errorf("%s: certified, but input %v is wrong", name, bad)
							}
						}
					}
				}
			}
		}
	}
	t.Logf("%d lengths certified, %d with a wrong input, %d inputs run", certified, wrong, inputs)
	if certified < 50 || wrong < 50 {
		t.Errorf("the test saw too little: %d certified, %d wrong", certified, wrong)
	}
}

// ignoreTyped leaves out of a comparison of results the certificate kept
// for the benchmarks.
var ignoreTyped = cmpopts.IgnoreUnexported(Result{})
