package check

import (
	"fmt"
	"slices"
	"strings"

	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/numeric"
	"github.com/transformer-cookbook/verify/recipes"
)

// Options configures Run.
type Options struct {
	Precision numeric.Precision
	Weighting model.Weighting
	// MaxN is the largest length checked, and the N of the build.
	MaxN int
	// Params sets recipe parameters (the others take their defaults).
	Params  map[string]string
	Lengths []int // the lengths to check (nil: DefaultLengths)
	// Cases is the number of random inputs per length (see CasesAt) when
	// the inputs of that length are too many to enumerate; Exhaustive is
	// the most inputs enumerated.
	Cases      int
	Exhaustive int
	Seed       uint64
	// MemoryLimit refuses a check whose MemoryEstimate is above it
	// (ErrMemory).
	MemoryLimit uint64
	// Construction, when set, is the recipe's construction for
	// Weighting, MaxN and Params, built already by the caller: the
	// checker takes it over instead of building it again.
	Construction *recipes.Construction
	// Model, when set, is checked instead of the recipe's own model,
	// against the recipe's reference (Construction.Adopt).
	Model *model.Model
	// Unlisted runs the recipe under a weighting the paper does not give
	// it (the report's notes say so).
	Unlisted bool
	// Stop, if set, is asked before every length: true ends the check
	// there, reported as interrupted.
	Stop func() bool
	// AllLengths continues after the first failing length.
	AllLengths bool
	// Workers is the number of goroutines running cases (0: GOMAXPROCS).
	Workers int
	// FromScratch runs every input whole, never extending the prefixes
	// of a depth-first enumeration (to measure the one against the other).
	FromScratch bool
	// Analysis runs package certify's analysis at every length whose
	// inputs are not all run, to certify it or find the inputs to run
	// first; AnalysisBudget bounds its work (0: DefaultAnalysisBudget).
	Analysis       bool
	AnalysisBudget int
	// EveryBudget bounds the analysis's work for every length up to the
	// limit together (Checker.Every); 0 means DefaultEveryBudget, and a
	// negative value no bound. NoEvery skips it: the limit's evidence is
	// then the checked lengths' alone.
	EveryBudget int64
	NoEvery     bool
	// Certificates keeps each certified length's certificate.
	Certificates bool
	// Notes are added to the report's (the caller's choices).
	Notes []string
	// Progress, if set, is called with each length's report as it
	// completes, and the report so far (its lengths not yet set).
	Progress func(rep *Report, lr LengthReport)
}

// The bounds of a sweep's options, as the command line takes them (and a
// merge reads them from shards): a length beyond MaxLength builds models
// no machine holds, and a count beyond MaxCases or MaxWork is no sweep's.
const (
	MaxLength = 1 << 24
	MaxCases  = 100000
	MaxWork   = 1 << 40
)

// CasesAt is the number of random inputs drawn at length n: cases up to
// n = 64, then fewer in proportion to n, but at least 2, since an input of
// length n already checks n positions and costs about n² operations.
func CasesAt(cases, n int) int {
	if n <= 64 {
		return max(cases, 1)
	}
	return max(2, cases*64/n)
}

// DefaultLengths returns every length up to 8, then lengths growing by
// about a quarter each, up to maxN (included).
func DefaultLengths(minN, maxN int) []int {
	var ls []int
	for n := max(minN, 1); n <= maxN; {
		ls = append(ls, n)
		if n < 8 {
			n++
		} else {
			n += max(1, n/4)
		}
	}
	if len(ls) > 0 && ls[len(ls)-1] != maxN && maxN >= minN {
		ls = append(ls, maxN)
	}
	return ls
}

// Run builds r for opts.Weighting and N = opts.MaxN, runs it at
// opts.Precision on the inputs of every length, and compares each output
// with the exact reference. An error means the check could not run (an
// unsupported weighting, a model the precision cannot represent); wrong
// outputs are not errors but findings in the Report.
func Run(r *recipes.Recipe, opts Options) (*Report, error) {
	if opts.MaxN < max(1, r.MinN) {
		return nil, fmt.Errorf("%s: the maximum length must be at least %d, got %d", r.Name, max(1, r.MinN), opts.MaxN)
	}
	ck, err := NewChecker(r, opts)
	if err != nil {
		return nil, err
	}
	con, runner, m := ck.Con, ck.Runner, ck.Con.Model
	rep := &Report{
		Recipe: r.Name, Section: r.Section, Label: r.Label, Precision: opts.Precision.String(),
		Weighting: weightingOf(r, opts), MaxN: opts.MaxN, Seed: opts.Seed,
		Notes: append(append(append([]string(nil), opts.Notes...), con.Notes...), runner.Notes()...), Outputs: m.Output.Labels, Passed: true,
		Reference: ReferenceOf(con),
	}
	rep.Params = r.ParamValues(opts.Params)
	if opts.Precision.Kind == numeric.KindInterval {
		rep.Notes = append(rep.Notes, "interval arithmetic: an exact rational value is confirmed only by a single-point enclosure, an irrational one by an enclosure containing it, a bound by an enclosure within it; an enclosure that excludes the value is a certified failure")
	}
	if note := realNote(con, opts.Precision, max(1, r.MinN)); note != "" {
		rep.Notes = append(rep.Notes, note)
	}
	rep.Scale = scaleOf(m)
	for k := range rep.Outputs {
		rep.Bounds = append(rep.Bounds, describeBound(boundOf(con.Bounds, k)))
	}
	lengths := opts.Lengths
	if lengths == nil {
		lengths = DefaultLengths(r.MinN, opts.MaxN)
	}
	// Checked in increasing order, once each: the limit is a statement
	// about every checked length up to it.
	lengths = slices.Compact(slices.Sorted(slices.Values(lengths)))
	for _, n := range lengths {
		if n < max(1, r.MinN) || n > opts.MaxN {
			return nil, fmt.Errorf("%s: length %d outside [%d, %d]", r.Name, n, max(1, r.MinN), opts.MaxN)
		}
	}
	sweep := ck.sweep(lengths)
	defer sweep.close()
	rep.Decisions = Decisions(con)
	// deciding: every case so far decided right, so the sweep goes on
	// past the first inexact length to find where decisions fail.
	deciding := len(rep.Decisions) > 0
	for _, n := range lengths {
		lr, interrupted := sweep.next()
		if interrupted {
			rep.Interrupted = true
			break
		}
		if f := lr.Failure; f != nil && f.CannotRun {
			return nil, fmt.Errorf("%s cannot run at precision %s (try interval:128): %s", r.Name, opts.Precision, f.Reason)
		}
		rep.Lengths = append(rep.Lengths, lr)
		if opts.Progress != nil {
			opts.Progress(rep, lr)
		}
		if deciding && lr.Decided == lr.Cases {
			rep.DecisionLimit = n
			rep.DecisionLevel = Weaker(rep.DecisionLevel, lr.DecisionEvidence())
		} else {
			deciding = false
		}
		if lr.Failure != nil {
			if rep.Passed {
				rep.FirstFailure = lr.Failure
				rep.Passed = false
			}
			if !opts.AllLengths && !deciding {
				break
			}
		} else if rep.Passed {
			rep.Limit = n
			rep.LimitLevel = Weaker(rep.LimitLevel, lr.Level)
		}
	}
	if opts.Analysis && !opts.NoEvery && rep.Limit > 0 && !rep.Interrupted {
		rep.everyLength(ck, max(1, r.MinN), opts.everyBudget(), opts.Progress)
	}
	if opts.Certificates {
		rep.Certificates = ck.Certificates()
	}
	return rep, nil
}

// Unchecked reports whether some length from … limit is not among the
// checked lengths (sorted by length).
func Unchecked(lengths []LengthReport, from, limit int) bool {
	seen := 0
	for _, lr := range lengths {
		if lr.N >= from && lr.N <= limit {
			seen++
		}
	}
	return seen < limit-from+1
}

// everyLength has the analysis certify every length up to the limit, not
// only the checked ones (Checker.Every). Where it stops at a length it
// does not certify, that length is checked like the others: if an input
// fails there, it is the first failure, and the limit falls below it
// (every length under it certified); if none does, the limit stands, on
// the evidence of the lengths checked.
func (rep *Report) everyLength(ck *Checker, from int, budget int64, progress func(*Report, LengthReport)) {
	ev := ck.Every(from, rep.Limit, budget)
	rep.EveryLength = ev
	if ev.Certified >= rep.Limit {
		rep.Every = true
		if Unchecked(rep.Lengths, from, rep.Limit) {
			// The lengths between the checked ones rest on the proof.
			rep.LimitLevel = Weaker(rep.LimitLevel, ev.Level)
		}
		return
	}
	m := ev.At
	if m <= 0 || slices.ContainsFunc(rep.Lengths, func(lr LengthReport) bool { return lr.N == m }) || !ev.Failed && !ck.Suspected(m) {
		// The budget, or an analysis that could not follow the model:
		// nothing of this length to look at more than the others.
		return
	}
	lr := ck.Length(m)
	at, _ := slices.BinarySearchFunc(rep.Lengths, m, func(lr LengthReport, n int) int { return lr.N - n })
	rep.Lengths = slices.Insert(rep.Lengths, at, lr)
	if progress != nil {
		progress(rep, lr)
	}
	if lr.Failure == nil {
		rep.LimitLevel = Weaker(rep.LimitLevel, lr.Level)
		return
	}
	// Every length below m is certified: the limit is m − 1, on that
	// evidence and the checked lengths' below it.
	rep.FirstFailure, rep.Limit, rep.Every = lr.Failure, m-1, true
	rep.LimitLevel = ""
	for _, c := range rep.Lengths {
		if c.N < m {
			rep.LimitLevel = Weaker(rep.LimitLevel, c.Level)
		}
	}
	rep.LimitLevel = Weaker(rep.LimitLevel, ck.provenLevel())
	if rep.DecisionLimit >= m && lr.Decided < lr.Cases {
		rep.DecisionLimit = m - 1
	}
}

// weightingOf is the weighting a report names: the recipe's, or those of
// the model from a file that is checked instead.
func weightingOf(r *recipes.Recipe, opts Options) string {
	if opts.Model == nil {
		return r.WeightingName(opts.Weighting)
	}
	var ws []string
	for _, l := range opts.Model.Layers {
		if l.Attention != nil {
			if w := recipes.WeightingAcronym(l.Attention.Weighting); !slices.Contains(ws, w) {
				ws = append(ws, w)
			}
		}
	}
	if len(ws) == 0 {
		return "no attention"
	}
	return strings.Join(ws, ", ") + " (the model's)"
}

func weightingList(ws []model.Weighting) string {
	var names []string
	for _, w := range ws {
		names = append(names, recipes.WeightingAcronym(w))
	}
	return strings.Join(names, " and ")
}

func scaleOf(m *model.Model) string {
	for _, l := range m.Layers {
		if l.Attention != nil {
			return l.Attention.Scale.String()
		}
	}
	return "no attention"
}

func boundOf(bounds []recipes.Bound, k int) recipes.Bound {
	if k < len(bounds) {
		return bounds[k]
	}
	return recipes.Bound{}
}

func describeBound(b recipes.Bound) string {
	if b.Max == nil {
		return "exact"
	}
	return "≤ " + b.Max.RatString() + ": " + b.Source
}
