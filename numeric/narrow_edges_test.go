package numeric

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
)

// TestNarrowBigFloatAtTheEdges: NarrowBigFloat's +, −, ×, ÷, √, and
// Round applied to a float64 product or quotient as the machine loops
// apply it, against BigFloat at random widths from 2 to 25 bits, with
// operands at both ends of the range, at 2^±255 (products and quotients
// that land on an end), near cancellation and ±0: BigFloat's number, sign
// and text wherever no exit is counted, and an exit wherever BigFloat's
// result leaves the range or BigFloat refuses.
func TestNarrowBigFloatAtTheEdges(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for range 60000 {
		p := uint(2 + rng.IntN(24))
		n := NewNarrowBigFloat(p)
		b := n.Big
		val := func() float64 {
			m := float64(int64(1)<<(p-1) + rng.Int64N(int64(1)<<(p-1)))
			var e int
			switch rng.IntN(6) {
			case 0:
				e = -510 + rng.IntN(3)
			case 1:
				e = 509 + rng.IntN(3)
			case 2:
				e = -255 + rng.IntN(3)
			case 3:
				e = 255 + rng.IntN(3)
			default:
				e = rng.IntN(60) - 30
			}
			x := math.Ldexp(m, e-int(p)+1)
			if rng.IntN(2) == 0 {
				x = -x
			}
			if rng.IntN(20) == 0 {
				x = math.Copysign(0, x)
			}
			return x
		}
		x, y := val(), val()
		if rng.IntN(4) == 0 { // near-cancellation
			y = -n.Round(x * (1 + math.Ldexp(float64(rng.IntN(9)-4), -int(p))))
		}
		bx, by := n.toBig(x), n.toBig(y)
		check := func(name string, f func() float64, w *big.Float, werr error) {
			before := n.Exits()
			g := f()
			if n.Exits() != before {
				if werr == nil && inNarrowRange(n, w) && new(big.Float).Abs(w).Cmp(big.NewFloat(n.F.MinNormal())) != 0 {
					t.Fatalf("%s(%g,%g) p=%d needless exit, want %s", name, x, y, p, w.Text('g', -1))
				}
				return
			}
			if werr != nil {
				t.Fatalf("%s(%g,%g) p=%d: big refuses %v, no exit", name, x, y, p, werr)
			}
			if !inNarrowRange(n, w) {
				t.Fatalf("%s(%g,%g) p=%d: out of range %s, no exit", name, x, y, p, w.Text('g', -1))
			}
			// Compared as float64s: toBig would round g to P bits.
			wf, _ := w.Float64()
			if math.Float64bits(g) != math.Float64bits(wf) || n.Format(g) != b.Format(w) {
				t.Fatalf("%s(%g, %g) p = %d: %.17g (%s), want %.17g (%s)", name, x, y, p, g, n.Format(g), wf, b.Format(w))
			}
		}
		check("add", func() float64 { return n.Add(0, x, y) }, b.Add(nil, bx, by), nil)
		check("sub", func() float64 { return n.Sub(0, x, y) }, b.Sub(nil, bx, by), nil)
		check("mul", func() float64 { return n.Mul(0, x, y) }, b.Mul(nil, bx, by), nil)
		wd, wderr := b.Div(nil, bx, by)
		check("div", func() float64 { v, _ := n.Div(0, x, y); return v }, wd, wderr)
		ws, wserr := b.Sqrt(nil, bx)
		if gs, gserr := n.Sqrt(0, x); wserr != nil || gserr != nil {
			if wserr == nil || gserr == nil || wserr.Error() != gserr.Error() {
				t.Fatalf("sqrt(%g): %v want %v", x, gserr, wserr)
			}
		} else {
			check("sqrt", func() float64 { return gs }, ws, wserr)
		}
		// Round of a product as the machine loops apply it.
		check("roundmul", func() float64 { return n.Round(float64(x * y)) }, b.Mul(nil, bx, by), nil)
		check("rounddiv", func() float64 { return n.Round(x / y) }, wd, wderr)
	}
}

// TestNarrowBigFloatSetRatRandom: SetRat and Eval of a literal round as
// BigFloat's do, on dyadic rationals (the float64 fast path, numerators
// to 2^52 and denominators to 2^62), fractions, and powers of two far
// out of the range on either side.
func TestNarrowBigFloatSetRatRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 9))
	for range 30000 {
		p := uint(2 + rng.IntN(24))
		n := NewNarrowBigFloat(p)
		var r *big.Rat
		switch rng.IntN(3) {
		case 0:
			a := rng.Int64N(1<<53) - 1<<52
			d := int64(1) << rng.IntN(63)
			r = big.NewRat(a, d)
		case 1:
			r = big.NewRat(rng.Int64N(1<<62)-1<<61, 1+rng.Int64N(1<<40))
		default:
			num := new(big.Int).Lsh(big.NewInt(1+rng.Int64N(1000)), uint(rng.IntN(530)))
			den := new(big.Int).Lsh(big.NewInt(1+rng.Int64N(1000)), uint(rng.IntN(530)))
			r = new(big.Rat).SetFrac(num, den)
		}
		before := n.Exits()
		g := n.SetRat(0, r)
		w := n.Big.SetRat(nil, r)
		ge, _ := n.Eval(0, Lit(r))
		we, _ := n.Big.Eval(nil, Lit(r))
		if n.Exits() != before {
			if inNarrowRange(n, w) && new(big.Float).Abs(w).Cmp(big.NewFloat(n.F.MinNormal())) != 0 {
				t.Fatalf("SetRat(%s) p=%d needless exit", r.RatString(), p)
			}
			continue
		}
		wf, _ := w.Float64()
		wef, _ := we.Float64()
		if !inNarrowRange(n, w) || g != wf || n.Format(g) != n.Big.Format(w) || ge != wef {
			t.Fatalf("SetRat(%s) p=%d: %s want %s", r.RatString(), p, n.Format(g), n.Big.Format(w))
		}
	}
}
