package check

import (
	"math/big"
	"testing"

	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/numeric"
	"github.com/transformer-cookbook/verify/recipes"
)

// TestEveryRunsSmallLengthsWhole: a length with few enough inputs to run
// whole needs no proof, but it must be run: the lookup for N = 4 with
// symbol 1:0's j raised by 1 is right at n = 1 and wrong at n = 2 ("1:0
// 2:1" retrieves v_1, a hand derivation the run confirms), so the
// analysis of every length from 1 stops at 2, which it says was run whole
// and fails (it used to count such a length right without running it).
// Lengths run whole between checked ones
// leave the limit's evidence exhaustive, and those the analysis proves
// make it faithful.
func TestEveryRunsSmallLengthsWhole(t *testing.T) {
	r, err := recipes.Get("lookup")
	if err != nil {
		t.Fatal(err)
	}
	con, err := r.Construct(model.AverageHardmax, 4, nil)
	if err != nil {
		t.Fatal(err)
	}
	m := raised(t, con.Model, "1:0", "j")
	opts := Options{Precision: numeric.MustParsePrecision("fp32"), Weighting: model.AverageHardmax, MaxN: 4, Model: m,
		Cases: 8, Seed: 1, Exhaustive: 256, Analysis: true}
	ck, err := NewChecker(r, opts)
	if err != nil {
		t.Fatal(err)
	}
	ev := ck.Every(1, 3, 0)
	if ev.Certified != 1 || ev.At != 2 || !ev.Failed {
		t.Errorf("every length 1 … 3: certified to %d, stopped at %d (failed %v: %s); want 1, 2, true", ev.Certified, ev.At, ev.Failed, ev.Why)
	}
	opts.Lengths = []int{1, 3}
	rep, err := Run(r, opts)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Limit != 1 || rep.FirstFailure == nil {
		t.Errorf("lengths 1 and 3: limit %d, first failure %+v; want 1, and a failure", rep.Limit, rep.FirstFailure)
	}

	for _, c := range []struct {
		lengths []int
		want    Level
	}{
		{[]int{1, 3}, Exhaustive}, // 2 run whole by the analysis of every length
		{[]int{1, 2, 4}, Faithful},
		{[]int{1, 5}, Faithful},
	} {
		opts := Options{Precision: numeric.MustParsePrecision("fp32"), Weighting: model.AverageHardmax, MaxN: 8,
			Cases: 8, Seed: 1, Exhaustive: 256, Analysis: true, Lengths: c.lengths}
		rep, err := Run(r, opts)
		if err != nil {
			t.Fatal(err)
		}
		if !rep.Every || rep.LimitLevel != c.want {
			t.Errorf("lengths %v: every length %v, evidence %s; want true, %s", c.lengths, rep.Every, rep.LimitLevel, c.want)
		}
	}
}

// raised is m with symbol sym's word-embedding entry in component comp
// raised by 1.
func raised(t *testing.T, m *model.Model, sym, comp string) *model.Model {
	t.Helper()
	out := *m
	out.WordEmbedding = append([]model.Vector(nil), m.WordEmbedding...)
	s, c := -1, -1
	for k, a := range m.Alphabet {
		if a == sym {
			s = k
		}
	}
	for k, name := range m.Components {
		if name == comp {
			c = k
		}
	}
	if s < 0 || c < 0 {
		t.Fatalf("no symbol %q or component %q", sym, comp)
	}
	row := append(model.Vector(nil), m.WordEmbedding[s]...)
	x, _, err := row[c].Rat()
	if err != nil {
		t.Fatal(err)
	}
	row[c] = numeric.Lit(new(big.Rat).Add(x, big.NewRat(1, 1)))
	out.WordEmbedding[s] = row
	return &out
}

// TestEveryDropsAChainThatCarriesNothing: the analysis of every length
// keeps one chain while it carries conclusions from length to length (the
// lookup's scores do not depend on n: from its first analysed length on,
// each length carries), and drops it after a length that took nothing
// from the one before (Dyck-1-2 scores j/n, so every item changes with
// n), whose tables would only grow.
func TestEveryDropsAChainThatCarriesNothing(t *testing.T) {
	for _, tc := range []struct {
		recipe    string
		w         model.Weighting
		params    map[string]string
		to        int
		restarted bool
	}{
		{"lookup", model.AverageHardmax, nil, 24, false},
		{"dyck12", model.LeftHardmax, map[string]string{"check": "max"}, 14, true},
	} {
		r, err := recipes.Get(tc.recipe)
		if err != nil {
			t.Fatal(err)
		}
		ck, err := NewChecker(r, Options{Precision: numeric.MustParsePrecision("fp16"), Weighting: tc.w, MaxN: tc.to,
			Cases: 8, Seed: 1, Exhaustive: 256, Analysis: true, Params: tc.params})
		if err != nil {
			t.Fatal(err)
		}
		ev := ck.Every(1, tc.to, 0)
		if ev.Certified != tc.to || (ev.Restarts > 0) != tc.restarted || !tc.restarted && ev.Carried == 0 {
			t.Errorf("%s: %+v; want every length to %d, restarted %v, and carried conclusions where not", tc.recipe, ev, tc.to, tc.restarted)
		}
	}
}

// TestEveryBudgetCountsTheChecker: the budget of every length bounds the
// analysis's work and its checker's together (the checker's is often the
// larger share, and what a budget is for is the time). With the
// analysis's total work as the budget, the proof of every length must
// stop before the end, since the checker's work counts too; with the
// sum of both plus one, it must reach the end.
func TestEveryBudgetCountsTheChecker(t *testing.T) {
	r, err := recipes.Get("lookup")
	if err != nil {
		t.Fatal(err)
	}
	newChecker := func() *Checker {
		ck, err := NewChecker(r, Options{Precision: numeric.MustParsePrecision("fp16"), Weighting: model.AverageHardmax, MaxN: 40,
			Cases: 8, Seed: 1, Exhaustive: 256, Analysis: true})
		if err != nil {
			t.Fatal(err)
		}
		return ck
	}
	all := newChecker().Every(1, 40, 0)
	if all.Certified != 40 || all.CheckWork == 0 {
		t.Fatalf("unbounded: %+v; want every length to 40, with the checker's work", all)
	}
	if ev := newChecker().Every(1, 40, all.Work); ev.Certified >= 40 {
		t.Errorf("budget = the analysis's work %d: every length proved (%+v), the checker's %d not counted", all.Work, ev, all.CheckWork)
	}
	if ev := newChecker().Every(1, 40, all.Work+all.CheckWork+1); ev.Certified != 40 {
		t.Errorf("budget = both works + 1: %+v, want every length to 40", ev)
	}
}
