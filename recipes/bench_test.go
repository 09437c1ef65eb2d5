package recipes_test

import (
	"math/rand/v2"
	"testing"

	"github.com/transformer-cookbook/verify/internal/testenv"
	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/model/eval"
	"github.com/transformer-cookbook/verify/numeric"
	"github.com/transformer-cookbook/verify/recipes"
)

// benchLookup runs one forward pass of the quadratic-maximization lookup
// at length n and reports the time per score, a (query, key) pair (n² of
// them: the head is unmasked), and per score term, one multiply-add of
// the query·key dot product (n²·d_key, d_key = 2): the performance target is
// per term (model.ScoreTerms). cpu-ns/term is the process's CPU time
// (user + system, the garbage collector's included) per term, which other
// processes on a shared machine do not inflate as they do the wall time.
func benchLookup(b *testing.B, precision string, n int) {
	r, err := recipes.Get("lookup")
	if err != nil {
		b.Fatal(err)
	}
	con, err := r.Construct(model.AverageHardmax, n, nil)
	if err != nil {
		b.Fatal(err)
	}
	runner, err := eval.New(numeric.MustParsePrecision(precision), con.Model)
	if err != nil {
		b.Fatal(err)
	}
	cases, _ := con.Inputs(n, rand.New(rand.NewPCG(1, uint64(n))), 1)
	b.ReportAllocs()
	b.ResetTimer()
	cpu0, cpuOK := testenv.ProcessCPU()
	for range b.N {
		if _, err := runner.Run(cases[0].Symbols, false); err != nil {
			b.Fatal(err)
		}
	}
	cpu1, _ := testenv.ProcessCPU()
	perPass := float64(b.Elapsed().Nanoseconds()) / float64(b.N)
	scores, terms := con.Model.ScoreTerms(n)
	b.ReportMetric(perPass/float64(scores), "ns/score")
	b.ReportMetric(perPass/float64(terms), "ns/term")
	if cpuOK {
		b.ReportMetric(float64((cpu1-cpu0).Nanoseconds())/float64(b.N)/float64(terms), "cpu-ns/term")
	}
}

func BenchmarkLookupFP64N4096(b *testing.B)  { benchLookup(b, "fp64", 4096) }
func BenchmarkLookupFP32N1024(b *testing.B)  { benchLookup(b, "fp32", 1024) }
func BenchmarkLookupFP16N1024(b *testing.B)  { benchLookup(b, "fp16", 1024) }
func BenchmarkLookupBig53N1024(b *testing.B) { benchLookup(b, "53", 1024) }
func BenchmarkLookupExactN512(b *testing.B)  { benchLookup(b, "exact", 512) }

// The exact pass at the lengths about the step in its cost per term (the
// squares j² pass 2^21 at n = 1,449, and the scores 2qj − j² reach 2^22
// at n = 2,048).
func BenchmarkLookupExactN1024(b *testing.B) { benchLookup(b, "exact", 1024) }
func BenchmarkLookupExactN2048(b *testing.B) { benchLookup(b, "exact", 2048) }
func BenchmarkLookupExactN4096(b *testing.B) { benchLookup(b, "exact", 4096) }
