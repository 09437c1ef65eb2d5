package positionwise

import (
	"fmt"
	"math"
	"math/big"

	"github.com/transformer-cookbook/verify/numeric"
)

// grid is a precision's finite values as the analysis sees them: the
// domain's values, numbered in order (ordinals), and the arithmetic's
// range (where rounding overflows or underflows).
//
// A nonnegative value has ordinal k: below 2^EMin, k·2^qmin for the k
// subnormals (a format without subnormals, a big float, has only 0
// there); above, the normal numbers binade by binade, 2^(P−1) a binade.
// Ordinals of negative values are the negatives of their magnitudes':
// the order of ordinals is the order of values, with one zero (−0 is the
// rational 0, the only zero an input can be).
type grid struct {
	name string
	p    int // significand bits, the implicit one included
	eMin int // exponent of the smallest normal value of the domain
	// sub says the domain holds subnormals; qmin is the exponent of the
	// smallest spacing of the domain's values, eMin − p + 1 either way.
	sub  bool
	qmin int
	// maxOrd is the ordinal of the largest finite value, max its value.
	maxOrd int64
	max    float64
	// arithMin is the exponent of the smallest spacing of the
	// arithmetic: qmin for an IEEE format, which rounds below 2^eMin on
	// that spacing, and math.MinInt32 for a big float, whose exponent
	// never runs out (no underflow, no overflow: arithMax is +Inf).
	arithMin int
	arithMax float64
	// integers, when set, restricts the domain to the integers of
	// magnitude at most maxOrd (onIntegers): ordinal k is the integer k.
	// The arithmetic (p, arithMin, arithMax) is the format's still.
	integers bool
}

// onIntegers is g with its domain restricted to the integers of
// magnitude at most 2^w (0 ≤ w ≤ p, so that every one of them is a
// value of the format: an integer of magnitude at most 2^p has a p-bit
// significand, and 2^p ≤ the largest value of every format the grid
// treats).
func (g *grid) onIntegers(w int) (*grid, error) {
	if w < 0 || w > g.p || math.Ldexp(1, w) > g.max {
		return nil, fmt.Errorf("integers up to 2^%d are not all values of %s (its significand has %d bits)", w, g.name, g.p)
	}
	h := *g
	h.integers = true
	h.maxOrd = 1 << w
	h.max = float64(h.maxOrd)
	return &h, nil
}

// gridOf is p's grid, or why the analysis cannot treat p: exact
// arithmetic rounds nothing, intervals are not values, and a big float of
// more than 53 bits is no float64 (the float64 path computes on float64;
// Analyse runs such a big float on the wide grid, wide.go).
func gridOf(p numeric.Precision) (*grid, error) {
	switch p.Kind {
	case numeric.KindEmulated, numeric.KindFloat32, numeric.KindFloat64:
		f := p.Format
		g := &grid{name: f.Name, p: f.P, eMin: f.EMin, sub: true, qmin: f.EMin - f.P + 1, max: f.MaxFinite(),
			arithMax: f.MaxFinite()}
		g.arithMin = g.qmin
		g.maxOrd = g.ord(g.max)
		return g, nil
	case numeric.KindBigFloat:
		if p.Bits > 53 {
			return nil, fmt.Errorf("a big float of %d bits holds values float64 does not, and the analysis computes on float64", p.Bits)
		}
		// The domain: P-bit values within float64's normal range. A big
		// float's exponent range (about 2^±2^31) has no bound a float64
		// could hold; this is the domain stated in the report.
		pb := int(p.Bits)
		g := &grid{name: p.String() + "-bit", p: pb, eMin: -1022, sub: false, qmin: -1022 - pb + 1,
			max: math.Ldexp(2-math.Ldexp(1, 1-pb), 1023), arithMin: math.MinInt32, arithMax: math.Inf(1)}
		g.maxOrd = g.ord(g.max)
		return g, nil
	}
	return nil, fmt.Errorf("precision %s does not round to a grid of finite values", p)
}

// normalBase is the ordinal of 2^eMin.
func (g *grid) normalBase() int64 {
	if g.sub {
		return 1 << (g.p - 1)
	}
	return 1
}

// ord is the ordinal of a finite value v of the grid.
func (g *grid) ord(v float64) int64 {
	if g.integers {
		return int64(v)
	}
	if v < 0 {
		return -g.ord(-v)
	}
	if v == 0 {
		return 0
	}
	fr, e := math.Frexp(v) // v = fr·2^e, fr ∈ [1/2, 1): the exponent of v is e − 1
	if e-1 < g.eMin {
		return int64(v / math.Ldexp(1, g.qmin))
	}
	m := int64(math.Ldexp(fr, g.p)) // in [2^(p−1), 2^p)
	return g.normalBase() + int64(e-1-g.eMin)<<(g.p-1) + m - 1<<(g.p-1)
}

// value is the value of ordinal k.
func (g *grid) value(k int64) float64 {
	if g.integers {
		return float64(k)
	}
	if k < 0 {
		return -g.value(-k)
	}
	nb := g.normalBase()
	if k < nb {
		if !g.sub {
			return 0
		}
		return math.Ldexp(float64(k), g.qmin)
	}
	j := k - nb
	e := g.eMin + int(j>>(g.p-1))
	m := 1<<(g.p-1) + j&(1<<(g.p-1)-1)
	return math.Ldexp(float64(m), e-g.p+1)
}

// quantum is the exponent q of the smallest spacing among the values of
// ordinals lo … hi: every one of them is a multiple of 2^q.
func (g *grid) quantum(lo, hi int64) int {
	if lo == hi && lo != 0 {
		// One value: a multiple of its lowest bit.
		return newWeight(rat(g.value(lo)), rat(g.value(lo))).qw
	}
	if g.integers {
		// Consecutive integers: multiples of 2^0, and of nothing coarser.
		if mutation == "integer-quantum" {
			return 1
		}
		return 0
	}
	if lo <= 0 && hi >= 0 {
		return g.qmin
	}
	m := min(math.Abs(g.value(lo)), math.Abs(g.value(hi)))
	_, e := math.Frexp(m)
	return max(e-1, g.eMin) - g.p + 1
}

// exactly reports whether every multiple of 2^q of magnitude at most m
// is a value of the arithmetic: v = k·2^q with |k| ≤ 2^p has a p-bit
// significand (2^p itself is a power of two) on a spacing the arithmetic
// keeps (q ≥ its smallest), and |v| ≤ m does not overflow.
func (g *grid) exactly(q int, m float64) bool {
	bits := q + g.p
	if mutation == "quantum-bit" {
		bits++
	}
	// m = +Inf is an enclosure that passed float64's range: it bounds
	// nothing (2^bits for bits ≥ 1024 is beyond every finite m).
	return q >= g.arithMin && m <= g.arithMax && !math.IsInf(m, 0) && (bits >= 1024 || m <= math.Ldexp(1, bits))
}

// spacing bounds the distance from a real v with |v| ≤ m to the value the
// arithmetic rounds it to, for every rounding that lands on a neighbour
// of v on the grid (round to nearest, and the emulated formats' rounding
// through float64, which the package documentation argues lands there):
// at most one spacing, |v|·2^(1−p), or the smallest spacing below 2^eMin.
func (g *grid) spacing(m float64) float64 {
	s := up(m * math.Ldexp(1, 1-g.p))
	if g.arithMin != math.MinInt32 {
		s = math.Max(s, math.Ldexp(1, g.arithMin))
	}
	return s
}

// rat is the exact rational of a grid value.
func rat(v float64) *big.Rat { return new(big.Rat).SetFloat64(v) }

// floorOrd is the ordinal of the largest value ≤ r (−maxOrd if none),
// ceilOrd of the smallest ≥ r (maxOrd if none), by bisection over the
// ordinals, comparing exactly.
func (g *grid) floorOrd(r *big.Rat) int64 {
	lo, hi := -g.maxOrd, g.maxOrd
	if rat(g.value(lo)).Cmp(r) > 0 {
		return lo
	}
	for lo < hi {
		mid := lo + int64(width(lo, hi)/2) + 1
		if rat(g.value(mid)).Cmp(r) <= 0 {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return lo
}

func (g *grid) ceilOrd(r *big.Rat) int64 {
	o := g.floorOrd(r)
	if rat(g.value(o)).Cmp(r) < 0 && o < g.maxOrd {
		o++
	}
	return o
}

// ordOf is the ordinal of r, when r is a value of the grid.
func (g *grid) ordOf(r *big.Rat) (int64, bool) {
	o := g.floorOrd(r)
	return o, rat(g.value(o)).Cmp(r) == 0
}
