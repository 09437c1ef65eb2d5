package positionwise

import (
	"fmt"
	"math/big"
)

// The wide grid: a big float of P bits, any P (the search runs it for
// P > 53, which no float64 holds; the tests run it at 24 and 53 too, to
// hold it to the float64 path). Values and enclosures are rationals
// (big.Rat), so every bound is exact and nothing is rounded outward;
// ordinals are big.Int (P = 113 has 2^112 values a binade). The domain
// is the one of a big float of at most 53 bits: the P-bit values of
// float64's normal range (2^-1022 ≤ |x| < 2^1024) and 0.

// wgrid is a P-bit big float's values, numbered in order: ordinal 0 is
// 0, ordinal 1 + (e − eMin)·2^(P−1) + (m − 2^(P−1)) is m·2^(e−P+1) for
// m ∈ [2^(P−1), 2^P), negatives mirrored.
type wgrid struct {
	name   string
	p      int
	eMin   int // exponent of the smallest nonzero magnitude
	eMax   int // exponent of the largest
	qmin   int // eMin − P + 1: every value is a multiple of 2^qmin
	maxOrd *big.Int
	max    *big.Rat
	// gMin and eArith bound big.Float's exponent range well inside
	// (about ±2^31): a result that is a nonzero multiple of 2^g with
	// g ≥ gMin and of magnitude at most 2^eArith neither underflows nor
	// overflows, and is rounded once to nearest at P bits.
	gMin, eArith int
	// integers, when set, restricts the domain to the integers of
	// magnitude at most maxOrd (onIntegers): ordinal k is the integer k,
	// as on the float64 path's grid.
	integers bool
}

// onIntegers is g with its domain restricted to the integers of
// magnitude at most 2^w, 0 ≤ w ≤ P (every one a value of the format).
func (g *wgrid) onIntegers(w int) (*wgrid, error) {
	if w < 0 || w > g.p {
		return nil, fmt.Errorf("integers up to 2^%d are not all values of %s (its significand has %d bits)", w, g.name, g.p)
	}
	h := *g
	h.integers = true
	h.maxOrd = new(big.Int).Lsh(big.NewInt(1), uint(w))
	h.max = new(big.Rat).SetInt(h.maxOrd)
	return &h, nil
}

func newWgrid(name string, p int) *wgrid {
	g := &wgrid{name: name, p: p, eMin: -1022, eMax: 1023, qmin: -1022 - p + 1, gMin: -(1 << 30), eArith: 1 << 30}
	g.maxOrd = new(big.Int).Lsh(big.NewInt(int64(g.eMax-g.eMin+1)), uint(p-1))
	g.max = g.value(g.maxOrd)
	return g
}

// pow2 is 2^e, exactly.
func pow2(e int) *big.Rat {
	if e >= 0 {
		return new(big.Rat).SetInt(new(big.Int).Lsh(big.NewInt(1), uint(e)))
	}
	return new(big.Rat).SetFrac(big.NewInt(1), new(big.Int).Lsh(big.NewInt(1), uint(-e)))
}

// leq2 reports whether 0 ≤ m ≤ 2^e, without building 2^e where the
// bit lengths decide (e may be 2^30).
func leq2(m *big.Rat, e int) bool {
	if m.Sign() == 0 {
		return true
	}
	d := m.Num().BitLen() - m.Denom().BitLen() // m ∈ (2^(d−1), 2^(d+1))
	switch {
	case d+1 <= e:
		return true
	case d-1 >= e:
		return false
	}
	return m.Cmp(pow2(e)) <= 0
}

// dyadic is m·2^e.
func dyadic(m *big.Int, e int) *big.Rat {
	return new(big.Rat).Mul(new(big.Rat).SetInt(m), pow2(e))
}

// value is the value of ordinal k.
func (g *wgrid) value(k *big.Int) *big.Rat {
	if g.integers {
		return new(big.Rat).SetInt(k)
	}
	switch k.Sign() {
	case 0:
		return new(big.Rat)
	case -1:
		return new(big.Rat).Neg(g.value(new(big.Int).Neg(k)))
	}
	j := new(big.Int).Sub(k, big.NewInt(1))
	binade := new(big.Int).Rsh(j, uint(g.p-1))
	m := new(big.Int).Sub(j, new(big.Int).Lsh(binade, uint(g.p-1)))
	m.Add(m, new(big.Int).Lsh(big.NewInt(1), uint(g.p-1)))
	return dyadic(m, g.eMin+int(binade.Int64())-g.p+1)
}

// split is |v| = m·2^(e−P+1) with m ∈ [2^(P−1), 2^P) for v ≠ 0, and
// whether v has at most P significant bits.
func (g *wgrid) split(v *big.Rat) (m *big.Int, e int, ok bool) {
	f := new(big.Float).SetPrec(uint(g.p)).SetMode(big.ToZero)
	f.SetRat(new(big.Rat).Abs(v))
	acc := f.Acc()
	mant := new(big.Float)
	exp := f.MantExp(mant) // |v| ≈ mant·2^exp, mant ∈ [1/2, 1)
	mant.SetMantExp(mant, g.p)
	m, _ = mant.Int(nil)
	return m, exp - 1, acc == big.Exact
}

// ord is the ordinal of a value v of the grid.
func (g *wgrid) ord(v *big.Rat) *big.Int {
	if g.integers {
		return new(big.Int).Set(v.Num()) // an integer: its denominator is 1
	}
	if v.Sign() == 0 {
		return new(big.Int)
	}
	m, e, _ := g.split(v)
	k := new(big.Int).Lsh(big.NewInt(int64(e-g.eMin)), uint(g.p-1))
	k.Add(k, m).Sub(k, new(big.Int).Lsh(big.NewInt(1), uint(g.p-1))).Add(k, big.NewInt(1))
	if v.Sign() < 0 {
		k.Neg(k)
	}
	return k
}

// onGrid reports whether r is a value of the grid.
func (g *wgrid) onGrid(r *big.Rat) bool {
	if g.integers {
		return r.IsInt() && new(big.Rat).Abs(r).Cmp(g.max) <= 0
	}
	if r.Sign() == 0 {
		return true
	}
	a := new(big.Rat).Abs(r)
	if a.Cmp(pow2(g.eMin)) < 0 || a.Cmp(g.max) > 0 {
		return false
	}
	_, _, ok := g.split(r)
	return ok
}

// floorOrd is the ordinal of the largest value ≤ r (−maxOrd if none),
// ceilOrd of the smallest ≥ r (maxOrd if none).
func (g *wgrid) floorOrd(r *big.Rat) *big.Int {
	neg := new(big.Int).Neg(g.maxOrd)
	if g.integers {
		// ⌊r⌋, clamped to the domain: Int.Div rounds toward −∞ for a
		// positive divisor (Euclidean division).
		f := new(big.Int).Div(r.Num(), r.Denom())
		switch {
		case f.Cmp(g.maxOrd) > 0:
			return new(big.Int).Set(g.maxOrd)
		case f.Cmp(neg) < 0:
			return neg
		}
		return f
	}
	switch {
	case r.Cmp(g.max) >= 0:
		return new(big.Int).Set(g.maxOrd)
	case new(big.Rat).Neg(r).Cmp(g.max) > 0:
		return neg
	case r.Sign() >= 0 && r.Cmp(pow2(g.eMin)) < 0:
		return new(big.Int)
	case r.Sign() < 0 && new(big.Rat).Neg(r).Cmp(pow2(g.eMin)) <= 0:
		return big.NewInt(-1)
	}
	// Inside the normal range: r rounded toward −∞ at P bits.
	f := new(big.Float).SetPrec(uint(g.p)).SetMode(big.ToNegativeInf)
	f.SetRat(r)
	v, _ := f.Rat(nil)
	return g.ord(v)
}

func (g *wgrid) ceilOrd(r *big.Rat) *big.Int {
	return new(big.Int).Neg(g.floorOrd(new(big.Rat).Neg(r)))
}

// lowBit is q with v = odd·2^q, for a dyadic v ≠ 0.
func lowBit(v *big.Rat) int {
	n := new(big.Int).Abs(v.Num())
	return int(n.TrailingZeroBits()) - (v.Denom().BitLen() - 1)
}

// quantum is the exponent of the smallest spacing among the values of
// ordinals lo … hi, as grid.quantum.
func (g *wgrid) quantum(lo, hi *big.Int) int {
	if lo.Cmp(hi) == 0 && lo.Sign() != 0 {
		return lowBit(g.value(lo))
	}
	if g.integers {
		if mutation == "integer-quantum" {
			return 1
		}
		return 0 // consecutive integers
	}
	if lo.Sign() <= 0 && hi.Sign() >= 0 {
		return g.qmin
	}
	a, b := new(big.Rat).Abs(g.value(lo)), new(big.Rat).Abs(g.value(hi))
	if b.Cmp(a) < 0 {
		a = b
	}
	_, e, _ := g.split(a)
	return max(e, g.eMin) - g.p + 1
}

// rspan is a closed interval of rationals: exact bounds.
type rspan struct{ lo, hi *big.Rat }

func (s rspan) add(t rspan) rspan {
	return rspan{new(big.Rat).Add(s.lo, t.lo), new(big.Rat).Add(s.hi, t.hi)}
}

// scale is w·s.
func (s rspan) scale(w *big.Rat) rspan {
	a, b := new(big.Rat).Mul(w, s.lo), new(big.Rat).Mul(w, s.hi)
	if a.Cmp(b) > 0 {
		a, b = b, a
	}
	return rspan{a, b}
}

func (s rspan) mag() *big.Rat {
	a, b := new(big.Rat).Abs(s.lo), new(big.Rat).Abs(s.hi)
	if a.Cmp(b) > 0 {
		return a
	}
	return b
}

func (s rspan) widen(r *big.Rat) rspan {
	return rspan{new(big.Rat).Sub(s.lo, r), new(big.Rat).Add(s.hi, r)}
}

func (s rspan) zero() bool { return s.lo.Sign() == 0 && s.hi.Sign() == 0 }

func ratMax0(x *big.Rat) *big.Rat {
	if x.Sign() < 0 {
		return new(big.Rat)
	}
	return x
}

func (s rspan) relu() rspan { return rspan{ratMax0(s.lo), ratMax0(s.hi)} }

// wval is aval on the wide grid, with g: every value the format computes
// is a multiple of 2^g (inputs are multiples of 2^qmin, stored weights
// of their lowest bit; a product of multiples of 2^a and 2^b is one of
// 2^(a+b), a sum of 2^min(a, b); rounding to P bits keeps a multiple of
// 2^g one, since it either returns the value or lands on a multiple of a
// spacing ≥ 2^g). A nonzero result is then at least 2^g in magnitude,
// which g ≥ gMin keeps far from big.Float's underflow.
type wval struct {
	top, exact, zero bool
	q, g             int
	fv, ev           rspan
}

var (
	wzero = wval{exact: true, zero: true, q: 1 << 30, g: 1 << 30}
	wtop  = wval{top: true}
)

func wexact(s rspan, q int) wval {
	if s.zero() {
		return wzero
	}
	return wval{exact: true, q: q, g: q, fv: s, ev: s}
}

// wweight is a parameter: its exact value w and the stored w̃ = odd·2^qw.
type wweight struct {
	unknown    bool // an irrational parameter: top
	w, s       *big.Rat
	same, pow2 bool
	qw         int
}

func newWweight(w weight) wweight {
	if w.unknown {
		return wweight{unknown: true}
	}
	x := wweight{w: w.exact, s: w.storedRat, same: w.exact.Cmp(w.storedRat) == 0}
	if x.s.Sign() != 0 {
		x.qw = lowBit(x.s)
		n := new(big.Int).Abs(x.s.Num())
		x.pow2 = n.BitLen() == int(n.TrailingZeroBits())+1
	}
	return x
}

func (w wweight) isZero() bool { return !w.unknown && w.s.Sign() == 0 && w.w.Sign() == 0 }

func (w wweight) constant() wval {
	switch {
	case w.unknown:
		return wtop
	case w.isZero():
		return wzero
	case w.same:
		return wexact(rspan{w.s, w.s}, w.qw)
	}
	return wval{fv: rspan{w.s, w.s}, ev: rspan{w.w, w.w}, g: w.qw}
}

// exactly is grid.exactly: every multiple of 2^q of magnitude at most m
// is a P-bit value the arithmetic holds.
func (g *wgrid) exactly(q int, m *big.Rat) bool {
	bits := q + g.p
	if mutation == "quantum-bit" {
		bits++
	}
	return q >= g.gMin && leq2(m, g.eArith) && leq2(m, bits)
}

// rounded is an operation whose exact result on the format's operands
// lies in f0 (every one a multiple of 2^gq), rounded once to nearest:
// within |v|·2^(−P) ≤ |v|·2^(1−P) of it.
func (g *wgrid) rounded(f0, ev rspan, gq int) wval {
	if (gq < g.gMin && mutation != "wide-no-range") || !leq2(f0.mag(), g.eArith) {
		return wtop
	}
	r := new(big.Rat).Mul(f0.mag(), pow2(1-g.p))
	return wval{fv: f0.widen(r), ev: ev, g: gq}
}

func (g *wgrid) mul(w wweight, a wval) wval {
	switch {
	case a.top || w.unknown:
		return wtop
	case a.zero, w.isZero():
		return wzero
	}
	f0 := a.fv.scale(w.s)
	if a.exact && w.same {
		m := f0.mag()
		if w.pow2 {
			if leq2(m, g.eArith) && (a.q+w.qw >= g.gMin || mutation == "wide-no-range") {
				return wexact(f0, a.q+w.qw)
			}
		} else if q := a.q + w.qw; g.exactly(q, m) {
			return wexact(f0, q)
		}
	}
	return g.rounded(f0, a.ev.scale(w.w), a.g+w.qw)
}

func (g *wgrid) add(a, b wval) wval {
	switch {
	case a.top || b.top:
		return wtop
	case a.zero:
		return b
	case b.zero:
		return a
	}
	s := a.fv.add(b.fv)
	if a.exact && b.exact {
		q := min(a.q, b.q)
		if g.exactly(q, s.mag()) || wsterbenz(a.fv, b.fv) || wsterbenz(b.fv, a.fv) {
			return wexact(s, q)
		}
	}
	return g.rounded(s, a.ev.add(b.ev), min(a.g, b.g))
}

// wsterbenz is sterbenz on rationals: a > 0 > b, |b|/2 ≤ a ≤ 2|b|.
func wsterbenz(x, y rspan) bool {
	two := big.NewRat(2, 1)
	if mutation == "sterbenz-loose" {
		two = big.NewRat(4, 1)
	}
	return x.lo.Sign() > 0 && y.hi.Sign() < 0 &&
		new(big.Rat).Mul(two, x.lo).Cmp(new(big.Rat).Neg(y.lo)) >= 0 &&
		x.hi.Cmp(new(big.Rat).Mul(new(big.Rat).Neg(two), y.hi)) <= 0
}

func wrelu(a wval) wval {
	switch {
	case a.top:
		return wtop
	case a.zero:
		return wzero
	case a.fv.hi.Sign() <= 0 && (a.ev.hi.Sign() <= 0 || mutation == "relu-format-only"):
		return wzero
	case a.fv.lo.Sign() >= 0 && a.ev.lo.Sign() >= 0:
		return a
	}
	out := wval{exact: a.exact, q: a.q, g: a.g, fv: a.fv.relu(), ev: a.ev.relu()}
	if out.fv.zero() && out.ev.zero() {
		return wzero
	}
	return out
}

func (g *wgrid) matVec(w matrix, x []wval, b []weight) []wval {
	out := make([]wval, w.rows)
	for r := range out {
		acc := wzero
		for c := 0; c < w.cols; c++ {
			acc = g.add(acc, g.mul(newWweight(w.w[r*w.cols+c]), x[c]))
		}
		if b != nil {
			acc = g.add(acc, newWweight(b[r]).constant())
		}
		out[r] = acc
	}
	return out
}

// run is program.run on the wide grid.
func (g *wgrid) run(p *program, h []wval, norm func(j int, h []wval, affine bool) []wval) []wval {
	affine := true
	for j, L := range p.layers {
		in := h
		if L.norm != nil {
			in = norm(j, h, affine)
		}
		hidden := g.matVec(L.w1, in, L.b1)
		if L.opaque {
			affine = false
			for k := range hidden {
				hidden[k] = wtop
			}
		}
		if L.relu {
			for k, a := range hidden {
				if a.top || !a.zero && a.ev.lo.Sign() < 0 && a.ev.hi.Sign() > 0 {
					affine = false
				}
				hidden[k] = wrelu(a)
			}
		}
		f := g.matVec(L.w2, hidden, L.b2)
		if L.residual {
			for c := range f {
				f[c] = g.add(f[c], h[c])
			}
		}
		h = f
	}
	return g.matVec(p.out, h, nil)
}
