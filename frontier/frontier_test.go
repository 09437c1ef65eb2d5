package frontier

import (
	"encoding/json"
	"fmt"
	"maps"
	"math/big"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/transformer-cookbook/verify/check"
	"github.com/transformer-cookbook/verify/internal/testenv"
	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/numeric"
	"github.com/transformer-cookbook/verify/recipes"
)

// qmLimit is the uniformity limit of the quadratic-maximization lookup
// with a P-bit significand, derived by hand: the scores 2qj − j² are
// integers, largest q² at j = q and q² − 1 at j = q ± 1. Integers up to
// 2^P are exact, so for q² ≤ 2^P the two stay apart. For the next q,
// 2^P < q² < 2^(P+1), where the spacing is 2: of q² − 1 and q² one is
// odd, halfway between two even neighbours, and rounds to the one
// divisible by 4, which is the other (q even: q² ≡ 0 mod 4; q odd:
// q² − 1 ≡ 0 mod 8). The two scores tie, and average-hard attention
// averages v_q with its neighbour's. So the limit is ⌊√(2^P)⌋.
func qmLimit(p int) int {
	return int(new(big.Int).Sqrt(new(big.Int).Lsh(big.NewInt(1), uint(p))).Int64())
}

func lookupOpts(t *testing.T, maxN int, precisions ...string) Options {
	t.Helper()
	r, err := recipes.Get("lookup")
	if err != nil {
		t.Fatal(err)
	}
	var ps []numeric.Precision
	for _, p := range precisions {
		ps = append(ps, numeric.MustParsePrecision(p))
	}
	return Options{Recipe: r, Weighting: model.AverageHardmax, Precisions: ps, MaxN: maxN, Cases: 8, Exhaustive: 256, Seed: 1}
}

// TestFrontierQuadraticMaximization measures the lookup's limit in
// formats whose limit the sweep can reach quickly and compares it with
// qmLimit, and the prediction with it for float32's significand too.
func TestFrontierQuadraticMaximization(t *testing.T) {
	tests := []struct {
		precision string
		bits      int
		maxN      int
	}{
		{"fp16", 11, 64},
		{"bf16", 8, 32},
		{"12", 12, 100},
	}
	for _, tc := range tests {
		t.Run(tc.precision, func(t *testing.T) {
			want := qmLimit(tc.bits)
			rep, err := Run(lookupOpts(t, tc.maxN, tc.precision))
			if err != nil {
				t.Fatal(err)
			}
			row := rep.Rows[0]
			if row.Limit != want || row.Failure == nil || row.Failure.N != want+1 {
				t.Errorf("limit %d, first failure %+v; want limit %d and a failure at %d (checked %s)", row.Limit, row.Failure, want, want+1, checkedText(&row))
			}
			if row.Prediction == nil || row.Prediction.Limit != want {
				t.Errorf("prediction %+v, want limit %d", row.Prediction, want)
			}
			if c := row.Failure.Cause; c == nil || c.Kind != "tie" {
				t.Errorf("cause %+v, want a tie", c)
			}
			// The sweep checks the predicted limit and the length after
			// it, and, the theory being right here, the bisection checks
			// nothing else: the lengths beyond the geometric sweep are
			// those two.
			grid := map[int]bool{}
			for _, n := range check.DefaultLengths(1, tc.maxN) {
				grid[n] = true
			}
			var extra, wantExtra []int
			for _, lr := range row.Checked {
				if !grid[lr.N] {
					extra = append(extra, lr.N)
				}
			}
			for _, n := range []int{want, want + 1} {
				if !grid[n] {
					wantExtra = append(wantExtra, n)
				}
			}
			if !slices.Equal(extra, wantExtra) {
				t.Errorf("lengths beyond the geometric sweep %v, want %v (the limit %d and the length after it)", extra, wantExtra, want)
			}
		})
	}
	if got, want := Predict("lookup", numeric.MustParsePrecision("24"), 10000).Limit, qmLimit(24); got != want || want != 4096 {
		t.Errorf("predicted limit at 24 bits: %d, want %d = 4096", got, want)
	}
	// fp16's largest finite value is 65504: the products 2q·j overflow
	// from n = 181 (2·181² = 65522), long after the tie at 46.
	if p := Predict("lookup", numeric.MustParsePrecision("fp16"), 1000); p.Limit != 45 {
		t.Errorf("fp16 prediction %+v, want 45", p)
	}
}

// TestFrontierBisection: without the theory's predicted lengths
// (Options.unpredicted) the gap between the sweep's last pass and its
// first failure is closed by the bisection alone, and it must close it
// to the hand-derived limit qmLimit and the failure right after it, in
// formats whose gaps it halves down to 1 by different paths (fp16: 41 to
// 51; bf16: 15 to 18; 12 bits: 63 to 78). It must also check lengths
// beyond the geometric sweep, or it did not bisect. The lookup's y is 1/2
// where it fails (two tied positions averaged), which decides nothing,
// so there the decisions' bisection closes the same gap; a model whose
// failures still decide right leaves the gap to the limit's bisection
// alone: the lookup with a hidden unit ReLU(j − 19) added to its
// feed-forward layer, writing 1/100 of it into c, is exact up to n = 19
// and wrong in c at position 20, while y, read from c before the
// feed-forward layer adds it, stays exact.
func TestFrontierBisection(t *testing.T) {
	for _, tc := range []struct {
		precision string
		bits      int
		maxN      int
	}{
		{"fp16", 11, 64},
		{"bf16", 8, 32},
		{"12", 12, 100},
	} {
		t.Run(tc.precision, func(t *testing.T) {
			opts := lookupOpts(t, tc.maxN, tc.precision)
			opts.unpredicted = true
			bisected(t, opts, qmLimit(tc.bits))
		})
	}
	t.Run("decided failures", func(t *testing.T) {
		opts := lookupOpts(t, 24, "exact")
		opts.Model, opts.Analysis = positionalError(t, 24, 20), true
		row := bisected(t, opts, 19)
		if row.DecisionLimit != 24 {
			t.Errorf("decision limit %d, want 24: y is exact at every length (checked %s)", row.DecisionLimit, checkedText(row))
		}
	})
}

// bisected runs the sweep of opts (one precision) and requires its limit
// to be want, its first failure at want + 1, and some length beyond the
// geometric sweep checked.
func bisected(t *testing.T, opts Options, want int) *Row {
	t.Helper()
	rep, err := Run(opts)
	if err != nil {
		t.Fatal(err)
	}
	row := &rep.Rows[0]
	if row.Limit != want || row.Failure == nil || row.Failure.N != want+1 {
		t.Errorf("limit %d, first failure %+v; want limit %d and a failure at %d (checked %s)", row.Limit, row.Failure, want, want+1, checkedText(row))
	}
	grid := map[int]bool{}
	for _, n := range check.DefaultLengths(1, opts.MaxN) {
		grid[n] = true
	}
	beyond := 0
	for _, lr := range row.Checked {
		if !grid[lr.N] {
			beyond++
		}
	}
	if beyond == 0 {
		t.Errorf("no length beyond the geometric sweep was checked (checked %s): the bisection did not run", checkedText(row))
	}
	return row
}

// positionalError is the lookup built for N = maxN with one more hidden
// unit in its feed-forward layer, ReLU(j − (from − 1)), which adds 1/100
// of itself to c: c is wrong at every position from j = from on, and
// nowhere else; y, computed from c as the attention left it, is not.
func positionalError(t *testing.T, maxN, from int) *model.Model {
	t.Helper()
	r, err := recipes.Get("lookup")
	if err != nil {
		t.Fatal(err)
	}
	con, err := r.Construct(model.AverageHardmax, maxN, nil)
	if err != nil {
		t.Fatal(err)
	}
	m := con.Model
	comp := func(name string) int {
		c := slices.Index(m.Components, name)
		if c < 0 {
			t.Fatalf("the lookup has no component %q (%v)", name, m.Components)
		}
		return c
	}
	j, c := comp("j"), comp("c")
	ff := m.Layers[len(m.Layers)-1].FeedForward
	if ff == nil || ff.B1 == nil {
		t.Fatal("the lookup's last layer has no feed-forward sublayer with a bias")
	}
	h, d := ff.W1.Rows, ff.W1.Cols
	w1, w2 := model.Zeros(h+1, d), model.Zeros(ff.W2.Rows, h+1)
	copy(w1.Data, ff.W1.Data)
	w1.Data[h*d+j] = numeric.LitInt(1)
	for row := 0; row < ff.W2.Rows; row++ {
		copy(w2.Data[row*(h+1):row*(h+1)+h], ff.W2.Data[row*h:(row+1)*h])
	}
	w2.Data[c*(h+1)+h] = numeric.Lit(big.NewRat(1, 100))
	b1 := append(append(model.Vector(nil), ff.B1...), numeric.LitInt(-int64(from-1)))
	grown := *ff
	grown.W1, grown.B1, grown.W2 = w1, b1, w2
	m.Layers[len(m.Layers)-1].FeedForward = &grown
	return m
}

// TestFrontierDecisionBisection: a model whose outputs are inexact from
// n = 1 but decide right up to some length has a decision limit above its
// limit, which the bisection of the decisions closes on its own. The
// lookup's value weight is 101/100 (c = 1.01 v_q, inexact; y rounds it to
// v_q), and its key weight on j² is 37/38 instead of 1, so the scores are
// 2qj − (37/38) j², and j = q + 1 outscores j = q exactly when
// 2q − (37/38)(2q + 1) > 0, that is q ≥ 19: from n = 20 the query 19
// retrieves v_20, and y is wrong wherever v_19 ≠ v_20. The sweep to 24
// checks 18 and 22 (exact arithmetic predicts nothing); the decision limit
// must be 19, with 19 and 20 both checked.
func TestFrontierDecisionBisection(t *testing.T) {
	r, err := recipes.Get("lookup")
	if err != nil {
		t.Fatal(err)
	}
	con, err := r.Construct(model.AverageHardmax, 24, nil)
	if err != nil {
		t.Fatal(err)
	}
	head := con.Model.Layers[0].Attention.Heads[0]
	changed := 0
	for _, m := range []struct {
		w        model.Matrix
		from, to *big.Rat
	}{{head.K, big.NewRat(-1, 1), big.NewRat(-37, 38)}, {head.V, big.NewRat(1, 1), big.NewRat(101, 100)}} {
		for x, e := range m.w.Data {
			if v, ok, err := e.Rat(); err == nil && ok && v.Cmp(m.from) == 0 {
				m.w.Data[x] = numeric.Lit(m.to)
				changed++
			}
		}
	}
	if changed != 2 {
		t.Fatalf("%d weights changed, want W^K's −1 and W^V's 1", changed)
	}
	opts := lookupOpts(t, 24, "exact")
	opts.Model, opts.Analysis = con.Model, true
	rep, err := Run(opts)
	if err != nil {
		t.Fatal(err)
	}
	row := rep.Rows[0]
	if row.Limit != 0 || row.DecisionLimit != 19 {
		t.Errorf("limit %d, decision limit %d; want 0 and 19 (checked %s)", row.Limit, row.DecisionLimit, checkedText(&row))
	}
	decided := map[int]bool{}
	for _, lr := range row.Checked {
		decided[lr.N] = lr.Decided == lr.Cases
	}
	if d, ok := decided[19]; !ok || !d {
		t.Errorf("n = 19 not checked, or not decided right (checked %s)", checkedText(&row))
	}
	if d, ok := decided[20]; !ok || d {
		t.Errorf("n = 20 not checked, or decided right (checked %s)", checkedText(&row))
	}
}

// TestFrontierOverflowPrediction: fp8-e4m3 (P = 4, no infinities,
// largest 448) ties at q = 5 (25 and 24 round to 24); with a gap model
// of magnitude 2n², its overflow comes at n = 15 (2·15² = 450 > 448).
func TestFrontierOverflowPrediction(t *testing.T) {
	if p := Predict("lookup", numeric.MustParsePrecision("fp8-e4m3"), 100); p.Limit != qmLimit(4) {
		t.Errorf("fp8-e4m3: %+v, want %d", p, qmLimit(4))
	}
	if p := Predict("lookup-onehot", numeric.MustParsePrecision("fp8-e5m2"), 100); p.Limit != 0 {
		t.Errorf("one-hot scores are 0 and 1 in every format: %+v", p)
	}
	if p := Predict("lookup", numeric.MustParsePrecision("exact"), 100); p != nil {
		t.Errorf("exact arithmetic has no rounding limit: %+v", p)
	}
}

func encode(t *testing.T, rep *Report) []byte {
	t.Helper()
	b, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// roundTrip is what a shard's file gives back to merge.
func roundTrip(t *testing.T, rep *Report) *Report {
	t.Helper()
	var out Report
	if err := json.Unmarshal(encode(t, rep), &out); err != nil {
		t.Fatal(err)
	}
	return &out
}

// TestSummariseNotMonotone: a failure followed by passing lengths keeps
// the limit below the first failure and lists the lengths that pass
// again.
func TestSummariseNotMonotone(t *testing.T) {
	fail := &check.Failure{N: 10, Reason: "wrong"}
	row := Row{Checked: []check.LengthReport{{N: 8}, {N: 10, Failure: fail}, {N: 12}, {N: 15, Failure: fail}, {N: 18}}}
	row.summarise()
	if row.Limit != 8 || row.Failure == nil || row.Failure.N != 10 || len(row.PassesAgain) != 2 || row.PassesAgain[0] != 12 || row.PassesAgain[1] != 18 {
		t.Errorf("limit %d, failure %+v, passes again %v; want 8, n = 10, [12 18]", row.Limit, row.Failure, row.PassesAgain)
	}
	if got := row.LimitText(); got != "8" {
		t.Errorf("LimitText %q", got)
	}
	row = Row{Checked: []check.LengthReport{{N: 1}, {N: 2}}}
	row.summarise()
	if got := row.LimitText(); got != "≥ 2" {
		t.Errorf("every length passed: %q, want ≥ 2", got)
	}
}

// TestDecisionLimit: a decision limit is reported for outputs that
// decide something (truth values, symbols), and only for them: a value
// output counts every case as decided, which says nothing.
func TestDecisionLimit(t *testing.T) {
	fail := &check.Failure{Reason: "inexact"}
	checked := []check.LengthReport{
		{N: 1, Cases: 2, Decided: 2, Level: check.Exhaustive},
		{N: 2, Cases: 4, Decided: 4, Level: check.Sampled, Failure: fail},
		{N: 3, Cases: 4, Decided: 3, Level: check.Sampled, Failure: fail},
	}
	row := Row{Checked: checked}
	row.summarise()
	if got := row.DecisionText(); got != "" {
		t.Errorf("no decisions: DecisionText %q, want none", got)
	}
	row = Row{Checked: checked, Decisions: []string{"accept"}}
	row.summarise()
	if got := row.DecisionText(); got != "2ˢ" {
		t.Errorf("accept decides: DecisionText %q, want 2ˢ", got)
	}
	if lo, hi := decisionBracket(checked, 1); lo != 2 || hi != 3 {
		t.Errorf("decisionBracket (%d, %d), want (2, 3)", lo, hi)
	}
}

// TestBracket: the gaps the bisection closes. A failure brackets with the
// last length below it; a sampled pass where the analysis saw an order
// break brackets with the length below it until that one is checked, for
// the first such length only (else every length above it would be
// checked).
func TestBracket(t *testing.T) {
	fail := &check.Failure{Reason: "wrong"}
	clean := func(n int) check.LengthReport { return check.LengthReport{N: n, Level: check.Certified} }
	suspect := func(n int) check.LengthReport {
		return check.LengthReport{N: n, Level: check.Sampled, Candidates: 3}
	}
	failing := func(n int) check.LengthReport { return check.LengthReport{N: n, Level: check.Sampled, Failure: fail} }
	tests := []struct {
		name    string
		checked []check.LengthReport
		lo, hi  int
	}{
		{"all clean", []check.LengthReport{clean(1), clean(2), clean(4)}, 4, 0},
		{"a failure", []check.LengthReport{clean(1), clean(4), failing(8), clean(9)}, 4, 8},
		{"a first suspect", []check.LengthReport{clean(1), clean(4), suspect(8), suspect(16)}, 4, 8},
		{"its predecessor checked", []check.LengthReport{clean(1), clean(7), suspect(8), suspect(16), suspect(32)}, 32, 0},
		{"a failure above it", []check.LengthReport{clean(7), suspect(8), suspect(16), failing(32)}, 16, 32},
	}
	for _, tc := range tests {
		if lo, hi := bracket(tc.checked, 1); lo != tc.lo || hi != tc.hi {
			t.Errorf("%s: bracket (%d, %d), want (%d, %d)", tc.name, lo, hi, tc.lo, tc.hi)
		}
	}
}

// TestFrontierInterrupted: a stop request ends the sweep, and the report
// holds exactly the lengths reported done before it (five, or one more
// finished by the other precision while the stop was being noticed) and
// says it was interrupted.
func TestFrontierInterrupted(t *testing.T) {
	opts := lookupOpts(t, 64, "fp16", "bf16")
	var mu sync.Mutex
	reported := map[string]bool{}
	opts.Progress = func(_, _ int, precision string, n int) {
		mu.Lock()
		reported[fmt.Sprint(precision, " ", n)] = true
		mu.Unlock()
	}
	opts.Stop = func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(reported) >= 5
	}
	rep, err := Run(opts)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	for _, row := range rep.Rows {
		for _, lr := range row.Checked {
			got[fmt.Sprint(row.Precision, " ", lr.N)] = true
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if !rep.Interrupted || len(got) < 5 || !maps.Equal(got, reported) {
		t.Errorf("interrupted %v, lengths %v; want true, the lengths reported: %v", rep.Interrupted, slices.Sorted(maps.Keys(got)), slices.Sorted(maps.Keys(reported)))
	}
	var out strings.Builder
	WriteText(&out, rep)
	if !strings.Contains(out.String(), "INTERRUPTED") {
		t.Errorf("the text does not say the sweep was interrupted:\n%s", out.String())
	}
}

// TestDyckPositionsPrediction: the prediction for Dyck-1-2's j/n scores
// against a brute force through another rounding path (big.Float's own
// SetRat at 8 and 9 bits, bf16's significand and one more, exact for
// values in (0, 1]): the first n at which some j/n and (j+1)/n round to
// one value. In bf16 that is n = 258, the limit 257 that the targeted
// search of recipes' TestDyckMeasure also finds.
func TestDyckPositionsPrediction(t *testing.T) {
	brute := func(bits uint, maxN int) int {
		for n := 2; n <= maxN; n++ {
			for j := 1; j < n; j++ {
				a := new(big.Float).SetPrec(bits).SetRat(big.NewRat(int64(j), int64(n)))
				b := new(big.Float).SetPrec(bits).SetRat(big.NewRat(int64(j+1), int64(n)))
				if a.Cmp(b) == 0 {
					return n - 1
				}
			}
		}
		return 0
	}
	for _, tc := range []struct {
		precision string
		bits      uint
		maxN      int
	}{{"bf16", 8, 400}, {"9", 9, 600}} {
		want := brute(tc.bits, tc.maxN)
		got := Predict("dyck12", numeric.MustParsePrecision(tc.precision), tc.maxN)
		if got == nil || got.Limit != want || want == 0 {
			t.Errorf("%s: predicted %+v, brute force %d", tc.precision, got, want)
		}
	}
	if got := Predict("dyck12", numeric.MustParsePrecision("bf16"), 400); got.Limit != 257 {
		t.Errorf("bf16: %d, want 257", got.Limit)
	}
}

// TestLongFrontierDyck12: Dyck-1-2's neighbour searches score j by j/n,
// whose neighbours first round alike at the predicted limit + 1: in bf16
// (8-bit significand, spacing 2^-8 on [1/2, 1)) at n = 258, where
// 193/258 ≈ 0.74806 and 194/258 ≈ 0.75194 both lie within 2^-9 of 0.75;
// in fp8-e5m2 (3-bit significand) at n = 10, where 7/10 and 8/10 both
// round to 0.75. The frontier must find each failure: with the predicted
// limit among its lengths, and without it, where only the bisection below
// a length the analysis suspects (bracket) can reach it (in bf16, 293,
// the geometric length above 258, passes on its drawn inputs). With the
// prediction the analysis proves every length below the limit faithful
// to the construction (random inputs rarely hold the brackets that meet
// there; no claim proves the construction right, so faithful is the
// strongest level): in fp8-e5m2, every length 1 … 9. In bf16 the sweep
// is the bisected one only, which proves the checked lengths (ᶠ*): the
// analysis of every length 1 … 257 takes about 3.5 minutes of 2 cores
// alone and 9 beside the rest of the long tier, more than CI has, and
// the sweep of docs/frontier.md's limits table runs it.
func TestLongFrontierDyck12(t *testing.T) {
	testenv.Long(t)
	r, err := recipes.Get("dyck12")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		precision  string
		maxN       int
		predicted  bool
		limit      int
		limitText  string
		everyProof bool
	}{
		{"fp8-e5m2", 64, true, 9, "9ᶠ", true},
		{"fp8-e5m2", 64, false, 9, "9ᶠ", false},
		{"bf16", 300, false, 257, "257ᶠ*", false},
	} {
		name := fmt.Sprintf("%s/%s", tc.precision, map[bool]string{true: "predicted", false: "bisected"}[tc.predicted])
		t.Run(name, func(t *testing.T) {
			rep, err := Run(Options{Recipe: r, Weighting: model.LeftHardmax, Precisions: []numeric.Precision{numeric.MustParsePrecision(tc.precision)},
				MaxN: tc.maxN, Params: map[string]string{"check": "max"}, Cases: 8, Exhaustive: 256, Seed: 1, Analysis: true,
				unpredicted: !tc.predicted, NoEvery: !tc.predicted})
			if err != nil {
				t.Fatal(err)
			}
			row := rep.Rows[0]
			if row.Limit != tc.limit || row.LimitLevel != check.Faithful || row.Failure == nil || row.Failure.N != tc.limit+1 {
				t.Fatalf("limit %d (%s), failure %+v; want %d, faithful, and a failure at %d (checked %s)", row.Limit, row.LimitLevel, row.Failure, tc.limit, tc.limit+1, checkedText(&row))
			}
			if ev := row.EveryLength; tc.everyProof && (ev == nil || ev.Certified < tc.limit) {
				t.Errorf("every length: %+v, want every length to %d covered", ev, tc.limit)
			}
			if !strings.HasPrefix(row.LimitText(), tc.limitText) {
				t.Errorf("limit %q, want %s…", row.LimitText(), tc.limitText)
			}
			if c := row.Failure.Cause; c == nil || c.Kind != "tie" {
				t.Errorf("cause %+v, want a tie", c)
			}
		})
	}
}

// TestSweepLengths: a bisecting sweep adds the predicted limit and the
// length after it (qmLimit for the lookup) to its lengths, where they lie
// within [minN, maxN], and nothing where there is no limit to test.
func TestSweepLengths(t *testing.T) {
	grid := check.DefaultLengths(1, 64) // 1 … 8, 10, 12, 15, 18, 22, 27, 33, 41, 51, 63, 64
	with := func(extra ...int) []int { return slices.Sorted(slices.Values(append(slices.Clone(grid), extra...))) }
	for _, tc := range []struct {
		recipe, precision string
		minN, maxN        int
		bisect            bool
		want              []int
	}{
		{"lookup", "fp16", 1, 64, true, with(45, 46)},
		{"lookup", "fp16", 1, 64, false, grid},
		{"lookup", "bf16", 1, 64, true, with(16, 17)},
		{"lookup", "fp32", 1, 64, true, grid},    // the limit is 4096, past 64
		{"lookup", "exact", 1, 64, true, grid},   // no prediction
		{"multihead", "fp16", 1, 64, true, grid}, // no gap model
	} {
		got := sweepLengths(tc.recipe, tc.minN, grid, numeric.MustParsePrecision(tc.precision), tc.maxN, tc.bisect)
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s at %s, bisect %v: %v, want %v", tc.recipe, tc.precision, tc.bisect, got, tc.want)
		}
	}
	// A sweep to 45 predicts no limit (the tie is at 46, past it), so it
	// adds nothing; from minN = 46 the limit is below the sweep and only
	// the length after it is added.
	fp16 := numeric.MustParsePrecision("fp16")
	short := check.DefaultLengths(1, 45)
	if got := sweepLengths("lookup", 1, short, fp16, 45, true); !slices.Equal(got, short) {
		t.Errorf("fp16 to 45: %v, want %v", got, short)
	}
	late := check.DefaultLengths(46, 64)
	if got := sweepLengths("lookup", 46, late, fp16, 64, true); !slices.Equal(got, late) || !slices.Contains(got, 46) {
		t.Errorf("fp16 from 46 to 64: %v, want %v", got, late)
	}
	if got, want := sweepLengths("lookup", 46, []int{50, 64}, fp16, 64, true), []int{46, 50, 64}; !slices.Equal(got, want) {
		t.Errorf("fp16 at 50 and 64 from 46: %v, want %v", got, want)
	}
	// Predict keeps its results by maximum length, and a caller's copy
	// is its own.
	if a, b := Predict("lookup", fp16, 45), Predict("lookup", fp16, 64); a.Limit != 0 || b.Limit != 45 {
		t.Errorf("predicted limits to 45 and 64: %d and %d, want 0 and 45", a.Limit, b.Limit)
	}
	Predict("lookup", fp16, 64).Limit = 7
	if got := Predict("lookup", fp16, 64).Limit; got != 45 {
		t.Errorf("after a caller changed its copy: limit %d, want 45", got)
	}
}

// TestFrontierStopsWithinALength: a stop asked while a length runs ends
// the sweep then (within the 50 ms between polls), with the rows as they
// were: here before the one length, 1500 at 53 bits, was done (about
// half a second of one core). Before, a Ctrl-C waited for the lengths in
// progress, minutes at large n.
func TestFrontierStopsWithinALength(t *testing.T) {
	for _, sharded := range []bool{false, true} {
		opts := shardOpts(t, "lookup", 1500, "53")
		opts.Lengths, opts.NoBisect, opts.Analysis, opts.Cases, opts.Workers = []int{1500}, true, false, 2, 1
		if sharded {
			opts.Shards = 1
		}
		var asked atomic.Int32
		opts.Stop = func() bool { return asked.Add(1) > 1 }
		rep, err := Run(opts)
		if err != nil {
			t.Fatal(err)
		}
		row := rep.Rows[0]
		if !rep.Interrupted || len(row.Checked) != 0 || len(row.Parts) != 0 {
			t.Errorf("sharded %v: interrupted %v with %d lengths and %d parts; want interrupted before the first was done", sharded, rep.Interrupted, len(row.Checked), len(row.Parts))
		}
	}
}
