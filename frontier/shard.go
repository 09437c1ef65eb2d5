package frontier

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/transformer-cookbook/verify/check"
	"github.com/transformer-cookbook/verify/diagnose"
	"github.com/transformer-cookbook/verify/internal/limits"
	"github.com/transformer-cookbook/verify/internal/plural"
	"github.com/transformer-cookbook/verify/numeric"
	"github.com/transformer-cookbook/verify/recipes"
)

// runPhase1 runs the units of the sweep's lengths the plan gives shard
// opts.Shard, each precision's in increasing length (so that a length
// past one whose analysis ran out of its budget skips it, as a whole
// sweep does), and keeps their parts in the rows.
func runPhase1(opts Options, rep *Report, checkers []*check.Checker, lengths [][]int) {
	units := phase1Units(checkers, lengths, opts.Shards)
	loads := map[int]float64{}
	if opts.Loads != nil {
		loads = opts.Loads
	}
	owner := assign(units, opts.Shards, loads)
	mine := make([][]unit, len(checkers))
	planned := 0
	for k, u := range units {
		if owner[k] == opts.Shard {
			mine[u.row] = append(mine[u.row], u)
			planned++
		}
	}
	s := &sweeper{opts: opts, planned: planned}
	working := slices.Clone(rep.Rows)
	finished := s.run(len(checkers), func(k int) {
		ck, row := checkers[k], &working[k]
		if ck == nil {
			return
		}
		slices.SortFunc(mine[k], func(a, b unit) int { return cmp.Or(cmp.Compare(a.n, b.n), cmp.Compare(a.part, b.part)) })
		for _, u := range mine[k] {
			if !s.part(ck, row, u) {
				break
			}
		}
	})
	rep.Rows = working
	if !finished {
		rep.Rows = s.snapshot(working)
	}
	rep.Interrupted = !finished
}

// part checks one unit into row, and reports whether the row goes on:
// not when the sweep was stopped, nor where the unit's drawn inputs show
// the precision cannot run the construction (whatever the other shards
// find, the merge stops the row there or below, so its longer lengths
// would be checked for nothing).
func (s *sweeper) part(ck *check.Checker, row *Row, u unit) bool {
	if s.stopped() {
		return false
	}
	p, err := ck.Part(u.n, u.part, u.parts)
	if err != nil {
		// The plan asked for parts of a sampled length: a bug.
		s.commit(func() { row.Error, row.Parts = "the plan is wrong: "+err.Error(), nil })
		return false
	}
	if !s.commit(func() {
		s.done++
		row.Parts = append(row.Parts, p)
		if s.opts.Progress != nil {
			s.opts.Progress(s.done, s.planned, row.Precision, u.n)
		}
	}) {
		return false
	}
	if p.Exhaustive() {
		return true
	}
	drawn := p.Report
	if p.Drawn != nil {
		drawn = *p.Drawn
	}
	return cannotRun(drawn, ck.Runner.Precision()) == ""
}

// composed is phase 1 of a sweep put together: the report with every
// length checked (Rows' Checked, as a whole sweep has them before it
// bisects), and what phase 2 needs besides.
type composed struct {
	rep *Report
	// over[k] is row k's shortest length whose analysis ran out of its
	// budget (0: none); inputs[k][n] the input of length n's failure
	// where the analysis suggested it.
	over   []int
	inputs []map[int][]int
	// digest identifies the result, for the phase-2 shards to name.
	digest string
}

// shardOf reads a report's "K/N".
func shardOf(rep *Report) (k, n int, ok bool) {
	if _, err := fmt.Sscanf(rep.Shard, "%d/%d", &k, &n); err != nil || n < 1 || k < 1 || k > n || fmt.Sprintf("%d/%d", k, n) != rep.Shard {
		return 0, 0, false
	}
	return k, n, true
}

// complete checks that the reports are the shards 1/N … N/N of one phase,
// once each, of one sweep, in any order.
func complete(reports []*Report, phase int) error {
	_, of, ok := shardOf(reports[0])
	if !ok {
		return fmt.Errorf("phase %d: shard %q is not K/N", phase, reports[0].Shard)
	}
	have := map[int]bool{}
	for _, r := range reports {
		k, n, ok := shardOf(r)
		if !ok || n != of {
			return fmt.Errorf("phase %d: shard %q is not one of 1/%d … %d/%d", phase, r.Shard, of, of, of)
		}
		if have[k] {
			return fmt.Errorf("phase %d: shard %d/%d appears twice", phase, k, of)
		}
		have[k] = true
		if err := sameSweep(reports[0], r); err != nil {
			return fmt.Errorf("phase %d, shard %s: %w", phase, r.Shard, err)
		}
	}
	if len(reports) != of {
		// The first few missing shards lie among the first len(reports)
		// + 4 numbers: however large N, the list costs no more.
		var missing []string
		for k := 1; k <= of && len(missing) < 4; k++ {
			if !have[k] {
				missing = append(missing, fmt.Sprintf("%d/%d", k, of))
			}
		}
		return fmt.Errorf("phase %d: %s for %s: %s %s missing", phase, plural.Of(len(reports), "report"), plural.Of(of, "shard"),
			plural.Noun(of-len(reports), "shard"), joinMissing(missing, of-len(reports)))
	}
	return nil
}

// joinMissing lists the first missing shards, and how many there are in
// all when that is more.
func joinMissing(first []string, all int) string {
	if all > len(first) {
		return fmt.Sprintf("%s, … (%d)", strings.Join(first, ", "), all)
	}
	return strings.Join(first, ", ")
}

// compose puts the phase-1 shards of one sweep together: every length's
// parts into its report (check.ComposeLength), in increasing length, each
// knowing the shortest length below it whose analysis ran out of its
// budget, until a length shows that the precision cannot run the
// construction, as a whole sweep checks them.
func compose(shards []*Report) (*composed, error) {
	if err := complete(shards, 1); err != nil {
		return nil, err
	}
	first := shards[0]
	for _, s := range shards {
		if err := checkSeal(s); err != nil {
			return nil, fmt.Errorf("shard %s: %w", s.Shard, err)
		}
		if err := validShard(s); err != nil {
			return nil, fmt.Errorf("shard %s: %w", s.Shard, err)
		}
	}
	rc, err := recipes.Get(first.Recipe)
	if err != nil {
		return nil, err
	}
	out := *first
	out.Shard, out.Phase, out.Lengths, out.Interrupted, out.Checksum = "", 0, nil, false, ""
	out.Rows = make([]Row, len(first.Rows))
	c := &composed{rep: &out, over: make([]int, len(first.Rows)), inputs: make([]map[int][]int, len(first.Rows))}
	for k := range first.Rows {
		row := &out.Rows[k]
		row.Precision, row.Error, row.Decisions = first.Rows[k].Precision, first.Rows[k].Error, first.Rows[k].Decisions
		c.inputs[k] = map[int][]int{}
		if row.Error != "" {
			continue
		}
		p, err := numeric.ParsePrecision(row.Precision)
		if err != nil {
			return nil, fmt.Errorf("precision %q: %w", row.Precision, err)
		}
		var ck *check.Checker // built for the first length, to check them all by
		parts := map[int][]check.LengthPart{}
		for _, s := range shards {
			for _, pt := range s.Rows[k].Parts {
				parts[pt.N] = append(parts[pt.N], pt)
			}
		}
		lengths := sweepLengths(rc.Name, rc.MinN, first.Lengths, p, first.MaxN, first.Bisect)
		for n := range parts {
			if !slices.Contains(lengths, n) {
				return nil, fmt.Errorf("%s: a part of n = %d, which the sweep does not check", row.Precision, n)
			}
		}
		for _, n := range lengths {
			ps := parts[n]
			switch {
			case len(ps) == 0 && !slices.Contains(first.Lengths, n):
				// The predicted limit or the next length, which this
				// version of verify checks in phase 1.
				return nil, fmt.Errorf("%s: no shard checked n = %d, which this version of verify checks in phase 1 (the predicted limit and the length after it): the shards were written by another version; run them again with this one", row.Precision, n)
			case len(ps) == 0:
				return nil, fmt.Errorf("%s: no shard checked n = %d", row.Precision, n)
			}
			if err := check.ValidateParts(ps, first.MaxN); err != nil {
				return nil, fmt.Errorf("%s: %w", row.Precision, err)
			}
			if ck == nil {
				if ck, err = build(first, row.Precision, 0, limits.Memory()); err != nil {
					return nil, fmt.Errorf("%s: building the construction to check the shards against: %w", row.Precision, err)
				}
			}
			if err := rerun(ck, n, ps); err != nil {
				return nil, fmt.Errorf("%s: %w", row.Precision, err)
			}
			lr, over := check.ComposeLength(ps, c.over[k])
			if over && c.over[k] == 0 {
				c.over[k] = n
			}
			if !ps[0].Exhaustive() && lr.Failure != nil && ps[0].FailureInput != nil && lr.Failure == ps[0].Report.Failure {
				c.inputs[k][n] = ps[0].FailureInput
			}
			if row.add(lr, p); row.Error != "" {
				break
			}
			if err := sameOutputs(row.Checked); err != nil {
				return nil, fmt.Errorf("%s: %w", row.Precision, err)
			}
		}
	}
	// The digest covers the sweep's options too: phase-2 shards of
	// another sweep with the same rows are not these.
	b, err := json.Marshal(&out)
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(b)
	c.digest = "sha256:" + hex.EncodeToString(sum[:])
	return c, nil
}

// rerun checks the parts of length n against the construction: the
// number of inputs they cover (every input of an exhaustive length, the
// drawn inputs of a sampled one, and its suggested ones), and each
// failure they record, by running its input again: a failure is
// deterministic, so an edited input, output, reason or case shows. It
// runs one input per failing part, never the analysis (an input the
// analysis suggested is the part's failure_input).
func rerun(ck *check.Checker, n int, ps []check.LengthPart) error {
	total := ck.Work(n).Inputs
	for _, p := range ps {
		r := p.Report
		switch {
		case p.Exhaustive() && p.Of != total:
			return fmt.Errorf("n = %d: a part of %d inputs; the length has %d", n, p.Of, total)
		case !p.Exhaustive() && total > 0:
			return fmt.Errorf("n = %d: a sampled part; the length is checked exhaustively (%d inputs)", n, total)
		}
		drawn := ck.Drawn(n)
		if !p.Exhaustive() && r.Cases-r.Candidates != drawn {
			return fmt.Errorf("n = %d: %d cases, of which %d suggested by the analysis; the sweep draws %d", n, r.Cases, r.Candidates, drawn)
		}
		for _, lr := range []*check.LengthReport{&r, p.Drawn} {
			if lr == nil || lr.Failure == nil {
				continue
			}
			if err := rerunFailure(ck, n, lr.Failure, p, drawn); err != nil {
				return err
			}
		}
	}
	return nil
}

// rerunFailure runs the input of failure f of part p again and compares
// what it gives with f, field by field.
func rerunFailure(ck *check.Checker, n int, f *check.Failure, p check.LengthPart, drawn int) error {
	var in recipes.Case
	switch {
	case f.Found == "analysis" && p.FailureInput == nil:
		return fmt.Errorf("n = %d: a failure the analysis found, without its failure_input", n)
	case f.Found == "analysis" && (f.Case < drawn || f.Case >= p.Report.Cases):
		return fmt.Errorf("n = %d: failure.case = %d of an input the analysis suggested is outside [%d, %d)", n, f.Case, drawn, p.Report.Cases)
	case f.Found == "analysis":
		in = recipes.Case{Symbols: p.FailureInput}
	case f.Found == check.FoundPositionwise:
		// The position-wise analysis is deterministic (its seed is the
		// sweep's): the checker suggests the same input again.
		var ok bool
		if in, ok = ck.Input(n, f.Case); !ok || f.Case < drawn {
			return fmt.Errorf("n = %d: failure.case = %d is no input the position-wise analysis suggests", n, f.Case)
		}
	case f.Found != "":
		return fmt.Errorf("n = %d: failure.found = %.40q, want \"analysis\", %q or none", n, f.Found, check.FoundPositionwise)
	case !p.Exhaustive() && f.Case >= drawn:
		return fmt.Errorf("n = %d: failure.case = %d, but %d inputs are drawn", n, f.Case, drawn)
	default:
		var ok bool
		if in, ok = ck.Input(n, f.Case); !ok {
			return fmt.Errorf("n = %d: failure.case = %d is no input of the length", n, f.Case)
		}
	}
	got := ck.CaseFailure(in, f.Case)
	if got == nil {
		return fmt.Errorf("n = %d: failure.case = %d passes when run again", n, f.Case)
	}
	got.Found = f.Found
	if field := differingField(*got, *f); field != "" {
		return fmt.Errorf("n = %d: the failure's %s is not what its input gives when run again (case %d)", n, field, f.Case)
	}
	return nil
}

// differingField names the first field in which a and b differ, or "".
func differingField(a, b check.Failure) string {
	switch {
	case a.N != b.N:
		return "n"
	case a.Case != b.Case:
		return "case"
	case a.Input != b.Input:
		return "input"
	case a.Position != b.Position:
		return "position"
	case !slices.Equal(a.Expected, b.Expected):
		return "expected"
	case !slices.Equal(a.Actual, b.Actual):
		return "actual"
	case a.Reason != b.Reason:
		return "reason"
	case a.CannotRun != b.CannotRun || a.Irrational != b.Irrational || a.Undecided != b.Undecided:
		return "cannot_run, irrational or undecided"
	}
	return ""
}

// sameOutputs checks that the lengths give errors for as many output
// values each: every length with an input that ran and passed has one
// per value (a length whose inputs all failed to run may have none).
func sameOutputs(checked []check.LengthReport) error {
	outputs, at := -1, 0
	for _, lr := range checked {
		if lr.Passed == 0 {
			continue
		}
		if outputs >= 0 && len(lr.MaxError) != outputs {
			return fmt.Errorf("n = %d has %d max_error entries, n = %d has %d", lr.N, len(lr.MaxError), at, outputs)
		}
		outputs, at = len(lr.MaxError), lr.N
	}
	return nil
}

// Phase2Options say which shard of phase 2 to run, and how.
type Phase2Options struct {
	// Shard and Shards: this is shard Shard (from 0) of Shards.
	Shard, Shards int
	Workers       int
	// MemoryLimit refuses precisions whose check would need more memory
	// (check.Options.MemoryLimit).
	MemoryLimit uint64
	// Stop and Progress are as in Options.
	Stop     func() bool
	Progress func(done, planned int, precision string, n int)
}

// Phase2 runs shard opts.Shard of opts.Shards of phase 2 of sharded
// sweeps, given all the phase-1 shards of each (sweeps[r]: those of the
// r-th report of the command, in any order): for the precisions the plan
// gives this shard, the bisection between the last length that passed
// and the first failure (and between the decisions'), and the diagnosis
// of the first failure. The plan gives each precision to one shard,
// costliest first to the least loaded, by an estimate of its bisection's
// work. It returns a report per sweep, for Merge.
func Phase2(sweeps [][]*Report, opts Phase2Options) ([]*Report, error) {
	if opts.Shards == 0 {
		opts.Shards = 1
	}
	if opts.Shard < 0 || opts.Shard >= opts.Shards {
		return nil, fmt.Errorf("shard %d of %d: want 0 ≤ K < N", opts.Shard, opts.Shards)
	}
	comps := make([]*composed, len(sweeps))
	var units []unit
	for r, shards := range sweeps {
		if len(shards) == 0 {
			return nil, fmt.Errorf("report %d: no phase-1 shard", r+1)
		}
		c, err := compose(shards)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", shards[0].Recipe, err)
		}
		comps[r] = c
		for k := range c.rep.Rows {
			units = append(units, unit{row: len(units), cost: phase2Cost(c, k)})
		}
	}
	owner := assign(units, opts.Shards, map[int]float64{})
	out := make([]*Report, len(comps))
	type job struct{ r, k int }
	var jobs []job
	id := 0
	for r, c := range comps {
		rep := *c.rep
		rep.Shard, rep.Phase, rep.Phase1 = fmt.Sprintf("%d/%d", opts.Shard+1, opts.Shards), 2, c.digest
		rep.Rows = make([]Row, len(c.rep.Rows))
		for k := range rep.Rows {
			rep.Rows[k].Precision = c.rep.Rows[k].Precision
			if owner[id] == opts.Shard {
				rep.Rows[k].Mine = true
				jobs = append(jobs, job{r, k})
			}
			id++
		}
		out[r] = &rep
	}
	s := &sweeper{opts: Options{Stop: opts.Stop, Progress: opts.Progress}}
	var mu sync.Mutex
	var firstErr error
	// Each job works on a row of its own and publishes it whole (commit),
	// so that a stopped phase 2 returns the rows finished before.
	finished := s.run(len(jobs), func(j int) {
		r, k := jobs[j].r, jobs[j].k
		row := out[r].Rows[k]
		err := phase2Row(comps[r], k, &row, s, opts)
		s.commit(func() { out[r].Rows[k] = row })
		if err != nil {
			mu.Lock()
			if firstErr == nil {
				firstErr = fmt.Errorf("%s, %s: %w", comps[r].rep.Recipe, comps[r].rep.Rows[k].Precision, err)
			}
			mu.Unlock()
		}
	})
	mu.Lock()
	err := firstErr
	mu.Unlock()
	if err != nil {
		return nil, err
	}
	if !finished {
		// Copies, under the sweeper's lock: a job still running
		// publishes nothing now, but reads the reports it was given.
		stopped := make([]*Report, len(out))
		for r, rep := range out {
			cp := *rep
			cp.Rows = s.snapshot(rep.Rows)
			cp.Interrupted = true
			Seal(&cp)
			stopped[r] = &cp
		}
		return stopped, nil
	}
	for _, rep := range out {
		Seal(rep)
	}
	return out, nil
}

// phase2Cost estimates the work of row k's phase 2: a bisection step per
// halving of its gap (and of its decisions'), each a length near the
// gap's top, and the diagnosis, a run of one input.
func phase2Cost(c *composed, k int) float64 {
	row := c.rep.Rows[k]
	if row.Error != "" {
		return 0
	}
	p, err := numeric.ParsePrecision(row.Precision)
	if err != nil {
		return 0
	}
	cost := 0.0
	minN := 1
	if r, err := recipes.Get(c.rep.Recipe); err == nil {
		minN = max(1, r.MinN)
	}
	for _, b := range [][2]int{pair(bracket(row.Checked, minN)), pair(decisionBracket(row.Checked, minN))} {
		lo, hi := b[0], b[1]
		if hi == 0 {
			continue
		}
		steps := 0
		for gap := hi - lo; gap > 1; gap = (gap + 1) / 2 {
			steps++
		}
		if !c.rep.Bisect {
			steps = 0
		}
		// A step: the inputs of a length near hi and its analysis,
		// some 64 inputs' worth; then the diagnosis, one input.
		cost += float64(float64(steps*66+1) * check.Estimate(p, hi))
	}
	return cost
}

func pair(a, b int) [2]int { return [2]int{a, b} }

// phase2Row runs row k's phase 2 into the phase-2 report's row out.
func phase2Row(c *composed, k int, out *Row, s *sweeper, opts Phase2Options) error {
	src := c.rep.Rows[k]
	if src.Error != "" {
		return nil
	}
	row := Row{Precision: src.Precision, Decisions: src.Decisions, Checked: slices.Clone(src.Checked)}
	minN := 1
	r, err := recipes.Get(c.rep.Recipe)
	if err != nil {
		return err
	}
	minN = max(1, r.MinN)
	lo, hi := bracket(row.Checked, minN)
	dlo, dhi := decisionBracket(row.Checked, minN)
	bisects := c.rep.Bisect && (hi > 0 && hi-lo > 1 || len(row.Decisions) > 0 && dhi > 0 && dhi-dlo > 1)
	row.summarise()
	every := c.rep.Analysis && !c.rep.NoEvery && row.Limit > 0
	if !bisects && row.Failure == nil && !every {
		return nil
	}
	ck, err := build(c.rep, row.Precision, opts.Workers, opts.MemoryLimit)
	if err != nil {
		return err
	}
	ck.SkipAnalysisAbove(c.over[k])
	before := map[int]bool{}
	for _, lr := range row.Checked {
		before[lr.N] = true
	}
	if bisects {
		s.bisect(ck, &row)
	}
	s.every(ck, &row, c.rep)
	out.EveryLength = row.EveryLength
	if row.Error != "" {
		out.Error = row.Error
		return nil
	}
	for _, lr := range row.Checked {
		if !before[lr.N] {
			out.Bisected = append(out.Bisected, lr)
		}
	}
	row.summarise()
	if f := row.Failure; f != nil {
		if err := explain(ck, f, c.inputs[k][f.N]); err != nil {
			f.Cause = &diagnose.Cause{Kind: diagnose.KindUnknown, Detail: "the diagnosis could not run: " + err.Error()}
		}
		out.Failure = f
	}
	return nil
}

// build makes the checker of one precision of a sweep from its report.
func build(rep *Report, precision string, workers int, memoryLimit uint64) (*check.Checker, error) {
	rc, err := recipes.Get(rep.Recipe)
	if err != nil {
		return nil, err
	}
	w := rc.DefaultWeighting()
	if rep.Weighting != "no attention" {
		if w, err = recipes.ParseWeighting(rep.Weighting); err != nil {
			return nil, err
		}
	}
	p, err := numeric.ParsePrecision(precision)
	if err != nil {
		return nil, err
	}
	return check.NewChecker(rc, check.Options{Precision: p, Weighting: w, MaxN: rep.MaxN,
		Params: rep.Params, Cases: rep.Cases, Exhaustive: rep.Exhaustive, Seed: rep.Seed, Workers: workers,
		MemoryLimit: memoryLimit, Analysis: rep.Analysis, AnalysisBudget: rep.AnalysisBudget})
}

// apply completes the composed phase 1 with the phase-2 shards: each
// row's bisected lengths, or the error that stopped it, and its first
// failure's cause; then the prediction. The result is the report of a
// whole sweep.
func apply(c *composed, phase2 []*Report) (*Report, error) {
	if err := complete(phase2, 2); err != nil {
		return nil, err
	}
	if err := continuePhase1(c, phase2); err != nil {
		return nil, err
	}
	out := *c.rep
	out.Rows = make([]Row, len(c.rep.Rows))
	for k := range out.Rows {
		m, err := rowShard(phase2, k)
		if err != nil {
			return nil, err
		}
		src := c.rep.Rows[k]
		if m == nil {
			return nil, fmt.Errorf("phase 2: no shard did %s", src.Precision)
		}
		if out.Rows[k], err = applyRow(c, &out, src, m); err != nil {
			return nil, err
		}
	}
	return &out, nil
}

// continuePhase1 checks that every phase-2 shard is sealed, whole, and
// continues these phase-1 results.
func continuePhase1(c *composed, phase2 []*Report) error {
	for _, p := range phase2 {
		if err := checkSeal(p); err != nil {
			return fmt.Errorf("phase 2, shard %s: %w", p.Shard, err)
		}
		switch {
		case p.Phase1 != c.digest:
			return fmt.Errorf("phase 2, shard %s continues other phase-1 results than these (%.19s…, not %.19s…): run phase 2 again from these", p.Shard, p.Phase1, c.digest)
		case p.Interrupted:
			return fmt.Errorf("phase 2, shard %s was interrupted: run it again", p.Shard)
		}
	}
	return nil
}

// rowShard is row k of the one phase-2 shard that did it (nil: none),
// refusing a shard that holds results for a row it did not do.
func rowShard(phase2 []*Report, k int) (*Row, error) {
	var m *Row
	for _, p := range phase2 {
		pr := &p.Rows[k]
		if !pr.Mine {
			if pr.Error != "" || pr.Failure != nil || len(pr.Bisected) > 0 || len(pr.Checked) > 0 || len(pr.Parts) > 0 || pr.EveryLength != nil {
				return nil, fmt.Errorf("phase 2, shard %s: %s holds results, but is not the shard's", p.Shard, pr.Precision)
			}
			continue
		}
		if m != nil {
			return nil, fmt.Errorf("phase 2: %s is in two shards", pr.Precision)
		}
		m = pr
	}
	return m, nil
}

// applyRow is phase 1's row src completed with m, the phase-2 shard's
// row of the same precision, and predicted into out.
func applyRow(c *composed, out *Report, src Row, m *Row) (Row, error) {
	row := Row{Precision: src.Precision, Error: src.Error, Decisions: src.Decisions, Checked: slices.Clone(src.Checked)}
	switch {
	case src.Error != "" && (m.Error != "" || m.Failure != nil || len(m.Bisected) > 0):
		return Row{}, fmt.Errorf("phase 2: %s cannot run, but phase 2 has results for it", src.Precision)
	case m.Error != "":
		row.Error, row.Checked = m.Error, nil
	}
	if row.Error != "" {
		return row, nil
	}
	if err := checkBisected(row.Checked, m.Bisected, c.rep.MaxN); err != nil {
		return Row{}, fmt.Errorf("phase 2: %s: %w", src.Precision, err)
	}
	row.Checked = append(row.Checked, m.Bisected...)
	sortChecked(row.Checked)
	if ev := m.EveryLength; ev != nil {
		if ev.From < 1 || ev.To > c.rep.MaxN || ev.Certified < ev.From-1 || ev.Certified > ev.To {
			return Row{}, fmt.Errorf("phase 2: %s: the analysis of every length covers [%d, %d] up to %d, which is not a range of lengths", src.Precision, ev.From, ev.To, ev.Certified)
		}
		row.EveryLength = ev
	}
	row.summarise()
	switch f := row.Failure; {
	case (f == nil) != (m.Failure == nil):
		return Row{}, fmt.Errorf("phase 2: %s: the first failure does not match the lengths'", src.Precision)
	case f != nil && (f.N != m.Failure.N || f.Case != m.Failure.Case || f.Position != m.Failure.Position):
		return Row{}, fmt.Errorf("phase 2: %s: the first failure (n = %d, case %d) is not the lengths' (n = %d, case %d)", src.Precision, m.Failure.N, m.Failure.Case, f.N, f.Case)
	case f != nil:
		f.Cause = m.Failure.Cause
	}
	row.predict(out)
	return row, nil
}

// checkBisected checks that the bisected lengths are valid reports, in
// increasing order, of lengths phase 1 did not check.
func checkBisected(checked, bisected []check.LengthReport, maxN int) error {
	have := map[int]bool{}
	for _, lr := range checked {
		have[lr.N] = true
	}
	for j, lr := range bisected {
		if err := lr.Validate(maxN); err != nil {
			return err
		}
		if have[lr.N] || j > 0 && lr.N <= bisected[j-1].N {
			return fmt.Errorf("bisected n = %d twice, or out of order", lr.N)
		}
	}
	return nil
}
