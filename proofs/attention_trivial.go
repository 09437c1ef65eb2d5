package proofs

import (
	"errors"
	"fmt"
	"math/big"
	"strings"

	"github.com/transformer-cookbook/verify/check"
	"github.com/transformer-cookbook/verify/exact/cpwl"
	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/recipes"
	"github.com/transformer-cookbook/verify/recipes/blocks"
	"github.com/transformer-cookbook/verify/recipes/stream"
)

// The claims of §Identity, §Average and §First, and their cells of the
// cheat sheet: the heads whose inputs are real vectors are decided by
// linearity (attnLinear), First by its exact attention output and
// threshold and by the recipes' sweeps.

// ---------------------------------------------------------------------
// §Trivial Cases: identity and averages over real vectors, by linearity.

// attnLinear proves a recipe over real vectors (identity-attn, avg,
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
func attnLinear(recipe string, maxN int, ds []int, ws ...model.Weighting) (*Evidence, error) {
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
			k, fail, err := attnLinearCon(con, maxN, d, nil)
			if err != nil {
				return nil, fmt.Errorf("%s under %s: %w", recipe, recipes.WeightingAcronym(w), err)
			}
			if fail != "" {
				s := fmt.Sprintf("%s under %s: %s", recipe, recipes.WeightingAcronym(w), fail)
				return &Evidence{Verdict: Refuted, Summary: s, Explain: []string{s}}, nil
			}
			runs += k
		}
	}
	var names []string
	for _, w := range ws {
		names = append(names, recipes.WeightingAcronym(w))
	}
	return &Evidence{Verdict: Proved, Summary: fmt.Sprintf("%s under %s: for every x ∈ ℝ^{n×d}, n ≤ %d, d ∈ %v: W^Q = W^K = 0 makes the scores 0 for every x, so the model is linear in x, like the reference; equal on every basis input (%d exact runs)", recipe, strings.Join(names, ", "), maxN, ds, runs)}, nil
}

// attnLinearCon checks the premises of the linearity argument on con's
// model and compares it with the reference (con's, or ref, a linear map
// of the input vectors) on every standard basis input of width d and
// length n ≤ maxN, exactly: the number of runs, and the first difference.
func attnLinearCon(con *recipes.Construction, maxN, d int, ref func(xs [][]*big.Rat) []recipes.Want) (int, string, error) {
	if err := attnCheckLinear(con.Model); err != nil {
		return 0, "", fmt.Errorf("the linearity argument does not apply: %w", err)
	}
	runner, err := attnRunner(con.Model, "exact")
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

// attnRetrieveFirst decides the cheat sheet's description of First read
// literally, "retrieves the value at the first position": Avg's head
// (W^Q = W^K = 0, W^V = I, unmasked and future-masked) under leftmost
// UHAT gives every position x_1, since every score ties and the leftmost
// maximum is position 1. By linearity, as attnLinear, for every
// x ∈ ℝ^{n×d}.
func attnRetrieveFirst(maxN int, ds []int) (*Evidence, error) {
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
			k, fail, err := attnLinearCon(con, maxN, d, first)
			if err != nil {
				return nil, err
			}
			if fail != "" {
				s := fmt.Sprintf("%s's head under UHAT: %s", recipe, fail)
				return &Evidence{Verdict: Refuted, Summary: s, Explain: []string{s}}, nil
			}
			runs += k
		}
	}
	return &Evidence{Verdict: Proved, Summary: fmt.Sprintf("the zero-score head W^Q = W^K = 0, W^V = I (unmasked and future-masked) under leftmost UHAT outputs x_1 at every position, for every x ∈ ℝ^{n×d}, n ≤ %d, d ∈ %v (linear in x; equal on every basis input, %d exact runs)", maxN, ds, runs)}, nil
}

// attnCheckLinear checks the premises of attnLinear on m.
func attnCheckLinear(m *model.Model) error {
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
				zq = zq && attnIsZero(e)
			}
			for _, e := range head.K.Data {
				zk = zk && attnIsZero(e)
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

// attnFirstAverage checks the attention output of §First, c_i =
// (1/i) Σ_{j≤i} −(−1)^j = [i odd]/i, and c_i ≤ 1/3 for 1 < i ≤ maxN
// (equality only at i = 3), under SMAT and AHAT, exactly. The word
// embedding is 0 (checked), the mask is future and the position encoding
// (−1)^i does not depend on n (checked for n ≤ maxN), so c_i is the same
// in every input of every length ≥ i, and one input of length maxN
// covers every i ≤ maxN.
func attnFirstAverage(maxN int, ws ...model.Weighting) (*Evidence, error) {
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
				if !attnIsZero(e) {
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
		runner, err := attnRunner(m, "exact")
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
				return &Evidence{Verdict: Refuted, Summary: s, Explain: []string{s}}, nil
			}
		}
	}
	return &Evidence{Verdict: Proved, Summary: fmt.Sprintf("c_1 = 1 and c_i = [i odd]/i ≤ 1/3 (equal at i = 3) for every 1 < i ≤ %d, exactly, under SMAT and AHAT (the word embedding is 0 and the encoding (−1)^i does not depend on n, so this covers every input of every length)", maxN)}, nil
}

// attnFirstThreshold proves GTZero_{1/3}(c − 1/3) of §First: 0 on
// c ≤ 1/3 and 1 on c ≥ 2/3 (so at c = 1).
func attnFirstThreshold(f *stream.FF) (*Evidence, error) {
	row := func(xs ...string) []string { return xs }
	r := func(rows ...[]string) [][]string { return rows }
	low := halfspaces(1, row("1", "1/3"))
	high := halfspaces(1, row("-1", "-2/3"))
	ev, err := proveFFN(f, low, []cpwl.Piece{piece(low, affine(r(row("0")), "0"))})
	if err != nil || ev.Verdict != Proved {
		return ev, err
	}
	ev2, err := proveFFN(f, high, []cpwl.Piece{piece(high, affine(r(row("0")), "1"))})
	if err != nil || ev2.Verdict != Proved {
		return ev2, err
	}
	return &Evidence{Verdict: Proved, Summary: "GTZero_{1/3}(c − 1/3) = 0 on all of c ≤ 1/3 (" + ev.Summary + ") and = 1 on all of c ≥ 2/3 (" + ev2.Summary + ")",
		Explain: append(ev.Explain, ev2.Explain...)}, nil
}

func init() {
	third := new(big.Rat).SetFrac64(1, 3)
	Register(
		// §Identity.
		attnClaim("attn.identity.exact", attnSecID,
			"id(x) = att_zero(x) + x with att_zero.W^Q = att_zero.W^K = att_zero.W^V = 0: \"the residual connection will pass the input through unchanged\"",
			"x ∈ ℝ^{n×d} (every real input), n ≤ 6, d ∈ {1, 2, 3}; SMAT, AHAT, UHAT (leftmost) and rightmost UHAT; exact", Holds,
			func() (*Evidence, error) {
				return attnLinear("identity-attn", 6, []int{1, 2, 3}, attnSMAT, attnAHAT, attnUHAT, attnUHATRight)
			}),

		// §Average.
		attnClaim("attn.avg.exact", attnSecAvg,
			"Avg(x_1, …, x_n)_i = (1/n) Σ_{k=1}^n x_k with Avg.W^Q = Avg.W^K = 0, Avg.W^V = I: \"all positions receive the same value\"",
			"x ∈ ℝ^{n×d} (every real input), n ≤ 6, d ∈ {1, 2, 3}; SMAT and AHAT; exact", Holds,
			func() (*Evidence, error) { return attnLinear("avg", 6, []int{1, 2, 3}, attnSMAT, attnAHAT) }),
		attnClaim("attn.avg-prefix.exact", attnSecAvg,
			"Avg←(x_1, …, x_n)_i = (1/i) Σ_{k=1}^i x_k: Avg with future masking, \"the average over all previous positions\"",
			"x ∈ ℝ^{n×d} (every real input), n ≤ 6, d ∈ {1, 2, 3}; SMAT and AHAT; exact", Holds,
			func() (*Evidence, error) { return attnLinear("avg-prefix", 6, []int{1, 2, 3}, attnSMAT, attnAHAT) }),

		// §First.
		attnClaim("attn.first.average", attnSecFirst,
			"first.W^Q = first.W^K = 0, first.W^V = −I, future-masked, on (−1)^i: \"If i = 1 … c_i is 1. If i > 1, then c_i is the average of −1's and 1's, and so will always be at most 1/3\"",
			"every position i ≤ 128 of every input (the output c_i depends on i only); SMAT and AHAT; exact", Holds,
			func() (*Evidence, error) { return attnFirstAverage(128, attnSMAT, attnAHAT) }),
		attnClaim("attn.first.threshold", attnSecFirst,
			"\"we can map values in [0, 1/3] to 0 via GTZero_{1/3}(c_i − 1/3)\" (and c_1 = 1 to 1)",
			"c ∈ ℝ: c ≤ 1/3 and c ≥ 2/3 (the shifted GTZero's gray region 1/3 < c < 2/3 excluded)", Proved,
			func() (*Evidence, error) { return attnFirstThreshold(blocks.GTZeroEps("c", "first", third, third)) }),
		attnClaim("attn.first.exact", attnSecFirst,
			"first((−1)^1, …, (−1)^n) = (1, 0, …, 0): the head above and GTZero_{1/3}(c_i − 1/3)",
			"every input of length n ≤ 8 (the symbols are ignored); SMAT and AHAT; exact", Holds,
			attnSweepEvidence(attnSweepsEach("first", 8, nil, "", attnSMAT, attnAHAT)...)),
		attnClaim("attn.first.inverse-position", attnSecFirst,
			"first allows one \"to compute the value 1/i in every position while only using the positional encoding (−1)^i\" (first, then Avg← of first)",
			"every input of length n ≤ 8; SMAT and AHAT; exact", Holds,
			attnSweepEvidence(attnSweepsEach("inverse-position", 8, nil, "", attnSMAT, attnAHAT)...)),
		attnClaim("attn.first-uhat.exact", attnSecFirst,
			"(not in the paper: the corrected UHAT version of the cheat sheet's First) score and value (−1)^j, future-masked, then GTZero_1(−c): first_i = 𝕀[i = 1] under unique-hard attention",
			"every input of length n ≤ 8; UHAT (leftmost), rightmost UHAT and AHAT; exact", Holds,
			attnSweepEvidence(attnSweepsEach("first-uhat", 8, nil, "", attnUHAT, attnUHATRight, attnAHAT)...)),

		// The cheat sheet (tab:sa_cheatsheet, see attnCheatsheet): Identity, Uniform Average and First.
		attnClaim("attn.cheatsheet.identity.smat", attnSecID, attnCheatsheet+"Identity, (ℝ^d)^+ → (ℝ^d)^+, \"passes each token through unchanged\": SMAT",
			"x ∈ ℝ^{n×d}, n ≤ 6, d ∈ {1, 2}; exact", Holds,
			func() (*Evidence, error) { return attnLinear("identity-attn", 6, []int{1, 2}, attnSMAT) }),
		attnClaim("attn.cheatsheet.identity.ahat", attnSecID, attnCheatsheet+"Identity: AHAT",
			"x ∈ ℝ^{n×d}, n ≤ 6, d ∈ {1, 2}; exact", Holds,
			func() (*Evidence, error) { return attnLinear("identity-attn", 6, []int{1, 2}, attnAHAT) }),
		attnClaim("attn.cheatsheet.identity.uhat", attnSecID, attnCheatsheet+"Identity: UHAT",
			"x ∈ ℝ^{n×d}, n ≤ 6, d ∈ {1, 2}; leftmost UHAT (and rightmost); exact", Holds,
			func() (*Evidence, error) { return attnLinear("identity-attn", 6, []int{1, 2}, attnUHAT, attnUHATRight) }),
		attnClaim("attn.cheatsheet.uniform-average.smat", attnSecAvg, attnCheatsheet+"Uniform Average, \"each token outputs the mean of all unmasked tokens (prefix-mean if causal mask is used)\": SMAT",
			"Avg and Avg←, x ∈ ℝ^{n×d}, n ≤ 6, d ∈ {1, 2}; exact", Holds,
			func() (*Evidence, error) {
				return attnAll(func() (*Evidence, error) { return attnLinear("avg", 6, []int{1, 2}, attnSMAT) },
					func() (*Evidence, error) { return attnLinear("avg-prefix", 6, []int{1, 2}, attnSMAT) })
			}),
		attnClaim("attn.cheatsheet.uniform-average.ahat", attnSecAvg, attnCheatsheet+"Uniform Average: AHAT",
			"Avg and Avg←, x ∈ ℝ^{n×d}, n ≤ 6, d ∈ {1, 2}; exact", Holds,
			func() (*Evidence, error) {
				return attnAll(func() (*Evidence, error) { return attnLinear("avg", 6, []int{1, 2}, attnAHAT) },
					func() (*Evidence, error) { return attnLinear("avg-prefix", 6, []int{1, 2}, attnAHAT) })
			}),
		attnClaim("attn.cheatsheet.uniform-average.uhat", attnSecAvg, attnCheatsheet+"Uniform Average is not listed for UHAT: under unique-hard attention its head (every score tied) does not average",
			"Avg and Avg←, x ∈ ℚ^{n×1}, n ≤ 4, random inputs (seed 7); leftmost UHAT; exact", Proved,
			func() (*Evidence, error) {
				return attnAll(attnUnlisted(sweep{recipe: "avg", weighting: attnUHAT, maxN: 4, cases: 20, seed: 7}),
					attnUnlisted(sweep{recipe: "avg-prefix", weighting: attnUHAT, maxN: 4, cases: 20, seed: 7}))
			}),
		attnClaim("attn.cheatsheet.first.smat", attnSecFirst, attnCheatsheet+"First, \"retrieves the value at the first position\" (§First's first predicate): SMAT",
			"the construction of §First, every input of length n ≤ 8; exact", Holds,
			attnSweepEvidence(sweep{recipe: "first", weighting: attnSMAT, maxN: 8})),
		attnClaim("attn.cheatsheet.first.ahat", attnSecFirst, attnCheatsheet+"First: AHAT",
			"the construction of §First, every input of length n ≤ 8; exact", Holds,
			attnSweepEvidence(sweep{recipe: "first", weighting: attnAHAT, maxN: 8})),
		attnClaim("attn.cheatsheet.first.uhat", attnSecFirst, attnCheatsheet+"First: UHAT (the construction of §First, future-masked uniform attention with W^V = −I, then GTZero_{1/3}(c − 1/3))",
			"every input of length n ≤ 8 (first-literal, the printed construction; what it computes at each length); leftmost UHAT; exact", Refuted,
			func() (*Evidence, error) {
				return literalEvidence(sweep{recipe: "first-literal", weighting: attnUHAT, maxN: 8})
			}),
		attnClaim("attn.cheatsheet.first.uhat-retrieve", attnSecFirst, attnCheatsheet+"First, read as its description says, \"retrieves the value at the first position\": UHAT (not §First's construction: a head with all scores equal)",
			"x ∈ ℝ^{n×d}, n ≤ 6, d ∈ {1, 2}; leftmost UHAT, unmasked and future-masked; exact", Holds,
			func() (*Evidence, error) { return attnRetrieveFirst(6, []int{1, 2}) }),
	)
}
