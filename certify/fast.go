package certify

import (
	"fmt"
	"math"

	"github.com/transformer-cookbook/verify/model"
)

// fastDecider decides a query on float64s, when it can: every exact
// score of the query is its float64 f, every model score a float64
// number (machineValue), every value finite, the model keeps the exact
// order, and the candidates are at most maxLinear. It works on slots (a
// position's items with one key share their scores) and decides,
// computes and charges what generalDecider does, in the same order. It
// leaves the query to the general code, before changing or charging
// anything, when a condition fails, and when the model breaks the exact
// order, whose report the general code makes.
type fastDecider[T any] struct{}

func (fastDecider[T]) decide(a *analysis[T], h *head[T], q query) (decision, bool, string) {
	slots, fs, kept := a.fastKept(h, q.lo, q.hi)
	if !kept || h.spec.Weighting == model.AverageHardmax && mixedPartners(slots, h.cands, h.partners, h.partnerOff) {
		// A broken order, or ties of several values: the general
		// code's (mixed.go).
		return decision{}, false, ""
	}
	outs, cands, why := a.fastOutputs(h, slots, fs, q)
	return decision{kept: true, cands: cands, outs: outs}, true, why
}

// fastKept reports whether the query last scored can be decided on
// float64s over positions lo … hi and the model keeps the exact order
// there, with the slots of lo … hi and their exact scores; the
// candidates and their partners in ties are left in h.cands, h.partners
// and h.partnerOff.
func (a *analysis[T]) fastKept(h *head[T], lo, hi int) (slots []slot, fs []float64, kept bool) {
	sc := &h.scores
	x := h.index(a.backend)
	if sc.slow > 0 || x.nonFinite[hi] != x.nonFinite[lo-1] {
		return nil, nil, false
	}
	first, end := x.slotOff[lo-1], x.slotOff[hi]
	slots = x.slots[first:end]
	fs, ms := h.slotScores(x, first, end)
	switch {
	case x.oneKey && sc.inPlace && first == 0 && sc.topTo == end:
		kept = h.keptRow(fs, ms, sc.top)
	case sc.inPlace && hasNaN(ms):
		// The NaNs scoreRange left uncounted.
		return nil, nil, false
	case x.oneKey:
		kept = h.keptOneKey(fs, ms)
	default:
		kept = h.kept(x, slots, first, fs, ms)
	}
	return slots, fs, kept
}

// slotScores is the exact and model scores of slots first … end − 1 for
// the query last scored: read off by key, or taken as they are where the
// slots' keys are 0, 1, 2, … (the lookup's).
func (h *head[T]) slotScores(x *itemIndex, first, end int) (fs, ms []float64) {
	sc := &h.scores
	if x.keyIsSlot {
		return sc.floats[first:end], sc.checkedFloats[first:end]
	}
	slots := x.slots[first:end]
	if cap(h.fs) < len(slots) {
		h.fs, h.ms = make([]float64, len(slots)), make([]float64, len(slots))
	}
	fs, ms = h.fs[:len(slots)], h.ms[:len(slots)]
	for k, sl := range slots {
		fs[k], ms[k] = sc.floats[sl.kid], sc.checkedFloats[sl.kid]
	}
	return fs, ms
}

// hasNaN reports whether any of xs is a NaN (in one pass, without a
// branch per value).
func hasNaN(xs []float64) bool {
	var nan uint8
	for _, m := range xs {
		nan |= bit(m != m)
	}
	return nan != 0
}

// fastOutputs lists, for a query whose order fastKept found kept, each
// candidate item in the order of the items with the outputs of its tie
// counts (equal in both models, since every tie is kept), as
// generalDecider does.
func (a *analysis[T]) fastOutputs(h *head[T], slots []slot, fs []float64, q query) (outs []int, candItems []item, why string) {
	cands := h.cands
	var seen outSet
	for ci := 0; ci < len(cands); {
		pos := slots[cands[ci]].pos
		ce := ci + 1
		for ce < len(cands) && slots[cands[ce]].pos == pos {
			ce++
		}
		for _, it := range h.items[pos-1] {
			c := slotOf(slots, cands, ci, ce, it.kid)
			if c < 0 {
				continue
			}
			candItems = append(candItems, it)
			count, why := a.fastTies(h, slots, c, it, q)
			if why != "" {
				return nil, nil, why
			}
			sx := scored[T]{item: it, float: fs[cands[c]], exact: true, checked: h.scores.checked[it.kid]}
			for m := 1; m <= count; m++ {
				o, why := a.averaged(h, &sx, m, &sx, m)
				if why != "" {
					return nil, nil, why
				}
				outs = seen.add(outs, o)
			}
		}
		ci = ce
	}
	return outs, candItems, ""
}

// mixedPartners reports whether some candidate ties with a partner
// whose value may differ from its own (either slot holds several
// values, or the two hold different ones).
func mixedPartners(slots []slot, cands []int, partners []int32, off []int) bool {
	for ci, c := range cands {
		s := &slots[c]
		for _, k := range partners[off[ci]:off[ci+1]] {
			if p := &slots[k]; !p.oneVid || !s.oneVid || p.vid != s.vid {
				return true
			}
		}
	}
	return false
}

// slotOf is the candidate among cands[from:to] (one position's) whose
// slot holds key kid (−1: none).
func slotOf(slots []slot, cands []int, from, to, kid int) int {
	for c := from; c < to; c++ {
		if int(slots[cands[c]].kid) == kid {
			return c
		}
	}
	return -1
}

// fastTies is ties for candidate c (item it) on slots: under average
// hardmax, 1 plus the positions of its partners, whose values must be
// it's. It charges what ties charges, for the reference's count and the
// model's.
func (a *analysis[T]) fastTies(h *head[T], slots []slot, c int, it item, q query) (int, string) {
	if h.spec.Weighting != model.AverageHardmax {
		return 1, ""
	}
	if why := a.charge(q.items); why != "" {
		return 0, why
	}
	count := 1
	last := int32(-1)
	for _, k := range h.partners[h.partnerOff[c]:h.partnerOff[c+1]] {
		p := &slots[k]
		if !p.oneVid || int(p.vid) != it.vid {
			return 0, fmt.Sprintf("layer %d attention, head %d: at position %d, keys at positions %d and %d tie in %s with different values: average hardmax averages a set that depends on the input", h.layer+1, h.num+1, q.pos, it.pos, p.pos, "the reference")
		}
		if p.pos != last {
			count++
			last = p.pos
		}
	}
	if why := a.charge(q.items); why != "" {
		return 0, why
	}
	return count, ""
}

// bit is 1 for true, 0 for false (without a branch).
func bit(b bool) uint8 {
	var x uint8
	if b {
		x = 1
	}
	return x
}

// kept finds the candidates of the slots (whose scores are fs and ms;
// the first is slot first of the index) as candidates marks them, their
// partners in ties, and reports whether the model keeps the order of
// each candidate against every slot at another position as orderKept
// checks it, with at most maxLinear candidates.
func (h *head[T]) kept(x *itemIndex, slots []slot, first int, fs, ms []float64) bool {
	// The candidates: a key whose exact score reaches the largest of the
	// other positions' smallest (top1, and top2 at another position than
	// top1's).
	cands := h.cands[:0]
	top1, top2 := -1, -1
	for g := 0; g < len(slots); {
		m, e := g, g+1
		for ; e < len(slots) && slots[e].pos == slots[g].pos; e++ {
			if fs[e] < fs[m] {
				m = e
			}
		}
		switch {
		case top1 < 0 || fs[m] > fs[top1]:
			top2, top1 = top1, m
		case top2 < 0 || fs[m] > fs[top2]:
			top2 = m
		}
		g = e
	}
	if top1 >= 0 {
		// Top1's position is held to top2, every other to top1.
		p1 := slots[top1].pos
		a1, b1 := x.slotOff[p1-1]-first, x.slotOff[p1]-first
		t1 := fs[top1]
		for k := range a1 {
			if fs[k] >= t1 {
				cands = append(cands, k)
			}
		}
		for k := a1; k < b1; k++ {
			if top2 < 0 || fs[k] >= fs[top2] {
				cands = append(cands, k)
			}
		}
		for k := b1; k < len(slots); k++ {
			if fs[k] >= t1 {
				cands = append(cands, k)
			}
		}
	}
	h.cands = cands
	if len(cands) > maxLinear {
		return false // many candidates: orderKept sorts
	}
	// The order kept (orderKept): against every key at another position,
	// each candidate's model score compares as its exact score does. The
	// keys at other positions with the candidate's exact score are its
	// partners in a tie (ties).
	partners, partnerOff := h.partners[:0], h.partnerOff[:0]
	defer func() { h.partners, h.partnerOff = partners, partnerOff }()
	for _, c := range cands {
		fc, mc, pc := fs[c], ms[c], slots[c].pos
		partnerOff = append(partnerOff, len(partners))
		ac, bc := x.slotOff[pc-1]-first, x.slotOff[pc]-first
		for _, r := range [2][2]int{{0, ac}, {bc, len(slots)}} {
			ks, ks2 := fs[r[0]:r[1]], ms[r[0]:r[1]]
			ks2 = ks2[:len(ks)]
			var broken uint8
			for k, f := range ks {
				m := ks2[k]
				// Broken where the signs of f − fc and m − mc differ.
				broken |= (bit(f < fc) ^ bit(m < mc)) | (bit(f > fc) ^ bit(m > mc))
				if f == fc {
					partners = append(partners, int32(r[0]+k))
				}
			}
			if broken != 0 {
				return false
			}
		}
	}
	partnerOff = append(partnerOff, len(partners))
	return true
}

// keptOneKey is kept where every position holds one key (one slot): the
// positions' smallest scores are the slots' own, so the candidates are
// the slots of the largest exact score, top, and every other slot scores
// below it. The order is kept exactly when the candidates' model scores
// are the largest, most, and every other slot's is below it: the slots of
// most are those of top.
func (h *head[T]) keptOneKey(fs, ms []float64) bool {
	cands := h.cands[:0]
	defer func() { h.cands = cands }()
	if len(fs) == 0 {
		h.partners, h.partnerOff = h.partners[:0], h.partnerOff[:0]
		return true
	}
	ms = ms[:len(fs)]
	top, most := fs[0], ms[0] // no NaN: checked by the caller
	for k, f := range fs {
		if f > top {
			top = f
		}
		if m := ms[k]; m > most {
			most = m
		}
	}
	// Below the largest or at it, as f ≥ top says (and m ≥ most).
	var broken uint8
	for k, f := range fs {
		broken |= bit(f >= top) ^ bit(ms[k] >= most)
		if f >= top {
			cands = append(cands, k)
		}
	}
	if broken != 0 || len(cands) > maxLinear {
		return false
	}
	h.oneKeyPartners(cands)
	return true
}

// keptRow is keptOneKey given top, the largest of fs, and with the NaNs
// of ms still to be found: in one pass, the model's largest score below
// the candidates (low) must be below their smallest (lo), which must be
// their largest (hi).
func (h *head[T]) keptRow(fs, ms []float64, top float64) bool {
	cands := h.cands[:0]
	defer func() { h.cands = cands }()
	ms = ms[:len(fs)]
	var nan uint8
	low, lo, hi := math.Inf(-1), math.Inf(1), math.Inf(-1)
	below := false
	for k, f := range fs {
		m := ms[k]
		nan |= bit(m != m)
		if f >= top {
			cands = append(cands, k)
			lo, hi = min(lo, m), max(hi, m)
		} else {
			below = true
			if m > low {
				low = m
			}
		}
	}
	if nan != 0 || lo != hi || below && low >= lo || len(cands) > maxLinear {
		return false
	}
	h.oneKeyPartners(cands)
	return true
}

// oneKeyPartners sets the partners of candidates cands that are one per
// position: each candidate's partners are the others.
func (h *head[T]) oneKeyPartners(cands []int) {
	// Each candidate's partners are the others.
	partners, partnerOff := h.partners[:0], h.partnerOff[:0]
	for _, c := range cands {
		partnerOff = append(partnerOff, len(partners))
		for _, k := range cands {
			if k != c {
				partners = append(partners, int32(k))
			}
		}
	}
	h.partners, h.partnerOff = partners, append(partnerOff, len(partners))
}
