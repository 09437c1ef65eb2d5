package layernorm

import (
	"fmt"
	"math/big"
	"math/rand/v2"
	"strings"

	"github.com/transformer-cookbook/verify/exact"
	"github.com/transformer-cookbook/verify/exact/cpwl"
	"github.com/transformer-cookbook/verify/internal/plural"
	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/model/eval"
	"github.com/transformer-cookbook/verify/numeric"
	"github.com/transformer-cookbook/verify/proofs"
	"github.com/transformer-cookbook/verify/recipes/blocks"
	"github.com/transformer-cookbook/verify/recipes/stream"
)

// The claims of §Relevant Properties (homogeneity and Lipschitz
// continuity of ReLU FFNs, layer norm on homogeneous networks) and
// §Post-Norm vs. Pre-Norm. Shared helpers are in layernorm_shared.go.

// ---------------------------------------------------------------------------
// Homogeneity and Lipschitz constants of ReLU FFNs, from their regions

// namedFFN is an FFN with the name the evidence uses.
type namedFFN struct {
	name string
	f    *cpwl.FFN
}

// blockFFN converts a cookbook block; a bad block is a bug in the claim.
func blockFFN(name string, b *stream.FF) namedFFN {
	f, err := proofs.FFNOf(b)
	if err != nil {
		panic(fmt.Sprintf("proofs: %s: %v", name, err))
	}
	return namedFFN{name, f}
}

// randomBiasFree draws a ReLU FFN ℝ^d → ℝ^k with h hidden units, integer
// weights in [−3, 3] and no biases.
func randomBiasFree(rng *rand.Rand, d, h, k int) *cpwl.FFN {
	w := func(rows, cols int) exact.Matrix {
		m := exact.NewMatrix(rows, cols)
		for r := 0; r < rows; r++ {
			for c := 0; c < cols; c++ {
				m.Set(r, c, big.NewRat(int64(rng.IntN(7)-3), 1))
			}
		}
		return m
	}
	return &cpwl.FFN{W1: w(h, d), W2: w(k, h)}
}

// homogeneous decides whether f is positively 1-homogeneous on ℝ^d,
// f(cx) = c f(x) for every x and c ≥ 0. It enumerates f's linear regions
// (CheckedRegions: their cover of ℝ^d is checked independently). If every region's affine map has offset 0, f is
// linear on each region; being continuous, f is then homogeneous: along
// a ray t ↦ f(tx), t > 0, it is t·(A_r x) on finitely many intervals, and
// continuity at each break makes the slopes agree, so f(tx) = t f(x); and
// f(0) = 0. If some region has an offset C ≠ 0, f is not homogeneous, and
// an exact witness is returned: x = 0 with c = 2 when f(0) ≠ 0, else a
// Point z strictly inside the region with c = 1 + η close enough to 1
// that cz stays in it, where f(cz) − c f(z) = (1 − c) C ≠ 0.
func homogeneous(f *cpwl.FFN) (regions int, witness string, rep *cpwl.Report, err error) {
	d := f.In()
	rs, rep, err := proofs.CheckedRegions(f, proofs.Space(d), &cpwl.Options{MaxRegions: 5000})
	if err != nil {
		return 0, "", nil, err
	}
	for _, r := range rs {
		if r.Map.C.IsZero() {
			continue
		}
		zero := exact.NewVector(d)
		f0, err := f.Eval(zero)
		if err != nil {
			return 0, "", nil, err
		}
		if !f0.IsZero() {
			return len(rs), fmt.Sprintf("f(2·0) = f(0) = %s ≠ 2·f(0)", f0), rep, nil
		}
		for j := 1; j <= 64; j++ {
			c := new(big.Rat).Add(big.NewRat(1, 1), new(big.Rat).SetFrac(big.NewInt(1), new(big.Int).Lsh(big.NewInt(1), uint(j))))
			cz := scaleVec(c, r.Point)
			pat, err := f.PatternAt(cz)
			if err != nil {
				return 0, "", nil, err
			}
			if fmt.Sprint(pat) != fmt.Sprint(r.Pattern) {
				continue
			}
			fcz, err := f.Eval(cz)
			if err != nil {
				return 0, "", nil, err
			}
			fz, err := f.Eval(r.Point)
			if err != nil {
				return 0, "", nil, err
			}
			if cfz := scaleVec(c, fz); !cfz.Equal(fcz) {
				return len(rs), fmt.Sprintf("at x = %s, c = %s: f(cx) = %s ≠ c·f(x) = %s", r.Point, c.RatString(), fcz, cfz), rep, nil
			}
		}
		return 0, "", nil, fmt.Errorf("region %v has offset %s but no witness was found near its point %s", r.Pattern, r.Map.C, r.Point)
	}
	return len(rs), "", rep, nil
}

func scaleVec(c *big.Rat, x exact.Vector) exact.Vector {
	out := make(exact.Vector, len(x))
	for k, v := range x {
		out[k] = new(big.Rat).Mul(c, v)
	}
	return out
}

// lipschitz returns the Lipschitz constant of f in the ∞-norm: the
// largest induced norm ‖A_r‖_∞ (largest absolute row sum) over its linear
// Regions. It is a Lipschitz constant because a segment from x to y
// crosses finitely many regions, on each of which f is affine with one of
// the A_r; and no smaller constant works, since inside a region f is
// A_r x + C_r. The regions are checked (CheckedRegions): they cover
// ℝ^d and their maps are f's.
func lipschitz(f *cpwl.FFN) (*big.Rat, int, *cpwl.Report, error) {
	rs, rep, err := proofs.CheckedRegions(f, proofs.Space(f.In()), &cpwl.Options{MaxRegions: 5000})
	if err != nil {
		return nil, 0, nil, err
	}
	best := new(big.Rat)
	for _, r := range rs {
		for i := 0; i < r.Map.A.Rows; i++ {
			s := new(big.Rat)
			for _, a := range r.Map.A.Row(i) {
				s.Add(s, new(big.Rat).Abs(a))
			}
			if s.Cmp(best) > 0 {
				best = s
			}
		}
	}
	return best, len(rs), rep, nil
}

// biasFreeBlocks are the cookbook's bias-free ReLU blocks, and ReLU
// itself (W1 = W2 = 1).
func biasFreeBlocks() []namedFFN {
	scale3, err := blocks.CancelResidual(blocks.Scale([]string{"x"}, []string{"x"}, big.NewRat(3, 1)))
	if err != nil {
		panic(err)
	}
	return []namedFFN{
		{"ReLU", &cpwl.FFN{W1: exact.Matrix{Rows: 1, Cols: 1, Data: []*big.Rat{big.NewRat(1, 1)}}, W2: exact.Matrix{Rows: 1, Cols: 1, Data: []*big.Rat{big.NewRat(1, 1)}}}},
		blockFFN("identity (d = 2)", blocks.Identity([]string{"x", "y"}, []string{"u", "v"})),
		blockFFN("scale by −3/2", blocks.Scale([]string{"x"}, []string{"y"}, big.NewRat(-3, 2))),
		blockFFN("min", blocks.Min("x", "y", "m")),
		blockFFN("max", blocks.Max("x", "y", "m")),
		blockFFN("add", blocks.Add("x", "y", "s")),
		blockFFN("sub", blocks.Sub("x", "y", "s")),
		blockFFN("GTZero(x, ε)", blocks.GTZero("x", "e", "g")),
		blockFFN("GEZero(x, ε)", blocks.GEZero("x", "e", "g")),
		blockFFN("EqZero(x, ε)", blocks.EqZero("x", "e", "g")),
		blockFFN("cancel-residual of scale by 3", scale3),
	}
}

// randomBiasFreeFFNs are the seeded random bias-free FFNs of the claim.
func randomBiasFreeFFNs() []namedFFN {
	rng := rand.New(rand.NewPCG(7, 1))
	var out []namedFFN
	for _, s := range [][3]int{{2, 6, 2}, {3, 6, 1}, {3, 8, 2}, {4, 6, 1}} {
		out = append(out, namedFFN{fmt.Sprintf("random %d→%d→%d (seed 7)", s[0], s[1], s[2]), randomBiasFree(rng, s[0], s[1], s[2])})
	}
	return out
}

// checkHomogeneous proves every FFN of fs positively 1-homogeneous, or
// refutes the claim with the first witness.
func checkHomogeneous(fs []namedFFN) (*proofs.Evidence, error) {
	ev := &proofs.Evidence{Verdict: proofs.Proved, Explain: []string{"Why offsets 0 suffice: the closed linear regions cover ℝ^d and f is linear on each; along a ray t ↦ f(tx), t > 0, f is t·A_r x on finitely many intervals, and continuity at each break makes consecutive A_r x agree, so f(tx) = t f(x); f(0) = 0. Conversely a region with offset C ≠ 0 gives f(cz) − c f(z) = (1 − c)C ≠ 0 for z inside it and c near 1."}}
	total := 0
	var cert proofs.CertTally
	for _, nf := range fs {
		n, w, rep, err := homogeneous(nf.f)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", nf.name, err)
		}
		if w != "" {
			s := fmt.Sprintf("%s is not positively 1-homogeneous: %s", nf.name, w)
			return &proofs.Evidence{Verdict: proofs.Refuted, Summary: s, Explain: []string{s}}, nil
		}
		total += n
		cert.Add(rep)
		ev.Explain = append(ev.Explain, fmt.Sprintf("%s: %s on ℝ^%d, every affine map with offset 0", nf.name, plural.Of(n, "linear region"), nf.f.In()))
	}
	ev.Summary = fmt.Sprintf("%d FFNs (the cookbook's bias-free blocks, ReLU, and 4 seeded random bias-free FFNs) on all of ℝ^d: %d linear regions, every one linear (offset 0, exact), so f(cx) = c f(x) for all c ≥ 0; %s", len(fs), total, cert.RegionsNote())
	return ev, nil
}

// ---------------------------------------------------------------------------
// The claims

var propertiesClaims = []*proofs.Claim{
	{ID: "ln.ffn.homogeneous", Section: "Relevant Properties",
		Statement: "an FFN with ReLU activations and no bias terms (b1 = b2 = 0) is positively 1-homogeneous, f(cx) = c f(x) for c ≥ 0, \"because ReLU(cx) = c·ReLU(x) for all c ≥ 0\"",
		Domain:    "x ∈ ℝ^d, c ≥ 0; the cookbook's bias-free blocks (identity, scale, min, max, add, sub, GTZero/GEZero/EqZero(x, ε), cancel-residual), ReLU itself, and 4 random bias-free FFNs (integer weights in [−3, 3], seed 7)",
		Recorded:  proofs.Holds,
		Check: func() (*proofs.Evidence, error) {
			return checkHomogeneous(append(biasFreeBlocks(), randomBiasFreeFFNs()...))
		}},
	{ID: "ln.ffn.lipschitz", Section: "Relevant Properties",
		Statement: "every operation in an FFN (matrix multiplication, addition, ReLU) is Lipschitz continuous, so their composition is as well",
		Domain:    "the cookbook's ReLU blocks on all of ℝ^d, in the ∞-norm: the Lipschitz constant computed exactly from the linear regions and compared with the value worked out by hand",
		Recorded:  proofs.Holds,
		Check:     checkLipschitz},
	{ID: "ln.homogeneous.no-effect-literal", Section: "Relevant Properties",
		Statement: "\"If every layer of a network is 1-homogeneous and the output is scale-invariant, then layernorm will not affect the network\"",
		Domain:    "as printed: a one-layer network whose FFN sublayer is the zero block (with its residual, the identity: 1-homogeneous), output sign(x₁) (scale-invariant), with and without post-norm LN (ε = 0, β = 0, γ = 1)",
		Recorded:  proofs.Refuted,
		Check:     checkNoEffectLiteral},
	{ID: "ln.homogeneous.no-effect", Section: "Relevant Properties",
		Statement: "corrected: if every layer is 1-homogeneous, the output is scale-invariant, and every vector the layer norm sees has mean 0 (± pairs, §Circumventing Layer Normalization), then post-norm LN (β = 0, γ = 1) does not change the output",
		Domain:    "a two-layer post-norm network of bias-free cookbook blocks on the ± pair stream [x₁, x₂, −x₁, −x₂]: (m, −m) = ±min(x₁, x₂), then (p, −p) = ±max(m, −x₁), output sign(p); seeded rationals with ties and small values",
		Recorded:  proofs.Holds,
		Check:     checkNoEffect},
	{ID: "ln.postnorm.training", Section: "Post-Norm vs. Pre-Norm",
		Statement: "pre-norm is the standard because post-norm has problems with exploding gradients, making training unstable (Xiong et al. 2020)",
		Domain:    "training dynamics",
		Recorded:  proofs.OutOfScope,
		Check: func() (*proofs.Evidence, error) {
			return &proofs.Evidence{Verdict: proofs.OutOfScope, Summary: "a statement about training (gradients, stability), not about the function a transformer computes; the engine evaluates fixed weights",
				Explain: []string{"What the engine does cover: both placements are implemented (model.PostNorm: y = LN(f(x) + x); model.PreNorm: y = f(LN(x)) + x with a final LN), and the recipes use the selective pre-norm LN(W^N x) of §Layernorm hash."}}, nil
		}},
}

// lipschitzCases are cookbook blocks with their ∞-norm Lipschitz
// constants worked out by hand from their pieces.
func lipschitzCases() []struct {
	f    namedFFN
	want string
	why  string
} {
	quarter := big.NewRat(1, 4)
	half := big.NewRat(1, 2)
	return []struct {
		f    namedFFN
		want string
		why  string
	}{
		{blockFFN("identity (d = 2)", blocks.Identity([]string{"x", "y"}, []string{"u", "v"})), "1", "x"},
		{blockFFN("min", blocks.Min("x", "y", "m")), "1", "pieces x, y"},
		{blockFFN("max", blocks.Max("x", "y", "m")), "1", "pieces x, y"},
		{blockFFN("add", blocks.Add("x", "y", "s")), "2", "x + y"},
		{blockFFN("not", blocks.Not("x", "y")), "1", "1 − x"},
		{blockFFN("clip_1/2", blocks.Clip("x", "y", half)), "1", "slopes 0, 1, 0"},
		{blockFFN("GTZero_1/4", blocks.GTZeroEps("x", "y", quarter, new(big.Rat))), "4", "slope 1/ε in the gray region"},
		{blockFFN("EqZero_1/2", blocks.EqZeroEps("x", "y", half, new(big.Rat))), "2", "slopes ±1/ε"},
		{blockFFN("GTZero(x, ε)", blocks.GTZero("x", "e", "g")), "2", "ReLU(x) − ReLU(x − ε) is ε − x for ε ≤ x ≤ 0 (ε < 0): row (−1, 1)"},
	}
}

func checkLipschitz() (*proofs.Evidence, error) {
	ev := &proofs.Evidence{Verdict: proofs.Proved}
	var parts []string
	var cert proofs.CertTally
	for _, c := range lipschitzCases() {
		l, n, rep, err := lipschitz(c.f.f)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", c.f.name, err)
		}
		if l.Cmp(proofs.Q(c.want)) != 0 {
			s := fmt.Sprintf("%s: the regions give Lipschitz constant %s, the hand computation %s (%s)", c.f.name, l.RatString(), c.want, c.why)
			return &proofs.Evidence{Verdict: proofs.Refuted, Summary: s, Explain: []string{s}}, nil
		}
		parts = append(parts, fmt.Sprintf("%s %s", c.f.name, l.RatString()))
		cert.Add(rep)
		ev.Explain = append(ev.Explain, fmt.Sprintf("%s: %s, max ‖A_r‖_∞ = %s (%s)", c.f.name, plural.Of(n, "linear region"), l.RatString(), c.why))
	}
	ev.Summary = fmt.Sprintf("%d blocks on ℝ^d, ∞-norm Lipschitz constants from their linear regions (exact), each as worked out by hand: %s; %s", len(parts), strings.Join(parts, ", "), cert.RegionsNote())
	return ev, nil
}

// checkNoEffectLiteral: the zero block (with its residual, the identity)
// is 1-homogeneous and sign(x₁) is scale-invariant, but post-norm LN
// subtracts the mean: on (1, 3) it gives LN = (−1, 1) and flips the
// decision.
func checkNoEffectLiteral() (*proofs.Evidence, error) {
	build := func(norm bool) (*model.Model, error) {
		m, err := stream.New("no-effect", "x1", "x2").Then(blocks.Zero([]string{"x1", "x2"})).
			Sign(stream.Values{"x1": numeric.LitInt(1)}).Model()
		if err != nil {
			return nil, err
		}
		if norm {
			m.Norm = model.PostNorm
			m.Layers[0].FeedForwardNorm = &model.LayerNorm{}
		}
		return m, nil
	}
	homog, err := checkHomogeneous([]namedFFN{blockFFN("zero block", blocks.Zero([]string{"x1", "x2"}))})
	if err != nil {
		return nil, err
	}
	if homog.Verdict != proofs.Proved {
		return nil, fmt.Errorf("the zero block is not homogeneous: %s", homog.Summary)
	}
	x := proofs.Rats("1", "3")
	var out [2]string
	var logits [2]string
	for k, norm := range []bool{false, true} {
		m, err := build(norm)
		if err != nil {
			return nil, err
		}
		at := map[string]*big.Rat{"x1": x[0], "x2": x[1]}
		h, err := stream.Stream(m, []map[string]*big.Rat{at})
		if err != nil {
			return nil, err
		}
		runner, err := eval.New(numeric.MustParsePrecision("exact"), m)
		if err != nil {
			return nil, err
		}
		res, err := runner.RunStream(h, false)
		if err != nil {
			return nil, err
		}
		out[k], logits[k] = res.Outputs[0].Symbol, res.Outputs[0].Values[0].Text
	}
	if out[0] == out[1] {
		return &proofs.Evidence{Verdict: proofs.Proved, Summary: fmt.Sprintf("no counterexample at x = (1, 3): both decide %s", out[0])}, nil
	}
	s := fmt.Sprintf("x = (1, 3), 1-homogeneous layer (zero block + residual), output sign(x₁): without LN the logit is %s (decision %s), with post-norm LN (ε = 0) LN(1, 3) = (−1, 1), logit %s (decision %s), exact: LN subtracts the mean, which is not a scaling",
		logits[0], out[0], logits[1], out[1])
	return &proofs.Evidence{Verdict: proofs.Refuted, Summary: s, Explain: []string{s,
		"The statement holds when every vector the layer norm sees has mean 0: then LN(x) = x/√(σ² + ε) ⊙ γ is a positive multiple of x for uniform γ > 0 (ln.homogeneous.no-effect, ln.circumvent)."}}, nil
}

// noEffectModel is the two-layer network of ln.homogeneous.no-effect,
// with post-norm LN after each FFN sublayer when norm is set.
func noEffectModel(norm bool) (*model.Model, error) {
	m, err := stream.New("no-effect", "x1", "x2", "-x1", "-x2").
		Then(proofs.PairBlock(blocks.Min("x1", "x2", "m"), []string{"m", "-m"})).
		Then(proofs.PairBlock(blocks.Max("m", "-x1", "p"), []string{"p", "-p"})).
		Readout("p").Model()
	if err != nil {
		return nil, err
	}
	if norm {
		m.Norm = model.PostNorm
		for l := range m.Layers {
			m.Layers[l].FeedForwardNorm = &model.LayerNorm{}
		}
	}
	return m, nil
}

func checkNoEffect() (*proofs.Evidence, error) {
	var blocksUsed []namedFFN
	for _, b := range []*stream.FF{proofs.PairBlock(blocks.Min("x1", "x2", "m"), []string{"m", "-m"}), proofs.PairBlock(blocks.Max("m", "-x1", "p"), []string{"p", "-p"})} {
		blocksUsed = append(blocksUsed, blockFFN(b.Name, b))
	}
	homog, err := checkHomogeneous(blocksUsed)
	if err != nil {
		return nil, err
	}
	if homog.Verdict != proofs.Proved {
		return homog, nil
	}
	plain, err := noEffectModel(false)
	if err != nil {
		return nil, err
	}
	normed, err := noEffectModel(true)
	if err != nil {
		return nil, err
	}
	pick := []string{"0", "1", "-1", "1/2", "-1/2", "3", "-3", "1/1000", "-1/1000", "7/3", "-7/3"}
	rng := rand.New(rand.NewPCG(11, 3))
	const cases = 300
	for c := 0; c < cases; c++ {
		x1, x2 := proofs.Q(pick[rng.IntN(len(pick))]), proofs.Q(pick[rng.IntN(len(pick))])
		if c%3 == 0 {
			x1, x2 = randRat(rng), randRat(rng)
		}
		if x1.Sign() == 0 && x2.Sign() == 0 {
			continue // the stream is 0: LN with ε = 0 is undefined
		}
		in := []*big.Rat{x1, x2, new(big.Rat).Neg(x1), new(big.Rat).Neg(x2)}
		p0, err := proofs.RunVector(plain, "exact", in...)
		if err != nil {
			return nil, err
		}
		p1, err := proofs.RunVector(normed, "interval:128", in...)
		if err != nil {
			return nil, err
		}
		want := p0[0].Lo.Sign()
		got := p1[0]
		ok := want == 0 && got.Contains(new(big.Rat)) ||
			want > 0 && got.Lo.Sign() > 0 || want < 0 && got.Hi.Sign() < 0
		if !ok {
			s := fmt.Sprintf("at x = (%s, %s): without LN p = %s, with post-norm LN p ∈ %s: the signs differ", x1.RatString(), x2.RatString(), p0[0].Text, got.Text)
			return &proofs.Evidence{Verdict: proofs.Refuted, Summary: s, Explain: []string{s}}, nil
		}
	}
	return &proofs.Evidence{Verdict: proofs.Holds,
		Summary: fmt.Sprintf("no counterexample: %d inputs (x₁, x₂) (small rationals with ties and signs, and random ones; PCG seed 11), output sign(p) with post-norm LN (certified intervals, 128 bits) equal to the one without (exact); the two blocks are proved 1-homogeneous (cpwl) and write ± pairs, so every stream has mean 0", cases),
		Explain: append([]string{"Why it holds: the stream is made of ± pairs, so its mean is 0 and post-norm LN multiplies it by κ = 1/σ > 0; the blocks are positively 1-homogeneous, so the normalised network's stream is a positive multiple of the plain one, and sign(p) does not change."}, homog.Explain...)}, nil
}
