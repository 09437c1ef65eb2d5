package eval

import (
	"math/big"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/numeric"
)

// dependenceModel has one component of each kind the analysis of package
// certify tells apart: "sym" (word embedding 1, 2; position encoding 0)
// depends on the symbol alone, "pos" (3, 3; i) on the position alone,
// "const" (0, 0; 5) on neither, "mixed" (1, −1; i) on both, and "big"
// (60000, 60000; 60000) is finite term by term but its sum, 120000,
// overflows fp16 (largest finite 65504).
func dependenceModel() *model.Model {
	return &model.Model{
		Name:          "dependence",
		Alphabet:      []string{"a", "b"},
		WordEmbedding: []model.Vector{model.IntVector(1, 3, 0, 1, 60000), model.IntVector(2, 3, 0, -1, 60000)},
		Position: &model.PositionEncoding{Name: "(0, i, 5, i, 60000)", Vector: func(i, n int) model.Vector {
			return model.IntVector(0, int64(i), 5, int64(i), 60000)
		}},
		D:          5,
		Components: []string{"sym", "pos", "const", "mixed", "big"},
		Output:     model.Output{Kind: model.Readout, W: model.Identity(5)},
	}
}

func TestEmbedDependence(t *testing.T) {
	type dep = EmbedDependence
	all := dep{Symbol: true, Position: true, Finite: true}
	symbol := dep{Symbol: true, Finite: true}
	position := dep{Position: true, Finite: true}
	mixed := dep{Finite: true}
	fp16 := numeric.NewEmulated(numeric.MustParsePrecision("fp16").Format)
	checkDependence(t, numeric.Exact{}, 3, []dep{symbol, position, all, mixed, all})
	// At n = 1 there is one position encoding: nothing depends on the
	// position.
	checkDependence(t, numeric.Exact{}, 1, []dep{symbol, all, all, symbol, all})
	checkDependence(t, fp16, 3, []dep{symbol, position, all, mixed, {Symbol: true, Position: true}})
	checkDependence(t, numeric.Float32{}, 4, []dep{symbol, position, all, mixed, all})
}

func checkDependence[T any](t *testing.T, b numeric.Backend[T], n int, want []EmbedDependence) {
	t.Helper()
	inst, err := Instantiate(b, dependenceModel())
	if err != nil {
		t.Fatal(err)
	}
	p := b.Precision()
	got, err := inst.Steps().EmbedDependence(n)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("%s, n = %d (-want +got):\n%s", p, n, d)
	}
	// The marks are claims about Embed: check them against it.
	for c, dc := range got {
		for s := range 2 {
			for i := 1; i <= n; i++ {
				h, err := inst.Steps().Embed(s, i, n)
				if err != nil {
					t.Fatal(err)
				}
				first, _ := inst.Steps().Embed(s, 1, n)
				other, _ := inst.Steps().Embed(0, i, n)
				if dc.Symbol && b.Cmp(h[c], first[c]) != numeric.Equal {
					t.Errorf("%s: component %d, marked symbol-only, differs between positions 1 and %d", p, c, i)
				}
				if dc.Position && b.Cmp(h[c], other[c]) != numeric.Equal {
					t.Errorf("%s: component %d, marked position-only, differs between symbols", p, c)
				}
				if dc.Finite && !b.Finite(h[c]) {
					t.Errorf("%s: component %d, marked finite, is %s at symbol %d, position %d", p, c, b.Format(h[c]), s, i)
				}
			}
		}
	}
}

// TestKeyScores: the batch must give each key the score HeadScore gives
// it alone, bit for bit, with and without the 1/√d_key scaling and a
// temperature (the machine floats' batch is computed apart from
// HeadScore's generic path, also into a reused slice); and ScoreIsDot
// must say when the score is q·k itself.
func TestKeyScores(t *testing.T) {
	fp16 := numeric.NewEmulated(numeric.MustParsePrecision("fp16").Format)
	bf16 := numeric.NewEmulated(numeric.MustParsePrecision("bf16").Format)
	e4m3 := numeric.NewEmulated(numeric.MustParsePrecision("fp8-e4m3").Format)
	checkKeyScores(t, fp16, 2, model.ScaleSqrtDKey, "", false)
	checkKeyScores(t, fp16, 2, model.NoScale, "", true)
	checkKeyScores(t, fp16, 3, model.ScaleSqrtDKey, "3/7", false)
	checkKeyScores(t, numeric.Float32{}, 3, model.NoScale, "", true)
	checkKeyScores(t, numeric.Float32{}, 3, model.ScaleSqrtDKey, "", false)
	checkKeyScores(t, numeric.Float64{}, 3, model.NoScale, "", true)
	checkKeyScores(t, numeric.Float64{}, 3, model.ScaleSqrtDKey, "0.3", false)
	checkKeyScores(t, numeric.Exact{}, 4, model.ScaleSqrtDKey, "", false)
	checkKeyScores(t, bf16, 1, model.ScaleSqrtDKey, "", true) // √1 divides nothing
	checkKeyScores(t, e4m3, 2, model.ScaleSqrtDKey, "5", false)
	checkKeyScores(t, numeric.NewBigFloat(24), 3, model.NoScale, "", true)
	checkKeyScores(t, numeric.NewBigFloat(24), 2, model.ScaleSqrtDKey, "3/7", false)
}

func checkKeyScores[T any](t *testing.T, b numeric.Backend[T], dKey int, scale model.ScoreScale, tau string, dot bool) {
	t.Helper()
	m := wideKeyModel(dKey, scale, model.LeftHardmax)
	var err error
	if tau != "" {
		m.Layers[0].Attention.Weighting = model.Softmax
		if m.Layers[0].Attention.Temperature, err = numeric.ParseExpr(tau); err != nil {
			t.Fatal(err)
		}
	}
	inst, err := Instantiate(b, m)
	if err != nil {
		t.Fatal(err)
	}
	p := b.Precision()
	if got := inst.Steps().ScoreIsDot(0, 0); got != dot {
		t.Errorf("%s, d_key %d, scale %v: ScoreIsDot = %v, want %v", p, dKey, scale, got, dot)
	}
	vec := func(s string) []T {
		r, _ := new(big.Rat).SetString(s)
		v := make([]T, dKey)
		for i := range v {
			v[i] = b.SetRat(b.New(), r)
		}
		return v
	}
	q := vec("1/3")
	var keys [][]T
	for _, s := range []string{"0", "1", "7/3", "-5", "1000001/7", "-1/1000", "123456789/1024"} {
		keys = append(keys, vec(s))
	}
	batch, err := inst.Steps().KeyScores(0, 0, q, keys)
	if err != nil {
		t.Fatal(err)
	}
	// A slice reused: the scores are written over what it held.
	dst := make([]T, len(keys)+1)
	for x := range dst {
		dst[x] = b.SetInt64(b.New(), 99)
	}
	into, err := inst.Steps().KeyScoresInto(0, 0, q, keys, dst)
	if err != nil {
		t.Fatal(err)
	}
	for x, k := range keys {
		want, err := inst.Steps().HeadScore(0, 0, q, k)
		if err != nil {
			t.Fatal(err)
		}
		nan := b.Cmp(want, want) == numeric.Unordered // fp8-e4m3 overflows to NaN
		for _, got := range []T{batch[x], into[x]} {
			same := b.Cmp(got, want) == numeric.Equal || nan && b.Cmp(got, got) == numeric.Unordered
			if !same || b.Format(got) != b.Format(want) {
				t.Errorf("%s, d_key %d, τ %q: key %d scores %s in the batch, %s alone", p, dKey, tau, x, b.Format(got), b.Format(want))
			}
		}
	}
}
