package certify

import (
	"encoding/binary"
	"fmt"
	"math/big"

	"github.com/transformer-cookbook/verify/model"
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
		return src.s.w
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
		qids[hd] = h.queries.idOf(g.a, qs[hd].rid, qs[hd].r, qs[hd].m, s.w)
		kids[hd] = h.keys.idOf(g.a, ks[hd].rid, ks[hd].r, ks[hd].m, s.w)
		vids[hd] = h.vals.idOf(g.a, vs[hd].rid, vs[hd].r, vs[hd].m, s.w)
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

// reader is one thing the sublayer reads of an embedding: a head's query,
// key or value (head ≥ 0), or what the residual connection passes on
// (head −1). Its value at symbol s and position i depends only on the
// values of the components it reads, in either model; those that depend
// on the symbol alone (sym) give s its class, those that depend on the
// position alone (pos) give i its class, and the pair of classes decides
// the value. A reader of a component that depends on both (mixed) is
// computed at every symbol and position.
type reader struct {
	head, proj int
	mixed      bool
	sym, pos   []column
	symClass   []int32 // by symbol, set where it first occurs
	posClass   []int32 // by position, 0-based
	classes    map[string]int32
	// classIDs[c] is the id of class c of a reader that reads components
	// of one kind only (−1: not yet known); ids, by pair of classes, of a
	// reader that reads both kinds.
	classIDs []int
	ids      map[[2]int32]int
}

// lookup returns the reader's id at symbol sym and position i, if known.
func (rd *reader) lookup(sym, i int) (int, bool) {
	switch {
	case rd.mixed:
		return 0, false
	case len(rd.pos) == 0:
		return rd.class(rd.symClass[sym])
	case len(rd.sym) == 0:
		return rd.class(rd.posClass[i-1])
	}
	id, ok := rd.ids[[2]int32{rd.symClass[sym], rd.posClass[i-1]}]
	return id, ok
}

func (rd *reader) class(c int32) (int, bool) {
	if int(c) < len(rd.classIDs) && rd.classIDs[c] >= 0 {
		return rd.classIDs[c], true
	}
	return 0, false
}

// store records the reader's id at symbol sym and position i.
func (rd *reader) store(sym, i, id int) {
	var c int32
	switch {
	case rd.mixed:
		return
	case len(rd.pos) == 0:
		c = rd.symClass[sym]
	case len(rd.sym) == 0:
		c = rd.posClass[i-1]
	default:
		rd.ids[[2]int32{rd.symClass[sym], rd.posClass[i-1]}] = id
		return
	}
	for int(c) >= len(rd.classIDs) {
		rd.classIDs = append(rd.classIDs, -1)
	}
	rd.classIDs[c] = id
}

// bySymbol: the reader's value depends on the symbol alone.
func (rd *reader) bySymbol() bool { return !rd.mixed && len(rd.pos) == 0 }

// column is a component a reader reads, in the reference (r) or the model
// (m).
type column struct {
	c    int
	r, m bool
}

// gatherEmbeddings is the first pass over the embeddings, which are
// products of the symbols' parts and the positions' parts: each reader
// is computed once per pair of classes, not once per symbol and position
// (the lookup's queries depend on the symbol alone and its keys on the
// position alone, so its n·2n embeddings cost n + 2n projections, not
// 2n²).
//
// The embedding of symbol s at position i is computed, at the first
// position where s occurs and with the first symbol of position i, so as
// to read off the classes; a component that depends on the symbol alone
// has the same value at every position (model.EmbedDependence), so these
// give every pair's values. Values are compared as numbers, and the
// projections of equal numbers are equal numbers (a zero's sign aside,
// which no later operation turns into a different value).
//
// Where no reader is mixed and no norm comes first, a position's symbols
// are not visited one by one either (sharedList): what a symbol
// contributes depends only on its classes, so one symbol of each tuple
// of classes stands for the others.
func (a *analysis[T]) gatherEmbeddings(g *gather[T], k, l int) string {
	readers, normed, why := a.readers(g, k, l)
	if why != "" {
		return why
	}
	cache := a.embedCache(k, readers, normed)
	readers = cache.readers
	h := len(g.heads)
	e := &embedGather[T]{a: a, g: g, k: k, l: l, readers: readers, cache: cache,
		symEmbed: cache.symEmbed, symAt: cache.symAt, entryBySym: g.global,
		entryNoted: make([]bool, len(a.r.Model.Alphabet)),
		qids:       make([]int, h), kids: make([]int, h), vids: make([]int, h)}
	g.embedding = e.embedding
	// Shared entries made of readers of the symbol alone are one per
	// symbol: noted once.
	sharing := !normed && !a.in.general
	for _, rd := range readers {
		if (rd.head < 0 || rd.proj == int(model.QueryProjection)) && !rd.bySymbol() {
			e.entryBySym = false
		}
		if rd.mixed {
			sharing = false
		}
	}
	for i := 1; i <= a.n; i++ {
		syms := a.symbols(i)
		if len(syms) == 0 {
			continue
		}
		if i > cache.known {
			// A position's classes, once worked out, stay what they
			// are at every longer length of a chain.
			posEmbed, why := a.embed(syms[0], i)
			if why != "" {
				return why
			}
			e.posSym, e.posAt, e.posEmbed = syms[0], i, posEmbed
			for _, rd := range readers {
				if !rd.mixed {
					rd.posClass[i-1] = e.class(rd, rd.pos, posEmbed)
				}
			}
		} else {
			e.posEmbed = nil
		}
		if sharing {
			done, why := e.sharedList(i, syms)
			if why != "" {
				return why
			}
			if done {
				continue
			}
		}
		if why := e.eachSymbol(i, syms); why != "" {
			return why
		}
	}
	cache.known = a.n
	return ""
}

// embedCache is what gatherEmbeddings works out of the embeddings that
// stays the same from one length to the next of a chain, where neither
// model's embedding depends on the length and the readers read the same
// components with the same dependence (sig): the readers' classes of
// symbols and positions, and each symbol's embedding where first met.
type embedCache[T any] struct {
	sig      string
	readers  []*reader
	symEmbed []*state[T]
	symAt    []int32
	// known: positions 1 … known have their classes.
	known int
	// lists holds the last summary of each list of symbols, by its
	// memory (sharedList).
	lists map[*int]*symbolList
}

// embedCache returns the cache of step k's readers: the chain's where it
// holds one for the same readers, else a new one (kept in the chain if
// there is one). Its readers' classes of positions cover 1 … n.
func (a *analysis[T]) embedCache(k int, readers []*reader, normed bool) *embedCache[T] {
	sig := fmt.Sprint(normed)
	for _, rd := range readers {
		sig += fmt.Sprintf(";%d/%d/%v/%v/%v", rd.head, rd.proj, rd.mixed, rd.sym, rd.pos)
	}
	var c *embedCache[T]
	if a.chain != nil && a.chain.embeds != nil {
		if c = a.chain.gathers[k]; c != nil && c.sig != sig {
			c = nil
		}
	}
	if c == nil {
		alphabet := len(a.r.Model.Alphabet)
		c = &embedCache[T]{sig: sig, readers: readers, symEmbed: make([]*state[T], alphabet), symAt: make([]int32, alphabet),
			lists: map[*int]*symbolList{}}
		for _, rd := range readers {
			rd.symClass = make([]int32, alphabet)
		}
		if a.chain != nil && a.chain.embeds != nil {
			a.chain.gathers[k] = c
		}
	}
	for _, rd := range c.readers {
		for len(rd.posClass) < a.n {
			rd.posClass = append(rd.posClass, 0)
		}
	}
	return c
}

// embedGather is gatherEmbeddings' work in progress.
type embedGather[T any] struct {
	a       *analysis[T]
	cache   *embedCache[T]
	g       *gather[T]
	k, l    int
	readers []*reader
	// symEmbed[s] is symbol s's embedding at the first position where it
	// occurs (nil: not met yet), symAt[s] that position; posEmbed is the
	// embedding of symbol posSym at position posAt, the current one.
	symEmbed         []*state[T]
	symAt            []int32
	posEmbed         *state[T]
	posSym, posAt    int
	entryBySym       bool
	entryNoted       []bool
	qids, kids, vids []int
	buf              []byte
	list             *symbolList
	listTuple        []byte
}

// symbolList is what gatherEmbeddings knows of one list of symbols
// (Input.Symbols), which may serve several positions: the first symbol of
// each tuple of classes of the readers of keys and values (kv), and of the
// readers of queries and residuals (qr).
type symbolList struct {
	syms   []int
	kv, qr []int
	// bound is the most work headVector can charge at one position.
	bound int64
	// entries holds the classes of the positions (of the readers of
	// queries and residuals) whose entries were noted (gather.global).
	entries map[string]bool
	// kvSeen and qrSeen hold the tuples met.
	kvSeen, qrSeen map[string]bool
}

// class is the class of state s for reader rd, by its columns cols.
func (e *embedGather[T]) class(rd *reader, cols []column, s *state[T]) int32 {
	buf := e.buf[:0]
	for _, col := range cols {
		if col.r {
			buf = appendRats(buf, s.r[col.c:col.c+1])
		}
		buf = append(buf, '|')
		if col.m {
			buf = appendValues(buf, e.a.b, s.m[col.c:col.c+1])
		}
	}
	e.buf = buf
	id, ok := rd.classes[string(buf)]
	if !ok {
		id = int32(len(rd.classes))
		rd.classes[string(buf)] = id
	}
	return id
}

// symbolClasses embeds sym at position i if it was not met before, and
// reads off its classes.
func (e *embedGather[T]) symbolClasses(sym, i int) string {
	if e.symEmbed[sym] != nil {
		return ""
	}
	s, why := e.embedding(sym, i)
	if why != "" {
		return why
	}
	e.symEmbed[sym], e.symAt[sym] = s, int32(i)
	for _, rd := range e.readers {
		if !rd.mixed {
			rd.symClass[sym] = e.class(rd, rd.sym, s)
		}
	}
	return ""
}

// embedding is the embedding of symbol sym at position i: one computed
// already when it is (a state's values are never written: the analysis
// makes new states), else a new one.
func (e *embedGather[T]) embedding(sym, i int) (*state[T], string) {
	if s := e.symEmbed[sym]; s != nil && int(e.symAt[sym]) == i {
		return s, ""
	}
	if sym == e.posSym && i == e.posAt && e.posEmbed != nil {
		return e.posEmbed, ""
	}
	return e.a.embed(sym, i)
}

// embedding is what the readers read of the embedding of one symbol at
// one position, computed once and only when a reader needs it.
type embedding[T any] struct {
	s  *state[T]
	xr []*big.Rat
	xm []T
}

// read sets reader rd's id at symbol sym and position i: looked up, or
// computed from the embedding.
func (e *embedGather[T]) read(rd *reader, sym, i int, x *embedding[T], res *int) string {
	if id, ok := rd.lookup(sym, i); ok {
		rd.set(id, e.qids, e.kids, e.vids, res)
		return ""
	}
	a := e.a
	var why string
	if x.s == nil {
		if x.s, why = e.embedding(sym, i); why != "" {
			return why
		}
	}
	var id int
	if rd.head < 0 {
		id = e.g.residualID(a.residualKey(e.k, x.s))
	} else {
		if x.xr == nil {
			if x.xr, x.xm, why = a.inputs(e.l, x.s); why != "" {
				return why
			}
		}
		v, why := a.headVector(e.l, rd.head, model.Projection(rd.proj), x.xr, x.xm)
		if why != "" {
			return why
		}
		id = e.g.heads[rd.head].table(model.Projection(rd.proj)).idOf(a, v.rid, v.r, v.m, x.s.w)
	}
	rd.set(id, e.qids, e.kids, e.vids, res)
	rd.store(sym, i, id)
	return ""
}

// eachSymbol notes every symbol of position i, one after the other.
func (e *embedGather[T]) eachSymbol(i int, syms []int) string {
	for _, sym := range syms {
		if why := e.a.charge(1); why != "" {
			return why
		}
		if why := e.symbolClasses(sym, i); why != "" {
			return why
		}
		var x embedding[T]
		res := 0
		for _, rd := range e.readers {
			if why := e.read(rd, sym, i, &x, &res); why != "" {
				return why
			}
		}
		skip := e.entryBySym && e.entryNoted[sym]
		if why := e.g.note(i, e.qids, e.kids, e.vids, res, source[T]{sym: sym}, skip); why != "" {
			return why
		}
		if e.entryBySym {
			e.entryNoted[sym] = true
		}
	}
	return ""
}

// sharedList notes the symbols of position i by one symbol per tuple of
// classes, and reports whether it did; when it did not, eachSymbol does
// it (and meets the same error, or the budget's end, at the same point).
// Once it goes on, nothing can fail: every embedding it computes was
// computed before (the symbol's, the position's), no norm comes first,
// and the budget covers every charge.
//
// A reader's id at a symbol and a position depends only on the symbol's
// class and the position's (no reader is mixed), so two symbols of one
// tuple of classes of the readers of keys and values give a position the
// same items, and two of one tuple of the readers of queries and
// residuals the same entry: the first of each tuple, in the list's order,
// notes what eachSymbol would note, in the same order, with the same
// witnesses. When the entries do not depend on the position
// (gather.global), a position whose list and classes were met before adds
// no entry.
func (e *embedGather[T]) sharedList(i int, syms []int) (bool, string) {
	a := e.a
	if e.list == nil || !sameList(e.list.syms, syms) {
		// A list that extends one summarised before (the same memory,
		// longer: the construction's lists of a longer length often
		// are) adds its new symbols to that summary.
		prev := e.cache.lists[&syms[0]]
		if prev == nil || len(prev.syms) > len(syms) {
			prev = nil
		}
		from := 0
		if prev != nil {
			from = len(prev.syms)
		}
		for _, sym := range syms[from:] {
			if why := e.symbolClasses(sym, i); why != "" {
				return false, ""
			}
		}
		e.list = e.summarise(prev, syms)
		e.cache.lists[&syms[0]] = e.list
	}
	list := e.list
	if a.in.MaxWork > 0 && a.res.Work+int64(len(syms))+list.bound > a.in.MaxWork {
		return false, "" // near the budget's end: eachSymbol stops where it is spent
	}
	a.res.Work += int64(len(syms))
	res := 0
	for _, sym := range list.kv {
		var x embedding[T]
		for _, rd := range e.readers {
			if rd.head >= 0 && rd.proj != int(model.QueryProjection) {
				if why := e.read(rd, sym, i, &x, &res); why != "" {
					return false, why
				}
			}
		}
		e.g.noteItems(i, e.kids, e.vids, source[T]{sym: sym})
	}
	if e.g.global {
		tuple := e.listTuple[:0]
		for _, rd := range e.readers {
			if rd.head < 0 || rd.proj == int(model.QueryProjection) {
				tuple = binary.AppendUvarint(tuple, uint64(rd.posClass[i-1]))
			}
		}
		e.listTuple = tuple
		if list.entries[string(tuple)] {
			return true, ""
		}
		list.entries[string(tuple)] = true
	}
	for _, sym := range list.qr {
		var x embedding[T]
		for _, rd := range e.readers {
			if rd.head < 0 || rd.proj == int(model.QueryProjection) {
				if why := e.read(rd, sym, i, &x, &res); why != "" {
					return false, why
				}
			}
		}
		if why := e.g.noteEntry(i, e.qids, res, source[T]{sym: sym}); why != "" {
			return false, why
		}
	}
	return true, ""
}

// sameList reports whether x and y are one list (Construction.Symbols:
// a list is read only, so the same memory holds the same symbols).
func sameList(x, y []int) bool {
	return len(x) == len(y) && (len(x) == 0 || &x[0] == &y[0])
}

// summarise finds the first symbol of each tuple of classes of syms.
func (e *embedGather[T]) summarise(prev *symbolList, syms []int) *symbolList {
	list := &symbolList{kvSeen: map[string]bool{}, qrSeen: map[string]bool{}}
	from := 0
	if prev != nil {
		// prev's tuples are those of its first symbols: extended in
		// place (a chain's lengths only grow, and one length's lists
		// are summarised before the next's).
		list, from = prev, len(prev.syms)
	}
	list.syms, list.entries = syms, map[string]bool{}
	var kvCost, qCost int64
	for _, rd := range e.readers {
		if rd.head < 0 {
			continue
		}
		w := projectionOf(e.a.m.Attention(e.l).Heads[rd.head], model.Projection(rd.proj))
		if rd.proj == int(model.QueryProjection) {
			qCost += int64(len(w.Data) / 16)
		} else {
			kvCost += int64(len(w.Data) / 16)
		}
	}
	kv, qr := list.kvSeen, list.qrSeen
	var buf []byte
	for _, sym := range syms[from:] {
		buf = buf[:0]
		for _, rd := range e.readers {
			if rd.head >= 0 && rd.proj != int(model.QueryProjection) {
				buf = binary.AppendUvarint(buf, uint64(rd.symClass[sym]))
			}
		}
		if !kv[string(buf)] {
			kv[string(buf)] = true
			list.kv = append(list.kv, sym)
		}
		buf = buf[:0]
		for _, rd := range e.readers {
			if rd.head < 0 || rd.proj == int(model.QueryProjection) {
				buf = binary.AppendUvarint(buf, uint64(rd.symClass[sym]))
			}
		}
		if !qr[string(buf)] {
			qr[string(buf)] = true
			list.qr = append(list.qr, sym)
		}
	}
	list.bound = int64(len(list.kv))*kvCost + int64(len(list.qr))*qCost
	return list
}

// table is the head's table of queries, keys or values (p).
func (h *head[T]) table(p model.Projection) *pairTable[T] {
	switch p {
	case model.QueryProjection:
		return h.queries
	case model.KeyProjection:
		return h.keys
	}
	return h.vals
}

func (rd *reader) set(id int, qids, kids, vids []int, res *int) {
	switch {
	case rd.head < 0:
		*res = id
	case rd.proj == int(model.QueryProjection):
		qids[rd.head] = id
	case rd.proj == int(model.KeyProjection):
		kids[rd.head] = id
	default:
		vids[rd.head] = id
	}
}

// readers lists what layer l's attention (step k) reads of an embedding,
// each with the components it reads sorted by what they depend on;
// normed says a norm comes first (every reader reads every component).
func (a *analysis[T]) readers(g *gather[T], k, l int) ([]*reader, bool, string) {
	var depR, depM []model.EmbedDependence
	var err error
	if a.chain != nil && a.chain.embeds != nil {
		if a.chain.depR == nil {
			a.chain.depR, a.chain.depM = newDependence(a.r), newDependence(a.m)
		}
		depR, err = a.chain.depR.at(a.n)
		if err == nil {
			depM, err = a.chain.depM.at(a.n)
		}
	} else if depR, err = a.r.EmbedDependence(a.n); err == nil {
		depM, err = a.m.EmbedDependence(a.n)
	}
	if err != nil {
		return nil, false, "the embedding: " + err.Error()
	}
	d := len(depM)
	all := make([]bool, d)
	for c := range all {
		all[c] = true
	}
	normed := a.r.PreNormed(l, true) || a.m.PreNormed(l, true)
	var out []*reader
	add := func(head, proj int, readsR, readsM []bool) {
		rd := &reader{head: head, proj: proj, classes: map[string]int32{}, ids: map[[2]int32]int{}}
		for c := 0; c < d; c++ {
			// A value that is not finite reaches every projection in
			// the machine formats: 0·∞ is NaN.
			col := column{c: c, r: readsR[c], m: readsM[c] || !depM[c].Finite}
			if !col.r && !col.m {
				continue
			}
			bySym := (!col.r || depR[c].Symbol) && (!col.m || depM[c].Symbol)
			byPos := (!col.r || depR[c].Position) && (!col.m || depM[c].Position)
			switch {
			case bySym:
				rd.sym = append(rd.sym, col)
			case byPos:
				rd.pos = append(rd.pos, col)
			default:
				rd.mixed = true
			}
		}
		out = append(out, rd)
	}
	for hd := range g.heads {
		hr, hm := a.r.Model.Layers[l].Attention.Heads[hd], a.m.Model.Layers[l].Attention.Heads[hd]
		for _, p := range []model.Projection{model.QueryProjection, model.KeyProjection, model.ValueProjection} {
			if normed {
				add(hd, int(p), all, all)
				continue
			}
			wr, wm := hr.Q, hm.Q
			switch p {
			case model.KeyProjection:
				wr, wm = hr.K, hm.K
			case model.ValueProjection:
				wr, wm = hr.V, hm.V
			}
			add(hd, int(p), wr.ReadColumns(), wm.ReadColumns())
		}
	}
	add(-1, 0, a.readR[k], a.readM[k])
	return out, normed, ""
}
