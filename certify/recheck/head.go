package recheck

import (
	"fmt"
	"math/big"
	"math/bits"
	"slices"
	"sort"

	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/numeric"
)

// headCheck checks one head's facts at the queries it meets.
type headCheck[T any] struct {
	ck      *checker[T]
	l, hd   int
	g       *gathered[T]
	average bool // average hardmax
	facts   map[factKey]*QueryFact[T]
	// derived holds the outputs checked for each query over each range:
	// entries that share both share them.
	derived map[factKey]derivedOutputs[T]
	// averages holds the output of m_r copies of one value in the
	// reference beside m_m copies of one in the model: a hard weighting
	// averages the selected values with equal weights, so the tied
	// scores do not enter it.
	averages map[[4]int]State[T]
	// slots lists each position's slots (slotsOf); nonFinite[p] counts
	// the items of positions 1 … p whose value is not finite in the
	// model.
	slots     [][]slot
	nonFinite []int
	// sess is the head's part of the session (nil: none).
	sess *sessionHead[T]
	// outIDs numbers the outputs by value.
	outIDs map[string]int
	// flat holds every position's slots in a row, position p's at
	// flat[off[p−1]:off[p]].
	flat []slot
	off  []int
	// slotKid and slotPos are flat's keys and positions.
	slotKid, slotPos []int32
	sc               scores[T]
}

func (ck *checker[T]) newHeadCheck(l, hd int, g *gathered[T], facts []QueryFact[T]) *headCheck[T] {
	h := &headCheck[T]{ck: ck, l: l, hd: hd, g: g, average: ck.r.Attention(l).Weighting == model.AverageHardmax,
		facts: make(map[factKey]*QueryFact[T], len(facts)), derived: map[factKey]derivedOutputs[T]{}, averages: map[[4]int]State[T]{}}
	for x := range facts {
		f := &facts[x]
		h.facts[ck.factKey(f.Query, f.Lo, f.Hi)] = f
	}
	h.sc.init(ck, l, hd, g.keys[hd])
	return h
}

// slot is a key position pos can hold in one head, with the values it
// comes with there (ids, increasing): a position's items that share a key
// share its scores.
type slot struct {
	pos, kid int
	vids     []int
}

// slotsOf lists each position's slots, built once from the items.
func (h *headCheck[T]) slotsOf() [][]slot {
	if h.slots != nil {
		return h.slots
	}
	items := h.g.items[h.hd]
	h.slots = make([][]slot, len(items))
	h.nonFinite = make([]int, len(items)+1)
	h.off = make([]int, len(items)+1)
	vals := h.g.vals[h.hd].vecs
	finite := make([]int8, len(vals)) // 0: not known, 1: finite, −1: not
	for p, its := range items {
		bad := 0
		for _, it := range its {
			if finite[it.vid] == 0 {
				finite[it.vid] = 1
				for _, v := range vals[it.vid].Model {
					if !h.ck.b.Finite(v) {
						finite[it.vid] = -1
					}
				}
			}
			if finite[it.vid] < 0 {
				bad++
			}
			found := false
			for x := range h.slots[p] {
				if sl := &h.slots[p][x]; sl.kid == it.kid {
					if !slices.Contains(sl.vids, it.vid) {
						sl.vids = append(sl.vids, it.vid)
						slices.Sort(sl.vids)
					}
					found = true
				}
			}
			if !found {
				h.slots[p] = append(h.slots[p], slot{pos: p + 1, kid: it.kid, vids: []int{it.vid}})
			}
		}
		h.nonFinite[p+1] = h.nonFinite[p] + bad
	}
	// Each position's slots, and their values, in one block: the loops
	// over every key of a range read them in a row.
	total, values := 0, 0
	for _, ss := range h.slots {
		total += len(ss)
		for _, sl := range ss {
			values += len(sl.vids)
		}
	}
	flat, vids := make([]slot, 0, total), make([]int, 0, values)
	for p, ss := range h.slots {
		from := len(flat)
		for _, sl := range ss {
			v := len(vids)
			vids = append(vids, sl.vids...)
			sl.vids = vids[v:len(vids):len(vids)]
			flat = append(flat, sl)
		}
		h.slots[p] = flat[from:len(flat):len(flat)]
		h.off[p+1] = len(flat)
	}
	h.flat = flat
	// The slots' keys and positions in rows of their own, for the loops
	// over every slot of a range.
	h.slotKid, h.slotPos = make([]int32, len(flat)), make([]int32, len(flat))
	for k, sl := range flat {
		h.slotKid[k], h.slotPos[k] = int32(sl.kid), int32(sl.pos)
	}
	return h.slots
}

// outputs are the head's outputs at query qid over positions lo … hi,
// checked once for each query and range against the certificate's fact
// for them.
func (h *headCheck[T]) outputs(qid, lo, hi int) ([]State[T], []int, error) {
	ck := h.ck
	q := h.g.queries[h.hd].vecs[qid]
	key := ck.factKey(q, lo, hi)
	if d, ok := h.derived[key]; ok {
		return d.outs, d.ids, nil
	}
	where := func() string {
		return fmt.Sprintf("layer %d attention, head %d, query %s over positions %d … %d", h.l+1, h.hd+1, ck.formatState(q), lo, hi)
	}
	fact := h.facts[key]
	if fact == nil {
		return nil, nil, refuse("%s: the certificate has no fact", where())
	}
	var outs []State[T]
	var ids []int
	var err error
	carried := false
	if h.sess != nil && lo <= hi {
		if outs, ids, carried, err = h.carried(h.sess, q, chainKey(ck, q, lo), lo, hi, fact, where); err != nil {
			return nil, nil, err
		}
	}
	switch {
	case carried:
	case lo > hi:
		outs, err = h.nothing(where)
	default:
		outs, err = h.check(q, lo, hi, fact, where)
	}
	if err != nil {
		return nil, nil, err
	}
	if !carried {
		if err := h.sameOutputs(where, fact.Outputs, outs); err != nil {
			return nil, nil, err
		}
		ids = h.outIDsOf(outs)
	}
	h.derived[key] = derivedOutputs[T]{outs, ids}
	return outs, ids, nil
}

// derivedOutputs are the outputs checked at a query over a range, with
// their numbers (outID).
type derivedOutputs[T any] struct {
	outs []State[T]
	ids  []int
}

// outIDsOf numbers outputs.
func (h *headCheck[T]) outIDsOf(outs []State[T]) []int {
	ids := make([]int, len(outs))
	for x, o := range outs {
		ids[x] = h.outID(o)
	}
	return ids
}

// outID is output o's number among the head's outputs, by value (the
// session's numbers, where there is one).
func (h *headCheck[T]) outID(o State[T]) int {
	if h.outIDs == nil {
		h.outIDs = map[string]int{}
		if h.sess != nil {
			if h.sess.outIDs == nil {
				h.sess.outIDs = map[string]int{}
			}
			h.outIDs = h.sess.outIDs
		}
	}
	k := h.ck.keyOf(o)
	id, ok := h.outIDs[k]
	if !ok {
		id = len(h.outIDs)
		h.outIDs[k] = id
	}
	return id
}

// nothing is the output of a head that sees no position: the zero vector
// in both models.
func (h *headCheck[T]) nothing(where func() string) ([]State[T], error) {
	or, err := h.ck.r.HeadOutput(h.l, h.hd, nil, nil)
	if err != nil {
		return nil, refuse("%s: the reference's output: %v", where(), err)
	}
	om, err := h.ck.m.HeadOutput(h.l, h.hd, nil, nil)
	if err != nil {
		return nil, refuse("%s: the model's output: %v", where(), err)
	}
	return []State[T]{{Ref: or, Model: om}}, nil
}

// chosen is a slot that can be selected, with how many positions can tie
// with it in the reference (exact) and in the model.
type chosen struct {
	slot
	exactTies, modelTies int
}

// check checks the fact for query q over positions lo … hi (lo ≤ hi) and
// returns the head's outputs there.
//
// Where the fact says the model keeps the exact order, Check verifies
// its claims rather than search: every item it does not list as a
// candidate falls below the smallest score of a candidate's position
// other than its own (bar), so that the reference cannot select it; each
// listed candidate's key is ordered by the model as exactly
// against every key at another position; under average hardmax the
// positions tied with a candidate hold its one value. Then the outputs
// are the candidates' values, m copies averaged for each count m the ties
// allow. Where the fact says the order is broken, Check derives both
// models' candidates by search and the outputs of the selections one
// input can make together (package doc).
func (h *headCheck[T]) check(q State[T], lo, hi int, fact *QueryFact[T], where func() string) ([]State[T], error) {
	h.slotsOf()
	if h.nonFinite[hi] != h.nonFinite[lo-1] {
		return nil, refuse("%s: a value at a visible position is not finite in the model (its weight 0 would give 0·∞ = NaN)", where())
	}
	sc := &h.sc
	if !fact.Kept {
		if h.sess != nil {
			delete(h.sess.verified, chainKey(h.ck, q, lo))
		}
		if err := sc.score(h, q, lo, hi, where); err != nil {
			return nil, err
		}
		return h.broken(lo, hi, fact, where)
	}
	cands, err := h.listed(lo, hi, fact, where)
	if err != nil {
		return nil, err
	}
	var chosen []chosen
	var kept bool
	if qi, ok := sc.queryInts(q); ok && sc.machine && len(cands) <= maxLinear && !h.ck.in.Passes {
		chosen, kept, err = h.heldInOnePass(q, qi, lo, hi, cands, where)
	} else {
		if err := sc.score(h, q, lo, hi, where); err != nil {
			return nil, err
		}
		chosen, kept, err = h.held(lo, hi, cands, where)
	}
	if err != nil {
		return nil, err
	}
	if !kept {
		return nil, refuse("%s: the certificate says the model keeps the exact order, but it does not", where())
	}
	var outs []State[T]
	seen := map[string]bool{}
	for _, c := range chosen {
		for _, v := range c.vids {
			for m := 1; m <= c.exactTies; m++ {
				// The order kept, both models select the same
				// positions on every input: the same count.
				o, err := h.averaged(c.kid, v, m, c.kid, v, m, where)
				if err != nil {
					return nil, err
				}
				if k := h.ck.stateKey(o); !seen[k] {
					seen[k] = true
					outs = append(outs, o)
				}
			}
		}
	}
	if h.sess != nil {
		if err := h.verify(h.sess, q, chainKey(h.ck, q, lo), hi, chosen, outs, fact); err != nil {
			return nil, refuse("%s: %v", where(), err)
		}
	}
	return outs, nil
}

// listed finds the fact's candidates among the slots of positions lo …
// hi, each with its values: every value its key comes with at its
// position must be listed (an item of the same key scores the same).
func (h *headCheck[T]) listed(lo, hi int, fact *QueryFact[T], where func() string) ([]slot, error) {
	ck := h.ck
	h.slotsOf()
	keys, vals := h.g.keys[h.hd], h.g.vals[h.hd]
	var out []slot
	for _, it := range fact.Candidates {
		if it.Pos < lo || it.Pos > hi {
			return nil, refuse("%s: the certificate lists a candidate at position %d, which the query does not see", where(), it.Pos)
		}
		kid, okK := keys.ids[ck.keyOf(it.Key)]
		vid, okV := vals.ids[ck.keyOf(it.Value)]
		var sl *slot
		for x := range h.slots[it.Pos-1] {
			if s := &h.slots[it.Pos-1][x]; okK && s.kid == kid {
				sl = s
			}
		}
		if sl == nil || !okV || !slices.Contains(sl.vids, vid) {
			return nil, refuse("%s: the certificate lists a candidate at position %d that the position cannot hold", where(), it.Pos)
		}
		found := false
		for x := range out {
			if out[x].pos == sl.pos && out[x].kid == kid {
				if !slices.Contains(out[x].vids, vid) {
					out[x].vids = append(out[x].vids, vid)
					slices.Sort(out[x].vids)
				}
				found = true
			}
		}
		if !found {
			out = append(out, slot{pos: sl.pos, kid: kid, vids: []int{vid}})
		}
	}
	for _, c := range out {
		for x := range h.slots[c.pos-1] {
			if s := h.slots[c.pos-1][x]; s.kid == c.kid && len(s.vids) != len(c.vids) {
				return nil, refuse("%s: the certificate lists the key at position %d with %d of its %d values", where(), c.pos, len(c.vids), len(s.vids))
			}
		}
	}
	return out, nil
}

// held checks the fact's claims at one query with the order kept. Each
// key it does not list as a candidate must score below the smallest exact
// score of a candidate's position other than its own (bar), so that the
// reference cannot select it. Each
// candidate is held against every key at another visible position: kept
// says the model orders each pair as the exact scores do; under average
// hardmax each candidate's ties are counted (the positions with a key of
// its exact score), and the keys it ties with must come with its one
// value (else the mean depends on the input: refused). With few
// candidates all of it is one pass over the keys; with many (a uniform
// average), the keys are sorted by exact score once (heldSorted).
func (h *headCheck[T]) held(lo, hi int, cands []slot, where func() string) ([]chosen, bool, error) {
	sc := &h.sc
	e, mf := sc.e, sc.mf
	b := h.barOf(cands, func(kid int) int64 { return e[kid] })
	// Every key not listed must fall below the bar, at another position.
	for k, stop := h.off[lo-1], h.off[hi]; k < stop; k++ {
		sl := &h.flat[k]
		if (b.top < 0 || sl.pos == b.top || e[sl.kid] >= e[b.kid]) && !listedAt(cands, sl.pos, sl.kid) {
			return nil, false, refuse("%s: the key at position %d can be selected (it reaches the smallest score of every other position), which the certificate does not list", where(), sl.pos)
		}
	}
	if len(cands) > maxLinear {
		return h.heldSorted(lo, hi, cands, where)
	}
	out := make([]chosen, len(cands))
	kept := true
	for x, c := range cands {
		ch := chosen{slot: c, exactTies: 1, modelTies: 1}
		ec, fc := e[c.kid], mf[c.kid]
		last := -1 // the last position found tied with c
		for k, stop := h.off[lo-1], h.off[hi]; k < stop; k++ {
			sl := &h.flat[k]
			if sl.pos == c.pos {
				continue
			}
			ce, cm := cmpInt(ec, e[sl.kid]), cmpFloat(fc, mf[sl.kid])
			if ce != cm {
				kept = false
			}
			if !h.average || ce != 0 {
				continue
			}
			if err := h.sameValue(c, *sl, true, where); err != nil {
				return nil, false, err
			}
			if last != sl.pos {
				last = sl.pos
				ch.exactTies++
				ch.modelTies++ // the order kept: the same ties
			}
		}
		out[x] = ch
	}
	return out, kept, nil
}

// bar is, among the candidates' positions, the one whose smallest exact
// score is largest (top < 0: no candidate), and its smallest key. Every
// key that is not a candidate must score below it, at another position.
//
// Why that is enough: let t be a position whose smallest exact score T is
// the largest of all positions'. Every key at t reaches T, which is at
// least every other position's smallest: all of t's keys are
// candidates. So when the candidates are all listed, t is among their
// positions, the bar is T, and a key that is not a candidate, at a
// position other than t, scores below T (else it would reach every other
// position's smallest). And whatever is listed, a key that scores below
// the smallest score of a position other than its own can never be
// selected by the reference: the check cannot pass a candidate left out.
type bar struct {
	top, kid int
}

// barOf finds the bar of the candidates, ex giving each key's exact score
// (an int64 that orders them as the scores do).
func (h *headCheck[T]) barOf(cands []slot, ex func(kid int) int64) bar {
	b := bar{top: -1}
	for _, c := range cands {
		p := c.pos
		if p == b.top {
			continue
		}
		m := h.slots[p-1][0].kid
		for _, s := range h.slots[p-1][1:] {
			if ex(s.kid) < ex(m) {
				m = s.kid
			}
		}
		if b.top < 0 || ex(m) > ex(b.kid) {
			b = bar{top: p, kid: m}
		}
	}
	return b
}

// heldInOnePass is held where the exact scores are dot products of small
// integers (qi and the keys: scores.queryInts) and the model's are machine
// floats, with few candidates: the same checks, each key's scores computed
// and read in the one pass that checks them, rather than scored into
// tables first (a third of the work, where every key of every query is
// scored).
func (h *headCheck[T]) heldInOnePass(q State[T], qi []int64, lo, hi int, cands []slot, where func() string) ([]chosen, bool, error) {
	sc := &h.sc
	ck := h.ck
	keysInt, d := sc.keyInts, len(qi)
	ex := func(kid int) int64 { return dotInts(qi, keysInt[kid*d:kid*d+d]) }
	b := h.barOf(cands, ex)
	kids, keysM, at := sc.keysAt(h.slots, lo, hi)
	mu, err := ck.m.KeyScoresInto(h.l, h.hd, q.Model, keysM, sc.muBuf)
	if err != nil {
		return nil, false, refuse("%s: the model's scores: %v", where(), err)
	}
	sc.muBuf = mu
	ck.work += int64(2 * len(kids) * len(q.Ref))
	// What averaged reads of the candidates' scores.
	sc.cur, sc.ints = at, true
	for _, c := range cands {
		sc.e[c.kid] = ex(c.kid)
	}
	var v onePass
	v.lo, v.hi = h.off[lo-1], h.off[hi]
	v.flat, v.at, v.keys, v.q, v.average = h.flat, at, keysInt, qi, h.average
	v.slotKid, v.slotPos, v.off = h.slotKid, h.slotPos, h.off
	v.top = b.top
	if b.top >= 0 {
		v.bar = ex(b.kid)
	}
	v.cands = cands
	switch m := any(mu).(type) {
	case []float64:
		err = runOnePass(&v, m)
	case []float32:
		err = runOnePass(&v, m)
	}
	if err != nil {
		return nil, false, refuse("%s: %v", where(), err)
	}
	if v.tie != nil {
		if err := h.sameValue(v.tie[0], v.tie[1], true, where); err != nil {
			return nil, false, err
		}
	}
	out := make([]chosen, len(cands))
	for x, c := range cands {
		out[x] = chosen{slot: c, exactTies: 1 + v.ties[x], modelTies: 1 + v.ties[x]}
	}
	return out, v.kept, nil
}

// onePass is heldInOnePass's loop: the slots flat[lo:hi], each key's
// model score mu[at[kid]] and exact score q·keys[kid].
type onePass struct {
	lo, hi  int
	flat    []slot
	at      []int32
	keys, q []int64
	// slotKid, slotPos: flat's fields in two arrays, for the one-pass
	// loop's cache; position p's slots are flat[off[p−1]:off[p]].
	slotKid, slotPos []int32
	off              []int
	average          bool
	top              int
	bar              int64
	cands            []slot
	// kept, ties (per candidate: the positions tied with it), and the
	// first pair of tied slots whose values differ (average hardmax).
	kept bool
	ties []int
	tie  []slot
}

func runOnePass[F float32 | float64](v *onePass, mu []F) error {
	d := len(v.q)
	v.kept = true
	v.ties = make([]int, len(v.cands))
	if d == 2 && len(v.cands) == 1 {
		if onePassQuick(v, mu) {
			v.ties[0] = 0 // kept, as set above
			return nil
		}
		return onePassOne(v, mu)
	}
	ec := make([]int64, len(v.cands))
	mc := make([]F, len(v.cands))
	last := make([]int, len(v.cands))
	for x, c := range v.cands {
		ec[x] = dotInts(v.q, v.keys[c.kid*d:c.kid*d+d])
		mc[x] = mu[v.at[c.kid]]
		last[x] = -1
	}
	for k := v.lo; k < v.hi; k++ {
		sl := &v.flat[k]
		e := dotInts(v.q, v.keys[sl.kid*d:sl.kid*d+d])
		m := mu[v.at[sl.kid]]
		if m != m {
			return fmt.Errorf("the model's score of the key at position %d is NaN", sl.pos)
		}
		if (v.top < 0 || sl.pos == v.top || e >= v.bar) && !listedAt(v.cands, sl.pos, sl.kid) {
			return fmt.Errorf("the key at position %d can be selected (it reaches the smallest score of every other position), which the certificate does not list", sl.pos)
		}
		for x := range v.cands {
			c := &v.cands[x]
			if c.pos == sl.pos {
				continue
			}
			ce, cm := cmpInt(ec[x], e), cmpFloat(float64(mc[x]), float64(m))
			if ce != cm {
				v.kept = false
			}
			if !v.average || ce != 0 {
				continue
			}
			if len(c.vids) != 1 || len(sl.vids) != 1 || sl.vids[0] != c.vids[0] {
				if v.tie == nil {
					v.tie = []slot{*c, *sl}
				}
				continue
			}
			if last[x] != sl.pos {
				last[x] = sl.pos
				v.ties[x]++
			}
		}
	}
	return nil
}

// onePassOne is runOnePass's loop for the common case of one candidate
// and queries and keys of two entries (the lookup's), the same checks in
// the same order with the loop's values held in locals.
func onePassOne[F float32 | float64](v *onePass, mu []F) error {
	c := v.cands[0]
	keys, at := v.keys, v.at
	kids, poss := v.slotKid[v.lo:v.hi], v.slotPos[v.lo:v.hi]
	poss = poss[:len(kids)]
	q0, q1 := v.q[0], v.q[1]
	ec := q0*keys[2*c.kid] + q1*keys[2*c.kid+1]
	mc := float64(mu[at[c.kid]])
	top, bar, average := int32(v.top), v.bar, v.average
	cpos, ckid := int32(c.pos), int32(c.kid)
	kept, ties, last := true, 0, int32(-1)
	for k, kid := range kids {
		pos := poss[k]
		e := q0*keys[2*kid] + q1*keys[2*kid+1]
		m := float64(mu[at[kid]])
		if m != m {
			return fmt.Errorf("the model's score of the key at position %d is NaN", pos)
		}
		if (top < 0 || pos == top || e >= bar) && !(pos == cpos && kid == ckid) {
			return fmt.Errorf("the key at position %d can be selected (it reaches the smallest score of every other position), which the certificate does not list", pos)
		}
		if pos == cpos {
			continue
		}
		if cmpInt(ec, e) != cmpFloat(mc, m) {
			kept = false
		}
		if !average || ec != e {
			continue
		}
		sl := &v.flat[v.lo+k]
		if len(c.vids) != 1 || len(sl.vids) != 1 || sl.vids[0] != c.vids[0] {
			if v.tie == nil {
				v.tie = []slot{c, *sl}
			}
			continue
		}
		if last != pos {
			last = pos
			ties++
		}
	}
	v.kept, v.ties[0] = kept, ties
	return nil
}

// onePassQuick is onePassOne where nothing is out of the ordinary: the
// candidate's position holds its key alone, and every key at another
// position scores below the bar exactly and below the candidate in the
// model. Then each of onePassOne's checks passes, with the order kept and
// no ties (every other key is below the candidate both ways), and it
// returns true. Otherwise onePassOne runs the checks one by one, to say
// which fails.
func onePassQuick[F float32 | float64](v *onePass, mu []F) bool {
	c := v.cands[0]
	if v.top != c.pos {
		return false
	}
	// The candidate's position, flat[at:to], must hold its key alone.
	from, to := v.off[c.pos-1], v.off[c.pos]
	if to-from != 1 || int(v.slotKid[from]) != c.kid {
		return false
	}
	keys, at := v.keys, v.at
	q0, q1 := v.q[0], v.q[1]
	mc := mu[at[c.kid]]
	bar := v.bar
	var odd uint8
	for _, part := range [][]int32{v.slotKid[v.lo:from], v.slotKid[to:v.hi]} {
		for _, kid := range part {
			// !(m < mc) holds for a NaN too.
			odd |= flag(q0*keys[2*kid]+q1*keys[2*kid+1] >= bar) | flag(!(mu[at[kid]] < mc))
		}
	}
	return odd == 0
}

func flag(b bool) uint8 {
	var x uint8
	if b {
		x = 1
	}
	return x
}

// listedAt reports whether the key kid at position pos is one of cands.
func listedAt(cands []slot, pos, kid int) bool {
	for _, c := range cands {
		if c.pos == pos && c.kid == kid {
			return true
		}
	}
	return false
}

// maxLinear is the most candidates held against every key one by one.
const maxLinear = 8

// against holds slot c against every slot at another visible position:
// kept says the model's scores order each pair as the exact ones do; and,
// under average hardmax, the positions that tie with c exactly (for a
// candidate of the reference: exact) and in the model (for one of the
// model) are counted, and must hold c's one value (else the mean depends
// on the input: refused).
func (h *headCheck[T]) against(lo, hi int, c slot, exact bool, where func() string) (chosen, bool, error) {
	sc := &h.sc
	ch := chosen{slot: c, exactTies: 1, modelTies: 1}
	kept := true
	for p := lo; p <= hi; p++ {
		if p == c.pos {
			continue
		}
		tiedR, tiedM := false, false
		for _, s := range h.slots[p-1] {
			e, m := sc.exact(c.kid, s.kid), sc.model(c.kid, s.kid)
			if e != m {
				kept = false
			}
			if !h.average || exact && e != 0 || !exact && m != 0 {
				continue
			}
			if err := h.sameValue(c, s, exact, where); err != nil {
				return ch, false, err
			}
			tiedR, tiedM = tiedR || e == 0, tiedM || m == 0
		}
		if tiedR {
			ch.exactTies++
		}
		if tiedM {
			ch.modelTies++
		}
	}
	return ch, kept, nil
}

// sameValue refuses, under average hardmax, a tie between slot c and
// slot s at another position unless both come with one same value.
func (h *headCheck[T]) sameValue(c, s slot, exact bool, where func() string) error {
	if len(c.vids) == 1 && len(s.vids) == 1 && s.vids[0] == c.vids[0] {
		return nil
	}
	who := "the reference"
	if !exact {
		who = "the model"
	}
	return refuse("%s: keys at positions %d and %d tie in %s with different values: average hardmax averages a set that depends on the input", where(), c.pos, s.pos, who)
}

// heldSorted is held for many candidates: the slots of the range are
// sorted by exact score and grouped by equal scores; a candidate of group
// k is ordered as exactly against every other position's key when the
// largest model score of the groups below k (at a position other than
// its own) is below its model score, the smallest of the groups above it
// is above, and every key of its own group at another position scores as
// it does in the model.
func (h *headCheck[T]) heldSorted(lo, hi int, cands []slot, where func() string) ([]chosen, bool, error) {
	sc := &h.sc
	var all []slot
	for p := lo; p <= hi; p++ {
		all = append(all, h.slots[p-1]...)
	}
	sort.SliceStable(all, func(x, y int) bool { return sc.exact(all[x].kid, all[y].kid) < 0 })
	var groups [][2]int
	for g := 0; g < len(all); {
		e := g + 1
		for e < len(all) && sc.exact(all[e].kid, all[g].kid) == 0 {
			e++
		}
		groups = append(groups, [2]int{g, e})
		g = e
	}
	// below[k]: the two largest model scores, at two positions, of the
	// groups before k; above[k]: the two smallest of the groups after k.
	below := make([]extremes, len(groups)+1)
	above := make([]extremes, len(groups)+1)
	higher := func(x, y int) bool { return sc.model(x, y) > 0 }
	lower := func(x, y int) bool { return sc.model(x, y) < 0 }
	for k := 1; k <= len(groups); k++ {
		below[k] = below[k-1]
		for _, s := range all[groups[k-1][0]:groups[k-1][1]] {
			below[k].add(s, higher)
		}
	}
	for k := len(groups) - 1; k >= 0; k-- {
		above[k] = above[k+1]
		for _, s := range all[groups[k][0]:groups[k][1]] {
			above[k].add(s, lower)
		}
	}
	groupOf := func(c slot) int {
		return sort.Search(len(groups), func(k int) bool { return sc.exact(all[groups[k][0]].kid, c.kid) >= 0 })
	}
	kept := true
	out := make([]chosen, len(cands))
	for x, c := range cands {
		k := groupOf(c)
		if b := below[k].other(c.pos); b != nil && sc.model(b.kid, c.kid) >= 0 {
			kept = false
		}
		if a := above[k+1].other(c.pos); a != nil && sc.model(a.kid, c.kid) <= 0 {
			kept = false
		}
		ch := chosen{slot: c, exactTies: 1, modelTies: 1}
		tied := map[int]bool{}
		for _, s := range all[groups[k][0]:groups[k][1]] {
			if s.pos == c.pos {
				continue
			}
			if sc.model(s.kid, c.kid) != 0 {
				kept = false
			}
			if h.average {
				if err := h.sameValue(c, s, true, where); err != nil {
					return nil, false, err
				}
				tied[s.pos] = true
			}
		}
		ch.exactTies += len(tied)
		ch.modelTies = ch.exactTies
		out[x] = ch
	}
	return out, kept, nil
}

// extremes keeps the best two slots at two different positions under an
// order.
type extremes struct {
	first, second *slot
}

func (e *extremes) add(s slot, better func(x, y int) bool) {
	switch {
	case e.first == nil || better(s.kid, e.first.kid):
		if e.first != nil && e.first.pos != s.pos {
			e.second = e.first
		}
		e.first = &s
	case s.pos != e.first.pos && (e.second == nil || better(s.kid, e.second.kid)):
		e.second = &s
	}
}

// other is the best slot at a position other than pos (nil: none).
func (e *extremes) other(pos int) *slot {
	if e.first != nil && e.first.pos != pos {
		return e.first
	}
	return e.second
}

// broken derives the outputs where the fact says the model breaks the
// exact order: the candidates of each model by search, the selections one
// input can make together (the same item, or items at two positions with
// the reference's ahead exactly and the model's ahead in the model), and
// the means of the counts their ties allow. The fact's candidates must be
// the reference's.
func (h *headCheck[T]) broken(lo, hi int, fact *QueryFact[T], where func() string) ([]State[T], error) {
	candR := h.search(lo, hi, false)
	cands, err := h.listed(lo, hi, fact, where)
	if err != nil {
		return nil, err
	}
	if !sameSlots(candR, cands) {
		return nil, refuse("%s: the certificate's candidates are not the keys whose exact score can be maximal", where())
	}
	var chosenR, chosenM []chosen
	kept := true
	for _, c := range candR {
		ch, ok, err := h.against(lo, hi, c, true, where)
		if err != nil {
			return nil, err
		}
		chosenR, kept = append(chosenR, ch), kept && ok
	}
	if kept {
		return nil, refuse("%s: the certificate says the model breaks the exact order, but it keeps it", where())
	}
	for _, c := range h.search(lo, hi, true) {
		ch, _, err := h.against(lo, hi, c, false, where)
		if err != nil {
			return nil, err
		}
		chosenM = append(chosenM, ch)
	}
	sc := &h.sc
	var outs []State[T]
	seen := map[string]bool{}
	for _, x := range chosenR {
		for _, y := range chosenM {
			same := x.pos == y.pos && x.kid == y.kid
			if !same && (x.pos == y.pos || sc.exact(x.kid, y.kid) < 0 || sc.model(y.kid, x.kid) < 0) {
				continue
			}
			for _, vx := range x.vids {
				for _, vy := range y.vids {
					if x.pos == y.pos && vx != vy {
						continue // one item at one position
					}
					for mr := 1; mr <= x.exactTies; mr++ {
						for mm := 1; mm <= y.modelTies; mm++ {
							o, err := h.averaged(x.kid, vx, mr, y.kid, vy, mm, where)
							if err != nil {
								return nil, err
							}
							if k := h.ck.stateKey(o); !seen[k] {
								seen[k] = true
								outs = append(outs, o)
							}
						}
					}
				}
			}
		}
	}
	return outs, nil
}

// search lists the slots of positions lo … hi that can be a maximum under
// the exact order of their keys, or the model's (byModel): those whose
// score reaches the smallest score of every other position.
func (h *headCheck[T]) search(lo, hi int, byModel bool) []slot {
	sc := &h.sc
	cmp := sc.exact
	if byModel {
		cmp = sc.model
	}
	top1, top2, kid1, kid2 := -1, -1, 0, 0
	for p := lo; p <= hi; p++ {
		ss := h.slots[p-1]
		if len(ss) == 0 {
			continue
		}
		m := ss[0].kid
		for _, s := range ss[1:] {
			if cmp(s.kid, m) < 0 {
				m = s.kid
			}
		}
		switch {
		case top1 < 0 || cmp(m, kid1) > 0:
			top2, kid2 = top1, kid1
			top1, kid1 = p, m
		case top2 < 0 || cmp(m, kid2) > 0:
			top2, kid2 = p, m
		}
	}
	var out []slot
	for p := lo; p <= hi; p++ {
		bar, kid := top1, kid1
		if p == top1 {
			bar, kid = top2, kid2
		}
		for _, s := range h.slots[p-1] {
			if bar < 0 || cmp(s.kid, kid) >= 0 {
				out = append(out, s)
			}
		}
	}
	return out
}

// sameSlots reports whether x and y hold the same slots with the same
// values.
func sameSlots(x, y []slot) bool {
	if len(x) != len(y) {
		return false
	}
	for _, a := range x {
		found := false
		for _, b := range y {
			if a.pos == b.pos && a.kid == b.kid && slices.Equal(a.vids, b.vids) {
				found = true
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// averaged is the pair of outputs when the reference selects mr positions
// holding key kx's score and value vx and the model mm positions holding
// ky's and vy, computed by the models' own HeadOutput.
func (h *headCheck[T]) averaged(kx, vx, mr, ky, vy, mm int, where func() string) (State[T], error) {
	key := [4]int{vx, mr, vy, mm}
	if o, ok := h.averages[key]; ok {
		return o, nil
	}
	ck, sc := h.ck, &h.sc
	valX, valY := h.g.vals[h.hd].vecs[vx], h.g.vals[h.hd].vecs[vy]
	scR, valR := make([]*big.Rat, mr), make([][]*big.Rat, mr)
	for c := range scR {
		scR[c], valR[c] = sc.rat(kx), valX.Ref
	}
	scM, valM := make([]T, mm), make([][]T, mm)
	for c := range scM {
		scM[c], valM[c] = sc.muOf(ky), valY.Model
	}
	or, err := ck.r.HeadOutput(h.l, h.hd, scR, valR)
	if err != nil {
		return State[T]{}, refuse("%s: the reference's output: %v", where(), err)
	}
	om, err := ck.m.HeadOutput(h.l, h.hd, scM, valM)
	if err != nil {
		return State[T]{}, refuse("%s: the model's output: %v", where(), err)
	}
	ck.work += int64((mr + mm) * len(or))
	o := State[T]{Ref: or, Model: om}
	h.averages[key] = o
	return o, nil
}

// sameOutputs checks the certificate's outputs are the checked ones, as a
// set.
func (h *headCheck[T]) sameOutputs(where func() string, listed, derived []State[T]) error {
	ck := h.ck
	want := map[string]bool{}
	for _, o := range derived {
		want[ck.keyOf(o)] = true
	}
	got := map[string]bool{}
	for _, o := range listed {
		k := ck.keyOf(o)
		if !want[k] {
			return refuse("%s: the certificate lists the output %s, which the head cannot give", where(), ck.formatState(o))
		}
		got[k] = true
	}
	for _, o := range derived {
		if !got[ck.keyOf(o)] {
			return refuse("%s: the head can give the output %s, which the certificate does not list", where(), ck.formatState(o))
		}
	}
	return nil
}

// order holds one query's scores of a head's keys, by key id, as the
// comparisons read them: the exact scores as int64s (e: the scores
// themselves where they are integers, else their ranks among the query's
// keys) and the model's as float64s (mf: the scores of a machine float,
// float64 or float32, whose order as float64s is Backend.Cmp's; else
// their ranks by Backend.Cmp). Equal ranks are equal scores, and ranks
// keep the order, so every comparison is one of numbers. It is not
// generic, so that its comparisons inline into the loops over every key.
type order struct {
	e  []int64
	mf []float64
}

// exact orders keys x and y by exact score.
func (o *order) exact(x, y int) int { return cmpInt(o.e[x], o.e[y]) }

// model orders keys x and y by the model's score.
func (o *order) model(x, y int) int { return cmpFloat(o.mf[x], o.mf[y]) }

func cmpInt(a, b int64) int {
	if a < b {
		return -1
	}
	if a > b {
		return 1
	}
	return 0
}

func cmpFloat(a, b float64) int {
	if a < b {
		return -1
	}
	if a > b {
		return 1
	}
	return 0
}

// rank sets rank[kid] to the dense rank of each key of kids under cmp
// (0 for the smallest; equal keys, equal ranks).
func rank[R int64 | float64](kids []int, cmp func(x, y int) int, out []R) {
	sorted := append([]int(nil), kids...)
	slices.SortFunc(sorted, cmp)
	var r R
	for x, kid := range sorted {
		if x > 0 && cmp(sorted[x-1], kid) != 0 {
			r++
		}
		out[kid] = r
	}
}

// scores is a head's scoring of one query's keys: the order, and what
// the outputs need besides.
type scores[T any] struct {
	order
	// ints says e holds the exact scores (else er does, and e their
	// ranks); machine that mf holds the model's (else mu does).
	ints, machine bool
	er            []*big.Rat
	ck            *checker[T]
	l, hd         int
	keys          *table[T]
	dot           bool // the exact score is q·k
	// mu[kid] is the model's score, for the keys that are not machine
	// floats; a machine float's is muBuf[cur[kid]] (keysAt).
	mu    []T
	at    []int32
	cur   []int32
	muBuf []T
	gen   int
	stamp []int
	kids  []int
	keysM [][]T
	// keyInts holds the reference's keys as int64s, d to a key, and
	// keyBits the largest bit length of their entries, from ints64 (the
	// session's, where there is one).
	keyInts []int64
	keyBits int
	ints64  *keyInts[T]
	// firstKids lists the keys in the order of their first occurrences,
	// with the model's vectors (firstKeys); firstUpto[p] is how many of
	// them occur in positions 1 … p.
	firstKids []int
	firstKeys [][]T
	firstUpto []int
	firstAt   []int32
}

func (sc *scores[T]) init(ck *checker[T], l, hd int, keys *table[T]) {
	nk := len(keys.vecs)
	*sc = scores[T]{ck: ck, l: l, hd: hd, keys: keys, dot: ck.r.ScoreIsDot(l, hd),
		mu: make([]T, nk), at: make([]int32, nk), stamp: make([]int, nk)}
	sc.e, sc.er, sc.mf = make([]int64, nk), make([]*big.Rat, nk), make([]float64, nk)
	switch any(sc.mu).(type) {
	case []float64, []float32:
		sc.machine = true
	}
}

// muOf is the model's score of key kid.
func (sc *scores[T]) muOf(kid int) T {
	if sc.machine {
		return sc.muBuf[sc.cur[kid]]
	}
	return sc.mu[kid]
}

// rat is key x's exact score as a rational.
func (sc *scores[T]) rat(x int) *big.Rat {
	if sc.ints {
		return new(big.Rat).SetInt64(sc.e[x])
	}
	return sc.er[x]
}

// score scores, for query q, every distinct key of positions lo … hi in
// both models, each once; a NaN score is refused.
func (sc *scores[T]) score(h *headCheck[T], q State[T], lo, hi int, where func() string) error {
	ck := sc.ck
	kids, keysM, at := sc.keysAt(h.slots, lo, hi)
	sc.cur = at
	mu, err := ck.m.KeyScoresInto(sc.l, sc.hd, q.Model, keysM, sc.muBuf)
	if err != nil {
		return refuse("%s: the model's scores: %v", where(), err)
	}
	sc.muBuf = mu
	// mu is read only until the next query's scores are written into it.
	switch m := any(mu).(type) {
	case []float64:
		for x, kid := range kids {
			if m[x] != m[x] {
				return refuse("%s: the model's score of a key is NaN", where())
			}
			sc.mf[kid] = m[x]
		}
	case []float32:
		for x, kid := range kids {
			if m[x] != m[x] {
				return refuse("%s: the model's score of a key is NaN", where())
			}
			sc.mf[kid] = float64(m[x])
		}
	default:
		for x, kid := range kids {
			if ck.b.Cmp(mu[x], mu[x]) != numeric.Equal {
				return refuse("%s: the model's score of a key is NaN", where())
			}
			sc.mu[kid] = mu[x]
		}
		rank(kids, func(x, y int) int { return int(ck.b.Cmp(sc.mu[x], sc.mu[y])) }, sc.mf)
	}
	qi, intOK := sc.queryInts(q)
	sc.ints = intOK
	switch {
	case intOK:
		d := len(qi)
		for _, kid := range kids {
			sc.e[kid] = dotInts(qi, sc.keyInts[kid*d:kid*d+d])
		}
	case sc.dot:
		for _, kid := range kids {
			sc.er[kid] = dotRats(q.Ref, sc.keys.vecs[kid].Ref)
		}
	default:
		for _, kid := range kids {
			s, err := ck.r.HeadScore(sc.l, sc.hd, q.Ref, sc.keys.vecs[kid].Ref)
			if err != nil {
				return refuse("%s: the reference's score: %v", where(), err)
			}
			sc.er[kid] = s
		}
	}
	if !intOK {
		rank(kids, func(x, y int) int { return sc.er[x].Cmp(sc.er[y]) }, sc.e)
	}
	ck.work += int64(2 * len(kids) * len(q.Ref))
	return nil
}

// keysOf lists the distinct keys of positions lo … hi (ids, and the
// model's vectors). For a range from position 1 they are the first ones
// in the order of the keys' first occurrences, listed once per head.
func (sc *scores[T]) keysOf(slots [][]slot, lo, hi int) ([]int, [][]T) {
	kids, keysM, _ := sc.keysAt(slots, lo, hi)
	return kids, keysM
}

// keysAt is keysOf with, by key id, each key's index among them.
func (sc *scores[T]) keysAt(slots [][]slot, lo, hi int) ([]int, [][]T, []int32) {
	if lo == 1 {
		if sc.firstKids == nil {
			seen := make([]bool, len(sc.keys.vecs))
			sc.firstUpto = make([]int, len(slots)+1)
			sc.firstAt = make([]int32, len(sc.keys.vecs))
			for p, ss := range slots {
				for _, s := range ss {
					if !seen[s.kid] {
						seen[s.kid] = true
						sc.firstAt[s.kid] = int32(len(sc.firstKids))
						sc.firstKids = append(sc.firstKids, s.kid)
						sc.firstKeys = append(sc.firstKeys, sc.keys.vecs[s.kid].Model)
					}
				}
				sc.firstUpto[p+1] = len(sc.firstKids)
			}
		}
		return sc.firstKids[:sc.firstUpto[hi]], sc.firstKeys[:sc.firstUpto[hi]], sc.firstAt
	}
	sc.gen++
	kids, keysM := sc.kids[:0], sc.keysM[:0]
	for p := lo; p <= hi; p++ {
		for _, s := range slots[p-1] {
			if sc.stamp[s.kid] != sc.gen {
				sc.stamp[s.kid] = sc.gen
				sc.at[s.kid] = int32(len(kids))
				kids = append(kids, s.kid)
				keysM = append(keysM, sc.keys.vecs[s.kid].Model)
			}
		}
	}
	sc.kids, sc.keysM = kids, keysM
	return kids, keysM, sc.at
}

// queryInts is q's reference vector as int64s, when it and the keys are
// integers small enough that every product and partial sum of q·k stays
// below 2⁶² in magnitude: |q·k| ≤ d·2^(bits of q)·2^(bits of k).
func (sc *scores[T]) queryInts(q State[T]) ([]int64, bool) {
	if sc.ints64 == nil {
		sc.ints64 = &keyInts[T]{queries: map[**big.Rat][]int64{}}
	}
	ki := sc.ints64
	if !sc.dot || len(q.Ref) == 0 || !ki.extend(sc.keys, len(q.Ref)) {
		return nil, false
	}
	sc.keyInts, sc.keyBits = ki.flat, ki.bits
	if v, ok := ki.queries[&q.Ref[0]]; ok && (v == nil || len(v) == len(q.Ref)) {
		return v, v != nil
	}
	v, width, ok := integers(q.Ref)
	if !ok || width+ki.bits+bits.Len(uint(len(q.Ref))) > 62 {
		v = nil
	}
	ki.queries[&q.Ref[0]] = v
	return v, v != nil
}

// keyInts holds a head's keys as int64s, d to a key, for the keys of its
// table converted so far (a session keeps it from one length to the
// next, its table only growing); failed says one is not a vector of d
// integers of at most 62 bits, and bits is the largest bit length of
// their entries. queries holds the queries' int64s by the memory of their
// first entry (vectors are never written: the same memory holds the same
// values; nil where they are not small enough integers). A key added
// later with more bits changes the bound: the queries are converted
// again.
type keyInts[T any] struct {
	flat    []int64
	bits    int
	done    int
	failed  bool
	queries map[**big.Rat][]int64
}

// extend converts the keys of t not converted yet, and reports whether
// all of them are integers.
func (ki *keyInts[T]) extend(t *table[T], d int) bool {
	if ki.failed {
		return false
	}
	for ; ki.done < len(t.vecs); ki.done++ {
		k := t.vecs[ki.done].Ref
		v, width, ok := integers(k)
		if !ok || len(k) != d {
			ki.failed = true
			return false
		}
		ki.flat = append(ki.flat, v...)
		if width > ki.bits {
			ki.bits = width
			clear(ki.queries) // their bound was for fewer bits
		}
	}
	return true
}

// integers is xs as int64s, with the largest bit length of their
// magnitudes, when every one is an integer of at most 62 bits.
func integers(xs []*big.Rat) ([]int64, int, bool) {
	out := make([]int64, len(xs))
	width := 0
	for c, x := range xs {
		if !x.IsInt() || x.Num().BitLen() > 62 {
			return nil, 0, false
		}
		out[c] = x.Num().Int64()
		width = max(width, x.Num().BitLen())
	}
	return out, width, true
}

func dotInts(x, y []int64) int64 {
	var s int64
	for c := range x {
		s += x[c] * y[c]
	}
	return s
}

// dotRats is x·y in rationals.
func dotRats(x, y []*big.Rat) *big.Rat {
	s, t := new(big.Rat), new(big.Rat)
	for c := range x {
		s.Add(s, t.Mul(x[c], y[c]))
	}
	return s
}
