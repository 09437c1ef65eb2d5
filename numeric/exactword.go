package numeric

import (
	"math"
	"math/big"
	"math/bits"
)

// Machine-word rationals: the exact backend computes a rational n/d whose
// numerator and denominator fit in an int64 (|n| ≤ 2^63 − 1, 1 ≤ d ≤
// 2^63 − 1: the weights and most values of the cookbook's models) in
// int64 arithmetic, every product and sum checked for overflow
// (math/bits), and goes through big.Rat only for an operand or a result
// that does not fit. The results are the same rationals in lowest terms
// as big.Rat's, without big.Rat's temporaries and its gcd on multi-word
// numbers. −2^63 is left out so that every word has a negation.

// ratWords returns x = n/d as machine words, when both fit.
func ratWords(x *big.Rat) (n, d int64, ok bool) {
	num := x.Num()
	if !num.IsInt64() {
		return 0, 0, false
	}
	if n = num.Int64(); n == math.MinInt64 {
		return 0, 0, false
	}
	if x.IsInt() {
		return n, 1, true
	}
	// x is a fraction, so Denom is a reference to its denominator, not
	// a new Int.
	den := x.Denom()
	if !den.IsInt64() {
		return 0, 0, false
	}
	return n, den.Int64(), true
}

// setWords sets z to n/d (d > 0, n ≠ −2^63) in lowest terms.
func setWords(z *big.Rat, n, d int64) *big.Rat {
	if d != 1 {
		g := int64(gcdWords(abs64(n), uint64(d)))
		n /= g
		d /= g
	}
	z = ratOr(z)
	if d == 1 && z.IsInt() {
		// z's denominator is 1 already (or empty, which a Rat reads as
		// 1): setting the numerator alone saves SetInt64's allocation of
		// a denominator for a new Rat.
		z.Num().SetInt64(n)
		return z
	}
	z.SetInt64(n)
	if d != 1 {
		// SetInt64 stored the denominator 1, so Denom is a reference to
		// it; n/d is already in lowest terms, as a Rat must be.
		z.Denom().SetInt64(d)
	}
	return z
}

// MulInt64 returns a·b and true when |a·b| ≤ 2^63 − 1, and false when
// the product does not fit in a machine word (checked in 128 bits).
func MulInt64(a, b int64) (int64, bool) { return mulWords(a, b) }

// AddInt64 returns a + b and true when |a + b| ≤ 2^63 − 1, and false when
// the sum overflows (or is −2^63, which has no negation).
func AddInt64(a, b int64) (int64, bool) { return addWords(a, b) }

// ExactWords writes the rationals xs over their least common denominator
// L into dst (dst[k] = xs[k]·L, integers), and returns the largest
// |dst[k]|: a vector of rationals becomes an integer vector and one
// positive factor 1/L. It reports false, with dst undefined, when L or a
// numerator does not fit in a machine word (|n| ≤ 2^63 − 1).
func ExactWords(dst []int64, xs []*big.Rat) (max uint64, ok bool) {
	l := int64(1)
	for _, x := range xs {
		if x.IsInt() {
			continue
		}
		d := x.Denom() // a fraction's Denom is a reference: no allocation
		if !d.IsInt64() {
			return 0, false
		}
		dv := d.Int64()
		g := int64(gcdWords(uint64(l), uint64(dv)))
		if l, ok = mulWords(l/g, dv); !ok {
			return 0, false
		}
	}
	dst = dst[:len(xs)]
	for k, x := range xs {
		num := x.Num()
		if !num.IsInt64() {
			return 0, false
		}
		n := num.Int64()
		if n == math.MinInt64 {
			return 0, false
		}
		if l != 1 {
			scale := l
			if !x.IsInt() {
				scale = l / x.Denom().Int64()
			}
			if n, ok = mulWords(n, scale); !ok {
				return 0, false
			}
		}
		dst[k] = n
		if a := abs64(n); a > max {
			max = a
		}
	}
	return max, true
}

// abs64 is |a| as a uint64 (2^63 for −2^63).
func abs64(a int64) uint64 {
	if a < 0 {
		return uint64(-a)
	}
	return uint64(a)
}

// mulWords returns a·b when it fits in a word (|a·b| ≤ 2^63 − 1).
func mulWords(a, b int64) (int64, bool) {
	hi, lo := bits.Mul64(abs64(a), abs64(b))
	if hi != 0 || lo > math.MaxInt64 {
		return 0, false
	}
	if (a < 0) != (b < 0) {
		return -int64(lo), true
	}
	return int64(lo), true
}

// addWords returns a + b when it fits in a word (and is not −2^63).
func addWords(a, b int64) (int64, bool) {
	s := a + b
	// Two's complement addition overflows exactly when a and b have one
	// sign and s the other.
	if (a^s)&(b^s) < 0 || s == math.MinInt64 {
		return 0, false
	}
	return s, true
}

// gcdWords is gcd(a, b) by Stein's binary algorithm (shifts and
// subtractions: no division); gcd(0, b) = b.
func gcdWords(a, b uint64) uint64 {
	if a == 0 {
		return b
	}
	if b == 0 {
		return a
	}
	shift := bits.TrailingZeros64(a | b)
	a >>= bits.TrailingZeros64(a)
	for b != 0 {
		b >>= bits.TrailingZeros64(b)
		if a > b {
			a, b = b, a
		}
		b -= a
	}
	return a << shift
}

// addFrac returns a/b + c/d (b, d > 0) in lowest terms when every step
// fits in a word. It takes the denominators' gcd out first (Knuth, TAOCP
// 4.5.1), so that b·d/g, not b·d, must fit.
func addFrac(a, b, c, d int64) (n, m int64, ok bool) {
	if b == d {
		if n, ok = addWords(a, c); !ok {
			return 0, 0, false
		}
		if b == 1 {
			return n, 1, true
		}
		g := int64(gcdWords(abs64(n), uint64(b)))
		return n / g, b / g, true
	}
	g := int64(gcdWords(uint64(b), uint64(d)))
	x, ok1 := mulWords(a, d/g)
	y, ok2 := mulWords(c, b/g)
	m, ok3 := mulWords(b/g, d)
	if !ok1 || !ok2 || !ok3 {
		return 0, 0, false
	}
	if n, ok = addWords(x, y); !ok {
		return 0, 0, false
	}
	g = int64(gcdWords(abs64(n), uint64(m)))
	return n / g, m / g, true
}

// mulFrac returns (a/b)·(c/d) (b, d > 0) in lowest terms when it fits,
// cancelling across first (a with d, c with b) so that only the reduced
// products must fit.
func mulFrac(a, b, c, d int64) (n, m int64, ok bool) {
	if b == 1 && d == 1 {
		n, ok = mulWords(a, c)
		return n, 1, ok
	}
	if g := int64(gcdWords(abs64(a), uint64(d))); g > 1 {
		a, d = a/g, d/g
	}
	if g := int64(gcdWords(abs64(c), uint64(b))); g > 1 {
		c, b = c/g, b/g
	}
	n, ok1 := mulWords(a, c)
	m, ok2 := mulWords(b, d)
	if !ok1 || !ok2 {
		return 0, 0, false
	}
	if n == 0 {
		return 0, 1, true
	}
	// Lowest terms when a/b and c/d were; reduced again in case a Rat's
	// numerator was set by hand (Num is a reference) and they were not.
	g := int64(gcdWords(abs64(n), uint64(m)))
	return n / g, m / g, true
}

// cmpWords compares a/b with c/d (b, d > 0) exactly: the cross products
// a·d and c·b are compared in 128 bits, where they cannot overflow.
func cmpWords(a, b, c, d int64) int {
	sa, sc := sign64(a), sign64(c)
	switch {
	case sa != sc:
		if sa < sc {
			return -1
		}
		return 1
	case sa == 0:
		return 0
	}
	if b == d {
		switch {
		case a < c:
			return -1
		case a > c:
			return 1
		}
		return 0
	}
	h1, l1 := bits.Mul64(abs64(a), uint64(d))
	h2, l2 := bits.Mul64(abs64(c), uint64(b))
	r := 0
	switch {
	case h1 < h2 || h1 == h2 && l1 < l2:
		r = -1
	case h1 > h2 || l1 > l2:
		r = 1
	}
	return r * sa // for negatives the larger magnitude is the smaller
}

func sign64(a int64) int {
	switch {
	case a < 0:
		return -1
	case a > 0:
		return 1
	}
	return 0
}

// ExactSum is an exact running sum of rationals and of products of two
// rationals, the inner loop of a dot product, a matrix row or a sum of
// values in exact arithmetic: the partial sums are kept in machine words
// (an int64 numerator over an int64 denominator, every step checked for
// overflow) while they fit, so that a whole dot product costs no big.Rat
// operation; from the first term or partial sum that does not fit on, in
// a big.Int while every term is an integer (big.Rat would reduce each
// integer result by a gcd with its denominator 1), and in a big.Rat from
// the first fraction on. The sum is exact either way: the same rational
// as big.Rat's sum of big.Rat's products.
//
// The zero value is the sum 0, ready to use. An ExactSum keeps its big
// storage across Reset, so that a loop that reuses one allocates nothing
// once warm.
type ExactSum struct {
	num, den int64 // the sum while it fits: num/den, den ≥ 1 (0 in the zero value: read as 1)
	state    sumState
	ints     big.Int // the sum in state sumInt
	ti       big.Int
	sum, t   big.Rat // the sum in state sumRat
}

// sumState says where an ExactSum holds its sum.
type sumState uint8

const (
	sumWords sumState = iota // num/den
	sumInt                   // ints: an integer past the words
	sumRat                   // sum
)

// Reset sets s to 0.
func (s *ExactSum) Reset() { s.num, s.den, s.state = 0, 1, sumWords }

// Add adds x to s.
func (s *ExactSum) Add(x *big.Rat) {
	if x.Sign() == 0 {
		return
	}
	switch s.state {
	case sumWords:
		if a, b, ok := ratWords(x); ok && s.addWords(a, b) {
			return
		}
		s.widen(x.IsInt())
		s.Add(x)
	case sumInt:
		if x.IsInt() {
			s.ints.Add(&s.ints, x.Num())
			return
		}
		s.toRat()
		s.sum.Add(&s.sum, x)
	default:
		s.sum.Add(&s.sum, x)
	}
}

// AddProduct adds x·y to s.
func (s *ExactSum) AddProduct(x, y *big.Rat) {
	if x.Sign() == 0 || y.Sign() == 0 {
		return
	}
	switch s.state {
	case sumWords:
		if a, b, ok := ratWords(x); ok {
			if c, d, ok := ratWords(y); ok {
				if n, m, ok := mulFrac(a, b, c, d); ok && s.addWords(n, m) {
					return
				}
			}
		}
		s.widen(x.IsInt() && y.IsInt())
		s.AddProduct(x, y)
	case sumInt:
		if x.IsInt() && y.IsInt() {
			s.ints.Add(&s.ints, s.ti.Mul(x.Num(), y.Num()))
			return
		}
		s.toRat()
		s.sum.Add(&s.sum, s.t.Mul(x, y))
	default:
		s.sum.Add(&s.sum, s.t.Mul(x, y))
	}
}

// addWords adds n/m (lowest terms, m ≥ 1) to the word sum, and reports
// false, leaving the sum as it was, when the result does not fit.
func (s *ExactSum) addWords(n, m int64) bool {
	if s.den == 0 {
		s.den = 1
	}
	if s.den == 1 && m == 1 {
		// Integers, the common case: one checked addition.
		v, ok := addWords(s.num, n)
		if ok {
			s.num = v
		}
		return ok
	}
	v, w, ok := addFrac(s.num, s.den, n, m)
	if ok {
		s.num, s.den = v, w
	}
	return ok
}

// widen moves the word sum to a big.Int, when it and the next term are
// integers, or else to a big.Rat.
func (s *ExactSum) widen(intTerm bool) {
	if s.den == 0 {
		s.den = 1
	}
	if intTerm && s.den == 1 {
		s.ints.SetInt64(s.num)
		s.state = sumInt
		return
	}
	setWords(&s.sum, s.num, s.den)
	s.state = sumRat
}

// toRat moves the integer sum to the big.Rat, for a fraction.
func (s *ExactSum) toRat() {
	s.sum.SetInt(&s.ints)
	s.state = sumRat
}

// Rat sets z (allocating when z is nil) to the sum, in lowest terms, and
// returns it.
func (s *ExactSum) Rat(z *big.Rat) *big.Rat {
	switch s.state {
	case sumInt:
		return ratOr(z).SetInt(&s.ints)
	case sumRat:
		return ratOr(z).Set(&s.sum)
	}
	if s.den == 0 {
		return setWords(z, 0, 1)
	}
	return setWords(z, s.num, s.den)
}

// ExactDot sets z (allocating when z is nil) to x · y = Σ_k x_k·y_k,
// exactly, and returns it; s is the accumulator it uses (reset first).
// Only the first len(x) entries of y are read.
func ExactDot(z *big.Rat, x, y []*big.Rat, s *ExactSum) *big.Rat {
	s.Reset()
	y = y[:len(x)]
	for k, v := range x {
		s.AddProduct(v, y[k])
	}
	return s.Rat(z)
}
