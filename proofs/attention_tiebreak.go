package proofs

import (
	"fmt"
	"math/big"
	"strings"

	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/numeric"
	"github.com/transformer-cookbook/verify/recipes"
	"github.com/transformer-cookbook/verify/recipes/blocks"
	"github.com/transformer-cookbook/verify/recipes/stream"
)

// The claims of §Simulating Unique-Hard Attention with Average-Hard
// Attention (tie-breaking) and the cheat sheet's Tie-breaking cells.

// ---------------------------------------------------------------------
// §Simulating Unique-Hard Attention with Average-Hard Attention: the
// cheat sheet's bias ±1/(j+1).

// attnBiasModel is the tie-breaking construction with the cheat sheet's
// bias t(j) = sign/(j+1): keys k_j ∈ {0, 1, 2} with gap 1, values v_j,
// the base head q = 1, k = k_j, v = v_j, with q̂ = [q; γ], k̂ = [k; t(j)]
// (blocks.TieBreak), then GTZero_{1/2}(c − 1/4). Under SMAT the head is
// the softmax simulation with the tie-broken gap γ/(N(N+1)) (tied maxima
// at j < j′ ≤ N differ by γ(1/(j+1) − 1/(j′+1)) ≥ γ/(N(N+1)); other
// scores lie at least 1 − γ/2 below).
func attnBiasModel(sign int64, w model.Weighting, mask model.Mask, gamma *big.Rat, maxN int) (*model.Model, error) {
	base := &stream.Attn{Name: "base", In: []string{"k", "v", "1"}, Out: []string{"c"},
		Q: model.Ints([]int64{0, 0, 1}), K: model.Ints([]int64{1, 0, 0}), V: model.Ints([]int64{0, 1, 0}),
		Mask: mask, Weighting: model.AverageHardmax, Scale: model.NoScale}
	head := blocks.TieBreak(base, "1", "t", gamma)
	if w == model.Softmax {
		gap := new(big.Rat).Set(gamma)
		if maxN > 1 {
			gap.Quo(gap, big.NewRat(int64(maxN)*int64(maxN+1), 1))
		}
		var err error
		if head, err = blocks.SoftmaxSimulation(head, numeric.Lit(gap), maxN); err != nil {
			return nil, err
		}
	} else {
		head.Weighting = w
	}
	return stream.New(fmt.Sprintf("tiebreak-bias-%+d/(j+1)-%s", sign, recipes.WeightingAcronym(w)), "k", "v", "1", "t").
		Symbols(attnTieSymbols, func(s int) stream.Values {
			return stream.Values{"k": numeric.LitInt(int64(s / 2)), "v": numeric.LitInt(int64(s % 2))}
		}).
		Positions(fmt.Sprintf("(1, %+d/(j+1))", sign), func(i, n int) stream.Values {
			return stream.Values{"1": numeric.LitInt(1), "t": numeric.Frac(sign, int64(i)+1)}
		}).
		Then(head, blocks.Round01("c", "y")).Readout("y", "c").Model()
}

// attnUHATWant is leftmost (or rightmost) unique-hard attention on the
// keys k_j: v at the leftmost (rightmost) maximal k_j among the positions
// considered (j ≤ i under the future mask); bound, when set, bounds c.
func attnUHATWant(rightmost, future bool, bound *big.Rat) func(in []int) []attnWant {
	return func(in []int) []attnWant {
		want := make([]attnWant, len(in))
		for i := range in {
			last := len(in) - 1
			if future {
				last = i
			}
			best := 0
			for j := 1; j <= last; j++ {
				if k, kb := in[j]/2, in[best]/2; k > kb || k == kb && rightmost {
					best = j
				}
			}
			v := big.NewRat(int64(in[best]%2), 1)
			want[i] = attnWant{values: []*big.Rat{v, v}, bound: []*big.Rat{nil, bound}}
		}
		return want
	}
}

// attnBias decides the cheat sheet's tie-breaking bias ±1/(j+1) under w:
// +1/(j+1) must give leftmost and −1/(j+1) rightmost unique-hard
// attention, for both masks and γ ∈ gammas, on every input of length
// ≤ maxN. Under SMAT (certified intervals) c must be within 1/4 of v and
// y exactly v by the rounding proof; otherwise c and y exactly v.
func attnBias(w model.Weighting, maxN int, p string, masks []model.Mask, gammas ...string) (*Evidence, error) {
	return attnBiasRead(false, w, maxN, p, masks, gammas...)
}

// attnBiasScaled is attnBias under SMAT read under Definition def:attn:
// the same models, τ from the tie-broken gap of q·k, with every score
// divided by √d_key.
func attnBiasScaled(maxN int, p string, masks []model.Mask, gammas ...string) (*Evidence, error) {
	return attnBiasRead(true, attnSMAT, maxN, p, masks, gammas...)
}

// attnBiasRead is attnBias, with scaled the scores divided by √d_key.
func attnBiasRead(scaled bool, w model.Weighting, maxN int, p string, masks []model.Mask, gammas ...string) (*Evidence, error) {
	inputs := attnUpToLength(len(attnTieSymbols), maxN)
	var bound *big.Rat
	if w == model.Softmax {
		bound = blocks.SoftmaxBound()
	}
	runs := 0
	var dKeys []int
	for _, sign := range []int64{1, -1} {
		for _, mask := range masks {
			for _, g := range gammas {
				m, err := attnBiasModel(sign, w, mask, q(g), maxN)
				if err != nil {
					return nil, err
				}
				if scaled {
					m = attnSqrtDKeyModel(m)
					dKeys = attnDKeys(m)
				}
				want := attnUHATWant(sign < 0, mask == model.Future, bound)
				if w == model.Softmax {
					// y is checked through c and the rounding proof: an
					// interval GTZero encloses its two ReLU branches apart.
					inner := want
					want = func(in []int) []attnWant {
						ws := inner(in)
						for i := range ws {
							ws[i].values, ws[i].bound = ws[i].values[1:], ws[i].bound[1:]
						}
						return ws
					}
					m.Output.Labels, m.Output.W = m.Output.Labels[1:], attnDropRow(m.Output.W)
				}
				fail, cases, err := attnCheckInputs(m, p, inputs, want)
				if err != nil {
					return nil, err
				}
				if fail != "" {
					s := fmt.Sprintf("mask %s, γ = %s: %s", mask, g, fail)
					if scaled {
						lead, _, err := attnLeadText(maxN, dKeys)
						if err != nil {
							return nil, err
						}
						s += "; " + lead
					}
					return &Evidence{Verdict: Refuted, Summary: s, Explain: []string{s}}, nil
				}
				runs += cases
			}
		}
	}
	var ms []string
	for _, m := range masks {
		ms = append(ms, m.String())
	}
	sum := fmt.Sprintf("+1/(j+1) gives leftmost and −1/(j+1) rightmost unique-hard attention under %s, mask %s, γ ∈ {%s} (base gap 1): every input of length ≤ %d, %d runs, %s", recipes.WeightingAcronym(w), strings.Join(ms, " and "), strings.Join(gammas, ", "), maxN, runs, p)
	if w == model.Softmax {
		round, err := attnRoundProof()
		if err != nil {
			return nil, err
		}
		sum += fmt.Sprintf("; softmax simulation with 1/τ = log(8N)·N(N+1)/γ, N = %d: |c − v| ≤ 1/4 certified, and %s, so y = v", maxN, round)
		if scaled {
			lead, over, err := attnLeadText(maxN, dKeys)
			if err != nil {
				return nil, err
			}
			if over {
				lead += ": the lemma no longer gives 1/4, the certified check does"
			}
			sum = fmt.Sprintf("scores q·k/√d_key (%s): %s; %s", attnDKeyText(dKeys), sum, lead)
		}
	} else {
		sum += "; y and c exactly v"
	}
	return &Evidence{Verdict: Proved, Summary: sum}, nil
}

// attnDropRow drops the first row of a readout matrix.
func attnDropRow(w model.Matrix) model.Matrix {
	out := model.Zeros(w.Rows-1, w.Cols)
	for r := 1; r < w.Rows; r++ {
		for c := 0; c < w.Cols; c++ {
			out.Set(r-1, c, w.At(r, c))
		}
	}
	return out
}

// attnTieSweeps is the tiebreak recipe's sweeps: each of the four terms,
// both masks, and γ = 1 (the base scores' gap, the boundary of the
// section's strict assumption) and γ = 1/2 (inside it), under AHAT.
func attnTieSweeps(maxN int) []sweep {
	var ss []sweep
	for _, t := range []string{"-1/j", "1/j", "j/n", "-j/n"} {
		for _, mask := range []string{"future", "none"} {
			for _, g := range []string{"1", "1/2"} {
				ss = append(ss, sweep{recipe: "tiebreak", weighting: attnAHAT, maxN: maxN, params: map[string]string{"t": t, "mask": mask, "gamma": g}})
			}
		}
	}
	return ss
}

// attnTieSoftSweeps is the tiebreak recipe under SMAT for each term,
// future mask, γ = 1, built for each N ≤ maxN.
func attnTieSoftSweeps(maxN int) []sweep {
	var ss []sweep
	for _, t := range []string{"-1/j", "1/j", "j/n", "-j/n"} {
		ss = append(ss, sweep{recipe: "tiebreak", weighting: attnSMAT, maxN: maxN, precision: attnIV, params: attnParams("t", t)})
	}
	return ss
}

func init() {
	Register(
		// §Simulating Unique-Hard Attention with Average-Hard Attention.
		attnClaim("attn.tiebreak.exact", attnSecTie,
			"with scores that are maximal or below the maximum by more than γ, q̂_i = [q_i; γ], k̂_j = [k_j; t(j)] with t(j) = −1/j or j/n (rightmost), 1/j or −j/n (leftmost) makes average-hard attention select the rightmost (leftmost) maximum"+attnReadQK,
			"keys k_j ∈ {0,1,2} (gap 1), values v_j ∈ {0,1}, every input of length n ≤ 3; each t, masks future and none, γ = 1 (gap exactly γ, outside the strict assumption) and γ = 1/2; AHAT; exact", Holds,
			attnSweepEvidence(attnTieSweeps(3)...)),
		attnClaim("attn.tiebreak.softmax", attnSecTie,
			"the tie-broken head under softmax (cheat sheet: Tie-breaking works under SMAT), via §Simulating Average-Hard Attention with Soft Attention with the tie-broken gap"+attnReadQK,
			"each t, future mask, γ = 1, built for each N ≤ 3, every input of length n ≤ N; certified interval arithmetic (interval:64); the rounding FFN by exact/cpwl", Holds,
			func() (*Evidence, error) { return attnSoftmaxSim(attnTieSoftSweeps(3)...) }),

		// The cheat sheet (tab:sa_cheatsheet, see attnCheatsheet): Tie-breaking.
		attnClaim("attn.cheatsheet.tie-breaking.ahat", attnSecTie, attnCheatsheet+"Tie-breaking: \"add a tiny bias (±1/(j+1)) to scores so softmax emulates left- or right-hardmax\": AHAT",
			"the bias ±1/(j+1) (not one of the section's four terms) on keys k_j ∈ {0,1,2}, values v_j ∈ {0,1}, every input of length n ≤ 3, masks future and none, γ ∈ {1, 1/2}; exact", Holds,
			func() (*Evidence, error) {
				return attnBias(attnAHAT, 3, "exact", []model.Mask{model.Future, model.NoMask}, "1", "1/2")
			}),
		attnClaim("attn.cheatsheet.tie-breaking.smat", attnSecTie, attnCheatsheet+"Tie-breaking, bias ±1/(j+1): SMAT"+attnReadQK,
			"the bias ±1/(j+1) with the softmax simulation (gap γ/(N(N+1))), N = 3, every input of length n ≤ 3, future mask, γ = 1; interval:64; the rounding FFN by exact/cpwl", Holds,
			func() (*Evidence, error) { return attnBias(attnSMAT, 3, attnIV, []model.Mask{model.Future}, "1") }),
		attnClaim("attn.cheatsheet.tie-breaking.uhat", attnSecTie, attnCheatsheet+"Tie-breaking is not listed for UHAT, which needs none; the bias ±1/(j+1) under UHAT still selects the position it is meant to (it overrides UHAT's own direction)",
			"keys k_j ∈ {0,1,2}, values v_j ∈ {0,1}, every input of length n ≤ 3, masks future and none, γ ∈ {1, 1/2}; leftmost and rightmost UHAT; exact", Holds,
			func() (*Evidence, error) {
				return attnAll(func() (*Evidence, error) {
					return attnBias(attnUHAT, 3, "exact", []model.Mask{model.Future, model.NoMask}, "1", "1/2")
				}, func() (*Evidence, error) {
					return attnBias(attnUHATRight, 3, "exact", []model.Mask{model.Future, model.NoMask}, "1", "1/2")
				})
			}),
	)
}
