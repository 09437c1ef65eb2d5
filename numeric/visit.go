package numeric

import "math/big"

// The backends satisfy Backend for their value types.
var (
	_ Backend[*big.Rat]   = Exact{}
	_ Backend[*big.Float] = BigFloat{}
	_ Backend[float64]    = Float64{}
	_ Backend[float32]    = Float32{}
	_ Backend[float64]    = Emulated{}
	_ Backend[*Interval]  = Intervals{}
)

// Visitor receives the backend of a precision, typed by its value type.
// Go has no generic methods, so code written once as a generic function
// func run[T any](b Backend[T]) is reached from a run-time Precision by a
// Visitor whose five methods each call run(b).
type Visitor interface {
	Rat(b Backend[*big.Rat]) error
	BigFloat(b Backend[*big.Float]) error
	Float64(b Backend[float64]) error // fp64 and the emulated formats
	Float32(b Backend[float32]) error
	Interval(b Backend[*Interval]) error
}

// Visit builds the backend of p and passes it to the matching method of v.
func Visit(p Precision, v Visitor) error {
	switch p.Kind {
	case KindExact:
		return v.Rat(Exact{})
	case KindBigFloat:
		return v.BigFloat(NewBigFloat(p.Bits))
	case KindFloat64:
		return v.Float64(Float64{})
	case KindFloat32:
		return v.Float32(Float32{})
	case KindEmulated:
		return v.Float64(NewEmulated(p.Format))
	case KindInterval:
		return v.Interval(NewIntervals(p.Bits))
	}
	panic("numeric: Visit: invalid Precision; use ParsePrecision")
}
