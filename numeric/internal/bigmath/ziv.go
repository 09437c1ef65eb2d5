package bigmath

import (
	"fmt"
	"math/big"
)

// Func names an elementary function with a certified enclosure.
type Func int

const (
	FExp Func = iota
	FLog
	FErf
	FTanh
	FSin
	FCos
)

func (f Func) String() string {
	return [...]string{"exp", "log", "erf", "tanh", "sin", "cos"}[f]
}

// Enclose returns an enclosure of f(x) with w-bit endpoints. x must be
// finite, and positive for FLog. The status is Normal except for exp beyond
// big.Float's exponent range.
func Enclose(f Func, x *big.Float, w uint) (Interval, Status) {
	switch f {
	case FExp:
		return Exp(x, w)
	case FLog:
		return Log(x, w), Normal
	case FErf:
		return Erf(x, w), Normal
	case FTanh:
		return Tanh(x, w), Normal
	case FSin:
		return Sin(x, w), Normal
	case FCos:
		return Cos(x, w), Normal
	}
	panic(fmt.Sprintf("bigmath: unknown function %d", int(f)))
}

// Ziv evaluates enc at working precisions target+32, target+64,
// target+128, ... and returns true as soon as accept takes an enclosure
// (typically: both ends round to the same value). It gives up, returning
// false, beyond 3·target + 256 bits: correctly rounding a p-bit argument
// is known to need about 2p bits in the worst cases, so reaching the limit
// means an exact tie or a result that is exactly representable but was not
// special-cased.
func Ziv(target uint, enc func(w uint) Interval, accept func(Interval) bool) bool {
	limit := 3*target + 256
	for extra := uint(32); ; extra *= 2 {
		w := min(target+extra, limit)
		if accept(enc(w)) {
			return true
		}
		if w == limit {
			return false
		}
	}
}
