package proofs

import (
	"fmt"
	"math/big"
	"math/rand/v2"

	"github.com/transformer-cookbook/verify/exact"
	"github.com/transformer-cookbook/verify/exact/cpwl"
	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/numeric"
	"github.com/transformer-cookbook/verify/recipes/blocks"
	"github.com/transformer-cookbook/verify/recipes/stream"
)

// The claims of §Rounding and Approximation: rounding makes the
// comparisons of §Comparisons exact steps (§Comparisons, under
// Rounding), and the five propositions of §Error Analysis, checked as
// inequalities with explicit constants: exactly where the quantities are
// rational (ReLU FFNs, the triangle inequality), by certified interval
// arithmetic where they are not (softmax, layer norm), each search seeded.

const (
	rdSecCompare = "Comparisons"
	rdSecError   = "Error Analysis"
)

// ---------------------------------------------------------------------
// §Comparisons (under Rounding)

// rdRoundDown is the rounding of the section: values smaller than ε become
// 0, others stay.
func rdRoundDown(v, eps *big.Rat) *big.Rat {
	if v.Cmp(eps) < 0 {
		return new(big.Rat)
	}
	return v
}

// rdCheckRoundedStep: R_ε(GEZero(x, ε)) = ε·𝕀[x ≥ 0] for every x ∈ ℝ and
// ε > 0. The decision procedure proves GEZero(x, ε) equal to its three
// pieces on {ε ≥ 0}; on each piece P, with v the piece's map, the exact LP
// shows (i) on P ∩ {x ≤ 0}, v − ε ≤ x or v ≤ 0 (so v − ε ≤ max(x, −ε) < 0
// wherever x < 0 and ε > 0, and the rounding gives 0), and (ii) on
// P ∩ {x ≥ 0}, v − ε = 0 (its maximum and minimum are 0), so the value ε
// is kept.
func rdCheckRoundedStep(f *stream.FF) (*Evidence, error) {
	ev, err := ffProveCases([]ffnCase{{label: "GEZero(x, ε)", f: f, domain: ffEpsHalf(), pieces: ffGezeroXEps()}})
	if err != nil || ev.Verdict != Proved {
		return ev, err
	}
	one := big.NewRat(1, 1)
	atMost0 := func(v *big.Rat, unbounded bool) bool { return !unbounded && (v == nil || v.Sign() <= 0) }
	for k, p := range ffGezeroXEps() {
		// v = a x + (b + 1) ε, v − ε = a x + b ε (the maps have no constant term)
		a, b := new(big.Rat).Set(p.Map.A.At(0, 0)), new(big.Rat).Sub(p.Map.A.At(0, 1), one)
		if p.Map.C[0].Sign() != 0 {
			return nil, fmt.Errorf("piece %d has a constant term", k+1)
		}
		nonPos := []string{"1", "0", "0"}                                     // x ≤ 0
		m1, u1, err := rdMaxOn(p.Domain, nonPos, new(big.Rat).Sub(a, one), b) // v − ε − x
		if err != nil {
			return nil, err
		}
		m2, u2, err := rdMaxOn(p.Domain, nonPos, a, new(big.Rat).Add(b, one)) // v
		if err != nil {
			return nil, err
		}
		if !atMost0(m1, u1) && !atMost0(m2, u2) {
			return &Evidence{Verdict: Refuted, Summary: fmt.Sprintf("piece %d: where x ≤ 0 neither GEZero(x, ε) − ε ≤ x nor GEZero(x, ε) ≤ 0 holds, so some x < 0 may not round to 0", k+1)}, nil
		}
		for _, sign := range []int64{1, -1} {
			sa, sb := new(big.Rat).Mul(a, big.NewRat(sign, 1)), new(big.Rat).Mul(b, big.NewRat(sign, 1))
			v, unbounded, err := rdMaxOn(p.Domain, []string{"-1", "0", "0"}, sa, sb) // ±(v − ε) on x ≥ 0
			if err != nil {
				return nil, err
			}
			if unbounded || v != nil && v.Sign() != 0 {
				return &Evidence{Verdict: Refuted, Summary: fmt.Sprintf("piece %d: GEZero(x, ε) ≠ ε at some x ≥ 0", k+1)}, nil
			}
		}
	}
	// Spot values, exactly: R_ε(GEZero) at points of each piece.
	g, err := ffnOf(f)
	if err != nil {
		return nil, err
	}
	for _, e := range []string{"1/4", "1", "3"} {
		eps := q(e)
		for _, m := range []string{"-2", "-1", "-1/2", "-1/1000", "0", "1/1000", "1", "5"} {
			x := new(big.Rat).Mul(q(m), eps)
			y, err := g.Eval(exact.Vector{x, eps})
			if err != nil {
				return nil, err
			}
			want := new(big.Rat)
			if x.Sign() >= 0 {
				want.Set(eps)
			}
			if got := rdRoundDown(y[0], eps); got.Cmp(want) != 0 {
				return &Evidence{Verdict: Refuted, Summary: fmt.Sprintf("at x = %s, ε = %s: GEZero = %s rounds to %s, not ε·𝕀[x ≥ 0] = %s", x.RatString(), e, y[0].RatString(), got.RatString(), want.RatString())}, nil
			}
		}
	}
	return &Evidence{Verdict: Proved, Summary: "on {(x, ε) : ε > 0}: GEZero(x, ε) is proved equal to its three pieces (" + ev.Summary + "); on each piece, where x ≤ 0, GEZero − ε ≤ x or GEZero ≤ 0, and where x ≥ 0, GEZero = ε (exact LP), so rounding values below ε down to 0 gives ε·𝕀[x ≥ 0], and dividing by ε the step 𝕀[x ≥ 0]",
		Explain: ev.Explain}, nil
}

// rdMaxOn maximises a x + b ε over the polyhedron p ∩ {row · (x, ε) ≤ c}
// (extra = "r1 r2 c") by the exact LP, its answer checked by its
// certificate. It returns nil when the set is empty, and unbounded when
// the maximum is +∞.
func rdMaxOn(p *exact.Polyhedron, extra []string, a, b *big.Rat) (best *big.Rat, unbounded bool, err error) {
	rows := p.A.Rows + 1
	A := exact.NewMatrix(rows, 2)
	B := exact.NewVector(rows)
	for i := 0; i < p.A.Rows; i++ {
		A.Set(i, 0, p.A.At(i, 0))
		A.Set(i, 1, p.A.At(i, 1))
		B[i] = new(big.Rat).Set(p.B[i])
	}
	A.Set(rows-1, 0, q(extra[0]))
	A.Set(rows-1, 1, q(extra[1]))
	B[rows-1] = q(extra[2])
	lp := &exact.LP{C: exact.Vector{a, b}, A: A, B: B, G: exact.NewMatrix(0, 2), H: exact.NewVector(0)}
	sol, err := lp.Solve()
	if err != nil {
		return nil, false, err
	}
	if err := lp.Check(sol); err != nil {
		return nil, false, err
	}
	switch sol.Status {
	case exact.Infeasible:
		return nil, false, nil
	case exact.Unbounded:
		return nil, true, nil
	}
	return sol.Value, false, nil
}

// rdCheckFloatStep runs GEZero(x, ε) in a floating-point format where no
// value lies strictly between 0 and ε (ε its smallest positive value), on
// the given x (every finite value of the format), and compares the
// rounded output with ε·𝕀[x ≥ 0].
func rdCheckFloatStep(f *stream.FF, precision string, eps *big.Rat, xs []*big.Rat) (*Evidence, error) {
	m, err := stream.New("gezero", "x", "eps").Then(f).Readout("out").Model()
	if err != nil {
		return nil, err
	}
	runner, err := model.New(numeric.MustParsePrecision(precision), m)
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
		if !ok || rdRoundDown(v, eps).Cmp(want) != 0 {
			failures++
			if first == nil || xs[i].Cmp(first) < 0 && xs[i].Sign() >= 0 {
				first = xs[i]
			}
		}
	}
	if failures == 0 {
		return &Evidence{Verdict: Holds, Summary: fmt.Sprintf("no counterexample: every one of the %d values x checked gives ε·𝕀[x ≥ 0] after rounding, in %s", len(xs), precision)}, nil
	}
	one := big.NewRat(1, 1)
	v, _ := res.Outputs[len(xs)-1].Values[0].Rat()
	for i, x := range xs {
		if x.Cmp(one) == 0 {
			v, _ = res.Outputs[i].Values[0].Rat()
		}
	}
	return &Evidence{Verdict: Refuted, Summary: fmt.Sprintf("in %s with ε = %s (its smallest positive value, so nothing lies in (0, ε)), GEZero(1, ε) = ReLU(1 + ε) − ReLU(1) = %s ≠ ε: 1 + ε rounds to 1; it fails at %d of the %d values x checked, the smallest %s",
		precision, rdPow2(eps), v.RatString(), failures, len(xs), rdPow2(first)),
		Explain: []string{"Floating point rounds to nearest, so x + ε is absorbed into x once ε is below half an ulp of x: the step GEZero(x, ε) = ReLU(x + ε) − ReLU(x) then outputs 0 for x ≥ 0.",
			"The exact step needs arithmetic that is exact at the scale of ε over the whole input range (a fixed-point grid of step ε, or an ideal rounding of the output only): round.comparison.step."}}, nil
}

// rdPow2 prints a power of two as 2^k, any other rational as a fraction.
func rdPow2(r *big.Rat) string {
	num, den := r.Num(), r.Denom()
	isPow := func(x *big.Int) bool {
		return x.Sign() > 0 && new(big.Int).And(x, new(big.Int).Sub(x, big.NewInt(1))).Sign() == 0
	}
	if r.Sign() > 0 && isPow(num) && isPow(den) {
		return fmt.Sprintf("2^%d", num.BitLen()-den.BitLen())
	}
	return r.RatString()
}

// rdFloatValues lists the finite values of the format f whose bit
// patterns are multiples of step, both signs (−0 as 0): every binade, in
// steps of step bit patterns.
func rdFloatValues(f *numeric.Format, step uint64) []*big.Rat {
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

// ---------------------------------------------------------------------
// §Error Analysis: norms

// rdSqrtBounds encloses √r.
func rdSqrtBounds(r *big.Rat) (lo, hi *big.Rat, err error) {
	return numeric.Sqrt(numeric.Lit(r)).Enclose(128)
}

func rdSqrtHi(r *big.Rat) (*big.Rat, error) {
	_, hi, err := rdSqrtBounds(r)
	return hi, err
}

// rdNormSq is ‖v‖₂² exactly.
func rdNormSq(v []*big.Rat) *big.Rat {
	s := new(big.Rat)
	for _, x := range v {
		s.Add(s, new(big.Rat).Mul(x, x))
	}
	return s
}

// rdNorm1 is ‖v‖₁.
func rdNorm1(v []*big.Rat) *big.Rat {
	s := new(big.Rat)
	for _, x := range v {
		s.Add(s, new(big.Rat).Abs(x))
	}
	return s
}

// rdLinf1 is the paper's ‖A‖_{∞,1} = Σ_i max_j |A_ij|.
func rdLinf1(a exact.Matrix) *big.Rat {
	s := new(big.Rat)
	for i := 0; i < a.Rows; i++ {
		m := new(big.Rat)
		for j := 0; j < a.Cols; j++ {
			if v := new(big.Rat).Abs(a.At(i, j)); v.Cmp(m) > 0 {
				m = v
			}
		}
		s.Add(s, m)
	}
	return s
}

// rdOp11 is the ℓ1 operator norm: the largest column sum of |A|.
func rdOp11(a exact.Matrix) *big.Rat {
	m := new(big.Rat)
	for j := 0; j < a.Cols; j++ {
		s := new(big.Rat)
		for i := 0; i < a.Rows; i++ {
			s.Add(s, new(big.Rat).Abs(a.At(i, j)))
		}
		if s.Cmp(m) > 0 {
			m = s
		}
	}
	return m
}

// rdFrobSq is ‖A‖_F² of a model matrix with rational entries.
func rdFrobSq(a model.Matrix) (*big.Rat, error) {
	s := new(big.Rat)
	for _, e := range a.Data {
		r, ok, err := e.Rat()
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, fmt.Errorf("irrational weight %v", e)
		}
		s.Add(s, new(big.Rat).Mul(r, r))
	}
	return s, nil
}

// rdRand is a seeded source of small rationals.
type rdRand struct{ *rand.Rand }

func rdNewRdRand(seed uint64) rdRand { return rdRand{rand.New(rand.NewPCG(seed, 0xe770))} }

// rat is a rational in [−lim, lim] with denominator den.
func (r rdRand) rat(lim, den int) *big.Rat {
	return big.NewRat(int64(r.IntN(2*lim*den+1)-lim*den), int64(den))
}

func (r rdRand) matrix(rows, cols, lim, den int) model.Matrix {
	m := model.Zeros(rows, cols)
	for i := range m.Data {
		m.Data[i] = numeric.Lit(r.rat(lim, den))
	}
	return m
}

func (r rdRand) vector(n, lim, den int) []*big.Rat {
	v := make([]*big.Rat, n)
	for i := range v {
		v[i] = r.rat(lim, den)
	}
	return v
}

// ---------------------------------------------------------------------
// §Error Analysis: FFNs

// rdRandomFFN is a seeded ReLU FFN ℝ^d → ℝ^k with h units.
func rdRandomFFN(r rdRand, d, h, k int) *stream.FF {
	f := &stream.FF{Name: "ff", In: ffNames("x", d), Out: ffNames("y", k), W1: r.matrix(h, d, 3, 2), W2: r.matrix(k, h, 3, 2),
		B1: model.RatVector(r.vector(h, 2, 2)...), B2: model.RatVector(r.vector(k, 2, 2)...)}
	return f
}

// rdCheckFFNLipschitz: for seeded random ReLU FFNs, the exact ℓ1 Lipschitz
// constant L (the largest ℓ1 operator norm of the FFN's Jacobian over its
// linear regions, enumerated exactly) is at most K = ‖W2‖_{∞,1}‖W1‖_{∞,1};
// and at random pairs (x, x̂), ‖ff(x̂) − ff(x)‖₁ ≤ L‖x̂ − x‖₁ ≤ K‖x̂ − x‖₁.
//
// kScale multiplies K (1 for the claim; the tests shrink it to see the
// check fail).
func rdCheckFFNLipschitz(ffs []*stream.FF, seed uint64, kScale *big.Rat) (*Evidence, error) {
	r := rdNewRdRand(seed)
	worst, pairs := new(big.Rat), 0
	worstAt := ""
	attained := 0
	for n, f := range ffs {
		g, err := ffnOf(f)
		if err != nil {
			return nil, err
		}
		d := g.In()
		regions, err := cpwl.Regions(g, space(d), nil)
		if err != nil {
			return nil, err
		}
		L := new(big.Rat)
		for _, reg := range regions {
			if v := rdOp11(reg.Map.A); v.Cmp(L) > 0 {
				L = v
			}
		}
		K := new(big.Rat).Mul(rdLinf1(g.W2), rdLinf1(g.W1))
		K.Mul(K, kScale)
		if L.Cmp(K) > 0 {
			return &Evidence{Verdict: Refuted, Summary: fmt.Sprintf("FFN %d (ℝ^%d → ℝ^%d, %d units): the Lipschitz constant %s exceeds K = ‖W2‖‖W1‖ = %s", n+1, d, g.Out(), g.Hidden(), L.RatString(), K.RatString())}, nil
		}
		if L.Cmp(K) == 0 {
			attained++
		}
		if K.Sign() > 0 {
			if ratio := new(big.Rat).Quo(L, K); ratio.Cmp(worst) > 0 {
				worst, worstAt = ratio, fmt.Sprintf("FFN %d: L = %s, K = %s", n+1, L.RatString(), K.RatString())
			}
		}
		for p := 0; p < 20; p++ {
			x := r.vector(d, 4, 8)
			dx := r.vector(d, 1, 1<<uint(r.IntN(10)))
			xh, fx, fxh, err := rdPerturbed(g, x, dx)
			if err != nil {
				return nil, err
			}
			diff := make([]*big.Rat, len(fx))
			for i := range fx {
				diff[i] = new(big.Rat).Sub(fxh[i], fx[i])
			}
			lhs, delta := rdNorm1(diff), rdNorm1(dx)
			if lhs.Cmp(new(big.Rat).Mul(K, delta)) > 0 {
				return &Evidence{Verdict: Refuted, Summary: fmt.Sprintf("FFN %d at x = %v, x̂ = %v: ‖ff(x̂) − ff(x)‖₁ = %s > K δ = %s·%s", n+1, x, xh, lhs.RatString(), K.RatString(), delta.RatString())}, nil
			}
			if lhs.Cmp(new(big.Rat).Mul(L, delta)) > 0 {
				return nil, fmt.Errorf("FFN %d: a pair exceeds the Lipschitz constant of the regions, %s: the region enumeration is wrong", n+1, L.RatString())
			}
			pairs++
		}
	}
	return &Evidence{Verdict: Holds, Summary: fmt.Sprintf("no counterexample: %d seeded random ReLU FFNs (ℝ^d → ℝ^k, d, k ≤ 3, 1 … 4 units, seed %d), each with its exact ℓ1 Lipschitz constant L over its linear regions, and %d random pairs (x, x̂), all exact; largest L/K = %s (%s); L = K for %d of them",
		len(ffs), seed, pairs, worst.FloatString(4), worstAt, attained),
		Explain: []string{
			"Norms: ℓ1 on vectors, so that the paper's ‖A‖_{∞,1} = Σ_i max_j |A_ij| bounds the operator norm (its largest column sum of |A|).",
			"A CPWL f is affine with matrix J_R on each linear region R, and a segment from x to x̂ crosses finitely many regions, so ‖f(x̂) − f(x)‖₁ ≤ max_R ‖J_R‖ ‖x̂ − x‖₁: L = max_R ‖J_R‖ is f's exact Lipschitz constant, and ReLU being 1-Lipschitz componentwise gives L ≤ ‖W2‖ ‖W1‖.",
		}}, nil
}

func rdRandomFFNs(seed uint64, count int) []*stream.FF {
	r := rdNewRdRand(seed)
	var fs []*stream.FF
	for n := 0; n < count; n++ {
		d, h, k := 1+r.IntN(3), 1+r.IntN(4), 1+r.IntN(3)
		fs = append(fs, rdRandomFFN(r, d, h, k))
	}
	return fs
}

// rdCheckFFNLiteral: the printed ‖ff(x̂) − ff(x̂)‖ ≤ Kδ compares ff(x̂) with
// itself; the decision procedure proves ff = ff on ℝ^d, so the left side
// is 0 and any K ≥ 0 works.
func rdCheckFFNLiteral(ffs []*stream.FF) (*Evidence, error) {
	for n, f := range ffs {
		ev, err := proveEquivalent(f, f, space(len(f.In)))
		if err != nil {
			return nil, err
		}
		if ev.Verdict != Proved {
			return &Evidence{Verdict: Refuted, Summary: fmt.Sprintf("FFN %d: ff(x̂) ≠ ff(x̂): %s", n+1, ev.Summary)}, nil
		}
	}
	return &Evidence{Verdict: Proved, Summary: fmt.Sprintf("vacuous: ff(x̂) − ff(x̂) = 0 on all of ℝ^d (proved for %d FFNs by the decision procedure, and true of any function), so any K ≥ 0 works; the intended ‖ff(x̂) − ff(x)‖ ≤ Kδ is round.error.ffn", len(ffs))}, nil
}

// rdCheckLinf1Euclidean: with Euclidean vector norms, K = ‖W2‖_{∞,1}‖W1‖_{∞,1}
// is not a valid constant: ff(x) = ReLU(x1 + x2 + x3) has K = 1, and at
// x = 0, x̂ = (2/3, 2/3, 1/3) (‖x̂ − x‖₂ = 1) it changes by 5/3.
func rdCheckLinf1Euclidean(f *stream.FF, x, xh []*big.Rat) (*Evidence, error) {
	g, err := ffnOf(f)
	if err != nil {
		return nil, err
	}
	K := new(big.Rat).Mul(rdLinf1(g.W2), rdLinf1(g.W1))
	fx, err := g.Eval(x)
	if err != nil {
		return nil, err
	}
	fxh, err := g.Eval(xh)
	if err != nil {
		return nil, err
	}
	diff, dx := make([]*big.Rat, len(fx)), make([]*big.Rat, len(x))
	for i := range fx {
		diff[i] = new(big.Rat).Sub(fxh[i], fx[i])
	}
	for i := range x {
		dx[i] = new(big.Rat).Sub(xh[i], x[i])
	}
	lhs, d2 := rdNormSq(diff), rdNormSq(dx)
	rhs := new(big.Rat).Mul(new(big.Rat).Mul(K, K), d2)
	if lhs.Cmp(rhs) <= 0 {
		return &Evidence{Verdict: Holds, Summary: fmt.Sprintf("no counterexample at the one pair checked: ‖Δff‖₂² = %s ≤ K²δ² = %s", lhs.RatString(), rhs.RatString())}, nil
	}
	return &Evidence{Verdict: Refuted, Summary: fmt.Sprintf("ff(x) = ReLU(x₁ + x₂ + x₃) has ‖W2‖_{∞,1}‖W1‖_{∞,1} = %s; at x = %v, x̂ = %v, ‖x̂ − x‖₂² = %s but ‖ff(x̂) − ff(x)‖₂² = %s > K²δ² = %s (exact)",
		K.RatString(), rdRatStrings(x), rdRatStrings(xh), d2.RatString(), lhs.RatString(), rhs.RatString()),
		Explain: []string{"‖A‖_{∞,1} = Σ_i max_j |A_ij| bounds the ℓ1 operator norm (the largest column sum) but not the Euclidean one: ‖[1 1 1]‖_{∞,1} = 1 < √3 = ‖[1 1 1]‖₂, nor the ℓ∞ one (3, the largest row sum).",
			"With ℓ1 vector norms the substitution is valid (round.error.ffn)."}}, nil
}

func rdRatStrings(v []*big.Rat) string {
	s := "("
	for i, x := range v {
		if i > 0 {
			s += ", "
		}
		s += x.RatString()
	}
	return s + ")"
}

// ---------------------------------------------------------------------
// §Error Analysis: attention

// rdAttnModel is one self-attention sublayer over ℝ^d without its residual
// connection, so that the readout is sa(x) itself.
func rdAttnModel(d int, q, k, v model.Matrix, w model.Weighting, mask model.Mask) *model.Model {
	return &model.Model{Name: "sa", Alphabet: []string{"a"}, WordEmbedding: []model.Vector{make(model.Vector, d)}, D: d,
		Layers: []model.Layer{{Attention: &model.Attention{Heads: []model.Head{{Q: q, K: k, V: v}}, Mask: mask, Weighting: w},
			NoAttentionResidual: true}},
		Output: model.Output{Kind: model.Readout, W: model.Identity(d)}}
}

// rdRunRows runs m on the given residual stream (one exact vector per
// position) at precision p.
func rdRunRows(m *model.Model, p string, rows [][]*big.Rat) ([]model.PositionOutput, error) {
	runner, err := model.New(numeric.MustParsePrecision(p), m)
	if err != nil {
		return nil, err
	}
	res, err := runner.RunStream(rows, false)
	if err != nil {
		return nil, err
	}
	return res.Outputs, nil
}

// rdDiffNormSq bounds ‖a − b‖₂² from two enclosures: lo ≤ ‖a − b‖² ≤ hi
// for every choice of the true values.
func rdDiffNormSq(a, b []model.Value) (lo, hi *big.Rat, err error) {
	lo, hi = new(big.Rat), new(big.Rat)
	for c := range a {
		if !a[c].Finite() || !b[c].Finite() {
			return nil, nil, fmt.Errorf("an output is not finite")
		}
		l := new(big.Rat).Sub(a[c].Lo, b[c].Hi)
		h := new(big.Rat).Sub(a[c].Hi, b[c].Lo)
		m := ffMagnitude(l, h)
		hi.Add(hi, new(big.Rat).Mul(m, m))
		if l.Sign() > 0 {
			lo.Add(lo, new(big.Rat).Mul(l, l))
		} else if h.Sign() < 0 {
			lo.Add(lo, new(big.Rat).Mul(h, h))
		}
	}
	return lo, hi, nil
}

// rdValueNormSq bounds ‖v‖₂² from an enclosure.
func rdValueNormSq(v []model.Value) (lo, hi *big.Rat, err error) {
	zero := make([]model.Value, len(v))
	for c := range zero {
		zero[c] = model.Value{Lo: new(big.Rat), Hi: new(big.Rat)}
	}
	return rdDiffNormSq(v, zero)
}

// rdCheckAttention: for seeded random softmax heads and inputs with
// ‖x_j‖ ≤ X and ‖x̂_j − x_j‖ ≤ δ ≤ 1, ‖sa(x̂)_i − sa(x)_i‖ ≤ K δ with
// K = ‖V‖(1 + 2X(2X + 1)‖QᵀK‖/√d_key) (Frobenius norms), certified.
//
// The mask is none or future (causal), at random; kScale multiplies K.
func rdCheckAttention(seed uint64, cases int, kScale *big.Rat) (*Evidence, error) {
	r := rdNewRdRand(seed)
	worst, worstK := new(big.Rat), ""
	maxGrowth := 0.0
	checked := 0
	deltas := []int64{1, 2, 8, 64, 1024}
	for c := 0; c < cases; c++ {
		d, dk, n := 2+r.IntN(2), 1+r.IntN(2), 1+r.IntN(6)
		Q, Kq, V := r.matrix(dk, d, 2, 4), r.matrix(dk, d, 2, 4), r.matrix(d, d, 2, 4)
		m := rdAttnModel(d, Q, Kq, V, model.Softmax, model.Mask(r.IntN(2)))
		den := deltas[r.IntN(len(deltas))]
		x, xh := make([][]*big.Rat, n), make([][]*big.Rat, n)
		x2, d2 := new(big.Rat), new(big.Rat)
		for j := 0; j < n; j++ {
			x[j] = r.vector(d, 2, 4)
			xh[j] = make([]*big.Rat, d)
			dj := make([]*big.Rat, d)
			for i := range dj {
				// each entry within 1/(d·den): ‖x̂_j − x_j‖₂ ≤ 1/den ≤ 1
				dj[i] = big.NewRat(int64(r.IntN(2*64+1)-64), int64(64*d)*den)
				xh[j][i] = new(big.Rat).Add(x[j][i], dj[i])
			}
			if v := rdNormSq(x[j]); v.Cmp(x2) > 0 {
				x2 = v
			}
			if v := rdNormSq(dj); v.Cmp(d2) > 0 {
				d2 = v
			}
		}
		if d2.Sign() == 0 {
			continue
		}
		out, err := rdRunRows(m, "interval:64", x)
		if err != nil {
			return nil, err
		}
		outh, err := rdRunRows(m, "interval:64", xh)
		if err != nil {
			return nil, err
		}
		// K² δ² from below: (√V2 (1 + 2√X2(2√X2 + 1)√M2/√dk))² δ2
		v2, err := rdFrobSq(V)
		if err != nil {
			return nil, err
		}
		qk := model.Zeros(d, d) // QᵀK
		for a := 0; a < d; a++ {
			for b := 0; b < d; b++ {
				s := new(big.Rat)
				for h := 0; h < dk; h++ {
					qa, _, _ := Q.At(h, a).Rat()
					kb, _, _ := Kq.At(h, b).Rat()
					s.Add(s, new(big.Rat).Mul(qa, kb))
				}
				qk.Set(a, b, numeric.Lit(s))
			}
		}
		m2, err := rdFrobSq(qk)
		if err != nil {
			return nil, err
		}
		X := numeric.Sqrt(numeric.Lit(x2))
		two := numeric.LitInt(2)
		K := numeric.Mul(numeric.Sqrt(numeric.Lit(v2)), numeric.Add(numeric.LitInt(1),
			numeric.Quo(numeric.Mul(numeric.Mul(numeric.Mul(two, X), numeric.Add(numeric.Mul(two, X), numeric.LitInt(1))), numeric.Sqrt(numeric.Lit(m2))),
				numeric.Sqrt(numeric.LitInt(int64(dk))))))
		K = numeric.Mul(K, numeric.Lit(kScale))
		bound := numeric.Mul(numeric.Mul(K, K), numeric.Lit(d2))
		bLo, bHi, err := bound.Enclose(64)
		if err != nil {
			return nil, err
		}
		kLo, _, err := K.Enclose(32)
		if err != nil {
			return nil, err
		}
		for i := 0; i < n; i++ {
			lhsLo, lhs, err := rdDiffNormSq(outh[i].Values, out[i].Values)
			if err != nil {
				return nil, err
			}
			if lhs.Cmp(bLo) > 0 {
				if lhsLo.Cmp(bHi) > 0 {
					return &Evidence{Verdict: Refuted, Summary: fmt.Sprintf("case %d (d = %d, d_key = %d, n = %d), position %d: ‖Δsa‖² ≥ %s exceeds K²δ² ≤ %s (certified)", c+1, d, dk, n, i+1, lhsLo.FloatString(8), bHi.FloatString(8))}, nil
				}
				return nil, fmt.Errorf("case %d, position %d: the enclosures are too wide to decide ‖Δsa‖ ≤ Kδ", c+1, i+1)
			}
			// the measured constant ‖Δsa_i‖/δ, and the fraction of K it uses
			ratio := new(big.Rat).Quo(lhs, bLo) // ≥ (‖Δ‖/(Kδ))²
			if ratio.Cmp(worst) > 0 {
				worst = ratio
				worstK = kLo.FloatString(2)
			}
			g, _ := new(big.Rat).Quo(lhs, d2).Float64()
			if g > maxGrowth {
				maxGrowth = g
			}
			checked++
		}
	}
	w, _ := worst.Float64()
	return &Evidence{Verdict: Holds, Summary: fmt.Sprintf("no counterexample: %d seeded random softmax heads (d = 2, 3, d_key = 1, 2, n ≤ 6, no mask or causal, ‖x̂_j − x_j‖ ≤ δ ∈ {1, 1/2, 1/8, 1/64, 1/1024}, seed %d), %d positions, each certified (interval:64) against K = ‖V‖(1 + 2X(2X + 1)‖QᵀK‖/√d_key); largest measured ‖Δsa_i‖/δ = %.3f, largest ‖Δsa_i‖/(Kδ) = %.3f (K ≈ %s there)",
		cases, seed, checked, rdSqrtFloat(maxGrowth), rdSqrtFloat(w), worstK),
		Explain: []string{
			"K comes from sa(x)_i = Σ_j α_ij V x_j: Δ = Σ_j α̂_ij V(x̂_j − x_j) + Σ_j (α̂_ij − α_ij) V x_j, so ‖Δ‖ ≤ ‖V‖δ + ‖α̂ − α‖₁‖V‖X;",
			"softmax is 2-Lipschitz from ℓ∞ to ℓ1 (its Jacobian diag(p) − ppᵀ maps v to p_j(v_j − p·v)), and |ŝ_ij − s_ij| ≤ ‖QᵀK‖ δ(2X + δ)/√d_key ≤ ‖QᵀK‖ δ(2X + 1)/√d_key for δ ≤ 1.",
			"K does not depend on n: the constant of the proposition exists uniformly in the length.",
		}}, nil
}

func rdSqrtFloat(x float64) float64 {
	if x <= 0 {
		return 0
	}
	z := x
	for k := 0; k < 60; k++ {
		z = (z + x/z) / 2
	}
	return z
}

// rdCheckAttentionHard: under average-hard attention no K exists: keys 0
// and δ at two positions with values 0 and 1 move the output from 1/2
// (a tie, averaged) to 1 for every δ > 0.
//
// It runs at precision p (exact for the hard weightings; an interval
// precision for softmax, where the tests use it to see the counterexample
// vanish).
func rdCheckAttentionHard(w model.Weighting, p string) (*Evidence, error) {
	// x_j = (1, k_j, v_j): q = 1, k = k_j, value v_j in component 3
	q := model.Ints([]int64{1, 0, 0})
	k := model.Ints([]int64{0, 1, 0})
	v := model.Zeros(3, 3)
	v.Set(2, 2, numeric.LitInt(1))
	m := rdAttnModel(3, q, k, v, w, model.NoMask)
	x := [][]*big.Rat{{big.NewRat(1, 1), new(big.Rat), new(big.Rat)}, {big.NewRat(1, 1), new(big.Rat), big.NewRat(1, 1)}}
	base, err := rdRunRows(m, p, x)
	if err != nil {
		return nil, err
	}
	half := big.NewRat(1, 2)
	var last string
	for kexp := 1; kexp <= 40; kexp++ {
		delta := new(big.Rat).SetFrac(big.NewInt(1), new(big.Int).Lsh(big.NewInt(1), uint(kexp)))
		xh := [][]*big.Rat{x[0], {big.NewRat(1, 1), delta, big.NewRat(1, 1)}}
		out, err := rdRunRows(m, p, xh)
		if err != nil {
			return nil, err
		}
		a, b := base[0].Values[2], out[0].Values[2]
		if !a.Finite() || !b.Finite() {
			return nil, fmt.Errorf("an output is not finite")
		}
		// a certified lower bound of |b − a|: the gap between the enclosures
		gap := new(big.Rat).Sub(b.Lo, a.Hi)
		if g2 := new(big.Rat).Sub(a.Lo, b.Hi); g2.Cmp(gap) > 0 {
			gap = g2
		}
		if gap.Cmp(half) < 0 {
			return &Evidence{Verdict: Holds, Summary: fmt.Sprintf("no counterexample: at δ = 2^−%d the change is not certified ≥ 1/2 (sa(x)_1 = %s, sa(x̂)_1 = %s)", kexp, a.Text, b.Text)}, nil
		}
		last = fmt.Sprintf("sa(x)_1 = %s, sa(x̂)_1 = %s", a.Text, b.Text)
	}
	return &Evidence{Verdict: Refuted, Summary: fmt.Sprintf("under %s, x_1 = (1, 0, 0), x_2 = (1, 0, 1) (q = 1, k_j = component 2, v_j = component 3): the scores tie and %s at x̂_2 = (1, δ, 1) for every δ = 2^−k, k = 1 … 40 (exact): the change 1/2 is not O(δ)",
		w, last),
		Explain: []string{"The proposition holds for softmax attention (round.error.attention), as in the cited Yang et al.; the paper's self-attention layers also include average-hard and unique-hard weightings, which are discontinuous in the scores."}}, nil
}

// ---------------------------------------------------------------------
// §Error Analysis: residual connections

// rdCheckTriangle proves |a + b| ≤ |a| + |b| on ℝ²: the FFN
// |a + b| − |a| − |b| (six ReLUs) equals a CPWL reference of six pieces,
// and the exact LP shows each piece's map ≤ 0 on its piece. Summing (ℓ1)
// or maximising (ℓ∞) over components gives the proposition.
func rdCheckTriangle(f *stream.FF) (*Evidence, error) {
	pieces := []cpwl.Piece{
		piece(halfspaces(2, ffRow("-1", "0", "0"), ffRow("0", "-1", "0")), affine(ffRows(ffRow("0", "0")))),                        // a, b ≥ 0: 0
		piece(halfspaces(2, ffRow("1", "0", "0"), ffRow("0", "1", "0")), affine(ffRows(ffRow("0", "0")))),                          // a, b ≤ 0: 0
		piece(halfspaces(2, ffRow("-1", "0", "0"), ffRow("0", "1", "0"), ffRow("-1", "-1", "0")), affine(ffRows(ffRow("0", "2")))), // a ≥ 0 ≥ b, a + b ≥ 0: 2b
		piece(halfspaces(2, ffRow("-1", "0", "0"), ffRow("0", "1", "0"), ffRow("1", "1", "0")), affine(ffRows(ffRow("-2", "0")))),  // a ≥ 0 ≥ b, a + b ≤ 0: −2a
		piece(halfspaces(2, ffRow("1", "0", "0"), ffRow("0", "-1", "0"), ffRow("-1", "-1", "0")), affine(ffRows(ffRow("2", "0")))), // b ≥ 0 ≥ a, a + b ≥ 0: 2a
		piece(halfspaces(2, ffRow("1", "0", "0"), ffRow("0", "-1", "0"), ffRow("1", "1", "0")), affine(ffRows(ffRow("0", "-2")))),  // b ≥ 0 ≥ a, a + b ≤ 0: −2b
	}
	ev, err := ffProveCases([]ffnCase{{label: "|a + b| − |a| − |b|", f: f, domain: space(2), pieces: pieces}})
	if err != nil || ev.Verdict != Proved {
		return ev, err
	}
	for k, p := range pieces {
		v, unbounded, err := rdMaxOn(p.Domain, []string{"0", "0", "0"}, p.Map.A.At(0, 0), p.Map.A.At(0, 1))
		if err != nil {
			return nil, err
		}
		if unbounded {
			return &Evidence{Verdict: Refuted, Summary: fmt.Sprintf("piece %d: |a + b| − |a| − |b| is unbounded above", k+1)}, nil
		}
		if v != nil && new(big.Rat).Add(v, p.Map.C[0]).Sign() > 0 {
			return &Evidence{Verdict: Refuted, Summary: fmt.Sprintf("piece %d: |a + b| − |a| − |b| reaches %s > 0", k+1, v.RatString())}, nil
		}
	}
	return &Evidence{Verdict: Proved, Summary: "|a + b| ≤ |a| + |b| on all of ℝ² (|a + b| − |a| − |b| as an FFN proved equal to six pieces, " + ev.Summary + ", each ≤ 0 on its piece by exact LP); with a = f(x̂) − f(x), b = x̂ − x componentwise, summing (ℓ1) or maximising (ℓ∞) gives ‖f(x̂) + x̂ − (f(x) + x)‖ ≤ ε + δ for any f and d",
		Explain: ev.Explain}, nil
}

// rdTriangleFFN is |a + b| − |a| − |b| = ReLU(a + b) + ReLU(−a − b) −
// ReLU(a) − ReLU(−a) − ReLU(b) − ReLU(−b).
func rdTriangleFFN() *stream.FF {
	return &stream.FF{Name: "triangle", In: []string{"a", "b"}, Out: []string{"t"},
		W1: model.Ints([]int64{1, 1}, []int64{-1, -1}, []int64{1, 0}, []int64{-1, 0}, []int64{0, 1}, []int64{0, -1}),
		W2: model.Ints([]int64{1, 1, -1, -1, -1, -1})}
}

// rdCheckResidualEuclid: for seeded random ReLU blocks f: ℝ^d → ℝ^d and
// pairs (x, x̂), with δ = ‖x̂ − x‖₂ and ε = ‖f(x̂) − f(x)‖₂ (the smallest
// the hypotheses allow), ‖f(x̂) + x̂ − (f(x) + x)‖₂ ≤ ε + δ, exactly (by
// squares: ‖a + b‖² ≤ (‖a‖ + ‖b‖)² ⟺ a·b ≤ ‖a‖‖b‖).
func rdCheckResidualEuclid(seed uint64, blocksN, pairs int) (*Evidence, error) {
	r := rdNewRdRand(seed)
	worst := 0.0
	checked := 0
	for n := 0; n < blocksN; n++ {
		d := 1 + r.IntN(3)
		f := rdRandomFFN(r, d, 1+r.IntN(4), d)
		g, err := ffnOf(f)
		if err != nil {
			return nil, err
		}
		for p := 0; p < pairs; p++ {
			x, dx := r.vector(d, 4, 8), r.vector(d, 1, 1<<uint(r.IntN(8)))
			xh, fx, fxh, err := rdPerturbed(g, x, dx)
			if err != nil {
				return nil, err
			}
			a, s := make([]*big.Rat, d), make([]*big.Rat, d)
			dot := new(big.Rat)
			for i := 0; i < d; i++ {
				a[i] = new(big.Rat).Sub(fxh[i], fx[i])
				s[i] = new(big.Rat).Add(a[i], dx[i])
				dot.Add(dot, new(big.Rat).Mul(a[i], dx[i]))
			}
			aa, bb := rdNormSq(a), rdNormSq(dx)
			// ‖a + b‖ ≤ ‖a‖ + ‖b‖ ⟺ a·b ≤ ‖a‖‖b‖ ⟺ a·b ≤ 0 or (a·b)² ≤ ‖a‖²‖b‖²
			if dot.Sign() > 0 && new(big.Rat).Mul(dot, dot).Cmp(new(big.Rat).Mul(aa, bb)) > 0 {
				return &Evidence{Verdict: Refuted, Summary: fmt.Sprintf("block %d at x = %s, x̂ = %s: ‖a + b‖ > ‖a‖ + ‖b‖ (exact)", n+1, rdRatStrings(x), rdRatStrings(xh))}, nil
			}
			if aa.Sign() > 0 || bb.Sign() > 0 {
				fa, _ := aa.Float64()
				fb, _ := bb.Float64()
				fs, _ := rdNormSq(s).Float64()
				if v := rdSqrtFloat(fs) / (rdSqrtFloat(fa) + rdSqrtFloat(fb)); v > worst {
					worst = v
				}
			}
			checked++
		}
	}
	return &Evidence{Verdict: Holds, Summary: fmt.Sprintf("no counterexample: %d seeded random ReLU blocks f: ℝ^d → ℝ^d (d ≤ 3, seed %d), %d pairs (x, x̂) with ε = ‖f(x̂) − f(x)‖₂ and δ = ‖x̂ − x‖₂, decided exactly by squares; largest ‖Δ‖/(ε + δ) = %.4f (1 when f(x̂) − f(x) and x̂ − x are parallel)",
		blocksN, seed, checked, worst)}, nil
}

// ---------------------------------------------------------------------
// §Error Analysis: layer normalization

// rdLnModel is LN over ℝ^d alone (no layers, the final norm of a pre-norm
// model), read out in full.
func rdLnModel(d int, eps *big.Rat, gamma, beta []*big.Rat) *model.Model {
	return &model.Model{Name: "ln", Alphabet: []string{"a"}, WordEmbedding: []model.Vector{make(model.Vector, d)}, D: d,
		Norm: model.PreNorm, FinalNorm: &model.LayerNorm{Eps: numeric.Lit(eps), Gamma: model.RatVector(gamma...), Beta: model.RatVector(beta...)},
		Output: model.Output{Kind: model.Readout, W: model.Identity(d)}}
}

// rdCheckLayerNorm: for seeded random layer norms with ε > 0 and inputs
// pushed toward constant vectors (where LN is steepest), ‖LN(x̂) − LN(x)‖₂
// ≤ K δ with K = max|γ_k|/√ε, certified: K²δ² = max γ_k² δ²/ε is rational.
// kScale multiplies K.
func rdCheckLayerNorm(seed uint64, cases int, kScale *big.Rat) (*Evidence, error) {
	r := rdNewRdRand(seed)
	epss := []*big.Rat{big.NewRat(1, 10000), big.NewRat(1, 100), big.NewRat(1, 4), big.NewRat(1, 1)}
	spreads := []*big.Rat{new(big.Rat), big.NewRat(1, 1000), big.NewRat(1, 10), big.NewRat(1, 1), big.NewRat(3, 1)}
	deltas := []int64{1, 8, 1024, 1 << 20}
	worst := new(big.Rat)
	worstAt := ""
	var rows [][]*big.Rat
	type job struct {
		d            int
		eps, k2, dd2 *big.Rat
		m            *model.Model
	}
	var jobs []job
	for c := 0; c < cases; c++ {
		d := 2 + r.IntN(3)
		eps := epss[r.IntN(len(epss))]
		gamma, beta := r.vector(d, 2, 4), r.vector(d, 1, 4)
		g2 := new(big.Rat)
		for _, g := range gamma {
			if v := new(big.Rat).Mul(g, g); v.Cmp(g2) > 0 {
				g2 = v
			}
		}
		// x = c·1 + s·u, x̂ = x + dx with ‖dx‖ small or 1
		base := r.rat(2, 4)
		s := spreads[r.IntN(len(spreads))]
		x := make([]*big.Rat, d)
		for i := range x {
			x[i] = new(big.Rat).Add(base, new(big.Rat).Mul(s, r.rat(1, 8)))
		}
		den := deltas[r.IntN(len(deltas))]
		dx := make([]*big.Rat, d)
		xh := make([]*big.Rat, d)
		for i := range dx {
			dx[i] = big.NewRat(int64(r.IntN(129)-64), 64*int64(d)*den)
			xh[i] = new(big.Rat).Add(x[i], dx[i])
		}
		dd2 := rdNormSq(dx)
		if dd2.Sign() == 0 {
			continue
		}
		k2 := new(big.Rat).Quo(g2, eps)
		k2.Mul(k2, new(big.Rat).Mul(kScale, kScale))
		jobs = append(jobs, job{d: d, eps: eps, k2: k2, dd2: dd2, m: rdLnModel(d, eps, gamma, beta)})
		rows = append(rows, x, xh)
	}
	for n, j := range jobs {
		out, err := rdRunRows(j.m, "interval:64", rows[2*n:2*n+2])
		if err != nil {
			return nil, err
		}
		lhsLo, lhs, err := rdDiffNormSq(out[1].Values, out[0].Values)
		if err != nil {
			return nil, err
		}
		rhs := new(big.Rat).Mul(j.k2, j.dd2)
		if lhs.Cmp(rhs) > 0 {
			if lhsLo.Cmp(rhs) > 0 {
				return &Evidence{Verdict: Refuted, Summary: fmt.Sprintf("case %d (d = %d, ε = %s): x = %s, x̂ = %s: ‖ΔLN‖² ≥ %s exceeds K²δ² = %s (certified)", n+1, j.d, j.eps.RatString(), rdRatStrings(rows[2*n]), rdRatStrings(rows[2*n+1]), lhsLo.FloatString(10), rhs.FloatString(10))}, nil
			}
			return nil, fmt.Errorf("case %d: the enclosures are too wide to decide ‖ΔLN‖ ≤ Kδ", n+1)
		}
		if ratio := new(big.Rat).Quo(lhs, rhs); ratio.Cmp(worst) > 0 {
			worst = ratio
			worstAt = fmt.Sprintf("d = %d, ε = %s", j.d, j.eps.RatString())
		}
	}
	w, _ := worst.Float64()
	return &Evidence{Verdict: Holds, Summary: fmt.Sprintf("no counterexample: %d seeded random layer norms and pairs (d = 2 … 4, ε ∈ {10⁻⁴, 1/100, 1/4, 1}, x near constant vectors, δ from 2⁻²⁰ to 1, seed %d), each certified (interval:64) against K = max|γ_k|/√ε (for every X; δ ≤ 1 is not needed); largest ‖ΔLN‖/(Kδ) = %.4f (%s)",
		len(jobs), seed, rdSqrtFloat(w), worstAt),
		Explain: []string{"LN(x) = γ ⊙ c/√(‖c‖²/d + ε) + β with c = x − μ1 (an orthogonal projection of x); the Jacobian of c ↦ c/√(‖c‖²/d + ε) has norm ≤ 1/√(σ² + ε) ≤ 1/√ε, so LN is (max|γ|/√ε)-Lipschitz on all of ℝ^d, the worst case near constant vectors."}}, nil
}

// rdCheckLayerNormNoEps: with ε = 0 LN is scale invariant, and LN(t, 0) =
// (1, −1), LN(−t, 0) = (−1, 1) for every t > 0: ‖x̂ − x‖ = 2t, while
// ‖LN(x̂) − LN(x)‖ = 2√2, so no K works for small δ.
//
// eps is LN.ε (0 for the claim).
func rdCheckLayerNormNoEps(eps *big.Rat, p string) (*Evidence, error) {
	m := rdLnModel(2, eps, []*big.Rat{big.NewRat(1, 1), big.NewRat(1, 1)}, []*big.Rat{new(big.Rat), new(big.Rat)})
	for _, k := range []int{1, 5, 10, 15, 20, 25, 30} {
		t := new(big.Rat).SetFrac(big.NewInt(1), new(big.Int).Lsh(big.NewInt(1), uint(k)))
		out, err := rdRunRows(m, p, [][]*big.Rat{{t, new(big.Rat)}, {new(big.Rat).Neg(t), new(big.Rat)}})
		if err != nil {
			return nil, err
		}
		for i, want := range [][2]int64{{1, -1}, {-1, 1}} {
			for c := 0; c < 2; c++ {
				if !out[i].Values[c].Equals(big.NewRat(want[c], 1)) {
					return &Evidence{Verdict: Refuted, Summary: fmt.Sprintf("LN(±%s, 0) with ε = %s is not (±1, ∓1): %s", t.RatString(), eps.RatString(), out[i].Values[c].Text)}, nil
				}
			}
		}
	}
	return &Evidence{Verdict: Proved, Summary: "with LN.ε = 0, x = (t, 0), x̂ = (−t, 0): δ = 2t and LN(x) = (1, −1), LN(x̂) = (−1, 1) exactly (checked at t = 2^−k, k = 1, 5, 10, …, 30; for every t > 0 since then (x − μ)/σ = (1, −1)), so ‖ΔLN‖/δ = √2/t exceeds any K as t → 0, with ‖x‖ ≤ 1 and δ ≤ 1",
		Explain: []string{"For x = (t, 0), t > 0: μ = t/2, σ = t/2, so LN(x) = ((t/2)/(t/2), (−t/2)/(t/2)) = (1, −1) whatever t; likewise LN(−t, 0) = (−1, 1)."}}, nil
}

// ---------------------------------------------------------------------
// §Error Analysis: bounded activations

// rdBoundedModel is a seeded random 2-layer transformer over ℝ^d with
// softmax attention, ReLU FFNs and layer norms with ε = 0 placed by
// placement, a 3-symbol alphabet, and the position encoding
// pe_n(i) = (i/n, (−1)^i, 0, …), so ‖pe_n(i)‖ ≤ √2 = P.
func rdBoundedModel(r rdRand, d int, placement model.NormPlacement) *model.Model {
	m := &model.Model{Name: "tf", Alphabet: []string{"a", "b", "c"}, D: d, Norm: placement,
		Position: &model.PositionEncoding{Name: "(i/n, (−1)^i)", Vector: func(i, n int) model.Vector {
			v := make(model.Vector, d)
			v[0] = numeric.Frac(int64(i), int64(n))
			if i%2 == 0 {
				v[1] = numeric.LitInt(1)
			} else {
				v[1] = numeric.LitInt(-1)
			}
			return v
		}},
		Output: model.Output{Kind: model.Readout, W: model.Identity(d)}}
	for s := 0; s < 3; s++ {
		m.WordEmbedding = append(m.WordEmbedding, model.RatVector(r.vector(d, 2, 4)...))
	}
	ln := func() *model.LayerNorm {
		return &model.LayerNorm{Eps: numeric.LitInt(0), Gamma: model.RatVector(r.vector(d, 2, 4)...), Beta: model.RatVector(r.vector(d, 1, 4)...)}
	}
	for l := 0; l < 2; l++ {
		h := 2 + r.IntN(3)
		layer := model.Layer{
			Attention:   &model.Attention{Heads: []model.Head{{Q: r.matrix(2, d, 1, 2), K: r.matrix(2, d, 1, 2), V: r.matrix(d, d, 1, 2)}}, Weighting: model.Softmax, Mask: model.Mask(r.IntN(2))},
			FeedForward: &model.FeedForward{W1: r.matrix(h, d, 1, 2), B1: model.RatVector(r.vector(h, 1, 2)...), W2: r.matrix(d, h, 1, 2), B2: model.RatVector(r.vector(d, 1, 2)...)},
		}
		if placement != model.NoNorm {
			layer.AttentionNorm, layer.FeedForwardNorm = ln(), ln()
		}
		m.Layers = append(m.Layers, layer)
	}
	if placement == model.PreNorm {
		m.FinalNorm = ln()
	}
	return m
}

// rdActivationBounds are upper bounds X_s of ‖x_i‖₂ after each state of the
// trace (embedding, then each sublayer, then the final norm), valid for
// every length n: by induction, an attention output is a convex
// combination of V x_j, an FFN is bounded by ‖W2‖(‖W1‖X + ‖b1‖) + ‖b2‖,
// and a layer norm (any ε ≥ 0) by √d max|γ| + ‖β‖. Frobenius norms, all
// rounded up.
func rdActivationBounds(m *model.Model, P *big.Rat) ([]*big.Rat, error) {
	fro := func(a model.Matrix) (*big.Rat, error) {
		s, err := rdFrobSq(a)
		if err != nil {
			return nil, err
		}
		return rdSqrtHi(s)
	}
	vecNorm := func(v model.Vector) (*big.Rat, error) {
		s := new(big.Rat)
		for _, e := range v {
			r, ok, err := e.Rat()
			if err != nil || !ok {
				return nil, fmt.Errorf("irrational entry")
			}
			s.Add(s, new(big.Rat).Mul(r, r))
		}
		return rdSqrtHi(s)
	}
	lnBound := func(ln *model.LayerNorm) (*big.Rat, error) {
		g := new(big.Rat)
		for _, e := range ln.Gamma {
			r, _, _ := e.Rat()
			if v := new(big.Rat).Abs(r); v.Cmp(g) > 0 {
				g = v
			}
		}
		sd, err := rdSqrtHi(big.NewRat(int64(m.D), 1))
		if err != nil {
			return nil, err
		}
		b, err := vecNorm(ln.Beta)
		if err != nil {
			return nil, err
		}
		return new(big.Rat).Add(new(big.Rat).Mul(sd, g), b), nil
	}
	X := new(big.Rat)
	for _, we := range m.WordEmbedding {
		v, err := vecNorm(we)
		if err != nil {
			return nil, err
		}
		if v.Cmp(X) > 0 {
			X = v
		}
	}
	X.Add(X, P)
	bounds := []*big.Rat{new(big.Rat).Set(X)}
	for _, l := range m.Layers {
		// attention
		in := X
		if m.Norm == model.PreNorm {
			b, err := lnBound(l.AttentionNorm)
			if err != nil {
				return nil, err
			}
			in = b
		}
		v, err := fro(l.Attention.Heads[0].V)
		if err != nil {
			return nil, err
		}
		X = new(big.Rat).Add(X, new(big.Rat).Mul(v, in))
		if m.Norm == model.PostNorm {
			if X, err = lnBound(l.AttentionNorm); err != nil {
				return nil, err
			}
		}
		bounds = append(bounds, X)
		// feed-forward
		in = X
		if m.Norm == model.PreNorm {
			if in, err = lnBound(l.FeedForwardNorm); err != nil {
				return nil, err
			}
		}
		w1, err := fro(l.FeedForward.W1)
		if err != nil {
			return nil, err
		}
		w2, err := fro(l.FeedForward.W2)
		if err != nil {
			return nil, err
		}
		b1, err := vecNorm(l.FeedForward.B1)
		if err != nil {
			return nil, err
		}
		b2, err := vecNorm(l.FeedForward.B2)
		if err != nil {
			return nil, err
		}
		ff := new(big.Rat).Mul(w2, new(big.Rat).Add(new(big.Rat).Mul(w1, in), b1))
		X = new(big.Rat).Add(X, ff.Add(ff, b2))
		if m.Norm == model.PostNorm {
			if X, err = lnBound(l.FeedForwardNorm); err != nil {
				return nil, err
			}
		}
		bounds = append(bounds, X)
	}
	if m.FinalNorm != nil {
		b, err := lnBound(m.FinalNorm)
		if err != nil {
			return nil, err
		}
		bounds = append(bounds, b)
	}
	return bounds, nil
}

// rdCheckBoundedActivations: seeded random transformers (no norm, post-norm
// and pre-norm with LN.ε = 0), random strings of lengths up to 16: every
// activation of the trace is certified below its length-independent bound.
//
// scale multiplies every bound.
func rdCheckBoundedActivations(seed uint64, models int, lengths []int, scale *big.Rat) (*Evidence, error) {
	r := rdNewRdRand(seed)
	P, err := rdSqrtHi(big.NewRat(2, 1))
	if err != nil {
		return nil, err
	}
	worst, largest := 0.0, 0.0
	worstAt := ""
	states, runs := 0, 0
	placements := []model.NormPlacement{model.NoNorm, model.PostNorm, model.PreNorm}
	placementName := map[model.NormPlacement]string{model.NoNorm: "no norm", model.PostNorm: "post-norm", model.PreNorm: "pre-norm"}
	for k := 0; k < models; k++ {
		placement := placements[k%len(placements)]
		m := rdBoundedModel(r, 3, placement)
		bounds, err := rdActivationBounds(m, P)
		if err != nil {
			return nil, err
		}
		for i := range bounds {
			bounds[i].Mul(bounds[i], scale)
		}
		runner, err := model.New(numeric.MustParsePrecision("interval:64"), m)
		if err != nil {
			return nil, err
		}
		for _, n := range lengths {
			input := make([]int, n)
			for i := range input {
				input[i] = r.IntN(3)
			}
			res, err := runner.Run(input, true)
			if err != nil {
				return nil, err
			}
			runs++
			if len(res.Trace.States) != len(bounds) {
				return nil, fmt.Errorf("model %d: %d trace states for %d bounds", k+1, len(res.Trace.States), len(bounds))
			}
			for s, st := range res.Trace.States {
				b2 := new(big.Rat).Mul(bounds[s], bounds[s])
				for i, vec := range st.Vectors {
					lo, hi, err := rdValueNormSq(vec)
					if err != nil {
						return nil, fmt.Errorf("model %d, %s, position %d: %v", k+1, st.Label, i+1, err)
					}
					if hi.Cmp(b2) > 0 {
						if lo.Cmp(b2) > 0 {
							return &Evidence{Verdict: Refuted, Summary: fmt.Sprintf("model %d (%s), length %d, %s, position %d: ‖x‖² ≥ %s exceeds the bound %s² (certified)", k+1, placementName[placement], n, st.Label, i+1, lo.FloatString(6), bounds[s].FloatString(6))}, nil
						}
						return nil, fmt.Errorf("model %d, %s, position %d: the enclosure is too wide to decide the bound", k+1, st.Label, i+1)
					}
					fh, _ := hi.Float64()
					fb, _ := b2.Float64()
					if v := rdSqrtFloat(fh / fb); v > worst {
						worst, worstAt = v, placementName[placement]+", "+st.Label
					}
					if v := rdSqrtFloat(fh); v > largest {
						largest = v
					}
					states++
				}
			}
		}
	}
	return &Evidence{Verdict: Holds, Summary: fmt.Sprintf("no counterexample: %d seeded random 2-layer transformers (d = 3, softmax, ReLU FFNs; no norm, post-norm and pre-norm, LN.ε = 0; pe = (i/n, (−1)^i), P = √2; seed %d), %d runs on random strings of lengths %v, %d activation vectors, each certified (interval:64) below its length-independent bound X_ℓ; largest ‖x‖ = %.3f, largest ‖x‖/X_ℓ = %.3f (%s)",
		models, seed, runs, lengths, states, largest, worst, worstAt),
		Explain: []string{
			"X₀ = max_s ‖we(s)‖ + P; an attention sublayer maps X to X + ‖V‖X_in (its output is a convex combination of V x_j), an FFN to X + ‖W2‖(‖W1‖X_in + ‖b1‖) + ‖b2‖, where X_in is X or, under pre-norm, the norm's bound; a layer norm with any ε ≥ 0 outputs at most √d max|γ| + ‖β‖ (‖x − μ‖ = √d σ ≤ √(d(σ² + ε))).",
			"LN with ε = 0 is undefined on constant vectors (σ = 0); the random inputs avoid them.",
		}}, nil
}

// ---------------------------------------------------------------------
// The registry

func init() {
	Register(
		&Claim{ID: "round.comparison.step", Section: rdSecCompare, Label: "sec:comparison_rounding",
			Statement: "\"If values smaller than ε were rounded down to 0, this would permit exact simulation of a step function\": rounding GEZero(x, ε) (0, ramp x + ε, ε) gives ε·𝕀[x ≥ 0], \"scaled up\" 𝕀[x ≥ 0]",
			Domain:    "(x, ε) ∈ ℝ² with ε > 0: GEZero on {ε ≥ 0} by the decision procedure, the rounding R_ε(v) = 0 for v < ε, v otherwise, decided on each piece by exact LP",
			Recorded:  Proved, Check: func() (*Evidence, error) { return rdCheckRoundedStep(blocks.GEZero("x", "eps", "out")) }},
		&Claim{ID: "round.comparison.step.fp32", Section: rdSecCompare, Label: "sec:comparison_rounding",
			Statement: "the rounding of fixed precision (\"say 32-bit floating point\") gives the exact step: in a format with nothing strictly between 0 and ε, GEZero(x, ε) computed in that format is ε·𝕀[x ≥ 0]",
			Domain:    "binary32 arithmetic (round to nearest), ε = 2^−149 (its smallest positive value); x every binary32 value whose bit pattern is a multiple of 2^19 (16 per binade, both signs)",
			Recorded:  Refuted, Check: func() (*Evidence, error) {
				eps := new(big.Rat).SetFrac(big.NewInt(1), new(big.Int).Lsh(big.NewInt(1), 149))
				return rdCheckFloatStep(blocks.GEZero("x", "eps", "out"), "fp32", eps, rdFloatValues(numeric.Binary32, 1<<19))
			}},
		&Claim{ID: "round.error.bounded-activations", Section: rdSecError, Label: "",
			Statement: "Bounded activations: if pe_n(i) ≤ P for all n and i, then even with LN.ε = 0 there is an X with ‖x_i^(ℓ)‖ ≤ X for all ℓ and i",
			Domain:    "seeded random 2-layer transformers (softmax, ReLU, LN.ε = 0 post- and pre-norm, and no norm), strings of lengths 1, 3, 12; X_ℓ the explicit length-independent bound of the proof",
			Recorded:  Holds, Check: func() (*Evidence, error) {
				return rdCheckBoundedActivations(11, 6, []int{1, 3, 12}, big.NewRat(1, 1))
			}},
		&Claim{ID: "round.error.ffn.literal", Section: rdSecError, Label: "",
			Statement: "Error analysis of FFNNs, as printed: if ‖x̂ − x‖ ≤ δ and ff is a ReLU FFN, there is a K with ‖ff(x̂) − ff(x̂)‖ ≤ Kδ (sic: x̂ twice)",
			Domain:    "ReLU FFNs on ℝ^d (5 seeded random ones checked)",
			Recorded:  Proved, Check: func() (*Evidence, error) { return rdCheckFFNLiteral(rdRandomFFNs(3, 5)) }},
		&Claim{ID: "round.error.ffn", Section: rdSecError, Label: "",
			Statement: "Error analysis of FFNNs, as intended: ‖ff(x̂) − ff(x)‖ ≤ Kδ, with K = ‖W2‖ ‖W1‖ in the L_{∞,1} norm the paper suggests",
			Domain:    "ℓ1 vector norms (for which ‖·‖_{∞,1} bounds the operator norm); 40 seeded random ReLU FFNs ℝ^d → ℝ^k (d, k ≤ 3, ≤ 4 units), their exact Lipschitz constants over their linear regions, and random pairs",
			Recorded:  Holds, Check: func() (*Evidence, error) { return rdCheckFFNLipschitz(rdRandomFFNs(5, 40), 5, big.NewRat(1, 1)) }},
		&Claim{ID: "round.error.linf1-norm", Section: rdSecError, Label: "",
			Statement: "\"‖·‖ around matrices is the operator norm. For simplicity, one can use the L_{∞,1} norm instead\": K = ‖W2‖_{∞,1}‖W1‖_{∞,1} in the FFN error bound",
			Domain:    "Euclidean vector norms; ff(x) = ReLU(x₁ + x₂ + x₃), x = 0, x̂ = (2/3, 2/3, 1/3)",
			Recorded:  Refuted, Check: func() (*Evidence, error) {
				f := &stream.FF{Name: "sum", In: ffNames("x", 3), Out: []string{"y"}, W1: model.Ints([]int64{1, 1, 1}), W2: model.Ints([]int64{1})}
				return rdCheckLinf1Euclidean(f, []*big.Rat{new(big.Rat), new(big.Rat), new(big.Rat)}, []*big.Rat{big.NewRat(2, 3), big.NewRat(2, 3), big.NewRat(1, 3)})
			}},
		&Claim{ID: "round.error.attention", Section: rdSecError, Label: "",
			Statement: "Error analysis of attention: if ‖x‖ ≤ X, ‖x̂ − x‖ ≤ δ ≤ 1 and sa is a self-attention layer, there is a K with ‖sa(x̂)_i − sa(x)_i‖ ≤ Kδ for all i",
			Domain:    "softmax attention (the cited Yang et al.), Euclidean norms per position; 60 seeded random heads and inputs, n ≤ 6, against K = ‖V‖(1 + 2X(2X + 1)‖QᵀK‖/√d_key)",
			Recorded:  Holds, Check: func() (*Evidence, error) { return rdCheckAttention(7, 60, big.NewRat(1, 1)) }},
		&Claim{ID: "round.error.attention.hard", Section: rdSecError, Label: "",
			Statement: "Error analysis of attention for any self-attention layer, as printed (the paper's layers include average-hard attention)",
			Domain:    "average-hard attention (AHAT), two positions, exact arithmetic",
			Recorded:  Refuted, Check: func() (*Evidence, error) { return rdCheckAttentionHard(model.AverageHardmax, "exact") }},
		&Claim{ID: "round.error.residual", Section: rdSecError, Label: "",
			Statement: "Error analysis of residual connections: if ‖x̂ − x‖ ≤ δ and ‖f(x̂) − f(x)‖ ≤ ε, then ‖f(x̂) + x̂ − (f(x) + x)‖ ≤ ε + δ",
			Domain:    "ℓ1 and ℓ∞ norms, any f: ℝ^d → ℝ^d: the triangle inequality |a + b| ≤ |a| + |b| proved on all of ℝ²",
			Recorded:  Proved, Check: func() (*Evidence, error) { return rdCheckTriangle(rdTriangleFFN()) }},
		&Claim{ID: "round.error.residual.euclidean", Section: rdSecError, Label: "",
			Statement: "Error analysis of residual connections, for the Euclidean norm: ‖f(x̂) + x̂ − (f(x) + x)‖₂ ≤ ε + δ",
			Domain:    "seeded random ReLU blocks f: ℝ^d → ℝ^d (d ≤ 3) and pairs, exact",
			Recorded:  Holds, Check: func() (*Evidence, error) { return rdCheckResidualEuclid(13, 20, 20) }},
		&Claim{ID: "round.error.layernorm", Section: rdSecError, Label: "",
			Statement: "Error analysis of layer normalization: if ‖x‖ ≤ X, ‖x̂ − x‖ ≤ δ ≤ 1 and LN.ε > 0, there is a K with ‖LN(x̂) − LN(x)‖ ≤ Kδ",
			Domain:    "Euclidean norms; 150 seeded random layer norms (d = 2 … 4, ε from 10⁻⁴ to 1, any γ, β) and pairs near constant vectors, against K = max|γ_k|/√ε",
			Recorded:  Holds, Check: func() (*Evidence, error) { return rdCheckLayerNorm(17, 150, big.NewRat(1, 1)) }},
		&Claim{ID: "round.error.layernorm.needs-eps", Section: rdSecError, Label: "",
			Statement: "the hypothesis LN.ε > 0 is needed: with LN.ε = 0 no constant K bounds ‖LN(x̂) − LN(x)‖ by Kδ, even for ‖x‖ ≤ X and δ ≤ 1",
			Domain:    "d = 2, γ = 1, β = 0, x = (t, 0), x̂ = (−t, 0), t ∈ (0, 1/2]",
			Recorded:  Proved, Check: func() (*Evidence, error) { return rdCheckLayerNormNoEps(new(big.Rat), "exact") }},
	)
}

// rdPerturbed is x̂ = x + dx with the FFN's values at x and at x̂, exact.
func rdPerturbed(g *cpwl.FFN, x, dx []*big.Rat) (xh, fx, fxh []*big.Rat, err error) {
	xh = make([]*big.Rat, len(x))
	for i := range x {
		xh[i] = new(big.Rat).Add(x[i], dx[i])
	}
	if fx, err = g.Eval(x); err != nil {
		return nil, nil, nil, err
	}
	if fxh, err = g.Eval(xh); err != nil {
		return nil, nil, nil, err
	}
	return xh, fx, fxh, nil
}
