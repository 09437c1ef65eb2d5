package certify

import (
	"math/big"
	"strconv"

	"github.com/transformer-cookbook/verify/numeric"
)

// pair is one vector in both models: the reference's, exact, and the
// checked model's at its precision. The analysis follows pairs, not the
// two models apart: a state, a query or a head's output is only known
// together with what the other model makes of the same input.
type pair[T any] struct {
	ref     []*big.Rat
	checked []T
}

// pairTable numbers distinct pairs of vectors: queries, keys, values or
// head outputs.
type pairTable[T any] struct {
	ids       map[string]int
	pairs     []pair[T]
	witnesses []witness // the witness of each pair's first occurrence
	// refFloats holds the reference vectors in float64, where every entry
	// converts exactly (converts), computed when first asked.
	refFloats [][]float64
	converts  []int8 // 0: not converted yet, 1: exact, −1: not
	allFinite []int8 // 0: not known yet, 1: every model component finite, −1: not
}

func newPairTable[T any]() *pairTable[T] { return &pairTable[T]{ids: map[string]int{}} }

// finite reports whether every component of the model's vector of pair
// id is finite (cached).
func (t *pairTable[T]) finite(b numeric.Backend[T], id int) bool {
	for len(t.allFinite) < len(t.pairs) {
		t.allFinite = append(t.allFinite, 0)
	}
	if t.allFinite[id] == 0 {
		t.allFinite[id] = 1
		for _, x := range t.pairs[id].checked {
			if !b.Finite(x) {
				t.allFinite[id] = -1
				break
			}
		}
	}
	return t.allFinite[id] == 1
}

func (t *pairTable[T]) id(a *analysis[T], ref []*big.Rat, checked []T, w witness) int {
	return t.add(pairKey(a.backend, ref, checked), ref, checked, w)
}

// idOf is id for a reference vector known by its id rid among the
// reference's projections of one matrix.
func (t *pairTable[T]) idOf(a *analysis[T], rid int, ref []*big.Rat, checked []T, w witness) int {
	buf := strconv.AppendInt(nil, int64(rid), 10)
	buf = append(buf, '|')
	return t.add(string(appendValues(buf, a.backend, checked)), ref, checked, w)
}

func (t *pairTable[T]) add(key string, ref []*big.Rat, checked []T, w witness) int {
	if id, ok := t.ids[key]; ok {
		return id
	}
	id := len(t.pairs)
	t.ids[key] = id
	t.pairs, t.witnesses = append(t.pairs, pair[T]{ref: ref, checked: checked}), append(t.witnesses, w)
	return id
}

// floats is pair id's reference vector in float64, and whether it
// converts without rounding.
func (t *pairTable[T]) floats(id int) ([]float64, bool) {
	for len(t.converts) < len(t.pairs) {
		t.refFloats, t.converts = append(t.refFloats, nil), append(t.converts, 0)
	}
	if t.converts[id] == 0 {
		t.converts[id] = 1
		f := make([]float64, len(t.pairs[id].ref))
		for c, x := range t.pairs[id].ref {
			var ok bool
			if f[c], ok = x.Float64(); !ok {
				t.converts[id] = -1
			}
		}
		t.refFloats[id] = f
	}
	return t.refFloats[id], t.converts[id] == 1
}
