package model

import (
	"math"

	"github.com/transformer-cookbook/verify/numeric"
)

// machineFloat is the value type of the backends whose values are machine
// floats: fp64 and fp32 natively, and the emulated formats (fp16, bf16,
// fp8), whose values are float64s rounded to the format after each
// operation.
type machineFloat interface{ float32 | float64 }

// hardAttendMachine is what attend does for one head under a hard
// weighting when the backend's values are machine floats: the same
// operations, in the same order, rounded the same way as the generic path
// (attendOne, dotInto, hardmax), so the outputs are bit for bit the same,
// but on plain slices, without a call through the Backend interface per
// operation and without a second pass to find the maximum: a score costs
// its multiply-adds and a comparison. round is nil for the native formats
// and the format's rounding for the emulated ones. shareOf(count) is the
// weight of each of count tied maxima, computed by the backend.
func hardAttendMachine[F machineFloat](w Weighting, mask Mask, q []F, keys packed[F], vals [][]F, finite []bool, i int,
	divisors []F, round func(F) F, shareOf func(count int) F, scores []F) []F {
	n := len(vals)
	lo, hi := maskRange(mask, i, n)
	d := len(vals[0])
	out := make([]F, d)
	if lo >= hi {
		return out // nothing to attend to: the output is 0
	}
	scores = scores[:hi-lo]
	// The scores first, in a loop that does nothing else, then their
	// maximum: two simple loops run faster than one that does both.
	if round == nil && len(divisors) == 0 {
		// dotMachine without rounding, written out: the call would cost
		// as much as the multiply-adds.
		dk := keys.width
		data := keys.data[lo*dk : hi*dk]
		switch dk {
		case 1:
			for k := range scores {
				scores[k] = F(q[0] * data[k])
			}
		case 2:
			for k := range scores {
				scores[k] = F(F(q[0]*data[2*k]) + F(q[1]*data[2*k+1]))
			}
		default:
			for k := range scores {
				key := data[k*dk : k*dk+dk]
				s := F(q[0] * key[0])
				for c := 1; c < dk; c++ {
					s = F(s + F(q[c]*key[c]))
				}
				scores[k] = s
			}
		}
	} else {
		for k := range scores {
			s := dotMachine(q, keys.row(lo+k), round)
			for _, div := range divisors {
				s = F(s / div)
				if round != nil {
					s = round(s)
				}
			}
			scores[k] = s
		}
	}
	max := scores[0]
	count, first, last := 1, 0, 0
	for k, s := range scores {
		switch {
		case s != s:
			// As hardmax: a NaN score gives every position weight NaN,
			// so every component of the output is NaN.
			nan := F(math.NaN())
			for c := range out {
				out[c] = nan
			}
			return out
		case s > max:
			max, count, first, last = s, 1, k, k
		case s == max && k > 0: // +0 and −0 tie, as Cmp says
			count++
			last = k
		}
	}
	var share F
	switch w {
	case LeftHardmax:
		share, count, last = 1, 1, first
	case RightHardmax:
		share, count, first = 1, 1, last
	default:
		share = shareOf(count)
	}
	// The weighted sum over the unmasked positions in order; a zero weight
	// with a finite value adds nothing and is skipped (0·∞ is NaN and is
	// not), as in attendOne.
	from, to := 0, len(scores)
	if allFiniteFrom(finite, lo, hi) {
		from, to = first, last+1 // only the maxima have nonzero weights
	}
	started := false
	for k := from; k < to; k++ {
		j := lo + k
		var wk F
		if k >= first && k <= last && scores[k] == max {
			wk = share
		}
		if wk == 0 && finite[j] {
			continue
		}
		for c, v := range vals[j] {
			t := F(wk * v)
			if round != nil {
				t = round(t)
			}
			if !started {
				out[c] = t
				continue
			}
			out[c] = F(out[c] + t)
			if round != nil {
				out[c] = round(out[c])
			}
		}
		started = true
	}
	return out
}

// packed is a list of vectors of one width stored end to end, so that a
// query runs through the keys in one sweep of memory.
type packed[F machineFloat] struct {
	data  []F
	width int
}

func pack[F machineFloat](rows [][]F) packed[F] {
	p := packed[F]{data: make([]F, 0, len(rows)*len(rows[0])), width: len(rows[0])}
	for _, r := range rows {
		p.data = append(p.data, r...)
	}
	return p
}

func (p packed[F]) row(j int) []F { return p.data[j*p.width : (j+1)*p.width] }

// allFiniteFrom reports whether finite[lo:hi] are all true.
func allFiniteFrom(finite []bool, lo, hi int) bool {
	for _, f := range finite[lo:hi] {
		if !f {
			return false
		}
	}
	return true
}

// dotMachine is dotInto on machine floats: x · y summed left to right, each
// product and sum rounded on its own (the conversions forbid fused
// multiply-adds).
func dotMachine[F machineFloat](x, y []F, round func(F) F) F {
	y = y[:len(x)]
	s := F(x[0] * y[0])
	if round == nil {
		for k := 1; k < len(x); k++ {
			s = F(s + F(x[k]*y[k]))
		}
		return s
	}
	s = round(s)
	for k := 1; k < len(x); k++ {
		s = round(F(s + round(F(x[k]*y[k]))))
	}
	return s
}

// maskRange is the range [lo, hi) of 0-based positions that the query at
// 0-based position i attends to: every mask leaves a contiguous one.
func maskRange(m Mask, i, n int) (lo, hi int) {
	switch m {
	case Future:
		return 0, i + 1
	case StrictFuture:
		return 0, i
	case Past:
		return i, n
	case StrictPast:
		return i + 1, n
	}
	return 0, n
}

// attendMachine runs hardAttendMachine for every query of a head when the
// backend's values are machine floats and the weighting is hard, and
// reports handled = false otherwise, leaving the head to the generic
// path. out accumulates the heads, as in attend.
func (inst *Instance[T]) attendMachine(a *attnParams[T], hp *headParams[T], x, keys, vals [][]T, finite []bool, out [][]T) (handled bool) {
	if !inst.machine(a) {
		return false
	}
	w := a.spec.Weighting
	var divisors []T
	if hp.sqrtDKey != nil {
		divisors = append(divisors, *hp.sqrtDKey)
	}
	if a.temp != nil {
		divisors = append(divisors, *a.temp)
	}
	b := inst.B
	shareOf := func(count int) T {
		// As hardmax computes it: 1/count in the backend.
		share, _ := b.Div(b.New(), b.SetInt64(b.New(), 1), b.SetInt64(b.New(), int64(count)))
		return share
	}
	queries := make([][]T, len(x))
	for i := range x {
		queries[i] = inst.matVec(hp.q, x[i], nil)
	}
	var heads [][]T
	switch be := any(b).(type) {
	case numeric.Float64:
		heads = allQueries[float64](w, a.spec.Mask, queries, keys, vals, finite, divisors, nil, shareOf)
	case numeric.Float32:
		heads = allQueries[float32](w, a.spec.Mask, queries, keys, vals, finite, divisors, nil, shareOf)
	case numeric.Emulated:
		heads = allQueries[float64](w, a.spec.Mask, queries, keys, vals, finite, divisors, be.F.Round, shareOf)
	}
	if heads == nil {
		return false
	}
	for i, o := range heads {
		if out[i] == nil {
			out[i] = o
			continue
		}
		for c := range o {
			out[i][c] = b.Add(out[i][c], out[i][c], o[c])
		}
	}
	return true
}

// machine reports whether attendMachine takes a's heads: a hard
// weighting in a backend whose values are machine floats.
func (inst *Instance[T]) machine(a *attnParams[T]) bool {
	switch any(inst.B).(type) {
	case numeric.Float64, numeric.Float32, numeric.Emulated:
		return a.spec.Weighting != Softmax
	}
	return false
}

// allQueries converts a head's vectors, which are []F under the name []T,
// and runs hardAttendMachine for every query.
func allQueries[F machineFloat, T any](w Weighting, mask Mask, queries, keys, vals [][]T, finite []bool,
	divisors []T, round func(float64) float64, shareOf func(int) T) [][]T {
	var r func(F) F
	if round != nil {
		r = any(round).(func(F) F)
	}
	q := any(queries).([][]F)
	k := pack(any(keys).([][]F))
	v := any(vals).([][]F)
	divs := any(divisors).([]F)
	share := func(count int) F { return any(shareOf(count)).(F) }
	scores := make([]F, len(keys))
	out := make([][]T, len(queries))
	for i := range q {
		out[i] = any(hardAttendMachine(w, mask, q[i], k, v, finite, i, divs, r, share, scores)).([]T)
	}
	return out
}
