//go:build !race

// The race detector makes sync.Pool drop values at random, so these counts
// hold only without it.

package numeric

import (
	"fmt"
	"math/big"
	"testing"
)

// TestBigFloatNoAllocs checks that Add, Sub, Mul, Set, Neg, Abs, Cmp and
// Sign allocate nothing once the destination has been used, including when
// the destination is also an operand (acc = acc + x·y). Div is left out:
// big.Float.Quo allocates a scratch mantissa on every call.
func TestBigFloatNoAllocs(t *testing.T) {
	for _, p := range []uint{24, 53, 113} {
		b := NewBigFloat(p)
		x := b.SetRat(nil, big.NewRat(1, 3))
		y := b.SetRat(nil, big.NewRat(-5, 7))
		z, acc := b.New(), b.New()
		ops := []struct {
			name string
			f    func()
		}{
			{"add", func() { z = b.Add(z, x, y) }},
			{"sub", func() { z = b.Sub(z, x, y) }},
			{"mul", func() { z = b.Mul(z, x, y) }},
			{"set", func() { z = b.Set(z, x) }},
			{"neg", func() { z = b.Neg(z, x) }},
			{"abs", func() { z = b.Abs(z, y) }},
			{"cmp,sign", func() { _ = b.Cmp(x, y); _ = b.Sign(y) }},
			{"acc+=x·y", func() { z = b.Mul(z, x, y); acc = b.Add(acc, acc, z) }},
			{"acc-=x·y", func() { z = b.Mul(z, x, y); acc = b.Sub(acc, acc, z) }},
			{"acc*=x", func() { acc = b.Mul(acc, acc, x) }},
		}
		for _, op := range ops {
			op.f() // grow the destinations
			if n := testing.AllocsPerRun(200, op.f); n != 0 {
				t.Errorf("%s: %s allocates %v times per call", fmt.Sprint(p), op.name, n)
			}
		}
	}
}
