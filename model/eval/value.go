package eval

import (
	"math/big"

	"github.com/transformer-cookbook/verify/numeric"
)

// Value is a number computed by a backend, in a form that does not depend
// on the backend: its exact rational value (Lo = Hi), or for the interval
// backend the bounds of its enclosure, and the backend's own printing.
// Lo and Hi are nil for ±Inf and NaN.
type Value struct {
	Lo, Hi *big.Rat
	Text   string
}

// ValueOf converts a backend value.
func ValueOf[T any](b numeric.Backend[T], x T) Value {
	v := Value{Text: b.Format(x)}
	if lo, hi, err := b.Bounds(x); err == nil {
		v.Lo, v.Hi = lo, hi
	}
	return v
}

// Finite reports whether v is a finite number (or a bounded enclosure).
func (v Value) Finite() bool { return v.Lo != nil }

// Rat returns the exact value of v, and false when v is not finite or is
// an enclosure wider than a point.
func (v Value) Rat() (*big.Rat, bool) {
	if v.Lo == nil || v.Lo.Cmp(v.Hi) != 0 {
		return nil, false
	}
	return v.Lo, true
}

// Equals reports whether v is exactly r: finite, a single point, equal.
func (v Value) Equals(r *big.Rat) bool {
	x, ok := v.Rat()
	return ok && x.Cmp(r) == 0
}

// Contains reports whether r lies in v's enclosure (for a point: equals).
func (v Value) Contains(r *big.Rat) bool {
	return v.Lo != nil && v.Lo.Cmp(r) <= 0 && r.Cmp(v.Hi) <= 0
}

// Error returns |v − r| (the largest distance for an enclosure), or nil
// when v is not finite.
func (v Value) Error(r *big.Rat) *big.Rat {
	if v.Lo == nil {
		return nil
	}
	if v.Lo.Cmp(r) == 0 && v.Hi.Cmp(r) == 0 {
		// The common case of a check, a point equal to r: comparisons
		// allocate nothing, subtractions would.
		return new(big.Rat)
	}
	a := new(big.Rat).Sub(v.Lo, r)
	b := new(big.Rat).Sub(v.Hi, r)
	a.Abs(a)
	b.Abs(b)
	if a.Cmp(b) < 0 {
		return b
	}
	return a
}

func (v Value) String() string { return v.Text }
