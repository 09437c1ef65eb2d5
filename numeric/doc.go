// Package numeric is the arithmetic of the engine: one generic interface,
// Backend[T], and a backend for each way of computing a construction of the
// Transformer Cookbook, so that a model is written once, as generic code
// over T, and runs unchanged at every precision.
//
// # Backends
//
//	precision name  backend     value type   arithmetic
//	exact           Exact       *big.Rat     exact; exp, log, erf, tanh, √ only where rational
//	P (2 … 2^20)    BigFloat    *big.Float   P-bit significand, big.Float's exponent range
//	P (2 … 25)      NarrowBigFloat float64   BigFloat's values while they stay within 2^±510
//	fp64            Float64     float64      IEEE binary64, native
//	fp32            Float32     float32      IEEE binary32, native
//	fp16, bf16      Emulated    float64      IEEE binary16, bfloat16, emulated
//	fp8-e4m3/e5m2   Emulated    float64      OCP 8-bit formats, emulated
//	interval:P      Intervals   *Interval    certified enclosures, P-bit endpoints
//
// ParsePrecision reads the names; Visit turns a Precision into a call of
// generic code with the matching backend. NarrowBigFloat is not a
// precision of its own: it computes a bigfloat of at most 25 bits many
// times faster, and counts every operation that leaves its range, after
// which its caller redoes the work in BigFloat (eval.New's runner does).
//
// # Conventions
//
// Rounding: every operation of a rounding backend (+, −, ×, ÷, √, and exp,
// log, erf and tanh too) returns its exact result rounded once, to nearest
// with ties to even, in the backend's format. For the elementary functions
// that is done by Ziv's strategy over certified enclosures (package
// internal/bigmath): no result is ever off by an ulp, on any machine. The
// interval backend rounds lower endpoints down and upper endpoints up, so
// the exact real result is always inside.
//
// Exactness: every finite value of every backend has an exact rational
// value (Backend.Rat; Bounds for intervals), so any result can be compared
// with the exact one without a second rounding. Parameters enter a backend
// through SetRat, rounded once and correctly. The irrational constants that
// constructions use (√(π/2), 1/√2, …) are named Constants, evaluated by each
// backend at its own precision; Exact refuses them.
//
// Results in receivers: as in math/big, operations take a destination first
// and return the result, z = b.Add(z, x, y). Pointer backends reuse z (or
// allocate when it is nil); value backends ignore it. Always use the
// returned value, and let two variables share a pointer only when both may
// change together.
//
// Errors, not panics: an operation that has no value in a backend (exp in
// Exact, division by an interval that contains zero, log of a negative
// number in BigFloat, which has no NaN) returns an *OpError naming the
// backend and the operation. The IEEE backends follow IEEE 754 instead
// (x/0 = ±Inf, √−1 = NaN; fp8-e4m3, which has no infinities, overflows to
// NaN).
//
// The BigFloat backend is not an IEEE format: a 24-bit bigfloat has
// float32's significand but big.Float's exponent range (about 2^±2^31), so
// it has no overflow, underflow or subnormals where fp32 does. Use fp32 for
// the real thing, 24 to separate the effect of the significand from that
// of the range.
//
// # Imports
//
// numeric imports exact (rational parsing) and its internal bigmath (the
// correctly rounded elementary functions). Everything above the
// arithmetic imports it.
package numeric
