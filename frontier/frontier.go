package frontier

import (
	"errors"
	"fmt"
	"runtime"
	"slices"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/transformer-cookbook/verify/check"
	"github.com/transformer-cookbook/verify/diagnose"
	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/numeric"
	"github.com/transformer-cookbook/verify/recipes"
)

// DefaultPrecisions are the formats a frontier sweeps unless told
// otherwise: the IEEE and OCP formats from 8 to 64 bits, and big floats
// with float32's, float64's and binary128's significands.
var DefaultPrecisions = []string{"fp8-e4m3", "fp8-e5m2", "bf16", "fp16", "fp32", "fp64", "24", "53", "113"}

// Options say what to sweep.
type Options struct {
	Recipe     *recipes.Recipe
	Weighting  model.Weighting
	Params     map[string]string
	Precisions []numeric.Precision
	// MaxN is the largest length, and the N the construction is built
	// for.
	MaxN int
	// Cases, Exhaustive and Seed choose the inputs of each length as
	// check.Run does.
	Cases      int
	Exhaustive int
	Seed       uint64
	// Analysis and AnalysisBudget run the analysis of package certify at
	// every length whose inputs are not all run (check.Options); then the
	// analysis certifies every length up to each limit, within
	// EveryBudget (check.Options.EveryBudget), unless NoEvery.
	Analysis       bool
	AnalysisBudget int
	EveryBudget    int64
	NoEvery        bool
	// Lengths, when set, replaces the geometric sweep (no bisection).
	Lengths []int
	// NoBisect skips the bisection after the sweep.
	NoBisect bool
	// Shard and Shards make the run shard Shard (from 0) of Shards of
	// phase 1 of a sharded sweep (Shards 0: the whole sweep, unsharded):
	// it checks the units of the sweep's lengths a plan gives it
	// (plan.go) and reports their parts, for Phase2 and Merge.
	Shard, Shards int
	// Loads carries the work planned for each shard from one report's
	// plan to the next, for the recipes of one command (nil: this report
	// alone), so that their costliest units do not all fall to one shard:
	// by shard index, from 0; a shard missing has none.
	Loads   map[int]float64
	Workers int
	// MemoryLimit refuses precisions whose check would need more memory
	// (check.Options.MemoryLimit): Run then returns the error.
	MemoryLimit uint64
	// Stop, if set, is asked before every length; when it returns true
	// the sweep ends there and the report says it was interrupted.
	Stop func() bool
	// Progress, if set, is called after every checked length with the
	// number of lengths done and the number planned so far.
	Progress func(done, planned int, precision string, n int)
	// Model, when set, is a model from a file, checked in place of the
	// recipe's own against the recipe's reference (check.Options.Model);
	// ModelFile names it in the report.
	Model     *model.Model
	ModelFile string

	// unpredicted leaves the predicted limit out of the lengths
	// (sweepLengths), so that tests reach the bisection's own rules.
	unpredicted bool
}

// Run measures the frontier of opts.Recipe at every precision, or runs
// one shard of phase 1 of a sharded sweep (Options.Shards). The
// precisions run concurrently (as many at once as there are cores), each
// checking its lengths in order with the cases of a length spread over
// the cores too; the report lists them in the order given.
func Run(opts Options) (*Report, error) {
	r := opts.Recipe
	sharded := opts.Shards > 0
	if !sharded {
		opts.Shards = 1
	}
	if opts.Shard < 0 || opts.Shard >= opts.Shards {
		return nil, fmt.Errorf("shard %d of %d: want 0 ≤ K < N", opts.Shard, opts.Shards)
	}
	if opts.MaxN < max(1, r.MinN) {
		return nil, fmt.Errorf("%s: the maximum length must be at least %d, got %d", r.Name, max(1, r.MinN), opts.MaxN)
	}
	lengths := opts.Lengths
	if lengths == nil {
		lengths = check.DefaultLengths(r.MinN, opts.MaxN)
	}
	lengths = slices.Compact(slices.Sorted(slices.Values(lengths)))
	for _, n := range lengths {
		if n < max(1, r.MinN) || n > opts.MaxN {
			return nil, fmt.Errorf("%s: length %d outside [%d, %d]", r.Name, n, max(1, r.MinN), opts.MaxN)
		}
	}
	rep := &Report{Recipe: r.Name, Section: r.Section, Weighting: r.WeightingName(opts.Weighting),
		MaxN: opts.MaxN, Seed: opts.Seed, Cases: opts.Cases, Exhaustive: opts.Exhaustive,
		Analysis: opts.Analysis, AnalysisBudget: opts.AnalysisBudget, EveryBudget: opts.EveryBudget, NoEvery: opts.NoEvery,
		Bisect: !opts.NoBisect && opts.Lengths == nil, Model: opts.ModelFile}
	rep.Params = r.ParamValues(opts.Params)
	if sharded {
		if opts.Model != nil {
			return nil, fmt.Errorf("a sweep of a model from a file is not sharded")
		}
		rep.Shard, rep.Phase, rep.Lengths = fmt.Sprintf("%d/%d", opts.Shard+1, opts.Shards), 1, lengths
	}

	rep.Rows = make([]Row, len(opts.Precisions))
	checkers := make([]*check.Checker, len(opts.Precisions))
	var mu sync.Mutex
	var memErr error
	parallel(len(opts.Precisions), func(k int) {
		p := opts.Precisions[k]
		row := &rep.Rows[k]
		row.Precision = p.String()
		ck, err := check.NewChecker(r, check.Options{Precision: p, Weighting: opts.Weighting, MaxN: opts.MaxN,
			Params: opts.Params, Cases: opts.Cases, Exhaustive: opts.Exhaustive, Seed: opts.Seed, Workers: opts.Workers,
			MemoryLimit: opts.MemoryLimit, Analysis: opts.Analysis, AnalysisBudget: opts.AnalysisBudget, Model: opts.Model})
		if err != nil {
			mu.Lock()
			if errors.Is(err, check.ErrMemory) && memErr == nil {
				memErr = err
			}
			mu.Unlock()
			row.Error = err.Error()
			return
		}
		row.Decisions = check.Decisions(ck.Con)
		checkers[k] = ck
		mu.Lock()
		rep.Reference = check.ReferenceOf(ck.Con)
		mu.Unlock()
	})
	if memErr != nil {
		return nil, memErr
	}
	rowLengths := make([][]int, len(opts.Precisions))
	planned := 0
	for k, p := range opts.Precisions {
		rowLengths[k] = sweepLengths(r.Name, r.MinN, lengths, p, opts.MaxN, rep.Bisect && !opts.unpredicted)
		planned += len(rowLengths[k])
	}
	if sharded {
		runPhase1(opts, rep, checkers, rowLengths)
		Seal(rep)
		return rep, nil
	}

	s := &sweeper{opts: opts, planned: planned}
	for k, ck := range checkers {
		if ck == nil {
			s.skip(len(rowLengths[k]))
		}
	}
	working := slices.Clone(rep.Rows)
	if !s.run(len(opts.Precisions), func(k int) {
		ck := checkers[k]
		if ck == nil {
			return
		}
		row := &working[k]
		for _, n := range rowLengths[k] {
			s.check(ck, row, n)
		}
		if rep.Bisect {
			s.bisect(ck, row)
		}
		s.every(ck, row, rep)
	}) {
		rep.Rows = s.snapshot(working)
		rep.Interrupted = true
		for k := range rep.Rows {
			rep.Rows[k].summarise()
		}
		return rep, nil
	}
	rep.Rows = working
	for k := range rep.Rows {
		row := &rep.Rows[k]
		if row.Error != "" {
			continue
		}
		row.summarise()
		if f := row.Failure; f != nil {
			if err := explain(checkers[k], f, nil); err != nil {
				f.Cause = &diagnose.Cause{Kind: diagnose.KindUnknown, Detail: "the diagnosis could not run: " + err.Error()}
			}
		}
		row.predict(rep)
	}
	return rep, nil
}

// parallel runs f(0) … f(n−1), as many at once as there are cores.
func parallel(n int, f func(k int)) {
	var wg sync.WaitGroup
	slots := make(chan struct{}, runtime.GOMAXPROCS(0))
	for k := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			slots <- struct{}{}
			defer func() { <-slots }()
			f(k)
		}()
	}
	wg.Wait()
}

// sweeper checks lengths for the rows of one report, counting progress
// and honouring a stop request.
//
// A stop request (the first Ctrl-C) ends the sweep within a tenth of a
// second, not after the lengths in progress, which at large n take
// minutes: run returns at once, with the rows as they were (snapshot),
// and the lengths still running are left to finish in the background,
// their results dropped. So that nothing they do reaches what the caller
// reads, every change a worker makes to a row is made under mu, and only
// while the sweep is not interrupted (commit); the caller's snapshot is
// taken under mu after interrupted is set.
type sweeper struct {
	opts        Options
	mu          sync.Mutex
	done        int
	planned     int
	interrupted atomic.Bool
}

// run runs f(0) … f(n−1), as parallel does, and reports whether all of
// them finished: false when the sweep was stopped first, in which case
// run returns without waiting for them.
func (s *sweeper) run(n int, f func(k int)) bool {
	done := make(chan struct{})
	go func() {
		parallel(n, f)
		close(done)
	}()
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-done:
			return !s.stopped()
		case <-tick.C:
			if s.stopped() {
				return false
			}
		}
	}
}

// stopped reports whether the sweep was asked to stop, and marks it
// interrupted (under mu) if so.
func (s *sweeper) stopped() bool {
	if s.interrupted.Load() {
		return true
	}
	if s.opts.Stop == nil || !s.opts.Stop() {
		return false
	}
	s.mu.Lock()
	s.interrupted.Store(true)
	s.mu.Unlock()
	return true
}

// commit makes a worker's change to its row, unless the sweep was
// stopped, and reports whether it did.
func (s *sweeper) commit(change func()) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.interrupted.Load() {
		return false
	}
	change()
	return true
}

// snapshot copies rows as they are once the sweep is stopped: no worker
// changes them after interrupted is set (commit).
func (s *sweeper) snapshot(rows []Row) []Row {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Row, len(rows))
	for k, r := range rows {
		r.Checked = slices.Clone(r.Checked)
		r.Parts = slices.Clone(r.Parts)
		r.Bisected = slices.Clone(r.Bisected)
		r.PassesAgain = slices.Clone(r.PassesAgain)
		if r.Failure != nil {
			f := *r.Failure
			r.Failure = &f
		}
		out[k] = r
	}
	return out
}

func (s *sweeper) skip(n int) {
	s.mu.Lock()
	s.done += n
	s.mu.Unlock()
}

// check checks length n into row, unless the sweep was stopped or the
// row cannot run.
func (s *sweeper) check(ck *check.Checker, row *Row, n int) {
	if s.stopped() || row.Error != "" {
		return
	}
	lr := ck.Length(n)
	// Reported in the commit: a length reported done is in the report,
	// even when the sweep stops right after.
	s.commit(func() {
		s.done++
		row.add(lr, ck.Runner.Precision())
		if s.opts.Progress != nil {
			s.opts.Progress(s.done, s.planned, row.Precision, n)
		}
	})
}

// add appends the report of one length to the row's, or, where it shows
// that the precision cannot run the construction, sets the row's error
// and drops its lengths.
func (row *Row) add(lr check.LengthReport, p numeric.Precision) {
	if why := cannotRun(lr, p); why != "" {
		row.Error, row.Checked = why, nil
		return
	}
	row.Checked = append(row.Checked, lr)
	sortChecked(row.Checked)
}

// cannotRun says why a length's report shows that the precision cannot
// run the construction at all ("" when it does not): a case it cannot
// compute. An irrational reference is no longer one: at a precision that
// rounds, the checker asks for its correct rounding (check.CompareAt),
// decided on a certified enclosure, so its failures are uniformity
// limits like any other, and its undecided comparisons are reported as
// such.
func cannotRun(lr check.LengthReport, _ numeric.Precision) string {
	if f := lr.Failure; f != nil && f.CannotRun {
		return "cannot run: " + f.Reason
	}
	return ""
}

// bisect checks the lengths between the last passing length below the
// first failure and that failure, halving the gap: the limit to the
// length, if failures are monotone there (the report says where they are
// not). Where the theory predicts the limit rightly, the sweep's lengths
// (sweepLengths) have closed the gap already.
func (s *sweeper) bisect(ck *check.Checker, row *Row) {
	lo, hi := bracket(row.Checked, max(1, ck.Recipe.MinN))
	for hi > 0 && hi-lo > 1 && row.Error == "" && !s.interrupted.Load() {
		s.mu.Lock()
		s.planned++
		s.mu.Unlock()
		s.check(ck, row, lo+(hi-lo)/2)
		lo, hi = bracket(row.Checked, max(1, ck.Recipe.MinN))
	}
	// Then the decisions, where outputs decide: between the last length
	// whose every input decided right and the first where one did not.
	lo, hi = decisionBracket(row.Checked, max(1, ck.Recipe.MinN))
	for len(row.Decisions) > 0 && hi > 0 && hi-lo > 1 && row.Error == "" && !s.interrupted.Load() {
		s.mu.Lock()
		s.planned++
		s.mu.Unlock()
		s.check(ck, row, lo+(hi-lo)/2)
		lo, hi = decisionBracket(row.Checked, max(1, ck.Recipe.MinN))
	}
}

// every has the analysis certify every length up to the row's limit, not
// only the checked ones (check.Checker.Every). Where it stops at a length
// it does not certify, that length is checked like the others, so that a
// failure there becomes the first (and the limit falls below it).
func (s *sweeper) every(ck *check.Checker, row *Row, rep *Report) {
	if !rep.Analysis || rep.NoEvery || row.Error != "" || s.stopped() {
		return
	}
	if !s.commit(row.summarise) || row.Limit < 1 {
		return
	}
	budget := rep.EveryBudget
	switch {
	case budget == 0:
		budget = check.DefaultEveryBudget
	case budget < 0:
		budget = 0
	}
	minN := max(1, ck.Recipe.MinN)
	ev := ck.Every(minN, row.Limit, budget)
	if !s.commit(func() { row.EveryLength = ev }) {
		return
	}
	if ev.Certified < row.Limit && ev.At > 0 && !slices.ContainsFunc(row.Checked, func(lr check.LengthReport) bool { return lr.N == ev.At }) && (ev.Failed || ck.Suspected(ev.At)) {
		s.mu.Lock()
		s.planned++
		s.mu.Unlock()
		s.check(ck, row, ev.At)
	}
	s.commit(row.summarise)
}

// decisionBracket returns the last length below hi whose every checked
// input decided right (minN − 1 if none) and hi, the first checked length
// where one did not (0 if none).
func decisionBracket(checked []check.LengthReport, minN int) (lo, hi int) {
	lo = minN - 1
	for _, lr := range checked {
		if lr.Decided < lr.Cases {
			return lo, lr.N
		}
		lo = lr.N
	}
	return lo, 0
}

// bracket returns the ends of the next gap to bisect: hi is the first
// checked length that fails, or, before it, the first that passed on
// sampled inputs only although the analysis found an order the precision
// breaks there (a failure may lie below it, as at lengths of a parity
// that cannot fail), until the length just below it has been checked; lo is the last
// passing length below hi (minN − 1 if none). hi is 0 when there is no
// gap.
func bracket(checked []check.LengthReport, minN int) (lo, hi int) {
	lo = minN - 1
	prev := lo
	suspected := false
	for _, lr := range checked {
		if lr.Failure != nil {
			return lo, lr.N
		}
		if !suspected && lr.Level == check.Sampled && lr.Candidates > 0 {
			// Only the first length where the analysis saw an order
			// break is bisected below: from there on every length may
			// show one, and checking each one's predecessor would
			// check every length.
			if prev != lr.N-1 {
				return lo, lr.N
			}
			suspected = true
		}
		lo, prev = lr.N, lr.N
	}
	return lo, 0
}

func sortChecked(checked []check.LengthReport) {
	sort.Slice(checked, func(a, b int) bool { return checked[a].N < checked[b].N })
}

// summarise sets the limit, the first failure and the lengths that pass
// above it from the checked lengths.
func (row *Row) summarise() {
	row.Limit, row.LimitLevel, row.Failure, row.PassesAgain = 0, "", nil, nil
	row.DecisionLimit, row.DecisionLevel = 0, ""
	deciding := len(row.Decisions) > 0
	for _, lr := range row.Checked {
		if deciding = deciding && lr.Decided == lr.Cases; deciding {
			row.DecisionLimit = lr.N
			row.DecisionLevel = check.Weaker(row.DecisionLevel, lr.DecisionEvidence())
		}
		switch {
		case row.Failure == nil && lr.Failure == nil:
			row.Limit = lr.N
			row.LimitLevel = check.Weaker(row.LimitLevel, lr.Level)
		case row.Failure == nil:
			row.Failure = &Failure{Failure: *lr.Failure}
		case lr.Failure == nil:
			row.PassesAgain = append(row.PassesAgain, lr.N)
		}
	}
	// The analysis of every length: where it certified every length
	// below the first failure, the limit is the length before it, on that
	// evidence too.
	row.Every = false
	if ev := row.EveryLength; ev != nil {
		if f := row.Failure; f != nil && ev.Certified >= f.N-1 && f.N-1 > row.Limit {
			row.Limit = f.N - 1
			row.LimitLevel = check.Weaker(row.LimitLevel, ev.Level)
		}
		row.Every = ev.Certified >= row.Limit
		if row.Every && row.unchecked() {
			// The lengths between the checked ones rest on the proof.
			row.LimitLevel = check.Weaker(row.LimitLevel, ev.Level)
		}
	}
}

// unchecked reports whether some length up to the limit (from the first
// length the sweep or the analysis of every length starts at) is not
// among the checked lengths.
func (row *Row) unchecked() bool {
	if len(row.Checked) == 0 || row.Limit < 1 {
		return false
	}
	from := row.Checked[0].N
	if ev := row.EveryLength; ev != nil {
		from = min(from, ev.From)
	}
	return check.Unchecked(row.Checked, from, row.Limit)
}

// checkedOnly reports whether the row's limit rests on the checked
// lengths only: some length up to it was neither checked nor proved, and
// its evidence is more than sampled (for which that goes without saying).
func (row *Row) checkedOnly() bool {
	return !row.Every && row.LimitLevel != check.Sampled && row.LimitLevel != "" && row.unchecked()
}

// predict sets the row's prediction, where theory gives one.
func (row *Row) predict(rep *Report) {
	if p, err := numeric.ParsePrecision(row.Precision); err == nil {
		row.Prediction = Predict(rep.Recipe, p, rep.MaxN)
	}
}

// explain sets the cause of a failure, re-running its input: input when
// given (one the analysis suggested, read back from a shard), else the
// one ck gives back by the failure's index (the inputs of a length
// depend only on the seed and the length).
func explain(ck *check.Checker, f *Failure, input []int) error {
	in, ok := recipes.Case{Symbols: input}, input != nil
	if !ok {
		in, ok = ck.Input(f.N, f.Case)
	}
	if !ok || f.Position < 1 {
		return nil
	}
	cause, err := diagnose.Failure(ck.Con, ck.Runner, in, f.Position)
	if err != nil {
		return err
	}
	f.Cause = cause
	return nil
}
