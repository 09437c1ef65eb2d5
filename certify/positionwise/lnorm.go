package positionwise

import (
	"math/big"

	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/model/eval"
	"github.com/transformer-cookbook/verify/numeric"
)

// The layer norm rule. A pre-norm of a feed-forward sublayer (mean,
// deviations, variance, square root, division, γ, β, after the
// selection W^N) is followed only where its operands are one known
// vector on the whole box: then the format's result is the runner's own
// layer norm on that vector (eval.Steps.SublayerInput: the code Run runs,
// in its order), computed once, and the construction's is the exact
// layer norm of it, where the square root is rational. Elsewhere its
// output is unknown (top). See the package documentation for why the
// operands are one vector.

// normRunner is the runner's pre-norm of layer l on one stream vector.
type normRunner func(l int, h []*big.Rat) ([]*big.Rat, error)

type normVisitor struct {
	m *model.Model
	f normRunner
}

func newNormRunner(p numeric.Precision, m *model.Model) (normRunner, error) {
	v := &normVisitor{m: m}
	if err := numeric.Visit(p, v); err != nil {
		return nil, err
	}
	return v.f, nil
}

func normWith[T any](v *normVisitor, b numeric.Backend[T]) error {
	inst, err := eval.Instantiate(b, v.m)
	if err != nil {
		return err
	}
	st := inst.Steps()
	v.f = func(l int, h []*big.Rat) ([]*big.Rat, error) {
		x := make([]T, len(h))
		for k := range h {
			x[k] = b.SetRat(b.New(), h[k])
		}
		y, err := st.SublayerInput(l, false, x)
		if err != nil {
			return nil, err
		}
		out := make([]*big.Rat, len(y))
		for k := range y {
			if out[k], err = b.Rat(y[k]); err != nil {
				return nil, err
			}
		}
		return out, nil
	}
	return nil
}

func (v *normVisitor) Rat(b numeric.Backend[*big.Rat]) error               { return normWith(v, b) }
func (v *normVisitor) BigFloat(b numeric.Backend[*big.Float]) error        { return normWith(v, b) }
func (v *normVisitor) Float64(b numeric.Backend[float64]) error            { return normWith(v, b) }
func (v *normVisitor) Float32(b numeric.Backend[float32]) error            { return normWith(v, b) }
func (v *normVisitor) Interval(b numeric.Backend[*numeric.Interval]) error { return normWith(v, b) }

func (p *program) hasNorm() bool {
	for _, L := range p.layers {
		if L.norm != nil {
			return true
		}
	}
	return false
}

// opaque reports whether some operation of p is not followed (an opaque
// activation or an irrational parameter): no box through it is proved,
// and the fast evaluator, which has neither, does not run.
func (p *program) opaque() bool {
	unknown := func(ws []weight) bool {
		for _, w := range ws {
			if w.unknown {
				return true
			}
		}
		return false
	}
	for _, L := range p.layers {
		if L.opaque || unknown(L.w1.w) || unknown(L.w2.w) || unknown(L.b1) || unknown(L.b2) {
			return true
		}
	}
	return unknown(p.out.w)
}

func exprRat(e numeric.Expr) (*big.Rat, bool) {
	r, ok, err := e.Rat()
	return r, ok && err == nil
}

// ratSqrt is √r when it is rational.
func ratSqrt(r *big.Rat) (*big.Rat, bool) {
	if r.Sign() < 0 {
		return nil, false
	}
	n, d := new(big.Int).Sqrt(r.Num()), new(big.Int).Sqrt(r.Denom())
	if new(big.Int).Mul(n, n).Cmp(r.Num()) != 0 || new(big.Int).Mul(d, d).Cmp(r.Denom()) != 0 {
		return nil, false
	}
	return new(big.Rat).SetFrac(n, d), true
}

// exactNorm is the construction's layer norm of h in exact arithmetic
// (false: irrational, or σ² + ε = 0).
func exactNorm(ln *model.LayerNorm, h []*big.Rat) ([]*big.Rat, bool) {
	x := h
	if ln.Select != nil {
		x = make([]*big.Rat, ln.Select.Rows)
		for r := range x {
			x[r] = new(big.Rat)
			for c := 0; c < ln.Select.Cols; c++ {
				w, ok := exprRat(ln.Select.At(r, c))
				if !ok {
					return nil, false
				}
				x[r].Add(x[r], new(big.Rat).Mul(w, h[c]))
			}
		}
	}
	d := big.NewRat(int64(len(x)), 1)
	mu := new(big.Rat)
	for _, v := range x {
		mu.Add(mu, v)
	}
	mu.Quo(mu, d)
	variance := new(big.Rat)
	centred := make([]*big.Rat, len(x))
	for k, v := range x {
		centred[k] = new(big.Rat).Sub(v, mu)
		variance.Add(variance, new(big.Rat).Mul(centred[k], centred[k]))
	}
	variance.Quo(variance, d)
	if !ln.Eps.IsZero() {
		e, ok := exprRat(ln.Eps)
		if !ok {
			return nil, false
		}
		variance.Add(variance, e)
	}
	sigma, ok := ratSqrt(variance)
	if !ok || sigma.Sign() == 0 {
		return nil, false
	}
	out := make([]*big.Rat, len(x))
	for k := range x {
		out[k] = new(big.Rat).Quo(centred[k], sigma)
		if ln.Gamma != nil {
			g, ok := exprRat(ln.Gamma[k])
			if !ok {
				return nil, false
			}
			out[k].Mul(out[k], g)
		}
		if ln.Beta != nil {
			b, ok := exprRat(ln.Beta[k])
			if !ok {
				return nil, false
			}
			out[k].Add(out[k], b)
		}
	}
	return out, true
}

// exactStream is the construction's stream before program layer j at
// the input x, in exact arithmetic (false: a layer norm on the way is
// irrational).
func (s *search) exactStream(j int, x []*big.Rat) ([]*big.Rat, bool) {
	p := s.prog
	h := make([]*big.Rat, p.d)
	for c := range h {
		h[c] = new(big.Rat)
	}
	for k, c := range s.pr.Inputs {
		h[c] = x[k]
	}
	mv := func(w matrix, x []*big.Rat, b []weight) []*big.Rat {
		out := make([]*big.Rat, w.rows)
		if unknownIn(w.w) || unknownIn(b) {
			return nil
		}
		for r := range out {
			out[r] = new(big.Rat)
			for c := 0; c < w.cols; c++ {
				out[r].Add(out[r], new(big.Rat).Mul(w.w[r*w.cols+c].exact, x[c]))
			}
			if b != nil {
				out[r].Add(out[r], b[r].exact)
			}
		}
		return out
	}
	for _, L := range p.layers[:j] {
		in := h
		if L.norm != nil {
			var ok bool
			if in, ok = exactNorm(L.norm, h); !ok {
				return nil, false
			}
		}
		hidden := mv(L.w1, in, L.b1)
		if hidden == nil || L.opaque {
			return nil, false
		}
		if L.relu {
			for k, v := range hidden {
				if v.Sign() < 0 {
					hidden[k] = new(big.Rat)
				}
			}
		}
		f := mv(L.w2, hidden, L.b2)
		if f == nil {
			return nil, false
		}
		if L.residual {
			for c := range f {
				f[c].Add(f[c], h[c])
			}
		}
		h = f
	}
	return h, true
}

// normPoint is the layer norm rule at program layer j on the box lo … hi
// (the inputs' end values): the stream before it is known by top and
// exact of each component, and affine says every ReLU so far is decided
// in the construction on the box. It returns the format's layer norm and
// the construction's (nil: irrational), or false where the rule does not
// apply.
func (s *search) normPoint(j int, top, exact []bool, affine bool, lo, hi []*big.Rat) (fv, ev []*big.Rat, ok bool) {
	if !affine && mutation != "norm-not-affine" || s.normRun == nil || mutation == "norm-top" {
		return nil, nil, false
	}
	L := s.prog.layers[j]
	reads := L.norm.Reads(s.prog.d)
	for c := range top {
		if top[c] || reads[c] && !exact[c] {
			return nil, nil, false
		}
	}
	v, ok := s.exactStream(j, lo)
	if !ok {
		return nil, nil, false
	}
	for k := range lo {
		if lo[k].Cmp(hi[k]) == 0 {
			continue
		}
		x := append([]*big.Rat(nil), lo...)
		x[k] = hi[k]
		w, ok := s.exactStream(j, x)
		if !ok {
			return nil, nil, false
		}
		for c := range v {
			if reads[c] && v[c].Cmp(w[c]) != 0 && mutation != "norm-not-constant" {
				return nil, nil, false
			}
		}
	}
	for c := range v {
		if !reads[c] {
			v[c] = new(big.Rat)
		}
	}
	fv, err := s.normRun(L.index, v)
	if err != nil {
		return nil, nil, false
	}
	ev, _ = exactNorm(L.norm, v)
	return fv, ev, true
}

// normFloat is the rule on the float64 path's values.
func (s *search) normFloat(lo, hi []*big.Rat) func(j int, h []aval, affine bool) []aval {
	return func(j int, h []aval, affine bool) []aval {
		top, exact := make([]bool, len(h)), make([]bool, len(h))
		for c, a := range h {
			top[c], exact[c] = a.top, a.exact
		}
		fv, ev, ok := s.normPoint(j, top, exact, affine, lo, hi)
		out := make([]aval, s.prog.layers[j].w1.cols)
		for k := range out {
			out[k] = topVal
			if !ok || k >= len(fv) || ev == nil {
				continue
			}
			out[k] = newWeight(ev[k], fv[k]).constant()
		}
		return out
	}
}

// normWide is the rule on the wide grid's values.
func (s *search) normWide(lo, hi []*big.Rat) func(j int, h []wval, affine bool) []wval {
	return func(j int, h []wval, affine bool) []wval {
		top, exact := make([]bool, len(h)), make([]bool, len(h))
		for c, a := range h {
			top[c], exact[c] = a.top, a.exact
		}
		fv, ev, ok := s.normPoint(j, top, exact, affine, lo, hi)
		out := make([]wval, s.prog.layers[j].w1.cols)
		for k := range out {
			out[k] = wtop
			if !ok || k >= len(fv) || ev == nil {
				continue
			}
			out[k] = newWweight(newWeight(ev[k], fv[k])).constant()
		}
		return out
	}
}

func unknownIn(ws []weight) bool {
	for _, w := range ws {
		if w.unknown {
			return true
		}
	}
	return false
}
