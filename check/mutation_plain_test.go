package check_test

import (
	"errors"
	"fmt"
	"math/big"

	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/numeric"
	"github.com/transformer-cookbook/verify/recipes"
)

// The mutation test's own forward pass. It reads a model.Model's
// parameters and computes the transformer the paper defines, in exact
// rationals, whole input by whole input: no backend, instance, prefix
// runner or comparison of the engine is used, so that a mutant it calls
// wrong is wrong by a computation the checker under test had no part in.
// It computes only what has an exact rational value: hard attention,
// ReLU and linear feed-forward layers, layer norms whose square root is
// rational, and readout, sign and argmax outputs. Anything else (softmax,
// GELU, an irrational weight or square root) is errInexpressible, and the
// verdict is left undecided rather than approximated.

// errInexpressible: the value has no exact rational computation here.
var errInexpressible = errors.New("not computable in exact rationals")

// errUndefined: the model has no output on the input (a layer norm of a
// constant vector with ε = 0), which is a wrong output, not an
// inexpressible one.
var errUndefined = errors.New("the model's output is undefined")

// ratMat is a matrix of exact weights, by row: each row's nonzero
// entries with their columns (routed matrices are mostly zeros).
type ratMat struct {
	rows, cols int
	nz         [][]entry
}

type entry struct {
	col int
	w   *big.Rat
}

// at is entry (r, c), 0 where none is stored.
func (m ratMat) at(r, c int) *big.Rat {
	for _, e := range m.nz[r] {
		if e.col == c {
			return e.w
		}
	}
	return new(big.Rat)
}

type plainNorm struct {
	eps         *big.Rat
	gamma, beta []*big.Rat // nil: ones, zeros
	sel         *ratMat
}

type plainHead struct{ q, k, v ratMat }

type plainAttention struct {
	heads []plainHead
	mask  model.Mask
	w     model.Weighting
}

type plainFF struct {
	w1, w2 ratMat
	b1, b2 []*big.Rat
	relu   bool
}

type plainLayer struct {
	attn             *plainAttention
	ff               *plainFF
	attnNorm, ffNorm *plainNorm
	attnRes, ffRes   bool
}

type plainModel struct {
	m      *model.Model
	rs     rats
	we     [][]*big.Rat
	layers []plainLayer
	final  *plainNorm
	out    ratMat
}

// plainOut is the output at one position: the decision (Sign, Argmax)
// and the values W h.
type plainOut struct {
	symbol string
	values []*big.Rat
}

// rats evaluates weights, each once: a mutant shares every weight but
// one with the model it was made from. Position encodings, whose
// function builds new expressions at every call, are kept by (i, n)
// instead: no mutation changes them.
type rats struct {
	vals map[numeric.Expr]*big.Rat
	pos  map[[2]int][]*big.Rat
}

func newRats() rats {
	return rats{vals: map[numeric.Expr]*big.Rat{}, pos: map[[2]int][]*big.Rat{}}
}

// of returns e's value, which the caller must not modify.
func (rs rats) of(e numeric.Expr) (*big.Rat, error) {
	if r, ok := rs.vals[e]; ok {
		return r, nil
	}
	r, ok, err := e.Rat()
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, fmt.Errorf("%v: %w", e, errInexpressible)
	}
	rs.vals[e] = r
	return r, nil
}

// position returns pe_n(i), which the caller must not modify.
func (rs rats) position(pe *model.PositionEncoding, i, n int) ([]*big.Rat, error) {
	if v, ok := rs.pos[[2]int{i, n}]; ok {
		return v, nil
	}
	var v []*big.Rat
	for _, e := range pe.Vector(i, n) {
		r, ok, err := e.Rat()
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, fmt.Errorf("%v: %w", e, errInexpressible)
		}
		v = append(v, r)
	}
	rs.pos[[2]int{i, n}] = v
	return v, nil
}

func (rs rats) vector(v model.Vector) ([]*big.Rat, error) {
	if v == nil {
		return nil, nil
	}
	out := make([]*big.Rat, len(v))
	for k, e := range v {
		r, err := rs.of(e)
		if err != nil {
			return nil, err
		}
		out[k] = r
	}
	return out, nil
}

func (rs rats) matrix(m model.Matrix) (ratMat, error) {
	out := ratMat{rows: m.Rows, cols: m.Cols, nz: make([][]entry, m.Rows)}
	for k, e := range m.Data {
		if e.IsZero() {
			continue
		}
		r, err := rs.of(e)
		if err != nil {
			return ratMat{}, err
		}
		if r.Sign() != 0 {
			out.nz[k/m.Cols] = append(out.nz[k/m.Cols], entry{k % m.Cols, r})
		}
	}
	return out, nil
}

// apply returns m x + bias (bias may be nil).
func (m ratMat) apply(x, bias []*big.Rat) []*big.Rat {
	out := make([]*big.Rat, m.rows)
	t := new(big.Rat)
	for r := range out {
		acc := new(big.Rat)
		for _, e := range m.nz[r] {
			if x[e.col].Sign() != 0 {
				acc.Add(acc, t.Mul(e.w, x[e.col]))
			}
		}
		if bias != nil {
			acc.Add(acc, bias[r])
		}
		out[r] = acc
	}
	return out
}

func (rs rats) norm(ln *model.LayerNorm) (*plainNorm, error) {
	if ln == nil {
		return nil, nil
	}
	p := &plainNorm{}
	var err error
	if p.eps, err = rs.of(ln.Eps); err != nil {
		return nil, err
	}
	if p.gamma, err = rs.vector(ln.Gamma); err != nil {
		return nil, err
	}
	if p.beta, err = rs.vector(ln.Beta); err != nil {
		return nil, err
	}
	if ln.Select != nil {
		sel, err := rs.matrix(*ln.Select)
		if err != nil {
			return nil, err
		}
		p.sel = &sel
	}
	return p, nil
}

// newPlain reads m's parameters as rationals (through rs, which may be
// shared by models with weights in common), or says why it cannot.
func newPlain(m *model.Model, rs rats) (*plainModel, error) {
	if err := m.Validate(); err != nil {
		return nil, err
	}
	p := &plainModel{m: m, rs: rs}
	for _, v := range m.WordEmbedding {
		r, err := rs.vector(v)
		if err != nil {
			return nil, fmt.Errorf("word embedding: %w", err)
		}
		p.we = append(p.we, r)
	}
	for l, layer := range m.Layers {
		pl := plainLayer{attnRes: !layer.NoAttentionResidual, ffRes: !layer.NoFeedForwardResidual}
		var err error
		if a := layer.Attention; a != nil {
			if a.Weighting == model.Softmax {
				return nil, fmt.Errorf("layer %d: softmax attention: %w", l+1, errInexpressible)
			}
			// τ and √d_key divide every score of a query alike; a
			// positive divisor leaves the maximal scores where they are,
			// which is all a hard weighting reads.
			if !a.Temperature.IsZero() {
				lo, _, err := a.Temperature.Enclose(64)
				if err != nil || lo.Sign() <= 0 {
					return nil, fmt.Errorf("layer %d: temperature %v: %w", l+1, a.Temperature, errInexpressible)
				}
			}
			pa := &plainAttention{mask: a.Mask, w: a.Weighting}
			for _, h := range a.Heads {
				var ph plainHead
				if ph.q, err = rs.matrix(h.Q); err == nil {
					if ph.k, err = rs.matrix(h.K); err == nil {
						ph.v, err = rs.matrix(h.V)
					}
				}
				if err != nil {
					return nil, fmt.Errorf("layer %d attention: %w", l+1, err)
				}
				pa.heads = append(pa.heads, ph)
			}
			pl.attn = pa
		}
		if f := layer.FeedForward; f != nil {
			pf := &plainFF{}
			switch f.Activation {
			case model.ReLU:
				pf.relu = true
			case model.Linear:
			default:
				return nil, fmt.Errorf("layer %d: %s activation: %w", l+1, f.Activation, errInexpressible)
			}
			if pf.w1, err = rs.matrix(f.W1); err == nil {
				if pf.w2, err = rs.matrix(f.W2); err == nil {
					if pf.b1, err = rs.vector(f.B1); err == nil {
						pf.b2, err = rs.vector(f.B2)
					}
				}
			}
			if err != nil {
				return nil, fmt.Errorf("layer %d feed-forward: %w", l+1, err)
			}
			pl.ff = pf
		}
		if m.Norm != model.NoNorm {
			if pl.attnNorm, err = rs.norm(layer.AttentionNorm); err != nil {
				return nil, err
			}
			if pl.ffNorm, err = rs.norm(layer.FeedForwardNorm); err != nil {
				return nil, err
			}
		}
		p.layers = append(p.layers, pl)
	}
	var err error
	if m.Norm == model.PreNorm {
		if p.final, err = rs.norm(m.FinalNorm); err != nil {
			return nil, err
		}
	}
	if m.Output.Kind == model.Distribution {
		return nil, fmt.Errorf("softmax output: %w", errInexpressible)
	}
	if p.out, err = rs.matrix(m.Output.W); err != nil {
		return nil, fmt.Errorf("output: %w", err)
	}
	return p, nil
}

// sees is the paper's masking, written out here rather than read from
// model.Mask.Allows: whether position i may attend to j (1-based).
func sees(mask model.Mask, i, j int) bool {
	switch mask {
	case model.NoMask:
		return true
	case model.Future:
		return j <= i
	case model.StrictFuture:
		return j < i
	case model.Past:
		return j >= i
	case model.StrictPast:
		return j > i
	}
	panic(fmt.Sprintf("mask %d", mask))
}

func dotRat(x, y []*big.Rat) *big.Rat {
	s, t := new(big.Rat), new(big.Rat)
	for k := range x {
		if x[k].Sign() != 0 && y[k].Sign() != 0 {
			s.Add(s, t.Mul(x[k], y[k]))
		}
	}
	return s
}

func zeroVec(d int) []*big.Rat {
	v := make([]*big.Rat, d)
	for k := range v {
		v[k] = new(big.Rat)
	}
	return v
}

// attend is the sum over heads of hardmax-weighted values.
func (a *plainAttention) attend(x [][]*big.Rat, d int) [][]*big.Rat {
	n := len(x)
	out := make([][]*big.Rat, n)
	for i := range out {
		out[i] = zeroVec(d)
	}
	for _, h := range a.heads {
		keys := make([][]*big.Rat, n)
		vals := make([][]*big.Rat, n)
		for j := range x {
			keys[j] = h.k.apply(x[j], nil)
			vals[j] = h.v.apply(x[j], nil)
		}
		for i := range x {
			q := h.q.apply(x[i], nil)
			var best *big.Rat
			var at []int // the positions with the best score, increasing
			for j := range x {
				if !sees(a.mask, i+1, j+1) {
					continue
				}
				s := dotRat(q, keys[j])
				c := 1
				if best != nil {
					c = s.Cmp(best)
				}
				if c > 0 {
					best, at = s, []int{j}
				} else if c == 0 {
					at = append(at, j)
				}
			}
			if len(at) == 0 {
				continue // nothing visible: the head adds 0
			}
			switch a.w {
			case model.LeftHardmax:
				at = at[:1]
			case model.RightHardmax:
				at = at[len(at)-1:]
			}
			share := big.NewRat(1, int64(len(at)))
			t := new(big.Rat)
			for _, j := range at {
				for c := range out[i] {
					out[i][c].Add(out[i][c], t.Mul(share, vals[j][c]))
				}
			}
		}
	}
	return out
}

func (f *plainFF) apply(x []*big.Rat) []*big.Rat {
	h := f.w1.apply(x, f.b1)
	if f.relu {
		for k, z := range h {
			if z.Sign() < 0 {
				h[k] = new(big.Rat)
			}
		}
	}
	return f.w2.apply(h, f.b2)
}

// ratSqrt is √x when it is rational.
func ratSqrt(x *big.Rat) (*big.Rat, error) {
	if x.Sign() < 0 {
		return nil, fmt.Errorf("√%s: %w", x.RatString(), errUndefined)
	}
	num, den := new(big.Int).Sqrt(x.Num()), new(big.Int).Sqrt(x.Denom())
	r := new(big.Rat).SetFrac(num, den)
	if new(big.Rat).Mul(r, r).Cmp(x) != 0 {
		return nil, fmt.Errorf("√%s: %w", x.RatString(), errInexpressible)
	}
	return r, nil
}

// norm is (x − μ)/√(σ² + ε) ⊙ γ + β of W^N x (or of x).
func (p *plainNorm) norm(x []*big.Rat) ([]*big.Rat, error) {
	if p.sel != nil {
		x = p.sel.apply(x, nil)
	}
	d := big.NewRat(int64(len(x)), 1)
	mu := new(big.Rat)
	for _, v := range x {
		mu.Add(mu, v)
	}
	mu.Quo(mu, d)
	centred := make([]*big.Rat, len(x))
	variance := new(big.Rat)
	for k, v := range x {
		centred[k] = new(big.Rat).Sub(v, mu)
		variance.Add(variance, new(big.Rat).Mul(centred[k], centred[k]))
	}
	variance.Quo(variance, d)
	den, err := ratSqrt(variance.Add(variance, p.eps))
	if err != nil {
		return nil, err
	}
	if den.Sign() == 0 {
		return nil, fmt.Errorf("layer norm of a constant vector with ε = 0: %w", errUndefined)
	}
	for k, c := range centred {
		c.Quo(c, den)
		if p.gamma != nil {
			c.Mul(c, p.gamma[k])
		}
		if p.beta != nil {
			c.Add(c, p.beta[k])
		}
	}
	return centred, nil
}

// sublayer is f with its norm and residual placed as the model says.
func (p *plainModel) sublayer(h [][]*big.Rat, ln *plainNorm, residual bool, f func([][]*big.Rat) [][]*big.Rat) ([][]*big.Rat, error) {
	in := h
	if ln != nil && p.m.Norm == model.PreNorm {
		in = make([][]*big.Rat, len(h))
		for i := range h {
			var err error
			if in[i], err = ln.norm(h[i]); err != nil {
				return nil, err
			}
		}
	}
	var out [][]*big.Rat
	if f != nil {
		out = f(in)
	}
	// out is fresh and h is never written: the sum goes into out, and h
	// passes on as it is where the sublayer adds nothing.
	next := make([][]*big.Rat, len(h))
	for i := range h {
		switch {
		case out != nil && residual:
			for c := range out[i] {
				out[i][c].Add(out[i][c], h[i][c])
			}
			next[i] = out[i]
		case out != nil:
			next[i] = out[i]
		case residual:
			next[i] = h[i]
		default:
			next[i] = zeroVec(p.m.D)
		}
		if ln != nil && p.m.Norm == model.PostNorm {
			var err error
			if next[i], err = ln.norm(next[i]); err != nil {
				return nil, err
			}
		}
	}
	return next, nil
}

// run computes the outputs on one input.
func (p *plainModel) run(c recipes.Case) ([]plainOut, error) {
	m := p.m
	var h [][]*big.Rat
	if c.Stream != nil {
		for _, row := range c.Stream {
			if len(row) != m.D {
				return nil, fmt.Errorf("an input of width %d for a stream of width %d", len(row), m.D)
			}
			v := zeroVec(m.D)
			for k, x := range row {
				if x != nil {
					v[k].Set(x)
				}
			}
			h = append(h, v)
		}
	} else {
		n := len(c.Symbols)
		for i, s := range c.Symbols {
			v := zeroVec(m.D)
			for k, x := range p.we[s] {
				v[k].Set(x)
			}
			if m.Position != nil {
				pe, err := p.rs.position(m.Position, i+1, n)
				if err != nil {
					return nil, fmt.Errorf("position %d: %w", i+1, err)
				}
				if len(pe) != m.D {
					return nil, fmt.Errorf("position %d: %d entries for a stream of width %d", i+1, len(pe), m.D)
				}
				for k := range v {
					v[k].Add(v[k], pe[k])
				}
			}
			h = append(h, v)
		}
	}
	var err error
	for _, l := range p.layers {
		if l.attn != nil || l.attnNorm != nil {
			var f func([][]*big.Rat) [][]*big.Rat
			if a := l.attn; a != nil {
				f = func(x [][]*big.Rat) [][]*big.Rat { return a.attend(x, m.D) }
			}
			if h, err = p.sublayer(h, l.attnNorm, l.attnRes, f); err != nil {
				return nil, err
			}
		}
		if l.ff != nil || l.ffNorm != nil {
			var f func([][]*big.Rat) [][]*big.Rat
			if ff := l.ff; ff != nil {
				f = func(x [][]*big.Rat) [][]*big.Rat {
					out := make([][]*big.Rat, len(x))
					for i := range x {
						out[i] = ff.apply(x[i])
					}
					return out
				}
			}
			if h, err = p.sublayer(h, l.ffNorm, l.ffRes, f); err != nil {
				return nil, err
			}
		}
	}
	if p.final != nil {
		for i := range h {
			if h[i], err = p.final.norm(h[i]); err != nil {
				return nil, err
			}
		}
	}
	outs := make([]plainOut, len(h))
	for i := range h {
		logits := p.out.apply(h[i], nil)
		o := plainOut{values: logits}
		switch m.Output.Kind {
		case model.Sign:
			o.symbol = "0"
			if logits[0].Sign() > 0 {
				o.symbol = "1"
			}
		case model.Argmax:
			best := 0
			for k := range logits {
				if logits[k].Cmp(logits[best]) > 0 {
					best = k
				}
			}
			o.symbol = m.Output.Labels[best]
		}
		outs[i] = o
	}
	return outs, nil
}

// judge says whether out is what the recipe's reference want claims,
// within the bound where the paper gives one (Want.Tol over the
// construction's Bounds): right, wrong, or undecided (an irrational
// reference so close to out that 256 bits of enclosure cannot tell).
func judge(want recipes.Want, out plainOut, bounds []recipes.Bound) (right bool, why string, err error) {
	if want.Symbol != "" && out.symbol != want.Symbol {
		return false, fmt.Sprintf("symbol %q, want %q", out.symbol, want.Symbol), nil
	}
	n := len(want.Values)
	if want.Reals != nil {
		n = len(want.Reals)
	}
	if len(out.values) < n {
		return false, fmt.Sprintf("%d values, want %d", len(out.values), n), nil
	}
	for k := 0; k < n; k++ {
		var bound *big.Rat
		if k < len(bounds) {
			bound = bounds[k].Max
		}
		if k < len(want.Tol) && want.Tol[k].Max != nil {
			bound = want.Tol[k].Max
		}
		if bound == nil {
			bound = new(big.Rat)
		}
		var lo, hi *big.Rat
		if want.Reals == nil {
			lo, hi = want.Values[k], want.Values[k]
		} else if lo, hi, err = want.Reals[k].Enclose(256); err != nil {
			return false, "", fmt.Errorf("reference %v: %w", want.Reals[k], err)
		}
		o := out.values[k]
		// Right for certain when the whole enclosure is within the bound
		// of o; wrong when none of it is.
		near := new(big.Rat).Sub(o, bound)
		far := new(big.Rat).Add(o, bound)
		switch {
		case near.Cmp(lo) <= 0 && hi.Cmp(far) <= 0:
		case hi.Cmp(near) < 0 || far.Cmp(lo) < 0:
			return false, fmt.Sprintf("value %d = %s, want %s (bound %s)", k+1, o.RatString(), refText(want, k), bound.RatString()), nil
		default:
			return false, "", fmt.Errorf("value %d = %s against %s: %w", k+1, o.RatString(), refText(want, k), errInexpressible)
		}
	}
	return true, "", nil
}

func refText(want recipes.Want, k int) string {
	if want.Reals != nil {
		return want.Reals[k].String()
	}
	return want.Values[k].RatString()
}
