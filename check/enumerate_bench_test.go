package check

import (
	"testing"

	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/numeric"
	"github.com/transformer-cookbook/verify/recipes"
)

// benchDyck1Exhaustive checks every Dyck-1 string of lengths 1 to n in
// exact arithmetic (AHAT) with the given number of workers, and reports
// the time per string.
func benchDyck1Exhaustive(b *testing.B, n, workers int, fromScratch bool) {
	r, err := recipes.Get("dyck1")
	if err != nil {
		b.Fatal(err)
	}
	opts := Options{Precision: numeric.MustParsePrecision("exact"), Weighting: model.AverageHardmax, MaxN: n, Workers: workers}
	b.ReportAllocs()
	strings := 0
	for b.Loop() {
		e, err := Enumerate(r, opts, n, fromScratch)
		if err != nil {
			b.Fatal(err)
		}
		if e.Failures != 0 {
			b.Fatalf("%d of %d strings failed", e.Failures, e.Strings)
		}
		strings += e.Strings
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(strings), "ns/string")
}

func BenchmarkDyck1ExhaustiveDFS(b *testing.B)              { benchDyck1Exhaustive(b, 14, 0, false) }
func BenchmarkDyck1ExhaustiveDFS16(b *testing.B)            { benchDyck1Exhaustive(b, 16, 2, false) }
func BenchmarkDyck1ExhaustiveDFS16One(b *testing.B)         { benchDyck1Exhaustive(b, 16, 1, false) }
func BenchmarkDyck1ExhaustiveScratch(b *testing.B)          { benchDyck1Exhaustive(b, 14, 0, true) }
func BenchmarkDyck1ExhaustiveDFSOneWorker(b *testing.B)     { benchDyck1Exhaustive(b, 14, 1, false) }
func BenchmarkDyck1ExhaustiveScratchOneWorker(b *testing.B) { benchDyck1Exhaustive(b, 14, 1, true) }
