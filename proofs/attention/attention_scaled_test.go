package attention

import (
	"bufio"
	"fmt"
	"math"
	"math/big"
	"os"
	"strings"
	"testing"

	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/model/eval"
	"github.com/transformer-cookbook/verify/numeric"
	"github.com/transformer-cookbook/verify/proofs"
)

// The second reading, under Definition def:attn (scores q·k/√d_key),
// Checked against hand derivations and against an independent
// computation (testdata/scaled_softmax.py).

// TestAttnSqrtDKeyModelCopies: the scaled reading is a copy with every
// attention layer's scale set; the recipe's model keeps q·k.
func TestAttnSqrtDKeyModelCopies(t *testing.T) {
	con := construct(t, "multihead", model.Softmax, 3, nil)
	m := sqrtDKeyModel(con.Model)
	layers := 0
	for l := range m.Layers {
		if m.Layers[l].Attention == nil {
			continue
		}
		layers++
		if m.Layers[l].Attention.Scale != model.ScaleSqrtDKey {
			t.Errorf("layer %d: scale %v in the copy", l+1, m.Layers[l].Attention.Scale)
		}
		if con.Model.Layers[l].Attention.Scale != model.NoScale {
			t.Errorf("layer %d: the recipe's model was changed to %v", l+1, con.Model.Layers[l].Attention.Scale)
		}
	}
	if layers != 2 {
		t.Errorf("%d attention layers, want the simulation's 2", layers)
	}
}

// engineGap is the smallest gap over queries q ∈ [N] of a lookup
// model's first-layer scores (query "q:0" at position 1, keys "1:0" at
// positions 1 … N), computed by the engine's own score path (HeadScore,
// which divides by √d_key where the model says so) in backend b: the
// enclosure [lo, hi] of min_q (s_qq − max_{j≠q} s_qj).
func engineGap[T any](t *testing.T, b numeric.Backend[T], m *model.Model, n int) (lo, hi *big.Rat) {
	t.Helper()
	inst, err := eval.Instantiate(b, m)
	if err != nil {
		t.Fatal(err)
	}
	sym := map[string]int{}
	for s, name := range m.Alphabet {
		sym[name] = s
	}
	proj := func(s, i int, p eval.Projection) []T {
		h, err := inst.Steps().Embed(s, i, n)
		if err != nil {
			t.Fatal(err)
		}
		x, err := inst.Steps().SublayerInput(0, true, h)
		if err != nil {
			t.Fatal(err)
		}
		return inst.Steps().HeadProjection(0, 0, p, x)
	}
	for q := 1; q <= n; q++ {
		qv := proj(sym[fmt.Sprintf("%d:0", q)], 1, eval.QueryProjection)
		scores := make([]T, n+1)
		for j := 1; j <= n; j++ {
			if scores[j], err = inst.Steps().HeadScore(0, 0, qv, proj(sym["1:0"], j, eval.KeyProjection)); err != nil {
				t.Fatal(err)
			}
		}
		for j := 1; j <= n; j++ {
			if j == q {
				continue
			}
			glo, ghi, err := b.Bounds(b.Sub(b.New(), scores[q], scores[j]))
			if err != nil {
				t.Fatal(err)
			}
			if lo == nil || ghi.Cmp(hi) < 0 {
				lo, hi = glo, ghi
			}
		}
	}
	return lo, hi
}

// TestAttnScaledGapIsUnscaledOverSqrtDKey: for each lookup the engine's
// gap under Definition def:attn is its q·k gap divided by √d_key, with
// d_key derived by hand from the paper's projections (one-hot: W^Q is
// [I^{N×N} 0 0], so N; qm: two rows [q_i; 1], so 2; ao: m rows, m =
// ⌈(12k/ε²) log 2N⌉ = ⌈192 log 4⌉ = 267 at N = 2, ε = 1/4, δ = 1/2, k = 1),
// and where the paper states the q·k gap (γ = 1) the scaled one is
// 1/√d_key. Squares are compared: gap² · d_key = (q·k gap)².
func TestAttnScaledGapIsUnscaledOverSqrtDKey(t *testing.T) {
	for _, tc := range []struct {
		recipe string
		params map[string]string
		n      int
		dKey   int
		qkGap  *big.Rat // nil: a sampled family, not stated
	}{
		{"lookup-onehot", nil, 2, 2, big.NewRat(1, 1)},
		{"lookup-onehot", nil, 5, 5, big.NewRat(1, 1)},
		{"lookup", nil, 3, 2, big.NewRat(1, 1)},
		{"lookup", nil, 9, 2, big.NewRat(1, 1)},
		{"lookup-ao", params("eps", "1/4", "delta", "1/2", "seed", "1"), 2, 267, nil},
	} {
		t.Run(fmt.Sprintf("%s N=%d", tc.recipe, tc.n), func(t *testing.T) {
			con := construct(t, tc.recipe, model.AverageHardmax, tc.n, tc.params)
			_, head, err := proofs.LookupHead(con.Model)
			if err != nil {
				t.Fatal(err)
			}
			if head.Q.Rows != tc.dKey || head.K.Rows != tc.dKey {
				t.Fatalf("W^Q has %d rows and W^K %d, want d_key = %d", head.Q.Rows, head.K.Rows, tc.dKey)
			}
			// Q·k exactly (the rational weights of the recipes); q·k/√d_key
			// in 64-bit intervals, √d_key being irrational but for squares.
			ulo, uhi := engineGap(t, numeric.NewExact(), con.Model, tc.n)
			if ulo.Cmp(uhi) != 0 {
				t.Fatalf("the q·k gap is not a point: [%s, %s]", ulo.FloatString(9), uhi.FloatString(9))
			}
			if tc.qkGap != nil && ulo.Cmp(tc.qkGap) != 0 {
				t.Errorf("q·k gap %s, the paper's γ = %s", ulo.RatString(), tc.qkGap.RatString())
			}
			slo, shi := engineGap(t, numeric.NewIntervals(64), sqrtDKeyModel(con.Model), tc.n)
			d := big.NewRat(int64(tc.dKey), 1)
			want := new(big.Rat).Mul(ulo, ulo)
			lo2 := new(big.Rat).Mul(new(big.Rat).Mul(slo, slo), d)
			hi2 := new(big.Rat).Mul(new(big.Rat).Mul(shi, shi), d)
			if slo.Sign() <= 0 || lo2.Cmp(want) > 0 || hi2.Cmp(want) < 0 {
				t.Errorf("scaled gap [%s, %s]: its square times d_key = %d does not enclose (q·k gap)² = %s", slo.FloatString(12), shi.FloatString(12), tc.dKey, want.RatString())
			}
			// The checker's own measurement says the same d_key and gap.
			ev, err := lookupGapScaled(tc.recipe, tc.params, []int{tc.n}, func(int) *big.Rat { return big.NewRat(1, 2) }, true)
			if err != nil {
				t.Fatal(err)
			}
			text := fmt.Sprintf("d_key = %d", tc.dKey)
			if !strings.Contains(ev.Summary, text) {
				t.Errorf("the checker's evidence does not say %q: %s", text, ev.Summary)
			}
		})
	}
}

// TestAttnScaledGapVerdicts: the paper's γ = 1 is the gap of q·k and not
// of q·k/√d_key; with γ = 1/√d_key stated instead (squared: 1/d_key) the
// same checker proves it, so it can reach both verdicts.
func TestAttnScaledGapVerdicts(t *testing.T) {
	ev, err := lookupGapScaled("lookup", nil, []int{2, 3, 4}, func(int) *big.Rat { return big.NewRat(1, 1) }, false)
	wantVerdict(t, "qm, γ = 1 under def:attn", ev, err, proofs.Refuted)
	if !strings.Contains(ev.Summary, "its square 1/2 < 1") {
		t.Errorf("the counterexample is not (1/√2)² = 1/2 < 1: %s", ev.Summary)
	}
	// A stated gap whose square is 1/2 is √2/2 = 1/√2: not rational, so the
	// exact comparison needs a stated lower bound below it: 7/10 < 1/√2.
	ev, err = lookupGapScaled("lookup", nil, []int{2, 3, 4}, func(int) *big.Rat { return big.NewRat(7, 10) }, true)
	wantVerdict(t, "qm, gap ≥ 7/10 under def:attn", ev, err, proofs.Proved)
	ev, err = lookupGapScaled("lookup", nil, []int{2, 3, 4}, func(int) *big.Rat { return big.NewRat(71, 100) }, true)
	wantVerdict(t, "qm, gap ≥ 71/100 under def:attn (1/√2 ≈ 0.70711 < 71/100)", ev, err, proofs.Refuted)
	// One-hot at N = 4: d_key = 4, gap exactly 1/2.
	ev, err = lookupGapScaled("lookup-onehot", nil, []int{4}, func(int) *big.Rat { return big.NewRat(1, 2) }, false)
	wantVerdict(t, "one-hot N = 4, gap = 1/2 under def:attn", ev, err, proofs.Proved)
}

// TestAttnScaledTauInsufficient: the one-hot lookup built for N = 4 has
// 1/τ = log(8N)/γ = log 32, which suffices for q·k: Edelman's bound is
// 2N e^{−log 32} = 1/4, and the worst input of length n (the opposite
// value at every other position) gives S = (n − 1)/32, |c − v| =
// S/(1 + S): 2/34 = 1/17 at n = 3 (the lengths run here; 3/35 at n = 4). Under
// Definition def:attn d_key = N = 4 halves the lead to log(32)/2, so
// e^{−lead} = 1/√32: on "1:0 1:0 3:1" position 3 retrieves v_3 = 1 with
// weight α_3 = 1/(1 + 2/√32) = 2√2/(2√2 + 1), and c = α_3 < 3/4 because
// 8√2 < 6√2 + 3 ⇔ 2√2 < 3 ⇔ 8 < 9: |c − v| > 1/4.
func TestAttnScaledTauInsufficient(t *testing.T) {
	con := construct(t, "hardmax-softmax", model.Softmax, 4, nil)
	res, err := softCheck(con, 1, 3, iv, 1, "N = 4, q·k")
	if err != nil || res.fail != "" {
		t.Fatalf("q·k reading: %+v, %v; want every input within 1/4", res, err)
	}
	if lo := big.NewRat(1, 17); res.worst.Cmp(lo) < 0 || res.worst.Cmp(new(big.Rat).Add(lo, big.NewRat(1, 1<<40))) > 0 {
		t.Errorf("q·k reading: largest |c − v| ≤ %s, want 1/17 = %.12f", res.worst.FloatString(12), 1.0/17)
	}

	scaled := *con
	scaled.Model = sqrtDKeyModel(con.Model)
	res, err = softCheck(&scaled, 1, 3, iv, 1, "N = 4, q·k/√d_key")
	if err != nil || res.fail == "" || !strings.Contains(res.fail, "certified") {
		t.Fatalf("def:attn reading: %+v, %v; want a certified failure", res, err)
	}
	t.Log(res.fail)

	run, err := runner(scaled.Model, iv)
	if err != nil {
		t.Fatal(err)
	}
	in, err := scaled.Model.Tokenize("1:0 1:0 3:1")
	if err != nil {
		t.Fatal(err)
	}
	out, err := run.Run(in, false)
	if err != nil {
		t.Fatal(err)
	}
	c := out.Outputs[2].Values[1] // (y, c)
	if c.Hi.Cmp(big.NewRat(3, 4)) >= 0 {
		t.Errorf("c = %s at position 3: not certified below 3/4", c.Text)
	}
	want := 2 * math.Sqrt2 / (2*math.Sqrt2 + 1)
	lo, _ := c.Lo.Float64()
	hi, _ := c.Hi.Float64()
	if lo > want+1e-12 || hi < want-1e-12 {
		t.Errorf("c = %s, want 2√2/(2√2 + 1) = %.15f", c.Text, want)
	}

	ev, err := softmaxSimScaled(proofs.Sweep{Recipe: "hardmax-softmax", Weighting: model.Softmax, MaxN: 4, Precision: iv})
	wantVerdict(t, "one-hot, each N ≤ 4, def:attn", ev, err, proofs.Refuted)
	if !strings.Contains(ev.Summary, "N = 4") || !strings.Contains(ev.Summary, "every N < 4 holds") {
		t.Errorf("the refutation does not name N = 4 and the N below that hold: %s", ev.Summary)
	}
}

// independentWorst reads testdata/scaled_softmax.txt: the largest
// |c − v| over every input of every length n ≤ N, by lookup, reading and
// N, computed by scaled_softmax.py from the paper's formulas (mpmath).
func independentWorst(t *testing.T) map[string]float64 {
	t.Helper()
	f, err := os.Open("testdata/scaled_softmax.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string]float64{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var name, reading string
		var n, d int
		var w float64
		var verdict string
		if k, _ := fmt.Sscanf(sc.Text(), "%s %s N=%d d_key=%d worst=%g %s", &name, &reading, &n, &d, &w, &verdict); k == 6 {
			out[fmt.Sprintf("%s %s %d", name, reading, n)] = w
		}
	}
	if len(out) == 0 {
		t.Fatal("testdata/scaled_softmax.txt holds no rows")
	}
	return out
}

// TestAttnScaledSoftmaxMatchesIndependent: for each N, the largest
// |c − v| the certified check finds over every input (the far end of an
// enclosure, so at least the true value) lies within 10⁻⁹ above the
// independent computation, in both readings; and the verdicts agree with
// it: one-hot under def:attn first exceeds 1/4 at N = 4.
func TestAttnScaledSoftmaxMatchesIndependent(t *testing.T) {
	want := independentWorst(t)
	for _, tc := range []struct {
		py     string
		recipe string
		maxN   int
	}{
		{"onehot", "hardmax-softmax", 3},
		{"qm", "lookup", 3},
		{"lh", "lookup-lh", 2},
	} {
		for _, scaled := range []bool{false, true} {
			reading := "q.k"
			if scaled {
				reading = "q.k/sqrt(d_key)"
			}
			for n := 1; n <= tc.maxN; n++ {
				w, ok := want[fmt.Sprintf("%s %s %d", tc.py, reading, n)]
				if !ok {
					t.Fatalf("no independent value for %s %s N = %d", tc.py, reading, n)
				}
				res, err := softRun(proofs.Sweep{Recipe: tc.recipe, Weighting: model.Softmax, MaxN: n, Precision: iv, SqrtDKey: scaled})
				if err != nil {
					t.Fatal(err)
				}
				if res.fail != "" {
					t.Errorf("%s %s N = %d: %s, but the independent worst is %.12f ≤ 1/4", tc.recipe, reading, n, res.fail, w)
					continue
				}
				got, _ := res.worst.Float64()
				if got < w-1e-12 || got > w+1e-9 {
					t.Errorf("%s %s N = %d: largest |c − v| ≤ %.12f, independent %.12f", tc.recipe, reading, n, got, w)
				}
			}
		}
	}
	if w := want["onehot q.k/sqrt(d_key) 4"]; w <= 0.25 {
		t.Errorf("the independent computation has one-hot at N = 4 within 1/4 (%.6f): the refutation would be wrong", w)
	}
}

// TestAttnEdelmanScaled: with γ read from q·k the lemma's bound holds
// where the scale is 1 and fails under def:attn only where γ is large: at
// n = 2, d_key = 4, ‖·‖₁ = 2S/(1 + S) with S = e^{−γ/2}; for γ = 1 that is
// 2e^{−1/2}/(1 + e^{−1/2}) ≈ 0.755 ≤ 4e^{−1} ≈ 1.47, for γ = 4 it is
// 2e^{−2}/(1 + e^{−2}) ≈ 0.238 > 4e^{−4} ≈ 0.0733.
func TestAttnEdelmanScaled(t *testing.T) {
	for _, tc := range []struct {
		ns, ds []int64
		gammas []string
		want   proofs.Verdict
	}{
		{[]int64{2, 3, 8}, []int64{1}, []string{"1", "2", "4", "8"}, proofs.Holds},
		{[]int64{2}, []int64{4}, []string{"1"}, proofs.Holds},
		{[]int64{2}, []int64{4}, []string{"4"}, proofs.Refuted},
	} {
		ev, err := edelmanScaled(tc.ns, tc.ds, tc.gammas)
		wantVerdict(t, fmt.Sprintf("n ∈ %v, d_key ∈ %v, γ ∈ %v", tc.ns, tc.ds, tc.gammas), ev, err, tc.want)
	}
	ev, err := edelmanScaled([]int64{2}, []int64{4}, []string{"4"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(ev.Summary, "[0.2384") {
		t.Errorf("‖·‖₁ at n = 2, d_key = 4, γ = 4 is 2e^{−2}/(1 + e^{−2}) ≈ 0.23841: %s", ev.Summary)
	}
}

// TestAttnLeadText: 2N e^{−log(8N)/√d_key} is √(N/2)·… by hand: at N = 4,
// d_key = 4 it is 8/√32 = √2 > 1/4; at d_key = 1 it is 2N/(8N) = 1/4.
func TestAttnLeadText(t *testing.T) {
	text, over, err := leadText(4, []int{4})
	if err != nil || !over || !strings.Contains(text, "[1.41421, 1.41421] > 1/4") {
		t.Errorf("N = 4, d_key = 4: %q, over %v, %v; want √2 > 1/4", text, over, err)
	}
	text, over, err = leadText(3, []int{1})
	if err != nil || over || !strings.Contains(text, "= 1/4") {
		t.Errorf("N = 3, d_key = 1: %q, over %v, %v; want = 1/4", text, over, err)
	}
}

// TestAttnScaledHardCanRefute: the run under def:attn refutes a
// tie-breaking term larger than the base gap (γ = 3 against gap 1: with
// t = −1/j, on "1:0 0:1" position 2 has the scores (1 − 3)/√2 and
// (0 − 3/2)/√2, so it selects j = 2, whose key 0 is not the maximal 1, and
// retrieves v_2 = 1 instead of v_1 = 0), as it does under q·k: the common
// factor 1/√2 changes no maximum.
func TestAttnScaledHardCanRefute(t *testing.T) {
	s := proofs.Sweep{Recipe: "tiebreak", Weighting: model.AverageHardmax, MaxN: 3, Params: params("t", "-1/j", "mask", "future", "gamma", "3")}
	ev, err := scaledHard(iv, s)
	wantVerdict(t, "γ = 3 > gap 1, def:attn", ev, err, proofs.Refuted)
	if !strings.Contains(ev.Summary, `"1:0 0:1", position 2`) {
		t.Errorf("the first counterexample is not \"1:0 0:1\" at position 2: %s", ev.Summary)
	}
	ev, err = scaledHard(iv, proofs.Sweep{Recipe: "tiebreak", Weighting: model.AverageHardmax, MaxN: 3, Params: params("t", "-1/j", "mask", "future", "gamma", "1")})
	wantVerdict(t, "γ = 1, def:attn", ev, err, proofs.Proved)
}
