package numeric

// Tests for format.go. Every expected value comes from the specifications:
// IEEE 754-2019 (§3.3 Table 3.2 and §3.4 for binary16/32/64), the bfloat16
// definition (the top 16 bits of a binary32), and the OCP 8-bit Floating
// Point Specification (OFP8) v1.0 for E4M3 and E5M2. The oracles below
// (refDecode, roundOracle) are written from those definitions and do not
// call the code under test, except where a test says it uses Decode only to
// enumerate patterns.

import (
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"sort"
	"testing"
)

// pow2Rat returns 2^k as an exact rational.
func pow2Rat(k int) *big.Rat {
	if k >= 0 {
		return new(big.Rat).SetInt(new(big.Int).Lsh(big.NewInt(1), uint(k)))
	}
	return new(big.Rat).SetFrac(big.NewInt(1), new(big.Int).Lsh(big.NewInt(1), uint(-k)))
}

// pow2Float returns 2^k as a big.Float (any k that big.Float can hold).
func pow2Float(k int) *big.Float {
	return new(big.Float).SetMantExp(big.NewFloat(1), k)
}

// refValue is a decoded bit pattern.
type refValue struct {
	neg, nan, inf bool
	mag           *big.Rat // magnitude of a finite value
}

func (r refValue) float64() float64 {
	switch {
	case r.nan:
		return math.NaN()
	case r.inf:
		if r.neg {
			return math.Inf(-1)
		}
		return math.Inf(1)
	}
	f, exact := r.mag.Float64()
	if !exact {
		panic(fmt.Sprintf("refValue %v is not a float64", r.mag))
	}
	if r.neg {
		return math.Copysign(f, -1)
	}
	return f
}

// refDecode decodes the pattern b of a format with w exponent bits and t
// trailing significand bits, written from IEEE 754-2019 §3.4: with biased
// exponent E, trailing significand T, bias = 2^(w−1) − 1, p = t + 1,
//
//	E = 2^w − 1, T ≠ 0: NaN
//	E = 2^w − 1, T = 0: (−1)^S × ∞
//	1 ≤ E ≤ 2^w − 2:   (−1)^S × 2^(E−bias) × (1 + 2^(1−p) × T)
//	E = 0:             (−1)^S × 2^(1−bias) × (0 + 2^(1−p) × T)
//
// With e4m3 set it follows OFP8 v1.0 §5.1 for E4M3 instead: the exponent
// field 1111 holds normal numbers, except S.1111.111, which is NaN, and there
// are no infinities.
func refDecode(b uint64, w, t int, e4m3 bool) refValue {
	T := int64(b & (1<<t - 1))
	E := int(b>>t) & (1<<w - 1)
	r := refValue{neg: (b>>(t+w))&1 == 1}
	bias := 1<<(w-1) - 1
	allOnes := 1<<w - 1
	switch {
	case E == allOnes && !e4m3 && T != 0:
		r.nan = true
	case E == allOnes && !e4m3:
		r.inf = true
	case E == allOnes && e4m3 && T == 1<<t-1:
		r.nan = true
	case E == 0:
		r.mag = new(big.Rat).Mul(big.NewRat(T, 1), pow2Rat(1-bias-t))
	default:
		r.mag = new(big.Rat).Mul(big.NewRat(1<<t+T, 1), pow2Rat(E-bias-t))
	}
	return r
}

// smallFormat ties a format under test to the parameters of its reference
// decoder, its overflow threshold for round-to-nearest and the counts of its
// special patterns.
type smallFormat struct {
	f       *Format
	w, t    int  // exponent bits, trailing significand bits
	e4m3    bool // OFP8 E4M3 decoding rules
	nanPats int  // number of NaN patterns (both signs)
	infPats int  // number of ±Inf patterns
	// Magnitudes at or above threshold overflow (to ±Inf); with
	// thresholdRounds set, only those strictly above do (to NaN), and the
	// threshold itself rounds to MaxFinite.
	threshold       *big.Rat
	thresholdRounds bool
	overflow        float64 // +Inf, or NaN for E4M3
}

func smallFormats() []smallFormat {
	return []smallFormat{
		// binary16: 2 × (2^10 − 1) NaNs. MaxFinite 65504 = (2 − 2^−10) × 2^15;
		// the top binade [2^15, 2^16) has spacing 2^5 = 32, so 65504 + 16 =
		// 65520 is the midpoint between MaxFinite (odd significand) and 2^16
		// (even): by IEEE 754 §4.3.1 ("an infinitely precise result with
		// magnitude at least b^emax × (b − ½ b^(1−p)) shall round to ∞")
		// 65520 and above become Inf.
		{f: Binary16, w: 5, t: 10, nanPats: 2046, infPats: 2,
			threshold: big.NewRat(65520, 1), overflow: math.Inf(1)},
		// bfloat16: 2 × (2^7 − 1) NaNs. The overflow threshold is
		// 2^127 × (2 − ½ × 2^−7) = (2 − 2^−8) × 2^127 = 0x1.ffp127.
		{f: BFloat16, w: 8, t: 7, nanPats: 254, infPats: 2,
			threshold: new(big.Rat).Mul(big.NewRat(511, 256), pow2Rat(127)), overflow: math.Inf(1)},
		// E4M3: NaN only at S.1111.111 (2 patterns), no Inf. The top binade
		// [256, 512) has spacing 32 and stops at 448 (S.1111.110); 480 would
		// be S.1111.111 = NaN. 464 = 448 + 16 is the tie between 448 (even
		// significand 110) and 480 (odd): ties to even gives 448, and
		// anything above 464 would round to 480 or beyond, which does not
		// exist, so it becomes NaN (OFP8 §5.3 non-saturating mode).
		{f: FP8E4M3, w: 4, t: 3, e4m3: true, nanPats: 2, infPats: 0,
			threshold: big.NewRat(464, 1), thresholdRounds: true, overflow: math.NaN()},
		// E5M2: NaN at S.11111.{01,10,11} (6 patterns), Inf at S.11111.00.
		// MaxFinite 57344 = 1.75 × 2^15, spacing 2^13 = 8192 in the top
		// binade, threshold 57344 + 4096 = 61440.
		{f: FP8E5M2, w: 5, t: 2, nanPats: 6, infPats: 2,
			threshold: big.NewRat(61440, 1), overflow: math.Inf(1)},
	}
}

// TestFormatConstants checks each format's parameters against the
// specifications. The literals are typed in from the standards (hex floats
// are exact).
func TestFormatConstants(t *testing.T) {
	tests := []struct {
		f                *Format
		name             string
		p, expBits, bias int
		emin, emax       int
		bits             int
		hasInf, ieeeNaNs bool
		maxFinite        float64
		minNormal        float64
		minSubnormal     float64
		epsilon          float64
	}{
		// IEEE 754-2019 Table 3.5, binary16: k = 16, p = 11, emax = 15,
		// bias = 15, w = 5. Max (2 − 2^−10) × 2^15 = 65504, min normal 2^−14,
		// min subnormal 2^−14 × 2^−10 = 2^−24, epsilon 2^(1−p) = 2^−10.
		{Binary16, "fp16", 11, 5, 15, -14, 15, 16, true, true,
			65504, 0x1p-14, 0x1p-24, 0x1p-10},
		// bfloat16 = binary32 with 7 stored significand bits: p = 8, w = 8,
		// bias 127. Max (2 − 2^−7) × 2^127 = 0x1.fep127 ≈ 3.3895e38, min
		// subnormal 2^−126 × 2^−7 = 2^−133.
		{BFloat16, "bf16", 8, 8, 127, -126, 127, 16, true, true,
			0x1.fep127, 0x1p-126, 0x1p-133, 0x1p-7},
		// binary32: k = 32, p = 24, emax = 127, bias 127, w = 8.
		{Binary32, "fp32", 24, 8, 127, -126, 127, 32, true, true,
			math.MaxFloat32, 0x1p-126, 0x1p-149, 0x1p-23},
		// binary64: k = 64, p = 53, emax = 1023, bias 1023, w = 11.
		{Binary64, "fp64", 53, 11, 1023, -1022, 1023, 64, true, true,
			math.MaxFloat64, 0x1p-1022, 0x1p-1074, 0x1p-52},
		// OFP8 Table 1, E4M3: bias 7, max normal S.1111.110 = 2^8 × 1.75 =
		// 448, min normal S.0001.000 = 2^−6, max subnormal S.0000.111 =
		// 2^−6 × 0.875, min subnormal S.0000.001 = 2^−9, no infinities,
		// NaN S.1111.111 only. EMax is 8 because exponent field 1111 is normal.
		{FP8E4M3, "fp8-e4m3", 4, 4, 7, -6, 8, 8, false, false,
			448, 0x1p-6, 0x1p-9, 0x1p-3},
		// OFP8 Table 1, E5M2: bias 15, max normal S.11110.11 = 2^15 × 1.75 =
		// 57344, min normal 2^−14, min subnormal S.00000.01 = 2^−16,
		// infinities S.11111.00, NaN S.11111.{01, 10, 11}.
		{FP8E5M2, "fp8-e5m2", 3, 5, 15, -14, 15, 8, true, true,
			57344, 0x1p-14, 0x1p-16, 0x1p-2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := tc.f
			if f.Name != tc.name {
				t.Errorf("Name = %q, want %q", f.Name, tc.name)
			}
			ints := []struct {
				what      string
				got, want int
			}{
				{"P", f.P, tc.p},
				{"ExpBits", f.ExpBits, tc.expBits},
				{"Bias", f.Bias, tc.bias},
				{"EMin", f.EMin, tc.emin},
				{"EMax", f.EMax, tc.emax},
				{"Bits()", f.Bits(), tc.bits},
			}
			for _, c := range ints {
				if c.got != c.want {
					t.Errorf("%s = %d, want %d", c.what, c.got, c.want)
				}
			}
			if f.HasInf != tc.hasInf {
				t.Errorf("HasInf = %v, want %v", f.HasInf, tc.hasInf)
			}
			if f.IEEENaNs != tc.ieeeNaNs {
				t.Errorf("IEEENaNs = %v, want %v", f.IEEENaNs, tc.ieeeNaNs)
			}
			floats := []struct {
				what      string
				got, want float64
			}{
				{"MaxFinite()", f.MaxFinite(), tc.maxFinite},
				{"MinNormal()", f.MinNormal(), tc.minNormal},
				{"MinSubnormal()", f.MinSubnormal(), tc.minSubnormal},
				{"Epsilon()", f.Epsilon(), tc.epsilon},
			}
			for _, c := range floats {
				if !sameFloat(c.got, c.want) {
					t.Errorf("%s = %g (%x), want %g (%x)", c.what, c.got, c.got, c.want, c.want)
				}
			}
			// Consistency with the encoding: EMin = 1 − bias (IEEE §3.3 and
			// OFP8 alike), and the bit width is sign + exponent + stored
			// significand.
			if f.EMin != 1-tc.bias {
				t.Errorf("EMin = %d, want 1 − bias = %d", f.EMin, 1-tc.bias)
			}
		})
	}
	// Decimal cross-checks of the maxima as printed in the specifications.
	decimal := []struct {
		f    *Format
		want float64
	}{
		{Binary16, 65504},
		{BFloat16, 3.3895313892515355e38},
		{Binary32, 3.40282346638528859811704183484516925440e38},
		{FP8E4M3, 448},
		{FP8E5M2, 57344},
	}
	for _, d := range decimal {
		if d.f.MaxFinite() != d.want {
			t.Errorf("%s: MaxFinite() = %g, want %g", d.f.Name, d.f.MaxFinite(), d.want)
		}
	}
}

// TestFormatSpotPatterns decodes and encodes patterns listed in the
// specifications' tables.
func TestFormatSpotPatterns(t *testing.T) {
	nan := math.NaN()
	negZero := math.Copysign(0, -1)
	tests := []struct {
		f    *Format
		bits uint64
		want float64
	}{
		// OFP8 Table 1 (E4M3), S.EEEE.MMM, bias 7.
		{FP8E4M3, 0x00, 0},
		{FP8E4M3, 0x80, negZero},
		{FP8E4M3, 0x01, 0x1p-9},                 // 0.0000.001: 2^−6 × 1/8
		{FP8E4M3, 0x07, 0x1p-6 * 0.875},         // max subnormal 0.0000.111
		{FP8E4M3, 0x08, 0x1p-6},                 // min normal 0.0001.000
		{FP8E4M3, 0x38, 1},                      // 0.0111.000 = 2^0
		{FP8E4M3, 0x3C, 1.5},                    // 0.0111.100
		{FP8E4M3, 0x78, 256},                    // 0.1111.000: exponent 1111 is normal
		{FP8E4M3, 0x7D, 416},                    // 0.1111.101 = 256 × 1.625
		{FP8E4M3, 0x7E, 448},                    // max 0.1111.110 = 256 × 1.75
		{FP8E4M3, 0xFE, -448},                   // 1.1111.110
		{FP8E4M3, 0x7F, nan},                    // 0.1111.111
		{FP8E4M3, 0xFF, nan},                    // 1.1111.111
		{FP8E4M3, 0xB8, -1},                     // 1.0111.000
		{FP8E4M3, 0x81, -0x1p-9},                // 1.0000.001
		{FP8E5M2, 0x00, 0},                      // OFP8 Table 1 (E5M2), S.EEEEE.MM, bias 15.
		{FP8E5M2, 0x80, negZero},                //
		{FP8E5M2, 0x01, 0x1p-16},                // 0.00000.01: 2^−14 × 1/4
		{FP8E5M2, 0x03, 0x1p-14 * 0.75},         // max subnormal 0.00000.11
		{FP8E5M2, 0x04, 0x1p-14},                // min normal 0.00001.00
		{FP8E5M2, 0x3C, 1},                      // 0.01111.00
		{FP8E5M2, 0x7B, 57344},                  // max 0.11110.11 = 2^15 × 1.75
		{FP8E5M2, 0xFB, -57344},                 //
		{FP8E5M2, 0x7C, math.Inf(1)},            // 0.11111.00
		{FP8E5M2, 0xFC, math.Inf(-1)},           // 1.11111.00
		{FP8E5M2, 0x7D, nan},                    // 0.11111.01
		{FP8E5M2, 0x7E, nan},                    // 0.11111.10
		{FP8E5M2, 0x7F, nan},                    // 0.11111.11
		{FP8E5M2, 0xFD, nan},                    //
		{Binary16, 0x0000, 0},                   // IEEE binary16, S.EEEEE.MMMMMMMMMM, bias 15.
		{Binary16, 0x8000, negZero},             //
		{Binary16, 0x0001, 0x1p-24},             // min subnormal
		{Binary16, 0x03FF, 0x1p-14 - 0x1p-24},   // max subnormal
		{Binary16, 0x0400, 0x1p-14},             // min normal
		{Binary16, 0x3C00, 1},                   //
		{Binary16, 0x3C01, 1 + 0x1p-10},         // 1 + epsilon
		{Binary16, 0x3555, 0.333251953125},      // the fp16 nearest 1/3: 0x555 × 2^−12
		{Binary16, 0xC000, -2},                  //
		{Binary16, 0x7BFF, 65504},               // max
		{Binary16, 0x7C00, math.Inf(1)},         //
		{Binary16, 0xFC00, math.Inf(-1)},        //
		{Binary16, 0x7E00, nan},                 // quiet NaN
		{Binary16, 0x7C01, nan},                 // signalling NaN
		{BFloat16, 0x3F80, 1},                   // bf16 = top half of binary32 0x3F800000
		{BFloat16, 0x4049, 3.140625},            // 0x40490000: 2 × 1.5703125
		{BFloat16, 0x7F7F, 0x1.fep127},          // max
		{BFloat16, 0x0080, 0x1p-126},            // min normal
		{BFloat16, 0x0001, 0x1p-133},            // min subnormal
		{BFloat16, 0x7F80, math.Inf(1)},         //
		{BFloat16, 0xFF80, math.Inf(-1)},        //
		{BFloat16, 0x7FC0, nan},                 //
		{Binary32, 0x3F800000, 1},               // IEEE binary32
		{Binary32, 0x00000001, 0x1p-149},        //
		{Binary32, 0x7F7FFFFF, math.MaxFloat32}, //
		{Binary32, 0x80000000, negZero},         //
		{Binary32, 0x7F800000, math.Inf(1)},     //
		{Binary32, 0x7FC00000, nan},             //
		{Binary64, 0x3FF0000000000000, 1},       // IEEE binary64
		{Binary64, 0x0000000000000001, 0x1p-1074},
		{Binary64, 0x7FEFFFFFFFFFFFFF, math.MaxFloat64},
		{Binary64, 0xFFF0000000000000, math.Inf(-1)},
		{Binary64, 0x7FF8000000000000, nan},
	}
	for _, tc := range tests {
		got := tc.f.Decode(tc.bits)
		if !sameFloat(got, tc.want) {
			t.Errorf("%s.Decode(%#x) = %g, want %g", tc.f.Name, tc.bits, got, tc.want)
		}
		if math.IsNaN(tc.want) {
			continue
		}
		if enc := tc.f.Encode(tc.want); enc != tc.bits {
			t.Errorf("%s.Encode(%g) = %#x, want %#x", tc.f.Name, tc.want, enc, tc.bits)
		}
	}
}

// TestFormatAllPatterns enumerates every pattern of fp16, bf16 and both fp8
// formats: Decode agrees with the reference decoders, Encode inverts it, and
// decoded values are fixed points of Round and RoundBig.
func TestFormatAllPatterns(t *testing.T) {
	for _, sf := range smallFormats() {
		f := sf.f
		t.Run(f.Name, func(t *testing.T) {
			n := uint64(1) << f.Bits()
			if f.Bits() != 1+sf.w+sf.t {
				t.Fatalf("Bits() = %d, want %d", f.Bits(), 1+sf.w+sf.t)
			}
			nans, infs := 0, 0
			prevPos := math.Inf(-1) // previous value among the positive patterns
			for b := uint64(0); b < n; b++ {
				got := f.Decode(b)
				ref := refDecode(b, sf.w, sf.t, sf.e4m3)
				want := ref.float64()
				if !sameFloat(got, want) {
					t.Errorf("Decode(%#x) = %g, reference decoder gives %g", b, got, want)
				}
				// Second oracles, independent of refDecode.
				switch f {
				case BFloat16:
					// bf16 is the top half of a binary32.
					w := float64(math.Float32frombits(uint32(b) << 16))
					if !sameFloat(got, w) {
						t.Errorf("Decode(%#x) = %g, float32 top half gives %g", b, got, w)
					}
				case FP8E5M2:
					// OFP8 §5.1: E5M2 has the layout of binary16 with the
					// low 8 significand bits dropped, so it is the top byte of
					// a binary16 pattern.
					w := refDecode(b<<8, 5, 10, false).float64()
					if !sameFloat(got, w) {
						t.Errorf("Decode(%#x) = %g, binary16 top byte gives %g", b, got, w)
					}
				}
				if ref.nan {
					nans++
				}
				if ref.inf {
					infs++
				}
				if b < n/2 && !ref.nan {
					// Positive patterns in increasing order have strictly
					// increasing values (the encoding is sign-magnitude).
					if !(want > prevPos) {
						t.Errorf("Decode(%#x) = %g is not above the previous pattern's %g", b, want, prevPos)
					}
					prevPos = want
				}

				// Encode inverts Decode; a NaN encodes to some NaN pattern.
				enc := f.Encode(got)
				if enc >= n {
					t.Errorf("Encode(Decode(%#x)) = %#x has more than %d bits", b, enc, f.Bits())
				}
				if math.IsNaN(got) {
					if !refDecode(enc, sf.w, sf.t, sf.e4m3).nan {
						t.Errorf("Encode(NaN) = %#x, which is not a NaN pattern", enc)
					}
					if !math.IsNaN(f.Decode(enc)) {
						t.Errorf("Decode(Encode(NaN)) = %g, want NaN", f.Decode(enc))
					}
				} else if enc != b {
					t.Errorf("Encode(Decode(%#x) = %g) = %#x", b, got, enc)
				}

				// Values of the format are fixed points of rounding.
				if r := f.Round(got); !sameFloat(r, got) {
					t.Errorf("Round(%g) = %g, want it unchanged (pattern %#x)", got, r, b)
				}
				if !math.IsNaN(got) {
					if r := f.RoundBig(new(big.Float).SetFloat64(got)); !sameFloat(r, got) {
						t.Errorf("RoundBig(%g) = %g, want it unchanged (pattern %#x)", got, r, b)
					}
				}
				if !f.Contains(got) {
					t.Errorf("Contains(%g) = false (pattern %#x)", got, b)
				}
			}
			if nans != sf.nanPats || infs != sf.infPats {
				t.Errorf("%d NaN and %d Inf patterns, want %d and %d", nans, infs, sf.nanPats, sf.infPats)
			}
			if prevPos = math.Abs(prevPos); f.HasInf && !math.IsInf(prevPos, 1) {
				t.Errorf("largest positive non-NaN pattern decodes to %g, want +Inf", prevPos)
			}
		})
	}
}

// TestFormatNativePatterns checks Decode and Encode of binary32 and binary64
// against Go's own bit conversions, on the special patterns and seeded
// random ones.
func TestFormatNativePatterns(t *testing.T) {
	const seed = 20240601
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 1))
	special32 := []uint32{0, 1, 0x007FFFFF, 0x00800000, 0x3F800000, 0x7F7FFFFF, 0x7F800000, 0x7F800001, 0x7FC00000, 0x7FFFFFFF}
	special64 := []uint64{0, 1, 0x000FFFFFFFFFFFFF, 0x0010000000000000, 0x3FF0000000000000, 0x7FEFFFFFFFFFFFFF, 0x7FF0000000000000, 0x7FF0000000000001, 0x7FF8000000000000, 0x7FFFFFFFFFFFFFFF}
	var p32 []uint32
	var p64 []uint64
	for _, s := range special32 {
		p32 = append(p32, s, s|1<<31)
	}
	for _, s := range special64 {
		p64 = append(p64, s, s|1<<63)
	}
	for range 20000 {
		p32 = append(p32, rng.Uint32())
		p64 = append(p64, rng.Uint64())
	}
	for _, b := range p32 {
		want := float64(math.Float32frombits(b))
		got := Binary32.Decode(uint64(b))
		if !sameFloat(got, want) {
			t.Errorf("fp32.Decode(%#x) = %g, want %g", b, got, want)
		}
		if math.IsNaN(want) {
			if e := Binary32.Encode(got); !math.IsNaN(float64(math.Float32frombits(uint32(e)))) {
				t.Errorf("fp32.Encode(NaN) = %#x, not a NaN", e)
			}
			continue
		}
		if e := Binary32.Encode(want); e != uint64(b) {
			t.Errorf("fp32.Encode(%g) = %#x, want %#x", want, e, b)
		}
		if r := Binary32.Round(want); !sameFloat(r, want) {
			t.Errorf("fp32.Round(%g) = %g, want it unchanged", want, r)
		}
	}
	for _, b := range p64 {
		want := math.Float64frombits(b)
		got := Binary64.Decode(b)
		if !sameFloat(got, want) {
			t.Errorf("fp64.Decode(%#x) = %g, want %g", b, got, want)
		}
		if math.IsNaN(want) {
			if e := Binary64.Encode(got); !math.IsNaN(math.Float64frombits(e)) {
				t.Errorf("fp64.Encode(NaN) = %#x, not a NaN", e)
			}
			continue
		}
		if e := Binary64.Encode(want); e != b {
			t.Errorf("fp64.Encode(%g) = %#x, want %#x", want, e, b)
		}
		if r := Binary64.Round(want); !sameFloat(r, want) {
			t.Errorf("fp64.Round(%g) = %g, want it unchanged", want, r)
		}
	}
}

// roundOracle rounds exact rationals to a small format by binary search in
// the sorted table of all its nonnegative finite values.
type roundOracle struct {
	sf   smallFormat
	vals []*big.Rat // ascending, vals[0] = 0
	flts []float64  // the same values as float64s (all exact)
	pats []uint64   // their bit patterns
	mids []*big.Rat // mids[i] = (vals[i] + vals[i+1]) / 2
}

func newRoundOracle(t *testing.T, sf smallFormat) *roundOracle {
	o := &roundOracle{sf: sf}
	type entry struct {
		v *big.Rat
		b uint64
	}
	var es []entry
	for b := uint64(0); b < 1<<(sf.w+sf.t); b++ { // sign bit clear
		r := refDecode(b, sf.w, sf.t, sf.e4m3)
		if !r.nan && !r.inf {
			es = append(es, entry{r.mag, b})
		}
	}
	sort.Slice(es, func(i, j int) bool { return es[i].v.Cmp(es[j].v) < 0 })
	for i, e := range es {
		if i > 0 && es[i-1].v.Cmp(e.v) == 0 {
			t.Fatalf("patterns %#x and %#x have the same value", es[i-1].b, e.b)
		}
		f, _ := e.v.Float64()
		o.vals = append(o.vals, e.v)
		o.flts = append(o.flts, f)
		o.pats = append(o.pats, e.b)
		if i > 0 {
			m := new(big.Rat).Add(es[i-1].v, e.v)
			o.mids = append(o.mids, m.Quo(m, big.NewRat(2, 1)))
		}
	}
	// The threshold typed in smallFormats must be MaxFinite plus half the
	// spacing of the top binade, as IEEE 754 §4.3.1 and OFP8 define it.
	n := len(o.vals)
	top := new(big.Rat).Sub(o.vals[n-1], o.vals[n-2])
	th := new(big.Rat).Add(o.vals[n-1], top.Quo(top, big.NewRat(2, 1)))
	if th.Cmp(sf.threshold) != 0 {
		t.Fatalf("table threshold %v != typed threshold %v", th, sf.threshold)
	}
	return o
}

// round returns the nearest value to a ≥ 0, ties to the value whose pattern
// is even, with overflow as the format defines it.
func (o *roundOracle) round(a *big.Rat) float64 {
	if c := a.Cmp(o.sf.threshold); c > 0 || c == 0 && !o.sf.thresholdRounds {
		return o.sf.overflow
	}
	n := len(o.vals)
	if a.Cmp(o.vals[n-1]) >= 0 {
		// MaxFinite ≤ a ≤ threshold without overflow: MaxFinite (only the
		// E4M3 tie at 464 reaches here with a equal to the threshold).
		return o.flts[n-1]
	}
	// Find i with vals[i] ≤ a < vals[i+1]. A plain binary search with
	// big.Rat comparisons is slow, so locate a first by its nearest float64
	// af: rounding to nearest is monotone, so flts[j] < af implies
	// vals[j] < a, and af < flts[j] implies a < vals[j]. Hence with j the
	// first index where flts[j] ≥ af, a lies in (vals[j−1], vals[j+1]), and
	// one exact comparison with vals[j] settles it.
	af, _ := a.Float64()
	j := sort.SearchFloat64s(o.flts, af) // j < n since af ≤ MaxFinite
	var i int
	switch c := a.Cmp(o.vals[j]); {
	case c == 0:
		return o.flts[j]
	case c > 0:
		i = j
	default:
		i = j - 1 // j ≥ 1: a > 0 = vals[0] here
	}
	// vals[i] < a < vals[i+1]: compare a with their midpoint.
	switch a.Cmp(o.mids[i]) {
	case -1:
		return o.flts[i]
	case 1:
		return o.flts[i+1]
	}
	if o.pats[i]&1 == 0 {
		return o.flts[i]
	}
	return o.flts[i+1]
}

// negate is −x, with −0 for 0 and NaN unchanged.
func negate(x float64) float64 {
	if math.IsNaN(x) {
		return x
	}
	return math.Copysign(x, -math.Copysign(1, x))
}
