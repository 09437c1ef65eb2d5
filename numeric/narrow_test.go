package numeric

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
)

// narrowValue draws a p-bit value within NarrowBigFloat's range: a random
// significand times a power of two, the exponent mostly small (where
// sums cancel and products tie), sometimes near either end of the range,
// where products and quotients leave it; and ±0.
func narrowValue(rng *rand.Rand, p uint) float64 {
	switch rng.IntN(16) {
	case 0:
		return 0
	case 1:
		return math.Copysign(0, -1)
	}
	m := float64(1<<(p-1) + rng.Int64N(1<<(p-1))) // p significant bits
	var e int
	switch rng.IntN(8) {
	case 0:
		e = -510 - rng.IntN(8) // the bottom: m·2^(e−p+1) ≥ 2^−510 needs e ≥ −510
		e = max(e, -510)
	case 1:
		e = 505 + rng.IntN(7)
	case 2:
		e = -260 + rng.IntN(20) // products near the bottom
	default:
		e = rng.IntN(17) - 8
	}
	x := math.Ldexp(m, e-int(p)+1)
	if rng.IntN(2) == 0 {
		x = -x
	}
	return x
}

// inNarrowRange reports whether a BigFloat value is one NarrowBigFloat
// keeps: 0, or a magnitude within [2^−510, the format's largest].
func inNarrowRange(n NarrowBigFloat, x *big.Float) bool {
	if x.Sign() == 0 {
		return true
	}
	a := new(big.Float).Abs(x)
	return a.Cmp(big.NewFloat(n.F.MinNormal())) >= 0 && a.Cmp(big.NewFloat(n.F.MaxFinite())) <= 0
}

// TestNarrowBigFloatIsBigFloat: every operation of NarrowBigFloat gives
// BigFloat's result (the same number, the same sign of zero, the same
// text) unless it counts an exit, and it counts one exactly where
// BigFloat's result is out of its range or BigFloat refuses the
// operation. BigFloat is the oracle: its operations round big.Float's
// exact results once, and are tested against exact rationals elsewhere.
func TestNarrowBigFloatIsBigFloat(t *testing.T) {
	const seed = 20261126
	rng := rand.New(rand.NewPCG(seed, 1))
	type op struct {
		name   string
		narrow func(n NarrowBigFloat, x, y float64) (float64, error)
		big    func(b BigFloat, x, y *big.Float) (*big.Float, error)
	}
	ops := []op{
		{"add", func(n NarrowBigFloat, x, y float64) (float64, error) { return n.Add(0, x, y), nil },
			func(b BigFloat, x, y *big.Float) (*big.Float, error) { return b.Add(nil, x, y), nil }},
		{"sub", func(n NarrowBigFloat, x, y float64) (float64, error) { return n.Sub(0, x, y), nil },
			func(b BigFloat, x, y *big.Float) (*big.Float, error) { return b.Sub(nil, x, y), nil }},
		{"mul", func(n NarrowBigFloat, x, y float64) (float64, error) { return n.Mul(0, x, y), nil },
			func(b BigFloat, x, y *big.Float) (*big.Float, error) { return b.Mul(nil, x, y), nil }},
		{"div", func(n NarrowBigFloat, x, y float64) (float64, error) { return n.Div(0, x, y) },
			func(b BigFloat, x, y *big.Float) (*big.Float, error) { return b.Div(nil, x, y) }},
		{"max", func(n NarrowBigFloat, x, y float64) (float64, error) { return n.Max(0, x, y), nil },
			func(b BigFloat, x, y *big.Float) (*big.Float, error) { return b.Max(nil, x, y), nil }},
		{"min", func(n NarrowBigFloat, x, y float64) (float64, error) { return n.Min(0, x, y), nil },
			func(b BigFloat, x, y *big.Float) (*big.Float, error) { return b.Min(nil, x, y), nil }},
		{"sqrt", func(n NarrowBigFloat, x, _ float64) (float64, error) { return n.Sqrt(0, x) },
			func(b BigFloat, x, _ *big.Float) (*big.Float, error) { return b.Sqrt(nil, x) }},
		{"exp", func(n NarrowBigFloat, x, _ float64) (float64, error) { return n.Exp(0, x) },
			func(b BigFloat, x, _ *big.Float) (*big.Float, error) { return b.Exp(nil, x) }},
		{"tanh", func(n NarrowBigFloat, x, _ float64) (float64, error) { return n.Tanh(0, x) },
			func(b BigFloat, x, _ *big.Float) (*big.Float, error) { return b.Tanh(nil, x) }},
	}
	for _, p := range []uint{2, 3, 8, 11, 24, 25} {
		n := NewNarrowBigFloat(p)
		b := n.Big
		for trial := range 3000 {
			x, y := narrowValue(rng, p), narrowValue(rng, p)
			for _, o := range ops {
				if o.name == "exp" && math.Abs(x) > 1000 {
					continue // e^±1000 is out of the range already; BigFloat's exp of 2^500 is slow
				}
				before := n.Exits()
				got, gerr := o.narrow(n, x, y)
				exited := n.Exits() != before
				bx, by := n.toBig(x), n.toBig(y)
				want, werr := o.big(b, bx, by)
				switch {
				case werr != nil && gerr == nil && !exited:
					t.Fatalf("p = %d trial %d: %s(%g, %g): BigFloat refuses (%v), narrow gives %g with no exit (seed %d)", p, trial, o.name, x, y, werr, got, seed)
				case werr != nil:
					continue
				case !exited && !inNarrowRange(n, want):
					t.Fatalf("p = %d trial %d: %s(%g, %g) = %s in BigFloat, out of the range, and narrow counts no exit (seed %d)", p, trial, o.name, x, y, want.Text('g', -1), seed)
				case exited && inNarrowRange(n, want) && new(big.Float).Abs(want).Cmp(big.NewFloat(n.F.MinNormal())) != 0:
					// Only a result rounded up to the bottom of the range
					// may exit needlessly: its exact value was below.
					t.Fatalf("p = %d trial %d: %s(%g, %g) = %s in BigFloat, within the range, and narrow counts an exit (seed %d)", p, trial, o.name, x, y, want.Text('g', -1), seed)
				case exited:
					continue
				case gerr != nil:
					t.Fatalf("p = %d trial %d: %s(%g, %g): %v (seed %d)", p, trial, o.name, x, y, gerr, seed)
				}
				// Exactly got, not rounded again to P bits (toBig would
				// hide a result that skipped its rounding).
				g := new(big.Float).SetFloat64(got)
				if g.Cmp(want) != 0 || g.Signbit() != want.Signbit() || n.Format(got) != b.Format(want) {
					t.Fatalf("p = %d trial %d: %s(%g, %g) = %s (%s), BigFloat gives %s (seed %d)", p, trial, o.name, x, y,
						g.Text('g', -1), n.Format(got), want.Text('g', -1), seed)
				}
			}
		}
	}
}

// TestNarrowBigFloatConversions: SetRat, SetInt64 and Eval round as
// BigFloat does, and count an exit for a value out of the range.
func TestNarrowBigFloatConversions(t *testing.T) {
	for _, p := range []uint{2, 11, 24, 25} {
		n := NewNarrowBigFloat(p)
		for _, tc := range []struct {
			r    *big.Rat
			exit bool
		}{
			{big.NewRat(1, 3), false},
			{big.NewRat(-22, 7), false},
			{new(big.Rat), false},
			// Dyadic, the float64 fast path: exact, and rounded at p bits.
			{big.NewRat(3, 4), false},
			{big.NewRat(-5, 8), false},
			{big.NewRat(1<<53-1, 1), false},
			{big.NewRat(1<<25+1, 1<<10), false},
			{big.NewRat(-(1<<40 + 3), 1<<62), false},
			{new(big.Rat).SetFrac(big.NewInt(1), new(big.Int).Lsh(big.NewInt(1), 510)), false},
			{new(big.Rat).SetFrac(big.NewInt(1), new(big.Int).Lsh(big.NewInt(1), 511)), true},
			{new(big.Rat).SetInt(new(big.Int).Lsh(big.NewInt(1), 511)), false},
			{new(big.Rat).SetInt(new(big.Int).Lsh(big.NewInt(1), 512)), true},
		} {
			before := n.Exits()
			got := n.SetRat(0, tc.r)
			if exited := n.Exits() != before; exited != tc.exit {
				t.Errorf("p = %d: SetRat(%s): exit %v, want %v", p, tc.r.RatString(), exited, tc.exit)
				continue
			}
			if tc.exit {
				continue
			}
			want := n.Big.SetRat(nil, tc.r)
			if n.toBig(got).Cmp(want) != 0 {
				t.Errorf("p = %d: SetRat(%s) = %g, BigFloat gives %s", p, tc.r.RatString(), got, want.Text('g', -1))
			}
		}
		for _, k := range []int64{0, 1, -7, 1<<25 + 1, math.MaxInt64, math.MinInt64} {
			got, want := n.SetInt64(0, k), n.Big.SetInt64(nil, k)
			if n.toBig(got).Cmp(want) != 0 {
				t.Errorf("p = %d: SetInt64(%d) = %g, BigFloat gives %s", p, k, got, want.Text('g', -1))
			}
		}
		before := n.Exits()
		got, err := n.Eval(0, Sqrt(LitInt(2)))
		want, werr := n.Big.Eval(nil, Sqrt(LitInt(2)))
		if err != nil || werr != nil || n.Exits() != before || n.toBig(got).Cmp(want) != 0 {
			t.Errorf("p = %d: Eval(√2) = %g (%v), BigFloat gives %s (%v)", p, got, err, want.Text('g', -1), werr)
		}
	}
}
