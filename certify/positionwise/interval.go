package positionwise

import "math"

// Bounds are computed in float64 and rounded outward only where float64
// rounded: an operation's error term (TwoSum, FMA) says whether it did,
// so that bounds that are values of the grid stay exact (a bound of 0
// stays 0, which a ReLU needs to be decided).

func up(x float64) float64   { return math.Nextafter(x, math.Inf(1)) }
func down(x float64) float64 { return math.Nextafter(x, math.Inf(-1)) }

// twoSum returns s = fl(a + b) and the sign of the exact a + b − s.
func twoSum(a, b float64) (s float64, errSign int) {
	s = a + b
	if math.IsInf(s, 0) || math.IsNaN(s) {
		return s, 0
	}
	bb := s - a
	e := (a - (s - bb)) + (b - bb)
	switch {
	case e > 0:
		return s, 1
	case e < 0:
		return s, -1
	}
	return s, 0
}

func addDown(a, b float64) float64 {
	s, e := twoSum(a, b)
	if e < 0 {
		return down(s)
	}
	return s
}

func addUp(a, b float64) float64 {
	s, e := twoSum(a, b)
	if e > 0 {
		return up(s)
	}
	return s
}

// twoProd returns p = fl(a·b) and the sign of the exact a·b − p (FMA
// computes it exactly, barring underflow of the error term, which the
// caller's outward step covers: see mulDown).
func twoProd(a, b float64) (p float64, errSign int) {
	p = a * b
	if math.IsInf(p, 0) || math.IsNaN(p) {
		return p, 0
	}
	e := math.FMA(a, b, -p)
	switch {
	case e > 0:
		return p, 1
	case e < 0:
		return p, -1
	}
	if p != 0 && math.Abs(p) < 0x1p-969 {
		// The error term of a product this small can underflow to 0
		// although the product rounded: no claim of exactness.
		return p, 2
	}
	return p, 0
}

func mulDown(a, b float64) float64 {
	p, e := twoProd(a, b)
	if e < 0 || e == 2 {
		return down(p)
	}
	return p
}

func mulUp(a, b float64) float64 {
	p, e := twoProd(a, b)
	if e > 0 {
		return up(p)
	}
	if e == 2 {
		return up(p)
	}
	return p
}

// span is a closed interval [lo, hi] of reals.
type span struct{ lo, hi float64 }

func (s span) add(t span) span { return span{addDown(s.lo, t.lo), addUp(s.hi, t.hi)} }

// scale is w·s for w ∈ [wl, wu].
func (s span) scale(wl, wu float64) span {
	c := [4][2]float64{{wl, s.lo}, {wl, s.hi}, {wu, s.lo}, {wu, s.hi}}
	out := span{math.Inf(1), math.Inf(-1)}
	for _, p := range c {
		if p[0] == 0 || p[1] == 0 {
			out.lo, out.hi = math.Min(out.lo, 0), math.Max(out.hi, 0)
			continue
		}
		out.lo = math.Min(out.lo, mulDown(p[0], p[1]))
		out.hi = math.Max(out.hi, mulUp(p[0], p[1]))
	}
	return out
}

// mag is max |x| over s.
func (s span) mag() float64 { return math.Max(math.Abs(s.lo), math.Abs(s.hi)) }

// widen is s with r added on both sides.
func (s span) widen(r float64) span { return span{addDown(s.lo, -r), addUp(s.hi, r)} }

func (s span) finite() bool {
	return !math.IsInf(s.lo, 0) && !math.IsInf(s.hi, 0) && !math.IsNaN(s.lo) && !math.IsNaN(s.hi)
}

func (s span) zero() bool { return s.lo == 0 && s.hi == 0 }

func (s span) relu() span { return span{math.Max(s.lo, 0), math.Max(s.hi, 0)} }
