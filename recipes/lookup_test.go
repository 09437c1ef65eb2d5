package recipes_test

import (
	"math/big"
	"strconv"
	"strings"
	"testing"

	"github.com/transformer-cookbook/verify/check"
	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/model/eval"
	"github.com/transformer-cookbook/verify/numeric"
	"github.com/transformer-cookbook/verify/recipes"
)

// lookupInput builds the input whose position i holds query qs[i] and
// value vs[i].
func lookupInput(qs, vs []int) []int {
	in := make([]int, len(qs))
	for i := range qs {
		in[i] = recipes.LookupIndex(qs[i], vs[i])
	}
	return in
}

// TestLookupExpected: the reference retrieves v_{q_i}; examples by hand.
func TestLookupExpected(t *testing.T) {
	m := construct(t, recipes.Lookup, model.AverageHardmax, 3, nil).Model
	in, err := m.Tokenize("2:1 3:0 1:1")
	if err != nil {
		t.Fatal(err)
	}
	// v = (1, 0, 1); queries (2, 3, 1) retrieve v_2 = 0, v_3 = 1, v_1 = 1.
	for i, want := range []int64{0, 1, 1} {
		got := recipes.LookupExpected(recipes.Case{Symbols: in})[i]
		for k, v := range got.Values {
			if v.Cmp(big.NewRat(want, 1)) != 0 {
				t.Errorf("position %d, output %d: reference %v, want %d", i+1, k, v, want)
			}
		}
	}
	if err := recipes.LookupValid(recipes.Case{Symbols: lookupInput([]int{1, 3}, []int{0, 0})}); err == nil {
		t.Error("a query past the end of the input was accepted")
	}
}

// TestLookupExactAHAT: in exact arithmetic the construction retrieves the
// right value for every input up to length 4 (enumerated: (2n)^n inputs)
// and for seeded random inputs up to 40.
func TestLookupExactAHAT(t *testing.T) {
	rep, err := check.Run(recipes.Lookup, check.Options{Precision: numeric.MustParsePrecision("exact"),
		Weighting: model.AverageHardmax, MaxN: 40, Cases: 8, Exhaustive: 5000, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Passed || rep.Limit != 40 {
		t.Fatalf("exact AHAT lookup failed: limit %d, first failure %+v", rep.Limit, rep.FirstFailure)
	}
	for _, lr := range rep.Lengths {
		if lr.N <= 4 && !lr.Exhaustive {
			t.Errorf("length %d was not enumerated", lr.N)
		}
		if lr.Exact != lr.Cases {
			t.Errorf("length %d: %d of %d cases exact", lr.N, lr.Exact, lr.Cases)
		}
	}
}

// TestLookupSoftmaxBound: under SMAT with 1/τ = log(8N), the paper claims
// |c − v| ≤ 1/4 and y = v exactly; at 53 bits nothing rounds enough to
// matter for n ≤ N = 48, so the claims must hold, and c must not be exact.
func TestLookupSoftmaxBound(t *testing.T) {
	rep, err := check.Run(recipes.Lookup, check.Options{Precision: numeric.MustParsePrecision("53"),
		Weighting: model.Softmax, MaxN: 48, Cases: 4, Exhaustive: 300, Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Passed {
		t.Fatalf("SMAT lookup at 53 bits failed: %+v", rep.FirstFailure)
	}
	inexact := 0
	for _, lr := range rep.Lengths {
		inexact += lr.Cases - lr.Exact
	}
	if inexact == 0 {
		t.Error("every softmax output was exact: the bound was not exercised")
	}
	// Exact arithmetic cannot run softmax: log(8N) is irrational.
	_, err = check.Run(recipes.Lookup, check.Options{Precision: numeric.MustParsePrecision("exact"), Weighting: model.Softmax, MaxN: 4, Cases: 1})
	if err == nil || !strings.Contains(err.Error(), "log(") {
		t.Errorf("exact SMAT: error %v, want one naming log(8N)", err)
	}
}

// runLookup runs the lookup model at precision p on one input and returns
// c at position 1.
func runLookup(t *testing.T, p string, w model.Weighting, maxN int, in []int) eval.Value {
	t.Helper()
	m := construct(t, recipes.Lookup, w, maxN, nil).Model
	r, err := eval.New(numeric.MustParsePrecision(p), m)
	if err != nil {
		t.Fatal(err)
	}
	res, err := r.Run(in, false)
	if err != nil {
		t.Fatal(err)
	}
	return res.Outputs[0].Values[1]
}

// tieInput is the input of length n whose first position queries q, with
// v_q = 1 and every other value 0.
func tieInput(n, q int) []int {
	qs, vs := make([]int, n), make([]int, n)
	for i := range qs {
		qs[i] = 1
	}
	qs[0] = q
	vs[q-1] = 1
	return lookupInput(qs, vs)
}

// TestLookupRoundingTies pins where rounding creates a tie, derived by
// hand:
//
//   - fp16 (11-bit significand), q = 46: s_46 = 2·46·46 − 46² = 2116
//     exactly, but s_45 = 2·46·45 − 45² = 4140 − 2025 = 2115 lies midway
//     between 2114 and 2116 (spacing 2 above 2048) and rounds to the even
//     significand, 2116: positions 45 and 46 tie and AHAT returns
//     c = (0 + 1)/2. q = 45 is still fine: s_45 = 2025, s_44 = 2024.
//   - fp32 (24 bits), q = 4097: 2q² = 33570818 rounds (spacing 4) to
//     33570816 and q² = 16785409 (spacing 2) to 16785408, so s_4097 =
//     16785408 = 2·4097·4096 − 4096² = s_4096: again c = 1/2. q = 4096:
//     q² = 2^24 is exact and the scores differ.
func TestLookupRoundingTies(t *testing.T) {
	half, one := big.NewRat(1, 2), big.NewRat(1, 1)
	tests := []struct {
		p    string
		n, q int
		want *big.Rat
	}{
		{"fp16", 46, 46, half},
		{"fp16", 45, 45, one},
		{"exact", 46, 46, one},
		{"fp32", 4097, 4097, half},
		{"fp32", 4096, 4096, one},
	}
	for _, tc := range tests {
		c := runLookup(t, tc.p, model.AverageHardmax, tc.n, tieInput(tc.n, tc.q))
		if !c.Equals(tc.want) {
			t.Errorf("%s, q = %d: c = %s, want %s", tc.p, tc.q, c.Text, tc.want.RatString())
		}
	}
}

// TestLookupSweepFindsFP16Limit: the sweep at fp16 stops at or before the
// tie of TestLookupRoundingTies (n = 46), never claims a limit beyond a
// failing length, and reports the failing case.
func TestLookupSweepFindsFP16Limit(t *testing.T) {
	rep, err := check.Run(recipes.Lookup, check.Options{Precision: numeric.MustParsePrecision("fp16"),
		Weighting: model.AverageHardmax, MaxN: 64, Cases: 8, Exhaustive: 256, Seed: 1,
		Lengths: []int{1, 2, 4, 8, 16, 32, 46, 64}})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Passed || rep.FirstFailure == nil {
		t.Fatal("fp16 lookup passed up to 64, but n = 46 has a rounding tie")
	}
	if rep.Limit >= rep.FirstFailure.N || rep.Limit > 45 {
		t.Errorf("limit %d with first failure at %d", rep.Limit, rep.FirstFailure.N)
	}
	if rep.FirstFailure.Position == 0 || rep.FirstFailure.Reason == "" {
		t.Errorf("failure lacks its position or reason: %+v", rep.FirstFailure)
	}
}

func TestDefaultLengths(t *testing.T) {
	got := check.DefaultLengths(1, 20)
	want := []int{1, 2, 3, 4, 5, 6, 7, 8, 10, 12, 15, 18, 20}
	if len(got) != len(want) {
		t.Fatalf("DefaultLengths(1, 20) = %v, want %v", got, want)
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("DefaultLengths(1, 20) = %v, want %v", got, want)
		}
	}
}

// TestLookupAlphabetAndEmbedding: the lookup built for N has the 2N
// symbols "q:v" in the order q = 1 … N, v = 0, 1, and the row of "q:v"
// holds q in component q and v in component v (the rows are built from
// columns, q:0 and q:1 sharing q, and stored in one block).
func TestLookupAlphabetAndEmbedding(t *testing.T) {
	r, err := recipes.Get("lookup")
	if err != nil {
		t.Fatal(err)
	}
	for _, maxN := range []int{1, 9, 10, 99, 100, 1000, 10000} {
		con, err := r.Construct(model.AverageHardmax, maxN, nil)
		if err != nil {
			t.Fatal(err)
		}
		m := con.Model
		if len(m.Alphabet) != 2*maxN || len(m.WordEmbedding) != 2*maxN {
			t.Fatalf("N = %d: %d symbols and %d rows, want %d", maxN, len(m.Alphabet), len(m.WordEmbedding), 2*maxN)
		}
		col := map[string]int{}
		for k, c := range m.Components {
			col[c] = k
		}
		for q := 1; q <= maxN; q++ {
			for v := range 2 {
				s := 2*(q-1) + v
				if want := strconv.Itoa(q) + ":" + strconv.Itoa(v); m.Alphabet[s] != want {
					t.Fatalf("N = %d: symbol %d is %q, want %q", maxN, s, m.Alphabet[s], want)
				}
				row := m.WordEmbedding[s]
				gq, _, _ := row[col["q"]].Rat()
				gv, _, _ := row[col["v"]].Rat()
				if gq.Cmp(big.NewRat(int64(q), 1)) != 0 || gv.Cmp(big.NewRat(int64(v), 1)) != 0 {
					t.Fatalf("N = %d: the row of %q holds q = %v, v = %v", maxN, m.Alphabet[s], gq, gv)
				}
			}
		}
	}
}
