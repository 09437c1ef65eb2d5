package fuzz

import (
	"errors"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"

	"github.com/transformer-cookbook/verify/check"
	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/model/eval"
	"github.com/transformer-cookbook/verify/numeric"
	"github.com/transformer-cookbook/verify/recipes"
)

// maxRecipeN caps the fuzzed lengths: long enough for ties, masks and
// nesting to matter, short enough that one input runs in milliseconds.
const maxRecipeN = 12

// exactRecipes are the recipes FuzzRecipeExact draws from, in name order:
// those checked in exact arithmetic by default (Precision ""), without
// the literal versions of the paper's printed formulas, which are known
// to be wrong on some inputs and are pinned by their own tests.
var exactRecipes = sync.OnceValue(func() []*recipes.Recipe {
	var rs []*recipes.Recipe
	for _, r := range recipes.All() {
		if r.Precision == "" && !strings.HasSuffix(r.Name, "-literal") {
			rs = append(rs, r)
		}
	}
	return rs
})

// pickRecipe is the exact recipe of that name, or, for any other string
// the fuzzer makes, one chosen by the string's hash. Corpus files name
// their recipe, so they keep checking it when recipes are added.
func pickRecipe(name string) *recipes.Recipe {
	rs := exactRecipes()
	for _, r := range rs {
		if r.Name == name {
			return r
		}
	}
	h := fnv.New32a()
	h.Write([]byte(name))
	return rs[h.Sum32()%uint32(len(rs))]
}

// builtRecipe is a recipe built for one weighting and N, instantiated in
// exact arithmetic; err is set when that is impossible (the weights are
// irrational, as softmax's 1/τ = log(8N)/γ is).
type builtRecipe struct {
	con    *recipes.Construction
	runner eval.Runner
	err    error
}

type recipeKey struct {
	name string
	w    model.Weighting
	n    int
}

// builtRecipes caches constructions across inputs: building one (a
// sampled family of almost orthogonal vectors, a truth table's FFN) can
// cost more than running it, and the fuzzer meets the same few hundred
// (recipe, weighting, n) again and again. Instances are safe for
// concurrent use.
var builtRecipes sync.Map // recipeKey → func() *builtRecipe

func buildRecipe(r *recipes.Recipe, w model.Weighting, n int) *builtRecipe {
	key := recipeKey{r.Name, w, n}
	f, _ := builtRecipes.LoadOrStore(key, sync.OnceValue(func() *builtRecipe {
		con, err := r.Construct(w, n, nil)
		if err != nil {
			return &builtRecipe{err: fmt.Errorf("build: %w", err)}
		}
		runner, err := eval.New(numeric.MustParsePrecision("exact"), con.Model)
		if err != nil {
			return &builtRecipe{err: fmt.Errorf("instantiate: %w", err)}
		}
		return &builtRecipe{con: con, runner: runner}
	}))
	return f.(func() *builtRecipe)()
}

// FuzzRecipeExact runs the recipes in exact arithmetic on inputs the
// fuzzer chooses and requires the outputs the paper claims: every output
// equal to the construction's exact reference (check.Compare with no
// bounds), or within the construction's Bounds for the recipes the cheat
// sheet does not call exact. The input picks a recipe (among
// exactRecipes, by name: pickRecipe), one of the weightings the paper gives it, a length n in
// [max(1, MinN), min(DefaultMaxN, 12)] (the model is built with N = n),
// and a seed for the recipe's own input generator, which draws one input
// of length n from the recipe's domain. A mismatch is a bug in the
// construction or the engine; the failure names the recipe, weighting, n,
// seed and input, which `verify run --recipe NAME --weighting W --max-n N
// --input TEXT` reproduces.
//
// Weightings under which exact arithmetic cannot hold the model (eval.New
// fails with numeric.ErrIrrational: softmax with an irrational 1/τ) are
// skipped: the sweeps check those at 53 bits.
func FuzzRecipeExact(f *testing.F) {
	for k, r := range exactRecipes() {
		for w := range 3 {
			f.Add(r.Name, uint8(w), uint8(0), uint64(1))
			f.Add(r.Name, uint8(w), uint8(255), uint64(k*3+w))
		}
	}
	f.Fuzz(func(t *testing.T, recipe string, weighting, nByte uint8, seed uint64) {
		r := pickRecipe(recipe)
		ws := r.Weightings
		if len(ws) == 0 {
			ws = []model.Weighting{model.Softmax} // no attention: any weighting
		}
		w := ws[int(weighting)%len(ws)]
		lo, hi := max(1, r.MinN), min(r.DefaultMaxN, maxRecipeN)
		if hi < lo {
			t.Skipf("%s: no length in [%d, %d]", r.Name, lo, hi)
		}
		n := lo + int(nByte)%(hi-lo+1)
		which := fmt.Sprintf("%s under %s, N = n = %d, seed %d", r.Name, recipes.WeightingAcronym(w), n, seed)
		b := buildRecipe(r, w, n)
		if b.err != nil {
			if errors.Is(b.err, numeric.ErrIrrational) {
				t.Skipf("%s: exact arithmetic cannot hold the model: %v", which, b.err)
			}
			t.Fatalf("%s: %v", which, b.err)
		}
		con, m := b.con, b.con.Model
		cases, _ := con.Inputs(n, rand.New(rand.NewPCG(seed, 0)), 1)
		if len(cases) == 0 {
			t.Fatalf("%s: the recipe's generator gave no input of length %d", which, n)
		}
		c := cases[0]
		text := check.CaseText(m, c)
		if c.Len() != n {
			t.Fatalf("%s: the generator gave an input of length %d: %s", which, c.Len(), text)
		}
		if con.Valid != nil {
			if err := con.Valid(c); err != nil {
				t.Fatalf("%s: the generator left the recipe's domain: input %q: %v", which, text, err)
			}
		}
		var out *eval.Result
		var err error
		if c.Stream != nil {
			out, err = b.runner.RunStream(c.Stream, false)
		} else {
			out, err = b.runner.Run(c.Symbols, false)
		}
		if err != nil {
			t.Fatalf("%s: input %q: run: %v", which, text, err)
		}
		want := con.Expected(c)
		if len(want) != len(out.Outputs) {
			t.Fatalf("%s: input %q: %d outputs, %d expected", which, text, len(out.Outputs), len(want))
		}
		var bounds []recipes.Bound // nil: every output exactly
		if !r.Exact {
			bounds = con.Bounds
		}
		for i, wi := range want {
			got := out.Outputs[i]
			if ok, why := check.Compare(wi, got, bounds, m.Output.Labels); !ok {
				t.Fatalf("%s: input %q, position %d: %s\n  expected %v\n  actual   %s", which, text, i+1, why, wantString(wi), gotString(got))
			}
		}
	})
}

func wantString(w recipes.Want) string {
	parts := check.ValueTexts(w)
	if w.Symbol != "" {
		parts = append([]string{w.Symbol}, parts...)
	}
	return strings.Join(parts, ", ")
}

func gotString(g eval.PositionOutput) string {
	var parts []string
	if g.Symbol != "" {
		parts = append(parts, g.Symbol)
	}
	for _, v := range g.Values {
		parts = append(parts, v.Text)
	}
	return strings.Join(parts, ", ")
}
