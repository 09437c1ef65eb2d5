package ffn

import (
	"fmt"
	"math/big"

	"github.com/transformer-cookbook/verify/numeric"
	"github.com/transformer-cookbook/verify/proofs"
	"github.com/transformer-cookbook/verify/recipes/blocks"
)

// ---------------------------------------------------------------------
// §Multiplication over the whole domain: certified enclosures of the best
// constants
//
//	T* = sup_{z ≠ 0} |R(z)|/|z|³ and C* = sup_{(x, y) ≠ 0} |ε(x, y)|/(|x| + |y|)³
//
// for R(z) = GELU(z) − z/2 − z²/√(2π) and ε(x, y) = √(π/2)(GELU(x + y) −
// GELU(x) − GELU(y)) − xy, for both GELU forms.
//
// The mathematics. GELU(z) − z/2 is z(Φ(z) − 1/2) or (z/2)·tanh(√(2/π)(z +
// 0.044715z³)): an odd function times z, so even; hence R is even, its
// odd derivatives vanish at 0, and R(0) = R′(0) = R″(0) = R‴(0) = 0
// (R″(0) = GELU″(0) − 2/√(2π) = 0 for both forms). Write ρ(z) = R(z)/z³
// for z > 0. Taylor's formula with integral remainder gives
//
//	ρ(z) = z·∫₀¹ R⁗(zu)(1 − u)³/6 du,   ρ'(z) = ∫₀¹ (R⁗ + tR⁽⁵⁾)(t = zu)·(1 − u)³/6 du,
//
// so for 0 ≤ z ≤ z_T, ρ(z) ∈ z·hull(R⁗/24 on [0, z]) and ρ'(z) ∈ hull((R⁗ +
// tR⁽⁵⁾)/24 on [0, z]): no cancellation near 0. Since the linear and
// quadratic parts of GELU cancel in ε, ε = √(π/2)(R(x + y) − R(x) − R(y));
// ε(x, y) = ε(y, x) = ε(−x, −y) (R is even), so x ≥ |y| may be assumed, and
// with s = |x| + |y|, x = s(1 − v), y = ±sv, v ∈ [0, 1/2]:
//
//	same signs:      ε/s³ = √(π/2)(ρ(s) − (1−v)³ρ(s(1−v)) − v³ρ(sv))
//	opposite signs:  ε/s³ = √(π/2)((1−2v)³ρ(s(1−2v)) − (1−v)³ρ(s(1−v)) − v³ρ(sv)),
//
// a combination of ρ at arguments in [0, s] with weights at most 1, which
// the branch and bound encloses on boxes of (s, v) without dividing by s³.
//
// Three regions. Near 0 (s ≤ z_T): |ρ(z)| ≤ z·M₄/24 with M₄ ≥ |R⁗| on [0,
// z_T], so |R(z)|/|z|³ ≤ z_T·M₄/24 and |ε|/s³ ≤ √(π/2)(M₄/24)·(a₁⁴ + a₂⁴ +
// a₃⁴)·s ≤ √(π/2)·M₄·s/12 (the weights a = 1, 1 − v, v or 1 − 2v, 1 − v, v
// have fourth powers summing to at most 2). Far (s ≥ S): |GELU(z) − z/2| ≤
// |z|/2 (|Φ − 1/2| ≤ 1/2, |tanh| ≤ 1), so |R(z)| ≤ |z|/2 + z²/√(2π), and
// |ε| ≤ √(π/2)(|x + y| + |x| + |y|)/2 + |xy| ≤ √(π/2)s + s²/4: the ratios
// are at most 1/(2z²) + 1/(√(2π)z) and √(π/2)/s² + 1/(4s), decreasing.
// Between (z_T ≤ s ≤ S): ρ is tabulated on cells of width h = 1/64 as
// certified order-4 Taylor models, built from the elementary functions
// (erf and exp, or tanh) evaluated once per grid point, their
// monotonicity covering the cells; a branch and bound encloses |ε|/s³ on
// boxes of (s, v) by the centred (mean value) form met with the direct
// one, bisecting the box of largest upper bound until that bound is
// within 1/gsTol of the largest value certified at a box centre. The
// table keeps each box to a few dozen interval operations: the
// elementary functions cost far more (an erf near z = 8 about 1 ms).

const (
	// gsPrec is the precision of the interval endpoints: 64 bits leave
	// rounding errors near 2^−60, far below the tolerance.
	gsPrec = 64
	// gsTol is the branch and bound's relative target: it stops when the
	// upper bound is within 1/gsTol of the certified lower bound.
	gsTol = 1 << 14
	// gsMaxBoxes bounds the boxes evaluated (the proofs take about 500;
	// this many would take a minute or so); past it the checker reports
	// that it could not decide (an error), never a verdict.
	gsMaxBoxes = 50000
)

const (
	// gsCellScale: the table's cells have width h = 2^−6 = 1/64.
	gsCellScale = 6
	// gsOrder is the order of the cells' Taylor models of ρ: their
	// remainder, ρ⁽⁴⁾/4! on the cell times t⁴ ≤ h⁴, is what limits the
	// Point enclosures.
	gsOrder = 4
	// gsNearPieces is the number of cells of [0, z_T].
	gsNearPieces = 24
	// gsNearSplit is the number of pieces of a cell of [0, z_T] on which
	// GELU⁗ and GELU⁽⁵⁾ are enclosed.
	gsNearSplit = 8
)

var (
	// gsNearEnd is z_T = gsNearPieces·h = 3/8, where the Taylor
	// enclosures of ρ hand over to the cells' models; it is also the end
	// of the near region.
	gsNearEnd = big.NewRat(gsNearPieces, 1<<gsCellScale)
	// gsFarStart is S = 8, where the far bounds take over.
	gsFarStart = big.NewRat(8, 1)
)

type gsIv = *numeric.Interval

// gsCalc evaluates GELU (erf or tanh form), its remainder R and ρ = R/z³
// in certified interval arithmetic, and holds the table of ρ on [0, S].
type gsCalc struct {
	b    numeric.Intervals
	tanh bool
	// invSqrt2, twoOverSqrtPi (erf form), sqrt2OverPi, coefB (tanh
	// form), invSqrt2Pi and sqrtHalfPi: the constants, enclosed.
	invSqrt2, twoOverSqrtPi, sqrt2OverPi, coefB, invSqrt2Pi, sqrtHalfPi gsIv
	zT, zS, h                                                           *big.Float
	// d4[i] encloses R⁗/24 on [0, (i+1)h], d45[i] (R⁗ + tR⁽⁵⁾)/24 there:
	// the cells of [0, z_T].
	d4, d45 []gsIv
	// cells are the models of ρ on the cells of [z_T, S].
	cells []gsCell
	// hulls are the hulls of ρ and ρ' over runs of 2^l cells.
	hulls [][][2]gsIv
	// points counts the grid points where the elementary functions were
	// evaluated.
	points int
}

func newGsCalc(form string) (*gsCalc, error) {
	c := &gsCalc{b: numeric.NewIntervals(gsPrec), tanh: form == "tanh"}
	if form != "erf" && form != "tanh" {
		return nil, fmt.Errorf("unknown GELU form %q", form)
	}
	for _, k := range []struct {
		dst *gsIv
		e   numeric.Expr
	}{
		{&c.invSqrt2, numeric.Quo(numeric.LitInt(1), numeric.Sqrt(numeric.LitInt(2)))},
		{&c.twoOverSqrtPi, numeric.Quo(numeric.LitInt(2), numeric.Sqrt(numeric.Pi()))},
		{&c.sqrt2OverPi, numeric.Sqrt(numeric.Quo(numeric.LitInt(2), numeric.Pi()))},
		{&c.coefB, numeric.Frac(44715, 1000000)},
		{&c.invSqrt2Pi, invSqrt2Pi},
		{&c.sqrtHalfPi, blocks.SqrtHalfPi},
	} {
		lo, hi, err := k.e.Enclose(gsPrec + 16)
		if err != nil {
			return nil, err
		}
		*k.dst = c.b.SetBounds(nil, lo, hi)
	}
	c.zT = new(big.Float).SetPrec(gsPrec).SetRat(gsNearEnd)
	c.zS = new(big.Float).SetPrec(gsPrec).SetRat(gsFarStart)
	c.h = new(big.Float).SetMantExp(big.NewFloat(1), -gsCellScale)
	if err := c.nearTable(); err != nil {
		return nil, err
	}
	if err := c.cellTable(); err != nil {
		return nil, err
	}
	c.rangeTable()
	return c, nil
}

func (c *gsCalc) rat(r *big.Rat) gsIv         { return c.b.SetRat(nil, r) }
func (c *gsCalc) span(lo, hi *big.Rat) gsIv   { return c.b.SetBounds(nil, lo, hi) }
func (c *gsCalc) int(k int64) gsIv            { return c.b.SetInt64(nil, k) }
func (c *gsCalc) add(x, y gsIv) gsIv          { return c.b.Add(nil, x, y) }
func (c *gsCalc) sub(x, y gsIv) gsIv          { return c.b.Sub(nil, x, y) }
func (c *gsCalc) mul(x, y gsIv) gsIv          { return c.b.Mul(nil, x, y) }
func (c *gsCalc) div(x, y gsIv) (gsIv, error) { return c.b.Div(nil, x, y) }

// sqr is x², never below 0 (x·x would be where x straddles 0).
func (c *gsCalc) sqr(x gsIv) gsIv { a := c.b.Abs(nil, x); return c.b.Mul(nil, a, a) }

func (c *gsCalc) hull(x, y gsIv) gsIv {
	lo, hi := x.Lo, x.Hi
	if y.Lo.Cmp(lo) < 0 {
		lo = y.Lo
	}
	if y.Hi.Cmp(hi) > 0 {
		hi = y.Hi
	}
	return &numeric.Interval{Lo: lo, Hi: hi}
}

// meet is x ∩ y, both enclosing the same number; an empty intersection
// means one of them is wrong, an error.
func (c *gsCalc) meet(x, y gsIv) (gsIv, error) {
	lo, hi := x.Lo, x.Hi
	if y.Lo.Cmp(lo) > 0 {
		lo = y.Lo
	}
	if y.Hi.Cmp(hi) < 0 {
		hi = y.Hi
	}
	if lo.Cmp(hi) > 0 {
		return nil, fmt.Errorf("disjoint enclosures %s and %s of one quantity", c.b.Format(x), c.b.Format(y))
	}
	return &numeric.Interval{Lo: lo, Hi: hi}, nil
}

// mag is max |x| over x, as a rational.
func (c *gsCalc) mag(x gsIv) (*big.Rat, error) {
	lo, hi, err := c.b.Bounds(x)
	if err != nil {
		return nil, err
	}
	return proofs.Magnitude(lo, hi), nil
}

// mig is min |x| over x.
func (c *gsCalc) mig(x gsIv) (*big.Rat, error) {
	lo, hi, err := c.b.Bounds(x)
	if err != nil {
		return nil, err
	}
	switch {
	case lo.Sign() > 0:
		return lo, nil
	case hi.Sign() < 0:
		return hi.Neg(hi), nil
	}
	return new(big.Rat), nil
}

// A gsJet holds enclosures of f⁽ᵏ⁾(z)/k!, k = 0, …, len − 1, for every z
// of an interval: Taylor coefficients computed by the recurrences of
// automatic differentiation, each step an interval operation.
type gsJet []gsIv

func (c *gsCalc) jVar(z gsIv, order int) gsJet {
	j := make(gsJet, order+1)
	j[0] = z
	for k := 1; k <= order; k++ {
		j[k] = c.int(0)
	}
	if order >= 1 {
		j[1] = c.int(1)
	}
	return j
}

func (c *gsCalc) jMul(a, b gsJet) gsJet {
	out := make(gsJet, len(a))
	for k := range out {
		s := c.int(0)
		for i := 0; i <= k; i++ {
			s = c.add(s, c.mul(a[i], b[k-i]))
		}
		out[k] = s
	}
	return out
}

// jSqr is a·a with its middle products squared, so that no coefficient
// of a square of an interval straddling 0 goes below 0 needlessly.
func (c *gsCalc) jSqr(a gsJet) gsJet {
	out := make(gsJet, len(a))
	for k := range out {
		s := c.int(0)
		for i := 0; 2*i < k; i++ {
			s = c.add(s, c.mul(a[i], a[k-i]))
		}
		s = c.mul(c.int(2), s)
		if k%2 == 0 {
			s = c.add(s, c.sqr(a[k/2]))
		}
		out[k] = s
	}
	return out
}

func (c *gsCalc) jScale(a gsJet, x gsIv) gsJet {
	out := make(gsJet, len(a))
	for k := range a {
		out[k] = c.mul(a[k], x)
	}
	return out
}

func (c *gsCalc) jAdd(a, b gsJet) gsJet {
	out := make(gsJet, len(a))
	for k := range a {
		out[k] = c.add(a[k], b[k])
	}
	return out
}

func (c *gsCalc) jAddConst(a gsJet, x gsIv) gsJet {
	return append(gsJet{c.add(a[0], x)}, a[1:]...)
}

// jChain returns the jet of f∘u from f(u₀) and the jet of f'∘u:
// (f∘u)' = u'·f'(u) gives k·out_k = Σ_{j=1..k} j·u_j·d_{k−j}. d(k, out) is
// d_k, which may depend on out_0, …, out_k (f' = f for exp, 1 − f² for
// tanh).
func (c *gsCalc) jChain(u gsJet, f0 gsIv, d func(k int, out gsJet) gsIv) (gsJet, error) {
	out := make(gsJet, len(u))
	out[0] = f0
	ds := make(gsJet, len(u))
	for k := 1; k < len(u); k++ {
		ds[k-1] = d(k-1, out)
		s := c.int(0)
		for j := 1; j <= k; j++ {
			s = c.add(s, c.mul(c.int(int64(j)), c.mul(u[j], ds[k-j])))
		}
		q, err := c.div(s, c.int(int64(k)))
		if err != nil {
			return nil, err
		}
		out[k] = q
	}
	return out, nil
}

// gsElem holds enclosures of the elementary functions in GELU at u₀, the
// inner argument's value: erf(u₀) and exp(−u₀²) for the erf form (u =
// z/√2), tanh(u₀) for the tanh form (u = √(2/π)(z + 0.044715z³)). Each is
// monotone in z ≥ 0, so the hull of a cell's two ends encloses it on the
// cell: the table evaluates them once per grid point.
type gsElem struct{ erf, exp, tanh gsIv }

// inner is the jet of u.
func (c *gsCalc) inner(x gsJet) gsJet {
	if c.tanh {
		x3 := c.jMul(c.jSqr(x), x)
		return c.jScale(c.jAdd(x, c.jScale(x3, c.coefB)), c.sqrt2OverPi)
	}
	return c.jScale(x, c.invSqrt2)
}

// elem encloses the elementary functions at the interval u₀ directly.
func (c *gsCalc) elem(u0 gsIv) (*gsElem, error) {
	if c.tanh {
		t, err := c.b.Tanh(nil, u0)
		return &gsElem{tanh: t}, err
	}
	e, err := c.b.Erf(nil, u0)
	if err != nil {
		return nil, err
	}
	x, err := c.b.Exp(nil, c.b.Neg(nil, c.sqr(u0)))
	return &gsElem{erf: e, exp: x}, err
}

func (c *gsCalc) elemHull(a, b *gsElem) *gsElem {
	if c.tanh {
		return &gsElem{tanh: c.hull(a.tanh, b.tanh)}
	}
	return &gsElem{erf: c.hull(a.erf, b.erf), exp: c.hull(a.exp, b.exp)}
}

// jExp: exp' = exp, from e0 = exp(p₀).
func (c *gsCalc) jExp(p gsJet, e0 gsIv) (gsJet, error) {
	return c.jChain(p, e0, func(k int, out gsJet) gsIv { return out[k] })
}

// jErf: erf'(u) = (2/√π)·exp(−u²).
func (c *gsCalc) jErf(u gsJet, el *gsElem) (gsJet, error) {
	sq := c.jSqr(u)
	for k := range sq {
		sq[k] = c.b.Neg(nil, sq[k])
	}
	g, err := c.jExp(sq, el.exp)
	if err != nil {
		return nil, err
	}
	g = c.jScale(g, c.twoOverSqrtPi)
	return c.jChain(u, el.erf, func(k int, _ gsJet) gsIv { return g[k] })
}

// jTanh: tanh' = 1 − tanh², whose k-th coefficient needs those of tanh
// up to k.
func (c *gsCalc) jTanh(u gsJet, el *gsElem) (gsJet, error) {
	return c.jChain(u, el.tanh, func(k int, out gsJet) gsIv {
		sq := c.jSqr(out[:k+1])[k]
		if k == 0 {
			return c.sub(c.int(1), sq)
		}
		return c.b.Neg(nil, sq)
	})
}

// remJet is the jet of R(z) = GELU(z) − z/2 − z²/√(2π) on z, GELU being
// z(1 + f(u))/2 with f = erf or tanh; el encloses the elementary
// functions at u(z) (nil: computed here).
func (c *gsCalc) remJet(z gsIv, order int, el *gsElem) (gsJet, error) {
	x := c.jVar(z, order)
	u := c.inner(x)
	if el == nil {
		var err error
		if el, err = c.elem(u[0]); err != nil {
			return nil, err
		}
	}
	var f gsJet
	var err error
	if c.tanh {
		f, err = c.jTanh(u, el)
	} else {
		f, err = c.jErf(u, el)
	}
	if err != nil {
		return nil, err
	}
	half := c.rat(big.NewRat(1, 2))
	// GELU − z/2 = z·f(u)/2
	g := c.jScale(c.jMul(x, f), half)
	quad := c.jScale(c.jSqr(x), c.invSqrt2Pi)
	out := make(gsJet, len(g))
	for k := range g {
		out[k] = c.sub(g[k], quad[k])
	}
	return out, nil
}

// rhoJet is the jet of ρ = R·z⁻³ on z > 0: (z⁻³)⁽ᵏ⁾/k! = (−1)ᵏ(k + 1)(k +
// 2)/2·z⁻³⁻ᵏ.
func (c *gsCalc) rhoJet(z gsIv, order int, el *gsElem) (gsJet, error) {
	r, err := c.remJet(z, order, el)
	if err != nil {
		return nil, err
	}
	inv, err := c.div(c.int(1), z)
	if err != nil {
		return nil, err
	}
	q := make(gsJet, order+1)
	p := c.mul(c.sqr(inv), inv)
	for k := range q {
		sign := int64(1 - 2*(k%2))
		q[k] = c.mul(c.rat(big.NewRat(sign*int64((k+1)*(k+2)), 2)), p)
		p = c.mul(p, inv)
	}
	return c.jMul(r, q), nil
}

// nearTable fills d4 and d45 from order-5 jets of R on the cells of [0,
// z_T], each cut into gsNearSplit pieces: a jet's enclosure over an
// interval widens with it (the tanh form's most), and the near region's
// bounds rest on these hulls.
func (c *gsCalc) nearTable() error {
	var h4, h45 gsIv
	den := int64(gsNearSplit) << gsCellScale
	for i := 0; i < gsNearPieces; i++ {
		for k := 0; k < gsNearSplit; k++ {
			lo := int64(i*gsNearSplit + k)
			p := c.span(big.NewRat(lo, den), big.NewRat(lo+1, den))
			j, err := c.remJet(p, 5, nil)
			if err != nil {
				return err
			}
			v45 := c.add(j[4], c.mul(c.mul(c.int(5), p), j[5]))
			if h4 == nil {
				h4, h45 = j[4], v45
			} else {
				h4, h45 = c.hull(h4, j[4]), c.hull(h45, v45)
			}
		}
		c.d4 = append(c.d4, h4)
		c.d45 = append(c.d45, h45)
	}
	return nil
}

// gsCell is the Taylor model of ρ on a cell [z₀, z₀ + h] of [z_T, S]: p[k]
// encloses ρ⁽ᵏ⁾(z₀)/k! for k < gsOrder and p[gsOrder] encloses
// ρ⁽ᵏ⁾/k! on the whole cell (the Lagrange remainder), so for t ∈ [0, h]
// ρ(z₀ + t) ∈ Σ p[k]tᵏ and ρ'(z₀ + t) ∈ Σ k·p[k]tᵏ⁻¹.
type gsCell struct {
	z0 *big.Float
	p  gsJet
}

// cellTable evaluates the elementary functions at the grid points of [z_T,
// S] (step 2^−gsCellScale) and builds each cell's model from them.
func (c *gsCalc) cellTable() error {
	n := int(new(big.Rat).Mul(gsFarStart, big.NewRat(1<<gsCellScale, 1)).Num().Int64())
	var prev *gsElem
	var prevJet gsJet
	for i := gsNearPieces; i <= n; i++ {
		z := c.rat(big.NewRat(int64(i), 1<<gsCellScale))
		el, err := c.elem(c.inner(c.jVar(z, 0))[0])
		if err != nil {
			return err
		}
		c.points++
		pt, err := c.rhoJet(z, gsOrder-1, el)
		if err != nil {
			return err
		}
		if prev != nil {
			lo := new(big.Rat).SetFrac64(int64(i-1), 1<<gsCellScale)
			cell := c.span(lo, big.NewRat(int64(i), 1<<gsCellScale))
			whole, err := c.rhoJet(cell, gsOrder, c.elemHull(prev, el))
			if err != nil {
				return err
			}
			z0 := new(big.Float).SetPrec(gsPrec).SetRat(lo)
			c.cells = append(c.cells, gsCell{z0: z0, p: append(append(gsJet{}, prevJet...), whole[gsOrder])})
		}
		prev, prevJet = el, pt
	}
	return nil
}

// cellIndex is the cell of [0, S] holding z ≥ 0 (the last one for z = S).
func (c *gsCalc) cellIndex(z *big.Float) int {
	k, _ := new(big.Float).SetMantExp(z, gsCellScale).Int64()
	return int(min(max(k, 0), int64(gsNearPieces+len(c.cells)-1)))
}

// m4 is M₄, a bound on |R⁗| = |GELU⁗| over [−z_T, z_T] (R⁗ is even).
func (c *gsCalc) m4() (*big.Rat, error) {
	m, err := c.mag(c.d4[gsNearPieces-1])
	if err != nil {
		return nil, err
	}
	return m.Mul(m, big.NewRat(24, 1)), nil
}

// cellEval encloses ρ and ρ' on [lo, hi] ⊂ cell i: by the Taylor
// enclosures on [0, z_T], by the cell's model beyond.
func (c *gsCalc) cellEval(i int, lo, hi *big.Float) (val, der gsIv) {
	if i < gsNearPieces {
		return c.mul(&numeric.Interval{Lo: lo, Hi: hi}, c.d4[i]), c.d45[i]
	}
	cell := c.cells[i-gsNearPieces]
	t := c.b.Sub(nil, &numeric.Interval{Lo: lo, Hi: hi}, &numeric.Interval{Lo: cell.z0, Hi: cell.z0})
	if t.Lo.Sign() < 0 { // t ≥ 0: only rounding reaches below
		t = &numeric.Interval{Lo: new(big.Float), Hi: t.Hi}
	}
	// Horner, for the value and the derivative
	val, der = cell.p[gsOrder], c.mul(c.int(gsOrder), cell.p[gsOrder])
	for k := gsOrder - 1; k >= 0; k-- {
		val = c.add(c.mul(val, t), cell.p[k])
		if k >= 1 {
			der = c.add(c.mul(der, t), c.mul(c.int(int64(k)), cell.p[k]))
		}
	}
	return val, der
}

// cellEnds returns the ends of cell i.
func (c *gsCalc) cellEnds(i int) (lo, hi *big.Float) {
	lo = new(big.Float).SetMantExp(new(big.Float).SetInt64(int64(i)), -gsCellScale)
	return lo, new(big.Float).Add(lo, c.h)
}

// rangeTable fills hulls[l][i], the hulls of ρ and ρ' over cells i, …, i
// + 2^l − 1, so that a wide argument costs two look-ups, not one model
// per cell.
func (c *gsCalc) rangeTable() {
	n := gsNearPieces + len(c.cells)
	level := make([][2]gsIv, n)
	for i := range level {
		lo, hi := c.cellEnds(i)
		v, d := c.cellEval(i, lo, hi)
		level[i] = [2]gsIv{v, d}
	}
	c.hulls = [][][2]gsIv{level}
	for w := 1; 2*w <= n; w *= 2 {
		prev := c.hulls[len(c.hulls)-1]
		next := make([][2]gsIv, n-2*w+1)
		for i := range next {
			next[i] = [2]gsIv{c.hull(prev[i][0], prev[i+w][0]), c.hull(prev[i][1], prev[i+w][1])}
		}
		c.hulls = append(c.hulls, next)
	}
}

// fullCells returns the hulls of ρ and ρ' over the cells i, …, j (i ≤ j).
func (c *gsCalc) fullCells(i, j int) (val, der gsIv) {
	l := 0
	for 2<<l <= j-i+1 {
		l++
	}
	a, b := c.hulls[l][i], c.hulls[l][j-(1<<l)+1]
	return c.hull(a[0], b[0]), c.hull(a[1], b[1])
}

// rho encloses ρ and ρ' over z ⊂ [0, S]: the end cells by their
// enclosures on the part of z they hold, the cells between by their
// hulls.
func (c *gsCalc) rho(z gsIv) (val, der gsIv, err error) {
	if z.Lo.Sign() < 0 || z.Hi.Cmp(c.zS) > 0 {
		return nil, nil, fmt.Errorf("ρ on %s: outside the table [0, %s]", c.b.Format(z), gsFarStart.RatString())
	}
	i, j := c.cellIndex(z.Lo), c.cellIndex(z.Hi)
	if i == j {
		val, der = c.cellEval(i, z.Lo, z.Hi)
		return val, der, nil
	}
	_, end := c.cellEnds(i)
	val, der = c.cellEval(i, z.Lo, end)
	start, _ := c.cellEnds(j)
	v, d := c.cellEval(j, start, z.Hi)
	val, der = c.hull(val, v), c.hull(der, d)
	if i+1 <= j-1 {
		v, d = c.fullCells(i+1, j-1)
		val, der = c.hull(val, v), c.hull(der, d)
	}
	return val, der, nil
}

// rhoAt encloses ρ at the point z ∈ [0, S].
func (c *gsCalc) rhoAt(z *big.Rat) (gsIv, error) {
	v, _, err := c.rho(c.rat(z))
	return v, err
}
