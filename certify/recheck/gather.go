package recheck

import (
	"fmt"
	"math/big"
	"slices"

	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/model/eval"
)

// What an attention sublayer reads of the states before it: each head's
// distinct queries, keys and values, the items (a key and a value) each
// position can hold, and the distinct entries (a position's queries and
// what its residual passes on) whose outputs are derived.

// table numbers distinct pairs of vectors by their values.
type table[T any] struct {
	ids  map[string]int
	vecs []State[T]
}

func newTable[T any]() *table[T] { return &table[T]{ids: map[string]int{}} }

func (t *table[T]) id(key string, s State[T]) int {
	if id, ok := t.ids[key]; ok {
		return id
	}
	t.ids[key] = len(t.vecs)
	t.vecs = append(t.vecs, s)
	return len(t.vecs) - 1
}

// item is a key and a value position pos can hold in one head.
type item struct{ pos, kid, vid int }

// entry is a state whose outputs are derived: its position, its query in
// each head, and the state itself (one of those with the same queries and
// residual read).
type entry[T any] struct {
	pos  int
	qids []int
	rid  int // what its residual reads (an id of gathered.residuals)
	rep  State[T]
	from string
}

// gathered is an attention sublayer's view of the states before it.
type gathered[T any] struct {
	queries, keys, vals []*table[T] // by head
	items               [][][]item  // by head, then position (0-based)
	itemSeen            []map[[3]int]bool
	entries             []entry[T]
	entrySeen           map[string]bool
	residuals           *table[T] // what residual connections read
	// mask is the sublayer's; pooled says the states after it are.
	mask   model.Mask
	pooled bool
}

func (ck *checker[T]) newGathered(k, l int, pooled bool) *gathered[T] {
	heads := len(ck.r.Steps().Attention(l).Heads)
	g := &gathered[T]{entrySeen: map[string]bool{}, residuals: newTable[T](), mask: ck.r.Steps().Attention(l).Mask, pooled: pooled}
	for hd := range heads {
		q, key, v := newTable[T](), newTable[T](), newTable[T]()
		if ck.sess != nil {
			// The session's tables: their ids stay the same from one
			// length to the next.
			sh := ck.sess.head(k, hd)
			q, key, v = sh.queries, sh.keys, sh.vals
		}
		g.queries, g.keys, g.vals = append(g.queries, q), append(g.keys, key), append(g.vals, v)
		g.items = append(g.items, make([][]item, ck.n))
		g.itemSeen = append(g.itemSeen, map[[3]int]bool{})
	}
	return g
}

// addItem records that position i can hold key kid and value vid in head
// hd.
func (g *gathered[T]) addItem(hd, i, kid, vid int) {
	its := g.items[hd][i-1]
	it := item{i, kid, vid}
	if len(its) < 16 {
		// A position holds few items: a scan finds one.
		if slices.Contains(its, it) {
			return
		}
	} else {
		key := [3]int{i, kid, vid}
		if len(its) == 16 {
			for _, x := range its {
				g.itemSeen[hd][[3]int{x.pos, x.kid, x.vid}] = true
			}
		}
		if g.itemSeen[hd][key] {
			return
		}
		g.itemSeen[hd][key] = true
	}
	g.items[hd][i-1] = append(its, it)
}

// addEntry records an entry of position i with queries qids and residual
// read rid, unless one with the same is recorded: at the same position,
// or, when the next states are pooled, at a position with the same
// visible range (its outputs, and so its next states, are the same).
func (ck *checker[T]) addEntry(g *gathered[T], i int, qids []int, rid int, rep func() (State[T], string, error)) error {
	buf := ints(nil, qids...)
	buf = ints(buf, rid)
	lo, hi := visible(g.mask, i, ck.n)
	if g.pooled {
		buf = ints(append(buf, '@'), lo, hi)
	} else {
		buf = ints(append(buf, '#'), i)
	}
	key := string(buf)
	if g.entrySeen[key] {
		return nil
	}
	g.entrySeen[key] = true
	s, from, err := rep()
	if err != nil {
		return err
	}
	g.entries = append(g.entries, entry[T]{pos: i, qids: append([]int(nil), qids...), rid: rid, rep: s, from: from})
	return nil
}

// residualKey is what step k's residual connection reads of state s: the
// components it passes on, and every component that is not finite in the
// model (a zero weight reads it).
func (ck *checker[T]) residualKey(k int, s State[T]) string {
	var buf []byte
	for c, on := range ck.readsR[k] {
		if on {
			buf = appendRat(buf, s.Ref[c])
		}
	}
	buf = append(buf, '|')
	for c, on := range ck.readsM[k] {
		if on || !ck.b.Finite(s.Model[c]) {
			buf = fmt.Appendf(buf, "%d:", c)
			buf = appendValue(buf, ck.b, s.Model[c])
		}
	}
	return string(buf)
}

// project3 is every head's query, key and value of a state, in both
// models.
func (ck *checker[T]) project3(l int, s State[T]) (qs, ks, vs []State[T], err error) {
	xr, err := ck.r.Steps().SublayerInput(l, true, s.Ref)
	if err != nil {
		return nil, nil, nil, refuse("layer %d attention's norm in the reference: %v", l+1, err)
	}
	xm, err := ck.m.Steps().SublayerInput(l, true, s.Model)
	if err != nil {
		return nil, nil, nil, refuse("layer %d attention's norm in the model: %v", l+1, err)
	}
	heads := len(ck.r.Steps().Attention(l).Heads)
	for hd := range heads {
		for p, dst := range []*[]State[T]{&qs, &ks, &vs} {
			*dst = append(*dst, ck.projection(l, hd, eval.Projection(p), xr, xm))
		}
	}
	return qs, ks, vs, nil
}

// projection is head hd's query, key or value of the sublayer inputs xr
// and xm.
func (ck *checker[T]) projection(l, hd int, p eval.Projection, xr []*big.Rat, xm []T) State[T] {
	r := ck.r.Steps().HeadProjection(l, hd, p, xr)
	m := ck.m.Steps().HeadProjection(l, hd, p, xm)
	ck.work += int64(len(r)*len(xr) + len(m)*len(xm))
	return State[T]{Ref: r, Model: m}
}

// gatherStates reads every state the certificate lists before step k
// (layer l's attention), projecting each one.
func (ck *checker[T]) gatherStates(k, l int, cur *stateSets[T], pooled bool) (*gathered[T], error) {
	heads := len(ck.r.Steps().Attention(l).Heads)
	g := ck.newGathered(k, l, pooled)
	qids := make([]int, heads)
	for i := 1; i <= ck.n; i++ {
		for _, s := range cur.at(i).list {
			qs, ks, vs, err := ck.project3(l, s)
			if err != nil {
				return nil, err
			}
			for hd := range heads {
				qids[hd] = g.queries[hd].id(ck.stateKey(qs[hd]), qs[hd])
				kid := g.keys[hd].id(ck.stateKey(ks[hd]), ks[hd])
				vid := g.vals[hd].id(ck.stateKey(vs[hd]), vs[hd])
				g.addItem(hd, i, kid, vid)
			}
			rid := g.residuals.id(ck.residualKey(k, s), State[T]{})
			err = ck.addEntry(g, i, qids, rid, func() (State[T], string, error) {
				return s, "a state the certificate lists", nil
			})
			if err != nil {
				return nil, err
			}
		}
	}
	return g, nil
}
