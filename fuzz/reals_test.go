package fuzz

import (
	"fmt"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/transformer-cookbook/verify/check"
	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/model/eval"
	"github.com/transformer-cookbook/verify/numeric"
	"github.com/transformer-cookbook/verify/recipes"
)

// The comparison with a real reference (check.CompareAt), against an
// independent decision: the reference enclosed at 2048 bits, both ends
// rounded to the format here with integer arithmetic (roundTo, written
// apart from numeric's rounding), and the output compared with their
// common rounding. The checker may leave an output undecided (that is
// always sound), but what it passes the decision must find right, and
// what it refutes the decision must find wrong.

// realRecipes are the recipes whose references are real numbers.
var realRecipes = []string{"layernorm", "lh", "ln-circumvent", "pe-sinusoidal"}

// realPrecisions are the precisions the target picks from: every kind
// that rounds, and intervals.
var realPrecisions = []string{"fp8-e4m3", "fp8-e5m2", "bf16", "fp16", "fp32", "fp64", "24", "53", "113", "interval:64"}

// The perturbations of perturbReal.
const (
	realNone = iota
	realWeight
	realEps
	realGamma
	realMoveNorm
	numRealKinds
)

// perturbReal changes m as op says (the checked model only: the
// reference is the recipe's): a feed-forward weight scaled by 1 + a/8, a
// layer norm's ε raised by a/16 or a γ entry by a/8, or a layer norm
// moved to another feed-forward sublayer. It says what it did, "" when m
// has nothing of that kind.
func perturbReal(m *model.Model, kind int, a, b uint8) string {
	var ffs, norms []int
	for l, layer := range m.Layers {
		if layer.FeedForward != nil {
			ffs = append(ffs, l)
		}
		if layer.FeedForwardNorm != nil {
			norms = append(norms, l)
		}
	}
	factor := new(big.Rat).SetFrac64(int64(a%15)+1, 8)
	switch {
	case kind == realWeight && len(ffs) > 0:
		l := ffs[int(b)%len(ffs)]
		ff := *m.Layers[l].FeedForward
		w := model.Matrix{Rows: ff.W2.Rows, Cols: ff.W2.Cols, Data: append([]numeric.Expr(nil), ff.W2.Data...)}
		k := int(a) % len(w.Data)
		w.Data[k] = numeric.Mul(w.Data[k], numeric.Lit(new(big.Rat).Add(big.NewRat(1, 1), factor)))
		ff.W2 = w
		m.Layers[l].FeedForward = &ff
		return fmt.Sprintf("layer %d W2 entry %d scaled by 1 + %s", l+1, k, factor.RatString())
	case kind == realEps && len(norms) > 0:
		l := norms[int(b)%len(norms)]
		ln := *m.Layers[l].FeedForwardNorm
		ln.Eps = numeric.Add(ln.Eps, numeric.Lit(new(big.Rat).SetFrac64(int64(a%15)+1, 16)))
		m.Layers[l].FeedForwardNorm = &ln
		return fmt.Sprintf("layer %d ε raised", l+1)
	case kind == realGamma && len(norms) > 0:
		l := norms[int(b)%len(norms)]
		ln := *m.Layers[l].FeedForwardNorm
		if ln.Gamma == nil {
			return ""
		}
		g := append(model.Vector(nil), ln.Gamma...)
		k := int(a) % len(g)
		g[k] = numeric.Add(g[k], numeric.Lit(factor))
		ln.Gamma = g
		m.Layers[l].FeedForwardNorm = &ln
		return fmt.Sprintf("layer %d γ entry %d raised", l+1, k)
	case kind == realMoveNorm && len(norms) > 0 && len(ffs) > 1:
		from := norms[int(b)%len(norms)]
		to := ffs[int(a)%len(ffs)]
		if to == from {
			return ""
		}
		m.Layers[to].FeedForwardNorm, m.Layers[from].FeedForwardNorm = m.Layers[from].FeedForwardNorm, m.Layers[to].FeedForwardNorm
		return fmt.Sprintf("layer norm moved from layer %d to %d", from+1, to+1)
	}
	return ""
}

// roundTo rounds x to nearest, ties to even, at p significand bits, with
// least normal exponent emin where bounded (subnormals below it). It is
// written from the definition with integers, not numeric's code.
func roundTo(x *big.Rat, p, emin int, bounded bool) *big.Rat {
	if x.Sign() == 0 {
		return new(big.Rat)
	}
	ax := new(big.Rat).Abs(x)
	num, den := ax.Num(), ax.Denom()
	// e = ⌊log2 |x|⌋: start from the bit lengths and correct by one.
	e := num.BitLen() - den.BitLen()
	if pow2(e).Cmp(ax) > 0 {
		e--
	}
	if bounded && e < emin {
		e = emin
	}
	q := e - p + 1
	scaled := new(big.Rat).Quo(ax, pow2(q))
	n := new(big.Int).Quo(scaled.Num(), scaled.Denom())
	frac := new(big.Rat).Sub(scaled, new(big.Rat).SetInt(n))
	switch c := frac.Cmp(big.NewRat(1, 2)); {
	case c > 0, c == 0 && n.Bit(0) == 1:
		n.Add(n, big.NewInt(1))
	}
	r := new(big.Rat).Mul(new(big.Rat).SetInt(n), pow2(q))
	if x.Sign() < 0 {
		r.Neg(r)
	}
	return r
}

// decideReal is the independent decision: whether got is the correct
// rounding of e at p (or, for intervals, contains e), and whether the
// 2048-bit enclosure decided it.
func decideReal(t *testing.T, p numeric.Precision, e numeric.Expr, got eval.Value) (right, decided bool) {
	lo, hi, err := e.Enclose(2048)
	if err != nil {
		t.Fatalf("%v has no value: %v", e, err)
	}
	if !got.Finite() {
		return false, true
	}
	if r, ok, _ := e.Rat(); ok && e.IsLiteral() {
		// A rational literal is claimed exactly, at every precision.
		return got.Contains(r), true
	}
	if p.Kind == numeric.KindInterval {
		switch {
		case got.Lo.Cmp(lo) <= 0 && hi.Cmp(got.Hi) <= 0:
			return true, true
		case got.Hi.Cmp(lo) < 0 || hi.Cmp(got.Lo) < 0:
			return false, true
		}
		return false, false
	}
	bits, emin, bounded := int(p.Bits), 0, false
	if p.Format != nil {
		bits, emin, bounded = p.Format.P, p.Format.EMin, true
	}
	rl, rh := roundTo(lo, bits, emin, bounded), roundTo(hi, bits, emin, bounded)
	if rl.Cmp(rh) != 0 {
		return false, false
	}
	if f, _ := rl.Float64(); bounded && (f > p.Format.MaxFinite() || -f > p.Format.MaxFinite()) {
		// Beyond the format: no finite output is its rounding.
		return false, true
	}
	g, _ := got.Rat()
	return g != nil && g.Cmp(rl) == 0, true
}

// FuzzRealReferenceIsRight: the input picks a recipe with real
// references, a precision, a perturbation of the checked model (none, a
// weight, ε, γ, a layer norm moved) and a seed for the inputs; every
// output of a few inputs is compared by check.CompareAt and by
// decideReal, which must not contradict it, and check.Cases must report a
// refutation exactly when decideReal finds an input wrong.
func FuzzRealReferenceIsRight(f *testing.F) {
	for r := range realRecipes {
		for k := range numRealKinds {
			f.Add(uint8(r), uint8(3*r+k), uint8(k), uint8(5*k+1), uint8(r+k), uint64(7*r+k))
		}
	}
	f.Fuzz(func(t *testing.T, recipe, precision, kind, a, b uint8, seed uint64) {
		name := realRecipes[int(recipe)%len(realRecipes)]
		p := numeric.MustParsePrecision(realPrecisions[int(precision)%len(realPrecisions)])
		r, err := recipes.Get(name)
		if err != nil {
			t.Fatal(err)
		}
		con, err := r.Construct(model.Softmax, 4, nil)
		if err != nil {
			t.Fatal(err)
		}
		what := perturbReal(con.Model, int(kind)%numRealKinds, a, b)
		runner, err := eval.New(p, con.Model)
		if err != nil {
			t.Skipf("%s %s: %v", name, what, err)
		}
		n := 1 + int(seed%4)
		cases, _ := con.Inputs(n, rand.New(rand.NewPCG(seed, 0x7ea1)), 4)
		for _, c := range cases {
			checkRealCase(t, con, runner, p, c, fmt.Sprintf("%s at %s (%s), input %s", name, p, what, check.CaseText(con.Model, c)))
		}
	})
}

// checkRealCase runs c and holds the checker to decideReal on it.
func checkRealCase(t *testing.T, con *recipes.Construction, runner eval.Runner, p numeric.Precision, c recipes.Case, where string) {
	var out *eval.Result
	var err error
	ref := c
	if c.Stream != nil {
		out, err = runner.RunStream(c.Stream, false)
		ref.Stream = check.RoundStream(runner, c.Stream)
	} else {
		out, err = runner.Run(c.Symbols, false)
	}
	if err != nil {
		t.Skipf("%s: %v", where, err)
	}
	wrong := false
	for i, w := range con.Expected(ref) {
		got := out.Outputs[i]
		for k, e := range w.Reals {
			if !w.Claimed(k) {
				continue
			}
			one := recipes.Want{Reals: []numeric.Expr{e}}
			ok, und, why := check.CompareAt(p, one, eval.PositionOutput{Values: []eval.Value{got.Values[k]}}, nil, []string{"y"})
			right, decided := decideReal(t, p, e, got.Values[k])
			switch {
			case ok && !right:
				t.Errorf("%s: position %d output %d = %s passed, but it is not the correct rounding of %v (decided %v)", where, i+1, k+1, got.Values[k].Text, e, decided)
			case !ok && !und && (right || !decided):
				t.Errorf("%s: position %d output %d = %s refuted (%s), but the 2048-bit decision finds it right %v, decided %v", where, i+1, k+1, got.Values[k].Text, why, right, decided)
			}
			wrong = wrong || decided && !right
		}
	}
	lr := check.Cases(con, runner, []recipes.Case{c})
	refuted := lr.Failure != nil && !lr.Failure.Undecided
	if wrong != refuted {
		t.Errorf("%s: some output wrong %v, but the checker's report refutes %v (%+v)", where, wrong, refuted, lr.Failure)
	}
}
