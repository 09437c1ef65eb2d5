package certify

import (
	"fmt"
	"math"
	"math/big"
	"sort"

	"github.com/transformer-cookbook/verify/numeric"
)

// keyScores holds the scores of the keys for one query (qid): the
// model's (m), and the exact one as f, its float64 rounding, which is the
// exact score itself unless ratGen[kid] == stamp, when the rational
// r[kid] is. gen[kid] == stamp marks the keys computed for this query.
type keyScores[T any] struct {
	// buf, missing and keys are the storage of scoreRange and
	// scoredItems, reused from one query to the next.
	buf     []scored[T]
	missing []int
	keys    [][]T
	qid     int
	stamp   int
	gen     []int
	m       []T
	f       []float64
	r       []*big.Rat
	ratGen  []int
	// mf is the model's score as a float64 where it converts exactly
	// and is not NaN (m itself when T is float64); slow counts the keys
	// scored for this query whose exact score is not f or whose model
	// score is not mf (fastOutputs then leaves the query to the general
	// code).
	mf   []float64
	slow int
	// prefix is the number of keys of itemIndex.firstKids scored for
	// this query (head.fromFirst). inPlace says those are 0 … prefix − 1,
	// scored in place (scoreRange): then top is the largest of f[:topTo],
	// and the NaNs of mf are not counted in slow.
	prefix  int
	inPlace bool
	top     float64
	topTo   int
	// machine: T is a machine float (a value: m's storage is handed to
	// the model to score into); mbuf holds the model's scores of the
	// last keys scored when they are not scored in place (for numbers
	// that are pointers, m's).
	machine bool
	mbuf    []T
}

// init sizes the storage for nk keys: for a backend b whose values are
// pointers, m holds a number of b's for each key, which the model scores
// into (model.Instance.KeyScoresInto), each query over the last's.
func (sc *keyScores[T]) init(nk int, b numeric.Backend[T]) {
	sc.gen, sc.m, sc.f = make([]int, nk), make([]T, nk), make([]float64, nk)
	sc.r, sc.ratGen = make([]*big.Rat, nk), make([]int, nk)
	switch m := any(sc.m).(type) {
	case []float64:
		sc.mf, sc.machine = m, true
	case []float32:
		sc.mf, sc.machine = make([]float64, nk), true
	default:
		sc.mf = make([]float64, nk)
		for k := range sc.m {
			sc.m[k] = b.New()
		}
	}
}

// exact reports whether f[kid] is key kid's exact score.
func (sc *keyScores[T]) exact(kid int) bool { return sc.ratGen[kid] != sc.stamp }

// scored is an item with its scores for one query.
type scored[T any] struct {
	item
	f     float64
	exact bool     // f is the exact score
	sr    *big.Rat // the exact score, when computed
	sm    T
}

// cmpExact orders two items by their exact scores: by f where they
// differ (a correctly rounded conversion keeps the order: f(x) < f(y)
// implies x < y), else exactly.
// Items of one query only are compared.
func cmpExact[T any](x, y *scored[T]) int {
	switch {
	case x.f < y.f:
		return -1
	case x.f > y.f:
		return 1
	case x.exact && y.exact, x.kid == y.kid:
		return 0 // one key has one score
	}
	return x.rat().Cmp(y.rat())
}

// rat is the exact score as a rational.
func (x *scored[T]) rat() *big.Rat {
	if x.sr == nil {
		x.sr = new(big.Rat).SetFloat64(x.f)
	}
	return x.sr
}

// scoreRange scores, for query qid, the keys of positions lo … hi not
// scored for it yet, and returns the number of items there.
func (a *analysis[T]) scoreRange(h *head[T], qid, lo, hi int) (int, string) {
	sc := &h.scores
	if sc.qid != qid || sc.gen == nil {
		if sc.gen == nil {
			sc.init(len(h.keys.r), a.b)
		}
		sc.qid = qid
		sc.stamp++
		sc.slow = 0
		sc.prefix, sc.topTo = 0, 0
	}
	x := h.index(a.b)
	sc.inPlace = sc.machine && x.keyIsSlot && h.fromFirst
	// The keys not yet scored for this query, scored together.
	var missing []int
	var keysM [][]T
	if h.fromFirst {
		// Every range starts at position 1 (visible): the keys scored
		// for the query are those that first occur before some
		// position, the first sc.prefix of x.firstKids.
		upto := sort.SearchInts(x.firstSlot, x.slotOff[hi])
		if upto > sc.prefix {
			missing, keysM = x.firstKids[sc.prefix:upto], h.firstKeys[sc.prefix:upto]
			sc.prefix = upto
		}
	} else {
		missing, keysM = sc.missing[:0], sc.keys[:0]
		for _, sl := range x.slots[x.slotOff[lo-1]:x.slotOff[hi]] {
			if sc.gen[sl.kid] != sc.stamp {
				sc.gen[sl.kid] = sc.stamp
				missing = append(missing, int(sl.kid))
				keysM = append(keysM, h.keys.m[sl.kid])
			}
		}
		sc.missing, sc.keys = missing, keysM
	}
	count := x.itemOff[hi] - x.itemOff[lo-1]
	if why := a.charge(count); why != "" {
		return 0, why
	}
	if len(missing) == 0 {
		return count, ""
	}
	if why := a.charge(2 * len(missing) * len(h.keys.r[missing[0]])); why != "" {
		return 0, why
	}
	// The model's scores, into m itself where the keys missing are
	// 0, 1, 2, … in a row (firstKids when the slots' keys are), else
	// into mbuf and then m; numbers that are pointers, into each key's
	// own, which no one reads once the query it was scored for is done.
	inPlace := sc.inPlace
	var dst []T
	switch {
	case inPlace:
		dst = sc.m[missing[0] : missing[0]+len(missing)]
	case sc.machine:
		dst = sc.mbuf
	default:
		dst = sc.mbuf[:0]
		for _, kid := range missing {
			dst = append(dst, sc.m[kid])
		}
		sc.mbuf = dst
	}
	sm, err := a.m.KeyScoresInto(h.l, h.hd, h.queries.m[qid], keysM, dst)
	if err != nil {
		return 0, fmt.Sprintf("layer %d head %d's score in the model: %v", h.l+1, h.hd+1, err)
	}
	if !inPlace {
		sc.mbuf = sm
		sc.slow += machineValues(sc.m, sc.mf, sm, missing)
	} else if _, ok := any(sm).([]float32); ok {
		sc.slow += machineValues(sc.m, sc.mf, sm, missing)
	}
	// The exact scores.
	q, okq := h.queryFloats(qid)
	kf := h.keyFloats()
	if qmax := maxInteger(q); okq && !a.in.general && qmax >= 0 && kf.allInt >= 0 && float64(len(q))*qmax*kf.allInt < 1<<52 {
		// Integers whose products and partial sums stay below 2⁵³ in
		// magnitude (the bound is rounded up by less than that margin):
		// every step is exact, as dotExactly would find, and sums the
		// same way.
		if inPlace {
			top := integerRow(sc.f, kf, q, missing[0], missing[0]+len(missing))
			sc.rowTop(missing[0], missing[0]+len(missing), top)
		} else {
			integerScores(sc.f, kf, q, missing)
		}
	} else {
		for _, kid := range missing {
			if why := a.exactScore(h, qid, kid, q, okq); why != "" {
				return 0, why
			}
			if sc.ratGen[kid] == sc.stamp {
				sc.slow++
			}
		}
		if inPlace {
			from, upto := missing[0], missing[0]+len(missing)
			top := sc.f[from]
			for _, f := range sc.f[from:upto] {
				if f > top {
					top = f
				}
			}
			sc.rowTop(from, upto, top)
		}
	}
	// The NaNs (machineValues counted the scores of other types that do
	// not convert); in place, fastOutputs looks for them in a pass it
	// makes anyway.
	if !inPlace {
		mf, nan := sc.mf, 0
		for _, kid := range missing {
			nan += int(bit(mf[kid] != mf[kid]))
		}
		sc.slow += nan
	}
	return count, ""
}

// rowTop records top, the largest exact score of keys from … upto − 1
// (scored in place), in sc.top, the largest of keys 0 … upto − 1.
func (sc *keyScores[T]) rowTop(from, upto int, top float64) {
	if from > 0 && sc.top > top {
		top = sc.top
	}
	sc.top, sc.topTo = top, upto
}

// integerRow is integerScores for the keys from … to − 1 (to > from),
// and returns the largest of their scores.
func integerRow(f []float64, kf *keyFloats, q []float64, from, to int) float64 {
	d := len(q)
	data := kf.data[from*d : to*d]
	f = f[from:to]
	top := math.Inf(-1)
	if d == 2 {
		q0, q1 := q[0], q[1]
		for x := range f {
			k := data[2*x : 2*x+2 : 2*x+2]
			var s float64
			s = s + float64(q0*k[0])
			s = s + float64(q1*k[1])
			f[x] = s
			if s > top {
				top = s
			}
		}
		return top
	}
	for x := range f {
		k := data[d*x : d*x+d : d*x+d]
		var s float64
		for c, y := range q {
			s = s + float64(y*k[c])
		}
		f[x] = s
		if s > top {
			top = s
		}
	}
	return top
}

// integerScores sets f[kid] to q · key kid for each key of missing,
// summed left to right from 0 as dotExactly sums.
func integerScores(f []float64, kf *keyFloats, q []float64, missing []int) {
	data := kf.data
	if len(q) == 2 {
		q0, q1 := q[0], q[1]
		for _, kid := range missing {
			k := data[2*kid : 2*kid+2 : 2*kid+2]
			var s float64
			s = s + float64(q0*k[0])
			f[kid] = s + float64(q1*k[1])
		}
		return
	}
	d := len(q)
	for _, kid := range missing {
		k := data[d*kid : d*kid+d : d*kid+d]
		var s float64
		for c, x := range q {
			s = s + float64(x*k[c])
		}
		f[kid] = s
	}
}

// keyFloats holds a head's keys in float64, packed d to a row, where
// they convert exactly; allInt is the largest magnitude of their entries
// when they all do and are all integers (−1: not).
type keyFloats struct {
	d      int
	data   []float64
	allInt float64
}

// keyFloats converts the head's keys once (they are all known once the
// first pass is done).
func (h *head[T]) keyFloats() *keyFloats {
	if h.kf != nil {
		return h.kf
	}
	nk := len(h.keys.r)
	kf := &keyFloats{}
	if nk > 0 {
		kf.d = len(h.keys.r[0])
	}
	kf.data = make([]float64, nk*kf.d)
	for kid := range nk {
		f, ok := h.keys.floats(kid)
		m := -1.0
		if ok && len(f) == kf.d {
			copy(kf.data[kid*kf.d:(kid+1)*kf.d], f)
			m = maxInteger(f)
		}
		if m < 0 || kf.allInt < 0 {
			kf.allInt = -1
		} else {
			kf.allInt = max(kf.allInt, m)
		}
	}
	h.kf = kf
	return kf
}

// maxInteger is the largest magnitude of xs when every one is an
// integer below 2⁵³ in magnitude, else −1.
func maxInteger(xs []float64) float64 {
	m := 0.0
	for _, x := range xs {
		a := math.Abs(x)
		if !(a < 1<<53) || a != math.Trunc(a) {
			return -1
		}
		m = max(m, a)
	}
	return m
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
			sx := scored[T]{item: it, f: sc.f[it.kid], exact: true, sm: sc.m[it.kid]}
			if !sc.exact(it.kid) {
				sx.exact, sx.sr = false, sc.r[it.kid]
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

// exactScore sets the exact score of key kid for query qid: in float64
// where that computes it without rounding (the products and sums of small
// integers and dyadic fractions, checked term by term), else as a
// rational by the reference's own code. q is the query in float64, and
// okq says the score is q·k and q converts exactly (head.queryFloats).
func (a *analysis[T]) exactScore(h *head[T], qid, kid int, q []float64, okq bool) string {
	sc := &h.scores
	if okq {
		k, okk := h.keys.floats(kid)
		if okk {
			if f, ok := dotExactly(q, k); ok {
				sc.f[kid] = f
				return ""
			}
		}
	}
	sr, err := a.r.HeadScore(h.l, h.hd, h.queries.r[qid], h.keys.r[kid])
	if err != nil {
		return fmt.Sprintf("layer %d head %d's score in the reference: %v", h.l+1, h.hd+1, err)
	}
	f, _ := sr.Float64()
	sc.f[kid], sc.r[kid], sc.ratGen[kid] = f, sr, sc.stamp
	return ""
}

// dotExactly is x·y summed left to right, and whether every product and
// partial sum is exact in float64 (its rounding error, computed exactly
// by a fused multiply-add and by Knuth's two-sum, is zero), in which
// case the result is the exact dot product.
func dotExactly(x, y []float64) (float64, bool) {
	var s float64
	for k := range x {
		p := x[k] * y[k]
		if math.IsInf(p, 0) || math.FMA(x[k], y[k], -p) != 0 {
			return 0, false
		}
		// Near the subnormals a product's rounding error can itself be
		// too small for the FMA to show: such products are not trusted.
		if p == 0 && x[k] != 0 && y[k] != 0 || p != 0 && math.Abs(p) < 0x1p-969 {
			return 0, false
		}
		t := s + p
		if math.IsInf(t, 0) {
			return 0, false
		}
		z := t - s
		if (s-(t-z))+(p-z) != 0 {
			return 0, false
		}
		s = t
	}
	return s, true
}
