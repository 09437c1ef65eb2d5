package check

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/numeric"
	"github.com/transformer-cookbook/verify/recipes"
)

// copyModel is a copy of m whose matrices can be changed without
// changing m's.
func copyModel(m *model.Model) *model.Model {
	c := *m
	c.Layers = append([]model.Layer(nil), m.Layers...)
	for k, l := range c.Layers {
		if l.FeedForward != nil {
			ff := *l.FeedForward
			ff.W1 = model.Matrix{Rows: ff.W1.Rows, Cols: ff.W1.Cols, Data: append([]numeric.Expr(nil), ff.W1.Data...)}
			c.Layers[k].FeedForward = &ff
		}
	}
	return &c
}

// TestAdopt checks a model from elsewhere against a recipe's reference:
// the recipe's own model passes, one with a perturbed weight fails with a
// concrete input, and a model with another alphabet is refused.
func TestAdopt(t *testing.T) {
	r, err := recipes.Get("dyck1-n")
	if err != nil {
		t.Fatal(err)
	}
	check := func(m *model.Model) (*Report, error) {
		return Run(r, Options{Precision: numeric.MustParsePrecision("exact"), Weighting: model.AverageHardmax,
			MaxN: 8, Cases: 4, Exhaustive: 1 << 10, Seed: 1, Model: m})
	}
	con, err := r.Construct(model.AverageHardmax, 8, nil)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := check(copyModel(con.Model))
	if err != nil || !rep.Passed {
		t.Fatalf("the recipe's own weights: %v, %+v", err, rep)
	}

	// Negating the first FFN's one nonzero weight (it reads the bracket's
	// sign into the violation count t) breaks the violation check.
	bad := copyModel(con.Model)
	var ff *model.FeedForward
	for _, l := range bad.Layers {
		if l.FeedForward != nil && ff == nil {
			ff = l.FeedForward
		}
	}
	for k, w := range ff.W1.Data {
		if v, ok, _ := w.Rat(); ok && v.Sign() != 0 {
			ff.W1.Data[k] = numeric.Mul(w, numeric.LitInt(-1))
			break
		}
	}
	rep, err = check(bad)
	if err != nil || rep.Passed || rep.FirstFailure == nil || rep.FirstFailure.Input == "" {
		t.Errorf("a perturbed weight must fail with an input: %v, %+v", err, rep)
	}

	// The same symbols in another order (and embeddings with them) pass;
	// a missing symbol is refused.
	swapped := copyModel(con.Model)
	swapped.Alphabet = []string{swapped.Alphabet[1], swapped.Alphabet[0]}
	swapped.WordEmbedding = []model.Vector{swapped.WordEmbedding[1], swapped.WordEmbedding[0]}
	if rep, err := check(swapped); err != nil || !rep.Passed {
		t.Errorf("the alphabet in another order: %v, %+v", err, rep)
	}
	other := copyModel(con.Model)
	other.Alphabet = []string{"(", "]"}
	if _, err := check(other); err == nil || !strings.Contains(err.Error(), `symbol ")"`) {
		t.Errorf("another alphabet: %v", err)
	}
}

// TestAdoptVectorInputs: vector inputs move to components of the same
// name, and an input component the model does not name is a failure that
// says so.
func TestAdoptVectorInputs(t *testing.T) {
	r, err := recipes.Get("min")
	if err != nil {
		t.Fatal(err)
	}
	con, err := r.Construct(model.Softmax, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	m := copyModel(con.Model)
	m.Components = append([]string(nil), m.Components...)
	if err := Adopt(con, m); err != nil {
		t.Fatal(err)
	}
	cases, _ := con.Inputs(1, rand.New(rand.NewPCG(1, 2)), 4)
	h, err := con.Adapt(cases[0].Stream)
	if err != nil || len(h[0]) != m.D {
		t.Fatalf("adapt: %v", err)
	}
	renamed := copyModel(m)
	renamed.Components = append([]string{"renamed"}, m.Components[1:]...)
	con, _ = r.Construct(model.Softmax, 1, nil)
	if err := Adopt(con, renamed); err == nil || !strings.Contains(err.Error(), "does not name") {
		t.Errorf("a missing input component: %v", err)
	}
}

// TestAdoptWiderModel: a model built for a larger N than the check's
// (the one-hot lookup's width grows with N: 19 components at N = 8, 11
// at N = 4) is checked on sampled inputs, and the analysis, which follows
// the model and the reference component by component, says why it
// cannot certify instead of indexing past the reference's width.
func TestAdoptWiderModel(t *testing.T) {
	r, err := recipes.Get("lookup-onehot")
	if err != nil {
		t.Fatal(err)
	}
	con, err := r.Construct(model.AverageHardmax, 8, nil)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Run(r, Options{Precision: numeric.MustParsePrecision("exact"), Weighting: model.AverageHardmax,
		MaxN: 4, Lengths: []int{4}, Cases: 4, Exhaustive: 1, Seed: 1, Analysis: true, Model: con.Model})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Lengths) != 1 {
		t.Fatalf("%d length reports, want 1", len(rep.Lengths))
	}
	lr := rep.Lengths[0]
	if !rep.Passed || lr.Level != Sampled || !strings.Contains(lr.Analysis, "residual stream has 19 components and the reference's 11") {
		t.Errorf("passed %v, level %q, analysis %q; want a sampled pass and the widths named", rep.Passed, lr.Level, lr.Analysis)
	}
}
