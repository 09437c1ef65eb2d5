package check

import (
	"errors"
	"fmt"
	"math/big"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"github.com/transformer-cookbook/verify/internal/testenv"
	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/model/eval"
	"github.com/transformer-cookbook/verify/numeric"
	"github.com/transformer-cookbook/verify/recipes"
)

// enumerateCases are constructions with AllStrings under several
// weightings and precisions, passing and failing (first-literal is wrong
// under UHAT; dyck1-n with a coarse threshold rejects words; fp16 rounds
// dyck1's averages), and some that are not prefix-stable.
var enumerateCases = []struct {
	recipe    string
	weighting model.Weighting
	precision string
	maxN      int
	params    map[string]string
	fails     bool
	// whole: a position sees later ones (a past mask), so the model must
	// be run whole (and is). A position encoding that depends on n
	// (pe_n(i) = i/n) is enumerated one length at a time.
	whole bool
}{
	{"dyck1", model.AverageHardmax, "exact", 9, nil, false, false},
	{"dyck1", model.Softmax, "exact", 8, nil, false, false},
	{"dyck1", model.AverageHardmax, "fp16", 9, nil, true, false},
	{"dyck1-n", model.AverageHardmax, "exact", 9, nil, false, false},
	{"dyck1-n", model.AverageHardmax, "exact", 9, map[string]string{"eq-eps": "1/2"}, true, false},
	{"dyck1-n", model.Softmax, "53", 8, nil, true, false},
	{"dyck12", model.LeftHardmax, "exact", 5, nil, false, true},
	{"dyck-kd", model.LeftHardmax, "fp32", 4, nil, true, true},
	{"first", model.AverageHardmax, "exact", 8, nil, false, false},
	{"first-literal", model.LeftHardmax, "exact", 8, nil, true, false},
	{"first-uhat", model.LeftHardmax, "interval:53", 8, nil, false, false},
	{"inverse-position", model.AverageHardmax, "fp16", 8, nil, true, false},
	{"pred", model.RightHardmax, "exact", 6, nil, false, false},
	{"pred", model.AverageHardmax, "fp32", 6, nil, true, false},
	{"pred", model.AverageHardmax, "exact", 6, map[string]string{"t": "j/n"}, false, false},
	{"pred-strict", model.RightHardmax, "fp64", 6, nil, false, false},
	{"pred-strict", model.LeftHardmax, "bf16", 7, nil, false, false},
}

// TestEnumerateMatchesScratch checks that Run gives the same report,
// field for field (failures, their inputs and indices, largest errors),
// whether the exhaustive lengths are enumerated depth first or run whole;
// and so do the shards of a length. It enumerates up to length 6;
// TestLongEnumerateMatchesScratch, up to each case's maxN.
func TestEnumerateMatchesScratch(t *testing.T) {
	enumerateMatchesScratch(t, 6)
}

// TestLongEnumerateMatchesScratch is TestEnumerateMatchesScratch at each
// case's full maxN (up to 9).
func TestLongEnumerateMatchesScratch(t *testing.T) {
	testenv.Long(t)
	enumerateMatchesScratch(t, 0)
}

// enumerateMatchesScratch runs TestEnumerateMatchesScratch's cases with
// their maxN capped at limit (no cap when limit is 0).
func enumerateMatchesScratch(t *testing.T, limit int) {
	for _, tc := range enumerateCases {
		name := fmt.Sprintf("%s/%s/%s", tc.recipe, recipes.WeightingAcronym(tc.weighting), tc.precision)
		t.Run(name, func(t *testing.T) {
			r, err := recipes.Get(tc.recipe)
			if err != nil {
				t.Fatal(err)
			}
			maxN := tc.maxN
			if limit > 0 {
				maxN = min(maxN, limit)
			}
			opts := Options{Precision: numeric.MustParsePrecision(tc.precision), Weighting: tc.weighting, MaxN: maxN + 1,
				Params: tc.params, Cases: 4, Seed: 3, AllLengths: true, Unlisted: !r.Supports(tc.weighting), Workers: 2}
			ck, err := NewChecker(r, opts)
			if err != nil {
				t.Fatal(err)
			}
			// Every length up to maxN is enumerated; maxN + 1 is drawn at
			// random, through the from-scratch path in both.
			opts.Exhaustive = 1
			for range maxN {
				opts.Exhaustive *= len(ck.Con.Model.Alphabet)
			}
			if ck, err = NewChecker(r, opts); err != nil {
				t.Fatal(err)
			}
			if _, ok := ck.enumerate([]int{maxN}, 0, 1, nil); ok == tc.whole {
				t.Fatalf("%s: enumerated depth first: %v, want %v", name, ok, !tc.whole)
			}
			dfs, err := Run(r, opts)
			if err != nil {
				t.Fatal(err)
			}
			opts.FromScratch = true
			whole, err := Run(r, opts)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(dfs, whole) {
				t.Errorf("depth first:\n%+v\nfrom scratch:\n%+v", dfs, whole)
			}
			if whole.Passed == tc.fails {
				t.Errorf("passed = %v, want %v", whole.Passed, !tc.fails)
			}
			if tc.fails && whole.FirstFailure != nil {
				t.Logf("first failure: %+v", *whole.FirstFailure)
			}
			scratch, err := NewChecker(r, opts)
			if err != nil {
				t.Fatal(err)
			}
			for _, parts := range []int{2, 3} {
				var all []LengthPart
				for part := 0; part < parts; part++ {
					got, err := ck.Part(maxN, part, parts)
					if err != nil {
						t.Fatal(err)
					}
					want, err := scratch.Part(maxN, part, parts)
					if err != nil {
						t.Fatal(err)
					}
					if !reflect.DeepEqual(got, want) {
						t.Errorf("part %d of %d: depth first %+v, from scratch %+v", part, parts, got, want)
					}
					all = append(all, got)
				}
				if err := ValidateParts(all, maxN+1); err != nil {
					t.Errorf("%d parts: %v", parts, err)
				}
				// The parts, in any order, make the length's report.
				slices.Reverse(all)
				if got, _ := ComposeLength(all, 0); !reflect.DeepEqual(got, scratch.Length(maxN)) {
					t.Errorf("%d parts composed: %+v, want %+v", parts, got, scratch.Length(maxN))
				}
			}
		})
	}
}

// TestEnumerateFailureIndex plants a wrong reference at one input of a
// length (dyck1's at its 1000th string, at position 4) and checks that
// both paths name it, with the same index, position and texts; and that
// a reference of the wrong length is reported alike.
func TestEnumerateFailureIndex(t *testing.T) {
	r, err := recipes.Get("dyck1")
	if err != nil {
		t.Fatal(err)
	}
	const n, bad = 11, 1000
	for _, mode := range []string{"value", "length"} {
		opts := Options{Precision: numeric.MustParsePrecision("exact"), Weighting: model.AverageHardmax, MaxN: n, Exhaustive: 1 << n, Workers: 2}
		run := func(fromScratch bool) LengthReport {
			opts.FromScratch = fromScratch
			ck, err := NewChecker(r, opts)
			if err != nil {
				t.Fatal(err)
			}
			expected := ck.Con.Expected
			ck.Con.ExpectedLast = nil // the planted reference is not prefix-closed
			ck.Con.Expected = func(c recipes.Case) []recipes.Want {
				w := expected(c)
				if index(c.Symbols, 2) != bad {
					return w
				}
				if mode == "length" {
					return w[:n-1]
				}
				w[3] = recipes.Want{Values: []*big.Rat{big.NewRat(7, 1), w[3].Values[1]}}
				return w
			}
			return ck.Length(n)
		}
		dfs, whole := run(false), run(true)
		if !reflect.DeepEqual(dfs, whole) {
			t.Errorf("%s: depth first %+v, from scratch %+v", mode, dfs, whole)
		}
		if f := dfs.Failure; f == nil || f.Case != bad || dfs.Passed != dfs.Cases-1 {
			t.Errorf("%s: failure %+v, passed %d of %d; want the input of index %d alone", mode, f, dfs.Passed, dfs.Cases, bad)
		}
	}
	// The diagnosis finds the input by its index, without enumerating:
	// within the whole-run budget (as the enumeration lists it) and
	// beyond it (2^21 strings of length 21).
	for _, tc := range []struct{ n, exhaustive int }{{n, 1 << n}, {21, 1 << 21}} {
		ck, err := NewChecker(r, Options{Precision: numeric.MustParsePrecision("exact"), Weighting: model.AverageHardmax, MaxN: tc.n, Exhaustive: tc.exhaustive})
		if err != nil {
			t.Fatal(err)
		}
		for _, k := range []int{0, bad, 1<<tc.n - 1} {
			if in, ok := ck.Input(tc.n, k); !ok || len(in.Symbols) != tc.n || index(in.Symbols, 2) != k {
				t.Errorf("n = %d: input %d is %v (%v)", tc.n, k, in.Symbols, ok)
			}
		}
		if _, ok := ck.Input(tc.n, 1<<tc.n); ok {
			t.Errorf("n = %d: an input past the last", tc.n)
		}
	}
}

// index is the rank of s among the strings of its length over k symbols.
func index(s []int, k int) int {
	x := 0
	for _, c := range s {
		x = x*k + c
	}
	return x
}

// TestAllStringsInputs checks the claim of every construction that sets
// AllStrings: its enumerated inputs are all strings over the model's
// alphabet, in lexicographic order.
func TestAllStringsInputs(t *testing.T) {
	seen := 0
	for _, r := range recipes.All() {
		con, err := r.Construct(r.DefaultWeighting(), 6, nil)
		if err != nil || !con.AllStrings {
			continue
		}
		seen++
		k := len(con.Model.Alphabet)
		for n := 1; n <= 4; n++ {
			got, all := con.Inputs(n, rand.New(rand.NewPCG(0, 0)), 1<<20)
			// Every string over k symbols, in lexicographic order: the
			// c-th is c written in base k with n digits.
			var want [][]int
			total := 1
			for range n {
				total *= k
			}
			for c := range total {
				in := make([]int, n)
				for i, y := n-1, c; i >= 0; i, y = i-1, y/k {
					in[i] = y % k
				}
				want = append(want, in)
			}
			if !all || len(got) != len(want) {
				t.Fatalf("%s at n = %d: %d inputs (all: %v), want the %d strings", r.Name, n, len(got), all, len(want))
			}
			for c := range got {
				if !slices.Equal(got[c].Symbols, want[c]) || got[c].Stream != nil {
					t.Fatalf("%s at n = %d: input %d is %v, want %v", r.Name, n, c, got[c].Symbols, want[c])
				}
			}
		}
	}
	if seen < 5 {
		t.Errorf("only %d constructions declare AllStrings", seen)
	}
}

// TestEnumerateCheckDyck1 checks every Dyck-1 string up to length 10 (7
// under the race detector) depth first and from scratch: both pass and give
// the same reports.
func TestEnumerateCheckDyck1(t *testing.T) {
	maxLen := 10
	if testenv.Race {
		maxLen = 7
	}
	for _, name := range []string{"dyck1", "dyck1-n"} {
		r, err := recipes.Get(name)
		if err != nil {
			t.Fatal(err)
		}
		opts := Options{Precision: numeric.MustParsePrecision("exact"), Weighting: model.AverageHardmax, MaxN: maxLen}
		dfs, err := Enumerate(r, opts, maxLen, false)
		if err != nil {
			t.Fatal(err)
		}
		whole, err := Enumerate(r, opts, maxLen, true)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(dfs, whole) {
			t.Errorf("%s: depth first %+v, from scratch %+v", name, dfs, whole)
		}
		if want := 1<<(maxLen+1) - 2; dfs.Strings != want || dfs.Failures != 0 {
			t.Errorf("%s: %d strings, %d failures; want %d strings, none failing", name, dfs.Strings, dfs.Failures, want)
		}
	}
	// A model that is not prefix-stable is refused, not run wrongly.
	r, err := recipes.Get("lookup")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Enumerate(r, Options{Precision: numeric.MustParsePrecision("exact"), Weighting: model.AverageHardmax, MaxN: 3}, 3, false); err == nil {
		t.Error("lookup: enumerated depth first")
	}
	// A position encoding that depends on the length (pred-strict's i/n)
	// is enumerated one length at a time, to the reports of whole runs; a
	// model that attends to later positions (dyck12's right neighbours)
	// is refused.
	r, err = recipes.Get("pred-strict")
	if err != nil {
		t.Fatal(err)
	}
	opts := Options{Precision: numeric.MustParsePrecision("exact"), Weighting: model.RightHardmax, MaxN: 6}
	dfs, err := Enumerate(r, opts, 6, false)
	if err != nil {
		t.Fatal(err)
	}
	whole, err := Enumerate(r, opts, 6, true)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(dfs, whole) {
		t.Errorf("pred-strict: depth first %+v, from scratch %+v", dfs, whole)
	}
	r, err = recipes.Get("dyck12")
	if err != nil {
		t.Fatal(err)
	}
	_, err = Enumerate(r, Options{Precision: numeric.MustParsePrecision("exact"), Weighting: model.LeftHardmax, MaxN: 3}, 3, false)
	if !errors.Is(err, model.ErrNotPrefixStable) {
		t.Errorf("dyck12: %v, want ErrNotPrefixStable", err)
	}
}

// TestEnumeratePrefixClosedFailure plants a wrong reference that is still
// prefix-closed (position 4 of every string beginning with the prefix of
// index 5 of length 4, in both Expected and ExpectedLast): the depth-first
// reports, which take ExpectedLast once per prefix, equal the from-scratch
// ones, which take Expected per string, at every length, failures
// included.
func TestEnumeratePrefixClosedFailure(t *testing.T) {
	r, err := recipes.Get("dyck1")
	if err != nil {
		t.Fatal(err)
	}
	const n, bad = 9, 5
	wrong := func(symbols []int) bool { return len(symbols) >= 4 && index(symbols[:4], 2) == bad }
	opts := Options{Precision: numeric.MustParsePrecision("exact"), Weighting: model.AverageHardmax, MaxN: n, Exhaustive: 1 << n, Workers: 2}
	var prev []LengthReport
	for _, fromScratch := range []bool{false, true} {
		opts.FromScratch = fromScratch
		ck, err := NewChecker(r, opts)
		if err != nil {
			t.Fatal(err)
		}
		if ck.Con.ExpectedLast == nil {
			t.Fatal("dyck1 declares no prefix-closed reference")
		}
		expected, last := ck.Con.Expected, ck.Con.ExpectedLast
		ck.Con.Expected = func(c recipes.Case) []recipes.Want {
			w := expected(c)
			if wrong(c.Symbols) {
				w[3] = recipes.Want{Values: []*big.Rat{big.NewRat(7, 1), w[3].Values[1]}}
			}
			return w
		}
		ck.Con.ExpectedLast = func(c recipes.Case) recipes.Want {
			w := last(c)
			if len(c.Symbols) == 4 && wrong(c.Symbols) {
				w = recipes.Want{Values: []*big.Rat{big.NewRat(7, 1), w.Values[1]}}
			}
			return w
		}
		var reports []LengthReport
		for m := 1; m <= n; m++ {
			reports = append(reports, ck.Length(m))
		}
		if fromScratch {
			if !reflect.DeepEqual(reports, prev) {
				t.Errorf("depth first %+v\nfrom scratch %+v", prev, reports)
			}
			continue
		}
		prev = reports
		for m, lr := range reports {
			if fails := lr.Cases - lr.Passed; m+1 >= 4 && fails != 1<<(m+1-4) {
				t.Errorf("length %d: %d failures, want %d", m+1, fails, 1<<(m+1-4))
			}
		}
	}
}

// TestExpectedLastDeclarations checks every construction that declares a
// prefix-closed reference (Construction.ExpectedLast), under each of its
// weightings: on every string up to length 12 (8 under the race detector),
// Expected's entry at each position i equals ExpectedLast of the prefix
// of length i, and so depends on the first i symbols only.
func TestExpectedLastDeclarations(t *testing.T) {
	maxLen := 12
	if testenv.Race {
		maxLen = 8
	}
	declared := 0
	for _, r := range recipes.All() {
		for _, w := range r.Weightings {
			con, err := r.Construct(w, r.DefaultMaxN, nil)
			if err != nil || con.ExpectedLast == nil {
				continue
			}
			declared++
			k := len(con.Model.Alphabet)
			for n := max(1, r.MinN); n <= maxLen; n++ {
				total := 1
				for range n {
					total *= k
				}
				if total > 1<<13 {
					break
				}
				for x := range total {
					in := make([]int, n)
					for i, y := n-1, x; i >= 0; i, y = i-1, y/k {
						in[i] = y % k
					}
					want := con.Expected(recipes.Case{Symbols: in})
					if len(want) != n {
						t.Fatalf("%s %s %v: %d references", r.Name, recipes.WeightingAcronym(w), in, len(want))
					}
					for i := range want {
						if got := con.ExpectedLast(recipes.Case{Symbols: in[:i+1]}); !sameWant(got, want[i]) {
							t.Fatalf("%s %s %v at position %d: ExpectedLast of the prefix %+v, Expected %+v", r.Name, recipes.WeightingAcronym(w), in, i+1, got, want[i])
						}
					}
				}
			}
		}
	}
	if declared == 0 {
		t.Fatal("no construction declares a prefix-closed reference")
	}
}

// TestPointVerdict checks that pointVerdict, on an output given as its
// symbol and points, decides as exactVerdict does on the PositionOutput
// of the same points (Output's Lo = Hi = the point, in exact arithmetic).
func TestPointVerdict(t *testing.T) {
	r := func(a, b int64) *big.Rat { return big.NewRat(a, b) }
	con := &recipes.Construction{Bounds: []recipes.Bound{{}, {Max: r(1, 8), Source: "a bound"}}}
	negative := &recipes.Construction{Bounds: []recipes.Bound{{Max: r(-1, 8), Source: "negative"}}}
	for _, tc := range []struct {
		con    *recipes.Construction
		w      recipes.Want
		symbol string
		values []*big.Rat
	}{
		{con, recipes.Want{Values: []*big.Rat{r(1, 3), r(-2, 1)}}, "", []*big.Rat{r(1, 3), r(-2, 1)}},
		{con, recipes.Want{Values: []*big.Rat{r(1, 3), r(-2, 1)}}, "", []*big.Rat{r(1, 3), r(-2, 1), r(5, 1)}},
		{con, recipes.Want{Values: []*big.Rat{r(1, 3), r(-2, 1)}}, "", []*big.Rat{r(1, 3), r(-15, 8)}},
		{con, recipes.Want{Values: []*big.Rat{r(1, 3), r(-2, 1)}}, "", []*big.Rat{r(1, 3)}},
		{con, recipes.Want{Symbol: "1", Values: []*big.Rat{r(0, 1)}}, "1", []*big.Rat{r(0, 1)}},
		{con, recipes.Want{Symbol: "1", Values: []*big.Rat{r(0, 1)}}, "0", []*big.Rat{r(0, 1)}},
		{con, recipes.Want{Symbol: "x"}, "x", []*big.Rat{r(7, 2)}},
		{con, recipes.Want{Values: []*big.Rat{r(1, 2)}, Tol: []recipes.Bound{{Max: r(-1, 1), Source: "negative"}}}, "", []*big.Rat{r(1, 2)}},
		{negative, recipes.Want{Values: []*big.Rat{r(1, 2)}}, "", []*big.Rat{r(1, 2)}},
		{con, recipes.Want{Reals: []numeric.Expr{numeric.LitInt(1)}}, "", []*big.Rat{r(1, 1)}},
	} {
		got := eval.PositionOutput{Symbol: tc.symbol}
		for _, v := range tc.values {
			got.Values = append(got.Values, eval.Value{Text: v.RatString(), Lo: new(big.Rat).Set(v), Hi: new(big.Rat).Set(v)})
		}
		want, wantOK := exactVerdict(tc.con, tc.w, got)
		v, ok := pointVerdict(tc.con, tc.w, tc.symbol, tc.values)
		if ok != wantOK || !reflect.DeepEqual(v, want) {
			t.Errorf("%+v on %q %v: pointVerdict %+v %v, exactVerdict %+v %v", tc.w, tc.symbol, tc.values, v, ok, want, wantOK)
		}
	}
}
