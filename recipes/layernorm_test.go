package recipes_test

import (
	"bufio"
	"fmt"
	"math/big"
	"os"
	"strings"
	"testing"

	"github.com/transformer-cookbook/verify/check"
	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/model/eval"
	"github.com/transformer-cookbook/verify/numeric"
	"github.com/transformer-cookbook/verify/recipes"
	"github.com/transformer-cookbook/verify/recipes/blocks"
	"github.com/transformer-cookbook/verify/recipes/stream"
)

// TestAmplifyLiteralCounterexample pins the printed §Amplification's
// failure, derived by hand (δ = 1/2): x = (2, −1/2, −1/2, −1/2, −1/2) has
// mean 0 and |x_c| ≥ δ, clip_δ gives (1/2, −1/2, −1/2, −1/2, −1/2) with
// mean −3/10, centred (4/5, −1/5, −1/5, −1/5, −1/5), variance 4/25,
// σ = 2/5, so LN gives (2, −1/2, −1/2, −1/2, −1/2) instead of the signs
// (1, −1, −1, −1, −1). The corrected recipe gives the signs.
func TestAmplifyLiteralCounterexample(t *testing.T) {
	x := "2, -1/2, -1/2, -1/2, -1/2"
	lit := construct(t, recipes.AmplifyLiteral, model.Softmax, 1, nil)
	c, err := lit.Parse(x)
	if err != nil {
		t.Fatal(err)
	}
	if err := lit.Valid(c); err != nil {
		t.Fatalf("the counterexample is outside the paper's domain: %v", err)
	}
	got := runCase(t, lit, "exact", c)[0] // σ = 2/5 is rational: exact mode runs
	for k, want := range []string{"2", "-1/2", "-1/2", "-1/2", "-1/2"} {
		if !got.Values[k].Equals(rat(want)) {
			t.Errorf("literal LN(clip(x))_%d = %s, want %s by hand", k+1, got.Values[k].Text, want)
		}
	}
	if ok, _ := check.Compare(lit.Expected(c)[0], got, nil, nil); ok {
		t.Error("the literal recipe's output was accepted as the signs")
	}
	// The sweep finds failures too, certified in interval arithmetic.
	rep, err := check.Run(recipes.AmplifyLiteral, check.Options{Precision: numeric.MustParsePrecision("interval:128"), MaxN: 2, Cases: 16, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Passed {
		t.Error("the literal amplification passed a sweep")
	}

	fixed := construct(t, recipes.Amplify, model.Softmax, 1, map[string]string{"d": "5"})
	c, err = fixed.Parse(x)
	if err != nil {
		t.Fatal(err)
	}
	got = runCase(t, fixed, "exact", c)[0]
	for k, want := range []string{"1", "-1", "-1", "-1", "-1"} {
		if !got.Values[k].Equals(rat(want)) {
			t.Errorf("amplify(x)_%d = %s, want %s", k+1, got.Values[k].Text, want)
		}
	}
	// Balanced signs are what the literal recipe needs: then it is right.
	c, _ = lit.Parse("1, -1, 3/4, -3/4, 0")
	if err := lit.Valid(c); err == nil {
		t.Error("x_5 = 0 < δ accepted")
	}
}

// TestAmplifyExactSweep: the corrected recipe is exact in exact arithmetic
// on |x_c| ≥ δ, for several δ and d, including x_c = ±δ.
func TestAmplifyExactSweep(t *testing.T) {
	for _, p := range []map[string]string{{"delta": "1/2", "d": "1"}, {"delta": "3/7", "d": "4"}, {"delta": "5", "d": "2"}} {
		rep, err := check.Run(recipes.Amplify, check.Options{Precision: numeric.MustParsePrecision("exact"), MaxN: 6, Cases: 16, Seed: 2, Params: p})
		if err != nil {
			t.Fatal(err)
		}
		if !rep.Passed {
			t.Errorf("amplify %v: %+v", p, rep.FirstFailure)
		}
	}
}

// TestLNCircumventNeedsUniformGamma: "for any layernorm LN with
// LN.β = 0, LN([x; −x]) = [cx; −cx]" also needs LN.γ to treat x_k and
// −x_k alike: with γ = (2, 1) and x = 1, LN([1; −1]) = (1, −1)⊙γ =
// (2, −1) (σ = 1), which is not (c, −c) for any c.
func TestLNCircumventNeedsUniformGamma(t *testing.T) {
	norm := blocks.Identity([]string{"x", "nx"}, []string{"y1", "y2"})
	norm.Norm = &stream.Norm{Gamma: model.IntVector(2, 1)}
	m, err := stream.New("gamma", "x", "nx").Then(norm).Readout("y1", "y2").Model()
	if err != nil {
		t.Fatal(err)
	}
	con := recipes.VectorInput{Names: []string{"x", "nx"}}.Construction(m, nil)
	got := evalFF(t, con, rat("1"), rat("-1"))
	if got[0].Cmp(rat("2")) != 0 || got[1].Cmp(rat("-1")) != 0 {
		t.Errorf("LN_γ([1; −1]) = (%s, %s), want (2, −1) by hand", got[0].RatString(), got[1].RatString())
	}
	// With γ = 1 (the recipe), x = (3, 4): mean of squares of [x; −x] is
	// 25/2, so c = √(2/25) = √2/5 — irrational: the interval check must
	// contain c·(3, 4, −3, −4); and x = (1, 7): (1 + 49)/2 = 25, c = 1/5.
	con = construct(t, recipes.LNCircumvent, model.Softmax, 1, nil)
	got = evalFF(t, con, rat("1"), rat("7"))
	for k, want := range []string{"1/5", "7/5", "-1/5", "-7/5"} {
		if got[k].Cmp(rat(want)) != 0 {
			t.Errorf("LN([1, 7, −1, −7])_%d = %s, want %s", k+1, got[k].RatString(), want)
		}
	}
	c, _ := con.Parse("3, 4")
	out := runCase(t, con, "interval:128", c)[0]
	if ok, why := check.Compare(con.Expected(c)[0], out, nil, nil); !ok {
		t.Errorf("LN([3, 4, −3, −4]): %s", why)
	}
}

// TestLHScaleInvariance: lh(x) = LN([x, 1, −x, −1]) does not change when
// the whole argument vector is scaled, LN([kx, k, −kx, −k]) = lh(x) for
// k > 0; by hand, lh(7) = √(2/50)(7, 1, −7, −1) = (7/5, 1/5, −7/5, −1/5),
// exactly, from (7, 1), (21, 3) or (7/2, 1/2). The paper's shorthand
// "lh(kx) = lh(x)" is not that: lh(1) = (1, 1, −1, −1) while lh(2) =
// √(2/5)(2, 1, −2, −1), whose first entry 2√(2/5) ≈ 1.265 is certainly
// not 1.
func TestLHScaleInvariance(t *testing.T) {
	con := construct(t, recipes.LH, model.Softmax, 1, nil)
	for _, in := range [][]string{{"7", "1"}, {"21", "3"}, {"7/2", "1/2"}} {
		got := evalFF(t, con, rats(in...)...)
		for k, want := range []string{"7/5", "1/5", "-7/5", "-1/5"} {
			if got[k].Cmp(rat(want)) != 0 {
				t.Errorf("LN([%s, %s, …])_%d = %s, want %s", in[0], in[1], k+1, got[k].RatString(), want)
			}
		}
	}
	c1, _ := con.Parse("1, 1")
	c2, _ := con.Parse("2, 1")
	one := runCase(t, con, "interval:128", c1)[0].Values[0]
	two := runCase(t, con, "interval:128", c2)[0].Values[0]
	if !one.Equals(rat("1")) {
		t.Errorf("lh(1)_1 = %s, want 1", one.Text)
	}
	if two.Contains(rat("1")) || two.Lo.Cmp(rat("1.26")) < 0 || two.Hi.Cmp(rat("1.27")) > 0 {
		t.Errorf("lh(2)_1 = %s, want 2√(2/5) ≈ 1.2649", two.Text)
	}
	// Every sampled (kx, k) agrees with lh(x), certified.
	rep, err := check.Run(recipes.LH, check.Options{Precision: numeric.MustParsePrecision("interval:128"), MaxN: 8, Cases: 16, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Passed {
		t.Errorf("lh sweep: %+v", rep.FirstFailure)
	}
}

// TestLayerNormGolden: at every case of testdata/layernorm.txt (mpmath, by
// gen_layernorm.py) the certified enclosures of the layernorm recipe's
// outputs contain mpmath's values and are narrow, and the check passes;
// where σ² + ε is the square of a rational the output is rational and
// exact arithmetic gives it exactly.
func TestLayerNormGolden(t *testing.T) {
	f, err := os.Open("testdata/layernorm.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	slack, narrow := rat("1/1000000000000000000000000000000000000000000000"), rat("1/1000000000000000000000000000000")
	lines, exactRuns := 0, 0
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fs := strings.Split(sc.Text(), "|")
		gamma, beta, eps, xs, golden := strings.TrimSpace(fs[0]), strings.TrimSpace(fs[1]), strings.TrimSpace(fs[2]), strings.Fields(fs[3]), strings.Fields(fs[4])
		lines++
		params := map[string]string{"d": fmt.Sprint(len(xs)), "gamma": gamma, "beta": beta, "eps": eps}
		con := construct(t, recipes.LayerNormVector, model.Softmax, 1, params)
		c := parseCase(t, con, strings.Join(xs, ", "))
		out := runCase(t, con, "interval:128", c)[0]
		for k, g := range golden {
			v, want := out.Values[k], rat(g)
			if want.Cmp(new(big.Rat).Sub(v.Lo, slack)) < 0 || want.Cmp(new(big.Rat).Add(v.Hi, slack)) > 0 {
				t.Errorf("LN(%v) with γ = %q, β = %q, ε = %s: y%d = %s does not contain mpmath's %s", xs, gamma, beta, eps, k+1, v.Text, g)
			}
			if new(big.Rat).Sub(v.Hi, v.Lo).Cmp(narrow) > 0 {
				t.Errorf("LN(%v): y%d = %s is wider than 1e-30", xs, k+1, v.Text)
			}
		}
		if ok, why := check.Compare(con.Expected(c)[0], out, con.Bounds, con.Model.Output.Labels); !ok {
			t.Errorf("LN(%v) with γ = %q, β = %q, ε = %s: %s", xs, gamma, beta, eps, why)
		}
		// Rational golden values (mpmath prints them with at most a few
		// digits) come out exactly in exact arithmetic.
		if r, err := eval.New(numeric.MustParsePrecision("exact"), con.Model); err == nil {
			if res, err := r.RunStream(c.Stream, false); err == nil {
				exactRuns++
				for k, g := range golden {
					if !res.Outputs[0].Values[k].Equals(rat(g)) {
						t.Errorf("LN(%v) exact: y%d = %s, want %s", xs, k+1, res.Outputs[0].Values[k].Text, g)
					}
				}
			}
		}
	}
	if lines < 8 || exactRuns < 3 {
		t.Errorf("%d golden cases, %d of them rational; want at least 8 and 3", lines, exactRuns)
	}
}

// TestLayerNormParams: γ and β must have d entries, ε ≥ 0, and a constant
// x with ε = 0 is outside the domain.
func TestLayerNormParams(t *testing.T) {
	for _, tc := range []struct {
		params map[string]string
		want   string
	}{
		{map[string]string{"d": "3", "gamma": "1 2"}, "gamma has 2 entries, want d = 3"},
		{map[string]string{"d": "2", "beta": "1 x"}, "parameter beta: entry 2"},
		{map[string]string{"eps": "-1/2"}, "eps must be ≥ 0"},
		{map[string]string{"d": "0"}, "parameter d must be an integer from 1 to 64"},
	} {
		if _, err := recipes.LayerNormVector.Construct(model.Softmax, 1, tc.params); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: error %v, want one containing %q", tc.params, err, tc.want)
		}
	}
	con := construct(t, recipes.LayerNormVector, model.Softmax, 1, nil)
	if err := con.Valid(parseCase(t, con, "2, 2, 2")); err == nil {
		t.Error("a constant x with ε = 0 is inside the domain")
	}
}

// TestLNCircumventGammaBeta: with a uniform γ = 3 the form holds with
// c = 3/√(‖x‖²/d + ε); a non-uniform γ, or β ≠ 0, makes the recipe's check
// fail (the literal claim), by hand: γ = (2, 1), x = 1, ε = 0 gives
// LN([1; −1]) = (2, −1), while the form with c = 2 wants (2, −2).
func TestLNCircumventGammaBeta(t *testing.T) {
	for _, tc := range []struct {
		params map[string]string
		input  string
		pass   bool
	}{
		{map[string]string{"d": "1", "gamma": "3 3"}, "1", true},
		{map[string]string{"d": "2", "gamma": "3 3 3 3", "eps": "1"}, "0, 2", true},
		{map[string]string{"d": "1", "gamma": "2 1"}, "1", false},
		{map[string]string{"d": "2", "gamma": "2 1 2 1"}, "1, 1", false},
		{map[string]string{"d": "1", "beta": "1/2 0"}, "1", false},
	} {
		con := construct(t, recipes.LNCircumvent, model.Softmax, 1, tc.params)
		c := parseCase(t, con, tc.input)
		out := runCase(t, con, "interval:128", c)[0]
		if ok, why := check.Compare(con.Expected(c)[0], out, con.Bounds, con.Model.Output.Labels); ok != tc.pass {
			t.Errorf("%v on %s: passed %v (%s), want %v", tc.params, tc.input, ok, why, tc.pass)
		}
	}
	con := construct(t, recipes.LNCircumvent, model.Softmax, 1, map[string]string{"d": "1", "gamma": "2 1"})
	out := runCase(t, con, "exact", parseCase(t, con, "1"))[0]
	if !out.Values[0].Equals(rat("2")) || !out.Values[1].Equals(rat("-1")) {
		t.Errorf("γ = (2, 1): LN([1; −1]) = (%s, %s), want (2, −1)", out.Values[0].Text, out.Values[1].Text)
	}
}
