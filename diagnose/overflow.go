package diagnose

import (
	"fmt"
	"math/big"
	"strconv"
	"strings"

	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/model/eval"
)

// overflow finds the first non-finite value of state k at an influencing
// position.
func (d *diagnosis) overflow(k int) *Cause {
	st, rs := d.got.Trace.States[k], d.ref.Trace.States[k]
	for i, vec := range st.Vectors {
		if !d.relevant[k][i] {
			continue
		}
		for c, v := range vec {
			if v.Finite() {
				continue
			}
			where := fmt.Sprintf("%s, position %d, component %s", st.Label, i+1, d.component(c))
			detail := d.overflowDetail(rs.Vectors[i][c], v)
			if x, ok := rs.Vectors[i][c].Rat(); !ok || !d.overflows(x) {
				// The value is in range: say what left it on the way.
				if w := d.firstWeight(k, func(_ *big.Rat, v eval.Value) bool { return !v.Finite() }); w != nil {
					detail = d.withNote(fmt.Sprintf("the sublayer's weight %s = %s is beyond %s's largest finite value %s: %s holds it as %s, and %s computes %s here", w.name, w.expr, d.format(), d.maxFiniteText(), d.format(), heldText(w.held), d.format(), heldText(v)))
				} else if what := d.ffOverflow(k, i); what != "" {
					detail = d.withNote(fmt.Sprintf("%s is beyond %s's largest finite value %s, and %s computes %s here", what, d.format(), d.maxFiniteText(), d.format(), heldText(v)))
				}
			}
			return &Cause{Kind: KindOverflow, Where: where, Detail: detail}
		}
	}
	return nil
}

// overflowDetail explains a non-finite value got whose reference is ref.
func (d *diagnosis) overflowDetail(ref, got eval.Value) string {
	x, ok := ref.Rat()
	if !ok {
		return fmt.Sprintf("%s holds %s, and so does the reference", d.format(), heldText(got))
	}
	if d.overflows(x) {
		return d.withNote(fmt.Sprintf("the exact value %s is beyond %s's largest finite value %s: %s holds %s", numText(x), d.format(), d.maxFiniteText(), d.format(), heldText(got)))
	}
	return d.withNote(fmt.Sprintf("the exact value is %s, within range, but %s holds %s: a value computed on the way (a product, a partial sum, an exp) left %s's range (largest finite value %s), or met one that had", numText(x), d.format(), heldText(got), d.format(), d.maxFiniteText()))
}

func (d *diagnosis) maxFiniteText() string {
	if d.prec.Format == nil {
		return "none"
	}
	return strconv.FormatFloat(d.prec.Format.MaxFinite(), 'g', -1, 64)
}

// overflows reports whether the format rounds x to a non-finite value.
func (d *diagnosis) overflows(x *big.Rat) bool {
	if d.overflowAt == nil {
		return false
	}
	a := new(big.Rat).Abs(x)
	switch a.Cmp(d.overflowAt) {
	case 1:
		return true
	case 0:
		return d.overflowIncl
	}
	return false
}

// replayOverflow is an operation of the format's score computation that
// left its range, in the score of key j (−1: in the query).
type replayOverflow struct {
	j    int
	what string
}

func (s *attnScan) overflowCause(head, i int, o *replayOverflow) *Cause {
	d := s.d
	where := fmt.Sprintf("%s, head %d, position %d", s.label, head+1, i+1)
	in := "the query"
	if o.j >= 0 {
		where += fmt.Sprintf(", key j = %d", o.j+1)
		in = fmt.Sprintf("the score of j = %d", o.j+1)
	}
	detail := fmt.Sprintf("at position %d, in %s's computation of %s, %s is beyond %s's largest finite value %s", i+1, d.format(), in, strings.TrimSuffix(o.what, ","), d.format(), d.maxFiniteText())
	return &Cause{Kind: KindOverflow, Where: where, Detail: d.withNote(detail)}
}

// scoreOverflow finds, at query position i, the first key j whose score
// computation q·k (the products q_c k_c summed left to right, then
// divided by √d_key and τ) passes through a value the format cannot hold.
func (d *diagnosis) scoreOverflow(label string, head, i int, att *model.Attention, q []*big.Rat, keys [][]*big.Rat, divide *big.Rat) *Cause {
	if d.overflowAt == nil {
		return nil
	}
	t := new(big.Rat)
	for j := range keys {
		if !att.Mask.Allows(i+1, j+1) {
			continue
		}
		acc := new(big.Rat)
		what := ""
		for c, qc := range q {
			kc := keys[j][c]
			if qc == nil || kc == nil {
				continue
			}
			t.Mul(qc, kc)
			if d.overflows(t) {
				what = fmt.Sprintf("the product q_%d·k_%d = %s × %s = %s", c+1, c+1, numText(qc), numText(kc), numText(t))
				break
			}
			acc.Add(acc, t)
			if d.overflows(acc) {
				what = fmt.Sprintf("the partial sum of q·k up to component %d, %s,", c+1, numText(acc))
				break
			}
		}
		if what == "" && divide != nil {
			s := new(big.Rat).Quo(acc, divide)
			if d.overflows(s) {
				what = fmt.Sprintf("the scaled score %s", numText(s))
			}
		}
		if what == "" {
			continue
		}
		where := fmt.Sprintf("%s, head %d, position %d, key j = %d", label, head+1, i+1, j+1)
		detail := fmt.Sprintf("at position %d, %s in the score of j = %d is beyond %s's largest finite value %s", i+1, what, j+1, d.format(), d.maxFiniteText())
		return &Cause{Kind: KindOverflow, Where: where, Detail: d.withNote(detail)}
	}
	return nil
}

// ffOverflow replays the feed-forward sublayer that produced state k at
// position i, as ffAbsorbed does, and describes the first product or
// partial sum that leaves the format's range: in W1 x + b1, then (for
// ReLU and linear units) in W2 act(·) + b2. It returns "" when none does
// or the sublayer cannot be replayed.
func (d *diagnosis) ffOverflow(k, i int) string {
	info := d.infos[k]
	if info.attn || info.layer < 0 || info.normedInput || d.overflowAt == nil {
		return ""
	}
	ff := d.m.Layers[info.layer].FeedForward
	if ff == nil {
		return ""
	}
	w, ok1 := d.ffWeightsOf(ff)
	xf, ok2 := d.ratVector(d.got.Trace.States[k-1].Vectors[i])
	if !ok1 || !ok2 {
		return ""
	}
	z, _, overs := d.replayRows(w.w1f, w.b1f, xf, d.component)
	for r, o := range overs {
		if o != "" {
			return fmt.Sprintf("in hidden unit %d of W1 x + b1, %s", r+1, o)
		}
	}
	if ff.Activation != model.ReLU && ff.Activation != model.Linear {
		return ""
	}
	a := make([]*big.Rat, len(z))
	for r, v := range z {
		a[r] = w.act(v)
	}
	_, _, overs = d.replayRows(w.w2f, w.b2f, a, hiddenUnit)
	for r, o := range overs {
		if o != "" {
			return fmt.Sprintf("in the output %s = W2 act(…) + b2, %s", d.component(r), o)
		}
	}
	return ""
}

// normOverflow replays, in the format's arithmetic, the layer norm that
// the sublayer producing state k reads (pre-norm) or the final norm, at
// the flowing positions where the state differs from the reference: the
// sum of the components, their mean μ, each (x_c − μ)² and the sum of
// those, as model's layer norm computes them. A square or sum beyond the
// format's range makes σ² infinite and the normalised vector 0, a wrong
// value but a finite one, which the state-level overflow check cannot see.
// (A post-norm reads x + f(x), which the trace does not hold.)
func (d *diagnosis) normOverflow(k int) *Cause {
	info := d.infos[k]
	if k == 0 || d.overflowAt == nil || !(info.normedInput || info.layer < 0) || info.norm == nil {
		return nil
	}
	var sel sparseMatrix
	if info.norm.Select != nil {
		var ok bool
		if sel, ok = d.sparse(*info.norm.Select); !ok {
			return nil
		}
		if sel = d.roundMatrix(sel); sel == nil {
			return nil
		}
	}
	label := info.label
	for i := range d.got.Trace.States[k].Vectors {
		if !d.differs(k, i, nil) {
			continue
		}
		x, ok := d.ratVector(d.got.Trace.States[k-1].Vectors[i])
		if !ok {
			continue
		}
		if sel != nil {
			zero := make([]*big.Rat, len(sel))
			for r := range zero {
				zero[r] = new(big.Rat)
			}
			x, _, _ = d.replayRows(sel, zero, x, d.component)
		}
		what := ""
		sum := new(big.Rat)
		for _, v := range x {
			if e := new(big.Rat).Add(sum, v); d.overflows(e) {
				what = fmt.Sprintf("the sum of the components reaches %s", numText(e))
				break
			} else {
				sum = d.round(e)
			}
		}
		if what == "" {
			mu := d.round(new(big.Rat).Quo(sum, big.NewRat(int64(len(x)), 1)))
			sq := new(big.Rat)
			for c, v := range x {
				cen := d.round(new(big.Rat).Sub(v, mu))
				t := new(big.Rat).Mul(cen, cen)
				if d.overflows(t) {
					base := numText(cen)
					if cen.Sign() < 0 || !cen.IsInt() {
						base = "(" + base + ")"
					}
					what = fmt.Sprintf("the square (x_%d − μ)² = %s² = %s", c+1, base, numText(t))
					break
				}
				if e := new(big.Rat).Add(sq, d.round(t)); d.overflows(e) {
					what = fmt.Sprintf("the sum of the squares (x_c − μ)² reaches %s", numText(e))
					break
				} else {
					sq = d.round(e)
				}
			}
		}
		if what == "" {
			continue
		}
		norm := "pre-norm"
		if info.layer < 0 {
			norm = "final norm"
		}
		where := fmt.Sprintf("%s (its %s), position %d", label, norm, i+1)
		detail := fmt.Sprintf("in the layer norm, %s, beyond %s's largest finite value %s: σ² is infinite and the normalised vector comes out 0", what, d.format(), d.maxFiniteText())
		return &Cause{Kind: KindOverflow, Where: where, Detail: d.withNote(detail)}
	}
	return nil
}
