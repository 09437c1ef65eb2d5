package eval

import (
	"errors"
	"fmt"
	"math/big"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/numeric"
)

// lnCase is one layer norm LN(x) = (x − μ)/√(σ² + ε) ⊙ γ + β whose square
// root is rational, worked out by hand.
type lnCase struct {
	name        string
	x           []string
	eps         string
	gamma, beta []string
	want        []string
}

var lnCases = []lnCase{
	// μ = 2, x − μ = (−1, 1), σ² = 1.
	{"(1,3) ε=0", split("1 3"), "0", nil, nil, split("-1 1")},
	{"(1,3) ε=3", split("1 3"), "3", nil, nil, split("-1/2 1/2")},                           // √4 = 2
	{"(1,3) ε=3 γ β", split("1 3"), "3", split("2 -3"), split("1/2 1"), split("-1/2 -1/2")}, // (−1/2·2 + 1/2, 1/2·(−3) + 1)
	// μ = 1, x − μ = (−1, −1, −1, 3), σ² = 12/4 = 3.
	{"(0,0,0,4) ε=1", split("0 0 0 4"), "1", nil, nil, split("-1/2 -1/2 -1/2 3/2")}, // √4 = 2
	{"(0,0,0,4) ε=1 γ β", split("0 0 0 4"), "1", split("1 2 3 4"), split("0 0 0 -1"), split("-1/2 -1 -3/2 5")},
	// μ = 1, x − μ = (−6, −6, 6, 6), σ² = 36.
	{"(-5,-5,7,7) ε=0", split("-5 -5 7 7"), "0", nil, nil, split("-1 -1 1 1")},
	{"(-5,-5,7,7) ε=28", split("-5 -5 7 7"), "28", nil, nil, split("-3/4 -3/4 3/4 3/4")}, // √64 = 8
	// The layernorm hash lh(x) = LN([x, 1, −x, −1]) = √(2/(x² + 1))·[x, 1, −x, −1]
	// (§Layernorm hash) is rational when x² + 1 = 2k²: x = 7 gives √(2/50) = 1/5.
	{"lh(7)", split("7 1 -7 -1"), "0", nil, nil, split("7/5 1/5 -7/5 -1/5")},
	// Scale invariance: [x/i, 1/i, −x/i, −1/i] with i = 3 hashes to lh(x).
	{"lh(7) from x/3", split("7/3 1/3 -7/3 -1/3"), "0", nil, nil, split("7/5 1/5 -7/5 -1/5")},
	{"lh(1)", split("1 1 -1 -1"), "0", nil, nil, split("1 1 -1 -1")},
}

func (c lnCase) norm() *model.LayerNorm {
	ln := &model.LayerNorm{Eps: ex(c.eps)}
	if c.gamma != nil {
		ln.Gamma = vec(c.gamma...)
	}
	if c.beta != nil {
		ln.Beta = vec(c.beta...)
	}
	return ln
}

// vectorModel has one symbol "x" embedded as x, and reads the residual
// stream out unchanged.
func vectorModel(x []string) *model.Model {
	return &model.Model{
		Name:          "vector",
		Alphabet:      []string{"x"},
		WordEmbedding: []model.Vector{vec(x...)},
		D:             len(x),
		Output:        model.Output{Kind: model.Readout, W: model.Identity(len(x))},
	}
}

// TestLayerNormDefinition runs every case as a post-norm of an empty
// sublayer, LN(0 + x), and as the final norm of a pre-norm model without
// layers; both must be LN(x) exactly.
func TestLayerNormDefinition(t *testing.T) {
	for _, c := range lnCases {
		t.Run(c.name, func(t *testing.T) {
			post := vectorModel(c.x)
			post.Norm = model.PostNorm
			post.Layers = []model.Layer{{AttentionNorm: c.norm()}}
			pre := vectorModel(c.x)
			pre.Norm = model.PreNorm
			pre.FinalNorm = c.norm()
			for _, m := range []*model.Model{post, pre} {
				res := mustRun(t, "exact", m, "x")
				if diff := cmp.Diff([][]string{c.want}, outputs(t, res)); diff != "" {
					t.Errorf("%v (-want +got):\n%s", m.Norm, diff)
				}
			}
		})
	}
}

// normPlacementModel: x = (1, 3), then a Linear FFN f(y) = (2y₁, 5y₂),
// under each placement, with norms ε = 0. By hand:
//
//	none:            f(x) + x = (2, 15) + (1, 3) = (3, 18)
//	post-norm:       LN((3, 18)) = (−1, 1)                       (μ = 21/2, σ = 15/2)
//	pre-norm:        f(LN(x)) + x = f((−1, 1)) + x = (−2, 5) + (1, 3) = (−1, 8)
//	pre-norm, final: LN((−1, 8)) ⊙ (2, 1/2) + (0, 1) = (−1, 1) ⊙ (2, 1/2) + (0, 1) = (−2, 3/2)
func TestNormPlacement(t *testing.T) {
	tests := []struct {
		placement model.NormPlacement
		final     bool
		want      []string
		labels    []string
	}{
		{model.NoNorm, false, split("3 18"), []string{"embedding", "layer 1 feed-forward"}},
		{model.PostNorm, false, split("-1 1"), []string{"embedding", "layer 1 feed-forward"}},
		{model.PreNorm, false, split("-1 8"), []string{"embedding", "layer 1 feed-forward"}},
		{model.PreNorm, true, split("-2 3/2"), []string{"embedding", "layer 1 feed-forward", "final norm"}},
	}
	for _, tc := range tests {
		t.Run(fmt.Sprintf("%d/final=%v", tc.placement, tc.final), func(t *testing.T) {
			m := vectorModel(split("1 3"))
			m.Norm = tc.placement
			m.Layers = []model.Layer{{FeedForward: &model.FeedForward{
				W1: model.Identity(2), W2: model.Ints([]int64{2, 0}, []int64{0, 5}), Activation: model.Linear,
			}}}
			if tc.placement != model.NoNorm {
				m.Layers[0].FeedForwardNorm = &model.LayerNorm{}
			}
			if tc.final {
				m.FinalNorm = &model.LayerNorm{Gamma: vec("2", "1/2"), Beta: vec("0", "1")}
			}
			res := mustRun(t, "exact", m, "x")
			if diff := cmp.Diff([][]string{tc.want}, outputs(t, res)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.labels, labels(res.Trace)); diff != "" {
				t.Errorf("trace labels (-want +got):\n%s", diff)
			}
			if tc.final {
				if diff := cmp.Diff([][]string{split("-1 8")}, state(t, res, "layer 1 feed-forward")); diff != "" {
					t.Errorf("state before the final norm (-want +got):\n%s", diff)
				}
			}
		})
	}
}

// TestNormPlacementAttention: the attention reads LN(x) under pre-norm.
// Positions x₁ = (1, 3), x₂ = (5, 1); lhardmax with q_i = y_i[1],
// k_j = y_j[1], V = I, where y is what attention reads. By hand:
//
//	pre-norm:  y = LN(x) = ((−1, 1), (1, −1)); i = 1: q = −1, scores (1, −1)
//	           → j = 1; i = 2: q = 1, scores (−1, 1) → j = 2; out_i = y_i,
//	           so h = y + x = ((0, 4), (6, 0))
//	none:      i = 1: q = 1, scores (1, 5) → j = 2; i = 2: q = 5, scores
//	           (5, 25) → j = 2; h = x₂ + x = ((6, 4), (10, 2))
//	post-norm: LN of those: ((1, −1), (1, −1))
func TestNormPlacementAttention(t *testing.T) {
	tests := []struct {
		placement model.NormPlacement
		want      [][]string
	}{
		{model.NoNorm, [][]string{split("6 4"), split("10 2")}},
		{model.PreNorm, [][]string{split("0 4"), split("6 0")}},
		{model.PostNorm, [][]string{split("1 -1"), split("1 -1")}},
	}
	for _, tc := range tests {
		m := &model.Model{
			Name:          "attention norm",
			Alphabet:      []string{"a", "b"},
			WordEmbedding: []model.Vector{model.IntVector(1, 3), model.IntVector(5, 1)},
			D:             2,
			Norm:          tc.placement,
			Layers: []model.Layer{{Attention: &model.Attention{
				Heads:     []model.Head{{Q: model.Ints([]int64{1, 0}), K: model.Ints([]int64{1, 0}), V: model.Identity(2)}},
				Weighting: model.LeftHardmax,
			}}},
			Output: model.Output{Kind: model.Readout, W: model.Identity(2)},
		}
		if tc.placement != model.NoNorm {
			m.Layers[0].AttentionNorm = &model.LayerNorm{}
		}
		res := mustRun(t, "exact", m, "ab")
		if diff := cmp.Diff(tc.want, outputs(t, res)); diff != "" {
			t.Errorf("placement %d (-want +got):\n%s", tc.placement, diff)
		}
	}
}

// TestSelectiveNorm: with W^N (§Layernorm hash) the sublayers read
// LN(W^N x), here the first two of three components, and their matrices
// have 2 columns. x₁ = (1, 3, 100), x₂ = (3, 1, −7); W^N x = (1, 3), (3, 1).
//
//	attention: LN(W^N x) ⊙ (1, 2) + (0, 1/2) = (−1, 5/2), (1, −3/2);
//	  q_i = k_i = first component; i = 1: q = −1, scores (1, −1) → j = 1;
//	  i = 2: q = 1, scores (−1, 1) → j = 2; V writes 5·(second component)
//	  into the third: +25/2 and −15/2, so h = (1, 3, 225/2), (3, 1, −29/2);
//	FFN (Linear): LN(W^N h) = (−1, 1), (1, −1); f writes a + 10b into the
//	  third: +9 and −9, so h = (1, 3, 243/2), (3, 1, −47/2).
//
// Normalising all three components instead would give other values.
func TestSelectiveNorm(t *testing.T) {
	sel := model.Ints([]int64{1, 0, 0}, []int64{0, 1, 0})
	m := &model.Model{
		Name:          "selective norm",
		Alphabet:      []string{"a", "b"},
		WordEmbedding: []model.Vector{model.IntVector(1, 3, 100), model.IntVector(3, 1, -7)},
		D:             3,
		Norm:          model.PreNorm,
		Layers: []model.Layer{{
			Attention: &model.Attention{
				Heads:     []model.Head{{Q: model.Ints([]int64{1, 0}), K: model.Ints([]int64{1, 0}), V: model.Ints([]int64{0, 0}, []int64{0, 0}, []int64{0, 5})}},
				Weighting: model.LeftHardmax,
			},
			AttentionNorm: &model.LayerNorm{Select: &sel, Gamma: vec("1", "2"), Beta: vec("0", "1/2")},
			FeedForward: &model.FeedForward{
				W1: model.Identity(2), W2: model.Ints([]int64{0, 0}, []int64{0, 0}, []int64{1, 10}), Activation: model.Linear,
			},
			FeedForwardNorm: &model.LayerNorm{Select: &sel},
		}},
		Output: model.Output{Kind: model.Readout, W: model.Identity(3)},
	}
	res := mustRun(t, "exact", m, "ab")
	if diff := cmp.Diff([][]string{split("1 3 225/2"), split("3 1 -29/2")}, state(t, res, "layer 1 attention")); diff != "" {
		t.Errorf("after attention (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([][]string{split("1 3 243/2"), split("3 1 -47/2")}, outputs(t, res)); diff != "" {
		t.Errorf("after the FFN (-want +got):\n%s", diff)
	}
}

// TestLayerNormConstantVectorExact: with ε = 0 a constant vector has
// σ² + ε = 0, and exact mode must report the division by zero as an
// error, for a sublayer norm and for the final norm alike.
func TestLayerNormConstantVectorExact(t *testing.T) {
	post := vectorModel(split("2 2"))
	post.Norm = model.PostNorm
	post.Layers = []model.Layer{{FeedForwardNorm: &model.LayerNorm{}}}
	pre := vectorModel(split("2 2"))
	pre.Norm = model.PreNorm
	pre.Layers = []model.Layer{{FeedForward: &model.FeedForward{W1: model.Identity(2), W2: model.Identity(2)}, FeedForwardNorm: &model.LayerNorm{}}}
	final := vectorModel(split("2 2"))
	final.Norm = model.PreNorm
	final.FinalNorm = &model.LayerNorm{}
	for _, tc := range []struct {
		m    *model.Model
		subs []string
	}{
		{post, []string{"post-norm at position 1", "σ² + ε = 0"}},
		{pre, []string{"pre-norm at position 1", "σ² + ε = 0"}},
		{final, []string{"final norm at position 1", "σ² + ε = 0"}},
	} {
		_, err := runPrec(t, "exact", tc.m, "x")
		wantErr(t, err, tc.subs...)
		if !errors.Is(err, numeric.ErrDivByZero) {
			t.Errorf("error %v does not wrap numeric.ErrDivByZero", err)
		}
	}
}

// TestLayerNormHashInterval checks lh(x) = √(2/(x² + 1))·[x, 1, −x, −1]
// where it is irrational, in the interval backend: each enclosure must
// contain the true component c = v·√(2/(x² + 1)), whose square
// c² = v²·2/(x² + 1) is rational, so containment is decided exactly (for
// c > 0: hi > 0, hi² ≥ c², and lo ≤ 0 or lo² ≤ c²; mirrored for c < 0).
// The enclosures must also be tight: at most 2^−45 wide at 53 bits.
func TestLayerNormHashInterval(t *testing.T) {
	tests := []struct {
		x string
		i int64 // the input is [x/i, 1/i, −x/i, −1/i]
	}{
		{"2", 1}, {"3", 1}, {"1/2", 1}, {"2", 3}, {"5", 7},
	}
	width := ulps(1, 45)
	for _, tc := range tests {
		x := rat(tc.x)
		v := []*big.Rat{x, big.NewRat(1, 1), new(big.Rat).Neg(x), big.NewRat(-1, 1)}
		in := make([]string, 4)
		for k := range v {
			in[k] = new(big.Rat).Quo(v[k], big.NewRat(tc.i, 1)).RatString()
		}
		m := vectorModel(in)
		m.Norm = model.PreNorm
		m.FinalNorm = &model.LayerNorm{}
		res := mustRun(t, "interval:53", m, "x")
		// 2/(x² + 1)
		f := new(big.Rat).Mul(x, x)
		f.Quo(big.NewRat(2, 1), f.Add(f, big.NewRat(1, 1)))
		for k, got := range res.Outputs[0].Values {
			sq := new(big.Rat).Mul(v[k], v[k])
			sq.Mul(sq, f)
			if !containsSignedSqrt(got, v[k].Sign(), sq) {
				t.Errorf("lh(%s) from /%d, component %d: %s does not contain %s·√%s", tc.x, tc.i, k+1, got.Text, map[int]string{1: "+", -1: "−"}[v[k].Sign()], sq.RatString())
			}
			if w := new(big.Rat).Sub(got.Hi, got.Lo); w.Cmp(width) > 0 {
				t.Errorf("lh(%s), component %d: %s is wider than 2^-45", tc.x, k+1, got.Text)
			}
		}
	}
}

// containsSignedSqrt reports whether v's enclosure contains sign·√sq.
func containsSignedSqrt(v Value, sign int, sq *big.Rat) bool {
	if !v.Finite() {
		return false
	}
	lo, hi := v.Lo, v.Hi
	if sign < 0 { // −√sq ∈ [lo, hi] ⇔ √sq ∈ [−hi, −lo]
		lo, hi = new(big.Rat).Neg(hi), new(big.Rat).Neg(lo)
	}
	square := func(r *big.Rat) *big.Rat { return new(big.Rat).Mul(r, r) }
	return hi.Sign() > 0 && square(hi).Cmp(sq) >= 0 && (lo.Sign() <= 0 || square(lo).Cmp(sq) <= 0)
}
