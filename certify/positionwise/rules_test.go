package positionwise

import (
	"math"
	"math/big"
	"testing"

	"github.com/transformer-cookbook/verify/numeric"
)

func mustGrid(t *testing.T, name string) *grid {
	t.Helper()
	g, err := gridOf(numeric.MustParsePrecision(name))
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// TestGridCounts: the number of finite values of each format, from its
// definition (2^bits encodings, less the all-ones exponents that are not
// finite, less −0), and that every ordinal's value is a value of the
// format, in increasing order, with nothing of the format between two
// neighbours (their midpoint rounds to one of them).
func TestGridCounts(t *testing.T) {
	for _, tc := range []struct {
		name  string
		f     *numeric.Format
		count int64
	}{
		{"fp8-e4m3", numeric.FP8E4M3, 256 - 2 - 1},   // S.1111.111 is NaN
		{"fp8-e5m2", numeric.FP8E5M2, 256 - 2*4 - 1}, // exponent 11111: ±Inf and NaNs
		{"fp16", numeric.Binary16, 65536 - 2*1024 - 1},
		{"bf16", numeric.BFloat16, 65536 - 2*128 - 1},
	} {
		g := mustGrid(t, tc.name)
		if got := 2*g.maxOrd + 1; got != tc.count {
			t.Errorf("%s: %d finite values, want %d", tc.name, got, tc.count)
		}
		prev := math.Inf(-1)
		for k := -g.maxOrd; k <= g.maxOrd; k++ {
			v := g.value(k)
			if tc.f.Round(v) != v || v <= prev || g.ord(v) != k {
				t.Fatalf("%s: ordinal %d has value %g (previous %g, ord back %d)", tc.name, k, v, prev, g.ord(v))
			}
			if k > -g.maxOrd {
				if m := tc.f.Round((prev + v) / 2); m != prev && m != v {
					t.Fatalf("%s: %g lies between neighbours %g and %g", tc.name, m, prev, v)
				}
			}
			prev = v
		}
		if prev != tc.f.MaxFinite() {
			t.Errorf("%s: the largest value is %g, want %g", tc.name, prev, tc.f.MaxFinite())
		}
	}
}

// TestFP64Ordinals: the ordinals of fp64 are its bit patterns (as
// magnitudes), at the ends and around the subnormals.
func TestFP64Ordinals(t *testing.T) {
	g := mustGrid(t, "fp64")
	for _, v := range []float64{0, 5e-324, 0x1p-1022, 0x1.fffffffffffffp-1023, 1, 1.5, math.MaxFloat64} {
		if got, want := g.ord(v), int64(math.Float64bits(v)); got != want {
			t.Errorf("ord(%g) = %d, want its bits %d", v, got, want)
		}
		if got := g.value(g.ord(v)); got != v {
			t.Errorf("value(ord(%g)) = %g", v, got)
		}
	}
}

// TestRules: each rule on hand-worked boxes of fp16 (P = 11, smallest
// spacing 2^-24, largest value 65504).
func TestRules(t *testing.T) {
	g := mustGrid(t, "fp16")
	in := func(lo, hi float64) aval { return exactVal(span{lo, hi}, g.quantum(g.ord(lo), g.ord(hi))) }
	w := func(x *big.Rat) weight {
		return newWeight(x, rat(numeric.Binary16.RoundRat(x)))
	}
	for _, tc := range []struct {
		name  string
		got   aval
		exact bool
	}{
		// [1, 2) has spacing 2^-10; [-2, -1] too: Sterbenz.
		{"x − y, both in [1, 2]", g.add(in(1, 2), in(-2, -1)), true},
		// |a + b| ≤ 7 > 2^(−10+11) = 2, and no Sterbenz: 1 + (−6.0039) rounds.
		{"[1, 2] + [−8, −4]", g.add(in(1, 2), in(-8, -4)), false},
		// Multiples of 2^-10 of magnitude at most 2^(−10+11): [1, 1.5] +
		// 0.5 ⊂ [1.5, 2] (0.5 alone is a multiple of 2^-1).
		{"[1, 1.5] + 0.5", g.add(in(1, 1.5), in(0.5, 0.5)), true},
		// Not so with 0.5 to 1 (0.5 + 2^-11 is a multiple of 2^-11 only):
		// 1 + (0.5 + 2^-11) rounds.
		{"[1, 1.5] + [0.5, 1]", g.add(in(1, 1.5), in(0.5, 1)), false},
		// 2·x is exact up to 32752; beyond it may overflow.
		{"2·[1, 32752]", g.mul(w(big.NewRat(2, 1)), in(1, 32752)), true},
		{"2·[1, 65504]", g.mul(w(big.NewRat(2, 1)), in(1, 65504)), false},
		// Values of [2^-13, 1] are multiples of 2^-23, their halves of
		// 2^-24, the smallest spacing: exact. 2^-14 + 2^-24 ∈ [2^-14, 1]
		// halves to a multiple of 2^-25 only: it rounds.
		{"[2^-13, 1] / 2", g.mul(w(big.NewRat(1, 2)), in(0x1p-13, 1)), true},
		{"[2^-14, 1] / 2", g.mul(w(big.NewRat(1, 2)), in(0x1p-14, 1)), false},
		// 3·x needs P + 2 bits in general.
		{"3·[1, 2]", g.mul(w(big.NewRat(3, 1)), in(1, 2)), false},
		// 3·x of multiples of 2^-8 below 2: 3x < 6 ≤ 2^(−8+11) = 8.
		{"3·[2^-8·k] below 2, as 0.25 … 1.75", g.mul(w(big.NewRat(3, 1)), exactVal(span{0.25, 1.75}, -8)), true},
		// 1/3 is not stored exactly: never exact.
		{"(1/3)·[1, 2]", g.mul(w(big.NewRat(1, 3)), in(1, 2)), false},
	} {
		if tc.got.exact != tc.exact || tc.got.top && tc.exact {
			t.Errorf("%s: exact %v (top %v), want %v", tc.name, tc.got.exact, tc.got.top, tc.exact)
		}
	}
}

// TestReLUNeedsBothSigns: a ReLU is decided 0 only where the format's
// value and the exact one are both ≤ 0: a format value ≤ 0 beside an
// exact one that may be positive is not 0 in both.
func TestReLUNeedsBothSigns(t *testing.T) {
	a := aval{fv: span{-1, 0}, ev: span{-1, 0.5}}
	if got := relu(a); got.zero || got.exact {
		t.Errorf("relu of format ≤ 0, exact up to 0.5: %+v, want neither zero nor exact", got)
	}
	if got := relu(aval{fv: span{-1, 0}, ev: span{-1, 0}}); !got.zero {
		t.Errorf("relu of values ≤ 0 in both: %+v, want zero", got)
	}
	if got := relu(exactVal(span{-1, 2}, -10)); !got.exact {
		t.Errorf("relu of an exact value: %+v, want exact", got)
	}
}

// TestExactlyBeyondFloat64: at a big float of 53 bits, whose arithmetic
// does not overflow, a sum whose float64 enclosure passes float64's
// largest value (+Inf) is not proved exact: max + (max − ulp) needs 54
// bits. (The wide grid's agreement test found the float64 path proving
// it while 2^bits overflowed to +Inf as well.)
func TestExactlyBeyondFloat64(t *testing.T) {
	g := mustGrid(t, "53")
	hi := g.maxOrd
	x := exactVal(span{g.value(hi - 1), g.value(hi)}, g.quantum(hi-1, hi))
	if got := g.add(x, x); got.exact && !got.top {
		t.Errorf("[max − ulp, max] doubled: proved exact (%+v)", got)
	}
}
