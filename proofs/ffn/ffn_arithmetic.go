package ffn

import (
	"fmt"
	"math/big"

	"github.com/transformer-cookbook/verify/exact"
	"github.com/transformer-cookbook/verify/exact/cpwl"
	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/numeric"
	"github.com/transformer-cookbook/verify/proofs"
	"github.com/transformer-cookbook/verify/recipes/blocks"
	"github.com/transformer-cookbook/verify/recipes/stream"
)

// ---------------------------------------------------------------------
// §Identity Function, §Min and Max, §Addition and Subtraction,
// §Multiplication (by a constant)

// identityMap is x ↦ c x on ℝ^d.
func identityMap(d int, c string) exact.Affine {
	rs := make([][]string, d)
	for i := range rs {
		rs[i] = make([]string, d)
		for k := range rs[i] {
			rs[i][k] = "0"
			if i == k {
				rs[i][k] = c
			}
		}
	}
	return proofs.Affine(rs)
}

// identityCases: id = ReLU(x) − ReLU(−x) is x on ℝ^d for each d.
func identityCases(ds ...int) []proofs.FFNCase {
	var cs []proofs.FFNCase
	for _, d := range ds {
		xs := proofs.Names("x", d)
		cs = append(cs, proofs.FFNCase{Label: fmt.Sprintf("d = %d", d), F: blocks.Identity(xs, proofs.Names("y", d)), Domain: proofs.Space(d),
			Pieces: []cpwl.Piece{proofs.Piece(proofs.Space(d), identityMap(d, "1"))}})
	}
	return cs
}

var scaleConstants = []string{"0", "1", "-3/2", "7", "1/3"}

func scaleBlock(c *big.Rat) *stream.FF { return blocks.Scale([]string{"x"}, []string{"y"}, c) }

// preScaleBlock is the identity premultiplied by c: W1 scaled.
func preScaleBlock(c *big.Rat) *stream.FF {
	pre := identityBlock(1)
	pre.W1 = pre.W1.Scale(numeric.Lit(c))
	return pre
}

// identityBlock is eqn:ffwd_id_parallel_d2's identity on ℝ^d.
func identityBlock(d int) *stream.FF {
	return blocks.Identity(proofs.Names("x", d), proofs.Names("y", d))
}

func minCase(f *stream.FF) proofs.FFNCase {
	return proofs.FFNCase{Label: "min", F: f, Domain: proofs.Space(2), Pieces: []cpwl.Piece{
		proofs.Piece(proofs.Halfspaces(2, proofs.Row("1", "-1", "0")), proofs.Affine(proofs.Rows(proofs.Row("1", "0")))),
		proofs.Piece(proofs.Halfspaces(2, proofs.Row("-1", "1", "0")), proofs.Affine(proofs.Rows(proofs.Row("0", "1"))))}}
}

func maxCase(f *stream.FF) proofs.FFNCase {
	return proofs.FFNCase{Label: "max", F: f, Domain: proofs.Space(2), Pieces: []cpwl.Piece{
		proofs.Piece(proofs.Halfspaces(2, proofs.Row("1", "-1", "0")), proofs.Affine(proofs.Rows(proofs.Row("0", "1")))),
		proofs.Piece(proofs.Halfspaces(2, proofs.Row("-1", "1", "0")), proofs.Affine(proofs.Rows(proofs.Row("1", "0"))))}}
}

func addCase(f *stream.FF) proofs.FFNCase {
	return proofs.FFNCase{Label: "add", F: f, Domain: proofs.Space(2), Pieces: []cpwl.Piece{proofs.Piece(proofs.Space(2), proofs.Affine(proofs.Rows(proofs.Row("1", "1"))))}}
}

func subCase(f *stream.FF) proofs.FFNCase {
	return proofs.FFNCase{Label: "sub", F: f, Domain: proofs.Space(2), Pieces: []cpwl.Piece{proofs.Piece(proofs.Space(2), proofs.Affine(proofs.Rows(proofs.Row("1", "-1"))))}}
}

// paddedMax is max with W2 zero-padded to 2×3 and b2 to ℝ², as §Min and
// Max suggests "to make the output of a max component in ℝ²".
func paddedMax() *stream.FF {
	f := blocks.Max("x", "y", "m")
	w2 := model.Zeros(2, 3)
	for k := 0; k < 3; k++ {
		w2.Set(0, k, f.W2.At(0, k))
	}
	f.Out, f.W2, f.B2 = []string{"m", "pad"}, w2, make(model.Vector, 2)
	return f
}

// xy is the two-input block f over x, y with output out.
func xy(f func(x, y, out string) *stream.FF) *stream.FF { return f("x", "y", "out") }

var arithmeticClaims = []*proofs.Claim{
	claim("ffn.identity.scalar", secIdentity, "sec:ffnn_identity",
		"eq:identity: W1 = [1; −1], W2 = [1, −1], b = 0: id(x) = ReLU(x) − ReLU(−x) = x",
		"x ∈ ℝ", proofs.Proved, all(identityCases(1)...)),
	claim("ffn.identity.vector", secIdentity, "sec:ffnn_identity",
		"eqn:ffwd_id_parallel_d2: W1 = [I^d; −I^d], W2 = [I^d, −I^d], b = 0 computes id on ℝ^d",
		"x ∈ ℝ^d, every d ≥ 1 (the proof at d = 1, coordinatewise)", proofs.Proved, everyWidth(identityBlock, []int{2, 3, 4, 16}, all(identityCases(1)...))),
	claim("ffn.zero.residual", secIdentity, "sec:ffnn_identity",
		"the zero FFN (all weights and biases 0) satisfies x + zero(x) = x",
		"x ∈ ℝ^d, every d ≥ 1: zero(x) = 0 (the proof at d = 1, coordinatewise)", proofs.Proved,
		everyWidth(func(d int) *stream.FF { return blocks.Zero(proofs.Names("x", d)) }, []int{2, 3, 16},
			all(proofs.FFNCase{Label: "d = 1", F: blocks.Zero(proofs.Names("x", 1)), Domain: proofs.Space(1), Pieces: []cpwl.Piece{proofs.Piece(proofs.Space(1), identityMap(1, "0"))}}))),
	claim("ffn.min.exact", secMinMax, "sec:ffnn_minmax",
		"min(x, y) = ReLU(x) − ReLU(−x) − ReLU(x − y) with W1 = [[1,0],[−1,0],[1,−1]], W2 = [1,−1,−1]",
		"(x, y) ∈ ℝ²", proofs.Proved, one(minCase(blocks.Min("x", "y", "min")))),
	claim("ffn.max.exact", secMinMax, "sec:ffnn_minmax",
		"max(x, y) = ReLU(x) − ReLU(−x) + ReLU(y − x) with W1 = [[1,0],[−1,0],[−1,1]], W2 = [1,−1,1]",
		"(x, y) ∈ ℝ²", proofs.Proved, one(maxCase(xy(blocks.Max)))),
	claim("ffn.max.padded", secMinMax, "sec:ffnn_minmax",
		"zero-padding max.W2 to 2×3 and max.b2 to ℝ² makes the output of a max component in ℝ²: (max(x, y), 0)",
		"(x, y) ∈ ℝ²", proofs.Proved, one(proofs.FFNCase{Label: "padded max", F: paddedMax(), Domain: proofs.Space(2), Pieces: []cpwl.Piece{
			proofs.Piece(proofs.Halfspaces(2, proofs.Row("1", "-1", "0")), proofs.Affine(proofs.Rows(proofs.Row("0", "1"), proofs.Row("0", "0")))),
			proofs.Piece(proofs.Halfspaces(2, proofs.Row("-1", "1", "0")), proofs.Affine(proofs.Rows(proofs.Row("1", "0"), proofs.Row("0", "0"))))}})),
	claim("ffn.add.exact", secAdd, "sec:ffnn_addition",
		"add(x, y) = ReLU(x) − ReLU(−x) + ReLU(y) − ReLU(−y) = x + y",
		"(x, y) ∈ ℝ²", proofs.Proved, one(addCase(xy(blocks.Add)))),
	claim("ffn.sub.exact", secAdd, "sec:ffnn_addition",
		"\"or subtraction\": add's W1 with W2 = [1, −1, −1, 1] gives x − y",
		"(x, y) ∈ ℝ²", proofs.Proved, one(subCase(xy(blocks.Sub)))),
	claim("ffn.scale.exact", secMul, "sec:ffnn_multiplication",
		"multiplication by a constant c: the identity recipe with the routing lemma to premultiply or postmultiply by c computes c·x",
		"x ∈ ℝ and every c ∈ ℚ, both postmultiplied (W2 scaled) and premultiplied (W1 scaled): the identity's proof and the scaling", proofs.Proved,
		everyConstant(scaleBlock, preScaleBlock, scaleConstants, identityBlock(1))),
}
