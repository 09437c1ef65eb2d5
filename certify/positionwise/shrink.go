package positionwise

import (
	"cmp"
	"math"
	"math/big"
	"math/bits"
	"slices"
)

// A failing point found at random in a box of fp64 inputs reads like
// 8935267092189887/1569275433846670190958947355801916604025588861116008628224;
// one that fails for the same reason is usually far simpler (1 and
// 2^-60). shrink makes the point simpler, one coordinate at a time, while
// it still fails and stays in the domain: a report's reader should see
// the simplest failure the search can find, and every point it reports is
// run by the model, so this changes only which failure is shown.

// maxShrinkRuns bounds the runs spent simplifying one point.
const maxShrinkRuns = 400

// complexity orders values by simplicity: significant bits first, then
// the distance of the exponent from 0 (0 is simplest, then ±1).
func complexity(v float64) (int, int) {
	if v == 0 {
		return 0, 0
	}
	fr, e := math.Frexp(math.Abs(v))
	m := uint64(math.Ldexp(fr, 53))
	return 53 - bits.TrailingZeros64(m), abs(e - 1)
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

func simpler(a, b float64) bool {
	ba, ea := complexity(a)
	bb, eb := complexity(b)
	return ba < bb || ba == bb && ea < eb
}

// candidates are grid values simpler than v: 0, ±1, v with fewer
// significant bits (truncated), v moved one binade toward 1.
func (g *grid) candidates(v float64) []float64 {
	out := []float64{0, math.Copysign(1, v)}
	fr, e := math.Frexp(v)
	nb, _ := complexity(v)
	for b := 1; b < nb; b++ {
		out = append(out, math.Ldexp(math.Trunc(math.Ldexp(fr, b)), e-b))
	}
	// v moved toward the binade of 1 all the way, half way and one
	// binade, with its significand, and the powers of two on the way.
	for _, j := range []int{e - 1, (e - 1) / 2, cmp.Compare(e-1, 0)} {
		if j != 0 {
			out = append(out, math.Ldexp(v, -j), math.Copysign(math.Ldexp(1, e-1-j), v))
		}
	}
	keep := out[:0]
	for _, c := range out {
		if simpler(c, v) && math.Abs(c) <= g.max && g.value(g.ord(c)) == c {
			keep = append(keep, c)
		}
	}
	return keep
}

// shrink simplifies the failing point x (why: how it fails).
func (s *search) shrink(x []*big.Rat, why string) ([]*big.Rat, string) {
	if s.w != nil {
		return s.shrinkWide(x, why)
	}
	runs := 0
	for improved := true; improved && runs < maxShrinkRuns; {
		improved = false
		for k := range x {
			v, _ := x[k].Float64() // a grid value: exact
			for _, c := range s.g.candidates(v) {
				if runs >= maxShrinkRuns {
					break
				}
				y := append([]*big.Rat(nil), x...)
				y[k] = rat(c)
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

// inDomain reports whether a simplified point stays in the claimed
// domain: within every component's Range, and Valid.
func (s *search) inDomain(y []*big.Rat) bool {
	for k, r := range s.pr.Ranges {
		if k >= len(y) {
			break
		}
		switch {
		case r.Values != nil && !slices.ContainsFunc(r.Values, func(v *big.Rat) bool { return v.Cmp(y[k]) == 0 }):
			return false
		case r.Lo != nil && y[k].Cmp(r.Lo) < 0, r.Hi != nil && y[k].Cmp(r.Hi) > 0:
			return false
		}
	}
	return s.pr.Valid == nil || s.pr.Valid(y) == nil
}
