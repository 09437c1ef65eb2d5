package recheck

import (
	"math/big"
	"math/bits"
	"slices"

	"github.com/transformer-cookbook/verify/numeric"
)

// order holds one query's scores of a head's keys, by key id, as the
// comparisons read them: the exact scores as int64s (e: the scores
// themselves where they are integers, else their ranks among the query's
// keys) and the model's as float64s (mf: the scores of a machine float,
// float64 or float32, whose order as float64s is Backend.Cmp's; else
// their ranks by Backend.Cmp). Equal ranks are equal scores, and ranks
// keep the order, so every comparison is one of numbers. It is not
// generic, so that its comparisons inline into the loops over every key.
type order struct {
	e  []int64
	mf []float64
}

// exact orders keys x and y by exact score.
func (o *order) exact(x, y int) int { return cmpInt(o.e[x], o.e[y]) }

// model orders keys x and y by the model's score.
func (o *order) model(x, y int) int { return cmpFloat(o.mf[x], o.mf[y]) }

func cmpInt(a, b int64) int {
	if a < b {
		return -1
	}
	if a > b {
		return 1
	}
	return 0
}

func cmpFloat(a, b float64) int {
	if a < b {
		return -1
	}
	if a > b {
		return 1
	}
	return 0
}

// rank sets rank[kid] to the dense rank of each key of kids under cmp
// (0 for the smallest; equal keys, equal ranks).
func rank[R int64 | float64](kids []int, cmp func(x, y int) int, out []R) {
	sorted := append([]int(nil), kids...)
	slices.SortFunc(sorted, cmp)
	var r R
	for x, kid := range sorted {
		if x > 0 && cmp(sorted[x-1], kid) != 0 {
			r++
		}
		out[kid] = r
	}
}

// scores is a head's scoring of one query's keys: the order, and what
// the outputs need besides.
type scores[T any] struct {
	order
	// ints says e holds the exact scores (else er does, and e their
	// ranks); machine that mf holds the model's (else mu does).
	ints, machine bool
	er            []*big.Rat
	ck            *checker[T]
	l, hd         int
	keys          *table[T]
	dot           bool // the exact score is q·k
	// mu[kid] is the model's score, for the keys that are not machine
	// floats; a machine float's is muBuf[cur[kid]] (keysAt).
	mu    []T
	at    []int32
	cur   []int32
	muBuf []T
	gen   int
	stamp []int
	kids  []int
	keysM [][]T
	// keyInts holds the reference's keys as int64s, d to a key, and
	// keyBits the largest bit length of their entries, from ints64 (the
	// session's, where there is one).
	keyInts []int64
	keyBits int
	ints64  *keyInts[T]
	// firstKids lists the keys in the order of their first occurrences,
	// with the model's vectors (firstKeys); firstUpto[p] is how many of
	// them occur in positions 1 … p.
	firstKids []int
	firstKeys [][]T
	firstUpto []int
	firstAt   []int32
}

func (sc *scores[T]) init(ck *checker[T], l, hd int, keys *table[T]) {
	nk := len(keys.vecs)
	*sc = scores[T]{ck: ck, l: l, hd: hd, keys: keys, dot: ck.r.Steps().ScoreIsDot(l, hd),
		mu: make([]T, nk), at: make([]int32, nk), stamp: make([]int, nk)}
	sc.e, sc.er, sc.mf = make([]int64, nk), make([]*big.Rat, nk), make([]float64, nk)
	switch any(sc.mu).(type) {
	case []float64, []float32:
		sc.machine = true
	}
}

// muOf is the model's score of key kid.
func (sc *scores[T]) muOf(kid int) T {
	if sc.machine {
		return sc.muBuf[sc.cur[kid]]
	}
	return sc.mu[kid]
}

// rat is key x's exact score as a rational.
func (sc *scores[T]) rat(x int) *big.Rat {
	if sc.ints {
		return new(big.Rat).SetInt64(sc.e[x])
	}
	return sc.er[x]
}

// score scores, for query q, every distinct key of positions lo … hi in
// both models, each once; a NaN score is refused.
func (sc *scores[T]) score(h *headCheck[T], q State[T], lo, hi int, where func() string) error {
	ck := sc.ck
	kids, keysM, at := sc.keysAt(h.slots, lo, hi)
	sc.cur = at
	mu, err := ck.m.Steps().KeyScoresInto(sc.l, sc.hd, q.Model, keysM, sc.muBuf)
	if err != nil {
		return refuse("%s: the model's scores: %v", where(), err)
	}
	sc.muBuf = mu
	// mu is read only until the next query's scores are written into it.
	switch m := any(mu).(type) {
	case []float64:
		for x, kid := range kids {
			if m[x] != m[x] {
				return refuse("%s: the model's score of a key is NaN", where())
			}
			sc.mf[kid] = m[x]
		}
	case []float32:
		for x, kid := range kids {
			if m[x] != m[x] {
				return refuse("%s: the model's score of a key is NaN", where())
			}
			sc.mf[kid] = float64(m[x])
		}
	default:
		for x, kid := range kids {
			if ck.b.Cmp(mu[x], mu[x]) != numeric.Equal {
				return refuse("%s: the model's score of a key is NaN", where())
			}
			sc.mu[kid] = mu[x]
		}
		rank(kids, func(x, y int) int { return int(ck.b.Cmp(sc.mu[x], sc.mu[y])) }, sc.mf)
	}
	qi, intOK := sc.queryInts(q)
	sc.ints = intOK
	switch {
	case intOK:
		d := len(qi)
		for _, kid := range kids {
			sc.e[kid] = dotInts(qi, sc.keyInts[kid*d:kid*d+d])
		}
	case sc.dot:
		for _, kid := range kids {
			sc.er[kid] = dotRats(q.Ref, sc.keys.vecs[kid].Ref)
		}
	default:
		for _, kid := range kids {
			s, err := ck.r.Steps().HeadScore(sc.l, sc.hd, q.Ref, sc.keys.vecs[kid].Ref)
			if err != nil {
				return refuse("%s: the reference's score: %v", where(), err)
			}
			sc.er[kid] = s
		}
	}
	if !intOK {
		rank(kids, func(x, y int) int { return sc.er[x].Cmp(sc.er[y]) }, sc.e)
	}
	ck.work += int64(2 * len(kids) * len(q.Ref))
	return nil
}

// keysOf lists the distinct keys of positions lo … hi (ids, and the
// model's vectors). For a range from position 1 they are the first ones
// in the order of the keys' first occurrences, listed once per head.
func (sc *scores[T]) keysOf(slots [][]slot, lo, hi int) ([]int, [][]T) {
	kids, keysM, _ := sc.keysAt(slots, lo, hi)
	return kids, keysM
}

// keysAt is keysOf with, by key id, each key's index among them.
func (sc *scores[T]) keysAt(slots [][]slot, lo, hi int) ([]int, [][]T, []int32) {
	if lo == 1 {
		if sc.firstKids == nil {
			seen := make([]bool, len(sc.keys.vecs))
			sc.firstUpto = make([]int, len(slots)+1)
			sc.firstAt = make([]int32, len(sc.keys.vecs))
			for p, ss := range slots {
				for _, s := range ss {
					if !seen[s.kid] {
						seen[s.kid] = true
						sc.firstAt[s.kid] = int32(len(sc.firstKids))
						sc.firstKids = append(sc.firstKids, s.kid)
						sc.firstKeys = append(sc.firstKeys, sc.keys.vecs[s.kid].Model)
					}
				}
				sc.firstUpto[p+1] = len(sc.firstKids)
			}
		}
		return sc.firstKids[:sc.firstUpto[hi]], sc.firstKeys[:sc.firstUpto[hi]], sc.firstAt
	}
	sc.gen++
	kids, keysM := sc.kids[:0], sc.keysM[:0]
	for p := lo; p <= hi; p++ {
		for _, s := range slots[p-1] {
			if sc.stamp[s.kid] != sc.gen {
				sc.stamp[s.kid] = sc.gen
				sc.at[s.kid] = int32(len(kids))
				kids = append(kids, s.kid)
				keysM = append(keysM, sc.keys.vecs[s.kid].Model)
			}
		}
	}
	sc.kids, sc.keysM = kids, keysM
	return kids, keysM, sc.at
}

// queryInts is q's reference vector as int64s, when it and the keys are
// integers small enough that every product and partial sum of q·k stays
// below 2⁶² in magnitude: |q·k| ≤ d·2^(bits of q)·2^(bits of k).
func (sc *scores[T]) queryInts(q State[T]) ([]int64, bool) {
	if sc.ints64 == nil {
		sc.ints64 = &keyInts[T]{queries: map[**big.Rat][]int64{}}
	}
	ki := sc.ints64
	if !sc.dot || len(q.Ref) == 0 || !ki.extend(sc.keys, len(q.Ref)) {
		return nil, false
	}
	sc.keyInts, sc.keyBits = ki.flat, ki.bits
	if v, ok := ki.queries[&q.Ref[0]]; ok && (v == nil || len(v) == len(q.Ref)) {
		return v, v != nil
	}
	v, width, ok := integers(q.Ref)
	if !ok || width+ki.bits+bits.Len(uint(len(q.Ref))) > 62 {
		v = nil
	}
	ki.queries[&q.Ref[0]] = v
	return v, v != nil
}

// keyInts holds a head's keys as int64s, d to a key, for the keys of its
// table converted so far (a session keeps it from one length to the
// next, its table only growing); failed says one is not a vector of d
// integers of at most 62 bits, and bits is the largest bit length of
// their entries. queries holds the queries' int64s by the memory of their
// first entry (vectors are never written: the same memory holds the same
// values; nil where they are not small enough integers). A key added
// later with more bits changes the bound: the queries are converted
// again.
type keyInts[T any] struct {
	flat    []int64
	bits    int
	done    int
	failed  bool
	queries map[**big.Rat][]int64
}

// extend converts the keys of t not converted yet, and reports whether
// all of them are integers.
func (ki *keyInts[T]) extend(t *table[T], d int) bool {
	if ki.failed {
		return false
	}
	for ; ki.done < len(t.vecs); ki.done++ {
		k := t.vecs[ki.done].Ref
		v, width, ok := integers(k)
		if !ok || len(k) != d {
			ki.failed = true
			return false
		}
		ki.flat = append(ki.flat, v...)
		if width > ki.bits {
			ki.bits = width
			clear(ki.queries) // their bound was for fewer bits
		}
	}
	return true
}

// integers is xs as int64s, with the largest bit length of their
// magnitudes, when every one is an integer of at most 62 bits.
func integers(xs []*big.Rat) ([]int64, int, bool) {
	out := make([]int64, len(xs))
	width := 0
	for c, x := range xs {
		if !x.IsInt() || x.Num().BitLen() > 62 {
			return nil, 0, false
		}
		out[c] = x.Num().Int64()
		width = max(width, x.Num().BitLen())
	}
	return out, width, true
}

func dotInts(x, y []int64) int64 {
	var s int64
	for c := range x {
		s += x[c] * y[c]
	}
	return s
}

// dotRats is x·y in rationals.
func dotRats(x, y []*big.Rat) *big.Rat {
	s, t := new(big.Rat), new(big.Rat)
	for c := range x {
		s.Add(s, t.Mul(x[c], y[c]))
	}
	return s
}
