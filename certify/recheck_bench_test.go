package certify

import (
	"math/big"
	"testing"

	"github.com/transformer-cookbook/verify/certify/recheck"
	"github.com/transformer-cookbook/verify/internal/testenv"
	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/model/eval"
	"github.com/transformer-cookbook/verify/numeric"
)

// benchRecheck times the analysis alone and the independent checker alone
// on one length of a recipe's model at one precision (both instances
// built once, as the checker does), in CPU-ns per op beside the wall
// time.
func benchRecheck[T any](b *testing.B, recipe, prec string, n int, check bool) {
	con := construct(b, recipe, model.AverageHardmax, n)
	p := numeric.MustParsePrecision(prec)
	exact, err := eval.Instantiate[*big.Rat](numeric.Exact{}, con.Model)
	if err != nil {
		b.Fatal(err)
	}
	runner, err := eval.New(p, con.Model)
	if err != nil {
		b.Fatal(err)
	}
	in := Input{Reference: con.Model, Model: con.Model, Precision: p, Exact: exact, Runner: runner,
		Symbols: con.Symbols, Right: exactlyRight, noRecheck: true, keepTyped: true}
	res, err := Length(in, n)
	if err != nil || !res.Certified {
		b.Fatalf("not certified: %v %s", err, res.Why)
	}
	c := res.typed.(*recheck.Certificate[T])
	inst, err := eval.Underlying(runner)
	if err != nil {
		b.Fatal(err)
	}
	m := inst.(*eval.Instance[T])
	b.ReportAllocs()
	cpu0, cpuOK := testenv.ProcessCPU()
	for b.Loop() {
		if check {
			if _, err := recheck.Check(recheck.Input[T]{Reference: exact, Model: m, Symbols: con.Symbols, Right: exactlyRight}, c); err != nil {
				b.Fatal(err)
			}
		} else if _, err := Length(in, n); err != nil {
			b.Fatal(err)
		}
	}
	if cpu1, _ := testenv.ProcessCPU(); cpuOK {
		b.ReportMetric(float64((cpu1-cpu0).Nanoseconds())/float64(b.N), "cpu-ns/op")
	}
}

func BenchmarkAnalysisLookupFP32N4096(b *testing.B) {
	benchRecheck[float32](b, "lookup", "fp32", 4096, false)
}
func BenchmarkRecheckLookupFP32N4096(b *testing.B) {
	benchRecheck[float32](b, "lookup", "fp32", 4096, true)
}
func BenchmarkAnalysisLookupFP64N4096(b *testing.B) {
	benchRecheck[float64](b, "lookup", "fp64", 4096, false)
}
func BenchmarkRecheckLookupFP64N4096(b *testing.B) {
	benchRecheck[float64](b, "lookup", "fp64", 4096, true)
}
func BenchmarkAnalysisOneHot53N256(b *testing.B) {
	benchRecheck[*big.Float](b, "lookup-onehot", "53", 256, false)
}
func BenchmarkRecheckOneHot53N256(b *testing.B) {
	benchRecheck[*big.Float](b, "lookup-onehot", "53", 256, true)
}

// benchEveryLength times the analysis and the checker of every length
// 1 … n of the lookup at one precision, one after another with a chain.
func benchEveryLength(b *testing.B, prec string, n int) {
	con := construct(b, "lookup", model.AverageHardmax, n)
	p := numeric.MustParsePrecision(prec)
	exact, err := eval.Instantiate[*big.Rat](numeric.Exact{}, con.Model)
	if err != nil {
		b.Fatal(err)
	}
	runner, err := eval.New(p, con.Model)
	if err != nil {
		b.Fatal(err)
	}
	cpu0, cpuOK := testenv.ProcessCPU()
	for b.Loop() {
		in := Input{Reference: con.Model, Model: con.Model, Precision: p, Exact: exact, Runner: runner,
			Symbols: con.Symbols, Right: exactlyRight, Chain: NewChain()}
		for m := 1; m <= n; m++ {
			res, err := Length(in, m)
			if err != nil || !res.Certified {
				b.Fatalf("n = %d not certified: %v %s", m, err, res.Why)
			}
		}
	}
	if cpu1, _ := testenv.ProcessCPU(); cpuOK {
		b.ReportMetric(float64((cpu1-cpu0).Nanoseconds())/float64(b.N), "cpu-ns/op")
	}
}

func BenchmarkEveryLengthLookupFP32N1024(b *testing.B) { benchEveryLength(b, "fp32", 1024) }
func BenchmarkEveryLengthLookupFP32N256(b *testing.B)  { benchEveryLength(b, "fp32", 256) }
func BenchmarkEveryLengthLookupFP32N4096(b *testing.B) { benchEveryLength(b, "fp32", 4096) }
func BenchmarkEveryLengthLookupFP16N45(b *testing.B)   { benchEveryLength(b, "fp16", 45) }
func BenchmarkEveryLengthLookupBF16N16(b *testing.B)   { benchEveryLength(b, "bf16", 16) }
