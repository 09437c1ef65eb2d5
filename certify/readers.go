package certify

import (
	"github.com/transformer-cookbook/verify/model/eval"
)

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

func (rd *reader) set(id int, qids, kids, vids []int, res *int) {
	switch {
	case rd.head < 0:
		*res = id
	case rd.proj == int(eval.QueryProjection):
		qids[rd.head] = id
	case rd.proj == int(eval.KeyProjection):
		kids[rd.head] = id
	default:
		vids[rd.head] = id
	}
}

// readers lists what layer l's attention (step k) reads of an embedding,
// each with the components it reads sorted by what they depend on;
// normed says a norm comes first (every reader reads every component).
func (a *analysis[T]) readers(g *gather[T], k, l int) ([]*reader, bool, string) {
	var depR, depM []eval.EmbedDependence
	var err error
	if a.chain != nil && a.chain.embeds != nil {
		if a.chain.depR == nil {
			a.chain.depR, a.chain.depM = newDependence(a.ref), newDependence(a.checked)
		}
		depR, err = a.chain.depR.at(a.n)
		if err == nil {
			depM, err = a.chain.depM.at(a.n)
		}
	} else if depR, err = a.ref.Steps().EmbedDependence(a.n); err == nil {
		depM, err = a.checked.Steps().EmbedDependence(a.n)
	}
	if err != nil {
		return nil, false, "the embedding: " + err.Error()
	}
	d := len(depM)
	all := make([]bool, d)
	for c := range all {
		all[c] = true
	}
	normed := a.ref.Steps().PreNormed(l, true) || a.checked.Steps().PreNormed(l, true)
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
		hr, hm := a.ref.Model.Layers[l].Attention.Heads[hd], a.checked.Model.Layers[l].Attention.Heads[hd]
		for _, p := range []eval.Projection{eval.QueryProjection, eval.KeyProjection, eval.ValueProjection} {
			if normed {
				add(hd, int(p), all, all)
				continue
			}
			wr, wm := hr.Q, hm.Q
			switch p {
			case eval.KeyProjection:
				wr, wm = hr.K, hm.K
			case eval.ValueProjection:
				wr, wm = hr.V, hm.V
			}
			add(hd, int(p), wr.ReadColumns(), wm.ReadColumns())
		}
	}
	add(-1, 0, a.readR[k], a.readM[k])
	return out, normed, ""
}
