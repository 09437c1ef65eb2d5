package certify

import (
	"math"
	"math/big"
	"strconv"

	"github.com/transformer-cookbook/verify/numeric"
)

// residualKey identifies the part of state s that step k's residual
// connection reads: with the heads' outputs, it decides the next state.
func (a *analysis[T]) residualKey(k int, s *state[T]) string {
	var buf []byte
	for c, on := range a.readR[k] {
		if on {
			buf = appendRats(buf, s.ref[c:c+1])
		}
	}
	buf = append(buf, '|')
	for c, on := range a.readM[k] {
		if on || !a.backend.Finite(s.checked[c]) {
			buf = strconv.AppendInt(buf, int64(c), 10)
			buf = append(buf, ':')
			buf = appendValues(buf, a.backend, s.checked[c:c+1])
		}
	}
	return string(buf)
}

// project sets to 0 the components of s that nothing after step k−1
// reads. A non-finite value is kept: 0·∞ is NaN, so even a zero weight
// reads it.
// The vectors are copied first: a sublayer may hand back its input's.
func (a *analysis[T]) project(s *state[T], k int) {
	s.ref = append([]*big.Rat(nil), s.ref...)
	s.checked = append([]T(nil), s.checked...)
	for c, live := range a.liveR[k] {
		if !live {
			s.ref[c] = new(big.Rat)
		}
	}
	for c, live := range a.liveM[k] {
		if !live && a.backend.Finite(s.checked[c]) {
			s.checked[c] = a.backend.New()
		}
	}
}

// key identifies a state pair by its values.
func (a *analysis[T]) key(s *state[T]) string {
	buf := appendRats(make([]byte, 0, 16*len(s.ref)), s.ref)
	buf = append(buf, '|')
	return string(appendValues(buf, a.backend, s.checked))
}

// appendRats appends rationals so that equal bytes mean equal values.
func appendRats(buf []byte, xs []*big.Rat) []byte {
	for _, x := range xs {
		buf = x.Num().Append(buf, 16)
		if !x.IsInt() {
			buf = append(buf, '/')
			buf = x.Denom().Append(buf, 16)
		}
		buf = append(buf, ',')
	}
	return buf
}

// appendValues appends values of a backend so that equal bytes mean equal
// values (bit for bit for the machine formats: −0 and +0 differ).
func appendValues[T any](buf []byte, b numeric.Backend[T], xs []T) []byte {
	for _, x := range xs {
		switch v := any(x).(type) {
		case float64:
			buf = strconv.AppendUint(buf, math.Float64bits(v), 16)
		case float32:
			buf = strconv.AppendUint(buf, uint64(math.Float32bits(v)), 16)
		case *big.Rat:
			buf = appendRats(buf, []*big.Rat{v})
		case *big.Float:
			buf = v.Append(buf, 'p', 0)
		default:
			buf = append(buf, b.Format(x)...)
		}
		buf = append(buf, ',')
	}
	return buf
}

// pairKey identifies a pair of vectors by their values.
func pairKey[T any](b numeric.Backend[T], r []*big.Rat, m []T) string {
	buf := appendRats(make([]byte, 0, 16*len(r)), r)
	buf = append(buf, '|')
	return string(appendValues(buf, b, m))
}
