package certify

import (
	"fmt"
	"math/big"
	"sort"

	"github.com/transformer-cookbook/verify/numeric"
)

// keyScores holds the scores of the keys for one query (qid): the
// checked model's (checked), and the exact one as floats, its float64
// rounding, which is the exact score itself unless ratGen[kid] == stamp,
// when the rational rats[kid] is. gen[kid] == stamp marks the keys
// computed for this query.
type keyScores[T any] struct {
	// buf, missing and keys are the storage of scoreRange and
	// scoredItems, reused from one query to the next.
	buf     []scored[T]
	missing []int
	keys    [][]T
	qid     int
	stamp   int
	gen     []int
	checked []T
	floats  []float64
	rats    []*big.Rat
	ratGen  []int
	// checkedFloats is the model's score as a float64 where it converts
	// exactly and is not NaN (checked itself when T is float64); slow
	// counts the keys scored for this query whose exact score is not its
	// float or whose model score is not its checkedFloat (fastDecider
	// then leaves the query to the general code).
	checkedFloats []float64
	slow          int
	// prefix is the number of keys of itemIndex.firstKids scored for
	// this query (head.fromFirst). inPlace says those are 0 … prefix − 1,
	// scored in place (scoreRange): then top is the largest of
	// floats[:topTo], and the NaNs of checkedFloats are not counted in
	// slow.
	prefix  int
	inPlace bool
	top     float64
	topTo   int
	// machine: T is a machine float (a value: checked's storage is
	// handed to the model to score into); mbuf holds the model's scores
	// of the last keys scored when they are not scored in place (for
	// numbers that are pointers, checked's).
	machine bool
	mbuf    []T
}

// init sizes the storage for nk keys: for a backend b whose values are
// pointers, m holds a number of b's for each key, which the model scores
// into (eval.Steps.KeyScoresInto), each query over the last's.
func (sc *keyScores[T]) init(nk int, b numeric.Backend[T]) {
	sc.gen, sc.checked, sc.floats = make([]int, nk), make([]T, nk), make([]float64, nk)
	sc.rats, sc.ratGen = make([]*big.Rat, nk), make([]int, nk)
	switch m := any(sc.checked).(type) {
	case []float64:
		sc.checkedFloats, sc.machine = m, true
	case []float32:
		sc.checkedFloats, sc.machine = make([]float64, nk), true
	default:
		sc.checkedFloats = make([]float64, nk)
		for k := range sc.checked {
			sc.checked[k] = b.New()
		}
	}
}

// exact reports whether floats[kid] is key kid's exact score.
func (sc *keyScores[T]) exact(kid int) bool { return sc.ratGen[kid] != sc.stamp }

// scored is an item with its scores for one query.
type scored[T any] struct {
	item
	float    float64
	exact    bool     // float is the exact score
	exactRat *big.Rat // the exact score, when computed
	checked  T
}

// cmpExact orders two items by their exact scores: by float where they
// differ (a correctly rounded conversion keeps the order: f(x) < f(y)
// implies x < y), else exactly.
// Items of one query only are compared.
func cmpExact[T any](x, y *scored[T]) int {
	switch {
	case x.float < y.float:
		return -1
	case x.float > y.float:
		return 1
	case x.exact && y.exact, x.kid == y.kid:
		return 0 // one key has one score
	}
	return x.rat().Cmp(y.rat())
}

// rat is the exact score as a rational.
func (x *scored[T]) rat() *big.Rat {
	if x.exactRat == nil {
		x.exactRat = new(big.Rat).SetFloat64(x.float)
	}
	return x.exactRat
}

// scoreRange scores, for query qid, the keys of positions lo … hi not
// scored for it yet, and returns the number of items there.
func (a *analysis[T]) scoreRange(h *head[T], qid, lo, hi int) (int, string) {
	sc := &h.scores
	if sc.qid != qid || sc.gen == nil {
		if sc.gen == nil {
			sc.init(len(h.keys.pairs), a.backend)
		}
		sc.qid = qid
		sc.stamp++
		sc.slow = 0
		sc.prefix, sc.topTo = 0, 0
	}
	x := h.index(a.backend)
	sc.inPlace = sc.machine && x.keyIsSlot && h.fromFirst
	missing, keysM := h.unscored(x, lo, hi)
	count := x.itemOff[hi] - x.itemOff[lo-1]
	if why := a.charge(count); why != "" {
		return 0, why
	}
	if len(missing) == 0 {
		return count, ""
	}
	if why := a.charge(2 * len(missing) * len(h.keys.pairs[missing[0]].ref)); why != "" {
		return 0, why
	}
	if why := a.modelScores(h, qid, missing, keysM); why != "" {
		return 0, why
	}
	if why := a.exactScores(h, qid, missing); why != "" {
		return 0, why
	}
	// The NaNs (machineValues counted the scores of other types that do
	// not convert); in place, fastKept looks for them in a pass it makes
	// anyway.
	if !sc.inPlace {
		mf, nan := sc.checkedFloats, 0
		for _, kid := range missing {
			nan += int(bit(mf[kid] != mf[kid]))
		}
		sc.slow += nan
	}
	return count, ""
}

// unscored lists the keys of positions lo … hi not yet scored for the
// query, with the model's keys, to be scored together.
func (h *head[T]) unscored(x *itemIndex, lo, hi int) (missing []int, keysM [][]T) {
	sc := &h.scores
	if h.fromFirst {
		// Every range starts at position 1 (visible): the keys scored
		// for the query are those that first occur before some
		// position, the first sc.prefix of x.firstKids.
		upto := sort.SearchInts(x.firstSlot, x.slotOff[hi])
		if upto > sc.prefix {
			missing, keysM = x.firstKids[sc.prefix:upto], h.firstKeys[sc.prefix:upto]
			sc.prefix = upto
		}
		return missing, keysM
	}
	missing, keysM = sc.missing[:0], sc.keys[:0]
	for _, sl := range x.slots[x.slotOff[lo-1]:x.slotOff[hi]] {
		if sc.gen[sl.kid] != sc.stamp {
			sc.gen[sl.kid] = sc.stamp
			missing = append(missing, int(sl.kid))
			keysM = append(keysM, h.keys.pairs[sl.kid].checked)
		}
	}
	sc.missing, sc.keys = missing, keysM
	return missing, keysM
}

// modelScores computes the model's scores of the keys missing (keysM)
// for query qid: into m itself where the keys missing are 0, 1, 2, … in
// a row (firstKids when the slots' keys are), else into mbuf and then m;
// numbers that are pointers, into each key's own, which no one reads
// once the query it was scored for is done.
func (a *analysis[T]) modelScores(h *head[T], qid int, missing []int, keysM [][]T) string {
	sc := &h.scores
	var dst []T
	switch {
	case sc.inPlace:
		dst = sc.checked[missing[0] : missing[0]+len(missing)]
	case sc.machine:
		dst = sc.mbuf
	default:
		dst = sc.mbuf[:0]
		for _, kid := range missing {
			dst = append(dst, sc.checked[kid])
		}
		sc.mbuf = dst
	}
	sm, err := a.checked.Steps().KeyScoresInto(h.layer, h.num, h.queries.pairs[qid].checked, keysM, dst)
	if err != nil {
		return fmt.Sprintf("layer %d head %d's score in the model: %v", h.layer+1, h.num+1, err)
	}
	if !sc.inPlace {
		sc.mbuf = sm
		sc.slow += machineValues(sc.checked, sc.checkedFloats, sm, missing)
	} else if _, ok := any(sm).([]float32); ok {
		sc.slow += machineValues(sc.checked, sc.checkedFloats, sm, missing)
	}
	return ""
}

// exactScores computes the exact scores of the keys missing for query
// qid, and where they are scored in place, the largest so far.
func (a *analysis[T]) exactScores(h *head[T], qid int, missing []int) string {
	sc := &h.scores
	from, upto := missing[0], missing[0]+len(missing)
	q, okq := h.queryFloats(qid)
	kf := h.keyFloats()
	if qmax := maxInteger(q); okq && !a.input.general && qmax >= 0 && kf.allInt >= 0 && float64(len(q))*qmax*kf.allInt < 1<<52 {
		// Integers whose products and partial sums stay below 2⁵³ in
		// magnitude (the bound is rounded up by less than that margin):
		// every step is exact, as dotExactly would find, and sums the
		// same way.
		if sc.inPlace {
			sc.rowTop(from, upto, integerRow(sc.floats, kf, q, from, upto))
		} else {
			integerScores(sc.floats, kf, q, missing)
		}
		return ""
	}
	for _, kid := range missing {
		if why := a.exactScore(h, qid, kid, q, okq); why != "" {
			return why
		}
		if sc.ratGen[kid] == sc.stamp {
			sc.slow++
		}
	}
	if sc.inPlace {
		top := sc.floats[from]
		for _, f := range sc.floats[from:upto] {
			if f > top {
				top = f
			}
		}
		sc.rowTop(from, upto, top)
	}
	return ""
}

// rowTop records top, the largest exact score of keys from … upto − 1
// (scored in place), in sc.top, the largest of keys 0 … upto − 1.
func (sc *keyScores[T]) rowTop(from, upto int, top float64) {
	if from > 0 && sc.top > top {
		top = sc.top
	}
	sc.top, sc.topTo = top, upto
}

// machineValues sets m[kid] to the model's score sm[x] of each key
// missing[x], and mf[kid] to it as a float64 (machineValue), and counts
// the keys whose score does not convert (a NaN float64 is counted by the
// caller).
func machineValues[T any](m []T, mf []float64, sm []T, missing []int) int {
	slow := 0
	switch s := any(sm).(type) {
	case []float64:
		m := any(m).([]float64)
		for x, kid := range missing {
			m[kid] = s[x] // mf is m
		}
	case []float32:
		m := any(m).([]float32)
		for x, kid := range missing {
			m[kid], mf[kid] = s[x], float64(s[x]) // a NaN stays one
		}
	default:
		for x, kid := range missing {
			m[kid] = sm[x]
			var ok bool
			if mf[kid], ok = machineValue(sm[x]); !ok {
				slow++
			}
		}
	}
	return slow
}

// scoredItems lists the items of positions lo … hi with their scores for
// the query scoreRange scored them for, in storage the next call reuses.
func (a *analysis[T]) scoredItems(h *head[T], lo, hi int) []scored[T] {
	sc := &h.scores
	out := sc.buf[:0]
	for p := lo; p <= hi; p++ {
		for _, it := range h.items[p-1] {
			sx := scored[T]{item: it, float: sc.floats[it.kid], exact: true, checked: sc.checked[it.kid]}
			if !sc.exact(it.kid) {
				sx.exact, sx.exactRat = false, sc.rats[it.kid]
			}
			out = append(out, sx)
		}
	}
	sc.buf = out
	return out
}

// machineValue is x as a float64, when it converts exactly and is a
// number (not NaN): then comparing two such values as float64s is
// comparing them as the backend does (numeric.Backend.Cmp).
func machineValue[T any](x T) (float64, bool) {
	switch v := any(x).(type) {
	case float64:
		return v, v == v
	case float32:
		return float64(v), v == v
	case *big.Float:
		f, acc := v.Float64()
		return f, acc == big.Exact
	case *big.Rat:
		return v.Float64()
	}
	return 0, false
}
