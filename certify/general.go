package certify

import (
	"fmt"
	"math/bits"

	"github.com/transformer-cookbook/verify/numeric"
)

// generalDecider decides every query, item by item, by the backend's own
// comparisons: it reports a broken order (Result.Breaks), and follows the
// pairs of selections the two models can then make.
type generalDecider[T any] struct{}

func (generalDecider[T]) decide(a *analysis[T], h *head[T], q query) (decision, bool, string) {
	items := a.scoredItems(h, q.lo, q.hi)
	if why := a.selectable(h, items, q.pos); why != "" {
		return decision{}, true, why
	}
	candR := candidates(items, cmpExact[T])
	kept, sorted := a.orderKept(h, items, candR, q.w, q.pos)
	if sorted {
		// Sorting the items costs about log₂ of their number per item
		// more: charged, so that the budget keeps measuring time.
		if why := a.charge(len(items) * bits.Len(uint(len(items)))); why != "" {
			return decision{}, true, why
		}
	}
	var cands []item
	for x, c := range candR {
		if c {
			cands = append(cands, items[x].item)
		}
	}
	if kept && a.mixedTies(h, items, candR) {
		// Ties of several values, the order kept: their compositions
		// (mixed.go).
		outs, ties, why := a.mixedOutputs(h, items, candR, q.pos)
		if why != "" {
			return decision{}, true, why
		}
		return decision{kept: true, cands: cands, outs: outs, ties: ties}, true, ""
	}
	pairs, why := a.selections(h, items, candR, kept, q.pos)
	if why != "" {
		return decision{}, true, why
	}
	outs, why := a.pairOutputs(h, items, pairs, q.pos)
	if why != "" {
		return decision{}, true, why
	}
	return decision{kept: kept, cands: cands, outs: outs}, true, ""
}

// selectable refuses the items of a query at position i that Run's
// weighted sum would turn into NaN: it reads every visible position, so a
// NaN score makes every weight NaN, and an unselected position's
// non-finite value makes 0·∞ = NaN. Neither is an order or a selection
// the analysis follows.
func (a *analysis[T]) selectable(h *head[T], items []scored[T], i int) string {
	for x := range items {
		it := &items[x]
		if a.backend.Cmp(it.checked, it.checked) != numeric.Equal {
			return fmt.Sprintf("layer %d attention, head %d: at position %d, the model computes a NaN score (key at position %d)", h.layer+1, h.num+1, i, it.pos)
		}
		if !h.vals.finite(a.backend, it.vid) {
			return fmt.Sprintf("layer %d attention, head %d: at position %d, the value at position %d is not finite in the model (its weight 0 would give 0·∞ = NaN)", h.layer+1, h.num+1, i, it.pos)
		}
	}
	return ""
}

// selections lists the pairs of items (indices in items) that the
// reference and the model can select on one input, at a query at
// position i whose exact candidates are candR: each candidate with
// itself where the order is kept; else each exact candidate x with each
// model candidate y that one input can make both selections of (the same
// item, or at two positions with x ahead exactly and y in the model).
func (a *analysis[T]) selections(h *head[T], items []scored[T], candR []bool, kept bool, i int) ([][2]int, string) {
	var pairs [][2]int
	if kept {
		for x, c := range candR {
			if c {
				pairs = append(pairs, [2]int{x, x})
			}
		}
		return pairs, ""
	}
	candM := candidates(items, func(x, y *scored[T]) int { return int(a.backend.Cmp(x.checked, y.checked)) })
	xs, ys := marked(candR), marked(candM)
	for _, x := range xs {
		for _, y := range ys {
			ix, iy := &items[x], &items[y]
			if x == y || ix.pos != iy.pos && cmpExact(ix, iy) >= 0 && a.backend.Cmp(iy.checked, ix.checked) >= 0 {
				pairs = append(pairs, [2]int{x, y})
			}
		}
		if len(pairs) > maxPairs {
			return nil, fmt.Sprintf("layer %d attention, head %d: at position %d, the two models may select more than %d different pairs of keys, more than the analysis follows", h.layer+1, h.num+1, i, maxPairs)
		}
	}
	return pairs, ""
}

// maxPairs bounds the pairs of selections the analysis follows at one
// query.
const maxPairs = 1 << 12

// pairOutputs lists the outputs of the pairs of selections at a query at
// position i: for each pair, the mean of mr copies of the reference's
// value beside mm of the model's, for every tie count each model allows
// (the same count in both where the two select the same item).
func (a *analysis[T]) pairOutputs(h *head[T], items []scored[T], pairs [][2]int, i int) ([]int, string) {
	var seen outSet
	var outs []int
	for _, p := range pairs {
		ix, iy := &items[p[0]], &items[p[1]]
		countR, why := a.ties(h, items, ix, true, i)
		if why != "" {
			return nil, why
		}
		countM, why := a.ties(h, items, iy, false, i)
		if why != "" {
			return nil, why
		}
		for mr := 1; mr <= countR; mr++ {
			for mm := 1; mm <= countM; mm++ {
				if p[0] == p[1] && mr != mm {
					continue // the same selection: the same count in both
				}
				o, why := a.averaged(h, ix, mr, iy, mm)
				if why != "" {
					return nil, why
				}
				outs = seen.add(outs, o)
			}
		}
	}
	return outs, ""
}
