package certify

import (
	"fmt"
	"math/big"
	"math/bits"
	"sort"
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

// headOutputs lists the outputs head h can give at position i to the
// query qid (ids in h.outs); qw is a witness of a state at i with that
// query.
//
// On an input, each model selects the positions of maximal score among
// those the query sees: an item (a key and value a position can hold) can
// be selected only when its score reaches the smallest score of every
// other visible position (a candidate). When the model's scores keep the
// exact order between every exact candidate and every item at another
// position, ties included, both models select the same positions on every
// input (checkOrder), and the output is a candidate's value in both, or
// under average hardmax the mean of m equal values for every tie count m
// the positions allow. When the order is broken somewhere, each model may
// select a different item: the outputs are then the pairs of an exact
// candidate a and a model candidate b that one input can make both
// selections of (a and b the same item, or at two positions with a ahead
// exactly and b ahead in the model), and what they make of the states
// after the sublayer is decided at the output, like the rest.
func (a *analysis[T]) headOutputs(h *head[T], qid, i int, qw witness) ([]int, string) {
	lo, hi := visible(h.spec.Mask, i, a.n)
	key := [3]int{qid, lo, hi}
	if outs, ok := h.outCache[key]; ok {
		return outs, ""
	}
	if lo > hi {
		outs := a.zeroOutput(h)
		h.outCache[key] = outs
		h.facts = append(h.facts, fact{qid: qid, lo: lo, hi: hi, kept: true, outs: outs})
		return outs, ""
	}
	if outs, cands, lists, ok, why := a.chained(h, qid, lo, hi); ok || why != "" {
		if why != "" {
			return nil, why
		}
		h.outCache[key] = outs
		h.facts = append(h.facts, fact{qid: qid, lo: lo, hi: hi, kept: true, cands: cands, outs: outs, lists: lists})
		a.res.Carried++
		return outs, ""
	}
	count, why := a.scoreRange(h, qid, lo, hi)
	if why != "" {
		return nil, why
	}
	if why := a.charge(4 * count); why != "" {
		return nil, why
	}
	if !a.in.general {
		if outs, cands, done, why := a.fastOutputs(h, lo, hi, i, count); done {
			if why != "" {
				return nil, why
			}
			h.outCache[key] = outs
			h.facts = append(h.facts, fact{qid: qid, lo: lo, hi: hi, kept: true, cands: cands, outs: outs})
			sc := &h.scores
			a.conclude(h, qid, lo, hi, cands, outs, func(kid int) *big.Rat {
				if sc.exact(kid) {
					return new(big.Rat).SetFloat64(sc.f[kid])
				}
				return sc.r[kid]
			}, func(kid int) T { return a.b.Set(a.b.New(), sc.m[kid]) })
			return outs, ""
		}
	}
	items := a.scoredItems(h, lo, hi)
	// Run's weighted sum reads every visible position: a NaN score makes
	// every weight NaN, and an unselected position's non-finite value
	// makes 0·∞ = NaN. Neither is an order or a selection the analysis
	// follows.
	for x := range items {
		it := &items[x]
		if a.b.Cmp(it.sm, it.sm) != numeric.Equal {
			return nil, fmt.Sprintf("layer %d attention, head %d: at position %d, the model computes a NaN score (key at position %d)", h.l+1, h.hd+1, i, it.pos)
		}
		if !h.vals.finite(a.b, it.vid) {
			return nil, fmt.Sprintf("layer %d attention, head %d: at position %d, the value at position %d is not finite in the model (its weight 0 would give 0·∞ = NaN)", h.l+1, h.hd+1, i, it.pos)
		}
	}
	candR := candidates(items, cmpExact[T])
	var pairs [][2]int
	kept, sorted := a.orderKept(h, items, candR, qw, i)
	if sorted {
		// Sorting the items costs about log₂ of their number per item
		// more: charged, so that the budget keeps measuring time.
		if why := a.charge(len(items) * bits.Len(uint(len(items)))); why != "" {
			return nil, why
		}
	}
	if kept {
		for x, c := range candR {
			if c {
				pairs = append(pairs, [2]int{x, x})
			}
		}
	} else {
		candM := candidates(items, func(x, y *scored[T]) int { return int(a.b.Cmp(x.sm, y.sm)) })
		xs, ys := marked(candR), marked(candM)
		for _, x := range xs {
			for _, y := range ys {
				ix, iy := &items[x], &items[y]
				if x == y || ix.pos != iy.pos && cmpExact(ix, iy) >= 0 && a.b.Cmp(iy.sm, ix.sm) >= 0 {
					pairs = append(pairs, [2]int{x, y})
				}
			}
			if len(pairs) > maxPairs {
				return nil, fmt.Sprintf("layer %d attention, head %d: at position %d, the two models may select more than %d different pairs of keys, more than the analysis follows", h.l+1, h.hd+1, i, maxPairs)
			}
		}
	}
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
	h.outCache[key] = outs
	var cands []item
	scoreOf := map[int]*scored[T]{}
	for x, c := range candR {
		if c {
			cands = append(cands, items[x].item)
			scoreOf[items[x].kid] = &items[x]
		}
	}
	h.facts = append(h.facts, fact{qid: qid, lo: lo, hi: hi, kept: kept, cands: cands, outs: outs})
	if kept {
		a.conclude(h, qid, lo, hi, cands, outs, func(kid int) *big.Rat { return scoreOf[kid].rat() },
			func(kid int) T { return a.b.Set(a.b.New(), scoreOf[kid].sm) })
	} else {
		h.forget(qid, lo)
	}
	return outs, ""
}

// maxPairs bounds the pairs of selections the analysis follows at one
// query.
const maxPairs = 1 << 12

// candidates marks the items that can be a maximum under the order cmp:
// those whose score reaches the largest of the other positions' smallest
// scores. items come grouped by position.
func candidates[T any](items []scored[T], cmp func(x, y *scored[T]) int) []bool {
	// top1 and top2: the two largest of the positions' smallest scores,
	// at two different positions.
	var top1, top2 *scored[T]
	for g := 0; g < len(items); {
		m := &items[g]
		e := g + 1
		for ; e < len(items) && items[e].pos == items[g].pos; e++ {
			if cmp(&items[e], m) < 0 {
				m = &items[e]
			}
		}
		switch {
		case top1 == nil || cmp(m, top1) > 0:
			top2, top1 = top1, m
		case top2 == nil || cmp(m, top2) > 0:
			top2 = m
		}
		g = e
	}
	cand := make([]bool, len(items))
	for x := range items {
		thr := top1
		if top1 != nil && top1.pos == items[x].pos {
			thr = top2
		}
		cand[x] = thr == nil || cmp(&items[x], thr) >= 0
	}
	return cand
}

// marked lists the indices x where marks[x] is set.
func marked(marks []bool) []int {
	var xs []int
	for x, m := range marks {
		if m {
			xs = append(xs, x)
		}
	}
	return xs
}

// orderKept reports whether the model keeps the exact order between every
// candidate and every item at another position (checkOrder). With few
// candidates (a unique maximum, as hard attention is mostly used) each is
// compared with every item; with many (a uniform average), the items are
// sorted once.
func (a *analysis[T]) orderKept(h *head[T], items []scored[T], cand []bool, qw witness, i int) (kept, sorted bool) {
	var cs []int
	for x, c := range cand {
		if !c {
			continue
		}
		dup := false
		for _, y := range cs {
			if items[y].pos == items[x].pos && items[y].kid == items[x].kid {
				dup = true // the same key at the same position: the same scores
				break
			}
		}
		if !dup {
			cs = append(cs, x)
		}
		if len(cs) > maxLinear {
			break
		}
	}
	if len(cs) > maxLinear {
		perm := make([]int, len(items))
		for x := range perm {
			perm[x] = x
		}
		sort.SliceStable(perm, func(x, y int) bool { return cmpExact(&items[perm[x]], &items[perm[y]]) < 0 })
		sorted, sortedCand := make([]scored[T], len(items)), make([]bool, len(items))
		for x, p := range perm {
			sorted[x], sortedCand[x] = items[p], cand[p]
		}
		return a.checkOrder(h, sorted, sortedCand, qw, i), true
	}
	b := a.b
	for _, x := range cs {
		c := &items[x]
		// The violations nearest c in exact score make the clearest
		// report: the lookup's keys n − 1 and n.
		var lower, upper, tie *scored[T]
		for y := range items {
			it := &items[y]
			if it.pos == c.pos {
				continue
			}
			switch e, m := cmpExact(it, c), b.Cmp(it.sm, c.sm); {
			case e < 0 && m != -1:
				if lower == nil || cmpExact(it, lower) > 0 {
					lower = it
				}
			case e > 0 && m != 1:
				if upper == nil || cmpExact(it, upper) < 0 {
					upper = it
				}
			case e == 0 && m != 0 && tie == nil:
				tie = it
			}
		}
		switch {
		case lower != nil:
			a.broken(h, qw, i, lower, c, "order")
		case upper != nil:
			a.broken(h, qw, i, c, upper, "order")
		case tie != nil:
			a.broken(h, qw, i, c, tie, "tie")
		default:
			continue
		}
		return false, false
	}
	return true, false
}

// maxLinear is the most distinct candidates orderKept compares with every
// item rather than sorting.
const maxLinear = 8

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
			same = a.b.Cmp(other.sm, it.sm) == 0
		}
		if !same {
			continue
		}
		if other.vid != it.vid {
			who := "the reference"
			if !exact {
				who = "the model"
			}
			return 0, fmt.Sprintf("layer %d attention, head %d: at position %d, keys at positions %d and %d tie in %s with different values: average hardmax averages a set that depends on the input", h.l+1, h.hd+1, i, it.pos, other.pos, who)
		}
		partners[other.pos] = true
	}
	return 1 + len(partners), ""
}

// ranked is the item of largest (or smallest) model score among some
// items, and the best at another position.
type ranked[T any] struct {
	first, second *scored[T]
}

// add keeps the best two at different positions; better says whether x
// ranks above y.
func (r *ranked[T]) add(it *scored[T], better func(x, y T) bool) {
	switch {
	case r.first == nil || better(it.sm, r.first.sm):
		if r.first != nil && r.first.pos != it.pos {
			r.second = r.first
		}
		r.first = it
	case it.pos != r.first.pos && (r.second == nil || better(it.sm, r.second.sm)):
		r.second = it
	}
}

// other is the best item at a position other than pos (nil: none).
func (r *ranked[T]) other(pos int) *scored[T] {
	if r.first != nil && r.first.pos != pos {
		return r.first
	}
	return r.second
}

// checkOrder reports whether the model keeps the exact order between
// every candidate and every item at another position: lower stays lower,
// higher higher, a tie a tie. items are sorted by exact score. A broken
// order between keys whose values differ is recorded as a break, whose
// witness gives inputs to try.
func (a *analysis[T]) checkOrder(h *head[T], items []scored[T], cand []bool, qw witness, i int) bool {
	b := a.b
	above := func(x, y T) bool { return b.Cmp(x, y) == 1 }
	below := func(x, y T) bool { return b.Cmp(x, y) == -1 }
	var groups [][2]int
	for g := 0; g < len(items); {
		e := g
		for e < len(items) && cmpExact(&items[e], &items[g]) == 0 {
			e++
		}
		groups = append(groups, [2]int{g, e})
		g = e
	}
	// prev[k]: the largest model scores of the groups before k; next[k]:
	// the smallest of the groups after k.
	prev := make([]ranked[T], len(groups))
	next := make([]ranked[T], len(groups))
	for k := 1; k < len(groups); k++ {
		prev[k] = prev[k-1]
		for x := groups[k-1][0]; x < groups[k-1][1]; x++ {
			prev[k].add(&items[x], above)
		}
	}
	for k := len(groups) - 2; k >= 0; k-- {
		next[k] = next[k+1]
		for x := groups[k+1][0]; x < groups[k+1][1]; x++ {
			next[k].add(&items[x], below)
		}
	}
	for k, g := range groups {
		// A tie stays a tie when the group's largest and smallest model
		// scores at positions other than a candidate's equal its own; a
		// NaN, which no order ranks, sends the group to the pairwise
		// comparison.
		var hi, lo ranked[T]
		nan := false
		for y := g[0]; y < g[1]; y++ {
			hi.add(&items[y], above)
			lo.add(&items[y], below)
			nan = nan || b.Cmp(items[y].sm, items[y].sm) != 0
		}
		for x := g[0]; x < g[1]; x++ {
			if !cand[x] {
				continue
			}
			it := &items[x]
			if p := prev[k].other(it.pos); p != nil && b.Cmp(p.sm, it.sm) != -1 {
				a.broken(h, qw, i, p, it, "order")
				return false
			}
			if q := next[k].other(it.pos); q != nil && b.Cmp(q.sm, it.sm) != 1 {
				a.broken(h, qw, i, it, q, "order")
				return false
			}
			if !nan {
				for _, y := range []*scored[T]{hi.other(it.pos), lo.other(it.pos)} {
					if y != nil && b.Cmp(y.sm, it.sm) != 0 {
						a.broken(h, qw, i, it, y, "tie")
						return false
					}
				}
				continue
			}
			for y := g[0]; y < g[1]; y++ {
				if items[y].pos != it.pos && b.Cmp(items[y].sm, it.sm) != 0 {
					a.broken(h, qw, i, it, &items[y], "tie")
					return false
				}
			}
		}
	}
	return true
}

// broken records the broken order between items x and y at query
// position i, with the witness of two items at their positions with their
// keys and different values (none when their values agree).
func (a *analysis[T]) broken(h *head[T], qw witness, i int, x, y *scored[T], what string) {
	where := fmt.Sprintf("layer %d attention, head %d", h.l+1, h.hd+1)
	detail := fmt.Sprintf("at position %d, keys at positions %d and %d: exact scores %s and %s, %s computes %s and %s",
		i, x.pos, y.pos, x.rat().RatString(), y.rat().RatString(), a.in.Precision, a.b.Format(x.sm), a.b.Format(y.sm))
	if what == "tie" {
		detail = "an exact tie broken: " + detail
	} else {
		detail = "the exact order lost: " + detail
	}
	for _, xi := range h.items[x.pos-1] {
		if xi.kid != x.kid {
			continue
		}
		for _, yi := range h.items[y.pos-1] {
			if yi.kid == y.kid && yi.vid != xi.vid {
				a.record(&a.res.Breaks, where, detail, union(qw, union(xi.w, yi.w)))
				return
			}
		}
	}
	a.record(&a.res.Breaks, where, detail+" (the values there agree)", witness{})
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
		scR[k], valR[k] = x.rat(), h.vals.r[x.vid]
	}
	scM, valM := make([]T, mm), make([][]T, mm)
	for k := range scM {
		scM[k], valM[k] = y.sm, h.vals.m[y.vid]
	}
	or, err := a.r.HeadOutput(h.l, h.hd, scR, valR)
	if err != nil {
		return 0, fmt.Sprintf("layer %d head %d's output in the reference: %v", h.l+1, h.hd+1, err)
	}
	om, err := a.m.HeadOutput(h.l, h.hd, scM, valM)
	if err != nil {
		return 0, fmt.Sprintf("layer %d head %d's output in the model: %v", h.l+1, h.hd+1, err)
	}
	id := h.outs.id(a, or, om, union(x.w, y.w))
	if hard {
		h.avgCache[key] = id
	}
	return id, ""
}

// zeroOutput is the output of a head that attends to nothing.
func (a *analysis[T]) zeroOutput(h *head[T]) []int {
	or, _ := a.r.HeadOutput(h.l, h.hd, nil, nil)
	om, _ := a.m.HeadOutput(h.l, h.hd, nil, nil)
	return []int{h.outs.id(a, or, om, witness{known: true})}
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
