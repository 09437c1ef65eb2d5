package proofs

import (
	"fmt"
	"slices"
	"strings"

	"github.com/transformer-cookbook/verify/check"
	"github.com/transformer-cookbook/verify/internal/plural"
	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/model/eval"
	"github.com/transformer-cookbook/verify/numeric"
)

// A literal recipe (NAME-literal) is a construction exactly as printed,
// and its claim is usually refuted by one input. One input says that the
// printed construction is wrong, not how wrong: LiteralBehaviour runs the
// recipe's own check on every input of every length up to a bound and
// counts, length by length, the inputs it gets wrong, so that a claim can
// say what the printed construction actually computes.

// LiteralRun is what a literal recipe computed on every input of every
// length up to a bound.
type LiteralRun struct {
	Lengths []LiteralLength
	// Smallest is the first wrong input in the order the recipe
	// enumerates its inputs (by length, then lexicographically in the
	// order of its alphabet), Position its first wrong position and
	// Reason what was wrong there; Smallest is "" when none was wrong.
	Smallest string
	Position int
	Reason   string
}

// LiteralLength counts the inputs of length N that some position got
// wrong (Wrong) among all Total inputs of that length.
type LiteralLength struct{ N, Wrong, Total int }

// LiteralBehaviour runs s's recipe on every input of length 1 … s.maxN,
// past the first failing length. Every length must be enumerated: a count
// over a sample would not say what the construction does.
func LiteralBehaviour(s Sweep) (*LiteralRun, error) {
	run, _, err := LiteralCheck(s)
	return run, err
}

// LiteralCheck is LiteralBehaviour with the report it was read from.
func LiteralCheck(s Sweep) (*LiteralRun, *check.Report, error) {
	s.AllLengths = true
	rep, _, err := s.Run()
	if err != nil {
		return nil, nil, err
	}
	if rep.Interrupted {
		return nil, nil, fmt.Errorf("%s: the sweep was interrupted", s.Describe())
	}
	run := &LiteralRun{}
	for _, lr := range rep.Lengths {
		if !lr.Exhaustive {
			return nil, nil, fmt.Errorf("%s: length %d has too many inputs to enumerate (%d run)", s.Describe(), lr.N, lr.Cases)
		}
		run.Lengths = append(run.Lengths, LiteralLength{N: lr.N, Wrong: lr.Cases - lr.Passed, Total: lr.Cases})
	}
	if len(run.Lengths) != s.MaxN {
		return nil, nil, fmt.Errorf("%s: %s checked, want 1 … %d", s.Describe(), plural.Of(len(run.Lengths), "length"), s.MaxN)
	}
	if f := rep.FirstFailure; f != nil {
		run.Smallest, run.Position, run.Reason = f.Input, f.Position, f.Reason
	}
	return run, rep, nil
}

// LiteralEvidence is the evidence of a literal recipe's claim over every
// input up to each sweep's maxN: REFUTED by the smallest wrong input of
// the first sweep that has one, with what the construction does at every
// length under each sweep, or PROVED for those finite domains when
// nothing is wrong.
func LiteralEvidence(ss ...Sweep) (*Evidence, error) {
	var ev *Evidence
	var parts, done []string
	for _, s := range ss {
		run, rep, err := LiteralCheck(s)
		if err != nil {
			return nil, err
		}
		if ev == nil && !rep.Passed {
			ev = Failure(s, rep)
		}
		_, total := run.totals()
		done = append(done, fmt.Sprintf("%s, n ≤ %d (%d inputs, %s)", s.Describe(), s.MaxN, total, rep.Precision))
		parts = append(parts, s.Describe()+": "+run.String())
	}
	if ev == nil {
		return &Evidence{Verdict: Proved, Summary: "every input: " + strings.Join(done, "; ")}, nil
	}
	ev.Summary += "; " + strings.Join(parts, "; ")
	ev.Explain = append(ev.Explain, parts...)
	return ev, nil
}

// totals is the number of wrong inputs and of all inputs.
func (r *LiteralRun) totals() (wrong, total int) {
	for _, l := range r.Lengths {
		wrong += l.Wrong
		total += l.Total
	}
	return wrong, total
}

// String says how many inputs of each length the recipe got wrong and
// which is the smallest.
func (r *LiteralRun) String() string {
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

// LiteralExample is the evidence of a literal recipe's claim about the
// paper's own example: REFUTED by what it outputs there (Literal), with
// what it does on every input up to each of ss's bounds.
func LiteralExample(example Sweep, input string, ss ...Sweep) (*Evidence, error) {
	ev, err := Literal(example, input)
	if err != nil || ev.Verdict != Refuted {
		return ev, err
	}
	for _, s := range ss {
		run, err := LiteralBehaviour(s)
		if err != nil {
			return nil, err
		}
		part := s.Describe() + ": " + run.String()
		ev.Summary += "; " + part
		ev.Explain = append(ev.Explain, part)
	}
	return ev, nil
}

// Literal runs the literal recipe of s on the paper's example through
// RunInput (REFUTED at the first wrong position) and adds the whole
// output to the summary.
func Literal(s Sweep, input string) (*Evidence, error) {
	ev, err := RunInput(s, input)
	if err != nil || ev.Verdict != Refuted {
		return ev, err
	}
	ev.Summary = Stable(ev.Summary, s)
	con, err := Construct(s.Recipe, s.Weighting, s.MaxN, s.Params)
	if err != nil {
		return nil, err
	}
	res, err := RunExact(con.Model, input, false)
	if err != nil {
		return nil, err
	}
	if out := Symbols(res); out != "" {
		ev.Summary += fmt.Sprintf(" (it outputs %s)", out)
		return ev, nil
	}
	var vals []string
	for k, v := range res.Outputs[0].Values {
		vals = append(vals, con.Model.Output.Labels[k]+" = "+v.Text)
	}
	ev.Summary += fmt.Sprintf(" (it outputs %s)", strings.Join(vals, ", "))
	return ev, nil
}

// RunExact runs m exactly on text (its symbols), with the trace if asked.
func RunExact(m *model.Model, text string, trace bool) (*eval.Result, error) {
	in, err := m.Tokenize(text)
	if err != nil {
		return nil, err
	}
	r, err := eval.New(numeric.MustParsePrecision("exact"), m)
	if err != nil {
		return nil, err
	}
	return r.Run(in, trace)
}

// Symbols is the output symbols of res, concatenated.
func Symbols(res *eval.Result) string {
	var b strings.Builder
	for _, o := range res.Outputs {
		b.WriteString(o.Symbol)
	}
	return b.String()
}

// Stable rewrites s.describe()'s text in a summary (its parameters in
// map order) as describe's.
func Stable(text string, s Sweep) string {
	var ps []string
	for k, v := range s.Params {
		ps = append(ps, k+"="+v)
	}
	slices.Sort(ps)
	sorted := "(" + strings.Join(ps, ", ") + ")"
	var perms func(prefix, rest []string)
	perms = func(prefix, rest []string) {
		if len(rest) == 0 {
			text = strings.ReplaceAll(text, "("+strings.Join(prefix, ", ")+")", sorted)
			return
		}
		for i := range rest {
			perms(append(slices.Clone(prefix), rest[i]), append(slices.Clone(rest[:i]), rest[i+1:]...))
		}
	}
	perms(nil, ps)
	return text
}
