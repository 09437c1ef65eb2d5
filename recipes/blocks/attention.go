package blocks

import (
	"fmt"
	"math/big"
	"slices"

	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/numeric"
	"github.com/transformer-cookbook/verify/recipes/stream"
)

// AttZero is att_zero of §Identity (self-attention): W^Q = W^K = W^V = 0.
// With the residual connection, id(x) = att_zero(x) + x, under every
// weighting and mask; it adds its (zero) output to the components it
// reads.
func AttZero(in []string, w model.Weighting) *stream.Attn {
	d := len(in)
	return &stream.Attn{Name: "att_zero", In: in, Out: in, Accumulate: true,
		Q: model.Zeros(1, d), K: model.Zeros(1, d), V: model.Zeros(d, d), Weighting: w, Scale: model.NoScale}
}

// Avg is Avg of §Average: W^Q = W^K = 0, W^V = I, so every position
// attends to every unmasked position with the same score. Unmasked it
// outputs (1/n) Σ_k x_k; with mask model.Future it is Avg←, the prefix
// average (1/i) Σ_{k≤i} x_k. Exact under AHAT and SMAT (all scores tie);
// under UHAT the tie goes to one position, so it is not an average.
func Avg(in, out []string, mask model.Mask, w model.Weighting) *stream.Attn {
	d := len(in)
	v := model.Zeros(len(out), d)
	for k := range out {
		v.Set(k, k, numeric.LitInt(1))
	}
	return &stream.Attn{Name: "Avg", In: in, Out: out, Q: model.Zeros(1, d), K: model.Zeros(1, d), V: v,
		Mask: mask, Weighting: w, Scale: model.NoScale}
}

// TieBreak adds the tie-breaking term of §Simulating Unique-Hard
// Attention with Average-Hard Attention to head a: q̂_i = [q_i; γ] and
// k̂_j = [k_j; t(j)], where the component one holds 1 and the component t
// holds t(j) (one of −1/j, 1/j, j/n, −j/n). When the scores of a have gap
// γ (every score is the maximum or below it by more than γ) and t varies
// by less than 1 over the positions, the maximum of the new scores is the
// old maximum at the position where t is largest: the rightmost for
// t = −1/j or j/n, the leftmost for t = 1/j or −j/n.
func TieBreak(a *stream.Attn, one, t string, gamma *big.Rat) *stream.Attn {
	b := *a
	b.Name = a.Name + "+tiebreak"
	in := slices.Clone(a.In)
	col := func(c string) int {
		if k := slices.Index(in, c); k >= 0 {
			return k
		}
		in = append(in, c)
		return len(in) - 1
	}
	ko, kt := col(one), col(t)
	grow := func(m model.Matrix, rows int) model.Matrix {
		g := model.Zeros(rows, len(in))
		for r := 0; r < m.Rows; r++ {
			for c := 0; c < m.Cols; c++ {
				g.Set(r, c, m.At(r, c))
			}
		}
		return g
	}
	b.In = in
	b.Q = grow(a.Q, a.Q.Rows+1)
	b.K = grow(a.K, a.K.Rows+1)
	b.V = grow(a.V, a.V.Rows)
	b.Q.Set(a.Q.Rows, ko, numeric.Lit(gamma))
	b.K.Set(a.K.Rows, kt, numeric.LitInt(1))
	return &b
}

// SoftmaxSimulation is §Simulating Average-Hard Attention with Soft
// Attention for a head whose scores have a unique maximum with gap γ:
// softmax with W^Q′ = (1/τ) W^Q, τ = γ/log(8N), so that the gap becomes
// log 8N. By Edelman's lemma the output at each position is then within
// 2N e^{−γ/τ} = 1/4 of the hardmax output, for values in [0, 1] and
// lengths n ≤ N; a GTZero_{1/2}(· − 1/4) then rounds it to 0 or 1.
func SoftmaxSimulation(a *stream.Attn, gamma numeric.Expr, maxN int) (*stream.Attn, error) {
	if maxN < 1 {
		return nil, fmt.Errorf("softmax simulation: the maximum length N must be at least 1, got %d", maxN)
	}
	b := *a
	b.Name = a.Name + "/τ"
	b.Weighting = model.Softmax
	invTau := numeric.Quo(numeric.Log(numeric.LitInt(8*int64(maxN))), gamma)
	b.Q = a.Q.Scale(invTau)
	return &b, nil
}

// SoftmaxBound is the bound 2N e^{−γ/τ} = 1/4 of SoftmaxSimulation.
func SoftmaxBound() *big.Rat { return big.NewRat(1, 4) }

// Round01 is the rounding GTZero_{1/2}(c − 1/4) of §Simulating
// Average-Hard Attention with Soft Attention: 0 for c ≤ 1/4 and 1 for
// c ≥ 3/4.
func Round01(c, out string) *stream.FF {
	return GTZeroEps(c, out, big.NewRat(1, 2), big.NewRat(1, 4))
}

// PredStrict is the predecessor of §Predecessor with strict future
// masking: reading the position encoding pos = i/n, W^Q = W^K = [i/n] give
// the scores (i/n)(j/n) over j < i, uniquely maximal at j = i − 1, and
// W^V copies the components vals of that position into outs. Position 1
// attends to nothing and gets 0. Exact under UHAT (either side) and AHAT.
func PredStrict(pos string, vals, outs []string, w model.Weighting) *stream.Attn {
	in := append([]string{pos}, vals...)
	q := model.Zeros(1, len(in))
	q.Set(0, 0, numeric.LitInt(1))
	v := model.Zeros(len(outs), len(in))
	for k := range outs {
		v.Set(k, k+1, numeric.LitInt(1))
	}
	return &stream.Attn{Name: "pred(strict)", In: in, Out: outs, Q: q, K: q, V: v,
		Mask: model.StrictFuture, Weighting: w, Scale: model.NoScale}
}
