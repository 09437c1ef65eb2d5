package check

import (
	"testing"
	"time"

	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/numeric"
	"github.com/transformer-cookbook/verify/recipes"
)

// benchRun times a whole check of the lookup at one length, as
// `verify --recipe lookup --precision P --lengths n --cases 1` runs it
// (built for N = max(n, 8192), the command line's default maximum; for
// exact arithmetic N = n, as --max-n must say there): building, drawing
// inputs, the analysis (when on), the passes, the reference and the
// comparison. It reports beside it the forward passes alone on the same
// inputs ("passes-ns/op") and the ratio of the two ("×passes"): the
// target is a whole run without the analysis at most 1.5× its passes.
func benchRun(b *testing.B, prec string, n int, analysis bool) {
	r, err := recipes.Get("lookup")
	if err != nil {
		b.Fatal(err)
	}
	p := numeric.MustParsePrecision(prec)
	maxN := max(n, r.DefaultMaxN)
	if p.Kind == numeric.KindExact {
		maxN = n
	}
	opts := Options{
		Precision: p, Weighting: model.AverageHardmax, MaxN: maxN,
		Lengths: []int{n}, Cases: 1, Exhaustive: 256, Seed: 1, Analysis: analysis, Workers: 1,
	}
	ck, err := NewChecker(r, opts)
	if err != nil {
		b.Fatal(err)
	}
	inputs, _ := ck.drawn(n)
	b.ReportAllocs()
	var whole, passes time.Duration
	for b.Loop() {
		start := time.Now()
		rep, err := Run(r, opts)
		if err != nil {
			b.Fatal(err)
		}
		if !rep.Passed {
			b.Fatalf("lookup at %s fails at n = %d", prec, n)
		}
		whole += time.Since(start)
		start = time.Now()
		for _, c := range inputs {
			if _, err := ck.Runner.Run(c.Symbols, false); err != nil {
				b.Fatal(err)
			}
		}
		passes += time.Since(start)
	}
	b.ReportMetric(float64(passes.Nanoseconds())/float64(b.N), "passes-ns/op")
	b.ReportMetric(float64(whole)/float64(passes), "×passes")
}

func BenchmarkRunLookupFP64N4096(b *testing.B)         { benchRun(b, "fp64", 4096, false) }
func BenchmarkRunLookupFP64N8192(b *testing.B)         { benchRun(b, "fp64", 8192, false) }
func BenchmarkRunLookupFP64N16384(b *testing.B)        { benchRun(b, "fp64", 16384, false) }
func BenchmarkRunLookupFP32N4096(b *testing.B)         { benchRun(b, "fp32", 4096, false) }
func BenchmarkRunLookupFP16N32(b *testing.B)           { benchRun(b, "fp16", 32, false) }
func BenchmarkRunLookup24N512(b *testing.B)            { benchRun(b, "24", 512, false) }
func BenchmarkRunLookupExactN2048(b *testing.B)        { benchRun(b, "exact", 2048, false) }
func BenchmarkRunLookupFP64N4096Analysis(b *testing.B) { benchRun(b, "fp64", 4096, true) }
func BenchmarkRunLookup24N512Analysis(b *testing.B)    { benchRun(b, "24", 512, true) }
