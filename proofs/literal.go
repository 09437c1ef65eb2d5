package proofs

import (
	"fmt"
	"strings"

	"github.com/transformer-cookbook/verify/check"
	"github.com/transformer-cookbook/verify/internal/plural"
)

// A literal recipe (NAME-literal) is a construction exactly as printed,
// and its claim is usually refuted by one input. One input says that the
// printed construction is wrong, not how wrong: literalBehaviour runs the
// recipe's own check on every input of every length up to a bound and
// counts, length by length, the inputs it gets wrong, so that a claim can
// say what the printed construction actually computes.

// literalRun is what a literal recipe computed on every input of every
// length up to a bound.
type literalRun struct {
	Lengths []literalLength
	// Smallest is the first wrong input in the order the recipe
	// enumerates its inputs (by length, then lexicographically in the
	// order of its alphabet), Position its first wrong position and
	// Reason what was wrong there; Smallest is "" when none was wrong.
	Smallest string
	Position int
	Reason   string
}

// literalLength counts the inputs of length N that some position got
// wrong (Wrong) among all Total inputs of that length.
type literalLength struct{ N, Wrong, Total int }

// literalBehaviour runs s's recipe on every input of length 1 … s.maxN,
// past the first failing length. Every length must be enumerated: a count
// over a sample would not say what the construction does.
func literalBehaviour(s sweep) (*literalRun, error) {
	run, _, err := literalCheck(s)
	return run, err
}

// literalCheck is literalBehaviour with the report it was read from.
func literalCheck(s sweep) (*literalRun, *check.Report, error) {
	s.allLengths = true
	rep, _, err := s.run()
	if err != nil {
		return nil, nil, err
	}
	if rep.Interrupted {
		return nil, nil, fmt.Errorf("%s: the sweep was interrupted", s.describe())
	}
	run := &literalRun{}
	for _, lr := range rep.Lengths {
		if !lr.Exhaustive {
			return nil, nil, fmt.Errorf("%s: length %d has too many inputs to enumerate (%d run)", s.describe(), lr.N, lr.Cases)
		}
		run.Lengths = append(run.Lengths, literalLength{N: lr.N, Wrong: lr.Cases - lr.Passed, Total: lr.Cases})
	}
	if len(run.Lengths) != s.maxN {
		return nil, nil, fmt.Errorf("%s: %s checked, want 1 … %d", s.describe(), plural.Of(len(run.Lengths), "length"), s.maxN)
	}
	if f := rep.FirstFailure; f != nil {
		run.Smallest, run.Position, run.Reason = f.Input, f.Position, f.Reason
	}
	return run, rep, nil
}

// literalEvidence is the evidence of a literal recipe's claim over every
// input up to each sweep's maxN: REFUTED by the smallest wrong input of
// the first sweep that has one, with what the construction does at every
// length under each sweep, or PROVED for those finite domains when
// nothing is wrong.
func literalEvidence(ss ...sweep) (*Evidence, error) {
	var ev *Evidence
	var parts, done []string
	for _, s := range ss {
		run, rep, err := literalCheck(s)
		if err != nil {
			return nil, err
		}
		if ev == nil && !rep.Passed {
			ev = failure(s, rep)
		}
		_, total := run.totals()
		done = append(done, fmt.Sprintf("%s, n ≤ %d (%d inputs, %s)", s.describe(), s.maxN, total, rep.Precision))
		parts = append(parts, s.describe()+": "+run.String())
	}
	if ev == nil {
		return &Evidence{Verdict: Proved, Summary: "every input: " + strings.Join(done, "; ")}, nil
	}
	ev.Summary += "; " + strings.Join(parts, "; ")
	ev.Explain = append(ev.Explain, parts...)
	return ev, nil
}

// totals is the number of wrong inputs and of all inputs.
func (r *literalRun) totals() (wrong, total int) {
	for _, l := range r.Lengths {
		wrong += l.Wrong
		total += l.Total
	}
	return wrong, total
}

// String says how many inputs of each length the recipe got wrong and
// which is the smallest.
func (r *literalRun) String() string {
	wrong, total := r.totals()
	var per []string
	for _, l := range r.Lengths {
		per = append(per, fmt.Sprintf("%d/%d", l.Wrong, l.Total))
	}
	n := len(r.Lengths)
	if r.Smallest == "" {
		return fmt.Sprintf("on every input of length ≤ %d it is right (%d inputs)", n, total)
	}
	return fmt.Sprintf("on every input of length ≤ %d it is wrong on %d of %d (wrong/all by length 1 … %d: %s), the smallest wrong input %q (at position %d)",
		n, wrong, total, n, strings.Join(per, ", "), r.Smallest, r.Position)
}

// literalExample is the evidence of a literal recipe's claim about the
// paper's own example: REFUTED by what it outputs there (exLiteral), with
// what it does on every input up to each of ss's bounds.
func literalExample(example sweep, input string, ss ...sweep) (*Evidence, error) {
	ev, err := exLiteral(example, input)
	if err != nil || ev.Verdict != Refuted {
		return ev, err
	}
	for _, s := range ss {
		run, err := literalBehaviour(s)
		if err != nil {
			return nil, err
		}
		part := s.describe() + ": " + run.String()
		ev.Summary += "; " + part
		ev.Explain = append(ev.Explain, part)
	}
	return ev, nil
}
