package recheck

import (
	"fmt"
	"math/big"
	"strconv"

	"github.com/transformer-cookbook/verify/model"
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

// dependenceOf works out inst's dependence over the symbols syms of its
// own alphabet.
func dependenceOf[U any](inst *model.Instance[U], n int, syms []int) (dependence, error) {
	b := inst.B
	d := inst.Model.D
	dep := dependence{bySymbol: make([]bool, d), byPosition: make([]bool, d), finite: make([]bool, d)}
	pe, err := inst.PositionRows(n)
	if err != nil {
		return dep, err
	}
	rows := make([][]U, len(syms))
	for k, s := range syms {
		if rows[k], err = inst.WordEmbeddingRow(s); err != nil {
			return dep, err
		}
	}
	for c := range d {
		dep.bySymbol[c], dep.byPosition[c] = true, true
		maxW, maxP, t := b.New(), b.New(), b.New()
		for k, row := range rows {
			if k > 0 && b.Cmp(row[c], rows[0][c]) != numeric.Equal {
				dep.byPosition[c] = false
			}
			t = b.Abs(t, row[c])
			maxW = b.Max(maxW, maxW, t)
		}
		for i, row := range pe {
			if i > 0 && b.Cmp(row[c], pe[0][c]) != numeric.Equal {
				dep.bySymbol[c] = false
			}
			t = b.Abs(t, row[c])
			maxP = b.Max(maxP, maxP, t)
		}
		// |w + p| ≤ |w| + |p| ≤ maxW + maxP, and rounding is monotone:
		// when that sum rounds to a finite number, every sum does. A NaN
		// part makes maxW or maxP NaN, which is not finite.
		dep.finite[c] = b.Finite(maxW) && b.Finite(maxP) && b.Finite(b.Add(t, maxW, maxP))
	}
	return dep, nil
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
	p     model.Projection
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
	normed := ck.r.PreNormed(l, true) || ck.m.PreNormed(l, true)
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
	add := func(hd int, p model.Projection, readsR, readsM []bool) {
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
		for _, p := range []model.Projection{model.QueryProjection, model.KeyProjection, model.ValueProjection} {
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
func matrixOf(h model.Head, p model.Projection) model.Matrix {
	switch p {
	case model.KeyProjection:
		return h.K
	case model.ValueProjection:
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
	parts map[string][]symbolPart
	cells map[int]*cell[T]
	buf   []byte
	// peR and peM are the position encodings, once read.
	peR [][]*big.Rat
	peM [][]T
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
	listSeen := map[string]bool{}
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
	g := ck.newGathered(l, pooled)
	if len(symsR) == 0 {
		return g, nil
	}
	depR, err := dependenceOf(ck.r, ck.n, symsR)
	if err != nil {
		return nil, refuse("the reference's embedding: %v", err)
	}
	depM, err := dependenceOf(ck.m, ck.n, symsM)
	if err != nil {
		return nil, refuse("the model's embedding: %v", err)
	}
	e := &embedGather[T]{ck: ck, k: k, l: l, g: g, readers: ck.embedReaders(k, l, depR, depM), anySym: symsR[0], parts: map[string][]symbolPart{}}
	var entryReaders, itemReaders [][]*reader // by head: [key, value]; entries: queries then residual
	heads := len(ck.r.Attention(l).Heads)
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
			key := listKey(list) + fmt.Sprintf("@%d-%d", lo, hi)
			for _, rd := range rs {
				if rd.kind == byPosition {
					id, err := e.id(rd, &cell[T]{sym: e.anySym, i: i})
					if err != nil {
						return nil, err
					}
					key += "," + strconv.Itoa(id)
				}
			}
			if done[key] {
				continue
			}
			done[key] = true
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

// listKey identifies a symbol list by its memory: Symbols hands out read
// only lists, so the same slice holds the same symbols.
func listKey(list []int) string {
	return fmt.Sprintf("%p:%d", &list[0], len(list))
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
			key := fmt.Sprint(ids)
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
// among rs over list's symbols, worked out once per list.
func (e *embedGather[T]) symbolParts(rs []*reader, list []int) ([]symbolPart, error) {
	key := listKey(list)
	for _, rd := range rs {
		key += fmt.Sprintf(";%d/%d", rd.hd, rd.p)
	}
	if parts, ok := e.parts[key]; ok {
		return parts, nil
	}
	var parts []symbolPart
	seen := map[string]bool{}
	for _, sym := range list {
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
		k := fmt.Sprint(ids)
		if !seen[k] {
			seen[k] = true
			parts = append(parts, symbolPart{ids: ids, sym: sym})
		}
	}
	e.parts[key] = parts
	return parts, nil
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
		if rowR, err = ck.r.WordEmbeddingRow(c.sym); err == nil {
			rowM, err = ck.m.WordEmbeddingRow(ck.mapSymbol(c.sym))
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
		if e.peR, err = e.ck.r.PositionRows(e.ck.n); err != nil {
			return nil, nil, err
		}
		if e.peM, err = e.ck.m.PositionRows(e.ck.n); err != nil {
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
		xr, err := ck.r.SublayerInput(e.l, true, s.Ref)
		if err != nil {
			return 0, refuse("layer %d attention's norm in the reference: %v", e.l+1, err)
		}
		xm, err := ck.m.SublayerInput(e.l, true, s.Model)
		if err != nil {
			return 0, refuse("layer %d attention's norm in the model: %v", e.l+1, err)
		}
		c.x = &State[T]{Ref: xr, Model: xm}
	}
	v := ck.projection(e.l, rd.hd, rd.p, c.x.Ref, c.x.Model)
	var t *table[T]
	switch rd.p {
	case model.QueryProjection:
		t = e.g.queries[rd.hd]
	case model.KeyProjection:
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
	if e.cells == nil {
		e.cells = map[int]*cell[T]{}
	}
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
		s, err := e.ck.embed(c.sym, c.i)
		if err != nil {
			return State[T]{}, err
		}
		c.s = &s
	}
	return *c.s, nil
}
