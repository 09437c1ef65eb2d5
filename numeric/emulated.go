package numeric

import (
	"math"
	"math/big"
	"strconv"
)

// Emulated is the backend of a low-precision format (fp16, bf16, fp8-e4m3,
// fp8-e5m2) emulated in float64: every value is a float64 that lies exactly
// on the format's grid, and every operation returns the exact result
// rounded once to the format, to nearest with ties to even, with the
// format's subnormals, overflow (to ±∞, or to NaN in fp8-e4m3) and NaNs.
//
// +, −, × and ÷ are computed in float64, √ in float32 (its faster
// instruction), and then rounded to the format. That double rounding is
// innocuous, so the result is the correctly rounded one, because float64
// and float32 have at least 2p + 2 significand bits for every emulated
// p ≤ 11 (Figueroa, "When is double rounding innocuous?", SIGNUM 1995)
// and no intermediate result of two such values leaves float64's normal
// range, nor a root float32's (Format.prepare). (Sums and products of fp16 or bf16 values are most often
// exact in float64, so only one rounding happens at all.) The tests check
// this against exact rationals: exhaustively for the 8-bit formats and for
// √ of fp16 and bf16, and for fp16 and bf16 on seeded random pairs and on
// pairs searched for results nearest a midpoint of the format, where a
// harmful double rounding would show (round_bits_test.go).
type Emulated struct {
	F *Format
}

// NewEmulated returns the backend of an emulated format: FP16, BFloat16,
// FP8E4M3 or FP8E5M2 (any Format with P ≤ 25 and a range within float64's
// is emulated correctly).
func NewEmulated(f *Format) Emulated {
	if f == nil || 2*f.P+2 > 53 {
		panic("numeric: NewEmulated: format too wide to emulate in float64")
	}
	return Emulated{F: f}
}

func (e Emulated) Precision() Precision { return Precision{Kind: KindEmulated, Format: e.F} }

func (e Emulated) New() float64             { return 0 }
func (e Emulated) Set(_, x float64) float64 { return x }

// SetInt64 rounds x once: below 2^53 in magnitude x is a float64 exactly,
// and Round does the one rounding; larger x goes through big.Float, since
// float64(x) would round it first.
func (e Emulated) SetInt64(_ float64, x int64) float64 {
	if -1<<53 < x && x < 1<<53 {
		return e.F.Round(float64(x))
	}
	return e.F.RoundBig(new(big.Float).SetInt64(x))
}

func (e Emulated) SetRat(_ float64, x *big.Rat) float64 { return e.F.RoundRat(x) }

func (e Emulated) Rat(x float64) (*big.Rat, error) { return ieeeRat(e.F.Name, x) }
func (e Emulated) Bounds(x float64) (lo, hi *big.Rat, err error) {
	r, err := ieeeRat(e.F.Name, x)
	if err != nil {
		return nil, nil, err
	}
	return r, new(big.Rat).Set(r), nil
}
func (e Emulated) Finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

// Format prints the shortest decimal that rounds back to x in the format.
func (e Emulated) Format(x float64) string {
	if math.IsNaN(x) || math.IsInf(x, 0) || x == 0 {
		return strconv.FormatFloat(x, 'g', -1, 64)
	}
	for digits := 1; digits < 17; digits++ {
		s := strconv.FormatFloat(x, 'g', digits, 64)
		r, ok := new(big.Rat).SetString(s)
		if ok && e.F.RoundRat(r) == x {
			return s
		}
	}
	return strconv.FormatFloat(x, 'g', -1, 64)
}

// The operations round as e.F.Round does, with its common case
// (roundNormal) inlined into each: a call saved per operation.
func (e Emulated) Add(_, x, y float64) float64 {
	z := float64(x + y)
	if r, ok := e.F.roundNormal(z); ok {
		return r
	}
	return e.F.roundSlow(z)
}

func (e Emulated) Sub(_, x, y float64) float64 {
	z := float64(x - y)
	if r, ok := e.F.roundNormal(z); ok {
		return r
	}
	return e.F.roundSlow(z)
}

func (e Emulated) Mul(_, x, y float64) float64 {
	z := float64(x * y)
	if r, ok := e.F.roundNormal(z); ok {
		return r
	}
	return e.F.roundSlow(z)
}
func (e Emulated) Neg(_, x float64) float64    { return -x }
func (e Emulated) Abs(_, x float64) float64    { return math.Abs(x) }
func (e Emulated) Max(_, x, y float64) float64 { return ieeeMax(x, y) }
func (e Emulated) Min(_, x, y float64) float64 { return ieeeMin(x, y) }

// Div follows IEEE 754 (x/0 = ±∞, 0/0 = NaN; ±∞ is NaN in fp8-e4m3).
func (e Emulated) Div(_, x, y float64) (float64, error) {
	z := float64(x / y)
	if r, ok := e.F.roundNormal(z); ok {
		return r, nil
	}
	return e.F.roundSlow(z), nil
}

// Sqrt takes float32's square root where that rounds the same (fp16,
// bf16, fp8: Format.prepare says why), a faster instruction than
// float64's.
func (e Emulated) Sqrt(_, x float64) (float64, error) {
	var z float64
	if e.F.sqrt32 {
		z = float64(float32(math.Sqrt(float64(float32(x)))))
	} else {
		z = math.Sqrt(x)
	}
	if r, ok := e.F.roundNormal(z); ok {
		return r, nil
	}
	return e.F.roundSlow(z), nil
}

func (e Emulated) Exp(_, x float64) (float64, error)  { return e.elementary("exp", x) }
func (e Emulated) Log(_, x float64) (float64, error)  { return e.elementary("log", x) }
func (e Emulated) Erf(_, x float64) (float64, error)  { return e.elementary("erf", x) }
func (e Emulated) Tanh(_, x float64) (float64, error) { return e.elementary("tanh", x) }

func (e Emulated) elementary(op string, x float64) (float64, error) {
	r, ok := ieeeElementary(e.F, op, x)
	if !ok {
		return 0, ieeeOpError(e.F.Name, op, x)
	}
	return r, nil
}

func (e Emulated) Cmp(x, y float64) Order { return ieeeCmp(x, y) }
func (e Emulated) Sign(x float64) Order   { return ieeeCmp(x, 0) }
