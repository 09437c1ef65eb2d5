package attention

import (
	"math/big"
	"slices"
	"strings"
	"testing"

	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/numeric"
	"github.com/transformer-cookbook/verify/proofs"
	"github.com/transformer-cookbook/verify/recipes"
	"github.com/transformer-cookbook/verify/recipes/blocks"
	"github.com/transformer-cookbook/verify/recipes/stream"
)

// lookupCon builds the qm lookup under AHAT for N = 3.
func lookupCon(t *testing.T) *recipes.Construction {
	t.Helper()
	r, err := recipes.Get("lookup")
	if err != nil {
		t.Fatal(err)
	}
	con, err := r.Construct(model.AverageHardmax, 3, nil)
	if err != nil {
		t.Fatal(err)
	}
	return con
}

// TestValueArgumentRefusesDependence: the argument that c is affine in the
// values fails where the weights let the values in: a query reading v, an
// FFN reading v that feeds the head, a readout of the rounding y (a ReLU
// of c), a layer norm mixing v into the head's inputs.
func TestValueArgumentRefusesDependence(t *testing.T) {
	col := func(m *model.Model, name string) int { return slices.Index(m.Components, name) }
	for _, tc := range []struct {
		name  string
		edit  func(m *model.Model) string // returns the output read
		wantR string
	}{
		{"the lookup as built", func(m *model.Model) string { return "c" }, ""},
		{"W^Q reads v", func(m *model.Model) string {
			m.Layers[0].Attention.Heads[0].Q.Set(0, col(m, "v"), numeric.LitInt(1))
			return "c"
		}, "readout c reads c"},
		{"the readout of y", func(m *model.Model) string { return "y" }, "readout y reads y"},
		{"a norm over q and v before the head", func(m *model.Model) string {
			sel := model.Zeros(2, m.D)
			sel.Set(0, col(m, "q"), numeric.LitInt(1))
			sel.Set(1, col(m, "v"), numeric.LitInt(1))
			m.Norm = model.PreNorm
			m.Layers[0].AttentionNorm = &model.LayerNorm{Select: &sel}
			h := &m.Layers[0].Attention.Heads[0]
			h.Q, h.K, h.V = model.Zeros(2, 2), model.Zeros(2, 2), model.Zeros(m.D, 2)
			h.V.Set(col(m, "c"), 1, numeric.LitInt(1))
			return "c"
		}, "readout c reads c"},
		{"post-norm", func(m *model.Model) string {
			m.Norm = model.PostNorm
			return "c"
		}, "after the sublayers"},
	} {
		m := lookupCon(t).Model
		out := tc.edit(m)
		got := valueArgument(m, col(m, "v"), out)
		if tc.wantR == "" && got != "" || tc.wantR != "" && !strings.Contains(got, tc.wantR) {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.wantR)
		}
	}
	// An FFN writing 2v into a component the query reads, before the
	// head: the weights then depend on v.
	ff := blocks.Scale([]string{"v"}, []string{"q2"}, big.NewRat(2, 1))
	head := &stream.Attn{Name: "h", In: []string{"q2", "j", "v"}, Out: []string{"c"},
		Q: model.Ints([]int64{1, 0, 0}), K: model.Ints([]int64{0, 1, 0}), V: model.Ints([]int64{0, 0, 1}),
		Weighting: model.AverageHardmax, Scale: model.NoScale}
	m, err := stream.New("fed", "v", "j").Then(ff, head).Readout("c").Model()
	if err != nil {
		t.Fatal(err)
	}
	if got := valueArgument(m, col(m, "v"), "c"); !strings.Contains(got, "other than affinely") {
		t.Errorf("an FFN feeding the query: %q, want the argument refused", got)
	}
}

// TestLookupValuesRefutes: a lookup whose W^V doubles the value passes
// the argument (it is linear) but not the runs at e_k.
func TestLookupValuesRefutes(t *testing.T) {
	con := lookupCon(t)
	m := con.Model
	m.Layers[0].Attention.Heads[0].V.Set(slices.Index(m.Components, "c"), slices.Index(m.Components, "v"), numeric.LitInt(2))
	ev, err := valuesOf(con, 3, "exact", 0)
	if err != nil {
		t.Fatal(err)
	}
	if ev.Verdict != proofs.Refuted || !strings.Contains(ev.Summary, "c = 2, want exactly 1") {
		t.Errorf("verdict %s: %s; want REFUTED with c = 2", ev.Verdict, ev.Summary)
	}
}
