package check

import (
	"testing"

	"github.com/transformer-cookbook/verify/certify/positionwise"
)

// BenchmarkPositionwise is the position-wise analysis of a feed-forward
// recipe over its whole domain at a format, as a check runs it once:
// boxes for two fp16 or fp32 inputs, the enumeration of every fp16 and
// bf16 value for one input and of every fp8 pair, and where it fails,
// the search for the widest integer domain. The bound it is held to:
// under a minute on 2 cores at fp16 (measured: well under a second for
// the identity, about ten seconds for amplify's integer domains).
func BenchmarkPositionwise(b *testing.B) {
	for _, tc := range []struct {
		name, recipe, precision string
		params                  map[string]string
		verdict                 positionwise.Verdict
	}{
		{"identity-ffn/fp16", "identity-ffn", "fp16", nil, positionwise.Proved},
		{"identity-ffn/fp32", "identity-ffn", "fp32", nil, positionwise.Proved},
		{"zero-ffn-d1/fp16", "zero-ffn", "fp16", map[string]string{"d": "1"}, positionwise.Run},
		{"zero-ffn-d1/bf16", "zero-ffn", "bf16", map[string]string{"d": "1"}, positionwise.Run},
		{"identity-ffn/fp8-e4m3", "identity-ffn", "fp8-e4m3", nil, positionwise.Run},
		{"cpwl/fp16", "cpwl", "fp16", nil, positionwise.Fails},
		// Failing on the format's values, with the search for the widest
		// integer domain after: min's boxes, amplify's three inputs run
		// point by point (its weights are no powers of two).
		{"min/fp32", "min", "fp32", nil, positionwise.Fails},
		{"amplify/fp16", "amplify", "fp16", nil, positionwise.Fails},
	} {
		b.Run(tc.name, func(b *testing.B) {
			for b.Loop() {
				ck := positionwiseChecker(b, tc.recipe, tc.precision, tc.params)
				if pw := ck.positionwise(); pw.res == nil || pw.res.Verdict != tc.verdict {
					b.Fatalf("%+v", pw)
				}
			}
		})
	}
}
