package numeric

import (
	"fmt"
	"math"
	"math/big"
	"testing"
)

// The IEEE-style backends (fp64, fp32 and the emulated formats), seen
// through float64.

type ieeeCase struct {
	name string
	g    arithGrid
	// roundMag is the independent correct rounding of a ≥ 0 used as the
	// oracle of the operations: ±Inf or NaN on overflow.
	roundMag func(a *big.Rat) float64
	// decode returns the value of a random bit pattern, without the code
	// under test.
	decode func(bits uint64) float64

	add, sub, mul, max, min func(x, y float64) float64
	div                     func(x, y float64) (float64, error)
	sqrt                    func(x float64) (float64, error)
	neg, abs                func(x float64) float64
	cmp                     func(x, y float64) Order
	sign                    func(x float64) Order
	setRat                  func(r *big.Rat) float64
	setInt64                func(n int64) float64
	rat                     func(x float64) (*big.Rat, error)
	finite                  func(x float64) bool
}

// viewIEEE fills c's operations from a float64 or float32 backend. Values
// of the format convert between float32 and float64 exactly.
func viewIEEE[T float32 | float64](c *ieeeCase, b Backend[T]) {
	c.add = func(x, y float64) float64 { return float64(b.Add(0, T(x), T(y))) }
	c.sub = func(x, y float64) float64 { return float64(b.Sub(0, T(x), T(y))) }
	c.mul = func(x, y float64) float64 { return float64(b.Mul(0, T(x), T(y))) }
	c.max = func(x, y float64) float64 { return float64(b.Max(0, T(x), T(y))) }
	c.min = func(x, y float64) float64 { return float64(b.Min(0, T(x), T(y))) }
	c.div = func(x, y float64) (float64, error) { v, err := b.Div(0, T(x), T(y)); return float64(v), err }
	c.sqrt = func(x float64) (float64, error) { v, err := b.Sqrt(0, T(x)); return float64(v), err }
	c.neg = func(x float64) float64 { return float64(b.Neg(0, T(x))) }
	c.abs = func(x float64) float64 { return float64(b.Abs(0, T(x))) }
	c.cmp = func(x, y float64) Order { return b.Cmp(T(x), T(y)) }
	c.sign = func(x float64) Order { return b.Sign(T(x)) }
	c.setRat = func(r *big.Rat) float64 { return float64(b.SetRat(0, r)) }
	c.setInt64 = func(n int64) float64 { return float64(b.SetInt64(0, n)) }
	c.rat = func(x float64) (*big.Rat, error) { return b.Rat(T(x)) }
	c.finite = func(x float64) bool { return b.Finite(T(x)) }
}

func fp64Case() *ieeeCase {
	c := &ieeeCase{name: "fp64", g: gridFP64,
		roundMag: func(a *big.Rat) float64 { v, _ := a.Float64(); return v },
		decode:   math.Float64frombits}
	viewIEEE[float64](c, NewFloat64())
	return c
}

func fp32Case() *ieeeCase {
	c := &ieeeCase{name: "fp32", g: gridFP32,
		roundMag: func(a *big.Rat) float64 { v, _ := a.Float32(); return float64(v) },
		decode:   func(b uint64) float64 { return float64(math.Float32frombits(uint32(b))) }}
	viewIEEE[float32](c, NewFloat32())
	return c
}

func emulatedCase(t *testing.T, f *Format) *ieeeCase {
	o := oracleFor(t, f)
	sf := smallFormatOf(f)
	c := &ieeeCase{name: f.Name, g: gridOf(f), roundMag: o.round,
		decode: func(b uint64) float64 {
			return refDecode(b&(1<<(1+sf.w+sf.t)-1), sf.w, sf.t, sf.e4m3).float64()
		}}
	viewIEEE[float64](c, NewEmulated(f))
	return c
}

func ieeeCases(t *testing.T) []*ieeeCase {
	cs := []*ieeeCase{fp64Case(), fp32Case()}
	for _, f := range []*Format{Binary16, BFloat16, FP8E4M3, FP8E5M2} {
		cs = append(cs, emulatedCase(t, f))
	}
	return cs
}

// roundSigned rounds the exact nonzero r with the oracle, keeping the sign
// of r on underflow to zero (IEEE 754 §6.3).
func (c *ieeeCase) roundSigned(r *big.Rat) float64 {
	m := c.roundMag(ratAbs(r))
	if r.Sign() < 0 {
		return negate(m)
	}
	return m
}

// want returns the IEEE 754 result of x op y for values of c's format: the
// special cases of §6 and §7 (NaN propagation, ∞ − ∞, 0 × ∞, x/0, the sign
// of zero), and otherwise the exact result rounded by the oracle. In E4M3,
// which has no infinities, every ±∞ becomes NaN (OFP8 §5.3).
func (c *ieeeCase) want(op string, x, y float64) float64 {
	nan := math.NaN()
	inf := func(neg bool) float64 {
		switch {
		case !c.g.hasInf:
			return nan
		case neg:
			return math.Inf(-1)
		}
		return math.Inf(1)
	}
	zero := func(neg bool) float64 {
		if neg {
			return math.Copysign(0, -1)
		}
		return 0
	}
	if math.IsNaN(x) || math.IsNaN(y) {
		return nan
	}
	xi, yi := math.IsInf(x, 0), math.IsInf(y, 0)
	sx, sy := math.Signbit(x), math.Signbit(y)
	switch op {
	case "add", "sub":
		if op == "sub" { // x − y is x + (−y), signs of zeros included
			y, sy = negate(y), !sy
		}
		switch {
		case xi && yi && sx != sy:
			return nan
		case xi:
			return inf(sx)
		case yi:
			return inf(sy)
		}
		r := ratSum(ratOf(x), ratOf(y))
		if r.Sign() == 0 {
			// An exact zero sum is +0 when rounding to nearest, except
			// (−0) + (−0) = −0.
			return zero(sx && sy)
		}
		return c.roundSigned(r)
	case "mul":
		s := sx != sy
		if xi || yi {
			if x == 0 || y == 0 {
				return nan
			}
			return inf(s)
		}
		r := ratProd(ratOf(x), ratOf(y))
		if r.Sign() == 0 {
			return zero(s)
		}
		return c.roundSigned(r)
	case "div":
		s := sx != sy
		switch {
		case xi && yi:
			return nan
		case xi:
			return inf(s)
		case yi:
			return zero(s)
		case y == 0 && x == 0:
			return nan
		case y == 0:
			return inf(s)
		}
		r := ratQuo(ratOf(x), ratOf(y))
		if r.Sign() == 0 {
			return zero(s)
		}
		return c.roundSigned(r)
	}
	panic("unknown op " + op)
}

// checkBinary checks x op y against want ("" if correct).
func (c *ieeeCase) checkBinary(op string, x, y float64) string {
	var got float64
	var err error
	switch op {
	case "add":
		got = c.add(x, y)
	case "sub":
		got = c.sub(x, y)
	case "mul":
		got = c.mul(x, y)
	case "div":
		got, err = c.div(x, y)
	default:
		panic("unknown op " + op)
	}
	if err != nil {
		return fmt.Sprintf("%s %s(%s, %s): error %v, but IEEE arithmetic never fails", c.name, op, fx(x), fx(y), err)
	}
	want := c.want(op, x, y)
	if sameBits(got, want) {
		return ""
	}
	exact := ""
	if !math.IsNaN(x) && !math.IsInf(x, 0) && !math.IsNaN(y) && !math.IsInf(y, 0) && !(op == "div" && y == 0) {
		var r *big.Rat
		switch op {
		case "add":
			r = ratSum(ratOf(x), ratOf(y))
		case "sub":
			r = ratDiff(ratOf(x), ratOf(y))
		case "mul":
			r = ratProd(ratOf(x), ratOf(y))
		case "div":
			r = ratQuo(ratOf(x), ratOf(y))
		}
		exact = " (exact " + ratStr(r) + ")"
	}
	return fmt.Sprintf("%s %s(%s, %s) = %s, want %s%s", c.name, op, fx(x), fx(y), fx(got), fx(want), exact)
}

// checkSqrt checks √x: the IEEE special cases (√−0 = −0, √(x<0) = NaN,
// √+∞ = +∞), and otherwise correct rounding by sqrtRoundedOK. The root of a
// positive value of any of these formats is at least √MinSubnormal, which
// is a normal number, so the p-bit grid of sqrtRoundedOK applies.
func (c *ieeeCase) checkSqrt(x float64) string {
	got, err := c.sqrt(x)
	if err != nil {
		return fmt.Sprintf("%s sqrt(%s): error %v, but IEEE arithmetic never fails", c.name, fx(x), err)
	}
	var want float64
	switch {
	case math.IsNaN(x) || x < 0:
		want = math.NaN()
	case x == 0 || math.IsInf(x, 1):
		want = x
	default:
		if !c.g.containsFloat(got) || math.IsInf(got, 0) || math.IsNaN(got) {
			return fmt.Sprintf("%s sqrt(%s) = %s, not a finite value of the format", c.name, fx(x), fx(got))
		}
		if msg := sqrtRoundedOK(ratOf(x), ratOf(got), c.g.p); msg != "" {
			return fmt.Sprintf("%s sqrt(%s) = %s: %s", c.name, fx(x), fx(got), msg)
		}
		return ""
	}
	if !sameBits(got, want) {
		return fmt.Sprintf("%s sqrt(%s) = %s, want %s", c.name, fx(x), fx(got), fx(want))
	}
	return ""
}

// checkNegAbs checks that Neg flips and Abs clears the sign bit, zeros and
// infinities included (IEEE 754 §5.5.1), and that both keep NaN a NaN.
func (c *ieeeCase) checkNegAbs(x float64) string {
	wantNeg, wantAbs := negate(x), math.Copysign(x, 1)
	if math.IsNaN(x) {
		wantNeg, wantAbs = x, x
	}
	if got := c.neg(x); !sameBits(got, wantNeg) {
		return fmt.Sprintf("%s neg(%s) = %s, want %s", c.name, fx(x), fx(got), fx(wantNeg))
	}
	if got := c.abs(x); !sameBits(got, wantAbs) {
		return fmt.Sprintf("%s abs(%s) = %s, want %s", c.name, fx(x), fx(got), fx(wantAbs))
	}
	return ""
}

// ieeeOrder is the order of two non-NaN values of a format. Comparing
// float64s is exact (the values are float64s exactly), and −0 = +0.
func ieeeOrder(x, y float64) Order {
	switch {
	case x < y:
		return Less
	case x > y:
		return Greater
	}
	return Equal
}

// checkOrder checks Max, Min, Cmp and Sign: with a NaN operand Max and Min
// are NaN and Cmp is Unordered; otherwise Max and Min return one of the
// operands, the larger and the smaller, and Cmp agrees with the exact order
// (−0 = +0).
func (c *ieeeCase) checkOrder(x, y float64) string {
	mx, mn, o := c.max(x, y), c.min(x, y), c.cmp(x, y)
	if math.IsNaN(x) || math.IsNaN(y) {
		if !math.IsNaN(mx) || !math.IsNaN(mn) || o != Unordered {
			return fmt.Sprintf("%s with NaN: max(%s, %s) = %s, min = %s, cmp = %v; want NaN, NaN, unordered",
				c.name, fx(x), fx(y), fx(mx), fx(mn), o)
		}
		return ""
	}
	want := ieeeOrder(x, y)
	if o != want {
		return fmt.Sprintf("%s cmp(%s, %s) = %v, want %v", c.name, fx(x), fx(y), o, want)
	}
	isOperand := func(v float64) bool { return sameBits(v, x) || sameBits(v, y) }
	if !isOperand(mx) || ieeeOrder(mx, x) == Less || ieeeOrder(mx, y) == Less {
		return fmt.Sprintf("%s max(%s, %s) = %s", c.name, fx(x), fx(y), fx(mx))
	}
	if !isOperand(mn) || ieeeOrder(mn, x) == Greater || ieeeOrder(mn, y) == Greater {
		return fmt.Sprintf("%s min(%s, %s) = %s", c.name, fx(x), fx(y), fx(mn))
	}
	if wantSign := ieeeOrder(x, 0); c.sign(x) != wantSign {
		return fmt.Sprintf("%s sign(%s) = %v, want %v", c.name, fx(x), c.sign(x), wantSign)
	}
	return ""
}
