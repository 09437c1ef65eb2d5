package certify

import (
	"fmt"
	"math"

	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/numeric"
)

// slot is one key a position can hold in one head. The items of a
// position that share a key share its scores: the order of the scores is
// a matter of slots, and only the ties under average hardmax read the
// values.
type slot struct {
	pos, kid int32
	// vid is the value of the position's first item with this key, and
	// oneVid says every item of the position with this key has it.
	vid    int32
	oneVid bool
}

// itemIndex indexes a head's items once the first pass has gathered
// them.
type itemIndex struct {
	// slots lists the keys of every position, positions in order and
	// each position's keys in the order of their first items:
	// slots[slotOff[p−1]:slotOff[p]] are position p's.
	slots   []slot
	slotOff []int
	// itemOff[p] is the number of items of the positions before p + 1,
	// and nonFinite[p] of those whose value is not finite in the model.
	itemOff, nonFinite []int
	// firstKids lists the distinct keys in the order of their first
	// slots, and firstSlot those slots' indices.
	firstKids, firstSlot []int
	// oneKey: every position holds one key at most; keyIsSlot: slot s
	// holds key s.
	oneKey, keyIsSlot bool
}

// index is the head's item index, built on first use (the items do not
// change after the first pass).
func (h *head[T]) index(b numeric.Backend[T]) *itemIndex {
	if h.idx != nil {
		return h.idx
	}
	n := len(h.items)
	x := &itemIndex{slotOff: make([]int, n+1), itemOff: make([]int, n+1), nonFinite: make([]int, n+1)}
	var at map[int]int // a position's slots by key, where it holds many
	for p, items := range h.items {
		first := len(x.slots)
		bad := 0
		if len(items) > 16 {
			if at == nil {
				at = map[int]int{}
			}
			clear(at)
		}
		for _, it := range items {
			if !h.vals.finite(b, it.vid) {
				bad++
			}
			s, found := -1, false
			if len(items) > 16 {
				s, found = at[it.kid]
			} else {
				for s = first; s < len(x.slots) && int(x.slots[s].kid) != it.kid; s++ {
				}
				found = s < len(x.slots)
			}
			if found {
				sl := &x.slots[s]
				sl.oneVid = sl.oneVid && int(sl.vid) == it.vid
				continue
			}
			if len(items) > 16 {
				at[it.kid] = len(x.slots)
			}
			x.slots = append(x.slots, slot{pos: int32(it.pos), kid: int32(it.kid), vid: int32(it.vid), oneVid: true})
		}
		x.slotOff[p+1] = len(x.slots)
		x.itemOff[p+1] = x.itemOff[p] + len(items)
		x.nonFinite[p+1] = x.nonFinite[p] + bad
	}
	x.oneKey, x.keyIsSlot = true, true
	for p := range n {
		x.oneKey = x.oneKey && x.slotOff[p+1]-x.slotOff[p] <= 1
	}
	for s, sl := range x.slots {
		x.keyIsSlot = x.keyIsSlot && int(sl.kid) == s
	}
	met := make([]bool, len(h.keys.r))
	for s, sl := range x.slots {
		if !met[sl.kid] {
			met[sl.kid] = true
			x.firstKids, x.firstSlot = append(x.firstKids, int(sl.kid)), append(x.firstSlot, s)
		}
	}
	// The model's keys in that order, in one block: scored in a row.
	if len(x.firstKids) > 0 {
		d := len(h.keys.m[x.firstKids[0]])
		block := make([]T, 0, d*len(x.firstKids))
		for _, kid := range x.firstKids {
			k := h.keys.m[kid]
			if len(k) != d {
				block = nil // widths that differ: kept apart
				break
			}
			block = append(block, k...)
		}
		h.firstKeys = make([][]T, len(x.firstKids))
		for j, kid := range x.firstKids {
			if block != nil {
				h.firstKeys[j] = block[j*d : (j+1)*d : (j+1)*d]
			} else {
				h.firstKeys[j] = h.keys.m[kid]
			}
		}
	}
	h.idx = x
	return x
}

// queryFloats is query qid in float64, and whether the exact score is its
// dot product with a key and the query converts exactly.
func (h *head[T]) queryFloats(qid int) ([]float64, bool) {
	if !h.dot {
		return nil, false
	}
	return h.queries.floats(qid)
}

// fastOutputs is headOutputs past the scores and their charges (count
// items in positions lo … hi), when it can be done on float64s: every
// exact score of the query is its float64 f, every model score a float64
// number (machineValue), every value finite, and the candidates at most
// maxLinear. It works on slots (a position's items with one key share
// their scores) and decides, computes and charges what headOutputs does,
// in the same order. done is false when it leaves the query to the
// general code, which it does before changing anything: when a condition
// fails, and when the model breaks the exact order, whose report the
// general code makes.
func (a *analysis[T]) fastOutputs(h *head[T], lo, hi, i, count int) (outs []int, candItems []item, done bool, why string) {
	sc := &h.scores
	x := h.index(a.b)
	if sc.slow > 0 || x.nonFinite[hi] != x.nonFinite[lo-1] {
		return nil, nil, false, ""
	}
	first, end := x.slotOff[lo-1], x.slotOff[hi]
	slots := x.slots[first:end]
	// Each slot's scores: read off by key, or taken as they are where
	// the slots' keys are 0, 1, 2, … (the lookup's).
	var fs, ms []float64
	if x.keyIsSlot {
		fs, ms = sc.f[first:end], sc.mf[first:end]
	} else {
		if cap(h.fs) < len(slots) {
			h.fs, h.ms = make([]float64, len(slots)), make([]float64, len(slots))
		}
		fs, ms = h.fs[:len(slots)], h.ms[:len(slots)]
		for k, sl := range slots {
			fs[k], ms[k] = sc.f[sl.kid], sc.mf[sl.kid]
		}
	}
	var kept bool
	if x.oneKey && sc.inPlace && first == 0 && sc.topTo == end {
		kept = h.keptRow(fs, ms, sc.top)
	} else {
		if sc.inPlace {
			// The NaNs scoreRange left uncounted.
			var nan uint8
			for _, m := range ms {
				nan |= bit(m != m)
			}
			if nan != 0 {
				return nil, nil, false, ""
			}
		}
		if x.oneKey {
			kept = h.keptOneKey(fs, ms)
		} else {
			kept = h.kept(x, slots, first, fs, ms)
		}
	}
	if !kept {
		return nil, nil, false, ""
	}
	cands, partners, partnerOff := h.cands, h.partners, h.partnerOff
	// Each candidate item in the order of the items, with the counts of
	// its ties: equal in both models, since every tie is kept.
	average := h.spec.Weighting == model.AverageHardmax
	var seen outSet
	for ci := 0; ci < len(cands); {
		pos := slots[cands[ci]].pos
		ce := ci + 1
		for ce < len(cands) && slots[cands[ce]].pos == pos {
			ce++
		}
		for _, it := range h.items[pos-1] {
			c := -1
			for cj := ci; cj < ce; cj++ {
				if int(slots[cands[cj]].kid) == it.kid {
					c = cj
					break
				}
			}
			if c < 0 {
				continue
			}
			candItems = append(candItems, it)
			count1 := 1
			if average {
				if why := a.charge(count); why != "" {
					return nil, nil, true, why
				}
				last := int32(-1)
				for _, k := range partners[partnerOff[c]:partnerOff[c+1]] {
					p := &slots[k]
					if !p.oneVid || int(p.vid) != it.vid {
						return nil, nil, true, fmt.Sprintf("layer %d attention, head %d: at position %d, keys at positions %d and %d tie in %s with different values: average hardmax averages a set that depends on the input", h.l+1, h.hd+1, i, it.pos, p.pos, "the reference")
					}
					if p.pos != last {
						count1++
						last = p.pos
					}
				}
				if why := a.charge(count); why != "" {
					return nil, nil, true, why
				}
			}
			sx := scored[T]{item: it, f: fs[cands[c]], exact: true, sm: sc.m[it.kid]}
			for m := 1; m <= count1; m++ {
				o, why := a.averaged(h, &sx, m, &sx, m)
				if why != "" {
					return nil, nil, true, why
				}
				outs = seen.add(outs, o)
			}
		}
		ci = ce
	}
	return outs, candItems, true, ""
}

// outSet tells which outputs a list holds: by scanning while it is
// short, by a map once it is long.
type outSet struct {
	m map[int]bool
}

// add appends o to outs unless outs holds it.
func (s *outSet) add(outs []int, o int) []int {
	if s.m == nil {
		for _, x := range outs {
			if x == o {
				return outs
			}
		}
		if len(outs) < 16 {
			return append(outs, o)
		}
		s.m = make(map[int]bool, 2*len(outs))
		for _, x := range outs {
			s.m[x] = true
		}
	}
	if s.m[o] {
		return outs
	}
	s.m[o] = true
	return append(outs, o)
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
