package check

import (
	"math/big"

	"github.com/transformer-cookbook/verify/certify/positionwise"
	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/recipes"
)

// A construction on real vectors whose attention has fixed scores (every
// head's W^Q or W^K is 0: the recipes of §Average and §Identity) is
// analysed by package certify/positionwise in one of two ways. Where
// every head's W^V is 0 as well, the heads add exactly 0 and the model
// is position-wise: the analysis of one position, of the model without
// its attention, serves every length (runPositionwise, with the premise
// stated in its result). Otherwise each length n is a straight-line
// function of its n positions' inputs, decided on its own
// (positionwise.AnalyseLength): the analysis of length n proves every
// input of n positions right, or finds one the engine's run confirms
// failing.

// zeroValuesPremise begins the statement of a position-wise result that
// stands for a model whose heads add 0.
const zeroValuesPremise = "every head's scores are fixed (W^Q or W^K is 0) and its W^V is 0, so attention adds exactly 0 at every position of every length and the model computes each position on its own"

// positionwiseModel is the model the position-wise analysis takes for
// the construction, the premise on which it stands for it ("" where it
// is the construction's own), or why the analysis does not apply.
func (ck *Checker) positionwiseModel() (m *model.Model, premise, why string) {
	con := ck.Con
	if zm, no := positionwise.ZeroValues(con.Model); no == "" {
		return zm, zeroValuesPremise, ""
	}
	if why := positionwise.Applicable(con.Model); why != "" {
		return nil, "", why
	}
	return con.Model, "", ""
}

// lengthwise reports whether the construction is analysed one length at
// a time: real vectors, the recipe's own model, attention with fixed
// scores whose heads do not all add 0.
func (ck *Checker) lengthwise() bool {
	con := ck.Con
	if con.Vector == nil || ck.analysisOff() != "" || ck.spec != con.Model {
		return false
	}
	if _, no := positionwise.ZeroValues(con.Model); no == "" {
		return false
	}
	return positionwise.FixedScores(con.Model) == ""
}

// lengthAnalysis is the analysis of length n of a lengthwise
// construction.
func (ck *Checker) lengthAnalysis(n int) *analysis {
	pr := ck.positionwiseProblem()
	k := len(ck.Con.Vector.Names)
	split := func(x []*big.Rat) [][]*big.Rat {
		xs := make([][]*big.Rat, n)
		for i := range xs {
			xs[i] = x[i*k : (i+1)*k]
		}
		return xs
	}
	pr.Check = func(points [][]*big.Rat) (int, string, error) {
		for p, x := range points {
			c := ck.Con.Vector.Case(split(x))
			res, err := ck.Runner.RunStream(c.Stream, false)
			if err != nil {
				return -1, "", err
			}
			want := ck.Con.Expected(c)
			for i := range want {
				if ok, why := Compare(want[i], res.Outputs[i], ck.Con.Bounds, ck.Con.Model.Output.Labels); !ok {
					return p, why, nil
				}
			}
		}
		return -1, "", nil
	}
	pr.Reference = func(points [][]*big.Rat) ([][]*big.Rat, bool) {
		out := make([][]*big.Rat, len(points))
		for p, x := range points {
			all, ok := ck.exactReference(split(x))
			if !ok {
				return nil, false
			}
			for _, w := range all {
				out[p] = append(out[p], w...)
			}
		}
		return out, true
	}
	// A box of length n costs some n² operations (each position's sum
	// over the others): the bound of boxes falls as 1/n², so that a long
	// length stops, undecided, in about the time of one position's bound.
	pr.MaxBoxes = max(1<<10, positionwise.DefaultMaxBoxes/(n*n))
	res, err := positionwise.AnalyseLength(pr, n)
	if err != nil {
		return &analysis{skipped: "the inputs are real vectors and the attention's scores are fixed, but the analysis of a length could not run: " + err.Error()}
	}
	an := &analysis{pw: res}
	if res.Verdict == positionwise.Fails {
		an.candidates = []recipes.Case{ck.Con.Vector.Case(split(res.Counterexample))}
	}
	return an
}

// everyLengthwise is Every for a lengthwise construction: each length's
// analysis in turn, to the first it does not prove.
func (ck *Checker) everyLengthwise(ev *EveryLength) *EveryLength {
	for n := ev.From; n <= ev.To; n++ {
		if stop := ck.opts.Stop; stop != nil && stop() {
			ev.At, ev.Why = n, "interrupted"
			return ev
		}
		an := ck.analyse(n)
		if an.pw == nil {
			ev.At, ev.Why = n, an.why()
			return ev
		}
		level, ok := ck.positionwiseLevel(an.pw)
		if !ok {
			ev.At, ev.Why = n, positionwiseWhy(an.pw)
			return ev
		}
		ev.Certified, ev.Level = n, Weaker(ev.Level, level)
	}
	return ev
}
