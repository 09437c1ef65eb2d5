package check

import (
	"fmt"
	"math/big"
	"math/rand/v2"
	"sync"

	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/model/eval"
	"github.com/transformer-cookbook/verify/numeric"
	"github.com/transformer-cookbook/verify/recipes"
)

// Checker checks one built construction length by length (Run's
// loop, and the frontier's sweeps and bisections).
type Checker struct {
	Recipe *recipes.Recipe
	Con    *recipes.Construction
	Runner eval.Runner
	opts   Options
	// spec is the recipe's own model, whose exact computation the
	// analysis certifies against (Con.Model, unless a model from a file
	// was adopted; Con.Simulated for a softmax simulation of average-hard
	// attention).
	spec     *model.Model
	mu       sync.Mutex
	analyses map[int]*analysis
	exact    *eval.Instance[*big.Rat] // spec in exact arithmetic, once built
	exactErr error
	// overBudget is the shortest length at which the analysis ran out of
	// its budget (0: none yet); longer ones skip it.
	overBudget int
	// session is Recheck's: a *recheck.Session of the backend's values.
	session any
	// pw is the analysis of a position-wise construction, which holds at
	// every length (positionwise.go): run once.
	pwOnce sync.Once
	pw     *pointwise
}

// NewChecker builds r for opts (its weighting, MaxN and parameters) at
// opts.Precision.
func NewChecker(r *recipes.Recipe, opts Options) (*Checker, error) {
	if !r.Supports(opts.Weighting) && !opts.Unlisted && opts.Model == nil {
		return nil, fmt.Errorf("%s: the paper gives this construction for %s, not %s", r.Name, weightingList(r.Weightings), recipes.WeightingAcronym(opts.Weighting))
	}
	con := opts.Construction
	if con == nil {
		var err error
		if con, err = r.Construct(opts.Weighting, opts.MaxN, opts.Params); err != nil {
			return nil, err
		}
	}
	opts.Construction = nil // taken over: never shared with another checker
	spec := con.Model
	if con.Simulated != nil {
		// A softmax construction's exact computation needs log(8N); the
		// average-hard one it simulates is exact, and its claim (each
		// output within its bound of the hard one's) is what the analysis
		// proves.
		spec = con.Simulated
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
		// The analysis holds the model in exact arithmetic besides: as
		// analysisOff decides, before there is a checker to ask.
		analysis := opts.Analysis && !r.Literal() && !(opts.Model == nil && opts.Precision.Kind == numeric.KindExact)
		if need := MemoryEstimate(con.Model, opts.Precision, opts.MaxN, opts.Workers, analysis); need > opts.MemoryLimit {
			return nil, fmt.Errorf("%w: %s at n = %d (width %d, %s) needs about %s, and %s is available; lower --max-n or pass --force",
				ErrMemory, r.Name, opts.MaxN, con.Model.D, opts.Precision, GiB(need), GiB(opts.MemoryLimit))
		}
	}
	runner, err := eval.New(opts.Precision, con.Model)
	if err != nil {
		return nil, fmt.Errorf("%s cannot run at precision %s: %w", r.Name, opts.Precision, err)
	}
	return &Checker{Recipe: r, Con: con, Runner: runner, opts: opts, spec: spec}, nil
}

// MaxWhole is the most inputs of one length enumerated and run whole
// (each held in memory); beyond it only a depth-first enumeration
// (enumerate.go) covers every input.
const MaxWhole = 1 << 20

// Inputs returns the inputs of length n: every one when there are at most
// opts.Exhaustive; otherwise CasesAt(opts.Cases, n) drawn from a
// generator seeded by (Seed, n), so that a length's inputs depend on the
// seed and n alone, not on which other lengths were checked (--lengths n
// reproduces a failure found in a sweep), then the inputs the analysis
// suggests (where it found an order the format breaks: package certify).
func (ck *Checker) Inputs(n int) (inputs []recipes.Case, exhaustive bool) {
	inputs, exhaustive = ck.drawn(n)
	if !exhaustive {
		inputs = append(inputs, ck.analyse(n).candidates...)
	}
	return inputs, exhaustive
}

// Input returns input k of Inputs(n), running the analysis only when k
// is one of its suggestions. The inputs of a length enumerated depth
// first are its strings in lexicographic order: input k spells k in base
// |alphabet|.
func (ck *Checker) Input(n, k int) (recipes.Case, bool) {
	if k < 0 {
		return recipes.Case{}, false
	}
	if total, ok := ck.depthFirst(n); ok {
		if k >= total {
			return recipes.Case{}, false
		}
		symbols, base := make([]int, n), len(ck.Con.Model.Alphabet)
		for i := n - 1; i >= 0; i-- {
			symbols[i], k = k%base, k/base
		}
		return recipes.Case{Symbols: symbols}, true
	}
	drawn, exhaustive := ck.drawn(n)
	if k < len(drawn) {
		return drawn[k], true
	}
	if exhaustive {
		return recipes.Case{}, false
	}
	more := ck.analyse(n).candidates
	if k-len(drawn) >= len(more) {
		return recipes.Case{}, false
	}
	return more[k-len(drawn)], true
}

// drawn is every input of length n (exhaustive), or the random ones.
func (ck *Checker) drawn(n int) (inputs []recipes.Case, exhaustive bool) {
	if ck.opts.Exhaustive > 0 {
		// The probe draws nothing (a nil generator): a length with more
		// inputs than the budget costs nothing to ask about. Inputs run
		// whole are held in memory at once: at most MaxWhole of them (a
		// depth-first enumeration, which holds one path, goes further).
		inputs, exhaustive = ck.Con.Inputs(n, nil, min(ck.opts.Exhaustive, MaxWhole))
	}
	if exhaustive {
		return inputs, true
	}
	inputs, _ = ck.Con.Inputs(n, rand.New(rand.NewPCG(ck.opts.Seed, uint64(n))), CasesAt(ck.opts.Cases, n))
	return inputs, false
}

// Length checks the inputs of length n. A failure records its input's
// index (Input gives it back). An exhaustive length of a prefix-stable
// model is enumerated depth first (enumerate.go), to the same report.
// Lengths checked one after another skip the analysis above the first
// that ran out of its budget.
func (ck *Checker) Length(n int) LengthReport {
	return ck.length(n, nil)
}

// length is Length within a sweep's shared slots (nil: on its own).
func (ck *Checker) length(n int, sh *shared) LengthReport {
	p, _ := ck.part(n, 0, 1, sh)
	ck.mu.Lock()
	over := ck.overBudget
	ck.mu.Unlock()
	lr, _ := ComposeLength([]LengthPart{p}, over)
	return lr
}

// part is Part within a sweep's shared slots (nil: on its own).
func (ck *Checker) part(n, part, parts int, sh *shared) (LengthPart, error) {
	if parts < 1 || part < 0 || part >= parts {
		return LengthPart{}, fmt.Errorf("part %d of %d: want 0 ≤ part < parts", part, parts)
	}
	if total, ok := ck.depthFirst(n); ok {
		from, to := partRange(part, parts, total)
		lrs, _ := ck.enumerate([]int{n}, from, to, sh)
		return LengthPart{N: n, From: from, To: to, Of: total, Report: lrs[0]}, nil
	}
	drawn, exhaustive := ck.drawn(n)
	if exhaustive {
		from, to := partRange(part, parts, len(drawn))
		lr := ck.run(drawn[from:to], from, sh)
		lr.N, lr.Exhaustive, lr.Level = n, true, Exhaustive
		return LengthPart{N: n, From: from, To: to, Of: len(drawn), Report: lr}, nil
	}
	if parts != 1 {
		// Whether a sampled length needs the analysis depends on every
		// one of its drawn inputs.
		return LengthPart{}, fmt.Errorf("n = %d is sampled: it is one part, not %d", n, parts)
	}
	lr := ck.run(drawn, 0, sh)
	lr.N, lr.Exhaustive, lr.Level = n, false, Sampled
	if lr.Failure != nil && (lr.Decided < lr.Cases || len(Decisions(ck.Con)) == 0) {
		// The length fails, and so do its decisions if it has any: a
		// proof of either cannot exist, and the analysis (the dearest
		// part of a long length) would only look for another failing
		// input.
		lr.Analysis = AnalysisNotNeeded
		if pw := ck.positionwise(); pw != nil {
			// The one-position analysis, run once for every length, says
			// where the construction is right even so: its widest domain
			// of integer inputs.
			lr.Integers = ck.integerDomain(pw.integers)
		}
		return LengthPart{N: n, Report: lr}, nil
	}
	out := LengthPart{N: n}
	an := ck.analyse(n)
	if an.budgeted {
		drawnOnly := lr
		out.Drawn = &drawnOnly
	}
	if len(an.candidates) > 0 {
		more := ck.run(an.candidates, len(drawn), sh)
		if more.Failure != nil {
			more.Failure.Found = "analysis"
			out.FailureInput = an.candidates[more.Failure.Case-len(drawn)].Symbols
			if an.pw != nil {
				more.Failure.Found, out.FailureInput = FoundPositionwise, nil
			}
		}
		if lr.Failure != nil {
			out.FailureInput = nil // the drawn input fails first
		}
		lr = MergeLength([]LengthReport{lr, more})
		lr.Candidates = len(an.candidates)
	}
	lr.Analysis = an.why()
	if an.pw != nil {
		ck.applyPositionwise(&lr, an.pw)
		lr.Integers = ck.integerDomain(an.integers)
	}
	if an.res != nil && an.res.Decided && !an.res.Certified {
		lr.DecisionLevel = ck.provenLevel()
		if f := lr.Failure; f != nil && lr.Decided < lr.Cases {
			f.Reason = "the analysis certified the decisions of this length, but an input decides wrong (a bug in the engine's analysis): " + f.Reason
		}
	}
	if an.res != nil && an.res.Certified {
		lr.Level = ck.provenLevel()
		lr.Proof = ck.Recipe.ProvedBy
		if f := lr.Failure; f != nil {
			// A certified length has no failing input: this one is a
			// bug of the engine, and says so.
			f.Reason = "the analysis certified this length, but this input fails (a bug in the engine's analysis): " + f.Reason
		}
	}
	out.Report = lr
	out.OverBudget = an.res != nil && an.res.OverBudget
	return out, nil
}

// AnalysisNotNeeded is what a length report says of the analysis when a
// drawn input already fails (and decides wrong, where outputs decide).
const AnalysisNotNeeded = "not needed: a drawn input fails"

// run checks the inputs, recording a failure's index in the length's
// list (offset + k for inputs[k]).
// CaseFailure runs one input, input k of its length, and returns how it
// fails (nil: it passes): the failure a report of its length records,
// but for Found, which says how the input was come by. A merge re-runs
// the failures its shards record, to refuse one edited by hand.
func (ck *Checker) CaseFailure(c recipes.Case, k int) *Failure {
	return ck.run([]recipes.Case{c}, k, nil).Failure
}

// Drawn is the number of inputs drawn at length n of a sampled length,
// before the analysis' suggestions; 0 for a length checked exhaustively.
func (ck *Checker) Drawn(n int) int {
	if _, ok := ck.depthFirst(n); ok {
		return 0
	}
	drawn, exhaustive := ck.drawn(n)
	if exhaustive {
		return 0
	}
	return len(drawn)
}

func (ck *Checker) run(inputs []recipes.Case, offset int, sh *shared) LengthReport {
	lr := checkLength(ck.Con, ck.Runner, inputs, ck.opts.Workers, sh)
	if lr.Failure != nil {
		lr.Failure.Case += offset
	}
	return lr
}

// provenLevel is the level of a length on which the analysis proves the
// format faithful to the construction: Certified where a claim proves the
// construction itself right at every length (Recipe.ProvedBy), Faithful
// otherwise.
func (ck *Checker) provenLevel() Level {
	if ck.Recipe.ProvedBy != "" {
		return Certified
	}
	return Faithful
}
