package certify

import (
	"fmt"
	"math"
)

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
	nk := len(h.keys.pairs)
	kf := &keyFloats{}
	if nk > 0 {
		kf.d = len(h.keys.pairs[0].ref)
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
				sc.floats[kid] = f
				return ""
			}
		}
	}
	sr, err := a.ref.Steps().HeadScore(h.layer, h.num, h.queries.pairs[qid].ref, h.keys.pairs[kid].ref)
	if err != nil {
		return fmt.Sprintf("layer %d head %d's score in the reference: %v", h.layer+1, h.num+1, err)
	}
	f, _ := sr.Float64()
	sc.floats[kid], sc.rats[kid], sc.ratGen[kid] = f, sr, sc.stamp
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
