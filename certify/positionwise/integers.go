package positionwise

import (
	"fmt"
	"math"
	"math/big"
	"math/bits"

	"github.com/transformer-cookbook/verify/internal/plural"
	"github.com/transformer-cookbook/verify/numeric"
)

// A construction that fails somewhere on a format's values may still be
// right on the inputs a construction usually carries: small integers
// (counts, positions, symbols, Booleans). AnalyseIntegers decides the
// integer inputs of magnitude at most 2^w, by the same enumeration or
// boxes as Analyse; IntegerLimit finds the widest such w it proves.

// AnalyseIntegers is Analyse over the integer points of the domain
// whose every component has magnitude at most 2^w, 0 ≤ w ≤ the format's
// significand bits (every such integer is then a value of the format).
// The grid's ordinals are the integers themselves, so a box is a product
// of ranges of consecutive integers, and an input component is a
// multiple of 2^0 (the rule of the package documentation with quantum
// 0), on the float64 path or, for a big float of more than 53 bits, on
// the wide grid. It treats no Finite domain.
func AnalyseIntegers(pr Problem, w int) (*Result, error) {
	if pr.Finite != nil {
		return nil, fmt.Errorf("the domain is a finite list of points: it has no integer subdomain to search")
	}
	if pr.Precision.Kind == numeric.KindBigFloat && pr.Precision.Bits > 53 {
		wg, err := newWgrid(pr.Precision.String()+"-bit", int(pr.Precision.Bits)).onIntegers(w)
		if err != nil {
			return nil, err
		}
		return settled(analyseWideOn(pr, wg))
	}
	g, err := gridOf(pr.Precision)
	if err != nil {
		return nil, err
	}
	if g, err = g.onIntegers(w); err != nil {
		return nil, err
	}
	return settled(analyseOn(pr, g))
}

// IntegerRange is what IntegerLimit found: every integer input of
// magnitude at most 2^Width is right (Proved: the analysis there), and
// Next is the analysis at 2^(Width+1), which does not prove it (Fails,
// with its input, or Undecided); Next is nil where Width is MaxWidth,
// the largest width the format holds every integer of (or, Bounded, the
// claimed domain's). Width is −1 when not even the integers of magnitude
// at most 1 are proved right.
type IntegerRange struct {
	Width, MaxWidth int
	Proved, Next    *Result
	// Bounded says MaxWidth is the claimed domain's: its ranges hold no
	// integer of magnitude above 2^MaxWidth.
	Bounded bool
}

// boundWidth is the least w ≥ 0 with every component's range within
// [−2^w, 2^w], where Problem.Ranges bounds every component.
func boundWidth(pr Problem) (int, bool) {
	if len(pr.Ranges) < len(pr.Names) {
		return 0, false
	}
	w := 0
	for _, r := range pr.Ranges {
		ends := r.Values
		if ends == nil {
			if r.Lo == nil || r.Hi == nil {
				return 0, false
			}
			ends = []*big.Rat{r.Lo, r.Hi}
		}
		for _, v := range ends {
			for a := new(big.Rat).Abs(v); a.Cmp(new(big.Rat).SetInt(new(big.Int).Lsh(big.NewInt(1), uint(w)))) > 0; {
				w++
			}
		}
	}
	return w, true
}

// IntegerLimit finds a largest w for which AnalyseIntegers proves (or
// runs) every input, by bisection over 0 … MaxWidth. Bisection is sound
// because the domains grow with w: an input failing at width w is an
// input at every larger width, so the widths that hold are 0 … Width.
// A width left undecided counts as not proved, so the result claims only
// what an analysis proved: at Width, and of Width + 1 what Next says.
// Where an undecided width lies below a width the analysis could prove
// (its bound of boxes need not be monotone), the bisection may stop
// short of it: Width is the widest proved, not always the widest true.
func IntegerLimit(pr Problem) (*IntegerRange, error) {
	maxW, bounded := 0, false
	if pr.Precision.Kind == numeric.KindBigFloat && pr.Precision.Bits > 53 {
		maxW = int(pr.Precision.Bits) // the wide grid: no largest value below 2^P
	} else {
		g, err := gridOf(pr.Precision)
		if err != nil {
			return nil, err
		}
		maxW = g.p
		for maxW > 0 && math.Ldexp(1, maxW) > g.max {
			maxW--
		}
	}
	if b, ok := boundWidth(pr); ok && b < maxW {
		// Wider domains hold no more integers of the claimed domain.
		maxW, bounded = b, true
	}
	r := &IntegerRange{Width: -1, MaxWidth: maxW, Bounded: bounded}
	lo, hi := -1, maxW+1 // lo holds (or is −1), hi does not (or is past maxW)
	for hi-lo > 1 {
		mid := lo + (hi-lo)/2
		res, err := AnalyseIntegers(pr, mid)
		if err != nil {
			return nil, err
		}
		if res.Verdict == Proved || res.Verdict == Run {
			lo, r.Proved = mid, res
		} else {
			hi, r.Next = mid, res
		}
	}
	r.Width = lo
	if hi > maxW {
		r.Next = nil
	}
	return r, nil
}

// Statement says what the range proves, for a report, in a line: the
// widest integer domain proved, how it was established, and what
// happens one width further.
func (r *IntegerRange) Statement() string {
	n := r.Next
	p := r.Proved
	if p == nil {
		// Not even width 0 proved: what the analysis found there.
		if n.Verdict == Fails {
			s := fmt.Sprintf("no integer domain holds: at (%s), of magnitude at most 1, %s", ratsText(n.Counterexample), n.Why)
			if n.Unreachable {
				s += " (no finite value of the format is the exact output)"
			}
			return s
		}
		return "no integer domain proved: on the integers of magnitude at most 1 the analysis is undecided: " + n.Why
	}
	s := fmt.Sprintf("every input with integer components of magnitude at most 2^%d, in the claimed domain, is right", r.Width)
	switch p.Verdict {
	case Run:
		s += fmt.Sprintf(" (all %s run)", plural.Of(int(p.Points), "input"))
	case Proved:
		s += fmt.Sprintf(" (proved exact on %s", plural.Of(p.ProvedBoxes, "box"))
		if p.RunBoxes > 0 {
			s += fmt.Sprintf("; %s it could not prove run point by point", plural.Of(p.RunBoxes, "box"))
		}
		s += ")"
	}
	switch {
	case n == nil && r.Bounded:
		return s + fmt.Sprintf("; the claimed domain holds no integer of magnitude above 2^%d", r.MaxWidth)
	case n == nil:
		return s + fmt.Sprintf("; 2^%d is the widest the format holds every integer of", r.MaxWidth)
	case n.Verdict == Fails:
		s += fmt.Sprintf("; at 2^%d, (%s) fails: %s", r.Width+1, ratsText(n.Counterexample), n.Why)
		if n.Unreachable {
			s += " (no finite value of the format is the exact output)"
		}
		return s
	}
	return s + fmt.Sprintf("; 2^%d undecided: %s", r.Width+1, n.Why)
}

// Vacuous says the widest domain proved holds no input: no integer of
// the claimed domain has magnitude at most 2^Width, so that "every one
// right" says nothing.
func (r *IntegerRange) Vacuous() bool {
	return r.Proved != nil && r.Proved.Verdict == Run && r.Proved.Points == 0
}

// bitsLen is the number of bits of the nonnegative n.
func bitsLen(n int64) int { return bits.Len64(uint64(n)) }
