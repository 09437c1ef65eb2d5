package proofs

import (
	"fmt"
	"math/big"

	"github.com/transformer-cookbook/verify/exact"
	"github.com/transformer-cookbook/verify/exact/cpwl"
	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/numeric"
	"github.com/transformer-cookbook/verify/recipes/blocks"
	"github.com/transformer-cookbook/verify/recipes/stream"
)

// ---------------------------------------------------------------------
// §Identity Function, §Min and Max, §Addition and Subtraction,
// §Multiplication (by a constant)

// ffIdentityMap is x ↦ c x on ℝ^d.
func ffIdentityMap(d int, c string) exact.Affine {
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
	return affine(rs)
}

// ffIdentityCases: id = ReLU(x) − ReLU(−x) is x on ℝ^d for each d.
func ffIdentityCases(ds ...int) []ffnCase {
	var cs []ffnCase
	for _, d := range ds {
		xs := ffNames("x", d)
		cs = append(cs, ffnCase{label: fmt.Sprintf("d = %d", d), f: blocks.Identity(xs, ffNames("y", d)), domain: space(d),
			pieces: []cpwl.Piece{piece(space(d), ffIdentityMap(d, "1"))}})
	}
	return cs
}

var ffScaleConstants = []string{"0", "1", "-3/2", "7", "1/3"}

func ffScaleBlock(c *big.Rat) *stream.FF { return blocks.Scale([]string{"x"}, []string{"y"}, c) }

// ffPreScaleBlock is the identity premultiplied by c: W1 scaled.
func ffPreScaleBlock(c *big.Rat) *stream.FF {
	pre := ffIdentityBlock(1)
	pre.W1 = pre.W1.Scale(numeric.Lit(c))
	return pre
}

// ffIdentityBlock is eqn:ffwd_id_parallel_d2's identity on ℝ^d.
func ffIdentityBlock(d int) *stream.FF { return blocks.Identity(ffNames("x", d), ffNames("y", d)) }

func ffMinCase(f *stream.FF) ffnCase {
	return ffnCase{label: "min", f: f, domain: space(2), pieces: []cpwl.Piece{
		piece(halfspaces(2, ffRow("1", "-1", "0")), affine(ffRows(ffRow("1", "0")))),
		piece(halfspaces(2, ffRow("-1", "1", "0")), affine(ffRows(ffRow("0", "1"))))}}
}

func ffMaxCase(f *stream.FF) ffnCase {
	return ffnCase{label: "max", f: f, domain: space(2), pieces: []cpwl.Piece{
		piece(halfspaces(2, ffRow("1", "-1", "0")), affine(ffRows(ffRow("0", "1")))),
		piece(halfspaces(2, ffRow("-1", "1", "0")), affine(ffRows(ffRow("1", "0"))))}}
}

func ffAddCase(f *stream.FF) ffnCase {
	return ffnCase{label: "add", f: f, domain: space(2), pieces: []cpwl.Piece{piece(space(2), affine(ffRows(ffRow("1", "1"))))}}
}

func ffSubCase(f *stream.FF) ffnCase {
	return ffnCase{label: "sub", f: f, domain: space(2), pieces: []cpwl.Piece{piece(space(2), affine(ffRows(ffRow("1", "-1"))))}}
}

// ffPaddedMax is max with W2 zero-padded to 2×3 and b2 to ℝ², as §Min and
// Max suggests "to make the output of a max component in ℝ²".
func ffPaddedMax() *stream.FF {
	f := blocks.Max("x", "y", "m")
	w2 := model.Zeros(2, 3)
	for k := 0; k < 3; k++ {
		w2.Set(0, k, f.W2.At(0, k))
	}
	f.Out, f.W2, f.B2 = []string{"m", "pad"}, w2, make(model.Vector, 2)
	return f
}

// ffXY is the two-input block f over x, y with output out.
func ffXY(f func(x, y, out string) *stream.FF) *stream.FF { return f("x", "y", "out") }

func init() {
	Register(
		ffClaim("ffn.identity.scalar", ffSecIdentity, "sec:ffnn_identity",
			"eq:identity: W1 = [1; −1], W2 = [1, −1], b = 0: id(x) = ReLU(x) − ReLU(−x) = x",
			"x ∈ ℝ", Proved, ffAll(ffIdentityCases(1)...)),
		ffClaim("ffn.identity.vector", ffSecIdentity, "sec:ffnn_identity",
			"eqn:ffwd_id_parallel_d2: W1 = [I^d; −I^d], W2 = [I^d, −I^d], b = 0 computes id on ℝ^d",
			"x ∈ ℝ^d, every d ≥ 1 (the proof at d = 1, coordinatewise)", Proved, ffEveryWidth(ffIdentityBlock, []int{2, 3, 4, 16}, ffAll(ffIdentityCases(1)...))),
		ffClaim("ffn.zero.residual", ffSecIdentity, "sec:ffnn_identity",
			"the zero FFN (all weights and biases 0) satisfies x + zero(x) = x",
			"x ∈ ℝ^d, every d ≥ 1: zero(x) = 0 (the proof at d = 1, coordinatewise)", Proved,
			ffEveryWidth(func(d int) *stream.FF { return blocks.Zero(ffNames("x", d)) }, []int{2, 3, 16},
				ffAll(ffnCase{label: "d = 1", f: blocks.Zero(ffNames("x", 1)), domain: space(1), pieces: []cpwl.Piece{piece(space(1), ffIdentityMap(1, "0"))}}))),
		ffClaim("ffn.min.exact", ffSecMinMax, "sec:ffnn_minmax",
			"min(x, y) = ReLU(x) − ReLU(−x) − ReLU(x − y) with W1 = [[1,0],[−1,0],[1,−1]], W2 = [1,−1,−1]",
			"(x, y) ∈ ℝ²", Proved, ffOne(ffMinCase(blocks.Min("x", "y", "min")))),
		ffClaim("ffn.max.exact", ffSecMinMax, "sec:ffnn_minmax",
			"max(x, y) = ReLU(x) − ReLU(−x) + ReLU(y − x) with W1 = [[1,0],[−1,0],[−1,1]], W2 = [1,−1,1]",
			"(x, y) ∈ ℝ²", Proved, ffOne(ffMaxCase(ffXY(blocks.Max)))),
		ffClaim("ffn.max.padded", ffSecMinMax, "sec:ffnn_minmax",
			"zero-padding max.W2 to 2×3 and max.b2 to ℝ² makes the output of a max component in ℝ²: (max(x, y), 0)",
			"(x, y) ∈ ℝ²", Proved, ffOne(ffnCase{label: "padded max", f: ffPaddedMax(), domain: space(2), pieces: []cpwl.Piece{
				piece(halfspaces(2, ffRow("1", "-1", "0")), affine(ffRows(ffRow("0", "1"), ffRow("0", "0")))),
				piece(halfspaces(2, ffRow("-1", "1", "0")), affine(ffRows(ffRow("1", "0"), ffRow("0", "0"))))}})),
		ffClaim("ffn.add.exact", ffSecAdd, "sec:ffnn_addition",
			"add(x, y) = ReLU(x) − ReLU(−x) + ReLU(y) − ReLU(−y) = x + y",
			"(x, y) ∈ ℝ²", Proved, ffOne(ffAddCase(ffXY(blocks.Add)))),
		ffClaim("ffn.sub.exact", ffSecAdd, "sec:ffnn_addition",
			"\"or subtraction\": add's W1 with W2 = [1, −1, −1, 1] gives x − y",
			"(x, y) ∈ ℝ²", Proved, ffOne(ffSubCase(ffXY(blocks.Sub)))),
		ffClaim("ffn.scale.exact", ffSecMul, "sec:ffnn_multiplication",
			"multiplication by a constant c: the identity recipe with the routing lemma to premultiply or postmultiply by c computes c·x",
			"x ∈ ℝ and every c ∈ ℚ, both postmultiplied (W2 scaled) and premultiplied (W1 scaled): the identity's proof and the scaling", Proved,
			ffEveryConstant(ffScaleBlock, ffPreScaleBlock, ffScaleConstants, ffIdentityBlock(1))),
	)
}
