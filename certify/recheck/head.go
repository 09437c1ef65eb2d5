package recheck

import (
	"fmt"
	"math/big"
	"slices"

	"github.com/transformer-cookbook/verify/model"
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
	// severalValues lets held count ties of several values (mixed, which
	// derives their compositions itself) rather than refuse them.
	severalValues bool
	// soft says the model's head is a softmax head, beside a hard one
	// of the reference (softmax.go).
	soft bool
}

func (ck *checker[T]) newHeadCheck(l, hd int, g *gathered[T], facts []QueryFact[T]) *headCheck[T] {
	h := &headCheck[T]{ck: ck, l: l, hd: hd, g: g, average: ck.r.Steps().Attention(l).Weighting == model.AverageHardmax,
		facts: make(map[factKey]*QueryFact[T], len(facts)), derived: map[factKey]derivedOutputs[T]{}, averages: map[[4]int]State[T]{}}
	for x := range facts {
		f := &facts[x]
		h.facts[ck.factKey(f.Query, f.Lo, f.Hi)] = f
	}
	h.sc.init(ck, l, hd, g.keys[hd])
	h.soft = ck.m.Steps().Attention(l).Weighting == model.Softmax
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
	or, err := h.ck.r.Steps().HeadOutput(h.l, h.hd, nil, nil)
	if err != nil {
		return nil, refuse("%s: the reference's output: %v", where(), err)
	}
	om, err := h.ck.m.Steps().HeadOutput(h.l, h.hd, nil, nil)
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
	if h.soft {
		return h.softmax(q, lo, hi, where)
	}
	if len(fact.Ties) > 0 {
		return h.mixed(q, lo, hi, fact, where)
	}
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
	or, err := ck.r.Steps().HeadOutput(h.l, h.hd, scR, valR)
	if err != nil {
		return State[T]{}, refuse("%s: the reference's output: %v", where(), err)
	}
	om, err := ck.m.Steps().HeadOutput(h.l, h.hd, scM, valM)
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
