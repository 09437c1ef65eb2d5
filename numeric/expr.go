package numeric

import (
	"errors"
	"fmt"
	"math/big"

	"github.com/transformer-cookbook/verify/numeric/internal/bigmath"
)

// Expr is an exact real number given by an expression over rationals and
// π: the parameters of a construction, stored exactly. Most are rationals
// (Lit); a few are irrational, like √(π/2) in the GELU product
// (§Multiplication) or 1/τ = log(8N)/γ in §Simulating Average-Hard
// Attention with Soft Attention. Each backend evaluates an Expr with
// Backend.Eval, rounded once to its format; Exact evaluates only the
// rational ones and refuses the others with an error naming the
// expression.
//
// Exprs are immutable values; build them with Lit, LitInt, Frac, Pi, and
// the functions Add, Sub, Mul, Quo, Neg, Sqrt, Log, Exp, Sin and Cos.
type Expr struct{ n *node }

type node struct {
	op   string   // "lit", "pi", "+", "-", "*", "/", "neg", "sqrt", "log", "exp", "sin", "cos"
	val  *big.Rat // for "lit"
	args []Expr
}

// Lit is the rational r (copied).
func Lit(r *big.Rat) Expr {
	lit := newLit()
	lit.val.Set(r)
	return Expr{lit}
}

// LitFloat is the exact value of the finite float64 x: a model read from
// a safetensors file holds millions of them.
func LitFloat(x float64) Expr {
	lit := newLit()
	lit.val.SetFloat64(x)
	return Expr{lit}
}

// newLit is a literal node of value 0, with its Rat in the same
// allocation: a model of a million weights holds a million of them.
func newLit() *node {
	lit := &struct {
		n node
		r big.Rat
	}{}
	lit.n.op, lit.n.val = "lit", &lit.r
	return &lit.n
}

// LitInt is the integer k.
func LitInt(k int64) Expr {
	if smallLitMin <= k && k <= smallLitMax {
		return smallLits[k-smallLitMin]
	}
	return newLitInt(k)
}

// The small integers' literals are made once: a construction over a large
// alphabet writes a few per symbol (component values 0 and 1, indices),
// and an Expr never changes once made.
const smallLitMin, smallLitMax = -64, 1024

var smallLits = func() []Expr {
	lits := make([]Expr, smallLitMax-smallLitMin+1)
	for k := range lits {
		lits[k] = newLitInt(int64(k) + smallLitMin)
	}
	return lits
}()

func newLitInt(k int64) Expr {
	// One allocation for the node, its value and the value's one word
	// (SetInt64 would allocate the word apart). The numerator is set
	// through Num, which refers to the Rat's own; the denominator's zero
	// value is 1.
	lit := &struct {
		n node
		r big.Rat
		w [1]big.Word
	}{}
	lit.n.op, lit.n.val = "lit", &lit.r
	abs := uint64(k)
	if k < 0 {
		abs = -abs
	}
	if uint64(big.Word(abs)) != abs { // a 32-bit Word
		lit.r.SetInt64(k)
		return Expr{&lit.n}
	}
	lit.w[0] = big.Word(abs)
	num := lit.r.Num().SetBits(lit.w[:])
	if k < 0 {
		num.Neg(num)
	}
	return Expr{&lit.n}
}

// Frac is a/b; b must not be 0.
func Frac(a, b int64) Expr {
	lit := newLit()
	lit.val.SetFrac64(a, b)
	return Expr{lit}
}

// Pi is π.
func Pi() Expr { return Expr{&node{op: "pi"}} }

func Add(x, y Expr) Expr { return Expr{&node{op: "+", args: []Expr{x, y}}} }
func Sub(x, y Expr) Expr { return Expr{&node{op: "-", args: []Expr{x, y}}} }
func Mul(x, y Expr) Expr { return Expr{&node{op: "*", args: []Expr{x, y}}} }
func Quo(x, y Expr) Expr { return Expr{&node{op: "/", args: []Expr{x, y}}} }
func Neg(x Expr) Expr    { return Expr{&node{op: "neg", args: []Expr{x}}} }
func Sqrt(x Expr) Expr   { return Expr{&node{op: "sqrt", args: []Expr{x}}} }
func Log(x Expr) Expr    { return Expr{&node{op: "log", args: []Expr{x}}} }
func Exp(x Expr) Expr    { return Expr{&node{op: "exp", args: []Expr{x}}} }

// Sin is sin x (x in radians), as in the sinusoidal position encodings
// sin(i/10000^(2c/d)).
func Sin(x Expr) Expr { return Expr{&node{op: "sin", args: []Expr{x}}} }

// Cos is cos x (x in radians).
func Cos(x Expr) Expr { return Expr{&node{op: "cos", args: []Expr{x}}} }

// IsZero reports whether e is the zero value (no expression), which Eval
// treats as 0.
func (e Expr) IsZero() bool { return e.n == nil }

// IsZeroLiteral reports whether e is 0 as written: the zero value or the
// literal 0 (not an expression that happens to evaluate to 0).
func (e Expr) IsZeroLiteral() bool { return e.n == nil || e.n.op == "lit" && e.n.val.Sign() == 0 }

// IsLiteral reports whether e is a rational literal or the zero value:
// an expression whose Eval cannot fail at any backend.
func (e Expr) IsLiteral() bool { return e.n == nil || e.n.op == "lit" }

// String prints e in the syntax of the paper's formulas: sqrt(pi/2),
// log(8*16)/1, -3/4.
func (e Expr) String() string {
	if e.n == nil {
		return "0"
	}
	switch n := e.n; n.op {
	case "lit":
		return n.val.RatString()
	case "pi":
		return "pi"
	case "neg":
		return "-" + n.args[0].operand()
	case "sqrt", "log", "exp", "sin", "cos":
		return n.op + "(" + n.args[0].String() + ")"
	default:
		return n.args[0].operand() + n.op + n.args[1].operand()
	}
}

// operand prints e with parentheses unless it is atomic.
func (e Expr) operand() string {
	if e.n == nil {
		return "0"
	}
	switch e.n.op {
	case "pi", "sqrt", "log", "exp", "sin", "cos":
		return e.String()
	case "lit":
		if e.n.val.IsInt() && e.n.val.Sign() >= 0 {
			return e.String()
		}
	}
	return "(" + e.String() + ")"
}

// smallInt is e as a float64 when e is a literal integer of magnitude at
// most 2^53, which float64 holds exactly (the zero Expr is 0).
func (e Expr) smallInt() (float64, bool) {
	if e.n == nil {
		return 0, true
	}
	if e.n.op != "lit" || !e.n.val.IsInt() {
		return 0, false
	}
	num := e.n.val.Num()
	if !num.IsInt64() {
		return 0, false
	}
	k := num.Int64()
	if k > 1<<53 || k < -1<<53 {
		return 0, false
	}
	return float64(k), true
}

// Rat returns the exact value of e when it is rational by construction:
// rationals combined by +, −, ×, ÷, square roots of squares of rationals,
// log(1), exp(0), sin(0) and cos(0). Any other expression is reported
// irrational (false), even where a clever identity would make it rational
// (sin(pi), cos(pi/3)).
func (e Expr) Rat() (*big.Rat, bool, error) {
	if e.n == nil {
		return new(big.Rat), true, nil
	}
	n := e.n
	if n.op == "lit" {
		return new(big.Rat).Set(n.val), true, nil
	}
	if n.op == "pi" {
		return nil, false, nil
	}
	vals := make([]*big.Rat, len(n.args))
	for i, a := range n.args {
		v, ok, err := a.Rat()
		if err != nil || !ok {
			return nil, false, err
		}
		vals[i] = v
	}
	x := vals[0]
	switch n.op {
	case "+":
		return x.Add(x, vals[1]), true, nil
	case "-":
		return x.Sub(x, vals[1]), true, nil
	case "*":
		return x.Mul(x, vals[1]), true, nil
	case "/":
		if vals[1].Sign() == 0 {
			return nil, false, fmt.Errorf("%v: %w", e, ErrDivByZero)
		}
		return x.Quo(x, vals[1]), true, nil
	case "neg":
		return x.Neg(x), true, nil
	case "sqrt":
		r, err := Exact{}.Sqrt(nil, x)
		if errors.Is(err, ErrIrrational) {
			return nil, false, nil
		}
		return r, err == nil, err
	case "log":
		r, err := Exact{}.Log(nil, x)
		if errors.Is(err, ErrIrrational) {
			return nil, false, nil
		}
		return r, err == nil, err
	case "exp":
		r, err := Exact{}.Exp(nil, x)
		if errors.Is(err, ErrIrrational) {
			return nil, false, nil
		}
		return r, err == nil, err
	case "sin", "cos":
		// By Lindemann–Weierstrass, sin and cos of a nonzero rational are
		// transcendental, so "irrational" is exact here, not a refusal.
		if x.Sign() != 0 {
			return nil, false, nil
		}
		if n.op == "cos" {
			return x.SetInt64(1), true, nil
		}
		return x, true, nil
	}
	return nil, false, fmt.Errorf("numeric: unknown expression operator %q", n.op)
}

// enclose returns an enclosure of e with endpoints of about w bits, or an
// error when e has no real value (division by zero, log of a non-positive
// number, √ of a negative one, exp beyond big.Float's range).
func (e Expr) enclose(w uint) (bigmath.Interval, error) {
	if e.n == nil {
		z := new(big.Float)
		return bigmath.Interval{Lo: z, Hi: z}, nil
	}
	n := e.n
	switch n.op {
	case "lit":
		lo := new(big.Float).SetPrec(w).SetMode(big.ToNegativeInf).SetRat(n.val)
		hi := new(big.Float).SetPrec(w).SetMode(big.ToPositiveInf).SetRat(n.val)
		return bigmath.Interval{Lo: lo, Hi: hi}, nil
	case "pi":
		return bigmath.PiInterval(w), nil
	case "sin", "cos":
		return e.encloseTrig(w)
	}
	// Arguments get guard bits so that the result stays a few ulps wide.
	args := make([]bigmath.Interval, len(n.args))
	for i, a := range n.args {
		iv, err := a.enclose(w + 8)
		if err != nil {
			return iv, err
		}
		args[i] = iv
	}
	x := args[0]
	switch n.op {
	case "+":
		return bigmath.IAdd(x, args[1], w), nil
	case "-":
		return bigmath.ISub(x, args[1], w), nil
	case "*":
		return bigmath.IMul(x, args[1], w), nil
	case "/":
		q, err := bigmath.IQuo(x, args[1], w)
		if err != nil {
			return q, fmt.Errorf("%v: %w", e, ErrDivByZero)
		}
		return q, nil
	case "neg":
		return bigmath.INeg(x, w), nil
	case "sqrt":
		r, err := bigmath.ISqrt(x, w)
		if err != nil {
			return r, fmt.Errorf("%v: %w", e, ErrDomain)
		}
		return r, nil
	case "log":
		if x.Lo.Sign() <= 0 {
			return x, fmt.Errorf("%v: %w", e, ErrDomain)
		}
		return bigmath.Interval{Lo: bigmath.Log(x.Lo, w).Lo, Hi: bigmath.Log(x.Hi, w).Hi}, nil
	case "exp":
		lo, s1 := bigmath.Exp(x.Lo, w)
		hi, s2 := bigmath.Exp(x.Hi, w)
		if s1 == bigmath.Overflow || s2 == bigmath.Overflow {
			return x, fmt.Errorf("%v: %w", e, ErrOverflow)
		}
		return bigmath.Interval{Lo: lo.Lo, Hi: hi.Hi}, nil
	}
	return x, fmt.Errorf("numeric: unknown expression operator %q", n.op)
}

// encloseTrig encloses sin or cos of the argument x. An enclosure of x of
// relative width 2^-(w+g) puts an absolute error of about |x|·2^-(w+g) on
// the result (the derivative is at most 1 in magnitude), so the guard bits
// g start at 8 + log2|x|; and near a zero of the function (sin(355/113),
// 355/113 being within 3·10^-7 of π) that error is large relative to the
// result, so g doubles until the result is narrow relative to itself, up
// to a cap past which the wider enclosure, still certified, is returned:
// sin(pi) is 0 and never gets narrow relative to itself.
func (e Expr) encloseTrig(w uint) (bigmath.Interval, error) {
	f := bigmath.ISin
	if e.n.op == "cos" {
		f = bigmath.ICos
	}
	g := uint(8)
	x, err := e.n.args[0].enclose(w + g)
	if err != nil {
		return x, err
	}
	if m := x.MagHi(); !m.IsInf() && m.Sign() != 0 {
		if ex := m.MantExp(nil); ex > 0 && ex <= bigmath.TrigMaxExp {
			g += uint(ex)
			if x, err = e.n.args[0].enclose(w + g); err != nil {
				return x, err
			}
		}
	}
	limit := 2*w + g + 64
	for {
		r := f(x, w)
		if r.RelNarrow(int(w)-3) || g >= limit {
			return r, nil
		}
		g *= 2
		if x, err = e.n.args[0].enclose(w + g); err != nil {
			return x, err
		}
	}
}

// Enclose returns rationals lo ≤ hi such that the exact real value of e
// lies in [lo, hi]: a certified enclosure, computed by interval arithmetic
// with directed rounding, with endpoints of about bits significant bits
// (bits below 2 count as 2). For a rational e (see Rat), lo = hi = e
// exactly. The enclosure is a few ulps wide for the expressions of the
// constructions, wider where e cancels (1e-30 + pi - pi). An expression
// without a real value gives an error wrapping ErrDivByZero or ErrDomain,
// one beyond big.Float's range ErrOverflow.
func (e Expr) Enclose(bits uint) (lo, hi *big.Rat, err error) {
	if r, ok, err := e.Rat(); err != nil {
		return nil, nil, err
	} else if ok {
		return r, new(big.Rat).Set(r), nil
	}
	iv, err := e.enclose(max(bits, 2))
	if err != nil {
		return nil, nil, err
	}
	// An infinite end (an overflow) has no rational value.
	if iv.Lo.IsInf() || iv.Hi.IsInf() {
		return nil, nil, fmt.Errorf("%v: %w", e, ErrOverflow)
	}
	// big.Float's exponents reach ±2^31, far past what a big.Rat can
	// hold: an end beyond 2^maxEncloseExp is an overflow, and one below
	// 2^-maxEncloseExp in magnitude is widened outward to 0 or ±2^-maxEncloseExp,
	// which still encloses e.
	for _, end := range []*big.Float{iv.Lo, iv.Hi} {
		if end.MantExp(nil) > maxEncloseExp {
			return nil, nil, fmt.Errorf("%v: %w", e, ErrOverflow)
		}
	}
	tiny := new(big.Rat).SetFrac(big.NewInt(1), new(big.Int).Lsh(big.NewInt(1), maxEncloseExp))
	rat := func(end *big.Float, up bool) *big.Rat {
		if end.Sign() == 0 || end.MantExp(nil) >= -maxEncloseExp {
			r, _ := end.Rat(nil)
			return r
		}
		switch {
		case up && end.Sign() > 0:
			return new(big.Rat).Set(tiny)
		case !up && end.Sign() < 0:
			return new(big.Rat).Neg(tiny)
		}
		return new(big.Rat)
	}
	return rat(iv.Lo, false), rat(iv.Hi, true), nil
}

// maxEncloseExp bounds the binary exponents of the rational ends Enclose
// returns (a megabit each).
const maxEncloseExp = 1 << 20
