package certify_test

import (
	"math/big"
	"testing"

	"github.com/transformer-cookbook/verify/certify"
	"github.com/transformer-cookbook/verify/internal/testenv"
	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/model/eval"
	"github.com/transformer-cookbook/verify/numeric"
	"github.com/transformer-cookbook/verify/recipes"
)

// benchLength times the analysis alone of the lookup (AHAT, built for
// N = 2n as the command line builds it) at one length and precision, the
// models instantiated once as the checker does, and reports the CPU time
// (user + system, every thread: the garbage collector's too) beside the
// wall time, which other processes sharing the machine inflate. The
// whole run around it is check's BenchmarkRunLookup…Analysis.
func benchLength(b *testing.B, prec string, n int) {
	r, err := recipes.Get("lookup")
	if err != nil {
		b.Fatal(err)
	}
	con, err := r.Construct(model.AverageHardmax, 2*n, nil)
	if err != nil {
		b.Fatal(err)
	}
	p := numeric.MustParsePrecision(prec)
	exact, err := eval.Instantiate[*big.Rat](numeric.Exact{}, con.Model)
	if err != nil {
		b.Fatal(err)
	}
	runner, err := eval.New(p, con.Model)
	if err != nil {
		b.Fatal(err)
	}
	in := certify.Input{Reference: con.Model, Model: con.Model, Precision: p, Exact: exact, Runner: runner,
		Symbols: con.Symbols, Right: exactly}
	b.ReportAllocs()
	cpu0, cpuOK := testenv.ProcessCPU()
	for b.Loop() {
		res, err := certify.Length(in, n)
		if err != nil {
			b.Fatal(err)
		}
		if !res.Certified {
			b.Fatalf("not certified: %s", res.Why)
		}
	}
	if cpu1, _ := testenv.ProcessCPU(); cpuOK {
		b.ReportMetric(float64((cpu1-cpu0).Nanoseconds())/float64(b.N), "cpu-ns/op")
	}
}

func BenchmarkLengthLookupFP64N4096(b *testing.B) { benchLength(b, "fp64", 4096) }
func BenchmarkLengthLookup24N512(b *testing.B)    { benchLength(b, "24", 512) }

// BenchmarkSoftmaxBesideHard times one length of hardmax-softmax (the
// softmax lookup, N = n = 32, fp32) against the average-hard lookup it
// simulates, the analysis and its checker: the per-length cost of the
// frontier's every-length proof of that recipe, which grows about as n³
// (n distinct queries, n positions, O(n) partial sums at each).
func BenchmarkSoftmaxBesideHard(b *testing.B) {
	const N = 32
	soft, err := recipes.Get("hardmax-softmax")
	if err != nil {
		b.Fatal(err)
	}
	con, err := soft.Construct(model.Softmax, N, nil)
	if err != nil {
		b.Fatal(err)
	}
	in := certify.Input{Reference: con.Simulated, Model: con.Model, Precision: numeric.MustParsePrecision("fp32"),
		Symbols: con.Symbols, Right: within(con.Model.Output.Labels)}
	for b.Loop() {
		res, err := certify.Length(in, N)
		if err != nil {
			b.Fatal(err)
		}
		if !res.Certified {
			b.Fatalf("not certified: %s", res.Why)
		}
	}
}
