package numeric

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
)

// smallEdge are numerators and denominators about the edges of the
// machine-word path: 2^31 (where products of two words start to need
// checking), 2^32, 2^62 and 2^63 − 1 (the largest word; 2^63 is not one),
// and primes and powers of two, so that some cancel and some do not.
var smallEdge = []int64{1, 2, 3, 6, 7, 1<<31 - 2, 1<<31 - 1, 1 << 31, 1<<31 + 1, 1 << 32, 3037000499, 3037000500,
	1 << 40, 1<<62 - 1, 1 << 62, 1<<62 + 1, math.MaxInt64 - 1, math.MaxInt64, 9223372036854775783}

// randomRat draws a rational on either side of the machine-word path's
// limits, or a huge one.
func randomRat(rng *rand.Rand) *big.Rat {
	pick := func() int64 {
		switch rng.IntN(5) {
		case 0:
			return smallEdge[rng.IntN(len(smallEdge))]
		case 1:
			return 1 + rng.Int64N(1<<32)
		case 2:
			return 1 + rng.Int64N(math.MaxInt64)
		}
		return 1 + rng.Int64N(12)
	}
	r := big.NewRat(pick(), pick())
	if rng.IntN(3) == 0 {
		r.SetInt64(pick()) // integers take the shortest path
	}
	switch rng.IntN(7) {
	case 0:
		r.Neg(r)
	case 1:
		r.SetInt64(0)
	case 2:
		r.Mul(r, new(big.Rat).SetFrac(new(big.Int).Lsh(big.NewInt(3), 70), big.NewInt(7)))
	case 3: // 2^63 and −2^63, just past the words (−2^63 is left out)
		r.SetFrac(new(big.Int).Lsh(big.NewInt(int64(1-2*rng.IntN(2))), 63), big.NewInt(pick()))
	}
	return r
}

// sameRat fails unless got is want in lowest terms (the invariant every
// big.Rat method relies on).
func sameRat(t *testing.T, op string, x, y, got, want *big.Rat) {
	t.Helper()
	if got.Cmp(want) != 0 || got.Num().Cmp(want.Num()) != 0 || got.Denom().Cmp(want.Denom()) != 0 || got.RatString() != want.RatString() {
		t.Fatalf("%s %s %s = %s, want %s", x.RatString(), op, y.RatString(), got.RatString(), want.RatString())
	}
	g := new(big.Int).GCD(nil, nil, new(big.Int).Abs(got.Num()), got.Denom())
	if got.Sign() != 0 && g.Cmp(big.NewInt(1)) != 0 {
		t.Fatalf("%s %s %s = %s/%s, not in lowest terms", x.RatString(), op, y.RatString(), got.Num(), got.Denom())
	}
}

// TestExactSmallPath compares Add, Sub, Mul, Div, Cmp, Max and Min with
// plain big.Rat on random operands about the path's limits, into a fresh
// destination and into each operand.
func TestExactSmallPath(t *testing.T) {
	b := NewExact()
	rng := rand.New(rand.NewPCG(31, 2))
	ops := []struct {
		name string
		ours func(z, x, y *big.Rat) *big.Rat
		ref  func(x, y *big.Rat) *big.Rat
	}{
		{"+", b.Add, func(x, y *big.Rat) *big.Rat { return new(big.Rat).Add(x, y) }},
		{"-", b.Sub, func(x, y *big.Rat) *big.Rat { return new(big.Rat).Sub(x, y) }},
		{"*", b.Mul, func(x, y *big.Rat) *big.Rat { return new(big.Rat).Mul(x, y) }},
		{"/", func(z, x, y *big.Rat) *big.Rat {
			q, err := b.Div(z, x, y)
			if err != nil {
				t.Fatal(err)
			}
			return q
		}, func(x, y *big.Rat) *big.Rat { return new(big.Rat).Quo(x, y) }},
		{"max", b.Max, func(x, y *big.Rat) *big.Rat {
			if x.Cmp(y) >= 0 {
				return x
			}
			return y
		}},
		{"min", b.Min, func(x, y *big.Rat) *big.Rat {
			if x.Cmp(y) <= 0 {
				return x
			}
			return y
		}},
	}
	for trial := 0; trial < 25000; trial++ {
		x, y := randomRat(rng), randomRat(rng)
		if trial%7 == 0 {
			y.Set(x) // equal operands, and equal denominators
		} else if trial%7 == 1 {
			y.SetFrac(big.NewInt(rng.Int64N(100)-50), x.Denom())
		}
		if got, want := b.Cmp(x, y), Order(x.Cmp(y)); got != want {
			t.Fatalf("cmp(%s, %s) = %v, want %v", x.RatString(), y.RatString(), got, want)
		}
		for _, op := range ops {
			if op.name == "/" && y.Sign() == 0 {
				continue
			}
			want := op.ref(x, y)
			sameRat(t, op.name, x, y, op.ours(nil, x, y), want)
			sameRat(t, op.name, x, y, op.ours(new(big.Rat).SetFrac64(5, 3), x, y), want)
			x1, y1 := new(big.Rat).Set(x), new(big.Rat).Set(y)
			sameRat(t, op.name, x, y, op.ours(x1, x1, y1), want)
			x1, y1 = new(big.Rat).Set(x), new(big.Rat).Set(y)
			sameRat(t, op.name, x, y, op.ours(y1, x1, y1), want)
			if op.name == "/" && x.Sign() == 0 {
				continue
			}
			x1 = new(big.Rat).Set(x)
			sameRat(t, op.name, x, x, op.ours(x1, x1, x1), op.ref(x, x))
		}
	}
}

// TestExactSmallDenominatorReference checks the one use of big.Rat this
// path relies on beyond its arithmetic: after SetInt64, Denom is a
// reference to the denominator, so that setting it sets the Rat.
func TestExactSmallDenominatorReference(t *testing.T) {
	z := new(big.Rat).SetInt64(-3)
	z.Denom().SetInt64(4)
	if z.RatString() != "-3/4" {
		t.Fatalf("got %s, want -3/4", z.RatString())
	}
	if got := setWords(new(big.Rat).SetFrac64(7, 9), -6, 4); got.RatString() != "-3/2" {
		t.Fatalf("setWords(-6, 4) = %s, want -3/2", got.RatString())
	}
	if got := setWords(nil, 0, 5); got.RatString() != "0" || !got.IsInt() {
		t.Fatalf("setWords(0, 5) = %s, want 0", got.RatString())
	}
}
