package bigmath

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
)

// TestIMulIsAllFourProducts: IMul, which computes only the two extreme
// products where the endpoints' signs name them, gives imulAll's
// endpoints (the extremes of all four products) bit for bit: value, sign
// of a zero, precision; on random intervals of every sign pattern, with
// zero, equal and infinite endpoints, at several precisions.
func TestIMulIsAllFourProducts(t *testing.T) {
	const seed = 20261126
	rng := rand.New(rand.NewPCG(seed, 3))
	pick := func() float64 {
		switch rng.IntN(12) {
		case 0:
			return 0
		case 1:
			return math.Copysign(0, -1)
		case 2:
			return math.Inf(1 - 2*rng.IntN(2))
		}
		return float64(rng.IntN(2001)-1000) / float64(1+rng.IntN(64)) * math.Ldexp(1, rng.IntN(40)-20)
	}
	interval := func() Interval {
		a, b := pick(), pick()
		if a > b || a == b && math.Signbit(b) && !math.Signbit(a) {
			a, b = b, a
		}
		if math.IsInf(a, 1) || math.IsInf(b, -1) {
			a, b = -1, 1 // Lo is never +Inf, Hi never −Inf
		}
		return Interval{new(big.Float).SetFloat64(a), new(big.Float).SetFloat64(b)}
	}
	same := func(u, v *big.Float) bool {
		return u.Cmp(v) == 0 && u.Signbit() == v.Signbit() && u.Prec() == v.Prec() && u.IsInf() == v.IsInf()
	}
	for trial := range 200000 {
		x, y := interval(), interval()
		prec := []uint{2, 11, 24, 53, 113}[rng.IntN(5)]
		var got, want Interval
		panicked := func(f func()) (p bool) {
			defer func() { p = recover() != nil }()
			f()
			return false
		}
		// 0·∞ has no value: big.Float panics on it in both.
		if panicked(func() { want = imulAll(x, y, prec) }) {
			continue
		}
		got = IMul(x, y, prec)
		if !same(got.Lo, want.Lo) || !same(got.Hi, want.Hi) {
			t.Fatalf("seed %d trial %d: [%v, %v]·[%v, %v] at %d bits = [%v, %v], all four products give [%v, %v]",
				seed, trial, x.Lo, x.Hi, y.Lo, y.Hi, prec, got.Lo, got.Hi, want.Lo, want.Hi)
		}
	}
}
