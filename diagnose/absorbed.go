package diagnose

import (
	"fmt"
	"math/big"

	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/model/eval"
)

// absorbed finds, in a residual sum x + y, the first influencing value
// whose reference moved (y ≠ 0) while the format's stayed at x, with |y|
// below the format's spacing at x: the format's x + y came out x.
func (d *diagnosis) absorbed(k int) *Cause {
	if k == 0 || !d.infos[k].sum {
		return nil
	}
	prevG, curG := d.got.Trace.States[k-1], d.got.Trace.States[k]
	prevR, curR := d.ref.Trace.States[k-1], d.ref.Trace.States[k]
	for i := range curG.Vectors {
		for c := range curG.Vectors[i] {
			if !d.flows[k][i][c] {
				continue
			}
			x, ok1 := prevR.Vectors[i][c].Rat()
			x2, ok2 := curR.Vectors[i][c].Rat()
			f, ok3 := prevG.Vectors[i][c].Rat()
			f2, ok4 := curG.Vectors[i][c].Rat()
			if !ok1 || !ok2 || !ok3 || !ok4 || f.Sign() == 0 || f.Cmp(f2) != 0 || x.Cmp(x2) == 0 || x2.Cmp(f2) == 0 {
				continue
			}
			y := new(big.Rat).Sub(x2, x)
			ay := new(big.Rat).Abs(y)
			sp := d.spacing(f)
			if ay.Cmp(sp) >= 0 || d.approx && d.belowReference(ay, x) {
				continue
			}
			half := new(big.Rat).Quo(sp, big.NewRat(2, 1))
			why := fmt.Sprintf("%s is below half its spacing %s at %s", numText(ay), spacingText(half), heldText(prevG.Vectors[i][c]))
			if ay.Cmp(half) >= 0 {
				why = fmt.Sprintf("%s is below its spacing %s at %s, and the addend %s computes is smaller still", numText(ay), spacingText(sp), heldText(prevG.Vectors[i][c]), d.format())
			}
			detail := fmt.Sprintf("the sublayer adds y = %s to x = %s, exactly %s; %s keeps x = %s, since |y| = %s", numText(y), numText(x), numText(x2), d.format(), heldText(prevG.Vectors[i][c]), why)
			where := fmt.Sprintf("%s, position %d, component %s", curG.Label, i+1, d.component(c))
			return &Cause{Kind: KindAbsorbed, Where: where, Detail: d.withNote(detail)}
		}
	}
	return nil
}

// ffAbsorbed replays the feed-forward sublayer that produced state k in
// the format's arithmetic, at the influencing positions where that state
// differs from the reference by more than a unit in the last place: its
// input as the format holds it, its weights rounded to the format, each
// product and each partial sum rounded in matVec's order (left to right,
// the bias last), which is what the format computes, since every
// operation of the backends is correctly rounded. It reports the first
// sum acc + t with t ≠ 0 that comes out acc, in a hidden unit whose
// activation then differs from the exact one, or in an output row whose
// value does. Only ReLU and linear units are replayed past the
// activation; a sublayer that reads a layer norm is not replayed.
func (d *diagnosis) ffAbsorbed(k int) *Cause {
	info := d.infos[k]
	if info.attn || info.layer < 0 || info.normedInput {
		return nil
	}
	ff := d.m.Layers[info.layer].FeedForward
	if ff == nil {
		return nil
	}
	writes := orOf(ff.W2.WrittenRows(), nonzeroEntries(ff.B2))
	// The weights are evaluated only once a position needs them: most
	// states differ from the reference nowhere the sublayer writes.
	var w *ffWeights
	for i := range d.got.Trace.States[k].Vectors {
		if !d.differs(k, i, writes) {
			continue
		}
		if w == nil {
			var ok bool
			if w, ok = d.ffWeightsOf(ff); !ok {
				return nil
			}
		}
		if c := d.ffAbsorbedAt(k, i, ff, w); c != nil {
			return c
		}
	}
	return nil
}

// ffAbsorbedAt replays the feed-forward sublayer ff that produced state k
// at position i: its hidden units, then, for ReLU and linear units, its
// output rows.
func (d *diagnosis) ffAbsorbedAt(k, i int, ff *model.FeedForward, w *ffWeights) *Cause {
	info := d.infos[k]
	linearish := ff.Activation == model.ReLU || ff.Activation == model.Linear
	// The output rows that flow to the output (nil: all of them, since a
	// post-norm mixes every row).
	rowFlows := d.flows[k][i]
	if info.postNorm {
		rowFlows = nil
	}
	xe, oke := d.ratVector(d.ref.Trace.States[k-1].Vectors[i])
	xf, okf := d.ratVector(d.got.Trace.States[k-1].Vectors[i])
	if !oke || !okf {
		return nil
	}
	ze := exactRows(w.w1, w.b1, xe)
	zf, ev, _ := d.replayRows(w.w1f, w.b1f, xf, d.component)
	// The replay must compute what the model computes from the same
	// input, bit for bit, or it explains nothing.
	pre, out, err := d.runner.FeedForwardRows(info.layer, xf)
	if err != nil || !sameValues(pre, zf) {
		return nil
	}
	unitFlows := w.unitsFlowing(rowFlows)
	for r, e := range ev {
		if e == nil || !unitFlows[r] || w.act(ze[r]).Cmp(w.act(zf[r])) == 0 && (linearish || ze[r].Cmp(zf[r]) == 0) {
			continue
		}
		where := fmt.Sprintf("%s, position %d, hidden unit %d", info.label, i+1, r+1)
		detail := d.absorbedDetail(e, fmt.Sprintf("hidden unit %d of W1 x + b1", r+1), "W1", "b1", d.component) +
			fmt.Sprintf("; the unit's exact pre-activation is %s, the format's %s", numText(ze[r]), d.valueText(zf[r]))
		return &Cause{Kind: KindAbsorbed, Where: where, Detail: d.withNote(detail)}
	}
	if !linearish {
		return nil
	}
	return d.outputAbsorbed(info.label, i, w, ze, zf, out, rowFlows)
}

// unitsFlowing marks the hidden units that some output row flowing to the
// output reads (rowFlows nil: every row flows).
func (w *ffWeights) unitsFlowing(rowFlows []bool) []bool {
	unitFlows := make([]bool, len(w.w1))
	for r, row := range w.w2 {
		if rowFlows == nil || rowFlows[r] {
			for _, e := range row {
				unitFlows[e.col] = true
			}
		}
	}
	return unitFlows
}

// outputAbsorbed replays the second matrix of a feed-forward sublayer at
// position i, from the exact pre-activations ze and the format's zf,
// against out, what the model's sublayer wrote.
func (d *diagnosis) outputAbsorbed(label string, i int, w *ffWeights, ze, zf []*big.Rat, out []eval.Value, rowFlows []bool) *Cause {
	ae, af := make([]*big.Rat, len(ze)), make([]*big.Rat, len(zf))
	for r := range ze {
		ae[r], af[r] = w.act(ze[r]), w.act(zf[r])
	}
	ye := exactRows(w.w2, w.b2, ae)
	yf, ev2, _ := d.replayRows(w.w2f, w.b2f, af, hiddenUnit)
	if !sameValues(out, yf) {
		return nil
	}
	for r, e := range ev2 {
		if e == nil || rowFlows != nil && !rowFlows[r] || ye[r].Cmp(yf[r]) == 0 {
			continue
		}
		where := fmt.Sprintf("%s, position %d, component %s (before the residual connection)", label, i+1, d.component(r))
		detail := d.absorbedDetail(e, fmt.Sprintf("the sublayer's output %s = W2 act(…) + b2", d.component(r)), "W2", "b2", hiddenUnit) +
			fmt.Sprintf("; exactly the output is %s, the format's %s", numText(ye[r]), d.valueText(yf[r]))
		return &Cause{Kind: KindAbsorbed, Where: where, Detail: d.withNote(detail)}
	}
	return nil
}

// ffWeights are a feed-forward sublayer's parameters, exact and as the
// format holds them.
type ffWeights struct {
	w1, w2, w1f, w2f sparseMatrix
	b1, b2, b1f, b2f []*big.Rat
	// act applies the activation where it is ReLU (the identity
	// otherwise: only ReLU and linear units are replayed past it).
	act func(*big.Rat) *big.Rat
}

// ffWeightsOf evaluates ff's parameters, and rounds them to the format;
// false when a weight is irrational against an exact reference or
// overflows the format.
func (d *diagnosis) ffWeightsOf(ff *model.FeedForward) (*ffWeights, bool) {
	w := &ffWeights{act: func(z *big.Rat) *big.Rat {
		if ff.Activation == model.ReLU && z.Sign() < 0 {
			return new(big.Rat)
		}
		return z
	}}
	var ok1, ok2, ok3, ok4 bool
	w.w1, ok1 = d.sparse(ff.W1)
	w.w2, ok2 = d.sparse(ff.W2)
	w.b1, ok3 = d.vector(ff.B1, ff.W1.Rows)
	w.b2, ok4 = d.vector(ff.B2, ff.W2.Rows)
	if !ok1 || !ok2 || !ok3 || !ok4 {
		return nil, false
	}
	w.w1f, w.w2f, w.b1f, w.b2f = d.roundMatrix(w.w1), d.roundMatrix(w.w2), d.roundVector(w.b1), d.roundVector(w.b2)
	if w.w1f == nil || w.w2f == nil || w.b1f == nil || w.b2f == nil {
		return nil, false
	}
	return w, true
}

// hiddenUnit names hidden unit c (0-based) of a feed-forward sublayer.
func hiddenUnit(c int) string { return fmt.Sprintf("hidden unit %d", c+1) }

// absorption is a sum acc + t, computed in the format, that came out acc.
type absorption struct {
	acc, t *big.Rat
	// col is the column of the term t, or −1 for the bias.
	col    int
	weight *big.Rat // the term's rounded weight (nil for the bias)
	x      *big.Rat // the term's input
}

// absorbedDetail describes an absorption in a sum named sum, whose
// weights and bias are called wName and bName and whose inputs are named
// by input.
func (d *diagnosis) absorbedDetail(e *absorption, sum, wName, bName string, input func(int) string) string {
	term := fmt.Sprintf("the bias %s = %s", bName, numText(e.t))
	if e.col >= 0 {
		term = fmt.Sprintf("the term %s·%s = %s × %s = %s", wName, input(e.col), numText(e.weight), numText(e.x), numText(e.t))
	}
	sp := d.spacing(e.acc)
	at := new(big.Rat).Abs(e.t)
	why := fmt.Sprintf("|%s| is below half its spacing %s there", numText(at), spacingText(sp))
	if new(big.Rat).Mul(at, big.NewRat(2, 1)).Cmp(sp) == 0 {
		why = fmt.Sprintf("|%s| is half its spacing %s there, and the tie goes to the even value", numText(at), spacingText(sp))
	}
	sum2 := new(big.Rat).Add(e.acc, e.t)
	return fmt.Sprintf("in %s, adding %s to the sum so far, %s, gives %s exactly; %s keeps %s, since %s",
		sum, term, numText(e.acc), numText(sum2), d.format(), numText(e.acc), why)
}

// sameValues reports whether the model's values vs are the points xs.
func sameValues(vs []eval.Value, xs []*big.Rat) bool {
	if len(vs) != len(xs) {
		return false
	}
	for k, v := range vs {
		if r, ok := v.Rat(); !ok || r.Cmp(xs[k]) != 0 {
			return false
		}
	}
	return true
}
