package recipes_test

import (
	"math/big"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/transformer-cookbook/verify/check"
	"github.com/transformer-cookbook/verify/internal/testenv"
	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/model/eval"
	"github.com/transformer-cookbook/verify/numeric"
	"github.com/transformer-cookbook/verify/recipes"
)

// The paper's example (§Induction Heads) and its two printed outputs.
const (
	inductExample         = "ACABDACDCA"
	inductExampleRecent   = "ACCBDBAADC" // Induct_rightmost, as printed
	inductExampleFrequent = "ACCBDBAAAC" // Induct_frequent, as printed
)

// inductLetters maps a string of letters to symbol indices over alphabet.
func inductLetters(t *testing.T, alphabet, s string) []int {
	t.Helper()
	out := make([]int, len(s))
	for i := range s {
		k := strings.IndexByte(alphabet, s[i])
		if k < 0 {
			t.Fatalf("%q is not in the alphabet %s", s[i], alphabet)
		}
		out[i] = k
	}
	return out
}

// inductString is the inverse of inductLetters.
func inductString(alphabet string, xs []int) string {
	var b strings.Builder
	for _, x := range xs {
		b.WriteByte(alphabet[x])
	}
	return b.String()
}

// inductRun runs con on s at precision p and returns the output symbols
// as a string, and the outputs.
func inductRun(t *testing.T, con *recipes.Construction, p, s string) (string, []eval.PositionOutput) {
	t.Helper()
	in, err := con.Model.Tokenize(s)
	if err != nil {
		t.Fatal(err)
	}
	outs := runCase(t, con, p, recipes.Case{Symbols: in})
	var b strings.Builder
	for _, o := range outs {
		b.WriteString(o.Symbol)
	}
	return b.String(), outs
}

// TestInductionReference checks the plain-Go references against outputs
// derived by hand.
//
// Most-recent, ACABDACDCA: position 3 (A): the A at 1 is followed by C;
// 6 (A): the rightmost earlier A is at 3, followed by B; 7 (C): C at 2,
// followed by A; 8 (D): D at 5, followed by A; 9 (C): C at 7, followed by
// D; 10 (A): A at 6, followed by C; positions 1, 2, 4, 5 (A, C, B, D)
// have no earlier occurrence and keep their symbol: ACCBDBAADC, as
// printed. ABAB: 3 (A) gets B (after the A at 1), 4 (B) gets A: ABBA.
// ABACABA: 3 (A): B (after the A at 1); 5 (A): C (after the A at 3); 6
// (B): A; 7 (A): B (after the A at 5); 1, 2, 4 keep theirs: ABBCCAB.
//
// Most-frequent, ACABDACDCA, the bigrams ending at 2…10 being AC, CA, AB,
// BD, DA, AC, CD, DC, CA: position 3 (A): followers of A so far {C}: C; 6
// (A): C once, B once: the alphabetical tie-break gives B; 7 (C): {A}:
// A; 8 (D): {A}: A; 9 (C): A once, D once: A; 10 (A): C twice, B once:
// C; positions 1, 2, 4, 5: no follower yet, the current symbol:
// ACCBDBAAAC, as printed. ABACABA: bigrams AB, BA, AC, CA, AB, BA: 3
// (A): {B}: B; 5 (A): B once, C once: B; 6 (B): {A}: A; 7 (A): B twice,
// C once: B; 1, 2, 4 keep theirs: ABBCBAB.
func TestInductionReference(t *testing.T) {
	tests := []struct {
		in, recent, frequent string
	}{
		{inductExample, inductExampleRecent, inductExampleFrequent},
		{"ABAB", "ABBA", "ABBA"},
		{"ABACABA", "ABBCCAB", "ABBCBAB"},
		{"A", "A", "A"},
		{"DDDD", "DDDD", "DDDD"},
	}
	for _, tc := range tests {
		x := inductLetters(t, "ABCD", tc.in)
		if got := inductString("ABCD", recipes.InductRightmost(x)); got != tc.recent {
			t.Errorf("Induct_rightmost(%s) = %s, want %s", tc.in, got, tc.recent)
		}
		if got := inductString("ABCD", recipes.InductFrequent(x, 4)); got != tc.frequent {
			t.Errorf("Induct_frequent(%s) = %s, want %s", tc.in, got, tc.frequent)
		}
	}
}

// TestInductionPaperExample runs every variant on the paper's example:
// the outputs position by position, the one-hot logits (e_{output}
// exactly, in exact arithmetic), and the paper's intermediate vectors:
// Pred(ACABDACDCA) = 0, e_A, e_C, e_A, e_B, e_D, e_A, e_C, e_D, e_C, and
// BigramCount_AC = 0, 1, 1, 1, 1, 1, 2, 2, 2, 2, which the stream holds
// divided by i (Avg←).
func TestInductionPaperExample(t *testing.T) {
	tests := []struct {
		r      *recipes.Recipe
		w      model.Weighting
		params map[string]string
		want   string
	}{
		{recipes.InductionRecent, model.RightHardmax, nil, inductExampleRecent},
		{recipes.InductionRecent, model.AverageHardmax, map[string]string{"t": "j/n"}, inductExampleRecent},
		{recipes.InductionRecent, model.AverageHardmax, map[string]string{"t": "-1/j"}, inductExampleRecent},
		{recipes.InductionFrequent, model.AverageHardmax, nil, inductExampleFrequent},
		{recipes.InductionFrequent, model.AverageHardmax, map[string]string{"tiebreak": "argmax"}, inductExampleFrequent},
	}
	for _, tc := range tests {
		con := construct(t, tc.r, tc.w, len(inductExample), tc.params)
		got, outs := inductRun(t, con, "exact", inductExample)
		if got != tc.want {
			t.Errorf("%s %s %v: %s ↦ %s, want %s", tc.r.Name, recipes.WeightingAcronym(tc.w), tc.params, inductExample, got, tc.want)
		}
		if tc.params["tiebreak"] == "argmax" {
			continue // tied logits at positions 6 and 9, by design
		}
		for i, o := range outs {
			for s, v := range o.Values {
				want := int64(0)
				if "ABCD"[s] == tc.want[i] {
					want = 1
				}
				if !v.Equals(big.NewRat(want, 1)) {
					t.Errorf("%s %s: position %d, logit %c = %s, want %d", tc.r.Name, recipes.WeightingAcronym(tc.w), i+1, "ABCD"[s], v.Text, want)
				}
			}
		}
	}

	// The intermediate vectors, read from the trace of induction-frequent.
	con := construct(t, recipes.InductionFrequent, model.AverageHardmax, len(inductExample), nil)
	r, err := eval.New(numeric.MustParsePrecision("exact"), con.Model)
	if err != nil {
		t.Fatal(err)
	}
	in, _ := con.Model.Tokenize(inductExample)
	res, err := r.Run(in, true)
	if err != nil {
		t.Fatal(err)
	}
	final := res.Trace.States[len(res.Trace.States)-1]
	comp := func(name string) int {
		k := slices.Index(res.Trace.Components, name)
		if k < 0 {
			t.Fatalf("no component %q in %v", name, res.Trace.Components)
		}
		return k
	}
	predOf := "-ACABDACDC" // the paper's Pred: 0 at position 1, then x_{i−1}
	bigramAC := []int64{0, 1, 1, 1, 1, 1, 2, 2, 2, 2}
	for i := range inductExample {
		for _, s := range "ABCD" {
			want := int64(0)
			if predOf[i] == byte(s) {
				want = 1
			}
			if v := final.Vectors[i][comp("pred_"+string(s))]; !v.Equals(big.NewRat(want, 1)) {
				t.Errorf("position %d: pred_%c = %s, want %d", i+1, s, v.Text, want)
			}
		}
		if v := final.Vectors[i][comp("#AC/i")]; !v.Equals(big.NewRat(bigramAC[i], int64(i+1))) {
			t.Errorf("position %d: #AC/i = %s, want %d/%d", i+1, v.Text, bigramAC[i], i+1)
		}
	}
}

// TestInductionLiteralCounterexamples pins what the printed constructions
// compute instead, derived by hand:
//
//   - induction-recent-literal (q_i = Pred(x_i), k_j = WE(x_j)) scores
//     s_ij = [x_j = x_{i−1}], maximal at the rightmost such j ≤ i, which
//     is j = i − 1 (or j = i, holding the same symbol): it outputs
//     x_{i−1}, and x_1 at position 1 (all scores 0, rightmost j = 1). On
//     AB: AA, not AB (B has no earlier occurrence); on ACABDACDCA:
//     A followed by x_1 … x_9 = AACABDACDC, not ACCBDBAADC.
//   - induction-frequent-literal (Q = [e_σ1; e_σ2], K = Bigram(x_j),
//     V = 1, and no fallback): every "count" is the average of V = 1,
//     i.e. 1, at every position; all counts tie, every printed check
//     ⋀ count_σσ′ ≥ count_σσ″ passes, every logit is 1, and the argmax's
//     leftmost maximum, the alphabetically first, is A: the output is A
//     everywhere. On B (the smallest wrong input of the independent
//     simulation, proofs/all/testdata/literal_recipes.py): A, not B; on
//     ACABDACDCA: AAAAAAAAAA, not ACCBDBAAAC.
//   - the printed comparison stage alone (correct counts, no fallback):
//     see below.
func TestInductionLiteralCounterexamples(t *testing.T) {
	tests := []struct {
		r           *recipes.Recipe
		w           model.Weighting
		in, literal string
		want        string
	}{
		{recipes.InductionRecentLiteral, model.RightHardmax, "AB", "AA", "AB"},
		{recipes.InductionRecentLiteral, model.AverageHardmax, "AB", "AA", "AB"},
		{recipes.InductionRecentLiteral, model.RightHardmax, inductExample, "AACABDACDC", inductExampleRecent},
		{recipes.InductionRecentLiteral, model.AverageHardmax, inductExample, "AACABDACDC", inductExampleRecent},
		{recipes.InductionFrequentLiteral, model.AverageHardmax, "B", "A", "B"},
	}
	for _, tc := range tests {
		con := construct(t, tc.r, tc.w, len(tc.in), nil)
		got, _ := inductRun(t, con, "exact", tc.in)
		if got != tc.literal {
			t.Errorf("%s %s: %s ↦ %s, want the hand-derived %s", tc.r.Name, recipes.WeightingAcronym(tc.w), tc.in, got, tc.literal)
		}
		in, _ := con.Model.Tokenize(tc.in)
		var exp strings.Builder
		for _, w := range con.Expected(recipes.Case{Symbols: in}) {
			exp.WriteString(w.Symbol)
		}
		if exp.String() != tc.want {
			t.Errorf("%s: reference %s on %s, want %s", tc.r.Name, exp.String(), tc.in, tc.want)
		}
	}
	// The printed comparison stage alone, on correct counts: positions 2,
	// 4 and 5 (C, B, D, no follower yet) tie at 0 and return A, so the
	// example gives AACAABAAAC (the other positions are as printed).
	noFallback, err := recipes.BuildInductionFrequent(recipes.Config{Weighting: model.AverageHardmax, MaxN: len(inductExample),
		Params: map[string]string{"alphabet": "ABCD", "tiebreak": "comparisons"}}, recipes.InductFrequentPrinted{Compare: true})
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := inductRun(t, noFallback, "exact", inductExample); got != "AACAABAAAC" {
		t.Errorf("without the fallback: %s ↦ %s, want AACAABAAAC", inductExample, got)
	}

	// On the example the literal head outputs A everywhere, and the
	// printed counting head outputs 1 for every bigram at every position.
	con := construct(t, recipes.InductionFrequentLiteral, model.AverageHardmax, len(inductExample), nil)
	r, err := eval.New(numeric.MustParsePrecision("exact"), con.Model)
	if err != nil {
		t.Fatal(err)
	}
	in, _ := con.Model.Tokenize(inductExample)
	res, err := r.Run(in, true)
	if err != nil {
		t.Fatal(err)
	}
	var got strings.Builder
	for _, o := range res.Outputs {
		got.WriteString(o.Symbol)
	}
	if got.String() != "AAAAAAAAAA" {
		t.Errorf("induction-frequent-literal: %s ↦ %s, want the hand-derived AAAAAAAAAA (the paper prints %s)", inductExample, got.String(), inductExampleFrequent)
	}
	final := res.Trace.States[len(res.Trace.States)-1]
	ge := 0
	for k, c := range res.Trace.Components {
		// The comparisons are the printed ≥, none strict.
		if strings.Contains(c, ">") {
			t.Errorf("literal comparison %s is strict; the paper prints ≥", c)
		}
		if strings.Contains(c, "≥") {
			ge++
		}
		if !strings.HasPrefix(c, "#") && !strings.HasPrefix(c, "logit_") {
			continue
		}
		for i := range inductExample {
			if v := final.Vectors[i][k]; !v.Equals(big.NewRat(1, 1)) {
				t.Errorf("literal %s at position %d = %s, want 1", c, i+1, v.Text)
			}
		}
	}
	if ge != 4*4*3 {
		t.Errorf("literal: %d comparisons ≥, want |Σ|²(|Σ| − 1) = 48", ge)
	}
}

// TestInductionExhaustive checks every string over {A, B, C} in exact
// arithmetic against the references, for all four configurations: up to
// length 7 for induction-recent and 4 for induction-frequent, whose exact
// rational arithmetic costs a few milliseconds a string.
// TestLongInductionExhaustive goes to length 8 for both (9840 strings,
// about twenty seconds on 2 cores).
func TestInductionExhaustive(t *testing.T) {
	inductionExhaustive(t, 7, 4)
}

// TestLongInductionExhaustive is TestInductionExhaustive on every string
// up to length 8 for both recipes.
func TestLongInductionExhaustive(t *testing.T) {
	testenv.Long(t)
	inductionExhaustive(t, 8, 8)
}

// inductionExhaustive checks induction-recent on every string over ABC up
// to length recentMax and induction-frequent up to frequentMax.
func inductionExhaustive(t *testing.T, recentMax, frequentMax int) {
	abc := map[string]string{"alphabet": "ABC"}
	tests := []struct {
		r      *recipes.Recipe
		w      model.Weighting
		params map[string]string
		maxLen int
	}{
		{recipes.InductionRecent, model.RightHardmax, abc, recentMax},
		{recipes.InductionRecent, model.AverageHardmax, abc, recentMax},
		{recipes.InductionFrequent, model.AverageHardmax, abc, frequentMax},
		{recipes.InductionFrequent, model.AverageHardmax, map[string]string{"alphabet": "ABC", "tiebreak": "argmax"}, frequentMax},
	}
	for _, tc := range tests {
		var lengths []int
		for n := 1; n <= tc.maxLen; n++ {
			lengths = append(lengths, n)
		}
		rep, err := check.Run(tc.r, check.Options{Precision: numeric.MustParsePrecision("exact"), Weighting: tc.w,
			MaxN: 8, Params: tc.params, Lengths: lengths, Cases: 1, Exhaustive: 6561, Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		if !rep.Passed {
			t.Errorf("%s %s: %+v", tc.r.Name, recipes.WeightingAcronym(tc.w), rep.FirstFailure)
			continue
		}
		for _, lr := range rep.Lengths {
			if !lr.Exhaustive || lr.Exact != lr.Cases {
				t.Errorf("%s %s, length %d: exhaustive %v, %d of %d exact", tc.r.Name, recipes.WeightingAcronym(tc.w), lr.N, lr.Exhaustive, lr.Exact, lr.Cases)
			}
		}
		t.Logf("%s %s %v: every string up to length %d", tc.r.Name, recipes.WeightingAcronym(tc.w), tc.params, tc.maxLen)
	}
}

// TestInductionRandom checks seeded random strings (over random subsets
// of ABCD, some periodic: see inductionInputs) up to length 200 against
// the references, in exact arithmetic and at floating point, where the
// margins derived by hand leave rounding no room at n ≤ N = 200:
//
//   - induction-recent under UHAT-right, at every format: the induction
//     scores are sums of products of 0s and 1s, exact; the Pred scores
//     (i/n)(j/n) increase with j, rounding is monotone, so their maximum
//     over j < i stays at j = i − 1 (a rounding tie goes to the rightmost,
//     i − 1). The values copied are 0s and 1s.
//   - induction-recent under AHAT with t = j/n, at fp32 and fp64: tied
//     induction scores become 1 + j/n, 1/n ≥ 1/200 apart (the fp32
//     spacing near 2 is 2^−22), and the Pred scores are i/n² ≥ 2^−15
//     apart (relative spacing 2^−23).
//   - induction-frequent at fp32 and fp64: equal counts are the same sum
//     of fl(1/i) (adding zeros is exact), so their difference is 0; other
//     differences are at least 1/i ≥ ε = 1/200, against rounding errors
//     near 2^−24 times the slope 1/ε = 200; the conjunctions then stay
//     within 2^−14 of 0 or 1.
func TestInductionRandom(t *testing.T) {
	exactFrequent := []int{9, 40, 200}
	if testenv.Race {
		exactFrequent = []int{9, 40, 64} // about 60 ms a position under -race
	}
	lengths := []int{9, 17, 40, 100, 200}
	tests := []struct {
		r       *recipes.Recipe
		w       model.Weighting
		params  map[string]string
		p       string
		cases   int
		lengths []int
	}{
		{recipes.InductionRecent, model.RightHardmax, nil, "exact", 4, lengths},
		{recipes.InductionRecent, model.AverageHardmax, nil, "exact", 3, lengths},
		{recipes.InductionRecent, model.AverageHardmax, map[string]string{"t": "-1/j"}, "exact", 2, lengths},
		{recipes.InductionFrequent, model.AverageHardmax, nil, "exact", 1, exactFrequent},
		{recipes.InductionRecent, model.RightHardmax, nil, "fp64", 8, lengths},
		{recipes.InductionRecent, model.AverageHardmax, nil, "fp64", 8, lengths},
		{recipes.InductionFrequent, model.AverageHardmax, nil, "fp64", 4, lengths},
		{recipes.InductionRecent, model.RightHardmax, nil, "fp32", 8, lengths},
		{recipes.InductionRecent, model.AverageHardmax, nil, "fp32", 8, lengths},
		{recipes.InductionFrequent, model.AverageHardmax, nil, "fp32", 4, lengths},
		{recipes.InductionRecent, model.RightHardmax, nil, "fp16", 8, lengths},
		{recipes.InductionRecent, model.RightHardmax, nil, "bf16", 8, lengths},
	}
	for _, tc := range tests {
		rep, err := check.Run(tc.r, check.Options{Precision: numeric.MustParsePrecision(tc.p), Weighting: tc.w,
			MaxN: 200, Params: tc.params, Lengths: tc.lengths, Cases: tc.cases, Seed: 7})
		if err != nil {
			t.Fatal(err)
		}
		if !rep.Passed {
			t.Errorf("%s %s %v at %s: %+v", tc.r.Name, recipes.WeightingAcronym(tc.w), tc.params, tc.p, rep.FirstFailure)
		}
		for _, lr := range rep.Lengths {
			if lr.Exhaustive {
				t.Errorf("%s: length %d enumerated, want random strings", tc.r.Name, lr.N)
			}
		}
	}
}

// TestInductionInputs: the random strings are seeded (the same seed gives
// the same strings), of the asked length, over the alphabet, and some use
// fewer than all symbols (the generator draws subsets).
func TestInductionInputs(t *testing.T) {
	gen := recipes.InductionInputs(4)
	a, all := gen(30, rand.New(rand.NewPCG(3, 4)), 20)
	b, _ := gen(30, rand.New(rand.NewPCG(3, 4)), 20)
	if all || len(a) != 20 {
		t.Fatalf("got %d cases (exhaustive %v), want 20 random ones", len(a), all)
	}
	few := 0
	for c := range a {
		if !slices.Equal(a[c].Symbols, b[c].Symbols) {
			t.Fatal("the same seed gave different strings")
		}
		used := map[int]bool{}
		for _, s := range a[c].Symbols {
			if s < 0 || s >= 4 {
				t.Fatalf("symbol %d outside the alphabet", s)
			}
			used[s] = true
		}
		if len(a[c].Symbols) != 30 {
			t.Fatalf("length %d, want 30", len(a[c].Symbols))
		}
		if len(used) < 4 {
			few++
		}
	}
	if few == 0 {
		t.Error("every string used all four symbols: no small-alphabet strings")
	}
	if ins, all := gen(3, rand.New(rand.NewPCG(1, 1)), 64); !all || len(ins) != 64 {
		t.Errorf("length 3 over 4 symbols: %d cases, exhaustive %v; want all 64", len(ins), all)
	}
}

// TestInductionNegativeControl perturbs one weight of each construction
// and shows a string on which it then fails, so that the checks above can
// fail:
//
//   - induction-recent: W^Q of the induction head reads e_A with weight 0
//     instead of 1. At position 3 of ACA the query is then 0, every score
//     is 0, and the rightmost position (3 itself) gives A instead of C.
//   - induction-frequent: W^V of Avg← copies [AC] with weight 2 instead
//     of 1, so #AC/i counts each AC twice. ACABA, at position 5 (A): AB
//     and AC each once, so the answer is B; with AC counted twice, C.
func TestInductionNegativeControl(t *testing.T) {
	recent := construct(t, recipes.InductionRecent, model.RightHardmax, 3, nil)
	m := recent.Model
	eA := slices.Index(m.Components, "e_A")
	head := m.Layers[1].Attention.Heads[0]
	if w, err := recipes.RatOf(head.Q.At(0, eA)); err != nil || w.Cmp(big.NewRat(1, 1)) != 0 {
		t.Fatalf("W^Q[0, e_A] = %v, want 1 before the perturbation", head.Q.At(0, eA))
	}
	if got, _ := inductRun(t, recent, "exact", "ACA"); got != "ACC" {
		t.Fatalf("unperturbed: ACA ↦ %s, want ACC", got)
	}
	head.Q.Set(0, eA, numeric.LitInt(0))
	if got, _ := inductRun(t, recent, "exact", "ACA"); got != "ACA" {
		t.Errorf("perturbed W^Q: ACA ↦ %s, want ACA (position 3 wrong)", got)
	}

	frequent := construct(t, recipes.InductionFrequent, model.AverageHardmax, 5, nil)
	m = frequent.Model
	bAC, cAC := slices.Index(m.Components, "[AC]"), slices.Index(m.Components, "#AC/i")
	v := m.Layers[1].Attention.Heads[0].V
	if w, err := recipes.RatOf(v.At(cAC, bAC)); err != nil || w.Cmp(big.NewRat(1, 1)) != 0 {
		t.Fatalf("W^V[#AC/i, [AC]] = %v, want 1 before the perturbation", v.At(cAC, bAC))
	}
	if got, _ := inductRun(t, frequent, "exact", "ACABA"); got != "ACCBB" {
		t.Fatalf("unperturbed: ACABA ↦ %s, want ACCBB", got)
	}
	v.Set(cAC, bAC, numeric.LitInt(2))
	if got, _ := inductRun(t, frequent, "exact", "ACABA"); got != "ACCBC" {
		t.Errorf("perturbed W^V: ACABA ↦ %s, want ACCBC (position 5 wrong)", got)
	}
}

// TestInductionFP32Ties: at fp32 with N = 8, the default frequent head
// (strict comparisons, one-hot logits) outputs A at position 6 of AABCBA,
// where A is followed by A once and by B once. Its logits are 1 for A and
// at most a few ulps of leaked rounding for B and C, so the maximum
// cannot move.
func TestInductionFP32Ties(t *testing.T) {
	con := construct(t, recipes.InductionFrequent, model.AverageHardmax, 8, map[string]string{"alphabet": "ABC"})
	got, outs := inductRun(t, con, "fp32", "AABCBA")
	if got != "AABCCA" {
		t.Errorf("fp32: AABCBA ↦ %s, want AABCCA", got)
	}
	tiny := big.NewRat(1, 1<<20)
	for s, v := range outs[5].Values {
		want := big.NewRat(0, 1)
		if s == 0 {
			want = big.NewRat(1, 1)
		}
		if v.Error(want).Cmp(tiny) > 0 {
			t.Errorf("position 6, logit %c = %s, want %s within 2^−20", "ABC"[s], v.Text, want.RatString())
		}
	}
}

// TestInductionParams: bad alphabets and weightings are refused, and the
// frequent head's domain stops at N.
func TestInductionParams(t *testing.T) {
	for _, a := range []string{"", "AAB", "BA", "A1", "ABCDEFGHI"} {
		if _, err := recipes.InductionFrequent.Construct(model.AverageHardmax, 4, map[string]string{"alphabet": a}); err == nil {
			t.Errorf("alphabet %q accepted", a)
		}
	}
	if _, err := recipes.InductionRecent.Construct(model.LeftHardmax, 4, nil); err == nil {
		t.Error("induction-recent built under leftmost UHAT")
	}
	if _, err := recipes.InductionRecent.Construct(model.AverageHardmax, 4, map[string]string{"t": "1/j"}); err == nil {
		t.Error("induction-recent accepted a leftmost tie-breaking term")
	}
	if _, err := recipes.InductionFrequent.Construct(model.RightHardmax, 4, nil); err == nil {
		t.Error("induction-frequent built without average-hard attention")
	}
	con := construct(t, recipes.InductionFrequent, model.AverageHardmax, 4, nil)
	if err := con.Valid(recipes.Case{Symbols: make([]int, 5)}); err == nil {
		t.Error("a string longer than N accepted")
	}
	if err := con.Valid(recipes.Case{Symbols: make([]int, 4)}); err != nil {
		t.Error(err)
	}
	// The widths stated in the doc comments: 3|Σ| + 1 (UHAT-right),
	// 3|Σ| + 2 (AHAT, j/n), 3|Σ| + 3 (AHAT, −1/j); |Σ|³ + |Σ|² + 4|Σ| + 1
	// and |Σ|³ + 3|Σ| + 2 (literal) for the frequent head.
	widths := []struct {
		r      *recipes.Recipe
		w      model.Weighting
		params map[string]string
		d      int
	}{
		{recipes.InductionRecent, model.RightHardmax, nil, 13},
		{recipes.InductionRecent, model.AverageHardmax, nil, 14},
		{recipes.InductionRecent, model.AverageHardmax, map[string]string{"t": "-1/j"}, 15},
		{recipes.InductionFrequent, model.AverageHardmax, nil, 97},
		{recipes.InductionFrequent, model.AverageHardmax, map[string]string{"alphabet": "ABC"}, 49},
		{recipes.InductionFrequentLiteral, model.AverageHardmax, nil, 78},
	}
	for _, tc := range widths {
		if d := construct(t, tc.r, tc.w, 4, tc.params).Model.D; d != tc.d {
			t.Errorf("%s %s %v: width %d, want %d", tc.r.Name, recipes.WeightingAcronym(tc.w), tc.params, d, tc.d)
		}
	}
}
