package bigmath

import (
	"math/big"
	"math/rand/v2"
	"testing"
	"time"
)

// TestTrigZero: sin 0 and cos 0 are exact points, so that Ziv's strategy
// stops at once on them, at every precision and for −0 too.
func TestTrigZero(t *testing.T) {
	negZero := new(big.Float).Neg(new(big.Float))
	for _, w := range []uint{2, 24, 53, 300} {
		for _, x := range []*big.Float{new(big.Float), negZero} {
			tests := []struct {
				name string
				got  Interval
				want int64
			}{
				{"sin", Sin(x, w), 0},
				{"cos", Cos(x, w), 1},
			}
			for _, tc := range tests {
				if !tc.got.IsPoint() || tc.got.Lo.Cmp(big.NewFloat(float64(tc.want))) != 0 {
					t.Errorf("%s(%v) at %d bits = [%v, %v], want the point %d", tc.name, x, w, tc.got.Lo, tc.got.Hi, tc.want)
				}
			}
		}
	}
}

// TestTrigBeyondRange: arguments of 2^TrigMaxExp and more, and ±Inf, give
// [−1, 1] at once instead of computing π to millions of bits; the largest
// reduced arguments are checked against mpmath in series.txt.
func TestTrigBeyondRange(t *testing.T) {
	one := big.NewFloat(1)
	args := []*big.Float{
		new(big.Float).SetMantExp(one, TrigMaxExp),
		new(big.Float).SetMantExp(big.NewFloat(-0.75), TrigMaxExp+1),
		new(big.Float).SetMantExp(one, 1<<30),
		new(big.Float).SetInf(false),
		new(big.Float).SetInf(true),
	}
	for _, x := range args {
		for name, f := range map[string]func(*big.Float, uint) Interval{"sin": Sin, "cos": Cos} {
			start := time.Now()
			iv := f(x, 53)
			if iv.Lo.Cmp(big.NewFloat(-1)) != 0 || iv.Hi.Cmp(one) != 0 {
				t.Errorf("%s(%s) = [%v, %v], want [-1, 1]", name, x.Text('p', 0), iv.Lo, iv.Hi)
			}
			if d := time.Since(start); d > time.Second {
				t.Errorf("%s(%s) took %v", name, x.Text('p', 0), d)
			}
		}
	}
	// An interval there: the ends say nothing, so neither may the result.
	x := Interval{args[0], new(big.Float).SetPrec(TrigMaxExp+2).Add(args[0], one)}
	if x.IsPoint() {
		t.Fatal("2^TrigMaxExp + 1 was rounded")
	}
	for name, f := range map[string]func(Interval, uint) Interval{"sin": ISin, "cos": ICos} {
		if iv := f(x, 53); iv.Lo.Cmp(big.NewFloat(-1)) != 0 || iv.Hi.Cmp(one) != 0 {
			t.Errorf("%s[2^%d, 2^%d + 1] = [%v, %v], want [-1, 1]", name, TrigMaxExp, TrigMaxExp, iv.Lo, iv.Hi)
		}
	}
}

// TestITrig: interval sine and cosine. Ends near an extremum must reach
// exactly ±1, monotone pieces must stay inside the hull of the end values,
// and every point of the interval must map inside (checked at sample
// points with the point functions, which series.txt checks against
// mpmath).
func TestITrig(t *testing.T) {
	tests := []struct {
		fn     string
		lo, hi float64
		// wantLo, wantHi: the exact end when it is ±1; 0 when it is the
		// value at an end of the argument.
		wantLo, wantHi float64
	}{
		{"sin", 1.5, 1.7, 0, 1},      // π/2 inside: the maximum
		{"sin", 4.6, 4.8, -1, 0},     // 3π/2: the minimum
		{"sin", 1, 1.2, 0, 0},        // increasing
		{"sin", 2, 2.5, 0, 0},        // decreasing
		{"sin", -0.25, 0.25, 0, 0},   // through zero, increasing
		{"sin", 0, 7, -1, 1},         // wider than π
		{"sin", 1e6, 1e6 + 1, 0, 0},  // monotone far out (cos > 0 on it)
		{"sin", 1e6, 1e6 + 2, 0, 1},  // sin(1e6 + 1.1) ≈ 1: the maximum is inside
		{"cos", -0.1, 0.1, 0, 1},     // the maximum at 0
		{"cos", 3, 3.3, -1, 0},       // π: the minimum
		{"cos", 0.5, 1, 0, 0},        // decreasing
		{"cos", -2.9, 0.2, -1, 1},    // width 3.1 > 3
		{"cos", 1.5, 1.6, 0, 0},      // through zero
		{"cos", -1e-9, 1e-9, 0, 1},   // narrow around the maximum
		{"cos", 6.2, 6.4, 0, 1},      // 2π
		{"sin", 3.1, 3.2, 0, 0},      // π, through zero, decreasing
		{"sin", -1.6, -1.55, -1, 0},  // −π/2
		{"cos", -3.2, -3.1, -1, 0},   // −π
		{"sin", 7.85, 7.86, 0, 1},    // 5π/2 ≈ 7.854
		{"cos", 12.56, 12.57, 0, 1},  // 4π ≈ 12.566
		{"sin", 1.57, 1.571, 0, 1},   // around π/2 ≈ 1.5708
		{"cos", 1.57, 1.5708, 0, 0},  // cos decreasing, positive
		{"cos", 1.5707, 1.571, 0, 0}, // cos crosses zero at π/2
	}
	for _, tc := range tests {
		f, fi := Sin, ISin
		if tc.fn == "cos" {
			f, fi = Cos, ICos
		}
		for _, w := range []uint{2, 8, 24, 53, 113} {
			x := Interval{big.NewFloat(tc.lo), big.NewFloat(tc.hi)}
			got := fi(x, w)
			a, b := f(x.Lo, w), f(x.Hi, w)
			hull := Hull(a, b)
			switch tc.wantLo {
			case -1:
				if got.Lo.Cmp(big.NewFloat(-1)) != 0 {
					t.Errorf("%s[%g, %g] at %d bits: lower end %v, want -1", tc.fn, tc.lo, tc.hi, w, got.Lo)
				}
			default:
				if got.Lo.Cmp(hull.Lo) != 0 {
					t.Errorf("%s[%g, %g] at %d bits: lower end %v, want %v", tc.fn, tc.lo, tc.hi, w, got.Lo, hull.Lo)
				}
			}
			switch tc.wantHi {
			case 1:
				if got.Hi.Cmp(big.NewFloat(1)) != 0 {
					t.Errorf("%s[%g, %g] at %d bits: upper end %v, want 1", tc.fn, tc.lo, tc.hi, w, got.Hi)
				}
			default:
				if got.Hi.Cmp(hull.Hi) != 0 {
					t.Errorf("%s[%g, %g] at %d bits: upper end %v, want %v", tc.fn, tc.lo, tc.hi, w, got.Hi, hull.Hi)
				}
			}
			for i := 0; i <= 16; i++ {
				p := tc.lo + (tc.hi-tc.lo)*float64(i)/16
				if v := f(big.NewFloat(p), 200); v.Lo.Cmp(got.Hi) > 0 || v.Hi.Cmp(got.Lo) < 0 ||
					!got.Contains(v.Lo) && !got.Contains(v.Hi) {
					t.Errorf("%s[%g, %g] at %d bits = [%v, %v] misses %s(%g) = [%v, %v]",
						tc.fn, tc.lo, tc.hi, w, got.Lo, got.Hi, tc.fn, p, v.Lo, v.Hi)
				}
			}
		}
	}
}

// TestSinCosPythagoras: sin²x + cos²x = 1, so the enclosure of that sum
// computed from the two enclosures must contain 1; and it must be a few
// ulps wide, or the pair would be consistent with any value. Seeded random
// arguments with 1 to 200-bit significands, magnitudes from 2^-80 to 2^300
// and working precisions from 2 to 300 bits.
func TestSinCosPythagoras(t *testing.T) {
	const seed = 7
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 2))
	one := big.NewFloat(1)
	for i := 0; i < 2000; i++ {
		bits := uint(1 + rng.IntN(200))
		m := new(big.Int)
		for m.BitLen() < int(bits) {
			m.Lsh(m, 64).Or(m, new(big.Int).SetUint64(rng.Uint64()))
		}
		m.Rsh(m, uint(m.BitLen())-bits) // exactly bits bits, the top one set
		x := new(big.Float).SetInt(m)
		x.SetMantExp(x, rng.IntN(380)-80-int(bits))
		if rng.IntN(2) == 0 {
			x.Neg(x)
		}
		w := uint(2 + rng.IntN(299))
		s, c := Sin(x, w), Cos(x, w)
		for _, iv := range []Interval{s, c} {
			if iv.Lo.Cmp(iv.Hi) > 0 || iv.Lo.Cmp(big.NewFloat(-1)) < 0 || iv.Hi.Cmp(one) > 0 {
				t.Fatalf("x = %s at %d bits: [%v, %v] is not a subinterval of [-1, 1]", x.Text('p', 0), w, iv.Lo, iv.Hi)
			}
		}
		sum := IAdd(ISqr(s, w+8), ISqr(c, w+8), w+8)
		if !sum.Contains(one) {
			t.Fatalf("x = %s at %d bits: sin² + cos² in [%v, %v]", x.Text('p', 0), w, sum.Lo.Text('g', 30), sum.Hi.Text('g', 30))
		}
		// Each square is at most 2·(2 ulps) wide plus rounding; 16 ulps of
		// 1 at w bits leaves room and still fails a loose enclosure.
		width := new(big.Float).Sub(sum.Hi, sum.Lo)
		if width.Cmp(new(big.Float).SetMantExp(one, 4-int(w))) > 0 {
			t.Fatalf("x = %s at %d bits: sin² + cos² in [%v, %v], too wide", x.Text('p', 0), w, sum.Lo.Text('g', 30), sum.Hi.Text('g', 30))
		}
	}
}
