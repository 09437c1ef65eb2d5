package cpwl

import (
	"math/rand/v2"
	"testing"

	"github.com/transformer-cookbook/verify/exact"
)

// benchFFN is a seeded random FFN with 12 hidden units on ℝ³ (integer
// weights in [−3, 3]); it has 242 linear regions on the box [−4, 4]³.
func benchFFN() *FFN { return randomFFN(rand.New(rand.NewPCG(12, 3)), 3, 12, 1) }

// BenchmarkRegions12x3 enumerates the linear regions of benchFFN on the
// box [−4, 4]³.
func BenchmarkRegions12x3(b *testing.B) {
	f, dom := benchFFN(), box(3, -4, 4)
	var n int
	for b.Loop() {
		regs, err := Regions(f, dom, nil)
		if err != nil {
			b.Fatal(err)
		}
		n = len(regs)
	}
	b.ReportMetric(float64(n), "regions")
}

// BenchmarkEquivalent12x3 proves benchFFN equal to a rearranged copy
// (units shuffled, one split, one rescaled: 13 units) on the box, which
// enumerates the common refinement of 25 stacked units.
func BenchmarkEquivalent12x3(b *testing.B) {
	f := benchFFN()
	g := perturb(rand.New(rand.NewPCG(1, 2)), f, rearranged)
	dom := box(3, -4, 4)
	var res *Result
	for b.Loop() {
		var err error
		if res, err = Equivalent(f, g, dom, nil); err != nil {
			b.Fatal(err)
		}
		if res.Verdict != Equal {
			b.Fatal(res.Verdict)
		}
	}
	b.ReportMetric(float64(res.Regions), "regions")
	b.ReportMetric(float64(res.LPs), "LPs")
}

// BenchmarkVerifyMin proves §Min and Max's min FFN equal to min(x, y).
func BenchmarkVerifyMin(b *testing.B) {
	f := ffn(b, 2, "1 0; -1 0; 1 -1", "", "1 -1 -1", "")
	pieces := []Piece{piece(b, 2, "1 0 | 0", "1 -1 <= 0"), piece(b, 2, "0 1 | 0", "1 -1 >= 0")}
	dom := poly(b, 2)
	for b.Loop() {
		if res, err := Verify(f, dom, pieces, nil); err != nil || res.Verdict != Equal {
			b.Fatal(res, err)
		}
	}
}

// BenchmarkEquivalentRefined12x3 proves benchFFN equal to itself plus two
// canceling pairs ReLU(u) − ReLU(u) on new random hyperplanes u = 0,
// which refine the arrangement: 14 distinct hyperplanes, 32 stacked
// units.
func BenchmarkEquivalentRefined12x3(b *testing.B) {
	f := benchFFN()
	rng := rand.New(rand.NewPCG(4, 4))
	extra := randomFFN(rng, 3, 2, 1)
	units := unitsOf(f)
	for u := 0; u < 2; u++ {
		w, c := extra.W1.Row(u), exact.Vector{extra.B1[u]}
		units = append(units, [3]exact.Vector{w, c, exact.IntVector(1)}, [3]exact.Vector{w, c, exact.IntVector(-1)})
	}
	g := rebuild(f, units)
	dom := box(3, -4, 4)
	var res *Result
	for b.Loop() {
		var err error
		if res, err = Equivalent(f, g, dom, nil); err != nil {
			b.Fatal(err)
		}
		if res.Verdict != Equal {
			b.Fatal(res.Verdict)
		}
	}
	b.ReportMetric(float64(res.Regions), "regions")
	b.ReportMetric(float64(res.LPs), "LPs")
}
