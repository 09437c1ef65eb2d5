package bench

import (
	"fmt"

	"github.com/transformer-cookbook/verify/check"
	"github.com/transformer-cookbook/verify/numeric"
	"github.com/transformer-cookbook/verify/recipes"
)

// runOptions are the options of `verify --recipe NAME --precision P
// --lengths n --cases 1` (cmd/verify/check.go), with or without the
// analysis: the recipe's default maximum length, every input while there
// are at most 256, seed 1; but one worker, as the baseline runs the
// passes one after the other, so that the ratio is the run's work beside
// the passes' and not the price of running two passes at once (on the
// 2-core machine measured, two at once cost 25–40% more CPU time than
// one after the other, for half the wall time).
func runOptions(r *recipes.Recipe, precision string, n int, analysis bool) (check.Options, error) {
	p, err := numeric.ParsePrecision(precision)
	if err != nil {
		return check.Options{}, err
	}
	// The command line's maximum length: the recipe's default, but for
	// exact arithmetic, where it is capped at 256 and a longer length
	// needs --max-n, given as the length itself.
	maxN := max(n, r.DefaultMaxN)
	if p.Kind == numeric.KindExact {
		maxN = n
	}
	opts := check.Options{Precision: p, Cases: 1, Exhaustive: 256, Seed: Seed, MaxN: maxN,
		Lengths: []int{n}, Analysis: analysis, Workers: 1}
	if len(r.Weightings) > 0 {
		opts.Weighting = r.Weightings[0]
	}
	return opts, nil
}

// wholeRun is the CPU time of one length's check as the command runs it
// (check.Run: building the construction and the model, drawing the
// inputs, the forward passes, the reference and the comparison; without
// the process's start and the printing), in seconds: the median of
// runRepeats runs.
func wholeRun(recipe, precision string, analysis bool, full, quick int) func(Size) (Measurement, error) {
	return func(s Size) (Measurement, error) {
		n := s.Pick(full, quick)
		r, err := recipes.Get(recipe)
		if err != nil {
			return Measurement{}, err
		}
		opts, err := runOptions(r, precision, n, analysis)
		if err != nil {
			return Measurement{}, err
		}
		var rep *check.Report
		m, err := TimedMedian(runRepeats, func() error {
			rep, err = check.Run(r, opts)
			return err
		})
		if err != nil {
			return Measurement{}, err
		}
		if !rep.Passed {
			return Measurement{}, fmt.Errorf("%s at %s fails at n = %d", recipe, precision, n)
		}
		m.Note = fmt.Sprintf("n = %d, max-n %d, median of %d runs", n, opts.MaxN, runRepeats)
		return m, nil
	}
}

// runRepeats is how many times wholeRun and runPasses time their work,
// each giving the median.
const runRepeats = 5

// runPasses is the CPU time of wholeRun's forward passes alone: the same
// inputs through the same runner, built beforehand.
func runPasses(recipe, precision string, full, quick int) func(Size) (Measurement, error) {
	return func(s Size) (Measurement, error) {
		n := s.Pick(full, quick)
		r, err := recipes.Get(recipe)
		if err != nil {
			return Measurement{}, err
		}
		opts, err := runOptions(r, precision, n, false)
		if err != nil {
			return Measurement{}, err
		}
		ck, err := check.NewChecker(r, opts)
		if err != nil {
			return Measurement{}, err
		}
		inputs, _ := ck.Inputs(n)
		m, err := TimedMedian(runRepeats, func() error {
			for _, in := range inputs {
				if _, err := ck.Runner.Run(in.Symbols, false); err != nil {
					return err
				}
			}
			return nil
		})
		m.Note = fmt.Sprintf("%d forward passes", len(inputs))
		return m, err
	}
}

func init() {
	for _, a := range []struct {
		suffix   string
		analysis bool
		target   Target
		what     string
	}{
		{"", false, RatioAtMost(1.5), "--no-analysis"},
		{"-analysis", true, Report(), "with the analysis (package certify), which proves every input of the length right"},
	} {
		Register(Case{
			Name: "run-lookup-fp64" + a.suffix,
			Measures: "CPU time of `verify --recipe lookup --precision fp64 --lengths 4096 --cases 1` " + a.what +
				" (in-process check.Run; baseline: its forward passes alone)",
			Unit:     "s",
			Measure:  wholeRun("lookup", "fp64", a.analysis, 4096, 256),
			Baseline: runPasses("lookup", "fp64", 4096, 256),
			Target:   a.target,
		})
	}
	// The same whole run at the other kinds of arithmetic, each at a
	// length where its passes take tens of milliseconds (below, the
	// fixed costs of building and instantiating weigh more).
	for _, c := range []struct {
		precision string
		n, quick  int
		maxN      string
	}{{"24", 512, 128, ""}, {"exact", 2048, 256, " --max-n 2048"}} {
		Register(Case{
			Name: "run-lookup-" + c.precision,
			Measures: fmt.Sprintf("CPU time of `verify --recipe lookup --precision %s --lengths %d%s --cases 1 --no-analysis`", c.precision, c.n, c.maxN) +
				" (in-process check.Run; baseline: its forward passes alone)",
			Unit:     "s",
			Measure:  wholeRun("lookup", c.precision, false, c.n, c.quick),
			Baseline: runPasses("lookup", c.precision, c.n, c.quick),
			Target:   RatioAtMost(1.5),
		})
	}
}
