package check

import (
	"fmt"
	"math/big"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/transformer-cookbook/verify/certify/recheck"
	"github.com/transformer-cookbook/verify/numeric"
)

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
	// Reference is what the analysis certified runs against: empty for
	// the construction itself (check.ReferenceOf).
	Reference string `json:"reference,omitempty"`

	Lengths []LengthReport `json:"lengths"`
	// Limit is the largest n such that every checked length up to n
	// passed (0 if the smallest failed); it says nothing of unchecked
	// lengths between the checked ones.
	Limit int `json:"limit"`
	// LimitLevel is the weakest Level among the lengths checked up to
	// Limit: Certified or Exhaustive only when every one of them covers
	// every input of its length against the intended function, Faithful
	// when every one covers every input against the construction.
	LimitLevel Level `json:"limit_level,omitempty"`
	// Every says whether the evidence of LimitLevel covers every length
	// 1 … Limit (MinN … Limit), not only the checked ones: each length
	// between them was certified by the analysis too, or run whole
	// (EveryLength says how).
	Every        bool         `json:"every_length,omitempty"`
	EveryLength  *EveryLength `json:"every_length_check,omitempty"`
	FirstFailure *Failure     `json:"first_failure,omitempty"`
	Passed       bool         `json:"passed"`
	// Decisions lists what the outputs decide (the truth-value outputs,
	// or "symbol"); then DecisionLimit is the largest n such that every
	// case of every checked length up to n decides right, even where it
	// is not exact, with its evidence (DecisionLevel).
	Decisions     []string `json:"decisions,omitempty"`
	DecisionLimit int      `json:"decision_limit,omitempty"`
	DecisionLevel Level    `json:"decision_level,omitempty"`
	// Interrupted says the check was stopped (Ctrl-C) before its last
	// length: Lengths hold what was checked.
	Interrupted bool `json:"interrupted,omitempty"`
	// Certificates holds, where Options.Certificates asked for them, the
	// certificate of every length the analysis certified, in increasing
	// length.
	Certificates []*recheck.Encoded `json:"-"`
}

// LengthReport summarises the cases of one length.
type LengthReport struct {
	N          int  `json:"n"`
	Cases      int  `json:"cases"`
	Exhaustive bool `json:"exhaustive"`
	// Level is how the length was established: Exhaustive (every input
	// run), Certified (a proof that every input is right: the analysis
	// proved the format faithful to the construction, and a claim proves
	// the construction, Proof), Faithful (the analysis proved the format
	// faithful to the construction; the construction is right on the
	// inputs run) or Sampled (Cases inputs run: Candidates suggested by
	// the analysis, the rest drawn at random with the report's seed).
	Level Level `json:"level"`
	// Proof names the claim that proves the construction right at every
	// length, where Level is Certified.
	Proof      string `json:"proof,omitempty"`
	Candidates int    `json:"candidates,omitempty"`
	// DecisionLevel is the evidence that every input decides right
	// (Decides), when every case run did: Level, or Certified where the
	// analysis proved the decisions right although not the outputs
	// exact. Empty means Level (DecisionEvidence).
	DecisionLevel Level `json:"decision_level,omitempty"`
	// Positionwise, for a construction that computes each position on
	// its own, states what the analysis of one position proved or ran,
	// over which domain (package certify/positionwise): it holds at
	// every length, and Level says how.
	Positionwise string `json:"positionwise,omitempty"`
	// Integers, for such a construction that fails on the format's
	// values (or is undecided there), is the widest domain of integer
	// inputs on which every input is right.
	Integers *IntegerDomain `json:"integers,omitempty"`
	// Analysis says why the analysis did not certify the length ("" when
	// it did, or when every input was run).
	Analysis string `json:"analysis,omitempty"`
	// Exact counts cases whose every output equals the reference exactly;
	// Passed those within the claimed bounds (exact where none is given).
	Exact  int `json:"exact"`
	Passed int `json:"passed"`
	// Decided counts cases whose every output decides right (Decides):
	// the truth values on the right side of 1/2, the right symbol.
	Decided int `json:"decided"`
	// MaxError is max |output − reference| over the cases, per output
	// value, as a decimal ("inf" when an output was not finite).
	MaxError []string `json:"max_error"`
	Failure  *Failure `json:"failure,omitempty"`
}

// Failure is one wrong case.
type Failure struct {
	N int `json:"n"`
	// Case is the input's index among the inputs of its length.
	Case int `json:"case"`
	// Found is "analysis" when the input is one the analysis suggested.
	Found    string   `json:"found,omitempty"`
	Input    string   `json:"input"`
	Position int      `json:"position"`
	Expected []string `json:"expected"`
	Actual   []string `json:"actual"`
	Reason   string   `json:"reason"`
	// CannotRun says the precision could not compute the case at all (an
	// irrational value in exact arithmetic): Run reports it as an
	// error, not as a finding.
	CannotRun bool `json:"cannot_run,omitempty"`
	// Irrational says the expected values include irrational ones: a
	// rounding format is judged against their correct rounding, intervals
	// by containing them (CompareAt).
	Irrational bool `json:"irrational,omitempty"`
	// Undecided says no output of the input was refuted, and one was not
	// confirmed: interval arithmetic could not decide it (an enclosure
	// contains its rational reference but is not a single point, or a
	// comparison the model makes was undecided), or a real reference's
	// enclosure, refined, still straddles the comparison (its correct
	// rounding, a bound). It is not a pass, and not a counterexample.
	Undecided bool `json:"undecided,omitempty"`
}

// before reports whether f is the failure to report rather than g (nil:
// none): a refutation before an undecided case, then the lower case
// index; within one case (equal indices) the earlier position, which
// came first.
func (f *Failure) before(g *Failure) bool {
	switch {
	case f == nil:
		return false
	case g == nil:
		return true
	case f.Undecided != g.Undecided:
		return !f.Undecided
	}
	return f.Case < g.Case
}

// DecisionEvidence is the evidence that every input of the length
// decides right, when every case run did (DecisionLevel, or Level).
func (lr LengthReport) DecisionEvidence() Level {
	if lr.DecisionLevel != "" {
		return lr.DecisionLevel
	}
	return lr.Level
}

// MergeLength combines the reports of the shards of one length into the
// report one unsharded run makes: counts add up, the largest error is
// the largest of the shards', and the failure is the one an unsharded
// run reports (a refutation before an undecided input, then the lowest
// input index).
func MergeLength(parts []LengthReport) LengthReport {
	// The analysis is the length's, the same in every shard that ran it;
	// a shard whose drawn inputs fail did not need it.
	out := LengthReport{N: parts[0].N, Exhaustive: parts[0].Exhaustive, Level: parts[0].Level, Candidates: parts[0].Candidates, Analysis: parts[0].Analysis, Integers: parts[0].Integers}
	out.DecisionLevel = parts[0].DecisionEvidence()
	for _, p := range parts[1:] {
		out.Level = Weaker(out.Level, p.Level)
		out.DecisionLevel = Weaker(out.DecisionLevel, p.DecisionEvidence())
		out.Candidates = max(out.Candidates, p.Candidates)
		if out.Analysis == AnalysisNotNeeded {
			out.Analysis = p.Analysis
		}
	}
	var best []*big.Float // nil entry: inf
	for _, p := range parts {
		out.Cases += p.Cases
		out.Exact += p.Exact
		out.Passed += p.Passed
		out.Decided += p.Decided
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
		if p.Failure.before(out.Failure) {
			out.Failure = p.Failure
		}
	}
	if out.DecisionLevel == out.Level {
		out.DecisionLevel = "" // as an unsharded run says it
	}
	return out
}

// Weaker returns the weaker of two levels of evidence ("" counts as none
// yet): Sampled below Faithful below Certified and Exhaustive; certified
// beside exhaustive is Certified (every input covered either way).
func Weaker(a, b Level) Level {
	rank := map[Level]int{"": 3, Certified: 2, Exhaustive: 2, Faithful: 1, Sampled: 0}
	switch {
	case rank[a] < rank[b]:
		return a
	case rank[b] < rank[a]:
		return b
	case a != b && a != "" && b != "":
		// Certified beside exhaustive: every input covered either way.
		return Certified
	}
	return a
}

// joinLevels is the levels' names, separated by commas.
func joinLevels(levels []Level) string {
	names := make([]string, len(levels))
	for k, l := range levels {
		names[k] = string(l)
	}
	return strings.Join(names, ", ")
}

// maxErrorText bounds the text of a MaxError entry read back from a
// file: the engine writes three significant digits ("0.833",
// "1.5e-05") or "inf".
const maxErrorText = 32

// maxAnalysisText bounds the analysis note of a length read back from a
// file: the engine's notes are one sentence, well under it.
const maxAnalysisText = 1000

// printable reports whether s is valid UTF-8 of at most max bytes with
// no control character: one line of text, as the engine writes.
func printable(s string, max int) bool {
	if len(s) > max || !utf8.ValidString(s) {
		return false
	}
	return !strings.ContainsFunc(s, unicode.IsControl)
}

// Validate reports the first way lr contradicts itself or the bounds of
// a report for lengths up to maxN, naming the field: counts outside
// [0, cases] or exact above passed, an analysis note that is not one
// line of text, a failure at another length or position or missing where
// a case failed (or present where none did), an unknown evidence level, a
// maximum error that is not a short non-negative decimal or "inf". It is for reports read back from a
// file (a shard of a sweep), which a hand or a bug may have edited.
func (lr LengthReport) Validate(maxN int) error {
	levels := []Level{Certified, Exhaustive, Faithful, Sampled}
	switch {
	case lr.N < 1 || lr.N > maxN:
		return fmt.Errorf("n = %d is outside [1, %d]", lr.N, maxN)
	case lr.Cases < 0:
		return fmt.Errorf("n = %d: cases = %d is negative", lr.N, lr.Cases)
	case lr.Passed < 0 || lr.Passed > lr.Cases:
		return fmt.Errorf("n = %d: passed = %d is outside [0, cases = %d]", lr.N, lr.Passed, lr.Cases)
	case lr.Exact < 0 || lr.Exact > lr.Passed:
		return fmt.Errorf("n = %d: exact = %d is outside [0, passed = %d]", lr.N, lr.Exact, lr.Passed)
	case lr.Decided < 0 || lr.Decided > lr.Cases:
		return fmt.Errorf("n = %d: decided = %d is outside [0, cases = %d]", lr.N, lr.Decided, lr.Cases)
	case lr.Candidates < 0:
		return fmt.Errorf("n = %d: candidates = %d is negative", lr.N, lr.Candidates)
	case !slices.Contains(levels, lr.Level):
		return fmt.Errorf("n = %d: level %.40q is not one of %s", lr.N, lr.Level, joinLevels(levels))
	case lr.DecisionLevel != "" && !slices.Contains(levels, lr.DecisionLevel):
		return fmt.Errorf("n = %d: decision_level %.40q is not one of %s", lr.N, lr.DecisionLevel, joinLevels(levels))
	case !printable(lr.Analysis, maxAnalysisText):
		return fmt.Errorf("n = %d: analysis %.40q is not a line of text of at most %d bytes", lr.N, lr.Analysis, maxAnalysisText)
	case lr.Passed < lr.Cases && lr.Failure == nil:
		return fmt.Errorf("n = %d: passed = %d of %d cases, but no failure is given", lr.N, lr.Passed, lr.Cases)
	case lr.Passed == lr.Cases && lr.Failure != nil:
		return fmt.Errorf("n = %d: every case passed (%d), but a failure is given", lr.N, lr.Cases)
	}
	for k, e := range lr.MaxError {
		if e == "inf" {
			continue
		}
		v, _, err := big.ParseFloat(e, 10, 64, big.ToNearestEven)
		if len(e) > maxErrorText || err != nil || v.IsInf() || v.Sign() < 0 {
			return fmt.Errorf("n = %d: max_error[%d] = %.40q is not a non-negative decimal of at most %d characters, or inf", lr.N, k, e, maxErrorText)
		}
	}
	if f := lr.Failure; f != nil {
		switch {
		case f.N != lr.N:
			return fmt.Errorf("n = %d: the failure is at n = %d", lr.N, f.N)
		case f.Case < 0:
			return fmt.Errorf("n = %d: failure.case = %d is negative", lr.N, f.Case)
		case f.Position < 0 || f.Position > lr.N:
			// 0: the input as a whole, which did not run.
			return fmt.Errorf("n = %d: failure.position = %d is outside [0, %d]", lr.N, f.Position, lr.N)
		}
	}
	return lr.validatePositionwise()
}

// validatePositionwise checks the position-wise statement, a line of
// text like Analysis.
func (lr LengthReport) validatePositionwise() error {
	if !printable(lr.Positionwise, maxAnalysisText) {
		return fmt.Errorf("n = %d: positionwise %.40q is not a line of text of at most %d bytes", lr.N, lr.Positionwise, maxAnalysisText)
	}
	if d := lr.Integers; d != nil {
		switch {
		case d.Width < -1 || d.Width > numeric.MaxBits:
			return fmt.Errorf("n = %d: integers.width = %d is outside [-1, %d]", lr.N, d.Width, numeric.MaxBits)
		case d.Width >= 0 && d.Level != Exhaustive && d.Level != Faithful && d.Level != Certified:
			return fmt.Errorf("n = %d: integers.level = %q, want exhaustive, faithful or certified", lr.N, d.Level)
		case d.Width < 0 && d.Level != "":
			return fmt.Errorf("n = %d: integers.level = %q with no width proved", lr.N, d.Level)
		case !printable(d.Statement, maxAnalysisText) || d.Statement == "":
			return fmt.Errorf("n = %d: integers.statement %.40q is not a line of text of at most %d bytes", lr.N, d.Statement, maxAnalysisText)
		}
	}
	return nil
}
