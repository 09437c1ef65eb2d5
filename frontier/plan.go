package frontier

import (
	"cmp"
	"maps"
	"math"
	"slices"

	"github.com/transformer-cookbook/verify/check"
)

// A sharded sweep runs in two phases, each divided between its shards by
// a plan that every shard computes alike from what it reads (the sweep's
// options in phase 1, the phase-1 reports in phase 2), so that the shards
// need no coordination: phase 1 checks the sweep's lengths, phase 2
// bisects each precision's gap and diagnoses its first failure, and the
// merge only combines.
//
// The units of phase 1 are the lengths of each precision (sweepLengths: the
// theory's predicted limit and the length after it among them, so that where
// the theory is right phase 2 has no gap to bisect), an exhaustive length
// split into ranges of its inputs where it is large, and each is given to a
// shard by its estimated cost (check.Checker.Work: a length-n input costs
// about n² score terms). A sampled length is one unit: whether it needs the
// analysis depends on its drawn inputs, and the inputs the analysis suggests
// on the analysis. The units of phase 2 are the precisions: a bisection is a
// sequence of lengths each chosen after the last, which shards that do not
// communicate cannot split without checking every length the bisection might
// visit.

// unit is one piece of a plan: part part of parts of length n of row row
// (phase 1), or row row's bisection and diagnosis (phase 2, n = 0).
type unit struct {
	row, n      int
	part, parts int
	cost        float64
}

// assign gives each unit to one of shards, costliest first, to the shard
// whose share of the unit's row is least (ties: the least loaded overall,
// then the lowest index), and returns each unit's shard. Each shard gets
// about 1/shards of every row, so that a wrong guess of what one row costs
// against another (a precision whose drawn inputs fail skips the
// analysis; the estimate cannot know) unbalances no shard, and the rows'
// costliest units go to different shards. loads holds the shards' work
// planned so far (by earlier reports of the same command; a missing
// shard has none) and is updated. The order is total, so every shard
// computes the same plan.
//
// A shard no unit has gone to has no share and no load, so among those
// only the lowest index can be chosen: the candidates for each unit are
// the shards given work so far and the lowest one not given any, at most
// len(units) + 1 whatever the number of shards (a plan for 2^63 − 1
// shards costs what one for len(units) does).
func assign(units []unit, shards int, loads map[int]float64) []int {
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
	used := slices.Sorted(maps.Keys(loads)) // shards with work, increasing
	rowLoad := map[int]map[int]float64{}
	out := make([]int, len(units))
	for _, k := range order {
		u := units[k]
		rl := rowLoad[u.row]
		if rl == nil {
			rl = map[int]float64{}
			rowLoad[u.row] = rl
		}
		// The lowest shard not yet given work, if any is left.
		fresh := -1
		for i, s := range used {
			if s != i {
				fresh = i
				break
			}
		}
		if fresh < 0 && len(used) < shards {
			fresh = len(used)
		}
		best := fresh
		better := func(s int) bool {
			if best < 0 {
				return true
			}
			return cmp.Or(cmp.Compare(rl[s], rl[best]), cmp.Compare(loads[s], loads[best]), cmp.Compare(s, best)) < 0
		}
		for _, s := range used {
			if better(s) {
				best = s
			}
		}
		out[k] = best
		rl[best] += u.cost
		if _, ok := loads[best]; !ok {
			at, _ := slices.BinarySearch(used, best)
			used = slices.Insert(used, at, best)
		}
		loads[best] += u.cost
	}
	return out
}

// phase1Units lists the units of a sweep's lengths (lengths[row] at row
// row) at the precisions with a checker (nil: the row does not run). An
// exhaustive length is cut into parts of at most a quarter of a shard's
// share of the total, up to 4·shards parts (one per input at most), so
// that no part of it weighs on the balance more than the other units do.
func phase1Units(checkers []*check.Checker, lengths [][]int, shards int) []unit {
	type length struct {
		row, n int
		w      check.Work
	}
	var ls []length
	total := 0.0
	for row, ck := range checkers {
		if ck == nil {
			continue
		}
		for _, n := range lengths[row] {
			w := ck.Work(n)
			ls = append(ls, length{row, n, w})
			total += w.Cost
		}
	}
	var units []unit
	for _, l := range ls {
		parts := 1
		if l.w.Inputs > 1 && shards > 1 {
			target := total / float64(4*shards)
			parts = int(min(math.Ceil(l.w.Cost/target), float64(4*shards), float64(l.w.Inputs)))
			parts = max(parts, 1)
		}
		for part := range parts {
			units = append(units, unit{row: l.row, n: l.n, part: part, parts: parts, cost: l.w.Cost / float64(parts)})
		}
	}
	return units
}
