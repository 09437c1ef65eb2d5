package numeric

// Exhaustive checks where the domain is finite, and large seeded samples
// where it is not. The oracles and checkers are those of
// arith_prop_test.go: exact big.Rat results rounded by the table oracle of
// format_test.go, IEEE special values from the standard, and the
// midpoint-square test for square roots.

import (
	"fmt"
	"math"
	"math/big"
	"math/rand"
	"testing"

	"github.com/leanovate/gopter"
)

// failureLog reports the first few failures of a large loop and counts the
// rest, so that a systematic bug does not flood the log.
type failureLog struct {
	t     *testing.T
	what  string
	count int
}

func (l *failureLog) add(msg string) {
	if msg == "" {
		return
	}
	l.count++
	if l.count <= 10 {
		l.t.Error(msg)
	}
}

func (l *failureLog) done() {
	if l.count > 10 {
		l.t.Errorf("%s: %d failures in all", l.what, l.count)
	}
}

// TestArithFP8AllPairs checks every operation on every pair of fp8 bit
// patterns (NaNs, infinities and both zeros included) against exact
// rational arithmetic and the table oracle. Emulated computes in float64
// and rounds again to the format; this is where that double rounding would
// show if it were not innocuous.
func TestArithFP8AllPairs(t *testing.T) {
	for _, f := range []*Format{FP8E4M3, FP8E5M2} {
		t.Run(f.Name, func(t *testing.T) {
			t.Parallel()
			c := emulatedCase(t, f)
			vals := make([]float64, 256)
			for b := range vals {
				vals[b] = c.decode(uint64(b))
			}
			for _, op := range []string{"add", "sub", "mul", "div"} {
				t.Run(op, func(t *testing.T) {
					t.Parallel()
					l := &failureLog{t: t, what: f.Name + " " + op}
					for _, x := range vals {
						for _, y := range vals {
							l.add(c.checkBinary(op, x, y))
						}
					}
					l.done()
				})
			}
			t.Run("max,min,cmp", func(t *testing.T) {
				l := &failureLog{t: t, what: f.Name + " max, min, cmp"}
				for _, x := range vals {
					for _, y := range vals {
						l.add(c.checkOrder(x, y))
					}
				}
				l.done()
			})
			t.Run("sqrt,neg,abs", func(t *testing.T) {
				l := &failureLog{t: t, what: f.Name + " sqrt, neg, abs"}
				for _, x := range vals {
					l.add(c.checkSqrt(x))
					l.add(c.checkNegAbs(x))
				}
				l.done()
			})
		})
	}
}

// TestArithFP16BF16Pairs checks fp16 and bf16, whose 2^32 pairs are too
// many, on every pair of edge values and on seeded random pairs (half of
// them drawn to interact: see partner).
func TestArithFP16BF16Pairs(t *testing.T) {
	seed := arithSeed(t, 11)
	for _, f := range []*Format{Binary16, BFloat16} {
		t.Run(f.Name, func(t *testing.T) {
			t.Parallel()
			c := emulatedCase(t, f)
			var edges []float64
			for _, r := range c.g.edgeValues() {
				v, _ := r.Float64()
				edges = append(edges, v)
			}
			edges = append(edges, math.Copysign(0, -1), math.Inf(1), math.Inf(-1), math.NaN())
			pairs := make([]ieeePair, 0, len(edges)*len(edges))
			for _, x := range edges {
				for _, y := range edges {
					pairs = append(pairs, ieeePair{x, y})
				}
			}
			nEdge := len(pairs)
			gp := &gopter.GenParameters{Rng: rand.New(rand.NewSource(seed))}
			gridEdges := c.g.edgeValues()
			for range 6000 * arithScale() {
				pairs = append(pairs, drawIEEEPair(gp, c, gridEdges))
			}
			t.Logf("%d edge pairs, %d random pairs", nEdge, len(pairs)-nEdge)
			l := &failureLog{t: t, what: f.Name}
			for _, pr := range pairs {
				for _, op := range []string{"add", "sub", "mul", "div"} {
					l.add(c.checkBinary(op, pr.X, pr.Y))
				}
				l.add(c.checkOrder(pr.X, pr.Y))
				l.add(c.checkSqrt(pr.X))
			}
			l.done()
		})
	}
}

// TestArithBigFloatTinyAllPairs checks BigFloat at 2 and 3 bits on every
// pair of values ±m × 2^e with exponents in a window around 1, where nearly
// every result rounds and ties are everywhere.
func TestArithBigFloatTinyAllPairs(t *testing.T) {
	for _, p := range []uint{2, 3} {
		t.Run(fmt.Sprint(p), func(t *testing.T) {
			t.Parallel()
			c := newBigCase(p)
			vals := []*big.Float{c.fromRat(new(big.Rat))}
			for e := -3; e <= 3; e++ {
				for m := int64(1) << (p - 1); m < 1<<p; m++ {
					r := ratScale(ratInt(m), e)
					vals = append(vals, c.fromRat(r), c.fromRat(ratNeg(r)))
				}
			}
			l := &failureLog{t: t, what: fmt.Sprintf("%d-bit", p)}
			for _, x := range vals {
				for _, y := range vals {
					for _, op := range []string{"add", "sub", "mul", "div"} {
						l.add(c.check(op, x, y))
					}
				}
				for _, op := range []string{"sqrt", "neg", "abs"} {
					l.add(c.check(op, x, nil))
				}
			}
			l.done()
		})
	}
}

// TestArithSmallFormatsRoundTrip checks Rat and SetRat on every bit pattern
// of the emulated formats: Rat is the exact value (an error for ±Inf and
// NaN) and SetRat(Rat(v)) gives v back.
func TestArithSmallFormatsRoundTrip(t *testing.T) {
	for _, f := range []*Format{FP8E4M3, FP8E5M2, Binary16, BFloat16} {
		t.Run(f.Name, func(t *testing.T) {
			t.Parallel()
			c := emulatedCase(t, f)
			l := &failureLog{t: t, what: f.Name}
			for b := uint64(0); b < 1<<f.Bits(); b++ {
				l.add(c.checkRoundTrip(c.decode(b)))
			}
			l.done()
		})
	}
}

// TestArithSetRatAtMidpoints checks SetRat of the emulated formats (that
// is, Format.RoundRat) at every midpoint between adjacent values, and at
// non-dyadic hairs either side of it (see nudges), in both signs, against
// the table oracle: these are exactly the inputs where a rounding goes
// wrong. fp16 and bf16 have about 31,000 midpoints each, so one in eight
// is sampled.
func TestArithSetRatAtMidpoints(t *testing.T) {
	seed := arithSeed(t, 12)
	for _, f := range []*Format{FP8E4M3, FP8E5M2, Binary16, BFloat16} {
		t.Run(f.Name, func(t *testing.T) {
			t.Parallel()
			c := emulatedCase(t, f)
			o := oracleFor(t, f)
			rng := rand.New(rand.NewSource(seed))
			idx := make([]int, 0, len(o.mids))
			for i := range o.mids {
				if f.Bits() == 8 || rng.Intn(8) == 0 {
					idx = append(idx, i)
				}
			}
			// The last midpoint and the threshold above MaxFinite always.
			idx = append(idx, len(o.mids)-1)
			thr := new(big.Rat).Set(smallFormatOf(f).threshold)
			l := &failureLog{t: t, what: f.Name}
			check := func(r *big.Rat) {
				for _, x := range []*big.Rat{r, ratNeg(r)} {
					want := o.round(ratAbs(x))
					if x.Sign() < 0 {
						want = negate(want)
					}
					if got := c.setRat(x); !sameBits(got, want) {
						l.add(fmt.Sprintf("%s SetRat(%s) = %s, want %s", f.Name, ratStr(x), fx(got), fx(want)))
					}
				}
			}
			for _, i := range idx {
				m := o.mids[i]
				check(m)
				for _, n := range c.g.nudges(m) {
					check(n)
				}
			}
			check(thr)
			for _, n := range c.g.nudges(thr) {
				check(n)
			}
			l.done()
		})
	}
}

// TestArithIEEESpecialCases lists the IEEE 754 special cases by hand, so
// that a failure reads directly (the property tests reach them only at
// random).
func TestArithIEEESpecialCases(t *testing.T) {
	inf, nan, negZero := math.Inf(1), math.NaN(), math.Copysign(0, -1)
	cases := map[string]*ieeeCase{"fp64": fp64Case(), "fp32": fp32Case()}
	for _, f := range []*Format{Binary16, BFloat16, FP8E4M3, FP8E5M2} {
		cases[f.Name] = emulatedCase(t, f)
	}
	withInf := []string{"fp64", "fp32", "fp16", "bf16", "fp8-e5m2"} // the formats with infinities
	tests := []struct {
		formats []string // nil: all six
		op      string
		x, y    float64
		want    float64
	}{
		{withInf, "div", 1, 0, inf},             // §7.3: x/0 is ±∞ by the signs
		{withInf, "div", -1, 0, -inf},           //
		{withInf, "div", 1, negZero, -inf},      //
		{nil, "div", 0, 0, nan},                 // §7.2: 0/0 is invalid
		{nil, "div", negZero, 1, negZero},       // the sign of a zero quotient
		{nil, "mul", negZero, 1, negZero},       // −0 × 1 = −0
		{nil, "add", negZero, negZero, negZero}, // §6.3: (−0) + (−0) = −0
		{nil, "add", negZero, 0, 0},             // (−0) + (+0) = +0
		{nil, "sub", 1, 1, 0},                   // x − x = +0 when rounding to nearest
		{nil, "sub", negZero, 0, negZero},       // (−0) − (+0) = −0
		{withInf, "sub", inf, inf, nan},         // ∞ − ∞
		{withInf, "mul", inf, 0, nan},           // 0 × ∞
		{withInf, "div", inf, inf, nan},         // ∞/∞
		{withInf, "div", -1, inf, negZero},
		{[]string{"fp8-e4m3"}, "div", 1, 0, nan},    // E4M3 has no ∞: x/0 is NaN
		{[]string{"fp8-e4m3"}, "add", 448, 32, nan}, // 480 > 464: overflow is NaN
		{[]string{"fp8-e4m3"}, "add", 448, 16, 448}, // 464 is a tie, to 448 (even)
		{[]string{"fp8-e4m3"}, "mul", 448, -2, nan},
		{[]string{"fp8-e5m2"}, "add", 57344, 4096, inf}, // the threshold 61440 overflows
		{[]string{"fp16"}, "add", 65504, 16, inf},       // 65520 = 65504 + ulp/2 overflows
		{[]string{"fp16"}, "add", 65504, 8, 65504},
		{[]string{"fp16"}, "mul", 0x1p-14, 0x1p-11, 0},           // 2^−25, half MinSubnormal: tie to 0
		{[]string{"fp16"}, "mul", -0x1p-14, 0x1p-11, negZero},    // and to −0
		{[]string{"fp16"}, "mul", 0x1p-14, 0x1.8p-10, 0x1p-23},   // 1.5 × 2^−24: tie to 2^−23
		{[]string{"fp16"}, "add", 2048, 1, 2048},                 // 2^11 + 1: tie to 2^11
		{[]string{"fp16"}, "add", 2048, 3, 2052},                 // 2^11 + 3: tie to 2^11 + 4
		{[]string{"fp32"}, "add", 1 << 24, 1, 1 << 24},           // 2^24 + 1: tie to 2^24
		{[]string{"fp32"}, "add", 1, 0x1p-24, 1},                 // 1 + 2^−24: tie to 1
		{[]string{"fp32"}, "add", 1, 0x1.8p-23, 1 + 0x1p-22},     // 1 + 3 × 2^−24: tie to 1 + 2^−22
		{[]string{"fp32"}, "mul", math.MaxFloat32, 2, inf},       //
		{[]string{"fp32"}, "mul", 0x1p-126, 0x1p-24, 0},          // 2^−150: tie to 0
		{[]string{"fp64"}, "add", 1 << 53, 1, 1 << 53},           // 2^53 + 1: tie to 2^53
		{[]string{"fp64"}, "add", 1 << 53, 3, 1<<53 + 4},         //
		{[]string{"fp64"}, "add", math.MaxFloat64, 0x1p970, inf}, // max + ulp/2
		{[]string{"bf16"}, "add", 1, 0x1p-8, 1},                  // 1 + 2^−8: tie to 1
		{[]string{"bf16"}, "add", 256, 1, 256},                   // 2^8 + 1: tie to 2^8
		// Max and Min propagate NaN (torch.maximum), even against ±∞.
		{nil, "max", nan, 1, nan},
		{nil, "min", 1, nan, nan},
		{withInf, "max", inf, nan, nan},
		{withInf, "max", nan, inf, nan},
		{withInf, "min", -inf, nan, nan},
		{withInf, "min", nan, -inf, nan},
	}
	for _, tc := range tests {
		names := tc.formats
		if names == nil {
			names = []string{"fp64", "fp32", "fp16", "bf16", "fp8-e4m3", "fp8-e5m2"}
		}
		for _, name := range names {
			c := cases[name]
			var got float64
			switch tc.op {
			case "add":
				got = c.add(tc.x, tc.y)
			case "sub":
				got = c.sub(tc.x, tc.y)
			case "mul":
				got = c.mul(tc.x, tc.y)
			case "div":
				got, _ = c.div(tc.x, tc.y)
			case "max":
				got = c.max(tc.x, tc.y)
			case "min":
				got = c.min(tc.x, tc.y)
			}
			if !sameBits(got, tc.want) {
				t.Errorf("%s %s(%v, %v) = %v, want %v", name, tc.op, tc.x, tc.y, got, tc.want)
			}
			// The hand-written expectation must agree with the oracle the
			// other tests use.
			if tc.op != "max" && tc.op != "min" {
				if w := c.want(tc.op, tc.x, tc.y); !sameBits(w, tc.want) {
					t.Errorf("test oracle: %s %s(%v, %v) = %v, the table says %v", name, tc.op, tc.x, tc.y, w, tc.want)
				}
			}
		}
	}
	// BigFloat and Exact fail instead of returning ±∞ or NaN.
	for _, p := range []uint{2, 53} {
		c := newBigCase(p)
		one := c.fromRat(ratInt(1))
		if msg := c.check("div", one, c.fromRat(new(big.Rat))); msg != "" {
			t.Error(msg)
		}
		if msg := c.check("sqrt", c.fromRat(ratInt(-4)), nil); msg != "" {
			t.Error(msg)
		}
	}
	iv := NewIntervals(53)
	if _, err := iv.Div(nil, iv.SetInt64(nil, 1), iv.SetBounds(nil, ratInt(-1), ratInt(1))); err == nil {
		t.Error("interval 1 / [−1, 1] did not fail")
	}
}

// TestSqrt32: Emulated takes float32's root, rounded again to the format
// (Format.prepare), in exactly the formats where that double rounding is
// innocuous because float32's 24 bits are at least 2p + 2. Every root of
// every fp16 and bf16 value is checked in TestArithFP16BF16NearTies, of
// every fp8 value in TestArithFP8AllPairs.
func TestSqrt32(t *testing.T) {
	for _, f := range []*Format{Binary16, BFloat16, FP8E4M3, FP8E5M2} {
		if !f.sqrt32 {
			t.Errorf("%s: the square root is not float32's", f.Name)
		}
	}
	for _, f := range []*Format{Binary32, Binary64} {
		if f.sqrt32 {
			t.Errorf("%s: float32's square root does not round to it once", f.Name)
		}
	}
}
