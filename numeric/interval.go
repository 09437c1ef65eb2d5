package numeric

import (
	"math/big"

	"github.com/transformer-cookbook/verify/numeric/internal/bigmath"
)

// Interval is a closed interval [Lo, Hi] of real numbers with big.Float
// endpoints, the value type of the Intervals backend. Lo may be −∞ and Hi
// +∞ (after an overflow); Lo is never +∞ nor Hi −∞.
type Interval struct {
	Lo, Hi *big.Float
}

// Intervals is the backend of certified interval arithmetic: each value is
// an enclosure with P-bit endpoints, and every operation returns an
// enclosure of every result of the operation on points of its operands,
// rounding lower endpoints toward −∞ and upper ones toward +∞. The true
// real value of a computation is therefore always inside its result, which
// is what proofs/ relies on to decide inequalities at given inputs.
//
// The elementary functions are monotone (exp, log, erf, tanh, √), so each
// takes certified enclosures of the function at both endpoints (see
// internal/bigmath for the truncation bounds of the series); the results
// are at most a few ulps wide.
//
// Operations without a meaning on the whole interval return an *OpError:
// division by an interval that contains zero (ErrDivByZero), √ of an
// interval with negative numbers and log of one with non-positive numbers
// (ErrDomain). Cmp is Unordered when the intervals overlap: only a
// certified order is reported.
type Intervals struct {
	prec uint
	name string
}

// NewIntervals returns the interval backend with prec-bit endpoints.
func NewIntervals(prec uint) Intervals {
	if prec < MinBits || prec > MaxBits {
		panic("numeric: NewIntervals: precision out of range")
	}
	return Intervals{prec: prec, name: Precision{Kind: KindInterval, Bits: prec}.String()}
}

func (b Intervals) Precision() Precision { return Precision{Kind: KindInterval, Bits: b.prec} }

// Prec is the number of significand bits of the endpoints.
func (b Intervals) Prec() uint { return b.prec }

func (b Intervals) store(z *Interval, iv bigmath.Interval) *Interval {
	if z == nil {
		z = new(Interval)
	}
	z.Lo, z.Hi = iv.Lo, iv.Hi
	return z
}

func bm(x *Interval) bigmath.Interval { return bigmath.Interval{Lo: x.Lo, Hi: x.Hi} }

func (b Intervals) New() *Interval {
	return &Interval{new(big.Float).SetPrec(b.prec), new(big.Float).SetPrec(b.prec)}
}

func (b Intervals) Set(z, x *Interval) *Interval {
	return b.store(z, bigmath.IRound(bm(x), b.prec))
}

func (b Intervals) SetInt64(z *Interval, x int64) *Interval {
	return b.store(z, bigmath.Point(new(big.Float).SetInt64(x), b.prec))
}

// SetRat returns the tightest enclosure of x: x rounded down and up.
func (b Intervals) SetRat(z *Interval, x *big.Rat) *Interval {
	lo := new(big.Float).SetPrec(b.prec).SetMode(big.ToNegativeInf).SetRat(x)
	hi := new(big.Float).SetPrec(b.prec).SetMode(big.ToPositiveInf).SetRat(x)
	return b.store(z, bigmath.Interval{Lo: lo, Hi: hi})
}

// SetBounds returns the tightest enclosure of [lo, hi] (lo ≤ hi).
func (b Intervals) SetBounds(z *Interval, lo, hi *big.Rat) *Interval {
	l := new(big.Float).SetPrec(b.prec).SetMode(big.ToNegativeInf).SetRat(lo)
	h := new(big.Float).SetPrec(b.prec).SetMode(big.ToPositiveInf).SetRat(hi)
	return b.store(z, bigmath.Interval{Lo: l, Hi: h})
}

// Rat returns the value of a point interval; a wider one has none.
func (b Intervals) Rat(x *Interval) (*big.Rat, error) {
	if x.Lo.IsInf() || x.Hi.IsInf() {
		return nil, &OpError{Backend: b.name, Op: "rat", Arg: b.Format(x), Err: ErrNotFinite}
	}
	if x.Lo.Cmp(x.Hi) != 0 {
		return nil, &OpError{Backend: b.name, Op: "rat", Arg: b.Format(x), Err: ErrNotPoint}
	}
	r, _ := x.Lo.Rat(nil)
	return r, nil
}

func (b Intervals) Bounds(x *Interval) (lo, hi *big.Rat, err error) {
	if x.Lo.IsInf() || x.Hi.IsInf() {
		return nil, nil, &OpError{Backend: b.name, Op: "bounds", Arg: b.Format(x), Err: ErrNotFinite}
	}
	lo, _ = x.Lo.Rat(nil)
	hi, _ = x.Hi.Rat(nil)
	return lo, hi, nil
}

func (b Intervals) Finite(x *Interval) bool { return !x.Lo.IsInf() && !x.Hi.IsInf() }

// Format prints [lo, hi], each endpoint as the shortest decimal that reads
// back to it at the backend's precision.
func (b Intervals) Format(x *Interval) string {
	return "[" + x.Lo.Text('g', -1) + ", " + x.Hi.Text('g', -1) + "]"
}

func (b Intervals) Add(z, x, y *Interval) *Interval {
	return b.store(z, bigmath.IAdd(bm(x), bm(y), b.prec))
}
func (b Intervals) Sub(z, x, y *Interval) *Interval {
	return b.store(z, bigmath.ISub(bm(x), bm(y), b.prec))
}
func (b Intervals) Mul(z, x, y *Interval) *Interval {
	return b.store(z, bigmath.IMul(bm(x), bm(y), b.prec))
}
func (b Intervals) Neg(z, x *Interval) *Interval {
	return b.store(z, bigmath.INeg(bm(x), b.prec))
}
func (b Intervals) Abs(z, x *Interval) *Interval {
	return b.store(z, bigmath.IRound(bigmath.IAbs(bm(x)), b.prec))
}

// Max is [max(x.Lo, y.Lo), max(x.Hi, y.Hi)]: every max(s, t) with s in x
// and t in y lies there.
func (b Intervals) Max(z, x, y *Interval) *Interval {
	lo, hi := x.Lo, x.Hi
	if y.Lo.Cmp(lo) > 0 {
		lo = y.Lo
	}
	if y.Hi.Cmp(hi) > 0 {
		hi = y.Hi
	}
	return b.store(z, bigmath.IRound(bigmath.Interval{Lo: lo, Hi: hi}, b.prec))
}

func (b Intervals) Min(z, x, y *Interval) *Interval {
	lo, hi := x.Lo, x.Hi
	if y.Lo.Cmp(lo) < 0 {
		lo = y.Lo
	}
	if y.Hi.Cmp(hi) < 0 {
		hi = y.Hi
	}
	return b.store(z, bigmath.IRound(bigmath.Interval{Lo: lo, Hi: hi}, b.prec))
}

func (b Intervals) Div(z, x, y *Interval) (*Interval, error) {
	q, err := bigmath.IQuo(bm(x), bm(y), b.prec)
	if err != nil {
		return nil, &OpError{Backend: b.name, Op: "div", Arg: b.Format(x) + " / " + b.Format(y), Err: ErrDivByZero}
	}
	return b.store(z, q), nil
}

func (b Intervals) Sqrt(z, x *Interval) (*Interval, error) {
	r, err := bigmath.ISqrt(bm(x), b.prec)
	if err != nil {
		return nil, &OpError{Backend: b.name, Op: "sqrt", Arg: b.Format(x), Err: ErrDomain}
	}
	return b.store(z, r), nil
}

func (b Intervals) Exp(z, x *Interval) (*Interval, error)  { return b.monotone(z, "exp", x) }
func (b Intervals) Log(z, x *Interval) (*Interval, error)  { return b.monotone(z, "log", x) }
func (b Intervals) Erf(z, x *Interval) (*Interval, error)  { return b.monotone(z, "erf", x) }
func (b Intervals) Tanh(z, x *Interval) (*Interval, error) { return b.monotone(z, "tanh", x) }

// monotone encloses an increasing function on x by its enclosures at the
// two endpoints.
func (b Intervals) monotone(z *Interval, op string, x *Interval) (*Interval, error) {
	if op == "log" && (x.Lo.Sign() < 0 || x.Hi.Sign() <= 0) {
		return nil, &OpError{Backend: b.name, Op: op, Arg: b.Format(x), Err: ErrDomain}
	}
	lo := b.endpoint(op, x.Lo, bigmath.Down)
	hi := b.endpoint(op, x.Hi, bigmath.Up)
	return b.store(z, bigmath.Interval{Lo: lo, Hi: hi}), nil
}

// endpoint returns a lower (d = Down) or upper bound of op at the point v.
func (b Intervals) endpoint(op string, v *big.Float, d bigmath.Dir) *big.Float {
	if v.IsInf() || (op == "log" && v.Sign() == 0) {
		var r float64
		switch {
		case op == "exp" && v.Sign() < 0:
			r = 0
		case op == "log" && v.Sign() == 0:
			return new(big.Float).SetInf(true)
		case op == "exp" || op == "log":
			return new(big.Float).SetInf(false)
		default: // erf and tanh tend to ±1
			r = float64(v.Sign())
		}
		return new(big.Float).SetPrec(b.prec).SetFloat64(r)
	}
	iv, _ := bigmath.Enclose(funcOf[op], v, b.prec)
	if d == bigmath.Down {
		return iv.Lo
	}
	return iv.Hi
}

// Cmp is Less or Greater when every point of x is below or above every
// point of y, Equal when both are the same single point, and Unordered
// otherwise.
func (b Intervals) Cmp(x, y *Interval) Order {
	switch {
	case x.Hi.Cmp(y.Lo) < 0:
		return Less
	case x.Lo.Cmp(y.Hi) > 0:
		return Greater
	case x.Lo.Cmp(x.Hi) == 0 && y.Lo.Cmp(y.Hi) == 0 && x.Lo.Cmp(y.Lo) == 0:
		return Equal
	}
	return Unordered
}

func (b Intervals) Sign(x *Interval) Order {
	return b.Cmp(x, &Interval{Lo: new(big.Float), Hi: new(big.Float)})
}
