package bigmath

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
)

// roundBig rounds x to p bits, nearest even (big.Float's exponent range).
func roundBig(x *big.Float, p uint) *big.Float {
	return new(big.Float).SetPrec(p).SetMode(big.ToNearestEven).Set(x)
}

// TestExpFastAgreesWithExp: the fixed-point fast path gives the correctly
// rounded exp at every precision up to 53, as decided from a certified
// 300-bit enclosure, on seeded random arguments over its whole range and
// on the edges of that range.
func TestExpFastAgreesWithExp(t *testing.T) {
	const seed = 42
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 1))
	args := []float64{0x1p-55, -0x1p-55, 0x1.0000000000001p-55, 1, -1, 1024, -1024, math.Ln2, -math.Ln2,
		math.Ln2 / 128, 0.5, 709.78, -745.1, 88.72, -103.97, 11.09, -17.3, 1e-10, -1e-10}
	args = append(args, 1024.5, -1024.5, 1e6, -1e6, 0x1p30, -0x1p30, 123456.789)
	for i := 0; i < 3000; i++ {
		// Log-uniform magnitudes from 2^-55 to 2^30 (big.Float's exponent
		// range ends near exp(2^30·…)), both signs.
		x := math.Ldexp(1+rng.Float64(), rng.IntN(85)-55)
		if x > 0x1p30 {
			x = 0x1p30
		}
		if rng.IntN(2) == 0 {
			x = -x
		}
		args = append(args, x)
	}
	decided, fast := 0, 0
	for _, x := range args {
		ref, _ := Exp(new(big.Float).SetFloat64(x), 300)
		for _, p := range []uint{2, 3, 4, 8, 11, 24, 53} {
			lo, hi := roundBig(ref.Lo, p), roundBig(ref.Hi, p)
			if lo.Cmp(hi) != 0 {
				continue // undecided even at 300 bits: not a useful case
			}
			decided++
			got, ok := ExpFast(x, func(h, l uint64, e int64) *big.Float {
				m, q := RoundU128(h, l, e, int(p), math.MinInt64)
				r := new(big.Float).SetPrec(p).SetUint64(m)
				return r.SetMantExp(r, int(q))
			}, func(a, b *big.Float) bool { return a.Cmp(b) == 0 })
			if !ok {
				continue
			}
			fast++
			if got.Cmp(lo) != 0 {
				t.Errorf("exp(%v) at %d bits: fast path %s, correctly rounded %s", x, p, got.Text('p', 0), lo.Text('p', 0))
			}
		}
	}
	// The fast path must decide nearly everything it is given.
	if fast < decided*99/100 {
		t.Errorf("fast path decided %d of %d cases", fast, decided)
	}
	t.Logf("%d cases, %d by the fast path", decided, fast)
}

// TestRoundU128 compares RoundU128 with big.Float's rounding of the same
// value, with and without a subnormal quantum.
func TestRoundU128(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	for i := 0; i < 20000; i++ {
		hi, lo := rng.Uint64()>>rng.IntN(64), rng.Uint64()
		if hi == 0 && lo == 0 {
			continue
		}
		e := int64(rng.IntN(400) - 200)
		p := 1 + rng.IntN(53)
		m := new(big.Int).Lsh(new(big.Int).SetUint64(hi), 64)
		m.Or(m, new(big.Int).SetUint64(lo))
		exact := new(big.Float).SetInt(m)
		exact.SetMantExp(exact, int(e))
		// Without subnormals: plain p-bit rounding.
		I, q := RoundU128(hi, lo, e, p, math.MinInt64)
		got := new(big.Float).SetUint64(I)
		got.SetMantExp(got, int(q))
		if want := roundBig(exact, uint(p)); got.Cmp(want) != 0 {
			t.Fatalf("RoundU128(%x:%x, %d, p=%d) = %s, want %s", hi, lo, e, p, got.Text('p', 0), want.Text('p', 0))
		}
		// With a quantum floor qmin: rounding to a multiple of 2^qmin when
		// that is coarser, which is what subnormals do.
		qmin := int64(rng.IntN(300) - 150)
		I, q = RoundU128(hi, lo, e, p, qmin)
		got = new(big.Float).SetUint64(I)
		got.SetMantExp(got, int(q))
		// Reference: round exact/2^qmin to an integer (nearest even) when
		// the quantum is coarser than p bits allow.
		top := int64(exact.MantExp(nil)) - 1
		if top-int64(p)+1 >= qmin {
			continue // same as above
		}
		scaled := new(big.Float).SetMantExp(exact, int(-qmin))
		n, _ := scaled.Int(nil)
		frac := new(big.Float).Sub(scaled, new(big.Float).SetInt(n))
		if c := frac.Cmp(big.NewFloat(0.5)); c > 0 || c == 0 && n.Bit(0) == 1 {
			n.Add(n, big.NewInt(1))
		}
		want := new(big.Float).SetInt(n)
		want.SetMantExp(want, int(qmin))
		if got.Cmp(want) != 0 {
			t.Fatalf("RoundU128(%x:%x, %d, p=%d, qmin=%d) = %s, want %s", hi, lo, e, p, qmin, got.Text('p', 0), want.Text('p', 0))
		}
	}
}

// TestExpFastTables recomputes ExpFast's written-out constants from
// certified enclosures at 200 and 300 bits (log 2 and exp, whose widths
// are far below the rounding unit of the tables), each rounded to
// nearest at its scale, and compares them bit for bit.
func TestExpFastTables(t *testing.T) {
	fixed := func(iv Interval, scale int) u128 {
		mid := new(big.Float).SetPrec(400).Add(iv.Lo, iv.Hi)
		mid.SetMantExp(mid, scale-1)
		n, _ := mid.Add(mid, big.NewFloat(0.5)).Int(nil)
		return toU128(n)
	}
	ln2 := Ln2Interval(200)
	if got, want := ln2over64, fixed(ln2, 128-6); got != want {
		t.Errorf("ln2over64 = %#x, want %#x", got, want)
	}
	for j := range pow2j {
		// 2^(j/64) = exp(j·log 2/64).
		arg := IMul(ln2, exactPoint(new(big.Float).SetFloat64(float64(j)/64)), 220)
		lo, _ := Exp(arg.Lo, 200)
		hi, _ := Exp(arg.Hi, 200)
		if got, want := pow2j[j], fixed(Interval{lo.Lo, hi.Hi}, fastFrac); got != want {
			t.Errorf("pow2j[%d] = %#x, want %#x", j, got, want)
		}
	}
	ln2wide := Ln2Interval(300)
	mid := new(big.Float).SetPrec(600).Add(ln2wide.Lo, ln2wide.Hi)
	mid.SetMantExp(mid, 196-6-1)
	want, _ := mid.Add(mid, big.NewFloat(0.5)).Int(nil)
	if ln2over64Big == nil || ln2over64Big.Cmp(want) != 0 {
		t.Errorf("ln2over64Big = %v, want %x", ln2over64Big, want)
	}
}
