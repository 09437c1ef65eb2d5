package recipes

import "github.com/transformer-cookbook/verify/model"

// The induction heads of §Putting It All Together (§Induction Heads,
// unlabelled in the paper): Induct: Σ⁺ → Σ⁺, "if the current symbol is A
// and the previous occurrence of A was followed by a B, then predict the
// next symbol as B". Both variants read a string over an alphabet of
// single letters (parameter alphabet, default ABCD), embed each symbol
// one-hot (WE(σ) = e_σ, components e_A, e_B, …), and output one symbol
// per position through the argmax unembedding (§Unembedding) over one
// logit per symbol.
//
// Both retrieve the predecessor symbol with the strict-masking variant of
// §Predecessor (recipe pred-strict; the paper's Pred "returning 0 when
// none exists", through the Routing Lemma for the |Σ| components): one
// head, strict future mask (j < i),
// position encoding i/n, W^Q = W^K = [i/n], W^V = I from e to pred, so
// that s_ij = (i/n)(j/n) is uniquely maximal over j < i at j = i − 1 and
// position 1, which sees nothing, gets 0, as the paper asks ("returning
// 0 when none exists"). The maximum is unique, so the head is exact under
// both weightings used here (rightmost UHAT and AHAT).
//
// This file says what the paper says of each recipe; induction_program.go
// builds the weights (with the feed-forward compositions of
// induction_routing.go), induction_reference.go computes the intended
// function, and induction_inputs.go reads the alphabet and draws the
// strings to check.

// inductionAlphabetParam is the alphabet parameter of the induction heads.
var inductionAlphabetParam = Param{Name: "alphabet", Default: "ABCD",
	Doc: "the alphabet Σ: distinct ASCII letters in increasing (alphabetical) order, each a symbol, e.g. ABC"}

// inductionRecent is Most-Recent Induction (§Induction Heads): at
// position i the symbol that followed the rightmost earlier occurrence of
// x_i, and x_i itself when there is none:
//
//	Induct_rightmost(x)_i = x_{j*} with j* = max{j ≤ i : j ≥ 2, x_{j−1} = x_i}, or x_i if that set is empty,
//
// e.g. Induct_rightmost(ACABDACDCA) = ACCBDBAADC.
//
// Stream: e_σ (WE), i/n (position), pred_σ (Pred, see above), ret_σ
// (the retrieved symbol). The induction head: future mask (j ≤ i),
// q_i = WE(x_i), k_j = Pred(x_j), v_j = WE(x_j), i.e. W^Q selects e,
// W^K selects pred, W^V copies e to ret, scores not scaled. Then
// s_ij = [x_{j−1} = x_i] (0 at j = 1, where pred = 0): 1 at every j that
// follows an occurrence of x_i, and 0 elsewhere. Rightmost UHAT (the
// paper's choice) returns e_{x_{j*}}; if no j scores 1, every score is 0
// and the rightmost position j = i returns e_{x_i}, the paper's "if none
// exists, we predict the current symbol". Under AHAT the head gets the
// rightmost tie-breaking term of §Simulating Unique-Hard Attention with
// Average-Hard Attention (q̂ = [q; γ], k̂ = [k; t(j)], γ = 1 since the
// scores are 0 or 1, t(j) = j/n (the position component i/n itself) or
// −1/j), which selects the same position. The logits are W_out h =
// ret, the one-hot e_{Induct(x)_i}: exact, with a unique maximum.
//
// As printed, the paper writes "k_i = WE(x_i), q_j = Pred(x_j)": the key
// at the attending position and the query at the attended one, swapped
// relative to the attention definition, where position i's query meets
// position j's key. Taken literally (q_i = Pred(x_i), k_j = WE(x_j)) the
// head retrieves x_{i−1}; that is induction-recent-literal. (The paper
// also says attention "will be maximized at all positions with the same
// symbol as x_i"; it is maximised at the positions that follow one.)
//
// Domain: every string over Σ, any n. Output: the symbol, exact. Width
// 3|Σ| + 1 under UHAT-right (e, i/n, pred, ret), plus 1 (the constant
// component of the tie-breaking query) under AHAT with t = j/n, plus 2
// with t = −1/j. Two layers, one head each, no feed-forward sublayer.
var inductionRecent = &Recipe{
	Name:       "induction-recent",
	Title:      "most-recent induction head: at each position, the symbol that followed the rightmost earlier occurrence of the current symbol (the current symbol if none)",
	Section:    "Most-Recent Induction",
	Label:      "",
	Domain:     "every string over the alphabet (single letters), any n",
	Weightings: []model.Weighting{model.RightHardmax, model.AverageHardmax},
	Exact:      true,
	Width:      "3|Σ| + 1 (e, i/n, pred, ret) under UHAT-right; 3|Σ| + 2 under AHAT with t = j/n (+1, the constant 1), 3|Σ| + 3 with t = −1/j",
	MinN:       1,
	// Under UHAT-right nothing rounds that matters: the induction scores
	// are 0 or 1, and the Pred scores (i/n)(j/n) increase with j, so their
	// rounded maximum, ties going right, stays at j = i − 1 (measured:
	// every sweep to 8192 passes at fp16, bf16, fp32, fp64). Under AHAT
	// the tie-breaking term fails first. Measured first failures (seeded
	// sweeps, 8 strings a length up to 64, fewer above): t = j/n, fp16
	// at n = 713 (571 passed), bf16 at 97 (78 passed), fp32 and fp64
	// none to 8192; t = −1/j, fp16 at 63, bf16 at 27, fp32 at 4241 (3393
	// passed), fp64 none to 8192; bigfloat 24 and 53 none to 2048.
	DefaultMaxN: 2048,
	Params:      inductionRecentParams,
	Build:       func(cfg Config) (*Construction, error) { return buildInductionRecent(cfg, false) },
}

// inductionRecentLiteral is Most-Recent Induction as printed
// (§Most-Recent Induction, cookbook .tex lines 2356–2379):
//
//   - WE one-hot (l. 2368–2369);
//   - Pred, "the pred construction from §Predecessor … (returning 0 when
//     none exists)" (l. 2370): the section's strict-masking variant with
//     positional encoding i/n (l. 1690–1696), whose first position
//     returns the special value 0, as inductionRecent (the section's
//     other construction returns v_1 at i = 1; see pred-literal);
//   - the induction head with "k_i = WE(x_i), q_j = Pred(x_j), and
//     v_j = WE(x_j)" (l. 2375): the key of every position p is WE(x_p)
//     and its query Pred(x_p), so at the attending position i the query
//     is Pred(x_i) and at the attended position j the key is WE(x_j);
//   - "right-most unique hard attention (say, using §Simulating
//     Unique-Hard Attention with Average-Hard Attention)" (l. 2377):
//     rightmost UHAT, or AHAT with the rightmost tie-breaking term, as
//     in inductionRecent.
//
// What is wrong: the scores are then s_ij = [x_j = x_{i−1}], which the
// rightmost j ≤ i maximises at j = i − 1 (or at j = i when x_i = x_{i−1},
// holding the same symbol): the head outputs the previous symbol x_{i−1}
// (and x_1 at i = 1, where every score is 0), not the induction. On "AB"
// it outputs "AA" instead of "AB"; on the paper's example ACABDACDCA it
// outputs AACABDACDC instead of ACCBDBAADC (l. 2362, 2379). The corrected
// recipe, induction-recent, swaps the query and key.
//
// Domain: inductionRecent's, every string over Σ, any n.
var inductionRecentLiteral = variant(inductionRecent, func(r *Recipe) {
	r.Name = "induction-recent-literal"
	r.Title = "most-recent induction head with the printed k_i = WE(x_i), q_j = Pred(x_j), which retrieves the previous symbol instead"
	r.Build = func(cfg Config) (*Construction, error) { return buildInductionRecent(cfg, true) }
})

var inductionRecentParams = []Param{inductionAlphabetParam,
	{Name: "t", Default: "j/n", Doc: "under AHAT, the rightmost tie-breaking term t(j) of §Simulating Unique-Hard Attention with Average-Hard Attention: j/n (the position component i/n) or -1/j (unused under UHAT-right)"}}

// inductionFrequent is Most-Frequent Induction (§Induction Heads): at
// position i, with σ = x_i, the symbol σ′ that most often follows σ in
// the bigrams x_{j−1}x_j ending at j ≤ i, ties broken alphabetically, and
// σ itself when σ has no follower yet:
//
//	count_{σσ′}(i) = #{j : 2 ≤ j ≤ i, x_{j−1} = σ, x_j = σ′},
//	Induct_frequent(x)_i = the alphabetically first σ′ maximising count_{x_i σ′}(i), or x_i if Σ_σ′ count_{x_i σ′}(i) = 0,
//
// e.g. Induct_frequent(ACABDACDCA) = ACCBDBAAAC (the fallback gives
// positions 1, 2, 4 and 5, where A, C, B, D have no follower yet).
//
// The paper states no fallback for this variant, and its comparison
// stage alone cannot produce its example: when x_i has no follower every
// count ties at 0, every σ′ passes the check, and the alphabetically
// first, A, is returned: ACABDACDCA would give AACAABAAAC (positions 2,
// 4, 5 wrong). The fallback is the one the paper states for most-recent
// induction ("if none exists, we predict the current symbol"), and it
// reproduces the printed example.
//
// The construction follows the paper's steps, with the counting step
// corrected and the fallback added (see induction-frequent-literal):
//
//  1. WE one-hot (e_σ), and Pred (pred_σ, as above): the bigram
//     (e_{x_{i−1}}, e_{x_i}) at position i.
//  2. A feed-forward layer writes the bigram indicators
//     [σσ′]_j = pred_σ ∧ e_σ′ = [x_{j−1} = σ ∧ x_j = σ′], |Σ|² of them
//     (ff_φ of §Boolean Functions for ∧, with the hidden units whose
//     output weight φ(ξ) is 0 dropped: ReLU(a + b − 1)).
//  3. Avg← (§Average: W^Q = W^K = 0, W^V = I, future mask) averages them:
//     #σσ′/i = count_{σσ′}(i)/i, exactly, under AHAT.
//  4. Comparisons (§Comparisons), ε = 1/N, each reading a difference of
//     counts through the Routing Lemma (f ∘ R): [σ:σ′≥σ″] =
//     GEZero_ε(#σσ′/i − #σσ″/i) and [σ:σ′>σ″] = GTZero_ε(#σσ′/i −
//     #σσ″/i), and has_σ = GTZero_ε(Σ_σ′ #σσ′/i). Differences of counts
//     are integers over i: for i ≤ n ≤ N one ≥ 0 gives GEZero 1 and one
//     ≤ −1/i ≤ −ε gives 0; one ≤ 0 gives GTZero 0 and one ≥ 1/i ≥ ε
//     gives 1; the sum is 0 or ≥ 1/i. So all are exact, but only up to
//     the length N the weights are built for (nonuniform).
//  5. One feed-forward layer writes logit_σ′ = Σ_σ best_σσ′ + fb_σ′, with
//     best_σσ′ = e_σ ∧ has_σ ∧ ⋀_{σ″≠σ′} cmp_σσ′σ″ and fb_σ′ = e_σ′ ∧
//     ¬has_σ′ (ff_φ for each, pruned as above: ReLU(Σ x − (m − 1)) and
//     ReLU(e − has); their parallel composition summed by the Routing
//     Lemma's L = [1 … 1]). Only σ = x_i can contribute, so logit_σ′ is
//     1 for the selected follower of x_i (or for x_i when it has none)
//     and 0 for the others.
//
// The paper checks, for each σ′, ⋀_{σ″≠σ′} count_{σσ′} ≥ count_{σσ″} and
// "returns the alphabetically first σ′ for which this is true". With
// tiebreak=comparisons (the default) the comparison against every σ″
// before σ′ is strict (cmp = [σ:σ′>σ″]), so exactly the alphabetically
// first maximiser passes: the logits are one-hot, and the argmax
// unembedding has a unique maximum with gap 1. With tiebreak=argmax every
// comparison is ≥, every maximiser gets logit 1, and the choice among
// them is left to the argmax unembedding taking the leftmost maximum
// (model.Argmax; §Unembedding says argmax and leaves ties open). Both are
// exact; but at floating point the tied logits of the argmax variant are
// decided by rounding residues. A conjunction for σ ≠ x_i sums e_σ = 0
// and m − 1 inputs equal to 1, which lands exactly on its kink
// (ReLU(0)), so a comparison rounded above 1 leaks into the logits: at
// fp32 with N = 8, at position 6 of AABCBA (A is followed by A once and
// B once) logit_B = 1 + 2^−22 (leaked from the row of C) beats
// logit_A = 1, and the output is B instead of A. With one-hot logits
// such residues (a few ulps) cannot change the maximum.
//
// Domain: every string over Σ of length n ≤ N. Exact under AHAT (uniform
// attention needs averaging; the predecessor head's maximum is unique).
// Width Θ(|Σ|³): e, pred, has, logit (|Σ| each), i/n, the bigrams and
// counts (|Σ|² each), and the |Σ|²(|Σ| − 1) pairwise comparisons the
// paper's ⋀_{σ″≠σ′} asks for: |Σ|³ + |Σ|² + 4|Σ| + 1 in all (49 for
// |Σ| = 3, 97 for |Σ| = 4). Three layers (attention in the first two,
// one head each).
var inductionFrequent = &Recipe{
	Name:       "induction-frequent",
	Title:      "most-frequent induction head: at each position, the most frequent follower of the current symbol so far (alphabetically first among ties; the current symbol if none)",
	Section:    "Most-Frequent Induction",
	Label:      "",
	Domain:     "every string over the alphabet (single letters) of length n ≤ N",
	Weightings: []model.Weighting{model.AverageHardmax},
	Exact:      true,
	Width:      "|Σ|³ + |Σ|² + 4|Σ| + 1 (e, i/n, pred, bigrams, counts, |Σ|²(|Σ|−1) comparisons, has, logits)",
	MinN:       1,
	// The weights depend on N (ε = 1/N), so a sweep to N checks the model
	// built for that N. The comparisons compute N·x − N·(x − ε) with x up
	// to 1: two terms of size N whose difference is 1, so a format with a
	// p-bit significand errs by about N·2^−p there. Measured (seeded
	// sweeps to n = N): fp16 passes for every N tried up to 512 (8, 10,
	// 12, 16, 20, 24, 32, 48, 64, 100, 128, 200, 256, 300, 400, 512) and
	// fails for N = 640 (at n = 18), 768 (5), 896 (8), 1024 (891); bf16
	// passes for N = 8 … 64 (the same list) and fails for 80 (at n = 18),
	// 96 (10), 100 (10), 112 (3), 128 (51), 200 (3); fp32 and fp64 pass
	// for N up to 4096, bigfloat 24 and 53 up to 1024 (the largest tried).
	DefaultMaxN: 256,
	Params:      inductionFrequentParams,
	Build:       func(cfg Config) (*Construction, error) { return buildInductionFrequent(cfg, inductFrequentPrinted{}) },
}

// inductionFrequentLiteral is Most-Frequent Induction as printed
// (§Most-Frequent Induction, cookbook .tex lines 2383–2451):
//
//   - WE one-hot and Pred "returning 0 when none exists" (l. 2393–2394),
//     the strict-masking predecessor of §Predecessor, as in
//     inductionFrequent: the bigram at position j is
//     Bigram(x_j) = [e_{x_j}; e_{x_{j−1}}], current symbol on top, as the
//     paper prints it (l. 2399–2438);
//   - the counting step (l. 2440–2443): "the construction in §Average can
//     be used to count the occurrences of each bigram σ1σ2 up to each
//     position, using W^Q = [e_σ1; e_σ2], W^K = Bigram(x_j), and
//     W^V = 1": one future-masked AHAT head per bigram, whose query is
//     the constant [e_σ1; e_σ2] (W^Q applied to a constant component 1),
//     key [e; pred] and value the constant 1, written to the count
//     component #σ1σ2/i;
//   - the comparison stage (l. 2448–2449) as printed, without a fallback:
//     for σ = x_i, every σ′ with ⋀_{σ″≠σ′} BigramCount_σσ′ ≥
//     BigramCount_σσ″, by GEZero_ε (§Comparisons, ε = 1/N) on each
//     difference, logit_σ′ = Σ_σ e_σ ∧ ⋀_{σ″≠σ′} [σ:σ′≥σ″]; and "we
//     return the alphabetically first σ′ for which this is true" by the
//     argmax unembedding, whose leftmost maximum among the logits of the
//     passing σ′ (all 1) is the alphabetically first. This is the default
//     tiebreak=argmax: every comparison is the printed ≥. (With
//     tiebreak=comparisons, induction-frequent's default, the comparisons
//     against earlier σ″ are strict instead, which selects the same σ′
//     but is not the printed check.)
//
// What is wrong: hard attention averages V = 1 over the maximal positions
// (and softmax over all of them, with weights summing to 1), so every
// "count" is 1 at every position, whatever the string. The head selects
// the positions of a bigram (of the reversed bigram σ2σ1, in fact, with
// the printed Bigram order: the score is [x_j = σ1] + [x_{j−1} = σ2]) but
// cannot count them; uniform attention (Q = K = 0) averages but cannot
// select. With all counts equal every σ′ passes, so the output is the
// first letter of the alphabet everywhere: on the paper's example
// ACABDACDCA it outputs AAAAAAAAAA instead of ACCBDBAAAC, and on "B" it
// outputs A, not B. (With correct counts the missing fallback alone
// still outputs AACAABAAAC on the example; see inductionFrequent.) The
// corrected recipe, induction-frequent, computes the bigram indicators
// with a feed-forward layer, averages them with Avg←, and falls back to
// the current symbol.
//
// Domain: inductionFrequent's, every string over Σ of length n ≤ N.
var inductionFrequentLiteral = variant(inductionFrequent, func(r *Recipe) {
	r.Name = "induction-frequent-literal"
	r.Title = "most-frequent induction head with the printed counting head Q = [e_σ1; e_σ2], K = Bigram(x_j), V = 1, which outputs 1 instead of a count"
	r.Width = "|Σ|³ + 3|Σ| + 2 (e, i/n, 1, pred, the printed counts, comparisons, logits)"
	r.Params = []Param{inductionAlphabetParam, inductionTiebreakParam("argmax")}
	r.Build = func(cfg Config) (*Construction, error) {
		return buildInductionFrequent(cfg, inductFrequentPrinted{Count: true, Compare: true})
	}
})

var inductionFrequentParams = []Param{inductionAlphabetParam, inductionTiebreakParam("comparisons")}

// inductionTiebreakParam is the tiebreak parameter with the given default:
// comparisons for the corrected recipe (one-hot logits, robust to
// rounding), argmax for the literal one (the printed ≥ comparisons).
func inductionTiebreakParam(def string) Param {
	return Param{Name: "tiebreak", Default: def, Doc: "how the alphabetically first most frequent follower is chosen: comparisons (strict against earlier symbols, so the logits are one-hot) or argmax (≥ against all, as printed; the argmax unembedding's leftmost maximum picks among tied logits)"}
}

func init() {
	Register(inductionRecent)
	Register(inductionRecentLiteral)
	Register(inductionFrequent)
	Register(inductionFrequentLiteral)
}
