package numeric

import (
	"fmt"
	"math"
	"math/big"

	"github.com/leanovate/gopter"
)

// Generators and shrinkers.

// sliceShrink streams the given candidates.
func sliceShrink(vs []interface{}) gopter.Shrink {
	i := 0
	return func() (interface{}, bool) {
		if i >= len(vs) {
			return nil, false
		}
		i++
		return vs[i-1], true
	}
}

func ratSize(r *big.Rat) int { return r.Num().BitLen() + r.Denom().BitLen() }

// shrinkRats returns simpler rationals than r: 0, |r|, ±1, the integer
// part, halved numerator or denominator, the numerator without its lowest
// set bit, r × 2^±1 where that cancels a factor. Every candidate has fewer
// bits than r (or is |r| for a negative r), so shrinking terminates, and
// every denominator is ≥ 1 by construction.
func shrinkRats(r *big.Rat) []*big.Rat {
	if r.Sign() == 0 {
		return nil
	}
	num, den := r.Num(), r.Denom()
	two := big.NewInt(2)
	cands := []*big.Rat{
		new(big.Rat),
		ratAbs(r),
		ratInt(int64(r.Sign())),
		new(big.Rat).SetInt(new(big.Int).Quo(num, den)),
		new(big.Rat).SetFrac(new(big.Int).Quo(num, two), den),
	}
	if den.Cmp(big.NewInt(1)) > 0 {
		cands = append(cands, new(big.Rat).SetFrac(num, new(big.Int).Quo(den, two)))
	}
	a := new(big.Int).Abs(num)
	low := new(big.Int).SetBit(new(big.Int), int(a.TrailingZeroBits()), 1)
	a.Sub(a, low)
	if num.Sign() < 0 {
		a.Neg(a)
	}
	cands = append(cands, new(big.Rat).SetFrac(a, den), ratScale(r, 1), ratScale(r, -1))
	size := ratSize(r)
	var out []*big.Rat
	seen := map[string]bool{}
	for _, c := range cands {
		s := ratSize(c)
		if s < size || s == size && r.Sign() < 0 && c.Sign() > 0 && c.Cmp(ratAbs(r)) == 0 {
			if k := c.RatString(); !seen[k] {
				seen[k] = true
				out = append(out, c)
			}
		}
	}
	return out
}

func ratShrinker(v interface{}) gopter.Shrink {
	var out []interface{}
	for _, c := range shrinkRats(v.(*big.Rat)) {
		out = append(out, c)
	}
	return sliceShrink(out)
}

// randBig returns a random nonnegative integer below 2^bits.
func randBig(p *gopter.GenParameters, bits int) *big.Int {
	z := new(big.Int)
	for n := 0; n < bits; n += 63 {
		z.Lsh(z, 63).Or(z, big.NewInt(p.Rng.Int63()))
	}
	mask := new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), uint(bits)), big.NewInt(1))
	return z.And(z, mask)
}

// randSignificand returns a random p-bit significand m ∈ [2^(p−1), 2^p):
// uniform, sparse (few bits set, which makes products and sums land on
// ties), or nearly all ones (which makes them carry into the next binade).
func randSignificand(p *gopter.GenParameters, bits int) *big.Int {
	top := new(big.Int).Lsh(big.NewInt(1), uint(bits-1))
	switch p.Rng.Intn(4) {
	case 0, 1:
		return new(big.Int).Or(top, randBig(p, bits-1))
	case 2:
		m := new(big.Int).Set(top)
		for k := p.Rng.Intn(3); k > 0 && bits > 1; k-- {
			m.SetBit(m, p.Rng.Intn(bits-1), 1)
		}
		return m
	default:
		m := new(big.Int).Sub(new(big.Int).Lsh(top, 1), big.NewInt(1))
		if bits > 1 {
			m.SetBit(m, p.Rng.Intn(bits-1), 0)
		}
		return m
	}
}

func randSign(p *gopter.GenParameters, r *big.Rat) *big.Rat {
	if p.Rng.Intn(2) == 0 {
		return r.Neg(r)
	}
	return r
}

// genGridRat draws a finite value of g: an edge value, a p-bit significand
// near 1 (exponent within ±(p+2), where operands interact), or one
// anywhere in the range, subnormals and the top binade included.
func genGridRat(p *gopter.GenParameters, g arithGrid, edges []*big.Rat) *big.Rat {
	switch p.Rng.Intn(5) {
	case 0:
		return new(big.Rat).Set(edges[p.Rng.Intn(len(edges))])
	case 1, 2:
		e := p.Rng.Intn(2*g.p+5) - g.p - 2
		m := new(big.Rat).SetInt(randSignificand(p, g.p))
		return g.snap(randSign(p, ratScale(m, e-g.p+1)))
	default:
		lo, hi := -400, 400
		if g.bounded {
			lo, hi = g.emin-g.p, g.emax+1
		}
		e := lo + p.Rng.Intn(hi-lo+1)
		m := new(big.Rat).SetInt(randSignificand(p, g.p))
		return g.snap(randSign(p, ratScale(m, e-g.p+1)))
	}
}

// partner returns a value of g to combine with x so that the result of an
// operation falls where rounding is delicate, which independent operands
// rarely do: an odd multiple of half x's spacing (x + y is then a tie), a
// value that nearly cancels x, a sparse significand (1 + 2^−j makes x·y
// a tie for the sparse x that randSignificand produces), or x itself
// scaled by a power of two.
func partner(p *gopter.GenParameters, g arithGrid, x *big.Rat) *big.Rat {
	e := 0
	if x.Sign() != 0 {
		e = x.Num().BitLen() - x.Denom().BitLen() // ⌊log2 |x|⌋: x is dyadic
	}
	if g.bounded && e < g.emin {
		e = g.emin
	}
	q := e - g.p + 1 // x's spacing is 2^q
	var y *big.Rat
	switch p.Rng.Intn(4) {
	case 0:
		y = ratScale(ratInt(int64(2*p.Rng.Intn(4)+1)), q-1-p.Rng.Intn(2))
	case 1:
		d := ratScale(ratAbs(x), -1-p.Rng.Intn(g.p+2))
		if p.Rng.Intn(2) == 0 {
			d.Neg(d)
		}
		y = ratNeg(ratSum(x, d))
	case 2:
		j := 1 + p.Rng.Intn(g.p)
		y = ratScale(ratSum(ratInt(1), pow2Rat(-j)), p.Rng.Intn(9)-4)
	default:
		y = ratScale(x, p.Rng.Intn(9)-4)
	}
	return g.snap(randSign(p, y))
}

// ieeePair is a pair of operands; the generator draws them together so
// that one can be chosen to interact with the other.
type ieeePair struct{ X, Y float64 }

func (pr ieeePair) String() string { return fmt.Sprintf("(%s, %s)", fx(pr.X), fx(pr.Y)) }

// drawIEEE draws a value of c's format: grid values (see genGridRat),
// random bit patterns (NaNs and infinities included), and the special
// values ±0, ±Inf, NaN.
func drawIEEE(p *gopter.GenParameters, c *ieeeCase, edges []*big.Rat) float64 {
	specials := []float64{math.Copysign(0, -1), math.NaN()}
	if c.g.hasInf {
		specials = append(specials, math.Inf(1), math.Inf(-1))
	}
	switch k := p.Rng.Intn(10); {
	case k == 0:
		return specials[p.Rng.Intn(len(specials))]
	case k <= 2:
		return c.decode(p.NextUint64())
	}
	v, _ := genGridRat(p, c.g, edges).Float64()
	return v
}

// shrinkValue returns simpler values of c's format than x.
func (c *ieeeCase) shrinkValue(x float64) []float64 {
	switch {
	case math.IsNaN(x) || math.IsInf(x, 0):
		return []float64{0, 1}
	case x == 0 && math.Signbit(x):
		return []float64{0}
	}
	var out []float64
	for _, r := range shrinkRats(ratOf(x)) {
		if c.g.contains(r) {
			f, _ := r.Float64()
			out = append(out, f)
		}
	}
	return out
}

// genIEEE generates values of c's format as float64s (see drawIEEE); a
// value shrinks to simpler values of the same format.
func genIEEE(c *ieeeCase) gopter.Gen {
	edges := c.g.edgeValues()
	shrinker := func(v interface{}) gopter.Shrink {
		var out []interface{}
		for _, s := range c.shrinkValue(v.(float64)) {
			out = append(out, s)
		}
		return sliceShrink(out)
	}
	return func(p *gopter.GenParameters) *gopter.GenResult {
		return gopter.NewGenResult(drawIEEE(p, c, edges), shrinker)
	}
}

// drawIEEEPair draws two independent values or a value and its partner.
func drawIEEEPair(p *gopter.GenParameters, c *ieeeCase, edges []*big.Rat) ieeePair {
	if p.Rng.Intn(2) == 0 {
		return ieeePair{drawIEEE(p, c, edges), drawIEEE(p, c, edges)}
	}
	x := genGridRat(p, c.g, edges)
	pr := ieeePair{}
	pr.X, _ = x.Float64()
	pr.Y, _ = partner(p, c.g, x).Float64()
	if p.Rng.Intn(2) == 0 {
		pr.X, pr.Y = pr.Y, pr.X
	}
	return pr
}

// genIEEEPair generates operand pairs; a pair shrinks one side at a time.
func genIEEEPair(c *ieeeCase) gopter.Gen {
	edges := c.g.edgeValues()
	shrinker := func(v interface{}) gopter.Shrink {
		pr := v.(ieeePair)
		var out []interface{}
		for _, s := range c.shrinkValue(pr.X) {
			out = append(out, ieeePair{s, pr.Y})
		}
		for _, s := range c.shrinkValue(pr.Y) {
			out = append(out, ieeePair{pr.X, s})
		}
		return sliceShrink(out)
	}
	return func(p *gopter.GenParameters) *gopter.GenResult {
		return gopter.NewGenResult(drawIEEEPair(p, c, edges), shrinker)
	}
}

// genRatValue draws an arbitrary rational (not only dyadic ones): small
// fractions, int32 and int64 numerators over random denominators ≥ 1,
// dyadic fractions, and edge values.
func genRatValue(p *gopter.GenParameters) *big.Rat {
	rng := p.Rng
	switch rng.Intn(6) {
	case 0:
		return ratFrac(rng.Int63n(25)-12, rng.Int63n(12)+1)
	case 1:
		return ratFrac(rng.Int63n(1<<32)-1<<31, rng.Int63n(1<<31)+1)
	case 2:
		return ratFrac(p.NextInt64(), rng.Int63n(1<<62)+1)
	case 3:
		return new(big.Rat).SetFrac(big.NewInt(p.NextInt64()), new(big.Int).Lsh(big.NewInt(1), uint(rng.Intn(63))))
	case 4:
		return ratFrac(rng.Int63n(2001)-1000, rng.Int63n(1000)+1)
	default:
		edges := []*big.Rat{
			new(big.Rat), ratInt(1), ratInt(-1), ratFrac(1, 2), ratFrac(-1, 3),
			ratInt(math.MaxInt64), ratInt(-math.MaxInt64), ratFrac(1, math.MaxInt64),
			ratFrac(1<<62+1, 1<<62-1), ratFrac(-(1<<62 - 1), 1<<62+1),
		}
		return new(big.Rat).Set(edges[rng.Intn(len(edges))])
	}
}

// genRat generates arbitrary rationals.
func genRat() gopter.Gen {
	return func(p *gopter.GenParameters) *gopter.GenResult {
		return gopter.NewGenResult(genRatValue(p), ratShrinker)
	}
}

// genRatFor generates rationals to round to g: arbitrary rationals scaled
// across g's range and a little beyond it, and g's edge rationals.
func genRatFor(g arithGrid) gopter.Gen {
	edges := g.edgeRats()
	lo, hi := -300, 300
	if g.bounded {
		lo, hi = g.emin-g.p-4, g.emax+4
	}
	return func(p *gopter.GenParameters) *gopter.GenResult {
		var r *big.Rat
		if p.Rng.Intn(4) == 0 {
			r = new(big.Rat).Set(edges[p.Rng.Intn(len(edges))])
		} else {
			r = genRatValue(p)
			// Bring r near 1 before scaling, so that the scale decides
			// the magnitude.
			k := r.Num().BitLen() - r.Denom().BitLen()
			r = ratScale(r, lo+p.Rng.Intn(hi-lo+1)-k)
		}
		return gopter.NewGenResult(r, ratShrinker)
	}
}

// genUnit generates rationals in [0, 1], the ends and 1/2 included.
func genUnit() gopter.Gen {
	shrinker := func(v interface{}) gopter.Shrink {
		var out []interface{}
		for _, c := range shrinkRats(v.(*big.Rat)) {
			if c.Sign() >= 0 && c.Cmp(ratInt(1)) <= 0 {
				out = append(out, c)
			}
		}
		return sliceShrink(out)
	}
	return func(p *gopter.GenParameters) *gopter.GenResult {
		var r *big.Rat
		switch p.Rng.Intn(5) {
		case 0:
			r = new(big.Rat)
		case 1:
			r = ratInt(1)
		case 2:
			r = ratFrac(1, 2)
		default:
			a, b := p.Rng.Int63n(1<<40), p.Rng.Int63n(1<<40)
			r = ratFrac(a, a+b+1)
		}
		return gopter.NewGenResult(r, shrinker)
	}
}
