package diagnose

import (
	"math/big"
	"math/rand/v2"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/transformer-cookbook/verify/check"
	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/model/eval"
	"github.com/transformer-cookbook/verify/numeric"
	"github.com/transformer-cookbook/verify/recipes"
)

// causeLookup builds the quadratic-maximisation lookup (§Quadratic
// Maximization) under AHAT for N = maxN, and the input of length n whose
// position i holds query queries[i] (default 1) and value values[i]
// (default 0), as symbols "q:v".
func causeLookup(t *testing.T, maxN, n int, queries, values map[int]int) (*recipes.Construction, recipes.Case) {
	t.Helper()
	return causeQV(t, "lookup", maxN, n, queries, values)
}

// causeQV is causeLookup for any recipe over the symbols "q:v".
func causeQV(t *testing.T, name string, maxN, n int, queries, values map[int]int) (*recipes.Construction, recipes.Case) {
	t.Helper()
	r, err := recipes.Get(name)
	if err != nil {
		t.Fatal(err)
	}
	con, err := r.Construct(model.AverageHardmax, maxN, nil)
	if err != nil {
		t.Fatal(err)
	}
	syms := make([]string, n)
	for i := 1; i <= n; i++ {
		q, ok := queries[i]
		if !ok {
			q = 1
		}
		syms[i-1] = strconv.Itoa(q) + ":" + strconv.Itoa(values[i])
	}
	in, err := con.Model.Tokenize(strings.Join(syms, " "))
	if err != nil {
		t.Fatal(err)
	}
	return con, recipes.Case{Symbols: in}
}

func causeRunner(t *testing.T, prec string, m *model.Model) eval.Runner {
	t.Helper()
	r, err := eval.New(numeric.MustParsePrecision(prec), m)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// causeFails reports whether the runner gets position pos (1-based) of c
// wrong, as check.Run decides.
func causeFails(t *testing.T, con *recipes.Construction, runner eval.Runner, c recipes.Case, pos int) bool {
	t.Helper()
	var res *eval.Result
	var err error
	if c.Stream != nil {
		c.Stream = check.RoundStream(runner, c.Stream)
		res, err = runner.RunStream(c.Stream, false)
	} else {
		res, err = runner.Run(c.Symbols, false)
	}
	if err != nil {
		t.Fatal(err)
	}
	ok, _ := check.Compare(con.Expected(c)[pos-1], res.Outputs[pos-1], con.Bounds, con.Model.Output.Labels)
	return !ok
}

func causeOf(t *testing.T, con *recipes.Construction, runner eval.Runner, c recipes.Case, pos int) *Cause {
	t.Helper()
	if !causeFails(t, con, runner, c, pos) {
		t.Fatalf("the case passes at position %d: nothing to diagnose", pos)
	}
	cause, err := Failure(con, runner, c, pos)
	if err != nil {
		t.Fatal(err)
	}
	if cause == nil {
		t.Fatal("Failure found no cause")
	}
	t.Logf("%s | %s | %s", cause.Kind, cause.Where, cause.Detail)
	return cause
}

func causeWant(t *testing.T, cause *Cause, kind CauseKind, where []string, detail []string) {
	t.Helper()
	if cause.Kind != kind {
		t.Errorf("kind %q, want %q (where: %s; detail: %s)", cause.Kind, kind, cause.Where, cause.Detail)
	}
	for _, w := range where {
		if !strings.Contains(cause.Where, w) {
			t.Errorf("where = %q, want it to contain %q", cause.Where, w)
		}
	}
	for _, w := range detail {
		if !strings.Contains(cause.Detail, w) {
			t.Errorf("detail = %q, want it to contain %q", cause.Detail, w)
		}
	}
}

// TestCauseTieLookupFP16: position 7 queries q = 46 in an input of length
// 50. The scores s_j = 2qj − j² are 2115, 2116, 2115 at j = 45, 46, 47.
// fp16 computes q·k_j = q·2j + 1·(−j²) left to right: for j = 45, 46 × 90
// = 4140 (a multiple of 4, fp16's spacing in [4096, 8192)) and j² = 2025
// are exact, but their sum 2115 lies halfway between 2114 and 2116 (the
// spacing in [2048, 4096) is 2), and ties to even round it to 2116 (1058
// is even, 1057 odd); for j = 47 the stream already holds j² = 2209 as
// 2208 (the same tie), and 4324 − 2208 = 2116. j = 46 gives 4232 − 2116 =
// 2116 exactly. Three positions tie, AHAT averages v_45 = 0, v_46 = 1,
// v_47 = 0 into c = 1/3 instead of 1. The cause is the tie of j = 45 (the
// first picked, value 0) with j = 46. Position 1 (query 1: s_j = 2j − j²,
// maximum 1 at j = 1, next 0) is right, and Failure has nothing to say
// there.
func TestCauseTieLookupFP16(t *testing.T) {
	con, c := causeLookup(t, 50, 50, map[int]int{7: 46}, map[int]int{46: 1})
	runner := causeRunner(t, "fp16", con.Model)
	cause := causeOf(t, con, runner, c, 7)
	causeWant(t, cause, "tie",
		[]string{"layer 1 attention", "position 7", "j = 45 and 46"},
		[]string{"the scores of j = 45 and j = 46 are 2115 and 2116 exactly", "fp16 computes both as 2116", "spacing at 2116 is 2",
			"in q·k of j = 45, the partial sum up to component 2, 4140 + (-2025) = 2115, rounds to 2116", "3 positions", "values W^V h_j differ (c: 0 and 1)"})

	if causeFails(t, con, runner, c, 1) {
		t.Fatal("position 1 should be right")
	}
	if cause, err := Failure(con, runner, c, 1); err != nil || cause != nil {
		t.Errorf("Failure at a right position = %+v, %v; want nil, nil", cause, err)
	}
}

// TestCauseNothingWrong: at n = 10 the lookup's scores 2qj − j² lie in
// [−80, 100], integers that fp16 holds exactly, as it does every value of
// the residual stream (q, 1, j, j², v ≤ 100, and c, y ∈ {0, 1}): every
// input is right, and Failure returns nil. Nil is also what the scan of
// the two traces finds on its own (no overflow, tie, gap, absorption or
// rounding), without the check that the output is right.
func TestCauseNothingWrong(t *testing.T) {
	r, err := recipes.Get("lookup")
	if err != nil {
		t.Fatal(err)
	}
	con, err := r.Construct(model.AverageHardmax, 10, nil)
	if err != nil {
		t.Fatal(err)
	}
	runner := causeRunner(t, "fp16", con.Model)
	cases, _ := con.Inputs(10, rand.New(rand.NewPCG(1, 10)), 6)
	for _, c := range cases {
		for pos := 1; pos <= c.Len(); pos++ {
			if causeFails(t, con, runner, c, pos) {
				t.Fatalf("%s fails at position %d", check.CaseText(con.Model, c), pos)
			}
			cause, err := Failure(con, runner, c, pos)
			if err != nil || cause != nil {
				t.Fatalf("Failure(%s, %d) = %+v, %v; want nil, nil", check.CaseText(con.Model, c), pos, cause, err)
			}
		}
		exact := causeRunner(t, "exact", con.Model)
		ref, err1 := exact.Run(c.Symbols, true)
		got, err2 := runner.Run(c.Symbols, true)
		if err1 != nil || err2 != nil {
			t.Fatal(err1, err2)
		}
		for pos := 1; pos <= c.Len(); pos++ {
			d, err := newDiagnosis(con.Model, runner, ref, got, pos, "", refBits(runner.Precision()))
			if err != nil {
				t.Fatal(err)
			}
			if cause := d.cause(); cause != nil {
				t.Fatalf("the traces of %s at position %d show %+v", check.CaseText(con.Model, c), pos, cause)
			}
		}
	}
	// Runners that do not round have nothing to blame.
	c := cases[0]
	if cause, err := Failure(con, causeRunner(t, "exact", con.Model), c, 1); cause != nil || err != nil {
		t.Errorf("exact runner: %+v, %v; want nil, nil", cause, err)
	}
	if _, err := Failure(con, runner, c, 11); err == nil {
		t.Error("position 11 of an input of length 10: no error")
	}
}

// TestCauseOverflowEmbedding: the lookup's position embedding writes j²,
// and 256² = 65536 is beyond fp16's largest finite value 65504 (more than
// half a spacing, 16, above it): the embedding holds +Inf at position
// 256, the first thing to go wrong. (Position 1 queries 200, and its
// scores meet that +Inf: the output there is NaN.)
func TestCauseOverflowEmbedding(t *testing.T) {
	con, c := causeLookup(t, 256, 256, map[int]int{1: 200}, map[int]int{200: 1})
	cause := causeOf(t, con, causeRunner(t, "fp16", con.Model), c, 1)
	causeWant(t, cause, "overflow",
		[]string{"embedding, position 256, component j²"},
		[]string{"65536", "65504", "+Inf"})
}

// TestCauseOverflowScores: at n = 200 every j² ≤ 40000 is finite in fp16
// (the embedding rounds some, by at most half a spacing), but position 1
// queries q = 200, and its score q·k_j = 200·(2j) − j² starts with the
// product 400j, which reaches 65520 (where fp16 rounds to +Inf) first at
// j = 164: 200 × 328 = 65600. The scores of j = 164 … 200 are all +Inf,
// tie, and c averages v_164 … v_200 instead of retrieving v_200 = 1.
func TestCauseOverflowScores(t *testing.T) {
	con, c := causeLookup(t, 200, 200, map[int]int{1: 200}, map[int]int{200: 1})
	cause := causeOf(t, con, causeRunner(t, "fp16", con.Model), c, 1)
	causeWant(t, cause, "overflow",
		[]string{"layer 1 attention", "position 1", "key j = 164"},
		[]string{"q_1·k_1 = 200 × 328 = 65600", "score of j = 164", "65504"})
}

// causeOneLayer returns a model over the components names, with one
// symbol per embedding row, the given layer, and the readout of the
// component out.
func causeOneLayer(names []string, alphabet []string, embed [][]*big.Rat, layer model.Layer, out int) *model.Model {
	we := make([]model.Vector, len(embed))
	for s, row := range embed {
		we[s] = model.RatVector(row...)
	}
	w := model.Zeros(1, len(names))
	w.Set(0, out, numeric.LitInt(1))
	return &model.Model{Name: "cause-test", Alphabet: alphabet, WordEmbedding: we, D: len(names), Components: names,
		Layers: []model.Layer{layer}, Output: model.Output{Kind: model.Readout, W: w, Labels: []string{names[out]}}}
}

// TestCauseAbsorbedResidual: x = 1, and a feed-forward sublayer adds the
// constant b2 = 1/1024 through its residual connection: exactly x becomes
// 1025/1024. bf16 has an 8-bit significand, so its spacing at 1 is 2^-7
// and 1 + 2^-10 lies within half of it (2^-8) of 1: bf16 keeps x = 1.
func TestCauseAbsorbedResidual(t *testing.T) {
	layer := model.Layer{FeedForward: &model.FeedForward{
		W1: model.Zeros(1, 1), W2: model.Zeros(1, 1), B2: model.RatVector(big.NewRat(1, 1024)), Activation: model.ReLU}}
	m := causeOneLayer([]string{"x"}, []string{"a"}, [][]*big.Rat{{big.NewRat(1, 1)}}, layer, 0)
	con := &recipes.Construction{Model: m, Expected: func(c recipes.Case) []recipes.Want {
		want := make([]recipes.Want, c.Len())
		for i := range want {
			want[i] = recipes.Want{Values: []*big.Rat{big.NewRat(1025, 1024)}}
		}
		return want
	}}
	cause := causeOf(t, con, causeRunner(t, "bf16", m), recipes.Case{Symbols: []int{0}}, 1)
	causeWant(t, cause, "absorbed",
		[]string{"layer 1 feed-forward, position 1, component x"},
		[]string{"adds y = 1/1024 to x = 1, exactly 1025/1024", "bf16 keeps x = 1", "below half its spacing 2^-8"})
}

// TestCauseAbsorbedDyck1: dyck1-n (§A Transformer Construction for
// Dyck-1) at N = 64 on ")(", position 2. There B_2/2 = 0 and
// t_2 = (ReLU(−B_1/1) + ReLU(−B_2/2))/2 = (1 + 0)/2 = 1/2, and the prefix
// is rejected because GTZero_ε(t) = 1 with ε = 1/N² = 1/4096: the
// comparison's hidden units are t and t − ε, and W2 = [1/ε, −1/ε] gives
// 4096 (1/2 − 2047/4096) = 1. In bf16 the spacing at 1/2 is 2^-8, and
// ε = 2^-12 is below half of it: t − ε comes out 1/2, GTZero gives 0, and
// the prefix is accepted.
func TestCauseAbsorbedDyck1(t *testing.T) {
	r, err := recipes.Get("dyck1-n")
	if err != nil {
		t.Fatal(err)
	}
	con, err := r.Construct(model.AverageHardmax, 64, nil)
	if err != nil {
		t.Fatal(err)
	}
	in, err := con.Model.Tokenize(")(")
	if err != nil {
		t.Fatal(err)
	}
	cause := causeOf(t, con, causeRunner(t, "bf16", con.Model), recipes.Case{Symbols: in}, 2)
	causeWant(t, cause, "absorbed",
		[]string{"feed-forward", "position 2", "hidden unit"},
		[]string{"adding the bias b1 = -1/4096 to the sum so far, 0.5, gives 2047/4096 exactly", "bf16 keeps 0.5", "below half its spacing 2^-8"})
}

// causeSumModel is one head over (1, a, b, c, v, o) with q = (1, 1, 1) and
// k_j = (a_j, b_j, c_j), so s_j = a_j + b_j + c_j summed left to right,
// and o = v at the maximum, on the symbols p and r with the given rows
// (1, a, b, c, v, 0); the expected o is 1 (p's v) at every position.
func causeSumModel(p, r []*big.Rat) (*model.Model, *recipes.Construction) {
	names := []string{"1", "a", "b", "c", "v", "o"}
	q, k, v := model.Zeros(3, 6), model.Zeros(3, 6), model.Zeros(6, 6)
	for row := 0; row < 3; row++ {
		q.Set(row, 0, numeric.LitInt(1))
		k.Set(row, 1+row, numeric.LitInt(1))
	}
	v.Set(5, 4, numeric.LitInt(1))
	layer := model.Layer{Attention: &model.Attention{Heads: []model.Head{{Q: q, K: k, V: v}},
		Weighting: model.AverageHardmax, Scale: model.NoScale}}
	m := causeOneLayer(names, []string{"p", "r"}, [][]*big.Rat{p, r}, layer, 5)
	con := &recipes.Construction{Model: m, Expected: func(c recipes.Case) []recipes.Want {
		want := make([]recipes.Want, c.Len())
		for i := range want {
			want[i] = recipes.Want{Values: []*big.Rat{big.NewRat(1, 1)}}
		}
		return want
	}}
	return m, con
}

// TestCauseTieSum: p has (a, b, c, v) = (1024, 1/2, 1/2, 1), score 1025;
// r has (1024, 0, 1/4, 0), score 1024.25. fp16's spacing in [1024, 2048)
// is 1, so the exact scores would round apart (to 1025 and 1024), but
// the sum computed left to right loses the fractions: for p, 1024 + 1/2
// is a tie that goes to the even 1024, twice; for r, 1024 + 1/4 rounds to
// 1024. Both scores come out 1024, AHAT averages v, and o = 1/2 instead
// of 1: a tie of the computed scores, which the rounding of the exact
// scores alone would not show.
func TestCauseTieSum(t *testing.T) {
	rat := big.NewRat
	m, con := causeSumModel(
		[]*big.Rat{rat(1, 1), rat(1024, 1), rat(1, 2), rat(1, 2), rat(1, 1), rat(0, 1)},
		[]*big.Rat{rat(1, 1), rat(1024, 1), rat(0, 1), rat(1, 4), rat(0, 1), rat(0, 1)})
	cause := causeOf(t, con, causeRunner(t, "fp16", m), recipes.Case{Symbols: []int{0, 1}}, 1)
	causeWant(t, cause, "tie",
		[]string{"layer 1 attention", "position 1", "j = 1 and 2"},
		[]string{"the scores of j = 1 and j = 2 are 1025 and 1024.25 exactly, but fp16 computes both as 1024",
			"in q·k of j = 2, the partial sum up to component 3, 1024 + 0.25 = 1024.25, rounds to 1024",
			"in q·k of j = 1, the partial sum up to component 2, 1024 + 0.5 = 1024.5, rounds to 1024",
			"in q·k of j = 1, the partial sum up to component 3, 1024 + 0.5 = 1024.5, rounds to 1024",
			"values W^V h_j differ (o: 1 and 0)"})
}

// TestCauseGapReversed: p as in TestCauseTieSum, exact score 1025,
// computed 1024; r has (a, b, c, v) = (1025, −1/4, 0, 0), exact score
// 1024.75, but fp16 rounds 1025 − 1/4 to 1025 (the nearest value at
// spacing 1). The computed scores 1024 and 1025 reverse the exact order
// by one unit, AHAT picks r alone, and o = 0 instead of 1: a "gap" of
// the computed scores, reversed by 1 unit of fp16's spacing 1.
func TestCauseGapReversed(t *testing.T) {
	rat := big.NewRat
	m, con := causeSumModel(
		[]*big.Rat{rat(1, 1), rat(1024, 1), rat(1, 2), rat(1, 2), rat(1, 1), rat(0, 1)},
		[]*big.Rat{rat(1, 1), rat(1025, 1), rat(-1, 4), rat(0, 1), rat(0, 1), rat(0, 1)})
	cause := causeOf(t, con, causeRunner(t, "fp16", m), recipes.Case{Symbols: []int{0, 1}}, 1)
	causeWant(t, cause, "gap",
		[]string{"layer 1 attention", "position 1", "j = 1 and 2"},
		[]string{"the largest score, 1025 (j = 1), leads 1024.75 (j = 2) by 0.25 exactly, but fp16 computes them as 1024 and 1025, reversed by 1 unit of its spacing 1 there",
			"in q·k of j = 2, the partial sum up to component 2, 1025 + (-0.25) = 1024.75, rounds to 1025",
			"values W^V h_j differ (o: 1 and 0)"})
}

// TestCauseTieLookupFP8E4M3: lookup at fp8-e4m3 (4 significand bits:
// spacing 1 in [8, 16), 2 in [16, 32), 4 in [32, 64)) on
// "3:1 1:0 1:0 2:1 4:0"; position 5 queries q = 4 and should retrieve
// v_4 = 1. The exact scores 2·4·j − j² are 7, 12, 15, 16, 15 (j = 1 … 5):
// j = 4 is the unique maximum. The stream holds j² = 25 at position 5 as
// 24 (halfway between 24 and 26, ties to even), and the format computes
// 4 × 10 − 24 = 16 for j = 5, as 4 × 8 − 16 = 16 for j = 4; j = 3 stays
// at 24 − 9 = 15, exact. AHAT averages v_4 = 1 and v_5 = 0 into 1/2: the
// tie is j = 4 and 5 (whose values differ), not j = 3 and 4, which the
// exact scores' runner-up would name.
func TestCauseTieLookupFP8E4M3(t *testing.T) {
	con, c := causeLookup(t, 64, 5, map[int]int{1: 3, 4: 2, 5: 4}, map[int]int{1: 1, 4: 1})
	if got := check.CaseText(con.Model, c); got != "3:1 1:0 1:0 2:1 4:0" {
		t.Fatalf("input %q", got)
	}
	cause := causeOf(t, con, causeRunner(t, "fp8-e4m3", con.Model), c, 5)
	causeWant(t, cause, "tie",
		[]string{"layer 1 attention", "position 5", "keys j = 4 and 5"},
		[]string{"the scores of j = 4 and j = 5 are 16 and 15 exactly, but fp8-e4m3 computes both as 16",
			"at position 5, j² = 25 rounds to 24", "values W^V h_j differ (c: 1 and 0)"})
}

// TestCauseTieLookupFP8E5M2: lookup at fp8-e5m2 (3 significand bits:
// spacing 1 in [4, 8), 2 in [8, 16)) on "1:0 1:0 2:1"; position 3 queries
// q = 2 and should retrieve v_2 = 0. The exact scores 4j − j² are 3, 4, 3:
// j = 2 is the maximum, and j = 1 the first runner-up, but v_1 = v_2 = 0,
// so no rounding between them can change c. The stream holds j² = 9 at
// position 3 as 8 (halfway between 8 and 10, ties to even), and the
// format computes 2 × 6 − 8 = 4 for j = 3, as 2 × 4 − 4 = 4 for j = 2:
// AHAT averages v_2 = 0 and v_3 = 1 into 1/2. The tie is j = 2 and 3.
func TestCauseTieLookupFP8E5M2(t *testing.T) {
	con, c := causeLookup(t, 64, 3, map[int]int{3: 2}, map[int]int{3: 1})
	if got := check.CaseText(con.Model, c); got != "1:0 1:0 2:1" {
		t.Fatalf("input %q", got)
	}
	cause := causeOf(t, con, causeRunner(t, "fp8-e5m2", con.Model), c, 3)
	causeWant(t, cause, "tie",
		[]string{"layer 1 attention", "position 3", "keys j = 2 and 3"},
		[]string{"the scores of j = 2 and j = 3 are 4 and 3 exactly, but fp8-e5m2 computes both as 4",
			"at position 3, j² = 9 rounds to 8", "values W^V h_j differ (c: 0 and 1)"})
}

// TestCauseTieLookupLH: lookup-lh at fp8-e5m2 on "1:0 1:0 1:1": every
// position queries 1 and should retrieve v_1 = 0. The exact scores are
// lh(1)·lh(j) = 4(j + 1)/√(2(j² + 1)): 4, 12/√10 ≈ 3.795, 16/√20 ≈
// 3.578. The format's layer norm of (3, 1, −3, −1) (position 3) rounds
// the squares 9 to 8, and their sums 8 + 1 = 9 to 8 and 16 + 1 = 17 to 16,
// so σ² = 16/4 = 4 instead of 5, and it holds lh(3) as (3, 1, −3, −1)/2 =
// (1.5, 0.5, −1.5, −0.5) instead of ≈ (1.342, 0.447, −1.342, −0.447);
// lh(1) = (1, 1, −1, −1) is exact. Then q·k_3 = 1.5 + 0.5 + 1.5 + 0.5 = 4,
// every partial sum exact, ties with q·k_1 = 4, and AHAT averages v_1 = 0
// and v_3 = 1 into 1/2. (For j = 2 the format holds lh(2) as (1.25,
// 0.625, …) and computes 3.5: no tie.) The tie is j = 1 and 3, not j = 1
// and 2, whose values are both 0.
func TestCauseTieLookupLH(t *testing.T) {
	con, c := causeQV(t, "lookup-lh", 64, 3, nil, map[int]int{3: 1})
	if got := check.CaseText(con.Model, c); got != "1:0 1:0 1:1" {
		t.Fatalf("input %q", got)
	}
	runner := causeRunner(t, "fp8-e5m2", con.Model)
	for _, pos := range []int{1, 3} {
		cause := causeOf(t, con, runner, c, pos)
		causeWant(t, cause, "tie",
			[]string{"layer 3 attention", "position " + strconv.Itoa(pos), "keys j = 1 and 3"},
			[]string{"the scores of j = 1 and j = 3 are 4 and ≈3.57771 in the reference, but fp8-e5m2 computes both as 4",
				"at position 3, lh(i)1 is 1.5 for the reference's ≈1.34164", "at position 3, lh(i)2 is 0.5 for the reference's ≈0.447214",
				"values W^V h_j differ (c: 0 and 1)"})
	}
}

// TestCauseOverflowStream: a recipe over real vectors (recipes.Case.Stream),
// add at fp16 on x = y = 65504, fp16's largest finite value: both inputs
// are held exactly, but the sum 131008 is beyond the range, and the
// feed-forward sublayer that writes out = x + y holds +Inf.
func TestCauseOverflowStream(t *testing.T) {
	r, err := recipes.Get("add")
	if err != nil {
		t.Fatal(err)
	}
	con, err := r.Construct(model.AverageHardmax, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	c, err := con.Parse("65504, 65504")
	if err != nil {
		t.Fatal(err)
	}
	cause := causeOf(t, con, causeRunner(t, "fp16", con.Model), c, 1)
	causeWant(t, cause, "overflow",
		[]string{"layer 1 feed-forward, position 1, component out"},
		[]string{"the exact value 131008 is beyond fp16's largest finite value 65504", "+Inf"})
}

// TestCauseDataflow: multihead (§Simulating Multi-Head Attention with
// Single-Head Attention) runs head 1 (query q_i) in layer 1 and head 2
// (query n+1−q_i) in layer 2, each reading only q, 1, j, j², v, n+1, and
// adds c1 + c2. With n = 50: position 2 queries 46, and in layer 1 its
// scores 2115, 2116, 2115 at j = 45, 46, 47 tie in fp16 (as in the
// lookup); position 1 queries 1, so head 2's query there is 50, with
// scores 100j − j², 2499 and 2500 at j = 49 and 50: fp16 holds j² = 2401
// as the even 2400 (spacing 2), and computes 50 × 98 − 2400 = 2500 for
// j = 49 as for j = 50 (5000 − 2500). Position 1 fails through layer 2's tie alone: layer 2
// reads no output of layer 1 at position 2, and the diagnosis must not
// blame that earlier tie. Position 2 fails through layer 1's.
func TestCauseDataflow(t *testing.T) {
	con, c := causeQV(t, "multihead", 50, 50, map[int]int{2: 46}, map[int]int{46: 1, 50: 1})
	runner := causeRunner(t, "fp16", con.Model)
	causeWant(t, causeOf(t, con, runner, c, 1), "tie",
		[]string{"layer 2 attention", "position 1", "j = 49 and 50"},
		[]string{"the scores of j = 49 and j = 50 are 2499 and 2500 exactly", "fp16 computes both as 2500", "at position 49, j² = 2401 rounds to 2400"})
	causeWant(t, causeOf(t, con, runner, c, 2), "tie",
		[]string{"layer 1 attention", "position 2", "j = 45 and 46"},
		[]string{"the scores of j = 45 and j = 46 are 2115 and 2116 exactly"})
}

// TestCauseWideReference: lh at 1000 bits on (a, b) = (75/2, 15/2), x = 5:
// lh_1 = 5·√(2/26) is irrational, so the 1000-bit run cannot be right,
// and the diagnosis needs a floating-point reference (a square root).
// At 256 bits that reference is some 2^-256 off, 2^743 of the format's
// units at 2^-999: it must be max(256, 1000 + 64) = 1064 bits wide, and
// then the format's value is off by less than a unit (a correctly rounded
// layer norm: a few roundings of at most half a unit each, relative).
// No number printed has more than maxDigits significant digits.
func TestCauseWideReference(t *testing.T) {
	r, err := recipes.Get("lh")
	if err != nil {
		t.Fatal(err)
	}
	con, err := r.Construct(model.AverageHardmax, 2, nil)
	if err != nil {
		t.Fatal(err)
	}
	c, err := con.Parse("75/2, 15/2")
	if err != nil {
		t.Fatal(err)
	}
	if got := refBits(numeric.MustParsePrecision("1000")); got != 1064 {
		t.Errorf("refBits(1000) = %d, want 1064", got)
	}
	if got := refBits(numeric.MustParsePrecision("fp64")); got != 256 {
		t.Errorf("refBits(fp64) = %d, want 256", got)
	}
	cause := causeOf(t, con, causeRunner(t, "1000", con.Model), c, 1)
	causeWant(t, cause, "rounding",
		[]string{"layer 2 feed-forward, position 1, component lh1"},
		[]string{"units of its spacing 2^-999 there", "against a 1064-bit reference"})
	m := regexp.MustCompile(`off by ([0-9.e+]+) units?`).FindStringSubmatch(cause.Detail)
	if m == nil {
		t.Fatalf("detail %q names no unit count", cause.Detail)
	}
	if u, err := strconv.ParseFloat(m[1], 64); err != nil || u >= 1 {
		t.Errorf("off by %s units, want less than 1", m[1])
	}
	for _, run := range regexp.MustCompile(`[0-9]+(\.[0-9]+)?`).FindAllString(cause.Detail, -1) {
		if significantDigits(run) > maxDigits {
			t.Errorf("detail prints %s, more than %d digits", run, maxDigits)
		}
	}
}

// TestCauseUnitsText: unit counts print briefly at any size, and values
// a wide format holds to maxDigits digits.
func TestCauseUnitsText(t *testing.T) {
	// 2^3000 ≈ 1.23e903 and 2156·10^216 = 2.156e219.
	huge := new(big.Rat).SetInt(new(big.Int).Lsh(big.NewInt(1), 3000))
	big219 := new(big.Rat).SetInt(new(big.Int).Mul(big.NewInt(2156), new(big.Int).Exp(big.NewInt(10), big.NewInt(216), nil)))
	for _, tc := range []struct {
		u    *big.Rat
		want string
	}{
		{big.NewRat(1, 1), "1 unit"},
		{big.NewRat(3, 4), "0.75 units"},
		{big.NewRat(250, 1), "250 units"},
		{big.NewRat(123456789, 1), "about 1.2e8 units"},
		{big219, "about 2.2e219 units"},
		{huge, "about 1.2e903 units"},
	} {
		if got := unitsText(tc.u); got != tc.want {
			t.Errorf("unitsText(%s) = %q, want %q", numText(tc.u), got, tc.want)
		}
	}
	third := causeRunner(t, "1000", causeOneLayer([]string{"x"}, []string{"a"}, [][]*big.Rat{{big.NewRat(1, 1)}}, model.Layer{
		FeedForward: &model.FeedForward{W1: model.Zeros(1, 1), W2: model.Zeros(1, 1), Activation: model.ReLU}}, 0)).Round(big.NewRat(1, 3))
	if got, want := heldText(third), "≈0.33333333333333333333"; got != want {
		t.Errorf("heldText(1/3 at 1000 bits) = %q, want %q", got, want)
	}
	if got := heldText(eval.Value{Lo: big.NewRat(5, 4), Hi: big.NewRat(5, 4), Text: "1.25"}); got != "1.25" {
		t.Errorf("heldText(1.25) = %q", got)
	}
}
