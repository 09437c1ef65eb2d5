package positionwise

import (
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/transformer-cookbook/verify/internal/testenv"
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

// lengthProblem is the analysis of b at length n, its check the
// engine's run against the exact run (every position), keep recording
// the proved boxes.
func lengthProblem(b built, p numeric.Precision, run, ex eval.Runner, n int, keep func(lo, hi []int64)) Problem {
	check := func(points [][]*big.Rat) (int, string, error) {
		for k, x := range points {
			if y, why := unfaithfulInput(b, run, ex, x, n); y != nil {
				return k, why, nil
			}
		}
		return -1, "", nil
	}
	return Problem{
		Model: b.m, Precision: p, Inputs: b.inputs, Names: b.names, Domain: "test",
		Round: roundOf(run), Check: check, MaxBoxes: 1 << 20, Seed: 1, keep: keep,
	}
}

// unfaithfulInput runs one input of n positions at the format and
// exactly: x where they differ, and how (nil: they agree).
func unfaithfulInput(b built, run, ex eval.Runner, x []*big.Rat, n int) ([]*big.Rat, string) {
	h := stackedStreams(b, x, n)
	got, err := run.RunStream(h, false)
	if err != nil {
		return x, err.Error()
	}
	want, err := ex.RunStream(h, false)
	if err != nil {
		return x, err.Error()
	}
	for i := range got.Outputs {
		for c, v := range got.Outputs[i].Values {
			w, _ := want.Outputs[i].Values[c].Rat()
			if !v.Equals(w) {
				return x, fmt.Sprintf("position %d output %d: %s, exactly %s", i+1, c+1, v.Text, w.RatString())
			}
		}
	}
	return nil, ""
}

// TestLengthAgreement holds the analysis of a length to the enumeration
// at fp8, n = 1 and 2, d = 1 (up to 64,009 inputs of two positions;
// fp8-e5m2 at n = 2 in the long tier):
// every box it proves holds only inputs where the format computes the
// construction's exact output (a fifth of the pairs, every one in the
// long tier), and its verdict (enumerated) is the
// independent enumeration's: right on every input, or failing on one
// the engine's run confirms.
func TestLengthAgreement(t *testing.T) {
	d1 := map[string]string{"d": "1"}
	strict := model.StrictFuture
	for _, tc := range []struct {
		name string
		w    model.Weighting
		mask *model.Mask
	}{{"avg", model.Softmax, nil}, {"avg", model.AverageHardmax, nil}, {"avg-prefix", model.Softmax, nil}, {"identity-attn", model.LeftHardmax, nil},
		// Strict future masking: position 1 attends to nothing and
		// outputs 0, as the construction does, exactly.
		{"avg", model.Softmax, &strict}} {
		b := buildW(t, tc.name, tc.w, d1)
		if tc.mask != nil {
			b.m.Layers[0].Attention.Mask = *tc.mask
			b.name += "/mask-" + tc.mask.String()
		}
		for _, pname := range []string{"fp8-e4m3", "fp8-e5m2"} {
			p := numeric.MustParsePrecision(pname)
			run, ex := runners(t, b.m, p)
			g, _ := gridOf(p)
			for n := 1; n <= 2; n++ {
				if n == 2 && pname == "fp8-e5m2" && !testenv.LongEnabled() {
					continue // the long tier runs it
				}
				// The boxes, forced, with a check that passes every input,
				// so that the search covers the whole domain.
				var boxes [][2][]int64
				pr := lengthProblem(b, p, run, ex, n, func(lo, hi []int64) {
					boxes = append(boxes, [2][]int64{append([]int64(nil), lo...), append([]int64(nil), hi...)})
				})
				pr.MaxEnumerate = -1
				pr.Check = func([][]*big.Rat) (int, string, error) { return -1, "", nil }
				res, err := AnalyseLength(pr, n)
				if err != nil {
					t.Fatal(err)
				}
				if res.Verdict != Proved && res.Verdict != Run {
					t.Fatalf("%s at %s, n = %d: %s", b.name, p, n, res.Statement())
				}
				points := 0
				for _, bx := range boxes {
					var bad []*big.Rat
					var why string
					eachPoint(bx[0], bx[1], func(o []int64) {
						if bad != nil || len(o) > 1 && o[0]%5 != 0 && !testenv.LongEnabled() {
							return // a fifth of the pairs; the long tier runs every one
						}
						x := make([]*big.Rat, len(o))
						for k := range o {
							x[k] = g.pointValue(o[k])
						}
						points++
						bad, why = unfaithfulInput(b, run, ex, x, n)
					})
					if bad != nil {
						t.Fatalf("%s at %s, n = %d: a proved box holds (%s), where %s", b.name, p, n, ratsText(bad), why)
					}
				}
				if n == 1 && points == 0 {
					t.Fatalf("%s at %s, n = 1: no box proved", b.name, p)
				}
				// The verdict, enumerated, against an independent
				// enumeration of every input.
				res, err = AnalyseLength(lengthProblem(b, p, run, ex, n, nil), n)
				if err != nil {
					t.Fatal(err)
				}
				var fails []*big.Rat
				eachPoint(repeat(-g.maxOrd, n), repeat(g.maxOrd, n), func(o []int64) {
					if fails != nil {
						return
					}
					x := make([]*big.Rat, len(o))
					for k := range o {
						x[k] = g.pointValue(o[k])
					}
					fails, _ = unfaithfulInput(b, run, ex, x, n)
				})
				switch {
				case res.Verdict == Run && fails != nil:
					t.Fatalf("%s at %s, n = %d: the analysis ran every input right, but (%s) fails", b.name, p, n, ratsText(fails))
				case res.Verdict == Fails && fails == nil:
					t.Fatalf("%s at %s, n = %d: the analysis fails at (%s), the enumeration nowhere", b.name, p, n, ratsText(res.Counterexample))
				case res.Verdict == Fails:
					if y, _ := unfaithfulInput(b, run, ex, res.Counterexample, n); y == nil {
						t.Fatalf("%s at %s, n = %d: the counterexample (%s) is right", b.name, p, n, ratsText(res.Counterexample))
					}
				case res.Verdict != Run:
					t.Fatalf("%s at %s, n = %d: %s", b.name, p, n, res.Statement())
				}
				t.Logf("%s at %s, n = %d: %d boxes proved (%d inputs); enumerated: %s", b.name, p, n, len(boxes), points, res.Verdict)
			}
		}
	}
}

func repeat(v int64, n int) []int64 {
	out := make([]int64, n)
	for k := range out {
		out[k] = v
	}
	return out
}

// provedViolation runs the forced box analysis of b at length n over the
// whole domain (a check that passes every input) and returns an input of
// a proved box where the format's output is not the exact one (nil:
// none), and the number of inputs the proved boxes hold.
func provedViolation(t *testing.T, b built, p numeric.Precision, n int) ([]*big.Rat, int) {
	t.Helper()
	run, ex := runners(t, b.m, p)
	g, _ := gridOf(p)
	var boxes [][2][]int64
	pr := lengthProblem(b, p, run, ex, n, func(lo, hi []int64) {
		boxes = append(boxes, [2][]int64{append([]int64(nil), lo...), append([]int64(nil), hi...)})
	})
	pr.MaxEnumerate = -1
	pr.Check = func([][]*big.Rat) (int, string, error) { return -1, "", nil }
	if _, err := AnalyseLength(pr, n); err != nil {
		t.Fatal(err)
	}
	points := 0
	var bad []*big.Rat
	for _, bx := range boxes {
		eachPoint(bx[0], bx[1], func(o []int64) {
			if bad != nil {
				return
			}
			x := make([]*big.Rat, len(o))
			for k := range o {
				x[k] = g.pointValue(o[k])
			}
			points++
			bad, _ = unfaithfulInput(b, run, ex, x, n)
		})
	}
	return bad, points
}

// TestScoresFinitePremise: a key that overflows makes the score 0·∞
// (NaN), whatever W^Q = 0 says; the analysis proves no box where a query
// or key may not be finite. Without that premise (the mutation) it
// proves a box holding an input the format computes NaN on.
func TestScoresFinitePremise(t *testing.T) {
	b := buildW(t, "avg", model.Softmax, map[string]string{"d": "1"})
	b.m.Layers[0].Attention.Heads[0].K.Set(0, 0, numeric.LitInt(448))
	p := numeric.MustParsePrecision("fp8-e4m3")
	if why := FixedScores(b.m); why != "" {
		t.Fatal(why)
	}
	if bad, _ := provedViolation(t, b, p, 1); bad != nil {
		t.Fatalf("a proved box holds (%s), which the format computes wrong", ratsText(bad))
	}
	mutation = "scores-unchecked"
	defer func() { mutation = "" }()
	if bad, _ := provedViolation(t, b, p, 1); bad == nil {
		t.Fatal("without the finite-score premise no proved box holds a wrong input: the test distinguishes nothing")
	}
}

// TestRefused: the models the analysis of fixed scores does not treat
// are refused with a reason, and AnalyseLength returns an error, never
// a panic.
func TestRefused(t *testing.T) {
	p := numeric.MustParsePrecision("fp8-e4m3")
	for _, tc := range []struct {
		name   string
		change func(m *model.Model)
		want   string
	}{
		{"query and key", func(m *model.Model) {
			h := &m.Layers[0].Attention.Heads[0]
			h.Q.Set(0, 0, numeric.LitInt(1))
			h.K.Set(0, 0, numeric.LitInt(1))
		}, "depend on the input"},
		{"position encoding", func(m *model.Model) {
			m.Position = &model.PositionEncoding{Name: "one", Vector: func(i, n int) model.Vector {
				v := make(model.Vector, m.D)
				for k := range v {
					v[k] = numeric.LitInt(0)
				}
				return v
			}}
		}, "position encoding"},
		{"feed-forward first", func(m *model.Model) {
			ff := &model.FeedForward{W1: model.Zeros(1, m.D), W2: model.Zeros(m.D, 1), Activation: model.ReLU}
			m.Layers = append([]model.Layer{{FeedForward: ff}}, m.Layers...)
		}, "after a feed-forward"},
		{"no attention", func(m *model.Model) { m.Layers[0].Attention = nil }, "does not attend"},
		// The stages follow matrices and ReLU only: a GELU would pass for a
		// linear unit and a pre-norm for the identity, and a box of inputs
		// all wrong (GELU(x) is irrational at every x ≠ 0) be proved.
		{"GELU after attention", func(m *model.Model) {
			ff := &model.FeedForward{W1: model.Identity(m.D), W2: model.Identity(m.D), Activation: model.GELU}
			m.Layers = append(m.Layers, model.Layer{FeedForward: ff, NoFeedForwardResidual: true})
		}, ""},
		{"pre-norm after attention", func(m *model.Model) {
			ff := &model.FeedForward{W1: model.Identity(m.D), W2: model.Identity(m.D), Activation: model.Linear}
			m.Norm = model.PreNorm
			m.Layers = append(m.Layers, model.Layer{FeedForward: ff, NoFeedForwardResidual: true, FeedForwardNorm: &model.LayerNorm{Eps: numeric.LitInt(1)}})
		}, ""},
	} {
		b := buildW(t, "avg", model.Softmax, nil)
		tc.change(b.m)
		why := FixedScores(b.m)
		if tc.want == "" && why != "" || !strings.Contains(why, tc.want) {
			t.Errorf("%s: FixedScores says %q, want %q", tc.name, why, tc.want)
		}
		run, ex := runners(t, buildW(t, "avg", model.Softmax, nil).m, p)
		pr := lengthProblem(b, p, run, ex, 2, nil)
		if _, err := AnalyseLength(pr, 2); err == nil {
			t.Errorf("%s: AnalyseLength ran", tc.name)
		}
		pr.Precision = numeric.MustParsePrecision("113") // the wide grid's path
		if _, err := AnalyseLength(pr, 2); err == nil {
			t.Errorf("%s: AnalyseLength ran at 113 bits", tc.name)
		}
	}
	// A query alone is no score: q·0 = 0.
	b := buildW(t, "avg", model.Softmax, nil)
	b.m.Layers[0].Attention.Heads[0].Q.Set(0, 0, numeric.LitInt(3))
	if why := FixedScores(b.m); why != "" {
		t.Errorf("W^Q ≠ 0 with W^K = 0: %s", why)
	}
	if why := holdToRunner(t, b, p, 3, 20, rand.New(rand.NewPCG(5, 6))); why != "" {
		t.Error(why)
	}
	// Bad problems.
	b = buildW(t, "avg", model.Softmax, nil)
	run, ex := runners(t, b.m, p)
	pr := lengthProblem(b, p, run, ex, 1, nil)
	if _, err := AnalyseLength(pr, 0); err == nil {
		t.Error("length 0 ran")
	}
	exact := pr // exact arithmetic rounds nothing: no grid (113 bits runs, TestLengthWideAt113Bits)
	exact.Precision = numeric.MustParsePrecision("exact")
	if _, err := AnalyseLength(exact, 1); err == nil {
		t.Error("exact arithmetic ran")
	}
	fin := pr
	fin.Finite = [][]*big.Rat{{new(big.Rat), new(big.Rat)}}
	if _, err := AnalyseLength(fin, 1); err == nil {
		t.Error("a finite domain ran")
	}
	noCheck := pr
	noCheck.Check = nil
	if _, err := AnalyseLength(noCheck, 1); err == nil {
		t.Error("a problem without a check ran")
	}
}

// TestZeroValues: identity-attn's heads add exactly 0, under every
// weighting: ZeroValues strips them, the stripped model's analysis is
// proved at fp8, and the engine runs the model and the stripped one to
// the same bits at every length tried. A value weight perturbed to 1,
// or to 2^-200 (which fp8 rounds to 0, but the construction does not),
// is refused, and in each case the stripped model would misstate the
// construction: the test shows an input where they differ.
func TestZeroValues(t *testing.T) {
	p := numeric.MustParsePrecision("fp8-e4m3")
	rng := rand.New(rand.NewPCG(7, 8))
	g, _ := gridOf(p)
	for _, w := range []model.Weighting{model.Softmax, model.AverageHardmax, model.LeftHardmax} {
		b := buildW(t, "identity-attn", w, nil)
		zm, why := ZeroValues(b.m)
		if why != "" {
			t.Fatalf("%s: %s", b.name, why)
		}
		run, _ := runners(t, b.m, p)
		srun, _ := runners(t, zm, p)
		sb := b
		sb.m = zm
		res, err := Analyse(problem(t, sb, p, srun, nil))
		if err != nil || res.Verdict != Run && res.Verdict != Proved {
			t.Fatalf("%s: the stripped model: %v %v", b.name, err, res)
		}
		for _, n := range []int{1, 2, 5, 17, 64} {
			x := make([]*big.Rat, n*len(b.inputs))
			for k := range x {
				x[k] = rat(randomValue(g, rng))
			}
			h := stackedStreams(b, x, n)
			a, err1 := run.RunStream(h, false)
			s, err2 := srun.RunStream(h, false)
			if err1 != nil || err2 != nil {
				t.Fatal(err1, err2)
			}
			for i := range a.Outputs {
				for c, v := range a.Outputs[i].Values {
					if v.Text != s.Outputs[i].Values[c].Text {
						t.Fatalf("%s, n = %d: the model computes %s, the stripped one %s", b.name, n, v.Text, s.Outputs[i].Values[c].Text)
					}
				}
			}
		}
	}
	for _, tc := range []struct {
		name string
		v    numeric.Expr
	}{
		{"one", numeric.LitInt(1)},
		{"2^-200", numeric.Lit(new(big.Rat).SetFrac(big.NewInt(1), new(big.Int).Lsh(big.NewInt(1), 200)))},
	} {
		b := buildW(t, "identity-attn", model.Softmax, nil)
		b.m.Layers[0].Attention.Heads[0].V.Set(0, 0, tc.v)
		if _, why := ZeroValues(b.m); !strings.Contains(why, "W^V is not 0") {
			t.Errorf("W^V[1][1] = %s: ZeroValues says %q", tc.name, why)
		}
		if why := FixedScores(b.m); why != "" {
			t.Errorf("W^V[1][1] = %s: %s", tc.name, why)
		}
		// The stripped model computes x; the construction, exactly,
		// does not at (1, 0; 1, 0).
		_, ex := runners(t, b.m, p)
		x := []*big.Rat{big.NewRat(1, 1), new(big.Rat), big.NewRat(1, 1), new(big.Rat)}
		out, err := ex.RunStream(stackedStreams(b, x, 2), false)
		if err != nil {
			t.Fatal(err)
		}
		if v := out.Outputs[0].Values[0]; v.Equals(big.NewRat(1, 1)) {
			t.Errorf("W^V[1][1] = %s: the construction computes 1 exactly: the perturbation changes nothing", tc.name)
		}
	}
}

// TestAttentionFirstPremise: attention after a feed-forward sublayer
// reads a stream that may overflow, and then W^V = 0 adds 0·∞ = NaN, not
// 0: the model and the model without its attention part ways, so the
// reduction of ZeroValues needs the attention first, which FixedScores
// requires. Here, at fp16 and x = 1, the stripped model computes the
// construction's exact 0 and the model itself NaN.
func TestAttentionFirstPremise(t *testing.T) {
	b := buildW(t, "identity-attn", model.Softmax, map[string]string{"d": "1"})
	m := b.m
	ff := func(w1, w2 int64) *model.FeedForward {
		f := &model.FeedForward{W1: model.Zeros(1, 1), W2: model.Zeros(1, 1), Activation: model.ReLU}
		f.W1.Set(0, 0, numeric.LitInt(w1))
		f.W2.Set(0, 0, numeric.LitInt(w2))
		return f
	}
	// x + 65504·relu(2x), then att_zero, then relu(−h) without a residual.
	m.Layers = []model.Layer{{FeedForward: ff(2, 65504)}, {Attention: m.Layers[0].Attention}, {FeedForward: ff(-1, 1), NoFeedForwardResidual: true}}
	if why := FixedScores(m); !strings.Contains(why, "after a feed-forward") {
		t.Fatalf("FixedScores: %q", why)
	}
	if _, why := ZeroValues(m); why == "" {
		t.Fatal("ZeroValues strips attention that reads an overflowing stream")
	}
	p := numeric.MustParsePrecision("fp16")
	run, ex := runners(t, m, p)
	srun, _ := runners(t, withoutAttention(m), p)
	h := [][]*big.Rat{{big.NewRat(1, 1)}}
	got, err1 := run.RunStream(h, false)
	stripped, err2 := srun.RunStream(h, false)
	exact, err3 := ex.RunStream(h, false)
	if err1 != nil || err2 != nil || err3 != nil {
		t.Fatal(err1, err2, err3)
	}
	g, s, e := got.Outputs[0].Values[0], stripped.Outputs[0].Values[0], exact.Outputs[0].Values[0]
	er, _ := e.Rat()
	if !s.Equals(er) || g.Equals(er) {
		t.Fatalf("the model computes %s, the stripped one %s, exactly %s: the premise shows nothing", g.Text, s.Text, e.Text)
	}
}
