package recipes_test

import (
	"math/big"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/transformer-cookbook/verify/check"
	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/model/eval"
	"github.com/transformer-cookbook/verify/numeric"
	"github.com/transformer-cookbook/verify/recipes"
)

// Helpers of the tests of attention.go, first.go and representations.go
// (prefixed "basic" to stay out of the way of other files' helpers).

// basicPerturbed returns a copy of r whose built model is changed by edit:
// a negative control, which a sweep must reject.
func basicPerturbed(r *recipes.Recipe, edit func(m *model.Model)) *recipes.Recipe {
	p := *r
	p.Name = r.Name + "-perturbed"
	p.Build = func(cfg recipes.Config) (*recipes.Construction, error) {
		con, err := r.Build(cfg)
		if err != nil {
			return nil, err
		}
		edit(con.Model)
		return con, nil
	}
	return &p
}

// basicComp is the place of component name in m's stream.
func basicComp(t *testing.T, m *model.Model, name string) int {
	t.Helper()
	k := slices.Index(m.Components, name)
	if k < 0 {
		t.Fatalf("%s has no component %q (%v)", m.Name, name, m.Components)
	}
	return k
}

// basicCheck runs Check in exact arithmetic with cases random inputs per
// length (every input where there are at most 64) and fails the test on
// an error.
func basicCheck(t *testing.T, r *recipes.Recipe, w model.Weighting, maxN int, lengths []int, params map[string]string, cases int) *check.Report {
	t.Helper()
	rep, err := check.Run(r, check.Options{Precision: numeric.MustParsePrecision("exact"), Weighting: w,
		MaxN: maxN, Lengths: lengths, Params: params, Cases: cases, Exhaustive: 64, Seed: 11})
	if err != nil {
		t.Fatalf("%s %s: %v", r.Name, recipes.WeightingAcronym(w), err)
	}
	return rep
}

// basicMustPass checks r on the given lengths (up to their last) and fails
// unless every case passes exactly, and unless the lengths up to
// exhaustiveTo were enumerated.
func basicMustPass(t *testing.T, r *recipes.Recipe, w model.Weighting, lengths []int, params map[string]string, cases, exhaustiveTo int) {
	t.Helper()
	maxN := lengths[len(lengths)-1]
	rep := basicCheck(t, r, w, maxN, lengths, params, cases)
	if !rep.Passed || rep.Limit != maxN {
		t.Errorf("%s %s %v: limit %d, first failure %+v", r.Name, recipes.WeightingAcronym(w), params, rep.Limit, rep.FirstFailure)
		return
	}
	for _, lr := range rep.Lengths {
		if lr.Exact != lr.Cases {
			t.Errorf("%s %s: length %d: %d of %d cases exact", r.Name, recipes.WeightingAcronym(w), lr.N, lr.Exact, lr.Cases)
		}
		if lr.N <= exhaustiveTo && !lr.Exhaustive {
			t.Errorf("%s %s: length %d was not enumerated", r.Name, recipes.WeightingAcronym(w), lr.N)
		}
	}
}

// basicSweep checks r exactly in weighting w: on every length to 8 and a
// few up to 24 with three random inputs each (all inputs where there are
// at most 64: to n = 6 over two symbols), and, when long is set, on one random input of length 200
// (exact attention costs n² rational operations per head, so 200 is
// checked once per recipe, not in every weighting).
func basicSweep(t *testing.T, r *recipes.Recipe, w model.Weighting, params map[string]string, exhaustiveTo int, long bool) {
	t.Helper()
	basicMustPass(t, r, w, basicShortLengths, params, 3, exhaustiveTo)
	if long {
		basicLong(t, r, w, params, 200)
	}
}

// basicLong checks r exactly on one seeded random input of length n:
// in the domain, and every position equal to the reference.
func basicLong(t *testing.T, r *recipes.Recipe, w model.Weighting, params map[string]string, n int) {
	t.Helper()
	con := construct(t, r, w, n, params)
	cases, _ := con.Inputs(n, rand.New(rand.NewPCG(uint64(n), 7)), 1)
	c := cases[0]
	if con.Valid != nil {
		if err := con.Valid(c); err != nil {
			t.Fatalf("%s: the input of length %d is outside the domain: %v", r.Name, n, err)
		}
	}
	got := runCase(t, con, "exact", c) // exact: the input is not rounded
	for i, want := range con.Expected(c) {
		if ok, why := check.Compare(want, got[i], con.Bounds, con.Model.Output.Labels); !ok {
			t.Errorf("%s %s, n = %d, position %d: %s", r.Name, recipes.WeightingAcronym(w), n, i+1, why)
			return
		}
	}
}

// basicMustFail checks r (a negative control) and fails unless the sweep
// finds a wrong case.
func basicMustFail(t *testing.T, r *recipes.Recipe, w model.Weighting, maxN int, params map[string]string) *check.Failure {
	t.Helper()
	rep := basicCheck(t, r, w, maxN, nil, params, 4)
	if rep.Passed || rep.FirstFailure == nil {
		t.Errorf("%s %s: the perturbed construction passed the sweep", r.Name, recipes.WeightingAcronym(w))
		return nil
	}
	return rep.FirstFailure
}

// basicShortLengths are the lengths of the sweeps in every weighting.
var basicShortLengths = []int{1, 2, 3, 4, 5, 6, 7, 8, 13, 24}

// basicVectorCase makes the vector-input case whose positions hold xs.
func basicVectorCase(t *testing.T, con *recipes.Construction, xs ...string) recipes.Case {
	t.Helper()
	c, err := con.Parse(strings.Join(xs, ";"))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// basicValues asserts the outputs of a run equal want (one row of
// rationals per position), exactly.
func basicValues(t *testing.T, what string, got []eval.PositionOutput, want [][]*big.Rat) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d positions, want %d", what, len(got), len(want))
	}
	for i := range want {
		for k, w := range want[i] {
			if !got[i].Values[k].Equals(w) {
				t.Errorf("%s: position %d, output %d = %s, want %s", what, i+1, k+1, got[i].Values[k].Text, w.RatString())
			}
		}
	}
}

// basicColumn turns scalars into one-output rows.
func basicColumn(xs ...*big.Rat) [][]*big.Rat {
	out := make([][]*big.Rat, len(xs))
	for i, x := range xs {
		out[i] = []*big.Rat{x}
	}
	return out
}

var attnWeightings = []model.Weighting{model.Softmax, model.AverageHardmax, model.LeftHardmax, model.RightHardmax}

// TestIdentityAttnHand: att_zero + residual returns its input unchanged
// under every weighting, on an input written by hand (the paper: "the
// residual connection will pass the input through unchanged").
func TestIdentityAttnHand(t *testing.T) {
	for _, w := range attnWeightings {
		con := construct(t, recipes.IdentityAttn, w, 4, map[string]string{"d": "2"})
		c := basicVectorCase(t, con, "1, -2", "3/4, 0", "-7/3, 5")
		got := runCase(t, con, "exact", c)
		basicValues(t, "identity-attn "+recipes.WeightingAcronym(w), got, [][]*big.Rat{rats("1", "-2"), rats("3/4", "0"), rats("-7/3", "5")})
	}
}

// TestIdentityAttnSweep: exact in every weighting the paper gives (SMAT,
// AHAT, UHAT), on seeded random vectors up to n = 24 for d = 1 (and d = 3
// under AHAT), and n = 200 under AHAT;
// and in floating point too (the output is x + 0, which every format
// holds exactly).
func TestIdentityAttnSweep(t *testing.T) {
	for k, w := range recipes.IdentityAttn.Weightings {
		basicSweep(t, recipes.IdentityAttn, w, map[string]string{"d": "1"}, 0, k == 1)
		if k == 1 {
			basicSweep(t, recipes.IdentityAttn, w, map[string]string{"d": "3"}, 0, false)
		}
	}
	for _, p := range []string{"fp16", "bf16", "fp32"} {
		rep, err := check.Run(recipes.IdentityAttn, check.Options{Precision: numeric.MustParsePrecision(p), Weighting: model.Softmax,
			MaxN: 200, Lengths: []int{1, 7, 64, 200}, Cases: 2, Seed: 4})
		if err != nil {
			t.Fatal(err)
		}
		if !rep.Passed {
			t.Errorf("identity-attn at %s: %+v", p, rep.FirstFailure)
		}
	}
}

// TestIdentityAttnPerturbed: with W^V = 1/2 at x1 instead of 0, the
// output is x + (1/2)·(average of x1 into x1), not x: the sweep must fail.
func TestIdentityAttnPerturbed(t *testing.T) {
	r := basicPerturbed(recipes.IdentityAttn, func(m *model.Model) {
		k := basicComp(t, m, "x1")
		m.Layers[0].Attention.Heads[0].V.Set(k, k, numeric.Frac(1, 2))
	})
	basicMustFail(t, r, model.AverageHardmax, 6, nil)
}

// TestAvgHand: Avg and Avg← on hand-written inputs, under SMAT and AHAT.
// x = (1, 2, 6) (d = 1): Avg = 9/3 = 3 everywhere; Avg← = 1, 3/2, 3.
// x = ((1, 0), (0, 1), (1/2, −1), (−3, 4)) (d = 2): Avg = (−3/2, 4)/4 =
// (−3/8, 1) everywhere; Avg← = (1, 0), (1/2, 1/2), (1/2, 0), (−3/8, 1).
func TestAvgHand(t *testing.T) {
	for _, w := range recipes.Avg.Weightings {
		for _, tc := range []struct {
			r    *recipes.Recipe
			d    string
			in   []string
			want [][]*big.Rat
		}{
			{recipes.Avg, "1", []string{"1", "2", "6"}, [][]*big.Rat{rats("3"), rats("3"), rats("3")}},
			{recipes.AvgPrefix, "1", []string{"1", "2", "6"}, [][]*big.Rat{rats("1"), rats("3/2"), rats("3")}},
			{recipes.Avg, "2", []string{"1, 0", "0, 1", "1/2, -1", "-3, 4"},
				[][]*big.Rat{rats("-3/8", "1"), rats("-3/8", "1"), rats("-3/8", "1"), rats("-3/8", "1")}},
			{recipes.AvgPrefix, "2", []string{"1, 0", "0, 1", "1/2, -1", "-3, 4"},
				[][]*big.Rat{rats("1", "0"), rats("1/2", "1/2"), rats("1/2", "0"), rats("-3/8", "1")}},
		} {
			con := construct(t, tc.r, w, 4, map[string]string{"d": tc.d})
			got := runCase(t, con, "exact", basicVectorCase(t, con, tc.in...))
			basicValues(t, tc.r.Name+" "+recipes.WeightingAcronym(w), got, tc.want)
		}
	}
}

// TestAvgSweep: Avg and Avg← are exact under SMAT and AHAT on seeded
// random vectors up to n = 24 (d = 2), and n = 200 under AHAT (d = 1).
func TestAvgSweep(t *testing.T) {
	for _, r := range []*recipes.Recipe{recipes.Avg, recipes.AvgPrefix} {
		for _, w := range r.Weightings {
			basicSweep(t, r, w, map[string]string{"d": "2"}, 0, false)
		}
		basicLong(t, r, model.AverageHardmax, map[string]string{"d": "1"}, 200)
	}
}

// TestAvgUnderUHAT: the cheat sheet gives Avg for SMAT and AHAT only, and
// rightly: every score is 0, so unique-hard attention takes one position
// instead of averaging. On x = (1, 2, 6), by the definition of lhardmax
// and rhardmax: unmasked, leftmost gives x_1 = 1 everywhere and
// rightmost x_n = 6 everywhere; future-masked, leftmost still gives x_1,
// and rightmost gives x_i itself (the identity). The averages are 3 and
// (1, 3/2, 3). Check refuses UHAT for these recipes.
func TestAvgUnderUHAT(t *testing.T) {
	one, six := rat("1"), rat("6")
	for _, tc := range []struct {
		r    *recipes.Recipe
		w    model.Weighting
		want []*big.Rat
	}{
		{recipes.Avg, model.LeftHardmax, []*big.Rat{one, one, one}},
		{recipes.Avg, model.RightHardmax, []*big.Rat{six, six, six}},
		{recipes.AvgPrefix, model.LeftHardmax, []*big.Rat{one, one, one}},
		{recipes.AvgPrefix, model.RightHardmax, rats("1", "2", "6")},
	} {
		con := construct(t, tc.r, tc.w, 3, map[string]string{"d": "1"})
		got := runCase(t, con, "exact", basicVectorCase(t, con, "1", "2", "6"))
		basicValues(t, tc.r.Name+" "+recipes.WeightingAcronym(tc.w), got, basicColumn(tc.want...))
		if _, err := check.Run(tc.r, check.Options{Precision: numeric.MustParsePrecision("exact"), Weighting: tc.w, MaxN: 3}); err == nil {
			t.Errorf("%s: Check ran under %s, which the paper does not claim", tc.r.Name, recipes.WeightingAcronym(tc.w))
		}
	}
}

// TestAvgPerturbed: negative controls. W^V = 1 + 1/1024 scales the
// average; W^Q = W^K = 1 on x1 makes the scores x_i·x_j, no longer all
// equal, so AHAT attends to the maximising positions only.
func TestAvgPerturbed(t *testing.T) {
	for _, r := range []*recipes.Recipe{recipes.Avg, recipes.AvgPrefix} {
		scaled := basicPerturbed(r, func(m *model.Model) {
			y1, x1 := basicComp(t, m, "y1"), basicComp(t, m, "x1")
			m.Layers[0].Attention.Heads[0].V.Set(y1, x1, numeric.Frac(1025, 1024))
		})
		basicMustFail(t, scaled, model.AverageHardmax, 6, nil)
		peaked := basicPerturbed(r, func(m *model.Model) {
			x1 := basicComp(t, m, "x1")
			h := &m.Layers[0].Attention.Heads[0]
			h.Q.Set(0, x1, numeric.LitInt(1))
			h.K.Set(0, x1, numeric.LitInt(1))
		})
		basicMustFail(t, peaked, model.AverageHardmax, 6, nil)
	}
}

// basicOnes is the d = 1 vector input of n ones.
func basicOnes(t *testing.T, con *recipes.Construction, n int) recipes.Case {
	t.Helper()
	xs := make([]string, n)
	for i := range xs {
		xs[i] = "1"
	}
	return basicVectorCase(t, con, xs...)
}

// TestAvgFloatingPoint pins where floating-point averages stop being
// exact, derived by hand (every operation rounds to nearest, ties to
// even; the average is Σ_k fl(w·x_k) summed left to right with
// w = fl(1/n), which SMAT and AHAT compute alike: e^0 = 1 and Σ = n).
//
//   - A mean that is not dyadic has no binary representation: C/n = 1/3
//     (count on "abb") fails at n = 3 in every binary format, and n = 1, 2
//     pass (their values 0, 1/2, 1 are exact).
//   - The average of n ones is 1, representable, yet fp16 gets it wrong
//     from n = 6. fp16 has an 11-bit significand. n = 6: w = fl(1/6) =
//     1365/8192 (1/6·8192 = 1365.3); the partial sums are 2w = 2730/8192
//     (exact), 3w = 4095/8192 = 2047.5·2^−12, a tie between 2047·2^−12
//     and 0.5 → 0.5 (even); 0.5 + w = 5461/8192 → 5460/8192 (spacing
//     2^−11 = 4/8192 in [1/2, 1)); + w = 6825/8192 → 6824/8192;
//   - w = 8189/8192 → 8188/8192 = 2047/2048. n = 5: w = 1638/8192;
//     sums 3276, 4914 → 4912 (tie → even), 6550 → 6552 (tie → even),
//     8190 → 8192 (tie between 2047·4 and 2048·4 → even): exactly 1.
//     n = 3: w = fl(1/3) = 2730/8192 (1/3·8192 = 2730.7 → 2730 at spacing
//     2 in [1/4, 1/2)); 2w = 5460/8192, exact; 3w = 8190/8192 = 2047.5·4/8192,
//     a tie → 2048·4/8192 = 1.
//   - bf16 (8-bit significand) under SMAT: Σ_k e^0 stops at 256, since
//     256 + 1 is a tie between 256 and 258 that rounds to 256 (even). So
//     at n = 512 every weight is 1/256 instead of 1/512. On x = (0 × 256,
//     1 × 256), mean 1/2, the sum of 256 terms 1/256 is exactly 1 (k/256
//     needs at most 8 bits), the output 1. AHAT divides by the tie count
//     512 = 2^9, exact: 1/2. (The same happens in fp16 above 2048; that
//     run is too slow for this test: measured with the command line.)
func TestAvgFloatingPoint(t *testing.T) {
	con := construct(t, recipes.Avg, model.AverageHardmax, 6, map[string]string{"d": "1"})
	for _, tc := range []struct {
		n    int
		want *big.Rat
	}{{3, rat("1")}, {4, rat("1")}, {5, rat("1")}, {6, rat("2047/2048")}} {
		got := runCase(t, con, "fp16", basicOnes(t, con, tc.n))
		if !got[0].Values[0].Equals(tc.want) {
			t.Errorf("fp16 average of %d ones = %s, want %s", tc.n, got[0].Values[0].Text, tc.want.RatString())
		}
	}

	for _, p := range []string{"fp16", "bf16", "fp32", "fp64"} {
		rep, err := check.Run(recipes.Count, check.Options{Precision: numeric.MustParsePrecision(p), Weighting: model.AverageHardmax,
			MaxN: 3, Cases: 8, Exhaustive: 8, Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		if rep.Passed || rep.Limit != 2 || rep.FirstFailure.N != 3 {
			t.Errorf("count at %s: limit %d, first failure %+v; want limit 2, failure at n = 3 (1/3 is not dyadic)", p, rep.Limit, rep.FirstFailure)
		}
	}

	xs := make([]string, 512)
	for i := range xs {
		xs[i] = "0"
		if i >= 256 {
			xs[i] = "1"
		}
	}
	for _, tc := range []struct {
		w    model.Weighting
		want *big.Rat
	}{{model.Softmax, rat("1")}, {model.AverageHardmax, rat("1/2")}} {
		con := construct(t, recipes.Avg, tc.w, 512, map[string]string{"d": "1"})
		got := runCase(t, con, "bf16", basicVectorCase(t, con, xs...))
		if !got[0].Values[0].Equals(tc.want) {
			t.Errorf("bf16 %s average of 256 zeros and 256 ones = %s, want %s", recipes.WeightingAcronym(tc.w), got[0].Values[0].Text, tc.want.RatString())
		}
	}
}

// TestAveragesRunningSum holds averages (running sums) to the paper's
// definition summed afresh at every position, exactly.
func TestAveragesRunningSum(t *testing.T) {
	xs := make([][]*big.Rat, 9)
	for i := range xs {
		xs[i] = []*big.Rat{big.NewRat(int64(i*i-7), int64(i+2)), big.NewRat(int64(3-5*i), 7)}
	}
	for _, prefix := range []bool{false, true} {
		got := recipes.Averages(xs, prefix)
		for i := range xs {
			upto := len(xs)
			if prefix {
				upto = i + 1
			}
			for c := range xs[i] {
				s := new(big.Rat)
				for k := 0; k < upto; k++ {
					s.Add(s, xs[k][c])
				}
				s.Quo(s, big.NewRat(int64(upto), 1))
				if got[i].Values[c].Cmp(s) != 0 {
					t.Fatalf("prefix %v, position %d component %d: %s, want %s", prefix, i+1, c+1, got[i].Values[c].RatString(), s.RatString())
				}
			}
		}
	}
}
