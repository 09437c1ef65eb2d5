package eval

import (
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/transformer-cookbook/verify/internal/testenv"
	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/numeric"
)

// TestMachineAttentionMatchesGeneric: the machine-float path of hard
// attention (attention_native.go) must give bit for bit what the generic
// path gives (attendOne through the Backend interface, itself checked
// against hand-derived and mpmath values in the other tests), on random
// heads whose weights and inputs include the values where IEEE arithmetic
// is delicate: ties, ±0, overflow to ±∞, NaN, tiny values that underflow,
// and every mask, weighting, score scale and temperature.
func TestMachineAttentionMatchesGeneric(t *testing.T) {
	const seed = 20261125
	rng := rand.New(rand.NewPCG(seed, 9))
	trials := 300
	if testenv.Race {
		trials = 60
	}
	narrowJudged := 0
	for trial := range trials {
		m := randomAttentionModel(rng)
		n := 1 + rng.IntN(9)
		if trial%4 == 0 {
			// Longer inputs: maxima whose ties are far apart, and
			// non-finite values between and around them.
			n = 10 + rng.IntN(40)
		}
		inputs := randomStream(rng, m.D, n)
		for _, p := range []string{"fp64", "fp32", "fp16", "bf16", "fp8-e4m3", "fp8-e5m2"} {
			prec := numeric.MustParsePrecision(p)
			var diff string
			switch prec.Kind {
			case numeric.KindFloat32:
				diff = compareAttentionPaths(numeric.NewFloat32(), m, inputs)
			case numeric.KindFloat64:
				diff = compareAttentionPaths(numeric.NewFloat64(), m, inputs)
			default:
				diff = compareAttentionPaths(numeric.NewEmulated(prec.Format), m, inputs)
			}
			if diff != "" {
				t.Fatalf("seed %d trial %d %s (mask %v, %v, scale %v): %s", seed, trial, p,
					m.Layers[0].Attention.Mask, m.Layers[0].Attention.Weighting, m.Layers[0].Attention.Scale, diff)
			}
		}
		// A bigfloat of at most 25 bits in float64: judged only where no
		// value left its range (then the values are BigFloat's; the
		// infinities, NaNs and 1e300 among the inputs leave it).
		for _, p := range []uint{3, 11, 24} {
			nb := numeric.NewNarrowBigFloat(p)
			diff := compareAttentionPaths(nb, m, inputs)
			if nb.Exits() > 0 {
				continue
			}
			narrowJudged++
			if diff != "" {
				t.Fatalf("seed %d trial %d, %d bits in float64 (mask %v, %v, scale %v): %s", seed, trial, p,
					m.Layers[0].Attention.Mask, m.Layers[0].Attention.Weighting, m.Layers[0].Attention.Scale, diff)
			}
		}
	}
	if narrowJudged < trials/2 {
		t.Errorf("only %d of %d narrow bigfloat comparisons stayed in the range: the test hardly judges them", narrowJudged, 3*trials)
	}
}

// specialInputs are the input entries drawn besides small fractions: the
// ones IEEE arithmetic treats specially in at least one format.
var specialInputs = []float64{0, math.Copysign(0, -1), 1e-30, 70000, -70000, 1e30, 3e38, 1e300,
	math.Inf(1), math.Inf(-1), math.NaN()}

// randomStream returns n residual vectors of width d, mostly small
// multiples of 1/4 (so that scores tie often), sometimes special values.
func randomStream(rng *rand.Rand, d, n int) [][]float64 {
	h := make([][]float64, n)
	for i := range h {
		h[i] = make([]float64, d)
		for c := range h[i] {
			if rng.IntN(12) == 0 {
				h[i][c] = specialInputs[rng.IntN(len(specialInputs))]
				continue
			}
			h[i][c] = float64(rng.IntN(9)-4) / 4
		}
	}
	return h
}

// randomAttentionModel is one attention layer with one or two heads of
// random small integer weights.
func randomAttentionModel(rng *rand.Rand) *model.Model {
	d := 2 + rng.IntN(3)
	dk := 1 + rng.IntN(3)
	mat := func(rows int) model.Matrix {
		r := make([][]int64, rows)
		for i := range r {
			r[i] = make([]int64, d)
			for c := range r[i] {
				r[i][c] = int64(rng.IntN(5) - 2)
			}
		}
		return model.Ints(r...)
	}
	heads := make([]model.Head, 1+rng.IntN(2))
	for h := range heads {
		heads[h] = model.Head{Q: mat(dk), K: mat(dk), V: mat(d)}
	}
	attn := &model.Attention{
		Heads:     heads,
		Mask:      model.Mask(rng.IntN(5)),
		Weighting: model.Weighting(1 + rng.IntN(3)), // the hard ones
		Scale:     model.ScoreScale(rng.IntN(2)),
	}
	if rng.IntN(3) == 0 {
		attn.Temperature = ex([]string{"1/3", "3", "1/1000"}[rng.IntN(3)])
	}
	alphabet := []string{"a"}
	m := &model.Model{
		Name:          "random attention",
		Alphabet:      alphabet,
		WordEmbedding: []model.Vector{make(model.Vector, d)},
		D:             d,
		Layers:        []model.Layer{{Attention: attn}},
		Output:        model.Output{Kind: model.Readout, W: model.Ints(make([]int64, d))},
	}
	for c := range m.WordEmbedding[0] {
		m.WordEmbedding[0][c] = numeric.LitInt(0)
	}
	m.Components = make([]string, d)
	for c := range m.Components {
		m.Components[c] = fmt.Sprintf("c%d", c)
	}
	return m
}

// compareAttentionPaths runs the model's attention sublayer on the inputs
// (each rounded to the format) through both paths and describes the first
// difference, or returns "".
func compareAttentionPaths[T any](b numeric.Backend[T], m *model.Model, inputs [][]float64) string {
	inst, err := Instantiate(b, m)
	if err != nil {
		return "instantiate: " + err.Error()
	}
	x := make([][]T, len(inputs))
	for i, row := range inputs {
		x[i] = make([]T, len(row))
		for c, v := range row {
			x[i][c] = fromFloat64(b, v)
		}
	}
	a := inst.layers[0].attn
	if !inst.machine(a) {
		return "the machine path does not take this head: the comparison would be the generic path against itself"
	}
	inst.generic = false
	fast, errFast := inst.attend(a, x, "fast")
	inst.generic = true
	slow, errSlow := inst.attend(a, x, "generic")
	if (errFast == nil) != (errSlow == nil) {
		return fmt.Sprintf("errors differ: machine %v, generic %v", errFast, errSlow)
	}
	for i := range slow {
		for c := range slow[i] {
			if f, s := b.Format(fast[i][c]), b.Format(slow[i][c]); f != s {
				return fmt.Sprintf("input %v: position %d component %d: machine %s, generic %s", inputs, i+1, c+1, f, s)
			}
		}
	}
	return ""
}

// fromFloat64 is v in the backend: the IEEE special values directly (SetRat
// has no ±∞, NaN or −0), the others rounded from the exact rational.
func fromFloat64[T any](b numeric.Backend[T], v float64) T {
	switch {
	case math.IsNaN(v):
		z := b.New()
		nan, _ := b.Div(b.New(), z, z)
		return nan
	case math.IsInf(v, 0):
		inf, _ := b.Div(b.New(), b.SetInt64(b.New(), int64(math.Copysign(1, v))), b.New())
		return inf
	case v == 0 && math.Signbit(v):
		return b.Neg(b.New(), b.New())
	}
	r := new(big.Rat)
	r.SetFloat64(v)
	return b.SetRat(b.New(), r)
}
