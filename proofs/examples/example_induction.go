package examples

import (
	"fmt"
	"math/big"
	"slices"
	"strings"

	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/model/eval"
	"github.com/transformer-cookbook/verify/proofs"
	"github.com/transformer-cookbook/verify/recipes"
)

// The claims of §Most-Recent Induction and §Most-Frequent Induction: the
// paper's example strings and intermediate sequences, the literal and
// corrected constructions. Shared helpers are in example_shared.go.

// ---------------------------------------------------------------------
// Induction heads.

// The paper's example and its printed sequences (§Induction Heads).
const (
	induct         = "ACABDACDCA"
	inductRecent   = "ACCBDBAADC" // Induct_rightmost, as printed
	inductFrequent = "ACCBDBAAAC" // Induct_frequent, as printed
	abcd           = "ABCD"
)

var (
	// Pred(ACABDACDCA) = 0, e_A, e_C, e_A, e_B, e_D, e_A, e_C, e_D, e_C.
	printed = map[string][]string{
		"Pred":                {"0", "A", "C", "A", "B", "D", "A", "C", "D", "C"},
		"Retrieve (recent)":   {"A", "C", "C", "B", "D", "B", "A", "A", "D", "C"},
		"Bigram top":          {"A", "C", "A", "B", "D", "A", "C", "D", "C", "A"},
		"Bigram bottom":       {"0", "A", "C", "A", "B", "D", "A", "C", "D", "C"},
		"Retrieve (frequent)": {"A", "C", "C", "B", "D", "B", "A", "A", "A", "C"},
	}
	// BigramCount_AC(ACABDACDCA) = 0, 1, 1, 1, 1, 1, 2, 2, 2, 2.
	bigramCountAC = []int64{0, 1, 1, 1, 1, 1, 2, 2, 2, 2}
)

func letters(alphabet, s string) []int {
	out := make([]int, len(s))
	for i := range s {
		out[i] = strings.IndexByte(alphabet, s[i])
	}
	return out
}

func letterString(alphabet string, xs []int) string {
	var b strings.Builder
	for _, x := range xs {
		b.WriteByte(alphabet[x])
	}
	return b.String()
}

// oneHots reads the one-hot vectors prefix+σ (σ in alphabet) at every
// position: the letter whose component is 1 with the others 0, "0" for
// the zero vector, "?" otherwise.
func oneHots(res *eval.Result, prefix, alphabet string) ([]string, error) {
	out := make([]string, len(res.Outputs))
	for i := range out {
		out[i] = "0"
	}
	for k := range alphabet {
		vs, err := component(res, "", prefix+alphabet[k:k+1])
		if err != nil {
			return nil, err
		}
		for i, v := range vs {
			switch {
			case v.Equals(big.NewRat(1, 1)) && out[i] == "0":
				out[i] = alphabet[k : k+1]
			case v.Equals(new(big.Rat)):
			default:
				out[i] = "?"
			}
		}
	}
	return out, nil
}

// describe is sweep.describe with the parameters in sorted order, so
// that summaries do not depend on map iteration.
func describe(s proofs.Sweep) string {
	d := s.Describe()
	if i := strings.Index(d, " ("); i >= 0 {
		d = d[:i]
	}
	var ps []string
	for k, v := range s.Params {
		ps = append(ps, k+"="+v)
	}
	slices.Sort(ps)
	if len(ps) > 0 {
		d += " (" + strings.Join(ps, ", ") + ")"
	}
	return d
}

func ratText(xs []*big.Rat) string {
	var ps []string
	for _, x := range xs {
		ps = append(ps, x.RatString())
	}
	return strings.Join(ps, ", ")
}

// checkOneHots compares printed sequences of one-hot vectors with the
// components prefix+σ of a run of recipe on the paper's example.
func checkOneHots(recipe string, w model.Weighting, what []string, prefixes []string) (*proofs.Evidence, error) {
	con, err := proofs.Construct(recipe, w, len(induct), map[string]string{"alphabet": abcd})
	if err != nil {
		return nil, err
	}
	res, err := proofs.RunExact(con.Model, induct, true)
	if err != nil {
		return nil, err
	}
	var parts []string
	for k, name := range what {
		got, err := oneHots(res, prefixes[k], abcd)
		if err != nil {
			return nil, err
		}
		want := printed[name]
		for i := range want {
			if got[i] != want[i] {
				s := fmt.Sprintf("%s(%s) at position %d: the construction (%s, %s) holds %s, printed %s", name, induct, i+1, recipe, recipes.WeightingAcronym(w), got[i], want[i])
				return &proofs.Evidence{Verdict: proofs.Refuted, Summary: s, Explain: []string{s, "held: " + strings.Join(got, ", ")}}, nil
			}
		}
		parts = append(parts, fmt.Sprintf("%s = %s (components %sσ)", name, strings.Join(want, ", "), prefixes[k]))
	}
	return &proofs.Evidence{Verdict: proofs.Proved, Summary: fmt.Sprintf("on %s, from the trace of %s under %s, exact: %s", induct, recipe, recipes.WeightingAcronym(w), strings.Join(parts, "; "))}, nil
}

// checkInductExample checks the paper's example output against the
// plain reference and the constructions.
func checkInductExample(printed string, reference func([]int) []int, recipe string, runs []proofs.Sweep) (*proofs.Evidence, error) {
	if got := letterString(abcd, reference(letters(abcd, induct))); got != printed {
		s := fmt.Sprintf("the plain reference gives %s ↦ %s, printed %s", induct, got, printed)
		return &proofs.Evidence{Verdict: proofs.Refuted, Summary: s, Explain: []string{s}}, nil
	}
	var names []string
	for _, s := range runs {
		con, err := proofs.Construct(s.Recipe, s.Weighting, len(induct), s.Params)
		if err != nil {
			return nil, err
		}
		res, err := proofs.RunExact(con.Model, induct, false)
		if err != nil {
			return nil, err
		}
		if got := proofs.Symbols(res); got != printed {
			sum := fmt.Sprintf("%s gives %s ↦ %s, printed %s", describe(s), induct, got, printed)
			return &proofs.Evidence{Verdict: proofs.Refuted, Summary: sum, Explain: []string{sum}}, nil
		}
		if s.Params["tiebreak"] != "argmax" {
			// The logits are the retrieved one-hot vector e_{output}, the
			// paper's Retrieve (tied by design under tiebreak=argmax).
			for i, o := range res.Outputs {
				for k, v := range o.Values {
					want := int64(0)
					if con.Model.Output.Labels[k] == o.Symbol {
						want = 1
					}
					if !v.Equals(big.NewRat(want, 1)) {
						sum := fmt.Sprintf("%s on %s, position %d: logit %s = %s, want %d (Retrieve = e_%s)", describe(s), induct, i+1, con.Model.Output.Labels[k], v.Text, want, o.Symbol)
						return &proofs.Evidence{Verdict: proofs.Refuted, Summary: sum, Explain: []string{sum}}, nil
					}
				}
			}
		}
		names = append(names, describe(s))
	}
	return &proofs.Evidence{Verdict: proofs.Proved, Summary: fmt.Sprintf("%s ↦ %s by the plain reference (recipes.%s) and by %s, exact (the logits one-hot, e_{output}, where the tie-break is by comparisons)", induct, printed, recipe, strings.Join(names, "; "))}, nil
}

// frequentCounts reads count_{σσ′}(i) = i·(#σσ′/i) from the trace of
// induction-frequent on the paper's example: counts[i][σ][σ′].
func frequentCounts() ([][][]*big.Rat, error) {
	con, err := proofs.Construct("induction-frequent", model.AverageHardmax, len(induct), map[string]string{"alphabet": abcd})
	if err != nil {
		return nil, err
	}
	return frequentCountsOn(con, abcd, induct)
}

// frequentCountsOn reads count_{σσ′}(i) = i·(#σσ′/i) from the trace of
// an induction-frequent construction over alphabet on word.
func frequentCountsOn(con *recipes.Construction, alphabet, word string) ([][][]*big.Rat, error) {
	res, err := proofs.RunExact(con.Model, word, true)
	if err != nil {
		return nil, err
	}
	k := len(alphabet)
	counts := make([][][]*big.Rat, len(word))
	for i := range counts {
		counts[i] = make([][]*big.Rat, k)
		for s := range counts[i] {
			counts[i][s] = make([]*big.Rat, k)
		}
	}
	for s := 0; s < k; s++ {
		for t := 0; t < k; t++ {
			vs, err := component(res, "", "#"+alphabet[s:s+1]+alphabet[t:t+1]+"/i")
			if err != nil {
				return nil, err
			}
			rs, err := rats(vs)
			if err != nil {
				return nil, err
			}
			for i, r := range rs {
				counts[i][s][t] = new(big.Rat).Mul(r, big.NewRat(int64(i+1), 1))
			}
		}
	}
	return counts, nil
}

// printedRule is the printed comparison rule, without a fallback: at
// position i, for σ = x_i, the alphabetically first σ′ with
// count_{σσ′} ≥ count_{σσ″} for every σ″ ≠ σ′ (one always passes: a
// largest count).
func printedRule(x []int, counts [][][]*big.Rat) []int {
	k := len(counts[0])
	out := make([]int, len(x))
	for i, s := range x {
		for t := 0; t < k; t++ {
			ok := true
			for u := 0; u < k; u++ {
				if u != t && counts[i][s][t].Cmp(counts[i][s][u]) < 0 {
					ok = false
				}
			}
			if ok {
				out[i] = t
				break
			}
		}
	}
	return out
}

// RuleAsPrintedBehaviour applies the printed rule to the exact counts of
// induction-frequent (AHAT, built for N = maxLen) on every string over
// alphabet of length ≤ maxLen, against Induct_frequent: per length, the
// strings where some position differs, and the smallest. firstOnly
// reports whether the wrong strings were exactly those holding a letter
// other than the first of the alphabet.
func RuleAsPrintedBehaviour(alphabet string, maxLen int) (run *proofs.LiteralRun, firstOnly bool, err error) {
	con, err := proofs.Construct("induction-frequent", model.AverageHardmax, maxLen, map[string]string{"alphabet": alphabet})
	if err != nil {
		return nil, false, err
	}
	k := len(alphabet)
	run, firstOnly = &proofs.LiteralRun{}, true
	for n := 1; n <= maxLen; n++ {
		l := proofs.LiteralLength{N: n}
		x := make([]int, n)
		for c := 0; ; c++ {
			// x is the c-th string of length n, in the order the recipes
			// enumerate: lexicographic, position 1 most significant.
			rest := c
			for i := n - 1; i >= 0; i-- {
				x[i] = rest % k
				rest /= k
			}
			if rest > 0 {
				break
			}
			word := letterString(alphabet, x)
			counts, err := frequentCountsOn(con, alphabet, word)
			if err != nil {
				return nil, false, err
			}
			got, want := printedRule(x, counts), recipes.InductFrequent(x, k)
			l.Total++
			wrong := false
			for i := range got {
				if got[i] != want[i] {
					wrong = true
					l.Wrong++
					if run.Smallest == "" {
						run.Smallest, run.Position = word, i+1
						run.Reason = fmt.Sprintf("the rule gives %s, Induct_frequent %s", alphabet[got[i]:got[i]+1], alphabet[want[i]:want[i]+1])
					}
					break
				}
			}
			if wrong != slices.ContainsFunc(x, func(c int) bool { return c != 0 }) {
				firstOnly = false
			}
		}
		run.Lengths = append(run.Lengths, l)
	}
	return run, firstOnly, nil
}

// checkBigramCountAC compares i·(#AC/i) with the printed
// BigramCount_AC.
func checkBigramCountAC() (*proofs.Evidence, error) {
	counts, err := frequentCounts()
	if err != nil {
		return nil, err
	}
	a, c := strings.IndexByte(abcd, 'A'), strings.IndexByte(abcd, 'C')
	var got []*big.Rat
	for i := range counts {
		got = append(got, counts[i][a][c])
		if counts[i][a][c].Cmp(big.NewRat(bigramCountAC[i], 1)) != 0 {
			s := fmt.Sprintf("position %d: i·(#AC/i) = %s, printed %d", i+1, counts[i][a][c].RatString(), bigramCountAC[i])
			return &proofs.Evidence{Verdict: proofs.Refuted, Summary: s, Explain: []string{s}}, nil
		}
	}
	return &proofs.Evidence{Verdict: proofs.Proved, Summary: fmt.Sprintf("i·(#AC/i) = %s on %s (induction-frequent under AHAT, exact): the bigrams x_{j−1}x_j = AC up to each position (j = 2, 7)", ratText(got), induct)}, nil
}

// checkCountOrder evaluates the printed counting query against the
// printed Bigram order: for σ1σ2 = AC, q = [e_A; e_C] and
// k_j = Bigram(x_j) = [e_{x_j}; e_{x_{j−1}}] (read from the trace), and
// counts the positions j ≤ i where q·k_j = 2, the bigram matched whole.
func checkCountOrder() (*proofs.Evidence, error) {
	con, err := proofs.Construct("induction-frequent", model.AverageHardmax, len(induct), map[string]string{"alphabet": abcd})
	if err != nil {
		return nil, err
	}
	res, err := proofs.RunExact(con.Model, induct, true)
	if err != nil {
		return nil, err
	}
	top, err := component(res, "", "e_A")
	if err != nil {
		return nil, err
	}
	bottom, err := component(res, "", "pred_C")
	if err != nil {
		return nil, err
	}
	tr, err := rats(top)
	if err != nil {
		return nil, err
	}
	br, err := rats(bottom)
	if err != nil {
		return nil, err
	}
	var selected []string
	var counts []*big.Rat
	n := int64(0)
	for j := range tr {
		score := new(big.Rat).Add(tr[j], br[j])
		if score.Cmp(big.NewRat(2, 1)) == 0 {
			n++
			selected = append(selected, fmt.Sprint(j+1))
		}
		counts = append(counts, big.NewRat(n, 1))
	}
	for i, c := range counts {
		if c.Cmp(big.NewRat(bigramCountAC[i], 1)) != 0 {
			s := fmt.Sprintf("with Q = [e_A; e_C] and K = Bigram(x_j) = [e_{x_j}; e_{x_{j−1}}] as printed, q·k_j = 2 exactly at j = %s (the bigram CA), so the count up to each position is %s, not the printed BigramCount_AC = 0, 1, 1, 1, 1, 1, 2, 2, 2, 2 (first difference at position %d): the printed query matches σ2σ1",
				strings.Join(selected, ", "), ratText(counts), i+1)
			return &proofs.Evidence{Verdict: proofs.Refuted, Summary: s, Explain: []string{s, "e_A and pred_C read from the trace of induction-frequent (AHAT) on " + induct}}, nil
		}
	}
	return &proofs.Evidence{Verdict: proofs.Proved, Summary: fmt.Sprintf("the printed query selects j = %s, counts %s as printed", strings.Join(selected, ", "), ratText(counts))}, nil
}

// checkRuleAsPrinted applies the printed comparison rule, without a
// fallback, to the counts the corrected construction computes: on the
// paper's example, then on every string over {A, B, C} of length ≤ 5.
func checkRuleAsPrinted() (*proofs.Evidence, error) {
	counts, err := frequentCounts()
	if err != nil {
		return nil, err
	}
	got := letterString(abcd, printedRule(letters(abcd, induct), counts))
	if got == inductFrequent {
		return &proofs.Evidence{Verdict: proofs.Proved, Summary: "the printed rule gives " + got}, nil
	}
	var wrong []string
	for i := range got {
		if got[i] != inductFrequent[i] {
			wrong = append(wrong, fmt.Sprint(i+1))
		}
	}
	s := fmt.Sprintf("on %s the printed rule, applied to the exact bigram counts (from induction-frequent's trace), gives %s, not the printed %s: at positions %s the current symbol has no follower yet, every count ties at 0, and the rule returns A; the printed example needs the fallback \"predict the current symbol\" stated only for most-recent induction",
		induct, got, inductFrequent, strings.Join(wrong, ", "))
	run, firstOnly, err := RuleAsPrintedBehaviour("ABC", 5)
	if err != nil {
		return nil, err
	}
	all := fmt.Sprintf("the rule on the exact counts of induction-frequent (AHAT, N = 5, alphabet ABC), against Induct_frequent: %s (%s)", run, run.Reason)
	if firstOnly {
		all += "; the wrong strings are exactly those holding a letter other than A, which at its first occurrence has no follower yet"
	}
	return &proofs.Evidence{Verdict: proofs.Refuted, Summary: s + "; " + all, Explain: []string{s, all}}, nil
}

// The alphabets of the induction claims' sweeps.
var (
	alphabetABCD = map[string]string{"alphabet": abcd}
	alphabetABC  = map[string]string{"alphabet": "ABC"}
)

var inductionClaims = []*proofs.Claim{
	// Induction heads.
	{ID: "example.induction.recent.example", Section: "Most-Recent Induction", Label: "",
		Statement: "Induct_rightmost(ACABDACDCA) = ACCBDBAADC",
		Domain:    "the paper's example; the plain reference and induction-recent under UHAT-right and AHAT (t = j/n), exact",
		Recorded:  proofs.Proved,
		Check: func() (*proofs.Evidence, error) {
			return checkInductExample(inductRecent, recipes.InductRightmost, "InductRightmost", []proofs.Sweep{
				{Recipe: "induction-recent", Weighting: model.RightHardmax, Params: alphabetABCD},
				{Recipe: "induction-recent", Weighting: model.AverageHardmax, Params: alphabetABCD}})
		}},
	{ID: "example.induction.recent.pred", Section: "Most-Recent Induction", Label: "",
		Statement: "Pred(ACABDACDCA) = 0, e_A, e_C, e_A, e_B, e_D, e_A, e_C, e_D, e_C (the predecessor's embedding, 0 when none exists)",
		Domain:    "the paper's example; the components pred_σ of induction-recent under UHAT-right, exact",
		Recorded:  proofs.Proved,
		Check: func() (*proofs.Evidence, error) {
			return checkOneHots("induction-recent", model.RightHardmax, []string{"Pred"}, []string{"pred_"})
		}},
	{ID: "example.induction.recent.retrieve", Section: "Most-Recent Induction", Label: "",
		Statement: "Retrieve(ACABDACDCA) = e_A, e_C, e_C, e_B, e_D, e_B, e_A, e_A, e_D, e_C",
		Domain:    "the paper's example; the components ret_σ of induction-recent under UHAT-right, exact",
		Recorded:  proofs.Proved,
		Check: func() (*proofs.Evidence, error) {
			return checkOneHots("induction-recent", model.RightHardmax, []string{"Retrieve (recent)"}, []string{"ret_"})
		}},
	{ID: "example.induction.recent.literal", Section: "Most-Recent Induction", Label: "",
		Statement: "the induction head with k_i = WE(x_i), q_j = Pred(x_j) (as printed) retrieves the rightmost position following the current symbol",
		Domain:    "the paper's example ACABDACDCA, then every string over {A, B, C} of length ≤ 6 (what the printed construction computes at each length); induction-recent-literal under UHAT-right and AHAT (t = j/n), exact",
		Recorded:  proofs.Refuted,
		Check: func() (*proofs.Evidence, error) {
			return proofs.LiteralExample(proofs.Sweep{Recipe: "induction-recent-literal", Weighting: model.RightHardmax, MaxN: len(induct), Params: alphabetABCD}, induct,
				proofs.Sweep{Recipe: "induction-recent-literal", Weighting: model.RightHardmax, MaxN: 6, Params: alphabetABC},
				proofs.Sweep{Recipe: "induction-recent-literal", Weighting: model.AverageHardmax, MaxN: 6, Params: alphabetABC})
		}},
	{ID: "example.induction.recent.exact", Section: "Most-Recent Induction", Label: "",
		Statement: "the construction (WE one-hot, Pred, an induction head q_i = WE(x_i), k_j = Pred(x_j), v_j = WE(x_j) under rightmost hard attention) computes Induct_rightmost",
		Domain:    "every string over {A, B, C} of length ≤ 6, under UHAT-right and under AHAT (tie-breaking t = j/n); exact",
		Recorded:  proofs.Holds,
		Check: func() (*proofs.Evidence, error) {
			return sweeps(proofs.Sweep{Recipe: "induction-recent", Weighting: model.RightHardmax, MaxN: 6, Params: alphabetABC},
				proofs.Sweep{Recipe: "induction-recent", Weighting: model.AverageHardmax, MaxN: 6, Params: alphabetABC})
		}},
	{ID: "example.induction.frequent.example", Section: "Most-Frequent Induction", Label: "",
		Statement: "Induct_frequent(ACABDACDCA) = ACCBDBAAAC (and Retrieve(ACABDACDCA) = e_A, e_C, e_C, e_B, e_D, e_B, e_A, e_A, e_A, e_C)",
		Domain:    "the paper's example; the plain reference (ties alphabetical, the current symbol when it has no follower) and induction-frequent under AHAT with both tie-breaks, exact",
		Recorded:  proofs.Proved,
		Check: func() (*proofs.Evidence, error) {
			return checkInductExample(inductFrequent, func(x []int) []int { return recipes.InductFrequent(x, len(abcd)) }, "InductFrequent", []proofs.Sweep{
				{Recipe: "induction-frequent", Weighting: model.AverageHardmax, Params: alphabetABCD},
				{Recipe: "induction-frequent", Weighting: model.AverageHardmax, Params: map[string]string{"alphabet": abcd, "tiebreak": "argmax"}}})
		}},
	{ID: "example.induction.frequent.bigram", Section: "Most-Frequent Induction", Label: "",
		Statement: "Bigram(ACABDACDCA) = [e_A; 0], [e_C; e_A], [e_A; e_C], [e_B; e_A], [e_D; e_B], [e_A; e_D], [e_C; e_A], [e_D; e_C], [e_C; e_D], [e_A; e_C] (current symbol on top, predecessor below)",
		Domain:    "the paper's example; the components e_σ and pred_σ of induction-frequent under AHAT, exact",
		Recorded:  proofs.Proved,
		Check: func() (*proofs.Evidence, error) {
			return checkOneHots("induction-frequent", model.AverageHardmax, []string{"Bigram top", "Bigram bottom"}, []string{"e_", "pred_"})
		}},
	{ID: "example.induction.frequent.bigramcount", Section: "Most-Frequent Induction", Label: "",
		Statement: "BigramCount_AC(ACABDACDCA) = 0, 1, 1, 1, 1, 1, 2, 2, 2, 2",
		Domain:    "the paper's example; i·(#AC/i) from induction-frequent under AHAT (bigram indicators averaged by Avg←), exact",
		Recorded:  proofs.Proved,
		Check:     checkBigramCountAC},
	{ID: "example.induction.frequent.count-order", Section: "Most-Frequent Induction", Label: "",
		Statement: "BigramCount_σ1σ2 counts the bigram σ1σ2 with Q = [e_σ1; e_σ2] against K = Bigram(x_j) = [e_{x_j}; e_{x_{j−1}}] (as printed), giving BigramCount_AC = 0, 1, 1, 1, 1, 1, 2, 2, 2, 2",
		Domain:    "the paper's example; the positions where the printed q·k_j reaches 2, from e_A and pred_C in the trace of induction-frequent, exact",
		Recorded:  proofs.Refuted,
		Check:     checkCountOrder},
	{ID: "example.induction.frequent.count-literal", Section: "Most-Frequent Induction", Label: "",
		Statement: "the counting head Q = [e_σ1; e_σ2], K = Bigram(x_j), V = 1 (as printed, with §Average) counts bigram occurrences, and the construction computes Induct_frequent",
		Domain:    "the paper's example ACABDACDCA, then every string over {A, B, C} of length ≤ 5, built for N = 5 (what the printed construction computes at each length); induction-frequent-literal under AHAT, exact",
		Recorded:  proofs.Refuted,
		Check: func() (*proofs.Evidence, error) {
			return proofs.LiteralExample(proofs.Sweep{Recipe: "induction-frequent-literal", Weighting: model.AverageHardmax, MaxN: len(induct), Params: alphabetABCD}, induct,
				proofs.Sweep{Recipe: "induction-frequent-literal", Weighting: model.AverageHardmax, MaxN: 5, Params: alphabetABC})
		}},
	{ID: "example.induction.frequent.rule-literal", Section: "Most-Frequent Induction", Label: "",
		Statement: "at position i, for σ = w_i, returning the alphabetically first σ′ with ⋀_{σ″≠σ′} BigramCount_σσ′ ≥ BigramCount_σσ″ (as printed, no fallback) gives Induct_frequent(ACABDACDCA) = ACCBDBAAAC",
		Domain:    "the paper's example, then every string over {A, B, C} of length ≤ 5 (N = 5); the rule applied to the exact counts of induction-frequent's trace",
		Recorded:  proofs.Refuted,
		Check:     checkRuleAsPrinted},
	{ID: "example.induction.frequent.exact", Section: "Most-Frequent Induction", Label: "",
		Statement: "the construction (Pred, bigram counts, comparisons, the alphabetically first most frequent follower) computes Induct_frequent (with the counting step corrected and the fallback to the current symbol)",
		Domain:    "every string over {A, B, C} of length ≤ 5 (built for N = 5, ε = 1/N), over {A, B} of length ≤ 8 (N = 8) and over the default {A, B, C, D} of length ≤ 5 (N = 5), each with the default tie-break (comparisons); and with the printed argmax, over {A, B, C} of length ≤ 5 and {A, B, C, D} of length ≤ 4; AHAT; exact",
		Recorded:  proofs.Holds,
		Check:     checkInductionFrequentExact},
}

// checkInductionFrequentExact checks example.induction.frequent.exact.
func checkInductionFrequentExact() (*proofs.Evidence, error) {
	f := func(n int, params map[string]string) proofs.Sweep {
		return proofs.Sweep{Recipe: "induction-frequent", Weighting: model.AverageHardmax, MaxN: n, Params: params}
	}
	return sweeps(f(5, alphabetABC), f(8, map[string]string{"alphabet": "AB"}), f(5, nil),
		f(5, map[string]string{"alphabet": "ABC", "tiebreak": "argmax"}), f(4, map[string]string{"tiebreak": "argmax"}))
}
