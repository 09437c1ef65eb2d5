package diagnose

import (
	"fmt"
	"math/big"

	"github.com/transformer-cookbook/verify/model"
)

// gap finds a computed lead of the top key over a key whose value
// differs that is within gapUnits units of the format's spacing and
// changes the weights: reversed, so that a hardmax picks the other key,
// or, under softmax, narrow either way.
func (s *attnScan) gap(hs *headScores, head, i int, ks []keyScore) *Cause {
	if len(ks) < 2 {
		return nil
	}
	d := s.d
	rk := s.rank(ks)
	top := ks[rk.top]
	a := -1
	if s.att.Weighting == model.Softmax {
		for k := range ks {
			if differ, _ := s.valuesDiffer(hs, ks[k].j, top.j); differ && !rk.inTop[k] && (a < 0 || ks[k].f.Cmp(ks[a].f) > 0) {
				a = k
			}
		}
	} else if a = s.wrongPick(hs, ks, rk); a >= 0 && rk.atMax[rk.top] {
		return nil // a tie, which tie reports
	}
	if a < 0 {
		return nil
	}
	other := ks[a]
	lead := new(big.Rat).Sub(top.f, other.f)
	scale := new(big.Rat).Abs(top.f)
	if o := new(big.Rat).Abs(other.f); o.Cmp(scale) > 0 {
		scale = o
	}
	sp := d.spacing(scale)
	alead := new(big.Rat).Abs(lead)
	if sp.Sign() == 0 || alead.Cmp(new(big.Rat).Mul(sp, big.NewRat(gapUnits, 1))) > 0 {
		return nil
	}
	units := unitsText(new(big.Rat).Quo(alead, sp))
	var computed string
	switch lead.Sign() {
	case -1:
		computed = fmt.Sprintf("reversed by %s of its spacing %s there", units, spacingText(sp))
	case 0:
		computed = fmt.Sprintf("a tie (its spacing there is %s)", spacingText(sp))
	default:
		computed = fmt.Sprintf("a lead of %s, %s of its spacing %s there", numText(lead), units, spacingText(sp))
	}
	steps := s.steps(hs, i, other.j, top.j)
	lo, hi := other, top
	if hi.j < lo.j {
		lo, hi = hi, lo
	}
	_, vals := s.valuesDiffer(hs, lo.j, hi.j)
	where := fmt.Sprintf("%s, head %d, position %d, keys j = %d and %d", s.label, head+1, i+1, lo.j+1, hi.j+1)
	detail := fmt.Sprintf("at position %d, the largest score, %s (j = %d), leads %s (j = %d) by %s %s, but %s computes them as %s and %s, %s%s; their values W^V h_j differ (%s)",
		i+1, numText(top.s), top.j+1, numText(other.s), other.j+1, numText(new(big.Rat).Sub(top.s, other.s)), d.exactly(),
		d.format(), numText(top.f), numText(other.f), computed, stepsText(steps), vals)
	return &Cause{Kind: KindGap, Where: where, Detail: d.withNote(detail)}
}
