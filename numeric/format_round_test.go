package numeric

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
)

// TestFormatRoundOracle compares Round and RoundBig with roundOracle on
// every value, every midpoint and its neighbours, the overflow and underflow
// boundaries, and seeded random inputs, in both signs.
func TestFormatRoundOracle(t *testing.T) {
	const seed = 7919
	t.Logf("seed %d", seed)
	for k, sf := range smallFormats() {
		f := sf.f
		t.Run(f.Name, func(t *testing.T) {
			t.Parallel()
			o := newRoundOracle(t, sf)
			failures := 0
			// check rounds the positive x (exact) and −x with RoundBig, and
			// with Round too when x is a float64.
			check := func(desc string, x *big.Float) {
				t.Helper()
				if failures > 20 {
					return
				}
				xr, _ := x.Rat(nil)
				want := o.round(xr)
				xf, acc := x.Float64()
				isF64 := acc == big.Exact
				for _, neg := range []bool{false, true} {
					in, w, inf := x, want, xf
					if neg {
						in, w, inf = new(big.Float).Neg(x), negate(want), negate(xf)
					}
					if got := f.RoundBig(in); !sameFloat(got, w) {
						failures++
						t.Errorf("RoundBig(%s = %s) = %g, want %g", desc, in.Text('p', 0), got, w)
					}
					if isF64 {
						if got := f.Round(inf); !sameFloat(got, w) {
							failures++
							t.Errorf("Round(%s = %x) = %g, want %g", desc, inf, got, w)
						}
					}
				}
			}
			const prec = 400
			// relOffset returns x × (1 + s × 2^−200) at 400 bits, exactly.
			relOffset := func(x *big.Float, s int) *big.Float {
				d := new(big.Float).SetMantExp(x, -200)
				if s < 0 {
					d.Neg(d)
				}
				return new(big.Float).SetPrec(prec).Add(x, d)
			}
			f64 := func(x float64) *big.Float { return new(big.Float).SetFloat64(x) }

			n := len(o.vals)
			for i := 0; i < n; i++ {
				check("value", f64(o.flts[i]))
				if i == n-1 {
					break
				}
				// The midpoint is exact in float64: the values have at most
				// 11 significant bits and exponents far inside float64's.
				mid := (o.flts[i] + o.flts[i+1]) / 2
				check("midpoint", f64(mid))
				check("midpoint+ulp64", f64(math.Nextafter(mid, math.Inf(1))))
				check("midpoint-ulp64", f64(math.Nextafter(mid, 0)))
				check("midpoint×(1+2^-200)", relOffset(f64(mid), 1))
				check("midpoint×(1-2^-200)", relOffset(f64(mid), -1))
			}

			// Overflow boundary: thr is MaxFinite + half the top spacing.
			thr, _ := sf.threshold.Float64()
			maxF := f.MaxFinite()
			edge := []struct {
				desc string
				x    *big.Float
			}{
				{"threshold", f64(thr)},
				{"threshold+ulp64", f64(math.Nextafter(thr, math.Inf(1)))},
				{"threshold-ulp64", f64(math.Nextafter(thr, 0))},
				{"threshold×(1+2^-200)", relOffset(f64(thr), 1)},
				{"threshold×(1-2^-200)", relOffset(f64(thr), -1)},
				{"MaxFinite+ulp64", f64(math.Nextafter(maxF, math.Inf(1)))},
				{"MaxFinite×(1+2^-200)", relOffset(f64(maxF), 1)},
				{"MaxFinite×(1-2^-200)", relOffset(f64(maxF), -1)},
				{"2^(EMax+1)", pow2Float(f.EMax + 1)},
				{"1.5×2^(EMax+1)", f64(1.5 * math.Ldexp(1, f.EMax+1))},
				{"2^(EMax+2)", pow2Float(f.EMax + 2)},
				{"2^(EMax+1)-2^-300", new(big.Float).SetPrec(prec).Sub(pow2Float(f.EMax+1), pow2Float(-300))},
				{"MaxFloat64", f64(math.MaxFloat64)},
				{"2^1024", pow2Float(1024)},
				{"2^5000", pow2Float(5000)},
				// Underflow boundary (MinSubnormal/2 is also the first
				// midpoint above): ties to even give 0.
				{"MinSubnormal/2", f64(f.MinSubnormal() / 2)},
				{"MinSubnormal/2×(1+2^-200)", relOffset(f64(f.MinSubnormal()/2), 1)},
				{"MinSubnormal/2×(1-2^-200)", relOffset(f64(f.MinSubnormal()/2), -1)},
				{"MinSubnormal/4", f64(f.MinSubnormal() / 4)},
				{"MinSubnormal×0.75", f64(f.MinSubnormal() * 0.75)},
				{"MinSubnormal×1.5", f64(f.MinSubnormal() * 1.5)}, // tie 1 vs 2: 2 is even
				{"MinSubnormal×2.5", f64(f.MinSubnormal() * 2.5)}, // tie 2 vs 3: 2
				{"MinNormal-MinSubnormal/2", f64(f.MinNormal() - f.MinSubnormal()/2)},
				{"2^-1074", f64(0x1p-1074)},
				{"2^-1075", pow2Float(-1075)},
				{"2^-5000", pow2Float(-5000)},
				{"3×2^-5000", new(big.Float).SetMantExp(big.NewFloat(3), -5000)},
			}
			for _, e := range edge {
				check(e.desc, e.x)
			}

			// Seeded random float64s, spread over the format's exponent
			// range and a little beyond, plus random points near midpoints.
			rng := rand.New(rand.NewPCG(seed, uint64(k)))
			lo, hi := f.EMin-f.P-3, f.EMax+3
			for range 4000 {
				e := lo + rng.IntN(hi-lo+1)
				m := rng.Uint64()>>11 | 1<<52 // 53-bit significand
				check("random", f64(math.Ldexp(float64(m), e-52)))
			}
			for range 2000 {
				i := rng.IntN(n - 1)
				mid := (o.flts[i] + o.flts[i+1]) / 2
				steps := rng.IntN(64) - 32
				x := mid
				for ; steps > 0; steps-- {
					x = math.Nextafter(x, math.Inf(1))
				}
				for ; steps < 0; steps++ {
					x = math.Nextafter(x, 0)
				}
				check("near midpoint", f64(x))
			}
			// Random 200-bit significands for RoundBig only.
			for range 2000 {
				e := lo + rng.IntN(hi-lo+1)
				mant := new(big.Int).SetUint64(rng.Uint64() | 1<<63)
				for range 2 {
					mant.Lsh(mant, 64).Or(mant, new(big.Int).SetUint64(rng.Uint64()))
				}
				x := new(big.Float).SetPrec(200).SetInt(mant) // 192 bits, exact
				x.SetMantExp(x, e-x.MantExp(nil))
				check("random big", x)
			}
			// -0 keeps its sign; +0 stays +0.
			if got := f.Round(math.Copysign(0, -1)); !sameFloat(got, math.Copysign(0, -1)) {
				t.Errorf("Round(-0) = %g, want -0", got)
			}
			if got := f.RoundBig(new(big.Float).Neg(new(big.Float))); !sameFloat(got, math.Copysign(0, -1)) {
				t.Errorf("RoundBig(-0) = %g, want -0", got)
			}
			if got := f.Round(0); !sameFloat(got, 0) {
				t.Errorf("Round(+0) = %g, want +0", got)
			}
		})
	}
}

// TestFormatRoundExamples lists hand-derived roundings, including the
// boundaries named in the specifications, for a quick reading of failures.
func TestFormatRoundExamples(t *testing.T) {
	inf, nan := math.Inf(1), math.NaN()
	tests := []struct {
		f    *Format
		x    float64
		want float64
	}{
		// fp16 near the top: spacing 32 in [32768, 65536).
		{Binary16, 65504, 65504},
		{Binary16, 65519, 65504},
		{Binary16, 65519.99, 65504},
		{Binary16, 65520, inf}, // tie between 65504 (odd) and 65536 (even) → overflow
		{Binary16, -65520, math.Inf(-1)},
		{Binary16, 1 + 0x1p-11, 1},               // tie between 1 (even) and 1+2^−10
		{Binary16, 1 + 3*0x1p-11, 1 + 2*0x1p-10}, // tie between 1+2^−10 (odd) and 1+2^−9
		{Binary16, 0x1p-25, 0},                   // half of MinSubnormal: tie to 0
		{Binary16, -0x1p-25, math.Copysign(0, -1)},
		{Binary16, 0x1p-25 + 0x1p-40, 0x1p-24}, // just above half: MinSubnormal
		{Binary16, 0x1p-14 - 0x1p-25, 0x1p-14}, // tie between 0x3FF (odd) and 0x400
		{Binary16, 0.1, 0.0999755859375},       // 0x2E66 = 1638/16384
		// E4M3 top binade [256, 448] spacing 32.
		{FP8E4M3, 448, 448},
		{FP8E4M3, 464, 448}, // tie, 448 = S.1111.110 is even
		{FP8E4M3, 464.0000001, nan},
		{FP8E4M3, 480, nan},
		{FP8E4M3, -500, nan},
		{FP8E4M3, 432, 448}, // tie between 416 (odd 101) and 448 (even 110)
		{FP8E4M3, 400, 384}, // tie between 384 (even 100) and 416 (odd)
		{FP8E4M3, 0x1p-10, 0},
		{FP8E4M3, 0x1p-10 * 3, 0x1p-8}, // tie between 1 and 2 × 2^−9: 2
		// E5M2 top binade spacing 8192.
		{FP8E5M2, 57344, 57344},
		{FP8E5M2, 61439, 57344},
		{FP8E5M2, 61440, inf},
		{FP8E5M2, 0x1p-17, 0},
		{FP8E5M2, 0x1p-17 * 3, 0x1p-15},
		// bf16: 1 + 2^−8 is a tie between 1 (even) and 1 + 2^−7.
		{BFloat16, 1 + 0x1p-8, 1},
		{BFloat16, 1 + 0x1p-8 + 0x1p-30, 1 + 0x1p-7},
		{BFloat16, 0x1.ffp127, inf},
		{BFloat16, 0x1.fefffffffffffp127, 0x1.fep127},
		{BFloat16, 0x1p-134, 0},
		// fp32 and fp64.
		{Binary32, 0x1p-150, 0},
		{Binary32, 0x1.0000000000001p-150, 0x1p-149},
		{Binary32, 0x1.ffffffp127, inf},
		{Binary32, 0x1.fffffefffffffp127, math.MaxFloat32},
		{Binary64, 0x1p-1074, 0x1p-1074},
		{Binary64, math.MaxFloat64, math.MaxFloat64},
	}
	for _, tc := range tests {
		if got := tc.f.Round(tc.x); !sameFloat(got, tc.want) {
			t.Errorf("%s.Round(%g) = %g, want %g", tc.f.Name, tc.x, got, tc.want)
		}
		if got := tc.f.RoundBig(new(big.Float).SetFloat64(tc.x)); !sameFloat(got, tc.want) {
			t.Errorf("%s.RoundBig(%g) = %g, want %g", tc.f.Name, tc.x, got, tc.want)
		}
	}
}

// TestFormatRoundBigNative compares RoundBig for binary32 and binary64 with
// big.Float's Float32 and Float64 conversions, which are correctly rounded
// to nearest even with subnormals and overflow, and Binary32.Round with Go's
// float64 → float32 conversion.
func TestFormatRoundBigNative(t *testing.T) {
	const seed = 31337
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 2))
	natives := []struct {
		f      *Format
		native func(*big.Float) float64
	}{
		{Binary32, func(x *big.Float) float64 { v, _ := x.Float32(); return float64(v) }},
		{Binary64, func(x *big.Float) float64 { v, _ := x.Float64(); return v }},
	}
	for _, nt := range natives {
		f := nt.f
		var xs []*big.Float
		// Boundaries, with a 200-bit significand where it matters.
		tiny := pow2Float(-200)
		minSub := pow2Float(f.EMin - f.P + 1)
		halfSub := pow2Float(f.EMin - f.P)
		top := pow2Float(f.EMax + 1)
		halfUlpTop := pow2Float(f.EMax - f.P) // MaxFinite + this is the overflow threshold
		mk := func(ops ...*big.Float) *big.Float {
			z := new(big.Float).SetPrec(1200)
			for _, op := range ops {
				z.Add(z, op)
			}
			return z
		}
		neg := func(x *big.Float) *big.Float { return new(big.Float).Neg(x) }
		thr := mk(f64Big(f.MaxFinite()), halfUlpTop)
		xs = append(xs,
			halfSub, // tie to 0
			mk(halfSub, new(big.Float).Mul(halfSub, tiny)),
			mk(halfSub, neg(new(big.Float).Mul(halfSub, tiny))),
			mk(minSub, halfSub), // 1.5 × MinSubnormal: tie to 2
			minSub,
			pow2Float(f.EMin),
			mk(pow2Float(f.EMin), neg(halfSub)), // tie between max subnormal and min normal
			thr,                                 // overflow
			mk(thr, neg(new(big.Float).Mul(thr, tiny))),
			mk(thr, new(big.Float).Mul(thr, tiny)),
			top,
			pow2Float(5000), pow2Float(-5000),
		)
		for range 6000 {
			// A random 200-bit significand over the whole exponent range,
			// from below half the smallest subnormal to above overflow.
			mant := new(big.Int).SetUint64(rng.Uint64() | 1<<63)
			for range 3 {
				mant.Lsh(mant, 64).Or(mant, new(big.Int).SetUint64(rng.Uint64()))
			}
			mant.Rsh(mant, 56) // 200 bits
			x := new(big.Float).SetPrec(200).SetInt(mant)
			lo, hi := f.EMin-f.P-3, f.EMax+3
			e := lo + rng.IntN(hi-lo+1)
			x.SetMantExp(x, e+1-x.MantExp(nil)) // x in [2^e, 2^(e+1))
			xs = append(xs, x)
			// Now and then force a tie: cut x to the format's grid near it
			// (spacing 2^qe, subnormal grid below 2^EMin), add half a
			// spacing, and nudge that by ±2^−200 relative.
			if rng.IntN(4) == 0 {
				qe := max(e, f.EMin) - f.P + 1
				k, _ := new(big.Float).SetMantExp(x, -qe).Int(nil) // floor: x > 0
				y := new(big.Float).SetPrec(400).SetInt(k.Lsh(k, 1).Add(k, big.NewInt(1)))
				y.SetMantExp(y, qe-1) // (2k + 1) × 2^(qe−1)
				xs = append(xs, y, mk(y, new(big.Float).Mul(y, tiny)), mk(y, neg(new(big.Float).Mul(y, tiny))))
			}
		}
		fails := 0
		for _, x := range xs {
			for _, s := range []int{1, -1} {
				in := x
				if s < 0 {
					in = neg(x)
				}
				want := nt.native(in)
				if got := f.RoundBig(in); !sameFloat(got, want) && fails < 20 {
					fails++
					t.Errorf("%s.RoundBig(%s) = %g, big.Float gives %g", f.Name, in.Text('p', 0), got, want)
				}
			}
		}
	}

	// Binary32.Round against float32(x) and Binary64.Round against the
	// identity, on random float64s: exponents near binary32's range and
	// arbitrary bit patterns.
	for i := range 100000 {
		var x float64
		if i%2 == 0 {
			e := -155 + rng.IntN(290)
			x = math.Ldexp(float64(rng.Uint64()>>11|1<<52), e-52)
			if rng.IntN(2) == 0 {
				x = -x
			}
		} else {
			x = math.Float64frombits(rng.Uint64())
		}
		want := float64(float32(x))
		if got := Binary32.Round(x); !sameFloat(got, want) {
			t.Fatalf("fp32.Round(%x) = %x, float32 conversion gives %x", x, got, want)
		}
		if got := Binary64.Round(x); !sameFloat(got, x) {
			t.Fatalf("fp64.Round(%x) = %x, want it unchanged", x, got)
		}
	}
}

func f64Big(x float64) *big.Float { return new(big.Float).SetFloat64(x) }

// TestFormatInfNaN checks the handling of infinities and NaN.
func TestFormatInfNaN(t *testing.T) {
	inf, nan := math.Inf(1), math.NaN()
	all := []*Format{Binary64, Binary32, Binary16, BFloat16, FP8E4M3, FP8E5M2}
	for _, f := range all {
		// ±Inf stay ±Inf where the format has them; E4M3 has none and
		// OFP8 maps them to NaN.
		wantPos, wantNeg := inf, -inf
		if f == FP8E4M3 {
			wantPos, wantNeg = nan, nan
		}
		cases := []struct {
			x, want float64
		}{
			{inf, wantPos}, {-inf, wantNeg}, {nan, nan}, {-nan, nan},
		}
		for _, c := range cases {
			if got := f.Round(c.x); !sameFloat(got, c.want) {
				t.Errorf("%s.Round(%g) = %g, want %g", f.Name, c.x, got, c.want)
			}
			if math.IsInf(c.x, 0) {
				if got := f.RoundBig(new(big.Float).SetInf(c.x < 0)); !sameFloat(got, c.want) {
					t.Errorf("%s.RoundBig(%g) = %g, want %g", f.Name, c.x, got, c.want)
				}
			}
		}
		// Encode(NaN) is a NaN pattern.
		if d := f.Decode(f.Encode(nan)); !math.IsNaN(d) {
			t.Errorf("%s.Decode(Encode(NaN)) = %g, want NaN", f.Name, d)
		}
		if f.HasInf {
			for _, x := range []float64{inf, -inf} {
				if d := f.Decode(f.Encode(x)); d != x {
					t.Errorf("%s.Decode(Encode(%g)) = %g", f.Name, x, d)
				}
			}
		}
		if !f.Contains(nan) {
			t.Errorf("%s.Contains(NaN) = false", f.Name)
		}
		if f.Contains(inf) != f.HasInf {
			t.Errorf("%s.Contains(+Inf) = %v, want %v", f.Name, f.Contains(inf), f.HasInf)
		}
		// 1 + Epsilon/2 lies strictly between two values of every format.
		if x := 1 + f.Epsilon()/2; f != Binary64 && f.Contains(x) {
			t.Errorf("%s.Contains(%g) = true, want false", f.Name, x)
		}
	}
}

// FuzzFormatRound checks, for any float64, that Round and RoundBig agree in
// every format, that the result is a fixed point of Round and that a finite
// result survives Encode and Decode.
func FuzzFormatRound(f *testing.F) {
	seeds := []float64{
		0, math.Copysign(0, -1), 1, -1, 0.1, math.Inf(1), math.Inf(-1), math.NaN(),
		65504, 65519, 65520, 65536, 448, 464, 464.00000001, 480, 57344, 61440,
		0x1.fep127, 0x1.ffp127, math.MaxFloat32, 0x1.ffffffp127, math.MaxFloat64,
		0x1p-24, 0x1p-25, 0x1.8p-25, 0x1p-9, 0x1p-10, 0x1p-16, 0x1p-17, 0x1p-133, 0x1p-134,
		0x1p-149, 0x1p-150, 0x1p-1074, 0x1p-1022, 1 + 0x1p-11, 1 + 0x1p-8,
	}
	for _, s := range seeds {
		f.Add(math.Float64bits(s))
		f.Add(math.Float64bits(-s))
	}
	formats := []*Format{Binary64, Binary32, Binary16, BFloat16, FP8E4M3, FP8E5M2}
	f.Fuzz(func(t *testing.T, bits uint64) {
		x := math.Float64frombits(bits)
		for _, fm := range formats {
			r := fm.Round(x)
			if !math.IsNaN(x) {
				if rb := fm.RoundBig(new(big.Float).SetFloat64(x)); !sameFloat(r, rb) {
					t.Errorf("%s: Round(%x) = %x but RoundBig = %x", fm.Name, x, r, rb)
				}
			} else if !math.IsNaN(r) {
				t.Errorf("%s: Round(NaN) = %g", fm.Name, r)
			}
			if rr := fm.Round(r); !sameFloat(rr, r) {
				t.Errorf("%s: Round(%x) = %x is not a fixed point: Round gives %x", fm.Name, x, r, rr)
			}
			if !math.IsNaN(r) && !math.IsInf(r, 0) {
				if d := fm.Decode(fm.Encode(r)); !sameFloat(d, r) {
					t.Errorf("%s: Decode(Encode(%x)) = %x", fm.Name, r, d)
				}
			}
		}
	})
}
