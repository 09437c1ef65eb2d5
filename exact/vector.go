package exact

import (
	"fmt"
	"math/big"
	"strings"
)

// Vector is a column vector of exact rationals.
//
// Functions of this package never modify the *big.Rat values they are
// given and always return freshly allocated ones (except Matrix.Row, a
// view), so vectors and matrices may share entries freely.
type Vector []*big.Rat

// NewVector returns the zero vector of length n.
func NewVector(n int) Vector {
	v := make(Vector, n)
	for i := range v {
		v[i] = new(big.Rat)
	}
	return v
}

// IntVector returns the vector with the given integer entries.
func IntVector(xs ...int64) Vector {
	v := make(Vector, len(xs))
	for i, x := range xs {
		v[i] = big.NewRat(x, 1)
	}
	return v
}

// Clone returns a deep copy of v.
func (v Vector) Clone() Vector {
	w := make(Vector, len(v))
	for i, x := range v {
		w[i] = new(big.Rat).Set(x)
	}
	return w
}

// Equal reports whether v and w have the same length and the same entries.
func (v Vector) Equal(w Vector) bool {
	if len(v) != len(w) {
		return false
	}
	for i := range v {
		if v[i].Cmp(w[i]) != 0 {
			return false
		}
	}
	return true
}

// IsZero reports whether every entry of v is 0 (true for the empty vector).
func (v Vector) IsZero() bool {
	for _, x := range v {
		if x.Sign() != 0 {
			return false
		}
	}
	return true
}

// dot returns vᵀw for vectors of the same length.
func dot(v, w Vector) *big.Rat {
	s, t := new(big.Rat), new(big.Rat)
	for i, x := range v {
		if x.Sign() == 0 || w[i].Sign() == 0 {
			continue
		}
		s.Add(s, t.Mul(x, w[i]))
	}
	return s
}

// String prints v as (1, -1/2, 3).
func (v Vector) String() string {
	var b strings.Builder
	b.WriteString("(")
	for i, x := range v {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(x.RatString())
	}
	b.WriteString(")")
	return b.String()
}

// check reports a nil entry, which would otherwise surface as a nil
// pointer dereference deep inside an LP; n < 0 skips the length check.
func (v Vector) check(name string, n int) error {
	if n >= 0 && len(v) != n {
		return fmt.Errorf("%s has length %d, want %d", name, len(v), n)
	}
	for i, x := range v {
		if x == nil {
			return fmt.Errorf("%s[%d] is nil", name, i)
		}
	}
	return nil
}
