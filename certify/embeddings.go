package certify

import (
	"fmt"
	"math/big"

	"github.com/transformer-cookbook/verify/model/eval"
)

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
// has the same value at every position (eval.EmbedDependence), so these
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
		entryNoted: make([]bool, len(a.ref.Model.Alphabet)),
		qids:       make([]int, h), kids: make([]int, h), vids: make([]int, h)}
	g.embedding = e.embedding
	// Shared entries made of readers of the symbol alone are one per
	// symbol: noted once.
	sharing := !normed && !a.input.general
	for _, rd := range readers {
		if (rd.head < 0 || rd.proj == int(eval.QueryProjection)) && !rd.bySymbol() {
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
		alphabet := len(a.ref.Model.Alphabet)
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

// class is the class of state s for reader rd, by its columns cols.
func (e *embedGather[T]) class(rd *reader, cols []column, s *state[T]) int32 {
	buf := e.buf[:0]
	for _, col := range cols {
		if col.r {
			buf = appendRats(buf, s.ref[col.c:col.c+1])
		}
		buf = append(buf, '|')
		if col.m {
			buf = appendValues(buf, e.a.backend, s.checked[col.c:col.c+1])
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
		v, why := a.headVector(e.l, rd.head, eval.Projection(rd.proj), x.xr, x.xm)
		if why != "" {
			return why
		}
		id = e.g.heads[rd.head].table(eval.Projection(rd.proj)).idOf(a, v.rid, v.ref, v.checked, x.s.witness)
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
