package certify

import (
	"fmt"
	"math/big"
	"strconv"

	"github.com/transformer-cookbook/verify/model"
)

// attention is step k, layer l's attention sublayer: every state pair at
// every position gets, in place of one input's head outputs, each output
// its heads can give there.
func (a *analysis[T]) attention(k, l int, cur *states[T]) (*states[T], string) {
	spec := a.ref.Steps().Attention(l)
	heads := make([]*head[T], len(spec.Heads))
	for hd := range heads {
		h := &head[T]{layer: l, num: hd, spec: spec, queries: newPairTable[T](), keys: newPairTable[T](), vals: newPairTable[T](),
			outs: newPairTable[T](), items: make([][]item, a.n), seen: make([]map[[2]int]bool, a.n),
			outCache: map[[3]int][]int{}, avgCache: map[[4]int]int{}, scores: keyScores[T]{qid: -1}, dot: a.ref.Steps().ScoreIsDot(l, hd),
			fromFirst: !a.input.general && (spec.Mask == model.NoMask || spec.Mask == model.Future || spec.Mask == model.StrictFuture)}
		if a.chain != nil {
			// The chain's tables, whose ids stay the same from one
			// length to the next.
			hc := a.chain.headOf(l, hd)
			h.chain, h.queries, h.keys, h.vals, h.outs = hc, hc.queries, hc.keys, hc.vals, hc.outs
		}
		heads[hd] = h
	}
	// Pass 1: the keys and values each position can hold and the
	// distinct entries (query ids, and what the residual connection
	// reads) whose outputs pass 2 works out. After the last attention
	// sublayer of an unmasked head the position does not matter, and
	// entries are shared by every position.
	next := a.newStates(k)
	g := &gather[T]{a: a, heads: heads, global: next.pooled && spec.Mask == model.NoMask,
		seen: map[string]bool{}, residuals: map[string]int{}}
	var why string
	if cur.embed && !a.input.unfactored {
		why = a.gatherEmbeddings(g, k, l)
	} else {
		why = a.gatherStates(g, k, l, cur)
	}
	if why != "" {
		return nil, why
	}
	entries := g.entries
	a.heads = heads
	for _, h := range heads {
		if h.chain != nil {
			h.chain.compare(h)
		}
	}
	// Pass 2: each entry's outputs, and the states they make. The state
	// after the sublayer depends only on the components of s the residual
	// connection reads and on the heads' outputs: done holds those added.
	done := map[string]bool{}
	for x, e := range entries {
		if !next.pooled && (x == 0 || entries[x-1].pos != e.pos) {
			done = map[string]bool{}
		}
		options := make([][]int, len(heads))
		for hd, h := range heads {
			outs, why := a.headOutputs(h, e.qids[hd], e.pos, e.s.witness)
			if why != "" {
				return nil, why
			}
			options[hd] = outs
		}
		if why := a.combine(next, done, k, l, e.pos, e.res, e.s, heads, options); why != "" {
			return nil, why
		}
	}
	return next, ""
}

// entry is a state whose outputs an attention sublayer works out: its
// position, its query id in each head, and the state itself (one of those
// with the same query ids and residual reads).
type entry[T any] struct {
	pos  int
	qids []int
	res  int // what its residual connection reads (gather.residualID)
	s    *state[T]
}

// combine adds, for state s at position i, the state after the sublayer
// for every choice of one output per head. done holds what was added
// already: the part of a state the residual connection reads (res, its
// id), with the outputs chosen.
func (a *analysis[T]) combine(next *states[T], done map[string]bool, k, l, i, res int, s *state[T], heads []*head[T], options [][]int) string {
	choice := make([]int, len(heads))
	read := strconv.Itoa(res)
	for {
		key := read
		for hd, c := range choice {
			key += "," + strconv.Itoa(options[hd][c])
		}
		if !done[key] {
			done[key] = true
			if why := a.charge(len(s.ref) + len(s.checked)); why != "" {
				return why
			}
			if why := a.addCombined(next, k, l, i, s, heads, options, choice); why != "" {
				return why
			}
		}
		// The next choice, like an odometer.
		hd := 0
		for ; hd < len(heads); hd++ {
			if choice[hd]++; choice[hd] < len(options[hd]) {
				break
			}
			choice[hd] = 0
		}
		if hd == len(heads) {
			return ""
		}
	}
}

// addCombined adds the state after the sublayer for state s and one
// output per head.
func (a *analysis[T]) addCombined(next *states[T], k, l, i int, s *state[T], heads []*head[T], options [][]int, choice []int) string {
	outsR, outsM := make([][]*big.Rat, len(heads)), make([][]T, len(heads))
	w := s.witness
	for hd, h := range heads {
		o := options[hd][choice[hd]]
		outsR[hd], outsM[hd] = h.outs.pairs[o].ref, h.outs.pairs[o].checked
		w = union(w, h.outs.witnesses[o])
	}
	nr, err := a.ref.Steps().SublayerOutput(l, true, s.ref, a.ref.Steps().SumHeads(outsR))
	if err != nil {
		return fmt.Sprintf("layer %d attention's residual in the reference: %v", l+1, err)
	}
	nm, err := a.checked.Steps().SublayerOutput(l, true, s.checked, a.checked.Steps().SumHeads(outsM))
	if err != nil {
		return fmt.Sprintf("layer %d attention's residual in the model: %v", l+1, err)
	}
	return a.add(next, k, i, &state[T]{pair: pair[T]{ref: nr, checked: nm}, witness: w})
}
