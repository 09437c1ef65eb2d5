package positionwise

import (
	"fmt"
	"math/big"
	"math/rand/v2"

	"github.com/transformer-cookbook/verify/numeric"
)

// analyseWide is Analyse on the wide grid (wide.go), for a big float of
// any P: the same enumeration of a small domain through Problem.Check,
// the same boxes, rules, splitting, points tried and shrinking, on
// rationals and big ordinals.
func analyseWide(pr Problem) (*Result, error) {
	if pr.Precision.Kind != numeric.KindBigFloat {
		return nil, fmt.Errorf("precision %s is not a big float", pr.Precision)
	}
	return analyseWideOn(pr, newWgrid(pr.Precision.String()+"-bit", int(pr.Precision.Bits)))
}

// analyseWideOn is analyseWide on the wide grid w: the format's, or its
// integers (AnalyseIntegers).
func analyseWideOn(pr Problem, w *wgrid) (*Result, error) {
	s := &search{pr: pr, w: w, rng: rand.New(rand.NewPCG(pr.Seed, 0x9e3779b97f4a7c15))}
	res := &Result{Domain: s.domainText()}
	s.res = res
	if pr.Finite != nil {
		return res, s.enumerateFinite()
	}
	var err error
	if s.prog, err = compile(pr.Model, pr.Round); err != nil {
		return nil, err
	}
	if s.prog.hasNorm() {
		s.normRun, _ = newNormRunner(pr.Precision, pr.Model) // nil: norms are top
	}
	if err := s.wideSearch(); err != nil {
		return nil, err
	}
	return res, nil
}

// wideSearch decides the domain on the wide grid: every point run where
// there are at most MaxEnumerate, else boxes.
func (s *search) wideSearch() error {
	limit := s.pr.MaxEnumerate
	if limit == 0 {
		limit = DefaultMaxEnumerate
	}
	boxes := s.wideInitial()
	total := new(big.Int)
	for _, b := range boxes {
		total.Add(total, boxPoints(b[0], b[1]))
	}
	if total.Cmp(big.NewInt(limit)) <= 0 {
		for _, b := range boxes {
			if err := s.wideRunBox(b[0], b[1]); err == errStop {
				return nil
			} else if err != nil {
				return err
			}
		}
		s.res.Verdict = Run
		return nil
	}
	return s.wideBoxes(boxes)
}

type wbox [2][]*big.Int

// boxPoints is the number of points of the box.
func boxPoints(lo, hi []*big.Int) *big.Int {
	n := big.NewInt(1)
	for k := range lo {
		n.Mul(n, new(big.Int).Add(new(big.Int).Sub(hi[k], lo[k]), big.NewInt(1)))
	}
	return n
}

// wideInitial is initialBoxes on the wide grid.
func (s *search) wideInitial() []wbox {
	g := s.w
	per := make([][][2]*big.Int, len(s.pr.Names))
	for k := range per {
		lo, hi := new(big.Int).Neg(g.maxOrd), new(big.Int).Set(g.maxOrd)
		per[k] = [][2]*big.Int{{lo, hi}}
		if k >= len(s.pr.Ranges) {
			continue
		}
		r := s.pr.Ranges[k]
		per[k] = nil
		if r.Values != nil {
			for _, v := range r.Values {
				if g.onGrid(v) {
					o := g.ord(v)
					per[k] = append(per[k], [2]*big.Int{o, o})
				}
			}
			continue
		}
		if r.Lo != nil {
			lo = g.ceilOrd(r.Lo)
		}
		if r.Hi != nil {
			hi = g.floorOrd(r.Hi)
		}
		// The ends clamp to the grid's: a range beyond them holds none
		// of its values.
		inside := (r.Lo == nil || g.value(lo).Cmp(r.Lo) >= 0) && (r.Hi == nil || g.value(hi).Cmp(r.Hi) <= 0)
		if lo.Cmp(hi) <= 0 && inside {
			per[k] = [][2]*big.Int{{lo, hi}}
		}
	}
	boxes := []wbox{{nil, nil}}
	for k := range per {
		var next []wbox
		for _, b := range boxes {
			for _, r := range per[k] {
				next = append(next, wbox{append(append([]*big.Int(nil), b[0]...), r[0]), append(append([]*big.Int(nil), b[1]...), r[1])})
			}
		}
		boxes = next
	}
	return boxes
}

func (s *search) wpoint(o []*big.Int) []*big.Rat {
	x := make([]*big.Rat, len(o))
	for k := range o {
		x[k] = s.w.value(o[k])
	}
	return x
}

// wideRunBox runs every point of the box, in batches of 4096.
func (s *search) wideRunBox(lo, hi []*big.Int) error {
	const batch = 4096
	cur := make([]*big.Int, len(lo))
	for k := range lo {
		cur[k] = new(big.Int).Set(lo[k])
	}
	var points [][]*big.Rat
	for {
		points = append(points, s.wpoint(cur))
		if len(points) == batch {
			if err := s.runPoints(points); err != nil {
				return err
			}
			points = points[:0]
		}
		k := len(cur) - 1
		for k >= 0 && cur[k].Cmp(hi[k]) == 0 {
			cur[k].Set(lo[k])
			k--
		}
		if k < 0 {
			break
		}
		cur[k].Add(cur[k], big.NewInt(1))
	}
	return s.runPoints(points)
}

// wideBoxes is boxes on the wide grid.
func (s *search) wideBoxes(stack []wbox) error {
	maxBoxes := s.pr.MaxBoxes
	switch {
	case maxBoxes == 0 && s.prog.opaque():
		maxBoxes = OpaqueMaxBoxes
	case maxBoxes == 0:
		maxBoxes = DefaultMaxBoxes
	}
	for len(stack) > 0 {
		b := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if s.res.Boxes >= maxBoxes {
			s.res.Verdict = Undecided
			s.res.Why = fmt.Sprintf("%d boxes analysed, %d left, none failing yet: the analysis stopped at its bound of boxes", s.res.Boxes, len(stack)+1)
			if s.prog.opaque() {
				s.res.Why += " (it follows no GELU or irrational parameter: its boxes are a search for a failing input)"
			}
			return nil
		}
		s.res.Boxes++
		lo, hi := b[0], b[1]
		if s.wideExact(lo, hi) {
			s.res.ProvedBoxes++
			if s.pr.keepWide != nil {
				s.pr.keepWide(lo, hi)
			}
			continue
		}
		if boxPoints(lo, hi).Cmp(big.NewInt(leafPoints)) <= 0 {
			s.res.RunBoxes++
			if err := s.wideRunBox(lo, hi); err == errStop {
				return nil
			} else if err != nil {
				return err
			}
			continue
		}
		if err := s.runPoints(s.wideTries(lo, hi)); err == errStop {
			return nil
		} else if err != nil {
			return err
		}
		stack = append(stack, wideSplit(lo, hi)...)
	}
	s.res.Verdict = Proved
	if s.res.ProvedBoxes == 0 {
		s.res.Verdict = Run
	}
	return nil
}

// wideExact is exact on the wide grid.
func (s *search) wideExact(lo, hi []*big.Int) bool {
	if s.stacked != nil {
		return s.wideExactStacked(lo, hi)
	}
	h := make([]wval, s.prog.d)
	for c := range h {
		h[c] = wzero
	}
	for k, c := range s.pr.Inputs {
		h[c] = wexact(rspan{s.w.value(lo[k]), s.w.value(hi[k])}, s.w.quantum(lo[k], hi[k]))
	}
	var norm func(int, []wval, bool) []wval
	if s.prog.hasNorm() {
		norm = s.normWide(s.wpoint(lo), s.wpoint(hi))
	}
	for _, o := range s.w.run(s.prog, h, norm) {
		if o.top || !o.exact {
			return false
		}
	}
	return true
}

// wideTries is tries on the wide grid: the corners, the middle, seeded
// random points.
func (s *search) wideTries(lo, hi []*big.Int) [][]*big.Rat {
	d := len(lo)
	pick := func(f func(k int) *big.Int) []*big.Rat {
		o := make([]*big.Int, d)
		for k := range o {
			o[k] = f(k)
		}
		return s.wpoint(o)
	}
	out := [][]*big.Rat{
		pick(func(k int) *big.Int { return lo[k] }),
		pick(func(k int) *big.Int { return hi[k] }),
		pick(func(k int) *big.Int { return midOrd(lo[k], hi[k]) }),
	}
	for t := 0; t < tries; t++ {
		out = append(out, pick(func(k int) *big.Int {
			w := new(big.Int).Sub(hi[k], lo[k])
			w.Add(w, big.NewInt(1))
			r := new(big.Int)
			for r.BitLen() <= w.BitLen()+64 {
				r.Lsh(r, 64).Or(r, new(big.Int).SetUint64(s.rng.Uint64()))
			}
			return r.Mod(r, w).Add(r, lo[k])
		}))
	}
	return out
}

// midOrd is lo + ⌊(hi − lo)/2⌋.
func midOrd(lo, hi *big.Int) *big.Int {
	m := new(big.Int).Sub(hi, lo)
	return m.Rsh(m, 1).Add(m, lo)
}

// wideSplit is split on the wide grid.
func wideSplit(lo, hi []*big.Int) []wbox {
	at, mid := -1, (*big.Int)(nil)
	for k := range lo {
		if lo[k].Sign() < 0 && hi[k].Sign() > 0 {
			at, mid = k, big.NewInt(-1)
			break
		}
	}
	if at < 0 {
		var wide *big.Int
		for k := range lo {
			if w := new(big.Int).Sub(hi[k], lo[k]); at < 0 || w.Cmp(wide) > 0 {
				at, wide = k, w
			}
		}
		mid = midOrd(lo[at], hi[at])
	}
	lo2, hi1 := append([]*big.Int(nil), lo...), append([]*big.Int(nil), hi...)
	hi1[at], lo2[at] = mid, new(big.Int).Add(mid, big.NewInt(1))
	return []wbox{{lo, hi1}, {lo2, hi}}
}

// wcomplexity is complexity on rationals: significant bits, then the
// distance of the exponent from 0.
func wcomplexity(v *big.Rat) (int, int) {
	if v.Sign() == 0 {
		return 0, 0
	}
	n := new(big.Int).Abs(v.Num())
	nb := n.BitLen() - int(n.TrailingZeroBits())
	return nb, abs(exponent(v))
}

// exponent is e with 2^e ≤ |v| < 2^(e+1), for a dyadic v ≠ 0.
func exponent(v *big.Rat) int {
	f := new(big.Float).SetPrec(64).SetMode(big.ToZero).SetRat(new(big.Rat).Abs(v))
	return f.MantExp(nil) - 1
}

func wsimpler(a, b *big.Rat) bool {
	ba, ea := wcomplexity(a)
	bb, eb := wcomplexity(b)
	return ba < bb || ba == bb && ea < eb
}

// candidates is grid.candidates on the wide grid.
func (g *wgrid) candidates(v *big.Rat) []*big.Rat {
	one := big.NewRat(int64(v.Sign()), 1)
	out := []*big.Rat{new(big.Rat), one}
	nb, _ := wcomplexity(v)
	for b := 1; b < nb; b++ {
		f := new(big.Float).SetPrec(uint(b)).SetMode(big.ToZero).SetRat(v)
		r, _ := f.Rat(nil)
		out = append(out, r)
	}
	if v.Sign() != 0 {
		e := exponent(v)
		// The powers of two around v.
		out = append(out, new(big.Rat).Mul(one, pow2(e)), new(big.Rat).Mul(one, pow2(e+1)))
		for _, j := range []int{e, e / 2, cmpInt(e, 0)} {
			if j != 0 {
				out = append(out, new(big.Rat).Mul(v, pow2(-j)), new(big.Rat).Mul(one, pow2(e-j)))
			}
		}
	}
	keep := out[:0]
	for _, c := range out {
		if wsimpler(c, v) && g.onGrid(c) {
			keep = append(keep, c)
		}
	}
	return keep
}

func cmpInt(a, b int) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// shrinkWide is shrink on the wide grid, after scaling the whole point.
func (s *search) shrinkWide(x []*big.Rat, why string) ([]*big.Rat, string) {
	runs := 0
	try := func(y []*big.Rat) bool {
		for _, c := range y {
			if !s.w.onGrid(c) {
				return false
			}
		}
		if runs >= maxShrinkRuns || !s.inDomain(y) {
			return false
		}
		runs++
		bad, w, err := s.pr.Check([][]*big.Rat{y})
		if err == nil && bad == 0 {
			x, why = y, w
			return true
		}
		return false
	}
	// First the whole point scaled by a power of two toward the binade
	// of 1 (all the way, half way, one binade), which keeps most
	// failures of rounding: the format scales with it. A scaling is kept
	// only where it brings the exponents nearer 0 in all (spread, the sum
	// of their distances from 0, falls): else a point of one large and
	// one small component would swing between the two for ever.
	spread := func(y []*big.Rat) int {
		d := 0
		for _, c := range y {
			if c.Sign() != 0 {
				d += abs(exponent(c))
			}
		}
		return d
	}
	for scaled := true; scaled; {
		scaled = false
		top := 0
		for _, c := range x {
			if c.Sign() != 0 && (top == 0 || abs(exponent(c)) > abs(top)) {
				top = exponent(c)
			}
		}
		for _, j := range []int{top, top / 2, cmpInt(top, 0)} {
			if j == 0 {
				continue
			}
			y := make([]*big.Rat, len(x))
			for k := range x {
				y[k] = new(big.Rat).Mul(x[k], pow2(-j))
			}
			if spread(y) < spread(x) && try(y) {
				scaled = true
				break
			}
		}
	}
	for improved := true; improved && runs < maxShrinkRuns; {
		improved = false
		for k := range x {
			for _, c := range s.w.candidates(x[k]) {
				if runs >= maxShrinkRuns {
					break
				}
				y := append([]*big.Rat(nil), x...)
				y[k] = c
				if !s.inDomain(y) {
					continue
				}
				runs++
				bad, w, err := s.pr.Check([][]*big.Rat{y})
				if err == nil && bad == 0 {
					x, why, improved = y, w, true
					break
				}
			}
		}
	}
	s.res.Points += int64(runs)
	return x, why
}
