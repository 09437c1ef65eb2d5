package check

import (
	"fmt"
	"math/bits"
	"slices"

	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/numeric"
)

// A sweep split over machines (the shards of package frontier) divides
// the work of its lengths into parts that run apart: an exhaustive
// length into ranges of its inputs, a sampled length not at all (whether
// it needs the analysis depends on its drawn inputs, and its suggestions
// on the analysis). A part keeps what its length's report is made of, so
// that the report composed from the parts (ComposeLength) is the one a
// single run makes, byte for byte. One thing a part cannot know is
// decided there: the analysis is skipped above the shortest length whose
// analysis ran out of its budget, and that length may be another part's.

// LengthPart is the work of one part of a length.
type LengthPart struct {
	N int `json:"n"`
	// From, To and Of say which inputs of an exhaustive length the part
	// checked: those of index From ≤ k < To among the Of inputs of the
	// length, in the order of their enumeration. A sampled length is one
	// part, with all three 0.
	From int `json:"from,omitempty"`
	To   int `json:"to,omitempty"`
	Of   int `json:"of,omitempty"`
	// Report is the part's report: its inputs' of an exhaustive length;
	// a sampled length's as Length gives it, given the shorter lengths
	// this part's checker saw.
	Report LengthReport `json:"report"`
	// Drawn is, where the analysis of a sampled length ran or was skipped
	// for its budget, the report of the drawn inputs alone (without the
	// analysis' word): the length's report when a shorter length ran out
	// of the budget first.
	Drawn *LengthReport `json:"drawn,omitempty"`
	// OverBudget says the analysis of the length stopped on its budget.
	OverBudget bool `json:"over_budget,omitempty"`
	// FailureInput is the input of Report's failure where the analysis
	// suggested it: what a diagnosis runs, without the analysis again.
	FailureInput []int `json:"failure_input,omitempty"`
}

// Exhaustive reports whether the part holds inputs of an exhaustive
// length (a range of them), rather than a whole sampled length.
func (p LengthPart) Exhaustive() bool { return p.Of > 0 }

// budgetSkipped is what a length report says of an analysis skipped
// because the analysis of a shorter length, over, ran out of its budget.
func budgetSkipped(over int) string {
	return fmt.Sprintf("the analysis ran out of its budget at n = %d, below this length", over)
}

// ComposeLength is the report of one length from its parts (a sampled
// length's one part, or ranges covering every input of an exhaustive
// length), where overBudget is the shortest length below it whose
// analysis ran out of its budget (0: none). over says that this length's
// own analysis did, so that longer lengths skip it. The parts must be of
// one length; ValidateParts checks parts read from a file.
func ComposeLength(parts []LengthPart, overBudget int) (lr LengthReport, over bool) {
	p := parts[0]
	if p.Exhaustive() {
		if len(parts) == 1 {
			return p.Report, false
		}
		reports := make([]LengthReport, len(parts))
		for k := range parts {
			reports[k] = parts[k].Report
		}
		return MergeLength(reports), false
	}
	if p.Drawn != nil && overBudget > 0 && p.N > overBudget {
		lr = *p.Drawn
		lr.Analysis = budgetSkipped(overBudget)
		return lr, false
	}
	return p.Report, p.OverBudget
}

// Validate reports the first way a part contradicts itself, naming the
// field: a report or drawn report that LengthReport.Validate refuses, a
// drawn report that is not a part of its report, a range that is not one
// or does not hold the report's cases, a failure outside it. It is for
// parts read back from files.
func (p LengthPart) Validate(maxN int) error {
	if err := p.Report.Validate(maxN); err != nil {
		return err
	}
	if err := p.validateRange(); err != nil {
		return err
	}
	if p.Exhaustive() {
		if err := p.validateExhaustive(); err != nil {
			return err
		}
	} else if r := p.Report; r.Exhaustive || (r.Level == Exhaustive && r.Positionwise == "") {
		// A sampled length is exhaustive only where every input of one
		// position was run (Positionwise says so).
		return fmt.Errorf("n = %d: an exhaustive report without the range of its inputs", p.N)
	}
	if err := p.validateFailureInput(); err != nil {
		return err
	}
	if p.Drawn == nil {
		return nil
	}
	return p.validateDrawn(maxN)
}

func (p LengthPart) validateRange() error {
	n := p.N
	if p.Report.N != n {
		return fmt.Errorf("n = %d: a report of n = %d", n, p.Report.N)
	}
	if p.From < 0 || p.To < p.From || p.Of < p.To {
		return fmt.Errorf("n = %d: inputs [%d, %d) of %d is not a range of them", n, p.From, p.To, p.Of)
	}
	return nil
}

// validateExhaustive checks that an exhaustive part's report is that of
// every input of its range and nothing else: an analysis is only ever
// run on a sampled length.
func (p LengthPart) validateExhaustive() error {
	n, r := p.N, p.Report
	if r.Cases != p.To-p.From || r.Level != Exhaustive || !r.Exhaustive {
		return fmt.Errorf("n = %d: inputs [%d, %d) hold %d cases at level %s, want %d, exhaustive", n, p.From, p.To, r.Cases, r.Level, p.To-p.From)
	}
	if p.Drawn != nil || p.OverBudget || p.FailureInput != nil || r.Candidates != 0 || r.Analysis != "" {
		return fmt.Errorf("n = %d: an exhaustive part with an analysis", n)
	}
	if r.Failure != nil && (r.Failure.Case < p.From || r.Failure.Case >= p.To) {
		return fmt.Errorf("n = %d: failure.case = %d is outside the part's inputs [%d, %d)", n, r.Failure.Case, p.From, p.To)
	}
	return nil
}

// validateFailureInput checks that a failure input is one of the length
// and goes with a failure the analysis found.
func (p LengthPart) validateFailureInput() error {
	n, r := p.N, p.Report
	if p.FailureInput != nil && (r.Failure == nil || r.Failure.Found != "analysis" || len(p.FailureInput) != n) {
		return fmt.Errorf("n = %d: failure_input does not go with the failure", n)
	}
	for _, s := range p.FailureInput {
		if s < 0 {
			return fmt.Errorf("n = %d: failure_input holds %d", n, s)
		}
	}
	return nil
}

// validateDrawn checks that the drawn report is the length's report
// before the analysis added its suggestions.
func (p LengthPart) validateDrawn(maxN int) error {
	n, r, d := p.N, p.Report, p.Drawn
	if err := d.Validate(maxN); err != nil {
		return fmt.Errorf("drawn: %w", err)
	}
	switch {
	case d.N != n || d.Level != Sampled || d.Exhaustive || d.Candidates != 0 || d.Analysis != "" || d.DecisionLevel != "":
		return fmt.Errorf("n = %d: the drawn report is not that of sampled inputs before the analysis", n)
	case d.Cases > r.Cases || d.Passed > r.Passed || d.Exact > r.Exact || d.Decided > r.Decided:
		return fmt.Errorf("n = %d: the drawn report counts more than the length's", n)
	case r.Cases-d.Cases != r.Candidates:
		return fmt.Errorf("n = %d: %d cases, of which %d drawn and %d suggested", n, r.Cases, d.Cases, r.Candidates)
	}
	return nil
}

// ValidateParts reports the first way the parts of one length contradict
// themselves (Validate) or each other: parts of different lengths, a
// sampled length in more than one part, or ranges that do not cover the
// inputs of an exhaustive length once each.
func ValidateParts(parts []LengthPart, maxN int) error {
	if len(parts) == 0 {
		return fmt.Errorf("no part")
	}
	n := parts[0].N
	for _, p := range parts {
		if p.N != n {
			return fmt.Errorf("n = %d: a part of n = %d among its parts", n, p.N)
		}
		if err := p.Validate(maxN); err != nil {
			return err
		}
	}
	if !parts[0].Exhaustive() {
		if len(parts) > 1 {
			return fmt.Errorf("n = %d: a sampled length in %d parts", n, len(parts))
		}
		return nil
	}
	sorted := slices.Clone(parts)
	slices.SortFunc(sorted, func(a, b LengthPart) int { return a.From - b.From })
	at := 0
	for _, p := range sorted {
		if !p.Exhaustive() || p.Of != sorted[0].Of {
			return fmt.Errorf("n = %d: parts of %d inputs and of %d", n, sorted[0].Of, p.Of)
		}
		if p.From != at {
			return fmt.Errorf("n = %d: the parts do not cover inputs [%d, %d) once each", n, min(at, p.From), max(at, p.From))
		}
		at = p.To
	}
	if at != sorted[0].Of {
		return fmt.Errorf("n = %d: the parts do not cover inputs [%d, %d)", n, at, sorted[0].Of)
	}
	return nil
}

// Work is what a plan needs to know of one length: how many inputs an
// exhaustive length has (0: the length is sampled), and an estimate of
// what its check costs, in about nanoseconds of one core.
type Work struct {
	Inputs int
	Cost   float64
}

// Work estimates the work of length n without running it. An input of
// length n costs about its attention's n² score terms (and the n
// positions' projections and feed-forward layers), times what a number
// of the precision costs; a depth-first enumeration pays one position a
// string; the analysis of a sampled length about 64 inputs at float64
// (measured: 10 to 500 ns per multiply-add of an input, across recipes),
// though it does not run where a drawn input already fails, nor above a
// length whose analysis ran out of its budget. An estimate, for a plan
// to divide between shards (plan.go in package frontier); it is
// the same on every machine (each product is rounded on its own, as the
// explicit conversions say, never fused into a multiply-add), so that
// shards on different machines plan alike.
func (ck *Checker) Work(n int) Work {
	per := float64(inputCost(ck.Con.Model, n) * precisionCost(ck.opts.Precision))
	if total, ok := ck.depthFirst(n); ok {
		return Work{Inputs: total, Cost: float64(float64(total)*per) / float64(n)}
	}
	inputs, exhaustive := ck.drawn(n)
	if exhaustive {
		return Work{Inputs: len(inputs), Cost: float64(float64(len(inputs)) * per)}
	}
	// Besides its inputs, a sampled length costs some milliseconds
	// whatever n (drawing the inputs, setting up the analysis), which is
	// most of a short one's time.
	cost := float64(float64(len(inputs))*per) + 1e7
	if ck.analysisOff() == "" {
		cost += float64(64 * inputCost(ck.Con.Model, n))
	}
	return Work{Cost: cost}
}

// inputCost is about how many multiply-adds one input of length n takes.
func inputCost(m *model.Model, n int) float64 {
	nn := float64(n)
	cost := float64(nn * float64(m.D+len(m.Output.W.Data)))
	for _, l := range m.Layers {
		if a := l.Attention; a != nil {
			for _, h := range a.Heads {
				cost += float64(nn * float64(len(h.Q.Data)+len(h.K.Data)+len(h.V.Data)))
				cost += float64(float64(nn*nn) * float64(h.K.Rows+h.V.Rows))
			}
		}
		if f := l.FeedForward; f != nil {
			cost += float64(nn * float64(len(f.W1.Data)+len(f.W2.Data)))
		}
	}
	return cost
}

// Estimate is about what one input of length n costs at precision p, in
// the units of Work, for a model whose attention reads one number a
// score: where no model is at hand (a plan of bisections).
func Estimate(p numeric.Precision, n int) float64 {
	return float64(float64(n)*float64(n)) * precisionCost(p)
}

// precisionCost is about what an operation costs at p, against a
// float64's: emulated formats round in software, big floats and
// rationals allocate.
func precisionCost(p numeric.Precision) float64 {
	switch p.Kind {
	case numeric.KindFloat64, numeric.KindFloat32:
		return 1
	case numeric.KindEmulated:
		return 6
	case numeric.KindBigFloat:
		return 20 + float64(p.Bits)/8
	case numeric.KindInterval:
		return 2 * (20 + float64(p.Bits)/8)
	}
	return 60
}

// Part checks part part (from 0) of parts of length n: for an
// exhaustive length of C inputs, those of index ⌊part·C/parts⌋ ≤ k <
// ⌊(part+1)·C/parts⌋; a sampled length is one part (parts must be 1,
// Work says which lengths are sampled).
func (ck *Checker) Part(n, part, parts int) (LengthPart, error) {
	return ck.part(n, part, parts, nil)
}

// partRange is the range of inputs of part part of parts, of total
// (part ≤ parts, so that the quotient fits).
func partRange(part, parts, total int) (from, to int) {
	at := func(k int) int {
		hi, lo := bits.Mul64(uint64(k), uint64(total))
		q, _ := bits.Div64(hi, lo, uint64(parts))
		return int(q)
	}
	return at(part), at(part + 1)
}
