package bench

import (
	"fmt"
	"math/big"
	"runtime"
	"sync"

	"github.com/transformer-cookbook/verify/check"
	"github.com/transformer-cookbook/verify/internal/plural"
	"github.com/transformer-cookbook/verify/numeric"
	"github.com/transformer-cookbook/verify/recipes"
)

// sweepOptions are the options `verify --recipe NAME --precision P
// --max-n N` checks with (cmd/verify/check.go): its default weighting,
// 8 random cases per length, every input while there are at most 256,
// seed 1, the default lengths. workers 0 is GOMAXPROCS, as there.
func sweepOptions(r *recipes.Recipe, precision string, maxN, workers int) (check.Options, error) {
	p, err := numeric.ParsePrecision(precision)
	if err != nil {
		return check.Options{}, err
	}
	opts := check.Options{Precision: p, Cases: 8, Exhaustive: 256, Seed: Seed, MaxN: maxN, Workers: workers}
	if len(r.Weightings) > 0 {
		opts.Weighting = r.Weightings[0]
	}
	return opts, nil
}

// sweep runs the check and fails when a case does: the figure of a sweep
// that stopped early would be meaningless.
func sweep(recipe, precision string, maxN, workers int) error {
	r, err := recipes.Get(recipe)
	if err != nil {
		return err
	}
	opts, err := sweepOptions(r, precision, maxN, workers)
	if err != nil {
		return err
	}
	rep, err := check.Run(r, opts)
	if err != nil {
		return err
	}
	if !rep.Passed {
		return fmt.Errorf("%s at %s failed at n = %d", recipe, precision, rep.FirstFailure.N)
	}
	return nil
}

// sweepTerms counts the score terms of every forward pass a sweep runs:
// the inputs of each length times the terms of one pass at that length.
func sweepTerms(recipe, precision string, maxN int) (int, error) {
	r, err := recipes.Get(recipe)
	if err != nil {
		return 0, err
	}
	opts, err := sweepOptions(r, precision, maxN, 0)
	if err != nil {
		return 0, err
	}
	ck, err := check.NewChecker(r, opts)
	if err != nil {
		return 0, err
	}
	total := 0
	for _, n := range check.DefaultLengths(r.MinN, maxN) {
		inputs, _ := ck.Inputs(n)
		_, terms := ck.Con.Model.ScoreTerms(n)
		total += len(inputs) * terms
	}
	return total, nil
}

// bareRatSweep runs the sweep's score terms as big.Rat Mul and Add on
// integers of the lookup's sizes, split over GOMAXPROCS goroutines as
// the sweep's cases are.
func bareRatSweep(recipe string, full, quick int) func(Size) (Measurement, error) {
	return func(s Size) (Measurement, error) {
		maxN := s.Pick(full, quick)
		terms, err := sweepTerms(recipe, "exact", maxN)
		if err != nil {
			return Measurement{}, err
		}
		q64, k64, _ := lookupOperands(maxN)
		workers := runtime.GOMAXPROCS(0)
		m, err := Timed(func() error {
			var wg sync.WaitGroup
			for w := range workers {
				share := terms / workers
				if w == 0 {
					share += terms % workers
				}
				wg.Add(1)
				go func() {
					defer wg.Done()
					q, k := rats(q64), rats(k64)
					acc, tmp := new(big.Rat), new(big.Rat)
					for t := range share {
						x := t % len(q)
						if t%lookupDKey == 0 {
							acc.SetInt64(0)
						}
						tmp.Mul(q[x], k[x])
						acc.Add(acc, tmp)
					}
				}()
			}
			wg.Wait()
			return nil
		})
		m.Note = fmt.Sprintf("big.Rat Mul+Add × %d terms on %s", terms, plural.Of(workers, "core"))
		return m, err
	}
}

func rats(xs []float64) []*big.Rat {
	out := make([]*big.Rat, len(xs))
	for i, x := range xs {
		out[i] = new(big.Rat).SetFloat64(x)
	}
	return out
}

// exactSweep is the CPU time of `verify --recipe NAME --precision exact
// --max-n N` (and its wall time).
func exactSweep(recipe string, full, quick int) func(Size) (Measurement, error) {
	return func(s Size) (Measurement, error) {
		maxN := s.Pick(full, quick)
		m, err := Timed(func() error { return sweep(recipe, "exact", maxN, 0) })
		m.Note = fmt.Sprintf("max-n %d, %s", maxN, plural.Of(runtime.GOMAXPROCS(0), "worker"))
		return m, err
	}
}

func init() {
	for _, sw := range []struct {
		recipe      string
		full, quick int
	}{{"lookup", 1024, 64}, {"dyck1", 512, 64}} {
		Register(Case{
			Name:     "sweep-" + sw.recipe + "-exact",
			Measures: fmt.Sprintf("CPU time (user + sys, all cores) of `verify --recipe %s --precision exact --max-n %d`", sw.recipe, sw.full),
			Unit:     "s",
			Measure:  exactSweep(sw.recipe, sw.full, sw.quick),
			Baseline: bareRatSweep(sw.recipe, sw.full, sw.quick),
			Target:   AtMost(30, "s"),
		})
		Register(Case{
			Name:     "cores-sweep-" + sw.recipe + "-exact",
			Measures: fmt.Sprintf("speed-up from 1 to 2 cores of the exact sweep of %s to n = %d", sw.recipe, sw.full),
			Unit:     "×",
			Measure: func(s Size) (Measurement, error) {
				maxN := s.Pick(sw.full, sw.quick)
				return SpeedUp(func(workers int) error { return sweep(sw.recipe, "exact", maxN, workers) })
			},
			Target: Report(),
		})
	}
}
