package fuzz

import (
	"errors"
	"math/big"
	"strconv"
	"testing"

	"github.com/transformer-cookbook/verify/numeric"
)

// intervalOps are the operations FuzzIntervalContains checks; sqrt, exp
// and log take x only.
var intervalOps = []string{"add", "sub", "mul", "div", "sqrt", "exp", "log"}

// refBits is the precision of the independent reference for exp and log:
// above every interval precision the target draws (256), and with
// refBits + 64 ≤ 1024, where ALTree's π cache is safe.
const refBits = 320

// FuzzIntervalContains checks the promise proofs/ relies on: an
// operation of the interval backend returns an enclosure of every result
// of the operation on points of its operands, so the true real value of a
// computation is always inside. Operands are rationals xn/xd and yn/yd
// from int64s, entered with SetRat (the tightest enclosure at P bits,
// P = 2 + bits mod 255); the result must contain the exact result at the
// exact operands and at every corner of the operand enclosures. +, −, ×, ÷
// and √ are checked in exact rational arithmetic (√ by squaring the
// endpoints); exp and log against a 320-bit value from ALTree/bigfloat,
// widened to an enclosure of 2^16 of its ulps, and a failure is reported
// only when that enclosure lies outside the result. Division by an
// interval containing zero, √ of one reaching below zero and log of one
// reaching down to zero must be errors, and nothing else may fail.
func FuzzIntervalContains(f *testing.F) {
	seeds := []struct {
		bits, op       uint8
		xn, xd, yn, yd int64
	}{
		{0, 0, 1, 3, 1, 3},                     // 2 bits: 1/3 + 1/3
		{51, 1, 1, 10, 1, 10},                  // 53 bits: 1/10 − 1/10
		{22, 2, -7, 3, 5, 11},                  // 24 bits: a product of negatives and positives
		{62, 3, 1, 1, 3, 1},                    // 64 bits: 1/3
		{254, 3, 1 << 62, 3, -7, 1 << 40},      // 256 bits
		{10, 3, 1, 1, 0, 1},                    // division by zero: an error
		{51, 4, 2, 1, 0, 1},                    // √2
		{51, 4, 9, 4, 0, 1},                    // √(9/4) = 3/2 exactly
		{0, 4, 1, 3, 0, 1},                     // √(1/3) at 2 bits
		{51, 4, -1, 1, 0, 1},                   // √−1: an error
		{51, 5, 1, 1, 0, 1},                    // exp(1)
		{51, 5, 0, 1, 0, 1},                    // exp(0) = 1
		{126, 5, -700, 1, 0, 1},                // exp(−700)
		{113, 5, -745, 1, 0, 1},                // exp(−745), where ALTree's own Exp goes wrong (see refExp)
		{2, 5, 1, 3, 0, 1},                     // exp(1/3) at 4 bits
		{51, 6, 2, 1, 0, 1},                    // log 2
		{51, 6, 1, 1, 0, 1},                    // log 1 = 0
		{100, 6, 1 << 62, (1 << 62) - 1, 0, 1}, // log near 1
		{51, 6, 0, 1, 0, 1},                    // log 0: an error
		{51, 6, -1, 2, 0, 1},                   // log of a negative: an error
	}
	for _, s := range seeds {
		f.Add(s.bits, s.op, s.xn, s.xd, s.yn, s.yd)
	}
	f.Fuzz(func(t *testing.T, bits, opByte uint8, xn, xd, yn, yd int64) {
		prec := 2 + uint(bits)%255
		op := intervalOps[int(opByte)%len(intervalOps)]
		if xd == 0 {
			xd = 1
		}
		if yd == 0 {
			yd = 1
		}
		b := backendOf("interval:" + strconv.FormatUint(uint64(prec), 10)).iv
		rx := new(big.Rat).SetFrac(big.NewInt(xn), big.NewInt(xd))
		ry := new(big.Rat).SetFrac(big.NewInt(yn), big.NewInt(yd))
		x, y := b.SetRat(nil, rx), b.SetRat(nil, ry)
		where := func() string {
			s := op + "(" + rx.RatString()
			if op == "add" || op == "sub" || op == "mul" || op == "div" {
				s += ", " + ry.RatString()
			}
			return "interval:" + strconv.FormatUint(uint64(prec), 10) + ": " + s + ") with operands " + b.Format(x) + ", " + b.Format(y)
		}
		xlo, xhi, err := b.Bounds(x)
		if err != nil {
			t.Fatalf("%s: bounds of x: %v", where(), err)
		}
		ylo, yhi, err := b.Bounds(y)
		if err != nil {
			t.Fatalf("%s: bounds of y: %v", where(), err)
		}
		if xlo.Cmp(rx) > 0 || rx.Cmp(xhi) > 0 || ylo.Cmp(ry) > 0 || ry.Cmp(yhi) > 0 {
			t.Fatalf("%s: SetRat does not enclose its argument", where())
		}
		// The points whose results must lie in the enclosure: the exact
		// operands, and the corners of their enclosures.
		xs := []*big.Rat{rx, xlo, xhi}
		ys := []*big.Rat{ry, ylo, yhi}

		var wantErr error
		switch {
		case op == "div" && ylo.Sign() <= 0 && yhi.Sign() >= 0:
			wantErr = numeric.ErrDivByZero
		case op == "sqrt" && xlo.Sign() < 0:
			wantErr = numeric.ErrDomain
		case op == "log" && xlo.Sign() <= 0:
			wantErr = numeric.ErrDomain
		case op == "exp" && (xlo.Cmp(big.NewRat(-4096, 1)) < 0 || xhi.Cmp(big.NewRat(4096, 1)) > 0):
			t.Skipf("%s: too large for the ALTree reference", where())
		}
		got, err := applyOp(b, op, x, y)
		if wantErr != nil {
			if !errors.Is(err, wantErr) {
				res := "no result"
				if got != nil {
					res = b.Format(got)
				}
				t.Fatalf("%s = %s (error %v), want the error %v", where(), res, err, wantErr)
			}
			return
		}
		if err != nil {
			t.Fatalf("%s: error %v", where(), err)
		}
		if got.Lo.IsInf() && got.Lo.Sign() > 0 || got.Hi.IsInf() && got.Hi.Sign() < 0 || got.Lo.Cmp(got.Hi) > 0 {
			t.Fatalf("%s = %s: not an interval", where(), b.Format(got))
		}
		in := func(v *big.Rat) bool {
			lo := got.Lo.IsInf() || ratOf(got.Lo).Cmp(v) <= 0
			hi := got.Hi.IsInf() || v.Cmp(ratOf(got.Hi)) <= 0
			return lo && hi
		}
		switch op {
		case "add", "sub", "mul", "div":
			for _, u := range xs {
				for _, v := range ys {
					r := new(big.Rat)
					switch op {
					case "add":
						r.Add(u, v)
					case "sub":
						r.Sub(u, v)
					case "mul":
						r.Mul(u, v)
					case "div":
						r.Quo(u, v)
					}
					if !in(r) {
						t.Fatalf("%s = %s does not contain %s %s %s = %s", where(), b.Format(got), u.RatString(), op, v.RatString(), r.RatString())
					}
				}
			}
		case "sqrt":
			// lo ≤ √u ≤ hi ⟺ (lo ≤ 0 or lo² ≤ u) and hi ≥ 0 and hi² ≥ u.
			for _, u := range xs {
				lo, hi := got.Lo, got.Hi
				okLo := lo.Sign() <= 0 || lo.IsInf() || new(big.Rat).Mul(ratOf(lo), ratOf(lo)).Cmp(u) <= 0
				okHi := hi.IsInf() || hi.Sign() >= 0 && new(big.Rat).Mul(ratOf(hi), ratOf(hi)).Cmp(u) >= 0
				if !okLo || !okHi {
					t.Fatalf("%s = %s does not contain √%s", where(), b.Format(got), u.RatString())
				}
			}
		case "exp", "log":
			for _, u := range xs {
				var exact *big.Rat
				switch {
				case op == "exp" && u.Sign() == 0:
					exact = big.NewRat(1, 1) // exp(0) = 1
				case op == "log" && u.Cmp(big.NewRat(1, 1)) == 0:
					exact = new(big.Rat) // log(1) = 0
				}
				if exact != nil {
					if !in(exact) {
						t.Fatalf("%s = %s does not contain %s(%s) = %s", where(), b.Format(got), op, u.RatString(), exact.RatString())
					}
					continue
				}
				// u lies in [lo, hi] of refBits-bit floats (one point when
				// u is one, as the corners are); op is increasing, so
				// op(u) lies in [ref(lo).lo, ref(hi).hi].
				lo := new(big.Float).SetPrec(refBits).SetMode(big.ToNegativeInf).SetRat(u)
				hi := new(big.Float).SetPrec(refBits).SetMode(big.ToPositiveInf).SetRat(u)
				rlo, _ := refEnclosure(op, lo, refBits)
				_, rhi := refEnclosure(op, hi, refBits)
				checkOutside(t, where, b.Format(got), got, op, u, rlo, rhi)
			}
		}
	})
}

// checkOutside fails when the reference enclosure [rlo, rhi] of op(u)
// lies wholly below or wholly above the interval got.
func checkOutside(t *testing.T, where func() string, text string, got *numeric.Interval, op string, u *big.Rat, rlo, rhi *big.Float) {
	t.Helper()
	if !got.Lo.IsInf() && rhi.Cmp(got.Lo) < 0 || !got.Hi.IsInf() && rlo.Cmp(got.Hi) > 0 {
		t.Fatalf("%s = %s does not contain %s(%s) ∈ [%s, %s] (ALTree/bigfloat at %d bits)", where(), text, op, u.RatString(), rlo.Text('g', 40), rhi.Text('g', 40), refBits)
	}
}

// ratOf is the exact value of a finite big.Float.
func ratOf(x *big.Float) *big.Rat {
	r, _ := x.Rat(nil)
	return r
}
