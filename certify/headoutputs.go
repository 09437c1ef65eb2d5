package certify

import (
	"fmt"
	"math/big"

	"github.com/transformer-cookbook/verify/model"
)

// ties is how many positions can share the maximum with it under average
// hardmax, in the reference (exact scores) or the model: 1 plus the other
// positions with an item of the same score, whose values must then be
// it's (else the mean depends on the input). Other weightings select one
// position: 1.
func (a *analysis[T]) ties(h *head[T], items []scored[T], it *scored[T], exact bool, i int) (int, string) {
	if h.spec.Weighting != model.AverageHardmax {
		return 1, ""
	}
	if why := a.charge(len(items)); why != "" {
		return 0, why
	}
	partners := map[int]bool{}
	for x := range items {
		other := &items[x]
		if other.pos == it.pos {
			continue
		}
		same := cmpExact(other, it) == 0
		if !exact {
			same = a.backend.Cmp(other.checked, it.checked) == 0
		}
		if !same {
			continue
		}
		if other.vid != it.vid {
			who := "the reference"
			if !exact {
				who = "the model"
			}
			return 0, fmt.Sprintf("layer %d attention, head %d: at position %d, keys at positions %d and %d tie in %s with different values: average hardmax averages a set that depends on the input", h.layer+1, h.num+1, i, it.pos, other.pos, who)
		}
		partners[other.pos] = true
	}
	return 1 + len(partners), ""
}

// averaged is the pair of the head's outputs when the reference selects
// mr positions holding x's key and value, and the model mm positions
// holding y's.
func (a *analysis[T]) averaged(h *head[T], x *scored[T], mr int, y *scored[T], mm int) (int, string) {
	key := [4]int{x.vid, mr, y.vid, mm}
	hard := h.spec.Weighting != model.Softmax
	if id, ok := h.avgCache[key]; ok && hard {
		return id, ""
	}
	scR, valR := make([]*big.Rat, mr), make([][]*big.Rat, mr)
	for k := range scR {
		scR[k], valR[k] = x.rat(), h.vals.pairs[x.vid].ref
	}
	scM, valM := make([]T, mm), make([][]T, mm)
	for k := range scM {
		scM[k], valM[k] = y.checked, h.vals.pairs[y.vid].checked
	}
	or, err := a.ref.Steps().HeadOutput(h.layer, h.num, scR, valR)
	if err != nil {
		return 0, fmt.Sprintf("layer %d head %d's output in the reference: %v", h.layer+1, h.num+1, err)
	}
	om, err := a.checked.Steps().HeadOutput(h.layer, h.num, scM, valM)
	if err != nil {
		return 0, fmt.Sprintf("layer %d head %d's output in the model: %v", h.layer+1, h.num+1, err)
	}
	id := h.outs.id(a, or, om, union(x.w, y.w))
	if hard {
		h.avgCache[key] = id
	}
	return id, ""
}

// zeroOutput is the output of a head that attends to nothing.
func (a *analysis[T]) zeroOutput(h *head[T]) []int {
	or, _ := a.ref.Steps().HeadOutput(h.layer, h.num, nil, nil)
	om, _ := a.checked.Steps().HeadOutput(h.layer, h.num, nil, nil)
	return []int{h.outs.id(a, or, om, witness{known: true})}
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
