package recipes_test

import (
	"math/big"
	"slices"
	"strings"
	"testing"

	"github.com/transformer-cookbook/verify/check"
	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/model/eval"
	"github.com/transformer-cookbook/verify/numeric"
	"github.com/transformer-cookbook/verify/recipes"
)

var tieBreakNames = []string{"-1/j", "1/j", "j/n", "-j/n"}

// tbOutputs runs the tiebreak construction at precision p on text and
// returns c at every position.
func tbOutputs(t *testing.T, con *recipes.Construction, p, text string) []eval.Value {
	t.Helper()
	var out []eval.Value
	for _, o := range runCase(t, con, p, predCase(t, con, text)) {
		out = append(out, o.Values[1])
	}
	return out
}

// TestTieBreakExpected: the reference, by hand, on "2:0 1:1 2:1 0:0":
// the keys are (2, 1, 2, 0). Rightmost, future mask: positions 1, 2 see
// one maximal key (j = 1, v = 0); positions 3, 4 the rightmost of j = 1,
// 3 (v = 1). Leftmost: always j = 1 (v = 0). Rightmost, no mask: j = 3
// everywhere.
func TestTieBreakExpected(t *testing.T) {
	con := construct(t, recipes.TieBreaking, model.AverageHardmax, 4, nil)
	c := predCase(t, con, "2:0 1:1 2:1 0:0")
	tests := []struct {
		rightmost, future bool
		want              []int64
	}{
		{true, true, []int64{0, 0, 1, 1}},
		{false, true, []int64{0, 0, 0, 0}},
		{true, false, []int64{1, 1, 1, 1}},
		{false, false, []int64{0, 0, 0, 0}},
	}
	for _, tc := range tests {
		got := recipes.TieBreakExpected(c, tc.rightmost, tc.future)
		for i, w := range tc.want {
			if got[i].Values[1].Cmp(big.NewRat(w, 1)) != 0 {
				t.Errorf("rightmost %v, future %v, position %d: %s, want %d", tc.rightmost, tc.future, i+1, got[i].Values[1].RatString(), w)
			}
		}
	}
}

// TestTieBreakTermSpread checks the section's precondition at the
// extremes. The term moves a score by γ t(j), so it never overturns a gap
// of γ iff t(j) − t(j′) < 1 for all j, j′ ∈ [n]. Each t is monotone in j,
// so the spread is |t(n) − t(1)|, which is 1 − 1/n by hand for all four
// (−1/j: −1/n − (−1); 1/j: 1 − 1/n; j/n: 1 − 1/n; −j/n: −1/n − (−1)):
// below 1 for every n. And the direction: t(n) > t(1) for the rightmost
// terms, t(1) > t(n) for the leftmost ones.
func TestTieBreakTermSpread(t *testing.T) {
	for _, name := range tieBreakNames {
		term := recipes.TieBreakTerms[name]
		for n := 1; n <= 64; n++ {
			lo, hi := term.Term(1, n), term.Term(n, n)
			spread := new(big.Rat).Sub(hi, lo)
			if !term.Rightmost {
				spread.Neg(spread)
			}
			want := new(big.Rat).Sub(big.NewRat(1, 1), big.NewRat(1, int64(n)))
			if spread.Cmp(want) != 0 {
				t.Errorf("t = %s, n = %d: t(n) − t(1) = %s (oriented), want 1 − 1/n = %s", name, n, spread.RatString(), want.RatString())
			}
			for j := 1; j < n; j++ {
				d := new(big.Rat).Sub(term.Term(j+1, n), term.Term(j, n))
				if term.Rightmost != (d.Sign() > 0) {
					t.Errorf("t = %s, n = %d: t(%d) → t(%d) is not monotone in the right direction", name, n, j, j+1)
				}
			}
		}
	}
}

// TestTieBreakGap: TieBreakGap is γ/(N(N−1)) for ±1/j and γ/N for ±j/n
// (γ for N = 1), and brute force over every key string in {0, 1, 2}^n,
// n ≤ N = 5, and every prefix (the future mask), with γ = 1 and with
// γ = 1/2, finds the smallest difference between the top tie-broken score
// k_j + γ t(j) and any other equal to it (the bound is attained: two
// maximal keys at N−1 and N, or a maximal key at 1 and a key one less
// at N).
func TestTieBreakGap(t *testing.T) {
	gamma := big.NewRat(3, 1)
	if g, _ := recipes.TieBreakGap("-1/j", gamma, 5); g.String() != numeric.Frac(3, 20).String() {
		t.Errorf("gap for -1/j, N = 5: %v, want 3/20", g)
	}
	if g, _ := recipes.TieBreakGap("-j/n", gamma, 5); g.String() != numeric.Frac(3, 5).String() {
		t.Errorf("gap for -j/n, N = 5: %v, want 3/5", g)
	}
	if g, _ := recipes.TieBreakGap("1/j", gamma, 1); g.String() != numeric.LitInt(3).String() {
		t.Errorf("gap for N = 1: %v, want 3", g)
	}
	const maxN = 5
	for _, g := range []*big.Rat{big.NewRat(1, 1), big.NewRat(1, 2)} {
		for _, name := range tieBreakNames {
			term := recipes.TieBreakTerms[name]
			var smallest *big.Rat
			for n := 2; n <= maxN; n++ {
				keys := make([]int, n)
				for code := 0; code < pow(3, n); code++ {
					for j, x := 0, code; j < n; j, x = j+1, x/3 {
						keys[j] = x % 3
					}
					for i := 2; i <= n; i++ { // the prefix j ≤ i
						scores := make([]*big.Rat, i)
						top := 0
						for j := range scores {
							s := new(big.Rat).Mul(g, term.Term(j+1, n))
							scores[j] = s.Add(s, big.NewRat(int64(keys[j]), 1))
							if scores[j].Cmp(scores[top]) > 0 {
								top = j
							}
						}
						for j, s := range scores {
							if j == top {
								continue
							}
							d := new(big.Rat).Sub(scores[top], s)
							if d.Sign() <= 0 {
								t.Fatalf("t = %s, keys %v, prefix %d: two top scores", name, keys, i)
							}
							if smallest == nil || d.Cmp(smallest) < 0 {
								smallest = d
							}
						}
					}
				}
			}
			gap, _ := recipes.TieBreakGap(name, g, maxN)
			if want, _, _ := gap.Rat(); smallest.Cmp(want) != 0 {
				t.Errorf("t = %s, γ = %s: smallest gap over n ≤ %d is %s, TieBreakGap says %v", name, g.RatString(), maxN, smallest.RatString(), gap)
			}
		}
	}
}

func pow(b, e int) int {
	p := 1
	for ; e > 0; e-- {
		p *= b
	}
	return p
}

// TestTieBreakExactAHAT: for each of the four terms and both masks, AHAT
// on the tie-broken scores retrieves v at the leftmost/rightmost maximal
// key, exactly, for every input up to length 2 and seeded random inputs
// (adjacent tied maxima among them) up to 12; TestTieBreakEveryKeyPattern
// covers every key string up to length 4.
func TestTieBreakExactAHAT(t *testing.T) {
	for _, name := range tieBreakNames {
		for _, mask := range []string{"future", "none"} {
			t.Run(name+"/"+mask, func(t *testing.T) {
				checkAllExact(t, recipes.TieBreaking, model.AverageHardmax, map[string]string{"t": name, "mask": mask}, 12, 36, 2)
			})
		}
	}
}

// TestTieBreakEveryKeyPattern: for every key string in {0, 1, 2}^n,
// n ≤ 4, without a mask, the value is 1 at the position the reference
// picks (leftmost/rightmost maximal key) and 0 elsewhere, so that any
// other pick, or an average over several, shows: every position must
// output c = y = 1, exactly, for each of the four terms.
func TestTieBreakEveryKeyPattern(t *testing.T) {
	for _, name := range tieBreakNames {
		con := construct(t, recipes.TieBreaking, model.AverageHardmax, 4, map[string]string{"t": name, "mask": "none"})
		r, err := eval.New(numeric.MustParsePrecision("exact"), con.Model)
		if err != nil {
			t.Fatal(err)
		}
		rightmost := recipes.TieBreakTerms[name].Rightmost
		for n := 1; n <= 4; n++ {
			in := make([]int, n)
			for code := 0; code < pow(3, n); code++ {
				best := 0
				for j, x := 0, code; j < n; j, x = j+1, x/3 {
					in[j] = 2 * (x % 3)
					if k := x % 3; k > in[best]/2 || k == in[best]/2 && rightmost {
						best = j
					}
				}
				in[best]++ // value 1 at the pick
				res, err := r.Run(in, false)
				if err != nil {
					t.Fatal(err)
				}
				for i, o := range res.Outputs {
					if !o.Values[0].Equals(big.NewRat(1, 1)) || !o.Values[1].Equals(big.NewRat(1, 1)) {
						t.Fatalf("t = %s on %s, position %d: y, c = %v, want 1, 1", name, check.CaseText(con.Model, recipes.Case{Symbols: in}), i+1, o.Values)
					}
				}
			}
		}
	}
}

// TestTieBreakWithoutTerm: the base head alone under AHAT averages the
// tied maxima, which is why the term is needed: with the term's weight γ
// set to 0 in the built model, position 2 of "2:0 2:1" outputs
// c = (0 + 1)/2 = 1/2.
func TestTieBreakWithoutTerm(t *testing.T) {
	con := construct(t, recipes.TieBreaking, model.AverageHardmax, 2, nil)
	q := con.Model.Layers[0].Attention.Heads[0].Q
	one := slices.Index(con.Model.Components, "1")
	q.Set(1, one, numeric.LitInt(0))
	wantValues(t, "no tie-breaking on 2:0 2:1", tbOutputs(t, con, "exact", "2:0 2:1"), "0", "1/2")
}

// TestTieBreakPerturbedCaught: two perturbations the check catches, with
// hand-derived outputs.
//
//   - γ = 2 with t = −1/j, although the scores' gap is only 1: on
//     "2:1 1:0" position 2 scores 2 + 2(−1) = 0 and 1 + 2(−1/2) = 0, a
//     tie, so AHAT gives c = (1 + 0)/2 = 1/2 where the maximal key's value
//     is 1. The sweep fails first at n = 2.
//   - t = −1/j with the sign of the tie-breaking row flipped (the leftmost
//     1/j in a rightmost recipe): on "2:0 2:1" position 2 scores 2 + 1 and
//     2 + 1/2 and retrieves v_1 = 0, not v_2 = 1.
func TestTieBreakPerturbedCaught(t *testing.T) {
	params := map[string]string{"t": "-1/j", "gamma": "2"}
	con := construct(t, recipes.TieBreaking, model.AverageHardmax, 2, params)
	wantValues(t, "γ = 2 on 2:1 1:0", tbOutputs(t, con, "exact", "2:1 1:0"), "1", "1/2")
	rep, err := check.Run(recipes.TieBreaking, check.Options{Precision: numeric.MustParsePrecision("exact"),
		Weighting: model.AverageHardmax, MaxN: 4, Params: params, Cases: 4, Exhaustive: 1296, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Passed || rep.FirstFailure == nil || rep.FirstFailure.N != 2 {
		t.Errorf("γ = 2: the check should fail first at n = 2, got %+v", rep.FirstFailure)
	}

	con = construct(t, recipes.TieBreaking, model.AverageHardmax, 2, map[string]string{"t": "-1/j"})
	k := con.Model.Layers[0].Attention.Heads[0].K
	tc := slices.Index(con.Model.Components, "t")
	k.Set(1, tc, numeric.LitInt(-1))
	got := tbOutputs(t, con, "exact", "2:0 2:1")
	wantValues(t, "flipped term on 2:0 2:1", got, "0", "0")
	if want := recipes.TieBreakExpected(predCase(t, con, "2:0 2:1"), true, true)[1].Values[1]; got[1].Equals(want) {
		t.Error("the reference agrees with the flipped model")
	}
}

// TestTieBreakSoftmax: under SMAT with 1/τ = log(8N)/gap and the
// tie-broken gap, y = v exactly and |c − v| ≤ 1/4, at 53 bits (where
// nothing rounds enough to matter) for n ≤ N = 8, every term; c is not
// always exact, so the bound is exercised. Exact arithmetic refuses
// log(8N), and γ above the gap 1 is refused.
func TestTieBreakSoftmax(t *testing.T) {
	for _, name := range tieBreakNames {
		rep, err := check.Run(recipes.TieBreaking, check.Options{Precision: numeric.MustParsePrecision("53"),
			Weighting: model.Softmax, MaxN: 8, Params: map[string]string{"t": name}, Cases: 6, Exhaustive: 216, Seed: 2})
		if err != nil {
			t.Fatal(err)
		}
		if !rep.Passed {
			t.Fatalf("SMAT t = %s: %+v", name, rep.FirstFailure)
		}
		inexact := 0
		for _, lr := range rep.Lengths {
			inexact += lr.Cases - lr.Exact
		}
		if inexact == 0 {
			t.Errorf("SMAT t = %s: every output exact", name)
		}
	}
	if _, err := recipes.TieBreaking.Construct(model.Softmax, 4, map[string]string{"gamma": "2"}); err == nil {
		t.Error("SMAT accepted γ = 2 > the gap 1")
	}
	_, err := check.Run(recipes.TieBreaking, check.Options{Precision: numeric.MustParsePrecision("exact"), Weighting: model.Softmax, MaxN: 4, Cases: 1})
	if err == nil || !strings.Contains(err.Error(), "log(") {
		t.Errorf("exact SMAT: error %v, want one naming log(8N)", err)
	}
}

// TestTieBreakFP16Tie pins the first fp16 rounding tie of t = −1/j (a
// scan of every n found none earlier), by hand. The score of a maximal
// key 2 at j is fl(2 + fl(−1/j)); fp16 spaces [1, 2) by 2^−10, so it is
// round(1024(2 − 1/j))/1024 (fl(−1/j) is exact to 2^−16, too little to
// move it):
//
//	j = 35: 2048 − 29.26 = 2018.74 → 2019;  j = 36: 2048 − 28.44 = 2019.56 → 2020
//	j = 37: 2048 − 27.68 = 2020.32 → 2020
//
// So with maximal keys at 36 and 37 (values 0 and 1) position 37 ties
// and AHAT gives c = 1/2 (y = GTZero_{1/2}(1/4) = 1/2); with maximal keys
// at 35 and 36 position 36 is right (c = 1).
func TestTieBreakFP16Tie(t *testing.T) {
	input := func(n, j int) string {
		syms := make([]string, n)
		for i := range syms {
			syms[i] = "0:0"
		}
		syms[j-1], syms[j] = "2:0", "2:1"
		return strings.Join(syms, " ")
	}
	for _, tc := range []struct {
		n, j int
		want string
	}{{37, 36, "1/2"}, {36, 35, "1"}} {
		con := construct(t, recipes.TieBreaking, model.AverageHardmax, tc.n, map[string]string{"t": "-1/j"})
		got := tbOutputs(t, con, "fp16", input(tc.n, tc.j))
		if !got[tc.n-1].Equals(rat(tc.want)) {
			t.Errorf("fp16, maximal keys at %d and %d: c_%d = %s, want %s", tc.j, tc.j+1, tc.n, got[tc.n-1].Text, tc.want)
		}
	}
}
