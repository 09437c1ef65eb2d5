package attention

import (
	"fmt"
	"math/big"
	"sort"
	"strings"

	"github.com/transformer-cookbook/verify/exact/cpwl"
	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/proofs"
	"github.com/transformer-cookbook/verify/recipes"
	"github.com/transformer-cookbook/verify/recipes/blocks"
)

// The claims of §Predecessor and the cheat sheet's Predecessor cells.

// ---------------------------------------------------------------------
// §Predecessor.

// predOddEven checks the two heads of §Predecessor inside recipe:
// at odd i > 1, pred.odd = v_{i−1}; at even i, pred.even = v_{i−1}; every
// input of length ≤ maxN, exactly, read from the residual stream after
// the layer. Under rightmost UHAT, pred-literal holds the paper's heads
// as printed; under AHAT they need the tie-breaking term, which only the
// corrected pred adds.
func predOddEven(recipe string, maxN int, w model.Weighting, params map[string]string) (*proofs.Evidence, error) {
	r, err := recipes.Get(recipe)
	if err != nil {
		return nil, err
	}
	con, err := r.Construct(w, maxN, params)
	if err != nil {
		return nil, err
	}
	runner, err := runner(con.Model, "exact")
	if err != nil {
		return nil, err
	}
	inputs := upToLength(len(con.Model.Alphabet), maxN)
	for _, in := range inputs {
		res, err := runner.Run(in, true)
		if err != nil {
			return nil, err
		}
		at := map[string]int{}
		for k, c := range res.Trace.Components {
			at[c] = k
		}
		emb, last := res.Trace.States[0], res.Trace.States[len(res.Trace.States)-1]
		for i := 2; i <= len(in); i++ {
			head := "pred.odd"
			if i%2 == 0 {
				head = "pred.even"
			}
			want, ok := emb.Vectors[i-2][at["v"]].Rat()
			if !ok {
				return nil, fmt.Errorf("v is not exact")
			}
			if got := last.Vectors[i-1][at[head]]; !got.Equals(want) {
				s := fmt.Sprintf("%s under %s on %q: at i = %d %s = %s, want v_%d = %s", recipe, recipes.WeightingAcronym(w), symbols(con.Model, in), i, head, got.Text, i-1, want.RatString())
				return &proofs.Evidence{Verdict: proofs.Refuted, Summary: s, Explain: []string{s}}, nil
			}
		}
	}
	return &proofs.Evidence{Verdict: proofs.Proved, Summary: fmt.Sprintf("pred.odd = v_{i−1} at every odd i > 1 and pred.even = v_{i−1} at every even i, on every input of length ≤ %d (%d inputs, v ∈ {0, 1/2, 1}, exact, %s, %s%s)", maxN, len(inputs), recipe, recipes.WeightingAcronym(w), paramText(params))}, nil
}

func paramText(params map[string]string) string {
	var ps []string
	for k, v := range params {
		ps = append(ps, k+" = "+v)
	}
	if len(ps) == 0 {
		return ""
	}
	sort.Strings(ps)
	return ", " + strings.Join(ps, ", ")
}

var predecessorClaims = []*proofs.Claim{
	// §Predecessor.
	claim("attn.pred.exact", secPred,
		"pred((1, (−1)^1, v_1), …, (1, (−1)^n, v_n)) = (0, v_1, …, v_{n−1}) by pred.odd, pred.even, first and a conditional (with if(first, 0, ·) added; see attn.pred.literal)",
		"every input of length n ≤ 5 with v_i ∈ {0, 1/2, 1}; rightmost UHAT, and AHAT with the tie-breaking terms −1/j and j/n; exact", proofs.Holds,
		sweepEvidence(proofs.Sweep{Recipe: "pred", Weighting: uhatRight, MaxN: 5},
			proofs.Sweep{Recipe: "pred", Weighting: ahat, MaxN: 5, Params: params("t", "-1/j")},
			proofs.Sweep{Recipe: "pred", Weighting: ahat, MaxN: 5, Params: params("t", "j/n")})),
	claim("attn.pred.literal", secPred,
		"as printed: pred(x_1, …, x_n) = if(GTZero_1((−1)^i), pred.even(x), pred.odd(x)) outputs (0, v_1, …, v_{n−1}) (\"If i = 1, we output 0\")",
		"every input of length n ≤ 6 with v_i ∈ {0, 1/2, 1} (pred-literal, the printed construction; what it computes at each length); rightmost UHAT, the section's, and AHAT, the cheat sheet's other weighting, with the printed heads (no tie-breaking); exact", proofs.Refuted,
		func() (*proofs.Evidence, error) {
			return proofs.LiteralEvidence(proofs.Sweep{Recipe: "pred-literal", Weighting: uhatRight, MaxN: 6},
				proofs.Sweep{Recipe: "pred-literal", Weighting: ahat, MaxN: 6})
		}),
	claim("attn.pred.odd-even", secPred,
		"pred.odd (W^Q = [1 0 0], W^K = [0 1 0], W^V = [0 0 1]): \"If i is odd, the result of pred.odd is v_{i−1}\"; pred.even (W^K = [0 −1 0]): \"if i is even, the result of pred.even is v_{i−1}\" (future-masked, rightmost UHAT)",
		"i ≥ 2, every input of length n ≤ 5 with v_i ∈ {0, 1/2, 1}; rightmost UHAT (the paper's; the heads of pred-literal), and AHAT with the tie-breaking term −1/j (the heads of pred); exact", proofs.Holds,
		func() (*proofs.Evidence, error) {
			return all(
				func() (*proofs.Evidence, error) { return predOddEven("pred-literal", 5, uhatRight, nil) },
				func() (*proofs.Evidence, error) { return predOddEven("pred", 5, ahat, params("t", "-1/j")) })
		}),
	claim("attn.pred.even-test", secPred,
		"\"we can check if i is even using GTZero_1((−1)^i)\"",
		"x = (−1)^i ∈ {−1, 1}, decided on all of x ≤ 0 and x ≥ 1", proofs.Proved,
		checkPredEvenTest),
	claim("attn.pred-strict.exact", secPred,
		"with strict future masking and the positional encoding i/n, \"the i−1 position will automatically be selected by UHAT\" (position 1 attends to nothing and outputs 0, a \"special value\")",
		"every input of length n ≤ 5 with v_i ∈ {0, 1/2, 1}; UHAT (leftmost), rightmost UHAT and AHAT; exact", proofs.Holds,
		sweepEvidence(sweepsEach("pred-strict", 5, nil, "", uhat, uhatRight, ahat)...)),

	// The cheat sheet (tab:sa_cheatsheet, see cheatsheet): Predecessor.
	claim("attn.cheatsheet.predecessor.ahat", secPred, cheatsheet+"Predecessor, \"each token retrieves the content of the previous position (i−1)\": AHAT",
		"pred with the tie-breaking terms −1/j and j/n, and pred-strict, every input of length n ≤ 5, v_i ∈ {0, 1/2, 1}; exact", proofs.Holds,
		sweepEvidence(proofs.Sweep{Recipe: "pred", Weighting: ahat, MaxN: 5, Params: params("t", "-1/j")},
			proofs.Sweep{Recipe: "pred", Weighting: ahat, MaxN: 5, Params: params("t", "j/n")},
			proofs.Sweep{Recipe: "pred-strict", Weighting: ahat, MaxN: 5})),
	claim("attn.cheatsheet.predecessor.uhat", secPred, cheatsheet+"Predecessor: UHAT",
		"pred under rightmost UHAT (the section's), pred-strict under leftmost and rightmost UHAT; every input of length n ≤ 5, v_i ∈ {0, 1/2, 1}; exact", proofs.Holds,
		sweepEvidence(proofs.Sweep{Recipe: "pred", Weighting: uhatRight, MaxN: 5},
			proofs.Sweep{Recipe: "pred-strict", Weighting: uhat, MaxN: 5}, proofs.Sweep{Recipe: "pred-strict", Weighting: uhatRight, MaxN: 5})),
	claim("attn.cheatsheet.predecessor.smat", secPred, cheatsheet+"Predecessor is not listed for SMAT: §Predecessor's strict-mask construction run under softmax (τ = 1) does not retrieve x_{i−1}",
		"pred-strict, every input of length n ≤ 4, v_i ∈ {0, 1/2, 1}; interval:64, a witness certified by an enclosure excluding the reference", proofs.Proved,
		unlisted(proofs.Sweep{Recipe: "pred-strict", Weighting: smat, MaxN: 4, Precision: iv})),
}

// checkPredEvenTest checks attn.pred.even-test.
func checkPredEvenTest() (*proofs.Evidence, error) {
	f := blocks.GTZeroEps("s", "even", big.NewRat(1, 1), new(big.Rat))
	row := func(xs ...string) []string { return xs }
	r := func(rows ...[]string) [][]string { return rows }
	low, high := proofs.Halfspaces(1, row("1", "0")), proofs.Halfspaces(1, row("-1", "-1"))
	ev, err := proofs.ProveFFN(f, low, []cpwl.Piece{proofs.Piece(low, proofs.Affine(r(row("0")), "0"))})
	if err != nil || ev.Verdict != proofs.Proved {
		return ev, err
	}
	ev2, err := proofs.ProveFFN(f, high, []cpwl.Piece{proofs.Piece(high, proofs.Affine(r(row("0")), "1"))})
	if err != nil || ev2.Verdict != proofs.Proved {
		return ev2, err
	}
	return &proofs.Evidence{Verdict: proofs.Proved, Summary: "GTZero_1(x) = 0 on all of x ≤ 0 (so at (−1)^i = −1, odd i) and 1 on all of x ≥ 1 (so at even i): " + ev.Summary + "; " + ev2.Summary}, nil
}
