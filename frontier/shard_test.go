package frontier

import (
	"bytes"
	"cmp"
	"encoding/json"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/transformer-cookbook/verify/check"
	"github.com/transformer-cookbook/verify/numeric"
	"github.com/transformer-cookbook/verify/recipes"
)

// sharded runs the sweep of opts in n1 phase-1 shards and, unless n2 is
// 0, n2 phase-2 shards, each read back from its JSON as from a file.
func sharded(t *testing.T, opts Options, n1, n2 int) (p1, p2 []*Report) {
	t.Helper()
	for k := range n1 {
		o := opts
		o.Shard, o.Shards = k, n1
		rep, err := Run(o)
		if err != nil {
			t.Fatal(err)
		}
		if rep.Shard == "" || rep.Phase != 1 {
			t.Fatalf("shard %d/%d: shard %q, phase %d", k+1, n1, rep.Shard, rep.Phase)
		}
		p1 = append(p1, roundTrip(t, rep))
	}
	for k := range n2 {
		reps, err := Phase2([][]*Report{p1}, Phase2Options{Shard: k, Shards: n2})
		if err != nil {
			t.Fatal(err)
		}
		p2 = append(p2, roundTrip(t, reps[0]))
	}
	return p1, p2
}

// shardOpts is a small sweep of recipe name with the analysis on.
func shardOpts(t *testing.T, name string, maxN int, precisions ...string) Options {
	t.Helper()
	r, err := recipes.Get(name)
	if err != nil {
		t.Fatal(err)
	}
	var ps []numeric.Precision
	for _, p := range precisions {
		ps = append(ps, numeric.MustParsePrecision(p))
	}
	return Options{Recipe: r, Weighting: r.DefaultWeighting(), Precisions: ps, MaxN: maxN, Cases: 8, Exhaustive: 256, Seed: 1, Analysis: true}
}

// TestFrontierShardsMerge: the shards of both phases of a sweep, in any
// order, merge into the report of one unsharded run, byte for byte; and
// so do the phase-1 shards alone (the merge then runs phase 2). The
// sweeps take every path the composition has: failures (lookup in fp16
// and bf16, whose drawn inputs fail in one shard and pass in another,
// where the analysis must then not count), the predicted limit and the
// length after it checked in phase 1 (the lookup's: phase 2 then bisects
// nothing), a bisection (the multi-head lookup, which has no predicted
// limit), a bisection of a gap of two lengths (8 to 10, 10 to 12), a length
// past the first whose analysis ran out of its budget (so its shard's
// analysis must be undone), exhaustive lengths split between shards
// (dyck1 enumerated depth first), rows that cannot run (layer norm in
// fp32 and exact arithmetic), given lengths (no bisection), and no
// bisection at all.
func TestFrontierShardsMerge(t *testing.T) {
	budget := shardOpts(t, "lookup", 200, "fp32")
	budget.AnalysisBudget = 300000 // the lookup's analysis at n needs about 24n²
	noBisect := shardOpts(t, "lookup", 60, "fp16", "bf16")
	noBisect.NoBisect = true
	given := shardOpts(t, "lookup", 60, "fp16", "fp32")
	given.Lengths = []int{50, 3, 47, 12, 46}
	dyck := shardOpts(t, "dyck1", 10, "fp16", "fp32")
	dyck.Exhaustive = 1 << 10
	tests := []struct {
		name   string
		opts   Options
		n1, n2 int
		// check says the sweep took the path it is here for.
		check func(p1, p2 []*Report) bool
	}{
		{"lookup", shardOpts(t, "lookup", 60, "fp16", "bf16", "fp32"), 3, 2, func(p1, p2 []*Report) bool {
			// fp16's limit 45 and bf16's 16 (qmLimit) close their gaps
			// in phase 1.
			for _, s := range p2 {
				for _, row := range s.Rows {
					if len(row.Bisected) > 0 {
						return false
					}
				}
			}
			return hasPart(p1, 0, 45) && hasPart(p1, 0, 46) && hasPart(p1, 1, 16) && hasPart(p1, 1, 17)
		}},
		{"a bisection", shardOpts(t, "multihead", 60, "bf16"), 2, 2, func(_, p2 []*Report) bool {
			for _, s := range p2 {
				if len(s.Rows[0].Bisected) > 0 {
					return true
				}
			}
			return false
		}},
		{"a gap of two", shardOpts(t, "multihead", 24, "6", "7"), 2, 1, func(p1, p2 []*Report) bool {
			// The multi-head lookup's limit with a P-bit significand is
			// the lookup's ⌊√(2^P)⌋ (no prediction: the bisection finds
			// it): 8 at 6 bits and 11 at 7, so phase 1 leaves the gaps
			// (8, 10) and (10, 12), and phase 2 must still bisect each.
			for r := range p2[0].Rows {
				if len(p2[0].Rows[r].Bisected) == 0 {
					return false
				}
			}
			return hasPart(p1, 0, 10) && !hasPart(p1, 0, 9) && hasPart(p1, 1, 12) && !hasPart(p1, 1, 11)
		}},
		{"lookup, merge runs phase 2", shardOpts(t, "lookup", 60, "fp16", "bf16"), 4, 0, nil},
		{"no bisection", noBisect, 3, 1, nil},
		{"given lengths", given, 2, 2, nil},
		{"over budget", budget, 3, 2, func(p1, _ []*Report) bool {
			// A shard ran the analysis of a length that a shorter
			// length's budget skips.
			over := 0
			for _, s := range p1 {
				for _, p := range s.Rows[0].Parts {
					if p.OverBudget && (over == 0 || p.N < over) {
						over = p.N
					}
				}
			}
			for _, s := range p1 {
				for _, p := range s.Rows[0].Parts {
					if over > 0 && p.N > over && p.Drawn != nil && p.Report.Analysis != "the analysis ran out of its budget at n = "+itoa(over)+", below this length" {
						return true
					}
				}
			}
			return false
		}},
		{"exhaustive lengths in parts", dyck, 4, 2, func(p1, _ []*Report) bool {
			for _, s := range p1 {
				for _, p := range s.Rows[1].Parts {
					if p.Exhaustive() && p.To-p.From < p.Of {
						return true
					}
				}
			}
			return false
		}},
		{"rows that cannot run", shardOpts(t, "layernorm", 5, "fp32", "exact", "interval:64"), 3, 2, nil},
		// Position-wise recipes: a cell proved or run over one position
		// (exhaustive on sampled lengths), and failures the position-wise
		// analysis suggests, which the merge runs again.
		{"position-wise proved", shardOpts(t, "identity-ffn", 12, "fp8-e4m3", "fp16", "fp32"), 2, 1, nil},
		{"position-wise failures", shardOpts(t, "add", 12, "fp16", "fp32"), 2, 1, func(p1, _ []*Report) bool {
			for _, s := range p1 {
				for _, row := range s.Rows {
					for _, p := range row.Parts {
						if f := p.Report.Failure; f != nil && f.Found == check.FoundPositionwise {
							return true
						}
					}
				}
			}
			return false
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			whole, err := Run(tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			p1, p2 := sharded(t, tc.opts, tc.n1, tc.n2)
			if tc.check != nil && !tc.check(p1, p2) {
				t.Errorf("the shards do not take the path the case is for")
			}
			// The order of the files must not matter.
			all := slices.Concat(p2, p1)
			slices.Reverse(all[:len(all)/2+1])
			merged, err := Merge(all)
			if err != nil {
				t.Fatal(err)
			}
			if a, b := encode(t, whole), encode(t, merged); !bytes.Equal(a, b) {
				t.Errorf("merged shards differ from the whole run:\nwhole:  %s\nmerged: %s", a, b)
			}
		})
	}
}

// TestPhase2WithoutDecisions: phase 2 bisects a row's gap when its
// limit's gap is open, whatever its decisions say. The multi-head lookup
// at 6 bits leaves the gap (8, 10) after phase 1 (its limit is
// ⌊√(2^6)⌋ = 8, as the lookup's); its y is undecided where it fails, so
// the decisions' gap is the same one. With the decisions taken out of the
// phase-1 shards, as a recipe without truth-valued outputs writes them,
// only the limit's gap is left to open phase 2, which must still check 9.
func TestPhase2WithoutDecisions(t *testing.T) {
	p1, _ := sharded(t, shardOpts(t, "multihead", 24, "6"), 2, 0)
	for _, s := range p1 {
		if len(s.Rows[0].Decisions) == 0 {
			t.Fatal("the multi-head lookup's row has no decisions to take out")
		}
		s.Rows[0].Decisions = nil
		Seal(s)
	}
	if !hasPart(p1, 0, 10) || hasPart(p1, 0, 9) {
		t.Fatal("phase 1 does not leave the gap (8, 10)")
	}
	merged, err := Merge(p1)
	if err != nil {
		t.Fatal(err)
	}
	row := &merged.Rows[0]
	if row.Limit != 8 || row.Failure == nil || row.Failure.N != 9 {
		t.Errorf("limit %d, first failure %+v; want 8 and a failure at 9 (checked %s)", row.Limit, row.Failure, checkedText(row))
	}
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// hasPart says whether a phase-1 shard checked a part of length n of row
// row.
func hasPart(p1 []*Report, row, n int) bool {
	for _, s := range p1 {
		for _, p := range s.Rows[row].Parts {
			if p.N == n {
				return true
			}
		}
	}
	return false
}

// TestFrontierShardsRefused: shards of different sweeps, or not all of a
// phase's, do not merge.
func TestFrontierShardsRefused(t *testing.T) {
	opts := shardOpts(t, "lookup", 60, "fp16", "bf16")
	p1, p2 := sharded(t, opts, 3, 2)
	other := opts
	other.Seed = 2
	q1, q2 := sharded(t, other, 3, 2)
	seed := roundTrip(t, p1[1])
	seed.Seed++
	old := roundTrip(t, p1[0])
	old.Phase = 0
	for _, tc := range []struct {
		name   string
		shards []*Report
		want   string
	}{
		{"two of three", slices.Concat(p1[:2], p2), "shard 3/3 missing"},
		{"one of two phase-2 shards", slices.Concat(p1, p2[:1]), "shard 2/2 missing"},
		{"a shard twice", slices.Concat(p1, p1[:1], p2), "appears twice"},
		{"another seed", []*Report{p1[0], seed, p1[2]}, "seed"},
		{"phase 2 of another sweep", slices.Concat(p1, q2), "other phase-1 results"},
		{"phase 2 alone", q2, "no phase-1 shard"},
		{"an earlier version's shard", []*Report{old, p1[1], p1[2]}, "earlier version"},
		{"a whole report", []*Report{{Recipe: "lookup"}}, "not a shard"},
	} {
		if _, err := Merge(tc.shards); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error with %q", tc.name, err, tc.want)
		}
	}
	if _, err := Merge(slices.Concat(q1, q2)); err != nil {
		t.Errorf("the other sweep's own shards: %v", err)
	}
	// Shards from a version of verify that did not check fp16's predicted
	// limit (45) in phase 1 are named as such.
	var stale []*Report
	for _, s := range p1 {
		s = roundTrip(t, s)
		s.Rows[0].Parts = slices.DeleteFunc(s.Rows[0].Parts, func(p check.LengthPart) bool { return p.N == 45 })
		Seal(s)
		stale = append(stale, s)
	}
	if _, err := Merge(stale); err == nil || !strings.Contains(err.Error(), "fp16: no shard checked n = 45") || !strings.Contains(err.Error(), "another version") {
		t.Errorf("shards without the predicted limit: %v, want an error naming n = 45 and another version", err)
	}
}

// TestAssign: the plan's greedy rule, worked by hand. Units are given to
// the shard with the least of their row (ties: the least loaded, then
// the lowest index), costliest first. One row of costs 8 … 1 on 2
// shards: 8 → 0; 7 → 1; 6 → 1 (7 < 8); 5 → 0 (8 < 13); 4 → 0 (13 = 13,
// the loads tie too); 3 → 1 (13 < 17); 2 → 1 (16 < 17); 1 → 0 (17 <
// 18): 18 each. Two rows, A of one unit 9 and B of units 5 and 4: A9 →
// 0; B5 → 1 (B ties, 0 is loaded); B4 → 0, the shard with less of B,
// though it has more work: each row is spread over the shards, so that
// a row costing more than estimated weighs on all of them alike. Loads
// carried from an earlier plan count.
func TestAssign(t *testing.T) {
	var one []unit
	for c := 8; c >= 1; c-- {
		one = append(one, unit{row: 0, n: c, cost: float64(c)})
	}
	loads := map[int]float64{}
	if got, want := assign(one, 2, loads), []int{0, 1, 1, 0, 0, 1, 1, 0}; !slices.Equal(got, want) || loads[0] != 18 || loads[1] != 18 {
		t.Errorf("one row: %v (loads %v), want %v (18, 18)", got, loads, want)
	}
	two := []unit{{row: 1, n: 1, cost: 5}, {row: 0, n: 1, cost: 9}, {row: 1, n: 2, cost: 4}}
	if got, want := assign(two, 2, map[int]float64{}), []int{1, 0, 0}; !slices.Equal(got, want) {
		t.Errorf("two rows: %v, want %v", got, want)
	}
	if got := assign([]unit{{row: 0, cost: 3}}, 2, map[int]float64{0: 5}); got[0] != 1 {
		t.Errorf("a carried load: shard %d, want 1", got[0])
	}
}

// denseAssign is assign as first written, every shard a candidate for
// every unit: the reference the sparse one must agree with.
func denseAssign(units []unit, shards int, loads []float64) []int {
	order := make([]int, len(units))
	for k := range order {
		order[k] = k
	}
	slices.SortStableFunc(order, func(a, b int) int {
		ua, ub := units[a], units[b]
		if c := cmp.Compare(ub.cost, ua.cost); c != 0 {
			return c
		}
		return cmp.Or(cmp.Compare(ua.row, ub.row), cmp.Compare(ua.n, ub.n), cmp.Compare(ua.part, ub.part))
	})
	rowLoad := map[int][]float64{}
	out := make([]int, len(units))
	for _, k := range order {
		u := units[k]
		if rowLoad[u.row] == nil {
			rowLoad[u.row] = make([]float64, shards)
		}
		rl, best := rowLoad[u.row], 0
		for s := 1; s < shards; s++ {
			if c := cmp.Or(cmp.Compare(rl[s], rl[best]), cmp.Compare(loads[s], loads[best])); c < 0 {
				best = s
			}
		}
		out[k] = best
		rl[best] += u.cost
		loads[best] += u.cost
	}
	return out
}

// TestAssignSparse: the plan considers only the shards given work and
// the lowest one not given any, and must choose as the dense rule does,
// on random units (seed 3), carried loads and shard counts from 1 to
// more than the units; and a plan for 2^63 − 1 shards is made at once,
// one unit to each of the first shards.
func TestAssignSparse(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 0))
	for trial := range 300 {
		var units []unit
		for k := range 1 + rng.IntN(20) {
			units = append(units, unit{row: rng.IntN(3), n: k, cost: float64(rng.IntN(5))})
		}
		shards := 1 + rng.IntN(30)
		dense := make([]float64, shards)
		sparse := map[int]float64{}
		if rng.IntN(2) == 0 {
			s := rng.IntN(shards)
			dense[s], sparse[s] = 7, 7
		}
		if got, want := assign(units, shards, sparse), denseAssign(units, shards, dense); !slices.Equal(got, want) {
			t.Fatalf("trial %d, %d shards, units %v: %v, the dense rule %v", trial, shards, units, got, want)
		}
		for s, l := range sparse {
			if dense[s] != l {
				t.Fatalf("trial %d: load of shard %d %v, the dense rule %v", trial, s, l, dense[s])
			}
		}
	}
	units := []unit{{row: 0, n: 1, cost: 3}, {row: 0, n: 2, cost: 2}, {row: 1, n: 1, cost: 1}}
	if got, want := assign(units, math.MaxInt, map[int]float64{}), []int{0, 1, 2}; !slices.Equal(got, want) {
		t.Errorf("2^63 − 1 shards: %v, want %v", got, want)
	}
}

// TestPhase1Plan: every unit of a sweep is some shard's, every shard
// computes the same plan, and each shard's share of a row is at most its
// fair part plus the row's costliest unit (the bound of the greedy rule:
// a unit goes to a shard with no more of its row than the average so
// far).
func TestPhase1Plan(t *testing.T) {
	opts := shardOpts(t, "dyck1", 14, "fp16", "fp32", "53")
	opts.Exhaustive = 1 << 12
	var cks []*check.Checker
	for _, p := range opts.Precisions {
		ck, err := check.NewChecker(opts.Recipe, check.Options{Precision: p, Weighting: opts.Weighting, MaxN: opts.MaxN,
			Cases: opts.Cases, Exhaustive: opts.Exhaustive, Seed: opts.Seed, Analysis: true})
		if err != nil {
			t.Fatal(err)
		}
		cks = append(cks, ck)
	}
	lengths := check.DefaultLengths(1, opts.MaxN)
	const shards = 4
	rowLengths := make([][]int, len(cks))
	for k := range rowLengths {
		rowLengths[k] = lengths
	}
	units := phase1Units(cks, rowLengths, shards)
	owner := assign(units, shards, map[int]float64{})
	if again := assign(phase1Units(cks, rowLengths, shards), shards, map[int]float64{}); !slices.Equal(owner, again) {
		t.Fatal("two plans of one sweep differ")
	}
	split := false
	type key struct{ row, n int }
	parts := map[key][]bool{}
	for _, u := range units {
		if parts[key{u.row, u.n}] == nil {
			parts[key{u.row, u.n}] = make([]bool, u.parts)
		}
		parts[key{u.row, u.n}][u.part] = true
		split = split || u.parts > 1
	}
	for row := range cks {
		for _, n := range lengths {
			ps := parts[key{row, n}]
			if len(ps) == 0 || slices.Contains(ps, false) {
				t.Errorf("row %d, n = %d: parts %v", row, n, ps)
			}
		}
		total, most := 0.0, 0.0
		share := make([]float64, shards)
		for k, u := range units {
			if u.row == row {
				total += u.cost
				most = max(most, u.cost)
				share[owner[k]] += u.cost
			}
		}
		for s, c := range share {
			if c > total/shards+most+1e-9*total {
				t.Errorf("row %d: shard %d has %.3g of %.3g (bound %.3g)", row, s+1, c, total, total/shards+most)
			}
		}
	}
	if !split {
		t.Error("no exhaustive length was split")
	}
}

// TestMergeRefusesContradictions: a shard whose figures contradict each
// other (edited by hand, or written by a bug) is refused by name, where
// it would merge into a report that contradicts itself.
func TestMergeRefusesContradictions(t *testing.T) {
	opts := shardOpts(t, "lookup", 60, "fp16")
	p1, p2 := sharded(t, opts, 2, 1)
	if _, err := Merge(slices.Concat(p1, p2)); err != nil {
		t.Fatalf("the shards as written: %v", err)
	}
	parts := p1[1].Rows[0].Parts
	pass, fail := -1, -1 // a passing part with cases, and a failing one
	for k, p := range parts {
		if p.Report.Failure == nil && !p.Exhaustive() && pass < 0 {
			pass = k
		}
		if p.Report.Failure != nil && fail < 0 {
			fail = k
		}
	}
	if pass < 0 || fail < 0 {
		t.Fatalf("shard 2 has no passing or no failing part: %+v", parts)
	}
	for _, tc := range []struct {
		name string
		edit func(r *Report)
		want string
	}{
		{"passed 0", func(r *Report) { c := &r.Rows[0].Parts[pass].Report; c.Passed, c.Exact = 0, 0 }, "passed = 0 of"},
		{"max error 1/0", func(r *Report) { r.Rows[0].Parts[pass].Report.MaxError[0] = "1/0" }, `max_error[0] = "1/0"`},
		{"max error of 200,000 digits", func(r *Report) { r.Rows[0].Parts[pass].Report.MaxError[1] = strings.Repeat("9", 200000) }, "max_error[1] ="},
		{"negative max error", func(r *Report) { r.Rows[0].Parts[pass].Report.MaxError[0] = "-0.5" }, "max_error[0] ="},
		{"cases -5", func(r *Report) { r.Rows[0].Parts[pass].Report.Cases = -5 }, "cases = -5 is negative"},
		{"exact above passed", func(r *Report) { c := &r.Rows[0].Parts[fail].Report; c.Exact = c.Passed + 1 }, "exact ="},
		{"decided above cases", func(r *Report) { c := &r.Rows[0].Parts[pass].Report; c.Decided = c.Cases + 1 }, "decided ="},
		{"failure removed", func(r *Report) { r.Rows[0].Parts[fail].Report.Failure = nil }, "no failure is given"},
		{"failure at another length", func(r *Report) {
			f := *r.Rows[0].Parts[fail].Report.Failure
			f.N++
			r.Rows[0].Parts[fail].Report.Failure = &f
		}, "the failure is at n ="},
		{"failure past the input", func(r *Report) {
			f := *r.Rows[0].Parts[fail].Report.Failure
			f.Position = f.N + 1
			r.Rows[0].Parts[fail].Report.Failure = &f
		}, "failure.position"},
		{"unknown level", func(r *Report) { r.Rows[0].Parts[pass].Report.Level = "proved" }, `level "proved"`},
		{"a part of another length", func(r *Report) {
			p := &r.Rows[0].Parts[pass]
			p.N, p.Report.N = 9, 9
			if p.Drawn != nil {
				p.Drawn.N = 9
			}
		}, "a part of n = 9, which the sweep does not check"},
		{"a length twice", func(r *Report) { r.Rows[0].Parts = append(r.Rows[0].Parts, r.Rows[0].Parts[pass]) }, "a sampled length in 2 parts"},
		{"a length missing", func(r *Report) { r.Rows[0].Parts = slices.Delete(r.Rows[0].Parts, pass, pass+1) }, "no shard checked n ="},
		{"an exhaustive part twice", func(r *Report) {
			for _, p := range r.Rows[0].Parts {
				if p.Exhaustive() {
					r.Rows[0].Parts = append(r.Rows[0].Parts, p)
					return
				}
			}
		}, "do not cover inputs"},
		{"length past max n", func(r *Report) { r.Rows[0].Parts[pass].Report.N = 1000 }, "n = 1000 is outside [1, 60]"},
		{"a range past the inputs", func(r *Report) { p := &r.Rows[0].Parts[pass]; p.From, p.To, p.Of = 0, 9, 8 }, "is not a range of them"},
		{"interrupted", func(r *Report) { r.Interrupted = true }, "interrupted"},
		{"lengths out of order", func(r *Report) { l := r.Lengths; l[0], l[1] = l[1], l[0] }, "lengths"},
		{"a report in a phase-1 shard", func(r *Report) { r.Rows[0].Limit = 3 }, "holds parts of lengths, not a report"},
		{"a length of fewer outputs", func(r *Report) { r.Rows[0].Parts[pass].Report.MaxError = nil }, "max_error entries"},
		// A failure is run again: each of its fields is what its input
		// gives, and its case one of the length's inputs.
		{"failure case past every input", func(r *Report) { editFailure(r, fail, func(f *check.Failure) { f.Case = math.MaxInt64 }) }, "failure.case = 9223372036854775807"},
		{"failure case of a passing input", func(r *Report) { editFailure(r, fail, func(f *check.Failure) { f.Case = passingCase(t, r, fail) }) }, "passes when run again"},
		{"failure input edited", func(r *Report) { editFailure(r, fail, func(f *check.Failure) { f.Input += " 1:0" }) }, "failure's input is not what"},
		{"failure expected edited", func(r *Report) { editFailure(r, fail, func(f *check.Failure) { f.Expected[0] = "7" }) }, "failure's expected"},
		{"failure actual edited", func(r *Report) { editFailure(r, fail, func(f *check.Failure) { f.Actual[0] = "7" }) }, "failure's actual"},
		{"failure reason edited", func(r *Report) { editFailure(r, fail, func(f *check.Failure) { f.Reason = "fine" }) }, "failure's reason"},
		{"failure position edited", func(r *Report) { editFailure(r, fail, func(f *check.Failure) { f.Position = 1 + f.Position%f.N }) }, "failure's position"},
		{"failure marked undecided", func(r *Report) { editFailure(r, fail, func(f *check.Failure) { f.Undecided = true }) }, "undecided"},
		{"failure found by the analysis", func(r *Report) { editFailure(r, fail, func(f *check.Failure) { f.Found = "analysis" }) }, "without its failure_input"},
		{"analysis of NUL", func(r *Report) { r.Rows[0].Parts[pass].Report.Analysis = "\x00" }, "is not a line of text"},
		{"analysis of 2,000 bytes", func(r *Report) { r.Rows[0].Parts[pass].Report.Analysis = strings.Repeat("a", 2000) }, "is not a line of text"},
		{"cases of a failing length changed", func(r *Report) { c := &r.Rows[0].Parts[fail].Report; c.Cases, c.Decided = c.Cases+5, c.Decided+5 }, "the sweep draws"},
		{"a certified length with a case failed and no failure", func(r *Report) {
			c := &r.Rows[0].Parts[pass].Report
			c.Passed, c.Exact = c.Cases-1, min(c.Exact, c.Cases-1)
		}, "no failure is given"},
	} {
		edited := roundTrip(t, p1[1])
		tc.edit(edited)
		Seal(edited) // as a bug would write it, or a hand that seals its edit
		_, err := Merge([]*Report{p1[0], edited, p2[0]})
		// A length's parts are checked together, from every shard: a
		// contradiction between them is no one shard's.
		whose := "2/2"
		if strings.HasPrefix(tc.name, "a length") || strings.HasSuffix(tc.name, "twice") || strings.HasSuffix(tc.name, "another length") {
			// Each of these is a contradiction between lengths or parts.
			whose = "fp16"
		}
		if strings.HasPrefix(tc.name, "failure") || strings.HasPrefix(tc.name, "cases") {
			// Checked against the construction, per precision.
			whose = "fp16"
		}
		if err == nil || !strings.Contains(err.Error(), whose) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error naming %s and %q", tc.name, err, whose, tc.want)
		}
	}
	// Phase 2's: its failure must be the lengths', its bisected lengths
	// new and in order, and each row in one shard. The multi-head lookup
	// has no predicted limit, so phase 2 bisects its gap.
	p1, p2 = sharded(t, shardOpts(t, "multihead", 60, "bf16"), 2, 1)
	row := p2[0].Rows[0]
	if row.Failure == nil || len(row.Bisected) < 2 {
		t.Fatalf("phase 2 of bf16 has no failure or bisected fewer than 2 lengths: %+v", row)
	}
	for _, tc := range []struct {
		name string
		edit func(r *Report)
		want string
	}{
		{"another failure", func(r *Report) { r.Rows[0].Failure.Case++ }, "is not the lengths'"},
		{"bisected twice", func(r *Report) { b := r.Rows[0].Bisected; b[1] = b[0] }, "bisected n ="},
		{"a checked length bisected", func(r *Report) { r.Rows[0].Bisected[0].N = 1 }, "bisected n = 1"},
		{"not mine", func(r *Report) { r.Rows[0].Mine = false }, "is not the shard's"},
		{"nobody's", func(r *Report) { r.Rows[0] = Row{Precision: r.Rows[0].Precision} }, "no shard did bf16"},
		{"a bad bisected length", func(r *Report) { r.Rows[0].Bisected[0].Passed = -1 }, "passed = -1"},
	} {
		edited := roundTrip(t, p2[0])
		tc.edit(edited)
		Seal(edited)
		_, err := Merge([]*Report{p1[0], p1[1], edited})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("phase 2, %s: %v, want an error with %q", tc.name, err, tc.want)
		}
	}
}

// TestShardsValidate: the phase-1 shards the engine writes pass the
// validation, on recipes with failures, decisions, symbol outputs (whose
// failures expect a symbol and show its values, with no error to
// measure) and every evidence level.
func TestShardsValidate(t *testing.T) {
	for _, name := range []string{"dyck1", "first", "gtzero", "lookup", "induction-frequent-literal"} {
		r, err := recipes.Get(name)
		if err != nil {
			t.Fatal(err)
		}
		for k := 0; k < 3; k++ {
			ps := []numeric.Precision{numeric.MustParsePrecision("fp8-e4m3"), numeric.MustParsePrecision("bf16")}
			maxN := 24
			if strings.HasPrefix(name, "induction") {
				maxN = 6 // its inputs cost more
			}
			rep, err := Run(Options{Recipe: r, Precisions: ps, MaxN: maxN, Cases: 4, Exhaustive: 64, Seed: 3,
				Weighting: r.DefaultWeighting(), NoBisect: true, Shard: k, Shards: 3, Analysis: true})
			if err != nil {
				t.Fatal(err)
			}
			if err := validShard(roundTrip(t, rep)); err != nil {
				t.Errorf("%s, shard %d/3: %v", name, k+1, err)
			}
		}
	}
}

// editFailure edits a copy of the failure of part k of r's first row.
// TestMergeRefusesEditedShards: a shard changed after it was written,
// by one field anywhere, is refused by its checksum, even where the
// change contradicts nothing (the counts of a failing length, a note, a
// passing length's exact count: what compose cannot check without
// running the sweep again). fp8-e5m2 fails the lookup from n = 3 (216
// inputs, exhaustive), fp16 from n = 46 (sampled).
func TestMergeRefusesEditedShards(t *testing.T) {
	for _, prec := range []string{"fp8-e5m2", "fp16"} {
		p1, p2 := sharded(t, shardOpts(t, "lookup", 60, prec), 2, 1)
		all := slices.Concat(p1, p2)
		if _, err := Merge(all); err != nil {
			t.Fatalf("%s: the shards as written: %v", prec, err)
		}
		edits := 0
		for s := range p1 {
			for k, p := range p1[s].Rows[0].Parts {
				for _, tc := range []struct {
					name string
					edit func(c *check.LengthReport)
				}{
					{"decided", func(c *check.LengthReport) { c.Decided = otherCount(c.Decided, c.Cases) }},
					{"exact", func(c *check.LengthReport) { c.Exact = otherCount(c.Exact, c.Passed) }},
					{"analysis", func(c *check.LengthReport) { c.Analysis = "" }},
					{"max_error", func(c *check.LengthReport) { c.MaxError[0] = "1e-09" }},
				} {
					if p.Report.Failure == nil && tc.name != "exact" || tc.name == "analysis" && p.Report.Analysis == "" || tc.name == "exact" && p.Report.Passed == 0 {
						continue
					}
					edited := roundTrip(t, p1[s])
					tc.edit(&edited.Rows[0].Parts[k].Report)
					in := slices.Clone(all)
					in[s] = edited
					if _, err := Merge(in); err == nil || !strings.Contains(err.Error(), "checksum does not match") {
						t.Errorf("%s, shard %d, n = %d, %s edited: %v", prec, s+1, p.N, tc.name, err)
					}
					edits++
				}
			}
		}
		if edits < 8 {
			t.Errorf("%s: %d edits tried", prec, edits)
		}
		edited := roundTrip(t, p2[0])
		edited.Checksum = ""
		if _, err := Merge(slices.Concat(p1, []*Report{edited})); err == nil || !strings.Contains(err.Error(), "no checksum") {
			t.Errorf("%s: phase 2 without its checksum: %v", prec, err)
		}
	}
}

// otherCount is a count in [0, cases] other than c.
func otherCount(c, cases int) int {
	if c < cases {
		return c + 1
	}
	return c - 1
}

func editFailure(r *Report, k int, edit func(f *check.Failure)) {
	f := *r.Rows[0].Parts[k].Report.Failure
	f.Expected, f.Actual = slices.Clone(f.Expected), slices.Clone(f.Actual)
	edit(&f)
	r.Rows[0].Parts[k].Report.Failure = &f
}

// passingCase is an input of part k's length, other than its failure's,
// that passes: a failure moved to it must be refused.
func passingCase(t *testing.T, r *Report, k int) int {
	t.Helper()
	p := r.Rows[0].Parts[k]
	ck, err := build(r, r.Rows[0].Precision, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	for c := 0; c < p.Report.Cases; c++ {
		if in, ok := ck.Input(p.N, c); ok && c != p.Report.Failure.Case && ck.CaseFailure(in, c) == nil {
			return c
		}
	}
	t.Fatalf("n = %d: no input passes", p.N)
	return 0
}

// TestDifferingFieldCoversFailure: a merge compares every field of a
// failure it runs again; a field added to check.Failure and not to the
// comparison would let an edit of it through.
func TestDifferingFieldCoversFailure(t *testing.T) {
	base := check.Failure{N: 3, Case: 1, Input: "1:0 2:1 3:0", Position: 2, Expected: []string{"1"}, Actual: []string{"0"}, Reason: "r"}
	typ := reflect.TypeOf(base)
	for i := 0; i < typ.NumField(); i++ {
		name := typ.Field(i).Name
		if name == "Found" {
			continue // how the input was come by: the part says
		}
		edited := base
		v := reflect.ValueOf(&edited).Elem().Field(i)
		switch v.Kind() {
		case reflect.Int:
			v.SetInt(v.Int() + 1)
		case reflect.String:
			v.SetString(v.String() + "x")
		case reflect.Bool:
			v.SetBool(!v.Bool())
		case reflect.Slice:
			v.Set(reflect.ValueOf([]string{"other"}))
		default:
			t.Fatalf("field %s of kind %s: teach the test to change it", name, v.Kind())
		}
		if differingField(base, edited) == "" {
			t.Errorf("a failure edited in %s compares equal", name)
		}
	}
}
