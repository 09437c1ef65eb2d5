package numeric

import (
	"math"
	"math/big"
	"strconv"
)

// Float64 is the backend of native float64 arithmetic (IEEE 754 binary64,
// round to nearest even). The elementary functions are correctly rounded,
// which the math package does not promise (its Exp is within 1 ulp), so
// that a result does not depend on the machine or the Go version.
//
// Every result is converted explicitly to float64, which in Go forces a
// rounding: the compiler may not fuse a multiplication and an addition
// across it into one FMA.
type Float64 struct{}

// NewFloat64 returns the float64 backend.
func NewFloat64() Float64 { return Float64{} }

func (Float64) Precision() Precision { return Precision{Kind: KindFloat64, Format: Binary64} }

func (Float64) New() float64                        { return 0 }
func (Float64) Set(_, x float64) float64            { return x }
func (Float64) SetInt64(_ float64, x int64) float64 { return float64(x) }

// SetRat is the nearest float64, as big.Rat.Float64 computes it.
func (Float64) SetRat(_ float64, x *big.Rat) float64 {
	f, _ := x.Float64()
	return f
}

func (Float64) Rat(x float64) (*big.Rat, error) { return ieeeRat("fp64", x) }
func (Float64) Bounds(x float64) (lo, hi *big.Rat, err error) {
	r, err := ieeeRat("fp64", x)
	if err != nil {
		return nil, nil, err
	}
	return r, new(big.Rat).Set(r), nil
}
func (Float64) Finite(x float64) bool   { return !math.IsNaN(x) && !math.IsInf(x, 0) }
func (Float64) Format(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }

func (Float64) Add(_, x, y float64) float64 { return float64(x + y) }
func (Float64) Sub(_, x, y float64) float64 { return float64(x - y) }
func (Float64) Mul(_, x, y float64) float64 { return float64(x * y) }
func (Float64) Neg(_, x float64) float64    { return -x }
func (Float64) Abs(_, x float64) float64    { return math.Abs(x) }
func (Float64) Max(_, x, y float64) float64 { return ieeeMax(x, y) }
func (Float64) Min(_, x, y float64) float64 { return ieeeMin(x, y) }

// Div follows IEEE 754: x/0 is ±∞, 0/0 is NaN; it never fails.
func (Float64) Div(_, x, y float64) (float64, error) { return float64(x / y), nil }

// Sqrt is IEEE's correctly rounded square root; √(x < 0) is NaN.
func (Float64) Sqrt(_, x float64) (float64, error) { return math.Sqrt(x), nil }

func (Float64) Exp(_, x float64) (float64, error)  { return float64Elementary("exp", x) }
func (Float64) Log(_, x float64) (float64, error)  { return float64Elementary("log", x) }
func (Float64) Erf(_, x float64) (float64, error)  { return float64Elementary("erf", x) }
func (Float64) Tanh(_, x float64) (float64, error) { return float64Elementary("tanh", x) }

func float64Elementary(op string, x float64) (float64, error) {
	r, ok := ieeeElementary(Binary64, op, x)
	if !ok {
		return 0, ieeeOpError("fp64", op, x)
	}
	return r, nil
}

func (Float64) Cmp(x, y float64) Order { return ieeeCmp(x, y) }
func (Float64) Sign(x float64) Order   { return ieeeCmp(x, 0) }

// Float32 is the backend of native float32 arithmetic (IEEE 754 binary32,
// round to nearest even), with correctly rounded elementary functions. As
// in Float64, explicit conversions keep every operation rounded on its own.
type Float32 struct{}

// NewFloat32 returns the float32 backend.
func NewFloat32() Float32 { return Float32{} }

func (Float32) Precision() Precision { return Precision{Kind: KindFloat32, Format: Binary32} }

func (Float32) New() float32             { return 0 }
func (Float32) Set(_, x float32) float32 { return x }
func (Float32) SetInt64(_ float32, x int64) float32 {
	// float32(int64) may round through float64 on some targets; round the
	// exact value once instead. Below 2^53 in magnitude float64(x) is exact
	// and the conversion to float32 is the one rounding.
	if -1<<53 < x && x < 1<<53 {
		return float32(float64(x))
	}
	return float32(Binary32.RoundBig(new(big.Float).SetInt64(x)))
}

// SetRat is the nearest float32, as big.Rat.Float32 computes it.
func (Float32) SetRat(_ float32, x *big.Rat) float32 {
	f, _ := x.Float32()
	return f
}

func (Float32) Rat(x float32) (*big.Rat, error) { return ieeeRat("fp32", float64(x)) }
func (Float32) Bounds(x float32) (lo, hi *big.Rat, err error) {
	r, err := ieeeRat("fp32", float64(x))
	if err != nil {
		return nil, nil, err
	}
	return r, new(big.Rat).Set(r), nil
}
func (Float32) Finite(x float32) bool {
	return !math.IsNaN(float64(x)) && !math.IsInf(float64(x), 0)
}
func (Float32) Format(x float32) string { return strconv.FormatFloat(float64(x), 'g', -1, 32) }

func (Float32) Add(_, x, y float32) float32 { return float32(x + y) }
func (Float32) Sub(_, x, y float32) float32 { return float32(x - y) }
func (Float32) Mul(_, x, y float32) float32 { return float32(x * y) }
func (Float32) Neg(_, x float32) float32    { return -x }
func (Float32) Abs(_, x float32) float32    { return float32(math.Abs(float64(x))) }
func (Float32) Max(_, x, y float32) float32 { return float32(ieeeMax(float64(x), float64(y))) }
func (Float32) Min(_, x, y float32) float32 { return float32(ieeeMin(float64(x), float64(y))) }

func (Float32) Div(_, x, y float32) (float32, error) { return float32(x / y), nil }

// Sqrt rounds the float64 square root to float32; since 53 ≥ 2·24 + 2 the
// double rounding is innocuous (Figueroa, "When is double rounding
// innocuous?", SIGNUM 1995), so the result is the correctly rounded one.
func (Float32) Sqrt(_, x float32) (float32, error) { return float32(math.Sqrt(float64(x))), nil }

func (Float32) Exp(_, x float32) (float32, error)  { return float32Elementary("exp", x) }
func (Float32) Log(_, x float32) (float32, error)  { return float32Elementary("log", x) }
func (Float32) Erf(_, x float32) (float32, error)  { return float32Elementary("erf", x) }
func (Float32) Tanh(_, x float32) (float32, error) { return float32Elementary("tanh", x) }

func float32Elementary(op string, x float32) (float32, error) {
	r, ok := ieeeElementary(Binary32, op, float64(x))
	if !ok {
		return 0, ieeeOpError("fp32", op, float64(x))
	}
	return float32(r), nil
}

func (Float32) Cmp(x, y float32) Order { return ieeeCmp(float64(x), float64(y)) }
func (Float32) Sign(x float32) Order   { return ieeeCmp(float64(x), 0) }
