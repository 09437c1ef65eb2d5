package frontier

import (
	"fmt"
	"maps"
	"slices"

	"github.com/transformer-cookbook/verify/check"
	"github.com/transformer-cookbook/verify/internal/plural"
	"github.com/transformer-cookbook/verify/numeric"
	"github.com/transformer-cookbook/verify/recipes"
)

// Merge combines the reports of the shards of one sweep (each run with
// --shard K/N, for every K of the same N, and otherwise the same
// options) into the report of the whole: byte for byte the report of one
// unsharded run with the same options. The shards check the geometric
// lengths; Merge itself runs the bisection (on every input of the few
// lengths it checks) and re-runs each first failure for its diagnosis.
func Merge(shards []*Report) (*Report, error) {
	if len(shards) == 0 {
		return nil, fmt.Errorf("nothing to merge")
	}
	first := shards[0]
	var of int
	if _, err := fmt.Sscanf(first.Shard, "%d/%d", new(int), &of); err != nil || first.Shard == "" {
		return nil, fmt.Errorf("report 1 is not a shard (no \"shard\": \"K/N\")")
	}
	if len(shards) != of {
		return nil, fmt.Errorf("%s for %s", plural.Of(len(shards), "report"), plural.Of(of, "shard"))
	}
	have := map[int]bool{}
	for k, s := range shards {
		var i, n int
		if _, err := fmt.Sscanf(s.Shard, "%d/%d", &i, &n); err != nil || n != of || i < 1 || i > of {
			return nil, fmt.Errorf("report %d: shard %q is not one of 1/%d … %d/%d", k+1, s.Shard, of, of, of)
		}
		if have[i] {
			return nil, fmt.Errorf("report %d: shard %d/%d appears twice", k+1, i, of)
		}
		have[i] = true
		if err := validShard(s); err != nil {
			return nil, fmt.Errorf("report %d (shard %s): %v", k+1, s.Shard, err)
		}
		if err := sameSweep(first, s); err != nil {
			return nil, fmt.Errorf("report %d (shard %s): %v", k+1, s.Shard, err)
		}
	}
	out := *first
	out.Shard, out.Rows = "", make([]Row, len(first.Rows))
	for r := range first.Rows {
		row := Row{Precision: first.Rows[r].Precision, Error: first.Rows[r].Error, Decisions: first.Rows[r].Decisions}
		for l := range first.Rows[r].Checked {
			parts := make([]check.LengthReport, len(shards))
			for k, s := range shards {
				parts[k] = s.Rows[r].Checked[l]
			}
			row.Checked = append(row.Checked, check.MergeLength(parts))
		}
		out.Rows[r] = row
	}
	rc, err := recipes.Get(out.Recipe)
	if err != nil {
		return nil, err
	}
	w := rc.DefaultWeighting()
	if out.Weighting != "no attention" {
		if w, err = recipes.ParseWeighting(out.Weighting); err != nil {
			return nil, err
		}
	}
	build := func(precision string) (*check.Checker, error) {
		p, err := numeric.ParsePrecision(precision)
		if err != nil {
			return nil, err
		}
		return check.NewChecker(rc, check.Options{Precision: p, Weighting: w, MaxN: out.MaxN,
			Params: out.Params, Cases: out.Cases, Exhaustive: out.Exhaustive, Seed: out.Seed,
			Analysis: out.Analysis, AnalysisBudget: out.AnalysisBudget})
	}
	// The shards could not bisect (each saw a part of the inputs): the
	// merge does, on every input of the lengths between the last pass and
	// the first failure, as one unsharded run would have.
	checkers := map[string]*check.Checker{}
	if out.Bisect {
		s := &sweeper{opts: Options{Shards: 1}}
		for k := range out.Rows {
			row := &out.Rows[k]
			if row.Error != "" {
				continue
			}
			ck, err := build(row.Precision)
			if err != nil {
				return nil, err
			}
			checkers[row.Precision] = ck
			s.bisect(ck, row)
		}
	}
	finish(&out, build, checkers)
	return &out, nil
}

// validShard reports the first way a shard contradicts itself: it was
// interrupted, a count or bound is out of range, a length's figures
// disagree with each other (check.LengthReport.Validate), the lengths
// are not increasing, or a row's limit, first failure or decision limit
// is not what its lengths give. Merge sums the lengths' counts and
// recomputes the rest, so a shard edited by hand (or written by a bug)
// must not reach it.
func validShard(s *Report) error {
	switch {
	case s.Interrupted:
		return fmt.Errorf("the shard was interrupted: it holds only the lengths checked before; run it again")
	case s.MaxN < 1:
		return fmt.Errorf("max_n = %d, want at least 1", s.MaxN)
	case s.Cases < 1:
		return fmt.Errorf("cases = %d, want at least 1", s.Cases)
	case s.Exhaustive < 0:
		return fmt.Errorf("exhaustive = %d is negative", s.Exhaustive)
	}
	for _, row := range s.Rows {
		if row.Error != "" && len(row.Checked) > 0 {
			return fmt.Errorf("%s: an error and %d checked lengths", row.Precision, len(row.Checked))
		}
		outputs := -1
		for k, lr := range row.Checked {
			if err := lr.Validate(s.MaxN); err != nil {
				return fmt.Errorf("%s: %v", row.Precision, err)
			}
			if k > 0 && lr.N <= row.Checked[k-1].N {
				return fmt.Errorf("%s: the lengths are not increasing (%d after %d)", row.Precision, lr.N, row.Checked[k-1].N)
			}
			if lr.Cases == 0 {
				continue // a shard may draw no input of a long length
			}
			if outputs >= 0 && len(lr.MaxError) != outputs {
				return fmt.Errorf("%s: n = %d has %d max_error entries, n = %d has %d", row.Precision, lr.N, len(lr.MaxError), row.Checked[0].N, outputs)
			}
			outputs = len(lr.MaxError)
		}
		again := row
		again.summarise()
		switch {
		case again.Limit != row.Limit:
			return fmt.Errorf("%s: limit %d, but its lengths give %d", row.Precision, row.Limit, again.Limit)
		case (again.Failure == nil) != (row.Failure == nil):
			return fmt.Errorf("%s: the first failure does not match its lengths'", row.Precision)
		case again.Failure != nil && (again.Failure.N != row.Failure.N || again.Failure.Case != row.Failure.Case || again.Failure.Position != row.Failure.Position):
			return fmt.Errorf("%s: the first failure (n = %d, case %d) is not its lengths' (n = %d, case %d)", row.Precision, row.Failure.N, row.Failure.Case, again.Failure.N, again.Failure.Case)
		case again.DecisionLimit != row.DecisionLimit:
			return fmt.Errorf("%s: decision_limit %d, but its lengths give %d", row.Precision, row.DecisionLimit, again.DecisionLimit)
		}
	}
	return nil
}

// sameSweep reports how b's sweep differs from a's, if it does.
func sameSweep(a, b *Report) error {
	switch {
	case a.Recipe != b.Recipe:
		return fmt.Errorf("recipe %s, not %s", b.Recipe, a.Recipe)
	case a.Weighting != b.Weighting:
		return fmt.Errorf("weighting %s, not %s", b.Weighting, a.Weighting)
	case !maps.Equal(a.Params, b.Params):
		return fmt.Errorf("parameters %v, not %v", b.Params, a.Params)
	case a.MaxN != b.MaxN || a.Seed != b.Seed || a.Cases != b.Cases || a.Exhaustive != b.Exhaustive:
		return fmt.Errorf("max n, seed, cases or exhaustive differ (%d, %d, %d, %d; not %d, %d, %d, %d)",
			b.MaxN, b.Seed, b.Cases, b.Exhaustive, a.MaxN, a.Seed, a.Cases, a.Exhaustive)
	case len(a.Rows) != len(b.Rows):
		return fmt.Errorf("%s, not %d", plural.Of(len(b.Rows), "precision"), len(a.Rows))
	}
	for r := range a.Rows {
		ra, rb := a.Rows[r], b.Rows[r]
		if ra.Precision != rb.Precision {
			return fmt.Errorf("precision %d is %s, not %s", r+1, rb.Precision, ra.Precision)
		}
		la, lb := lengthsOf(ra), lengthsOf(rb)
		if !slices.Equal(la, lb) {
			return fmt.Errorf("%s: lengths %v, not %v", ra.Precision, lb, la)
		}
	}
	return nil
}

func lengthsOf(row Row) []int {
	var ns []int
	for _, lr := range row.Checked {
		ns = append(ns, lr.N)
	}
	return ns
}
