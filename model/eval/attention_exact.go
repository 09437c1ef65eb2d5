package eval

import (
	"fmt"
	"math"
	"math/big"
	"math/bits"

	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/numeric"
)

// In exact arithmetic a hard weighting needs the scores only to find the
// maxima: the output is the value of the maximal position, or the mean
// of the tied maxima's values. Order and ties are unchanged when every
// score of a query is multiplied by one positive number, so the scores
// can be compared as integers: with the keys of a head written over one
// common denominator L (k_j = K_j/L) and the query over its own (q =
// Q/M), q·k_j = (Q·K_j)/(M·L), and the positive factor 1/(M·L), like √d_key
// and τ, changes no comparison. Q·K_j is a sum of products of machine
// words; when the largest possible |Q·K_j| fits in a word, a score costs
// its multiply-adds and nothing else, with no big.Rat per score; when it
// may not, each product and sum is checked (math/bits), and a query whose
// score leaves the words is computed by the generic path. A head whose
// keys are not words over a common word denominator goes to the generic
// path whole. The outputs are the same rationals: the same positions are
// selected, and their values summed and divided as hardExact does.

// wordVectors are vectors of one width with integer entries stored end to
// end, and the largest |entry|; vectors of width 2, the lookup's keys,
// also as pairs, which the scores of width 2 sweep fastest (0.6 ns per
// term against 0.75 on the flat slice and 0.9 with the scores stored
// first and their maximum found in a second loop, at every n from 1,024
// to 8,192).
type wordVectors struct {
	data  []int64
	pairs [][2]int64
	width int
	max   uint64
}

// packWords writes keys (each of the same width) over one common
// denominator, or reports false when they are not all words over a word
// denominator.
func packWords(keys [][]*big.Rat) (wordVectors, bool) {
	width := len(keys[0])
	w := wordVectors{data: make([]int64, len(keys)*width), width: width}
	all := make([]*big.Rat, 0, len(keys)*width)
	for _, k := range keys {
		all = append(all, k...)
	}
	max, ok := numeric.ExactWords(w.data, all)
	if !ok {
		return w, false
	}
	w.max = max
	if width == 2 {
		w.pairs = make([][2]int64, len(keys))
		for j := range w.pairs {
			w.pairs[j] = [2]int64{w.data[2*j], w.data[2*j+1]}
		}
	}
	return w, true
}

// attendWords is attend for one head under a hard weighting in exact
// arithmetic, with the scores in machine words (see above); it reports
// handled = false, having done nothing, when the head's keys are not
// words, and leaves the head to the generic path. out accumulates the
// heads, as in attend.
func (inst *Instance[T]) attendWords(a *attnParams[T], hp *headParams[T], x, keys, vals [][]T, out [][]T, where string, head int) (handled bool, err error) {
	kr := any(keys).([][]*big.Rat)
	if len(kr) == 0 || len(kr[0]) == 0 {
		return false, nil
	}
	ks, ok := packWords(kr)
	if !ok {
		return false, nil
	}
	b := inst.B
	n := len(x)
	q := make([]int64, ks.width)
	var sc *attnScratch[T] // for a query whose scores leave the words
	for i := range x {
		qv := inst.matVec(hp.q, x[i], nil)
		o, ok := inst.hardWords(a.spec, any(qv).([]*big.Rat), q, ks, vals, i)
		if !ok {
			if sc == nil {
				sc = &attnScratch[T]{js: make([]int, 0, n), scores: zeros(b, n), t: b.New(), finite: make([]bool, n)}
				for j := range sc.finite {
					sc.finite[j] = true // exact values are finite
				}
			}
			if o, err = inst.attendOne(a, hp, qv, keys, vals, i, sc); err != nil {
				return true, fmt.Errorf("%s head %d at position %d: %w", where, head+1, i+1, err)
			}
		}
		addHead(b, out, i, o)
	}
	return true, nil
}

// hardWords computes the output of the query qv at position i (0-based)
// from the keys ks in words, into a new vector, and reports false when qv
// is not words over a word denominator or a score leaves the words. q is
// scratch.
func (inst *Instance[T]) hardWords(spec *model.Attention, qv []*big.Rat, q []int64, ks wordVectors, vals [][]T, i int) ([]T, bool) {
	b := inst.B
	maxQ, ok := numeric.ExactWords(q, qv)
	if !ok {
		return nil, false
	}
	lo, hi := maskRange(spec.Mask, i, len(vals))
	d := len(vals[0])
	if lo >= hi {
		return zeros(b, d), true // nothing to attend to: the output is 0
	}
	w := ks.width
	keys := ks.data[lo*w : hi*w]
	var max int64
	var count, first, last int
	switch {
	case !scoresFit(maxQ, ks.max, w):
		if max, count, first, last, ok = maxScoreChecked(q, keys, w); !ok {
			return nil, false
		}
	case w == 2:
		max, count, first, last = maxScorePairs(q[0], q[1], ks.pairs[lo:hi])
	default:
		max, count, first, last = maxScore(q, keys, w)
	}
	o := zeros(b, d)
	switch {
	case spec.Weighting == model.LeftHardmax || count == 1:
		last = first
		fallthrough
	case spec.Weighting == model.RightHardmax:
		for c, v := range vals[lo+last] {
			o[c] = b.Set(o[c], v)
		}
		return o, true
	}
	// The mean of the tied maxima's values, summed in order and divided
	// once, as hardExact computes it. The scores between the first and
	// the last maximum are computed again, by the same operations that
	// found them words.
	for k := first; k <= last; k++ {
		if k > first && k < last && score(q, keys[k*w:(k+1)*w]) != max {
			continue
		}
		for c, v := range vals[lo+k] {
			o[c] = b.Add(o[c], o[c], v)
		}
	}
	share := b.SetInt64(b.New(), int64(count))
	for c := range o {
		// count > 1, so the division cannot fail.
		o[c], _ = b.Div(o[c], o[c], share)
	}
	return o, true
}

// maxScorePairs returns the maximum of the scores q·k over keys of width 2,
// how many keys reach it, and the first and the last that do, when no
// score can overflow (scoresFit): one sweep, no score stored.
func maxScorePairs(q0, q1 int64, keys [][2]int64) (max int64, count, first, last int) {
	max, count = q0*keys[0][0]+q1*keys[0][1], 1
	for k := 1; k < len(keys); k++ {
		if v := q0*keys[k][0] + q1*keys[k][1]; v > max {
			max, count, first, last = v, 1, k, k
		} else if v == max {
			count++
			last = k
		}
	}
	return max, count, first, last
}

// maxScore is maxScorePairs for keys of any width w stored end to end.
func maxScore(q, keys []int64, w int) (max int64, count, first, last int) {
	max, count = score(q, keys[:w]), 1
	for k := 1; k < len(keys)/w; k++ {
		if v := score(q, keys[k*w:(k+1)*w]); v > max {
			max, count, first, last = v, 1, k, k
		} else if v == max {
			count++
			last = k
		}
	}
	return max, count, first, last
}

// maxScoreChecked is maxScore with every product and partial sum
// checked for overflow; ok is false when a score leaves the words.
func maxScoreChecked(q, keys []int64, w int) (max int64, count, first, last int, ok bool) {
	for k := 0; k < len(keys)/w; k++ {
		var v int64
		for c, kc := range keys[k*w : (k+1)*w] {
			p, ok := numeric.MulInt64(q[c], kc)
			if ok {
				v, ok = numeric.AddInt64(v, p)
			}
			if !ok {
				return 0, 0, 0, 0, false
			}
		}
		switch {
		case k == 0 || v > max:
			max, count, first, last = v, 1, k, k
		case v == max:
			count++
			last = k
		}
	}
	return max, count, first, last, true
}

// score is q·key, left to right, unchecked: for scores known to fit.
func score(q, key []int64) int64 {
	key = key[:len(q)]
	v := q[0] * key[0]
	for c := 1; c < len(q); c++ {
		v += q[c] * key[c]
	}
	return v
}

// scoresFit reports whether width·maxQ·maxK ≤ 2^63 − 1, the bound on
// every partial sum of a score.
func scoresFit(maxQ, maxK uint64, width int) bool {
	hi, lo := bits.Mul64(maxQ, maxK)
	if hi != 0 {
		return false
	}
	hi, lo = bits.Mul64(lo, uint64(width))
	return hi == 0 && lo <= math.MaxInt64
}

// addHead adds a head's output o at position i into out, the sum of the
// heads so far (nil before the first), in head order.
func addHead[T any](b numeric.Backend[T], out [][]T, i int, o []T) {
	if out[i] == nil {
		out[i] = o
		return
	}
	for c := range o {
		out[i][c] = b.Add(out[i][c], out[i][c], o[c])
	}
}
