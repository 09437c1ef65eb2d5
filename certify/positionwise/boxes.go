package positionwise

import (
	"fmt"
	"math/big"
)

// boxes decides the grid's whole box by splitting: a box is proved when
// every output is exact on it, run when it holds at most leafPoints
// points, and split otherwise, after a few of its points are run (a
// failing one ends the search).
func (s *search) boxes() error {
	maxBoxes := s.pr.MaxBoxes
	switch {
	case maxBoxes == 0 && s.prog.opaque():
		maxBoxes = OpaqueMaxBoxes
	case maxBoxes == 0:
		maxBoxes = DefaultMaxBoxes
	}
	stack := s.initialBoxes()
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
		split, err := s.box(b[0], b[1])
		if err == errStop {
			return nil
		}
		if err != nil {
			return err
		}
		stack = append(stack, split...)
	}
	s.res.Verdict = Proved
	if s.res.ProvedBoxes == 0 {
		s.res.Verdict = Run
	}
	return nil
}

// box decides one box, or returns its halves.
func (s *search) box(lo, hi []int64) ([][2][]int64, error) {
	if s.exact(lo, hi) {
		s.res.ProvedBoxes++
		if s.pr.keep != nil {
			s.pr.keep(lo, hi)
		}
		return nil, nil
	}
	points := 1.0
	for k := range lo {
		points *= float64(width(lo[k], hi[k])) + 1
	}
	if points <= leafPoints {
		s.res.RunBoxes++
		return nil, s.runBox(lo, hi)
	}
	if err := s.runPoints(s.tries(lo, hi)); err != nil {
		return nil, err
	}
	return s.split(lo, hi), nil
}

// exact reports whether the analysis proves every output exact on the
// box: the format's outputs are the construction's exact ones there.
func (s *search) exact(lo, hi []int64) bool {
	if mutation == "prove-nothing" {
		return false // tests: every point is run
	}
	if s.stacked != nil {
		return s.exactStacked(lo, hi)
	}
	h := make([]aval, s.prog.d)
	for c := range h {
		h[c] = zeroVal
	}
	var norm func(int, []aval, bool) []aval
	if s.prog.hasNorm() {
		l, u := make([]*big.Rat, len(lo)), make([]*big.Rat, len(hi))
		for k := range lo {
			l[k], u[k] = rat(s.g.value(lo[k])), rat(s.g.value(hi[k]))
		}
		norm = s.normFloat(l, u)
	}
	for k, c := range s.pr.Inputs {
		h[c] = exactVal(span{s.g.value(lo[k]), s.g.value(hi[k])}, s.g.quantum(lo[k], hi[k]))
	}
	for _, o := range s.g.run(s.prog, h, norm) {
		if o.top || !o.exact {
			return false
		}
	}
	return true
}

// tries are the points run in a box before it is split: its two extreme
// corners, its middle, and seeded random points.
func (s *search) tries(lo, hi []int64) [][]*big.Rat {
	d := len(lo)
	pick := func(f func(k int) int64) []*big.Rat {
		x := make([]*big.Rat, d)
		for k := range x {
			x[k] = rat(s.g.value(f(k)))
		}
		return x
	}
	out := [][]*big.Rat{
		pick(func(k int) int64 { return lo[k] }),
		pick(func(k int) int64 { return hi[k] }),
		pick(func(k int) int64 { return lo[k] + int64(width(lo[k], hi[k])/2) }),
	}
	for t := 0; t < tries; t++ {
		out = append(out, pick(func(k int) int64 { return lo[k] + int64(s.rng.Uint64N(width(lo[k], hi[k])+1)) }))
	}
	return out
}

// split halves a box: at 0 along the first coordinate whose range holds
// both signs (a ReLU of ±x is decided on either side), else along the
// widest coordinate at its middle ordinal, which halves its range of
// exponents while it spans several binades.
func (s *search) split(lo, hi []int64) [][2][]int64 {
	at, mid := -1, int64(0)
	for k := range lo {
		if lo[k] < 0 && hi[k] > 0 {
			at, mid = k, -1
			break
		}
	}
	if at < 0 {
		wide := uint64(0)
		for k := range lo {
			if w := width(lo[k], hi[k]); at < 0 || w > wide {
				at, wide = k, w
			}
		}
		mid = lo[at] + int64(wide/2)
	}
	lo2, hi1 := append([]int64(nil), lo...), append([]int64(nil), hi...)
	hi1[at], lo2[at] = mid, mid+1
	// The upper half is pushed last, so analysed first.
	return [][2][]int64{{lo, hi1}, {lo2, hi}}
}

// pointValue is the rational of ordinal k of the grid (for tests).
func (g *grid) pointValue(k int64) *big.Rat { return rat(g.value(k)) }

// width is hi − lo for lo ≤ hi, in uint64: fp64's ordinals span more
// than int64 holds (2·(2^63 − 2^52) − 1 values).
func width(lo, hi int64) uint64 { return uint64(hi) - uint64(lo) }
