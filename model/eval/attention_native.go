package eval

import (
	"math"

	"github.com/transformer-cookbook/verify/model"
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
// operation. round is nil for the native formats and the format's
// rounding for the emulated ones. shareOf(count) is the weight of each of
// count tied maxima, computed by the backend. bad[j] counts the positions
// below j whose value has a non-finite entry. The output, d values, is
// written into out.
func hardAttendMachine[F machineFloat](w model.Weighting, mask model.Mask, q []F, keys packed[F], vals [][]F, bad []int32, i int,
	divisors []F, round func(F) F, shareOf func(count int) F, scores, out []F) {
	n := len(vals)
	lo, hi := maskRange(mask, i, n)
	clear(out)
	if lo >= hi {
		return // nothing to attend to: the output is 0
	}
	scores = scores[:hi-lo]
	var (
		max                F
		count, first, last int
		nan                bool
	)
	plain := round == nil && len(divisors) == 0
	if plain {
		// The scores, their maximum and its ties in one loop over the
		// keys, as a hand-written loop would do it: a score costs its
		// multiply-adds and one comparison, and is not stored (the few
		// the weighted sum needs are computed again below, to the same
		// bits).
		max, count, first, last, nan = maxScoreMachine(q, keys.data[lo*keys.width:hi*keys.width], keys.width)
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
		max, count, first, last, nan = maxOf(scores)
	}
	if nan {
		// As hardmax: a NaN score gives every position weight NaN, so
		// every component of the output is NaN.
		nan := F(math.NaN())
		for c := range out {
			out[c] = nan
		}
		return
	}
	var share F
	switch w {
	case model.LeftHardmax:
		share, count, last = 1, 1, first
	case model.RightHardmax:
		share, count, first = 1, 1, last
	default:
		share = shareOf(count)
	}
	// The weighted sum over the unmasked positions in order; a zero weight
	// with a finite value adds nothing and is skipped (0·∞ is NaN and is
	// not), as in attendOne.
	from, to := 0, len(scores)
	if bad[hi] == bad[lo] {
		from, to = first, last+1 // only the maxima have nonzero weights
	}
	if plain {
		// The scores the sum reads: between the first and the last
		// maximum, the only positions that can be maxima.
		scoreRange(q, keys.data[lo*keys.width:hi*keys.width], keys.width, scores, first, last+1)
	}
	started := false
	for k := from; k < to; k++ {
		j := lo + k
		var wk F
		if k >= first && k <= last && scores[k] == max {
			wk = share
		}
		if wk == 0 && bad[j+1] == bad[j] {
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
}

// maxScoreMachine is the maximum of the scores q·k over the keys packed in data
// (dk values each), each dot product summed left to right and rounded
// after every operation (the conversions forbid fused multiply-adds): the
// first maximum, the number of positions equal to it (+0 and −0 tie, as
// Cmp says) and the first and last of them, or nan when a score is NaN.
// The common key widths are written out: a call or an inner loop per
// score would cost as much as its multiply-adds.
func maxScoreMachine[F machineFloat](q, data []F, dk int) (max F, count, first, last int, nan bool) {
	m := len(data) / dk
	switch dk {
	case 1:
		q0 := q[0]
		max = F(q0 * data[0])
		if max != max {
			return max, 0, 0, 0, true
		}
		count = 1
		for k := 1; k < m; k++ {
			s := F(q0 * data[k])
			switch {
			case s < max:
			case s > max:
				max, count, first, last = s, 1, k, k
			case s == max:
				count++
				last = k
			default:
				return max, 0, 0, 0, true
			}
		}
	case 2:
		if maxScoreF64Width2 != nil {
			if qf, ok := any(q).([]float64); ok {
				mx, count, first, last, nan := maxScoreF64Width2(qf[0], qf[1], any(data).([]float64))
				return F(mx), count, first, last, nan
			}
		}
		return maxScoreWidth2(q[0], q[1], data)
	default:
		q = q[:dk]
		for k := range m {
			key := data[k*dk : k*dk+dk : k*dk+dk]
			s := F(q[0] * key[0])
			for c := 1; c < dk; c++ {
				s = F(s + F(q[c]*key[c]))
			}
			switch {
			case k == 0:
				if s != s {
					return s, 0, 0, 0, true
				}
				max, count = s, 1
			case s < max:
			case s > max:
				max, count, first, last = s, 1, k, k
			case s == max:
				count++
				last = k
			default:
				return max, 0, 0, 0, true
			}
		}
	}
	return max, count, first, last, false
}

// maxScoreF64Width2, where set (attention_simd_amd64.go, built with
// GOEXPERIMENT=simd), is maxScoreMachine for float64 keys of width 2,
// vectorised, to the same results.
var maxScoreF64Width2 func(q0, q1 float64, data []float64) (max float64, count, first, last int, nan bool)

// maxScoreWidth2 is maxScoreMachine for keys of width 2.
func maxScoreWidth2[F machineFloat](q0, q1 F, data []F) (max F, count, first, last int, nan bool) {
	m := len(data) / 2
	max = F(F(q0*data[0]) + F(q1*data[1]))
	if max != max {
		return max, 0, 0, 0, true
	}
	count = 1
	data = data[:2*m]
	for k := 1; k < m; k++ {
		key := data[2*k : 2*k+2 : 2*k+2]
		s := F(F(q0*key[0]) + F(q1*key[1]))
		switch {
		case s < max:
		case s > max:
			max, count, first, last = s, 1, k, k
		case s == max:
			count++
			last = k
		default:
			return max, 0, 0, 0, true
		}
	}
	return max, count, first, last, false
}

// scoreRange writes scores[k] for k in [from, to), computed as maxScoreMachine
// computes them.
func scoreRange[F machineFloat](q, data []F, dk int, scores []F, from, to int) {
	for k := from; k < to; k++ {
		key := data[k*dk : k*dk+dk]
		s := F(q[0] * key[0])
		for c := 1; c < dk; c++ {
			s = F(s + F(q[c]*key[c]))
		}
		scores[k] = s
	}
}

// maxOf is maxScoreMachine on scores already computed.
func maxOf[F machineFloat](scores []F) (max F, count, first, last int, nan bool) {
	max, count = scores[0], 1
	for k, s := range scores {
		switch {
		case s != s:
			return max, 0, 0, 0, true
		case s > max:
			max, count, first, last = s, 1, k, k
		case s == max && k > 0:
			count++
			last = k
		}
	}
	return max, count, first, last, false
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

// nonFiniteBefore returns bad with bad[j] the number of positions below j
// that are not finite, so that whether a range [lo, hi) is all finite is
// one comparison, bad[hi] == bad[lo], instead of a scan per query.
func nonFiniteBefore(finite []bool) []int32 {
	bad := make([]int32, len(finite)+1)
	for j, f := range finite {
		bad[j+1] = bad[j]
		if !f {
			bad[j+1]++
		}
	}
	return bad
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
func maskRange(m model.Mask, i, n int) (lo, hi int) {
	switch m {
	case model.Future:
		return 0, i + 1
	case model.StrictFuture:
		return 0, i
	case model.Past:
		return i, n
	case model.StrictPast:
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
		// As hardmax computes it: 1/count rounded once.
		return averageWeight(b, b.New(), count)
	}
	// The queries in one block (a machine float's zero is its New()).
	dq := hp.q.rows
	block := make([]T, len(x)*dq)
	queries := make([][]T, len(x))
	var t, zero T
	for i := range x {
		queries[i] = inst.matVecInto(block[i*dq:(i+1)*dq:(i+1)*dq], hp.q, x[i], nil, t, zero)
	}
	var heads [][]T
	switch be := any(b).(type) {
	case numeric.Float64:
		heads = allQueries[float64](w, a.spec.Mask, queries, keys, vals, finite, divisors, nil, shareOf)
	case numeric.Float32:
		heads = allQueries[float32](w, a.spec.Mask, queries, keys, vals, finite, divisors, nil, shareOf)
	case numeric.Emulated:
		heads = allQueries[float64](w, a.spec.Mask, queries, keys, vals, finite, divisors, be.F.Round, shareOf)
	case numeric.NarrowBigFloat:
		heads = allQueries[float64](w, a.spec.Mask, queries, keys, vals, finite, divisors, be.Round, shareOf)
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
	case numeric.Float64, numeric.Float32, numeric.Emulated, numeric.NarrowBigFloat:
		return a.spec.Weighting != model.Softmax
	}
	return false
}

// allQueries converts a head's vectors, which are []F under the name []T,
// and runs hardAttendMachine for every query. The outputs share one
// block, each row with its own capacity (the residual sum is stored in
// it).
func allQueries[F machineFloat, T any](w model.Weighting, mask model.Mask, queries, keys, vals [][]T, finite []bool,
	divisors []T, round func(float64) float64, shareOf func(int) T) [][]T {
	var r func(F) F
	if round != nil {
		r = any(round).(func(F) F)
	}
	q := any(queries).([][]F)
	k := pack(any(keys).([][]F))
	v := any(vals).([][]F)
	divs := any(divisors).([]F)
	// The share of one maximum is asked for by almost every query; the
	// backend computes each other count's.
	one := any(shareOf(1)).(F)
	share := func(count int) F {
		if count == 1 {
			return one
		}
		return any(shareOf(count)).(F)
	}
	bad := nonFiniteBefore(finite)
	scores := make([]F, len(keys))
	d := len(v[0])
	block := make([]F, len(q)*d)
	out := make([][]F, len(q))
	for i := range q {
		out[i] = block[i*d : (i+1)*d : (i+1)*d]
		hardAttendMachine(w, mask, q[i], k, v, bad, i, divs, r, share, scores, out[i])
	}
	return any(out).([][]T)
}
