package fuzz

import (
	"errors"
	"math"
	"math/big"
	"strconv"
	"testing"

	"github.com/transformer-cookbook/verify/numeric"
)

// arithOps are the operations FuzzFormatArithmetic checks, chosen by a
// byte of the input. sqrt, exp and log take x only.
var arithOps = []string{"add", "sub", "mul", "div", "sqrt", "exp", "log"}

// ieeeFormats are the bounded formats, in the order the format byte picks
// them; the byte value len(ieeeFormats) (mod len+1) picks the bigfloat
// backend instead.
var ieeeFormats = []*numeric.Format{
	numeric.Binary64, numeric.Binary32, numeric.Binary16, numeric.BFloat16,
	numeric.FP8E4M3, numeric.FP8E5M2,
}

// applyOp runs op in backend b.
func applyOp[T any](b numeric.Backend[T], op string, x, y T) (T, error) {
	switch op {
	case "add":
		return b.Add(b.New(), x, y), nil
	case "sub":
		return b.Sub(b.New(), x, y), nil
	case "mul":
		return b.Mul(b.New(), x, y), nil
	case "div":
		return b.Div(b.New(), x, y)
	case "sqrt":
		return b.Sqrt(b.New(), x)
	case "exp":
		return b.Exp(b.New(), x)
	case "log":
		return b.Log(b.New(), x)
	}
	panic("applyOp: unknown op " + op)
}

// FuzzFormatArithmetic checks that every operation of the rounding
// backends returns the exact result rounded once, to nearest with ties to
// even, in the backend's format: the promise numeric/doc.go makes and
// every error bound of the engine rests on.
//
// For the bounded formats (fp64, fp32, fp16, bf16, fp8-e4m3, fp8-e5m2),
// x and y are decoded from the low bits of two random bit patterns, so
// that subnormals, ±0, ±Inf and NaN come up as often as normal numbers;
// the reference follows IEEE 754 for the special values (overflow to ±Inf,
// or NaN in fp8-e4m3, which has no infinities; signed zeros) and rounds
// the exact rational result with Format.RoundRat (fp64 and fp32 also
// against math/big's own Rat.Float64 and Rat.Float32). For the bigfloat
// backend the precision is 2 + prec mod 199 bits and the operands are
// int64 significands times 2^ex, 2^ey, rounded to that precision; the
// reference is big.Float's correctly rounded Set or SetRat of the exact
// result.
//
// √ is checked against an integer square root rounded to odd (exact by
// construction); exp and log, which the engine rounds correctly by Ziv's
// strategy, against an enclosure from github.com/ALTree/bigfloat at 64
// more bits: an input is checked when both ends of the enclosure round to
// the same value (almost always), and skipped otherwise.
func FuzzFormatArithmetic(f *testing.F) {
	bits := func(x float64) uint64 { return math.Float64bits(x) }
	// Seeds: each format with ties, overflow, underflow, signed zeros and
	// special values; the bigfloat backend at small and large precisions.
	seeds := []struct {
		format, op uint8
		x, y       uint64
		prec       uint8
		ex, ey     int8
	}{
		{0, 0, bits(1), bits(0x1p-53), 0, 0, 0},                                 // fp64: 1 + half ulp, a tie to even
		{0, 0, bits(1 + 0x1p-52), bits(0x1p-53), 0, 0, 0},                       // tie rounding up
		{0, 2, bits(math.MaxFloat64), bits(2), 0, 0, 0},                         // overflow
		{0, 2, bits(0x1p-1074), bits(0.5), 0, 0, 0},                             // underflow to +0, tie
		{0, 2, bits(-0x1p-1074), bits(0.5), 0, 0, 0},                            // to −0
		{0, 1, bits(1), bits(1), 0, 0, 0},                                       // +0
		{0, 0, bits(math.Copysign(0, -1)), bits(math.Copysign(0, -1)), 0, 0, 0}, // −0 + −0
		{0, 3, bits(1), bits(0), 0, 0, 0},                                       // 1/0
		{0, 3, bits(0), bits(0), 0, 0, 0},                                       // 0/0
		{0, 0, bits(math.Inf(1)), bits(math.Inf(-1)), 0, 0, 0},                  // ∞ − ∞
		{0, 4, bits(2), 0, 0, 0, 0},                                             // √2
		{0, 4, bits(math.Copysign(0, -1)), 0, 0, 0, 0},                          // √−0
		{0, 5, bits(709.78), 0, 0, 0, 0},                                        // exp near overflow
		{0, 5, bits(-745.1), 0, 0, 0, 0},                                        // exp near underflow
		{0, 5, bits(-720.5), 0, 0, 0, 0},                                        // exp to a subnormal (see refExp)
		{0, 6, bits(0x1p-1074), 0, 0, 0, 0},                                     // log of the smallest subnormal
		{0, 6, bits(1 + 0x1p-52), 0, 0, 0, 0},                                   // log near 1
		{1, 0, 0x3f800000, 0x33800000, 0, 0, 0},                                 // fp32: 1 + 2^-24, a tie
		{1, 3, 0x3f800000, 0x40400000, 0, 0, 0},                                 // 1/3
		{1, 5, 0x42b17218, 0, 0, 0, 0},                                          // exp(88.72…)
		{2, 0, 0x6800, 0x3c00, 0, 0, 0},                                         // fp16: 2048 + 1, a tie
		{2, 0, 0x7bff, 0x4f80, 0, 0, 0},                                         // 65504 + 30: overflow
		{2, 2, 0x0001, 0x3800, 0, 0, 0},                                         // smallest subnormal × 0.5
		{2, 3, 0x3c00, 0x4200, 0, 0, 0},                                         // 1/3
		{2, 4, 0x0001, 0, 0, 0, 0},                                              // √(2^-24)
		{2, 5, 0x4a00, 0, 0, 0, 0},                                              // exp(12): overflow
		{2, 5, 0xc500, 0, 0, 0, 0},                                              // exp(−5)
		{2, 6, 0x3c01, 0, 0, 0, 0},                                              // log(1 + ulp)
		{3, 0, 0x3f80, 0x3b80, 0, 0, 0},                                         // bf16: 1 + 2^-8, a tie
		{3, 3, 0x3f80, 0x4040, 0, 0, 0},                                         // 1/3
		{4, 0, 0x7e, 0x70, 0, 0, 0},                                             // e4m3: 448 + 128: NaN
		{4, 3, 0x38, 0x00, 0, 0, 0},                                             // 1/0 is NaN in e4m3
		{4, 6, 0x00, 0, 0, 0, 0},                                                // log(0) is NaN in e4m3
		{4, 5, 0x4a, 0, 0, 0, 0},                                                // exp(5)
		{5, 2, 0x7b, 0x40, 0, 0, 0},                                             // e5m2: 57344 × 2: +Inf
		{5, 0, 0x3c, 0x30, 0, 0, 0},                                             // e5m2: 1 + 1/8, a tie
		{6, 0, 1, 1, 0, 0, -3},                                                  // bigfloat 2 bits: 1 + 1/8
		{6, 0, 5, 1, 1, 0, 0},                                                   // 3 bits: 5 + 1
		{6, 3, 1, 3, 51, 0, 0},                                                  // 53 bits: 1/3
		{6, 3, 1 << 62, 3, 198, 0, 0},                                           // 200 bits
		{6, 4, 2, 0, 22, 0, 0},                                                  // 24 bits: √2
		{6, 5, 1, 0, 51, 0, 0},                                                  // exp(1) at 53 bits (fast path)
		{6, 5, 1, 0, 62, 0, 0},                                                  // exp(1) at 64 bits (Ziv)
		{6, 5, 1, 0, 51, 40, 0},                                                 // exp(2^40): overflow error
		{6, 6, 3, 0, 100, -1, 0},                                                // log(3/2)
		{6, 6, 0, 0, 10, 0, 0},                                                  // log(0): domain error
		{6, 3, 7, 0, 10, 0, 0},                                                  // 7/0: error
	}
	for _, s := range seeds {
		f.Add(s.format, s.op, s.x, s.y, s.prec, s.ex, s.ey)
	}
	f.Fuzz(func(t *testing.T, format, opByte uint8, xb, yb uint64, prec uint8, ex, ey int8) {
		op := arithOps[int(opByte)%len(arithOps)]
		k := int(format) % (len(ieeeFormats) + 1)
		if k == len(ieeeFormats) {
			checkBigFloatOp(t, 2+uint(prec)%199, op, int64(xb), int64(yb), int(ex), int(ey))
			return
		}
		fm := ieeeFormats[k]
		mask := uint64(1)<<fm.Bits() - 1
		if fm.Bits() == 64 {
			mask = math.MaxUint64
		}
		x, y := fm.Decode(xb&mask), fm.Decode(yb&mask)
		want, ok := ieeeExpected(t, fm, op, x, y)
		if !ok {
			t.Skipf("%s %s(%v, %v): the reference enclosure does not decide the rounding", fm.Name, op, x, y)
		}
		be := backendOf(fm.Name)
		var got float64
		var err error
		if be.f32 != nil {
			var r float32
			r, err = applyOp(be.f32, op, float32(x), float32(y))
			got = float64(r)
		} else {
			got, err = applyOp(be.f64, op, x, y)
		}
		if err != nil {
			t.Fatalf("%s: %s(%s, %s): error %v, want %s", fm.Name, op, fmtFloat(x), fmtFloat(y), err, fmtFloat(want))
		}
		if !sameFloat(got, want) {
			t.Fatalf("%s: %s(%s, %s) = %s, want %s", fm.Name, op, fmtFloat(x), fmtFloat(y), fmtFloat(got), fmtFloat(want))
		}
	})
}

// ieeeExpected is the correctly rounded result of op(x, y) in format f,
// with IEEE 754's special values; ok is false when the reference
// enclosure of exp or log does not decide the rounding.
func ieeeExpected(t *testing.T, f *numeric.Format, op string, x, y float64) (want float64, ok bool) {
	finite := func(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
	switch op {
	case "add", "sub", "mul", "div":
		var fl float64 // the float64 result: right for special values and signed zeros
		switch op {
		case "add":
			fl = x + y
		case "sub":
			fl = x - y
		case "mul":
			fl = x * y
		case "div":
			fl = x / y
		}
		if !finite(x) || !finite(y) || op == "div" && y == 0 {
			// NaN, ±Inf, x/0, or 0 (finite/∞): f.Round maps ±Inf to NaN
			// in a format without infinities.
			return f.Round(fl), true
		}
		rx, ry := new(big.Rat).SetFloat64(x), new(big.Rat).SetFloat64(y)
		r := new(big.Rat)
		switch op {
		case "add":
			r.Add(rx, ry)
		case "sub":
			r.Sub(rx, ry)
		case "mul":
			r.Mul(rx, ry)
		case "div":
			r.Quo(rx, ry)
		}
		if r.Sign() == 0 {
			// An exact zero: its sign is IEEE's (−0 + −0 = −0, x − x = +0,
			// ±0 × y by the signs), which the float64 operation gets right
			// because it is exact too.
			return fl, true
		}
		return roundRatChecked(t, f, r), true
	case "sqrt":
		switch {
		case math.IsNaN(x) || x < 0:
			return math.NaN(), true
		case x == 0 || math.IsInf(x, 1):
			return x, true
		}
		return f.RoundBig(sqrtOdd(new(big.Float).SetFloat64(x), uint(f.P)+64)), true
	case "exp":
		switch {
		case math.IsNaN(x):
			return x, true
		case x == 0:
			return 1, true
		case x > 710: // e^710 > 2^1024: overflows every format
			return f.Round(math.Inf(1)), true
		case x < -746: // e^-746 < 2^-1075, half the smallest subnormal of fp64
			return 0, true
		}
	case "log":
		switch {
		case math.IsNaN(x) || x < 0:
			return math.NaN(), true
		case x == 0:
			return f.Round(math.Inf(-1)), true
		case math.IsInf(x, 1):
			return f.Round(x), true
		case x == 1:
			return 0, true
		}
	}
	lo, hi := refEnclosure(op, new(big.Float).SetFloat64(x), uint(f.P)+64)
	a, b := f.RoundBig(lo), f.RoundBig(hi)
	return a, sameFloat(a, b)
}

// roundRatChecked is f.RoundRat(r); for fp64 and fp32 it also asks
// math/big (Rat.Float64, Rat.Float32, which round to nearest even with
// subnormals and overflow to ±Inf) and fails if the two disagree, so that
// a wrong RoundRat cannot hide an arithmetic error behind an equally
// wrong reference.
func roundRatChecked(t *testing.T, f *numeric.Format, r *big.Rat) float64 {
	want := f.RoundRat(r)
	var std float64
	switch f {
	case numeric.Binary64:
		std, _ = r.Float64()
	case numeric.Binary32:
		s, _ := r.Float32()
		std = float64(s)
	default:
		return want
	}
	if !sameFloat(std, want) {
		t.Fatalf("%s: Format.RoundRat(%s) = %s, but math/big rounds it to %s", f.Name, r.RatString(), fmtFloat(want), fmtFloat(std))
	}
	return want
}

// checkBigFloatOp checks op on the bigfloat backend at prec bits, on
// x = xm × 2^ex and y = ym × 2^ey rounded to prec bits.
func checkBigFloatOp(t *testing.T, prec uint, op string, xm, ym int64, ex, ey int) {
	b := backendOf(strconv.FormatUint(uint64(prec), 10)).bf
	x := b.SetInt64(nil, xm)
	x.SetMantExp(x, ex) // exact: a power-of-two scaling keeps the precision
	y := b.SetInt64(nil, ym)
	y.SetMantExp(y, ey)
	round := func(v *big.Float) *big.Float {
		return new(big.Float).SetPrec(prec).SetMode(big.ToNearestEven).Set(v)
	}
	rx, _ := x.Rat(nil)
	ry, _ := y.Rat(nil)
	var want *big.Float
	var wantErr error
	switch op {
	case "add", "sub", "mul", "div":
		if op == "div" && ry.Sign() == 0 {
			wantErr = numeric.ErrDivByZero
			break
		}
		r := new(big.Rat)
		switch op {
		case "add":
			r.Add(rx, ry)
		case "sub":
			r.Sub(rx, ry)
		case "mul":
			r.Mul(rx, ry)
		case "div":
			r.Quo(rx, ry)
		}
		want = new(big.Float).SetPrec(prec).SetMode(big.ToNearestEven).SetRat(r)
	case "sqrt":
		switch x.Sign() {
		case -1:
			wantErr = numeric.ErrDomain
		case 0:
			want = round(x)
		default:
			want = round(sqrtOdd(x, prec+64))
		}
	case "exp", "log":
		switch {
		case op == "log" && x.Sign() <= 0:
			wantErr = numeric.ErrDomain
		case op == "log" && rx.Cmp(big.NewRat(1, 1)) == 0:
			want = round(new(big.Float)) // log(1) = 0
		case op == "exp" && x.Sign() == 0:
			want = round(big.NewFloat(1)) // exp(0) = 1
		case op == "exp" && x.Cmp(big.NewFloat(0x1p32)) >= 0:
			// e^(2^32) > 2^(2^32): beyond big.Float's exponent range.
			wantErr = numeric.ErrOverflow
		case op == "exp" && x.Cmp(big.NewFloat(-0x1p32)) <= 0:
			wantErr = numeric.ErrUnderflow
		case op == "exp" && new(big.Float).Abs(x).Cmp(big.NewFloat(1024)) > 0:
			t.Skipf("exp(%s): too large for the ALTree reference, not large enough to overflow", x.Text('g', 10))
		default:
			lo, hi := refEnclosure(op, x, prec+64)
			a, c := round(lo), round(hi)
			if a.Cmp(c) != 0 {
				t.Skipf("%d bits: %s(%s): the reference enclosure does not decide the rounding", prec, op, x.Text('g', -1))
			}
			want = a
		}
	}
	got, err := applyOp(b, op, x, y)
	args := bfText(x) + ", " + bfText(y)
	if wantErr != nil {
		if !errors.Is(err, wantErr) {
			t.Fatalf("%d bits: %s(%s): got %v (err %v), want the error %v", prec, op, args, got, err, wantErr)
		}
		return
	}
	if err != nil {
		t.Fatalf("%d bits: %s(%s): error %v, want %s", prec, op, args, err, bfText(want))
	}
	if got.Cmp(want) != 0 {
		t.Fatalf("%d bits: %s(%s) = %s, want %s", prec, op, args, bfText(got), bfText(want))
	}
}
