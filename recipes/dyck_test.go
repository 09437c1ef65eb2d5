package recipes_test

import (
	"fmt"
	"math/big"
	"math/rand/v2"
	"os"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/transformer-cookbook/verify/check"
	"github.com/transformer-cookbook/verify/internal/testenv"
	"github.com/transformer-cookbook/verify/recipes"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/gen"
	"github.com/leanovate/gopter/prop"

	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/numeric"
	"github.com/transformer-cookbook/verify/recipes/blocks"
	"github.com/transformer-cookbook/verify/recipes/stream"
)

// ---------------------------------------------------------------------
// Helpers.

// dyckExhaustiveLengths are the lengths up to which the tests enumerate
// every string: every string up to 12 for dyck1, dyck1-n and dyck12 under
// UHAT, up to 8 for Dyck-2-2 under UHAT (about two
// minutes on 2 cores). Exact arithmetic costs 0.3 to 3 ms per run of these
// models at n ≈ 10, and the race detector multiplies that by 8 to 13, so
// under -race (and -short) the strings are shorter (the second set); CI
// runs the exhaustive tests a second time without the race detector, at
// full length. The random long strings cover the rest.
type dyckExhaustiveLengths struct {
	dyck1, dyck1N     int // all strings of this length: every shorter one is a prefix
	dyck12, dyck12Alt int // every string up to this length: UHAT; UHAT-right and AHAT
	kdVs12            int // dyck-kd (k = 1, D = 2) against dyck12
	kd22, kdOther     int // Dyck-2-2 (UHAT; the others use kdOther); other k and D
}

func dyckLengths() dyckExhaustiveLengths {
	if testenv.Race || testing.Short() {
		return dyckExhaustiveLengths{9, 8, 6, 4, 5, 4, 3}
	}
	return dyckExhaustiveLengths{12, 12, 12, 8, 10, 8, 5}
}

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
func dyckTrace(t *testing.T, m *model.Model, p, text string) map[string][]model.Value {
	t.Helper()
	r, err := model.New(numeric.MustParsePrecision(p), m)
	if err != nil {
		t.Fatal(err)
	}
	res, err := r.Run(dyckParse(t, m, text), true)
	if err != nil {
		t.Fatal(err)
	}
	last := res.Trace.States[len(res.Trace.States)-1]
	out := map[string][]model.Value{}
	for c, name := range res.Trace.Components {
		for i := range last.Vectors {
			out[name] = append(out[name], last.Vectors[i][c])
		}
	}
	return out
}

// dyckWant fails unless the values equal want (rationals) exactly.
func dyckWant(t *testing.T, what string, got []model.Value, want ...string) {
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
func dyckOutputs(t *testing.T, m *model.Model, p, text string, k int) []model.Value {
	t.Helper()
	con := &recipes.Construction{Model: m}
	var out []model.Value
	for _, o := range runCase(t, con, p, recipes.Case{Symbols: dyckParse(t, m, text)}) {
		out = append(out, o.Values[k])
	}
	return out
}

// dyckSweep runs m at precision p on every input, in parallel on one
// instance, and calls judge with each input and its outputs; judge
// returns "" or what is wrong. It fails the test with the first wrong
// input and the count of wrong ones.
func dyckSweep(t *testing.T, m *model.Model, p string, inputs [][]int, judge func(in []int, out []model.PositionOutput) string) {
	t.Helper()
	r, err := model.New(numeric.MustParsePrecision(p), m)
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
func dyckAgainstReference(con *recipes.Construction) func(in []int, out []model.PositionOutput) string {
	return func(in []int, out []model.PositionOutput) string {
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

// ---------------------------------------------------------------------
// Dyck-1 (sec:dyck-1).

// TestDyck1States: the residual stream of eqn:dyck1-states after the
// last layer, on "(()())" (the trace of 'verify run --input') and the
// three strings of fig:dyck_1_examples, worked by hand from B_i (the
// count of "(" minus ")" in w_{:i}): B/i = B_i/i, E_i = max(0, −B_i/i),
// t_i = (1/i) Σ_{j≤i} E_j. The external check accepts w_{:i} iff
// t_i = B_i/i = 0.
func TestDyck1States(t *testing.T) {
	for _, w := range recipes.Dyck1.Weightings {
		m := construct(t, recipes.Dyck1, w, 6, nil).Model
		for _, tc := range []struct {
			text           string
			b, e, tt       []string
			acceptAtTheEnd bool
		}{
			// B = 1, 2, 1, 2, 1, 0.
			{"(()())", []string{"1", "1", "1/3", "1/2", "1/5", "0"}, []string{"0", "0", "0", "0", "0", "0"}, []string{"0", "0", "0", "0", "0", "0"}, true},
			// Left: B = 1, 0, 1, 2, 1, 0.
			{"()(())", []string{"1", "0", "1/3", "1/2", "1/5", "0"}, []string{"0", "0", "0", "0", "0", "0"}, []string{"0", "0", "0", "0", "0", "0"}, true},
			// Centre: B = 1, 0, −1, 0, 1, 0: Property 1 fails at 3.
			{"())(()", []string{"1", "0", "-1/3", "0", "1/5", "0"}, []string{"0", "0", "1/3", "0", "0", "0"}, []string{"0", "0", "1/9", "1/12", "1/15", "1/18"}, false},
			// Right: B = 1, 0, 1, 2, 3, 2: Property 2 fails.
			{"()((()", []string{"1", "0", "1/3", "1/2", "3/5", "1/3"}, []string{"0", "0", "0", "0", "0", "0"}, []string{"0", "0", "0", "0", "0", "0"}, false},
		} {
			st := dyckTrace(t, m, "exact", tc.text)
			dyckWant(t, tc.text+" o", st["o"], dyckOText(tc.text)...)
			dyckWant(t, tc.text+" B/i", st["B/i"], tc.b...)
			dyckWant(t, tc.text+" E", st["E"], tc.e...)
			dyckWant(t, tc.text+" t", st["t"], tc.tt...)
			if accept := st["t"][5].Equals(new(big.Rat)) && st["B/i"][5].Equals(new(big.Rat)); accept != tc.acceptAtTheEnd {
				t.Errorf("%s: external check %v, want %v", tc.text, accept, tc.acceptAtTheEnd)
			}
		}
	}
}

// dyckOText is o_i (±1) of a string of ( and ).
func dyckOText(text string) []string {
	var out []string
	for _, c := range text {
		if c == '(' {
			out = append(out, "1")
		} else {
			out = append(out, "-1")
		}
	}
	return out
}

// TestDyck1Exhaustive: B_i/i and t_i exactly, and the external check
// (t_i = 0 and B_i/i = 0) equal to membership of the prefix w_{:i} in
// Dyck-1 (a stack, not the counter), at every position of every string
// of length 12 under AHAT (9 under -race; 8 under SMAT, 6 under -race),
// hence of every shorter string: every head is future-masked and there is no
// position encoding, so position i sees w_{:i} only (checked below on
// prefixes).
func TestDyck1Exhaustive(t *testing.T) {
	n := dyckLengths().dyck1
	for _, w := range []model.Weighting{model.AverageHardmax, model.Softmax} {
		con := construct(t, recipes.Dyck1, w, n, nil)
		length := n
		if w == model.Softmax {
			length = min(n, 8)
			if testenv.Race {
				length = 6
			}
		}
		ref := dyckAgainstReference(con)
		dyckSweep(t, con.Model, "exact", dyckStrings(length, 2), func(in []int, out []model.PositionOutput) string {
			if why := ref(in, out); why != "" {
				return why
			}
			for i, o := range out {
				accept := o.Values[0].Equals(new(big.Rat)) && o.Values[1].Equals(new(big.Rat))
				if accept != recipes.DyckMember(in[:i+1], 0) {
					return fmt.Sprintf("position %d: the external check says %v", i+1, accept)
				}
			}
			return ""
		})
	}
	// Causality: on random strings, every prefix gives the outputs that
	// the whole string gives at its positions.
	con := construct(t, recipes.Dyck1N, model.AverageHardmax, 24, nil)
	rng := rand.New(rand.NewPCG(5, 6))
	for c := 0; c < 8; c++ {
		in := recipes.DyckSample(24, 1, 0, rng)
		whole := runCase(t, con, "exact", recipes.Case{Symbols: in})
		for i := 1; i <= len(in); i += 5 {
			part := runCase(t, con, "exact", recipes.Case{Symbols: in[:i]})
			for j := range part {
				if !part[j].Values[0].Equals(mustRat(whole[j].Values[0])) {
					t.Fatalf("%v: position %d differs on the prefix of length %d", in, j+1, i)
				}
			}
		}
	}
}

func mustRat(v model.Value) *big.Rat {
	r, ok := v.Rat()
	if !ok {
		panic("not a point: " + v.Text)
	}
	return r
}

// TestDyck1FloatZeroCheck: in floating point the uniform construction's
// external check is wrong already at n = 6, on the member "((()))": the
// average of ±fl(1/6) does not cancel. Worked by hand, summing left to
// right as the engine does (α·o_j, products exact):
//
// fp64: α = fl(1/6) = 6004799503160661·2^−55; 3α = (2^54 − 1)·2^−55 is
// the midpoint of 1/2 − 2^−54 and 1/2 and rounds to even, 1/2;
// 1/2 − α = 12009599006321323·2^−55 is a midpoint in [1/4, 1/2) (ulp
// 2^−54) and rounds to even, 2α + 2^−54; then α + 2^−54 (exact), then
// 2^−54. So B/i_6 = 2^−54 and the check rejects.
//
// fp32: α = 11184811·2^−26; 3α = 1/2 + 2^−26 rounds to 1/2 (ulp 2^−24);
// 1/2 − α = 22369621·2^−26 is a midpoint (ulp 2^−25) and rounds to even,
// 2α − 2^−25; then α − 2^−25, then −2^−25. So B/i_6 = −2^−25, E_6 =
// 2^−25 and t_6 = fl(fl(1/6)·2^−25).
func TestDyck1FloatZeroCheck(t *testing.T) {
	m := construct(t, recipes.Dyck1, model.AverageHardmax, 6, nil).Model
	st := dyckTrace(t, m, "fp64", "((()))")
	if want := new(big.Rat).SetFrac64(1, 1<<54); !st["B/i"][5].Equals(want) || !st["t"][5].Equals(new(big.Rat)) {
		t.Errorf("fp64: B/i_6 = %s, t_6 = %s, want 2^-54 and 0", st["B/i"][5].Text, st["t"][5].Text)
	}
	st = dyckTrace(t, m, "fp32", "((()))")
	if want := new(big.Rat).SetFrac64(-1, 1<<25); !st["B/i"][5].Equals(want) {
		t.Errorf("fp32: B/i_6 = %s, want -2^-25", st["B/i"][5].Text)
	}
	sixth := new(big.Rat).SetFloat64(float64(float32(1.0 / 6)))
	t6 := new(big.Rat).Mul(sixth, new(big.Rat).SetFrac64(1, 1<<25))
	f, _ := t6.Float32()
	if want := new(big.Rat).SetFloat64(float64(f)); !st["t"][5].Equals(want) {
		t.Errorf("fp32: t_6 = %s, want fl(fl(1/6)·2^-25) = %s", st["t"][5].Text, want.RatString())
	}
}

// TestDyck1FloatRandom: at fp32 and fp64 the outputs stay within the
// error bound of recursive summation on seeded random strings up to
// length 200: B/i_i sums i terms ±fl(1/i), so |error| ≤ i·u·(1 + …) +
// u ≤ 2iu; E is exact given B/i, and t_i averages values in [0, 1]
// whose errors are at most 2iu, so |error| ≤ 4iu (u = 2^−24, 2^−53).
func TestDyck1FloatRandom(t *testing.T) {
	con := construct(t, recipes.Dyck1, model.AverageHardmax, 200, nil)
	rng := rand.New(rand.NewPCG(9, 10))
	var inputs [][]int
	for _, n := range []int{50, 101, 150, 200} {
		cases, _ := con.Inputs(n, rng, 6)
		for _, c := range cases {
			inputs = append(inputs, c.Symbols)
		}
	}
	for _, p := range []struct {
		name string
		u    *big.Rat
	}{{"fp32", new(big.Rat).SetFrac64(1, 1<<24)}, {"fp64", new(big.Rat).SetFrac64(1, 1<<53)}} {
		dyckSweep(t, con.Model, p.name, inputs, func(in []int, out []model.PositionOutput) string {
			b, tt := recipes.Dyck1Values(in)
			for i, o := range out {
				iu := new(big.Rat).Mul(p.u, big.NewRat(int64(i+1), 1))
				if e := o.Values[0].Error(b[i]); e == nil || e.Cmp(new(big.Rat).Mul(iu, big.NewRat(2, 1))) > 0 {
					return fmt.Sprintf("position %d: B/i = %s, want %s within 2iu", i+1, o.Values[0].Text, b[i].RatString())
				}
				if e := o.Values[1].Error(tt[i]); e == nil || e.Cmp(new(big.Rat).Mul(iu, big.NewRat(4, 1))) > 0 {
					return fmt.Sprintf("position %d: t = %s, want %s within 4iu", i+1, o.Values[1].Text, tt[i].RatString())
				}
			}
			return ""
		})
	}
}

// TestDyck1NExhaustive: accept_i is membership of w_{:i} in Dyck-1 at
// every position of every string of length 12 (8 under -race; hence of
// every shorter string, as prefixes;
// see TestDyck1Exhaustive), built for N = that length,
// under AHAT (length 8 under SMAT).
func TestDyck1NExhaustive(t *testing.T) {
	n := dyckLengths().dyck1N
	for _, w := range recipes.Dyck1N.Weightings {
		con := construct(t, recipes.Dyck1N, w, n, nil)
		length := n
		if w == model.Softmax {
			length = min(n, 8)
			if testenv.Race {
				length = 6
			}
		}
		dyckSweep(t, con.Model, "exact", dyckStrings(length, 2), dyckAgainstReference(con))
	}
}

// TestDyck1NThresholds pins the thresholds at their edges (derivations
// in Dyck1N's doc comment), reading g = GTZero(t) and e = EqZero(B/i)
// from the trace.
func TestDyck1NThresholds(t *testing.T) {
	build := func(maxN int, params map[string]string) *model.Model {
		return construct(t, recipes.Dyck1N, model.AverageHardmax, maxN, params).Model
	}
	// N = 7, "()()())": B = 1,0,1,0,1,0,−1; the only E ≠ 0 is E_7 = 1/7,
	// so t_7 = 1/49 = ε_g: g_7 = 1 exactly; B/i_7 = −1/7, e_7 = 0.
	st := dyckTrace(t, build(7, nil), "exact", "()()())")
	dyckWant(t, "N=7 ()()()) t", st["t"], "0", "0", "0", "0", "0", "0", "1/49")
	dyckWant(t, "N=7 ()()()) g", st["g"], "0", "0", "0", "0", "0", "0", "1")
	dyckWant(t, "N=7 ()()()) accept", st["accept"], "0", "1", "0", "1", "0", "1", "0")
	// A threshold above 1/N², 1/48: g_7 = 48/49, no longer [t_7 > 0];
	// accept survives (e_7 = 0).
	st = dyckTrace(t, build(7, map[string]string{"gt-eps": "1/48"}), "exact", "()()())")
	dyckWant(t, "gt-eps=1/48 g", st["g"][6:], "48/49")
	dyckWant(t, "gt-eps=1/48 accept", st["accept"][6:], "0")

	// N = 7, "()()()(": B/i_7 = 1/7 = ε_e: e_7 = 0 exactly. Built for
	// N − 1 = 6 (ε_e = 1/6): e_7 = 1 − (1/7)/(1/6) = 1/7, and accept_7 =
	// ReLU(e − g) = 1/7, not 0.
	st = dyckTrace(t, build(7, nil), "exact", "()()()(")
	dyckWant(t, "N=7 ()()()( e", st["e"][6:], "0")
	st = dyckTrace(t, build(6, nil), "exact", "()()()(")
	dyckWant(t, "N=6 at n=7: e", st["e"][6:], "1/7")
	dyckWant(t, "N=6 at n=7: accept", st["accept"][6:], "1/7")

	// N = 8, "()()())(": B_8 = 0 and t_8 = (1/8)(1/7) = 1/56 ≥ 1/64:
	// g_8 = 1, accept_8 = 0. Built for N − 1 = 7 (ε_g = 1/49): g_8 =
	// 49/56 = 7/8 and accept_8 = 1/8. With ε_g = 1/56 (the largest that
	// keeps accept exact at N = 8) g_8 = 1; with 1/55, accept_8 = 1/56.
	for _, tc := range []struct {
		maxN   int
		params map[string]string
		g, acc string
	}{
		{8, nil, "1", "0"},
		{7, nil, "7/8", "1/8"},
		{8, map[string]string{"gt-eps": "1/56"}, "1", "0"},
		{8, map[string]string{"gt-eps": "1/55"}, "55/56", "1/56"},
	} {
		st = dyckTrace(t, build(tc.maxN, tc.params), "exact", "()()())(")
		what := fmt.Sprintf("N=%d %v ()()())(", tc.maxN, tc.params)
		dyckWant(t, what+" t", st["t"][7:], "1/56")
		dyckWant(t, what+" g", st["g"][7:], tc.g)
		dyckWant(t, what+" accept", st["accept"][7:], tc.acc)
	}

	// Tightness at N = 8 over every string of length 8 (all prefixes):
	// ε_g = 1/56 and ε_e = 1/7 together (1/(M(M−1)) for the largest even
	// M ≤ N, and 1/M' for the largest odd M' ≤ N) keep accept exact;
	// ε_g = 1/55 fails above, and ε_e = 1/6 fails on "()()()(" (e_7 =
	// 1 − 6/7 = 1/7).
	con := construct(t, recipes.Dyck1N, model.AverageHardmax, 8, map[string]string{"gt-eps": "1/56", "eq-eps": "1/7"})
	dyckSweep(t, con.Model, "exact", dyckStrings(8, 2), dyckAgainstReference(con))
	st = dyckTrace(t, build(8, map[string]string{"eq-eps": "1/6"}), "exact", "()()()(")
	dyckWant(t, "eq-eps=1/6 accept", st["accept"][6:], "1/7")
}

// TestDyck1NFloat: at fp64, built for N = 200, accept is within 1/2 of
// membership on seeded random strings up to length 200, so rounding it
// decides right: the comparators are N- and N²-Lipschitz and their units
// cancel, so their errors are at most about N²·(2nu) + 3N·u ≈ 2·10^−9.
// It is not exact: "((((((" at fp64 gives accept_6 ≠ 0 (B/i_6 =
// 6·fl(1/6) rounded is not 1, and EqZero's three units do not cancel),
// measured in TestDyckMeasure. At fp32 the same bound is about 0.95, so
// fp32 is measured, not asserted.
func TestDyck1NFloat(t *testing.T) {
	con := construct(t, recipes.Dyck1N, model.AverageHardmax, 200, nil)
	rng := rand.New(rand.NewPCG(11, 12))
	var inputs [][]int
	for _, n := range []int{60, 130, 200} {
		cases, _ := con.Inputs(n, rng, 6)
		for _, c := range cases {
			inputs = append(inputs, c.Symbols)
		}
	}
	half := big.NewRat(1, 2)
	dyckSweep(t, con.Model, "fp64", inputs, func(in []int, out []model.PositionOutput) string {
		for i, o := range out {
			if e := o.Values[0].Error(recipes.DyckBit(recipes.DyckMember(in[:i+1], 0))); e == nil || e.Cmp(half) >= 0 {
				return fmt.Sprintf("position %d: accept = %s", i+1, o.Values[0].Text)
			}
		}
		return ""
	})
}

// ---------------------------------------------------------------------
// Dyck-1-2 and Dyck-k-D (sec:dyck-1-2, sec:dyck-k-D).

// TestDyckMatchBlocks checks the Check Match FFNs on their whole integer
// domains, every combination as one position of a single run: a' = a −
// [left match] − [right match], and the scratch cleared to 0.
func TestDyckMatchBlocks(t *testing.T) {
	for _, k := range []int{1, 2, 3} {
		for _, typed := range []bool{false, true} {
			if !typed && k > 1 {
				continue
			}
			in := []string{"o", "a", "lo", "la", "ro", "ra"}
			var f *stream.FF
			if typed {
				in = append(in, "p")
				f = blocks.MatchDyckK("o", "p", "a", "lo", "la", "ro", "ra", k)
			} else {
				f = blocks.MatchDyck1("o", "a", "lo", "la", "ro", "ra")
			}
			m, err := stream.New("match", in...).Then(f).Readout("a", "lo", "la", "ro", "ra").Model()
			if err != nil {
				t.Fatal(err)
			}
			var rows []map[string]*big.Rat
			var want []int
			for o := -k; o <= k; o++ {
				if o == 0 {
					continue
				}
				for a := 0; a <= 1; a++ {
					for lo := -k; lo <= k; lo++ {
						for la := 0; la <= 1; la++ {
							for ro := -k; ro <= k; ro++ {
								for ra := 0; ra <= 1; ra++ {
									row := map[string]*big.Rat{}
									for name, v := range map[string]int{"o": o, "a": a, "lo": lo, "la": la, "ro": ro, "ra": ra} {
										row[name] = big.NewRat(int64(v), 1)
									}
									if typed {
										row["p"] = recipes.DyckBit(o > 0)
									}
									rows = append(rows, row)
									left := a == 1 && o < 0 && la == 1 && lo == -o
									right := a == 1 && o > 0 && ra == 1 && ro == -o
									want = append(want, a-b2i(left)-b2i(right))
								}
							}
						}
					}
				}
			}
			h, err := stream.Stream(m, rows)
			if err != nil {
				t.Fatal(err)
			}
			r, err := model.New(numeric.MustParsePrecision("exact"), m)
			if err != nil {
				t.Fatal(err)
			}
			res, err := r.RunStream(h, false)
			if err != nil {
				t.Fatal(err)
			}
			for i, o := range res.Outputs {
				if !o.Values[0].Equals(big.NewRat(int64(want[i]), 1)) {
					t.Fatalf("k = %d typed %v, %v: a' = %s, want %d", k, typed, rows[i], o.Values[0].Text, want[i])
				}
				for c := 1; c < 5; c++ {
					if !o.Values[c].Equals(new(big.Rat)) {
						t.Fatalf("k = %d typed %v, %v: scratch %s not cleared", k, typed, rows[i], o.Values[c].Text)
					}
				}
			}
		}
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// TestDyck12PaperExample: on the paper's example "(())(()())" the active
// bits after round 1 are the Intuition's step-1 marking
// "( [()] ) ( [()] [()] )": 1 0 0 1 1 0 0 0 0 1; after round 2 all 0.
// Under every weighting the outputs are accept = 1, s = 0.
func TestDyck12PaperExample(t *testing.T) {
	for _, w := range recipes.Dyck12.Weightings {
		m := construct(t, recipes.Dyck12, w, 10, nil).Model
		r, err := model.New(numeric.MustParsePrecision("exact"), m)
		if err != nil {
			t.Fatal(err)
		}
		res, err := r.Run(dyckParse(t, m, "(())(()())"), true)
		if err != nil {
			t.Fatal(err)
		}
		ka := dyckComponentIndex(t, m, "a")
		bits := func(label string) string {
			for _, s := range res.Trace.States {
				if s.Label == label {
					var out []string
					for _, v := range s.Vectors {
						out = append(out, v[ka].Text)
					}
					return strings.Join(out, " ")
				}
			}
			return "no state " + label
		}
		if got := bits("layer 2 feed-forward"); got != "1 0 0 1 1 0 0 0 0 1" {
			t.Errorf("%s: a after round 1: %s", recipes.WeightingAcronym(w), got)
		}
		if got := bits("layer 4 feed-forward"); got != "0 0 0 0 0 0 0 0 0 0" {
			t.Errorf("%s: a after round 2: %s", recipes.WeightingAcronym(w), got)
		}
		for i, o := range res.Outputs {
			if !o.Values[0].Equals(big.NewRat(1, 1)) || !o.Values[1].Equals(new(big.Rat)) {
				t.Errorf("%s: position %d: accept %s, s %s", recipes.WeightingAcronym(w), i+1, o.Values[0].Text, o.Values[1].Text)
			}
		}
	}
}

// TestDyck12Literal pins the printed score j/n − (a_j − 1) of step 2,
// worked by hand (n = 10, "(())(()())"): round 1 (the same for both:
// every bit is 1) leaves a = 1 0 0 1 1 0 0 0 0 1. In round 2 position 1
// looks right (strict past, literal score −j/n − (a_j − 1)): inactive
// j = 2 scores −2/10 + 1 = 4/5, more than any active one (−j/10 ≤ 0), so
// it retrieves (o_2, a_2) = (+1, 0): no match. Position 4 looks left
// (j/10 − (a_j − 1)): j = 3 scores 3/10 + 1, the most, a_3 = 0: no
// match. Likewise position 5 selects 6 and position 10 selects 9. So
// four brackets stay active: s = 4/10, accept = 0, while the string is in
// Dyck-1-2 (accept = 1, s = 0, as the corrected dyck12 gives). On "(())"
// the same happens at positions 1 and 4: s = 2/4; on "()(())" at
// positions 3 and 6 (round 1 leaves a = 0 0 1 0 0 1; 3 selects the
// inactive 4, 6 the inactive 5): s = 2/6.
func TestDyck12Literal(t *testing.T) {
	for _, w := range recipes.Dyck12.Weightings {
		for _, tc := range []struct {
			text       string
			literalS   string
			literalAcc string
		}{
			{"(())(()())", "2/5", "0"},
			{"(())", "1/2", "0"},
			{"()(())", "1/3", "0"},
			{"()()", "0", "1"}, // depth 1: round 1 suffices, the literal agrees
		} {
			n := len(tc.text)
			lit := construct(t, recipes.Dyck12Literal, w, n, nil).Model
			fix := construct(t, recipes.Dyck12, w, n, nil).Model
			dyckWant(t, "literal accept "+tc.text, dyckOutputs(t, lit, "exact", tc.text, 0)[:1], tc.literalAcc)
			dyckWant(t, "literal s "+tc.text, dyckOutputs(t, lit, "exact", tc.text, 1)[:1], tc.literalS)
			dyckWant(t, "dyck12 accept "+tc.text, dyckOutputs(t, fix, "exact", tc.text, 0)[:1], "1")
			dyckWant(t, "dyck12 s "+tc.text, dyckOutputs(t, fix, "exact", tc.text, 1)[:1], "0")
		}
	}
	// And the checker finds it: the first failure of a sweep of the
	// literal recipe is "(())", the first member needing round 2 in the
	// enumeration order ("(" before ")").
	rep, err := check.Run(recipes.Dyck12Literal, check.Options{Precision: numeric.MustParsePrecision("exact"), Weighting: model.LeftHardmax,
		MaxN: 4, Lengths: []int{1, 2, 3, 4}, Cases: 1, Exhaustive: 16, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Passed || rep.FirstFailure.Input != "(())" || rep.Limit != 3 {
		t.Errorf("literal sweep: passed %v, limit %d, first failure %+v", rep.Passed, rep.Limit, rep.FirstFailure)
	}
}

// TestDyck12Exhaustive: (accept, s) exactly against the references (a
// stack with the depth; the Intuition's mark-filter-mark) on every string
// up to length 12 under UHAT (6 under -race), and up to 8 under
// UHAT-right and AHAT (4), with check=avg (built for N = that length) and
// check=max.
func TestDyck12Exhaustive(t *testing.T) {
	ls := dyckLengths()
	for _, w := range recipes.Dyck12.Weightings {
		n := ls.dyck12Alt
		if w == model.LeftHardmax {
			n = ls.dyck12
		}
		dyckCheckExact(t, recipes.Dyck12, w, nil, n, 2)
		dyckCheckExact(t, recipes.Dyck12, w, map[string]string{"check": "max"}, min(n, 6), 2)
	}
}

// TestDyck12CheckMax: with check=max the decision is uniform: built for
// N = 2 (which only the avg check would use), the construction decides
// every string of length 6 under UHAT, and of length 5 under UHAT-right
// and AHAT (s = max_i a_i, accept = 1 − s).
func TestDyck12CheckMax(t *testing.T) {
	for _, w := range recipes.Dyck12.Weightings {
		n := 6
		if w != model.LeftHardmax || testenv.Race {
			n = 5
		}
		con := construct(t, recipes.Dyck12, w, 2, map[string]string{"check": "max"})
		dyckSweep(t, con.Model, "exact", dyckStrings(n, 2), dyckAgainstReference(con))
	}
}

// TestDyckKDAgreesWithDyck12: with k = 1 and D = 2, dyck-kd (the typed
// FFN, the bit p) outputs exactly what dyck12 (the one-type FFN) does on
// every string up to length 10 (5 under -race), and both equal the
// references.
func TestDyckKDAgreesWithDyck12(t *testing.T) {
	n := dyckLengths().kdVs12
	kd := construct(t, recipes.DyckKD, model.LeftHardmax, n, map[string]string{"k": "1", "D": "2"})
	d12 := construct(t, recipes.Dyck12, model.LeftHardmax, n, nil)
	r12, err := model.New(numeric.MustParsePrecision("exact"), d12.Model)
	if err != nil {
		t.Fatal(err)
	}
	ref := dyckAgainstReference(kd)
	dyckSweep(t, kd.Model, "exact", dyckUpTo(n, 2), func(in []int, out []model.PositionOutput) string {
		if why := ref(in, out); why != "" {
			return why
		}
		res, err := r12.Run(in, false)
		if err != nil {
			return err.Error()
		}
		for i := range out {
			for k := range out[i].Values {
				if !out[i].Values[k].Equals(mustRat(res.Outputs[i].Values[k])) {
					return fmt.Sprintf("position %d: dyck-kd %s, dyck12 %s", i+1, out[i].Values[k].Text, res.Outputs[i].Values[k].Text)
				}
			}
		}
		return ""
	})
}

// TestDyckKDExhaustive: Dyck-2-2 on every string up to length 8 under
// UHAT (4 under -race) and up to 5 under UHAT-right and AHAT (3), and
// other k and D (the D-round argument: depth D + 1 rejected) on every
// string up to length 5 (3; k = 3 one shorter, k = 1 three longer).
func TestDyckKDExhaustive(t *testing.T) {
	ls := dyckLengths()
	for _, w := range recipes.DyckKD.Weightings {
		n := ls.kd22
		if w != model.LeftHardmax {
			n = min(n, ls.kdOther)
		}
		dyckCheckExact(t, recipes.DyckKD, w, map[string]string{"k": "2", "D": "2"}, n, 4)
	}
	for _, tc := range []struct{ k, d, n int }{{2, 1, ls.kdOther}, {2, 3, ls.kdOther}, {3, 1, ls.kdOther - 1}, {1, 3, ls.kdOther + 3}} {
		dyckCheckExact(t, recipes.DyckKD, model.LeftHardmax, map[string]string{"k": fmt.Sprint(tc.k), "D": fmt.Sprint(tc.d)}, tc.n, 2*tc.k)
	}
}

// TestDyckKDDepth: strings worked by hand at the depth boundary, k = 3.
func TestDyckKDDepth(t *testing.T) {
	for _, tc := range []struct {
		text   string
		d      int
		accept string
	}{
		{"([{}])", 3, "1"}, // depth 3
		{"([{}])", 2, "0"}, // … is not in Dyck-3-2: the pair {} has height 0, [] 1, () 2
		{"([][]){}", 2, "1"},
		{"([)]", 3, "0"},
		{"((((", 4, "0"},
		{"[(])", 2, "0"},
		{"{}{}{}", 1, "1"},
	} {
		m := construct(t, recipes.DyckKD, model.AverageHardmax, 8, map[string]string{"k": "3", "D": fmt.Sprint(tc.d)}).Model
		dyckWant(t, fmt.Sprintf("D = %d %s", tc.d, tc.text), dyckOutputs(t, m, "exact", tc.text, 0)[:1], tc.accept)
	}
}

// TestDyckRandomLong checks every recipe on seeded random strings of
// lengths up to 200 (Dyck words, Dyck words with one symbol changed,
// words of depth D + 1, uniform strings): in exact arithmetic, and at
// fp32 and fp64 for the round constructions with check=max under UHAT
// (exact: the o, a and retrieved values are small integers, every head
// selects one position with weight 1, and the scores fl(j/n) and
// fl(j/n) − 1 keep their order for n ≤ 200, since ulp(1) ≤ 2^−23 < 1/n;
// under AHAT the final head averages c tied ones, c·fl(1/c) summed,
// which is 1 only up to rounding). An exact run at n = 200 takes 40 to
// 500 ms (1 to 3 s under the race detector), so the race run checks one
// string of length 200 per recipe.
func TestDyckRandomLong(t *testing.T) {
	lengths, cases := []int{33, 80, 200}, 2
	if testenv.Race {
		lengths, cases = []int{200}, 1
	}
	rng := rand.New(rand.NewPCG(3, 4))
	run := func(r *recipes.Recipe, w model.Weighting, precisions []string, params map[string]string) {
		t.Helper()
		con := construct(t, r, w, 200, params)
		var inputs [][]int
		for _, n := range lengths {
			cs, _ := con.Inputs(n, rng, cases)
			for _, c := range cs {
				inputs = append(inputs, c.Symbols)
			}
		}
		for _, p := range precisions {
			dyckSweep(t, con.Model, p, inputs, dyckAgainstReference(con))
		}
	}
	run(recipes.Dyck1, model.AverageHardmax, []string{"exact"}, nil)
	run(recipes.Dyck1N, model.AverageHardmax, []string{"exact"}, nil)
	run(recipes.Dyck12, model.LeftHardmax, []string{"exact"}, nil)
	run(recipes.DyckKD, model.RightHardmax, []string{"exact"}, map[string]string{"k": "3", "D": "3"})
	run(recipes.Dyck12, model.LeftHardmax, []string{"fp32", "fp64"}, map[string]string{"check": "max"})
	run(recipes.DyckKD, model.RightHardmax, []string{"fp32", "fp64"}, map[string]string{"check": "max"})
}

// TestDyckNegativeControls perturbs one weight of each construction and
// requires the checker to catch it on the string worked out by hand.
func TestDyckNegativeControls(t *testing.T) {
	exact := numeric.MustParsePrecision("exact")
	sweep := func(con *recipes.Construction, maxN int) *check.Report {
		t.Helper()
		runner, err := model.New(exact, con.Model)
		if err != nil {
			t.Fatal(err)
		}
		rep := &check.Report{Passed: true}
		for n := 1; n <= maxN && rep.Passed; n++ {
			inputs, _ := con.Inputs(n, nil, 1<<20)
			lr := check.Cases(con, runner, inputs)
			if lr.Failure != nil {
				rep.Passed, rep.FirstFailure = false, lr.Failure
			}
		}
		return rep
	}
	for _, tc := range []struct {
		name    string
		r       *recipes.Recipe
		w       model.Weighting
		params  map[string]string
		buildN  int // the N it is built for
		maxN    int // the lengths swept
		perturb func(m *model.Model)
		input   string
		got     []string
	}{
		// E = ReLU(−2b) instead of ReLU(−b): on ")" t_1 = 2, not 1.
		{"dyck1 W1 of E", recipes.Dyck1, model.AverageHardmax, nil, 2, 2, func(m *model.Model) {
			m.Layers[0].FeedForward.W1.Set(0, dyckIndex(m, "B/i"), numeric.LitInt(-2))
		}, ")", []string{"-1", "2"}},
		// g's first output weight 1/ε = 64 made 63 (N = 8): for t ≥ ε,
		// g = 63t − 64(t − ε) = 1 − t; on ")(" t_2 = 1/2, B_2 = 0, so
		// accept_2 = ReLU(1 − 1/2) = 1/2.
		{"dyck1-n W2 of GTZero", recipes.Dyck1N, model.AverageHardmax, nil, 8, 3, func(m *model.Model) {
			m.Layers[1].FeedForward.W2.Set(dyckIndex(m, "g"), 0, numeric.LitInt(63))
		}, ")(", []string{"1/2"}},
		// The round-2 left head ignores the active bit (its key's weight
		// on a made 0): on "(())" position 4 selects the inactive 3, so
		// only position 1 (whose right head still finds 4) is matched:
		// a = 0 0 0 1, s = 1/4, accept = EqZero_{1/4}(1/4) = 0.
		{"dyck12 round-2 key", recipes.Dyck12, model.LeftHardmax, nil, 4, 4, func(m *model.Model) {
			m.Layers[2].Attention.Heads[0].K.Set(0, dyckIndex(m, "a"), numeric.LitInt(0))
		}, "(())", []string{"0", "1/4"}},
		// The left match ignores p (the weight K = 5 on p made 0, k = 2):
		// on ")(" position 2 ("(") matches its left neighbour ")" (l.o + o
		// = 0, both active), so a = 1 0 and s = 1/2 instead of 1.
		{"dyck-kd p in the left match", recipes.DyckKD, model.LeftHardmax, map[string]string{"k": "2", "D": "2"}, 3, 3, func(m *model.Model) {
			for row := 0; row < 3; row++ {
				m.Layers[1].FeedForward.W1.Set(row, dyckIndex(m, "p"), numeric.LitInt(0))
			}
		}, ")(", []string{"0", "1/2"}},
	} {
		con := construct(t, tc.r, tc.w, tc.buildN, tc.params)
		if rep := sweep(con, tc.maxN); !rep.Passed {
			t.Fatalf("%s: fails before the perturbation: %+v", tc.name, rep.FirstFailure)
		}
		tc.perturb(con.Model)
		rep := sweep(con, tc.maxN)
		if rep.Passed {
			t.Errorf("%s: the perturbed model passes", tc.name)
			continue
		}
		if f := rep.FirstFailure; f.Input != tc.input || !slices.Equal(f.Actual, tc.got) {
			t.Errorf("%s: first failure %q at %d: %v, want %q: %v", tc.name, f.Input, f.Position, f.Actual, tc.input, tc.got)
		}
	}
}

// dyckIndex is the place of a component (the test's own lookup, for
// perturbations).
func dyckIndex(m *model.Model, name string) int { return slices.Index(m.Components, name) }

// TestDyck1NBF16: at bf16, built for N = 64, ")(" is accepted at
// position 2. Worked by hand: t_2 = (1/2)(0 + 1) = 1/2 and B/i_2 = 0 are
// exact; g = 4096·ReLU(t) − 4096·ReLU(t − 1/4096), but t − 2^−12 rounds
// to 1/2 (below 1/2 bf16's spacing is 2^−9), so g = 0; e = 64·ReLU(0 +
// 1/64) = 1; accept = ReLU(e − g) = 1. At position 1 (t_1 = 1) g is 0
// too (1 − 2^−12 rounds to 1), but there e = 0 saves accept. GTZero_ε(x)
// needs ε above half an ulp of x, or its two units cancel to 0.
func TestDyck1NBF16(t *testing.T) {
	m := construct(t, recipes.Dyck1N, model.AverageHardmax, 64, nil).Model
	st := dyckTrace(t, m, "bf16", ")(")
	dyckWant(t, "bf16 )( t", st["t"], "1", "1/2")
	dyckWant(t, "bf16 )( g", st["g"], "0", "0")
	dyckWant(t, "bf16 )( accept", st["accept"], "0", "1")
}

// dyckCollisionString returns, for a pair j, j + 1 whose scores tie in
// some format, a member of Dyck-1-2 of even length n in which position
// j + 2 is ")" preceded by "()" (round 1 must match j + 1 with j + 2,
// and a left head that picks j instead misses it), and position j − 1 is
// "(" followed by "()" (a right head that picks j + 1 instead of j
// misses that match): "()()…()" when j is even, "(()()…())" when j is
// odd. ok is false when the layout has no room for either pattern.
func dyckCollisionString(n, j int) (string, bool) {
	if j%2 == 0 {
		return strings.Repeat("()", n/2), j >= 2 && j+2 <= n
	}
	return "(" + strings.Repeat("()", (n-2)/2) + ")", j >= 3 && j+2 <= n-1
}

// dyckCollisions returns the pairs (j, j + 1), 1 ≤ j < j + 1 < n, whose
// position encodings fl(j/n) and fl((j+1)/n) are equal in r's format, so
// that the select-nearest-active heads tie between them.
func dyckCollisions(r model.Runner, n int) []int {
	var js []int
	prev, _ := r.Round(big.NewRat(1, int64(n))).Rat()
	for j := 1; j+1 < n; j++ {
		next, _ := r.Round(big.NewRat(int64(j+1), int64(n))).Rat()
		if prev.Cmp(next) == 0 {
			js = append(js, j)
		}
		prev = next
	}
	return js
}

// TestDyck12BF16Collision: at bf16 (8 significant bits) the encodings
// 162/260 and 163/260 both round to 160/256 = 0.625 (162·256/260 =
// 159.51, 163·256/260 = 160.49), so in "()"^130 (n = 260) the left head
// of position 164 (a ")", after "()" at 162, 163) ties between 162 and
// 163 and UHAT takes the leftmost, 162, a ")": no left match, while 163's
// right head (the tie there, if any, also goes to the leftmost, 164)
// matches 164. So 164 stays active through round 2 and the member is
// rejected: accept = 0, s = 1 with check=max.
func TestDyck12BF16Collision(t *testing.T) {
	con := construct(t, recipes.Dyck12, model.LeftHardmax, 260, map[string]string{"check": "max"})
	r, err := model.New(numeric.MustParsePrecision("bf16"), con.Model)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(dyckCollisions(r, 260), 162) {
		t.Fatalf("bf16: 162/260 and 163/260 do not round alike")
	}
	text, _ := dyckCollisionString(260, 162)
	out := dyckOutputs(t, con.Model, "bf16", text, 0)
	dyckWant(t, "bf16 ()^130 accept", out[:1], "0")
	dyckWant(t, "bf16 ()^130 s", dyckOutputs(t, con.Model, "bf16", text, 1)[:1], "1")
}

// ---------------------------------------------------------------------
// Measurements (DYCK_MEASURE=1): the largest length at which each
// construction stays exact at each precision, for the report.

func TestDyckMeasure(t *testing.T) {
	if os.Getenv("DYCK_MEASURE") == "" {
		t.Skip("set DYCK_MEASURE=1 to measure the precision limits")
	}
	precisions := []string{"fp16", "bf16", "fp32", "fp64", "24", "53"}
	measure := func(r *recipes.Recipe, w model.Weighting, maxN int, params map[string]string) {
		for _, p := range precisions {
			n := maxN
			if p == "24" || p == "53" {
				n = min(n, 512) // big.Float is slow; fp32 and fp64 round alike
			}
			rep, err := check.Run(r, check.Options{Precision: numeric.MustParsePrecision(p), Weighting: w, MaxN: n,
				Params: params, Cases: 16, Exhaustive: 256, Seed: 1})
			if err != nil {
				t.Logf("%s %s %v %s: %v", r.Name, recipes.WeightingAcronym(w), params, p, err)
				continue
			}
			line := fmt.Sprintf("%-8s %-10s %-28s N=%-5d %-5s sampled limit %d", r.Name, recipes.WeightingAcronym(w), fmt.Sprint(params), n, p, rep.Limit)
			if f := rep.FirstFailure; f != nil {
				in := f.Input
				if len(in) > 30 {
					in = in[:30] + "…"
				}
				line += fmt.Sprintf("; first failure n=%d pos %d %q: %s", f.N, f.Position, in, f.Reason)
			}
			t.Log(line)
		}
	}
	measure(recipes.Dyck1, model.AverageHardmax, 256, nil)
	measure(recipes.Dyck1, model.Softmax, 256, nil)
	for _, n := range []int{16, 64, 256, 1024} {
		measure(recipes.Dyck1N, model.AverageHardmax, n, nil)
	}
	for _, w := range recipes.Dyck12.Weightings {
		for _, check := range []string{"avg", "max"} {
			measure(recipes.Dyck12, w, 2048, map[string]string{"check": check, "outputs": "accept"})
		}
	}
	measure(recipes.Dyck12, model.LeftHardmax, 256, map[string]string{"outputs": "accept"})
	measure(recipes.Dyck12, model.LeftHardmax, 64, nil)
	for _, check := range []string{"avg", "max"} {
		measure(recipes.DyckKD, model.LeftHardmax, 2048, map[string]string{"check": check, "outputs": "accept"})
	}

	// The round constructions' heads tie when two consecutive encodings
	// round alike: the first even n ≤ 4096 at which a member built around
	// such a pair (dyckCollisionString) is decided wrong, check=max.
	for _, w := range recipes.Dyck12.Weightings {
		for _, p := range precisions {
			if p == "24" || p == "53" {
				continue // as fp32 and fp64: no tie below n = 2^23
			}
			found := false
			for n := 2; n <= 4096 && !found; n += 2 {
				con := construct(t, recipes.Dyck12, w, n, map[string]string{"check": "max", "outputs": "accept"})
				r, err := model.New(numeric.MustParsePrecision(p), con.Model)
				if err != nil {
					t.Fatal(err)
				}
				for _, j := range dyckCollisions(r, n) {
					text, ok := dyckCollisionString(n, j)
					if !ok {
						continue
					}
					out := dyckOutputs(t, con.Model, p, text, 0)
					if !out[0].Equals(big.NewRat(1, 1)) {
						t.Logf("dyck12 %s %s: first tie-made failure at n = %d (encodings %d/n, %d/n round alike): accept = %s on %.20s…", recipes.WeightingAcronym(w), p, n, j, j+1, out[0].Text, text)
						found = true
						break
					}
				}
			}
			if !found {
				t.Logf("dyck12 %s %s: no tie-made failure up to n = 4096", recipes.WeightingAcronym(w), p)
			}
		}
	}

	// Dyck-1's external check, which the uniform construction leaves
	// outside: the largest n at which (t_i = 0 ∧ B_i/i = 0) is membership
	// at every position of the sampled strings.
	con := construct(t, recipes.Dyck1, model.AverageHardmax, 1024, nil)
	for _, p := range precisions {
		r, err := model.New(numeric.MustParsePrecision(p), con.Model)
		if err != nil {
			t.Fatal(err)
		}
		rng := rand.New(rand.NewPCG(1, 2))
		limit := 0
	lengths:
		for _, n := range check.DefaultLengths(1, 1024) {
			cases, _ := con.Inputs(n, rng, check.CasesAt(16, n))
			for _, c := range cases {
				res, err := r.Run(c.Symbols, false)
				if err != nil {
					t.Fatal(err)
				}
				for i, o := range res.Outputs {
					accept := o.Values[0].Equals(new(big.Rat)) && o.Values[1].Equals(new(big.Rat))
					if accept != recipes.DyckMember(c.Symbols[:i+1], 0) {
						t.Logf("dyck1 external check %s: limit %d; first wrong at n=%d pos %d %q: B/i = %s, t = %s", p, limit, n, i+1, check.CaseText(con.Model, c), o.Values[0].Text, o.Values[1].Text)
						break lengths
					}
				}
			}
			limit = n
		}
		if limit == 1024 {
			t.Logf("dyck1 external check %s: right up to 1024", p)
		}
	}
}
