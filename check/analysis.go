package check

import (
	"math/big"
	"math/rand/v2"

	"github.com/transformer-cookbook/verify/certify"
	"github.com/transformer-cookbook/verify/certify/positionwise"
	"github.com/transformer-cookbook/verify/model/eval"
	"github.com/transformer-cookbook/verify/numeric"
	"github.com/transformer-cookbook/verify/recipes"
)

// Level is a level of evidence for one length. A report writes it as
// its string, so the constants' text is part of the reports' format.
type Level string

// Levels of evidence for one length, strongest first.
const (
	// Certified: a proof that every input of the length is right against
	// the intended function: the analysis (package certify) proved that
	// the format computes what the construction computes on every input,
	// and a claim of the registry proves the construction itself right at
	// every length (Recipe.ProvedBy).
	Certified Level = "certified"
	// Faithful: the analysis proved that the format computes what the
	// construction computes on every input of the length; the
	// construction itself is right on the inputs run (sampled).
	Faithful Level = "faithful"
	// Exhaustive: every input of the length was run.
	Exhaustive Level = "exhaustive"
	// Sampled: some inputs were run (how many, and how they were drawn,
	// the report says).
	Sampled Level = "sampled"
)

// DefaultAnalysisBudget is the work the analysis may do at one length
// (certify.Input.MaxWork: components of the vectors it computes) unless
// Options.AnalysisBudget says otherwise: about five seconds on one core
// where the analysis runs its general code (rational scores, broken
// orders, many tied candidates), much less where it decides on float64
// comparisons (the lookup at fp64, n = 4096, charges 4·10^8 in 0.15 s).
// The budget counts work, not time, so that whether a length is analysed
// does not depend on the machine.
const DefaultAnalysisBudget = 1 << 29

// maxCandidates bounds the inputs the analysis suggests per length up
// to n = 256; above, each input costs more, and the bound falls as 1/n to
// minCandidates (as CasesAt does for the drawn inputs).
const (
	maxCandidates = 32
	minCandidates = 4
)

// candidatesAt is the number of inputs the analysis suggests at length n.
func candidatesAt(n int) int {
	if n <= 256 {
		return maxCandidates
	}
	return max(minCandidates, maxCandidates*256/n)
}

// analysis is the analysis of one length, or why it did not run.
type analysis struct {
	res        *certify.Result // nil when it did not run
	pw         *positionwise.Result
	integers   *positionwise.IntegerRange // the widest integer domain, where pw fails
	skipped    string                     // why it did not run
	candidates []recipes.Case
	// budgeted: the analysis ran, or was skipped for the budget: a
	// shorter length's budget decides whether it runs (LengthPart.Drawn).
	budgeted bool
}

// analyse runs the analysis of length n once, and keeps it.
func (ck *Checker) analyse(n int) *analysis {
	ck.mu.Lock()
	if an, ok := ck.analyses[n]; ok {
		ck.mu.Unlock()
		return an
	}
	ck.mu.Unlock()
	an := ck.runAnalysis(n)
	ck.mu.Lock()
	defer ck.mu.Unlock()
	if ck.analyses == nil {
		ck.analyses = map[int]*analysis{}
	}
	ck.analyses[n] = an
	return an
}

// analysisOff says why the analysis never runs for this checker, at any
// length ("" when it may).
func (ck *Checker) analysisOff() string {
	switch {
	case !ck.opts.Analysis:
		return "the analysis is off"
	case ck.Recipe.Literal():
		return "the construction as printed is wrong: there is no right computation to certify against"
	case ck.spec == ck.Con.Model && ck.opts.Precision.Kind == numeric.KindExact:
		// The analysis certifies a run against the recipe's exact
		// construction; in exact arithmetic that is the run itself.
		return "in exact arithmetic the run is the recipe's construction itself: the analysis compares a precision with it, and has nothing to compare"
	}
	return ""
}

// SkipAnalysisAbove tells the checker that the analysis of length over
// ran out of its budget (in another run of the same sweep): the longer
// lengths it checks skip the analysis, as they would after checking over.
func (ck *Checker) SkipAnalysisAbove(over int) {
	ck.mu.Lock()
	defer ck.mu.Unlock()
	if over > 0 && (ck.overBudget == 0 || over < ck.overBudget) {
		ck.overBudget = over
	}
}

func (ck *Checker) runAnalysis(n int) *analysis {
	if off := ck.analysisOff(); off != "" {
		return &analysis{skipped: off}
	}
	ck.mu.Lock()
	over := ck.overBudget
	ck.mu.Unlock()
	if over > 0 && n > over {
		// The work grows with the length: a length past one that spent
		// the whole budget would spend it too, for nothing.
		return &analysis{skipped: budgetSkipped(over), budgeted: true}
	}
	an := ck.analyseLength(n)
	an.budgeted = true
	return an
}

// analyseLength runs the analysis of length n (runAnalysis past the
// checks that do not depend on n).
func (ck *Checker) analyseLength(n int) *analysis {
	return ck.analyseWith(n, nil)
}

// analyseWith is analyseLength with the analysis's chain (nil: none),
// which carries its work from one length to the next.
func (ck *Checker) analyseWith(n int, chain *certify.Chain) *analysis {
	con := ck.Con
	probe, _ := con.Inputs(n, rand.New(rand.NewPCG(0, 1)), 1)
	if ck.lengthwise() {
		return ck.lengthAnalysis(n)
	}
	if pw := ck.positionwise(); pw != nil {
		return ck.positionwiseAnalysis(pw, n)
	}
	if len(probe) == 0 || probe[0].Stream != nil {
		return &analysis{skipped: "the inputs are given by their residual streams (real vectors, or rational values the alphabet does not hold), not strings over a finite alphabet"}
	}
	budget := ck.opts.AnalysisBudget
	if budget <= 0 {
		budget = DefaultAnalysisBudget
	}
	right, decides := ck.judges(probe[0])
	exact, err := ck.exactSpec()
	if err != nil {
		return &analysis{skipped: "exact arithmetic cannot compute the recipe's construction: " + err.Error()}
	}
	res, err := certify.Length(certify.Input{
		Reference: ck.spec, Model: con.Model, Precision: ck.opts.Precision, Exact: exact, Runner: ck.Runner,
		Symbols: con.Symbols, MapSymbol: mapper(con.AdaptSymbols), Right: right, Decides: decides, MaxWork: int64(budget),
		Chain: chain, KeepCertificate: ck.opts.Certificates,
	}, n)
	if err != nil {
		return &analysis{skipped: "the analysis could not run: " + err.Error()}
	}
	if res.OverBudget {
		ck.mu.Lock()
		if ck.overBudget == 0 || n < ck.overBudget {
			ck.overBudget = n
		}
		ck.mu.Unlock()
	}
	an := &analysis{res: res}
	valid := func(in []int) bool { return con.Valid == nil || con.Valid(recipes.Case{Symbols: in}) == nil }
	for _, in := range certify.Candidates(res, con.Symbols, len(ck.spec.Alphabet), valid, candidatesAt(n)) {
		an.candidates = append(an.candidates, recipes.Case{Symbols: in})
	}
	return an
}

// judges are how the analysis (and its checker) judge a position, as the
// checker judges one against the construction's exact output: right, and
// where the outputs decide anything, decides. probe is an input, whose
// expected outputs tell a symbol compared by its symbol alone.
func (ck *Checker) judges(probe recipes.Case) (right func(ref, got eval.PositionOutput) (bool, string), decides func(ref, got eval.PositionOutput) bool) {
	con := ck.Con
	// The reference's shape: a symbol output is compared by its symbol
	// alone when the recipe's reference gives no values for it.
	symbolOnly := false
	if want := con.Expected(probe); len(want) > 0 {
		symbolOnly = want[0].Symbol != "" && len(want[0].Values) == 0 && len(want[0].Reals) == 0
	}
	labels := con.Model.Output.Labels
	right = func(ref, got eval.PositionOutput) (bool, string) {
		w := recipes.Want{Symbol: ref.Symbol}
		if !symbolOnly {
			for _, v := range ref.Values {
				x, ok := v.Rat()
				if !ok {
					return false, "the reference's output " + v.Text + " is not a point"
				}
				w.Values = append(w.Values, x)
			}
		}
		return Compare(w, got, con.Bounds, labels)
	}
	// Decisions are judged as the checker judges them, where the
	// outputs decide anything.
	if len(Decisions(con)) > 0 {
		decides = func(ref, got eval.PositionOutput) bool {
			w := recipes.Want{Symbol: ref.Symbol}
			if !symbolOnly {
				for _, v := range ref.Values {
					x, ok := v.Rat()
					if !ok {
						return false
					}
					w.Values = append(w.Values, x)
				}
			}
			return Decides(w, got, labels, con.Booleans)
		}
	}
	return right, decides
}

// exactSpec is the recipe's construction in exact arithmetic, built once.
func (ck *Checker) exactSpec() (*eval.Instance[*big.Rat], error) {
	ck.mu.Lock()
	defer ck.mu.Unlock()
	if ck.exact == nil && ck.exactErr == nil {
		ck.exact, ck.exactErr = eval.Instantiate[*big.Rat](numeric.Exact{}, ck.spec)
	}
	return ck.exact, ck.exactErr
}

// mapper turns a construction's symbol adapter into one symbol's map.
func mapper(adapt func([]int) []int) func(int) int {
	if adapt == nil {
		return nil
	}
	return func(s int) int { return adapt([]int{s})[0] }
}

// why is what a length report says of the analysis: "" when it
// certified the length.
func (an *analysis) why() string {
	switch {
	case an.pw != nil:
		return positionwiseWhy(an.pw)
	case an.res == nil:
		return an.skipped
	case an.res.Certified:
		return ""
	}
	return an.res.Why
}

// SimulatedReference names the reference of a construction that
// simulates average-hard attention (recipes.Construction.Simulated), in
// reports: the analysis proves a run within its bounds of it.
const SimulatedReference = "the average-hard construction it simulates"

// ReferenceOf is what the analysis certifies con's runs against, for
// reports: "" for the construction itself, or SimulatedReference.
func ReferenceOf(con *recipes.Construction) string {
	if con.Simulated != nil {
		return SimulatedReference
	}
	return ""
}

// FaithfulClaim is what a proof of faithfulness says every input does,
// against reference (ReferenceOf; "" for the construction itself).
func FaithfulClaim(reference string) string {
	if reference == "" {
		return "computes exactly what the construction computes"
	}
	return "computes what " + reference + " computes, each output within its claimed bound"
}

// ItselfRuns names, in reports, what the inputs run show beside a proof
// of faithfulness against reference (ReferenceOf): the construction
// itself right on them, since the format computes what it computes; or,
// where the reference is another construction and the claim a bound,
// the format's run right on them against the intended function, which
// is all those runs show.
func ItselfRuns(reference string) string {
	if reference == "" {
		return "the construction itself"
	}
	return "the run against the intended function"
}
