package recipes_test

import (
	"fmt"
	"math/big"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/transformer-cookbook/verify/check"
	"github.com/transformer-cookbook/verify/internal/testenv"
	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/model/eval"
	"github.com/transformer-cookbook/verify/numeric"
	"github.com/transformer-cookbook/verify/recipes"
	"github.com/transformer-cookbook/verify/recipes/blocks"
	"github.com/transformer-cookbook/verify/recipes/stream"
)

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
			r, err := eval.New(numeric.MustParsePrecision("exact"), m)
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
		r, err := eval.New(numeric.MustParsePrecision("exact"), m)
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

// TestDyck12Literal pins the printed construction, worked by hand: step
// 2's score j/n − (a_j − 1), and a check-match that sees the selected
// neighbour's type only (the printed state [o, a, l, r, i/n]). On
// "(())(()())" (n = 10) round 1 (every bit 1: the same for both scores)
// leaves a = 1 0 0 1 1 0 0 0 0 1. In round 2 the inactive positions
// score j/10 + 1, more than any active one. Position 1 looks right
// (strict past) and selects the largest inactive j, 9, a ")": it is
// marked. Position 5 likewise selects 9 and is marked. Position 4 looks
// left (strict future) and selects the largest inactive j < 4, 3, a ")":
// no match; position 10 selects 9, a ")": no match. So s = 2/10, accept
// = 0, while the string is in Dyck-1-2 (accept = 1, s = 0, as the
// corrected dyck12 gives). On "(())": 1 selects the ")" at 3 (marked), 4
// selects 3 (not): s = 1/4. On "()(())" round 1 leaves a = 0 0 1 0 0 1; 3
// selects the ")" at 5 (marked), 6 selects 5 (not): s = 1/6.
func TestDyck12Literal(t *testing.T) {
	for _, w := range recipes.Dyck12.Weightings {
		for _, tc := range []struct {
			text       string
			literalS   string
			literalAcc string
		}{
			{"(())(()())", "1/5", "0"},
			{"(())", "1/4", "0"},
			{"()(())", "1/6", "0"},
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
	// A non-member the literal accepts: "(()" has a = 1 0 0 after round
	// 1; position 1 then searches right, where the literal scores
	// j/3 − (a_j − 1) select j = 3 (2 against 5/3), the matched ")", whose
	// type marks it: s = 0, accept = 1. The corrected −j/3 + (a_j − 1)
	// select j = 2 (−5/3 against −2), inactive, whose retrieved bit 0
	// keeps position 1 active: s = 1/3, accept = 0.
	for _, w := range recipes.Dyck12.Weightings {
		for _, tc := range []struct {
			r         *recipes.Recipe
			accept, s string
		}{{recipes.Dyck12Literal, "1", "0"}, {recipes.Dyck12, "0", "1/3"}} {
			m := construct(t, tc.r, w, 3, nil).Model
			dyckWant(t, tc.r.Name+" accept (()", dyckOutputs(t, m, "exact", "(()", 0)[:1], tc.accept)
			dyckWant(t, tc.r.Name+" s (()", dyckOutputs(t, m, "exact", "(()", 1)[:1], tc.s)
		}
	}
	// And the checker finds it: the first failure of a sweep of the
	// literal recipe is "(()", the first string needing round 2 in the
	// enumeration order ("(" before ")").
	rep, err := check.Run(recipes.Dyck12Literal, check.Options{Precision: numeric.MustParsePrecision("exact"), Weighting: model.LeftHardmax,
		MaxN: 4, Lengths: []int{1, 2, 3, 4}, Cases: 1, Exhaustive: 16, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Passed || rep.FirstFailure.Input != "(()" || rep.Limit != 2 {
		t.Errorf("literal sweep: passed %v, limit %d, first failure %+v", rep.Passed, rep.Limit, rep.FirstFailure)
	}
}

// TestDyck12LiteralHoldsNoBit: the printed state holds no active bit of
// a neighbour, so the literal recipe's components are o, a, l, r, 1,
// i/n, s, accept, and its heads write types only.
func TestDyck12LiteralHoldsNoBit(t *testing.T) {
	m := construct(t, recipes.Dyck12Literal, model.LeftHardmax, 4, nil).Model
	want := []string{"o", "a", "l", "r", "1", "i/n", "s", "accept"}
	if !slices.Equal(m.Components, want) {
		t.Errorf("components %v, want %v", m.Components, want)
	}
}

// TestDyck12Exhaustive: (accept, s) exactly against the references (a
// stack with the depth; the Intuition's mark-filter-mark) on every string
// up to length 6 under UHAT (12 in TestLongDyck12Exhaustive), and up to
// 4 under UHAT-right and AHAT (8), with check=avg (built for N = that
// length) and check=max.
func TestDyck12Exhaustive(t *testing.T) {
	dyck12Exhaustive(t, quickDyckLengths)
}

// TestLongDyck12Exhaustive is TestDyck12Exhaustive on every string up to
// length 12 under UHAT and 8 under UHAT-right and AHAT.
func TestLongDyck12Exhaustive(t *testing.T) {
	testenv.Long(t)
	dyck12Exhaustive(t, longDyckLengths)
}

// dyck12Exhaustive checks dyck12 on every string up to the lengths of ls.
func dyck12Exhaustive(t *testing.T, ls dyckExhaustiveLengths) {
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
// every string up to length 5 (10 in TestLongDyckKDAgreesWithDyck12),
// and both equal the references.
func TestDyckKDAgreesWithDyck12(t *testing.T) {
	dyckKDAgreesWithDyck12(t, quickDyckLengths.kdVs12)
}

// TestLongDyckKDAgreesWithDyck12 is TestDyckKDAgreesWithDyck12 on every
// string up to length 10.
func TestLongDyckKDAgreesWithDyck12(t *testing.T) {
	testenv.Long(t)
	dyckKDAgreesWithDyck12(t, longDyckLengths.kdVs12)
}

// dyckKDAgreesWithDyck12 compares dyck-kd (k = 1, D = 2) with dyck12 on
// every string up to length n.
func dyckKDAgreesWithDyck12(t *testing.T, n int) {
	kd := construct(t, recipes.DyckKD, model.LeftHardmax, n, map[string]string{"k": "1", "D": "2"})
	d12 := construct(t, recipes.Dyck12, model.LeftHardmax, n, nil)
	r12, err := eval.New(numeric.MustParsePrecision("exact"), d12.Model)
	if err != nil {
		t.Fatal(err)
	}
	ref := dyckAgainstReference(kd)
	dyckSweep(t, kd.Model, "exact", dyckUpTo(n, 2), func(in []int, out []eval.PositionOutput) string {
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

// TestDyckKDExhaustive: Dyck-2-2 on every string up to length 4 under
// UHAT and up to 3 under UHAT-right and AHAT, and other k and D (the
// D-round argument: depth D + 1 rejected) on every string up to length 3
// (k = 3 one shorter, k = 1 three longer). TestLongDyckKDExhaustive
// takes 8, 5 and 5.
func TestDyckKDExhaustive(t *testing.T) {
	dyckKDExhaustive(t, quickDyckLengths)
}

// TestLongDyckKDExhaustive is TestDyckKDExhaustive on every string up to
// length 8 under UHAT and 5 under UHAT-right and AHAT and for the other k
// and D (about a minute on 2 cores).
func TestLongDyckKDExhaustive(t *testing.T) {
	testenv.Long(t)
	dyckKDExhaustive(t, longDyckLengths)
}

// dyckKDExhaustive checks dyck-kd on every string up to the lengths of
// ls.
func dyckKDExhaustive(t *testing.T, ls dyckExhaustiveLengths) {
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
		runner, err := eval.New(exact, con.Model)
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
func dyckCollisions(r eval.Runner, n int) []int {
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
	r, err := eval.New(numeric.MustParsePrecision("bf16"), con.Model)
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
