package bench

import (
	"fmt"
	"runtime"

	"github.com/transformer-cookbook/verify/check"
	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/numeric"
	"github.com/transformer-cookbook/verify/recipes"
)

// Exhaustive checks of Dyck-1 (check.Enumerate): every string of
// every length 1..n, exact, AHAT, depth first over the prefixes' KV cache
// or (the baseline) every string run whole.

// enumerateDyck1 checks every Dyck-1 string of lengths 1..n and returns
// the count of strings, the time in seconds (CPU, and Wall by the wall
// clock) and the allocations made; it fails when a string does.
func enumerateDyck1(n, workers int, fromScratch bool) (strings int, secs Measurement, allocs uint64, err error) {
	r, err := recipes.Get("dyck1")
	if err != nil {
		return 0, secs, 0, err
	}
	opts := check.Options{Precision: numeric.MustParsePrecision("exact"), Weighting: model.AverageHardmax, MaxN: n, Workers: workers}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	var e *check.Enumeration
	secs, err = Timed(func() error {
		var err error
		e, err = check.Enumerate(r, opts, n, fromScratch)
		return err
	})
	runtime.ReadMemStats(&after)
	if err != nil {
		return 0, secs, 0, err
	}
	if e.Failures != 0 {
		return 0, secs, 0, fmt.Errorf("dyck1: %d of %d strings failed", e.Failures, e.Strings)
	}
	return e.Strings, secs, after.Mallocs - before.Mallocs, nil
}

// perString runs enumerateDyck1 and returns µs and allocations per string.
func perString(n, workers int, fromScratch bool) (Measurement, error) {
	strings, secs, allocs, err := enumerateDyck1(n, workers, fromScratch)
	if err != nil {
		return Measurement{}, err
	}
	how := "depth first"
	if fromScratch {
		how = "from scratch"
	}
	return Measurement{
		Value: secs.Value * 1e6 / float64(strings), Wall: secs.Wall * 1e6 / float64(strings),
		Allocs: float64(allocs) / float64(strings), Counted: true,
		Note: fmt.Sprintf("%s, lengths 1..%d, %d strings in %s CPU", how, n, strings, seconds(secs.Value)),
	}, nil
}

func init() {
	Register(Case{
		Name:     "exhaustive-dyck1",
		Measures: "every Dyck-1 string of lengths 1..22 (2^23 − 2), exact AHAT, depth first with a KV cache (baseline: from scratch, µs/string at lengths 1..14 times the strings)",
		Unit:     "s",
		Measure: func(s Size) (Measurement, error) {
			n := s.Pick(22, 12)
			strings, secs, allocs, err := enumerateDyck1(n, 0, false)
			if err != nil {
				return Measurement{}, err
			}
			return Measurement{Value: secs.Value, Wall: secs.Wall, Allocs: float64(allocs) / float64(strings), Counted: true,
				Note: fmt.Sprintf("lengths 1..%d, %d strings, %.2f CPU-µs/string; allocations per string", n, strings, secs.Value*1e6/float64(strings))}, nil
		},
		Baseline: func(s Size) (Measurement, error) {
			n, short := s.Pick(22, 12), s.Pick(14, 10)
			m, err := perString(short, 0, true)
			if err != nil {
				return Measurement{}, err
			}
			strings := 1<<(n+1) - 2
			m.Note = fmt.Sprintf("%.1f CPU-µs/string from scratch at lengths 1..%d, times %d strings", m.Value, short, strings)
			m.Value *= float64(strings) / 1e6
			m.Wall *= float64(strings) / 1e6
			return m, nil
		},
		Target: AtMost(60, "s"),
	})
	Register(Case{
		Name:     "exhaustive-dyck1-per-string",
		Measures: "µs per string of the exhaustive exact check of Dyck-1 at lengths 1..14, depth first (baseline: every string from scratch)",
		Unit:     "µs/string",
		Measure:  func(s Size) (Measurement, error) { return perString(s.Pick(14, 10), 0, false) },
		Baseline: func(s Size) (Measurement, error) { return perString(s.Pick(14, 10), 0, true) },
		Target:   Report(),
	})
	Register(Case{
		Name:     "cores-exhaustive-dyck1",
		Measures: "speed-up from 1 to 2 cores of the depth-first exhaustive exact check of Dyck-1 at lengths 1..18",
		Unit:     "×",
		Measure: func(s Size) (Measurement, error) {
			n := s.Pick(18, 10)
			return SpeedUp(func(workers int) error {
				_, _, _, err := enumerateDyck1(n, workers, false)
				return err
			})
		},
		Target: Report(),
	})
}
