package blocks_test

import (
	"math/big"
	"strings"
	"testing"

	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/numeric"
	"github.com/transformer-cookbook/verify/recipes/blocks"
	"github.com/transformer-cookbook/verify/recipes/stream"
)

// ffCase is one feed-forward block: the weights the paper prints for it
// (§Feed-Forward Layers), and its values at hand-picked points, each
// derived by hand from the paper's formula for the block.
type ffCase struct {
	name string
	f    *stream.FF
	w    ffWeights
	pts  []point
}

func mustFF(f *stream.FF, err error) *stream.FF {
	if err != nil {
		panic(err)
	}
	return f
}

func ffCases() []ffCase {
	x, xy := []string{"x"}, []string{"x", "y"}
	return []ffCase{
		// §Continuous Piecewise Linear Functions, through (−1, 2), (0, 0),
		// (1, 1), (3, −1): slopes m = (−2, 1, −1), knots x_2 = 0, x_3 = 1;
		// W1 = [−1; 1; 1; 1], b1 = [0; 0; −x_2; −x_3] = [0; 0; 0; −1],
		// W2 = [−m_1, m_1, m_2 − m_1, m_3 − m_2] = [2, −2, 3, −2],
		// b2 = y_1 − m_1 x_1 = 2 − (−2)(−1) = 0.
		{"cpwl(4 points)", mustFF(blocks.CPWL("x", "y", []*big.Rat{q("-1"), q("0"), q("1"), q("3")}, []*big.Rat{q("2"), q("0"), q("1"), q("-1")})),
			ffWeights{in: x, out: []string{"y"}, w1: "-1; 1; 1; 1", b1: "0 0 0 -1", w2: "2 -2 3 -2", b2: "0"},
			[]point{
				{"x=-1", "y=2"},    // f(x_1) = y_1
				{"x=0", "y=0"},     // f(x_2) = y_2 (knot)
				{"x=1", "y=1"},     // f(x_3) = y_3 (knot)
				{"x=3", "y=-1"},    // f(x_4) = y_4
				{"x=1/2", "y=1/2"}, // piece 2: y_2 + m_2(x − x_2) = 0 + 1/2
				{"x=2", "y=0"},     // piece 3: y_3 + m_3(x − x_3) = 1 − 1
				{"x=-3", "y=6"},    // first piece extended: y_1 + m_1(x − x_1) = 2 + (−2)(−2)
				{"x=7", "y=-5"},    // last piece extended: y_4 + m_3(x − x_4) = −1 − 4
			}},
		// CPWL with the minimum n = 2 pieces, through (1, 1), (2, 3), (4, 3):
		// m = (2, 0), knot x_2 = 2; W1 = [−1; 1; 1], b1 = [0; 0; −2],
		// W2 = [−2, 2, 0 − 2], b2 = 1 − 2·1 = −1.
		{"cpwl(3 points)", mustFF(blocks.CPWL("x", "y", []*big.Rat{q("1"), q("2"), q("4")}, []*big.Rat{q("1"), q("3"), q("3")})),
			ffWeights{in: x, out: []string{"y"}, w1: "-1; 1; 1", b1: "0 0 -2", w2: "-2 2 -2", b2: "-1"},
			[]point{
				{"x=1", "y=1"},   // f(x_1) = y_1
				{"x=2", "y=3"},   // f(x_2) = y_2
				{"x=4", "y=3"},   // f(x_3) = y_3
				{"x=3/2", "y=2"}, // 1 + 2(1/2)
				{"x=0", "y=-1"},  // 1 + 2(0 − 1)
				{"x=10", "y=3"},  // last piece has slope 0
			}},
		// §Identity Function, eqn:ffwd_id_parallel_d2 with d = 2:
		// W1 = [I; −I], W2 = [I, −I], b = 0; id(x) = ReLU(x) − ReLU(−x) = x.
		{"identity", blocks.Identity(xy, []string{"u", "v"}),
			ffWeights{in: xy, out: []string{"u", "v"}, w1: "1 0; 0 1; -1 0; 0 -1", w2: "1 0 -1 0; 0 1 0 -1"},
			[]point{
				{"x=3/2 y=-7", "u=3/2 v=-7"}, // id(x) = x
				{"x=0 y=0", "u=0 v=0"},       // id(0) = 0
			}},
		// §Multiplication, "multiply by c": the identity recipe with W2
		// postmultiplied by c = −3/2: W2 = c[I, −I].
		{"scale", blocks.Scale(x, []string{"u"}, q("-3/2")),
			ffWeights{in: x, out: []string{"u"}, w1: "1; -1", w2: "-3/2 3/2"},
			[]point{
				{"x=2", "u=-3"},     // −3/2 · 2
				{"x=-1/3", "u=1/2"}, // −3/2 · −1/3
				{"x=0", "u=0"},      // c·0
			}},
		// §Identity Function: zero.W1 = zero.W2 = 0_{d×d}, b = 0; with the
		// residual connection x + zero(x) = x.
		{"zero", blocks.Zero(xy),
			ffWeights{in: xy, out: xy, acc: true, w1: "0 0; 0 0", w2: "0 0; 0 0"},
			[]point{
				{"x=5 y=-1/2", "x=5 y=-1/2"}, // x + 0
			}},
		// §Min and Max: min.W1 = [[1, 0], [−1, 0], [1, −1]], W2 = [1, −1, −1];
		// min = ReLU(x) − ReLU(−x) − ReLU(x − y) = x − ReLU(x − y).
		{"min", blocks.Min("x", "y", "m"),
			ffWeights{in: xy, out: []string{"m"}, w1: "1 0; -1 0; 1 -1", w2: "1 -1 -1"},
			[]point{
				{"x=3 y=-2", "m=-2"},     // 3 − ReLU(5)
				{"x=-1/2 y=4", "m=-1/2"}, // −1/2 − ReLU(−9/2)
				{"x=2 y=2", "m=2"},       // tie: 2 − ReLU(0)
				{"x=-3 y=-5", "m=-5"},    // −3 − ReLU(2)
			}},
		// §Min and Max: max.W1 = [[1, 0], [−1, 0], [−1, 1]], W2 = [1, −1, 1];
		// max = x + ReLU(y − x).
		{"max", blocks.Max("x", "y", "m"),
			ffWeights{in: xy, out: []string{"m"}, w1: "1 0; -1 0; -1 1", w2: "1 -1 1"},
			[]point{
				{"x=3 y=-2", "m=3"},   // 3 + ReLU(−5)
				{"x=-1/2 y=4", "m=4"}, // −1/2 + ReLU(9/2)
				{"x=2 y=2", "m=2"},    // tie: 2 + ReLU(0)
				{"x=-3 y=-5", "m=-3"}, // −3 + ReLU(−2)
			}},
		// §Addition and Subtraction: add.W1 = [[1, 0], [−1, 0], [0, 1],
		// [0, −1]], W2 = [1, −1, 1, −1]; add = ReLU(x) − ReLU(−x) + ReLU(y) − ReLU(−y).
		{"add", blocks.Add("x", "y", "s"),
			ffWeights{in: xy, out: []string{"s"}, w1: "1 0; -1 0; 0 1; 0 -1", w2: "1 -1 1 -1"},
			[]point{
				{"x=3 y=-2", "s=1"},         // 3 + (−2)
				{"x=-1/2 y=-1/3", "s=-5/6"}, // −1/2 − 1/3
			}},
		// Subtraction ("or subtraction, or any linear function"): add's W1,
		// W2 = [1, −1, −1, 1]: x − y.
		{"sub", blocks.Sub("x", "y", "s"),
			ffWeights{in: xy, out: []string{"s"}, w1: "1 0; -1 0; 0 1; 0 -1", w2: "1 -1 -1 1"},
			[]point{
				{"x=3 y=-2", "s=5"},         // 3 − (−2)
				{"x=-1/2 y=-1/3", "s=-1/6"}, // −1/2 + 1/3
			}},
		// §Comparisons, GTZero_ε with ε = 1/3: W1 = [1; 1], b1 = [0; −ε],
		// W2 = [1/ε, −1/ε] = [3, −3]; GTZero_ε(x) = ReLU(x/ε) − ReLU(x/ε − 1).
		{"GTZero_1/3", blocks.GTZeroEps("x", "g", q("1/3"), q("0")),
			ffWeights{in: x, out: []string{"g"}, w1: "1; 1", b1: "0 -1/3", w2: "3 -3"},
			[]point{
				{"x=-1", "g=0"},      // x ≤ 0: 0
				{"x=0", "g=0"},       // boundary x = 0: 0
				{"x=1/30", "g=1/10"}, // gray region: x/ε = (1/30)·3
				{"x=1/6", "g=1/2"},   // gray region: x = ε/2 gives 1/2
				{"x=1/3", "g=1"},     // boundary x = ε: 1
				{"x=5", "g=1"},       // x ≥ ε: 1
			}},
		// §First: GTZero_{1/3}(c − 1/3), the threshold shifted by a = 1/3:
		// b1 = [−a; −a − ε] = [−1/3; −2/3], W2 = [3, −3].
		{"GTZero_1/3(c − 1/3)", blocks.GTZeroEps("c", "first", q("1/3"), q("1/3")),
			ffWeights{in: []string{"c"}, out: []string{"first"}, w1: "1; 1", b1: "-1/3 -2/3", w2: "3 -3"},
			[]point{
				{"c=1", "first=1"},     // i = 1: c = 1, c − 1/3 = 2/3 ≥ ε
				{"c=1/3", "first=0"},   // i > 1: c ≤ 1/3 (the paper's bound, i = 3), c − 1/3 = 0
				{"c=0", "first=0"},     // i = 2: c = (−(−1) − 1)/2 = 0
				{"c=1/2", "first=1/2"}, // gray: (1/2 − 1/3)/(1/3)
				{"c=2/3", "first=1"},   // boundary c − 1/3 = ε
			}},
		// §Comparisons, GEZero_ε with ε = 1/2: b1 = [ε; 0], W2 = [2, −2];
		// GEZero_ε(x) = ReLU(x/ε + 1) − ReLU(x/ε).
		{"GEZero_1/2", blocks.GEZeroEps("x", "g", q("1/2"), q("0")),
			ffWeights{in: x, out: []string{"g"}, w1: "1; 1", b1: "1/2 0", w2: "2 -2"},
			[]point{
				{"x=-1", "g=0"},     // x ≤ −ε: 0
				{"x=-1/2", "g=0"},   // boundary x = −ε: 0
				{"x=-1/4", "g=1/2"}, // gray: 1 + x/ε = 1 − 1/2
				{"x=-1/8", "g=3/4"}, // gray: 1 − 1/4
				{"x=0", "g=1"},      // boundary x = 0: 1
				{"x=4", "g=1"},      // x ≥ 0: 1
			}},
		// GEZero_{1/2}(x − 1): b1 = [ε − a; −a] = [−1/2; −1].
		{"GEZero_1/2(x − 1)", blocks.GEZeroEps("x", "g", q("1/2"), q("1")),
			ffWeights{in: x, out: []string{"g"}, w1: "1; 1", b1: "-1/2 -1", w2: "2 -2"},
			[]point{
				{"x=1", "g=1"},     // x − a = 0: 1
				{"x=1/2", "g=0"},   // x − a = −ε: 0
				{"x=3/4", "g=1/2"}, // gray: 1 + (−1/4)/(1/2)
			}},
		// §Comparisons, EqZero_ε with ε = 1/2: b1 = [ε; 0; −ε], W2 = [1/ε,
		// −2/ε, 1/ε] = [2, −4, 2]; EqZero_ε(x) = 1 − |x/ε| on |x| < ε, else 0.
		{"EqZero_1/2", blocks.EqZeroEps("x", "e", q("1/2"), q("0")),
			ffWeights{in: x, out: []string{"e"}, w1: "1; 1; 1", b1: "1/2 0 -1/2", w2: "2 -4 2"},
			[]point{
				{"x=0", "e=1"},      // x = 0: 1
				{"x=1/2", "e=0"},    // boundary |x| = ε: 0
				{"x=-1/2", "e=0"},   // boundary |x| = ε: 0
				{"x=1/4", "e=1/2"},  // gray: 1 − (1/4)/(1/2)
				{"x=-1/8", "e=3/4"}, // gray: 1 − (1/8)/(1/2)
				{"x=3", "e=0"},      // |x| ≥ ε: 0
				{"x=-3", "e=0"},     // |x| ≥ ε: 0
			}},
		// EqZero_1(x + 1): b1 = [ε − a; −a; −ε − a] = [2; 1; 0], W2 = [1, −2, 1].
		{"EqZero_1(x + 1)", blocks.EqZeroEps("x", "e", q("1"), q("-1")),
			ffWeights{in: x, out: []string{"e"}, w1: "1; 1; 1", b1: "2 1 0", w2: "1 -2 1"},
			[]point{
				{"x=-1", "e=1"},     // x − a = 0: 1
				{"x=0", "e=0"},      // x − a = ε: 0
				{"x=-3/2", "e=1/2"}, // gray: 1 − 1/2
				{"x=-2", "e=0"},     // x − a = −ε: 0
			}},
		// §Comparisons, GTZero(x, ε): W1 = [[1, 0], [1, −1]], b1 = 0,
		// W2 = [1, −1]; GTZero(x, ε) = ReLU(x) − ReLU(x − ε).
		{"GTZero(x, ε)", blocks.GTZero("x", "e", "g"),
			ffWeights{in: []string{"x", "e"}, out: []string{"g"}, w1: "1 0; 1 -1", w2: "1 -1"},
			[]point{
				{"x=-1 e=1/2", "g=0"},    // x ≤ 0: 0
				{"x=0 e=1/2", "g=0"},     // boundary x = 0: 0
				{"x=1/4 e=1/2", "g=1/4"}, // gray: x
				{"x=1/2 e=1/2", "g=1/2"}, // boundary x = ε: ε
				{"x=3 e=1/2", "g=1/2"},   // x ≥ ε: ε
				{"x=2 e=0", "g=0"},       // ε = 0 (outside ε > 0): ReLU(2) − ReLU(2)
			}},
		// §Comparisons, GEZero(x, ε): W1 = [[1, 1], [1, 0]], W2 = [1, −1];
		// GEZero(x, ε) = ReLU(x + ε) − ReLU(x).
		{"GEZero(x, ε)", blocks.GEZero("x", "e", "g"),
			ffWeights{in: []string{"x", "e"}, out: []string{"g"}, w1: "1 1; 1 0", w2: "1 -1"},
			[]point{
				{"x=-1 e=1/2", "g=0"},     // x ≤ −ε: 0
				{"x=-1/2 e=1/2", "g=0"},   // boundary x = −ε: 0
				{"x=-1/4 e=1/2", "g=1/4"}, // gray: x + ε
				{"x=0 e=1/2", "g=1/2"},    // boundary x = 0: ε
				{"x=5 e=1/2", "g=1/2"},    // x ≥ 0: ε
			}},
		// §Comparisons, EqZero(x, ε): W1 = [[1, 1], [1, 0], [1, −1]],
		// W2 = [1, −2, 1]; EqZero(x, ε) = ReLU(x + ε) − 2ReLU(x) + ReLU(x − ε).
		{"EqZero(x, ε)", blocks.EqZero("x", "e", "g"),
			ffWeights{in: []string{"x", "e"}, out: []string{"g"}, w1: "1 1; 1 0; 1 -1", w2: "1 -2 1"},
			[]point{
				{"x=0 e=1/2", "g=1/2"},    // x = 0: ε
				{"x=1/2 e=1/2", "g=0"},    // boundary |x| = ε: 0
				{"x=-1/2 e=1/2", "g=0"},   // boundary |x| = ε: 0
				{"x=1/8 e=1/2", "g=3/8"},  // gray: ε − |x|
				{"x=-1/4 e=1/2", "g=1/4"}, // gray: ε − |x|
				{"x=2 e=1/2", "g=0"},      // |x| ≥ ε: 0
			}},
		// §Boolean Functions, ff_φ for φ = XOR, m = 2: rows (2ξ_k − 1)ᵀ for
		// ξ = 00, 01, 10, 11; b1 = 1 − 1·ξ_k = [1, 0, 0, −1]; W2 = φ(ξ_k).
		{"ff_xor", mustFF(blocks.Boolean(xy, "z", []bool{false, true, true, false})),
			ffWeights{in: xy, out: []string{"z"}, w1: "-1 -1; -1 1; 1 -1; 1 1", b1: "1 0 0 -1", w2: "0 1 1 0"},
			[]point{
				{"x=0 y=0", "z=0"}, // φ(0, 0)
				{"x=0 y=1", "z=1"}, // φ(0, 1)
				{"x=1 y=0", "z=1"}, // φ(1, 0)
				{"x=1 y=1", "z=0"}, // φ(1, 1)
				// outside {0,1}²: h = ReLU((2ξ−1)·x + 1 − 1·ξ) = (0, 0, 0, 0) at (1/2, 1/2)
				{"x=1/2 y=1/2", "z=0"},
				// at (1, 1/2): h = (0, 0, 1/2, 1/2), y = h_1 + h_2 = 1/2
				{"x=1 y=1/2", "z=1/2"},
			}},
		// ff_φ for majority of m = 3, as the paper prints it: first row all −1,
		// second (−1, −1, 1), third (−1, 1, −1), last all 1; b1 = [1, 0, 0, −1,
		// 0, −1, −1, −m + 1 = −2]; W2 = maj(ξ_k) for ξ_k = k in binary.
		{"ff_maj", mustFF(blocks.Boolean([]string{"a", "b", "c"}, "z", []bool{false, false, false, true, false, true, true, true})),
			ffWeights{in: []string{"a", "b", "c"}, out: []string{"z"},
				w1: "-1 -1 -1; -1 -1 1; -1 1 -1; -1 1 1; 1 -1 -1; 1 -1 1; 1 1 -1; 1 1 1",
				b1: "1 0 0 -1 0 -1 -1 -2", w2: "0 0 0 1 0 1 1 1"},
			[]point{
				{"a=0 b=0 c=0", "z=0"}, // maj(000)
				{"a=0 b=0 c=1", "z=0"}, // maj(001)
				{"a=0 b=1 c=0", "z=0"}, // maj(010)
				{"a=0 b=1 c=1", "z=1"}, // maj(011)
				{"a=1 b=0 c=0", "z=0"}, // maj(100)
				{"a=1 b=0 c=1", "z=1"}, // maj(101)
				{"a=1 b=1 c=0", "z=1"}, // maj(110)
				{"a=1 b=1 c=1", "z=1"}, // maj(111)
			}},
		// ff_φ for m = 1, φ = ¬: rows −1 (ξ = 0) and 1 (ξ = 1), b1 = [1, 0].
		{"ff_not", mustFF(blocks.Boolean(x, "z", []bool{true, false})),
			ffWeights{in: x, out: []string{"z"}, w1: "-1; 1", b1: "1 0", w2: "1 0"},
			[]point{
				{"x=0", "z=1"}, // ¬0 = ReLU(−0 + 1)
				{"x=1", "z=0"}, // ¬1 = ReLU(−1 + 1)
			}},
		// §Boolean Functions: "conjunction is equivalent to min": min's weights.
		{"and", blocks.And("x", "y", "z"),
			ffWeights{in: xy, out: []string{"z"}, w1: "1 0; -1 0; 1 -1", w2: "1 -1 -1"},
			[]point{
				{"x=0 y=0", "z=0"}, // min(0, 0)
				{"x=0 y=1", "z=0"}, // min(0, 1)
				{"x=1 y=0", "z=0"}, // min(1, 0)
				{"x=1 y=1", "z=1"}, // min(1, 1)
			}},
		// "disjunction is equivalent to max": max's weights.
		{"or", blocks.Or("x", "y", "z"),
			ffWeights{in: xy, out: []string{"z"}, w1: "1 0; -1 0; -1 1", w2: "1 -1 1"},
			[]point{
				{"x=0 y=0", "z=0"}, // max(0, 0)
				{"x=0 y=1", "z=1"}, // max(0, 1)
				{"x=1 y=0", "z=1"}, // max(1, 0)
				{"x=1 y=1", "z=1"}, // max(1, 1)
			}},
		// "negation is just 1 − x": W1 = [1; −1], W2 = [−1, 1], b2 = 1.
		{"not", blocks.Not("x", "z"),
			ffWeights{in: x, out: []string{"z"}, w1: "1; -1", w2: "-1 1", b2: "1"},
			[]point{
				{"x=0", "z=1"},     // 1 − 0
				{"x=1", "z=0"},     // 1 − 1
				{"x=1/3", "z=2/3"}, // 1 − x for every real x
				{"x=5", "z=-4"},    // 1 − 5
			}},
		// §Conditionals: if.W1 = [[1, 1, 0], [−1, 0, 1]], b1 = [−1; 0],
		// W2 = [1, 1]; if(p, x, y) = ReLU(p + x − 1) + ReLU(y − p).
		{"if", blocks.If("p", "x", "y", "o"),
			ffWeights{in: []string{"p", "x", "y"}, out: []string{"o"}, w1: "1 1 0; -1 0 1", b1: "-1 0", w2: "1 1"},
			[]point{
				{"p=1 x=1/3 y=2/3", "o=1/3"}, // ReLU(x) + ReLU(y − 1) = x
				{"p=0 x=1/3 y=2/3", "o=2/3"}, // ReLU(x − 1) + ReLU(y) = y
				{"p=1 x=0 y=1", "o=0"},       // boundary: ReLU(0) + ReLU(0)
				{"p=1 x=1 y=0", "o=1"},       // boundary: ReLU(1) + ReLU(−1)
				{"p=0 x=0 y=1", "o=1"},       // boundary: ReLU(−1) + ReLU(1)
				{"p=0 x=1 y=0", "o=0"},       // boundary: ReLU(0) + ReLU(0)
				{"p=1 x=1/2 y=2", "o=3/2"},   // y > 1 leaks: ReLU(1/2) + ReLU(2 − 1)
				{"p=1 x=-1 y=0", "o=0"},      // x < 0 is lost: ReLU(−1) + ReLU(−1)
				{"p=1/2 x=1 y=1", "o=1"},     // p ∉ {0,1}: ReLU(1/2) + ReLU(1/2)
			}},
		// §Conditionals on [a, b] = [−1, 3] (r = 4): W1 = [[r, 1, 0], [−r, 0, 1]],
		// b1 = [−a − r; −a] = [−3; 1], b2 = a = −1;
		// out = ReLU(x − a − r(1 − p)) + ReLU(y − a − rp) + a.
		{"if[−1, 3]", mustFF(blocks.IfInterval("p", "x", "y", "o", q("-1"), q("3"))),
			ffWeights{in: []string{"p", "x", "y"}, out: []string{"o"}, w1: "4 1 0; -4 0 1", b1: "-3 1", w2: "1 1", b2: "-1"},
			[]point{
				{"p=1 x=-1 y=3", "o=-1"},       // ReLU(0) + ReLU(0) − 1 = x
				{"p=0 x=-1 y=3", "o=3"},        // ReLU(−4) + ReLU(4) − 1 = y
				{"p=1 x=5/2 y=-1", "o=5/2"},    // ReLU(7/2) + ReLU(−4) − 1 = x
				{"p=0 x=5/2 y=-1/2", "o=-1/2"}, // ReLU(−1/2) + ReLU(1/2) − 1 = y
				{"p=1 x=3 y=3", "o=3"},         // ReLU(4) + ReLU(0) − 1
			}},
		// With [a, b] = [0, 1] these are if's weights (b2 = a = 0).
		{"if[0, 1]", mustFF(blocks.IfInterval("p", "x", "y", "o", q("0"), q("1"))),
			ffWeights{in: []string{"p", "x", "y"}, out: []string{"o"}, w1: "1 1 0; -1 0 1", b1: "-1 0", w2: "1 1", b2: "0"},
			[]point{
				{"p=1 x=1/3 y=2/3", "o=1/3"}, // x
				{"p=0 x=1/3 y=2/3", "o=2/3"}, // y
			}},
		// §Amplification, clip_δ with δ = 1/4: W1 = [1; 1], b1 = [δ; −δ],
		// W2 = [1, −1], b2 = −δ; clip = ReLU(x + δ) − ReLU(x − δ) − δ.
		{"clip_1/4", blocks.Clip("x", "c", q("1/4")),
			ffWeights{in: x, out: []string{"c"}, w1: "1; 1", b1: "1/4 -1/4", w2: "1 -1", b2: "-1/4"},
			[]point{
				{"x=-1", "c=-1/4"},   // ReLU(−3/4) − ReLU(−5/4) − 1/4
				{"x=-1/4", "c=-1/4"}, // boundary: ReLU(0) − 0 − 1/4
				{"x=0", "c=0"},       // ReLU(1/4) − 0 − 1/4
				{"x=1/8", "c=1/8"},   // ReLU(3/8) − 0 − 1/4
				{"x=1/4", "c=1/4"},   // boundary: 1/2 − 0 − 1/4
				{"x=7", "c=1/4"},     // 29/4 − 27/4 − 1/4
			}},
		// clip_δ on every component (δ = 1/2, d = 2): W1 = [I; I],
		// b1 = [δ1; −δ1], W2 = [I, −I], b2 = −δ1.
		{"clip_1/2 (vector)", blocks.ClipVector(xy, []string{"u", "v"}, q("1/2")),
			ffWeights{in: xy, out: []string{"u", "v"}, w1: "1 0; 0 1; 1 0; 0 1", b1: "1/2 1/2 -1/2 -1/2",
				w2: "1 0 -1 0; 0 1 0 -1", b2: "-1/2 -1/2"},
			[]point{
				{"x=3 y=-1/3", "u=1/2 v=-1/3"},   // clamp(3) = δ, clamp(−1/3) = −1/3
				{"x=-1/2 y=-2", "u=-1/2 v=-1/2"}, // boundary −δ, and clamp(−2) = −δ
			}},
		// §Canceling Residual Connections for f = clip_{1/2} (x → x):
		// W1′ = [W1; I; −I] = [1; 1; 1; −1], b1′ = [δ; −δ; 0; 0],
		// W2′ = [W2, −I, I] = [1, −1, −1, 1], b2′ = b2 = −δ; x + f′(x) = f(x).
		{"clip′", mustFF(blocks.CancelResidual(blocks.Clip("x", "x", q("1/2")))),
			ffWeights{in: x, out: x, acc: true, w1: "1; 1; 1; -1", b1: "1/2 -1/2 0 0", w2: "1 -1 -1 1", b2: "-1/2"},
			[]point{
				{"x=3", "x=1/2"},     // clip(3) = δ, the residual 3 canceled
				{"x=-1/4", "x=-1/4"}, // clip(−1/4) = −1/4
				{"x=-5", "x=-1/2"},   // clip(−5) = −δ
			}},
		// f = scale by 2 on (x, y) → (x, y): W1′ = [I; −I; I; −I],
		// W2′ = [2I, −2I, −I, I]; x + f′(x) = 2x.
		{"scale′", mustFF(blocks.CancelResidual(blocks.Scale(xy, xy, q("2")))),
			ffWeights{in: xy, out: xy, acc: true, w1: "1 0; 0 1; -1 0; 0 -1; 1 0; 0 1; -1 0; 0 -1",
				w2: "2 0 -2 0 -1 0 1 0; 0 2 0 -2 0 -1 0 1"},
			[]point{
				{"x=3 y=-1/2", "x=6 y=-1"}, // f(x) = 2x replaces x
			}},
	}
}

// TestFFNBlocks checks every ReLU block of ffn.go against the weights the
// paper prints (or, where it gives only a formula, the weights that
// formula names) and its values at hand-picked points, exactly.
func TestFFNBlocks(t *testing.T) {
	for _, c := range ffCases() {
		t.Run(c.name, func(t *testing.T) {
			ok(t, checkFF(c.f, c.w))
			ok(t, checkPoints(c.f, c.pts))
		})
	}
}

// TestFFNNames: the identity is named "id", other scalings "scale"
// (§Identity Function, §Multiplication), and And and Or keep their names.
func TestFFNNames(t *testing.T) {
	for _, c := range []struct{ got, want string }{
		{blocks.Identity([]string{"x"}, []string{"y"}).Name, "id"},
		{blocks.Scale([]string{"x"}, []string{"y"}, q("1")).Name, "id"},
		{blocks.Scale([]string{"x"}, []string{"y"}, q("2")).Name, "scale"},
		{blocks.And("x", "y", "z").Name, "and"},
		{blocks.Or("x", "y", "z").Name, "or"},
		{mustFF(blocks.CancelResidual(blocks.Clip("x", "x", q("1")))).Name, "clip_δ′"},
	} {
		if c.got != c.want {
			t.Errorf("name %q, want %q", c.got, c.want)
		}
	}
}

// TestFFNErrors: the constructors with preconditions refuse what the
// paper excludes.
func TestFFNErrors(t *testing.T) {
	gelu := blocks.Identity([]string{"x"}, []string{"x"})
	gelu.Activation = model.GELU
	bits17 := make([]string, 17)
	for k := range bits17 {
		bits17[k] = string(rune('a' + k))
	}
	for _, c := range []struct {
		name string
		err  error
		want string
	}{
		// §CPWL needs n + 1 = len(xs) = len(ys) points, n ≥ 2, x_1 < … < x_{n+1}.
		{"cpwl lengths", errOf(blocks.CPWL("x", "y", []*big.Rat{q("0"), q("1"), q("2")}, []*big.Rat{q("0"), q("1")})), "3 x values and 2 y values"},
		{"cpwl n = 1", errOf(blocks.CPWL("x", "y", []*big.Rat{q("0"), q("1")}, []*big.Rat{q("0"), q("1")})), "n ≥ 2"},
		{"cpwl order", errOf(blocks.CPWL("x", "y", []*big.Rat{q("0"), q("0"), q("1")}, []*big.Rat{q("0"), q("1"), q("2")})), "increase strictly"},
		// §Canceling Residual Connections: f maps R^d to R^d, itself.
		{"cancel 2→1", errOf(blocks.CancelResidual(blocks.Min("x", "y", "x"))), "maps 2 components to 1"},
		{"cancel order", errOf(blocks.CancelResidual(blocks.Identity([]string{"x", "y"}, []string{"y", "x"}))), "same components in the same order"},
		{"cancel GELU", errOf(blocks.CancelResidual(gelu)), "needs ReLU"},
		// §Boolean Functions: 1 ≤ m (≤ 16 here), a table of 2^m entries.
		{"boolean m = 0", errOf(blocks.Boolean(nil, "z", nil)), "1 to 16 inputs"},
		{"boolean m = 17", errOf(blocks.Boolean(bits17, "z", nil)), "1 to 16 inputs"},
		{"boolean table", errOf(blocks.Boolean([]string{"x", "y"}, "z", []bool{true})), "truth table of 4 entries"},
		// §Conditionals on a bounded interval [a, b], a < b.
		{"if a = b", errOf(blocks.IfInterval("p", "x", "y", "o", q("1"), q("1"))), "empty or a point"},
		{"if a > b", errOf(blocks.IfInterval("p", "x", "y", "o", q("2"), q("1"))), "empty or a point"},
	} {
		if c.err == nil || !strings.Contains(c.err.Error(), c.want) {
			t.Errorf("%s: error %v, want one containing %q", c.name, c.err, c.want)
		}
	}
}

func errOf(_ *stream.FF, err error) error { return err }

// TestMulGELU checks mul of §Multiplication: W1 = [[1, 1], [1, 0], [0, 1]],
// b = 0, W2 = √(π/2)[1, −1, −1], and its values, which are irrational, in
// certified interval arithmetic (interval:160): against values computed
// by hand from GELU's definition, and against the paper's error bound
// |mul(x, y) − xy| ≤ (|x| + |y|)³/4.
func TestMulGELU(t *testing.T) {
	// √(π/2) = 1.2533141373155002512078826424055226265… (40 digits, from
	// π/2 = 1.5707963267948966…).
	sqrtHalfPi := q("1.253314137315500251207882642405522626503")
	tol := q("1/1000000000000000000000000000000") // 1e-30
	lo, hi, err := blocks.SqrtHalfPi.Enclose(160)
	if err != nil {
		t.Fatal(err)
	}
	if err := compare(map[string][2]*big.Rat{"√(π/2)": {lo, hi}}, map[string]*big.Rat{"√(π/2)": sqrtHalfPi}, tol); err != nil {
		t.Error(err)
	}
	for _, act := range []model.Activation{model.GELU, model.GELUTanh} {
		f := blocks.MulGELU("x", "y", "z", act)
		if f.Activation != act || f.W1.Rows != 3 {
			t.Fatalf("mul(%v): activation %v, %d hidden units", act, f.Activation, f.W1.Rows)
		}
		ok(t, matEq(f.W1, "1 1; 1 0; 0 1"))
		ok(t, vecEq(f.B1, 3, ""))
		ok(t, vecEq(f.B2, 1, ""))
		// W2 = [√(π/2), −√(π/2), −√(π/2)]: each entry encloses ±√(π/2).
		for k, sign := range []string{"1", "-1", "-1"} {
			lo, hi, err := f.W2.At(0, k).Enclose(160)
			if err != nil {
				t.Fatal(err)
			}
			want := new(big.Rat).Mul(q(sign), sqrtHalfPi)
			if err := compare(map[string][2]*big.Rat{"W2": {lo, hi}}, map[string]*big.Rat{"W2": want}, tol); err != nil {
				t.Errorf("mul(%v) W2[%d]: %v", act, k+1, err)
			}
		}
	}

	// Hand values: GELU(0) = 0, so mul(0, 0) = 0 for either GELU.
	// erf form: mul(1, −1) = √(π/2)(GELU(0) − GELU(1) − GELU(−1))
	//   = −√(π/2)(Φ(1) − Φ(−1)) = −√(π/2) erf(1/√2) (erf(1/√2) = 0.6826894921…,
	//   the "68%" of the normal law) = −0.85562439189214880317…
	// erf form: mul(1, 1) = √(π/2)(2Φ(2) − 2Φ(1)) = √(2π)(Φ(2) − Φ(1))
	//   (Φ(2) − Φ(1) = 0.1359051219…) = 0.34066362143045939975…
	// tanh form: GELU(1) + GELU(−1) = tanh(√(2/π)(1 + 0.044715)), so
	//   mul(1, −1) = −√(π/2) tanh(√(2/π)·1.044715) = −0.85524149073634116411…
	tol = q("1/1000000000000000000") // 1e-18: the hand values carry 20 digits
	for _, c := range []struct {
		act  model.Activation
		in   string
		want string
	}{
		{model.GELU, "x=0 y=0", "z=0"},
		{model.GELUTanh, "x=0 y=0", "z=0"},
		{model.GELU, "x=1 y=-1", "z=-0.85562439189214880317"},
		{model.GELU, "x=1 y=1", "z=0.34066362143045939975"},
		{model.GELUTanh, "x=1 y=-1", "z=-0.85524149073634116411"},
	} {
		if err := checkSeq("interval:160", blocks.MulGELU("x", "y", "z", c.act), []string{c.in}, []string{c.want}, tol); err != nil {
			t.Errorf("mul(%v): %v", c.act, err)
		}
	}

	// The paper's bound |ε(x, y)| ≤ (|x| + |y|)³/4, on the whole enclosure.
	for _, act := range []model.Activation{model.GELU, model.GELUTanh} {
		for _, in := range []string{"x=1/10 y=1/5", "x=-1/2 y=1/3", "x=1 y=1", "x=2 y=-1", "x=-1/100 y=-1/100"} {
			p := vals(in)
			got, err := evalBlock("interval:160", blocks.MulGELU("x", "y", "z", act), []map[string]*big.Rat{p})
			if err != nil {
				t.Fatal(err)
			}
			xy := new(big.Rat).Mul(p["x"], p["y"])
			s := new(big.Rat).Add(new(big.Rat).Abs(p["x"]), new(big.Rat).Abs(p["y"]))
			bound := new(big.Rat).Quo(new(big.Rat).Mul(s, new(big.Rat).Mul(s, s)), big.NewRat(4, 1))
			if err := compare(got[0], map[string]*big.Rat{"z": xy}, bound); err != nil {
				t.Errorf("mul(%v) at %s: outside xy ± (|x| + |y|)³/4: %v", act, in, err)
			}
		}
	}
}

// TestFFNNegativeControls: a block with one weight perturbed fails the
// checks above, so they can fail.
func TestFFNNegativeControls(t *testing.T) {
	cases := ffCases()
	find := func(name string) ffCase {
		for _, c := range cases {
			if c.name == name {
				return c
			}
		}
		t.Fatalf("no case %q", name)
		return ffCase{}
	}

	// GTZero_{1/3} with W2 = [3, −29/10] instead of [3, −3]: at x = 5 it
	// gives 3·5 − (29/10)(14/3) = 22/15, not 1.
	c := find("GTZero_1/3")
	f := cloneFF(c.f)
	f.W2.Set(0, 1, numeric.Frac(-29, 10))
	mustFail(t, "GTZero_1/3 W2[2] weights", checkFF(f, c.w))
	mustFail(t, "GTZero_1/3 W2[2] values", checkPoints(f, c.pts))
	if err := checkFF(c.f, c.w); err != nil {
		t.Errorf("perturbing the copy changed the block: %v", err)
	}

	// EqZero_{1/2} with b1[3] = −1/4 instead of −ε: at x = 1/2 the third unit
	// gives 2·ReLU(1/4) = 1/2, so the output is 1/2, not 0.
	c = find("EqZero_1/2")
	f = cloneFF(c.f)
	f.B1[2] = numeric.Frac(-1, 4)
	mustFail(t, "EqZero_1/2 b1[3] weights", checkFF(f, c.w))
	mustFail(t, "EqZero_1/2 b1[3] values", checkPoints(f, c.pts))

	// if with b1[1] = 0 instead of −1: if(1, x, y) = ReLU(1 + x) + ReLU(y − 1) = 1 + x.
	c = find("if")
	f = cloneFF(c.f)
	f.B1[0] = numeric.LitInt(0)
	mustFail(t, "if b1[1] weights", checkFF(f, c.w))
	mustFail(t, "if b1[1] values", checkPoints(f, c.pts))

	// ff_xor with W2 = [0, 1, 1, 1] (φ(1, 1) = 1: OR, not XOR): at (1, 1)
	// the output is h_3 = 1, not 0.
	c = find("ff_xor")
	f = cloneFF(c.f)
	f.W2.Set(0, 3, numeric.LitInt(1))
	mustFail(t, "ff_xor W2[4] weights", checkFF(f, c.w))
	mustFail(t, "ff_xor W2[4] values", checkPoints(f, c.pts))
}
