package model

import (
	"fmt"

	"github.com/transformer-cookbook/verify/numeric"
)

// attend computes a self-attention sublayer on x (one vector per
// position) and returns its output, the sum of its heads.
func (inst *Instance[T]) attend(a *attnParams[T], x [][]T, where string) ([][]T, error) {
	b := inst.B
	n := len(x)
	var out [][]T
	for h := range a.heads {
		hp := &a.heads[h]
		keys := make([][]T, n)
		vals := make([][]T, n)
		for j := range x {
			keys[j] = inst.matVec(hp.k, x[j], nil)
			vals[j] = inst.matVec(hp.v, x[j], nil)
		}
		for i := range x {
			q := inst.matVec(hp.q, x[i], nil)
			o, err := inst.attendOne(a, hp, q, keys, vals, i)
			if err != nil {
				return nil, fmt.Errorf("%s head %d at position %d: %w", where, h+1, i+1, err)
			}
			if out == nil {
				out = make([][]T, n)
			}
			if out[i] == nil {
				out[i] = o
				continue
			}
			for c := range o {
				out[i][c] = b.Add(out[i][c], out[i][c], o[c])
			}
		}
	}
	return out, nil
}

// attendOne computes the output at position i (0-based) of one head.
func (inst *Instance[T]) attendOne(a *attnParams[T], hp *headParams[T], q []T, keys, vals [][]T, i int) ([]T, error) {
	b := inst.B
	n := len(keys)
	d := len(vals[0])
	var js []int
	for j := 0; j < n; j++ {
		if a.spec.Mask.allows(i+1, j+1) {
			js = append(js, j)
		}
	}
	if len(js) == 0 {
		// Strict masks leave the first (or last) position nothing to
		// attend to: it outputs 0 (§Transformers, strict future masking).
		return zeros(b, d), nil
	}
	scores := make([]T, len(js))
	for k, j := range js {
		s := dot(b, q, keys[j])
		var err error
		if hp.sqrtDKey != nil {
			if s, err = b.Div(s, s, *hp.sqrtDKey); err != nil {
				return nil, err
			}
		}
		if a.temp != nil {
			if s, err = b.Div(s, s, *a.temp); err != nil {
				return nil, err
			}
		}
		scores[k] = s
	}
	alpha, err := inst.weights(a.spec.Weighting, scores)
	if err != nil {
		return nil, err
	}
	out := make([]T, d)
	t := b.New()
	first := true
	for k, j := range js {
		// Hard weightings give most positions weight 0, and so does
		// softmax once exp underflows; 0·v adds nothing when v is finite
		// (at most the sign of a zero sum), so those terms are skipped.
		// With a non-finite v they are kept, since 0·∞ is NaN.
		if b.Sign(alpha[k]) == numeric.Equal && allFinite(b, vals[j]) {
			continue
		}
		for c := 0; c < d; c++ {
			if first {
				out[c] = b.Mul(b.New(), alpha[k], vals[j][c])
				continue
			}
			t = b.Mul(t, alpha[k], vals[j][c])
			out[c] = b.Add(out[c], out[c], t)
		}
		first = false
	}
	if first { // every weight was zero (only possible with NaN scores)
		return zeros(b, d), nil
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
	acc := b.Mul(b.New(), x[0], y[0])
	t := b.New()
	for k := 1; k < len(x); k++ {
		t = b.Mul(t, x[k], y[k])
		acc = b.Add(acc, acc, t)
	}
	return acc
}

// weights applies the weighting function to the scores of the unmasked
// positions.
func (inst *Instance[T]) weights(w Weighting, s []T) ([]T, error) {
	if w == Softmax {
		return inst.softmax(s)
	}
	b := inst.B
	// The maximum and its ties, decided in the backend's arithmetic.
	max := b.Set(b.New(), s[0])
	for _, x := range s[1:] {
		max = b.Max(max, max, x)
	}
	ties, err := maxima(b, s, max)
	if err != nil {
		return nil, err
	}
	if ties == nil { // a NaN score: every weight is NaN, as softmax gives
		return nanWeights(b, len(s))
	}
	alpha := zeros(b, len(s))
	switch w {
	case LeftHardmax:
		alpha[ties[0]] = b.SetInt64(b.New(), 1)
	case RightHardmax:
		alpha[ties[len(ties)-1]] = b.SetInt64(b.New(), 1)
	case AverageHardmax:
		one := b.SetInt64(b.New(), 1)
		count := b.SetInt64(b.New(), int64(len(ties)))
		share, err := b.Div(b.New(), one, count)
		if err != nil {
			return nil, err
		}
		for _, k := range ties {
			alpha[k] = b.Set(b.New(), share)
		}
	}
	return alpha, nil
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

// nanWeights returns weights that are all NaN (0/0 in the IEEE backends).
func nanWeights[T any](b numeric.Backend[T], n int) ([]T, error) {
	zero := b.New()
	nan, err := b.Div(b.New(), zero, zero)
	if err != nil {
		return nil, err
	}
	alpha := make([]T, n)
	for k := range alpha {
		alpha[k] = b.Set(b.New(), nan)
	}
	return alpha, nil
}

// softmax returns exp(s_k − max) / Σ_j exp(s_j − max), the sum left to
// right, as torch.softmax computes it.
func (inst *Instance[T]) softmax(s []T) ([]T, error) {
	b := inst.B
	max := b.Set(b.New(), s[0])
	for _, x := range s[1:] {
		max = b.Max(max, max, x)
	}
	e := make([]T, len(s))
	var sum T
	for k, x := range s {
		d := b.Sub(b.New(), x, max)
		var err error
		if e[k], err = b.Exp(b.New(), d); err != nil {
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
