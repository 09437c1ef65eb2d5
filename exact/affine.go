package exact

import "fmt"

// Affine is the affine map x ↦ A x + C from ℝ^A.Cols to ℝ^A.Rows. It is
// how a piece of a CPWL function, the restriction of a ReLU FFN to one of
// its linear regions, and the parametrization x = x₀ + N z of an affine
// subspace are written.
type Affine struct {
	A Matrix
	C Vector
}

// Validate reports a malformed matrix or an offset of the wrong length.
func (f Affine) Validate() error {
	if err := f.A.Validate(); err != nil {
		return err
	}
	if err := f.C.check("offset", f.A.Rows); err != nil {
		return fmt.Errorf("exact: affine map: %w", err)
	}
	return nil
}

// In and Out are the dimensions of the domain and the codomain.
func (f Affine) In() int  { return f.A.Cols }
func (f Affine) Out() int { return f.A.Rows }

// Apply returns A x + C, or an error when len(x) ≠ A.Cols.
func (f Affine) Apply(x Vector) (Vector, error) {
	y, err := f.A.MulVec(x)
	if err != nil {
		return nil, err
	}
	if len(f.C) != len(y) {
		return nil, fmt.Errorf("exact: affine map with %d rows has an offset of length %d", len(y), len(f.C))
	}
	for i := range y {
		y[i].Add(y[i], f.C[i])
	}
	return y, nil
}

// Compose returns f∘g: x ↦ f.A (g.A x + g.C) + f.C.
func (f Affine) Compose(g Affine) (Affine, error) {
	a, err := f.A.Mul(g.A)
	if err != nil {
		return Affine{}, err
	}
	c, err := f.Apply(g.C)
	if err != nil {
		return Affine{}, err
	}
	return Affine{A: a, C: c}, nil
}

// Equal reports whether f and g are the same map: same shape, same matrix
// and same offset. (Two affine maps that agree on a full-dimensional set
// agree everywhere, so this is the test the decision procedure needs.)
func (f Affine) Equal(g Affine) bool { return f.A.Equal(g.A) && f.C.Equal(g.C) }
