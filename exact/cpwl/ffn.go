package cpwl

import (
	"fmt"
	"math/big"

	"github.com/transformer-cookbook/verify/exact"
)

// FFN is a ReLU feed-forward network with rational parameters
// (Definition FFN):
//
//	f(x) = W2 ReLU(W1 x + B1) + B2,
//
// with W1 h×d and W2 k×h: f maps ℝ^d to ℝ^k through h hidden units. W1
// must have d columns even when h = 0. A nil B1 or B2 stands for the
// zero vector.
type FFN struct {
	W1 exact.Matrix
	B1 exact.Vector
	W2 exact.Matrix
	B2 exact.Vector
}

// In, Hidden and Out are d, h and k.
func (f *FFN) In() int     { return f.W1.Cols }
func (f *FFN) Hidden() int { return f.W1.Rows }
func (f *FFN) Out() int    { return f.W2.Rows }

// Validate reports parameters whose shapes do not fit together.
func (f *FFN) Validate() error {
	if f == nil {
		return fmt.Errorf("cpwl: nil FFN")
	}
	if err := f.W1.Validate(); err != nil {
		return fmt.Errorf("cpwl: FFN W1: %w", err)
	}
	if err := f.W2.Validate(); err != nil {
		return fmt.Errorf("cpwl: FFN W2: %w", err)
	}
	h := f.Hidden()
	if f.W2.Rows > 0 && f.W2.Cols != h {
		return fmt.Errorf("cpwl: FFN W2 is %d×%d, but W1 has %d rows (hidden units)", f.W2.Rows, f.W2.Cols, h)
	}
	for _, v := range []struct {
		name string
		v    exact.Vector
		n    int
	}{{"B1", f.B1, h}, {"B2", f.B2, f.Out()}} {
		if v.v == nil {
			continue
		}
		if len(v.v) != v.n {
			return fmt.Errorf("cpwl: FFN %s has length %d, want %d", v.name, len(v.v), v.n)
		}
		for i, x := range v.v {
			if x == nil {
				return fmt.Errorf("cpwl: FFN %s[%d] is nil", v.name, i)
			}
		}
	}
	return nil
}

// b1 and b2 return the biases with nil read as zero.
func (f *FFN) b1() exact.Vector { return orZero(f.B1, f.Hidden()) }
func (f *FFN) b2() exact.Vector { return orZero(f.B2, f.Out()) }

func orZero(v exact.Vector, n int) exact.Vector {
	if v == nil {
		return exact.NewVector(n)
	}
	return v
}

// Pre returns the pre-activations W1 x + B1.
func (f *FFN) Pre(x exact.Vector) (exact.Vector, error) {
	if err := f.Validate(); err != nil {
		return nil, err
	}
	z, err := f.W1.MulVec(x)
	if err != nil {
		return nil, fmt.Errorf("cpwl: FFN on ℝ^%d applied to a point of ℝ^%d", f.In(), len(x))
	}
	for i, b := range f.b1() {
		z[i].Add(z[i], b)
	}
	return z, nil
}

// Eval returns f(x), exactly.
func (f *FFN) Eval(x exact.Vector) (exact.Vector, error) {
	z, err := f.Pre(x)
	if err != nil {
		return nil, err
	}
	for _, zi := range z {
		if zi.Sign() < 0 {
			zi.SetInt64(0)
		}
	}
	y, err := f.W2.MulVec(z)
	if err != nil {
		return nil, err
	}
	for i, b := range f.b2() {
		y[i].Add(y[i], b)
	}
	return y, nil
}

// PatternAt returns the activation pattern at x: unit i is active when
// its pre-activation is positive. (At 0 both patterns give f(x); this
// picks inactive.)
func (f *FFN) PatternAt(x exact.Vector) (Pattern, error) {
	z, err := f.Pre(x)
	if err != nil {
		return nil, err
	}
	s := make(Pattern, len(z))
	for i, zi := range z {
		s[i] = zi.Sign() > 0
	}
	return s, nil
}

// RegionMap returns the affine map that f computes on the closed linear
// region of activation pattern s,
//
//	x ↦ W2 diag(s) W1 x + W2 diag(s) B1 + B2,
//
// valid on {x : (W1 x + B1)_i ≥ 0 where s_i, ≤ 0 elsewhere}.
func (f *FFN) RegionMap(s Pattern) (exact.Affine, error) {
	if err := f.Validate(); err != nil {
		return exact.Affine{}, err
	}
	if len(s) != f.Hidden() {
		return exact.Affine{}, fmt.Errorf("cpwl: pattern of %d units for an FFN with %d", len(s), f.Hidden())
	}
	return regionMap(f.W1, f.b1(), f.W2, f.b2(), s), nil
}

// regionMap is RegionMap for any first layer: the caller passes the one
// pulled back to the domain's affine hull.
func regionMap(w1 exact.Matrix, b1 exact.Vector, w2 exact.Matrix, b2 exact.Vector, s Pattern) exact.Affine {
	m := exact.NewMatrix(w2.Rows, w1.Cols)
	c := b2.Clone()
	t := new(big.Rat)
	for o := 0; o < w2.Rows; o++ {
		for u, active := range s {
			v := w2.At(o, u)
			if !active || v.Sign() == 0 {
				continue
			}
			for j := 0; j < w1.Cols; j++ {
				if a := w1.At(u, j); a.Sign() != 0 {
					e := m.At(o, j)
					e.Add(e, t.Mul(v, a))
				}
			}
			c[o].Add(c[o], t.Mul(v, b1[u]))
		}
	}
	return exact.Affine{A: m, C: c}
}
