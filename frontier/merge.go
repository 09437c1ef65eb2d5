package frontier

import (
	"fmt"
	"maps"
	"slices"

	"github.com/transformer-cookbook/verify/check"
	"github.com/transformer-cookbook/verify/internal/limits"
	"github.com/transformer-cookbook/verify/internal/plural"
)

// Merge combines the reports of the shards of one sweep into the report
// of the whole: byte for byte the report of one unsharded run with the
// same options. It takes every phase-1 shard (each run with --shard K/N,
// for every K of the same N, and otherwise the same options) and every
// phase-2 shard (Phase2), in any order, and only combines them; given the
// phase-1 shards alone, it runs phase 2 itself, in one process.
func Merge(shards []*Report) (*Report, error) {
	if len(shards) == 0 {
		return nil, fmt.Errorf("nothing to merge")
	}
	var p1, p2 []*Report
	for k, s := range shards {
		switch {
		case s.Shard == "":
			return nil, fmt.Errorf("report %d is not a shard (no \"shard\": \"K/N\")", k+1)
		case s.Phase == 1:
			p1 = append(p1, s)
		case s.Phase == 2:
			p2 = append(p2, s)
		case s.Phase == 0:
			return nil, fmt.Errorf("report %d (shard %s) was written by an earlier version of verify, which divided a sweep by input index: run its shards again", k+1, s.Shard)
		default:
			return nil, fmt.Errorf("report %d (shard %s): phase %d is not 1 or 2", k+1, s.Shard, s.Phase)
		}
	}
	if len(p1) == 0 {
		return nil, fmt.Errorf("no phase-1 shard: merge needs them all, with the phase-2 shards")
	}
	c, err := compose(p1)
	if err != nil {
		return nil, err
	}
	if len(p2) == 0 {
		// No phase 2 was run: run it here, whole.
		if p2, err = Phase2([][]*Report{p1}, Phase2Options{MemoryLimit: limits.Memory()}); err != nil {
			return nil, err
		}
	}
	return apply(c, p2)
}

// validShard reports the first way a phase-1 shard contradicts itself:
// it was interrupted, a bound is out of range, a row holds what a
// phase-1 shard does not write, or a part contradicts itself
// (check.ValidateParts, check.LengthReport.Validate). compose sums the
// parts' counts and recomputes the rest, so a shard edited by hand (or
// written by a bug) must not reach it.
func validShard(s *Report) error {
	switch {
	case s.Interrupted:
		return fmt.Errorf("the shard was interrupted: it holds only the lengths checked before; run it again")
	case s.MaxN < 1 || s.MaxN > check.MaxLength:
		return fmt.Errorf("max_n = %d, want a length from 1 to %d", s.MaxN, check.MaxLength)
	case s.Cases < 1 || s.Cases > check.MaxCases:
		return fmt.Errorf("cases = %d, want 1 to %d", s.Cases, check.MaxCases)
	case s.Exhaustive < 0 || s.Exhaustive > check.MaxWork:
		return fmt.Errorf("exhaustive = %d, want 0 to %d", s.Exhaustive, check.MaxWork)
	case s.AnalysisBudget < 0 || s.AnalysisBudget > check.MaxWork:
		return fmt.Errorf("analysis_budget = %d, want 0 to %d", s.AnalysisBudget, check.MaxWork)
	case len(s.Lengths) == 0:
		return fmt.Errorf("no lengths: a phase-1 shard lists the sweep's")
	}
	for k, n := range s.Lengths {
		if n < 1 || n > s.MaxN || k > 0 && n <= s.Lengths[k-1] {
			return fmt.Errorf("lengths: %d is out of order or outside [1, %d]", n, s.MaxN)
		}
	}
	for _, row := range s.Rows {
		switch {
		case row.Error != "" && len(row.Parts) > 0:
			return fmt.Errorf("%s: an error and %s", row.Precision, plural.Of(len(row.Parts), "part"))
		case len(row.Checked) > 0 || row.Failure != nil || row.Limit != 0 || row.Mine || len(row.Bisected) > 0:
			return fmt.Errorf("%s: a phase-1 shard holds parts of lengths, not a report", row.Precision)
		}
		for _, p := range row.Parts {
			if err := p.Validate(s.MaxN); err != nil {
				return fmt.Errorf("%s: %w", row.Precision, err)
			}
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
	case a.Analysis != b.Analysis || a.AnalysisBudget != b.AnalysisBudget || a.Bisect != b.Bisect:
		return fmt.Errorf("the analysis, its budget or the bisection differ")
	case a.Section != b.Section || a.Model != b.Model || a.Reference != b.Reference:
		return fmt.Errorf("section, model or reference differ")
	case !slices.Equal(a.Lengths, b.Lengths):
		return fmt.Errorf("lengths %v, not %v", b.Lengths, a.Lengths)
	case a.Phase1 != b.Phase1:
		return fmt.Errorf("continues other phase-1 results (%.19s…, not %.19s…)", b.Phase1, a.Phase1)
	}
	for r := range a.Rows {
		ra, rb := a.Rows[r], b.Rows[r]
		if ra.Precision != rb.Precision {
			return fmt.Errorf("precision %d is %s, not %s", r+1, rb.Precision, ra.Precision)
		}
		if a.Phase == 1 && (ra.Error != rb.Error || !slices.Equal(ra.Decisions, rb.Decisions)) {
			return fmt.Errorf("%s: the error or the decisions differ", ra.Precision)
		}
	}
	return nil
}
