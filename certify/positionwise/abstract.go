package positionwise

import (
	"math"
	"math/big"
)

// aval is what the analysis knows of one value of the computation over
// every input of a box: an enclosure of the value the format computes
// and of the value the construction computes exactly and, where it can
// show the two are the same number on every input (exact), that every
// such number is a multiple of 2^q. The argument that each rule below is
// sound is in the package documentation.
type aval struct {
	// top: the format's value may not be finite; nothing else is known.
	top bool
	// exact: on every input of the box the format's value is the
	// construction's exact value (then fv = ev, a value of the grid).
	exact bool
	// zero: both values are 0 on every input (and exact holds).
	zero bool
	q    int
	fv   span // the format's value
	ev   span // the construction's exact value
}

// mutation, set by tests only, drops one premise of a rule (the tests
// show that each premise is needed: without it the analysis proves a box
// the enumeration refutes).
var mutation string

var (
	zeroVal = aval{exact: true, zero: true}
	topVal  = aval{top: true}
)

// exactVal is an exact value enclosed by s, every one a multiple of 2^q.
func exactVal(s span, q int) aval {
	if s.zero() {
		return zeroVal
	}
	return aval{exact: true, q: q, fv: s, ev: s}
}

// weight is one parameter: its exact value w (enclosed by [lo, hi] in
// float64) and the value the format stores, w̃ (stored, a float64 since
// the grid's values are).
type weight struct {
	lo, hi float64
	stored float64
	// same: w̃ = w. pow2: w̃ = ±2^k. Otherwise w̃ = odd·2^qw.
	same bool
	pow2 bool
	k    int
	qw   int
	// exact and storedRat are w and w̃ as rationals (the wide grid's).
	exact, storedRat *big.Rat
	// unknown: w is irrational; nothing of it is followed (top).
	unknown bool
}

func newWeight(w, stored *big.Rat) weight {
	s, _ := stored.Float64() // a value of the grid: exact
	x := weight{stored: s, same: w.Cmp(stored) == 0, exact: w, storedRat: stored}
	f, _ := w.Float64()
	x.lo, x.hi = f, f
	if math.IsInf(f, 0) {
		// Beyond float64: enclosed by [MaxFloat64, +Inf] (or its
		// negative), which no bound below holds finite.
		x.lo, x.hi = math.Copysign(math.MaxFloat64, f), f
		if f < 0 {
			x.lo, x.hi = f, -math.MaxFloat64
		}
	} else if c := new(big.Rat).SetFloat64(f).Cmp(w); c < 0 {
		x.hi = up(f)
	} else if c > 0 {
		x.lo = down(f)
	}
	if s != 0 {
		fr, e := math.Frexp(math.Abs(s))
		m := math.Ldexp(fr, 53) // an integer: |s| = m·2^(e−53)
		z := 0
		for math.Mod(m, 2) == 0 {
			m /= 2
			z++
		}
		x.qw = e - 53 + z
		x.pow2 = m == 1
		x.k = x.qw
	}
	return x
}

// constant is a bias as a value of the computation.
func (w weight) constant() aval {
	if w.unknown {
		return topVal
	}
	if w.stored == 0 && w.lo == 0 && w.hi == 0 {
		return zeroVal
	}
	if w.same {
		return exactVal(span{w.stored, w.stored}, w.qw)
	}
	return aval{fv: span{w.stored, w.stored}, ev: span{w.lo, w.hi}}
}

// rounded is the value of an operation whose exact result on the
// format's operands lies in f0, rounded by the arithmetic: within one
// spacing, or not finite if that can pass the largest value.
func (g *grid) rounded(f0, ev span) aval {
	if !f0.finite() {
		return topVal
	}
	fv := f0.widen(g.spacing(f0.mag()))
	if !fv.finite() || fv.mag() > g.arithMax {
		return topVal
	}
	return aval{fv: fv, ev: ev}
}

// mul is w·a, rounded.
func (g *grid) mul(w weight, a aval) aval {
	switch {
	case a.top || w.unknown:
		return topVal
	case a.zero:
		return zeroVal
	case w.stored == 0 && w.lo == 0 && w.hi == 0:
		return zeroVal
	}
	f0 := a.fv.scale(w.stored, w.stored)
	if a.exact && w.same {
		m := f0.mag()
		if w.pow2 {
			// x·2^k of a grid value x: exact unless it overflows, or
			// (k < 0) drops bits below the arithmetic's smallest spacing,
			// which q + k ≥ arithMin excludes.
			if m <= g.arithMax && (w.k >= 0 || a.q+w.k >= g.arithMin || mutation == "pow2-underflow") {
				return exactVal(f0, a.q+w.k)
			}
		} else if q := a.q + w.qw; g.exactly(q, m) {
			return exactVal(f0, q)
		}
	}
	return g.rounded(f0, a.ev.scale(w.lo, w.hi))
}

// add is a + b, rounded.
func (g *grid) add(a, b aval) aval {
	switch {
	case a.top || b.top:
		return topVal
	case a.zero:
		return b
	case b.zero:
		return a
	}
	s := a.fv.add(b.fv)
	if a.exact && b.exact {
		q := min(a.q, b.q)
		if g.exactly(q, s.mag()) || sterbenz(a.fv, b.fv) || sterbenz(b.fv, a.fv) {
			return exactVal(s, q)
		}
	}
	return g.rounded(s, a.ev.add(b.ev))
}

// sterbenz reports whether a + b is exact for every a ∈ x, b ∈ y by
// Sterbenz's lemma: a > 0 > b with |b|/2 ≤ a ≤ 2|b|, which holds with
// subnormals and needs no exponent bound (|a + b| ≤ max(|a|, |b|)).
// Doubling is exact in float64 (or overflows to +Inf, which compares as
// the bound it stands for).
func sterbenz(x, y span) bool {
	if mutation == "sterbenz-loose" {
		return x.lo > 0 && y.hi < 0 && 4*x.lo >= -y.lo && x.hi <= -4*y.hi
	}
	return x.lo > 0 && y.hi < 0 && 2*x.lo >= -y.lo && x.hi <= -2*y.hi
}

// relu is max(0, a). It keeps exactness: the format and the
// construction apply it to the same number.
func relu(a aval) aval {
	switch {
	case a.top:
		return topVal
	case a.zero:
		return zeroVal
	case a.fv.hi <= 0 && (a.ev.hi <= 0 || mutation == "relu-format-only"):
		return zeroVal
	case a.fv.lo >= 0 && a.ev.lo >= 0:
		return a
	}
	out := aval{exact: a.exact, q: a.q, fv: a.fv.relu(), ev: a.ev.relu()}
	if out.fv.zero() && out.ev.zero() {
		return zeroVal
	}
	return out
}
