package numeric

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
)

// rat parses "n/d" or "n" exactly (big.Rat.SetString), for the tables.
func rat(t *testing.T, s string) *big.Rat {
	t.Helper()
	r, ok := new(big.Rat).SetString(s)
	if !ok {
		t.Fatalf("bad rational %q", s)
	}
	return r
}

const (
	maxWord = "9223372036854775807"  // 2^63 − 1, the largest word
	twoP63  = "9223372036854775808"  // 2^63, past the words
	twoP64  = "18446744073709551616" // 2^64
)

// TestExactWordBoundaries runs the backend's operations on operands and
// results at the edges of the machine-word path, where a missed overflow
// check would wrap around, and compares each result with big.Rat's.
func TestExactWordBoundaries(t *testing.T) {
	b := NewExact()
	cases := []struct{ x, y string }{
		{maxWord, "1"},               // sum 2^63: not a word
		{maxWord, "-1"},              // fits
		{"-" + maxWord, "1"},         // fits
		{"-" + maxWord, "-1"},        // sum −2^63: left out of the words
		{"-" + maxWord, maxWord},     // 0
		{"3037000499", "3037000499"}, // square just below 2^63
		{"3037000500", "3037000500"}, // square just above
		{"-3037000500", "3037000500"},
		{"4294967296", "2147483648"},  // 2^32·2^31 = 2^63
		{"-4294967296", "2147483648"}, // −2^63
		{"4294967296", "-2147483647"}, // fits
		{maxWord, maxWord},
		{maxWord, "-" + maxWord},
		{"1/" + maxWord, "1/" + maxWord}, // denominators past the words
		{"1/" + maxWord, "1/2"},
		{"1/3", "1/6"},                                     // 1/2: a common factor of the denominators
		{"-1/3", "1/3"},                                    // 0
		{"5/6", "-1/6"},                                    // equal denominators, reduced sum 2/3
		{"1/1099511627776", "1/3298534883328"},             // 1/2^40 and 1/(3·2^40): the lcm fits, the product not
		{"4611686018427387904/3", "4611686018427387905/3"}, // (2^62 + 2^62 + 1)/3 overflows the numerator
		{"4611686018427387904/3", "-4611686018427387905/7"},
		{"9223372036854775806/9223372036854775807", "9223372036854775807/9223372036854775806"}, // products cancel to 1
		{"-9223372036854775806/9223372036854775807", "9223372036854775807/2"},
		{twoP63, "1"},           // a big operand
		{"-" + twoP63, twoP63},  // −2^63: not a word, though an int64
		{"-" + twoP63, "1"},     // sum −2^63 + 1 is a word again
		{twoP64, "1/" + twoP64}, // big × its inverse
		{"1/" + twoP63, twoP63}, // big denominator
		{"-7/" + twoP64, "3/5"},
		{"0", maxWord},
		{maxWord, "0"},
		{"1", "-1"},
	}
	ops := []struct {
		name string
		ours func(x, y *big.Rat) *big.Rat
		ref  func(x, y *big.Rat) *big.Rat
	}{
		{"+", func(x, y *big.Rat) *big.Rat { return b.Add(nil, x, y) }, func(x, y *big.Rat) *big.Rat { return new(big.Rat).Add(x, y) }},
		{"-", func(x, y *big.Rat) *big.Rat { return b.Sub(nil, x, y) }, func(x, y *big.Rat) *big.Rat { return new(big.Rat).Sub(x, y) }},
		{"*", func(x, y *big.Rat) *big.Rat { return b.Mul(nil, x, y) }, func(x, y *big.Rat) *big.Rat { return new(big.Rat).Mul(x, y) }},
		{"/", func(x, y *big.Rat) *big.Rat {
			q, err := b.Div(nil, x, y)
			if err != nil {
				t.Fatal(err)
			}
			return q
		}, func(x, y *big.Rat) *big.Rat { return new(big.Rat).Quo(x, y) }},
		{"dot", func(x, y *big.Rat) *big.Rat {
			var s ExactSum
			return ExactDot(nil, []*big.Rat{x, y}, []*big.Rat{y, x}, &s) // 2xy
		}, func(x, y *big.Rat) *big.Rat {
			p := new(big.Rat).Mul(x, y)
			return p.Add(p, p)
		}},
		{"sum", func(x, y *big.Rat) *big.Rat {
			var s ExactSum
			s.Add(x)
			s.AddProduct(y, big.NewRat(-1, 1))
			s.Add(y)
			s.Add(y)
			return s.Rat(nil) // x + y
		}, func(x, y *big.Rat) *big.Rat { return new(big.Rat).Add(x, y) }},
	}
	for _, c := range cases {
		for _, swap := range []bool{false, true} {
			x, y := rat(t, c.x), rat(t, c.y)
			if swap {
				x, y = y, x
			}
			if got, want := b.Cmp(x, y), Order(x.Cmp(y)); got != want {
				t.Errorf("cmp(%s, %s) = %v, want %v", x.RatString(), y.RatString(), got, want)
			}
			for _, op := range ops {
				if op.name == "/" && y.Sign() == 0 {
					continue
				}
				sameRat(t, op.name, x, y, op.ours(x, y), op.ref(x, y))
			}
		}
	}
}

// TestExactWordArithmetic checks the checked word operations at their
// limits against big.Int, and the gcd against big.Int's.
func TestExactWordArithmetic(t *testing.T) {
	words := []int64{0, 1, -1, 2, -2, 3037000499, -3037000499, 3037000500, 1 << 31, -(1 << 31), 1 << 32,
		1<<62 - 1, 1 << 62, -(1 << 62), math.MaxInt64 - 1, math.MaxInt64, -math.MaxInt64}
	fits := func(z *big.Int) bool { return z.IsInt64() && z.Int64() != math.MinInt64 }
	for _, a := range words {
		for _, c := range words {
			A, C := big.NewInt(a), big.NewInt(c)
			want := new(big.Int).Mul(A, C)
			if got, ok := mulWords(a, c); ok != fits(want) || ok && got != want.Int64() {
				t.Errorf("mulWords(%d, %d) = %d, %v; want %v (fits %v)", a, c, got, ok, want, fits(want))
			}
			want = new(big.Int).Add(A, C)
			if got, ok := addWords(a, c); ok != fits(want) || ok && got != want.Int64() {
				t.Errorf("addWords(%d, %d) = %d, %v; want %v (fits %v)", a, c, got, ok, want, fits(want))
			}
			wantG := new(big.Int).GCD(nil, nil, new(big.Int).Abs(A), new(big.Int).Abs(C))
			if got := gcdWords(abs64(a), abs64(c)); new(big.Int).SetUint64(got).Cmp(wantG) != 0 {
				t.Errorf("gcdWords(|%d|, |%d|) = %d, want %v", a, c, got, wantG)
			}
		}
	}
}

// TestExactSumDot compares ExactDot and ExactSum with big.Rat's products
// and sums on random vectors of words about the limits, big rationals and
// zeros, mixed, reusing one accumulator throughout (so that a sum that
// left the words is reset properly for the next).
func TestExactSumDot(t *testing.T) {
	rng := rand.New(rand.NewPCG(63, 1))
	var s ExactSum
	for trial := 0; trial < 6000; trial++ {
		n := 1 + rng.IntN(8)
		x, y := make([]*big.Rat, n), make([]*big.Rat, n+rng.IntN(2))
		for k := range y {
			y[k] = randomRat(rng)
			if k < n {
				x[k] = randomRat(rng)
				if trial%3 == 0 { // integers, the path of the lookup's scores
					x[k].SetInt64(x[k].Num().Int64() % (1 << 40))
					y[k].SetInt64(y[k].Num().Int64())
				}
			}
		}
		want := new(big.Rat)
		for k := range x {
			want.Add(want, new(big.Rat).Mul(x[k], y[k]))
		}
		got := ExactDot(new(big.Rat).SetFrac64(2, 3), x, y, &s)
		sameRat(t, "·", x[0], y[0], got, want)

		s.Reset()
		want.SetInt64(0)
		for k := range x {
			s.Add(x[k])
			s.AddProduct(x[k], y[k])
			want.Add(want, x[k])
			want.Add(want, new(big.Rat).Mul(x[k], y[k]))
		}
		sameRat(t, "Σ", x[0], y[0], s.Rat(nil), want)
	}
	var zero ExactSum // the zero value is 0
	if got := zero.Rat(nil); got.Sign() != 0 {
		t.Fatalf("zero ExactSum = %s, want 0", got.RatString())
	}
	zero.Add(big.NewRat(-1, 3))
	if got := zero.Rat(nil); got.RatString() != "-1/3" {
		t.Fatalf("0 + (−1/3) = %s", got.RatString())
	}
}

// FuzzExactWords compares the backend's +, −, ×, ÷, comparison and an
// ExactSum of the two products x·y and y·x with big.Rat's on rationals
// a/b and c/d of any int64 parts (a zero denominator is read as 1),
// where the word path must take over exactly when everything fits.
func FuzzExactWords(f *testing.F) {
	for _, s := range [][4]int64{
		{math.MaxInt64, 1, 1, 1}, {math.MinInt64, 1, -1, 1}, {-math.MaxInt64, 1, -1, 1},
		{3037000500, 1, 3037000500, 1}, {1 << 62, 3, 1<<62 + 1, 3}, {1, math.MaxInt64, 1, math.MaxInt64 - 1},
		{1, math.MinInt64, 7, -3}, {-5, 6, 1, 6}, {1 << 32, 1, -(1 << 31), 1},
	} {
		f.Add(s[0], s[1], s[2], s[3])
	}
	b := NewExact()
	f.Fuzz(func(t *testing.T, a, bd, c, d int64) {
		frac := func(n, m int64) *big.Rat {
			if m == 0 {
				m = 1
			}
			return new(big.Rat).SetFrac(big.NewInt(n), big.NewInt(m))
		}
		x, y := frac(a, bd), frac(c, d)
		sameRat(t, "+", x, y, b.Add(nil, x, y), new(big.Rat).Add(x, y))
		sameRat(t, "-", x, y, b.Sub(nil, x, y), new(big.Rat).Sub(x, y))
		sameRat(t, "*", x, y, b.Mul(nil, x, y), new(big.Rat).Mul(x, y))
		if y.Sign() != 0 {
			q, err := b.Div(nil, x, y)
			if err != nil {
				t.Fatal(err)
			}
			sameRat(t, "/", x, y, q, new(big.Rat).Quo(x, y))
		}
		if got, want := b.Cmp(x, y), Order(x.Cmp(y)); got != want {
			t.Fatalf("cmp(%s, %s) = %v, want %v", x.RatString(), y.RatString(), got, want)
		}
		var s ExactSum
		want := new(big.Rat).Mul(x, y)
		want.Add(want, want)
		want.Add(want, x)
		sameRat(t, "x·y + y·x + x", x, y, ExactDot(nil, []*big.Rat{x, y, x}, []*big.Rat{y, x, big.NewRat(1, 1)}, &s), want)
	})
}
