package recipes

import "github.com/transformer-cookbook/verify/model"

// The Dyck examples of §Putting It All Together: Example Constructions
// (sec:dyck1): Dyck-1 by prefix averages (sec:dyck-1), and the
// depth-bounded Dyck-1-2 and Dyck-k-D by rounds of cancelling adjacent
// matched pairs (sec:dyck-1-2, sec:dyck-k-D).
//
// Alphabet: bracket type t has the symbols "(" ")" for t = 1, "[" "]"
// for t = 2, "{" "}" for t = 3, and "<t" ">t" for t ≥ 4 ("<4", ">4", …,
// "<12", ">12"); symbol 2(t−1) opens type t and symbol 2(t−1)+1 closes
// it. The paper's encoding is o_i = +t for an open bracket of type t and
// −t for a close one. Inputs are typed as strings ("(()[])", or
// "<4 ( ) >4"; model.Tokenize reads longest matches, which is
// unambiguous since digits only follow < and >).
//
// This file says what the paper says of each recipe; dyck_program.go
// builds the weights, dyck_reference.go computes the intended function
// (plain Go, independent of the weights), and dyck_inputs.go draws the
// strings to check.

// ---------------------------------------------------------------------
// Dyck-1 (sec:dyck-1)

// dyck1 is the uniform construction of §A Transformer Construction for
// Dyck-1 (sec:dyck-1, after Bhattamishra et al. 2020): two layers, no
// layer norm, future-masked average-hard attention, residual connections.
//
// The word embedding writes o_i = +1 for "(" and −1 for ")" (the paper's
// x_i = [o_i, 0, 0, 0]). Layer 1's head is Avg← of §Average
// (W^Q = W^K = 0, W^V = 1, mask j ≤ i) on o, writing
// b_i = (1/i) Σ_{j≤i} o_j = (O_i − C_i)/i = B_i/i (eqn:dyck1_B_write);
// its FFN is E_i = ReLU(−b_i), "taking the W1 weight to be a negative
// projection": W1 = [−1], W2 = [1] (blocks.NegPart). Layer 2's head is
// Avg← on E, writing t_i = (1/i) Σ_{j≤i} E_j; its FFN is empty. The
// stream is (o, B/i, E, t), the paper's state diagram eqn:dyck1-states.
//
// Output: (B_i/i, t_i) at every position i, exactly. The acceptance check
// is external, as the paper's uniform implementation says: accept w_{:i}
// iff t_i = 0 and B_i/i = 0. (Every E_j ≥ 0, so t_i = 0 iff no prefix
// w_{:j}, j ≤ i, has more ")" than "(": Property 1; B_i/i = 0 iff w_{:i}
// is balanced: Property 2.)
//
// Every score is 0, so AHAT ties all unmasked positions and softmax gives
// each e^0/i = 1/i: the weights are the same under AHAT and SMAT in
// exact arithmetic, and in a binary format as long as the sum of the i
// ones is exact (i ≤ 256 in bf16, 2048 in fp16): both then compute
// fl(1/i). Under UHAT the tie would go to one position, which does not
// average.
//
// In floating point the external check fails on members from n = 6 on,
// in every format: the average of ±fl(1/i) need not cancel ("((()))"
// gives B/i_6 = 2^−54 at fp64, −2^−25 at fp32; worked out in
// TestDyck1FloatZeroCheck), so "= 0" must become "small", a threshold
// that depends on n: the nonuniform construction dyck1N.
//
// Domain: every string over {(, )}, any n. Width 4, 2 layers, 1 head each.
var dyck1 = &Recipe{
	Name:        "dyck1",
	Title:       "Dyck-1, uniform: B_i/i and t_i = (1/i) Σ_{j≤i} ReLU(−B_j/j) at every position; accept w_{:i} iff both are 0 (checked outside)",
	Section:     "A Transformer Construction for Dyck-1",
	Label:       "sec:dyck-1",
	Domain:      "every string over {(, )}, any n",
	Weightings:  []model.Weighting{model.AverageHardmax, model.Softmax},
	Exact:       true,
	Width:       "4: o, B/i, E, t (eqn:dyck1-states)",
	MinN:        1,
	DefaultMaxN: 256,
	Build:       buildDyck1,
}

// dyck1N is the nonuniform implementation of §A Transformer Construction
// for Dyck-1: dyck1 followed by a 0/1 decision, for inputs of length at
// most N. Layer 2's (otherwise empty) FFN computes, side by side,
//
//	g_i = GTZero_{ε_g}(t_i),   ε_g = 1/N²   (GTZero_ε of §Comparisons)
//	e_i = EqZero_{ε_e}(B_i/i), ε_e = 1/N    (EqZero_ε of §Comparisons)
//
// and a third layer, with no attention, computes accept_i = ¬g_i ∧ e_i
// by §Boolean Functions (truth table of ¬g ∧ e; its only unit with a
// nonzero output weight is ReLU(e − g)). The paper's "additional
// transformer layer that uses an FFN built from GTZero, EqZero and
// logical AND" is two FFN depths, since the AND reads the comparisons:
// the comparisons fill layer 2's FFN, so the model has 3 layers (the
// third FFN-only), 2 heads, width 7.
//
// Why these ε (the paper's argument, made exact). EqZero_ε(x) is 1 at
// x = 0 and 0 for |x| ≥ ε. B_i is an integer, so B_i/i ≠ 0 implies
// |B_i/i| ≥ 1/i ≥ 1/N = ε_e: e_i = [B_i = 0] exactly. GTZero_ε(x) is 0
// for x ≤ 0 and 1 for x ≥ ε. Each E_j is 0 or −B_j/j ≥ 1/j, so t_i ≠ 0
// implies t_i ≥ (1/i)(1/j) ≥ 1/i² ≥ 1/N² = ε_g: g_i = [t_i > 0]
// exactly. (The paper says GTZero "checks nonnegativity"; it checks
// positivity, and t averages the E_j, not the B_j.) So accept_i is
// Dyck-1 membership of w_{:i} for i ≤ N.
//
// The edges are attained: t_N = 1/N² exactly when the only violation is
// E_N = 1/N (B_N = −1 after a Dyck word, N odd): "()()())" at N = 7
// gives t_7 = 1/49 and g_7 = 1 exactly; B_N = ±1 (N odd) gives
// |B_N/N| = ε_e: "()()()(" at N = 7 gives e_7 = 0 exactly. Built for
// N − 1 = 6 instead (ε_e = 1/6), that string gets e_7 = 1 − 6/7 and
// accept_7 = 1/7. For accept (not g itself) ε_g = 1/N² is sufficient but
// not tight: e_i = 0 unless B_i = 0, which needs i even, and there the
// smallest nonzero t_i is 1/(i(i−1)) (a single violation at the odd j =
// i−1), so ε_g = 1/(M(M−1)), M the largest even number ≤ N, is the
// largest threshold that keeps accept exact: at N = 8 "()()())(" has
// B_8 = 0, t_8 = 1/56, and ε_g = 1/49 (built for N − 1 = 7) gives
// g_8 = 7/8 and accept_8 = 1/8. Likewise B_i ≠ 0 means |B_i| ≥ 2 at
// even i, so only odd i need |B_i/i| ≥ ε_e: ε_e = 1/M', M' the largest
// odd number ≤ N, suffices, and the paper's 1/N is tight for odd N only.
// (Neither edge t_N = 1/N² nor |B_N/N| = 1/N is reached at even N.) The
// parameters gt-eps and eq-eps override the thresholds to show this.
//
// Domain: strings over {(, )} of length n ≤ N. Output: accept_i ∈ {0, 1}
// at every position, membership of the prefix w_{:i}, exactly.
var dyck1N = &Recipe{
	Name:        "dyck1-n",
	Booleans:    []string{"accept"},
	Title:       "Dyck-1, nonuniform: accept_i = ¬GTZero_{1/N²}(t_i) ∧ EqZero_{1/N}(B_i/i), membership of the prefix w_{:i}, for n ≤ N",
	Section:     "A Transformer Construction for Dyck-1",
	Label:       "sec:dyck-1",
	Domain:      "strings over {(, )} of length n ≤ N",
	Weightings:  []model.Weighting{model.AverageHardmax, model.Softmax},
	Exact:       true,
	Width:       "7: o, B/i, E, t, g, e, accept",
	MinN:        1,
	DefaultMaxN: 256,
	Params: []Param{
		{Name: "gt-eps", Default: "1/N^2", Doc: "the threshold ε of g = GTZero_ε(t): 1/N^2 (the paper's), or a positive rational"},
		{Name: "eq-eps", Default: "1/N", Doc: "the threshold ε of e = EqZero_ε(B/i): 1/N (the paper's), or a positive rational"},
	},
	Build: buildDyck1N,
}

// ---------------------------------------------------------------------
// Dyck-1-2 and Dyck-k-D (sec:dyck-1-2, sec:dyck-k-D)

// The round constructions (dyck12, dyck12Literal, dyckKD) share this.
//
// The embedding is the paper's eqn:dyck_parens_encoding, [o_i, 1, 0, 0,
// i/n]: o, the active bit a = 1, the scratch l and r (here each two
// components, the neighbour's o and active bit: l.o, l.a, r.o, r.a),
// and i/n; plus the constant 1, the "bias term" the paper assumes for
// W^Q and W^K. A round is a "Select Nearest Active" and a "Check Match"
// (eqn:dyck_select_nearest): the left head (blocks.NearestActive: strict
// future masking, score j/n + (a_j − 1), W^Q = [1] on the constant) adds
// (o_j, a_j) of the nearest active position j < i to (l.o, l.a), and the
// right head (strict past masking, score −j/n + (a_j − 1)) those of the
// nearest active j > i to (r.o, r.a); the maxima are unique (the j/n
// differ), so UHAT (either end) and AHAT agree. Where no position on a side is active the maximum
// lands on an inactive one, whose retrieved bit 0 says so; where no
// position is unmasked (i = 1 on the left, i = n on the right) the head
// outputs 0. The FFN then updates a in place (a ← a − m_left −
// m_right), matching an active bracket with an active neighbour that
// closes or opens it, and clears the scratch for the next round, as the
// paper's diagram shows ([o, a, l, r, i/n] → [o, a', 0, 0, i/n]): the
// width does not grow with the number of rounds. (With the corrected
// score the retrieved bit is in fact redundant: between an active
// bracket and its nearest active neighbour, or the end, lie only
// cancelled pairs, a word of Dyck-k, so a side with no active bracket
// ends next to i in a close bracket on the left, an open one on the
// right, which never match i anyway; the bit is kept, as it costs one
// component and does not rely on that argument.) The first round is the paper's Step 1: with every
// bit 1 the scores are ±j/n, the heads are the predecessor and successor
// of §Predecessor with strict masking and i/n encodings (0 beyond the
// ends: the paper's "o_{−1} = o_{n+1} = 0", which means o_0), and the
// FFN is eqn:dyck_mark_matched. The two heads need different masks and
// the heads of a sublayer share one mask, so a round takes two layers.
//
// Step 3 (check=avg, the paper's): an unmasked Avg head (always AHAT:
// under UHAT uniform attention is impossible) writes s = (1/n) Σ_i a_i,
// the external check of the uniform construction being s = 0; for a
// maximum length N, accept = 1 − GTZero_{1/N}(s) (s ≠ 0 implies
// s ≥ 1/n ≥ 1/N), computed as EqZero_{1/N}(s), the same function on
// s ≥ 0, in one FFN. check=max replaces the average by blocks.AnyActive,
// a head scoring a_j, so s = max_i a_i ∈ {0, 1} and accept = ¬s
// (§Boolean Functions): exact and uniform under hard attention.
//
// Output, the same at every position: (accept, s), or accept alone with
// outputs=accept (s = k/n is not a binary fraction, so low-precision
// formats cannot hold it exactly).

// dyck12 is §A Transformer Construction for Dyck-1-2 (sec:dyck-1-2; Yang
// et al. 2024, after Yao et al. 2021), with the score of step 2
// corrected to j/n + (a_j − 1) (see dyck12Literal). Two rounds (see
// above) with the one-type Check Match FFN blocks.MatchDyck1:
//
//	m_left = ReLU(l.o + l.a − o + a − 3), m_right = ReLU(−r.o + r.a + o + a − 3),
//
// 1 exactly for an active ")" whose nearest active left neighbour is "("
// (resp. an active "(" whose nearest active right neighbour is ")").
// Round 1 marks the depth-1 pairs, round 2 the depth-2 pairs of the
// filtered string (the paper's Intuition); the string is accepted iff
// every bracket is marked.
//
// Domain: strings over {(, )}, n ≤ N (for accept with check=avg; s,
// and accept with check=max, are uniform).
// Output: accept = [w ∈ Dyck-1-2], and s = the fraction of brackets left
// unmarked by the Intuition's two steps. Width 10 (o, a, l.o, l.a, r.o,
// r.a, 1, i/n, s, accept), 5 layers, 5 heads.
var dyck12 = &Recipe{
	Name:        "dyck12",
	Booleans:    []string{"accept"},
	Title:       "Dyck-1-2: two rounds of select-nearest-active and check-match, then accept iff every bracket is matched",
	Section:     "A Transformer Construction for Dyck-1-2",
	Label:       "sec:dyck-1-2",
	Domain:      "strings over {(, )}; n ≤ N for accept with check=avg, any n with check=max",
	Weightings:  []model.Weighting{model.LeftHardmax, model.RightHardmax, model.AverageHardmax},
	Exact:       true,
	Width:       "10: o, a, l.o, l.a, r.o, r.a, 1, i/n, s, accept",
	MinN:        1,
	DefaultMaxN: 4096, // the heads tie at bf16 from n ≈ 260 and at fp16 from n ≈ 2050 (TestDyckMeasure)
	Params:      dyckCheckParams,
	Build:       func(cfg Config) (*Construction, error) { return buildDyckRounds(cfg, "dyck12", 1, 2, false) },
}

// dyck12Literal is §A Transformer Construction for Dyck-1-2 as printed
// (sec:dyck-1-2, cookbook .tex lines 2240–2320), carrying nothing the
// text does not print. The encoding [o_i, 1, 0, 0, i/n]
// (eqn:dyck_parens_encoding), plus the constant 1 (the "bias term" the
// text assumes for W^Q and W^K). Step 1: the predecessor and successor
// (l. 2262) fetch o_{i−1} and o_{i+1} into the scratch (0 beyond the
// ends, the text's "o_{−1} = o_{n+1} = 0"), and the FFN of
// eqn:dyck_mark_matched sets a_i. Step 2: UHAT on the one printed
// sequence j/n − (a_j − 1) (l. 2293–2300) for both neighbour searches
// (strict future masking on the left, strict past on the right: the
// ingredients of l. 2227), writing the selected brackets' types l_i,
// r_i ∈ {±1} (eqn:dyck_select_nearest: the state is [o_i, a_i, l_i, r_i,
// i/n], no neighbour's active bit), then a check-match from o_i, a_i,
// l_i, r_i alone (blocks.MatchDyck1Types). Step 3 is dyck12's.
//
// What is wrong: a matched position (a_j = 0) scores j/n + 1 and an
// active one j/n, so the left head selects the nearest matched position
// whenever there is one, and the right head the farthest matched one
// (the sequence grows with j), the opposite of "the nearest left and
// right components that are not yet matched"; and since the state holds
// no bit of the selected neighbour, its type decides the match. On the
// paper's own example "(())(()())" round 1 leaves positions 1, 4, 5, 10
// active; position 1 selects the matched 9, a ")", and is marked, as is
// 5; 4 and 10 select the ")" at 3 and 9 and stay: accept = 0, s = 2/10.
// It also accepts non-members: on "(()" round 1 leaves position 1
// active, which then selects the matched ")" at 3: accept = 1. Round 1
// is unaffected (every bit is 1, so −(a_j − 1) = 0). Where the text
// leaves a choice, this takes: one sequence for both searches (it prints
// one), UHAT at either end or AHAT (the maxima are unique), and 0 for a
// missing neighbour (its "or some other distinguished value").
//
// Domain: dyck12's.
var dyck12Literal = variant(dyck12, func(r *Recipe) {
	r.Name = "dyck12-literal"
	r.Title = "Dyck-1-2 as printed: step 2 runs UHAT on the one sequence j/n − (a_j − 1) for both neighbours, which selects matched positions, and matches by their types alone"
	r.Width = "8: o, a, l, r, 1, i/n, s, accept"
	r.Build = func(cfg Config) (*Construction, error) { return buildDyckRounds(cfg, "dyck12-literal", 1, 2, true) }
})

// dyckKD is §Generalization to Dyck-k-D (sec:dyck-k-D): o_i ∈ {±1, …,
// ±k}, D rounds of select-nearest-active and check-match (see above),
// then the all-matched check. Every round, the first included, uses the
// select-nearest-active heads: with every bit 1 they are the predecessor
// and successor, so round 1 is Step 1 (the adjacency check) with no
// separate construction. The match needs the same type: the FFN
// blocks.MatchDyckK computes, with p_i = GTZero_1(o_i) (1 for an open
// bracket; in layer 1's FFN) and K = 2k + 1,
//
//	m_left  = EqZero_1(l.o + o + K(2 − l.a − a + p))
//	m_right = EqZero_1(o + r.o + K(3 − r.a − a − p))
//
// which is 1 exactly when the bits say "both active, this one closes
// (opens)" and the neighbour's o is −o; one FFN per round.
//
// Why D rounds decide Dyck-k-D exactly (confirmed by the exhaustive
// tests). A round cancels, simultaneously, every pair of brackets that
// are adjacent among the active ones and read (_t )_t; a bracket is in at
// most one such pair (it would have to open in one and close in the
// other). (1) Cancelling such a pair keeps membership: u (_t )_t v is in
// Dyck-k iff uv is, so a string whose brackets are all cancelled reduces
// to the empty word and is in Dyck-k, whatever its length or depth. (2)
// In a word of Dyck-k the active brackets always form a word of Dyck-k
// (pairs are removed whole), and there two adjacent brackets "(_t )_s"
// are always partners (so s = t): only true partners are cancelled. Let
// the height of a pair be the depth of the word strictly inside it (0
// for "()"); the depth of the word is 1 + its largest height. A pair of
// height h is cancelled exactly in round h + 1: by induction its inside
// is entirely cancelled by the end of round h but not earlier (a pair of
// height h − 1 inside is cancelled in round h), and its two brackets are
// adjacent among the active ones exactly when its inside is gone. So
// after D rounds every bracket is cancelled iff the word is in Dyck-k and
// every height is at most D − 1, i.e. its depth is at most D: a word of
// depth D + 1 keeps its pair of height D, and a string outside Dyck-k
// keeps at least one bracket, by (1).
//
// Domain: strings over the 2k symbols, n ≤ N (as for dyck12). Output: accept =
// [w ∈ Dyck-k-D], and s as in dyck12. Width 11 for every k and D (o, a,
// l.o, l.a, r.o, r.a, 1, i/n, p, s, accept), 2D + 1 layers and heads
// (one per layer). With k = 1, D = 2
// it computes what dyck12 does (checked on every string up to length
// 12), with a different FFN.
var dyckKD = &Recipe{
	Name:        "dyck-kd",
	Booleans:    []string{"accept"},
	Title:       "Dyck-k-D: D rounds of select-nearest-active and typed check-match, then accept iff every bracket is matched",
	Section:     "Generalization to Dyck-k-D",
	Label:       "sec:dyck-k-D",
	Domain:      "strings over k bracket types; n ≤ N for accept with check=avg, any n with check=max",
	Weightings:  []model.Weighting{model.LeftHardmax, model.RightHardmax, model.AverageHardmax},
	Exact:       true,
	Width:       "11 for every k, D: o, a, l.o, l.a, r.o, r.a, 1, i/n, p, s, accept",
	MinN:        1,
	DefaultMaxN: 4096, // the heads tie at bf16 from n ≈ 260 and at fp16 from n ≈ 2050 (TestDyckMeasure)
	Params: append([]Param{
		{Name: "k", Default: "2", Doc: "the number of bracket types, 1 to 100: ( ) [ ] { } then <4 >4, <5 >5, …"},
		{Name: "D", Default: "2", Doc: "the maximum nesting depth, 1 to 32 (= the number of rounds)"},
	}, dyckCheckParams...),
	Build: func(cfg Config) (*Construction, error) {
		k, err := cfg.Int("k", 1, 100)
		if err != nil {
			return nil, err
		}
		d, err := cfg.Int("D", 1, 32)
		if err != nil {
			return nil, err
		}
		return buildDyckRounds(cfg, "dyck-kd", k, d, false)
	},
}

var dyckCheckParams = []Param{
	{Name: "check", Default: "avg", Doc: "the all-matched check: avg (the paper's: s = (1/n) Σ a_i by Avg, accept = 1 − GTZero_{1/N}(s)) or max (s = max a_i by a head scoring a_j, accept = 1 − s: uniform)"},
	{Name: "outputs", Default: "accept,s", Doc: "the readout: accept,s or accept"},
}

func init() {
	Register(dyck1)
	Register(dyck1N)
	Register(dyck12)
	Register(dyck12Literal)
	Register(dyckKD)
}
