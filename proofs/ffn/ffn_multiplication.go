package ffn

import (
	"fmt"
	"math/big"

	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/model/eval"
	"github.com/transformer-cookbook/verify/numeric"
	"github.com/transformer-cookbook/verify/proofs"
	"github.com/transformer-cookbook/verify/recipes/blocks"
	"github.com/transformer-cookbook/verify/recipes/stream"
)

// ---------------------------------------------------------------------
// §Multiplication: the GELU product, in certified interval arithmetic

// taylorPrec and mulPrec are the precisions of the engine's runs beside
// the proofs (ffn_gelu_sup.go): 128-bit endpoints for the GELU unit, which
// must resolve R(z) = O(z⁴) against |z|³/6 down to z = 2^−40, and 64 for
// the block mul, whose smallest inputs are 2^−20.
const (
	taylorPrec = 128
	mulPrec    = 64
)

// runVectors runs m at interval:prec on one position per input (the
// feed-forward blocks act position by position, so one run checks many
// points) and returns the readout's enclosures.
func runVectors(m *model.Model, inputs []map[string]*big.Rat, prec uint) ([][]eval.Value, error) {
	inst, err := eval.Instantiate(numeric.NewIntervals(prec), m)
	if err != nil {
		return nil, err
	}
	h, err := stream.Stream(m, inputs)
	if err != nil {
		return nil, err
	}
	res, err := inst.RunStream(h, false)
	if err != nil {
		return nil, err
	}
	out := make([][]eval.Value, len(res.Outputs))
	for i, o := range res.Outputs {
		out[i] = o.Values
		for _, v := range o.Values {
			if !v.Finite() {
				return nil, fmt.Errorf("input %v: output %s is not finite", inputs[i], v.Text)
			}
		}
	}
	return out, nil
}

// enclose is a certified rational enclosure of a constant expression.
func enclose(e numeric.Expr) (lo, hi *big.Rat, err error) { return e.Enclose(2 * taylorPrec) }

func cube(x *big.Rat) *big.Rat { return new(big.Rat).Mul(x, new(big.Rat).Mul(x, x)) }

// geluPoints are the z where the engine's GELU unit is run: [−8, 8] in
// steps of 1/8, and ±2^−k for k = 6, 8, …, 40 (tiny z, where R(z) = O(z⁴)
// meets the bound |z|³/6 = O(z³)).
func geluPoints() []*big.Rat {
	var zs []*big.Rat
	for k := -64; k <= 64; k++ {
		zs = append(zs, big.NewRat(int64(k), 8))
	}
	for k := 6; k <= 40; k += 2 {
		t := new(big.Rat).SetFrac(big.NewInt(1), new(big.Int).Lsh(big.NewInt(1), uint(k)))
		zs = append(zs, t, new(big.Rat).Neg(t))
	}
	return zs
}

var invSqrt2Pi = numeric.Quo(numeric.LitInt(1), numeric.Sqrt(numeric.Mul(numeric.LitInt(2), numeric.Pi())))

// geluModel is one GELU unit: g = GELU(z).
func geluModel(act model.Activation) (*model.Model, error) {
	f := &stream.FF{Name: "gelu", In: []string{"z"}, Out: []string{"g"}, W1: model.Ints([]int64{1}), W2: model.Ints([]int64{1}), Activation: act}
	return stream.New("gelu", "z").Then(f).Readout("g").Model()
}

// taylorEngine runs the engine's GELU unit m at the points zs and checks
// |R(z)| ≤ bound·|z|³ at each, certified. It returns a refutation, or the
// largest certified lower bound on |R(z)|/|z|³ and where.
func taylorEngine(m *model.Model, zs []*big.Rat, bound *big.Rat) (ref *proofs.Evidence, lower, at *big.Rat, err error) {
	in := make([]map[string]*big.Rat, len(zs))
	for i, z := range zs {
		in[i] = map[string]*big.Rat{"z": z}
	}
	out, err := runVectors(m, in, taylorPrec)
	if err != nil {
		return nil, nil, nil, err
	}
	cLo, cHi, err := enclose(invSqrt2Pi)
	if err != nil {
		return nil, nil, nil, err
	}
	lower, at = new(big.Rat), new(big.Rat)
	for i, z := range zs {
		g := out[i][0]
		if z.Sign() == 0 { // GELU(0) = 0 · Φ(0) = 0 exactly, so R(0) = 0
			if g.Lo.Sign() != 0 || g.Hi.Sign() != 0 {
				return &proofs.Evidence{Verdict: proofs.Refuted, Summary: "the engine's GELU(0) ≠ 0: enclosure " + g.Text}, nil, nil, nil
			}
			continue
		}
		half := new(big.Rat).Quo(z, big.NewRat(2, 1))
		z2 := new(big.Rat).Mul(z, z)
		lo := new(big.Rat).Sub(g.Lo, half)
		lo.Sub(lo, new(big.Rat).Mul(z2, cHi))
		hi := new(big.Rat).Sub(g.Hi, half)
		hi.Sub(hi, new(big.Rat).Mul(z2, cLo))
		cube := cube(new(big.Rat).Abs(z))
		b := new(big.Rat).Mul(bound, cube)
		if proofs.Magnitude(lo, hi).Cmp(b) > 0 {
			if lo.Cmp(b) > 0 || hi.Cmp(new(big.Rat).Neg(b)) < 0 {
				return &proofs.Evidence{Verdict: proofs.Refuted, Summary: fmt.Sprintf("the engine's GELU at z = %s: R(z) ∈ [%s, %s], outside ±%s·|z|³ = ±%s (certified)",
					z.RatString(), lo.FloatString(12), hi.FloatString(12), bound.RatString(), b.FloatString(12))}, nil, nil, nil
			}
			return nil, nil, nil, fmt.Errorf("z = %s: the enclosure of R(z) is too wide to decide |R(z)| ≤ %s·|z|³", z.RatString(), bound.RatString())
		}
		least := new(big.Rat) // the smallest |R(z)| the enclosure allows
		switch {
		case lo.Sign() > 0:
			least.Set(lo)
		case hi.Sign() < 0:
			least.Neg(hi)
		}
		if r := least.Quo(least, cube); r.Cmp(lower) > 0 {
			lower, at = r, z
		}
	}
	return nil, lower, at, nil
}

// checkTaylor: |R(z)| ≤ bound·|z|³ for every z, R(z) = GELU(z) − z/2 −
// z²/√(2π), by a certified enclosure of the best constant T* (see
// gsTaylorSup); and the engine's GELU unit m agrees at the points of
// geluPoints: none above the bound, none certified above T*'s
// enclosure.
func checkTaylor(form string, m *model.Model, bound *big.Rat) (*proofs.Evidence, error) {
	sup, err := gsTaylorSup(form, bound)
	if err != nil {
		return nil, err
	}
	tight := &proofs.Tightness{Claimed: bound, BestLo: sup.lo, BestHi: sup.hi,
		How: fmt.Sprintf("certified: sup_{z ≠ 0} |R(z)|/|z|³ ∈ [%s, %s], the lower end attained at z = %s; %s", sup.lo.FloatString(7), sup.hi.FloatString(7), sup.at[0].RatString(), sup.regions("|z|"))}
	explain := []string{
		"R(z) = GELU(z) − z/2 − z²/√(2π) is even (GELU(z) − z/2 is z times an odd function) with R(0) = R′(0) = R″(0) = R‴(0) = 0, so ρ(z) = R(z)/z³ = z·∫₀¹ GELU⁗(zu)(1 − u)³/6 du for z > 0.",
		fmt.Sprintf("0 < |z| ≤ %s: |R(z)|/|z|³ ≤ |z|·M₄/24 ≤ %s, M₄ = %s ≥ |GELU⁗| on [−%s, %s] (order-5 Taylor arithmetic on %d intervals, certified).", gsNearEnd.RatString(), sup.near.FloatString(5), sup.m4.FloatString(6), gsNearEnd.RatString(), gsNearEnd.RatString(), gsNearPieces),
		fmt.Sprintf("|z| ≥ %s: |GELU(z) − z/2| ≤ |z|/2, so |R(z)|/|z|³ ≤ 1/(2z²) + 1/(√(2π)|z|) ≤ %s.", gsFarStart.RatString(), sup.far.FloatString(5)),
		fmt.Sprintf("%s ≤ |z| ≤ %s: order-%d Taylor models of ρ on cells of width 1/%d (elementary functions at %d grid points), branch and bound from %d intervals to %d (depth %d) in %.2f s, stopping within 1/%d of the lower bound%s.", gsNearEnd.RatString(), gsFarStart.RatString(), gsOrder, 1<<gsCellScale, sup.points, sup.search.initial, sup.search.boxes, sup.search.depth, sup.search.elapsed.Seconds(), gsTol, sup.refinedNote()),
	}
	if sup.lo.Cmp(bound) > 0 {
		return &proofs.Evidence{Verdict: proofs.Refuted, Tight: tight, Explain: explain, Summary: fmt.Sprintf("at z = %s, |R(z)|/|z|³ ≥ %s > %s (certified); the best constant is in [%s, %s]",
			sup.at[0].RatString(), sup.lo.FloatString(7), bound.RatString(), sup.lo.FloatString(7), sup.hi.FloatString(7))}, nil
	}
	if sup.hi.Cmp(bound) > 0 {
		return nil, fmt.Errorf("the best constant is in [%s, %s], which holds the bound %s: undecided", sup.lo.FloatString(8), sup.hi.FloatString(8), bound.RatString())
	}
	zs := geluPoints()
	ref, lower, at, err := taylorEngine(m, zs, bound)
	if err != nil || ref != nil {
		return ref, err
	}
	if lower.Cmp(sup.hi) > 0 {
		return nil, fmt.Errorf("the engine's GELU unit gives |R(z)|/|z|³ ≥ %s at z = %s, above the certified supremum %s: the unit and the proof disagree", lower.FloatString(8), at.RatString(), sup.hi.FloatString(8))
	}
	return &proofs.Evidence{Verdict: proofs.Proved, Tight: tight, Explain: explain, Summary: fmt.Sprintf("for every z ≠ 0: |R(z)|/|z|³ ≤ %s ≤ %s, %s (interval:%d); the best constant is in %s; the engine's GELU unit agrees at %d points z (multiples of 1/8 in [−8, 8], ±2^−k, k ≤ 40; interval:%d)",
		sup.hi.FloatString(6), bound.RatString(), sup.regions("|z|"), gsPrec, sup.enclosure(bound), len(zs), taylorPrec)}, nil
}

// ratInterval is a rational enclosure [lo, hi].
type ratInterval struct{ lo, hi *big.Rat }

// mulTiny are the block mul's inputs: the multiples of 4 in [−8, 8]²,
// (±1, ±1), and ±2^−k (k = 10, 20) paired with each other and with ±1
// and 8.
func mulTiny() [][2]*big.Rat {
	var ps [][2]*big.Rat
	for i := -2; i <= 2; i++ {
		for j := -2; j <= 2; j++ {
			ps = append(ps, [2]*big.Rat{big.NewRat(int64(4*i), 1), big.NewRat(int64(4*j), 1)})
		}
	}
	for _, s := range []int64{1, -1} {
		ps = append(ps, [2]*big.Rat{big.NewRat(s, 1), big.NewRat(1, 1)}, [2]*big.Rat{big.NewRat(s, 1), big.NewRat(-1, 1)})
	}
	for k := 10; k <= 20; k += 10 {
		t := new(big.Rat).SetFrac(big.NewInt(1), new(big.Int).Lsh(big.NewInt(1), uint(k)))
		for _, s := range []*big.Rat{t, new(big.Rat).Neg(t)} {
			for _, u := range []*big.Rat{t, new(big.Rat).Neg(t), big.NewRat(1, 1), big.NewRat(-1, 1), big.NewRat(8, 1)} {
				ps = append(ps, [2]*big.Rat{s, u}, [2]*big.Rat{u, s})
			}
		}
	}
	return ps
}

// mulWorst tracks the largest ratio |ε|/(|x| + |y|)³ and checks each
// Point against the bound.
type mulWorst struct {
	bound, ratio *big.Rat
	at           [2]*big.Rat
	// lower is the largest certified lower bound on |ε|/(|x|+|y|)³ (the
	// low end of its enclosure), at lowerAt: a lower bound on the best
	// constant.
	lower   *big.Rat
	lowerAt [2]*big.Rat
}

// check returns a refutation, an error when the enclosure is too wide to
// decide, or nil.
func (w *mulWorst) check(x, y *big.Rat, e ratInterval) (*proofs.Evidence, error) {
	s := new(big.Rat).Add(new(big.Rat).Abs(x), new(big.Rat).Abs(y))
	if s.Sign() == 0 {
		if e.lo.Sign() != 0 || e.hi.Sign() != 0 {
			return &proofs.Evidence{Verdict: proofs.Refuted, Summary: fmt.Sprintf("ε(0, 0) ∈ [%s, %s] ≠ 0", e.lo.FloatString(12), e.hi.FloatString(12))}, nil
		}
		return nil, nil
	}
	b := new(big.Rat).Mul(w.bound, cube(s))
	m := proofs.Magnitude(e.lo, e.hi)
	if m.Cmp(b) > 0 {
		if e.lo.Cmp(b) > 0 || e.hi.Cmp(new(big.Rat).Neg(b)) < 0 {
			return &proofs.Evidence{Verdict: proofs.Refuted, Summary: fmt.Sprintf("at (x, y) = (%s, %s): ε ∈ [%s, %s], outside ±%s(|x|+|y|)³ = ±%s (certified)",
				x.RatString(), y.RatString(), e.lo.FloatString(12), e.hi.FloatString(12), w.bound.RatString(), b.FloatString(12))}, nil
		}
		return nil, fmt.Errorf("(%s, %s): the enclosure of ε is too wide to decide the bound", x.RatString(), y.RatString())
	}
	if r := new(big.Rat).Quo(m, cube(s)); r.Cmp(w.ratio) > 0 {
		w.ratio, w.at = r, [2]*big.Rat{x, y}
	}
	least := new(big.Rat) // the smallest |ε| the enclosure allows
	switch {
	case e.lo.Sign() > 0:
		least.Set(e.lo)
	case e.hi.Sign() < 0:
		least.Neg(e.hi)
	}
	if r := least.Quo(least, cube(s)); w.lower == nil || r.Cmp(w.lower) > 0 {
		w.lower, w.lowerAt = r, [2]*big.Rat{x, y}
	}
	return nil, nil
}

// checkMulBound: |ε(x, y)| ≤ bound·(|x| + |y|)³ for every (x, y), by a
// certified enclosure of the best constant C* (see gsMulSup); and the
// block mul (the engine's FFN) agrees at mulTiny's inputs: none above
// the bound, none certified above C*'s enclosure.
func checkMulBound(form string, mul *model.Model, bound *big.Rat) (*proofs.Evidence, error) {
	sup, err := gsMulSup(form, bound)
	if err != nil {
		return nil, err
	}
	at := fmt.Sprintf("(%s, %s)", sup.at[0].RatString(), sup.at[1].RatString())
	tight := &proofs.Tightness{Claimed: bound, BestLo: sup.lo, BestHi: sup.hi,
		How: fmt.Sprintf("certified: sup_{(x, y) ≠ 0} |ε(x, y)|/(|x| + |y|)³ ∈ [%s, %s], the lower end attained at (x, y) = %s; with s = |x| + |y|, %s", sup.lo.FloatString(7), sup.hi.FloatString(7), at, sup.regions("s"))}
	explain := []string{
		"ε(x, y) = √(π/2)(R(x + y) − R(x) − R(y)) for R(z) = GELU(z) − z/2 − z²/√(2π); R is even, so ε(x, y) = ε(y, x) = ε(−x, −y) and x ≥ |y| may be assumed: x = s(1 − v), y = ±sv, s = |x| + |y|, v ∈ [0, 1/2].",
		"With ρ(z) = R(z)/z³: ε/s³ = √(π/2)(ρ(s) − (1 − v)³ρ(s(1 − v)) − v³ρ(sv)) for y ≥ 0 and √(π/2)((1 − 2v)³ρ(s(1 − 2v)) − (1 − v)³ρ(s(1 − v)) − v³ρ(sv)) for y < 0: ρ at arguments in [0, s], weights at most 1.",
		fmt.Sprintf("s ≤ %s: |ρ(z)| ≤ z·M₄/24 with M₄ = %s ≥ |GELU⁗| on [−%s, %s] (certified), and the weights' fourth powers sum to at most 2, so |ε|/s³ ≤ √(π/2)·M₄·s/12 ≤ %s.", gsNearEnd.RatString(), sup.m4.FloatString(6), gsNearEnd.RatString(), gsNearEnd.RatString(), sup.near.FloatString(5)),
		fmt.Sprintf("s ≥ %s: |GELU(z) − z/2| ≤ |z|/2, so |ε| ≤ √(π/2)(|x + y| + |x| + |y|)/2 + |xy| ≤ √(π/2)s + s²/4 and |ε|/s³ ≤ √(π/2)/s² + 1/(4s) ≤ %s.", gsFarStart.RatString(), sup.far.FloatString(5)),
		fmt.Sprintf("%s ≤ s ≤ %s: centred forms on boxes of (s, v) from order-%d Taylor models of ρ on cells of width 1/%d (elementary functions at %d grid points), branch and bound from %d boxes to %d (depth %d) in %.2f s, stopping within 1/%d of the lower bound%s.", gsNearEnd.RatString(), gsFarStart.RatString(), gsOrder, 1<<gsCellScale, sup.points, sup.search.initial, sup.search.boxes, sup.search.depth, sup.search.elapsed.Seconds(), gsTol, sup.refinedNote()),
	}
	if sup.lo.Cmp(bound) > 0 {
		return &proofs.Evidence{Verdict: proofs.Refuted, Tight: tight, Explain: explain, Summary: fmt.Sprintf("at (x, y) = %s, |ε|/(|x| + |y|)³ ≥ %s > %s (certified); the best constant is in [%s, %s]",
			at, sup.lo.FloatString(7), bound.RatString(), sup.lo.FloatString(7), sup.hi.FloatString(7))}, nil
	}
	if sup.hi.Cmp(bound) > 0 {
		return nil, fmt.Errorf("the best constant is in [%s, %s], which holds the bound %s: undecided", sup.lo.FloatString(8), sup.hi.FloatString(8), bound.RatString())
	}
	// the block itself
	w := &mulWorst{bound: bound, ratio: new(big.Rat)}
	ps := mulTiny()
	var in []map[string]*big.Rat
	for _, p := range ps {
		in = append(in, map[string]*big.Rat{"x": p[0], "y": p[1]})
	}
	res, err := runVectors(mul, in, mulPrec)
	if err != nil {
		return nil, err
	}
	for k, p := range ps {
		xy := new(big.Rat).Mul(p[0], p[1])
		v := res[k][0]
		if ev, err := w.check(p[0], p[1], ratInterval{new(big.Rat).Sub(v.Lo, xy), new(big.Rat).Sub(v.Hi, xy)}); ev != nil || err != nil {
			if ev != nil {
				ev.Summary = "the block mul " + ev.Summary
			}
			return ev, err
		}
	}
	if w.lower != nil && w.lower.Cmp(sup.hi) > 0 {
		return nil, fmt.Errorf("the block mul gives |ε|/(|x| + |y|)³ ≥ %s at (%s, %s), above the certified supremum %s: the block and the proof disagree",
			w.lower.FloatString(8), w.lowerAt[0].RatString(), w.lowerAt[1].RatString(), sup.hi.FloatString(8))
	}
	return &proofs.Evidence{Verdict: proofs.Proved, Tight: tight, Explain: explain, Summary: fmt.Sprintf("for every (x, y) ≠ 0, with s = |x| + |y|: |ε(x, y)|/s³ ≤ %s ≤ %s, %s (interval:%d); the best constant is in %s; the block mul agrees at %d inputs (multiples of 4 in [−8, 8]², (±1, ±1), ±2^−k with k ≤ 20 against ±2^−k, ±1, 8; interval:%d)",
		sup.hi.FloatString(6), bound.RatString(), sup.regions("s"), gsPrec, sup.enclosure(bound), len(ps), mulPrec)}, nil
}

func mulModel(act model.Activation) (*model.Model, error) {
	return stream.New("mul", "x", "y").Then(blocks.MulGELU("x", "y", "xy", act)).Readout("xy").Model()
}

var gelus = []geluForm{{"erf", model.GELU}, {"tanh", model.GELUTanh}}

// geluForm is a form of GELU the engine computes: the paper's erf form
// and its tanh approximation.
type geluForm struct {
	name string
	act  model.Activation
}

// checkTaylor checks ffn.mul.taylor for g: |R(z)| ≤ |z|³/6.
func (g geluForm) checkTaylor() (*proofs.Evidence, error) {
	m, err := geluModel(g.act)
	if err != nil {
		return nil, err
	}
	return checkTaylor(g.name, m, big.NewRat(1, 6))
}

// checkMulBound checks ffn.mul.bound for g: |ε(x, y)| ≤ (|x| + |y|)³/4.
func (g geluForm) checkMulBound() (*proofs.Evidence, error) {
	m, err := mulModel(g.act)
	if err != nil {
		return nil, err
	}
	return checkMulBound(g.name, m, big.NewRat(1, 4))
}

// checkDerivation: the step "from |R(z)| ≤ |z|³/6 we can derive
// |ε(x, y)| ≤ (|x|+|y|)³/4" as an inference. ε = √(π/2)(R(x+y) − R(x) −
// R(y)) for any function of the form z/2 + z²/√(2π) + R(z); the premise
// allows R(2) = 8/6 and R(1) = −1/6 (at the bound, opposite signs), and
// then ε(1, 1) = √(π/2)(8/6 + 2/6) > 2 = (1 + 1)³/4.
func checkDerivation() (*proofs.Evidence, error) {
	r1, r2 := big.NewRat(-1, 6), big.NewRat(8, 6)
	for _, c := range []struct{ z, r *big.Rat }{{big.NewRat(1, 1), r1}, {big.NewRat(2, 1), r2}} {
		if new(big.Rat).Abs(c.r).Cmp(new(big.Rat).Quo(cube(c.z), big.NewRat(6, 1))) > 0 {
			return nil, fmt.Errorf("the remainder %s at z = %s violates the premise", c.r.RatString(), c.z.RatString())
		}
	}
	diff := new(big.Rat).Sub(r2, new(big.Rat).Mul(big.NewRat(2, 1), r1)) // R(2) − R(1) − R(1)
	eps := numeric.Mul(blocks.SqrtHalfPi, numeric.Lit(diff))
	lo, hi, err := enclose(eps)
	if err != nil {
		return nil, err
	}
	bound := big.NewRat(2, 1) // (|1| + |1|)³/4
	if lo.Cmp(bound) <= 0 {
		return &proofs.Evidence{Verdict: proofs.Holds, Summary: fmt.Sprintf("no counterexample: ε(1, 1) ∈ [%s, %s] is not certified above 2", lo.FloatString(6), hi.FloatString(6))}, nil
	}
	return &proofs.Evidence{Verdict: proofs.Refuted,
		Summary: fmt.Sprintf("the premise allows R(1) = −1/6 and R(2) = 8/6 (both at |z|³/6); then ε(1, 1) = √(π/2)(R(2) − 2R(1)) = √(π/2)·5/3 ∈ [%s, %s] > 2 = (1 + 1)³/4 (certified)", lo.FloatString(6), hi.FloatString(6)),
		Explain: []string{
			"ε(x, y) = √(π/2)(GELU(x+y) − GELU(x) − GELU(y)) − xy = √(π/2)(R(x+y) − R(x) − R(y)) for any GELU(z) = z/2 + z²/√(2π) + R(z).",
			"A function with R(z) = s(z)|z|³/6, s smooth, |s| ≤ 1, s(1) = −1, s(2) = 1 satisfies |R(z)| ≤ |z|³/6 everywhere and has ε(1, 1) = √(π/2)·5/3 ≈ 2.089 > 2.",
			"From |R| ≤ |z|³/6 alone one gets only |ε| ≤ √(π/2)(|x+y|³ + |x|³ + |y|³)/6 ≤ (√(π/2)/3)(|x|+|y|)³ ≈ 0.418(|x|+|y|)³.",
			"The printed bound itself holds (ffn.mul.bound.erf, ffn.mul.bound.tanh); a correct derivation needs more than the pointwise remainder bound, e.g. the integral form R(z) = ∫₀^z GELU‴(t)(z − t)²/2 dt with |GELU‴| ≤ 1, which gives |R(2) − 2R(1)| ≤ 1 at x = y = 1 and in general |ε| ≤ (√(π/2)/8)(|x| + |y|)³ ≈ 0.157(|x| + |y|)³, worst at x = y (a quadrature outside the engine).",
		}}, nil
}

// checkMulNotExact: at (1, 1) the certified enclosure of mul(1, 1)
// excludes 1 = xy, for both GELUs (the cheat sheet's "No").
func checkMulNotExact(models map[string]*model.Model) (*proofs.Evidence, error) {
	var parts []string
	for _, g := range gelus {
		out, err := runVectors(models[g.name], []map[string]*big.Rat{{"x": big.NewRat(1, 1), "y": big.NewRat(1, 1)}}, taylorPrec)
		if err != nil {
			return nil, err
		}
		v := out[0][0]
		if v.Contains(big.NewRat(1, 1)) {
			return &proofs.Evidence{Verdict: proofs.Refuted, Summary: fmt.Sprintf("%s GELU: mul(1, 1) ∈ [%s, %s] may be exactly 1", g.name, v.Lo.FloatString(12), v.Hi.FloatString(12))}, nil
		}
		parts = append(parts, fmt.Sprintf("%s GELU: mul(1, 1) ∈ [%s, %s]", g.name, v.Lo.FloatString(8), v.Hi.FloatString(8)))
	}
	return &proofs.Evidence{Verdict: proofs.Proved, Summary: "the GELU product is not xy: at (1, 1), " + proofs.JoinComma(parts) + ", both excluding 1 (certified, interval:128)",
		Explain: []string{"No ReLU network computes xy exactly either (see ffn.mul.relu-impossible)."}}, nil
}

// geluClaims are the two claims of §Multiplication made for each form
// of GELU (gelus): the remainder bound and the multiplication bound.
func geluClaims() []*proofs.Claim {
	var cs []*proofs.Claim
	for _, g := range gelus {
		cs = append(cs,
			claim("ffn.mul.taylor."+g.name, secMul, "sec:ffnn_multiplication",
				fmt.Sprintf("GELU(z) = z/2 + z²/√(2π) + R(z) with |R(z)| ≤ |z|³/6 (here GELU is the %s form)", map[string]string{"erf": "erf (eq:gelu)", "tanh": "tanh approximation (eq:gelu_approx1)"}[g.name]),
				"every z ∈ ℝ; certified interval arithmetic at 64 bits, the engine's GELU unit at 165 points at 128 bits", proofs.Proved,
				g.checkTaylor),
			claim("ffn.mul.bound."+g.name, secMul, "sec:ffnn_multiplication",
				fmt.Sprintf("√(π/2)(GELU(x + y) − GELU(x) − GELU(y)) = xy + ε(x, y) with |ε(x, y)| ≤ (|x| + |y|)³/4, by the FFN mul (W1 = [[1, 1], [1, 0], [0, 1]], W2 = √(π/2)[1, −1, −1]); %s GELU", g.name),
				"every (x, y) ∈ ℝ²; certified interval arithmetic at 64 bits, the block mul at 69 inputs", proofs.Proved,
				g.checkMulBound),
		)
	}
	return cs
}

var multiplicationClaims = []*proofs.Claim{

	claim("ffn.mul.derivation", secMul, "sec:ffnn_multiplication",
		"\"|R(z)| ≤ |z|³/6. From this, we can derive … |ε(x, y)| ≤ (|x| + |y|)³/4\": the bound as a consequence of the remainder bound alone",
		"the inference: any R with |R(z)| ≤ |z|³/6 for all z, at x = y = 1", proofs.Refuted, checkDerivation),
	claim("ffn.mul.relu-impossible", secMul, "sec:ffnn_multiplication",
		"multiplication of two activations can only be approximated: no ReLU FFN computes xy exactly",
		"(x, y) ∈ ℝ², ReLU FFNs of any width (and depth)", proofs.OutOfScope,
		checkMulReluImpossible),
}

// checkMulReluImpossible checks ffn.mul.relu-impossible.
func checkMulReluImpossible() (*proofs.Evidence, error) {
	return &proofs.Evidence{Verdict: proofs.OutOfScope,
		Summary: "an impossibility over all FFNs, which the engine cannot enumerate; true by a CPWL argument (see --explain)",
		Explain: []string{
			"A ReLU network is CPWL with finitely many pieces, so t ↦ f(t, t) is CPWL on ℝ with finitely many breakpoints and is affine on some interval [t₀ − h, t₀ + h], h > 0.",
			"There its second difference f(t₀+h, t₀+h) − 2f(t₀, t₀) + f(t₀−h, t₀−h) is 0, while for xy it is (t₀+h)² − 2t₀² + (t₀−h)² = 2h² > 0. So f ≠ xy, on every open set.",
			"The same argument shows any piecewise linear activation fails; the paper's \"requires an activation function with nonzero second derivative\" is the cited Lemma (Akyürek et al.), not checked here.",
		}}, nil
}
