package check

import (
	"fmt"
	"math/big"

	"github.com/transformer-cookbook/verify/certify/positionwise"
	"github.com/transformer-cookbook/verify/recipes"
)

// A construction whose model computes each position on its own (no
// attention, no position encoding: the feed-forward recipes) is right on
// every input of every length exactly when it is right on every input of
// one position. Its analysis (package certify/positionwise) decides that
// once, at one position, over the precision's finite values in the
// recipe's claimed domain, and every length reports it.

// pointwise is the checker's position-wise analysis: its result, or why
// it did not run.
type pointwise struct {
	res     *positionwise.Result
	skipped string
	// integers is the widest integer domain the analysis proves, where
	// it does not prove the whole one (nil: not searched).
	integers *positionwise.IntegerRange
}

// integerMaxBoxes bounds the boxes of each width's analysis in the
// search for the widest integer domain: a width left undecided counts
// as not proved, so the bound costs reach, never soundness.
const integerMaxBoxes = 1 << 10

// positionwiseSeed seeds the points the analysis tries in boxes it cannot
// prove, from the checker's seed.
const positionwiseSeed = 0x70_77_69_73_65

// positionwise runs the position-wise analysis once (nil: the
// construction's inputs are not real vectors).
func (ck *Checker) positionwise() *pointwise {
	if ck.Con.Vector == nil {
		return nil
	}
	ck.pwOnce.Do(func() { ck.pw = ck.runPositionwise() })
	return ck.pw
}

func (ck *Checker) runPositionwise() *pointwise {
	con := ck.Con
	if off := ck.analysisOff(); off != "" {
		return &pointwise{skipped: off}
	}
	if ck.spec != con.Model {
		return &pointwise{skipped: "a model from a file: the position-wise analysis treats the recipe's own construction"}
	}
	m, premise, why := ck.positionwiseModel()
	if why != "" {
		return &pointwise{skipped: "the inputs are real vectors, and the position-wise analysis does not apply: " + why}
	}
	pr := ck.positionwiseProblem()
	pr.Model = m
	res, err := positionwise.Analyse(pr)
	if err != nil {
		return &pointwise{skipped: "the inputs are real vectors, and the position-wise analysis could not run: " + err.Error()}
	}
	res.Premise = premise
	out := &pointwise{res: res}
	if res.Verdict == positionwise.Fails || res.Verdict == positionwise.Undecided {
		out.integers = integerRange(pr)
	}
	return out
}

// integerRange is the widest domain of integer inputs of magnitude at
// most 2^w on which the analysis proves (or runs) every input (nil where
// the search does not apply: a finite domain).
func integerRange(pr positionwise.Problem) *positionwise.IntegerRange {
	if pr.Finite != nil {
		return nil
	}
	pr.MaxBoxes = integerMaxBoxes
	r, err := positionwise.IntegerLimit(pr)
	if err != nil {
		// The full analysis ran on the same problem and grid: an error
		// here leaves the integer domains unsearched, and says nothing.
		return nil
	}
	return r
}

// IntegerDomain is the widest domain of integer inputs the analysis
// proves a position-wise construction right on, where it fails on the
// format's values (or is undecided there): every input whose components are integers
// of magnitude at most 2^Width, in the claimed domain (Width −1: not
// even those of magnitude at most 1), with its evidence (Level:
// Exhaustive, every such input run; Faithful or Certified, proved) and
// the analysis's statement, which says what happens at 2^(Width+1). It
// holds at every length.
type IntegerDomain struct {
	Width     int    `json:"width"`
	Level     Level  `json:"level,omitempty"`
	Statement string `json:"statement"`
}

// integerDomain is the report of the integer search r (nil: none).
func (ck *Checker) integerDomain(r *positionwise.IntegerRange) *IntegerDomain {
	if r == nil {
		return nil
	}
	if r.Vacuous() {
		return nil // no integer input to speak of
	}
	d := &IntegerDomain{Width: r.Width, Statement: r.Statement()}
	if r.Proved != nil {
		d.Level, _ = ck.positionwiseLevel(r.Proved)
	}
	if premise := ck.positionwise().res.Premise; premise != "" {
		d.Statement = premise + ": " + d.Statement
	}
	return d
}

// positionwiseProblem is the checker's construction at its precision, as
// the position-wise analysis takes it.
func (ck *Checker) positionwiseProblem() positionwise.Problem {
	con, v := ck.Con, ck.Con.Vector
	at := map[string]int{}
	for k, c := range con.Model.Components {
		at[c] = k
	}
	inputs := make([]int, len(v.Names))
	for k, name := range v.Names {
		inputs[k] = at[name]
	}
	return positionwise.Problem{
		Model: con.Model, Precision: ck.opts.Precision, Inputs: inputs, Names: v.Names, Domain: v.Domain,
		Finite: v.Finite, Valid: v.Valid, Ranges: ranges(v.Ranges), Seed: ck.opts.Seed ^ positionwiseSeed,
		Round: func(x *big.Rat) (*big.Rat, error) {
			r, ok := ck.Runner.Round(x).Rat()
			if !ok {
				return nil, fmt.Errorf("%s rounds %s to no finite value", ck.opts.Precision, x.RatString())
			}
			return r, nil
		},
		Check:     ck.checkPoints,
		Reference: ck.exactReference,
	}
}

// checkPoints runs the points as the positions of one input, with the
// checker's own model and comparison at its precision (a real
// reference is judged by its correct rounding there, as every other
// input is), and returns the first that fails; a point whose comparison
// is undecided before any fails is a positionwise.UndecidedError.
func (ck *Checker) checkPoints(points [][]*big.Rat) (int, string, error) {
	c := ck.Con.Vector.Case(points)
	res, err := ck.Runner.RunStream(c.Stream, false)
	if err != nil {
		return -1, "", err
	}
	want := ck.Con.Expected(c)
	labels := ck.Con.Model.Output.Labels
	for i := range points {
		ok, undecided, why := CompareAt(ck.opts.Precision, want[i], res.Outputs[i], ck.Con.Bounds, labels)
		switch {
		case undecided:
			return -1, "", &positionwise.UndecidedError{Index: i, Why: why}
		case !ok:
			return i, why, nil
		}
	}
	return -1, "", nil
}

// positionwiseAnalysis is the analysis of length n of a position-wise
// construction: the one-position result, and where it found a failing
// input, that input at every position of a length-n input, suggested.
func (ck *Checker) positionwiseAnalysis(pw *pointwise, n int) *analysis {
	if pw.res == nil {
		return &analysis{skipped: pw.skipped}
	}
	an := &analysis{pw: pw.res, integers: pw.integers}
	if pw.res.Verdict == positionwise.Fails {
		xs := make([][]*big.Rat, n)
		for i := range xs {
			xs[i] = pw.res.Counterexample
		}
		an.candidates = []recipes.Case{ck.Con.Vector.Case(xs)}
	}
	return an
}

// positionwiseLevel is the evidence of a position-wise result that every
// input is right: every input run, or proved faithful to the
// construction (certified where a claim proves the construction).
func (ck *Checker) positionwiseLevel(r *positionwise.Result) (Level, bool) {
	switch r.Verdict {
	case positionwise.Run:
		return Exhaustive, true
	case positionwise.Proved:
		return ck.provenLevel(), true
	}
	return "", false
}

// positionwiseWhy is what a length report says of a position-wise
// analysis that did not prove the length.
func positionwiseWhy(r *positionwise.Result) string {
	switch r.Verdict {
	case positionwise.Run, positionwise.Proved:
		return ""
	}
	return PositionwisePrefix + r.Statement()
}

// PositionwisePrefix begins what a length report's Analysis says of a
// position-wise analysis that did not prove the length.
const PositionwisePrefix = "the position-wise analysis: "

// applyPositionwise sets a sampled length's level from the position-wise
// result, where it proves every input right.
func (ck *Checker) applyPositionwise(lr *LengthReport, r *positionwise.Result) {
	level, ok := ck.positionwiseLevel(r)
	if !ok {
		return
	}
	lr.Level, lr.Positionwise = level, r.Statement()
	if level == Certified {
		lr.Proof = ck.Recipe.ProvedBy
	}
	if f := lr.Failure; f != nil {
		f.Reason = "the position-wise analysis proved every input of one position right, but this input fails (a bug in the engine's analysis): " + f.Reason
	}
}

// everyPositionwise is Every for a position-wise construction: the one
// result covers every length, or none.
func (ck *Checker) everyPositionwise(ev *EveryLength, pw *pointwise) *EveryLength {
	if pw.res == nil {
		ev.At, ev.Why = ev.From, pw.skipped
		return ev
	}
	if level, ok := ck.positionwiseLevel(pw.res); ok {
		ev.Certified, ev.Level = ev.To, level
		return ev
	}
	ev.At, ev.Why = ev.From, positionwiseWhy(pw.res)
	return ev
}

// FoundPositionwise is a Failure's Found where the position-wise analysis
// suggested the input.
const FoundPositionwise = "positionwise"

// exactReference is the recipe's reference at each point, where the
// checker compares it by exact equality of values: no claimed bound, no
// irrational or unclaimed value, no symbol (ok false otherwise).
func (ck *Checker) exactReference(points [][]*big.Rat) ([][]*big.Rat, bool) {
	for _, b := range ck.Con.Bounds {
		if b.Max != nil {
			return nil, false
		}
	}
	want := ck.Con.Expected(ck.Con.Vector.Case(points))
	out := make([][]*big.Rat, len(points))
	for i, w := range want {
		if w.Symbol != "" || w.Reals != nil || len(w.Unclaimed) > 0 || len(w.Tol) > 0 {
			return nil, false
		}
		out[i] = w.Values
	}
	return out, true
}

func ranges(rs []recipes.ComponentRange) []positionwise.Range {
	out := make([]positionwise.Range, len(rs))
	for k, r := range rs {
		out[k] = positionwise.Range{Values: r.Values, Lo: r.Lo, Hi: r.Hi}
	}
	return out
}

// forcedBoxes is the position-wise analysis by boxes even where the
// domain is small enough to enumerate (for tests that hold one to the
// other).
func (ck *Checker) forcedBoxes() (*positionwise.Result, error) {
	pr := ck.positionwiseProblem()
	pr.MaxEnumerate = -1
	return positionwise.Analyse(pr)
}
