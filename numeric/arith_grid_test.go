package numeric

import (
	"fmt"
	"math"
	"math/big"
	"sync"
	"testing"
)

// An independent rounding, from the definition of a binary format.

// arithGrid is a set of binary floating-point numbers, from the definition
// (IEEE 754-2019 §3.3; OFP8 v1.0 §5.1 for E4M3): ±m × 2^q with an integer
// m < 2^p and, when the grid is bounded, q ≥ emin − p + 1 (the subnormals)
// and a magnitude at most max.
type arithGrid struct {
	name    string
	p       int
	bounded bool
	emin    int
	emax    int
	max     *big.Rat // the largest finite value, when bounded
	hasInf  bool     // overflow gives ±Inf; otherwise NaN (E4M3)
}

func ieeeGrid(name string, p, emin, emax int) arithGrid {
	// max = (2 − 2^(1−p)) × 2^emax = (2^p − 1) × 2^(emax−p+1).
	m := new(big.Rat).SetInt(new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), uint(p)), big.NewInt(1)))
	return arithGrid{name: name, p: p, bounded: true, emin: emin, emax: emax,
		max: ratScale(m, emax-p+1), hasInf: true}
}

var (
	gridFP64 = ieeeGrid("fp64", 53, -1022, 1023)
	gridFP32 = ieeeGrid("fp32", 24, -126, 127)
	gridFP16 = ieeeGrid("fp16", 11, -14, 15)
	gridBF16 = ieeeGrid("bf16", 8, -126, 127)
	gridE5M2 = ieeeGrid("fp8-e5m2", 3, -14, 15)
	// E4M3's exponent field 1111 holds normal numbers (emax = 8) except
	// S.1111.111, which is NaN: the largest value is 1.75 × 2^8 = 448 and
	// there is no infinity.
	gridE4M3 = arithGrid{name: "fp8-e4m3", p: 4, bounded: true, emin: -6, emax: 8,
		max: big.NewRat(448, 1)}
)

// gridOf returns the grid of a named format.
func gridOf(f *Format) arithGrid {
	for _, g := range []arithGrid{gridFP64, gridFP32, gridFP16, gridBF16, gridE5M2, gridE4M3} {
		if g.name == f.Name {
			return g
		}
	}
	panic("no grid for " + f.Name)
}

// unboundedGrid is the grid of a p-bit big.Float (its exponent range is far
// beyond anything these tests reach).
func unboundedGrid(p int) arithGrid { return arithGrid{name: fmt.Sprintf("%d-bit", p), p: p} }

type arithMode int

const (
	nearestEven arithMode = iota
	towardZero
	towardNegInf
	towardPosInf
)

// round returns x rounded to the grid's precision (and subnormal spacing)
// in the given direction. It ignores the overflow threshold: callers compare
// the result with max.
func (g arithGrid) round(x *big.Rat, mode arithMode) *big.Rat {
	if x.Sign() == 0 {
		return new(big.Rat)
	}
	neg := x.Sign() < 0
	n := new(big.Int).Abs(x.Num())
	d := new(big.Int).Set(x.Denom())
	// n/d lies in (2^(e−1), 2^(e+1)) for this e; one comparison with 2^e
	// gives e = ⌊log2(n/d)⌋.
	e := n.BitLen() - d.BitLen()
	if lsh(n, -e).Cmp(lsh(d, e)) < 0 {
		e--
	}
	if g.bounded && e < g.emin {
		e = g.emin
	}
	q := e - g.p + 1 // the spacing of the grid near x is 2^q
	m, rem := new(big.Int).QuoRem(lsh(n, -q), lsh(d, q), new(big.Int))
	if rem.Sign() != 0 {
		den := lsh(d, q)
		up := false
		switch mode {
		case nearestEven:
			c := new(big.Int).Lsh(rem, 1).Cmp(den)
			up = c > 0 || c == 0 && m.Bit(0) == 1
		case towardPosInf:
			up = !neg
		case towardNegInf:
			up = neg
		}
		if up {
			m.Add(m, big.NewInt(1))
		}
	}
	r := ratScale(new(big.Rat).SetInt(m), q)
	if neg {
		r.Neg(r)
	}
	return r
}

// lsh returns a × 2^k for k ≥ 0 and a unchanged (as a copy) for k < 0: it
// scales whichever side of a comparison or quotient needs the factor.
func lsh(a *big.Int, k int) *big.Int {
	if k <= 0 {
		return new(big.Int).Set(a)
	}
	return new(big.Int).Lsh(a, uint(k))
}

// overflows reports whether a rounded value lies beyond the grid.
func (g arithGrid) overflows(r *big.Rat) bool {
	return g.bounded && ratAbs(r).Cmp(g.max) > 0
}

// roundIEEE rounds x to nearest, ties to even, with the format's overflow
// (±Inf, or NaN for E4M3) and the sign of x on zero results (IEEE 754 §6.3).
func (g arithGrid) roundIEEE(x *big.Rat) float64 {
	r := g.round(x, nearestEven)
	if g.overflows(r) {
		if !g.hasInf {
			return math.NaN()
		}
		return math.Inf(x.Sign())
	}
	f, exact := r.Float64()
	if !exact {
		panic(fmt.Sprintf("%s value %v is not a float64", g.name, r))
	}
	if f == 0 && x.Sign() < 0 {
		return math.Copysign(0, -1)
	}
	return f
}

// contains reports whether the rational v is a value of the grid.
func (g arithGrid) contains(v *big.Rat) bool {
	return g.round(v, towardZero).Cmp(v) == 0 && !g.overflows(v)
}

func (g arithGrid) containsFloat(v float64) bool {
	switch {
	case math.IsNaN(v):
		return g.bounded
	case math.IsInf(v, 0):
		return g.bounded && g.hasInf
	}
	return g.contains(ratOf(v))
}

// snap returns the value of the grid nearest to x toward zero, clamped to
// the largest finite value: generators use it to land on the grid without
// calling the code under test.
func (g arithGrid) snap(x *big.Rat) *big.Rat {
	r := g.round(x, towardZero)
	if g.overflows(r) {
		r = new(big.Rat).Set(g.max)
		if x.Sign() < 0 {
			r.Neg(r)
		}
	}
	return r
}

// nudges returns r × (1 ± 1/(3 × 2^(p+k))) for k = 8 and k = 100: off r
// by non-dyadic amounts far below the grid's spacing, so that a tie at r
// becomes a clear decision. The second offset lies beyond the P + 64 bits
// at which Format.RoundRat first rounds to odd, so it tests that rounding's
// sticky bit.
func (g arithGrid) nudges(r *big.Rat) []*big.Rat {
	var out []*big.Rat
	for _, k := range []int{8, 100} {
		d := new(big.Rat).SetFrac(big.NewInt(1), new(big.Int).Lsh(big.NewInt(3), uint(g.p+k)))
		out = append(out, ratProd(r, ratSum(ratInt(1), d)), ratProd(r, ratDiff(ratInt(1), d)))
	}
	return out
}

// edgeRats lists rationals where rounding to g is easy to get wrong: exact
// ties (1 + 2^−p, 2^p + 1: 1 + 2^−24 and 2^24 + 1 in fp32, 2^53 + 1 in
// fp64), the overflow threshold max + ulp/2, the underflow tie
// MinSubnormal/2, the subnormal/normal boundary, and values a hair either
// side of each tie; in both signs.
func (g arithGrid) edgeRats() []*big.Rat {
	p := g.p
	one := ratInt(1)
	var rs []*big.Rat
	add := func(xs ...*big.Rat) { rs = append(rs, xs...) }
	tie := func(r *big.Rat) { add(r); add(g.nudges(r)...) }
	add(new(big.Rat), one, ratInt(3), ratFrac(1, 3), ratFrac(2, 3), ratFrac(1, 10), ratFrac(22, 7))
	tie(ratSum(one, pow2Rat(-p)))             // 1 (even) or 1 + 2^(1−p)
	tie(ratSum(one, ratScale(ratInt(3), -p))) // 1 + 2^(2−p) (even)
	tie(ratDiff(one, pow2Rat(-p-1)))          // 1 − 2^−p (odd) or 1
	tie(ratSum(pow2Rat(p), one))              // 2^p (even) or 2^p + 2
	tie(ratSum(pow2Rat(p), ratInt(3)))        // 2^p + 4 (even)
	tie(ratDiff(pow2Rat(p+1), ratInt(1)))     // 2^(p+1) − 2 (odd) or 2^(p+1): spacing 2 below
	add(ratSum(pow2Rat(p+1), one), ratDiff(pow2Rat(p), one), pow2Rat(p))
	if g.bounded {
		minSub := pow2Rat(g.emin - p + 1)
		tie(ratScale(minSub, -1))                           // 0 or MinSubnormal
		tie(ratProd(minSub, ratFrac(3, 2)))                 // 2 MinSubnormal (even)
		tie(ratDiff(pow2Rat(g.emin), ratScale(minSub, -1))) // largest subnormal (odd) or 2^emin
		add(minSub, ratScale(minSub, -2), pow2Rat(g.emin), ratDiff(pow2Rat(g.emin), minSub))
		ulpTop := pow2Rat(g.emax - p + 1)
		tie(ratSum(g.max, ratScale(ulpTop, -1))) // overflow threshold
		add(g.max, ratSum(g.max, ratScale(ulpTop, -2)), pow2Rat(g.emax+1), ratScale(g.max, 1))
	} else {
		tie(ratProd(ratSum(one, pow2Rat(-p)), pow2Rat(-700)))
		tie(ratProd(ratSum(pow2Rat(p), one), pow2Rat(700)))
		add(pow2Rat(1000), pow2Rat(-1000))
	}
	out := make([]*big.Rat, 0, 2*len(rs))
	for _, r := range rs {
		out = append(out, r)
		if r.Sign() != 0 {
			out = append(out, ratNeg(r))
		}
	}
	return out
}

// edgeValues lists values of the grid that make good operands: they give
// ties, cancellations, overflow and underflow when combined (2^24 − 1,
// 2^24, 1 and 2^−24 in fp32, and so on).
func (g arithGrid) edgeValues() []*big.Rat {
	p := g.p
	one := ratInt(1)
	cands := []*big.Rat{
		new(big.Rat), one, ratInt(2), ratInt(3), ratFrac(1, 2), ratFrac(3, 4),
		ratDiff(pow2Rat(p), one), pow2Rat(p), ratSum(pow2Rat(p), ratInt(2)), ratSum(pow2Rat(p-1), one),
		pow2Rat(-p), pow2Rat(1 - p), ratSum(one, pow2Rat(1-p)), ratDiff(one, pow2Rat(-p)),
		ratScale(ratInt(3), -p), ratSum(pow2Rat(p/2), one), ratDiff(pow2Rat(p/2), one),
	}
	if g.bounded {
		minSub := pow2Rat(g.emin - p + 1)
		ulpTop := pow2Rat(g.emax - p + 1)
		cands = append(cands, minSub, ratScale(minSub, 1), ratScale(ratInt(3), g.emin-p+1),
			ratDiff(pow2Rat(g.emin), minSub), pow2Rat(g.emin), ratSum(pow2Rat(g.emin), minSub),
			g.max, ratDiff(g.max, ulpTop), pow2Rat(g.emax), pow2Rat(g.emax/2), pow2Rat(g.emin/2),
			pow2Rat((g.emin-p)/2))
	} else {
		cands = append(cands, pow2Rat(200), pow2Rat(-200), ratDiff(pow2Rat(300), pow2Rat(300-p)))
	}
	var out []*big.Rat
	seen := map[string]bool{}
	for _, c := range cands {
		for _, v := range []*big.Rat{c, ratNeg(c)} {
			if k := v.RatString(); g.contains(v) && !seen[k] {
				seen[k] = true
				out = append(out, v)
			}
		}
	}
	return out
}

// sqrtRoundedOK reports ("" if so) whether r is √x (x > 0) rounded to
// nearest, ties to even, on the p-bit grid of normal numbers. √x may be
// irrational, so r is checked rather than computed: r must be a p-bit
// number, and x must lie between the squares of the midpoints from r to its
// neighbours, with equality (√x exactly a midpoint) only when r is even.
func sqrtRoundedOK(x, r *big.Rat, p int) string {
	if r.Sign() <= 0 {
		return fmt.Sprintf("√%s gave %s, not positive", ratStr(x), ratStr(r))
	}
	if !unboundedGrid(p).contains(r) {
		return fmt.Sprintf("√%s gave %s, which has more than %d significant bits", ratStr(x), ratStr(r), p)
	}
	// r = m × 2^q with 2^(p−1) ≤ m < 2^p.
	e := r.Num().BitLen() - r.Denom().BitLen() // r is dyadic: exact ⌊log2 r⌋
	q := e - p + 1
	m := ratScale(r, -q)
	if !m.IsInt() {
		panic("sqrtRoundedOK: significand is not an integer")
	}
	mi := m.Num()
	even := mi.Bit(0) == 0
	// Midpoint above: (2m + 1) × 2^(q−1). Below: (2m − 1) × 2^(q−1), or
	// (4m − 1) × 2^(q−2) when r = 2^e, whose predecessor lies in the binade
	// below with half the spacing.
	up := ratScale(new(big.Rat).SetInt(new(big.Int).Add(new(big.Int).Lsh(mi, 1), big.NewInt(1))), q-1)
	var down *big.Rat
	if mi.Cmp(new(big.Int).Lsh(big.NewInt(1), uint(p-1))) == 0 {
		down = ratScale(new(big.Rat).SetInt(new(big.Int).Sub(new(big.Int).Lsh(mi, 2), big.NewInt(1))), q-2)
	} else {
		down = ratScale(new(big.Rat).SetInt(new(big.Int).Sub(new(big.Int).Lsh(mi, 1), big.NewInt(1))), q-1)
	}
	cu := x.Cmp(ratProd(up, up))
	cd := x.Cmp(ratProd(down, down))
	if (cd > 0 || cd == 0 && even) && (cu < 0 || cu == 0 && even) {
		return ""
	}
	return fmt.Sprintf("√%s gave %s, but the root is not within the midpoints %s and %s (x vs their squares: %d, %d)",
		ratStr(x), ratStr(r), ratStr(down), ratStr(up), cd, cu)
}

// ---------------------------------------------------------------------------
// The table oracle of format_test.go for each small format, built once.

var (
	smallOraclesMu sync.Mutex
	smallOracles   = map[*Format]*roundOracle{}
)

func smallFormatOf(f *Format) smallFormat {
	for _, sf := range smallFormats() {
		if sf.f == f {
			return sf
		}
	}
	panic("not a small format: " + f.Name)
}

func oracleFor(t *testing.T, f *Format) *roundOracle {
	smallOraclesMu.Lock()
	defer smallOraclesMu.Unlock()
	if o, ok := smallOracles[f]; ok {
		return o
	}
	o := newRoundOracle(t, smallFormatOf(f))
	smallOracles[f] = o
	return o
}
