package numeric

import (
	"errors"
	"fmt"
	"math/big"

	"github.com/google/go-cmp/cmp"
	"github.com/leanovate/gopter"
)

// The BigFloat backend.

// bigPrecs are the BigFloat and Interval precisions under test: the tiny
// ones, where every operation rounds and ties are common, and the IEEE
// significand widths.
var bigPrecs = []uint{2, 3, 11, 24, 53, 113}

type bigCase struct {
	p uint
	b BigFloat
	g arithGrid
}

func newBigCase(p uint) bigCase { return bigCase{p: p, b: NewBigFloat(p), g: unboundedGrid(int(p))} }

// nearest is the oracle: big.Float.SetRat rounds once, to nearest even.
func (c bigCase) nearest(r *big.Rat) *big.Float {
	return new(big.Float).SetPrec(c.p).SetMode(big.ToNearestEven).SetRat(r)
}

func (c bigCase) fromRat(r *big.Rat) *big.Float {
	f := c.nearest(r)
	if f.Acc() != big.Exact {
		panic(fmt.Sprintf("%v is not a %d-bit value", r, c.p))
	}
	return f
}

// genBigFloat generates p-bit values (precision p, nearest-even mode, as
// the backend's own values have), shrinking to simpler p-bit values.
func genBigFloat(c bigCase) gopter.Gen {
	edges := c.g.edgeValues()
	shrinker := func(v interface{}) gopter.Shrink {
		var out []interface{}
		for _, s := range c.shrinkValue(v.(*big.Float)) {
			out = append(out, s)
		}
		return sliceShrink(out)
	}
	return func(p *gopter.GenParameters) *gopter.GenResult {
		return gopter.NewGenResult(c.fromRat(genGridRat(p, c.g, edges)), shrinker)
	}
}

func (c bigCase) shrinkValue(x *big.Float) []*big.Float {
	var out []*big.Float
	for _, s := range shrinkRats(mustRat(x)) {
		if c.g.contains(s) {
			out = append(out, c.fromRat(s))
		}
	}
	return out
}

// bigPair is a pair of BigFloat operands, drawn together like ieeePair.
type bigPair struct{ X, Y *big.Float }

func (pr bigPair) String() string {
	return fmt.Sprintf("(%s, %s)", pr.X.Text('p', 0), pr.Y.Text('p', 0))
}

func genBigPair(c bigCase) gopter.Gen {
	edges := c.g.edgeValues()
	shrinker := func(v interface{}) gopter.Shrink {
		pr := v.(bigPair)
		var out []interface{}
		for _, s := range c.shrinkValue(pr.X) {
			out = append(out, bigPair{s, pr.Y})
		}
		for _, s := range c.shrinkValue(pr.Y) {
			out = append(out, bigPair{pr.X, s})
		}
		return sliceShrink(out)
	}
	return func(p *gopter.GenParameters) *gopter.GenResult {
		x := genGridRat(p, c.g, edges)
		var y *big.Rat
		if p.Rng.Intn(2) == 0 {
			y = genGridRat(p, c.g, edges)
		} else {
			y = partner(p, c.g, x)
			if p.Rng.Intn(2) == 0 {
				x, y = y, x
			}
		}
		return gopter.NewGenResult(bigPair{c.fromRat(x), c.fromRat(y)}, shrinker)
	}
}

// dirtyZ is a destination with another precision, mode and value: a
// backend must not let any of them leak into the result.
func dirtyZ() *big.Float { return new(big.Float).SetPrec(7).SetMode(big.ToZero).SetInt64(-99) }

func (c bigCase) call(op string, z, x, y *big.Float) (*big.Float, error) {
	switch op {
	case "add":
		return c.b.Add(z, x, y), nil
	case "sub":
		return c.b.Sub(z, x, y), nil
	case "mul":
		return c.b.Mul(z, x, y), nil
	case "div":
		return c.b.Div(z, x, y)
	case "sqrt":
		return c.b.Sqrt(z, x)
	case "neg":
		return c.b.Neg(z, x), nil
	case "abs":
		return c.b.Abs(z, x), nil
	}
	panic("unknown op " + op)
}

// check checks op on x (and y for binary ops) with three destinations: nil,
// a dirty one, and x itself (math/big-style aliasing). The result must be
// the exact result rounded by big.Float.SetRat (for sqrt: pass
// sqrtRoundedOK), with precision p and mode ToNearestEven; x/0 and √(x<0)
// must fail with ErrDivByZero and ErrDomain; operands other than z must be
// left alone.
func (c bigCase) check(op string, x, y *big.Float) string {
	rx, err := c.b.Rat(x)
	if err != nil {
		return fmt.Sprintf("%d-bit Rat(%v): %v", c.p, x, err)
	}
	ry := new(big.Rat)
	if y != nil {
		if ry, err = c.b.Rat(y); err != nil {
			return fmt.Sprintf("%d-bit Rat(%v): %v", c.p, y, err)
		}
	}
	var exact *big.Rat // nil for sqrt, whose root is checked by sqrtRoundedOK
	var wantErr error
	switch op {
	case "add":
		exact = ratSum(rx, ry)
	case "sub":
		exact = ratDiff(rx, ry)
	case "mul":
		exact = ratProd(rx, ry)
	case "div":
		if ry.Sign() == 0 {
			wantErr = ErrDivByZero
		} else {
			exact = ratQuo(rx, ry)
		}
	case "sqrt":
		if rx.Sign() < 0 {
			wantErr = ErrDomain
		}
	case "neg":
		exact = ratNeg(rx)
	case "abs":
		exact = ratAbs(rx)
	}
	var want *big.Float
	if exact != nil {
		want = c.nearest(exact)
	}
	args := x.Text('p', 0)
	if y != nil {
		args += ", " + y.Text('p', 0)
	}
	for v, where := range []string{"z = nil", "z of another precision and mode", "z aliasing the first operand"} {
		xc := new(big.Float).Copy(x)
		var yc *big.Float
		if y != nil {
			yc = new(big.Float).Copy(y)
		}
		var z *big.Float
		switch v {
		case 1:
			z = dirtyZ()
		case 2:
			z = xc
		}
		got, err := c.call(op, z, xc, yc)
		if wantErr != nil {
			var oe *OpError
			if !errors.Is(err, wantErr) || !errors.As(err, &oe) || oe.Op != op {
				return fmt.Sprintf("%d-bit %s(%s) [%s]: error %v, want an *OpError for %s wrapping %v", c.p, op, args, where, err, op, wantErr)
			}
			continue
		}
		if err != nil || got == nil {
			return fmt.Sprintf("%d-bit %s(%s) [%s]: %v, %v", c.p, op, args, where, got, err)
		}
		if want != nil {
			if d := cmp.Diff(want, got, bigFloatEqual); d != "" {
				return fmt.Sprintf("%d-bit %s(%s) [%s] = %s (prec %d, %v), want %s (exact %s)",
					c.p, op, args, where, got.Text('p', 0), got.Prec(), got.Mode(), want.Text('p', 0), ratStr(exact))
			}
		} else { // sqrt
			if got.Prec() != c.p || got.Mode() != big.ToNearestEven {
				return fmt.Sprintf("%d-bit sqrt(%s) [%s] has precision %d and mode %v", c.p, args, where, got.Prec(), got.Mode())
			}
			gr, _ := got.Rat(nil)
			if rx.Sign() == 0 {
				if gr.Sign() != 0 {
					return fmt.Sprintf("%d-bit sqrt(0) [%s] = %s", c.p, where, got.Text('p', 0))
				}
			} else if msg := sqrtRoundedOK(rx, gr, int(c.p)); msg != "" {
				return fmt.Sprintf("%d-bit sqrt [%s]: %s", c.p, where, msg)
			}
		}
		if v != 2 && xc.Cmp(x) != 0 {
			return fmt.Sprintf("%d-bit %s(%s) [%s] modified its first operand to %v", c.p, op, args, where, xc)
		}
		if yc != nil && yc.Cmp(y) != 0 {
			return fmt.Sprintf("%d-bit %s(%s) [%s] modified its second operand to %v", c.p, op, args, where, yc)
		}
	}
	return ""
}

func mustRat(x *big.Float) *big.Rat {
	r, _ := x.Rat(nil)
	return r
}
