package numeric

import (
	"math"
	"math/big"
)

// Format describes a binary floating-point format with a bounded exponent:
// the IEEE 754 interchange formats binary16 (fp16), binary32 and binary64,
// Google's bfloat16 (bf16), and the two OCP 8-bit formats (fp8-e4m3,
// fp8-e5m2).
//
// A finite value is ±m × 2^(e−P+1) with an integer significand m < 2^P and
// EMin ≤ e ≤ EMax; below 2^EMin the exponent stays at EMin and the values
// are subnormal. Rounding is to nearest, ties to even, on this grid; a value
// whose rounding exceeds MaxFinite overflows to ±Inf, or to NaN in a format
// without infinities (fp8-e4m3, as the OCP specification and ml_dtypes'
// float8_e4m3fn do when not saturating).
type Format struct {
	Name     string
	P        int  // significand bits, counting the implicit leading bit
	ExpBits  int  // width of the exponent field
	Bias     int  // exponent bias of the encoding
	EMin     int  // exponent of the smallest normal number, 1 − Bias
	EMax     int  // exponent of the largest finite number
	HasInf   bool // the all-ones exponent with a zero significand is ±Inf
	IEEENaNs bool // every all-ones exponent with a nonzero significand is NaN; otherwise (E4M3) only S.1111.111 is

	maxFinite float64
	// The fast path of Round: |x| whose bits lie in [normLo, normHi] is
	// normal in the format and at most MaxFinite, and rounds by dropping
	// its shift low bits: add half = 2^(shift−1) − 1 and the lowest kept
	// bit, then clear the bits of mask = 2^shift − 1.
	normLo, normHi, half, mask uint64
	shift                      uint
	// sqrt32 says that float32's square root, rounded again to the
	// format, is the format's correctly rounded square root (prepare).
	sqrt32 bool
}

// The formats the engine emulates, and the two native ones, described so
// that they can be inspected and used as rounding targets.
var (
	Binary64 = newIEEE("fp64", 53, 11)
	Binary32 = newIEEE("fp32", 24, 8)
	Binary16 = newIEEE("fp16", 11, 5)
	BFloat16 = newIEEE("bf16", 8, 8)
	FP8E5M2  = newIEEE("fp8-e5m2", 3, 5)
	// FP8E4M3 has no infinities: the exponent field 1111 holds normal
	// numbers up to 1.75 × 2^8 = 448, except S.1111.111, which is NaN.
	FP8E4M3 = (&Format{Name: "fp8-e4m3", P: 4, ExpBits: 4, Bias: 7, EMin: -6, EMax: 8,
		HasInf: false, IEEENaNs: false, maxFinite: 448}).prepare()
)

// prepare sets the constants of Round's fast path.
func (f *Format) prepare() *Format {
	f.normLo, f.normHi = math.Float64bits(f.MinNormal()), math.Float64bits(f.maxFinite)
	if f.P >= 53 {
		f.normLo = 1 << 63 // binary64 itself: no |x| has that bit; Round returns x
	}
	f.shift = uint(max(1, 53-f.P))
	f.half, f.mask = 1<<(f.shift-1)-1, 1<<f.shift-1
	// A square root rounded to p' bits and then to p is rounded once
	// when p' ≥ 2p + 2 (Figueroa, "When is double rounding innocuous?",
	// 1995). float32 holds every finite value of a format whose
	// subnormals and largest value lie in its range, and every root of
	// one is normal in float32 (√(2^−149) > 2^−126), so p' = 24 there.
	f.sqrt32 = 2*f.P+2 <= 24 && f.EMin-f.P+1 >= -149 && f.EMax <= 127
	return f
}

func newIEEE(name string, p, expBits int) *Format {
	bias := 1<<(expBits-1) - 1
	f := &Format{Name: name, P: p, ExpBits: expBits, Bias: bias,
		EMin: 1 - bias, EMax: bias, HasInf: true, IEEENaNs: true}
	f.maxFinite = math.Ldexp(2-math.Ldexp(1, 1-p), f.EMax)
	return f.prepare()
}

// Bits is the width of the encoding: sign, exponent and stored significand.
func (f *Format) Bits() int { return 1 + f.ExpBits + f.P - 1 }

// MaxFinite is the largest finite value.
func (f *Format) MaxFinite() float64 { return f.maxFinite }

// MinNormal is the smallest positive normal value, 2^EMin.
func (f *Format) MinNormal() float64 { return math.Ldexp(1, f.EMin) }

// MinSubnormal is the smallest positive value, 2^(EMin−P+1).
func (f *Format) MinSubnormal() float64 { return math.Ldexp(1, f.EMin-f.P+1) }

// Epsilon is the distance from 1 to the next larger value, 2^(1−P).
func (f *Format) Epsilon() float64 { return math.Ldexp(1, 1-f.P) }

// Round rounds x to the nearest value of the format, ties to even. The
// result is a float64 holding that value exactly.
//
// It works on the bits of x, without floating-point operations. A finite
// x ≠ 0 is m × 2^(e−52) with an integer m < 2^53 (the implicit bit
// included; e = −1022 for float64's subnormals), and the bits of |x| are
// a = m + c for a multiple c of 2^52: the exponent field sits above the
// fraction. The format's spacing near x is 2^(max(e, EMin)−P+1), so
// rounding drops the s = 53 − P + max(0, EMin − e) low bits of m, and for
// s ≤ 52 dropping them from a is the same: add 2^(s−1) − 1, plus the lowest
// kept bit of m (so that a tie rounds up exactly when that bit is odd), and
// clear the s low bits. A carry out of the fraction steps the exponent
// field, giving 2^(e+1), which is the right value. Below, with s ≥ 53,
// |x| < 2^(e+1) is at most one spacing, so the result is 0 or the
// smallest subnormal. A result above MaxFinite overflows.
//
// The common case, x normal in the format and at most MaxFinite, is a
// few integer operations small enough for the compiler to inline: there
// s = 53 − P, and rounding cannot pass MaxFinite, which is on the grid.
func (f *Format) Round(x float64) float64 {
	if r, ok := f.roundNormal(x); ok {
		return r
	}
	return f.roundSlow(x)
}

// roundNormal is Round in the common case, and ok = false outside it. It
// makes no call, so the compiler inlines it where it is called (the
// emulated backend's operations): Round itself is too large to inline.
func (f *Format) roundNormal(x float64) (r float64, ok bool) {
	b := math.Float64bits(x)
	a := b &^ (1 << 63)
	if a >= f.normLo && a <= f.normHi {
		return math.Float64frombits(b&(1<<63) | (a+f.half+a>>f.shift&1)&^f.mask), true
	}
	if a == 0 {
		// ±0, exact in every format: the products of a matrix's zero
		// weights, most of a routed model's.
		return x, true
	}
	return 0, false
}

// roundSlow is Round outside the common case: subnormal results, zeros,
// overflow, infinities and NaN.
func (f *Format) roundSlow(x float64) float64 {
	const (
		signBit  = 1 << 63
		fracBits = 1<<52 - 1
		infBits  = 0x7ff << 52
	)
	b := math.Float64bits(x)
	sign, a := b&signBit, b&^signBit
	if a >= infBits { // ±Inf or NaN
		if a == infBits {
			return f.overflow(x)
		}
		return x
	}
	be := int(a >> 52) // biased exponent field
	m := a & fracBits  // the significand as an integer, m × 2^(e−52)
	if be != 0 {
		m |= 1 << 52
	} else {
		be = 1 // subnormal (or zero): the exponent is that of field 1
	}
	s := 53 - f.P
	if e := be - 1023; e < f.EMin {
		s += f.EMin - e
	}
	switch {
	case s <= 0: // every float64 is on the grid (binary64 itself)
		return x
	case s <= 52:
		lsb := m >> uint(s) & 1
		a = (a + 1<<uint(s-1) - 1 + lsb) &^ (1<<uint(s) - 1)
	case s == 53 && m > 1<<52:
		// 2^e < |x| < 2^(e+1), the smallest subnormal: above the tie.
		a = uint64(be+1) << 52
	default:
		// |x| ≤ 2^e, half the smallest subnormal or less: the tie at
		// 2^e goes to 0, which is even.
		a = 0
	}
	if a > math.Float64bits(f.maxFinite) {
		return f.overflow(x)
	}
	return math.Float64frombits(sign | a)
}

// RoundBig rounds x to the nearest value of the format, ties to even, in one
// step (no intermediate rounding to float64).
func (f *Format) RoundBig(x *big.Float) float64 {
	if x.IsInf() {
		return f.overflow(math.Inf(x.Sign()))
	}
	if x.Sign() == 0 {
		if x.Signbit() {
			return math.Copysign(0, -1)
		}
		return 0
	}
	e := x.MantExp(nil) - 1 // x = 1.f × 2^e
	if e < f.EMin {
		e = f.EMin
	}
	if e > f.EMax+1 {
		return f.overflow(math.Inf(x.Sign()))
	}
	q := e - f.P + 1
	y := new(big.Float).SetMantExp(x, -q) // exact: |y| < 2^P
	y.Abs(y)
	m, _ := y.Int(nil) // truncated toward zero
	frac := new(big.Float).Sub(y, new(big.Float).SetInt(m))
	switch frac.Cmp(big.NewFloat(0.5)) {
	case 1:
		m.Add(m, big.NewInt(1))
	case 0:
		if m.Bit(0) == 1 {
			m.Add(m, big.NewInt(1))
		}
	}
	r := math.Ldexp(float64(m.Uint64()), q) // m ≤ 2^P ≤ 2^53: exact
	if r > f.maxFinite {
		return f.overflow(math.Inf(x.Sign()))
	}
	if x.Sign() < 0 {
		return -r
	}
	return r
}

func (f *Format) overflow(x float64) float64 {
	if f.HasInf {
		return math.Copysign(math.Inf(1), x)
	}
	return math.NaN()
}

// Contains reports whether x is exactly a value of the format (NaN counts).
func (f *Format) Contains(x float64) bool {
	if x != x {
		return true
	}
	if math.IsInf(x, 0) {
		return f.HasInf
	}
	return f.Round(x) == x
}

// Decode returns the value of the bit pattern b (the low Bits() bits).
func (f *Format) Decode(b uint64) float64 {
	m := f.P - 1
	mant := b & (1<<m - 1)
	exp := int(b>>m) & (1<<f.ExpBits - 1)
	neg := b>>(m+f.ExpBits)&1 == 1
	allOnes := 1<<f.ExpBits - 1
	var v float64
	switch {
	case exp == allOnes && f.IEEENaNs && mant != 0:
		return math.NaN()
	case exp == allOnes && f.IEEENaNs:
		v = math.Inf(1)
	case exp == allOnes && !f.IEEENaNs && mant == 1<<m-1:
		return math.NaN()
	case exp == 0:
		v = math.Ldexp(float64(mant), f.EMin-m)
	default:
		v = math.Ldexp(float64(mant|1<<m), exp-f.Bias-m)
	}
	if neg {
		v = -v
	}
	return v
}

// Encode returns the bit pattern of x, which must be a value of the format
// (round it first); NaN encodes as the canonical quiet NaN with a zero sign.
func (f *Format) Encode(x float64) uint64 {
	m := f.P - 1
	allOnes := uint64(1)<<f.ExpBits - 1
	if x != x {
		if f.IEEENaNs {
			return allOnes<<m | 1<<(m-1)
		}
		return allOnes<<m | (1<<m - 1)
	}
	var sign uint64
	if math.Signbit(x) {
		sign = 1 << (m + f.ExpBits)
	}
	a := math.Abs(x)
	switch {
	case math.IsInf(a, 0):
		return sign | allOnes<<m
	case a == 0:
		return sign
	case a < f.MinNormal():
		return sign | uint64(math.Ldexp(a, m-f.EMin))
	}
	e := math.Ilogb(a)
	sig := uint64(math.Ldexp(a, m-e)) // in [2^m, 2^(m+1))
	return sign | uint64(e+f.Bias)<<m | sig&(1<<m-1)
}

// RoundRat rounds the exact rational x to the nearest value of the format,
// ties to even, in one step. It first rounds x to odd at P + 64 bits (an
// inexact result gets its last bit set), which keeps every midpoint of the
// format's grid where it was; rounding that to the format is then the
// correct rounding of x (Boldo and Melquiond, "Emulation of FMA and
// correctly rounded sums: proved algorithms using rounding to odd", IEEE
// TC 2008). big.Float's exponent range holds every rational the engine
// meets, so no intermediate subnormal arises.
func (f *Format) RoundRat(x *big.Rat) float64 {
	return f.RoundBig(roundToOdd(x, uint(f.P)+64))
}

// roundToOdd returns x rounded to prec bits toward zero, with the last bit
// of the significand forced to 1 when the rounding was inexact.
func roundToOdd(x *big.Rat, prec uint) *big.Float {
	z := new(big.Float).SetPrec(prec).SetMode(big.ToZero).SetRat(x)
	if z.Acc() == big.Exact || z.Sign() == 0 {
		return z
	}
	// z = m × 2^e with an integer significand m of prec bits.
	mant := new(big.Float)
	exp := z.MantExp(mant) // z = mant × 2^exp, 0.5 ≤ |mant| < 1
	m, _ := new(big.Float).SetMantExp(mant, int(prec)).Int(nil)
	neg := m.Sign() < 0
	m.Abs(m)          // big.Int.SetBit works on two's complement: use |m|
	m.SetBit(m, 0, 1) // exact: m has prec bits, so the result still does
	if neg {
		m.Neg(m)
	}
	r := new(big.Float).SetPrec(prec).SetInt(m)
	return r.SetMantExp(r, exp-int(prec))
}
