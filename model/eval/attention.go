package eval

import (
	"fmt"
	"math/big"

	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/numeric"
)

// attend computes a self-attention sublayer on x (one vector per
// position) and returns its output, the sum of its heads.
func (inst *Instance[T]) attend(a *attnParams[T], x [][]T, where string) ([][]T, error) {
	b := inst.B
	n := len(x)
	out := make([][]T, n)
	// Scratch reused by every query of the sublayer: the unmasked
	// positions and their scores, so that a query allocates nothing per
	// key (a pass at length n would otherwise allocate n² values).
	sc := &attnScratch[T]{js: make([]int, 0, n), scores: zeros(b, n), t: b.New(), finite: make([]bool, n)}
	for h := range a.heads {
		hp := &a.heads[h]
		// The keys and values in two blocks: two allocations of slices
		// per head, not two per position.
		keys, vals := make([][]T, n), make([][]T, n)
		dk, dv := hp.k.rows, hp.v.rows
		kb, vb := zeros(b, n*dk), zeros(b, n*dv)
		t, zero := b.New(), b.New()
		for j := range x {
			keys[j] = inst.matVecInto(kb[j*dk:(j+1)*dk:(j+1)*dk], hp.k, x[j], nil, t, zero)
			vals[j] = inst.matVecInto(vb[j*dv:(j+1)*dv:(j+1)*dv], hp.v, x[j], nil, t, zero)
			sc.finite[j] = allFinite(b, vals[j])
		}
		if !inst.generic && inst.attendMachine(a, hp, x, keys, vals, sc.finite, out) {
			continue
		}
		if !inst.generic && inst.exact && a.spec.Weighting != model.Softmax {
			handled, err := inst.attendWords(a, hp, x, keys, vals, out, where, h)
			if err != nil {
				return nil, err
			}
			if handled {
				continue
			}
		}
		for i := range x {
			q := inst.matVec(hp.q, x[i], nil)
			o, err := inst.attendOne(a, hp, q, keys, vals, i, sc)
			if err != nil {
				return nil, fmt.Errorf("%s head %d at position %d: %w", where, h+1, i+1, err)
			}
			addHead(b, out, i, o)
		}
	}
	return out, nil
}

// attnScratch holds what attendOne reuses from one query to the next.
type attnScratch[T any] struct {
	js     []int
	scores []T
	// alpha holds a query's softmax weights (weights).
	alpha []T
	t     T
	// u is a second scratch value for big floats' dot products
	// (dotAlternating), made on first use.
	u    T
	hasU bool
	// finite[j] says every entry of position j's value is finite.
	finite []bool
	// acc sums a score in exact arithmetic.
	acc numeric.ExactSum
}

// attendOne computes the output at position i (0-based) of one head.
func (inst *Instance[T]) attendOne(a *attnParams[T], hp *headParams[T], q []T, keys, vals [][]T, i int, sc *attnScratch[T]) ([]T, error) {
	b := inst.B
	d := len(vals[0])
	js, scores, err := inst.scores(a, hp, q, keys, i, sc)
	if err != nil {
		return nil, err
	}
	if len(js) == 0 {
		// Strict masks leave the first (or last) position nothing to
		// attend to: it outputs 0 (§Transformers, strict future masking).
		return zeros(b, d), nil
	}
	if a.spec.Weighting != model.Softmax && b.Precision().Kind == numeric.KindExact {
		return inst.hardExact(zeros(b, d), a.spec.Weighting, scores, js, vals, nil, sc)
	}
	return inst.weightedSum(a.spec.Weighting, scores, js, vals, d, sc)
}

// scores returns the positions query i (0-based) may attend to, and
// their scores q·k_j (divided by √d_key and by τ when the model says so),
// both in sc's scratch.
func (inst *Instance[T]) scores(a *attnParams[T], hp *headParams[T], q []T, keys [][]T, i int, sc *attnScratch[T]) ([]int, []T, error) {
	js := sc.js[:0]
	for j := range keys {
		if a.spec.Mask.Allows(i+1, j+1) {
			js = append(js, j)
		}
	}
	sc.js = js
	return inst.scoreKeys(a, hp, q, keys, js, sc)
}

// scoreKeys is scores for the keys of the positions js, in sc's scratch.
func (inst *Instance[T]) scoreKeys(a *attnParams[T], hp *headParams[T], q []T, keys [][]T, js []int, sc *attnScratch[T]) ([]int, []T, error) {
	b := inst.B
	scores := sc.scores[:len(js)]
	for k, j := range js {
		s := inst.dotInto(scores[k], q, keys[j], sc)
		var err error
		if hp.sqrtDKey != nil {
			if s, err = b.Div(s, s, *hp.sqrtDKey); err != nil {
				return nil, nil, err
			}
		}
		if a.temp != nil {
			if s, err = b.Div(s, s, *a.temp); err != nil {
				return nil, nil, err
			}
		}
		scores[k] = s
	}
	return js, scores, nil
}

// weightedSum is Σ_k weight_k · v_{js[k]} of attendOne, term by term
// left to right, the weights from the scores under w.
func (inst *Instance[T]) weightedSum(w model.Weighting, scores []T, js []int, vals [][]T, d int, sc *attnScratch[T]) ([]T, error) {
	b := inst.B
	// The weight of the k-th unmasked position: alpha[k] from the
	// softmax (in sc's scratch: no vector of n weights per query), or,
	// for the hard weightings, one shared value at the selected maxima
	// and zero elsewhere.
	var (
		alpha       []T
		picked      []int
		share, zero T
		next        int
	)
	if w == model.Softmax {
		var err error
		if alpha, err = inst.softmaxInto(sc.weights(b, len(scores)), scores, sc.t); err != nil {
			return nil, err
		}
	} else {
		var err error
		if picked, share, err = inst.hardmax(w, scores); err != nil {
			return nil, err
		}
		zero = b.New()
	}
	weight := func(k int) T {
		switch {
		case alpha != nil:
			return alpha[k]
		case next < len(picked) && picked[next] == k:
			next++
			return share
		}
		return zero
	}
	out := make([]T, d)
	t := b.New()
	first := true
	for k, j := range js {
		// Hard weightings give most positions weight 0, and so does
		// softmax once exp underflows; 0·v adds nothing when v is finite
		// (at most the sign of a zero sum), so those terms are skipped.
		// With a non-finite v they are kept, since 0·∞ is NaN.
		wk := weight(k)
		if b.Sign(wk) == numeric.Equal && sc.finite[j] {
			continue
		}
		for c := 0; c < d; c++ {
			if first {
				out[c] = b.Mul(b.New(), wk, vals[j][c])
				continue
			}
			t = b.Mul(t, wk, vals[j][c])
			out[c] = b.Add(out[c], out[c], t)
		}
		first = false
	}
	if first { // every weight was zero (only possible with NaN scores)
		return zeros(b, d), nil
	}
	return out, nil
}

// hardExact is the weighted sum of attendOne for a hard weighting in
// exact arithmetic (numeric.KindExact only), into out (one value per
// component, reused as destinations). Every selected position gets the
// same weight w (1, or 1/count for AHAT) and the others 0, so the sum
// Σ_k w·v_k is w·Σ_k v_k, the same rational: the values are summed and
// scaled once per component, instead of a product per term. It is not
// for an interval or a rounding backend, where the two orders of
// operations give different enclosures or roundings. The maximum and the
// tie count are found without allocating per score; exact scores are
// never NaN, and every value is finite. sum, when not nil, is the sum of
// the values of every position in js (kept by a prefix runner), used when
// every one of them is a maximum.
func (inst *Instance[T]) hardExact(out []T, w model.Weighting, scores []T, js []int, vals [][]T, sum []T, sc *attnScratch[T]) ([]T, error) {
	b := inst.B
	best := 0 // index of the first maximum
	ties := 1
	for k := 1; k < len(scores); k++ {
		switch b.Cmp(scores[k], scores[best]) {
		case numeric.Greater:
			best, ties = k, 1
		case numeric.Equal:
			ties++
		}
	}
	if w == model.LeftHardmax || w == model.RightHardmax || ties == 1 {
		// One position, with weight 1: the output is its value.
		k := best
		if w == model.RightHardmax {
			for j := len(scores) - 1; j > best; j-- {
				if b.Cmp(scores[j], scores[best]) == numeric.Equal {
					k = j
					break
				}
			}
		}
		for c := range out {
			out[c] = b.Set(out[c], vals[js[k]][c])
		}
		return out, nil
	}
	if sum == nil || ties != len(scores) {
		for c := range out {
			out[c] = b.SetInt64(out[c], 0)
		}
		for k := best; k < len(scores); k++ {
			if k != best && b.Cmp(scores[k], scores[best]) != numeric.Equal {
				continue
			}
			for c, v := range vals[js[k]] {
				out[c] = b.Add(out[c], out[c], v)
			}
		}
		sum = out
	}
	share := b.SetInt64(sc.t, int64(ties))
	var err error
	for c := range out {
		if out[c], err = b.Div(out[c], sum[c], share); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func allFinite[T any](b numeric.Backend[T], v []T) bool {
	for _, x := range v {
		if !b.Finite(x) {
			return false
		}
	}
	return true
}

// dot returns x · y summed left to right.
func dot[T any](b numeric.Backend[T], x, y []T) T {
	return dotInto(b, b.New(), x, y, b.New())
}

// dotInto is dot into dst, with sc's scratch: in exact arithmetic the
// whole sum in machine words while it fits (numeric.ExactDot), the same
// rational as the products summed left to right.
func (inst *Instance[T]) dotInto(dst T, x, y []T, sc *attnScratch[T]) T {
	if inst.exact {
		return any(numeric.ExactDot(any(dst).(*big.Rat), any(x).([]*big.Rat), any(y).([]*big.Rat), &sc.acc)).(T)
	}
	if _, ok := any(dst).(*big.Float); ok {
		if !sc.hasU {
			sc.u, sc.hasU = inst.B.New(), true
		}
		return dotAlternating(inst.B, dst, x, y, sc.t, &sc.u)
	}
	return dotInto(inst.B, dst, x, y, sc.t)
}

// dotAlternating is dotInto for big floats, with the running sum written
// into dst and *u in turn, so that no sum's destination is one of its
// operands (numeric.BigFloat then computes it in place, with no scratch
// value to fetch and copy back). Each product and sum is rounded as in
// dotInto; the last sum is copied into dst when it lands in *u (the same
// precision: exact).
func dotAlternating[T any](b numeric.Backend[T], dst T, x, y []T, t T, u *T) T {
	acc, other := b.Mul(dst, x[0], y[0]), *u
	for k := 1; k < len(x); k++ {
		t = b.Mul(t, x[k], y[k])
		other = b.Add(other, acc, t)
		acc, other = other, acc
	}
	if len(x)%2 == 0 {
		// acc is *u's storage and other dst's.
		*u = acc
		return b.Set(other, acc)
	}
	return acc
}

// dotInto is dot into dst, with t as scratch (backends whose values are
// pointers reuse both, so a score allocates nothing).
func dotInto[T any](b numeric.Backend[T], dst T, x, y []T, t T) T {
	dst = b.Mul(dst, x[0], y[0])
	for k := 1; k < len(x); k++ {
		t = b.Mul(t, x[k], y[k])
		dst = b.Add(dst, dst, t)
	}
	return dst
}

// hardmax returns the positions a hard weighting selects among the
// scores, in increasing order, and the weight each gets: the leftmost or
// rightmost maximum with weight 1, or every maximum with averageWeight
// (1/count rounded once). With a
// NaN score every position gets weight NaN, as softmax gives.
func (inst *Instance[T]) hardmax(w model.Weighting, s []T) ([]int, T, error) {
	b := inst.B
	max := b.Set(b.New(), s[0])
	for _, x := range s[1:] {
		max = b.Max(max, max, x)
	}
	ties, err := maxima(b, s, max)
	if err != nil {
		return nil, max, err
	}
	if ties == nil {
		all := make([]int, len(s))
		for k := range all {
			all[k] = k
		}
		nan, err := b.Div(b.New(), b.New(), b.New())
		return all, nan, err
	}
	one := b.SetInt64(b.New(), 1)
	switch w {
	case model.LeftHardmax:
		return ties[:1], one, nil
	case model.RightHardmax:
		return ties[len(ties)-1:], one, nil
	}
	return ties, averageWeight(b, b.New(), len(ties)), nil
}

// averageWeight is the weight average hardmax gives each of m tied
// positions: 1/m rounded once to the format (the paper's 1/|M| as the
// format holds it; docs/model-format.md), into z. It is not 1/fl(m), the
// quotient of m rounded first: where the format does not hold m (fp8-e5m2
// from m = 9, fp8-e4m3 from 17, bf16 from 257, fp16 from 2049) the two
// differ (fp8-e5m2: fl(1/9) = 7/64, 1/fl(9) = 1/8). PyTorch computes the
// division of a count in its arithmetic type (float32 for the narrow
// formats), where m is exact, and rounds the quotient once: fl(1/m) again.
func averageWeight[T any](b numeric.Backend[T], z T, m int) T {
	return b.SetRat(z, big.NewRat(1, int64(m)))
}

// maxima returns the positions of the maximal scores (max is their
// maximum, computed by b.Max), or nil when a score is NaN. In the interval
// backend a score is maximal unless it is certainly below another one; the
// maximum is unique when one score remains, a tie when the remaining ones
// are the same point, and undecided otherwise.
func maxima[T any](b numeric.Backend[T], s []T, max T) ([]int, error) {
	var ties []int
	interval := isInterval(b)
	for k, x := range s {
		switch b.Cmp(x, max) {
		case numeric.Equal:
			ties = append(ties, k)
		case numeric.Unordered:
			if !interval {
				return nil, nil
			}
			ties = append(ties, k) // possibly maximal
		}
	}
	if interval && len(ties) > 1 {
		for _, k := range ties[1:] {
			if b.Cmp(s[k], s[ties[0]]) != numeric.Equal {
				return nil, undecided("which of the scores %s and %s is maximal", b.Format(s[ties[0]]), b.Format(s[k]))
			}
		}
	}
	return ties, nil
}

// weights returns n values of the backend for a query's softmax weights,
// reused from one query to the next (their values are destinations).
func (sc *attnScratch[T]) weights(b numeric.Backend[T], n int) []T {
	if len(sc.alpha) < n {
		sc.alpha = append(sc.alpha, zeros(b, n-len(sc.alpha))...)
	}
	return sc.alpha[:n]
}

// softmax returns exp(s_k − max) / Σ_j exp(s_j − max), the sum left to
// right, as torch.softmax computes it, in new values.
func (inst *Instance[T]) softmax(s []T) ([]T, error) {
	return inst.softmaxInto(zeros(inst.B, len(s)), s, inst.B.New())
}

// softmaxInto is softmax written into e, len(s) values of the backend
// used as destinations (none of them an entry of s), with t as scratch:
// the same operations in the same order.
func (inst *Instance[T]) softmaxInto(e, s []T, t T) ([]T, error) {
	b := inst.B
	max := b.Set(b.New(), s[0])
	for _, x := range s[1:] {
		max = b.Max(max, max, x)
	}
	var sum T
	for k, x := range s {
		t = b.Sub(t, x, max)
		var err error
		if e[k], err = b.Exp(e[k], t); err != nil {
			return nil, fmt.Errorf("softmax: %w", err)
		}
		if k == 0 {
			sum = b.Set(b.New(), e[k])
		} else {
			sum = b.Add(sum, sum, e[k])
		}
	}
	for k := range e {
		var err error
		if e[k], err = b.Div(e[k], e[k], sum); err != nil {
			return nil, fmt.Errorf("softmax: %w", err)
		}
	}
	return e, nil
}
