package blocks_test

import (
	"fmt"
	"math/big"
	"strings"
	"testing"

	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/numeric"
	"github.com/transformer-cookbook/verify/recipes/blocks"
	"github.com/transformer-cookbook/verify/recipes/stream"
)

// seqCase is one run of an attention block: the positions' inputs and
// the outputs every position must get, derived by hand from the
// paper's definition of the head (§Self-Attention Layers) and of the
// weighting (Definition Hardmax; softmax).
type seqCase struct {
	in, want []string
}

var hard = []model.Weighting{model.LeftHardmax, model.RightHardmax, model.AverageHardmax}

// TestAttZero: att_zero of §Identity (self-attention) has W^Q = W^K =
// W^V = 0, and with the residual connection id(x) = att_zero(x) + x,
// under every weighting (SMAT included: all scores are 0, so every weight
// is e^0/n = 1/n, exactly, and the values are 0 anyway).
func TestAttZero(t *testing.T) {
	xy := []string{"x", "y"}
	for _, w := range append([]model.Weighting{model.Softmax}, hard...) {
		a := blocks.AttZero(xy, w)
		ok(t, checkAttn(a, attnWeights{in: xy, out: xy, acc: true, wq: "0 0", wk: "0 0", wv: "0 0; 0 0", w: w}))
		// att_zero(x) + x = 0 + x at every position.
		ok(t, checkSeq("exact", a,
			[]string{"x=1 y=-2", "x=3/4 y=0", "x=-7/3 y=5"},
			[]string{"x=1 y=-2", "x=3/4 y=0", "x=-7/3 y=5"}, new(big.Rat)))
	}
}

// TestAvg: Avg and Avg← of §Average: W^Q = W^K = 0, W^V = I, so every
// score is 0 and all unmasked positions tie. Exact under AHAT and SMAT
// (weights 1/|unmasked|); under UHAT the tie goes to one position, which
// the tests pin.
func TestAvg(t *testing.T) {
	x, xy := []string{"x"}, []string{"x", "y"}
	// x = (1, 2, 6): Avg = (1 + 2 + 6)/3 = 3 everywhere;
	// Avg← = 1, (1 + 2)/2 = 3/2, 9/3 = 3.
	in1 := []string{"x=1", "x=2", "x=6"}
	avg1 := []string{"a=3", "a=3", "a=3"}
	pre1 := []string{"a=1", "a=3/2", "a=3"}
	// x = ((1, 0), (0, 1), (1/2, −1), (−3, 4)): Avg = (−3/2, 4)/4 = (−3/8, 1);
	// Avg← = (1, 0), (1/2, 1/2), (3/2, 0)/3 = (1/2, 0), (−3/8, 1).
	in2 := []string{"x=1 y=0", "x=0 y=1", "x=1/2 y=-1", "x=-3 y=4"}
	avg2 := []string{"a=-3/8 b=1", "a=-3/8 b=1", "a=-3/8 b=1", "a=-3/8 b=1"}
	pre2 := []string{"a=1 b=0", "a=1/2 b=1/2", "a=1/2 b=0", "a=-3/8 b=1"}
	for _, w := range []model.Weighting{model.Softmax, model.AverageHardmax} {
		for _, c := range []struct {
			mask     model.Mask
			in, want []string
			d        int
		}{
			{model.NoMask, in1, avg1, 1},
			{model.Future, in1, pre1, 1},
			{model.NoMask, in2, avg2, 2},
			{model.Future, in2, pre2, 2},
		} {
			in, out, wv := x, []string{"a"}, "1"
			if c.d == 2 {
				in, out, wv = xy, []string{"a", "b"}, "1 0; 0 1"
			}
			a := blocks.Avg(in, out, c.mask, w)
			ok(t, checkAttn(a, attnWeights{in: in, out: out, wq: strings.Repeat("0 ", c.d), wk: strings.Repeat("0 ", c.d), wv: wv, mask: c.mask, w: w}))
			if err := checkSeq("exact", a, c.in, c.want, new(big.Rat)); err != nil {
				t.Errorf("Avg %v %v: %v", c.mask, w, err)
			}
		}
	}
	// Fewer outputs than inputs: W^V = [1, 0] averages x alone.
	a := blocks.Avg(xy, []string{"a"}, model.NoMask, model.AverageHardmax)
	ok(t, checkAttn(a, attnWeights{in: xy, out: []string{"a"}, wq: "0 0", wk: "0 0", wv: "1 0", w: model.AverageHardmax}))
	// The x-average of in2 is −3/8, whatever y is.
	ok(t, checkSeq("exact", a, in2, []string{"a=-3/8", "a=-3/8", "a=-3/8", "a=-3/8"}, new(big.Rat)))

	// Under UHAT all scores tie at 0 (Definition Hardmax): lhardmax picks the
	// leftmost unmasked position (x_1 = 1), rhardmax the rightmost (x_n = 6
	// unmasked; x_i itself under future masking): not an average.
	for _, c := range []struct {
		w    model.Weighting
		mask model.Mask
		want []string
	}{
		{model.LeftHardmax, model.NoMask, []string{"a=1", "a=1", "a=1"}},
		{model.RightHardmax, model.NoMask, []string{"a=6", "a=6", "a=6"}},
		{model.LeftHardmax, model.Future, []string{"a=1", "a=1", "a=1"}},
		{model.RightHardmax, model.Future, []string{"a=1", "a=2", "a=6"}},
	} {
		if err := checkSeq("exact", blocks.Avg(x, []string{"a"}, c.mask, c.w), in1, c.want, new(big.Rat)); err != nil {
			t.Errorf("Avg under %v %v: %v", c.w, c.mask, err)
		}
	}
}

// TestPredStrict: the predecessor of §Predecessor with strict future
// masking and i/n encodings: W^Q = W^K = [1, 0] on (pos, v), so
// s_ij = (i/n)(j/n), largest over j < i at j = i − 1; W^V copies v;
// position 1 sees nothing and gets 0.
func TestPredStrict(t *testing.T) {
	for _, w := range hard {
		a := blocks.PredStrict("pos", []string{"v"}, []string{"p"}, w)
		ok(t, checkAttn(a, attnWeights{in: []string{"pos", "v"}, out: []string{"p"}, wq: "1 0", wk: "1 0", wv: "0 1", mask: model.StrictFuture, w: w}))
		// n = 4, v = (5, −1, 1/2, 7): pred = (0, v_1, v_2, v_3) = (0, 5, −1, 1/2).
		if err := checkSeq("exact", a,
			[]string{"pos=1/4 v=5", "pos=2/4 v=-1", "pos=3/4 v=1/2", "pos=1 v=7"},
			[]string{"p=0", "p=5", "p=-1", "p=1/2"}, new(big.Rat)); err != nil {
			t.Errorf("pred(strict) %v: %v", w, err)
		}
		// Two values: W^V = [[0, 1, 0], [0, 0, 1]] over (pos, a, b).
		a2 := blocks.PredStrict("pos", []string{"a", "b"}, []string{"pa", "pb"}, w)
		ok(t, checkAttn(a2, attnWeights{in: []string{"pos", "a", "b"}, out: []string{"pa", "pb"}, wq: "1 0 0", wk: "1 0 0", wv: "0 1 0; 0 0 1", mask: model.StrictFuture, w: w}))
		// n = 3: pred of ((1, 0), (0, 1), (1, 1)) is ((0, 0), (1, 0), (0, 1)).
		if err := checkSeq("exact", a2,
			[]string{"pos=1/3 a=1 b=0", "pos=2/3 a=0 b=1", "pos=1 a=1 b=1"},
			[]string{"pa=0 pb=0", "pa=1 pb=0", "pa=0 pb=1"}, new(big.Rat)); err != nil {
			t.Errorf("pred(strict) two values %v: %v", w, err)
		}
	}
}

// TestTieBreak: §Simulating Unique-Hard Attention with Average-Hard
// Attention: q̂_i = [q_i; γ], k̂_j = [k_j; t(j)], so s′_ij = s_ij + γ t(j).
func TestTieBreak(t *testing.T) {
	// Base head over (one, s, x): W^Q = [1, 0, 0], W^K = [0, 1, 0], so the
	// score of j is s_j; W^V copies x. With s = (1, 0, 1, 1) (integer: gap
	// 1 > γ = 1/2) AHAT averages x over {1, 3, 4}.
	base := &stream.Attn{Name: "base", In: []string{"one", "s", "x"}, Out: []string{"y"},
		Q: model.Ints([]int64{1, 0, 0}), K: model.Ints([]int64{0, 1, 0}), V: model.Ints([]int64{0, 0, 1}),
		Weighting: model.AverageHardmax, Scale: model.NoScale}
	pos := func(t []string) []string {
		s := []string{"1", "0", "1", "1"}
		x := []string{"10", "20", "30", "40"}
		out := make([]string, 4)
		for j := range out {
			out[j] = fmt.Sprintf("one=1 s=%s x=%s", s[j], x[j])
			if t != nil {
				out[j] += " t=" + t[j]
			}
		}
		return out
	}
	same := func(v string) []string { return []string{"y=" + v, "y=" + v, "y=" + v, "y=" + v} }
	// Without the tie-break: (10 + 30 + 40)/3 = 80/3 at every position.
	ok(t, checkSeq("exact", base, pos(nil), same("80/3"), new(big.Rat)))

	b := blocks.TieBreak(base, "one", "t", q("1/2"))
	// "one" is already read (column 1), t is appended (column 4):
	// W^Q gains the row [γ, 0, 0, 0], W^K the row [0, 0, 0, 1].
	ok(t, checkAttn(b, attnWeights{in: []string{"one", "s", "x", "t"}, out: []string{"y"},
		wq: "1 0 0 0; 1/2 0 0 0", wk: "0 1 0 0; 0 0 0 1", wv: "0 0 1 0", w: model.AverageHardmax}))
	if b.Name != "base+tiebreak" || len(base.In) != 3 || base.Q.Rows != 1 {
		t.Errorf("TieBreak changed its argument or named the head %q", b.Name)
	}
	for _, c := range []struct {
		name string
		t    []string
		want string
	}{
		// t = −1/j (rightmost): s + t/2 = (1/2, −1/4, 5/6, 7/8): j = 4, x = 40.
		{"-1/j", []string{"-1", "-1/2", "-1/3", "-1/4"}, "40"},
		// t = 1/j (leftmost): (3/2, 1/4, 7/6, 9/8): j = 1, x = 10.
		{"1/j", []string{"1", "1/2", "1/3", "1/4"}, "10"},
		// t = j/n (rightmost): (9/8, 1/4, 11/8, 3/2): j = 4, x = 40.
		{"j/n", []string{"1/4", "1/2", "3/4", "1"}, "40"},
		// t = −j/n (leftmost): (7/8, −1/4, 5/8, 1/2): j = 1, x = 10.
		{"-j/n", []string{"-1/4", "-1/2", "-3/4", "-1"}, "10"},
	} {
		if err := checkSeq("exact", b, pos(c.t), same(c.want), new(big.Rat)); err != nil {
			t.Errorf("tie-break t = %s: %v", c.name, err)
		}
	}

	// Both components new: Avg (W^Q = W^K = 0 over x) with γ = 1 gets
	// in = (x, one, t), W^Q = [[0, 0, 0], [0, 1, 0]], W^K = [[0, 0, 0], [0, 0, 1]].
	avg := blocks.TieBreak(blocks.Avg([]string{"x"}, []string{"a"}, model.Future, model.AverageHardmax), "one", "t", q("1"))
	ok(t, checkAttn(avg, attnWeights{in: []string{"x", "one", "t"}, out: []string{"a"},
		wq: "0 0 0; 0 1 0", wk: "0 0 0; 0 0 1", wv: "1 0 0", mask: model.Future, w: model.AverageHardmax}))
	// Avg← with t = −1/j: all base scores tie, so the rightmost j ≤ i wins:
	// position i gets x_i = (1, 2, 6); with t = 1/j the leftmost: x_1 = 1.
	ok(t, checkSeq("exact", avg, []string{"x=1 one=1 t=-1", "x=2 one=1 t=-1/2", "x=6 one=1 t=-1/3"},
		[]string{"a=1", "a=2", "a=6"}, new(big.Rat)))
	ok(t, checkSeq("exact", avg, []string{"x=1 one=1 t=1", "x=2 one=1 t=1/2", "x=6 one=1 t=1/3"},
		[]string{"a=1", "a=1", "a=1"}, new(big.Rat)))
}

// TestSoftmaxSimulation: §Simulating Average-Hard Attention with Soft
// Attention: W^Q′ = (1/τ) W^Q with τ = γ/log(8N), softmax weighting. For a
// head whose scores are s_j ∈ γℤ the weights are then
// e^{(s_j/γ) log 8N} = (8N)^{s_j/γ}: rational, so the output is known
// exactly by hand; the engine's softmax (interval:160) must enclose it.
func TestSoftmaxSimulation(t *testing.T) {
	// 2N e^{−γ/τ} = 2N e^{−log 8N} = 2N/(8N) = 1/4.
	if got := blocks.SoftmaxBound(); got.Cmp(q("1/4")) != 0 {
		t.Errorf("SoftmaxBound = %s, want 2N/(8N) = 1/4", got.RatString())
	}
	if _, err := blocks.SoftmaxSimulation(blocks.AnyActive("one", "s", "y", model.AverageHardmax), numeric.LitInt(1), 0); err == nil ||
		!strings.Contains(err.Error(), "at least 1") {
		t.Errorf("N = 0: error %v, want one saying N must be at least 1", err)
	}
	tol := q("1/1000000000000000000000000000000") // 1e-30
	// log 16 = 4 log 2 = 2.772588722239781237668928485832706272302 (log 2 =
	// 0.6931471805599453094172321214581765680755).
	log16 := q("2.772588722239781237668928485832706272302")
	for _, c := range []struct {
		gamma int64
		kOne  int64 // base W^K on s: scores γ·s_j
	}{{1, 1}, {2, 2}} {
		base := &stream.Attn{Name: "lookup", In: []string{"one", "s", "x"}, Out: []string{"y"},
			Q: model.Ints([]int64{1, 0, 0}), K: model.Ints([]int64{0, c.kOne, 0}), V: model.Ints([]int64{0, 0, 1}),
			Weighting: model.AverageHardmax, Scale: model.NoScale}
		b, err := blocks.SoftmaxSimulation(base, numeric.LitInt(c.gamma), 2)
		if err != nil {
			t.Fatal(err)
		}
		if b.Name != "lookup/τ" || b.Weighting != model.Softmax || base.Weighting != model.AverageHardmax {
			t.Errorf("γ = %d: name %q, weighting %v (base %v)", c.gamma, b.Name, b.Weighting, base.Weighting)
		}
		// W^Q′ = (log 16/γ)[1, 0, 0]; W^K and W^V unchanged.
		want := new(big.Rat).Quo(log16, big.NewRat(c.gamma, 1))
		for k, e := range b.Q.Data {
			lo, hi, err := e.Enclose(160)
			if err != nil {
				t.Fatal(err)
			}
			wk := want
			if k > 0 {
				wk = new(big.Rat)
			}
			if err := compare(map[string][2]*big.Rat{"W^Q′": {lo, hi}}, map[string]*big.Rat{"W^Q′": wk}, tol); err != nil {
				t.Errorf("γ = %d, W^Q′ entry %d: %v", c.gamma, k+1, err)
			}
		}
		ok(t, matEq(b.K, fmt.Sprintf("0 %d 0", c.kOne)))
		ok(t, matEq(b.V, "0 0 1"))
		// n = N = 2, s = (1, 0): the weights are 16^1/17 and 16^0/17, so with
		// x = (1, 0) the output is 16/17 ≥ 3/4 and with x = (0, 1) it is
		// 1/17 ≤ 1/4, at both positions (no mask).
		for _, r := range []struct{ in, want []string }{
			{[]string{"one=1 s=1 x=1", "one=1 s=0 x=0"}, []string{"y=16/17", "y=16/17"}},
			{[]string{"one=1 s=1 x=0", "one=1 s=0 x=1"}, []string{"y=1/17", "y=1/17"}},
		} {
			if err := checkSeq("interval:160", b, r.in, r.want, tol); err != nil {
				t.Errorf("γ = %d: %v", c.gamma, err)
			}
		}
	}
}

// TestRound01: GTZero_{1/2}(c − 1/4) of §Simulating Average-Hard
// Attention with Soft Attention: W1 = [1; 1], b1 = [−1/4; −3/4],
// W2 = [2, −2]; 0 for c ≤ 1/4, 1 for c ≥ 3/4.
func TestRound01(t *testing.T) {
	f := blocks.Round01("c", "r")
	ok(t, checkFF(f, ffWeights{in: []string{"c"}, out: []string{"r"}, w1: "1; 1", b1: "-1/4 -3/4", w2: "2 -2"}))
	ok(t, checkPoints(f, []point{
		{"c=-1", "r=0"},    // c ≤ 1/4: 0
		{"c=0", "r=0"},     // c ≤ 1/4: 0
		{"c=1/17", "r=0"},  // a soft lookup of 0 (TestSoftmaxSimulation): 0
		{"c=1/4", "r=0"},   // boundary c = 1/4: 0
		{"c=1/2", "r=1/2"}, // gray: (1/2 − 1/4)/(1/2)
		{"c=3/4", "r=1"},   // boundary c = 3/4: 1
		{"c=16/17", "r=1"}, // a soft lookup of 1: 16/17 ≥ 3/4, so 1
		{"c=1", "r=1"},     // c ≥ 3/4: 1
	}))
}

// TestAttentionNegativeControls: a head with one weight perturbed fails
// the checks above.
func TestAttentionNegativeControls(t *testing.T) {
	// PredStrict with W^K = [−1, 0]: s_ij = −(i/n)(j/n) is largest at j = 1,
	// so position 3 gets v_1 = 5, not v_2 = −1.
	a := blocks.PredStrict("pos", []string{"v"}, []string{"p"}, model.LeftHardmax)
	b := cloneAttn(a)
	b.K.Set(0, 0, numeric.LitInt(-1))
	w := attnWeights{in: []string{"pos", "v"}, out: []string{"p"}, wq: "1 0", wk: "1 0", wv: "0 1", mask: model.StrictFuture, w: model.LeftHardmax}
	in := []string{"pos=1/4 v=5", "pos=2/4 v=-1", "pos=3/4 v=1/2", "pos=1 v=7"}
	want := []string{"p=0", "p=5", "p=-1", "p=1/2"}
	mustFail(t, "pred(strict) W^K weights", checkAttn(b, w))
	mustFail(t, "pred(strict) W^K values", checkSeq("exact", b, in, want, new(big.Rat)))
	ok(t, checkAttn(a, w))

	// Avg with W^V = 1/2: Avg of (1, 2, 6) is 3/2, not 3.
	avg := cloneAttn(blocks.Avg([]string{"x"}, []string{"a"}, model.NoMask, model.AverageHardmax))
	avg.V.Set(0, 0, numeric.Frac(1, 2))
	mustFail(t, "Avg W^V values", checkSeq("exact", avg, []string{"x=1", "x=2", "x=6"}, []string{"a=3", "a=3", "a=3"}, new(big.Rat)))

	// Round01 with b1 = [−1/4, −1/2]: at c = 3/4 it gives 2(1/2) − 2(1/4) = 1/2.
	r := cloneFF(blocks.Round01("c", "r"))
	r.B1[1] = numeric.Frac(-1, 2)
	mustFail(t, "Round01 b1[2] values", checkPoints(r, []point{{"c=3/4", "r=1"}}))
}
