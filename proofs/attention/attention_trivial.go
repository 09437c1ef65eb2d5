package attention

import (
	"errors"
	"fmt"
	"math/big"
	"strings"

	"github.com/transformer-cookbook/verify/check"
	"github.com/transformer-cookbook/verify/exact/cpwl"
	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/proofs"
	"github.com/transformer-cookbook/verify/recipes"
	"github.com/transformer-cookbook/verify/recipes/blocks"
	"github.com/transformer-cookbook/verify/recipes/stream"
)

// The claims of §Identity, §Average and §First, and their cells of the
// cheat sheet: the heads whose inputs are real vectors are decided by
// linearity (linear), First by its exact attention output and
// threshold and by the recipes' sweeps.

// ---------------------------------------------------------------------
// §Trivial Cases: identity and averages over real vectors, by linearity.

// linear proves a recipe over real vectors (identity-attn, avg,
// avg-prefix) for every input x ∈ ℝ^{n×d}, n ≤ maxN, d ∈ ds, under each
// weighting. The argument, each step checked on the built model: every
// head has W^Q = 0 or W^K = 0, so every score is 0 whatever x is, and the
// attention weights depend only on n, the mask and the weighting; there
// is no layer norm, no feed-forward sublayer, no position encoding, and
// the output is a readout; so the model is a linear map of x (a fixed
// weighted sum, W^V, the residual and the readout are linear). The
// reference (identity, mean, prefix mean) is linear too. Two linear maps
// that agree on a basis agree everywhere: the model is run exactly on
// every standard basis input (one entry 1, the rest 0) and compared with
// the reference.
func linear(recipe string, maxN int, ds []int, ws ...model.Weighting) (*proofs.Evidence, error) {
	r, err := recipes.Get(recipe)
	if err != nil {
		return nil, err
	}
	runs := 0
	for _, w := range ws {
		for _, d := range ds {
			con, err := r.Construct(w, maxN, map[string]string{"d": fmt.Sprint(d)})
			if err != nil {
				return nil, err
			}
			k, fail, err := linearCon(con, maxN, d, nil)
			if err != nil {
				return nil, fmt.Errorf("%s under %s: %w", recipe, recipes.WeightingAcronym(w), err)
			}
			if fail != "" {
				s := fmt.Sprintf("%s under %s: %s", recipe, recipes.WeightingAcronym(w), fail)
				return &proofs.Evidence{Verdict: proofs.Refuted, Summary: s, Explain: []string{s}}, nil
			}
			runs += k
		}
	}
	var names []string
	for _, w := range ws {
		names = append(names, recipes.WeightingAcronym(w))
	}
	return &proofs.Evidence{Verdict: proofs.Proved, Summary: fmt.Sprintf("%s under %s: for every x ∈ ℝ^{n×d}, n ≤ %d, d ∈ %v: W^Q = W^K = 0 makes the scores 0 for every x, so the model is linear in x, like the reference; equal on every basis input (%d exact runs)", recipe, strings.Join(names, ", "), maxN, ds, runs)}, nil
}

// linearCon checks the premises of the linearity argument on con's
// model and compares it with the reference (con's, or ref, a linear map
// of the input vectors) on every standard basis input of width d and
// length n ≤ maxN, exactly: the number of runs, and the first difference.
func linearCon(con *recipes.Construction, maxN, d int, ref func(xs [][]*big.Rat) []recipes.Want) (int, string, error) {
	if err := checkLinear(con.Model); err != nil {
		return 0, "", fmt.Errorf("the linearity argument does not apply: %w", err)
	}
	runner, err := runner(con.Model, "exact")
	if err != nil {
		return 0, "", err
	}
	runs := 0
	for n := 1; n <= maxN; n++ {
		for p := 0; p < n; p++ {
			for c := 0; c < d; c++ {
				pos := make([]string, n)
				xs := make([][]*big.Rat, n)
				for i := range pos {
					vals := make([]string, d)
					xs[i] = make([]*big.Rat, d)
					for k := range vals {
						vals[k], xs[i][k] = "0", new(big.Rat)
						if i == p && k == c {
							vals[k], xs[i][k] = "1", big.NewRat(1, 1)
						}
					}
					pos[i] = strings.Join(vals, ", ")
				}
				text := strings.Join(pos, "; ")
				cs, err := con.Parse(text)
				if err != nil {
					return 0, "", err
				}
				res, err := runner.RunStream(cs.Stream, false)
				if err != nil {
					return 0, "", err
				}
				runs++
				wants := con.Expected(cs)
				if ref != nil {
					wants = ref(xs)
				}
				for i, want := range wants {
					if ok, why := check.Compare(want, res.Outputs[i], con.Bounds, con.Model.Output.Labels); !ok {
						return runs, fmt.Sprintf("on the basis input %q, position %d: %s", text, i+1, why), nil
					}
				}
			}
		}
	}
	return runs, "", nil
}

// retrieveFirst decides the cheat sheet's description of First read
// literally, "retrieves the value at the first position": Avg's head
// (W^Q = W^K = 0, W^V = I, unmasked and future-masked) under leftmost
// UHAT gives every position x_1, since every score ties and the leftmost
// maximum is position 1. By linearity, as linear, for every
// x ∈ ℝ^{n×d}.
func retrieveFirst(maxN int, ds []int) (*proofs.Evidence, error) {
	runs := 0
	for _, recipe := range []string{"avg", "avg-prefix"} {
		r, err := recipes.Get(recipe)
		if err != nil {
			return nil, err
		}
		for _, d := range ds {
			con, err := r.Construct(model.LeftHardmax, maxN, map[string]string{"d": fmt.Sprint(d)})
			if err != nil {
				return nil, err
			}
			first := func(xs [][]*big.Rat) []recipes.Want {
				ws := make([]recipes.Want, len(xs))
				for i := range ws {
					ws[i] = recipes.Want{Values: xs[0]}
				}
				return ws
			}
			k, fail, err := linearCon(con, maxN, d, first)
			if err != nil {
				return nil, err
			}
			if fail != "" {
				s := fmt.Sprintf("%s's head under UHAT: %s", recipe, fail)
				return &proofs.Evidence{Verdict: proofs.Refuted, Summary: s, Explain: []string{s}}, nil
			}
			runs += k
		}
	}
	return &proofs.Evidence{Verdict: proofs.Proved, Summary: fmt.Sprintf("the zero-score head W^Q = W^K = 0, W^V = I (unmasked and future-masked) under leftmost UHAT outputs x_1 at every position, for every x ∈ ℝ^{n×d}, n ≤ %d, d ∈ %v (linear in x; equal on every basis input, %d exact runs)", maxN, ds, runs)}, nil
}

// checkLinear checks the premises of linear on m.
func checkLinear(m *model.Model) error {
	if m.Norm != model.NoNorm || m.FinalNorm != nil {
		return errors.New("the model has a layer norm")
	}
	if m.Position != nil {
		return errors.New("the model has a position encoding")
	}
	if m.Output.Kind != model.Readout {
		return errors.New("the output is not a readout")
	}
	for l, layer := range m.Layers {
		if layer.FeedForward != nil {
			return fmt.Errorf("layer %d has a feed-forward sublayer", l+1)
		}
		if layer.AttentionNorm != nil || layer.FeedForwardNorm != nil {
			return fmt.Errorf("layer %d has a layer norm", l+1)
		}
		if layer.Attention == nil {
			continue
		}
		for h, head := range layer.Attention.Heads {
			zq, zk := true, true
			for _, e := range head.Q.Data {
				zq = zq && isZero(e)
			}
			for _, e := range head.K.Data {
				zk = zk && isZero(e)
			}
			if !zq && !zk {
				return fmt.Errorf("layer %d head %d: W^Q and W^K are both nonzero", l+1, h+1)
			}
		}
	}
	return nil
}

// ---------------------------------------------------------------------
// §First.

// firstAverage checks the attention output of §First, c_i =
// (1/i) Σ_{j≤i} −(−1)^j = [i odd]/i, and c_i ≤ 1/3 for 1 < i ≤ maxN
// (equality only at i = 3), under SMAT and AHAT, exactly. The word
// embedding is 0 (checked), the mask is future and the position encoding
// (−1)^i does not depend on n (checked for n ≤ maxN), so c_i is the same
// in every input of every length ≥ i, and one input of length maxN
// covers every i ≤ maxN.
func firstAverage(maxN int, ws ...model.Weighting) (*proofs.Evidence, error) {
	r, err := recipes.Get("first")
	if err != nil {
		return nil, err
	}
	third := big.NewRat(1, 3)
	for _, w := range ws {
		con, err := r.Construct(w, maxN, nil)
		if err != nil {
			return nil, err
		}
		m := con.Model
		for s, row := range m.WordEmbedding {
			for _, e := range row {
				if !isZero(e) {
					return nil, fmt.Errorf("the word embedding of %q is not 0", m.Alphabet[s])
				}
			}
		}
		for n := 1; n <= maxN; n++ {
			for i := 1; i <= n; i++ {
				if fmt.Sprint(m.Position.Vector(i, n)) != fmt.Sprint(m.Position.Vector(i, maxN)) {
					return nil, fmt.Errorf("the position encoding depends on n at i = %d", i)
				}
			}
		}
		runner, err := runner(m, "exact")
		if err != nil {
			return nil, err
		}
		res, err := runner.Run(make([]int, maxN), false)
		if err != nil {
			return nil, err
		}
		at := map[string]int{}
		for k, l := range m.Output.Labels {
			at[l] = k
		}
		for i := 1; i <= maxN; i++ {
			c := res.Outputs[i-1].Values[at["c"]]
			want := new(big.Rat)
			if i%2 == 1 {
				want.SetFrac64(1, int64(i))
			}
			bad := ""
			switch {
			case !c.Equals(want):
				bad = fmt.Sprintf("c_%d = %s, want [i odd]/i = %s", i, c.Text, want.RatString())
			case i > 1 && want.Cmp(third) > 0:
				bad = fmt.Sprintf("c_%d = %s > 1/3", i, c.Text)
			}
			if bad != "" {
				s := fmt.Sprintf("first under %s: %s", recipes.WeightingAcronym(w), bad)
				return &proofs.Evidence{Verdict: proofs.Refuted, Summary: s, Explain: []string{s}}, nil
			}
		}
	}
	return &proofs.Evidence{Verdict: proofs.Proved, Summary: fmt.Sprintf("c_1 = 1 and c_i = [i odd]/i ≤ 1/3 (equal at i = 3) for every 1 < i ≤ %d, exactly, under SMAT and AHAT (the word embedding is 0 and the encoding (−1)^i does not depend on n, so this covers every input of every length)", maxN)}, nil
}

// firstThreshold proves GTZero_{1/3}(c − 1/3) of §First: 0 on
// c ≤ 1/3 and 1 on c ≥ 2/3 (so at c = 1).
func firstThreshold(f *stream.FF) (*proofs.Evidence, error) {
	row := func(xs ...string) []string { return xs }
	r := func(rows ...[]string) [][]string { return rows }
	low := proofs.Halfspaces(1, row("1", "1/3"))
	high := proofs.Halfspaces(1, row("-1", "-2/3"))
	ev, err := proofs.ProveFFN(f, low, []cpwl.Piece{proofs.Piece(low, proofs.Affine(r(row("0")), "0"))})
	if err != nil || ev.Verdict != proofs.Proved {
		return ev, err
	}
	ev2, err := proofs.ProveFFN(f, high, []cpwl.Piece{proofs.Piece(high, proofs.Affine(r(row("0")), "1"))})
	if err != nil || ev2.Verdict != proofs.Proved {
		return ev2, err
	}
	return &proofs.Evidence{Verdict: proofs.Proved, Summary: "GTZero_{1/3}(c − 1/3) = 0 on all of c ≤ 1/3 (" + ev.Summary + ") and = 1 on all of c ≥ 2/3 (" + ev2.Summary + ")",
		Explain: append(ev.Explain, ev2.Explain...)}, nil
}

// third is the weight of each of three positions in a uniform average.
var third = new(big.Rat).SetFrac64(1, 3)

var trivialClaims = []*proofs.Claim{
	// §Identity.
	claim("attn.identity.exact", secID,
		"id(x) = att_zero(x) + x with att_zero.W^Q = att_zero.W^K = att_zero.W^V = 0: \"the residual connection will pass the input through unchanged\"",
		"x ∈ ℝ^{n×d} (every real input), n ≤ 6, d ∈ {1, 2, 3}; SMAT, AHAT, UHAT (leftmost) and rightmost UHAT; exact", proofs.Holds,
		func() (*proofs.Evidence, error) {
			return linear("identity-attn", 6, []int{1, 2, 3}, smat, ahat, uhat, uhatRight)
		}),

	// §Average.
	claim("attn.avg.exact", secAvg,
		"Avg(x_1, …, x_n)_i = (1/n) Σ_{k=1}^n x_k with Avg.W^Q = Avg.W^K = 0, Avg.W^V = I: \"all positions receive the same value\"",
		"x ∈ ℝ^{n×d} (every real input), n ≤ 6, d ∈ {1, 2, 3}; SMAT and AHAT; exact", proofs.Holds,
		func() (*proofs.Evidence, error) { return linear("avg", 6, []int{1, 2, 3}, smat, ahat) }),
	claim("attn.avg-prefix.exact", secAvg,
		"Avg←(x_1, …, x_n)_i = (1/i) Σ_{k=1}^i x_k: Avg with future masking, \"the average over all previous positions\"",
		"x ∈ ℝ^{n×d} (every real input), n ≤ 6, d ∈ {1, 2, 3}; SMAT and AHAT; exact", proofs.Holds,
		func() (*proofs.Evidence, error) { return linear("avg-prefix", 6, []int{1, 2, 3}, smat, ahat) }),

	// §First.
	claim("attn.first.average", secFirst,
		"first.W^Q = first.W^K = 0, first.W^V = −I, future-masked, on (−1)^i: \"If i = 1 … c_i is 1. If i > 1, then c_i is the average of −1's and 1's, and so will always be at most 1/3\"",
		"every position i ≤ 128 of every input (the output c_i depends on i only); SMAT and AHAT; exact", proofs.Holds,
		func() (*proofs.Evidence, error) { return firstAverage(128, smat, ahat) }),
	claim("attn.first.threshold", secFirst,
		"\"we can map values in [0, 1/3] to 0 via GTZero_{1/3}(c_i − 1/3)\" (and c_1 = 1 to 1)",
		"c ∈ ℝ: c ≤ 1/3 and c ≥ 2/3 (the shifted GTZero's gray region 1/3 < c < 2/3 excluded)", proofs.Proved,
		func() (*proofs.Evidence, error) { return firstThreshold(blocks.GTZeroEps("c", "first", third, third)) }),
	claim("attn.first.exact", secFirst,
		"first((−1)^1, …, (−1)^n) = (1, 0, …, 0): the head above and GTZero_{1/3}(c_i − 1/3)",
		"every input of length n ≤ 8 (the symbols are ignored); SMAT and AHAT; exact", proofs.Holds,
		sweepEvidence(sweepsEach("first", 8, nil, "", smat, ahat)...)),
	claim("attn.first.inverse-position", secFirst,
		"first allows one \"to compute the value 1/i in every position while only using the positional encoding (−1)^i\" (first, then Avg← of first)",
		"every input of length n ≤ 8; SMAT and AHAT; exact", proofs.Holds,
		sweepEvidence(sweepsEach("inverse-position", 8, nil, "", smat, ahat)...)),
	claim("attn.first-uhat.exact", secFirst,
		"(not in the paper: the corrected UHAT version of the cheat sheet's First) score and value (−1)^j, future-masked, then GTZero_1(−c): first_i = 𝕀[i = 1] under unique-hard attention",
		"every input of length n ≤ 8; UHAT (leftmost), rightmost UHAT and AHAT; exact", proofs.Holds,
		sweepEvidence(sweepsEach("first-uhat", 8, nil, "", uhat, uhatRight, ahat)...)),

	// The cheat sheet (tab:sa_cheatsheet, see cheatsheet): Identity, Uniform Average and First.
	claim("attn.cheatsheet.identity.smat", secID, cheatsheet+"Identity, (ℝ^d)^+ → (ℝ^d)^+, \"passes each token through unchanged\": SMAT",
		"x ∈ ℝ^{n×d}, n ≤ 6, d ∈ {1, 2}; exact", proofs.Holds,
		func() (*proofs.Evidence, error) { return linear("identity-attn", 6, []int{1, 2}, smat) }),
	claim("attn.cheatsheet.identity.ahat", secID, cheatsheet+"Identity: AHAT",
		"x ∈ ℝ^{n×d}, n ≤ 6, d ∈ {1, 2}; exact", proofs.Holds,
		func() (*proofs.Evidence, error) { return linear("identity-attn", 6, []int{1, 2}, ahat) }),
	claim("attn.cheatsheet.identity.uhat", secID, cheatsheet+"Identity: UHAT",
		"x ∈ ℝ^{n×d}, n ≤ 6, d ∈ {1, 2}; leftmost UHAT (and rightmost); exact", proofs.Holds,
		func() (*proofs.Evidence, error) { return linear("identity-attn", 6, []int{1, 2}, uhat, uhatRight) }),
	claim("attn.cheatsheet.uniform-average.smat", secAvg, cheatsheet+"Uniform Average, \"each token outputs the mean of all unmasked tokens (prefix-mean if causal mask is used)\": SMAT",
		"Avg and Avg←, x ∈ ℝ^{n×d}, n ≤ 6, d ∈ {1, 2}; exact", proofs.Holds,
		func() (*proofs.Evidence, error) {
			return all(func() (*proofs.Evidence, error) { return linear("avg", 6, []int{1, 2}, smat) },
				func() (*proofs.Evidence, error) { return linear("avg-prefix", 6, []int{1, 2}, smat) })
		}),
	claim("attn.cheatsheet.uniform-average.ahat", secAvg, cheatsheet+"Uniform Average: AHAT",
		"Avg and Avg←, x ∈ ℝ^{n×d}, n ≤ 6, d ∈ {1, 2}; exact", proofs.Holds,
		func() (*proofs.Evidence, error) {
			return all(func() (*proofs.Evidence, error) { return linear("avg", 6, []int{1, 2}, ahat) },
				func() (*proofs.Evidence, error) { return linear("avg-prefix", 6, []int{1, 2}, ahat) })
		}),
	claim("attn.cheatsheet.uniform-average.uhat", secAvg, cheatsheet+"Uniform Average is not listed for UHAT: under unique-hard attention its head (every score tied) does not average",
		"Avg and Avg←, x ∈ ℚ^{n×1}, n ≤ 4, random inputs (seed 7); leftmost UHAT; exact", proofs.Proved,
		func() (*proofs.Evidence, error) {
			return all(unlisted(proofs.Sweep{Recipe: "avg", Weighting: uhat, MaxN: 4, Cases: 20, Seed: 7}),
				unlisted(proofs.Sweep{Recipe: "avg-prefix", Weighting: uhat, MaxN: 4, Cases: 20, Seed: 7}))
		}),
	claim("attn.cheatsheet.first.smat", secFirst, cheatsheet+"First, \"retrieves the value at the first position\" (§First's first predicate): SMAT",
		"the construction of §First, every input of length n ≤ 8; exact", proofs.Holds,
		sweepEvidence(proofs.Sweep{Recipe: "first", Weighting: smat, MaxN: 8})),
	claim("attn.cheatsheet.first.ahat", secFirst, cheatsheet+"First: AHAT",
		"the construction of §First, every input of length n ≤ 8; exact", proofs.Holds,
		sweepEvidence(proofs.Sweep{Recipe: "first", Weighting: ahat, MaxN: 8})),
	claim("attn.cheatsheet.first.uhat", secFirst, cheatsheet+"First: UHAT (the construction of §First, future-masked uniform attention with W^V = −I, then GTZero_{1/3}(c − 1/3))",
		"every input of length n ≤ 8 (first-literal, the printed construction; what it computes at each length); leftmost UHAT; exact", proofs.Refuted,
		func() (*proofs.Evidence, error) {
			return proofs.LiteralEvidence(proofs.Sweep{Recipe: "first-literal", Weighting: uhat, MaxN: 8})
		}),
	claim("attn.cheatsheet.first.uhat-retrieve", secFirst, cheatsheet+"First, read as its description says, \"retrieves the value at the first position\": UHAT (not §First's construction: a head with all scores equal)",
		"x ∈ ℝ^{n×d}, n ≤ 6, d ∈ {1, 2}; leftmost UHAT, unmasked and future-masked; exact", proofs.Holds,
		func() (*proofs.Evidence, error) { return retrieveFirst(6, []int{1, 2}) }),
}
