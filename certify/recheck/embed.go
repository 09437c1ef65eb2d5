package recheck

import (
	"encoding/binary"
	"fmt"
	"math/big"

	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/model/eval"
	"github.com/transformer-cookbook/verify/numeric"
)

// The first sublayer reads embeddings, of every symbol a position may
// hold: what each of its readers (a head's query, key or value, the
// residual's read) reads is worked out once per symbol, once per
// position, or at each pair, as the components it reads depend (package
// doc).

// dependence says, for each component of one model's embeddings of
// length n, whether it is the same at every position (bySymbol), the same
// for every symbol that occurs (byPosition), and finite.
type dependence struct {
	bySymbol, byPosition, finite []bool
}

// depState works out one model's dependence over the symbols and the
// positions folded into it so far: a session folds in, at each length,
// the symbols and positions it has not met (a dependence over more
// symbols than occur is stricter, never wrong).
type depState[U any] struct {
	inst       *eval.Instance[U]
	dep        dependence
	first, pe0 []U
	maxW, maxP []U
	met        map[int]bool
	positions  int
}

func newDepState[U any](inst *eval.Instance[U]) *depState[U] {
	d := inst.Model.D
	st := &depState[U]{inst: inst, met: map[int]bool{},
		dep: dependence{bySymbol: make([]bool, d), byPosition: make([]bool, d), finite: make([]bool, d)}}
	st.maxW, st.maxP = make([]U, d), make([]U, d)
	for c := range d {
		st.dep.bySymbol[c], st.dep.byPosition[c] = true, true
		st.maxW[c], st.maxP[c] = inst.B.New(), inst.B.New()
	}
	return st
}

// fold folds in the symbols syms (of the model's own alphabet) and the
// positions of length n, and returns the dependence.
func (st *depState[U]) fold(n int, syms []int) (dependence, error) {
	b := st.inst.B
	t := b.New()
	for _, s := range syms {
		if st.met[s] {
			continue
		}
		st.met[s] = true
		row, err := st.inst.Steps().WordEmbeddingRow(s)
		if err != nil {
			return st.dep, err
		}
		if st.first == nil {
			st.first = row
		}
		for c := range row {
			if b.Cmp(row[c], st.first[c]) != numeric.Equal {
				st.dep.byPosition[c] = false
			}
			t = b.Abs(t, row[c])
			st.maxW[c] = b.Max(st.maxW[c], st.maxW[c], t)
		}
	}
	if n > st.positions {
		pe, err := st.inst.Steps().PositionRows(n)
		if err != nil {
			return st.dep, err
		}
		for i := st.positions; i < len(pe); i++ {
			if st.pe0 == nil {
				st.pe0 = pe[0]
			}
			for c := range pe[i] {
				if b.Cmp(pe[i][c], st.pe0[c]) != numeric.Equal {
					st.dep.bySymbol[c] = false
				}
				t = b.Abs(t, pe[i][c])
				st.maxP[c] = b.Max(st.maxP[c], st.maxP[c], t)
			}
		}
		st.positions = n
	}
	out := dependence{bySymbol: append([]bool(nil), st.dep.bySymbol...), byPosition: append([]bool(nil), st.dep.byPosition...),
		finite: make([]bool, len(st.dep.finite))}
	for c := range out.finite {
		// |w + p| ≤ |w| + |p| ≤ maxW + maxP, and rounding is monotone:
		// when that sum rounds to a finite number, every sum does. A NaN
		// part makes maxW or maxP NaN, which is not finite.
		out.finite[c] = b.Finite(st.maxW[c]) && b.Finite(st.maxP[c]) && b.Finite(b.Add(t, st.maxW[c], st.maxP[c]))
	}
	return out, nil
}

// Reader kinds.
const (
	bySymbol = iota
	byPosition
	mixed
)

// reader is one thing the first sublayer reads of an embedding: head
// hd's projection p (hd ≥ 0), or the residual's read (hd = −1), with the
// kind of its dependence and its ids worked out so far.
type reader struct {
	hd    int
	p     eval.Projection
	kind  int
	bySym []int // by symbol: id, or −1 when not yet worked out
	byPos []int // by position (0-based)
	// colsR and colsM are the columns it reads in each model; byValue
	// holds its ids by the values of those columns' word embeddings (a
	// reader by symbol) or position encodings (by position): equal
	// parts, equal sums with the other part, which is the same there.
	colsR, colsM []int
	byValue      map[string]int
}

// embedReaders lists the readers of layer l's attention (step k) and
// their kinds, from the two models' dependences.
func (ck *checker[T]) embedReaders(k, l int, depR, depM dependence) []*reader {
	d := ck.r.Model.D
	all := make([]bool, d)
	for c := range all {
		all[c] = true
	}
	normed := ck.r.Steps().PreNormed(l, true) || ck.m.Steps().PreNormed(l, true)
	columns := func(readsR, readsM []bool) (colsR, colsM []int) {
		for c := range d {
			if readsR[c] {
				colsR = append(colsR, c)
			}
			if readsM[c] || !depM.finite[c] {
				colsM = append(colsM, c)
			}
		}
		return colsR, colsM
	}
	kindOf := func(readsR, readsM []bool) int {
		symbol, position := true, true
		for c := range d {
			rr := readsR[c]
			rm := readsM[c] || !depM.finite[c]
			if rr {
				symbol = symbol && depR.bySymbol[c]
				position = position && depR.byPosition[c]
			}
			if rm {
				symbol = symbol && depM.bySymbol[c]
				position = position && depM.byPosition[c]
			}
		}
		switch {
		case symbol:
			return bySymbol
		case position:
			return byPosition
		}
		return mixed
	}
	var out []*reader
	add := func(hd int, p eval.Projection, readsR, readsM []bool) {
		rd := &reader{hd: hd, p: p, kind: kindOf(readsR, readsM), byValue: map[string]int{}}
		rd.colsR, rd.colsM = columns(readsR, readsM)
		rd.bySym = make([]int, len(ck.r.Model.Alphabet))
		rd.byPos = make([]int, ck.n)
		for s := range rd.bySym {
			rd.bySym[s] = -1
		}
		for i := range rd.byPos {
			rd.byPos[i] = -1
		}
		out = append(out, rd)
	}
	spec, specM := ck.r.Model.Layers[l].Attention, ck.m.Model.Layers[l].Attention
	for hd := range spec.Heads {
		for _, p := range []eval.Projection{eval.QueryProjection, eval.KeyProjection, eval.ValueProjection} {
			if normed {
				add(hd, p, all, all)
				continue
			}
			add(hd, p, matrixOf(spec.Heads[hd], p).ReadColumns(), matrixOf(specM.Heads[hd], p).ReadColumns())
		}
	}
	add(-1, 0, ck.readsR[k], ck.readsM[k])
	return out
}

// matrixOf is head h's W^Q, W^K or W^V.
func matrixOf(h model.Head, p eval.Projection) model.Matrix {
	switch p {
	case eval.KeyProjection:
		return h.K
	case eval.ValueProjection:
		return h.V
	}
	return h.Q
}

// embedGather is the first pass over the embeddings of one length.
type embedGather[T any] struct {
	ck      *checker[T]
	k, l    int
	g       *gathered[T]
	readers []*reader
	// anySym is a symbol that occurs: the one a reader by position is
	// worked out with.
	anySym int
	// parts caches, by symbol list (the same slice serves the same
	// symbols) and by the readers asked, the distinct tuples of the ids
	// of the readers by symbol over the list's symbols, each with its
	// first symbol.
	parts map[partsKey]*partsOf
	cells map[int]*cell[T]
	// embeds holds the embeddings computed, by symbol and position.
	embeds map[[2]int]State[T]
	buf    []byte
	// peR and peM are the position encodings, once read.
	peR [][]*big.Rat
	peM [][]T
}

// partsKey identifies the symbol parts of one list for some readers.
type partsKey struct {
	list    listID
	readers string
}

// symbolPart is one tuple of ids of readers by symbol, and a symbol that
// has it.
type symbolPart struct {
	ids []int
	sym int
}

// cell is the embedding of one symbol at one position, computed once it
// is needed.
type cell[T any] struct {
	sym, i int
	s      *State[T]
	x      *State[T] // the sublayer's input
}

// gatherEmbeddings reads the embeddings before step k (layer l's
// attention, the first sublayer).
func (ck *checker[T]) gatherEmbeddings(k, l int, pooled bool) (*gathered[T], error) {
	// The symbols that occur, in each model's alphabet.
	lists := make([][]int, ck.n)
	seen := make([]bool, len(ck.r.Model.Alphabet))
	listSeen := map[listID]bool{}
	var symsR, symsM []int
	for i := 1; i <= ck.n; i++ {
		list := ck.symbols(i)
		lists[i-1] = list
		if len(list) == 0 || listSeen[listKey(list)] {
			continue // a list met before holds the symbols it held
		}
		listSeen[listKey(list)] = true
		for _, s := range list {
			if s < 0 || s >= len(seen) {
				return nil, refuse("position %d may hold symbol %d, outside the reference's alphabet", i, s)
			}
			if !seen[s] {
				seen[s] = true
				symsR = append(symsR, s)
				symsM = append(symsM, ck.mapSymbol(s))
			}
		}
	}
	g := ck.newGathered(k, l, pooled)
	if len(symsR) == 0 {
		return g, nil
	}
	es := ck.embedState(k)
	depR, err := es.depR.fold(ck.n, symsR)
	if err != nil {
		return nil, refuse("the reference's embedding: %v", err)
	}
	depM, err := es.depM.fold(ck.n, symsM)
	if err != nil {
		return nil, refuse("the model's embedding: %v", err)
	}
	readers := ck.embedReaders(k, l, depR, depM)
	if sig := readersSig(readers); es.sig != sig {
		es.sig, es.readers, es.cells, es.parts = sig, readers, map[int]*cell[T]{}, map[partsKey]*partsOf{}
	}
	for _, rd := range es.readers {
		for len(rd.byPos) < ck.n {
			rd.byPos = append(rd.byPos, -1)
		}
	}
	g.residuals = es.residuals
	e := &embedGather[T]{ck: ck, k: k, l: l, g: g, readers: es.readers, anySym: symsR[0], parts: es.parts,
		cells: es.cells, embeds: es.embeds}
	var entryReaders, itemReaders [][]*reader // by head: [key, value]; entries: queries then residual
	heads := len(ck.r.Steps().Attention(l).Heads)
	var qrs []*reader
	for hd := range heads {
		rs := e.readers[3*hd : 3*hd+3]
		qrs = append(qrs, rs[0])
		itemReaders = append(itemReaders, rs[1:3])
	}
	entryReaders = append(entryReaders, append(qrs, e.readers[len(e.readers)-1]))
	done := map[string]bool{} // pooled entries of positions already noted
	for i := 1; i <= ck.n; i++ {
		list := lists[i-1]
		if len(list) == 0 {
			continue
		}
		for hd, rs := range itemReaders {
			err := e.tuples(rs, list, i, func(ids []int, _ *cell[T]) error {
				g.addItem(hd, i, ids[0], ids[1])
				return nil
			})
			if err != nil {
				return nil, err
			}
		}
		rs := entryReaders[0]
		if g.pooled && !anyMixed(rs) {
			// The entries of this position are the list's symbol
			// tuples with the position's ids: met before, they give
			// nothing new (their next states are pooled).
			lo, hi := visible(g.mask, i, ck.n)
			id := listKey(list)
			key := ints(nil, int(id.n), lo, hi)
			for _, rd := range rs {
				if rd.kind == byPosition {
					rid, err := e.id(rd, &cell[T]{sym: e.anySym, i: i})
					if err != nil {
						return nil, err
					}
					key = ints(key, rid)
				}
			}
			k := fmt.Sprintf("%p", id.p) + string(key)
			if done[k] {
				continue
			}
			done[k] = true
		}
		err := e.tuples(rs, list, i, func(ids []int, c *cell[T]) error {
			return ck.addEntry(g, i, ids[:heads], ids[heads], func() (State[T], string, error) {
				s, err := e.embedding(c)
				return s, fmt.Sprintf("the embedding of symbol %q at position %d", ck.r.Model.Alphabet[c.sym], i), err
			})
		})
		if err != nil {
			return nil, err
		}
	}
	return g, nil
}

func (ck *checker[T]) mapSymbol(s int) int {
	if ck.in.MapSymbol != nil {
		return ck.in.MapSymbol(s)
	}
	return s
}

func anyMixed(rs []*reader) bool {
	for _, rd := range rs {
		if rd.kind == mixed {
			return true
		}
	}
	return false
}

// listID identifies a symbol list by its memory: Symbols hands out read
// only lists, so the same slice holds the same symbols.
type listID struct {
	p *int
	n int
}

func listKey(list []int) listID { return listID{&list[0], len(list)} }

// ints appends xs to buf, so that equal bytes mean equal tuples.
func ints(buf []byte, xs ...int) []byte {
	for _, x := range xs {
		buf = binary.AppendVarint(buf, int64(x))
	}
	return buf
}

// tuples calls f with each distinct tuple of the ids of readers rs over
// the symbols of list at position i, and a cell of a symbol that has it.
func (e *embedGather[T]) tuples(rs []*reader, list []int, i int, f func(ids []int, c *cell[T]) error) error {
	ids := make([]int, len(rs))
	if anyMixed(rs) {
		seen := map[string]bool{}
		for _, sym := range list {
			c := &cell[T]{sym: sym, i: i}
			for x, rd := range rs {
				id, err := e.id(rd, c)
				if err != nil {
					return err
				}
				ids[x] = id
			}
			key := string(ints(nil, ids...))
			if !seen[key] {
				seen[key] = true
				if err := f(ids, c); err != nil {
					return err
				}
			}
		}
		return nil
	}
	parts, err := e.symbolParts(rs, list)
	if err != nil {
		return err
	}
	for x, rd := range rs {
		if rd.kind == byPosition {
			id, err := e.id(rd, &cell[T]{sym: e.anySym, i: i})
			if err != nil {
				return err
			}
			ids[x] = id
		}
	}
	for _, part := range parts {
		p := 0
		for x, rd := range rs {
			if rd.kind == bySymbol {
				ids[x] = part.ids[p]
				p++
			}
		}
		if err := f(ids, &cell[T]{sym: part.sym, i: i}); err != nil {
			return err
		}
	}
	return nil
}

// symbolParts are the distinct tuples of the ids of the readers by symbol
// among rs over list's symbols, worked out once per list. A list that
// extends one met before (the same memory, longer: the construction's
// lists of a longer length often are) adds only its new symbols' tuples.
func (e *embedGather[T]) symbolParts(rs []*reader, list []int) ([]symbolPart, error) {
	key := partsKey{list: listID{p: &list[0]}}
	for _, rd := range rs {
		key.readers = string(ints([]byte(key.readers), rd.hd, int(rd.p)))
	}
	pp := e.parts[key]
	if pp == nil {
		pp = &partsOf{seen: map[string]bool{}}
		e.parts[key] = pp
	}
	if len(list) < pp.n {
		// A shorter list in the same memory: worked out on its own.
		pp = &partsOf{seen: map[string]bool{}}
	}
	for _, sym := range list[pp.n:] {
		var ids []int
		c := e.symbolCell(sym)
		for _, rd := range rs {
			if rd.kind != bySymbol {
				continue
			}
			id, err := e.id(rd, c)
			if err != nil {
				return nil, err
			}
			ids = append(ids, id)
		}
		k := string(ints(nil, ids...))
		if !pp.seen[k] {
			pp.seen[k] = true
			pp.parts = append(pp.parts, symbolPart{ids: ids, sym: sym})
		}
	}
	pp.n = len(list)
	return pp.parts, nil
}

// partsOf are the symbol parts of the first n symbols of a list.
type partsOf struct {
	n     int
	parts []symbolPart
	seen  map[string]bool
}

// id is reader rd's id at cell c: worked out once per symbol or position
// where its kind allows (a reader by symbol is the same at every
// position; one by position the same for every symbol that occurs, and
// c's symbol is one: it comes from a position's list).
func (e *embedGather[T]) id(rd *reader, c *cell[T]) (int, error) {
	var memo *int
	switch rd.kind {
	case bySymbol:
		memo = &rd.bySym[c.sym]
	case byPosition:
		memo = &rd.byPos[c.i-1]
	default:
		return e.compute(rd, c)
	}
	if *memo >= 0 {
		return *memo, nil
	}
	key, err := e.partKey(rd, c)
	if err != nil {
		return 0, err
	}
	id, ok := rd.byValue[key]
	if !ok {
		if id, err = e.compute(rd, c); err != nil {
			return 0, err
		}
		rd.byValue[key] = id
	}
	*memo = id
	return id, nil
}

// partKey is the key of the part of cell c's embedding that decides
// reader rd's value: the word embedding's entries in the columns it reads
// (a reader by symbol), or the position encoding's (by position).
func (e *embedGather[T]) partKey(rd *reader, c *cell[T]) (string, error) {
	ck := e.ck
	var rowR []*big.Rat
	var rowM []T
	var err error
	if rd.kind == bySymbol {
		if rowR, err = ck.r.Steps().WordEmbeddingRow(c.sym); err == nil {
			rowM, err = ck.m.Steps().WordEmbeddingRow(ck.mapSymbol(c.sym))
		}
	} else {
		rowR, rowM, err = e.positionRows(c.i)
	}
	if err != nil {
		return "", refuse("the embedding of symbol %d at position %d: %v", c.sym, c.i, err)
	}
	buf := e.buf[:0]
	for _, col := range rd.colsR {
		if rowR != nil {
			buf = appendRat(buf, rowR[col])
		}
	}
	buf = append(buf, '|')
	for _, col := range rd.colsM {
		if rowM != nil {
			buf = appendValue(buf, ck.b, rowM[col])
		}
	}
	e.buf = buf
	return string(buf), nil
}

// positionRows are both models' position encodings at position i (nil
// where a model has none).
func (e *embedGather[T]) positionRows(i int) ([]*big.Rat, []T, error) {
	if e.peR == nil && e.peM == nil {
		var err error
		if e.peR, err = e.ck.r.Steps().PositionRows(e.ck.n); err != nil {
			return nil, nil, err
		}
		if e.peM, err = e.ck.m.Steps().PositionRows(e.ck.n); err != nil {
			return nil, nil, err
		}
		if e.peR == nil {
			e.peR = make([][]*big.Rat, e.ck.n)
		}
		if e.peM == nil {
			e.peM = make([][]T, e.ck.n)
		}
	}
	return e.peR[i-1], e.peM[i-1], nil
}

// compute works out reader rd's id at cell c from its embedding.
func (e *embedGather[T]) compute(rd *reader, c *cell[T]) (int, error) {
	ck := e.ck
	s, err := e.embedding(c)
	if err != nil {
		return 0, err
	}
	if rd.hd < 0 {
		return e.g.residuals.id(ck.residualKey(e.k, s), State[T]{}), nil
	}
	if c.x == nil {
		xr, err := ck.r.Steps().SublayerInput(e.l, true, s.Ref)
		if err != nil {
			return 0, refuse("layer %d attention's norm in the reference: %v", e.l+1, err)
		}
		xm, err := ck.m.Steps().SublayerInput(e.l, true, s.Model)
		if err != nil {
			return 0, refuse("layer %d attention's norm in the model: %v", e.l+1, err)
		}
		c.x = &State[T]{Ref: xr, Model: xm}
	}
	v := ck.projection(e.l, rd.hd, rd.p, c.x.Ref, c.x.Model)
	var t *table[T]
	switch rd.p {
	case eval.QueryProjection:
		t = e.g.queries[rd.hd]
	case eval.KeyProjection:
		t = e.g.keys[rd.hd]
	default:
		t = e.g.vals[rd.hd]
	}
	return t.id(ck.stateKey(v), v), nil
}

// symbolCell is a cell of symbol sym for the readers by symbol, shared by
// all of them: at the first position whose list met it, any position
// being as good.
func (e *embedGather[T]) symbolCell(sym int) *cell[T] {
	c, ok := e.cells[sym]
	if !ok {
		c = &cell[T]{sym: sym, i: 1}
		e.cells[sym] = c
	}
	return c
}

// embedding is cell c's pair of embeddings, computed once.
func (e *embedGather[T]) embedding(c *cell[T]) (State[T], error) {
	if c.s == nil {
		at := [2]int{c.sym, c.i}
		s, ok := e.embeds[at]
		if !ok {
			var err error
			if s, err = e.ck.embed(c.sym, c.i); err != nil {
				return State[T]{}, err
			}
			e.embeds[at] = s
		}
		c.s = &s
	}
	return *c.s, nil
}

// embedState is what the first pass works out of the embeddings of one
// length: the two models' dependences, the readers with their ids by
// symbol and by position, the cells of the symbols and the table of what
// residuals read. A session keeps it from one length to the next, where
// neither model's embedding depends on the length (an embedding is then
// the same at every length, and so is every id worked out from one)
// while the readers read the same components with the same dependence
// (sig); else each length has its own.
type embedState[T any] struct {
	depR      *depState[*big.Rat]
	depM      *depState[T]
	sig       string
	readers   []*reader
	cells     map[int]*cell[T]
	embeds    map[[2]int]State[T]
	parts     map[partsKey]*partsOf
	residuals *table[T]
}

// embedState is the first pass's state of step k: the session's, or a new
// one.
func (ck *checker[T]) embedState(k int) *embedState[T] {
	if ck.sess != nil && ck.sess.lengthFree {
		if es := ck.sess.embeds[k]; es != nil {
			return es
		}
	}
	es := &embedState[T]{depR: newDepState(ck.r), depM: newDepState(ck.m), cells: map[int]*cell[T]{}, embeds: map[[2]int]State[T]{},
		parts: map[partsKey]*partsOf{}, residuals: newTable[T]()}
	if ck.sess != nil && ck.sess.lengthFree {
		ck.sess.embeds[k] = es
	}
	return es
}

// readersSig is what the readers' ids depend on: their kinds and the
// components each reads.
func readersSig(readers []*reader) string {
	var buf []byte
	for _, rd := range readers {
		buf = ints(buf, rd.hd, int(rd.p), rd.kind, len(rd.colsR), len(rd.colsM))
		buf = ints(buf, rd.colsR...)
		buf = ints(buf, rd.colsM...)
	}
	return string(buf)
}
