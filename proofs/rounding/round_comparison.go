package rounding

import (
	"fmt"
	"math/big"

	"github.com/transformer-cookbook/verify/exact"
	"github.com/transformer-cookbook/verify/model/eval"
	"github.com/transformer-cookbook/verify/numeric"
	"github.com/transformer-cookbook/verify/proofs"
	"github.com/transformer-cookbook/verify/recipes/blocks"
	"github.com/transformer-cookbook/verify/recipes/stream"
)

// ---------------------------------------------------------------------
// §Comparisons (under Rounding)

var comparisonClaims = []*proofs.Claim{
	{ID: "round.comparison.step", Section: secCompare, Label: "sec:comparison_rounding",
		Statement: "\"If values smaller than ε were rounded down to 0, this would permit exact simulation of a step function\": rounding GEZero(x, ε) (0, ramp x + ε, ε) gives ε·𝕀[x ≥ 0], \"scaled up\" 𝕀[x ≥ 0]",
		Domain:    "(x, ε) ∈ ℝ² with ε > 0: GEZero on {ε ≥ 0} by the decision procedure, the rounding R_ε(v) = 0 for v < ε, v otherwise, decided on each piece by exact LP",
		Recorded:  proofs.Proved, Check: func() (*proofs.Evidence, error) { return checkRoundedStep(blocks.GEZero("x", "eps", "out")) }},
	{ID: "round.comparison.step.fp32", Section: secCompare, Label: "sec:comparison_rounding",
		Statement: "the rounding of fixed precision (\"say 32-bit floating point\") gives the exact step: in a format with nothing strictly between 0 and ε, GEZero(x, ε) computed in that format is ε·𝕀[x ≥ 0]",
		Domain:    "binary32 arithmetic (round to nearest), ε = 2^−149 (its smallest positive value); x every binary32 value whose bit pattern is a multiple of 2^19 (16 per binade, both signs)",
		Recorded:  proofs.Refuted, Check: func() (*proofs.Evidence, error) {
			eps := new(big.Rat).SetFrac(big.NewInt(1), new(big.Int).Lsh(big.NewInt(1), 149))
			return checkFloatStep(blocks.GEZero("x", "eps", "out"), "fp32", eps, floatValues(numeric.Binary32, 1<<19))
		}},
}

// roundDown is the rounding of the section: values smaller than ε become
// 0, others stay.
func roundDown(v, eps *big.Rat) *big.Rat {
	if v.Cmp(eps) < 0 {
		return new(big.Rat)
	}
	return v
}

// checkRoundedStep: R_ε(GEZero(x, ε)) = ε·𝕀[x ≥ 0] for every x ∈ ℝ and
// ε > 0. The decision procedure proves GEZero(x, ε) equal to its three
// pieces on {ε ≥ 0}; on each piece P, with v the piece's map, the exact LP
// shows (i) on P ∩ {x ≤ 0}, v − ε ≤ x or v ≤ 0 (so v − ε ≤ max(x, −ε) < 0
// wherever x < 0 and ε > 0, and the rounding gives 0), and (ii) on
// P ∩ {x ≥ 0}, v − ε = 0 (its maximum and minimum are 0), so the value ε
// is kept.
func checkRoundedStep(f *stream.FF) (*proofs.Evidence, error) {
	ev, err := proofs.ProveCases([]proofs.FFNCase{{Label: "GEZero(x, ε)", F: f, Domain: proofs.EpsHalf(), Pieces: proofs.GEZeroPieces()}})
	if err != nil || ev.Verdict != proofs.Proved {
		return ev, err
	}
	one := big.NewRat(1, 1)
	atMost0 := func(v *big.Rat, unbounded bool) bool { return !unbounded && (v == nil || v.Sign() <= 0) }
	for k, p := range proofs.GEZeroPieces() {
		// v = a x + (b + 1) ε, v − ε = a x + b ε (the maps have no constant term)
		a, b := new(big.Rat).Set(p.Map.A.At(0, 0)), new(big.Rat).Sub(p.Map.A.At(0, 1), one)
		if p.Map.C[0].Sign() != 0 {
			return nil, fmt.Errorf("piece %d has a constant term", k+1)
		}
		nonPos := []string{"1", "0", "0"}                                   // x ≤ 0
		m1, u1, err := maxOn(p.Domain, nonPos, new(big.Rat).Sub(a, one), b) // v − ε − x
		if err != nil {
			return nil, err
		}
		m2, u2, err := maxOn(p.Domain, nonPos, a, new(big.Rat).Add(b, one)) // v
		if err != nil {
			return nil, err
		}
		if !atMost0(m1, u1) && !atMost0(m2, u2) {
			return &proofs.Evidence{Verdict: proofs.Refuted, Summary: fmt.Sprintf("piece %d: where x ≤ 0 neither GEZero(x, ε) − ε ≤ x nor GEZero(x, ε) ≤ 0 holds, so some x < 0 may not round to 0", k+1)}, nil
		}
		for _, sign := range []int64{1, -1} {
			sa, sb := new(big.Rat).Mul(a, big.NewRat(sign, 1)), new(big.Rat).Mul(b, big.NewRat(sign, 1))
			v, unbounded, err := maxOn(p.Domain, []string{"-1", "0", "0"}, sa, sb) // ±(v − ε) on x ≥ 0
			if err != nil {
				return nil, err
			}
			if unbounded || v != nil && v.Sign() != 0 {
				return &proofs.Evidence{Verdict: proofs.Refuted, Summary: fmt.Sprintf("piece %d: GEZero(x, ε) ≠ ε at some x ≥ 0", k+1)}, nil
			}
		}
	}
	// Spot values, exactly: R_ε(GEZero) at points of each piece.
	g, err := proofs.FFNOf(f)
	if err != nil {
		return nil, err
	}
	for _, e := range []string{"1/4", "1", "3"} {
		eps := proofs.Q(e)
		for _, m := range []string{"-2", "-1", "-1/2", "-1/1000", "0", "1/1000", "1", "5"} {
			x := new(big.Rat).Mul(proofs.Q(m), eps)
			y, err := g.Eval(exact.Vector{x, eps})
			if err != nil {
				return nil, err
			}
			want := new(big.Rat)
			if x.Sign() >= 0 {
				want.Set(eps)
			}
			if got := roundDown(y[0], eps); got.Cmp(want) != 0 {
				return &proofs.Evidence{Verdict: proofs.Refuted, Summary: fmt.Sprintf("at x = %s, ε = %s: GEZero = %s rounds to %s, not ε·𝕀[x ≥ 0] = %s", x.RatString(), e, y[0].RatString(), got.RatString(), want.RatString())}, nil
			}
		}
	}
	return &proofs.Evidence{Verdict: proofs.Proved, Summary: "on {(x, ε) : ε > 0}: GEZero(x, ε) is proved equal to its three pieces (" + ev.Summary + "); on each piece, where x ≤ 0, GEZero − ε ≤ x or GEZero ≤ 0, and where x ≥ 0, GEZero = ε (exact LP), so rounding values below ε down to 0 gives ε·𝕀[x ≥ 0], and dividing by ε the step 𝕀[x ≥ 0]",
		Explain: ev.Explain}, nil
}

// checkFloatStep runs GEZero(x, ε) in a floating-point format where no
// value lies strictly between 0 and ε (ε its smallest positive value), on
// the given x (every finite value of the format), and compares the
// rounded output with ε·𝕀[x ≥ 0].
func checkFloatStep(f *stream.FF, precision string, eps *big.Rat, xs []*big.Rat) (*proofs.Evidence, error) {
	m, err := stream.New("gezero", "x", "eps").Then(f).Readout("out").Model()
	if err != nil {
		return nil, err
	}
	runner, err := eval.New(numeric.MustParsePrecision(precision), m)
	if err != nil {
		return nil, err
	}
	var in []map[string]*big.Rat
	for _, x := range xs {
		in = append(in, map[string]*big.Rat{"x": x, "eps": eps})
	}
	h, err := stream.Stream(m, in)
	if err != nil {
		return nil, err
	}
	res, err := runner.RunStream(h, false)
	if err != nil {
		return nil, err
	}
	failures := 0
	var first *big.Rat
	for i, o := range res.Outputs {
		want := new(big.Rat)
		if xs[i].Sign() >= 0 {
			want.Set(eps)
		}
		v, ok := o.Values[0].Rat()
		if !ok || roundDown(v, eps).Cmp(want) != 0 {
			failures++
			if first == nil || xs[i].Cmp(first) < 0 && xs[i].Sign() >= 0 {
				first = xs[i]
			}
		}
	}
	if failures == 0 {
		return &proofs.Evidence{Verdict: proofs.Holds, Summary: fmt.Sprintf("no counterexample: every one of the %d values x checked gives ε·𝕀[x ≥ 0] after rounding, in %s", len(xs), precision)}, nil
	}
	one := big.NewRat(1, 1)
	v, _ := res.Outputs[len(xs)-1].Values[0].Rat()
	for i, x := range xs {
		if x.Cmp(one) == 0 {
			v, _ = res.Outputs[i].Values[0].Rat()
		}
	}
	return &proofs.Evidence{Verdict: proofs.Refuted, Summary: fmt.Sprintf("in %s with ε = %s (its smallest positive value, so nothing lies in (0, ε)), GEZero(1, ε) = ReLU(1 + ε) − ReLU(1) = %s ≠ ε: 1 + ε rounds to 1; it fails at %d of the %d values x checked, the smallest %s",
		precision, pow2(eps), v.RatString(), failures, len(xs), pow2(first)),
		Explain: []string{"Floating point rounds to nearest, so x + ε is absorbed into x once ε is below half an ulp of x: the step GEZero(x, ε) = ReLU(x + ε) − ReLU(x) then outputs 0 for x ≥ 0.",
			"The exact step needs arithmetic that is exact at the scale of ε over the whole input range (a fixed-point grid of step ε, or an ideal rounding of the output only): round.comparison.step."}}, nil
}

// pow2 prints a power of two as 2^k, any other rational as a fraction.
func pow2(r *big.Rat) string {
	num, den := r.Num(), r.Denom()
	isPow := func(x *big.Int) bool {
		return x.Sign() > 0 && new(big.Int).And(x, new(big.Int).Sub(x, big.NewInt(1))).Sign() == 0
	}
	if r.Sign() > 0 && isPow(num) && isPow(den) {
		return fmt.Sprintf("2^%d", num.BitLen()-den.BitLen())
	}
	return r.RatString()
}

// floatValues lists the finite values of the format f whose bit
// patterns are multiples of step, both signs (−0 as 0): every binade, in
// steps of step bit patterns.
func floatValues(f *numeric.Format, step uint64) []*big.Rat {
	inf := uint64(((1 << uint(f.ExpBits)) - 1)) << uint(f.P-1) // the bit pattern of +Inf
	signBit := uint64(1) << uint(f.ExpBits+f.P-1)
	var xs []*big.Rat
	for _, sign := range []uint64{0, signBit} {
		for bits := uint64(0); bits < inf; bits += step {
			if sign != 0 && bits == 0 {
				continue
			}
			r := new(big.Rat)
			r.SetFloat64(f.Decode(sign | bits))
			xs = append(xs, r)
		}
	}
	return xs
}
