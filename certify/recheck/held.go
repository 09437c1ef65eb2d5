package recheck

import (
	"fmt"
	"sort"
)

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
	mu, err := ck.m.Steps().KeyScoresInto(h.l, h.hd, q.Model, keysM, sc.muBuf)
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
	if len(c.vids) == 1 && len(s.vids) == 1 && s.vids[0] == c.vids[0] || h.severalValues {
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
