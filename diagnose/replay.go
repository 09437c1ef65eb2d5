package diagnose

import (
	"fmt"
	"math"
	"math/big"

	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/model/eval"
	"github.com/transformer-cookbook/verify/numeric"
)

// sparseMatrix is a matrix of exact weights, each row listing its
// nonzero entries.
type sparseMatrix [][]sparseEntry

type sparseEntry struct {
	col int
	val *big.Rat
}

// weight is the value of a parameter: exact when rational; otherwise,
// against a floating-point reference, an approximation at the
// reference's precision (ok false against an exact one, which cannot
// arise, since exact arithmetic refuses irrational weights).
func (d *diagnosis) weight(e numeric.Expr) (*big.Rat, bool) {
	r, ok, err := e.Rat()
	if err != nil {
		return nil, false
	}
	if ok {
		return r, true
	}
	if !d.approx {
		return nil, false
	}
	lo, hi, err := e.Enclose(uint(d.refBits + 16))
	if err != nil {
		return nil, false
	}
	mid := new(big.Rat).Add(lo, hi)
	return mid.Quo(mid, big.NewRat(2, 1)), true
}

func (d *diagnosis) sparse(m model.Matrix) (sparseMatrix, bool) {
	out := make(sparseMatrix, m.Rows)
	for r := 0; r < m.Rows; r++ {
		for c := 0; c < m.Cols; c++ {
			e := m.At(r, c)
			if e.IsZero() {
				continue
			}
			v, ok := d.weight(e)
			if !ok {
				return nil, false
			}
			if v.Sign() != 0 {
				out[r] = append(out[r], sparseEntry{c, v})
			}
		}
	}
	return out, true
}

// cols marks the columns of w's nonzero entries (of n columns).
func (w sparseMatrix) cols(n int) []bool {
	out := make([]bool, n)
	for _, row := range w {
		for _, e := range row {
			out[e.col] = true
		}
	}
	return out
}

// apply returns W x, with nil for the zero entries.
func (w sparseMatrix) apply(x []*big.Rat) []*big.Rat {
	out := make([]*big.Rat, len(w))
	t := new(big.Rat)
	for r, row := range w {
		for _, e := range row {
			if x[e.col].Sign() == 0 {
				continue
			}
			t.Mul(e.val, x[e.col])
			if out[r] == nil {
				out[r] = new(big.Rat).Set(t)
			} else {
				out[r].Add(out[r], t)
			}
		}
	}
	return out
}

// roundWeights rounds exact weights to the format, keeping the zero
// entries' places, and logs into steps the weights it changes (false if
// one overflows).
func (d *diagnosis) roundWeights(w sparseMatrix, name string, steps *[]string) (sparseMatrix, bool) {
	out := make(sparseMatrix, len(w))
	for r, row := range w {
		for _, e := range row {
			v, ok := d.roundRat(e.val)
			if !ok {
				return nil, false
			}
			if v.Cmp(e.val) != 0 {
				*steps = append(*steps, fmt.Sprintf("%s[%d][%d] = %s rounds to %s", name, r+1, e.col+1, numText(e.val), numText(v)))
			}
			if v.Sign() != 0 {
				out[r] = append(out[r], sparseEntry{e.col, v})
			}
		}
	}
	return out, true
}

// formatConst is a constant as the format holds it, rounded once (false
// if it overflows, or if the reference's enclosure of an irrational one
// does not decide its rounding).
func (d *diagnosis) formatConst(e numeric.Expr) (*big.Rat, bool) {
	if r, ok, err := e.Rat(); err != nil {
		return nil, false
	} else if ok {
		return d.roundRat(r)
	}
	lo, hi, err := e.Enclose(uint(d.refBits + 16))
	if err != nil {
		return nil, false
	}
	a, ok1 := d.roundRat(lo)
	b, ok2 := d.roundRat(hi)
	if !ok1 || !ok2 || a.Cmp(b) != 0 {
		return nil, false
	}
	return a, true
}

// roundRat is the format's value of x, rounded once to nearest, ties to
// even, as every operation of the backends rounds; false when x is
// beyond the format's range.
func (d *diagnosis) roundRat(x *big.Rat) (*big.Rat, bool) {
	if f := d.prec.Format; f != nil {
		v := f.RoundRat(x)
		if math.IsInf(v, 0) || math.IsNaN(v) {
			return nil, false
		}
		return new(big.Rat).SetFloat64(v), true
	}
	if d.prec.Kind == numeric.KindBigFloat {
		r, _ := new(big.Float).SetPrec(d.prec.Bits).SetMode(big.ToNearestEven).SetRat(x).Rat(nil)
		return r, true
	}
	return d.runner.Round(x).Rat()
}

// replay computes as the format does: each operation's exact result,
// from operands the format holds, rounded once, which is what the
// backends compute. With keep it logs the operations that rounded; over
// is the first that left the format's range (its result then stays
// exact).
type replay struct {
	d    *diagnosis
	keep bool
	log  []string
	over string
}

func (r *replay) op(exact *big.Rat, what func() string) *big.Rat {
	v, ok := r.d.roundRat(exact)
	if !ok {
		if r.over == "" {
			r.over = what()
		}
		return exact
	}
	if r.keep && v.Cmp(exact) != 0 {
		r.log = append(r.log, what()+" rounds to "+numText(v))
	}
	return v
}

// paren prints a factor or an addend, negative ones in parentheses.
func paren(x *big.Rat) string {
	if x.Sign() < 0 {
		return "(" + numText(x) + ")"
	}
	return numText(x)
}

// matVec is W x as model's matVec computes it (w as the format holds it,
// x as the format holds it, no bias): in each row the products left to
// right, each rounded, and each partial sum rounded; zero terms, which
// change nothing, are skipped. row names the rows.
func (r *replay) matVec(w sparseMatrix, name string, x []*big.Rat, row func(int) string) []*big.Rat {
	out := make([]*big.Rat, len(w))
	for ri, entries := range w {
		var acc *big.Rat
		for _, e := range entries {
			xc := x[e.col]
			if xc.Sign() == 0 {
				continue
			}
			exact := new(big.Rat).Mul(e.val, xc)
			p := r.op(exact, func() string {
				return fmt.Sprintf("in %s, the product %s[%d][%d]·%s = %s × %s = %s", row(ri), name, ri+1, e.col+1, r.d.component(e.col), numText(e.val), paren(xc), numText(exact))
			})
			if acc == nil {
				acc = p
				continue
			}
			sum, a := new(big.Rat).Add(acc, p), acc
			acc = r.op(sum, func() string {
				return fmt.Sprintf("in %s, the sum %s + %s = %s", row(ri), numText(a), paren(p), numText(sum))
			})
		}
		if acc == nil {
			acc = new(big.Rat)
		}
		out[ri] = acc
	}
	return out
}

// score is the score of key j, q·k as model's dot computes it (left to
// right, each product and partial sum rounded), then divided by √d_key
// and by τ, each division rounded.
func (r *replay) score(q, k []*big.Rat, j int, sqrtF, tempF *big.Rat) *big.Rat {
	name := fmt.Sprintf("q·k of j = %d", j+1)
	var acc *big.Rat
	for c := range q {
		if q[c].Sign() == 0 || k[c].Sign() == 0 {
			continue
		}
		exact := new(big.Rat).Mul(q[c], k[c])
		p := r.op(exact, func() string {
			return fmt.Sprintf("in %s, the product q_%d·k_%d = %s × %s = %s", name, c+1, c+1, numText(q[c]), paren(k[c]), numText(exact))
		})
		if acc == nil {
			acc = p
			continue
		}
		sum, a := new(big.Rat).Add(acc, p), acc
		acc = r.op(sum, func() string {
			return fmt.Sprintf("in %s, the partial sum up to component %d, %s + %s = %s,", name, c+1, numText(a), paren(p), numText(sum))
		})
	}
	if acc == nil {
		acc = new(big.Rat)
	}
	for _, div := range []struct {
		by   *big.Rat
		name string
	}{{sqrtF, "√d_key"}, {tempF, "τ"}} {
		if div.by == nil {
			continue
		}
		exact, a := new(big.Rat).Quo(acc, div.by), acc
		acc = r.op(exact, func() string {
			return fmt.Sprintf("the score of j = %d divided by %s, %s / %s = %s,", j+1, div.name, numText(a), numText(div.by), numText(exact))
		})
	}
	return acc
}

// exactRows returns W x + b exactly.
func exactRows(w sparseMatrix, b []*big.Rat, x []*big.Rat) []*big.Rat {
	out := make([]*big.Rat, len(w))
	t := new(big.Rat)
	for r, row := range w {
		acc := new(big.Rat)
		for _, e := range row {
			acc.Add(acc, t.Mul(e.val, x[e.col]))
		}
		out[r] = acc.Add(acc, b[r])
	}
	return out
}

// replayRows returns W x + b computed as the format computes it (w and b
// already rounded to it, x held by it): each product rounded, the sum
// rounded after each addition, left to right, the bias last. Zero terms
// are skipped (adding 0 changes no value). events[r] is the first
// addition in row r that came out as the sum so far although the addend
// was not zero.
func (d *diagnosis) replayRows(w sparseMatrix, b []*big.Rat, x []*big.Rat, input func(int) string) (out []*big.Rat, events []*absorption, overs []string) {
	out = make([]*big.Rat, len(w))
	events = make([]*absorption, len(w))
	overs = make([]string, len(w))
	for r, row := range w {
		acc := new(big.Rat)
		add := func(t *big.Rat, col int, weight, xv *big.Rat) {
			if t.Sign() == 0 {
				return
			}
			exact := new(big.Rat).Add(acc, t)
			if overs[r] == "" && d.overflows(exact) {
				overs[r] = fmt.Sprintf("the partial sum %s", numText(exact))
			}
			sum := d.round(exact)
			if acc.Sign() != 0 && sum.Cmp(acc) == 0 && events[r] == nil {
				events[r] = &absorption{acc: new(big.Rat).Set(acc), t: new(big.Rat).Set(t), col: col, weight: weight, x: xv}
			}
			acc = sum
		}
		for _, e := range row {
			if x[e.col] == nil || x[e.col].Sign() == 0 {
				continue
			}
			p := new(big.Rat).Mul(e.val, x[e.col])
			if overs[r] == "" && d.overflows(p) {
				overs[r] = fmt.Sprintf("the product of %s = %s by the weight %s, %s,", input(e.col), numText(x[e.col]), numText(e.val), numText(p))
			}
			add(d.round(p), e.col, e.val, x[e.col])
		}
		add(b[r], -1, nil, nil)
		out[r] = acc
	}
	return out, events, overs
}

// round is the format's value of x; a value that overflows is left
// exact (the overflow check reports it).
func (d *diagnosis) round(x *big.Rat) *big.Rat {
	if r, ok := d.roundRat(x); ok {
		return r
	}
	return x
}

// vector returns an exact parameter vector of length n (nil: zeros).
func (d *diagnosis) vector(v model.Vector, n int) ([]*big.Rat, bool) {
	out := make([]*big.Rat, n)
	for k := range out {
		out[k] = new(big.Rat)
		if v == nil || v[k].IsZero() {
			continue
		}
		x, ok := d.weight(v[k])
		if !ok {
			return nil, false
		}
		out[k] = x
	}
	return out, true
}

// roundMatrix rounds every weight to the format (nil if one overflows).
func (d *diagnosis) roundMatrix(w sparseMatrix) sparseMatrix {
	out := make(sparseMatrix, len(w))
	for r, row := range w {
		for _, e := range row {
			v, ok := d.runner.Round(e.val).Rat()
			if !ok {
				return nil
			}
			if v.Sign() != 0 {
				out[r] = append(out[r], sparseEntry{e.col, v})
			}
		}
	}
	return out
}

// roundVector rounds every entry to the format (nil if one overflows).
func (d *diagnosis) roundVector(v []*big.Rat) []*big.Rat {
	out := make([]*big.Rat, len(v))
	for k, x := range v {
		r, ok := d.runner.Round(x).Rat()
		if !ok {
			return nil
		}
		out[k] = r
	}
	return out
}

// ratVector returns the points of a traced vector (false if one is not
// a finite point).
func (d *diagnosis) ratVector(vs []eval.Value) ([]*big.Rat, bool) {
	out := make([]*big.Rat, len(vs))
	for c, v := range vs {
		r, ok := v.Rat()
		if !ok {
			return nil, false
		}
		out[c] = r
	}
	return out, true
}
