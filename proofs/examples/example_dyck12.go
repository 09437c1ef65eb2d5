package examples

import (
	"fmt"
	"math/big"
	"strings"

	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/model/eval"
	"github.com/transformer-cookbook/verify/numeric"
	"github.com/transformer-cookbook/verify/proofs"
)

// checkStep1 checks the printed a_i of Step 1 of Dyck-1-2 against the
// active bits after dyck12's first round (the state after layer 2's FFN)
// at every position of every string of length ≤ n: a_i = 0 iff (o_i = +1
// and o_{i+1} = −1) or (o_i = −1 and o_{i−1} = +1), with o_0 = o_{n+1} = 0.
func checkStep1(n int) (*proofs.Evidence, error) {
	con, err := proofs.Construct("dyck12", model.LeftHardmax, n, nil)
	if err != nil {
		return nil, err
	}
	all := dyckStrings(n)
	for _, w := range all {
		res, err := proofs.RunExact(con.Model, w, true)
		if err != nil {
			return nil, err
		}
		vs, err := component(res, "layer 2 feed-forward", "a")
		if err != nil {
			return nil, err
		}
		for i := range w {
			matched := w[i] == '(' && i+1 < len(w) && w[i+1] == ')' || w[i] == ')' && i > 0 && w[i-1] == '('
			want := int64(1)
			if matched {
				want = 0
			}
			if !vs[i].Equals(big.NewRat(want, 1)) {
				s := fmt.Sprintf("on %q, position %d: a_%d = %s after round 1, the printed formula gives %d", w, i+1, i+1, vs[i].Text, want)
				return &proofs.Evidence{Verdict: proofs.Refuted, Summary: s, Explain: []string{s}}, nil
			}
		}
	}
	return &proofs.Evidence{Verdict: proofs.Proved, Summary: fmt.Sprintf("at every position of every string of length ≤ %d (%d strings; dyck12 under UHAT, exact): the active bit after Step 1 is the printed a_i", n, len(all))}, nil
}

// checkIntuition runs dyck12 on the Intuition's example and compares
// the marks after each step with the paper's.
func checkIntuition() (*proofs.Evidence, error) {
	const w = "(())(()())"
	con, err := proofs.Construct("dyck12", model.LeftHardmax, len(w), nil)
	if err != nil {
		return nil, err
	}
	res, err := proofs.RunExact(con.Model, w, true)
	if err != nil {
		return nil, err
	}
	fail := func(s string) (*proofs.Evidence, error) {
		return &proofs.Evidence{Verdict: proofs.Refuted, Summary: s, Explain: []string{s}}, nil
	}
	// Step 1 marks "( [()] ) ( [()] [()] )": positions 2, 3, 6, 7, 8, 9.
	// The filtered string is positions 1, 4, 5, 10: "()()"; step 2 marks
	// them all.
	steps := []struct {
		label  string
		active string
	}{{"layer 2 feed-forward", "1001100001"}, {"layer 4 feed-forward", "0000000000"}}
	for _, st := range steps {
		vs, err := component(res, st.label, "a")
		if err != nil {
			return nil, err
		}
		for i := range w {
			if !vs[i].Equals(big.NewRat(int64(st.active[i]-'0'), 1)) {
				return fail(fmt.Sprintf("%s after %s: a_%d = %s, the paper's marks give %c", w, st.label, i+1, vs[i].Text, st.active[i]))
			}
		}
	}
	var filtered strings.Builder
	for i := range w {
		if steps[0].active[i] == '1' {
			filtered.WriteByte(w[i])
		}
	}
	if filtered.String() != "()()" {
		return fail("the filtered string is " + filtered.String())
	}
	if got := res.Outputs[0].Values[0]; !got.Equals(big.NewRat(1, 1)) {
		return fail(fmt.Sprintf("%s: accept = %s", w, got.Text))
	}
	maxDepth := dyckDepth(w)
	if !dyckGrammar(w) || maxDepth != 2 {
		return fail(fmt.Sprintf("%s: member %v, depth %d", w, dyckGrammar(w), maxDepth))
	}
	return &proofs.Evidence{Verdict: proofs.Proved, Summary: "(())(()()) ∈ Dyck-1-2 (the grammar, depth 2); dyck12 (UHAT, exact): after step 1 the active bits are 1001100001 (marked: 2, 3, 6, 7, 8, 9, the paper's underlined pairs), the filtered string is ()(), after step 2 every bit is 0, accept = 1"}, nil
}

// checkDyck12Literal checks example.dyck12.literal.
func checkDyck12Literal() (*proofs.Evidence, error) {
	ev, err := proofs.Literal(proofs.Sweep{Recipe: "dyck12-literal", Weighting: model.LeftHardmax, MaxN: 10}, "(())(()())")
	if err != nil || ev.Verdict != proofs.Refuted {
		return ev, err
	}
	behaviour, err := dyck12LiteralBehaviour(8)
	if err != nil {
		return nil, err
	}
	ev.Summary += "; " + behaviour
	return ev, nil
}

// checkDyckKdDepths checks example.dyck-kd.depths.
func checkDyckKdDepths() (*proofs.Evidence, error) {
	kd := func(k, d, n int) proofs.Sweep {
		return proofs.Sweep{Recipe: "dyck-kd", Weighting: model.LeftHardmax, MaxN: n, Params: map[string]string{"k": fmt.Sprint(k), "D": fmt.Sprint(d)}}
	}
	ev, err := sweeps(kd(1, 1, 6), kd(1, 3, 8), kd(2, 1, 4), kd(2, 3, 4), kd(3, 2, 3))
	if err != nil || ev.Verdict != proofs.Proved {
		return ev, err
	}
	// The sweeps of k = 2, D = 3 and k = 3, D = 2 are too short
	// for a word one deeper than D: these are.
	for _, c := range []struct {
		s     proofs.Sweep
		words []string
	}{
		{kd(2, 3, 8), []string{"([([])])", "([[[]]])", "([()])[]"}},
		{kd(3, 2, 6), []string{"([{}])", "{[()]}", "([]){}"}},
	} {
		deep, err := proofs.RunInputs(c.s, c.words)
		if err != nil || deep.Verdict != proofs.Proved {
			return deep, err
		}
		ev.Summary += fmt.Sprintf("; %s: %s right", c.s.Describe(), strings.Join(c.words, ", "))
	}
	return ev, nil
}

// dyck12LiteralBehaviour runs the printed construction (dyck12-literal,
// leftmost UHAT, exact) on every string of length ≤ maxLen, built for
// N = that length, and says what it accepts: members of Dyck-1-2 (depth ≤
// 2) accepted and rejected, the smallest member rejected, and non-members
// accepted.
func dyck12LiteralBehaviour(maxLen int) (string, error) {
	var membersOK, membersRejected, nonMembersAccepted, nonMembers int
	smallest := ""
	for n := 1; n <= maxLen; n++ {
		con, err := proofs.Construct("dyck12-literal", model.LeftHardmax, n, nil)
		if err != nil {
			return "", err
		}
		r, err := eval.New(numeric.MustParsePrecision("exact"), con.Model)
		if err != nil {
			return "", err
		}
		for mask := 0; mask < 1<<n; mask++ {
			w := make([]byte, n)
			for i := range w {
				w[i] = "()"[mask>>(n-1-i)&1]
			}
			in, err := con.Model.Tokenize(string(w))
			if err != nil {
				return "", err
			}
			res, err := r.Run(in, false)
			if err != nil {
				return "", err
			}
			accepted := res.Outputs[n-1].Values[0].Equals(big.NewRat(1, 1))
			member := dyckGrammar(string(w)) && dyckDepth(string(w)) <= 2
			switch {
			case member && accepted:
				membersOK++
			case member:
				membersRejected++
				if smallest == "" {
					smallest = string(w)
				}
			case accepted:
				nonMembersAccepted++
				nonMembers++
			default:
				nonMembers++
			}
		}
	}
	return fmt.Sprintf("on every string of length ≤ %d it accepts %d of the %d members of depth ≤ 2 (the smallest it rejects: %s) and %d of the %d non-members",
		maxLen, membersOK, membersOK+membersRejected, smallest, nonMembersAccepted, nonMembers), nil
}

// dyck12Claims are the claims of §A Transformer Construction for
// Dyck-1-2 and §Generalization to Dyck-k-D.
var dyck12Claims = []*proofs.Claim{
	{ID: "example.dyck12.intuition", Section: "A Transformer Construction for Dyck-1-2", Label: "sec:dyck-1-2",
		Statement: "(())(()()) is in Dyck-1-2; step 1 marks ( [()] ) ( [()] [()] ), filtering leaves ()(), and step 2 marks the rest",
		Domain:    "the example; the grammar and depth, and the active bits in dyck12's trace under UHAT, exact",
		Recorded:  proofs.Proved,
		Check:     checkIntuition},
	{ID: "example.dyck12.step1", Section: "A Transformer Construction for Dyck-1-2", Label: "sec:dyck-1-2",
		Statement: "Step 1 (predecessor and successor heads, then an FFN) sets a_i = 0 if o_i = +1 and o_{i+1} = −1, or o_i = −1 and o_{i−1} = +1, and a_i = 1 otherwise",
		Domain:    "every position of every string over {(, )} of length ≤ 7; dyck12 under UHAT (the state after layer 2); exact",
		Recorded:  proofs.Holds,
		Check:     func() (*proofs.Evidence, error) { return checkStep1(7) }},
	{ID: "example.dyck12.literal", Section: "A Transformer Construction for Dyck-1-2", Label: "sec:dyck-1-2",
		Statement: "step 2 finds the nearest unmatched neighbours by UHAT on j/n − (a_j − 1), and the check-match decides a_i' from the state [o_i, a_i, l_i, r_i, i/n], l_i and r_i the selected brackets' types (as printed)",
		Domain:    "the paper's own example (())(()()), then every string over {(, )} of length ≤ 8 (accepted or rejected, against membership); dyck12-literal under UHAT, exact",
		Recorded:  proofs.Refuted,
		Check:     checkDyck12Literal},
	{ID: "example.dyck12.exact", Section: "A Transformer Construction for Dyck-1-2", Label: "sec:dyck-1-2",
		Statement: "the construction (two rounds of select-nearest-active and check-match, then the all-matched check) recognizes Dyck-1-2 (with step 2's score corrected to j/n + (a_j − 1))",
		Domain:    "every string over {(, )}: of length ≤ 8 under leftmost UHAT, ≤ 7 under rightmost UHAT and AHAT; built for N = that length; exact",
		Recorded:  proofs.Holds,
		Check: func() (*proofs.Evidence, error) {
			return sweeps(proofs.Sweep{Recipe: "dyck12", Weighting: model.LeftHardmax, MaxN: 8},
				proofs.Sweep{Recipe: "dyck12", Weighting: model.RightHardmax, MaxN: 7},
				proofs.Sweep{Recipe: "dyck12", Weighting: model.AverageHardmax, MaxN: 7})
		}},
	{ID: "example.dyck-kd.k2-d2", Section: "Generalization to Dyck-k-D", Label: "sec:dyck-k-D",
		Statement: "repeating select-nearest-active and check-match (typed for k bracket pairs) D times recognizes Dyck-k-D: here Dyck-2-2",
		Domain:    "every string over ( ) [ ] of length ≤ 6 (depth 3, which D = 2 must reject, needs 6); dyck-kd (k = 2, D = 2) under UHAT; exact",
		Recorded:  proofs.Holds,
		Check: func() (*proofs.Evidence, error) {
			return exhaustive(proofs.Sweep{Recipe: "dyck-kd", Weighting: model.LeftHardmax, MaxN: 6, Params: map[string]string{"k": "2", "D": "2"}})
		}},
	{ID: "example.dyck-kd.depths", Section: "Generalization to Dyck-k-D", Label: "sec:dyck-k-D",
		Statement: "D rounds recognize Dyck-k-D for other k and D (a word of depth D + 1 keeps a bracket active)",
		Domain:    "dyck-kd under UHAT: k = 1 with D = 1 (every string of length ≤ 6) and D = 3 (≤ 8, where depth 4 is first possible); k = 2 with D = 1 and 3, length ≤ 4, and with D = 3 the words of depth 4 ([([])]) and ([[[]]]) and of depth 3 ([()])[] (length 8); k = 3 with D = 2, length ≤ 3, and the words ([{}]), {[()]} (depth 3) and ([]){} (depth 2); exact",
		Recorded:  proofs.Holds,
		Check:     checkDyckKdDepths},
}
