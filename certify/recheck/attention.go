package recheck

import (
	"math/big"

	"github.com/transformer-cookbook/verify/model"
)

// visible is the range of positions position i attends to (lo > hi:
// none), as the mask says (docs/model-format.md).
func visible(mask model.Mask, i, n int) (lo, hi int) {
	switch mask {
	case model.Future:
		return 1, i
	case model.StrictFuture:
		return 1, i - 1
	case model.Past:
		return i, n
	case model.StrictPast:
		return i + 1, n
	}
	return 1, n
}

// attention checks step k, layer l's attention sublayer, over the states
// cur (nil: the embeddings): every entry's outputs are derived and
// compared with the certificate's facts, and every next state they make
// must lie in next.
func (ck *checker[T]) attention(k int, cur, next *stateSets[T], cs *Step[T]) error {
	l := ck.steps[k].layer
	spec := ck.r.Steps().Attention(l)
	var g *gathered[T]
	var err error
	if cur == nil {
		g, err = ck.gatherEmbeddings(k, l, next.pooled)
	} else {
		if cur.pooled {
			return refuse("layer %d attention: the states before it are pooled", l+1)
		}
		g, err = ck.gatherStates(k, l, cur, next.pooled)
	}
	if err != nil {
		return err
	}
	if len(cs.Queries) != len(spec.Heads) {
		return refuse("layer %d attention: the certificate has facts for %d heads, the model has %d", l+1, len(cs.Queries), len(spec.Heads))
	}
	heads := make([]*headCheck[T], len(spec.Heads))
	for hd := range heads {
		heads[hd] = ck.newHeadCheck(l, hd, g, cs.Queries[hd])
		if ck.sess != nil {
			sh := ck.sess.head(k, hd)
			heads[hd].sess = sh
			sh.compare(g.items[hd])
			if sh.ints == nil {
				sh.ints = &keyInts[T]{queries: map[**big.Rat][]int64{}}
			}
			heads[hd].sc.ints64 = sh.ints
		}
	}
	// The next states of an entry depend on what its residual reads and
	// on its heads' outputs (by value): done holds those admitted, at a
	// position (pooled: at any).
	done := map[string]bool{}
	for x, e := range g.entries {
		if !next.pooled && (x == 0 || g.entries[x-1].pos != e.pos) {
			done = map[string]bool{}
		}
		lo, hi := visible(spec.Mask, e.pos, ck.n)
		options := make([][]State[T], len(heads))
		key := ints(nil, e.rid)
		for hd, h := range heads {
			outs, ids, err := h.outputs(e.qids[hd], lo, hi)
			if err != nil {
				return err
			}
			options[hd] = outs
			key = append(key, '|')
			key = ints(key, ids...)
		}
		if done[string(key)] {
			continue
		}
		done[string(key)] = true
		if err := ck.combine(k, l, e, options, next); err != nil {
			return err
		}
	}
	return nil
}

// factKey identifies a query over a visible range.
type factKey struct {
	q      string
	lo, hi int
}

func (ck *checker[T]) factKey(q State[T], lo, hi int) factKey {
	if lo > hi {
		lo, hi = 1, 0 // every empty range is one
	}
	return factKey{ck.keyOf(q), lo, hi}
}

// combine adds, for entry e, the state after the sublayer for every
// choice of one output per head, and checks each lies in next.
func (ck *checker[T]) combine(k, l int, e entry[T], options [][]State[T], next *stateSets[T]) error {
	choice := make([]int, len(options))
	for {
		outsR, outsM := make([][]*big.Rat, len(options)), make([][]T, len(options))
		for hd, c := range choice {
			outsR[hd], outsM[hd] = options[hd][c].Ref, options[hd][c].Model
		}
		nr, err := ck.r.Steps().SublayerOutput(l, true, e.rep.Ref, ck.r.Steps().SumHeads(outsR))
		if err != nil {
			return refuse("layer %d attention's residual in the reference: %v", l+1, err)
		}
		nm, err := ck.m.Steps().SublayerOutput(l, true, e.rep.Model, ck.m.Steps().SumHeads(outsM))
		if err != nil {
			return refuse("layer %d attention's residual in the model: %v", l+1, err)
		}
		ck.work += int64(len(nr) + len(nm))
		if err := ck.admit(next, k, e.pos, State[T]{Ref: nr, Model: nm}, e.from); err != nil {
			return err
		}
		hd := 0
		for ; hd < len(choice); hd++ {
			if choice[hd]++; choice[hd] < len(options[hd]) {
				break
			}
			choice[hd] = 0
		}
		if hd == len(choice) {
			return nil
		}
	}
}
