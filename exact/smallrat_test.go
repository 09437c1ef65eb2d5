package exact

import (
	"math/big"
	"testing"
)

func TestAddSmall(t *testing.T) {
	const L = SmallLimit
	tests := []struct {
		a, b, c, d int64
		num, den   int64
		ok         bool
	}{
		{0, 1, 0, 1, 0, 1, true},
		{1, 2, 1, 3, 5, 6, true},
		{1, 6, 1, 3, 1, 2, true},      // reduced
		{1, 2, -1, 2, 0, 1, true},     // zero has denominator 1
		{-3, 4, 1, 4, -1, 2, true},    // negative numerator
		{L, 1, 0, 1, L, 1, true},      // at the limit
		{L, 1, 1, 1, 0, 0, false},     // the sum leaves it
		{L + 1, 1, 0, 1, 0, 0, false}, // an operand leaves it
		{-L - 1, 1, 0, 1, 0, 0, false},
		{1, L + 1, 0, 1, 0, 0, false},
		{1, L, 1, L - 1, 0, 0, false}, // the denominator leaves it
		{1, 1 << 16, 1, 1 << 16, 1, 1 << 15, true},
	}
	for _, tc := range tests {
		num, den, ok := AddSmall(tc.a, tc.b, tc.c, tc.d)
		if ok != tc.ok || ok && (num != tc.num || den != tc.den) {
			t.Errorf("AddSmall(%d, %d, %d, %d) = %d, %d, %v; want %d, %d, %v",
				tc.a, tc.b, tc.c, tc.d, num, den, ok, tc.num, tc.den, tc.ok)
		}
		if !ok {
			continue
		}
		want := new(big.Rat).Add(big.NewRat(tc.a, tc.b), big.NewRat(tc.c, tc.d))
		if got := big.NewRat(num, den); got.Cmp(want) != 0 || got.Num().Int64() != num {
			t.Errorf("AddSmall(%d, %d, %d, %d) = %d/%d, not %s in lowest terms", tc.a, tc.b, tc.c, tc.d, num, den, want.RatString())
		}
	}
}

func TestMulSmall(t *testing.T) {
	const L = SmallLimit
	tests := []struct {
		x, y, prod int64
		ok         bool
	}{
		{0, 5, 0, true},
		{-3, 7, -21, true},
		{L, L, L * L, true},
		{-L, L, -L * L, true},
		{L + 1, 1, 0, false},
		{1, -L - 1, 0, false},
	}
	for _, tc := range tests {
		if prod, ok := MulSmall(tc.x, tc.y); ok != tc.ok || ok && prod != tc.prod {
			t.Errorf("MulSmall(%d, %d) = %d, %v; want %d, %v", tc.x, tc.y, prod, ok, tc.prod, tc.ok)
		}
	}
}

func TestGCD64(t *testing.T) {
	tests := []struct{ a, b, want int64 }{
		{0, 0, 0},
		{0, 7, 7},
		{7, 0, 7},
		{-7, 0, 7},
		{12, 18, 6},
		{-12, 18, 6},
		{17, 5, 1},
		{SmallLimit * 6, SmallLimit * 4, SmallLimit * 2},
	}
	for _, tc := range tests {
		if got := GCD64(tc.a, tc.b); got != tc.want {
			t.Errorf("GCD64(%d, %d) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
	}
}

func TestSetSmall(t *testing.T) {
	tests := []struct {
		n, d int64
		want string
	}{
		{0, 5, "0"},
		{6, 3, "2"},
		{4, 6, "2/3"},
		{-4, 6, "-2/3"},
		{1, SmallLimit * SmallLimit, "1/" + big.NewInt(SmallLimit*SmallLimit).String()},
	}
	for _, tc := range tests {
		got := SetSmall(new(big.Rat), tc.n, tc.d)
		if got.RatString() != tc.want {
			t.Errorf("SetSmall(%d, %d) = %s, want %s", tc.n, tc.d, got.RatString(), tc.want)
		}
		// In lowest terms, as big.Rat keeps itself: a Rat built by its own
		// arithmetic from the same value compares and prints the same.
		if want := big.NewRat(tc.n, tc.d); got.Cmp(want) != 0 || got.Denom().Cmp(want.Denom()) != 0 {
			t.Errorf("SetSmall(%d, %d) = %s/%s, want %s", tc.n, tc.d, got.Num(), got.Denom(), want.RatString())
		}
	}
}
