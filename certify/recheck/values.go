package recheck

import (
	"math"
	"math/big"
	"strconv"
	"strings"
	"unsafe"

	"github.com/transformer-cookbook/verify/numeric"
)

// Vectors are told apart by their values as numbers (+0 and −0 are one
// value: package doc), through keys that are equal exactly when the
// values are.

// appendRat appends x so that equal bytes mean equal numbers.
func appendRat(buf []byte, x *big.Rat) []byte {
	buf = x.Num().Append(buf, 16)
	if !x.IsInt() {
		buf = append(buf, '/')
		buf = x.Denom().Append(buf, 16)
	}
	return append(buf, ',')
}

// appendValue appends a value of backend b so that equal bytes mean equal
// numbers: ±0 as 0, NaN as NaN whatever its payload.
func appendValue[T any](buf []byte, b numeric.Backend[T], x T) []byte {
	switch v := any(x).(type) {
	case float64:
		if v == 0 {
			return append(buf, '0', ',')
		}
		if v != v {
			return append(buf, "NaN,"...)
		}
		return append(strconv.AppendUint(buf, math.Float64bits(v), 16), ',')
	case float32:
		if v == 0 {
			return append(buf, '0', ',')
		}
		if v != v {
			return append(buf, "NaN,"...)
		}
		return append(strconv.AppendUint(buf, uint64(math.Float32bits(v)), 16), ',')
	case *big.Float:
		// Format 'p' writes the mantissa without its trailing zeros and
		// the binary exponent: the value exactly, whatever the precision.
		switch {
		case v.IsInf():
			return append(append(buf, b.Format(x)...), ',')
		case v.Sign() == 0:
			return append(buf, '0', ',')
		}
		return append(v.Append(buf, 'p', 0), ',')
	}
	if !b.Finite(x) {
		return append(append(buf, b.Format(x)...), ',')
	}
	r, err := b.Rat(x)
	if err != nil {
		return append(append(buf, b.Format(x)...), ',')
	}
	return appendRat(buf, r)
}

// vectorKey is the key of a pair of vectors.
func vectorKey[T any](b numeric.Backend[T], r []*big.Rat, m []T) string {
	buf := make([]byte, 0, 8*(len(r)+len(m)))
	for _, x := range r {
		buf = appendRat(buf, x)
	}
	buf = append(buf, '|')
	for _, x := range m {
		buf = appendValue(buf, b, x)
	}
	return string(buf)
}

func (ck *checker[T]) stateKey(s State[T]) string { return vectorKey(ck.b, s.Ref, s.Model) }

// memory is where a pair of vectors lives.
type memory struct {
	r      **big.Rat
	m      unsafe.Pointer
	lr, lm int
}

// keyOf is stateKey, worked out once for each pair of vectors in memory
// (a session keeps them from one length to the next): a certificate, and
// the checker's own tables, hand out the same vectors again and again,
// and vectors are never written once made, so the same memory holds the
// same values.
func (ck *checker[T]) keyOf(s State[T]) string {
	if len(s.Ref) == 0 || len(s.Model) == 0 {
		return ck.stateKey(s)
	}
	at := memory{&s.Ref[0], unsafe.Pointer(&s.Model[0]), len(s.Ref), len(s.Model)}
	if key, ok := ck.interned[at]; ok {
		return key
	}
	key := ck.stateKey(s)
	ck.interned[at] = key
	return key
}

// formatState prints a state pair for a refusal, shortened.
func (ck *checker[T]) formatState(s State[T]) string {
	var sb strings.Builder
	sb.WriteString("(")
	for c, x := range s.Ref {
		if c > 0 {
			sb.WriteString(", ")
		}
		sb.WriteString(x.RatString())
		if sb.Len() > 200 {
			sb.WriteString(", …")
			break
		}
	}
	sb.WriteString(" | ")
	start := sb.Len()
	for c, x := range s.Model {
		if c > 0 {
			sb.WriteString(", ")
		}
		sb.WriteString(ck.b.Format(x))
		if sb.Len()-start > 200 {
			sb.WriteString(", …")
			break
		}
	}
	sb.WriteString(")")
	return sb.String()
}
