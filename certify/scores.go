package certify

import (
	"fmt"
	"math"
	"math/big"
)

// keyScores holds the scores of the keys for one query (qid): the
// model's (m), and the exact one as f, its float64 rounding, which is the
// exact score itself where exact is set and is otherwise backed by the
// rational r. gen[kid] == stamp marks the keys computed for this query.
type keyScores[T any] struct {
	// buf, missing and keys are inRange's storage, reused from one query
	// to the next.
	buf     []scored[T]
	missing []int
	keys    [][]T
	qid     int
	stamp   int
	gen     []int
	m       []T
	f       []float64
	exact   []bool
	r       []*big.Rat
}

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

// inRange lists the items of positions lo … hi with their scores for
// query qid, in storage the next call reuses.
func (a *analysis[T]) inRange(h *head[T], qid, lo, hi int) ([]scored[T], string) {
	sc := &h.scores
	if sc.qid != qid || sc.gen == nil {
		nk := len(h.keys.r)
		if sc.gen == nil {
			sc.gen, sc.m, sc.f = make([]int, nk), make([]T, nk), make([]float64, nk)
			sc.exact, sc.r = make([]bool, nk), make([]*big.Rat, nk)
		}
		sc.qid = qid
		sc.stamp++
	}
	// The keys not yet scored for this query, scored together.
	missing, keysM := sc.missing[:0], sc.keys[:0]
	count := 0
	for p := lo; p <= hi; p++ {
		count += len(h.items[p-1])
		for _, it := range h.items[p-1] {
			if sc.gen[it.kid] != sc.stamp {
				sc.gen[it.kid] = sc.stamp
				missing = append(missing, it.kid)
				keysM = append(keysM, h.keys.m[it.kid])
			}
		}
	}
	sc.missing, sc.keys = missing, keysM
	if why := a.charge(count); why != "" {
		return nil, why
	}
	if len(missing) > 0 {
		if why := a.charge(2 * len(missing) * len(h.keys.r[missing[0]])); why != "" {
			return nil, why
		}
		sm, err := a.m.KeyScores(h.l, h.hd, h.queries.m[qid], keysM)
		if err != nil {
			return nil, fmt.Sprintf("layer %d head %d's score in the model: %v", h.l+1, h.hd+1, err)
		}
		for x, kid := range missing {
			sc.m[kid] = sm[x]
			if why := a.exactScore(h, qid, kid); why != "" {
				return nil, why
			}
		}
	}
	out := sc.buf[:0]
	for p := lo; p <= hi; p++ {
		for _, it := range h.items[p-1] {
			out = append(out, scored[T]{item: it, f: sc.f[it.kid], exact: sc.exact[it.kid], sr: sc.r[it.kid], sm: sc.m[it.kid]})
		}
	}
	sc.buf = out
	return out, ""
}

// exactScore sets the exact score of key kid for query qid: in float64
// where that computes it without rounding (the products and sums of small
// integers and dyadic fractions, checked term by term), else as a
// rational by the reference's own code.
func (a *analysis[T]) exactScore(h *head[T], qid, kid int) string {
	sc := &h.scores
	if a.r.ScoreIsDot(h.l, h.hd) {
		q, okq := h.queries.floats(qid)
		k, okk := h.keys.floats(kid)
		if okq && okk {
			if f, ok := dotExactly(q, k); ok {
				sc.f[kid], sc.exact[kid], sc.r[kid] = f, true, nil
				return ""
			}
		}
	}
	sr, err := a.r.HeadScore(h.l, h.hd, h.queries.r[qid], h.keys.r[kid])
	if err != nil {
		return fmt.Sprintf("layer %d head %d's score in the reference: %v", h.l+1, h.hd+1, err)
	}
	f, _ := sr.Float64()
	sc.f[kid], sc.exact[kid], sc.r[kid] = f, false, sr
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
