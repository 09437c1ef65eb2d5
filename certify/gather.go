package certify

import (
	"encoding/binary"
)

// gather is an attention sublayer's first pass over the states: the keys
// and values each position can hold (each head's items), and the distinct
// entries (a position, its query in each head, what its residual
// connection reads) whose outputs the second pass works out.
type gather[T any] struct {
	a     *analysis[T]
	heads []*head[T]
	// global: the entries do not depend on the position (after the last
	// attention sublayer, under no mask).
	global    bool
	entries   []entry[T]
	seen      map[string]bool
	residuals map[string]int // ids of what residual connections read
	buf       []byte
	// embedding, when set, is the embedding of a symbol at a position,
	// computed or one computed already (embedGather.embedding).
	embedding func(sym, i int) (*state[T], string)
}

// source is where a noted state comes from: a state held (s), or the
// embedding of symbol sym at the position, computed only if needed.
type source[T any] struct {
	s   *state[T]
	sym int
}

func (g *gather[T]) witness(i int, src source[T]) witness {
	if src.s != nil {
		return src.s.witness
	}
	return single(i-1, src.sym)
}

func (g *gather[T]) state(i int, src source[T]) (*state[T], string) {
	if src.s != nil {
		return src.s, ""
	}
	if g.embedding != nil {
		return g.embedding(src.sym, i)
	}
	return g.a.embed(src.sym, i)
}

// residualID numbers the distinct keys of what residual connections read.
func (g *gather[T]) residualID(key string) int {
	if id, ok := g.residuals[key]; ok {
		return id
	}
	id := len(g.residuals)
	g.residuals[key] = id
	return id
}

// note records a state at position i with query, key and value ids qids,
// kids and vids in each head, and residual id res. skipEntry says the
// entry is known to be recorded already.
func (g *gather[T]) note(i int, qids, kids, vids []int, res int, src source[T], skipEntry bool) string {
	g.noteItems(i, kids, vids, src)
	if skipEntry {
		return ""
	}
	return g.noteEntry(i, qids, res, src)
}

// noteItems records, in each head, the item (key and value) a state at
// position i holds.
func (g *gather[T]) noteItems(i int, kids, vids []int, src source[T]) {
	for hd, h := range g.heads {
		if !h.hasItem(i, kids[hd], vids[hd]) {
			h.items[i-1] = append(h.items[i-1], item{pos: i, kid: kids[hd], vid: vids[hd], w: g.witness(i, src)})
		}
	}
}

// noteEntry records the entry of a state at position i, its query ids
// qids and residual id res, unless one with the same is recorded.
func (g *gather[T]) noteEntry(i int, qids []int, res int, src source[T]) string {
	buf := binary.AppendUvarint(g.buf[:0], uint64(res))
	for _, q := range qids {
		buf = binary.AppendUvarint(buf, uint64(q))
	}
	if !g.global {
		buf = binary.AppendUvarint(buf, uint64(i))
	}
	g.buf = buf
	if g.seen[string(buf)] {
		return ""
	}
	g.seen[string(buf)] = true
	s, why := g.state(i, src)
	if why != "" {
		return why
	}
	g.entries = append(g.entries, entry[T]{pos: i, qids: append([]int(nil), qids...), res: res, s: s})
	return ""
}

// hasItem reports whether position i holds the item (kid, vid) already,
// and when not, counts it as held.
func (h *head[T]) hasItem(i, kid, vid int) bool {
	items := h.items[i-1]
	if len(items) <= 8 {
		for _, it := range items {
			if it.kid == kid && it.vid == vid {
				return true
			}
		}
		if len(items) < 8 {
			return false
		}
		// The list outgrows a scan: index it.
		h.seen[i-1] = map[[2]int]bool{}
		for _, it := range items {
			h.seen[i-1][[2]int{it.kid, it.vid}] = true
		}
	}
	key := [2]int{kid, vid}
	if h.seen[i-1][key] {
		return true
	}
	h.seen[i-1][key] = true
	return false
}

// ids computes every head's query, key and value ids of state s.
func (g *gather[T]) ids(l int, s *state[T], qids, kids, vids []int) string {
	qs, ks, vs, why := g.a.project3(l, s)
	if why != "" {
		return why
	}
	for hd, h := range g.heads {
		qids[hd] = h.queries.idOf(g.a, qs[hd].rid, qs[hd].ref, qs[hd].checked, s.witness)
		kids[hd] = h.keys.idOf(g.a, ks[hd].rid, ks[hd].ref, ks[hd].checked, s.witness)
		vids[hd] = h.vals.idOf(g.a, vs[hd].rid, vs[hd].ref, vs[hd].checked, s.witness)
	}
	return ""
}

// gatherStates is the first pass over held states: every one is
// projected.
func (a *analysis[T]) gatherStates(g *gather[T], k, l int, cur *states[T]) string {
	h := len(g.heads)
	qids, kids, vids := make([]int, h), make([]int, h), make([]int, h)
	for i := 1; i <= a.n; i++ {
		why := a.each(cur, i, func(s *state[T]) string {
			if why := g.ids(l, s, qids, kids, vids); why != "" {
				return why
			}
			return g.note(i, qids, kids, vids, g.residualID(a.residualKey(k, s)), source[T]{s: s}, false)
		})
		if why != "" {
			return why
		}
	}
	return ""
}
