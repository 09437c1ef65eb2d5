package diagnose

import (
	"fmt"
	"math/big"

	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/model/eval"
	"github.com/transformer-cookbook/verify/numeric"
)

// rounding finds the first value of state k, at an influencing position,
// further than units units of the format's spacing from the reference;
// with units = 0, the first value that differs at all.
func (d *diagnosis) rounding(k, units int) *Cause {
	st, rs := d.got.Trace.States[k], d.ref.Trace.States[k]
	for i, vec := range st.Vectors {
		for c, v := range vec {
			if !d.flows[k][i][c] {
				continue
			}
			if detail, off := d.offBy(rs.Vectors[i][c], v, units); off {
				where := fmt.Sprintf("%s, position %d, component %s", st.Label, i+1, d.component(c))
				if note := d.inputDiffered(k, i); note != "" {
					detail += note
				} else {
					detail += d.roundedWeight(k)
				}
				return &Cause{Kind: KindRounding, Where: where, Detail: d.withNote(detail)}
			}
		}
	}
	return nil
}

// inputDiffered says where the input of the sublayer that produced state
// k already differed from the reference, by less than the rounding
// threshold (else that would have been the cause): the sublayer then
// amplified an earlier, small error, as a comparison in its gray region
// does. Position i is looked at first, then the other influencing
// positions. It returns "" when the input was exact.
func (d *diagnosis) inputDiffered(k, i int) string {
	if k == 0 {
		return ""
	}
	prev, ref := d.got.Trace.States[k-1], d.ref.Trace.States[k-1]
	order := []int{i}
	for j := range prev.Vectors {
		if j != i {
			order = append(order, j)
		}
	}
	for _, j := range order {
		for c, v := range prev.Vectors[j] {
			if !d.flows[k-1][j][c] {
				continue
			}
			x, ok1 := ref.Vectors[j][c].Rat()
			y, ok2 := v.Rat()
			if ok1 && ok2 && x.Cmp(y) != 0 {
				return fmt.Sprintf("; the sublayer's input already differed: at position %d, %s is %s for the exact %s (%s)", j+1, d.component(c), heldText(v), numText(x), prev.Label)
			}
		}
	}
	return ""
}

// weightScan caps the parameters roundedWeight looks at: rounding each
// costs a conversion, and routed models hold millions of zeros but few
// other weights.
const weightScan = 1 << 14

// roundedWeight names the first parameter of the sublayer that produced
// state k that the format cannot hold exactly, for a value that left the
// exact one although the sublayer's input had not: "" when there is
// none (among the first weightScan nonzero ones).
func (d *diagnosis) roundedWeight(k int) string {
	w := d.firstWeight(k, func(x *big.Rat, v eval.Value) bool {
		r, ok := v.Rat()
		return !ok || r.Cmp(x) != 0
	})
	if w == nil {
		return ""
	}
	return fmt.Sprintf("; the sublayer's input is exact, but %s holds its weight %s = %s as %s", d.format(), w.name, w.expr, heldText(w.held))
}

// sublayerWeight is a parameter of a sublayer, and the format's value of
// it.
type sublayerWeight struct {
	name string // e.g. "W2[1][3]", "head 1 W^Q[2][1]", "b1[2]"
	expr numeric.Expr
	held eval.Value
}

// firstWeight returns the first nonzero parameter of the sublayer that
// produced state k (W^Q, W^K, W^V of each head; or W1, b1, W2, b2) for
// which pick(exact value, format's value) holds, among the first
// weightScan; nil when there is none.
func (d *diagnosis) firstWeight(k int, pick func(x *big.Rat, v eval.Value) bool) *sublayerWeight {
	info := d.infos[k]
	if k == 0 || info.layer < 0 {
		return nil
	}
	type named struct {
		name string
		m    model.Matrix
	}
	var ms []named
	layer := d.m.Layers[info.layer]
	if info.attn {
		for h, head := range layer.Attention.Heads {
			p := fmt.Sprintf("head %d ", h+1)
			ms = append(ms, named{p + "W^Q", head.Q}, named{p + "W^K", head.K}, named{p + "W^V", head.V})
		}
	} else if ff := layer.FeedForward; ff != nil {
		ms = append(ms, named{"W1", ff.W1}, named{"b1", columnOf(ff.B1)}, named{"W2", ff.W2}, named{"b2", columnOf(ff.B2)})
	}
	seen := 0
	for _, nm := range ms {
		for idx, e := range nm.m.Data {
			if e.IsZero() {
				continue
			}
			if seen++; seen > weightScan {
				return nil
			}
			x, ok := d.weight(e)
			if !ok || x.Sign() == 0 {
				continue
			}
			v := d.runner.Round(x)
			if !pick(x, v) {
				continue
			}
			at := fmt.Sprintf("[%d][%d]", idx/nm.m.Cols+1, idx%nm.m.Cols+1)
			if nm.m.Cols == 1 {
				at = fmt.Sprintf("[%d]", idx+1)
			}
			return &sublayerWeight{name: nm.name + at, expr: e, held: v}
		}
	}
	return nil
}

// columnOf is a parameter vector as a one-column matrix.
func columnOf(v model.Vector) model.Matrix {
	return model.Matrix{Rows: len(v), Cols: 1, Data: v}
}

// outputCause looks at the unembedding's values at pos: non-finite, or
// further than units units from the reference's.
func (d *diagnosis) outputCause(units int) *Cause {
	ro, go_ := d.ref.Outputs[d.pos], d.got.Outputs[d.pos]
	for k, v := range go_.Values {
		if k >= len(ro.Values) {
			break
		}
		name := fmt.Sprintf("output %d", k+1)
		if k < len(d.m.Output.Labels) {
			name = d.m.Output.Labels[k]
		}
		where := fmt.Sprintf("output, position %d, %s", d.pos+1, name)
		if !v.Finite() {
			return &Cause{Kind: KindOverflow, Where: where, Detail: d.overflowDetail(ro.Values[k], v)}
		}
		if detail, off := d.offBy(ro.Values[k], v, units); off {
			return &Cause{Kind: KindRounding, Where: where, Detail: d.withNote(detail)}
		}
	}
	return nil
}

// offBy reports whether got is further than units units of the format's
// spacing (at the larger of the two magnitudes) from ref, or, for
// units = 0, differs from it at all; and says by how much.
func (d *diagnosis) offBy(ref, got eval.Value, units int) (string, bool) {
	x, ok1 := ref.Rat()
	y, ok2 := got.Rat()
	if !ok1 || !ok2 || x.Cmp(y) == 0 {
		return "", false
	}
	diff := new(big.Rat).Sub(y, x)
	diff.Abs(diff)
	big1 := new(big.Rat).Abs(x)
	if a := new(big.Rat).Abs(y); a.Cmp(big1) > 0 {
		big1 = a
	}
	sp := d.spacing(big1)
	if units > 0 && sp.Sign() > 0 && diff.Cmp(new(big.Rat).Mul(sp, big.NewRat(int64(units), 1))) <= 0 {
		return "", false
	}
	detail := fmt.Sprintf("the exact value is %s; %s computes %s", numText(x), d.format(), heldText(got))
	if sp.Sign() > 0 && x.Sign() != 0 {
		detail += fmt.Sprintf(", off by %s of its spacing %s there", unitsText(new(big.Rat).Quo(diff, sp)), spacingText(sp))
	}
	if units == 0 {
		if r, ok := d.runner.Round(x).Rat(); ok && r.Cmp(x) != 0 {
			detail += fmt.Sprintf(" (%s cannot hold %s: the first value to leave the exact one, and no larger error shows before)", d.format(), numText(x))
		} else {
			detail += fmt.Sprintf(" (the first value to leave the exact one, and no error of more than %d units shows before)", roundingUnits)
		}
	}
	return detail, true
}
