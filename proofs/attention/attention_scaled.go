package attention

import (
	"fmt"
	"math/big"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"

	"github.com/transformer-cookbook/verify/check"
	"github.com/transformer-cookbook/verify/internal/plural"
	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/numeric"
	"github.com/transformer-cookbook/verify/proofs"
	"github.com/transformer-cookbook/verify/recipes"
)

// The second reading of the claims whose statement depends on the scale
// of the attention scores. Definition def:attn divides every score by
// √d_key; the recipes compute q·k (model.NoScale), as the sections quote
// their gaps γ, and the temperatures τ = γ/log(8N) of §Simulating
// Average-Hard Attention with Soft Attention come from those γ. Each claim
// below is a companion, ID suffix .sqrt-dkey, of a claim checked in the
// Q·k reading: the same construction, τ computed from γ as printed, with
// every head's scores divided by √d_key, d_key being the rows of the
// head's W^Q (and W^K). A positive factor common to a head's scores keeps
// every maximum and tie, so hard attention reads the same in both; what
// changes is the gap (γ/√d_key) and with it what softmax does.

// ---------------------------------------------------------------------
// Models under Definition def:attn.

// sqrtDKeyModel returns a copy of m whose attention layers divide
// every head's scores by √d_key (model.ScaleSqrtDKey); m is unchanged.
func sqrtDKeyModel(m *model.Model) *model.Model {
	c := *m
	c.Name = m.Name + " (q·k/√d_key)"
	c.Layers = slices.Clone(m.Layers)
	for l := range c.Layers {
		if a := c.Layers[l].Attention; a != nil {
			b := *a
			b.Scale = model.ScaleSqrtDKey
			c.Layers[l].Attention = &b
		}
	}
	return &c
}

// dKeySizes is the sorted distinct d_key of m's heads: the rows of W^Q.
func dKeySizes(m *model.Model) []int {
	var ds []int
	for _, l := range m.Layers {
		if l.Attention == nil {
			continue
		}
		for _, h := range l.Attention.Heads {
			if !slices.Contains(ds, h.Q.Rows) {
				ds = append(ds, h.Q.Rows)
			}
		}
	}
	sort.Ints(ds)
	return ds
}

func dKeyText(ds []int) string {
	var ps []string
	for _, d := range ds {
		ps = append(ps, fmt.Sprint(d))
	}
	return "d_key = " + strings.Join(ps, ", ")
}

// ---------------------------------------------------------------------
// Gaps under Definition def:attn.

// sqrtText prints g/√d with a decimal, for a gap g of q·k.
func sqrtText(g *big.Rat, d int) (string, error) {
	lo, hi, err := numeric.Quo(numeric.Lit(g), numeric.Sqrt(numeric.LitInt(int64(d)))).Enclose(128)
	if err != nil {
		return "", err
	}
	if d == 1 {
		return g.RatString(), nil
	}
	num := g.RatString()
	if !g.IsInt() {
		num = "(" + num + ")"
	}
	return fmt.Sprintf("%s/√%d ∈ [%s, %s]", num, d, decimal(lo, 6), decimal(hi, 6)), nil
}

// lookupGapScaled is lookupGap under Definition def:attn: the
// smallest gap of q·k/√d_key, d_key the rows of the lookup head's W^Q, for
// each N in ns, against the paper's stated gap want(N) (exactly, or at
// least it with atLeast). The gap g of q·k is rational and √d_key need not
// be, so g/√d_key is compared with want through squares, g²/d_key against
// want², both sides non-negative. REFUTED at the first N where it differs,
// with the gaps of every N.
func lookupGapScaled(recipe string, params map[string]string, ns []int, want func(n int) *big.Rat, atLeast bool) (*proofs.Evidence, error) {
	r, err := recipes.Get(recipe)
	if err != nil {
		return nil, err
	}
	var measured []string
	first := ""
	off := 0
	for _, n := range ns {
		con, err := r.Construct(model.AverageHardmax, n, params)
		if err != nil {
			return nil, err
		}
		scores, err := lookupScores(con.Model, n)
		if err != nil {
			return nil, err
		}
		g, bad := gap(scores)
		if bad != "" {
			s := fmt.Sprintf("%s built for N = %d: %s (a positive factor keeps the maximum where it is)", recipe, n, bad)
			return &proofs.Evidence{Verdict: proofs.Refuted, Summary: s, Explain: []string{s}}, nil
		}
		_, head, err := proofs.LookupHead(con.Model)
		if err != nil {
			return nil, err
		}
		d := head.Q.Rows
		text, err := sqrtText(g, d)
		if err != nil {
			return nil, err
		}
		sq := new(big.Rat).Quo(new(big.Rat).Mul(g, g), big.NewRat(int64(d), 1))
		w := want(n)
		w2 := new(big.Rat).Mul(w, w)
		c := sq.Cmp(w2)
		measured = append(measured, fmt.Sprintf("N = %d: d_key = %d, gap %s", n, d, text))
		if atLeast && c < 0 || !atLeast && c != 0 {
			off++
		}
		if first == "" && off > 0 {
			rel := "≠"
			if c < 0 {
				rel = "<"
			}
			first = fmt.Sprintf("%s built for N = %d: d_key = %d (rows of W^Q), the smallest gap of q·k/√d_key is %s, its square %s %s %s = γ² (exact): not the stated γ = %s",
				recipe, n, d, text, sq.RatString(), rel, w2.RatString(), w.RatString())
		}
	}
	if first != "" {
		return &proofs.Evidence{Verdict: proofs.Refuted, Summary: first + fmt.Sprintf("; the q·k gap divided by √d_key misses the stated γ at %d of the %d N checked (%d … %d; each N with --explain)", off, len(ns), ns[0], ns[len(ns)-1]), Explain: append([]string{first}, measured...)}, nil
	}
	rel := "="
	if atLeast {
		rel = "≥"
	}
	return &proofs.Evidence{Verdict: proofs.Proved, Summary: fmt.Sprintf("%s built for each N ∈ %v: q·k_j/√d_key, d_key the rows of W^Q, for every query q ∈ [N] and key j ∈ [N]; the maximum is unique at j = q and the smallest gap %s the stated %s for every N, compared exactly through squares (%s)",
		recipe, ns, rel, want(ns[len(ns)-1]).RatString(), strings.Join(measured, "; ")), Explain: measured}, nil
}

// qmScaledSqrtDKey is attn.lookup-qm.scaled under Definition
// def:attn: each query's scores s_ij, whatever factor the query or every
// key carries, are divided by the one √d_key > 0, which keeps every
// comparison (s_ij < s_iq iff s_ij/√d_key < s_iq/√d_key); so the exact
// comparisons of qmScaled decide the scaled scores too.
func qmScaledSqrtDKey(maxN int) (*proofs.Evidence, error) {
	d, err := proofs.RecipeDKey("lookup", maxN)
	if err != nil {
		return nil, err
	}
	ev, err := qmScaled(maxN, qmKeyFactors)
	if err != nil || ev.Verdict != proofs.Proved {
		return ev, err
	}
	why := fmt.Sprintf("d_key = %d (rows of W^Q): each query's scores are all divided by √%d > 0, which keeps every comparison between them, so the unique maxima below are those of q·k/√d_key", d, d)
	return &proofs.Evidence{Verdict: proofs.Proved, Summary: why + "; " + ev.Summary, Explain: append([]string{why}, ev.Explain...)}, nil
}

// ---------------------------------------------------------------------
// Hard attention under Definition def:attn, run.

// scaledHard runs each sweep's construction with its scores divided
// by √d_key (interval arithmetic: √2 is irrational) on every input of
// every length ≤ maxN, every output an exact point equal to the
// reference: PROVED, or REFUTED with the first wrong output. An enclosure
// that contains the reference without being it is an error (undecided).
func scaledHard(p string, ss ...proofs.Sweep) (*proofs.Evidence, error) {
	var parts []string
	dks := map[int]bool{}
	for _, s := range ss {
		r, err := recipes.Get(s.Recipe)
		if err != nil {
			return nil, err
		}
		con, err := r.Construct(s.Weighting, s.MaxN, s.Params)
		if err != nil {
			return nil, err
		}
		m := sqrtDKeyModel(con.Model)
		for _, d := range dKeySizes(m) {
			dks[d] = true
		}
		run, err := runner(m, p)
		if err != nil {
			return nil, err
		}
		s.SqrtDKey = true
		rng := rand.New(rand.NewPCG(1, 2))
		cases := 0
		for n := max(1, r.MinN); n <= s.MaxN; n++ {
			cs, all := con.Inputs(n, rng, 1<<16)
			if !all {
				return nil, fmt.Errorf("%s: length %d has too many inputs to enumerate", s.Describe(), n)
			}
			for _, c := range cs {
				res, err := run.Run(c.Symbols, false)
				if err != nil {
					return nil, err
				}
				cases++
				for i, want := range con.Expected(c) {
					if ok, why := check.Compare(want, res.Outputs[i], con.Bounds, m.Output.Labels); !ok {
						where := fmt.Sprintf("%s on %q, position %d: %s (%s)", s.Describe(), check.CaseText(m, c), i+1, why, p)
						if strings.HasPrefix(why, "undecided") {
							return nil, fmt.Errorf("%s", where)
						}
						return &proofs.Evidence{Verdict: proofs.Refuted, Summary: where, Explain: []string{where}}, nil
					}
				}
			}
		}
		parts = append(parts, fmt.Sprintf("%s, n ≤ %d (%d inputs)", s.Describe(), s.MaxN, cases))
	}
	var ds []int
	for d := range dks {
		ds = append(ds, d)
	}
	sort.Ints(ds)
	return &proofs.Evidence{Verdict: proofs.Proved, Summary: fmt.Sprintf("every input, scores divided by √d_key (%s): %s; %s, every output an exact point", dKeyText(ds), strings.Join(parts, "; "), p), Explain: parts}, nil
}

// ---------------------------------------------------------------------
// Softmax simulations under Definition def:attn.

// leadText says what the printed τ leaves of the gap at N under
// Definition def:attn: with 1/τ = log(8N)/γ and γ the gap of q·k, the top
// score of q·k/√d_key leads by log(8N)/√d_key (log 8N in the q·k reading),
// and Edelman's bound 2N e^{−lead} for it, against the claimed 1/4;
// over reports whether that bound exceeds 1/4 for some d_key.
func leadText(n int, ds []int) (text string, over bool, err error) {
	var ps []string
	for _, d := range ds {
		lead := numeric.Quo(numeric.Log(numeric.LitInt(8*int64(n))), numeric.Sqrt(numeric.LitInt(int64(d))))
		llo, lhi, err := lead.Enclose(128)
		if err != nil {
			return "", false, err
		}
		bound := numeric.Mul(numeric.LitInt(2*int64(n)), numeric.Exp(numeric.Neg(lead)))
		blo, bhi, err := bound.Enclose(128)
		if err != nil {
			return "", false, err
		}
		rel := "≤"
		switch {
		case d == 1:
			// 2N e^{−log 8N} = 1/4 exactly: the engine's reading.
			rel = "="
		case blo.Cmp(big.NewRat(1, 4)) > 0:
			rel, over = ">", true
		case bhi.Cmp(big.NewRat(1, 4)) > 0:
			return "", false, fmt.Errorf("Edelman's bound at N = %d, d_key = %d is undecided against 1/4", n, d)
		}
		ps = append(ps, fmt.Sprintf("d_key = %d: lead log(8N)/√d_key ∈ [%s, %s], Edelman's bound 2N e^{−lead} ∈ [%s, %s] %s 1/4",
			d, decimal(llo, 6), decimal(lhi, 6), decimal(blo, 6), decimal(bhi, 6), rel))
	}
	return fmt.Sprintf("at N = %d, 1/τ = log(8N)/γ with γ the gap of q·k τ is computed from (a lead of log 8N = log %d under q·k): %s", n, 8*n, strings.Join(ps, "; ")), over, nil
}

// softmaxSimScaled is softmaxSim under Definition def:attn: each
// Sweep's construction, its τ computed from the printed γ of q·k, runs
// with every head's scores divided by √d_key, built for each N ≤ s.maxN
// and checked on every input of every length n ≤ N in certified interval
// arithmetic. PROVED when every N keeps |c − v| ≤ 1/4 (y = v then follows
// from the rounding proof); REFUTED at the first N with a certified
// |c − v| > 1/4, saying which N held. The evidence gives d_key and the
// lead the printed τ leaves the top score.
func softmaxSimScaled(ss ...proofs.Sweep) (*proofs.Evidence, error) {
	worst := new(big.Rat)
	var parts []string
	top := 0
	var topKeys []int // d_key of the models built for the largest N
	for _, s := range ss {
		s.SqrtDKey = true
		cases := 0
		for _, t := range upTo(s) {
			res, err := softRun(t)
			if err != nil {
				return nil, err
			}
			if res.fail != "" {
				lead, _, err := leadText(t.MaxN, res.dKeys)
				if err != nil {
					return nil, err
				}
				held := "no smaller N"
				if t.MaxN > 1 {
					held = fmt.Sprintf("every N < %d holds (%d inputs, largest |c − v| ≤ %s)", t.MaxN, cases, decimal(worst, 4))
				}
				s := fmt.Sprintf("%s; %s; %s", res.fail, lead, held)
				return &proofs.Evidence{Verdict: proofs.Refuted, Summary: s, Explain: []string{res.fail, lead, held}}, nil
			}
			cases += res.cases
			if res.worst.Cmp(worst) > 0 {
				worst = res.worst
			}
			switch {
			case t.MaxN > top:
				top, topKeys = t.MaxN, slices.Clone(res.dKeys)
			case t.MaxN == top:
				for _, d := range res.dKeys {
					if !slices.Contains(topKeys, d) {
						topKeys = append(topKeys, d)
					}
				}
				sort.Ints(topKeys)
			}
		}
		parts = append(parts, fmt.Sprintf("%s, each N ≤ %d (%d inputs)", s.Describe(), s.MaxN, cases))
	}
	lead, over, err := leadText(top, topKeys)
	if err != nil {
		return nil, err
	}
	if over {
		lead += ": the lemma no longer gives 1/4, the certified check does"
	}
	round, err := roundProof()
	if err != nil {
		return nil, err
	}
	return &proofs.Evidence{Verdict: proofs.Proved,
		Summary: fmt.Sprintf("for each N, every input of every length n ≤ N (%s; %s), scores q·k/√d_key: |c − v| ≤ 1/4 on the whole enclosure (largest ≤ %s), y's enclosure contains v; %s; and %s, so y = v exactly",
			strings.Join(parts, "; "), ss[0].Precision, decimal(worst, 4), lead, round),
		Explain: append(parts, lead)}, nil
}

// ---------------------------------------------------------------------
// Edelman's lemma with γ read from q·k.

// edelmanScaled decides Lemma B.7 read with γ the gap of q·k (as the
// lookups quote it) and softmax taken of the scores q·k/√d_key of
// Definition def:attn: over the grid n ∈ ns, d_key ∈ ds, γ ∈ gammas, the
// worst vector (every other q·k at γ + 2^−20 below the top, inside the
// lemma's strict "<") has ‖hardmax − softmax‖₁ = 2S/(1 + S) with
// S = (n − 1)e^{−(γ + 2^−20)/√d_key}, enclosed at 128 bits and compared
// with 2n e^{−γ}. REFUTED with the first grid point where the enclosure
// lies above the bound; each point is also checked against the lemma
// applied to the scaled scores, 2n e^{−γ/√d_key}, which must hold (else
// an error: the arithmetic is wrong, not the paper).
func edelmanScaled(ns, ds []int64, gammas []string) (*proofs.Evidence, error) {
	eps := numeric.Lit(big.NewRat(1, 1<<20))
	var first string
	refuted, total := 0, 0
	for _, n := range ns {
		for _, d := range ds {
			for _, gs := range gammas {
				g := numeric.Lit(proofs.Q(gs))
				sd := numeric.Sqrt(numeric.LitInt(d))
				s := numeric.Mul(numeric.LitInt(n-1), numeric.Exp(numeric.Neg(numeric.Quo(numeric.Add(g, eps), sd))))
				norm := numeric.Quo(numeric.Mul(numeric.LitInt(2), s), numeric.Add(numeric.LitInt(1), s))
				printed := numeric.Mul(numeric.LitInt(2*n), numeric.Exp(numeric.Neg(g)))
				scaled := numeric.Mul(numeric.LitInt(2*n), numeric.Exp(numeric.Neg(numeric.Quo(g, sd))))
				nlo, nhi, err := norm.Enclose(128)
				if err != nil {
					return nil, err
				}
				plo, phi, err := printed.Enclose(128)
				if err != nil {
					return nil, err
				}
				_, shi, err := scaled.Enclose(128)
				if err != nil {
					return nil, err
				}
				if slo, _, _ := scaled.Enclose(128); nhi.Cmp(slo) > 0 {
					return nil, fmt.Errorf("n = %d, d_key = %d, γ = %s: ‖·‖₁ ≤ %s is not below 2n e^{−γ/√d_key} ≥ %s, against lemma.edelman", n, d, gs, decimal(nhi, 8), decimal(shi, 8))
				}
				total++
				switch {
				case nlo.Cmp(phi) > 0:
					refuted++
					if first == "" {
						first = fmt.Sprintf("n = %d, d_key = %d, γ = %s (every other q·k at γ + 2^−20 below the top, so every score of q·k/√d_key at (γ + 2^−20)/√d_key below): ‖hardmax − softmax‖₁ = 2S/(1 + S) ∈ [%s, %s] > 2n e^{−γ} ∈ [%s, %s] (certified, 128 bits)",
							n, d, gs, decimal(nlo, 8), decimal(nhi, 8), decimal(plo, 8), decimal(phi, 8))
					}
				case nhi.Cmp(plo) >= 0:
					return nil, fmt.Errorf("n = %d, d_key = %d, γ = %s: undecided at 128 bits", n, d, gs)
				}
			}
		}
	}
	grid := fmt.Sprintf("grid n ∈ %v, d_key ∈ %v, γ ∈ {%s}: %d of %d points %s 2n e^{−γ}; every point stays below 2n e^{−γ/√d_key}, the lemma applied to the scores softmax takes (their gap is γ/√d_key)", ns, ds, strings.Join(gammas, ", "), refuted, total, plural.Form(refuted, "exceeds", "exceed"))
	if first == "" {
		return &proofs.Evidence{Verdict: proofs.Holds, Summary: "no counterexample: " + grid}, nil
	}
	return &proofs.Evidence{Verdict: proofs.Refuted, Summary: first + "; " + grid, Explain: []string{first, grid}}, nil
}

var scaledClaims = []*proofs.Claim{
	claim("lemma.edelman.sqrt-dkey", secApprox,
		"Lemma B.7 with γ the gap of q·k, as the lookups quote it, and softmax of the scores q·k/√d_key: ‖hardmax(s) − softmax(s)‖₁ ≤ 2n e^{−γ}"+proofs.ReadScaled,
		"n ∈ {2, 3, 8}, d_key ∈ {2, 3, 4}, γ ∈ {1, 2, 4, 8}, the worst vectors (every other q·k just below the top by more than γ); enclosures at 128 bits", proofs.Refuted,
		func() (*proofs.Evidence, error) {
			return edelmanScaled([]int64{2, 3, 8}, []int64{2, 3, 4}, []string{"1", "2", "4", "8"})
		}),

	// The gaps the lookups state.
	claim("attn.lookup-onehot.gap.sqrt-dkey", secOneHot,
		"\"there is a minimum gap between the highest attention score and the next-highest attention score of γ = 1\""+proofs.ReadScaled,
		"lookup-onehot built for N ∈ {2, …, 12} (d_key = N): every query q ∈ [N] against every key position j ∈ [N]; exact, through squares", proofs.Refuted,
		func() (*proofs.Evidence, error) {
			return lookupGapScaled("lookup-onehot", nil, span(2, 12), func(int) *big.Rat { return big.NewRat(1, 1) }, false)
		}),
	claim("attn.lookup-ao.gap.sqrt-dkey", secAO,
		"\"The minimum gap between the attention scores q_i·k_{q_i} and q_i·k_j for j ≠ q_i is γ = 1 − 2ε\" (a lower bound)"+proofs.ReadScaled,
		"the family lookup-ao samples and checks for ε = 1/4, δ = 1/2, N ∈ {2, …, 8} (d_key = m, the family's dimension): every query q ∈ [N] against every key j ∈ [N]; exact, through squares", proofs.Refuted,
		func() (*proofs.Evidence, error) {
			return lookupGapScaled("lookup-ao", params("eps", "1/4", "delta", "1/2", "seed", "1"), span(2, 8), func(int) *big.Rat { return big.NewRat(1, 2) }, true)
		}),
	claim("attn.lookup-lh.gap.sqrt-dkey", secLH,
		"\"the minimum gap between the score at the desired position s_{i,q_i} and the score at other positions decreases with n\"; its value γ(N)/√d_key = (4 − lh(N−1)·lh(N))/2 ≈ 1/N⁴"+proofs.ReadScaled,
		"N ≤ 40, every q ≠ j ∈ [N]; d_key = 4 from the lookup-lh head; exact integer arithmetic (and interval enclosures for the values)", proofs.Holds,
		checkLookupLhGapSqrtDkey),
	claim("attn.lookup-qm.gap.sqrt-dkey", secQM,
		"\"the minimum gap between the score at the desired position s_{i,q_i} and the score at any other position s_{i,j} (j ≠ q_i) is γ = 1\""+proofs.ReadScaled,
		"lookup built for N ∈ {2, …, 32} (d_key = 2): every query q ∈ [N] against every key position j ∈ [N]; exact, through squares", proofs.Refuted,
		func() (*proofs.Evidence, error) {
			return lookupGapScaled("lookup", nil, span(2, 32), func(int) *big.Rat { return big.NewRat(1, 1) }, false)
		}),
	claim("attn.lookup-qm.scaled.sqrt-dkey", secQM,
		"\"2q_i j − j² … is uniquely maximized when j = q_i. This is true even if either q_i or k_j is scaled by some factor (for example, 1/i or 1/n)\", with the factor positive and the same for every key j of a query"+proofs.ReadScaled,
		"n ≤ 12, every position i ∈ [n] and query q_i ∈ [n]; on the query the factors 1/i, 1/n, n, 2^−64 and 2^64, on every key 1/n, 1/i and n²; d_key = 2 from the lookup head; exact", proofs.Holds,
		func() (*proofs.Evidence, error) { return qmScaledSqrtDKey(12) }),

	// Tie-breaking.
	claim("attn.tiebreak.exact.sqrt-dkey", secTie,
		"with scores that are maximal or below the maximum by more than γ, q̂_i = [q_i; γ], k̂_j = [k_j; t(j)] with t(j) = −1/j or j/n (rightmost), 1/j or −j/n (leftmost) makes average-hard attention select the rightmost (leftmost) maximum"+proofs.ReadScaled,
		"keys k_j ∈ {0,1,2} (base d_key = 1, gap 1 in both readings), tie-broken d_key = 2, values v_j ∈ {0,1}, every input of length n ≤ 3; each t, masks future and none, γ = 1 and γ = 1/2; AHAT; interval:64, every output an exact point", proofs.Holds,
		func() (*proofs.Evidence, error) { return scaledHard(iv, tieSweeps(3)...) }),
	claim("attn.tiebreak.softmax.sqrt-dkey", secTie,
		"the tie-broken head under softmax via §Simulating Average-Hard Attention with Soft Attention, τ from the tie-broken gap of q·k"+proofs.ReadScaled,
		"each t, future mask, γ = 1, built for each N ≤ 3 (d_key = 2), every input of length n ≤ N; interval:64; the rounding FFN by exact/cpwl", proofs.Holds,
		func() (*proofs.Evidence, error) { return softmaxSimScaled(tieSoftSweeps(3)...) }),
	claim("attn.cheatsheet.tie-breaking.smat.sqrt-dkey", secTie, cheatsheet+"Tie-breaking, bias ±1/(j+1): SMAT"+proofs.ReadScaled,
		"the bias ±1/(j+1) with the softmax simulation (τ from the gap γ/(N(N+1)) of q·k), N = 3 (d_key = 2), every input of length n ≤ 3, future mask, γ = 1; interval:64; the rounding FFN by exact/cpwl", proofs.Holds,
		func() (*proofs.Evidence, error) {
			return biasScaled(3, iv, []model.Mask{model.Future}, "1")
		}),

	// §Simulating Average-Hard Attention with Soft Attention.
	claim("attn.softmax-lookup.onehot.sqrt-dkey", secApprox,
		"W^Q′ = (1/τ) W^Q, τ = γ/log(8N) with the printed γ = 1: |c_i − v_{q_i}| ≤ 2N e^{−γ/τ} = 1/4, and GTZero_{1/2}(c_i − 1/4) = v_{q_i} (the one-hot lookup: recipe hardmax-softmax)"+proofs.ReadScaled,
		"each N ≤ 4 (d_key = N), every input of length n ≤ N; certified interval arithmetic (interval:64); the rounding FFN by exact/cpwl", proofs.Refuted,
		func() (*proofs.Evidence, error) {
			s := lookupSoft("lookup-onehot")
			s.MaxN = 4
			return softmaxSimScaled(s)
		}),
	claim("attn.softmax-lookup.ao.sqrt-dkey", secApprox,
		"the softmax simulation τ = γ/log(8N) of the almost orthogonal lookup, with the printed γ = 1 − 2ε: |c_i − v_{q_i}| ≤ 1/4 and GTZero_{1/2}(c_i − 1/4) = v_{q_i}"+proofs.ReadScaled,
		"the recipe's default ε = 1/4, δ = 1/2 (γ = 1/2, d_key = m = 267 at N = 2), and ε = 9/20 (γ = 1/10), δ = 9/10; each N ≤ 2 (d_key = m, the family's dimension), every input of length n ≤ N; interval:64; the rounding FFN by exact/cpwl", proofs.Refuted,
		func() (*proofs.Evidence, error) { return softmaxSimScaled(aoSoftSweeps()...) }),
	claim("attn.softmax-lookup.lh.sqrt-dkey", secApprox,
		"the softmax simulation τ = γ/log(8N) of the layernorm-hash lookup, with γ = γ(N) = 4 − lh(N−1)·lh(N) of q·k: |c_i − v_{q_i}| ≤ 1/4 and GTZero_{1/2}(c_i − 1/4) = v_{q_i}"+proofs.ReadScaled,
		"each N ≤ 2 (d_key = 4), every input of length n ≤ N; interval:64; the rounding FFN by exact/cpwl", proofs.Holds,
		func() (*proofs.Evidence, error) { return softmaxSimScaled(lookupSoft("lookup-lh")) }),
	claim("attn.softmax-lookup.qm.sqrt-dkey", secApprox,
		"the softmax simulation τ = γ/log(8N) of the quadratic-maximization lookup, with the printed γ = 1: |c_i − v_{q_i}| ≤ 1/4 and GTZero_{1/2}(c_i − 1/4) = v_{q_i}"+proofs.ReadScaled,
		"each N ≤ 3 (d_key = 2), every input of length n ≤ N; interval:64; the rounding FFN by exact/cpwl", proofs.Holds,
		func() (*proofs.Evidence, error) { return softmaxSimScaled(lookupSoft("lookup")) }),
	claim("attn.cheatsheet.index-lookup.smat.sqrt-dkey", secLookup, cheatsheet+"Index Lookup, \"lookup values at a particular index in the sequence\": SMAT, each lookup with τ from its printed γ"+proofs.ReadScaled,
		"the four lookups of §Index Lookup with the softmax simulation (y exact, |c − v| ≤ 1/4): one-hot for each N ≤ 4, qm for each N ≤ 3, ao (ε = 9/20) and lh for each N ≤ 2, every input of length n ≤ N; interval:64", proofs.Refuted,
		checkCheatsheetIndexLookupSmatSqrtDkey),
	claim("attn.cheatsheet.multi-head.smat.sqrt-dkey", secMulti, cheatsheet+"Multi-head, \"simulate multi-headed attention using a single head\": SMAT"+proofs.ReadScaled,
		"two quadratic-maximization heads (d_key = 2 each) simulated by two single-head layers (softmax simulation with the printed γ = 1, each head rounded), each N ≤ 3, every input of length n ≤ N; interval:64; the rounding FFN by exact/cpwl", proofs.Holds,
		func() (*proofs.Evidence, error) {
			return softmaxSimScaled(proofs.Sweep{Recipe: "multihead", Weighting: smat, MaxN: 3, Precision: iv})
		}),
}

// checkLookupLhGapSqrtDkey checks attn.lookup-lh.gap.sqrt-dkey.
func checkLookupLhGapSqrtDkey() (*proofs.Evidence, error) {
	d, err := proofs.RecipeDKey("lookup-lh", 2)
	if err != nil {
		return nil, err
	}
	return lhGap(40, d)
}

// checkCheatsheetIndexLookupSmatSqrtDkey checks attn.cheatsheet.index-lookup.smat.sqrt-dkey.
func checkCheatsheetIndexLookupSmatSqrtDkey() (*proofs.Evidence, error) {
	var fs []func() (*proofs.Evidence, error)
	for _, r := range lookups {
		s := lookupSoft(r)
		if r == "lookup-onehot" {
			s.MaxN = 4
		}
		fs = append(fs, func() (*proofs.Evidence, error) { return softmaxSimScaled(s) })
	}
	return all(fs...)
}

// span is lo, lo+1, …, hi.
func span(lo, hi int) []int {
	var ns []int
	for n := lo; n <= hi; n++ {
		ns = append(ns, n)
	}
	return ns
}
