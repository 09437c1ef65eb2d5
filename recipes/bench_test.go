package recipes

import (
	"math/rand/v2"
	"testing"

	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/numeric"
)

// benchLookup runs one forward pass of the quadratic-maximization lookup
// at length n and reports the time per attention score term (n² of them:
// every query against every key under the future mask's n(n+1)/2, here
// unmasked), the figure issue 9 targets.
func benchLookup(b *testing.B, precision string, n int) {
	r, err := Get("lookup")
	if err != nil {
		b.Fatal(err)
	}
	con, err := r.Construct(model.AverageHardmax, n, nil)
	if err != nil {
		b.Fatal(err)
	}
	runner, err := model.New(numeric.MustParsePrecision(precision), con.Model)
	if err != nil {
		b.Fatal(err)
	}
	cases, _ := con.Inputs(n, rand.New(rand.NewPCG(1, uint64(n))), 1)
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		if _, err := runner.Run(cases[0].Symbols, false); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n*n), "ns/score")
}

func BenchmarkLookupFP64N4096(b *testing.B)  { benchLookup(b, "fp64", 4096) }
func BenchmarkLookupFP32N1024(b *testing.B)  { benchLookup(b, "fp32", 1024) }
func BenchmarkLookupFP16N1024(b *testing.B)  { benchLookup(b, "fp16", 1024) }
func BenchmarkLookupBig53N1024(b *testing.B) { benchLookup(b, "53", 1024) }
func BenchmarkLookupExactN512(b *testing.B)  { benchLookup(b, "exact", 512) }
