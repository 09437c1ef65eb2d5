package check

import (
	"errors"
	"fmt"
	"math/big"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/numeric"
	"github.com/transformer-cookbook/verify/recipes"
)

// Options configures Run.
type Options struct {
	Precision numeric.Precision
	Weighting model.Weighting
	// MaxN is the largest length checked; recipes whose weights depend on
	// a maximum length N are built with N = MaxN.
	MaxN int
	// Params sets the recipe's parameters (the others take their
	// defaults).
	Params map[string]string
	// Lengths lists the lengths to check; nil means DefaultLengths(MinN,
	// MaxN).
	Lengths []int
	// Cases is the number of random inputs per length (see CasesAt) when
	// the inputs of that length are too many to enumerate; Exhaustive is
	// the most inputs enumerated.
	Cases      int
	Exhaustive int
	Seed       uint64
	// MemoryLimit, when set, refuses a check whose MemoryEstimate at
	// MaxN is above it (an error wrapping ErrMemory).
	MemoryLimit uint64
	// Model, when set, is checked instead of the recipe's own model,
	// against the recipe's reference (Construction.Adopt).
	Model *model.Model
	// Unlisted runs the recipe under a weighting the paper does not give
	// it for (to confirm that the cheat sheet is right to leave it out);
	// the report then says so in its notes.
	Unlisted bool
	// Stop, if set, is asked before every length; when it returns true
	// the check ends there and the report says it was interrupted.
	Stop func() bool
	// AllLengths continues after the first failing length.
	AllLengths bool
	// Workers is the number of goroutines running cases (0: GOMAXPROCS).
	Workers int
	// FromScratch runs every input whole, even where an exhaustive length
	// could extend the prefixes of a depth-first enumeration instead
	// (enumerate.go): to measure the one against the other.
	FromScratch bool
	// Notes are added to the report's notes (the caller's choices, such as
	// a precision chosen for the weighting).
	Notes []string
	// Progress, if set, is called with the report of each length as it
	// completes; rep is the report so far (its outputs and bounds are
	// set, its lengths not yet).
	Progress func(rep *Report, lr LengthReport)
}

// Report is the result of Run, ready to print or encode as JSON.
type Report struct {
	Recipe    string            `json:"recipe"`
	Section   string            `json:"section"`
	Label     string            `json:"label"`
	Precision string            `json:"precision"`
	Weighting string            `json:"weighting"`
	Scale     string            `json:"score_scale"`
	MaxN      int               `json:"max_n"`
	Seed      uint64            `json:"seed"`
	Params    map[string]string `json:"params,omitempty"`
	Outputs   []string          `json:"outputs"`
	Bounds    []string          `json:"bounds"`
	Notes     []string          `json:"notes,omitempty"`

	Lengths []LengthReport `json:"lengths"`
	// Limit is the largest n such that every checked length up to n
	// passed (0 if the smallest failed); it says nothing of unchecked
	// lengths between the checked ones.
	Limit        int      `json:"limit"`
	FirstFailure *Failure `json:"first_failure,omitempty"`
	Passed       bool     `json:"passed"`
	// Interrupted says the check was stopped (Ctrl-C) before its last
	// length: Lengths hold what was checked.
	Interrupted bool `json:"interrupted,omitempty"`
}

// LengthReport summarises the cases of one length.
type LengthReport struct {
	N          int  `json:"n"`
	Cases      int  `json:"cases"`
	Exhaustive bool `json:"exhaustive"`
	// Exact counts cases whose every output equals the reference exactly;
	// Passed those within the claimed bounds (exact where none is given).
	Exact  int `json:"exact"`
	Passed int `json:"passed"`
	// MaxError is max |output − reference| over the cases, per output
	// value, as a decimal ("inf" when an output was not finite).
	MaxError []string `json:"max_error"`
	Failure  *Failure `json:"failure,omitempty"`
}

// Failure is one wrong case.
type Failure struct {
	N int `json:"n"`
	// Case is the input's index among the inputs of its length.
	Case     int      `json:"case"`
	Input    string   `json:"input"`
	Position int      `json:"position"`
	Expected []string `json:"expected"`
	Actual   []string `json:"actual"`
	Reason   string   `json:"reason"`
	// CannotRun says the precision could not compute the case at all (an
	// irrational value in exact arithmetic): Run reports it as an
	// error, not as a finding.
	CannotRun bool `json:"cannot_run,omitempty"`
	// Irrational says the expected values include irrational ones, which
	// no rounding format can hold: only intervals confirm them.
	Irrational bool `json:"irrational,omitempty"`
}

// irrational reports whether a reference holds an irrational value.
func irrational(w recipes.Want) bool {
	for _, e := range w.Reals {
		if _, ok, _ := e.Rat(); !ok {
			return true
		}
	}
	return false
}

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
	}
	if len(r.Params) > 0 {
		rep.Params = map[string]string{}
		for _, p := range r.Params {
			rep.Params[p.Name] = p.Default
		}
		for k, v := range opts.Params {
			rep.Params[k] = v
		}
	}
	if opts.Precision.Kind == numeric.KindInterval {
		rep.Notes = append(rep.Notes, "interval arithmetic: an exact rational value is confirmed only by a single-point enclosure, an irrational one by an enclosure containing it, a bound by an enclosure within it; an enclosure that excludes the value is a certified failure")
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
		if lr.Failure != nil {
			if rep.Passed {
				rep.FirstFailure = lr.Failure
				rep.Passed = false
			}
			if !opts.AllLengths {
				break
			}
		} else if rep.Passed {
			rep.Limit = n
		}
	}
	return rep, nil
}

// Checker checks one built construction length by length (Run's
// loop, and the frontier's sweeps and bisections).
type Checker struct {
	Recipe *recipes.Recipe
	Con    *recipes.Construction
	Runner model.Runner
	opts   Options
}

// NewChecker builds r for opts (its weighting, MaxN and parameters) at
// opts.Precision.
func NewChecker(r *recipes.Recipe, opts Options) (*Checker, error) {
	if !r.Supports(opts.Weighting) && !opts.Unlisted && opts.Model == nil {
		return nil, fmt.Errorf("%s: the paper gives this construction for %s, not %s", r.Name, weightingList(r.Weightings), recipes.WeightingAcronym(opts.Weighting))
	}
	con, err := r.Construct(opts.Weighting, opts.MaxN, opts.Params)
	if err != nil {
		return nil, err
	}
	if opts.Model != nil {
		if err := Adopt(con, opts.Model); err != nil {
			return nil, fmt.Errorf("%s cannot check this model: %w", r.Name, err)
		}
	}
	if opts.Unlisted {
		for k, l := range con.Model.Layers {
			if l.Attention != nil && l.Attention.Weighting != opts.Weighting {
				return nil, fmt.Errorf("%s builds layer %d's attention under %s whatever the weighting asked, so it cannot be run under %s", r.Name, k+1, recipes.WeightingAcronym(l.Attention.Weighting), recipes.WeightingAcronym(opts.Weighting))
			}
		}
		con.Notes = append(con.Notes, fmt.Sprintf("run under %s, which the paper does not give this construction for", recipes.WeightingAcronym(opts.Weighting)))
	}
	if opts.MemoryLimit > 0 {
		if need := MemoryEstimate(con.Model, opts.Precision, opts.MaxN, opts.Workers); need > opts.MemoryLimit {
			return nil, fmt.Errorf("%w: %s at n = %d (width %d, %s) needs about %s, and %s is available; lower --max-n or pass --force",
				ErrMemory, r.Name, opts.MaxN, con.Model.D, opts.Precision, GiB(need), GiB(opts.MemoryLimit))
		}
	}
	runner, err := model.New(opts.Precision, con.Model)
	if err != nil {
		return nil, fmt.Errorf("%s cannot run at precision %s: %w", r.Name, opts.Precision, err)
	}
	return &Checker{Recipe: r, Con: con, Runner: runner, opts: opts}, nil
}

// Inputs returns the inputs of length n: every one when there are at most
// opts.Exhaustive, else CasesAt(opts.Cases, n) drawn from a generator
// seeded by (Seed, n), so that a length's inputs depend on the seed and n
// alone, not on which other lengths were checked (--lengths n reproduces
// a failure found in a sweep).
func (ck *Checker) Inputs(n int) (inputs []recipes.Case, exhaustive bool) {
	if ck.opts.Exhaustive > 0 {
		// The probe draws from its own generator: it must not consume
		// the random inputs' stream.
		inputs, exhaustive = ck.Con.Inputs(n, rand.New(rand.NewPCG(0, 0)), ck.opts.Exhaustive)
	}
	if !exhaustive {
		inputs, exhaustive = ck.Con.Inputs(n, rand.New(rand.NewPCG(ck.opts.Seed, uint64(n))), CasesAt(ck.opts.Cases, n))
	}
	return inputs, exhaustive
}

// Length checks the inputs of length n whose index is shard modulo
// shards (all of them for shard 0 of 1). A failure records its input's
// index, so that the shards of a length can be merged into the report of
// the whole (MergeLength). An exhaustive length of a prefix-stable model
// is enumerated depth first (enumerate.go), to the same report.
func (ck *Checker) Length(n, shard, shards int) LengthReport {
	return ck.length(n, shard, shards, nil)
}

// length is Length within a sweep's shared slots (nil: on its own).
func (ck *Checker) length(n, shard, shards int, sh *shared) LengthReport {
	if lrs, ok := ck.enumerate([]int{n}, shard, shards, sh); ok {
		return lrs[0]
	}
	all, exhaustive := ck.Inputs(n)
	var inputs []recipes.Case
	var index []int
	for k := shard; k < len(all); k += shards {
		inputs = append(inputs, all[k])
		index = append(index, k)
	}
	lr := checkLength(ck.Con, ck.Runner, inputs, ck.opts.Workers, sh)
	if lr.Failure != nil {
		lr.Failure.Case = index[lr.Failure.Case]
	}
	lr.N, lr.Exhaustive = n, exhaustive
	return lr
}

// MergeLength combines the reports of the shards of one length into the
// report one unsharded run makes: counts add up, the largest error is
// the largest of the shards', and the failure is the one of the lowest
// input index.
func MergeLength(parts []LengthReport) LengthReport {
	out := LengthReport{N: parts[0].N, Exhaustive: parts[0].Exhaustive}
	var best []*big.Float // nil entry: inf
	for _, p := range parts {
		out.Cases += p.Cases
		out.Exact += p.Exact
		out.Passed += p.Passed
		for k, e := range p.MaxError {
			v, _, err := big.ParseFloat(e, 10, 64, big.ToNearestEven)
			if err != nil {
				v = nil
			}
			switch {
			case k >= len(out.MaxError):
				out.MaxError = append(out.MaxError, e)
				best = append(best, v)
			case best[k] != nil && (v == nil || v.Cmp(best[k]) > 0):
				out.MaxError[k], best[k] = e, v
			}
		}
		if p.Failure != nil && (out.Failure == nil || p.Failure.Case < out.Failure.Case) {
			out.Failure = p.Failure
		}
	}
	return out
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

// Cases checks the given inputs of con, run by runner: the report of one
// length, whose N and Exhaustive the caller sets (a construction whose
// model a test changed, inputs picked by hand).
func Cases(con *recipes.Construction, runner model.Runner, inputs []recipes.Case) LengthReport {
	return checkLength(con, runner, inputs, 0, nil)
}

// caseResult is the outcome of one input.
type caseResult struct {
	exact, passed bool
	errs          []*big.Rat // |error| per output value; nil entry: not finite
	failure       *Failure
}

// checkLength checks the inputs with workers goroutines, each input
// holding one of sh's slots while it runs; when sh quits, it hands out no
// more inputs and returns an empty report, which nobody reads.
func checkLength(con *recipes.Construction, runner model.Runner, inputs []recipes.Case, workers int, sh *shared) LengthReport {
	m := con.Model
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	results := make([]caseResult, len(inputs))
	var wg sync.WaitGroup
	next := make(chan int)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for c := range next {
				if !sh.acquire() {
					continue
				}
				results[c] = checkCase(con, runner, inputs[c])
				sh.release()
			}
		}()
	}
	for c := range inputs {
		if sh.quitting() {
			break
		}
		next <- c
	}
	close(next)
	wg.Wait()
	if sh.quitting() {
		return LengthReport{}
	}

	lr := LengthReport{Cases: len(inputs)}
	var maxErr []*big.Rat
	inf := make([]bool, len(m.Output.Labels))
	for c, res := range results {
		if res.exact {
			lr.Exact++
		}
		if res.passed {
			lr.Passed++
		} else if lr.Failure == nil {
			lr.Failure = res.failure
			lr.Failure.Case = c
		}
		for k, e := range res.errs {
			for len(maxErr) <= k {
				maxErr = append(maxErr, new(big.Rat))
			}
			if k >= len(inf) {
				inf = append(inf, false)
			}
			if e == nil {
				inf[k] = true
			} else if e.Cmp(maxErr[k]) > 0 {
				maxErr[k] = e
			}
		}
	}
	for k, e := range maxErr {
		if inf[k] {
			lr.MaxError = append(lr.MaxError, "inf")
			continue
		}
		// Through big.Float, not float64: errors beyond float64's range
		// (tiny ones at high precision) keep their value.
		lr.MaxError = append(lr.MaxError, new(big.Float).SetRat(e).Text('g', 3))
	}
	return lr
}

func checkCase(con *recipes.Construction, runner model.Runner, c recipes.Case) caseResult {
	m := con.Model
	text := CaseText(m, c)
	res := caseResult{exact: true, passed: true}
	var out *model.Result
	var err error
	if c.Stream != nil {
		h0 := c.Stream
		if con.Adapt != nil {
			if h0, err = con.Adapt(h0); err != nil {
				return caseResult{failure: &Failure{N: c.Len(), Input: text, Reason: err.Error()}}
			}
		}
		out, err = runner.RunStream(h0, false)
		// The reference is computed on the input as the format holds it:
		// rounding an input is not the construction's error.
		c.Stream = RoundStream(runner, c.Stream)
	} else {
		symbols := c.Symbols
		if con.AdaptSymbols != nil {
			symbols = con.AdaptSymbols(symbols)
		}
		out, err = runner.Run(symbols, false)
	}
	if err != nil {
		reason := err.Error()
		if errors.Is(err, model.ErrUndecided) {
			reason = "undecided: " + reason
		}
		// A value exact arithmetic cannot hold is not a wrong output but
		// a precision that cannot run the construction.
		cannot := errors.Is(err, numeric.ErrIrrational)
		return caseResult{failure: &Failure{N: c.Len(), Input: text, Reason: reason, CannotRun: cannot}}
	}
	if con.Valid != nil {
		if err := con.Valid(c); err != nil {
			return caseResult{failure: &Failure{N: c.Len(), Input: text, Reason: "the recipe's input generator left its domain (a bug in the recipe): " + err.Error()}}
		}
	}
	want := con.Expected(c)
	if len(want) != len(out.Outputs) {
		return caseResult{failure: &Failure{N: c.Len(), Input: text,
			Reason: fmt.Sprintf("the model gave %d outputs and the reference %d (a bug in the recipe)", len(out.Outputs), len(want))}}
	}
	for i, w := range want {
		got := out.Outputs[i]
		errs := errorsOf(w, got)
		for k, e := range errs {
			for len(res.errs) <= k {
				res.errs = append(res.errs, new(big.Rat))
			}
			if e == nil {
				res.errs[k] = nil
			} else if res.errs[k] != nil && e.Cmp(res.errs[k]) > 0 {
				res.errs[k] = e
			}
		}
		if !exactlyEqual(w, got) {
			res.exact = false
		}
		if ok, why := Compare(w, got, con.Bounds, m.Output.Labels); !ok {
			res.passed = false
			if res.failure == nil {
				res.failure = &Failure{N: c.Len(), Input: text, Position: i + 1,
					Expected: wantText(w), Actual: gotText(got), Reason: why, Irrational: irrational(w)}
			}
		}
	}
	return res
}

// RoundStream returns the stream as the runner's format stores it; an
// entry the format cannot hold as a single point (an interval enclosure)
// stays exact.
func RoundStream(runner model.Runner, h [][]*big.Rat) [][]*big.Rat {
	out := make([][]*big.Rat, len(h))
	for i, row := range h {
		out[i] = make([]*big.Rat, len(row))
		for k, x := range row {
			out[i][k] = x
			if v, ok := runner.Round(x).Rat(); ok {
				out[i][k] = v
			}
		}
	}
	return out
}

func decimal(r *big.Rat) string {
	f, _ := r.Float64()
	return fmt.Sprintf("%.3g", f)
}

// CaseText prints a case: its Text, or its symbols joined, with spaces
// when some symbol is longer than one character.
func CaseText(m *model.Model, c recipes.Case) string {
	if c.Text != "" || c.Stream != nil {
		return c.Text
	}
	sep := ""
	for _, s := range c.Symbols {
		if len(m.Alphabet[s]) > 1 {
			sep = " "
			break
		}
	}
	parts := make([]string, len(c.Symbols))
	for i, s := range c.Symbols {
		parts[i] = m.Alphabet[s]
	}
	return strings.Join(parts, sep)
}

func gotText(g model.PositionOutput) []string {
	var out []string
	if g.Symbol != "" {
		out = append(out, g.Symbol)
	}
	for _, v := range g.Values {
		out = append(out, v.Text)
	}
	return out
}
