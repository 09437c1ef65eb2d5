package certify

import (
	"fmt"
	"math/big"
	"strconv"

	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/numeric"
)

// pairTable numbers distinct pairs of vectors (the reference's exact one,
// the checked model's): queries, keys, values or head outputs.
type pairTable[T any] struct {
	ids map[string]int
	r   [][]*big.Rat
	m   [][]T
	w   []witness // the witness of each pair's first occurrence
	// f holds the reference vectors in float64, where every entry
	// converts exactly (exact), computed when first asked.
	f     [][]float64
	exact []int8 // 0: not converted yet, 1: exact, −1: not
	fin   []int8 // 0: not known yet, 1: every model component finite, −1: not
}

func newPairTable[T any]() *pairTable[T] { return &pairTable[T]{ids: map[string]int{}} }

// finite reports whether every component of the model's vector of pair
// id is finite (cached).
func (t *pairTable[T]) finite(b numeric.Backend[T], id int) bool {
	for len(t.fin) < len(t.m) {
		t.fin = append(t.fin, 0)
	}
	if t.fin[id] == 0 {
		t.fin[id] = 1
		for _, x := range t.m[id] {
			if !b.Finite(x) {
				t.fin[id] = -1
				break
			}
		}
	}
	return t.fin[id] == 1
}

func (t *pairTable[T]) id(a *analysis[T], r []*big.Rat, m []T, w witness) int {
	return t.add(pairKey(a.b, r, m), r, m, w)
}

// idOf is id for a reference vector known by its id rid among the
// reference's projections of one matrix.
func (t *pairTable[T]) idOf(a *analysis[T], rid int, r []*big.Rat, m []T, w witness) int {
	buf := strconv.AppendInt(nil, int64(rid), 10)
	buf = append(buf, '|')
	return t.add(string(appendValues(buf, a.b, m)), r, m, w)
}

func (t *pairTable[T]) add(key string, r []*big.Rat, m []T, w witness) int {
	if id, ok := t.ids[key]; ok {
		return id
	}
	id := len(t.r)
	t.ids[key] = id
	t.r, t.m, t.w = append(t.r, r), append(t.m, m), append(t.w, w)
	return id
}

// floats is pair id's reference vector in float64, and whether it
// converts without rounding.
func (t *pairTable[T]) floats(id int) ([]float64, bool) {
	for len(t.exact) < len(t.r) {
		t.f, t.exact = append(t.f, nil), append(t.exact, 0)
	}
	if t.exact[id] == 0 {
		t.exact[id] = 1
		f := make([]float64, len(t.r[id]))
		for c, x := range t.r[id] {
			var ok bool
			if f[c], ok = x.Float64(); !ok {
				t.exact[id] = -1
			}
		}
		t.f[id] = f
	}
	return t.f[id], t.exact[id] == 1
}

// item is a key and value a position can hold in one head.
type item struct {
	pos      int // 1-based
	kid, vid int
	w        witness
}

// head gathers what one head's analysis needs: its distinct queries,
// keys and values, the items of every position, and for every query the
// positions where it occurs.
type head[T any] struct {
	l, hd               int
	spec                *model.Attention
	queries, keys, vals *pairTable[T]
	outs                *pairTable[T]
	items               [][]item // per position, 0-based
	seen                []map[[2]int]bool
	outCache            map[[3]int][]int
	// avgCache holds the output id of m_r copies of one value in the
	// reference beside m_m of one in the model (averaged), by value ids
	// and counts: under hard attention the tied scores do not enter it.
	avgCache map[[4]int]int
	// The scores of the keys for one query, the last one asked: a query's
	// order is checked and its outputs listed one after the other, and
	// keeping every query's would cost n² scores.
	scores keyScores[T]
	// dot says the exact score is q·k (model.Instance.ScoreIsDot), and
	// fromFirst that every position sees a range of positions that starts
	// at 1 (visible); firstKeys are the model's keys of
	// itemIndex.firstKids.
	dot, fromFirst bool
	firstKeys      [][]T
	// idx indexes the items by position and key, and kf holds the keys
	// in float64, once gathered; fs, ms, cands, partners and partnerOff
	// are fastOutputs' storage, reused from one query to the next.
	idx        *itemIndex
	kf         *keyFloats
	fs, ms     []float64
	cands      []int
	partners   []int32
	partnerOff []int
	// facts records what the analysis concluded at each query and range,
	// for the certificate (certificate.go).
	facts []fact
	// chain is the head's part of Input.Chain (nil: none).
	chain *headChain[T]
}

// fact is what headOutputs concluded for query qid over the visible
// positions lo … hi: whether the model keeps the exact order, the items
// the reference can select, and the outputs (ids in head.outs).
type fact struct {
	qid, lo, hi int
	kept        bool
	cands       []item
	outs        []int
	// lists, where the fact is a conclusion of a chain (carried from
	// the last length, or kept for the next), holds the certificate's
	// lists of its candidates and outputs, written once for every length
	// it stands for (nil: none).
	lists *certLists
}

// certLists holds a fact's candidates and outputs as the certificate
// writes them (a recheck.Item and recheck.State list of the backend's
// T), once written.
type certLists struct {
	cands, outs any
}

// visible is the interval of positions position i may attend to (lo > hi:
// none).
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

// attention is step k, layer l's attention sublayer: every state pair at
// every position gets, in place of one input's head outputs, each output
// its heads can give there.
func (a *analysis[T]) attention(k, l int, cur *states[T]) (*states[T], string) {
	spec := a.r.Attention(l)
	heads := make([]*head[T], len(spec.Heads))
	for hd := range heads {
		h := &head[T]{l: l, hd: hd, spec: spec, queries: newPairTable[T](), keys: newPairTable[T](), vals: newPairTable[T](),
			outs: newPairTable[T](), items: make([][]item, a.n), seen: make([]map[[2]int]bool, a.n),
			outCache: map[[3]int][]int{}, avgCache: map[[4]int]int{}, scores: keyScores[T]{qid: -1}, dot: a.r.ScoreIsDot(l, hd),
			fromFirst: !a.in.general && (spec.Mask == model.NoMask || spec.Mask == model.Future || spec.Mask == model.StrictFuture)}
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
	if cur.embed && !a.in.unfactored {
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
			outs, why := a.headOutputs(h, e.qids[hd], e.pos, e.s.w)
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

// vecPair is one projection of a state, in both models (rid: the id of
// r among the reference's projections of its matrix).
type vecPair[T any] struct {
	rid int
	r   []*big.Rat
	m   []T
}

// project3 computes every head's query, key and value of state s.
func (a *analysis[T]) project3(l int, s *state[T]) (qs, ks, vs []vecPair[T], why string) {
	xr, xm, why := a.inputs(l, s)
	if why != "" {
		return nil, nil, nil, why
	}
	heads := len(a.m.Attention(l).Heads)
	qs, ks, vs = make([]vecPair[T], heads), make([]vecPair[T], heads), make([]vecPair[T], heads)
	for hd := 0; hd < heads; hd++ {
		for p, dst := range [][]vecPair[T]{qs, ks, vs} {
			if dst[hd], why = a.headVector(l, hd, model.Projection(p), xr, xm); why != "" {
				return nil, nil, nil, why
			}
		}
	}
	return qs, ks, vs, ""
}

// inputs is what layer l's attention reads of state s, in both models.
func (a *analysis[T]) inputs(l int, s *state[T]) ([]*big.Rat, []T, string) {
	xr, err := a.r.SublayerInput(l, true, s.r)
	if err != nil {
		return nil, nil, fmt.Sprintf("layer %d attention's norm in the reference: %v", l+1, err)
	}
	xm, err := a.m.SublayerInput(l, true, s.m)
	if err != nil {
		return nil, nil, fmt.Sprintf("layer %d attention's norm in the model: %v", l+1, err)
	}
	return xr, xm, ""
}

// headVector is head hd's query, key or value (p) of the sublayer inputs
// xr and xm, with the id of its reference vector: the reference's
// projections are exact, so they depend only on the columns their matrix
// reads, and are computed once per distinct value of those (the lookup's
// queries depend on q alone, its keys on j alone).
func (a *analysis[T]) headVector(l, hd int, p model.Projection, xr []*big.Rat, xm []T) (vecPair[T], string) {
	// The model's projection is computed whole, each weight a
	// multiply-add in the machine's arithmetic (a unit is about sixteen
	// of those).
	w := projectionOf(a.m.Attention(l).Heads[hd], p)
	if why := a.charge(len(w.Data) / 16); why != "" {
		return vecPair[T]{}, why
	}
	var v vecPair[T]
	c := a.projCache(l, hd, p)
	v.rid, v.r = c.get(xr, func() []*big.Rat { return a.r.HeadProjection(l, hd, p, xr) })
	v.m = a.m.HeadProjection(l, hd, p, xm)
	return v, ""
}

// projections caches the reference's projections of one matrix by the
// values of the columns it reads.
type projections struct {
	cols []int
	ids  map[string]int
	vecs [][]*big.Rat
}

func (c *projections) get(x []*big.Rat, compute func() []*big.Rat) (int, []*big.Rat) {
	var buf []byte
	for _, col := range c.cols {
		buf = appendRats(buf, x[col:col+1])
	}
	if id, ok := c.ids[string(buf)]; ok {
		return id, c.vecs[id]
	}
	v := compute()
	c.ids[string(buf)] = len(c.vecs)
	c.vecs = append(c.vecs, v)
	return len(c.vecs) - 1, v
}

// projCache is the cache of head hd of layer l's matrix p.
func (a *analysis[T]) projCache(l, hd int, p model.Projection) *projections {
	key := [3]int{l, hd, int(p)}
	if c, ok := a.proj[key]; ok {
		return c
	}
	w := projectionOf(a.r.Model.Layers[l].Attention.Heads[hd], p)
	c := &projections{ids: map[string]int{}}
	for col, on := range w.ReadColumns() {
		if on {
			c.cols = append(c.cols, col)
		}
	}
	a.proj[key] = c
	return c
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
			if why := a.charge(len(s.r) + len(s.m)); why != "" {
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
	w := s.w
	for hd, h := range heads {
		o := options[hd][choice[hd]]
		outsR[hd], outsM[hd] = h.outs.r[o], h.outs.m[o]
		w = union(w, h.outs.w[o])
	}
	nr, err := a.r.SublayerOutput(l, true, s.r, a.r.SumHeads(outsR))
	if err != nil {
		return fmt.Sprintf("layer %d attention's residual in the reference: %v", l+1, err)
	}
	nm, err := a.m.SublayerOutput(l, true, s.m, a.m.SumHeads(outsM))
	if err != nil {
		return fmt.Sprintf("layer %d attention's residual in the model: %v", l+1, err)
	}
	return a.add(next, k, i, &state[T]{r: nr, m: nm, w: w})
}

// projectionOf is head h's W^Q, W^K or W^V.
func projectionOf(h model.Head, p model.Projection) model.Matrix {
	switch p {
	case model.KeyProjection:
		return h.K
	case model.ValueProjection:
		return h.V
	}
	return h.Q
}
