package recipes_test

import (
	"math/big"
	"slices"
	"testing"

	"github.com/transformer-cookbook/verify/check"
	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/model/eval"
	"github.com/transformer-cookbook/verify/numeric"
	"github.com/transformer-cookbook/verify/recipes"
	"github.com/transformer-cookbook/verify/recipes/blocks"
	"github.com/transformer-cookbook/verify/recipes/stream"
)

// predCase tokenizes an input of the predecessor recipes.
func predCase(t *testing.T, con *recipes.Construction, text string) recipes.Case {
	t.Helper()
	in, err := con.Model.Tokenize(text)
	if err != nil {
		t.Fatal(err)
	}
	return recipes.Case{Symbols: in}
}

// predOutputs runs con at precision p on text and returns the first
// output value at every position.
func predOutputs(t *testing.T, con *recipes.Construction, p, text string) []eval.Value {
	t.Helper()
	var out []eval.Value
	for _, o := range runCase(t, con, p, predCase(t, con, text)) {
		out = append(out, o.Values[0])
	}
	return out
}

// wantValues fails unless got equals want exactly, position by position.
func wantValues(t *testing.T, what string, got []eval.Value, want ...string) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d outputs, want %d", what, len(got), len(want))
	}
	for i := range want {
		if !got[i].Equals(rat(want[i])) {
			t.Errorf("%s, position %d: %s, want %s", what, i+1, got[i].Text, want[i])
		}
	}
}

// TestPredExpected: the reference is (0, v_1, …, v_{n−1}), with h = 1/2;
// "1h01" has v = (1, 1/2, 0, 1), so pred = (0, 1, 1/2, 0).
func TestPredExpected(t *testing.T) {
	con := construct(t, recipes.Pred, model.RightHardmax, 4, nil)
	got := recipes.PredExpected(predCase(t, con, "1h01"))
	for i, want := range []string{"0", "1", "1/2", "0"} {
		if got[i].Values[0].Cmp(rat(want)) != 0 {
			t.Errorf("position %d: reference %s, want %s", i+1, got[i].Values[0].RatString(), want)
		}
	}
}

// predWeightings lists the configurations of pred: UHAT-right as printed,
// and AHAT with each rightmost tie-breaking term.
var predWeightings = []struct {
	name   string
	w      model.Weighting
	params map[string]string
}{
	{"UHAT-right", model.RightHardmax, nil},
	{"AHAT t=-1/j", model.AverageHardmax, map[string]string{"t": "-1/j"}},
	{"AHAT t=j/n", model.AverageHardmax, map[string]string{"t": "j/n"}},
}

// checkAllExact runs Check at exact precision and requires every length
// to pass with every case exact, and lengths up to enumerated to be
// enumerated.
func checkAllExact(t *testing.T, r *recipes.Recipe, w model.Weighting, params map[string]string, maxN, exhaustive, enumerated int) {
	t.Helper()
	rep, err := check.Run(r, check.Options{Precision: numeric.MustParsePrecision("exact"), Weighting: w,
		MaxN: maxN, Params: params, Cases: 6, Exhaustive: exhaustive, Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Passed || rep.Limit != maxN {
		t.Fatalf("%s %s %v: limit %d, first failure %+v", r.Name, recipes.WeightingAcronym(w), params, rep.Limit, rep.FirstFailure)
	}
	for _, lr := range rep.Lengths {
		if lr.N <= enumerated && !lr.Exhaustive {
			t.Errorf("%s: length %d was not enumerated", r.Name, lr.N)
		}
		if lr.Exact != lr.Cases {
			t.Errorf("%s: length %d: %d of %d cases exact", r.Name, lr.N, lr.Exact, lr.Cases)
		}
	}
}

// TestPredExact: the corrected construction computes (0, v_1, …,
// v_{n−1}) exactly on every input over {0, h, 1} up to length 4 under
// UHAT-right (the construction as printed) and up to length 3 under AHAT
// with either tie-breaking term, and on seeded random inputs up to 8.
// (Exact runs of this five-sublayer model are slow, and the race detector
// multiplies their cost by ten: TestPredOneHot covers longer inputs, and
// the registry's sweep and 'verify --recipe pred' go further.)
func TestPredExact(t *testing.T) {
	for k, c := range predWeightings {
		t.Run(c.name, func(t *testing.T) {
			if k == 0 {
				checkAllExact(t, recipes.Pred, c.w, c.params, 8, 81, 4)
			} else {
				checkAllExact(t, recipes.Pred, c.w, c.params, 8, 27, 3)
			}
		})
	}
}

// predOneHot is the input of length n with v_k = 1 (1-based) and every
// other value 0.
func predOneHot(n, k int) []int {
	in := make([]int, n)
	in[k-1] = 2
	return in
}

// TestPredOneHot: the attention weights of every head depend on the
// positions only (the scores read 1, (−1)^j and t(j), never v), and the
// feed-forward layers are exact for values in [0, 1], so the inputs with
// a single 1 at position k, for every k, pin down what every position
// retrieves: position k+1 must output 1 and every other position 0 (a
// wrong pick outputs 1 elsewhere or 0 there, an average a fraction). For
// every n ≤ 8 and k ≤ n, pred, pred-strict in all its weightings, and
// pred-literal under rightmost UHAT, which must be the same except that
// position 1 outputs v_1 (1 when k = 1). (pred-literal under AHAT has
// no tie-breaking; see TestPredLiteralAHATAverages.)
func TestPredOneHot(t *testing.T) {
	type cfg struct {
		r      *recipes.Recipe
		w      model.Weighting
		params map[string]string
	}
	var cfgs []cfg
	for _, c := range predWeightings {
		cfgs = append(cfgs, cfg{recipes.Pred, c.w, c.params})
	}
	cfgs = append(cfgs, cfg{recipes.PredLiteral, model.RightHardmax, nil})
	for _, w := range recipes.PredStrict.Weightings {
		cfgs = append(cfgs, cfg{recipes.PredStrict, w, nil})
	}
	const maxN = 8
	for _, c := range cfgs {
		con := construct(t, c.r, c.w, maxN, c.params)
		r, err := eval.New(numeric.MustParsePrecision("exact"), con.Model)
		if err != nil {
			t.Fatal(err)
		}
		for n := 1; n <= maxN; n++ {
			for k := 1; k <= n; k++ {
				res, err := r.Run(predOneHot(n, k), false)
				if err != nil {
					t.Fatal(err)
				}
				for i, o := range res.Outputs {
					want := int64(0)
					if i+1 == k+1 || c.r == recipes.PredLiteral && i == 0 && k == 1 {
						want = 1
					}
					if !o.Values[0].Equals(big.NewRat(want, 1)) {
						t.Fatalf("%s %s %v, n = %d, v_%d = 1: position %d outputs %s, want %d", c.r.Name, recipes.WeightingAcronym(c.w), c.params, n, k, i+1, o.Values[0].Text, want)
					}
				}
			}
		}
	}
}

// TestPredLiteralCounterexample: the paper's final formula
// if(GTZero_1((−1)^i), pred.even, pred.odd) on the smallest wrong input
// of the independent simulation (proofs/all/testdata/literal_recipes.py), "h":
// position 1 is odd, so GTZero_1(−1) = 0 selects pred.odd, which under
// the future mask can attend only to position 1 and returns v_1 = 1/2;
// the paper's function gives 0 there. On "h1", position 2 is even and
// pred.even picks the odd j ≤ 2, j = 1: v_1 = 1/2, right. Under AHAT
// (no tie-breaking) "00h0" is the first input, in the enumeration order,
// right at position 1 and wrong later: at i = 4 pred.even averages
// v_1 = 0 and v_3 = 1/2. The corrected pred gives the paper's values.
func TestPredLiteralCounterexample(t *testing.T) {
	for _, tc := range []struct {
		name    string
		w       model.Weighting
		params  map[string]string // of pred
		in      string
		literal []string // by hand
		want    []string // the paper's pred
	}{
		{"UHAT-right", model.RightHardmax, nil, "h", []string{"1/2"}, []string{"0"}},
		{"UHAT-right", model.RightHardmax, nil, "1", []string{"1"}, []string{"0"}},
		{"UHAT-right", model.RightHardmax, nil, "h1", []string{"1/2", "1/2"}, []string{"0", "1/2"}},
		{"AHAT", model.AverageHardmax, map[string]string{"t": "-1/j"}, "h", []string{"1/2"}, []string{"0"}},
		{"AHAT", model.AverageHardmax, map[string]string{"t": "j/n"}, "00h0", []string{"0", "0", "0", "1/4"}, []string{"0", "0", "0", "1/2"}},
		{"AHAT", model.AverageHardmax, map[string]string{"t": "-1/j"}, "1000", []string{"1", "1", "0", "1/2"}, []string{"0", "1", "0", "0"}},
	} {
		t.Run(tc.name+" "+tc.in, func(t *testing.T) {
			lit := construct(t, recipes.PredLiteral, tc.w, 4, nil)
			fixed := construct(t, recipes.Pred, tc.w, 4, tc.params)
			wantValues(t, "pred-literal on "+tc.in, predOutputs(t, lit, "exact", tc.in), tc.literal...)
			wantValues(t, "pred on "+tc.in, predOutputs(t, fixed, "exact", tc.in), tc.want...)
		})
	}
	for _, w := range recipes.PredLiteral.Weightings {
		rep, err := check.Run(recipes.PredLiteral, check.Options{Precision: numeric.MustParsePrecision("exact"),
			Weighting: w, MaxN: 6, Cases: 4, Exhaustive: 729, Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		// Inputs of length 1 are enumerated in alphabet order: "0" is
		// right (v_1 = 0), "h" is the first wrong one.
		if f := rep.FirstFailure; rep.Passed || f == nil || f.N != 1 || f.Position != 1 || f.Input != "h" {
			t.Errorf("pred-literal %s: first failure %+v, want n = 1, position 1, input h", recipes.WeightingAcronym(w), rep.FirstFailure)
		}
	}
}

// TestPredLiteralOnlyFirstWrong: under rightmost UHAT the literal
// construction is wrong only at position 1 and only where v_1 ≠ 0: on
// every input up to length 3 it agrees with the reference at positions
// i ≥ 2, and outputs v_1 at i = 1.
func TestPredLiteralOnlyFirstWrong(t *testing.T) {
	lit := construct(t, recipes.PredLiteral, model.RightHardmax, 3, nil)
	r, err := eval.New(numeric.MustParsePrecision("exact"), lit.Model)
	if err != nil {
		t.Fatal(err)
	}
	for n := 1; n <= 3; n++ {
		cases, _ := lit.Inputs(n, nil, 27)
		for _, cs := range cases {
			res, err := r.Run(cs.Symbols, false)
			if err != nil {
				t.Fatal(err)
			}
			want := recipes.PredExpected(cs)
			want[0].Values[0] = recipes.PredValue(cs.Symbols[0])
			for i, w := range want {
				if !res.Outputs[i].Values[0].Equals(w.Values[0]) {
					t.Fatalf("UHAT-right on %s, position %d: %s, want %s", check.CaseText(lit.Model, cs), i+1, res.Outputs[i].Values[0].Text, w.Values[0].RatString())
				}
			}
		}
	}
}

// TestPredLiteralAHATAverages: under AHAT the printed heads, with no
// tie-breaking, attend equally to every maximal position: at i = 1 only
// position 1 is visible (v_1), and at i ≥ 2 the selected head (pred.even
// at even i, pred.odd at odd i) averages v_j over the j < i of the parity
// of i − 1. On the inputs with a single 1 at position k, for every n ≤ 8
// and k ≤ n, position i outputs 1/|S_i| when k ∈ S_i and 0 otherwise,
// S_i = {j < i : j ≡ i − 1 mod 2} (v_1 at i = 1).
func TestPredLiteralAHATAverages(t *testing.T) {
	con := construct(t, recipes.PredLiteral, model.AverageHardmax, 8, nil)
	r, err := eval.New(numeric.MustParsePrecision("exact"), con.Model)
	if err != nil {
		t.Fatal(err)
	}
	for n := 1; n <= 8; n++ {
		for k := 1; k <= n; k++ {
			res, err := r.Run(predOneHot(n, k), false)
			if err != nil {
				t.Fatal(err)
			}
			for i := 1; i <= n; i++ {
				want := new(big.Rat)
				switch {
				case i == 1 && k == 1:
					want.SetInt64(1)
				case i > 1 && k < i && (i-1-k)%2 == 0:
					want.SetFrac64(1, int64(i/2)) // |S_i| = ⌊i/2⌋
				}
				if got := res.Outputs[i-1].Values[0]; !got.Equals(want) {
					t.Fatalf("n = %d, v_%d = 1: position %d outputs %s, want %s", n, k, i, got.Text, want.RatString())
				}
			}
		}
	}
}

// TestPredUniformFirstFailsUnderUHAT justifies Pred's first head under
// UHAT-right. The paper's first (§First) is a uniform future-masked head,
// Q = K = 0, V = −I on (−1)^i, then GTZero_{1/3}(c − 1/3). Under
// rightmost UHAT all scores tie at 0 and position i attends to itself, so
// c = −(−1)^i: at i = 3, c = 1 and first = GTZero_{1/3}(2/3) = 1, though
// position 3 is not first. The parity head Pred uses gives (1, 0, 0, 0).
func TestPredUniformFirstFailsUnderUHAT(t *testing.T) {
	third := big.NewRat(1, 3)
	run := func(head *stream.Attn) []eval.Value {
		m, err := stream.New("first", "1", "s").Symbols([]string{"x"}, func(int) stream.Values { return nil }).
			Positions("(1, (−1)^i)", func(i, n int) stream.Values {
				return stream.Values{"1": numeric.LitInt(1), "s": numeric.LitInt(int64(1 - 2*(i%2)))}
			}).
			Then(head, blocks.GTZeroEps("c", "first", third, third)).Readout("first").Model()
		if err != nil {
			t.Fatal(err)
		}
		con := &recipes.Construction{Model: m}
		var out []eval.Value
		for _, o := range runCase(t, con, "exact", recipes.Case{Symbols: []int{0, 0, 0, 0}}) {
			out = append(out, o.Values[0])
		}
		return out
	}
	uniform := &stream.Attn{Name: "first", In: []string{"s"}, Out: []string{"c"},
		Q: model.Ints([]int64{0}), K: model.Ints([]int64{0}), V: model.Ints([]int64{-1}),
		Mask: model.Future, Weighting: model.RightHardmax, Scale: model.NoScale}
	wantValues(t, "uniform first under UHAT-right", run(uniform), "1", "0", "1", "0")
	wantValues(t, "parity first under UHAT-right", run(recipes.PredFirstHead(model.RightHardmax)), "1", "0", "0", "0")
	// Under AHAT the uniform head is the paper's and right: c = 1, 0,
	// 1/3, 0 (the average of −(−1)^j), first = 1, 0, 0, 0.
	wantValues(t, "uniform first under AHAT", run(recipes.PredFirstHead(model.AverageHardmax)), "1", "0", "0", "0")
}

// TestPredPerturbedCaught: giving pred.even pred.odd's key (W^K = [0, 1,
// 0] instead of [0, −1, 0]) makes it attend to the rightmost even j ≤ i,
// which at even i is i itself: on "01", position 2 outputs v_2 = 1
// instead of v_1 = 0, and the check against the reference catches it.
func TestPredPerturbedCaught(t *testing.T) {
	con := construct(t, recipes.Pred, model.RightHardmax, 4, nil)
	m := con.Model
	s := slices.Index(m.Components, "s")
	even := m.Layers[0].Attention.Heads[1]
	if got, ok, _ := even.K.At(0, s).Rat(); !ok || got.Cmp(big.NewRat(-1, 1)) != 0 {
		t.Fatalf("pred.even's key weight on (−1)^j is %v, want −1", even.K.At(0, s))
	}
	even.K.Set(0, s, numeric.LitInt(1))
	got := predOutputs(t, con, "exact", "01")
	wantValues(t, "perturbed pred on 01", got, "0", "1")
	if want := recipes.PredExpected(predCase(t, con, "01"))[1].Values[0]; got[1].Equals(want) {
		t.Error("the reference agrees with the perturbed model")
	}
}

// TestPredFP32First: §First's threshold 1/3 is not a binary fraction, so
// at fp32 first_1 is not exactly 1 and pred_1 on input "1" is 2^−24, not
// 0 (the check fails at n = 1). By hand, with fl(1/3) = 11184811·2^−25
// and fl(2/3) = 11184811·2^−24 (both rounded up): the hidden units of
// GTZero_{1/3}(c − 1/3) at c = 1 are fl(1 − fl(1/3)) = 11184810·2^−24
// (22369621·2^−25 is a tie, rounded to even) and 1 − fl(2/3) =
// 5592405·2^−24; times W2 = (3, −3) they give 16777215·2^−23 and
// 16777215·2^−24, whose difference is first = 1 − 2^−24. Then
// if(first, 0, lit) = ReLU(first − 1) + ReLU(lit − first) = 2^−24 with
// lit = v_1 = 1. In fp16 the same rounding cancels: first_1 = 1.
func TestPredFP32First(t *testing.T) {
	for _, c := range predWeightings {
		con := construct(t, recipes.Pred, c.w, 4, c.params)
		wantValues(t, c.name+" fp32 on 1", predOutputs(t, con, "fp32", "1"), new(big.Rat).SetFrac64(1, 1<<24).RatString())
		wantValues(t, c.name+" fp16 on 1", predOutputs(t, con, "fp16", "1"), "0")
	}
}

// TestPredStrictExact: strict future masking with scores (i/n)(j/n)
// retrieves v_{i−1} (and 0 at i = 1) exactly under leftmost and rightmost
// UHAT and AHAT, on every input up to length 5 and random inputs to 16.
func TestPredStrictExact(t *testing.T) {
	for _, w := range recipes.PredStrict.Weightings {
		t.Run(recipes.WeightingAcronym(w), func(t *testing.T) {
			checkAllExact(t, recipes.PredStrict, w, nil, 16, 243, 5)
		})
	}
}

// TestPredStrictFirstPosition: position 1 attends to nothing under the
// strict mask and outputs 0, whatever v_1 is ("1" → 0; "10" → 0, 1).
func TestPredStrictFirstPosition(t *testing.T) {
	for _, w := range recipes.PredStrict.Weightings {
		con := construct(t, recipes.PredStrict, w, 2, nil)
		wantValues(t, "pred-strict on 1", predOutputs(t, con, "exact", "1"), "0")
		wantValues(t, "pred-strict on 10", predOutputs(t, con, "exact", "10"), "0", "1")
	}
}
