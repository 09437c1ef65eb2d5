package eval

import (
	"errors"
	"fmt"
	"math/big"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/transformer-cookbook/verify/internal/testenv"
	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/numeric"
)

// sameOutput fails unless got is what Run gave: the same symbol, and each
// value the same rationals (through big.Rat) and the same printing (which
// tells −0 from +0, and NaN from ±Inf).
func sameOutput(got, want PositionOutput) error {
	if got.Symbol != want.Symbol || len(got.Values) != len(want.Values) {
		return fmt.Errorf("%q %v, want %q %v", got.Symbol, got.Values, want.Symbol, want.Values)
	}
	for k := range want.Values {
		g, w := got.Values[k], want.Values[k]
		same := func(x, y *big.Rat) bool { return x == nil && y == nil || x != nil && y != nil && x.Cmp(y) == 0 }
		if !same(g.Lo, w.Lo) || !same(g.Hi, w.Hi) || g.Text != w.Text {
			return fmt.Errorf("value %d = %s, want %s", k+1, g.Text, w.Text)
		}
	}
	return nil
}

// prefixAgrees extends every string over m's alphabet up to length maxLen
// depth first (siblings share their parent's storage) and compares the
// output at each new position with Run's on the whole string at that
// position; an error must come with an error of Run.
func prefixAgrees(t *testing.T, prec string, m *model.Model, maxLen int) {
	t.Helper()
	r, err := New(numeric.MustParsePrecision(prec), m)
	if err != nil {
		t.Fatalf("%s: %v", prec, err)
	}
	pr, err := NewPrefixRunner(r, maxLen)
	if err != nil {
		t.Fatalf("%s: %v", prec, err)
	}
	var path []int
	var outs []PositionOutput
	checked, failed := 0, 0
	var walk func(p Prefix)
	walk = func(p Prefix) {
		if len(path) == maxLen || failed > 3 {
			return
		}
		for s := range m.Alphabet {
			path = append(path, s)
			q, err := pr.Extend(p, s)
			res, runErr := r.Run(path, false)
			switch {
			case err != nil && runErr == nil:
				t.Errorf("%s %v: Extend: %v, but Run succeeds", prec, path, err)
				failed++
			case err == nil && runErr != nil:
				t.Errorf("%s %v: Run: %v, but Extend succeeds", prec, path, runErr)
				failed++
			case err == nil:
				outs = append(outs, q.Output())
				for i, o := range outs {
					if e := sameOutput(o, res.Outputs[i]); e != nil {
						t.Errorf("%s %v position %d: %v", prec, path, i+1, e)
						failed++
					}
				}
				checked++
				walk(q)
				outs = outs[:len(outs)-1]
			}
			path = path[:len(path)-1]
		}
	}
	walk(nil)
	if checked == 0 {
		t.Errorf("%s: every string failed to run", prec)
	}
}

// causal returns m with every attention sublayer masked by mask.
func causal(m *model.Model, mask model.Mask) *model.Model {
	c := *m
	c.Layers = append([]model.Layer(nil), m.Layers...)
	for l := range c.Layers {
		if a := c.Layers[l].Attention; a != nil {
			a2 := *a
			a2.Mask = mask
			c.Layers[l].Attention = &a2
		}
	}
	return &c
}

// randomCausalModel draws a model of two layers with two heads each and
// weights in {−1, −1/2, 0, 1/2, 1} (exact down to fp16), under the given
// weighting and causal masks, with a length-free position encoding, and
// norms placed by norm (a layer norm only when eps makes its square root
// rational in exact arithmetic is not asked for: errors are compared too).
func randomCausalModel(rng *rand.Rand, w model.Weighting, norm model.NormPlacement) *model.Model {
	const d = 4
	pick := func() numeric.Expr { return numeric.Frac(int64(rng.IntN(5)-2), 2) }
	matrix := func(r, c int) model.Matrix {
		m := model.Zeros(r, c)
		for i := 0; i < r; i++ {
			for j := 0; j < c; j++ {
				m.Set(i, j, pick())
			}
		}
		return m
	}
	vector := func(n int) model.Vector {
		v := make(model.Vector, n)
		for i := range v {
			v[i] = pick()
		}
		return v
	}
	m := &model.Model{
		Name:     "random causal",
		Alphabet: []string{"a", "b", "c"},
		Position: &model.PositionEncoding{Name: "(1/i, (-1)^i, 0, 0)", Vector: func(i, n int) model.Vector {
			return model.Vector{numeric.Frac(1, int64(i)), numeric.LitInt(int64(1 - 2*(i%2))), numeric.LitInt(0), numeric.LitInt(0)}
		}},
		D:      d,
		Norm:   norm,
		Output: model.Output{Kind: model.Argmax, W: matrix(3, d), Labels: []string{"x", "y", "z"}},
	}
	for range m.Alphabet {
		m.WordEmbedding = append(m.WordEmbedding, vector(d))
	}
	masks := []model.Mask{model.Future, model.StrictFuture}
	for l := 0; l < 2; l++ {
		layer := model.Layer{
			Attention: &model.Attention{Mask: masks[rng.IntN(2)], Weighting: w, Scale: model.NoScale,
				Heads: []model.Head{{Q: matrix(1, d), K: matrix(1, d), V: matrix(d, d)}, {Q: matrix(2, d), K: matrix(2, d), V: matrix(d, d)}}},
			FeedForward: &model.FeedForward{W1: matrix(3, d), B1: vector(3), W2: matrix(d, 3), B2: vector(d)},
		}
		if norm != model.NoNorm {
			layer.AttentionNorm = &model.LayerNorm{Eps: numeric.LitInt(1)}
		}
		m.Layers = append(m.Layers, layer)
	}
	return m
}

func TestPrefixRunnerMatchesRun(t *testing.T) {
	precisions := []string{"exact", "fp64", "fp16", "53", "interval:53"}
	maxLen, trials := 6, 4
	if testenv.Race {
		maxLen, trials = 4, 1
	}
	t.Run("every backend", func(t *testing.T) {
		for _, mask := range []model.Mask{model.Future, model.StrictFuture} {
			m := causal(everyBackendModel(), mask)
			for _, p := range precisions {
				prefixAgrees(t, p, m, maxLen)
			}
		}
	})
	t.Run("scores", func(t *testing.T) {
		for _, mask := range []model.Mask{model.Future, model.StrictFuture} {
			for _, w := range []model.Weighting{model.Softmax, model.LeftHardmax, model.RightHardmax, model.AverageHardmax} {
				for _, p := range precisions {
					if w == model.Softmax && p == "exact" {
						continue // unequal scores: exp is irrational
					}
					prefixAgrees(t, p, scoreModel(mask, w), maxLen-1)
				}
			}
		}
	})
	t.Run("random", func(t *testing.T) {
		rng := rand.New(rand.NewPCG(9, 22))
		for trial := 0; trial < trials; trial++ {
			for _, w := range []model.Weighting{model.Softmax, model.LeftHardmax, model.RightHardmax, model.AverageHardmax} {
				for _, norm := range []model.NormPlacement{model.NoNorm, model.PreNorm, model.PostNorm} {
					m := randomCausalModel(rng, w, norm)
					for _, p := range []string{"fp64", "fp16", "53"} {
						prefixAgrees(t, p, m, 4)
					}
					if w != model.Softmax && norm == model.NoNorm {
						prefixAgrees(t, "exact", m, 4)
					}
				}
			}
		}
	})
}

// TestPrefixClone extends a clone along another branch and checks that
// the original still gives Run's outputs on its own branch.
func TestPrefixClone(t *testing.T) {
	m := causal(everyBackendModel(), model.Future)
	r, err := New(numeric.MustParsePrecision("exact"), m)
	if err != nil {
		t.Fatal(err)
	}
	pr, err := NewPrefixRunner(r, 4)
	if err != nil {
		t.Fatal(err)
	}
	var p Prefix
	for _, s := range []int{0, 1} {
		if p, err = pr.Extend(p, s); err != nil {
			t.Fatal(err)
		}
	}
	c := p.Clone()
	other := pr.Fork()
	for _, s := range []int{1, 1} { // "abbb" on the clone
		if c, err = other.Extend(c, s); err != nil {
			t.Fatal(err)
		}
	}
	for _, s := range []int{0, 0} { // "abaa" on the original
		if p, err = pr.Extend(p, s); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		p     Prefix
		input []int
	}{{p, []int{0, 1, 0, 0}}, {c, []int{0, 1, 1, 1}}} {
		res, err := r.Run(tc.input, false)
		if err != nil {
			t.Fatal(err)
		}
		if e := sameOutput(tc.p.Output(), res.Outputs[3]); e != nil {
			t.Errorf("%v: %v", tc.input, e)
		}
	}
	if _, err := pr.Extend(p, 0); err == nil {
		t.Error("extending beyond the maximum length: no error")
	}
}

func TestPrefixRunnerRefuses(t *testing.T) {
	lengthDependent := causal(everyBackendModel(), model.Future)
	lengthDependent.Position = &model.PositionEncoding{Name: "i/n", Vector: func(i, n int) model.Vector {
		return model.Vector{numeric.LitInt(0), numeric.LitInt(0), numeric.Frac(int64(i), int64(n)), numeric.LitInt(0)}
	}}
	// pe_n(i) = 1 for n ≤ 5 only: a difference that shows at n = 6.
	late := causal(everyBackendModel(), model.Future)
	late.Position = &model.PositionEncoding{Name: "[n ≤ 5]", Vector: func(i, n int) model.Vector {
		v := model.IntVector(0, 0, 1, 0)
		if n > 5 {
			v = model.IntVector(0, 0, 0, 0)
		}
		return v
	}}
	for _, tc := range []struct {
		name   string
		m      *model.Model
		maxLen int
		want   string
	}{
		{"no mask", everyBackendModel(), 4, "layer 1 attention is masked none"},
		{"past", causal(everyBackendModel(), model.Past), 4, "masked past"},
		{"strict past", causal(everyBackendModel(), model.StrictPast), 4, "masked strict-past"},
		{"i/n", lengthDependent, 4, "depends on the length: pe_2(1)[3] = 1/2 but pe_1(1)[3] = 1"},
		{"late", late, 6, "pe_6(1)[3] = 0 but pe_1(1)[3] = 1"},
	} {
		for _, p := range []string{"exact", "fp64"} {
			r, err := New(numeric.MustParsePrecision(p), tc.m)
			if err != nil {
				t.Fatal(err)
			}
			_, err = NewPrefixRunner(r, tc.maxLen)
			if !errors.Is(err, model.ErrNotPrefixStable) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("%s at %s: %v, want ErrNotPrefixStable saying %q", tc.name, p, err, tc.want)
			}
		}
	}
	// The same encoding up to length 5 is length-free there.
	r, err := New(numeric.MustParsePrecision("exact"), late)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := NewPrefixRunner(r, 5); err != nil {
		t.Errorf("[n ≤ 5] up to 5: %v", err)
	}
}

// samePrefixOutput compares p's output with Run's on input at its last
// position, and its PointOutput, when it has one, with its Output.
func samePrefixOutput(t *testing.T, r Runner, p Prefix, input []int) {
	t.Helper()
	res, err := r.Run(input, false)
	if err != nil {
		t.Fatalf("%v: Run: %v", input, err)
	}
	if p.Len() != len(input) {
		t.Fatalf("%v: a prefix of length %d", input, p.Len())
	}
	got := p.Output()
	if e := sameOutput(got, res.Outputs[len(input)-1]); e != nil {
		t.Errorf("%v: %v", input, e)
	}
	if symbol, values, ok := p.PointOutput(); ok {
		if symbol != got.Symbol || len(values) != len(got.Values) {
			t.Fatalf("%v: PointOutput %q %v, Output %q %v", input, symbol, values, got.Symbol, got.Values)
		}
		for k, v := range values {
			if v == nil || got.Values[k].Lo == nil || v.Cmp(got.Values[k].Lo) != 0 || v.Cmp(got.Values[k].Hi) != 0 {
				t.Errorf("%v: PointOutput value %d = %v, Output %s", input, k+1, v, got.Values[k].Text)
			}
		}
	}
}

// TestPrefixSiblings extends the same prefix again and again, as the
// depth-first search does (each extension reuses the storage of the
// previous one), and checks each new child and its children against Run;
// then that a clone keeps its outputs and its caches when the storage of
// its path is written by the extensions of its ancestors.
func TestPrefixSiblings(t *testing.T) {
	rng := rand.New(rand.NewPCG(22, 9))
	type namedModel struct {
		name string
		m    *model.Model
		prec []string
	}
	models := []namedModel{
		{"every backend future", causal(everyBackendModel(), model.Future), []string{"exact", "fp64", "fp16", "53", "interval:53"}},
		{"every backend strict", causal(everyBackendModel(), model.StrictFuture), []string{"exact", "fp64", "53"}},
		{"scores AHAT", scoreModel(model.Future, model.AverageHardmax), []string{"exact", "fp32"}},
		{"scores right hardmax strict", scoreModel(model.StrictFuture, model.RightHardmax), []string{"exact", "fp32"}},
	}
	for _, w := range []model.Weighting{model.LeftHardmax, model.AverageHardmax, model.Softmax} {
		prec := []string{"fp64", "53"}
		if w != model.Softmax {
			prec = append(prec, "exact")
		}
		models = append(models, namedModel{"random " + w.String(), randomCausalModel(rng, w, model.NoNorm), prec})
	}
	for _, tc := range models {
		for _, prec := range tc.prec {
			r, err := New(numeric.MustParsePrecision(prec), tc.m)
			if err != nil {
				t.Fatal(err)
			}
			pr, err := NewPrefixRunner(r, 5)
			if err != nil {
				t.Fatal(err)
			}
			t.Run(tc.name+" "+prec, func(t *testing.T) {
				k := len(tc.m.Alphabet)
				extend := func(pr PrefixRunner, p Prefix, s int) Prefix {
					t.Helper()
					q, err := pr.Extend(p, s)
					if err != nil {
						t.Fatalf("Extend by %d: %v", s, err)
					}
					return q
				}
				p1 := extend(pr, nil, 0)
				p2 := extend(pr, p1, 1%k)
				// Siblings below p2, in an order that returns to the first,
				// each followed by its own children.
				var last Prefix
				var lastSym int
				for _, s := range []int{0, k - 1, 0, 1 % k, k - 1} {
					q := extend(pr, p2, s)
					samePrefixOutput(t, r, q, []int{0, 1 % k, s})
					for u := k - 1; u >= 0; u-- {
						g := extend(pr, q, u)
						samePrefixOutput(t, r, g, []int{0, 1 % k, s, u})
					}
					// q is still valid after its children.
					samePrefixOutput(t, r, q, []int{0, 1 % k, s})
					last, lastSym = q, s
				}
				path := []int{0, 1 % k, lastSym}
				c := last.Clone()
				// Write the storage of positions 2 and 3 of the path: p2's
				// (p1's child) and last's (p2's child).
				p2 = extend(pr, p1, 0)
				samePrefixOutput(t, r, extend(pr, p2, k-1), []int{0, 0, k - 1})
				samePrefixOutput(t, r, c, path)
				other := pr.Fork()
				for u := 0; u < k; u++ {
					for _, run := range []PrefixRunner{pr, other} {
						samePrefixOutput(t, r, extend(run, c, u), append(slices.Clone(path), u))
					}
				}
				// A clone of a clone, extended twice over, and the clone
				// again.
				cc := c.Clone()
				g := extend(pr, cc, 0)
				samePrefixOutput(t, r, extend(pr, g, k-1), append(slices.Clone(path), 0, k-1))
				samePrefixOutput(t, r, extend(pr, g, 0), append(slices.Clone(path), 0, 0))
				samePrefixOutput(t, r, c, path)
			})
		}
	}
}
