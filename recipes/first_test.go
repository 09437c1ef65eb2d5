package recipes_test

import (
	"math/big"
	"testing"

	"github.com/transformer-cookbook/verify/check"
	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/model/eval"
	"github.com/transformer-cookbook/verify/numeric"
	"github.com/transformer-cookbook/verify/recipes"
)

// basicRunString runs a symbol-input construction at precision p on the
// string of n a's.
func basicRunString(t *testing.T, con *recipes.Construction, p string, n int) []eval.PositionOutput {
	t.Helper()
	return runCase(t, con, p, recipes.Case{Symbols: make([]int, n)})
}

// TestFirstSweep: first is exact under SMAT and AHAT, every string over
// {a, b} enumerated up to n = 6, random ones up to 24, and 200 under
// AHAT.
func TestFirstSweep(t *testing.T) {
	for k, w := range recipes.First.Weightings {
		basicSweep(t, recipes.First, w, nil, 6, k == 1)
	}
}

// TestFirstAttentionAtMostOneThird verifies the paper's claim "if i > 1,
// then the attention output c_i is the average of −1's and 1's, and so
// will always be at most 1/3", by derivation: the values are
// −(−1)^j = (−1)^{j+1}, i.e. +1, −1, +1, …, so Σ_{j≤i} (−1)^{j+1} is 1
// for odd i and 0 for even i, and c_i = [i odd]/i. Hence c_1 = 1, and
// for i > 1, c_i = 0 (even i) or 1/i ≤ 1/3 (odd i ≥ 3), with equality
// only at i = 3. GTZero_{1/3}(c − 1/3) is then 0 for every i > 1 (c − 1/3
// ≤ 0) and GTZero_{1/3}(2/3) = 1 at i = 1 (2/3 ≥ ε = 1/3). The test
// compares the model's c and first, in exact arithmetic under SMAT and
// AHAT, with this closed form at every i ≤ 120.
func TestFirstAttentionAtMostOneThird(t *testing.T) {
	third := big.NewRat(1, 3)
	for _, w := range recipes.First.Weightings {
		con := construct(t, recipes.First, w, 120, nil)
		out := basicRunString(t, con, "exact", 120)
		for i := 1; i <= 120; i++ {
			want := new(big.Rat)
			if i%2 == 1 {
				want.SetFrac64(1, int64(i))
			}
			c, first := out[i-1].Values[1], out[i-1].Values[0]
			if !c.Equals(want) {
				t.Errorf("%s: c_%d = %s, want [i odd]/i = %s", recipes.WeightingAcronym(w), i, c.Text, want.RatString())
			}
			wantFirst := new(big.Rat)
			if i == 1 {
				wantFirst.SetInt64(1)
			}
			if !first.Equals(wantFirst) {
				t.Errorf("%s: first_%d = %s, want %s", recipes.WeightingAcronym(w), i, first.Text, wantFirst.RatString())
			}
			cr, _ := c.Rat()
			if i > 1 && cr.Cmp(third) > 0 {
				t.Errorf("%s: c_%d = %s exceeds 1/3", recipes.WeightingAcronym(w), i, c.Text)
			}
			if i > 1 && i != 3 && cr.Cmp(third) == 0 {
				t.Errorf("%s: c_%d = 1/3, but only i = 3 attains the bound", recipes.WeightingAcronym(w), i)
			}
		}
	}
}

// TestFirstLiteralUHATCounterexample: the cheat sheet claims First for
// UHAT. Under leftmost UHAT every score is 0 = max, so I(s) = [i] and
// lhardmax picks j = 1 at every i: c_i = −(−1)^1 = 1 and first_i =
// GTZero_{1/3}(1 − 1/3) = GTZero_{1/3}(2/3) = 1 (2/3 ≥ 1/3). On "aa"
// (n = 2), position 2 outputs first = 1 and c = 1; the intended first_2 is
// 0 (and the averaging c_2 = (1 − 1)/2 = 0). Under rightmost UHAT,
// rhardmax picks j = i: c_i = −(−1)^i, which is 1 at odd i: on "aaa",
// first_3 = 1, want 0. The corrected first (SMAT and AHAT) gives 0 at
// both; first-uhat gives 0 under both UHATs.
func TestFirstLiteralUHATCounterexample(t *testing.T) {
	one, zero := rat("1"), rat("0")
	lit := construct(t, recipes.FirstLiteral, model.LeftHardmax, 2, nil)
	got := basicRunString(t, lit, "exact", 2)
	basicValues(t, "first-literal UHAT on aa", got, [][]*big.Rat{{one, one}, {one, one}})
	if want := lit.Expected(recipes.Case{Symbols: []int{0, 0}})[1]; want.Values[0].Sign() != 0 {
		t.Errorf("the reference of first_2 is %s, want 0", want.Values[0].RatString())
	}
	rep, err := check.Run(recipes.FirstLiteral, check.Options{Precision: numeric.MustParsePrecision("exact"), Weighting: model.LeftHardmax, MaxN: 8, Cases: 4, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Passed || rep.FirstFailure.N != 2 || rep.FirstFailure.Position != 2 {
		t.Errorf("first-literal under UHAT: passed %v, first failure %+v; want the failure at n = 2, position 2", rep.Passed, rep.FirstFailure)
	}

	right := construct(t, recipes.FirstLiteral, model.RightHardmax, 3, nil)
	got = basicRunString(t, right, "exact", 3)
	basicValues(t, "first-literal UHAT-right on aaa", got, [][]*big.Rat{{one, one}, {zero, rat("-1")}, {one, one}})

	for _, w := range recipes.FirstLiteral.Weightings[:2] { // SMAT and AHAT: the corrected recipe
		basicMustPass(t, recipes.FirstLiteral, w, []int{1, 2, 3, 4, 5, 6}, nil, 4, 6)
	}
	if recipes.First.Supports(model.LeftHardmax) || !recipes.FirstLiteral.Supports(model.LeftHardmax) {
		t.Error("first must not claim UHAT, first-literal must (as printed)")
	}
}

// TestFirstUHAT: first-uhat is exact under leftmost and rightmost UHAT and
// under AHAT, strings enumerated up to 6, random ones up to 24, and 200
// under leftmost UHAT.
// Hand example (derived in FirstUHAT's doc): c = (−1, 1, 1, …), first =
// (1, 0, 0, …), whatever the symbols.
func TestFirstUHAT(t *testing.T) {
	for k, w := range recipes.FirstUHAT.Weightings {
		basicSweep(t, recipes.FirstUHAT, w, nil, 6, k == 0)
		con := construct(t, recipes.FirstUHAT, w, 5, nil)
		got := runCase(t, con, "exact", recipes.Case{Symbols: []int{1, 0, 1, 1, 0}})
		basicValues(t, "first-uhat "+recipes.WeightingAcronym(w)+" on babba", got,
			[][]*big.Rat{rats("1", "-1"), rats("0", "1"), rats("0", "1"), rats("0", "1"), rats("0", "1")})
	}
	if recipes.FirstUHAT.Supports(model.Softmax) {
		t.Error("first-uhat claims SMAT, whose weights on the scores ±1 are not hard")
	}
}

// TestFirstPerturbed: negative controls. With W^V = −1/2 instead of −I,
// c_1 = 1/2 and first_1 = GTZero_{1/3}(1/2 − 1/3) = (1/6)/(1/3) = 1/2 ≠ 1.
// In first-uhat, W^K = 0 ties every score: leftmost UHAT then retrieves
// p_1 = −1 everywhere, and first_2 = 1 ≠ 0.
func TestFirstPerturbed(t *testing.T) {
	halfValue := basicPerturbed(recipes.First, func(m *model.Model) {
		c, p := basicComp(t, m, "c"), basicComp(t, m, "p")
		m.Layers[0].Attention.Heads[0].V.Set(c, p, numeric.Frac(-1, 2))
	})
	if f := basicMustFail(t, halfValue, model.AverageHardmax, 6, nil); f != nil && (f.N != 1 || f.Position != 1) {
		t.Errorf("first with W^V = −1/2: first failure %+v, want at n = 1", f)
	}
	noKey := basicPerturbed(recipes.FirstUHAT, func(m *model.Model) {
		m.Layers[0].Attention.Heads[0].K = model.Zeros(1, m.D)
	})
	if f := basicMustFail(t, noKey, model.LeftHardmax, 6, nil); f != nil && (f.N != 2 || f.Position != 2) {
		t.Errorf("first-uhat with W^K = 0: first failure %+v, want at n = 2, position 2", f)
	}
}

// TestInversePosition: 1/i from (−1)^i alone, exact under SMAT and AHAT
// (enumerated to 6, random to 24, and 200 under AHAT); by hand, position i
// averages first_1 … first_i = (1, 0, …, 0): 1, 1/2, 1/3, 1/4. A value
// weight of 2 in the second layer doubles it (negative control).
func TestInversePosition(t *testing.T) {
	for k, w := range recipes.InversePosition.Weightings {
		basicSweep(t, recipes.InversePosition, w, nil, 6, k == 1)
		got := basicRunString(t, construct(t, recipes.InversePosition, w, 4, nil), "exact", 4)
		basicValues(t, "inverse-position "+recipes.WeightingAcronym(w), got,
			[][]*big.Rat{rats("1", "1"), rats("1/2", "0"), rats("1/3", "0"), rats("1/4", "0")})
	}
	doubled := basicPerturbed(recipes.InversePosition, func(m *model.Model) {
		out, in := basicComp(t, m, "1/i"), basicComp(t, m, "first")
		m.Layers[1].Attention.Heads[0].V.Set(out, in, numeric.LitInt(2))
	})
	basicMustFail(t, doubled, model.Softmax, 4, nil)
}

// TestFirstFloatingPoint pins how the two first constructions fare in
// floating point. The paper's threshold GTZero_{1/3}(c − 1/3) has the
// weights b1 = (−1/3, −2/3) and W2 = (3, −3), and 1/3 is not dyadic.
//
//   - fp32 at i = 1, c = 1: fl(1/3) = 11184811·2^−25 and fl(2/3) =
//     11184811·2^−24 (both rounded up). h1 = fl(1 − fl(1/3)) =
//     fl(22369621·2^−25), odd at spacing 2^−24 in [1/2, 1): a tie, to
//     even: 22369620·2^−25. h2 = 1 − fl(2/3) = 5592405·2^−24, exact. Then
//     3h1 = 67108860·2^−25 = 16777215·2^−23 (exact) and 3h2 =
//     16777215·2^−24 (exact), and 3h1 − 3h2 = 16777215·2^−24 = 1 − 2^−24:
//     first_1 = 1 − 2^−24, not 1.
//   - fp16 at i = 1: fl(1/3) = 1365·2^−12, h1 = fl(2731·2^−12) = a tie at
//     spacing 2^−11 → 1366·2^−11; fl(2/3) = 1365·2^−11, h2 = 683·2^−11
//     exact; 3h1 = 4098·2^−11 at spacing 2^−9 in [2, 4): a tie → 2;
//     3h2 = 2049·2^−11 at spacing 2^−10: a tie → 1; first_1 = 2 − 1 = 1,
//     exact by the luck of two ties.
//   - first-uhat has the weights 0, ±1 and the values ±1: every format
//     holds every intermediate value, so it is exact at every length
//     (checked to 256 in fp8-e4m3, bf16, fp16 and fp32, leftmost UHAT).
func TestFirstFloatingPoint(t *testing.T) {
	for _, tc := range []struct {
		p    string
		want *big.Rat
	}{{"fp32", new(big.Rat).SetFrac64(1<<24-1, 1<<24)}, {"fp16", rat("1")}} {
		got := basicRunString(t, construct(t, recipes.First, model.AverageHardmax, 1, nil), tc.p, 1)
		if !got[0].Values[0].Equals(tc.want) {
			t.Errorf("first_1 at %s = %s, want %s", tc.p, got[0].Values[0].Text, tc.want.RatString())
		}
	}
	for _, p := range []string{"fp8-e4m3", "bf16", "fp16", "fp32"} {
		rep, err := check.Run(recipes.FirstUHAT, check.Options{Precision: numeric.MustParsePrecision(p), Weighting: model.LeftHardmax,
			MaxN: 256, Lengths: []int{1, 2, 3, 4, 5, 17, 64, 256}, Cases: 2, Seed: 3})
		if err != nil {
			t.Fatal(err)
		}
		if !rep.Passed {
			t.Errorf("first-uhat at %s: %+v", p, rep.FirstFailure)
		}
	}
}
