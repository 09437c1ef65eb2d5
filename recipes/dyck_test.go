package recipes_test

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/gen"
	"github.com/leanovate/gopter/prop"
	"github.com/transformer-cookbook/verify/check"
	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/model/eval"
	"github.com/transformer-cookbook/verify/numeric"
	"github.com/transformer-cookbook/verify/recipes"
)

// ---------------------------------------------------------------------
// Helpers.

// dyckExhaustiveLengths are the lengths up to which the tests enumerate
// every string. The long tier (TestLong…, VERIFY_LONG=1) takes
// longDyckLengths: every string up to 12 for dyck1, dyck1-n and dyck12
// under UHAT, up to 8 for Dyck-2-2 under UHAT (about two minutes on 2
// cores). Exact arithmetic costs 0.3 to 3 ms per run of these models at
// n ≈ 10, so the default tier, under the race detector too (which
// multiplies that by 8 to 13), takes the shorter quickDyckLengths. The
// random long strings cover the rest.
type dyckExhaustiveLengths struct {
	dyck1, dyck1N     int // all strings of this length: every shorter one is a prefix
	dyck12, dyck12Alt int // every string up to this length: UHAT; UHAT-right and AHAT
	kdVs12            int // dyck-kd (k = 1, D = 2) against dyck12
	kd22, kdOther     int // Dyck-2-2 (UHAT; the others use kdOther); other k and D
}

var (
	quickDyckLengths = dyckExhaustiveLengths{9, 8, 6, 4, 5, 4, 3}
	longDyckLengths  = dyckExhaustiveLengths{12, 12, 12, 8, 10, 8, 5}
)

// dyckStrings returns every string of length n over a symbols.
func dyckStrings(n, a int) [][]int {
	all, _ := recipes.SampleOrAll(n, a, nil, 1<<30, nil)
	return all
}

// dyckUpTo returns every string of length 1 to n over a symbols.
func dyckUpTo(n, a int) [][]int {
	var out [][]int
	for m := 1; m <= n; m++ {
		out = append(out, dyckStrings(m, a)...)
	}
	return out
}

// dyckParse tokenizes a string of a construction's alphabet.
func dyckParse(t *testing.T, m *model.Model, text string) []int {
	t.Helper()
	in, err := m.Tokenize(text)
	if err != nil {
		t.Fatal(err)
	}
	return in
}

// dyckTrace runs m at precision p on text with the trace and returns the
// final value of each named component at every position.
func dyckTrace(t *testing.T, m *model.Model, p, text string) map[string][]eval.Value {
	t.Helper()
	r, err := eval.New(numeric.MustParsePrecision(p), m)
	if err != nil {
		t.Fatal(err)
	}
	res, err := r.Run(dyckParse(t, m, text), true)
	if err != nil {
		t.Fatal(err)
	}
	last := res.Trace.States[len(res.Trace.States)-1]
	out := map[string][]eval.Value{}
	for c, name := range res.Trace.Components {
		for i := range last.Vectors {
			out[name] = append(out[name], last.Vectors[i][c])
		}
	}
	return out
}

// dyckWant fails unless the values equal want (rationals) exactly.
func dyckWant(t *testing.T, what string, got []eval.Value, want ...string) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d values, want %d", what, len(got), len(want))
	}
	for i, w := range want {
		if !got[i].Equals(rat(w)) {
			t.Errorf("%s at position %d: %s, want %s", what, i+1, got[i].Text, w)
		}
	}
}

// dyckOutputs runs m at precision p on text and returns output k at
// every position.
func dyckOutputs(t *testing.T, m *model.Model, p, text string, k int) []eval.Value {
	t.Helper()
	con := &recipes.Construction{Model: m}
	var out []eval.Value
	for _, o := range runCase(t, con, p, recipes.Case{Symbols: dyckParse(t, m, text)}) {
		out = append(out, o.Values[k])
	}
	return out
}

// dyckSweep runs m at precision p on every input, in parallel on one
// instance, and calls judge with each input and its outputs; judge
// returns "" or what is wrong. It fails the test with the first wrong
// input and the count of wrong ones.
func dyckSweep(t *testing.T, m *model.Model, p string, inputs [][]int, judge func(in []int, out []eval.PositionOutput) string) {
	t.Helper()
	r, err := eval.New(numeric.MustParsePrecision(p), m)
	if err != nil {
		t.Fatal(err)
	}
	var (
		mu    sync.Mutex
		wrong int
		first string
		wg    sync.WaitGroup
	)
	next := make(chan []int)
	for w := 0; w < runtime.GOMAXPROCS(0); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for in := range next {
				res, err := r.Run(in, false)
				why := ""
				if err != nil {
					why = err.Error()
				} else {
					why = judge(in, res.Outputs)
				}
				if why != "" {
					mu.Lock()
					if wrong++; first == "" {
						first = fmt.Sprintf("%q: %s", check.CaseText(m, recipes.Case{Symbols: in}), why)
					}
					mu.Unlock()
				}
			}
		}()
	}
	for _, in := range inputs {
		next <- in
	}
	close(next)
	wg.Wait()
	if wrong > 0 {
		t.Errorf("%s at %s: %d of %d inputs wrong; first %s", m.Name, p, wrong, len(inputs), first)
	}
}

// dyckAgainstReference is a sweep check comparing every output with the
// construction's reference exactly.
func dyckAgainstReference(con *recipes.Construction) func(in []int, out []eval.PositionOutput) string {
	return func(in []int, out []eval.PositionOutput) string {
		want := con.Expected(recipes.Case{Symbols: in})
		for i := range want {
			if ok, why := check.Compare(want[i], out[i], nil, con.Model.Output.Labels); !ok {
				return fmt.Sprintf("position %d: %s", i+1, why)
			}
		}
		return ""
	}
}

// dyckCheckExact runs Check in exact arithmetic over every string of
// length 1 to n and requires it to pass, enumerated, with every case
// exact.
func dyckCheckExact(t *testing.T, r *recipes.Recipe, w model.Weighting, params map[string]string, n, symbols int) {
	t.Helper()
	total := 1
	for i := 0; i < n; i++ {
		total *= symbols
	}
	var lengths []int
	for m := 1; m <= n; m++ {
		lengths = append(lengths, m)
	}
	rep, err := check.Run(r, check.Options{Precision: numeric.MustParsePrecision("exact"), Weighting: w, MaxN: n,
		Params: params, Lengths: lengths, Cases: 1, Exhaustive: total, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Passed {
		t.Fatalf("%s %s %v: first failure %+v", r.Name, recipes.WeightingAcronym(w), params, rep.FirstFailure)
	}
	for _, lr := range rep.Lengths {
		if !lr.Exhaustive || lr.Exact != lr.Cases {
			t.Errorf("%s: length %d: exhaustive %v, %d of %d exact", r.Name, lr.N, lr.Exhaustive, lr.Exact, lr.Cases)
		}
	}
}

// dyckComponentIndex is the place of a named component in m's stream.
func dyckComponentIndex(t *testing.T, m *model.Model, name string) int {
	t.Helper()
	k := slices.Index(m.Components, name)
	if k < 0 {
		t.Fatalf("%s has no component %q (%v)", m.Name, name, m.Components)
	}
	return k
}

// ---------------------------------------------------------------------
// Alphabet and references.

// TestDyckAlphabet: the symbols of k types, and longest-match
// tokenization for k ≥ 10 (and k ≥ 40, where "<4" is a prefix of "<40").
func TestDyckAlphabet(t *testing.T) {
	if got := strings.Join(recipes.DyckAlphabet(5), " "); got != "( ) [ ] { } <4 >4 <5 >5" {
		t.Errorf("alphabet of 5 types: %s", got)
	}
	for _, tc := range []struct {
		k    int
		text string
		o    []int
	}{
		{3, "([{}])", []int{1, 2, 3, -3, -2, -1}},
		{12, "(<4[<10>10]>4)<12>12", []int{1, 4, 2, 10, -10, -2, -4, -1, 12, -12}},
		{12, "( <4 <11 >11 >4 )", []int{1, 4, 11, -11, -4, -1}},
		{41, "<4<40<41>41>40>4", []int{4, 40, 41, -41, -40, -4}},
	} {
		con := construct(t, recipes.DyckKD, model.LeftHardmax, 8, map[string]string{"k": fmt.Sprint(tc.k)})
		in := dyckParse(t, con.Model, tc.text)
		var o []int
		for _, s := range in {
			o = append(o, recipes.DyckO(s))
		}
		if !slices.Equal(o, tc.o) {
			t.Errorf("k = %d, %q: o = %v, want %v", tc.k, tc.text, o, tc.o)
		}
		// A case prints with spaces (symbols longer than one character)
		// and reads back.
		if back := dyckParse(t, con.Model, check.CaseText(con.Model, recipes.Case{Symbols: in})); !slices.Equal(back, in) {
			t.Errorf("k = %d: %q does not read back", tc.k, check.CaseText(con.Model, recipes.Case{Symbols: in}))
		}
	}
}

// TestDyckReferences pins the plain-Go references on examples worked by
// hand: the paper's (§The Dyck Languages, fig:dyck_1_examples, the
// Intuition of sec:dyck-1-2) and a few of Dyck-k.
func TestDyckReferences(t *testing.T) {
	m := construct(t, recipes.DyckKD, model.LeftHardmax, 8, map[string]string{"k": "3"}).Model
	for _, tc := range []struct {
		text   string
		member bool
		depth  int
	}{
		{"()(())", true, 2}, // the paper's member, fig. left
		{"())(()", false, 1},
		{"()((()", false, 3},     // fig. right: unbalanced
		{"(())(()())", true, 2},  // the Intuition's example
		{"((()))", true, 3},      // depth 3
		{"([])", true, 2},        // two types
		{"([)]", false, 2},       // crossed
		{"(]", false, 1},         // wrong type
		{")(", false, 0},         // closes first
		{"{[()()]}[]", true, 3},  // three types
		{"{[()()]}[}", false, 3}, // wrong last type
	} {
		member, depth := recipes.DyckDepth(dyckParse(t, m, tc.text))
		if member != tc.member || depth != tc.depth {
			t.Errorf("%s: member %v depth %d, want %v %d", tc.text, member, depth, tc.member, tc.depth)
		}
	}
	// The Intuition: "(())(()())" marks ( [()] ) ( [()] [()] ) in step 1,
	// leaving positions 1, 4, 5, 10, which step 2 marks.
	in := dyckParse(t, m, "(())(()())")
	if u1, u2 := recipes.DyckUnmatched(in, 1), recipes.DyckUnmatched(in, 2); u1 != 4 || u2 != 0 {
		t.Errorf("unmatched after 1 and 2 rounds: %d, %d, want 4, 0", u1, u2)
	}
	// Dyck-1 values of fig:dyck_1_examples, centre, "())(()": B = 1, 0,
	// −1, 0, 1, 0, so B/i = 1, 0, −1/3, 0, 1/5, 0, E = (0, 0, 1/3, 0, 0,
	// 0) and t_i = (1/3)/i from i = 3 on.
	b, tt := recipes.Dyck1Values(dyckParse(t, m, "())(()"))
	for i, w := range []string{"1", "0", "-1/3", "0", "1/5", "0"} {
		if b[i].Cmp(rat(w)) != 0 {
			t.Errorf("B/i at %d: %s, want %s", i+1, b[i].RatString(), w)
		}
	}
	for i, w := range []string{"0", "0", "1/9", "1/12", "1/15", "1/18"} {
		if tt[i].Cmp(rat(w)) != 0 {
			t.Errorf("t at %d: %s, want %s", i+1, tt[i].RatString(), w)
		}
	}
}

// TestDyckRoundsDecideDepth confirms the argument of DyckKD's doc
// comment on the references alone: D rounds of cancelling adjacent
// matched pairs leave nothing iff the string is in Dyck-k-D, on every
// string over k = 1 (up to length 14), k = 2 (up to 8) and k = 3 (up to
// 6), for D = 1 … 5; and, as a gopter property with a fixed seed, on
// random strings up to length 40, biased toward Dyck words and words of
// depth exactly D + 1.
func TestDyckRoundsDecideDepth(t *testing.T) {
	for _, tc := range []struct{ k, n int }{{1, 14}, {2, 8}, {3, 6}} {
		for _, in := range dyckUpTo(tc.n, 2*tc.k) {
			for d := 1; d <= 5; d++ {
				if (recipes.DyckUnmatched(in, d) == 0) != recipes.DyckMember(in, d) {
					t.Fatalf("k = %d, D = %d, %v: %d rounds leave %d brackets, membership %v", tc.k, d, in, d, recipes.DyckUnmatched(in, d), recipes.DyckMember(in, d))
				}
			}
		}
	}
	params := gopter.DefaultTestParametersWithSeed(41)
	params.MinSuccessfulTests = 2000
	props := gopter.NewProperties(params)
	props.Property("D rounds decide Dyck-k-D", prop.ForAll(func(k, d, n int, seed uint64) bool {
		in := recipes.DyckSample(n, k, d, rand.New(rand.NewPCG(seed, 3)))
		return (recipes.DyckUnmatched(in, d) == 0) == recipes.DyckMember(in, d)
	}, gen.IntRange(1, 4), gen.IntRange(1, 6), gen.IntRange(1, 40), gen.UInt64()))
	props.TestingRun(t)
}

// TestDyckShapes: width, layers and heads, counted by hand from the
// constructions (see the doc comments).
func TestDyckShapes(t *testing.T) {
	for _, tc := range []struct {
		r      *recipes.Recipe
		w      model.Weighting
		params map[string]string
		comps  string
		heads  []int // per layer
	}{
		{recipes.Dyck1, model.AverageHardmax, nil, "o B/i E t", []int{1, 1}},
		{recipes.Dyck1N, model.AverageHardmax, nil, "o B/i E t g e accept", []int{1, 1, 0}},
		{recipes.Dyck12, model.LeftHardmax, nil, "o a l.o l.a r.o r.a 1 i/n s accept", []int{1, 1, 1, 1, 1}},
		{recipes.DyckKD, model.LeftHardmax, nil, "o a l.o l.a r.o r.a 1 i/n p s accept", []int{1, 1, 1, 1, 1}},
		{recipes.DyckKD, model.LeftHardmax, map[string]string{"k": "5", "D": "4"}, "o a l.o l.a r.o r.a 1 i/n p s accept", []int{1, 1, 1, 1, 1, 1, 1, 1, 1}},
	} {
		m := construct(t, tc.r, tc.w, 8, tc.params).Model
		if got := strings.Join(m.Components, " "); got != tc.comps || m.D != len(m.Components) {
			t.Errorf("%s %v: components %q (D = %d), want %q", tc.r.Name, tc.params, got, m.D, tc.comps)
		}
		var heads []int
		for _, l := range m.Layers {
			if l.Attention == nil {
				heads = append(heads, 0)
			} else {
				heads = append(heads, len(l.Attention.Heads))
			}
			if m.Norm != model.NoNorm {
				t.Errorf("%s: has layer norm", tc.r.Name)
			}
		}
		if !slices.Equal(heads, tc.heads) {
			t.Errorf("%s %v: heads per layer %v, want %v", tc.r.Name, tc.params, heads, tc.heads)
		}
	}
}
