package blocks_test

import (
	"fmt"
	"math/big"
	"slices"
	"strings"
	"testing"

	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/model/eval"
	"github.com/transformer-cookbook/verify/numeric"
	"github.com/transformer-cookbook/verify/recipes/stream"
)

// The helpers shared by ffn_test.go, attention_test.go and dyck_test.go:
// one evaluator (evalBlock, which runs a block through the engine, as the
// recipes do) and one weight comparison (matEq, vecEq). Every check
// returns an error instead of failing the test, so that the negative
// controls can assert that a perturbed block fails the same check.

// q parses an exact rational written like "-3/7".
func q(s string) *big.Rat {
	r, ok := new(big.Rat).SetString(s)
	if !ok {
		panic("bad rational " + s)
	}
	return r
}

// vals parses "x=1/2 y=-3" into component values.
func vals(s string) map[string]*big.Rat {
	out := map[string]*big.Rat{}
	for _, f := range strings.Fields(s) {
		k, v, ok := strings.Cut(f, "=")
		if !ok {
			panic("bad assignment " + f)
		}
		out[k] = q(v)
	}
	return out
}

// evalBlock runs the single block b on a sequence of positions through
// the engine, at precision prec: stream.New(reads…).Then(b).Readout(outs…),
// then eval.New and RunStream, the route every recipe takes. The input
// components are b's In (for an accumulating block, its Out are among
// them, and read back as x + b(x): the residual connection). It returns
// the enclosure [Lo, Hi] of every output component at every position (Lo
// = Hi in exact arithmetic).
func evalBlock(prec string, b stream.Block, seq []map[string]*big.Rat) ([]map[string][2]*big.Rat, error) {
	var in, out []string
	switch b := b.(type) {
	case *stream.FF:
		in, out = b.In, b.Out
	case *stream.Attn:
		in, out = b.In, b.Out
	default:
		return nil, fmt.Errorf("evalBlock: %T is not a single block", b)
	}
	m, err := stream.New("t", in...).Then(b).Readout(out...).Model()
	if err != nil {
		return nil, err
	}
	r, err := eval.New(numeric.MustParsePrecision(prec), m)
	if err != nil {
		return nil, err
	}
	h0, err := stream.Stream(m, seq)
	if err != nil {
		return nil, err
	}
	res, err := r.RunStream(h0, false)
	if err != nil {
		return nil, err
	}
	got := make([]map[string][2]*big.Rat, len(seq))
	for i, o := range res.Outputs {
		got[i] = map[string][2]*big.Rat{}
		for k, c := range out {
			v := o.Values[k]
			if v.Lo == nil || v.Hi == nil {
				return nil, fmt.Errorf("position %d, %s: no bounds for %s", i+1, c, v.Text)
			}
			got[i][c] = [2]*big.Rat{v.Lo, v.Hi}
		}
	}
	return got, nil
}

// point is one input of a position-wise (feed-forward) block and the
// values its outputs must take there, both written "x=1/2 y=-3".
type point struct{ in, want string }

// checkPoints evaluates the feed-forward block f exactly at every point
// (all points as the positions of one sequence: f is position-wise) and
// reports the first output that differs from the wanted value.
func checkPoints(f *stream.FF, pts []point) error {
	seq := make([]map[string]*big.Rat, len(pts))
	for i, p := range pts {
		seq[i] = vals(p.in)
	}
	got, err := evalBlock("exact", f, seq)
	if err != nil {
		return err
	}
	for i, p := range pts {
		if err := compare(got[i], vals(p.want), big.NewRat(0, 1)); err != nil {
			return fmt.Errorf("%s at %s: %v", f.Name, p.in, err)
		}
	}
	return nil
}

// checkSeq evaluates the block b on one sequence (positions written
// "x=1/2 y=-3") and compares every position's outputs with want, to
// within tol (0: exactly; tol > 0 only for the interval backend, where
// the whole enclosure must lie within tol of the wanted value).
func checkSeq(prec string, b stream.Block, in, want []string, tol *big.Rat) error {
	seq := make([]map[string]*big.Rat, len(in))
	for i, s := range in {
		seq[i] = vals(s)
	}
	got, err := evalBlock(prec, b, seq)
	if err != nil {
		return err
	}
	for i := range want {
		if err := compare(got[i], vals(want[i]), tol); err != nil {
			return fmt.Errorf("position %d of %v: %v", i+1, in, err)
		}
	}
	return nil
}

// compare reports an output component whose enclosure is not within tol
// of the wanted value.
func compare(got map[string][2]*big.Rat, want map[string]*big.Rat, tol *big.Rat) error {
	names := make([]string, 0, len(want))
	for c := range want {
		names = append(names, c)
	}
	slices.Sort(names)
	for _, c := range names {
		g, ok := got[c]
		if !ok {
			return fmt.Errorf("no output %q", c)
		}
		lo := new(big.Rat).Sub(want[c], tol)
		hi := new(big.Rat).Add(want[c], tol)
		if g[0].Cmp(lo) < 0 || g[1].Cmp(hi) > 0 {
			if g[0].Cmp(g[1]) == 0 {
				return fmt.Errorf("%s = %s, want %s", c, g[0].RatString(), want[c].RatString())
			}
			return fmt.Errorf("%s ∈ [%s, %s], want %s ± %s", c, g[0].FloatString(25), g[1].FloatString(25), want[c].RatString(), tol.FloatString(25))
		}
	}
	return nil
}

// mat parses a matrix written by rows, "1 0; -1 0; 1 -1".
func mat(s string) [][]*big.Rat {
	var out [][]*big.Rat
	for _, r := range strings.Split(s, ";") {
		var row []*big.Rat
		for _, f := range strings.Fields(r) {
			row = append(row, q(f))
		}
		out = append(out, row)
	}
	return out
}

// matEq reports whether m is, entry by entry, the exact rational matrix
// written in want (rows separated by ";"). An irrational entry differs.
func matEq(m model.Matrix, want string) error {
	w := mat(want)
	if m.Rows != len(w) || m.Cols != len(w[0]) || len(m.Data) != m.Rows*m.Cols {
		return fmt.Errorf("is %d×%d, want %d×%d", m.Rows, m.Cols, len(w), len(w[0]))
	}
	for i := range w {
		if len(w[i]) != m.Cols {
			return fmt.Errorf("bad test matrix %q", want)
		}
		for j := range w[i] {
			if err := entryEq(m.At(i, j), w[i][j]); err != nil {
				return fmt.Errorf("entry (%d, %d): %v", i+1, j+1, err)
			}
		}
	}
	return nil
}

// vecEq reports whether v (nil: the zero vector) is the vector written in
// want ("" or "0 0 0"); n is the length the block needs.
func vecEq(v model.Vector, n int, want string) error {
	w := mat(want)[0]
	if want == "" {
		w = make([]*big.Rat, n)
		for k := range w {
			w[k] = new(big.Rat)
		}
	}
	if len(w) != n {
		return fmt.Errorf("bad test vector %q for length %d", want, n)
	}
	if v == nil {
		v = make(model.Vector, n)
	}
	if len(v) != n {
		return fmt.Errorf("has length %d, want %d", len(v), n)
	}
	for k := range w {
		if err := entryEq(v[k], w[k]); err != nil {
			return fmt.Errorf("entry %d: %v", k+1, err)
		}
	}
	return nil
}

func entryEq(e numeric.Expr, want *big.Rat) error {
	r, ok, err := e.Rat()
	if err != nil || !ok {
		return fmt.Errorf("%v is not rational (%v)", e, err)
	}
	if r.Cmp(want) != 0 {
		return fmt.Errorf("%s, want %s", r.RatString(), want.RatString())
	}
	return nil
}

// ffWeights are a feed-forward block's routing and weights as the paper
// prints them ("" for a zero bias).
type ffWeights struct {
	in, out        []string
	w1, b1, w2, b2 string
	acc            bool
}

// checkFF compares f with the printed weights.
func checkFF(f *stream.FF, w ffWeights) error {
	if !slices.Equal(f.In, w.in) || !slices.Equal(f.Out, w.out) || f.Accumulate != w.acc {
		return fmt.Errorf("%s reads %v, writes %v (accumulate %v); want %v, %v (%v)", f.Name, f.In, f.Out, f.Accumulate, w.in, w.out, w.acc)
	}
	if f.Activation != model.ReLU || f.Norm != nil {
		return fmt.Errorf("%s: activation %v, norm %v; want ReLU, no norm", f.Name, f.Activation, f.Norm)
	}
	if err := matEq(f.W1, w.w1); err != nil {
		return fmt.Errorf("%s: W1 %v", f.Name, err)
	}
	if err := vecEq(f.B1, f.W1.Rows, w.b1); err != nil {
		return fmt.Errorf("%s: b1 %v", f.Name, err)
	}
	if err := matEq(f.W2, w.w2); err != nil {
		return fmt.Errorf("%s: W2 %v", f.Name, err)
	}
	if err := vecEq(f.B2, len(f.Out), w.b2); err != nil {
		return fmt.Errorf("%s: b2 %v", f.Name, err)
	}
	return nil
}

// attnWeights are a head's routing, projections and settings.
type attnWeights struct {
	in, out []string
	wq, wk  string
	wv      string
	mask    model.Mask
	w       model.Weighting
	acc     bool
}

// checkAttn compares a with the printed projections; scores are q·k
// (NoScale) and there is no norm or temperature.
func checkAttn(a *stream.Attn, w attnWeights) error {
	if !slices.Equal(a.In, w.in) || !slices.Equal(a.Out, w.out) || a.Accumulate != w.acc {
		return fmt.Errorf("%s reads %v, writes %v (accumulate %v); want %v, %v (%v)", a.Name, a.In, a.Out, a.Accumulate, w.in, w.out, w.acc)
	}
	if a.Mask != w.mask || a.Weighting != w.w || a.Scale != model.NoScale || a.Norm != nil || !a.Temperature.IsZero() {
		return fmt.Errorf("%s: mask %v, weighting %v, scale %v, norm %v, τ %v; want %v, %v, q·k, none, none",
			a.Name, a.Mask, a.Weighting, a.Scale, a.Norm, a.Temperature, w.mask, w.w)
	}
	for _, p := range []struct {
		name string
		m    model.Matrix
		want string
	}{{"W^Q", a.Q, w.wq}, {"W^K", a.K, w.wk}, {"W^V", a.V, w.wv}} {
		if err := matEq(p.m, p.want); err != nil {
			return fmt.Errorf("%s: %s %v", a.Name, p.name, err)
		}
	}
	return nil
}

// cloneFF copies f deeply enough that setting an entry of the copy's
// weights leaves f unchanged.
func cloneFF(f *stream.FF) *stream.FF {
	g := *f
	g.W1 = cloneMat(f.W1)
	g.W2 = cloneMat(f.W2)
	g.B1 = slices.Clone(f.B1)
	g.B2 = slices.Clone(f.B2)
	return &g
}

// cloneAttn copies a likewise.
func cloneAttn(a *stream.Attn) *stream.Attn {
	b := *a
	b.Q, b.K, b.V = cloneMat(a.Q), cloneMat(a.K), cloneMat(a.V)
	return &b
}

func cloneMat(m model.Matrix) model.Matrix {
	return model.Matrix{Rows: m.Rows, Cols: m.Cols, Data: slices.Clone(m.Data)}
}

// mustFail is a negative control: the check of a perturbed block must
// report an error.
func mustFail(t *testing.T, what string, err error) {
	t.Helper()
	if err == nil {
		t.Errorf("negative control %s: the check passed a perturbed block", what)
	} else {
		t.Logf("negative control %s: fails as it must: %v", what, err)
	}
}

// ok fails the test on a check's error.
func ok(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Error(err)
	}
}
