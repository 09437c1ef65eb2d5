package diagnose

import (
	"fmt"
	"math/big"
)

// tie finds a key that the format's weighting picks, tied in the
// computed scores with an exact maximum whose score is larger exactly,
// and whose value differs from it.
func (s *attnScan) tie(hs *headScores, head, i int, ks []keyScore) *Cause {
	if len(ks) < 2 {
		return nil
	}
	d := s.d
	rk := s.rank(ks)
	a := s.wrongPick(hs, ks, rk)
	if a < 0 {
		return nil
	}
	b := -1
	if rk.atMax[rk.top] {
		b = rk.top
	} else {
		for k := range ks {
			if rk.inTop[k] && rk.atMax[k] {
				if differ, _ := s.valuesDiffer(hs, ks[a].j, ks[k].j); differ {
					b = k
					break
				}
			}
		}
	}
	if b < 0 {
		return nil // the top key's computed score is below: a gap
	}
	steps := s.steps(hs, i, ks[a].j, ks[b].j)
	lo, hi := ks[a], ks[b]
	if hi.j < lo.j {
		lo, hi = hi, lo
	}
	_, vals := s.valuesDiffer(hs, lo.j, hi.j)
	count := 0
	for _, on := range rk.atMax {
		if on {
			count++
		}
	}
	fmax := ks[b].f
	where := fmt.Sprintf("%s, head %d, position %d, keys j = %d and %d", s.label, head+1, i+1, lo.j+1, hi.j+1)
	detail := fmt.Sprintf("at position %d, the scores of j = %d and j = %d are %s and %s %s, but %s computes both as %s (its spacing at %s is %s)%s",
		i+1, lo.j+1, hi.j+1, numText(lo.s), numText(hi.s), d.exactly(), d.format(), numText(fmax), numText(new(big.Rat).Abs(fmax)), spacingText(d.spacing(fmax)), stepsText(steps))
	if count > 2 {
		detail += fmt.Sprintf("; %d positions in all come out at the maximum", count)
	}
	detail += "; their values W^V h_j differ (" + vals + ")"
	return &Cause{Kind: KindTie, Where: where, Detail: d.withNote(detail)}
}
