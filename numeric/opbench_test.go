package numeric

import (
	"strings"
	"testing"
)

// TestOpBench checks that OpBench and BareOpBench build a loop for every
// operation of every precision they cover, run it, and refuse what they
// cannot do.
func TestOpBench(t *testing.T) {
	for _, name := range []string{"exact", "fp64", "fp32", "fp16", "bf16", "fp8-e4m3", "fp8-e5m2", "24", "53", "113", "interval:53"} {
		p := MustParsePrecision(name)
		for _, op := range OpBenchOps {
			f, err := OpBench(p, op)
			switch {
			case name == "exact" && op == "sqrt":
				if err == nil {
					t.Errorf("OpBench(exact, sqrt) did not fail")
				}
				continue
			case err != nil:
				t.Errorf("OpBench(%s, %s): %v", name, op, err)
				continue
			}
			f(100)
			bf, err := BareOpBench(p, op)
			switch {
			case strings.HasPrefix(name, "interval") || name == "exact" && op == "sqrt":
				if err == nil {
					t.Errorf("BareOpBench(%s, %s) did not fail", name, op)
				}
			case err != nil:
				t.Errorf("BareOpBench(%s, %s): %v", name, op, err)
			default:
				bf(100)
			}
		}
	}
	if _, err := OpBench(MustParsePrecision("fp16"), "fma"); err == nil {
		t.Error("OpBench accepted an unknown operation")
	}
	if _, err := BareOpBench(MustParsePrecision("fp16"), "fma"); err == nil {
		t.Error("BareOpBench accepted an unknown operation")
	}
}
