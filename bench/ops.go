package bench

import (
	"fmt"
	"testing"
	"time"

	"github.com/transformer-cookbook/verify/numeric"
)

// opTime is testing.Benchmark's target per measurement of one
// arithmetic operation: a few nanoseconds each, so a third of a second
// is millions of them and keeps the 45 op cases' run short.
func opTime(s Size) time.Duration {
	if s.Quick {
		return 2 * time.Millisecond
	}
	return 300 * time.Millisecond
}

// opCase measures numeric.OpBench(p, op) (bare: numeric.BareOpBench), per
// operation; a muladd is one operation.
func opCase(precision, op string, bare bool) func(Size) (Measurement, error) {
	return func(s Size) (Measurement, error) {
		p, err := numeric.ParsePrecision(precision)
		if err != nil {
			return Measurement{}, err
		}
		get := numeric.OpBench
		if bare {
			get = numeric.BareOpBench
		}
		f, err := get(p, op)
		if err != nil {
			return Measurement{}, err
		}
		return perUnitFor(opTime(s), 1, func(b *testing.B) { f(b.N) }), nil
	}
}

func init() {
	for _, pr := range []struct {
		precision string
		target    Target
	}{
		{"fp64", Report()},
		{"fp32", AtMost(10, "ns")},
		{"fp16", AtMost(10, "ns")},
		{"bf16", AtMost(10, "ns")},
		{"fp8-e4m3", AtMost(10, "ns")},
		{"fp8-e5m2", AtMost(10, "ns")},
		{"24", All(RatioAtMost(3), NoAllocsBeyondBare())},
		{"53", All(RatioAtMost(3), NoAllocsBeyondBare())},
		{"113", All(RatioAtMost(3), NoAllocsBeyondBare())},
	} {
		name := pr.precision
		if _, err := fmt.Sscan(name, new(int)); err == nil {
			name = "big" + name
		}
		for _, op := range numeric.OpBenchOps {
			Register(Case{
				Name:     "op-" + name + "-" + op,
				Measures: fmt.Sprintf("one %s at %s through the engine's backend (muladd: a multiply and an accumulate)", op, pr.precision),
				Unit:     "ns/op",
				Measure:  opCase(pr.precision, op, false),
				Baseline: opCase(pr.precision, op, true),
				Target:   pr.target,
			})
		}
	}
}
