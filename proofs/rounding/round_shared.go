package rounding

import (
	"fmt"
	"math/big"
	"math/rand/v2"

	"github.com/transformer-cookbook/verify/exact"
	"github.com/transformer-cookbook/verify/exact/cpwl"
	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/model/eval"
	"github.com/transformer-cookbook/verify/numeric"
	"github.com/transformer-cookbook/verify/proofs"
	"github.com/transformer-cookbook/verify/recipes/stream"
)

// The claims of §Rounding and Approximation: rounding makes the
// comparisons of §Comparisons exact steps (§Comparisons, under
// Rounding), and the five propositions of §Error Analysis, checked as
// inequalities with explicit constants: exactly where the quantities are
// rational (ReLU FFNs, the triangle inequality), by certified interval
// arithmetic where they are not (softmax, layer norm), each search seeded.
//
// This file holds what the round_*.go files share: the section names,
// norms, the seeded random source, the exact LP and model runners.

const (
	secCompare = "Comparisons"
	secError   = "Error Analysis"
)

// ---------------------------------------------------------------------
// §Error Analysis: norms

// normSq is ‖v‖₂² exactly.
func normSq(v []*big.Rat) *big.Rat {
	s := new(big.Rat)
	for _, x := range v {
		s.Add(s, new(big.Rat).Mul(x, x))
	}
	return s
}

// frobSq is ‖A‖_F² of a model matrix with rational entries.
func frobSq(a model.Matrix) (*big.Rat, error) {
	s := new(big.Rat)
	for _, e := range a.Data {
		r, ok, err := e.Rat()
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, fmt.Errorf("irrational weight %v", e)
		}
		s.Add(s, new(big.Rat).Mul(r, r))
	}
	return s, nil
}

// diffNormSq bounds ‖a − b‖₂² from two enclosures: lo ≤ ‖a − b‖² ≤ hi
// for every choice of the true values.
func diffNormSq(a, b []eval.Value) (lo, hi *big.Rat, err error) {
	lo, hi = new(big.Rat), new(big.Rat)
	for c := range a {
		if !a[c].Finite() || !b[c].Finite() {
			return nil, nil, fmt.Errorf("an output is not finite")
		}
		l := new(big.Rat).Sub(a[c].Lo, b[c].Hi)
		h := new(big.Rat).Sub(a[c].Hi, b[c].Lo)
		m := proofs.Magnitude(l, h)
		hi.Add(hi, new(big.Rat).Mul(m, m))
		if l.Sign() > 0 {
			lo.Add(lo, new(big.Rat).Mul(l, l))
		} else if h.Sign() < 0 {
			lo.Add(lo, new(big.Rat).Mul(h, h))
		}
	}
	return lo, hi, nil
}

func sqrtFloat(x float64) float64 {
	if x <= 0 {
		return 0
	}
	z := x
	for k := 0; k < 60; k++ {
		z = (z + x/z) / 2
	}
	return z
}

// seeded is a seeded source of small rationals.
type seeded struct{ *rand.Rand }

func newSeeded(seed uint64) seeded { return seeded{rand.New(rand.NewPCG(seed, 0xe770))} }

// rat is a rational in [−lim, lim] with denominator den.
func (r seeded) rat(lim, den int) *big.Rat {
	return big.NewRat(int64(r.IntN(2*lim*den+1)-lim*den), int64(den))
}

func (r seeded) matrix(rows, cols, lim, den int) model.Matrix {
	m := model.Zeros(rows, cols)
	for i := range m.Data {
		m.Data[i] = numeric.Lit(r.rat(lim, den))
	}
	return m
}

func (r seeded) vector(n, lim, den int) []*big.Rat {
	v := make([]*big.Rat, n)
	for i := range v {
		v[i] = r.rat(lim, den)
	}
	return v
}

// ---------------------------------------------------------------------
// Helpers of several sections

// maxOn maximises a x + b ε over the polyhedron p ∩ {row · (x, ε) ≤ c}
// (extra = "r1 r2 c") by the exact LP, its answer checked by its
// certificate. It returns nil when the set is empty, and unbounded when
// the maximum is +∞.
func maxOn(p *exact.Polyhedron, extra []string, a, b *big.Rat) (best *big.Rat, unbounded bool, err error) {
	rows := p.A.Rows + 1
	A := exact.NewMatrix(rows, 2)
	B := exact.NewVector(rows)
	for i := 0; i < p.A.Rows; i++ {
		A.Set(i, 0, p.A.At(i, 0))
		A.Set(i, 1, p.A.At(i, 1))
		B[i] = new(big.Rat).Set(p.B[i])
	}
	A.Set(rows-1, 0, proofs.Q(extra[0]))
	A.Set(rows-1, 1, proofs.Q(extra[1]))
	B[rows-1] = proofs.Q(extra[2])
	lp := &exact.LP{C: exact.Vector{a, b}, A: A, B: B, G: exact.NewMatrix(0, 2), H: exact.NewVector(0)}
	sol, err := lp.Solve()
	if err != nil {
		return nil, false, err
	}
	if err := lp.Check(sol); err != nil {
		return nil, false, err
	}
	switch sol.Status {
	case exact.Infeasible:
		return nil, false, nil
	case exact.Unbounded:
		return nil, true, nil
	}
	return sol.Value, false, nil
}

// randomFFN is a seeded ReLU FFN ℝ^d → ℝ^k with h units.
func randomFFN(r seeded, d, h, k int) *stream.FF {
	f := &stream.FF{Name: "ff", In: proofs.Names("x", d), Out: proofs.Names("y", k), W1: r.matrix(h, d, 3, 2), W2: r.matrix(k, h, 3, 2),
		B1: model.RatVector(r.vector(h, 2, 2)...), B2: model.RatVector(r.vector(k, 2, 2)...)}
	return f
}

// perturbed is x̂ = x + dx with the FFN's values at x and at x̂, exact.
func perturbed(g *cpwl.FFN, x, dx []*big.Rat) (xh, fx, fxh []*big.Rat, err error) {
	xh = make([]*big.Rat, len(x))
	for i := range x {
		xh[i] = new(big.Rat).Add(x[i], dx[i])
	}
	if fx, err = g.Eval(x); err != nil {
		return nil, nil, nil, err
	}
	if fxh, err = g.Eval(xh); err != nil {
		return nil, nil, nil, err
	}
	return xh, fx, fxh, nil
}

func ratStrings(v []*big.Rat) string {
	s := "("
	for i, x := range v {
		if i > 0 {
			s += ", "
		}
		s += x.RatString()
	}
	return s + ")"
}
