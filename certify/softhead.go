package certify

import (
	"fmt"
	"math/big"
	"slices"
	"strconv"

	"github.com/transformer-cookbook/verify/model"
)

// soft says the model's head h is a softmax head (beside a hard one in
// the reference: newAnalysis refuses a softmax reference).
func (a *analysis[T]) soft(h *head[T]) bool {
	return a.checked.Steps().Attention(h.layer).Weighting == model.Softmax
}

// softDecide decides query q of a softmax head h of the model, whose
// reference head is hard: the pairs of outputs one input can give, the
// reference's selection and mean beside the model's softmax, over every
// choice of an item per visible position (softmaxOutputs, with the
// reference's hardmax as the fold). The order is not "kept": the
// decision is made again at every length.
func (a *analysis[T]) softDecide(h *head[T], q query) (decision, string) {
	items := a.scoredItems(h, q.lo, q.hi)
	if why := a.selectable(h, items, q.pos); why != "" {
		return decision{}, why
	}
	flat := slices.Clone(items)
	// class[x] numbers the exact scores: equal scores, one number.
	order := make([]int, len(flat))
	for x := range order {
		order[x] = x
	}
	slices.SortFunc(order, func(x, y int) int { return cmpExact(&flat[x], &flat[y]) })
	class := make([]int, len(flat))
	for k, x := range order {
		if k > 0 && cmpExact(&flat[order[k-1]], &flat[x]) == 0 {
			class[x] = class[order[k-1]]
		} else {
			class[x] = k
		}
	}
	byPos := make([][]softItem[T], q.hi-q.lo+1)
	for x := range flat {
		it := &flat[x]
		byPos[it.pos-q.lo] = append(byPos[it.pos-q.lo], softItem[T]{score: it.checked, value: h.vals.pairs[it.vid].checked, tag: x})
	}
	w := a.ref.Steps().Attention(h.layer).Weighting
	// The reference's fold: the class of the maximum so far, then the
	// items at it that its hardmax reads (the first, the last, or all:
	// the mean of average hardmax does not depend on their order).
	folds := map[string]refSel{"": {top: -1}}
	fold := func(s string, x int) string {
		st := folds[s]
		switch {
		case st.top < 0 || cmpExact(&flat[x], &flat[st.top]) > 0:
			st = refSel{top: x, sel: []int{x}}
		case class[x] == class[st.top]:
			switch w {
			case model.LeftHardmax:
			case model.RightHardmax:
				st.sel = []int{x}
			default:
				st.sel = append(slices.Clone(st.sel), x)
			}
		}
		vids := make([]int, len(st.sel))
		for k, y := range st.sel {
			vids[k] = flat[y].vid
		}
		if w == model.AverageHardmax {
			slices.Sort(vids)
		}
		// class:[v1 v2 …], as fmt.Sprint prints the ids, without its cost.
		kb := append(strconv.AppendInt(make([]byte, 0, 16), int64(class[st.top]), 10), ':', '[')
		for k, v := range vids {
			if k > 0 {
				kb = append(kb, ' ')
			}
			kb = strconv.AppendInt(kb, int64(v), 10)
		}
		key := string(append(kb, ']'))
		if _, ok := folds[key]; !ok {
			folds[key] = st
		}
		return key
	}
	outs, work, why := softmaxOutputs(a.backend, byPos, fold)
	if why != "" {
		return decision{}, fmt.Sprintf("layer %d attention, head %d: at position %d: %s", h.layer+1, h.num+1, q.pos, why)
	}
	if why := a.charge(work); why != "" {
		return decision{}, why
	}
	var ids []int
	var set outSet
	refOuts := map[string][]*big.Rat{}
	for _, o := range outs {
		or, ok := refOuts[o.ref]
		if !ok {
			st := folds[o.ref]
			scR, valR := make([]*big.Rat, len(st.sel)), make([][]*big.Rat, len(st.sel))
			for k, y := range st.sel {
				scR[k], valR[k] = flat[y].rat(), h.vals.pairs[flat[y].vid].ref
			}
			var err error
			if or, err = a.ref.Steps().HeadOutput(h.layer, h.num, scR, valR); err != nil {
				return decision{}, fmt.Sprintf("layer %d attention, head %d: the reference's output: %v", h.layer+1, h.num+1, err)
			}
			refOuts[o.ref] = or
		}
		ids = set.add(ids, h.outs.id(a, or, o.out, q.w))
	}
	return decision{outs: ids}, ""
}

// refSel is the reference's hardmax over a prefix of the positions: top,
// an item of the maximal exact score (−1: none yet), and sel, the items
// at it that the weighting reads, in position order.
type refSel struct {
	top int
	sel []int
}
