package positionwise

import (
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/model/eval"
	"github.com/transformer-cookbook/verify/numeric"
	"github.com/transformer-cookbook/verify/recipes"
)

// buildW is build with a weighting.
func buildW(t testing.TB, name string, w model.Weighting, params map[string]string) built {
	t.Helper()
	r, err := recipes.Get(name)
	if err != nil {
		t.Fatal(err)
	}
	c, err := r.Construct(w, 64, params)
	if err != nil {
		t.Fatal(err)
	}
	at := map[string]int{}
	for k, n := range c.Model.Components {
		at[n] = k
	}
	b := built{name: name + "/" + w.String(), m: c.Model, names: c.Vector.Names}
	for _, n := range c.Vector.Names {
		b.inputs = append(b.inputs, at[n])
	}
	return b
}

func roundOf(run eval.Runner) func(*big.Rat) (*big.Rat, error) {
	return func(x *big.Rat) (*big.Rat, error) {
		r, ok := run.Round(x).Rat()
		if !ok {
			return nil, fmt.Errorf("no finite value")
		}
		return r, nil
	}
}

// stackedStreams places an input of n positions (n·k components) on
// the residual stream.
func stackedStreams(b built, x []*big.Rat, n int) [][]*big.Rat {
	k := len(b.inputs)
	pts := make([][]*big.Rat, n)
	for i := range pts {
		pts[i] = x[i*k : (i+1)*k]
	}
	return streams(b, pts)
}

// randomValue is a finite value of g: a random ordinal, or often a
// small integer or 0 (so that sums cancel and tie).
func randomValue(g *grid, rng *rand.Rand) float64 {
	switch rng.IntN(4) {
	case 0:
		return g.value(int64(rng.IntN(9)) - 4)
	case 1:
		return float64(rng.IntN(7) - 3)
	}
	return g.value(-g.maxOrd + int64(rng.Uint64N(width(-g.maxOrd, g.maxOrd)+1)))
}

// sameRat compares a float64 with a run's output value exactly (NaN
// with NaN, infinities by sign).
func sameRat(f float64, v eval.Value) bool {
	r, ok := v.Rat()
	if math.IsNaN(f) || math.IsInf(f, 0) || !ok {
		return !ok && v.Text == fmt.Sprint(f) || !ok && (math.IsNaN(f) && strings.Contains(strings.ToLower(v.Text), "nan") || math.IsInf(f, 1) && strings.Contains(v.Text, "+Inf") || math.IsInf(f, -1) && strings.Contains(v.Text, "-Inf"))
	}
	return new(big.Rat).SetFloat64(f).Cmp(r) == 0
}

// holdToRunner checks the compiled program of b at length n against the
// engine's runner on random inputs, bit for bit, and that the analysis
// of each point (a box of one point) encloses the format's value, and
// equals it where it says exact. It returns the first disagreement.
func holdToRunner(t *testing.T, b built, p numeric.Precision, n, inputs int, rng *rand.Rand) string {
	t.Helper()
	run, err := eval.New(p, b.m)
	if err != nil {
		t.Fatal(err)
	}
	g, err := gridOf(p)
	if err != nil {
		t.Fatal(err)
	}
	prog, err := compileStacked(b.m, n, roundOf(run))
	if err != nil {
		t.Fatal(err)
	}
	round := fastRound(p)
	k := len(b.inputs)
	for it := 0; it < inputs; it++ {
		x := make([]*big.Rat, n*k)
		for c := range x {
			x[c] = rat(randomValue(g, rng))
		}
		hs := stackedStreams(b, x, n)
		res, err := run.RunStream(hs, false)
		if err != nil {
			t.Fatal(err)
		}
		h := make([][]float64, n)
		ah := make([][]aval, n)
		for i := range h {
			h[i] = make([]float64, b.m.D)
			ah[i] = make([]aval, b.m.D)
			for c := range h[i] {
				h[i][c], _ = hs[i][c].Float64()
				ah[i][c] = exactVal(span{h[i][c], h[i][c]}, newWeight(hs[i][c], hs[i][c]).qw)
			}
		}
		got := evalStacked(prog, h, round)
		abs, ok := g.runStacked(prog, ah)
		for i := range got {
			for c, v := range got[i] {
				if !sameRat(v, res.Outputs[i].Values[c]) {
					return fmt.Sprintf("%s at %s, n = %d, input %s: position %d output %d: the program computes %v, the runner %s", b.name, p, n, ratsText(x), i+1, c+1, v, res.Outputs[i].Values[c].Text)
				}
				if !ok {
					continue
				}
				a := abs[i][c]
				if !a.top && (math.IsNaN(v) || v < a.fv.lo || v > a.fv.hi || a.zero && v != 0) {
					return fmt.Sprintf("%s at %s, n = %d, input %s: position %d output %d: the analysis encloses [%v, %v] (exact %v), the format computes %v", b.name, p, n, ratsText(x), i+1, c+1, a.fv.lo, a.fv.hi, a.exact, v)
				}
			}
		}
	}
	return ""
}

// TestStackedBitForBit holds the compiled program of the fixed-score
// recipes to the engine's runner bit for bit, at every weighting they
// allow, with masks changed, at fp8, fp16, bf16, fp32 and fp64, at
// lengths past fp8-e4m3's 16 (where softmax's sum of ones stalls) and
// e5m2's 8.
func TestStackedBitForBit(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	var models []built
	for _, name := range []string{"avg", "avg-prefix", "identity-attn"} {
		r, err := recipes.Get(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range append(r.Weightings, model.LeftHardmax, model.RightHardmax) {
			models = append(models, buildW(t, name, w, nil))
		}
	}
	for _, mask := range []model.Mask{model.StrictFuture, model.Past, model.StrictPast} {
		b := buildW(t, "avg", model.Softmax, nil)
		b.m.Layers[0].Attention.Mask = mask
		b.name += "/mask-" + mask.String()
		models = append(models, b)
	}
	for _, b := range models {
		for _, p := range []string{"fp8-e4m3", "fp8-e5m2", "fp16", "bf16", "fp32", "fp64"} {
			for _, n := range []int{1, 2, 3, 5, 9, 17, 20} {
				if why := holdToRunner(t, b, numeric.MustParsePrecision(p), n, 12, rng); why != "" {
					t.Fatal(why)
				}
			}
		}
	}
}

// TestSoftmaxSumStalls: fp8-e4m3 holds no 17, so softmax's sum of 17
// ones is 16 and each weight 1/16, not fl(1/17); the program follows the
// runner there (TestStackedBitForBit), and would not with the exact
// count: this test fails if attentionWeights rounds 1/m for softmax.
func TestSoftmaxSumStalls(t *testing.T) {
	b := buildW(t, "avg", model.Softmax, nil)
	p := numeric.MustParsePrecision("fp8-e4m3")
	run, _ := runners(t, b.m, p)
	ws, err := attentionWeights(model.Softmax, 17, roundOf(run))
	if err != nil {
		t.Fatal(err)
	}
	if ws[0].stored != 1.0/16 {
		t.Fatalf("softmax weight of 17 positions at fp8-e4m3: %v, want 1/16", ws[0].stored)
	}
	ah, err := attentionWeights(model.AverageHardmax, 17, roundOf(run))
	if err != nil {
		t.Fatal(err)
	}
	if ah[0].stored == ws[0].stored {
		t.Fatalf("average hardmax's fl(1/17) = %v equals softmax's: the test distinguishes nothing", ah[0].stored)
	}
	// The runner agrees: a 1 at the first of 17 positions, 0 elsewhere,
	// averages to the weight itself.
	x := make([]*big.Rat, 17*len(b.inputs))
	for k := range x {
		x[k] = new(big.Rat)
	}
	x[0] = big.NewRat(1, 1)
	res, err := run.RunStream(stackedStreams(b, x, 17), false)
	if err != nil {
		t.Fatal(err)
	}
	if v := res.Outputs[0].Values[0]; !sameRat(1.0/16, v) {
		t.Fatalf("the runner's weight of 17 positions at fp8-e4m3 is %s, want 1/16", v.Text)
	}
}

// TestSoftmaxCountMutation: with softmax's weight taken as fl(1/m), the
// exact count rounded once, the program leaves the runner at fp8-e4m3
// past 16 positions (the test above would fail).
func TestSoftmaxCountMutation(t *testing.T) {
	b := buildW(t, "avg", model.Softmax, nil)
	mutation = "softmax-count"
	defer func() { mutation = "" }()
	if why := holdToRunner(t, b, numeric.MustParsePrecision("fp8-e4m3"), 17, 50, rand.New(rand.NewPCG(1, 2))); why == "" {
		t.Fatal("the program with the weight fl(1/17) agrees with the runner at fp8-e4m3: the test distinguishes nothing")
	}
}
