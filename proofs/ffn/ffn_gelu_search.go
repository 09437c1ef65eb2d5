package ffn

import (
	"container/heap"
	"fmt"
	"math/big"
	"sync"
	"time"

	"github.com/transformer-cookbook/verify/numeric"
	"github.com/transformer-cookbook/verify/recipes/blocks"
)

// The branch and bound of §Multiplication's suprema (ffn_gelu_sup.go has
// the mathematics and the certified evaluation of ρ it searches with),
// and the claims' evidence.

// gsBox is a box of the search: z ∈ [a0, a1] for T*; s ∈ [a0, a1], v ∈
// [b0, b1] and the sign case for C*. up is the upper bound of the ratio on
// it.
type gsBox struct {
	a0, a1, b0, b1 *big.Rat
	opp            bool
	up             *big.Rat
	depth          int
}

type gsHeap []*gsBox

func (h gsHeap) Len() int           { return len(h) }
func (h gsHeap) Less(i, j int) bool { return h[i].up.Cmp(h[j].up) > 0 }
func (h gsHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *gsHeap) Push(x any)        { *h = append(*h, x.(*gsBox)) }
func (h *gsHeap) Pop() any {
	old := *h
	b := old[len(old)-1]
	*h = old[:len(old)-1]
	return b
}

// gsProblem is one supremum to enclose: eval returns an upper bound of
// the ratio on a box, and a certified lower bound of it at a point of the
// box with that point (x, y) (y unused for T*); split bisects a box.
type gsProblem struct {
	eval  func(b *gsBox) (up, low *big.Rat, at [2]*big.Rat, err error)
	split func(b *gsBox) [2]*gsBox
}

// gsSearch is the result of a branch and bound.
type gsSearch struct {
	lo, hi  *big.Rat // the supremum over the boxes lies in [lo, hi]
	at      [2]*big.Rat
	boxes   int // boxes evaluated
	depth   int // deepest box evaluated
	elapsed time.Duration
	refined bool // the search went past its tolerance to decide claimed
	initial int
}

// gsBranchAndBound encloses the supremum of the ratio over the union of
// the boxes: it bisects the box of largest upper bound until that bound
// is within 1/gsTol of the best certified lower bound, and further while
// claimed lies in [lo, hi) (undecided), up to gsMaxBoxes.
func gsBranchAndBound(p gsProblem, boxes []*gsBox, claimed *big.Rat) (*gsSearch, error) {
	start := time.Now()
	r := &gsSearch{lo: new(big.Rat), initial: len(boxes)}
	h := &gsHeap{}
	add := func(b *gsBox) error {
		up, low, at, err := p.eval(b)
		if err != nil {
			return err
		}
		r.boxes++
		r.depth = max(r.depth, b.depth)
		if low.Cmp(r.lo) > 0 {
			r.lo, r.at = low, at
		}
		b.up = up
		heap.Push(h, b)
		return nil
	}
	for _, b := range boxes {
		if err := add(b); err != nil {
			return nil, err
		}
	}
	for h.Len() > 0 {
		top := (*h)[0]
		if top.up.Cmp(r.lo) <= 0 { // every open box is below a value attained
			break
		}
		target := new(big.Rat).Mul(r.lo, big.NewRat(gsTol+1, gsTol))
		undecided := r.lo.Cmp(claimed) <= 0 && claimed.Cmp(top.up) < 0
		if top.up.Cmp(target) <= 0 && !undecided {
			break
		}
		if top.up.Cmp(target) <= 0 {
			r.refined = true
		}
		if r.boxes >= gsMaxBoxes {
			return nil, fmt.Errorf("branch and bound: %d boxes and the supremum still in [%s, %s] (the constant %s undecided)",
				r.boxes, r.lo.FloatString(6), top.up.FloatString(6), claimed.RatString())
		}
		heap.Pop(h)
		for _, c := range p.split(top) {
			if err := add(c); err != nil {
				return nil, err
			}
		}
	}
	r.hi = new(big.Rat).Set(r.lo)
	if h.Len() > 0 && (*h)[0].up.Cmp(r.hi) > 0 {
		r.hi.Set((*h)[0].up)
	}
	r.elapsed = time.Since(start)
	return r, nil
}

func gsMid(a, b *big.Rat) *big.Rat {
	m := new(big.Rat).Add(a, b)
	return m.Quo(m, big.NewRat(2, 1))
}

// gsTaylorProblem: the ratio |ρ(z)| on boxes z ∈ [a0, a1] ⊂ [z_T, S].
func gsTaylorProblem(c *gsCalc) gsProblem {
	return gsProblem{
		eval: func(b *gsBox) (*big.Rat, *big.Rat, [2]*big.Rat, error) {
			v, _, err := c.rho(c.span(b.a0, b.a1))
			if err != nil {
				return nil, nil, [2]*big.Rat{}, err
			}
			up, err := c.mag(v)
			if err != nil {
				return nil, nil, [2]*big.Rat{}, err
			}
			m := gsMid(b.a0, b.a1)
			vm, err := c.rhoAt(m)
			if err != nil {
				return nil, nil, [2]*big.Rat{}, err
			}
			low, err := c.mig(vm)
			return up, low, [2]*big.Rat{m, nil}, err
		},
		split: func(b *gsBox) [2]*gsBox {
			m := gsMid(b.a0, b.a1)
			return [2]*gsBox{{a0: b.a0, a1: m, depth: b.depth + 1}, {a0: m, a1: b.a1, depth: b.depth + 1}}
		},
	}
}

// gsTerm is σ·a³·ρ(a·s) with a = α + βv, one of the three GELUs of ε/s³.
type gsTerm struct{ alpha, beta, sigma int64 }

var (
	gsSameSigns = []gsTerm{{1, 0, 1}, {1, -1, -1}, {0, 1, -1}}
	gsOppSigns  = []gsTerm{{1, -2, 1}, {1, -1, -1}, {0, 1, -1}}
)

// gsPoint returns (x, y) for s, v and the sign case.
func gsPoint(s, v *big.Rat, opp bool) [2]*big.Rat {
	x := new(big.Rat).Mul(s, new(big.Rat).Sub(big.NewRat(1, 1), v))
	y := new(big.Rat).Mul(s, v)
	if opp {
		y.Neg(y)
	}
	return [2]*big.Rat{x, y}
}

// mulRatioAt encloses ε(x, y)/(s³√(π/2)) at the point (s, v).
func (c *gsCalc) mulRatioAt(s, v *big.Rat, opp bool) (gsIv, error) {
	terms := gsSameSigns
	if opp {
		terms = gsOppSigns
	}
	g := c.int(0)
	for _, t := range terms {
		a := new(big.Rat).Add(big.NewRat(t.alpha, 1), new(big.Rat).Mul(big.NewRat(t.beta, 1), v))
		r, err := c.rhoAt(new(big.Rat).Mul(a, s))
		if err != nil {
			return nil, err
		}
		ai := c.rat(a)
		g = c.add(g, c.mul(c.int(t.sigma), c.mul(c.mul(c.sqr(ai), ai), r)))
	}
	return g, nil
}

// mulRatio encloses ε/s³ on a box by the centred form g(m) + g_s(B)(S −
// s_m) + g_v(B)(V − v_m), met with the direct enclosure Σσ A³ρ(AS):
//
//	g_s = Σ σ a⁴ ρ'(as),  g_v = Σ σ β (3a² ρ(as) + a³ s ρ'(as)).
func (c *gsCalc) mulRatio(b *gsBox) (box, centre gsIv, err error) {
	terms := gsSameSigns
	if b.opp {
		terms = gsOppSigns
	}
	S, V := c.span(b.a0, b.a1), c.span(b.b0, b.b1)
	direct, gs, gv := c.int(0), c.int(0), c.int(0)
	for _, t := range terms {
		a := c.add(c.int(t.alpha), c.mul(c.int(t.beta), V))
		z := c.mul(a, S)
		if z.Lo.Sign() < 0 { // a ≥ 0 for v ∈ [0, 1/2]: only outward rounding reaches below
			z = &numeric.Interval{Lo: new(big.Float), Hi: z.Hi}
		}
		val, der, err := c.rho(z)
		if err != nil {
			return nil, nil, err
		}
		a2 := c.sqr(a)
		a3 := c.mul(a2, a)
		sig := c.int(t.sigma)
		direct = c.add(direct, c.mul(sig, c.mul(a3, val)))
		gs = c.add(gs, c.mul(sig, c.mul(c.mul(a3, a), der)))
		dv := c.add(c.mul(c.mul(c.int(3), a2), val), c.mul(c.mul(a3, S), der))
		gv = c.add(gv, c.mul(c.int(t.sigma*t.beta), dv))
	}
	sm, vm := gsMid(b.a0, b.a1), gsMid(b.b0, b.b1)
	gm, err := c.mulRatioAt(sm, vm, b.opp)
	if err != nil {
		return nil, nil, err
	}
	centred := c.add(gm, c.add(c.mul(gs, c.sub(S, c.rat(sm))), c.mul(gv, c.sub(V, c.rat(vm)))))
	g, err := c.meet(centred, direct)
	if err != nil {
		return nil, nil, err
	}
	return c.mul(g, c.sqrtHalfPi), c.mul(gm, c.sqrtHalfPi), nil
}

// gsMulProblem: the ratio |ε|/s³ on boxes of (s, v) ∈ [z_T, S] × [0, 1/2],
// both sign cases.
func gsMulProblem(c *gsCalc) gsProblem {
	return gsProblem{
		eval: func(b *gsBox) (*big.Rat, *big.Rat, [2]*big.Rat, error) {
			g, gm, err := c.mulRatio(b)
			if err != nil {
				return nil, nil, [2]*big.Rat{}, err
			}
			up, err := c.mag(g)
			if err != nil {
				return nil, nil, [2]*big.Rat{}, err
			}
			sm, vm := gsMid(b.a0, b.a1), gsMid(b.b0, b.b1)
			low, err := c.mig(gm)
			return up, low, gsPoint(sm, vm, b.opp), err
		},
		split: func(b *gsBox) [2]*gsBox {
			// the s side is 15 times as long as the v side at the start;
			// bisect whichever is longer in those units
			ws := new(big.Rat).Sub(b.a1, b.a0)
			wv := new(big.Rat).Mul(new(big.Rat).Sub(b.b1, b.b0), big.NewRat(4, 1))
			d := b.depth + 1
			if ws.Cmp(wv) >= 0 {
				m := gsMid(b.a0, b.a1)
				return [2]*gsBox{{a0: b.a0, a1: m, b0: b.b0, b1: b.b1, opp: b.opp, depth: d}, {a0: m, a1: b.a1, b0: b.b0, b1: b.b1, opp: b.opp, depth: d}}
			}
			m := gsMid(b.b0, b.b1)
			return [2]*gsBox{{a0: b.a0, a1: b.a1, b0: b.b0, b1: m, opp: b.opp, depth: d}, {a0: b.a0, a1: b.a1, b0: m, b1: b.b1, opp: b.opp, depth: d}}
		},
	}
}

// ---------------------------------------------------------------------
// The suprema over the whole domain

// gsOnce builds one form's calculator once: the table is the costly part
// (some 500 erf evaluations) and both claims of a form read it.
type gsOnce struct {
	once sync.Once
	c    *gsCalc
	err  error
}

var gsCache sync.Map // form → *gsOnce

func gsCalcFor(form string) (*gsCalc, error) {
	v, _ := gsCache.LoadOrStore(form, new(gsOnce))
	o := v.(*gsOnce)
	o.once.Do(func() { o.c, o.err = newGsCalc(form) })
	return o.c, o.err
}

// gsSup is a certified enclosure [lo, hi] of a best constant over the
// whole domain, with what it rests on.
type gsSup struct {
	lo, hi *big.Rat
	// at is where the ratio is certified ≥ lo: z (at[1] nil) or (x, y).
	at [2]*big.Rat
	// m4 bounds |GELU⁗| on [−z_T, z_T]; near and far bound the ratio for
	// s ≤ z_T and s ≥ S.
	m4, near, far *big.Rat
	search        *gsSearch
	points        int // grid points of the table
}

// upper returns the upper end of the enclosure of e, a constant.
func gsUpper(e numeric.Expr) (*big.Rat, error) {
	_, hi, err := enclose(e)
	return hi, err
}

// The lemmas of the near and far regions, as bounds on the ratios at |z|
// = t or s = |x| + |y| = t (each increasing, resp. decreasing, in t, so
// their value at the region's end bounds the region), given M₄ ≥ |GELU⁗|
// on [−t, t] for the near ones.

// gsNearTaylor: |R(z)|/|z|³ ≤ |z|·M₄/24.
func gsNearTaylor(t, m4 *big.Rat) *big.Rat {
	return new(big.Rat).Mul(t, new(big.Rat).Quo(m4, big.NewRat(24, 1)))
}

// gsFarTaylor: |R(z)|/|z|³ ≤ 1/(2z²) + 1/(√(2π)|z|).
func gsFarTaylor(t *big.Rat) (*big.Rat, error) {
	k, err := gsUpper(invSqrt2Pi)
	if err != nil {
		return nil, err
	}
	b := new(big.Rat).Quo(big.NewRat(1, 2), new(big.Rat).Mul(t, t))
	return b.Add(b, new(big.Rat).Quo(k, t)), nil
}

// gsNearMul: |ε|/s³ ≤ √(π/2)·M₄·s/12.
func gsNearMul(t, m4 *big.Rat) (*big.Rat, error) {
	k, err := gsUpper(blocks.SqrtHalfPi)
	if err != nil {
		return nil, err
	}
	return new(big.Rat).Mul(k, new(big.Rat).Mul(m4, new(big.Rat).Quo(t, big.NewRat(12, 1)))), nil
}

// gsFarMul: |ε|/s³ ≤ √(π/2)/s² + 1/(4s).
func gsFarMul(t *big.Rat) (*big.Rat, error) {
	k, err := gsUpper(blocks.SqrtHalfPi)
	if err != nil {
		return nil, err
	}
	b := new(big.Rat).Quo(k, new(big.Rat).Mul(t, t))
	return b.Add(b, new(big.Rat).Quo(big.NewRat(1, 4), t)), nil
}

// gsTaylorSup encloses T* = sup_{z ≠ 0} |R(z)|/|z|³ (R is even, so z > 0):
// near, |ρ(z)| ≤ z·M₄/24 ≤ z_T·M₄/24; far, |R(z)| ≤ |z|/2 + z²/√(2π), so
// |ρ| ≤ 1/(2S²) + 1/(√(2π)S); between, the branch and bound. The search
// goes on until claimed is decided, if it can.
func gsTaylorSup(form string, claimed *big.Rat) (*gsSup, error) {
	c, err := gsCalcFor(form)
	if err != nil {
		return nil, err
	}
	m4, err := c.m4()
	if err != nil {
		return nil, err
	}
	near := gsNearTaylor(gsNearEnd, m4)
	far, err := gsFarTaylor(gsFarStart)
	if err != nil {
		return nil, err
	}
	var boxes []*gsBox
	for z := new(big.Rat).Set(gsNearEnd); z.Cmp(gsFarStart) < 0; {
		next := new(big.Rat).Add(z, big.NewRat(1, 8))
		boxes = append(boxes, &gsBox{a0: z, a1: next})
		z = next
	}
	r, err := gsBranchAndBound(gsTaylorProblem(c), boxes, claimed)
	if err != nil {
		return nil, err
	}
	return gsFinish(r, m4, near, far, c.points), nil
}

// gsMulSup encloses C* = sup_{(x, y) ≠ 0} |ε(x, y)|/(|x| + |y|)³: near,
// ≤ √(π/2)·M₄·z_T/12; far, ≤ √(π/2)/S² + 1/(4S); between, the branch and
// bound over (s, v) ∈ [z_T, S] × [0, 1/2], both sign cases.
func gsMulSup(form string, claimed *big.Rat) (*gsSup, error) {
	c, err := gsCalcFor(form)
	if err != nil {
		return nil, err
	}
	m4, err := c.m4()
	if err != nil {
		return nil, err
	}
	near, err := gsNearMul(gsNearEnd, m4)
	if err != nil {
		return nil, err
	}
	far, err := gsFarMul(gsFarStart)
	if err != nil {
		return nil, err
	}
	var boxes []*gsBox
	for _, opp := range []bool{false, true} {
		for s := new(big.Rat).Set(gsNearEnd); s.Cmp(gsFarStart) < 0; {
			next := new(big.Rat).Add(s, big.NewRat(1, 8))
			for _, v := range [][2]int64{{0, 1}, {1, 2}} {
				boxes = append(boxes, &gsBox{a0: s, a1: next, b0: big.NewRat(v[0], 4), b1: big.NewRat(v[1], 4), opp: opp})
			}
			s = next
		}
	}
	r, err := gsBranchAndBound(gsMulProblem(c), boxes, claimed)
	if err != nil {
		return nil, err
	}
	return gsFinish(r, m4, near, far, c.points), nil
}

func gsFinish(r *gsSearch, m4, near, far *big.Rat, points int) *gsSup {
	hi := new(big.Rat).Set(r.hi)
	for _, b := range []*big.Rat{near, far} {
		if b.Cmp(hi) > 0 {
			hi.Set(b)
		}
	}
	return &gsSup{lo: r.lo, hi: hi, at: r.at, m4: m4, near: near, far: far, search: r, points: points}
}

// Regions describes the three regions of a proof, the variable being
// named v ("|z|" or "s").
func (s *gsSup) regions(v string) string {
	return fmt.Sprintf("%s ≤ %s by |GELU⁗| ≤ M₄ = %s (ratio ≤ %s), %s ≥ %s by |GELU(z) − z/2| ≤ |z|/2 (ratio ≤ %s), %s ≤ %s ≤ %s by a branch and bound over %d boxes (depth %d) on Taylor models of R(z)/z³ from %d grid points",
		v, gsNearEnd.RatString(), s.m4.FloatString(4), s.near.FloatString(4), v, gsFarStart.RatString(), s.far.FloatString(4),
		gsNearEnd.RatString(), v, gsFarStart.RatString(), s.search.boxes, s.search.depth, s.points)
}

// refinedNote says when the search went past its tolerance to decide the
// claimed constant.
func (s *gsSup) refinedNote() string {
	if s.search.refined {
		return ", and past it to decide the claimed constant"
	}
	return ""
}

// enclosure prints [lo, hi] to 7 decimals and the ratio to claimed to 4
// ("0.3297" or "0.3297–0.3298" where they differ there).
func (s *gsSup) enclosure(claimed *big.Rat) string {
	lo := new(big.Rat).Quo(s.lo, claimed).FloatString(4)
	if hi := new(big.Rat).Quo(s.hi, claimed).FloatString(4); hi != lo {
		lo += "–" + hi
	}
	return fmt.Sprintf("[%s, %s], %s of the bound", s.lo.FloatString(7), s.hi.FloatString(7), lo)
}
