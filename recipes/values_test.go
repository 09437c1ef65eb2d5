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

// parseCase reads text with con's parser.
func parseCase(t *testing.T, con *recipes.Construction, text string) recipes.Case {
	t.Helper()
	if con.Parse == nil {
		t.Fatalf("%s has no parser", con.Model.Name)
	}
	c, err := con.Parse(text)
	if err != nil {
		t.Fatalf("%s: parse %q: %v", con.Model.Name, text, err)
	}
	return c
}

// outputOf returns the output labelled label at every position.
func outputOf(t *testing.T, con *recipes.Construction, outs []eval.PositionOutput, label string) []eval.Value {
	t.Helper()
	k := slices.Index(con.Model.Output.Labels, label)
	if k < 0 {
		t.Fatalf("%s has no output %q", con.Model.Name, label)
	}
	vs := make([]eval.Value, len(outs))
	for i, o := range outs {
		vs[i] = o.Values[k]
	}
	return vs
}

// TestRationalValuesCopied: every recipe that copies a value retrieves a
// typed rational one exactly, at its default precision (certified
// intervals for the layernorm hash: the output must be the exact point).
// The values want were read off the inputs by hand: lookup position i
// gets v_{q_i}; tie-breaking the value at the rightmost maximal key among
// j ≤ i; the predecessors (0, v_1, …, v_{n−1}).
func TestRationalValuesCopied(t *testing.T) {
	for _, tc := range []struct {
		recipe *recipes.Recipe
		w      model.Weighting
		p      string
		input  string
		label  string
		want   []string
	}{
		{recipes.Lookup, model.AverageHardmax, "exact", "2:3/7 1:-5/2 2:0.25", "c", []string{"-5/2", "3/7", "-5/2"}},
		{recipes.Lookup, model.LeftHardmax, "exact", "3:1e3 3:-0.001 1:7", "c", []string{"7", "7", "1000"}},
		{recipes.LookupOneHot, model.AverageHardmax, "exact", "2:3/7 1:-5/2 2:0.25", "c", []string{"-5/2", "3/7", "-5/2"}},
		{recipes.LookupAO, model.AverageHardmax, "exact", "2:3/7 1:-5/2 2:0.25", "c", []string{"-5/2", "3/7", "-5/2"}},
		{recipes.LookupLH, model.AverageHardmax, "interval:128", "2:3/7 1:-5/2 2:0.25", "c", []string{"-5/2", "3/7", "-5/2"}},
		{recipes.TieBreaking, model.AverageHardmax, "exact", "2:3/7 1:-5 2:0.5 0:100", "c", []string{"3/7", "3/7", "1/2", "1/2"}},
		{recipes.Pred, model.RightHardmax, "exact", "0.25, 3/7, h, 1", "pred", []string{"0", "1/4", "3/7", "1/2"}},
		{recipes.Pred, model.AverageHardmax, "exact", "0.25 3/7 0.999 0", "pred", []string{"0", "1/4", "3/7", "999/1000"}},
		{recipes.PredStrict, model.LeftHardmax, "exact", "-2.5, 3/7, 100", "pred", []string{"0", "-5/2", "3/7"}},
	} {
		con := construct(t, tc.recipe, tc.w, 4, nil)
		c := parseCase(t, con, tc.input)
		if c.Stream == nil {
			t.Fatalf("%s: %q holds values outside the alphabet, but parsed as symbols", tc.recipe.Name, tc.input)
		}
		got := outputOf(t, con, runCase(t, con, tc.p, c), tc.label)
		for i, w := range tc.want {
			// In interval arithmetic 3/7, not a binary number, is held as
			// an enclosure, and the value copied is that enclosure: it
			// must contain the value and be narrow. Elsewhere, exactly.
			if tc.p == "interval:128" {
				if !got[i].Contains(rat(w)) || new(big.Rat).Sub(got[i].Hi, got[i].Lo).Cmp(big.NewRat(1, 1<<60)) > 0 {
					t.Errorf("%s on %q, position %d: %s = %s, want a narrow enclosure of %s", tc.recipe.Name, tc.input, i+1, tc.label, got[i].Text, w)
				}
			} else if !got[i].Equals(rat(w)) {
				t.Errorf("%s on %q, position %d: %s = %s, want exactly %s", tc.recipe.Name, tc.input, i+1, tc.label, got[i].Text, w)
			}
		}
		// The reference says the same, and the check passes the case.
		if lr := check.Cases(con, mustRunner(t, con, tc.p), []recipes.Case{c}); lr.Passed != 1 {
			t.Errorf("%s on %q: the check fails: %+v", tc.recipe.Name, tc.input, lr.Failure)
		}
	}
}

func mustRunner(t *testing.T, con *recipes.Construction, p string) eval.Runner {
	t.Helper()
	r, err := eval.New(numeric.MustParsePrecision(p), con.Model)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestRationalValuesRoundingUnclaimed: on an input with a value that is
// not a bit, the rounding y is not claimed (the paper claims it for bits
// only) and a wrong c still fails; on bits, y is claimed and typed inputs
// are the strings of symbols they always were.
func TestRationalValuesRoundingUnclaimed(t *testing.T) {
	con := construct(t, recipes.Lookup, model.AverageHardmax, 3, nil)
	c := parseCase(t, con, "2:3/7 1:1")
	for i, w := range con.Expected(c) {
		if w.Claimed(0) || !w.Claimed(1) {
			t.Errorf("position %d: y claimed %v, c claimed %v; want y unclaimed and c claimed", i+1, w.Claimed(0), w.Claimed(1))
		}
	}
	// The model's y is 5/14 at position 2 (GTZero_{1/2}(3/7 − 1/4)): not a
	// bit, and not a failure.
	outs := runCase(t, con, "exact", c)
	if y := outputOf(t, con, outs, "y")[1]; !y.Equals(rat("5/14")) {
		t.Errorf("y at position 2 = %s, want 5/14", y.Text)
	}
	r := mustRunner(t, con, "exact")
	if lr := check.Cases(con, r, []recipes.Case{c}); lr.Passed != 1 {
		t.Errorf("the unclaimed y fails the check: %+v", lr.Failure)
	}
	// A wrong c is still found: compare with v_2 + 1/1000 instead.
	want := con.Expected(c)
	want[1].Reals[1] = numeric.Lit(rat("1001/1000"))
	if ok, _ := check.Compare(want[1], outs[1], con.Bounds, con.Model.Output.Labels); ok {
		t.Error("a wrong c passed the comparison")
	}
	bits := parseCase(t, con, "2:1 1:0")
	if bits.Stream != nil || !slices.Equal(bits.Symbols, lookupInput([]int{2, 1}, []int{1, 0})) {
		t.Errorf("bits parse as %+v, want the symbols 2:1 1:0", bits)
	}
	if w := con.Expected(bits)[0]; !w.Claimed(0) {
		t.Error("y unclaimed on an input of bits")
	}
}

// TestRationalValuesParseErrors: one clear error per malformed position.
func TestRationalValuesParseErrors(t *testing.T) {
	for _, tc := range []struct {
		recipe *recipes.Recipe
		w      model.Weighting
		input  string
		want   string
	}{
		{recipes.Lookup, model.AverageHardmax, "2:x 1:0", `position 1: "2:x": the value`},
		{recipes.Lookup, model.AverageHardmax, "1:0 0:1", `position 2: "0:1" is not q:v`},
		{recipes.Lookup, model.AverageHardmax, "9:1", `queries 9, past N = 3`},
		{recipes.Lookup, model.AverageHardmax, "2 1", `position 1: "2" is not q:v`},
		{recipes.Lookup, model.AverageHardmax, "1:1/0", `zero denominator`},
		{recipes.Lookup, model.AverageHardmax, "   ", `empty input`},
		{recipes.TieBreaking, model.AverageHardmax, "3:1", `position 1: "3:1" is not k:v`},
		{recipes.Pred, model.RightHardmax, "0.5, x", `position 2: "x" is not a number`},
		{recipes.PredStrict, model.LeftHardmax, "inf", `not a finite rational`},
	} {
		con := construct(t, tc.recipe, tc.w, 3, nil)
		_, err := con.Parse(tc.input)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s on %q: error %v, want one containing %q", tc.recipe.Name, tc.input, err, tc.want)
		}
	}
}

// TestPredValuesDomain: pred's conditional is exact for values in [0, 1]
// only, so values outside are outside its domain (and its output is
// wrong there: v = 2 at position 3 gives 10/7 at position 4, not 2, by
// if's ReLU(p + x − 1) + ReLU(−p + y) with x = pred.even = 2 … worked
// out below); pred-strict copies any value.
func TestPredValuesDomain(t *testing.T) {
	con := construct(t, recipes.Pred, model.RightHardmax, 4, nil)
	c := parseCase(t, con, "0.25, 3/7, 2, 1")
	if err := con.Valid(c); err == nil || !strings.Contains(err.Error(), "v = 2 is outside [0, 1]") {
		t.Errorf("Valid = %v, want v = 2 outside [0, 1]", err)
	}
	// Position 3 (odd, > 1): lit = if(even = 0, pred.even, pred.odd) =
	// ReLU(0 + pred.even − 1) + ReLU(−0 + pred.odd), with pred.even the
	// rightmost odd j ≤ 3, v_3 = 2, and pred.odd = v_2 = 3/7: 1 + 3/7 =
	// 10/7, where the paper's function gives v_2 = 3/7.
	got := outputOf(t, con, runCase(t, con, "exact", c), "pred")
	if !got[2].Equals(rat("10/7")) {
		t.Errorf("pred at position 3 = %s, want 10/7 (the conditional outside [0, 1])", got[2].Text)
	}
	strict := construct(t, recipes.PredStrict, model.LeftHardmax, 4, nil)
	if err := checkValid(strict, parseCase(t, strict, "0.25, 3/7, 2, 1")); err != nil {
		t.Errorf("pred-strict refuses v = 2: %v", err)
	}
}

func checkValid(con *recipes.Construction, c recipes.Case) error {
	if con.Valid == nil {
		return nil
	}
	return con.Valid(c)
}

// TestSoftmaxValueBound: under SMAT the qm lookup's weights at position i
// are w_j ∝ e^{(2q_i j − j²) log(8N)} = (8N)^{2q_i j − j²}, rational, so c
// is computed here exactly from the paper's formulas, independently of
// the model. With values ±1000, c misses v_q by far more than the
// paper's 1/4 for bits, and stays within ‖w − e_q‖₁·max|v| ≤ max|v|/4,
// the bound the construction gives such inputs.
func TestSoftmaxValueBound(t *testing.T) {
	const maxN = 3
	con := construct(t, recipes.Lookup, model.Softmax, maxN, nil)
	input := "1:-1000 1:1000 2:0"
	c := parseCase(t, con, input)
	v := rats("-1000", "1000", "0")
	qs := []int64{1, 1, 2}
	base := big.NewRat(8*maxN, 1)
	outs := outputOf(t, con, runCase(t, con, "53", c), "c")
	want := con.Expected(c)
	k := slices.Index(con.Model.Output.Labels, "c")
	bound := rat("250") // max|v|/4
	for i, q := range qs {
		num, den := new(big.Rat), new(big.Rat)
		l1 := new(big.Rat) // ‖w − e_q‖₁ = 2(1 − w_q)
		for j := int64(1); j <= int64(len(v)); j++ {
			w := ratPow(base, 2*q*j-j*j)
			num.Add(num, new(big.Rat).Mul(w, v[j-1]))
			den.Add(den, w)
		}
		exactC := new(big.Rat).Quo(num, den)
		l1.Sub(big.NewRat(1, 1), new(big.Rat).Quo(ratPow(base, q*q), den))
		l1.Mul(l1, big.NewRat(2, 1))
		if l1.Cmp(big.NewRat(1, 4)) > 0 {
			t.Fatalf("position %d: ‖w − e_q‖₁ = %s > 1/4: Edelman's bound fails", i+1, l1.RatString())
		}
		miss := new(big.Rat).Abs(new(big.Rat).Sub(exactC, v[q-1]))
		if miss.Cmp(big.NewRat(1, 4)) <= 0 || miss.Cmp(bound) > 0 {
			t.Errorf("position %d: |c − v_q| = %s, want above 1/4 and at most %s", i+1, ratDec(miss), bound.RatString())
		}
		if e := outs[i].Error(exactC); e.Cmp(big.NewRat(1, 1<<30)) > 0 {
			t.Errorf("position %d: the model's c = %s is %s from the exact softmax output %s", i+1, outs[i].Text, ratDec(e), ratDec(exactC))
		}
		if tol := want[i].Tol; len(tol) <= k || tol[k].Max == nil || tol[k].Max.Cmp(bound) != 0 {
			t.Errorf("position %d: the reference's bound on c is %+v, want %s", i+1, tol, bound.RatString())
		}
		// The fixed bound 1/4 would call the right output wrong.
		fixed := want[i]
		fixed.Tol = nil
		if ok, _ := check.Compare(fixed, runCase(t, con, "53", c)[i], con.Bounds, con.Model.Output.Labels); ok {
			t.Errorf("position %d: c passes the fixed bound 1/4 although it misses v_q by %s", i+1, ratDec(miss))
		}
	}
	if lr := check.Cases(con, mustRunner(t, con, "53"), []recipes.Case{c}); lr.Passed != 1 {
		t.Errorf("the check fails on %q: %+v", input, lr.Failure)
	}
}

// TestSoftmaxValueBoundAttended: tie-breaking under SMAT bounds c by the
// values of the positions the head attends (j ≤ i under the future mask),
// not of the whole input.
func TestSoftmaxValueBoundAttended(t *testing.T) {
	con := construct(t, recipes.TieBreaking, model.Softmax, 3, nil)
	c := parseCase(t, con, "2:1/2 2:-4 0:100")
	k := slices.Index(con.Model.Output.Labels, "c")
	for i, want := range []string{"1/8", "1", "25"} {
		if got := con.Expected(c)[i].Tol[k].Max; got.Cmp(rat(want)) != 0 {
			t.Errorf("position %d: bound %s, want %s", i+1, got.RatString(), want)
		}
	}
}

// TestValuesRationalsInputs: values=rationals draws seeded streams of
// rational values (never an enumeration), the same ones for the same
// seed, and the check passes them; an unknown choice is refused.
func TestValuesRationalsInputs(t *testing.T) {
	for _, tc := range []struct {
		recipe *recipes.Recipe
		w      model.Weighting
		p      string
	}{
		{recipes.Lookup, model.AverageHardmax, "exact"},
		{recipes.Lookup, model.Softmax, "53"},
		{recipes.LookupOneHot, model.LeftHardmax, "exact"},
		{recipes.TieBreaking, model.AverageHardmax, "exact"},
		{recipes.Pred, model.AverageHardmax, "exact"},
		{recipes.PredStrict, model.RightHardmax, "exact"},
	} {
		params := map[string]string{"values": "rationals"}
		con := construct(t, tc.recipe, tc.w, 6, params)
		a, all := con.Inputs(6, rand.New(rand.NewPCG(7, 6)), 5)
		b, _ := con.Inputs(6, rand.New(rand.NewPCG(7, 6)), 5)
		if all || len(a) != 5 || con.AllStrings {
			t.Errorf("%s: %d inputs, exhaustive %v, AllStrings %v; want 5 sampled", tc.recipe.Name, len(a), all, con.AllStrings)
		}
		nonBit := false
		for k := range a {
			if a[k].Stream == nil || a[k].Text != b[k].Text {
				t.Errorf("%s: input %d is %q, then %q (stream %v)", tc.recipe.Name, k, a[k].Text, b[k].Text, a[k].Stream != nil)
			}
			nonBit = nonBit || strings.ContainsAny(a[k].Text, "/-23456789")
			if err := checkValid(con, a[k]); err != nil {
				t.Errorf("%s: drawn input %q outside the domain: %v", tc.recipe.Name, a[k].Text, err)
			}
		}
		if !nonBit {
			t.Errorf("%s: no drawn value outside the alphabet", tc.recipe.Name)
		}
		rep, err := check.Run(tc.recipe, check.Options{Precision: numeric.MustParsePrecision(tc.p), Weighting: tc.w, MaxN: 6, Params: params, Cases: 4, Exhaustive: 256, Seed: 3})
		if err != nil {
			t.Fatal(err)
		}
		if !rep.Passed || rep.LimitLevel != check.Sampled {
			t.Errorf("%s under %s: passed %v, evidence %q; want passed, sampled", tc.recipe.Name, recipes.WeightingAcronym(tc.w), rep.Passed, rep.LimitLevel)
		}
	}
	if _, err := recipes.Lookup.Construct(model.AverageHardmax, 3, map[string]string{"values": "reals"}); err == nil {
		t.Error("values=reals accepted")
	}
}

func ratPow(b *big.Rat, e int64) *big.Rat {
	r := big.NewRat(1, 1)
	for k := int64(0); k < e || k < -e; k++ {
		r.Mul(r, b)
	}
	if e < 0 {
		r.Inv(r)
	}
	return r
}

func ratDec(r *big.Rat) string { return new(big.Float).SetRat(r).Text('g', 6) }
