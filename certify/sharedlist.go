package certify

import (
	"encoding/binary"

	"github.com/transformer-cookbook/verify/model/eval"
)

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
	if a.input.MaxWork > 0 && a.res.Work+int64(len(syms))+list.bound > a.input.MaxWork {
		return false, "" // near the budget's end: eachSymbol stops where it is spent
	}
	a.res.Work += int64(len(syms))
	res := 0
	for _, sym := range list.kv {
		var x embedding[T]
		for _, rd := range e.readers {
			if rd.head >= 0 && rd.proj != int(eval.QueryProjection) {
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
			if rd.head < 0 || rd.proj == int(eval.QueryProjection) {
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
			if rd.head < 0 || rd.proj == int(eval.QueryProjection) {
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
		w := projectionOf(e.a.checked.Steps().Attention(e.l).Heads[rd.head], eval.Projection(rd.proj))
		if rd.proj == int(eval.QueryProjection) {
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
			if rd.head >= 0 && rd.proj != int(eval.QueryProjection) {
				buf = binary.AppendUvarint(buf, uint64(rd.symClass[sym]))
			}
		}
		if !kv[string(buf)] {
			kv[string(buf)] = true
			list.kv = append(list.kv, sym)
		}
		buf = buf[:0]
		for _, rd := range e.readers {
			if rd.head < 0 || rd.proj == int(eval.QueryProjection) {
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
