package blocks

import (
	"fmt"
	"math/big"

	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/numeric"
	"github.com/transformer-cookbook/verify/recipes/stream"
)

func lit(r *big.Rat) numeric.Expr { return numeric.Lit(r) }

func neg(r *big.Rat) *big.Rat { return new(big.Rat).Neg(r) }

func inv(r *big.Rat) *big.Rat { return new(big.Rat).Inv(r) }

// CPWL is the univariate continuous piecewise linear function of
// §Continuous Piecewise Linear Functions through the points (xs[k], ys[k]),
// k = 1 … n+1, with x_1 < … < x_{n+1} and n ≥ 2 pieces: the first and
// last pieces extend to ±∞, the knots are x_2 … x_n. Hidden dimension
// n+1:
//
//	W1 = [−1; 1; …; 1], b1 = [0; 0; −x_2; …; −x_n],
//	W2 = [−m_1, m_1, m_2 − m_1, …, m_n − m_{n−1}], b2 = y_1 − m_1 x_1,
//
// with slopes m_k = (y_{k+1} − y_k)/(x_{k+1} − x_k). Exact on all of ℝ.
func CPWL(in, out string, xs, ys []*big.Rat) (*stream.FF, error) {
	n := len(xs) - 1
	if len(ys) != len(xs) {
		return nil, fmt.Errorf("cpwl: %d x values and %d y values", len(xs), len(ys))
	}
	if n < 2 {
		return nil, fmt.Errorf("cpwl: needs n ≥ 2 pieces, i.e. at least 3 points, got %d", len(xs))
	}
	for k := 1; k <= n; k++ {
		if xs[k].Cmp(xs[k-1]) <= 0 {
			return nil, fmt.Errorf("cpwl: the x values must increase strictly, but x_%d = %s ≥ x_%d = %s", k, xs[k-1].RatString(), k+1, xs[k].RatString())
		}
	}
	m := make([]*big.Rat, n+1) // m[1..n]
	for k := 1; k <= n; k++ {
		dy := new(big.Rat).Sub(ys[k], ys[k-1])
		dx := new(big.Rat).Sub(xs[k], xs[k-1])
		m[k] = dy.Quo(dy, dx)
	}
	f := &stream.FF{Name: "cpwl", In: []string{in}, Out: []string{out},
		W1: model.Zeros(n+1, 1), B1: make(model.Vector, n+1), W2: model.Zeros(1, n+1)}
	f.W1.Set(0, 0, numeric.LitInt(-1))
	f.W2.Set(0, 0, lit(neg(m[1])))
	f.W1.Set(1, 0, numeric.LitInt(1))
	f.W2.Set(0, 1, lit(m[1]))
	for k := 2; k <= n; k++ {
		f.W1.Set(k, 0, numeric.LitInt(1))
		f.B1[k] = lit(neg(xs[k-1])) // −x_k: xs is 0-based
		f.W2.Set(0, k, lit(new(big.Rat).Sub(m[k], m[k-1])))
	}
	b2 := new(big.Rat).Mul(m[1], xs[0])
	f.B2 = model.Vector{lit(b2.Sub(ys[0], b2))}
	return f, nil
}

// CancelResidual is f′ of §Canceling Residual Connections, for a block f
// that maps its components to themselves (f.Out = f.In):
//
//	W1′ = [W1; I; −I], b1′ = [b1; 0; 0], W2′ = [W2, −I, I], b2′ = b2,
//
// so that f′(x) + x = f(x) − ReLU(x) + ReLU(−x) + x = f(x): with the
// residual connection, the components are replaced by f(x) in place.
// Exact wherever f is.
func CancelResidual(f *stream.FF) (*stream.FF, error) {
	d := len(f.In)
	if len(f.Out) != d {
		return nil, fmt.Errorf("cancel residual: %s maps %d components to %d; it must map its components to themselves", f.Name, d, len(f.Out))
	}
	for k := range f.In {
		if f.In[k] != f.Out[k] {
			return nil, fmt.Errorf("cancel residual: %s reads %v and writes %v; they must be the same components in the same order", f.Name, f.In, f.Out)
		}
	}
	if f.Activation != model.ReLU {
		return nil, fmt.Errorf("cancel residual: the identity part needs ReLU, %s uses %s", f.Name, f.Activation)
	}
	h := f.W1.Rows
	g := &stream.FF{Name: f.Name + "′", In: f.In, Out: f.Out, Accumulate: true,
		W1: model.Zeros(h+2*d, d), B1: make(model.Vector, h+2*d), W2: model.Zeros(d, h+2*d), B2: f.B2}
	for r := 0; r < h; r++ {
		for c := 0; c < d; c++ {
			g.W1.Set(r, c, f.W1.At(r, c))
		}
		if f.B1 != nil {
			g.B1[r] = f.B1[r]
		}
		for c := 0; c < d; c++ {
			g.W2.Set(c, r, f.W2.At(c, r))
		}
	}
	for c := 0; c < d; c++ {
		g.W1.Set(h+c, c, numeric.LitInt(1))
		g.W1.Set(h+d+c, c, numeric.LitInt(-1))
		g.W2.Set(c, h+c, numeric.LitInt(-1))
		g.W2.Set(c, h+d+c, numeric.LitInt(1))
	}
	return g, nil
}

// Identity is the identity FFN of §Identity Function (equation
// eq:identity, and its d-dimensional form eqn:ffwd_id_parallel_d2):
// W1 = [I; −I], b1 = 0, W2 = [I, −I], b2 = 0, so that
// id(x) = ReLU(x) − ReLU(−x) = x, exactly, for every x ∈ ℝ^d. It reads
// in and writes out (one output per input).
func Identity(in, out []string) *stream.FF {
	return Scale(in, out, big.NewRat(1, 1))
}

// Scale multiplies by a constant c, the cheat sheet's "multiply by c"
// (§Multiplication: the identity recipe with the Routing Lemma
// postmultiplying by c): W1 = [I; −I], W2 = c[I, −I], so
// out = c ReLU(x) − c ReLU(−x) = c x, exactly.
func Scale(in, out []string, c *big.Rat) *stream.FF {
	d := len(in)
	f := &stream.FF{Name: "scale", In: in, Out: out, W1: model.Zeros(2*d, d), W2: model.Zeros(len(out), 2*d)}
	if c.Cmp(big.NewRat(1, 1)) == 0 {
		f.Name = "id"
	}
	for k := 0; k < d; k++ {
		f.W1.Set(k, k, numeric.LitInt(1))
		f.W1.Set(d+k, k, numeric.LitInt(-1))
		f.W2.Set(k, k, lit(c))
		f.W2.Set(k, d+k, lit(neg(c)))
	}
	return f
}

// Zero is the zero FFN of §Identity Function: every weight and bias 0.
// With the residual connection, x + zero(x) = x; it adds its (zero)
// output to the components it reads.
func Zero(in []string) *stream.FF {
	d := len(in)
	return &stream.FF{Name: "zero", In: in, Out: in, Accumulate: true, W1: model.Zeros(d, d), W2: model.Zeros(d, d)}
}

// Min is min of §Min and Max: W1 = [[1, 0], [−1, 0], [1, −1]],
// W2 = [1, −1, −1], so min(x, y) = ReLU(x) − ReLU(−x) − ReLU(x − y).
// Exact on ℝ².
func Min(x, y, out string) *stream.FF {
	return &stream.FF{Name: "min", In: []string{x, y}, Out: []string{out},
		W1: model.Ints([]int64{1, 0}, []int64{-1, 0}, []int64{1, -1}), W2: model.Ints([]int64{1, -1, -1})}
}

// Max is max of §Min and Max: W1 = [[1, 0], [−1, 0], [−1, 1]],
// W2 = [1, −1, 1], so max(x, y) = ReLU(x) − ReLU(−x) + ReLU(y − x).
// Exact on ℝ².
func Max(x, y, out string) *stream.FF {
	return &stream.FF{Name: "max", In: []string{x, y}, Out: []string{out},
		W1: model.Ints([]int64{1, 0}, []int64{-1, 0}, []int64{-1, 1}), W2: model.Ints([]int64{1, -1, 1})}
}

// Add is add of §Addition and Subtraction: W1 = [[1, 0], [−1, 0],
// [0, 1], [0, −1]], W2 = [1, −1, 1, −1]: x + y, exactly.
func Add(x, y, out string) *stream.FF {
	return &stream.FF{Name: "add", In: []string{x, y}, Out: []string{out},
		W1: model.Ints([]int64{1, 0}, []int64{-1, 0}, []int64{0, 1}, []int64{0, -1}), W2: model.Ints([]int64{1, -1, 1, -1})}
}

// Sub is subtraction (§Addition and Subtraction: "or subtraction, or any
// linear function"): add's W1 with W2 = [1, −1, −1, 1]: x − y, exactly.
func Sub(x, y, out string) *stream.FF {
	return &stream.FF{Name: "sub", In: []string{x, y}, Out: []string{out},
		W1: model.Ints([]int64{1, 0}, []int64{-1, 0}, []int64{0, 1}, []int64{0, -1}), W2: model.Ints([]int64{1, -1, -1, 1})}
}

// SqrtHalfPi is √(π/2), the output weight of the GELU product.
var SqrtHalfPi = numeric.Sqrt(numeric.Quo(numeric.Pi(), numeric.LitInt(2)))

// MulGELU is mul of §Multiplication: a GELU FFN (act is model.GELU, the
// erf form, or model.GELUTanh, its tanh approximation) with
// W1 = [[1, 1], [1, 0], [0, 1]], W2 = √(π/2)[1, −1, −1], so that
// out = √(π/2)(GELU(x + y) − GELU(x) − GELU(y)) = xy + ε(x, y), where the
// paper bounds |ε(x, y)| ≤ (|x| + |y|)³/4. Approximate everywhere.
func MulGELU(x, y, out string, act model.Activation) *stream.FF {
	w2 := model.Zeros(1, 3)
	w2.Set(0, 0, SqrtHalfPi)
	w2.Set(0, 1, numeric.Neg(SqrtHalfPi))
	w2.Set(0, 2, numeric.Neg(SqrtHalfPi))
	return &stream.FF{Name: "mul", In: []string{x, y}, Out: []string{out},
		W1: model.Ints([]int64{1, 1}, []int64{1, 0}, []int64{0, 1}), W2: w2, Activation: act}
}

// GTZeroEps is GTZero_ε of §Comparisons applied to x − a: W1 = [1; 1],
// b1 = [−a; −a − ε], W2 = [1/ε, −1/ε]. It is 0 for x − a ≤ 0 and 1 for
// x − a ≥ ε; in the gray region 0 < x − a < ε it is (x − a)/ε. With
// a = 0 these are the paper's weights; a shifts the threshold, as
// §Simulating Average-Hard Attention with Soft Attention rounds with
// GTZero_{1/2}(c − 1/4) and §First with GTZero_{1/3}(c − 1/3).
func GTZeroEps(x, out string, eps, a *big.Rat) *stream.FF {
	return &stream.FF{Name: "GTZero_ε", In: []string{x}, Out: []string{out},
		W1: model.Ints([]int64{1}, []int64{1}),
		B1: model.RatVector(neg(a), new(big.Rat).Sub(neg(a), eps)),
		W2: row(inv(eps), neg(inv(eps)))}
}

// GEZeroEps is GEZero_ε of §Comparisons applied to x − a: W1 = [1; 1],
// b1 = [ε − a; −a], W2 = [1/ε, −1/ε]. It is 0 for x − a ≤ −ε and 1 for
// x − a ≥ 0; in the gray region −ε < x − a < 0 it is 1 + (x − a)/ε.
func GEZeroEps(x, out string, eps, a *big.Rat) *stream.FF {
	return &stream.FF{Name: "GEZero_ε", In: []string{x}, Out: []string{out},
		W1: model.Ints([]int64{1}, []int64{1}),
		B1: model.RatVector(new(big.Rat).Sub(eps, a), neg(a)),
		W2: row(inv(eps), neg(inv(eps)))}
}

// EqZeroEps is EqZero_ε of §Comparisons applied to x − a:
// W1 = [1; 1; 1], b1 = [ε − a; −a; −ε − a], W2 = [1/ε, −2/ε, 1/ε]. It is
// 1 at x = a and 0 for |x − a| ≥ ε; in the gray region 0 < |x − a| < ε
// it is 1 − |x − a|/ε.
func EqZeroEps(x, out string, eps, a *big.Rat) *stream.FF {
	two := big.NewRat(2, 1)
	return &stream.FF{Name: "EqZero_ε", In: []string{x}, Out: []string{out},
		W1: model.Ints([]int64{1}, []int64{1}, []int64{1}),
		B1: model.RatVector(new(big.Rat).Sub(eps, a), neg(a), new(big.Rat).Sub(neg(eps), a)),
		W2: row(inv(eps), neg(new(big.Rat).Quo(two, eps)), inv(eps))}
}

// GTZero is the input-dependent GTZero(x, ε) of §Comparisons, reading
// (x, ε): W1 = [[1, 0], [1, −1]], b1 = 0, W2 = [1, −1], so
// out = ReLU(x) − ReLU(x − ε): 0 for x ≤ 0, ε for x ≥ ε, and x in the
// gray region 0 < x < ε (for ε > 0).
func GTZero(x, eps, out string) *stream.FF {
	return &stream.FF{Name: "GTZero", In: []string{x, eps}, Out: []string{out},
		W1: model.Ints([]int64{1, 0}, []int64{1, -1}), W2: model.Ints([]int64{1, -1})}
}

// GEZero is the input-dependent GEZero(x, ε) of §Comparisons, reading
// (x, ε): W1 = [[1, 1], [1, 0]], W2 = [1, −1], so out = ReLU(x + ε) −
// ReLU(x): 0 for x ≤ −ε, ε for x ≥ 0, and x + ε in the gray region.
func GEZero(x, eps, out string) *stream.FF {
	return &stream.FF{Name: "GEZero", In: []string{x, eps}, Out: []string{out},
		W1: model.Ints([]int64{1, 1}, []int64{1, 0}), W2: model.Ints([]int64{1, -1})}
}

// EqZero is the input-dependent EqZero(x, ε) of §Comparisons, reading
// (x, ε): W1 = [[1, 1], [1, 0], [1, −1]], W2 = [1, −2, 1], so
// out = ReLU(x + ε) − 2 ReLU(x) + ReLU(x − ε): ε at x = 0, 0 for
// |x| ≥ ε, and ε − |x| in the gray region.
func EqZero(x, eps, out string) *stream.FF {
	return &stream.FF{Name: "EqZero", In: []string{x, eps}, Out: []string{out},
		W1: model.Ints([]int64{1, 1}, []int64{1, 0}, []int64{1, -1}), W2: model.Ints([]int64{1, -2, 1})}
}

// Boolean is ff_φ of §Boolean Functions for φ: {0,1}^m → {0,1} given by
// its truth table: table[k] = φ(ξ_k), where ξ_k is k written in m binary
// digits, the first input (xs[0]) the most significant, as the paper's
// matrix shows (ξ_1 = (0, …, 0, 1)). Hidden unit k has weights
// (2ξ_k − 1)ᵀ and bias 1 − 1·ξ_k, so that it is 1 at x = ξ_k and 0 at
// every other Boolean x; W2 = [φ(ξ_0) … φ(ξ_{2^m−1})]. Exact on {0,1}^m.
func Boolean(xs []string, out string, table []bool) (*stream.FF, error) {
	m := len(xs)
	if m == 0 || m > 16 {
		return nil, fmt.Errorf("boolean: needs 1 to 16 inputs, got %d", m)
	}
	if len(table) != 1<<m {
		return nil, fmt.Errorf("boolean: a function of %d bits needs a truth table of %d entries, got %d", m, 1<<m, len(table))
	}
	f := &stream.FF{Name: "ff_φ", In: xs, Out: []string{out},
		W1: model.Zeros(1<<m, m), B1: make(model.Vector, 1<<m), W2: model.Zeros(1, 1<<m)}
	for k := 0; k < 1<<m; k++ {
		ones := 0
		for i := 0; i < m; i++ {
			bit := k >> (m - 1 - i) & 1
			ones += bit
			f.W1.Set(k, i, numeric.LitInt(int64(2*bit-1)))
		}
		f.B1[k] = numeric.LitInt(int64(1 - ones))
		if table[k] {
			f.W2.Set(0, k, numeric.LitInt(1))
		}
	}
	return f, nil
}

// And is ∧ of §Boolean Functions, "equivalent to min": Min on {0,1}².
func And(x, y, out string) *stream.FF { f := Min(x, y, out); f.Name = "and"; return f }

// Or is ∨ of §Boolean Functions, "equivalent to max": Max on {0,1}².
func Or(x, y, out string) *stream.FF { f := Max(x, y, out); f.Name = "or"; return f }

// Not is ¬ of §Boolean Functions, "just 1 − x": the identity FFN
// negated, W1 = [1; −1], W2 = [−1, 1], b2 = 1, which is 1 − x for every
// real x.
func Not(x, out string) *stream.FF {
	return &stream.FF{Name: "not", In: []string{x}, Out: []string{out},
		W1: model.Ints([]int64{1}, []int64{-1}), W2: model.Ints([]int64{-1, 1}), B2: model.IntVector(1)}
}

// If is the conditional of §Conditionals, reading (p, x, y):
// W1 = [[1, 1, 0], [−1, 0, 1]], b1 = [−1; 0], W2 = [1, 1], so that
// out = ReLU(p + x − 1) + ReLU(−p + y): x when p = 1 and y when p = 0,
// exactly, for x, y ∈ [0, 1].
func If(p, x, y, out string) *stream.FF {
	return &stream.FF{Name: "if", In: []string{p, x, y}, Out: []string{out},
		W1: model.Ints([]int64{1, 1, 0}, []int64{-1, 0, 1}), B1: model.IntVector(-1, 0), W2: model.Ints([]int64{1, 1})}
}

// IfInterval is the conditional "easily generalized for any bounded
// interval" [a, b] (§Conditionals): with r = b − a,
// W1 = [[r, 1, 0], [−r, 0, 1]], b1 = [−a − r; −a], W2 = [1, 1], b2 = a,
// so out = ReLU((x − a) − r(1 − p)) + ReLU((y − a) − r p) + a: x when
// p = 1 and y when p = 0, exactly, for x, y ∈ [a, b]. With [a, b] = [0, 1]
// these are If's weights.
func IfInterval(p, x, y, out string, a, b *big.Rat) (*stream.FF, error) {
	r := new(big.Rat).Sub(b, a)
	if r.Sign() <= 0 {
		return nil, fmt.Errorf("if: the interval [a, b] = [%s, %s] is empty or a point", a.RatString(), b.RatString())
	}
	w1 := model.Zeros(2, 3)
	w1.Set(0, 0, lit(r))
	w1.Set(0, 1, numeric.LitInt(1))
	w1.Set(1, 0, lit(neg(r)))
	w1.Set(1, 2, numeric.LitInt(1))
	return &stream.FF{Name: "if", In: []string{p, x, y}, Out: []string{out}, W1: w1,
		B1: model.RatVector(new(big.Rat).Sub(neg(a), r), neg(a)), W2: model.Ints([]int64{1, 1}), B2: model.RatVector(a)}, nil
}

// Clip is clip_δ of §Amplification: W1 = [1; 1], b1 = [δ; −δ],
// W2 = [1, −1], b2 = −δ, so out = ReLU(x + δ) − ReLU(x − δ) − δ, which is
// x clamped to [−δ, δ], exactly, for every real x.
func Clip(x, out string, delta *big.Rat) *stream.FF {
	return &stream.FF{Name: "clip_δ", In: []string{x}, Out: []string{out},
		W1: model.Ints([]int64{1}, []int64{1}), B1: model.RatVector(delta, neg(delta)),
		W2: model.Ints([]int64{1, -1}), B2: model.RatVector(neg(delta))}
}

// row is the 1×k matrix of the given rationals.
func row(xs ...*big.Rat) model.Matrix {
	m := model.Zeros(1, len(xs))
	for k, x := range xs {
		m.Set(0, k, lit(x))
	}
	return m
}

// ClipVector is clip_δ applied to every component of in (the parallel
// composition of d copies of Clip, as §Amplification clips "all
// components"): W1 = [I; I], b1 = [δ1; −δ1], W2 = [I, −I], b2 = −δ1.
func ClipVector(in, out []string, delta *big.Rat) *stream.FF {
	d := len(in)
	f := &stream.FF{Name: "clip_δ", In: in, Out: out, W1: model.Zeros(2*d, d), B1: make(model.Vector, 2*d),
		W2: model.Zeros(d, 2*d), B2: make(model.Vector, d)}
	for k := 0; k < d; k++ {
		f.W1.Set(k, k, numeric.LitInt(1))
		f.W1.Set(d+k, k, numeric.LitInt(1))
		f.B1[k] = lit(delta)
		f.B1[d+k] = lit(neg(delta))
		f.W2.Set(k, k, numeric.LitInt(1))
		f.W2.Set(k, d+k, numeric.LitInt(-1))
		f.B2[k] = lit(neg(delta))
	}
	return f
}
