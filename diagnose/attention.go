package diagnose

import (
	"fmt"
	"math/big"
	"strings"

	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/model/eval"
	"github.com/transformer-cookbook/verify/numeric"
)

// keyScore is a key position's score at one query: exactly (from the
// reference's residual stream, in exact arithmetic, or the reference's
// own when it is not exact), and as the format computes it, from its own
// residual stream and in its own arithmetic.
type keyScore struct {
	j int      // 0-based
	s *big.Rat // exact
	f *big.Rat // the format's
}

// headScores holds what one head's scores and values are computed from.
type headScores struct {
	head int // 0-based
	// The exact side: W^Q, the keys W^K h_j and the values W^V h_j of the
	// reference's residual stream h, and the factor dividing every score
	// (√d_key when scaled, times τ; nil: 1).
	q      sparseMatrix
	keys   [][]*big.Rat
	vals   [][]*big.Rat
	divide *big.Rat
	// The format's side (qf nil when it cannot be replayed): W^Q and W^K as
	// the format holds them, √d_key and τ as it holds them (nil: no
	// division), the columns W^Q and W^K read, the parameters the format
	// rounds, and the keys it computes from its residual stream (each on
	// first use; fkeyOver: the operation that left the range).
	qf, kf       sparseMatrix
	sqrtF, tempF *big.Rat
	qCols, kCols []bool
	paramSteps   []string
	fkeys        [][]*big.Rat
	fkeyOver     []string
	// agrees[i] records whether the replayed scores at query i are the
	// model's own (see scores).
	agrees map[int]bool
}

// attnScan is the attention sublayer that produced state k, with the
// residual streams it reads.
type attnScan struct {
	d     *diagnosis
	k     int
	label string
	att   *model.Attention
	// h is the reference's residual stream, hf the format's (hf[j] nil
	// where a value is not finite).
	h, hf [][]*big.Rat
	heads []*headScores
}

// attention looks for a score overflow, a tie or a narrow gap in the
// attention sublayer that produced state k, at the influencing query
// positions where that state differs from the reference by more than a
// unit in the last place. The scores are compared twice: exactly, from
// the reference's residual stream, and as the format computes them, from
// its own residual stream, every product and partial sum of q·k (and of
// W^Q x and W^K x) rounded in model's order. A "tie" is two keys whose
// exact scores differ but whose computed scores are equal, at the
// computed maximum, where the weighting then gives weight to a key it
// should not; a "gap" is a computed lead within gapUnits units of the
// format's spacing: one reversed under a hardmax, or one softmax weighs.
// Either names only a partner key whose value W^V h_j differs exactly
// from the top key's: a tie between equal values changes no output.
// Overflows and ties come first, in position order; gaps only when the
// sublayer shows neither.
func (d *diagnosis) attention(k int) *Cause {
	att := d.m.Layers[d.infos[k].layer].Attention
	writes := make([]bool, d.m.D)
	for _, head := range att.Heads {
		orInto(writes, head.V.WrittenRows())
	}
	var queries []int
	for i := range d.got.Trace.States[k].Vectors {
		if d.differs(k, i, writes) {
			queries = append(queries, i)
		}
	}
	if len(queries) == 0 {
		return nil
	}
	s := d.newAttnScan(k)
	if s == nil {
		return nil
	}
	// Pass 1: overflows and ties.
	for _, i := range queries {
		for hi, hs := range s.heads {
			if hs == nil {
				continue
			}
			if c := d.scoreOverflow(s.label, hi, i, att, hs.q.apply(s.h[i]), hs.keys, hs.divide); c != nil {
				return c
			}
			ks, over := s.scores(hs, i)
			if over != nil {
				return s.overflowCause(hi, i, over)
			}
			if c := s.tie(hs, hi, i, ks); c != nil {
				return c
			}
		}
	}
	// Pass 2: narrow gaps.
	for _, i := range queries {
		for hi, hs := range s.heads {
			if hs == nil {
				continue
			}
			if ks, over := s.scores(hs, i); over == nil {
				if c := s.gap(hs, hi, i, ks); c != nil {
					return c
				}
			}
		}
	}
	return nil
}

// newAttnScan prepares the scan of the attention sublayer that produced
// state k: the residual streams it reads and, per head, the exact side
// and the format's side of its scores (nil when the reference's stream
// is not finite, or τ is not a positive number).
func (d *diagnosis) newAttnScan(k int) *attnScan {
	info := d.infos[k]
	att := d.m.Layers[info.layer].Attention
	s := &attnScan{d: d, k: k, label: info.label, att: att}
	// The residual streams that feed the sublayer.
	var ok bool
	if s.h, ok = d.ratStates(d.ref.Trace.States[k-1].Vectors); !ok {
		return nil
	}
	s.hf = make([][]*big.Rat, len(s.h))
	for j, vec := range d.got.Trace.States[k-1].Vectors {
		s.hf[j], _ = d.ratVector(vec)
	}
	// The factor dividing every score: √d_key (when scaled) times τ.
	var temp, tempF *big.Rat
	formatSide := true
	if !att.Temperature.IsZero() {
		t, ok := d.weight(att.Temperature)
		if !ok || t.Sign() <= 0 {
			return nil
		}
		temp = t
		if tempF, ok = d.formatConst(att.Temperature); !ok || tempF.Sign() <= 0 {
			formatSide = false
		}
	}
	s.heads = make([]*headScores, len(att.Heads))
	for hi, head := range att.Heads {
		q, ok1 := d.sparse(head.Q)
		kw, ok2 := d.sparse(head.K)
		vw, ok3 := d.sparse(head.V)
		if !ok1 || !ok2 || !ok3 {
			continue
		}
		hs := &headScores{head: hi, q: q, divide: temp, keys: make([][]*big.Rat, len(s.h)), vals: make([][]*big.Rat, len(s.h)),
			qCols: q.cols(d.m.D), kCols: kw.cols(d.m.D), tempF: tempF}
		scaled := att.Scale == model.ScaleSqrtDKey && head.Q.Rows != 1
		if scaled {
			root := numeric.Sqrt(numeric.LitInt(int64(head.Q.Rows)))
			div, ok := d.weight(root)
			if !ok {
				continue // √d_key irrational against an exact reference
			}
			if hs.divide != nil {
				div.Mul(div, hs.divide)
			}
			hs.divide = div
		}
		for j := range s.h {
			hs.keys[j] = kw.apply(s.h[j])
			hs.vals[j] = vw.apply(s.h[j])
		}
		s.heads[hi] = hs
		if !formatSide {
			continue
		}
		var stepsQ, stepsK []string
		qf, okq := d.roundWeights(q, "W^Q", &stepsQ)
		kf, okk := d.roundWeights(kw, "W^K", &stepsK)
		if !okq || !okk {
			continue
		}
		if scaled {
			sq, ok := d.formatConst(numeric.Sqrt(numeric.LitInt(int64(head.Q.Rows))))
			if !ok || sq.Sign() <= 0 {
				continue
			}
			hs.sqrtF = sq
			hs.paramSteps = append(hs.paramSteps, fmt.Sprintf("√d_key = √%d rounds to %s", head.Q.Rows, numText(sq)))
		}
		if tempF != nil {
			if r, ok, _ := att.Temperature.Rat(); !ok || r.Cmp(tempF) != 0 {
				hs.paramSteps = append(hs.paramSteps, fmt.Sprintf("τ = %s rounds to %s", numText(temp), numText(tempF)))
			}
		}
		hs.paramSteps = append(append(hs.paramSteps, stepsQ...), stepsK...)
		hs.qf, hs.kf = qf, kf
		hs.fkeys, hs.fkeyOver = make([][]*big.Rat, len(s.h)), make([]string, len(s.h))
	}
	return s
}

// ratStates returns the points of a traced state (false if one is not a
// finite point).
func (d *diagnosis) ratStates(vs [][]eval.Value) ([][]*big.Rat, bool) {
	out := make([][]*big.Rat, len(vs))
	for j, vec := range vs {
		var ok bool
		if out[j], ok = d.ratVector(vec); !ok {
			return nil, false
		}
	}
	return out, true
}

// queryName and keyName name the components of q and of k_j.
func queryName(r int) string { return fmt.Sprintf("q_%d", r+1) }

func keyName(j int) func(int) string {
	return func(r int) string { return fmt.Sprintf("k_%d of j = %d", r+1, j+1) }
}

// formatKey is the key of position j as the format computes it (nil when
// its residual stream there is not finite).
func (s *attnScan) formatKey(hs *headScores, j int) ([]*big.Rat, string) {
	if hs.fkeys[j] == nil && hs.fkeyOver[j] == "" && s.hf[j] != nil {
		r := &replay{d: s.d}
		hs.fkeys[j] = r.matVec(hs.kf, "W^K", s.hf[j], keyName(j))
		hs.fkeyOver[j] = r.over
	}
	return hs.fkeys[j], hs.fkeyOver[j]
}

// scores returns the scores, exact and computed, at query i of the keys
// the mask allows, in position order; nil when the format's computation
// cannot be replayed (a value it reads is not finite), or when the
// replay does not give, bit for bit, the scores the model computes from
// the same input (eval.Runner.HeadScores): the diagnosis then says
// nothing of this head rather than explain a computation the model does
// not do. over is an operation of that computation that left the
// format's range.
func (s *attnScan) scores(hs *headScores, i int) (ks []keyScore, over *replayOverflow) {
	ks, over = s.replayScores(hs, i)
	if ks == nil || over != nil {
		return ks, over
	}
	agrees, seen := hs.agrees[i]
	if !seen {
		agrees = s.modelAgrees(hs, i, ks)
		if hs.agrees == nil {
			hs.agrees = map[int]bool{}
		}
		hs.agrees[i] = agrees
	}
	if !agrees {
		return nil, nil
	}
	return ks, nil
}

// modelAgrees reports whether the replayed scores ks at query i are
// those the model computes from the format's residual stream.
func (s *attnScan) modelAgrees(hs *headScores, i int, ks []keyScore) bool {
	x := make([][]*big.Rat, len(s.hf))
	for j, row := range s.hf {
		if row == nil {
			// A position whose stream is not finite is masked at i (else
			// the replay would have stopped): its key is not used.
			row = make([]*big.Rat, s.d.m.D)
			for c := range row {
				row[c] = new(big.Rat)
			}
		}
		x[j] = row
	}
	js, scores, err := s.d.runner.HeadScores(s.d.infos[s.k].layer, hs.head, x, i)
	if err != nil || len(js) != len(ks) {
		return false
	}
	for k, ksc := range ks {
		v, ok := scores[k].Rat()
		if js[k] != ksc.j || !ok || v.Cmp(ksc.f) != 0 {
			return false
		}
	}
	return true
}

// replayScores computes the scores of scores, by the replay alone.
func (s *attnScan) replayScores(hs *headScores, i int) (ks []keyScore, over *replayOverflow) {
	if hs.qf == nil || s.hf[i] == nil {
		return nil, nil
	}
	r := &replay{d: s.d}
	qf := r.matVec(hs.qf, "W^Q", s.hf[i], queryName)
	if r.over != "" {
		return nil, &replayOverflow{j: -1, what: r.over}
	}
	q := hs.q.apply(s.h[i])
	t := new(big.Rat)
	for j := range s.h {
		if !s.att.Mask.Allows(i+1, j+1) {
			continue
		}
		exact := new(big.Rat)
		for c, qc := range q {
			if qc != nil && hs.keys[j][c] != nil {
				exact.Add(exact, t.Mul(qc, hs.keys[j][c]))
			}
		}
		if hs.divide != nil {
			exact.Quo(exact, hs.divide)
		}
		kf, kover := s.formatKey(hs, j)
		if kover != "" {
			return nil, &replayOverflow{j: j, what: kover}
		}
		if kf == nil {
			return nil, nil
		}
		f := r.score(qf, kf, j, hs.sqrtF, hs.tempF)
		if r.over != "" {
			return nil, &replayOverflow{j: j, what: r.over}
		}
		ks = append(ks, keyScore{j: j, s: exact, f: f})
	}
	return ks, nil
}

// ranking sorts the scores of one head at one query: top is the key the
// exact weighting picks (the first exact maximum; the last under
// right-hardmax), inTop marks the exact maxima, atMax the computed ones,
// and picked the keys the format's weighting gives the largest weight:
// all the computed maxima, or under left- and right-hardmax the first or
// the last of them.
type ranking struct {
	top          int
	inTop, atMax []bool
	picked       []int
}

func (s *attnScan) rank(ks []keyScore) ranking {
	rk := ranking{inTop: make([]bool, len(ks)), atMax: make([]bool, len(ks))}
	best, fmax := 0, 0
	for k := range ks {
		if ks[k].s.Cmp(ks[best].s) > 0 {
			best = k
		}
		if ks[k].f.Cmp(ks[fmax].f) > 0 {
			fmax = k
		}
	}
	rk.top = -1
	var atMax []int
	for k := range ks {
		if s.d.equalScores(ks[k].s, ks[best].s) {
			rk.inTop[k] = true
			if rk.top < 0 || s.att.Weighting == model.RightHardmax {
				rk.top = k
			}
		}
		if ks[k].f.Cmp(ks[fmax].f) == 0 {
			rk.atMax[k] = true
			atMax = append(atMax, k)
		}
	}
	rk.picked = atMax
	switch s.att.Weighting {
	case model.LeftHardmax:
		rk.picked = atMax[:1]
	case model.RightHardmax:
		rk.picked = atMax[len(atMax)-1:]
	}
	return rk
}

// valuesDiffer reports whether the values W^V h_a and W^V h_b differ
// exactly (beyond the reference's rounding, against a floating-point
// reference); where names the first component that does.
func (s *attnScan) valuesDiffer(hs *headScores, a, b int) (bool, string) {
	va, vb := hs.vals[a], hs.vals[b]
	zero := new(big.Rat)
	for r := range va {
		x, y := va[r], vb[r]
		if x == nil {
			x = zero
		}
		if y == nil {
			y = zero
		}
		if !s.d.equalScores(x, y) {
			return true, fmt.Sprintf("%s: %s and %s", s.d.component(r), numText(x), numText(y))
		}
	}
	return false, ""
}

// wrongPick is the first key the format's weighting picks that is not an
// exact maximum and whose value differs from the top key's (−1: none).
func (s *attnScan) wrongPick(hs *headScores, ks []keyScore, rk ranking) int {
	for _, k := range rk.picked {
		if differ, _ := s.valuesDiffer(hs, ks[k].j, ks[rk.top].j); !rk.inTop[k] && differ {
			return k
		}
	}
	return -1
}

// steps lists what the format's computation of the scores of keys a and
// b at query i rounded: first what concerns each key, the partner a
// first (the components of the format's residual stream that W^K reads
// there and that differ from the reference's, and the products and sums
// of k_j and of q·k_j that rounded), then what the two share (the same
// for the query, and the weights and constants the format rounds).
func (s *attnScan) steps(hs *headScores, i, a, b int) []string {
	var out []string
	seen := map[string]bool{}
	add := func(xs []string) {
		for _, x := range xs {
			if !seen[x] {
				seen[x] = true
				out = append(out, x)
			}
		}
	}
	rq := &replay{d: s.d, keep: true}
	qf := rq.matVec(hs.qf, "W^Q", s.hf[i], queryName)
	for _, j := range []int{a, b} {
		add(s.inputSteps(j, hs.kCols))
		r := &replay{d: s.d, keep: true}
		kf := r.matVec(hs.kf, "W^K", s.hf[j], keyName(j))
		r.score(qf, kf, j, hs.sqrtF, hs.tempF)
		add(r.log)
	}
	add(s.inputSteps(i, hs.qCols))
	add(rq.log)
	add(hs.paramSteps)
	return out
}

// inputSteps lists the components among cols at position j where the
// format's residual stream differs from the reference's.
func (s *attnScan) inputSteps(j int, cols []bool) []string {
	d := s.d
	var out []string
	for c, on := range cols {
		if !on || c >= len(s.h[j]) {
			continue
		}
		e, f := s.h[j][c], s.hf[j][c]
		if e.Cmp(f) == 0 {
			continue
		}
		if d.approx && d.belowReference(new(big.Rat).Abs(new(big.Rat).Sub(e, f)), e) {
			continue
		}
		if r, ok := d.roundRat(e); ok && r.Cmp(f) == 0 {
			out = append(out, fmt.Sprintf("at position %d, %s = %s rounds to %s", j+1, d.component(c), numText(e), numText(f)))
			continue
		}
		ref := "the exact"
		if d.approx {
			ref = "the reference's"
		}
		out = append(out, fmt.Sprintf("at position %d, %s is %s for %s %s (%s)", j+1, d.component(c), numText(f), ref, numText(e), d.got.Trace.States[s.k-1].Label))
	}
	return out
}

// maxSteps is the number of rounding steps a cause names.
const maxSteps = 3

// stepsText joins the first maxSteps steps, after a colon.
func stepsText(steps []string) string {
	if len(steps) == 0 {
		return ""
	}
	s := ": " + strings.Join(steps[:min(len(steps), maxSteps)], "; ")
	if n := len(steps) - maxSteps; n > 0 {
		s += fmt.Sprintf("; and %d more", n)
	}
	return s
}

// equalScores reports whether two reference scores are the same score:
// equal exactly, or, against a floating-point reference, within its own
// rounding.
func (d *diagnosis) equalScores(a, b *big.Rat) bool {
	if a.Cmp(b) == 0 {
		return true
	}
	if !d.approx {
		return false
	}
	diff := new(big.Rat).Sub(a, b)
	return d.belowReference(diff.Abs(diff), a)
}
