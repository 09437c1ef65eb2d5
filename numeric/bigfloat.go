package numeric

import (
	"math"
	"math/big"
	"sync"

	"github.com/transformer-cookbook/verify/numeric/internal/bigmath"
)

// BigFloat is the backend of binary floating point with a P-bit
// significand, on *big.Float: every operation, the elementary functions
// included, returns the exact result rounded once to nearest, ties to even,
// at P bits, for any P from MinBits to MaxBits.
//
// The significand is P bits, as in the IEEE formats of the same width (24
// is float32's, 53 float64's, 11 fp16's, 8 bf16's), but the exponent is
// big.Float's, about ±2^31: there are no subnormals, no overflow to
// infinity at the IEEE maxima, and so results differ from fp32 or fp16 as
// soon as a value leaves those formats' range. Use the named formats for
// the real thing.
//
// Values are always finite: division by zero, log of a non-positive number,
// √ of a negative one and exp beyond the exponent range return an *OpError
// instead of the ±Inf and NaN that big.Float cannot carry through.
type BigFloat struct {
	prec uint
	name string
}

// NewBigFloat returns the backend with prec-bit significands. prec must lie
// in [MinBits, MaxBits]; use ParsePrecision to check a user's input.
func NewBigFloat(prec uint) BigFloat {
	if prec < MinBits || prec > MaxBits {
		panic("numeric: NewBigFloat: precision out of range")
	}
	return BigFloat{prec: prec, name: Precision{Kind: KindBigFloat, Bits: prec}.String()}
}

func (b BigFloat) Precision() Precision { return Precision{Kind: KindBigFloat, Bits: b.prec} }

// Prec is the number of significand bits.
func (b BigFloat) Prec() uint { return b.prec }

// dst prepares z to receive a result rounded at b's precision.
func (b BigFloat) dst(z *big.Float) *big.Float {
	if z == nil {
		z = new(big.Float)
	}
	return z.SetPrec(b.prec).SetMode(big.ToNearestEven)
}

func (b BigFloat) New() *big.Float                           { return b.dst(nil) }
func (b BigFloat) Set(z, x *big.Float) *big.Float            { return b.dst(z).Set(x) }
func (b BigFloat) SetInt64(z *big.Float, x int64) *big.Float { return b.dst(z).SetInt64(x) }

// SetRat rounds x once: big.Float.SetRat divides numerator by denominator
// with a single correct rounding in z's mode.
func (b BigFloat) SetRat(z *big.Float, x *big.Rat) *big.Float { return b.dst(z).SetRat(x) }

func (b BigFloat) Rat(x *big.Float) (*big.Rat, error) {
	if x.IsInf() {
		return nil, &OpError{Backend: b.name, Op: "rat", Arg: x.String(), Err: ErrNotFinite}
	}
	r, _ := x.Rat(nil)
	return r, nil
}

func (b BigFloat) Bounds(x *big.Float) (lo, hi *big.Rat, err error) {
	r, err := b.Rat(x)
	if err != nil {
		return nil, nil, err
	}
	return r, new(big.Rat).Set(r), nil
}

func (b BigFloat) Finite(x *big.Float) bool { return !x.IsInf() }

// Format prints the shortest decimal that reads back to x at b's precision.
func (b BigFloat) Format(x *big.Float) string { return x.Text('g', -1) }

func (b BigFloat) Add(z, x, y *big.Float) *big.Float {
	if r := b.absorbs(x, y); r != nil {
		return b.dst(z).Set(r)
	}
	if z != nil && (z == x || z == y) {
		t := getScratch()
		b.dst(t).Add(x, y)
		return b.putScratch(z, t)
	}
	return b.dst(z).Add(x, y)
}

func (b BigFloat) Sub(z, x, y *big.Float) *big.Float {
	if r := b.absorbs(x, y); r != nil {
		if r == y {
			return b.dst(z).Neg(y)
		}
		return b.dst(z).Set(r)
	}
	if z != nil && (z == x || z == y) {
		t := getScratch()
		b.dst(t).Sub(x, y)
		return b.putScratch(z, t)
	}
	return b.dst(z).Sub(x, y)
}

// scratch holds big.Floats for results whose destination is also an
// operand (acc = acc + x·y): big.Float's add and multiply allocate a
// temporary mantissa whenever the result's storage aliases an operand's,
// which in a dot product is once per term. Computing into a scratch value
// and copying it (at the same precision: exact) does not allocate once the
// scratch values have grown, and it also keeps z's old value intact until
// the result is known (b.dst would otherwise round an operand z of higher
// precision before the operation).
var scratch = sync.Pool{New: func() any { return new(big.Float) }}

func getScratch() *big.Float { return scratch.Get().(*big.Float) }

// putScratch copies t, a result rounded at b's precision, into z, and
// returns t to the pool.
func (b BigFloat) putScratch(z, t *big.Float) *big.Float {
	b.dst(z).Set(t)
	scratch.Put(t)
	return z
}

// absorbs returns the operand of x ± y that is the correctly rounded sum,
// when the other is too small to change it: big.Float aligns both
// significands exactly before rounding, which for 1 + 2^-3000000 (as
// softmax makes) allocates megabytes. With |large| in [2^(e−1), 2^e) held
// in at most prec bits, and |small| < 2^(e−prec−2), half the spacing below
// 2^(e−1): large ± small rounds to large, with no tie. It returns nil when
// the shortcut does not apply.
func (b BigFloat) absorbs(x, y *big.Float) *big.Float {
	if x.Sign() == 0 || y.Sign() == 0 || x.IsInf() || y.IsInf() || x.Prec() > b.prec || y.Prec() > b.prec {
		return nil
	}
	ex, ey := x.MantExp(nil), y.MantExp(nil)
	switch {
	case ey <= ex-int(b.prec)-2:
		return x
	case ex <= ey-int(b.prec)-2:
		return y
	}
	return nil
}

func (b BigFloat) Mul(z, x, y *big.Float) *big.Float {
	if z != nil && (z == x || z == y) {
		t := getScratch()
		b.dst(t).Mul(x, y)
		return b.putScratch(z, t)
	}
	return b.dst(z).Mul(x, y)
}

func (b BigFloat) Neg(z, x *big.Float) *big.Float { return b.dst(z).Neg(x) }
func (b BigFloat) Abs(z, x *big.Float) *big.Float { return b.dst(z).Abs(x) }

func (b BigFloat) Max(z, x, y *big.Float) *big.Float {
	if x.Cmp(y) >= 0 {
		return b.dst(z).Set(x)
	}
	return b.dst(z).Set(y)
}

func (b BigFloat) Min(z, x, y *big.Float) *big.Float {
	if x.Cmp(y) <= 0 {
		return b.dst(z).Set(x)
	}
	return b.dst(z).Set(y)
}

func (b BigFloat) Div(z, x, y *big.Float) (*big.Float, error) {
	if y.Sign() == 0 {
		return nil, &OpError{Backend: b.name, Op: "div", Arg: x.Text('g', -1) + " / 0", Err: ErrDivByZero}
	}
	return b.dst(z).Quo(x, y), nil
}

// Sqrt does not use big.Float.Sqrt (see bigmath.Sqrt); the result is the
// same in this rounding mode, and one square root serves every backend.
func (b BigFloat) Sqrt(z, x *big.Float) (*big.Float, error) {
	if x.Sign() < 0 {
		return nil, &OpError{Backend: b.name, Op: "sqrt", Arg: x.Text('g', -1), Err: ErrDomain}
	}
	return bigmath.SqrtTo(z, x, b.prec, big.ToNearestEven), nil
}

func (b BigFloat) Exp(z, x *big.Float) (*big.Float, error)  { return b.elementary(z, "exp", x) }
func (b BigFloat) Log(z, x *big.Float) (*big.Float, error)  { return b.elementary(z, "log", x) }
func (b BigFloat) Erf(z, x *big.Float) (*big.Float, error)  { return b.elementary(z, "erf", x) }
func (b BigFloat) Tanh(z, x *big.Float) (*big.Float, error) { return b.elementary(z, "tanh", x) }

func (b BigFloat) elementary(z *big.Float, op string, x *big.Float) (*big.Float, error) {
	if x.IsInf() {
		return nil, &OpError{Backend: b.name, Op: op, Arg: x.String(), Err: ErrNotFinite}
	}
	if op == "log" && x.Sign() <= 0 {
		return nil, &OpError{Backend: b.name, Op: op, Arg: x.Text('g', -1), Err: ErrDomain}
	}
	if op == "exp" && b.prec <= 53 {
		if r, ok := b.fastExp(x); ok {
			return b.dst(z).Set(r), nil
		}
	}
	enc, status := enclosure(op, x)
	r, ok := zivRound(b.prec, enc, b.round, sameBig)
	switch {
	case *status == bigmath.Overflow:
		return nil, &OpError{Backend: b.name, Op: op, Arg: x.Text('g', 10), Err: ErrOverflow}
	case *status == bigmath.Underflow:
		return nil, &OpError{Backend: b.name, Op: op, Arg: x.Text('g', 10), Err: ErrUnderflow}
	case !ok:
		return nil, &OpError{Backend: b.name, Op: op, Arg: x.Text('g', -1), Err: ErrRoundingUndecided}
	}
	return b.dst(z).Set(r), nil
}

// fastExp is bigmath.ExpFast for arguments that are float64 values.
func (b BigFloat) fastExp(x *big.Float) (*big.Float, bool) {
	xf, acc := x.Float64()
	if acc != big.Exact {
		return nil, false
	}
	if math.Abs(xf) < 0x1p-55 {
		return b.dst(nil).SetInt64(1), true // see ExpFast: rounds to 1
	}
	if math.Abs(xf) > 1<<30 {
		return nil, false // near or beyond big.Float's exponent range
	}
	return bigmath.ExpFast(xf, func(hi, lo uint64, e int64) *big.Float {
		m, q := bigmath.RoundU128(hi, lo, e, int(b.prec), math.MinInt64)
		r := new(big.Float).SetPrec(b.prec).SetUint64(m) // exact: m ≤ 2^prec
		return r.SetMantExp(r, int(q))
	}, sameBig)
}

func (b BigFloat) round(x *big.Float) *big.Float { return b.dst(nil).Set(x) }

func sameBig(x, y *big.Float) bool { return x.Cmp(y) == 0 }

func (b BigFloat) Cmp(x, y *big.Float) Order { return Order(x.Cmp(y)) }
func (b BigFloat) Sign(x *big.Float) Order   { return Order(x.Sign()) }
