package numeric

// Format.Round works on the bits of a float64, and the emulated backends
// compute +, −, ×, ÷ and √ in float64 before that second rounding. These
// tests check both against references that never call the code under
// test: Round against RoundBig (one rounding of the exact value on
// big.Float), the operations against exact rationals (big.Rat) rounded by
// the table oracle, on the inputs where either could go wrong.

import (
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"sort"
	"testing"

	"github.com/transformer-cookbook/verify/internal/testenv"
)

// roundScale is the share of the large samples drawn: an eighth under
// the race detector, which slows the big.Rat references about fifteen
// times.
func roundScale(n int) int {
	if testenv.Race {
		return n / 8
	}
	return n
}

// TestFormatRoundBitsVsBig checks the bit-level Round against RoundBig on:
// every value of each emulated format, its float64 neighbours, every exact
// midpoint between consecutive values and its float64 neighbours, in both
// signs; values around and far beyond the overflow threshold; float64
// subnormals and the smallest normals; and seeded random float64 bit
// patterns, uniform over all 2^64 and concentrated on the format's range.
func TestFormatRoundBitsVsBig(t *testing.T) {
	const seed = 90210
	t.Logf("seed %d", seed)
	for k, f := range []*Format{Binary16, BFloat16, FP8E4M3, FP8E5M2, Binary32, Binary64} {
		t.Run(f.Name, func(t *testing.T) {
			t.Parallel()
			l := &failureLog{t: t, what: f.Name + " Round vs RoundBig"}
			n := 0
			check := func(desc string, x float64) {
				n++
				for _, v := range []float64{x, -x} {
					got := f.Round(v)
					if math.IsNaN(v) {
						if !math.IsNaN(got) {
							l.add(fmt.Sprintf("%s.Round(NaN) = %v", f.Name, fx(got)))
						}
						continue
					}
					if want := f.RoundBig(new(big.Float).SetFloat64(v)); !sameFloat(got, want) {
						l.add(fmt.Sprintf("%s.Round(%s: %s) = %s, RoundBig gives %s", f.Name, desc, fx(v), fx(got), fx(want)))
					}
				}
			}
			up := func(x float64) float64 { return math.Nextafter(x, math.Inf(1)) }
			down := func(x float64) float64 { return math.Nextafter(x, math.Inf(-1)) }

			// Every value, its neighbours and the midpoints (the 8- and
			// 16-bit formats; values decoded by the reference decoder).
			if f.Bits() <= 16 {
				sf := smallFormatOf(f)
				var vals []float64
				for b := uint64(0); b < 1<<(sf.w+sf.t); b++ { // sign bit clear
					if r := refDecode(b, sf.w, sf.t, sf.e4m3); !r.nan && !r.inf {
						vals = append(vals, r.float64())
					}
				}
				sort.Float64s(vals)
				for i, v := range vals {
					check("value", v)
					check("value+ulp64", up(v))
					check("value-ulp64", down(v))
					if i+1 < len(vals) {
						mid := (v + vals[i+1]) / 2 // exact: few bits, far from float64's limits
						check("midpoint", mid)
						check("midpoint+ulp64", up(mid))
						check("midpoint-ulp64", down(mid))
					}
				}
				// The midpoint above MaxFinite (the overflow threshold).
				top := vals[len(vals)-1]
				thr := top + (top-vals[len(vals)-2])/2
				check("threshold", thr)
				check("threshold+ulp64", up(thr))
				check("threshold-ulp64", down(thr))
			}

			// Overflow: from just past MaxFinite to the top of float64.
			for e := f.EMax; e <= 1023; e++ {
				p := math.Ldexp(1, e)
				check("2^e", p)
				check("2^e×1.5", p*1.5)
				check("2^e-ulp64", down(p))
				check("2^e+ulp64", up(p))
			}
			check("MaxFloat64", math.MaxFloat64)
			check("Inf", math.Inf(1))
			check("NaN", math.NaN())
			check("MaxFinite+ulp64", up(f.MaxFinite()))

			// Underflow: the format's smallest values and float64's
			// subnormals, down to 2^−1074.
			for e := f.EMin - f.P - 3; e >= -1074; e-- {
				p := math.Ldexp(1, e)
				check("2^e", p)
				check("2^e×1.5", p*1.5)
				check("2^e-ulp64", down(p))
				check("2^e+ulp64", up(p))
			}
			check("0", 0)
			check("MinNormal64", 0x1p-1022)
			check("MaxSubnormal64", down(0x1p-1022))

			rng := rand.New(rand.NewPCG(seed, uint64(k)))
			// Random float64 subnormals.
			for range roundScale(20000) {
				check("subnormal64", math.Float64frombits(rng.Uint64()&(1<<52-1)))
			}
			// Uniform bit patterns: mostly far outside the format's range.
			for range roundScale(200000) {
				check("bits", math.Float64frombits(rng.Uint64()))
			}
			// Random significands over the format's exponent range and a
			// little beyond, with the low bits often cleared or set so that
			// the dropped bits are near a tie.
			lo, hi := f.EMin-f.P-3, min(f.EMax+3, 1023)
			for range roundScale(200000) {
				e := lo + rng.IntN(hi-lo+1)
				m := rng.Uint64() >> 11 // 53 bits
				switch rng.IntN(4) {
				case 0: // a tie or nearly one: keep a few bits, then 1000…0 ± a little
					keep := 1 + rng.IntN(min(f.P+1, 52))
					m = m>>(53-keep)<<(53-keep) | 1<<(52-keep)
					m += uint64(rng.IntN(3)) - 1
				case 1:
					m |= 1<<(52-rng.IntN(53)) - 1 // trailing ones
				}
				m |= 1 << 52
				check("random", math.Ldexp(float64(m&(1<<53-1)|1<<52), e-52))
			}
			l.done()
			t.Logf("%d inputs, both signs", n)
		})
	}
}

// nearTiePairs returns operand pairs of c's format whose result x op y lies
// as close as the format allows to a midpoint of its grid, where a double
// rounding would show: for each of count random y, it scans every
// significand of a random binade for x, measures in float64 how far x op y
// is from the nearest midpoint (in units of float64's ulp there), and keeps
// the closest two. The selection only picks inputs; the expected results
// come from exact rationals.
//
// Sums and products of two fp16 or bf16 values are exact in float64 (one
// rounding only) unless one operand is below 2^−45 of the other, and then
// the sum lies near a value of the format, not a midpoint; so here the
// closest are exact ties, which check ties to even. Quotients of p-bit
// numbers are never closer to a midpoint than about 2^−2p relative (none
// is one, but in the subnormal range): these are the hardest quotients.
func nearTiePairs(rng *rand.Rand, c *ieeeCase, f *Format, op string, count int) []ieeePair {
	var out []ieeePair
	// Random finite values of the format, by bit pattern.
	randVal := func() float64 {
		for {
			v := c.decode(rng.Uint64())
			if !math.IsNaN(v) && !math.IsInf(v, 0) && v != 0 {
				return v
			}
		}
	}
	dist := func(r float64) float64 {
		a := math.Abs(r)
		if a == 0 || math.IsInf(a, 0) || math.IsNaN(a) || a > f.MaxFinite() {
			return math.Inf(1)
		}
		e := max(math.Ilogb(a), f.EMin)
		q := math.Ldexp(1, e-f.P+1) // the format's spacing at a
		fr := a/q - math.Floor(a/q) // exact: a/q has at most 53 bits
		ulp := math.Ldexp(1, max(math.Ilogb(a), -1022)-52)
		return math.Abs(fr-0.5) * q / ulp
	}
	type cand struct {
		x float64
		d float64
	}
	for range count {
		y := randVal()
		ey := math.Ilogb(y)
		var ex int
		switch op {
		case "add", "sub": // x near y's magnitude, where the operands interact
			ex = ey + rng.IntN(2*f.P+5) - f.P - 2
		default: // anywhere, subnormal results included
			ex = f.EMin - f.P + 1 + rng.IntN(f.EMax-f.EMin+f.P)
		}
		if ex < f.EMin-f.P+1 || ex > f.EMax {
			continue
		}
		var best []cand
		// x = ±m × 2^(ex−P+1) for every P-bit m (fewer in the subnormal
		// range, where the values are those m × 2^(EMin−P+1)).
		q := max(ex, f.EMin) - f.P + 1
		mlo, mhi := int64(1)<<(f.P-1), int64(1)<<f.P
		if ex < f.EMin { // the subnormals
			mlo, mhi = 1, mlo
		}
		for m := mlo; m < mhi; m++ {
			x := math.Ldexp(float64(m), q)
			if x > f.MaxFinite() {
				break
			}
			if rng.IntN(2) == 0 {
				x = -x
			}
			var r float64
			switch op {
			case "add":
				r = x + y
			case "sub":
				r = x - y
			case "mul":
				r = x * y
			case "div":
				r = x / y
			}
			best = append(best, cand{x, dist(r)})
		}
		sort.Slice(best, func(i, j int) bool { return best[i].d < best[j].d })
		for i := 0; i < 2 && i < len(best); i++ {
			out = append(out, ieeePair{best[i].x, y})
		}
	}
	return out
}

// TestArithFP16BF16NearTies checks add, sub, mul and div of fp16 and bf16
// against exact rationals on near-tie pairs (see nearTiePairs) and on
// seeded random pairs of bit patterns (NaNs, infinities, subnormals
// included), and √ on every value of both formats. The operations compute
// in float64 and round again; Figueroa's theorem says that second rounding
// is innocuous for p ≤ 25, and this is where it would show if it were not.
func TestArithFP16BF16NearTies(t *testing.T) {
	seed := arithSeed(t, 13)
	for k, f := range []*Format{Binary16, BFloat16} {
		t.Run(f.Name, func(t *testing.T) {
			t.Parallel()
			c := emulatedCase(t, f)
			rng := rand.New(rand.NewPCG(uint64(seed), uint64(k)))
			for _, op := range []string{"add", "sub", "mul", "div"} {
				l := &failureLog{t: t, what: f.Name + " " + op}
				pairs := nearTiePairs(rng, c, f, op, roundScale(4000))
				nTie := len(pairs)
				for range roundScale(20000) {
					pairs = append(pairs, ieeePair{c.decode(rng.Uint64()), c.decode(rng.Uint64())})
				}
				for _, pr := range pairs {
					l.add(c.checkBinary(op, pr.X, pr.Y))
				}
				l.done()
				t.Logf("%s: %d near-tie pairs, %d random pairs", op, nTie, len(pairs)-nTie)
			}
			l := &failureLog{t: t, what: f.Name + " sqrt"}
			for b := uint64(0); b < 1<<f.Bits(); b++ {
				if testenv.Race && b%8 != 0 {
					continue
				}
				l.add(c.checkSqrt(c.decode(b)))
			}
			l.done()
		})
	}
}
