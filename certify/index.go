package certify

import (
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
	met := make([]bool, len(h.keys.pairs))
	for s, sl := range x.slots {
		if !met[sl.kid] {
			met[sl.kid] = true
			x.firstKids, x.firstSlot = append(x.firstKids, int(sl.kid)), append(x.firstSlot, s)
		}
	}
	// The model's keys in that order, in one block: scored in a row.
	if len(x.firstKids) > 0 {
		d := len(h.keys.pairs[x.firstKids[0]].checked)
		block := make([]T, 0, d*len(x.firstKids))
		for _, kid := range x.firstKids {
			k := h.keys.pairs[kid].checked
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
				h.firstKeys[j] = h.keys.pairs[kid].checked
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
