package modelfile

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/big"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/model/eval"
	"github.com/transformer-cookbook/verify/numeric"
)

// formulaModel has a position formula of every function, two of them in
// n, an irrational scale and two terms summed on one component:
//
//	component 0: i/n            1: n + 1 (n, plus 1)     2: −(1/i)
//	3: i²                       4: (−1)^i                5–7: one-hot of 3
//	8–9: sinusoidal, M = 100    10: √2·i
func formulaModel() *model.Model {
	pe, err := model.FormulaPositions("all", 11, []model.PositionTerm{
		{Function: model.PosIOverN, Component: 0},
		{Function: model.PosN, Component: 1},
		{Function: model.PosOne, Component: 1},
		{Function: model.PosInverseI, Component: 2, Scale: numeric.LitInt(-1)},
		{Function: model.PosISquared, Component: 3},
		{Function: model.PosParity, Component: 4},
		{Function: model.PosOneHot, Component: 5, Size: 3},
		{Function: model.PosSinusoidal, Component: 8, Size: 2, Base: numeric.LitInt(100)},
		{Function: model.PosI, Component: 10, Scale: numeric.Sqrt(numeric.LitInt(2))},
	})
	if err != nil {
		panic(err)
	}
	// The head attends (future mask, AHAT) by the score q·k with q = the
	// symbol and k = i/n and (−1)^i, and copies the one-hot and the
	// sinusoid; the readout shows i/n, n + 1 and what the head read.
	w := model.Zeros(5, 11)
	for r, c := range []int{0, 1, 5, 8, 9} {
		w.Set(r, c, numeric.LitInt(1))
	}
	return &model.Model{
		Name:          "formula",
		Alphabet:      []string{"a", "b"},
		WordEmbedding: []model.Vector{nil, model.IntVector(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1)},
		Position:      pe,
		D:             11,
		Layers: []model.Layer{{Attention: &model.Attention{
			Heads: []model.Head{{
				Q: model.Ints([]int64{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1}),
				K: model.Ints([]int64{1, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0}),
				V: model.Identity(11),
			}},
			Mask: model.Future, Weighting: model.AverageHardmax, Scale: model.NoScale,
		}}},
		Output: model.Output{Kind: model.Readout, W: w},
	}
}

// TestPositionTermValues checks each function's values against the
// definitions worked out by hand.
func TestPositionTermValues(t *testing.T) {
	sqrt2 := numeric.Sqrt(numeric.LitInt(2))
	tests := []struct {
		term model.PositionTerm
		i, n int
		want []string // exact rationals; "~x" is an irrational near the float x
	}{
		{model.PositionTerm{Function: model.PosOne}, 3, 5, []string{"1"}},
		{model.PositionTerm{Function: model.PosI}, 3, 5, []string{"3"}},
		{model.PositionTerm{Function: model.PosN}, 3, 5, []string{"5"}},
		{model.PositionTerm{Function: model.PosIOverN}, 2, 4, []string{"1/2"}},
		{model.PositionTerm{Function: model.PosIOverN}, 3, 7, []string{"3/7"}},
		{model.PositionTerm{Function: model.PosIOverN}, 65536, 65536, []string{"1"}},
		{model.PositionTerm{Function: model.PosInverseI}, 4, 9, []string{"1/4"}},
		{model.PositionTerm{Function: model.PosISquared}, 46, 50, []string{"2116"}},
		{model.PositionTerm{Function: model.PosISquared}, 65536, 65536, []string{"4294967296"}},
		{model.PositionTerm{Function: model.PosParity}, 1, 1, []string{"-1"}},
		{model.PositionTerm{Function: model.PosParity}, 2, 3, []string{"1"}},
		{model.PositionTerm{Function: model.PosParity}, 7, 9, []string{"-1"}},
		{model.PositionTerm{Function: model.PosOneHot, Size: 3}, 2, 5, []string{"0", "1", "0"}},
		{model.PositionTerm{Function: model.PosOneHot, Size: 3}, 4, 5, []string{"0", "0", "0"}},
		{model.PositionTerm{Function: model.PosInverseI, Scale: numeric.LitInt(-1)}, 3, 3, []string{"-1/3"}},
		{model.PositionTerm{Function: model.PosISquared, Scale: numeric.Frac(1, 2)}, 3, 3, []string{"9/2"}},
		{model.PositionTerm{Function: model.PosOne, Scale: numeric.LitInt(0)}, 1, 1, []string{"0"}},
		{model.PositionTerm{Function: model.PosI, Scale: sqrt2}, 2, 2, []string{"~2.8284271247461903"}},
		// cos 2, sin 2, then the frequency 10000^(−2/4) = 1/100.
		{model.PositionTerm{Function: model.PosSinusoidal, Size: 4, Base: numeric.LitInt(10000)}, 2, 2,
			[]string{"~-0.4161468365471424", "~0.9092974268256817", "~0.9998000066665778", "~0.019998666693333080"}},
		{model.PositionTerm{Function: model.PosSinusoidal, Size: 2, Base: numeric.LitInt(7), Scale: numeric.LitInt(-3)}, 1, 9,
			[]string{"~-1.6209069176044193", "~-2.5244129544236893"}},
	}
	for _, tt := range tests {
		got := tt.term.Values(tt.i, tt.n)
		if len(got) != len(tt.want) {
			t.Errorf("%s at i = %d, n = %d: %d values, want %d", tt.term.Function, tt.i, tt.n, len(got), len(tt.want))
			continue
		}
		for k, w := range tt.want {
			if f, ok := strings.CutPrefix(w, "~"); ok {
				want := mustFloat(t, f)
				lo, hi, err := got[k].Enclose(80)
				if _, rational, _ := got[k].Rat(); err != nil || rational || math.Abs(ratFloat(lo)-want) > 1e-15 || math.Abs(ratFloat(hi)-want) > 1e-15 {
					t.Errorf("%s at i = %d, n = %d, entry %d = %v in [%v, %v] (%v), want an irrational ≈ %v", tt.term.Function, tt.i, tt.n, k, got[k], lo, hi, err, want)
				}
				continue
			}
			r, ok, err := got[k].Rat()
			want, _ := new(big.Rat).SetString(w)
			if err != nil || !ok || r.Cmp(want) != 0 {
				t.Errorf("%s at i = %d, n = %d, entry %d = %v, want %s", tt.term.Function, tt.i, tt.n, k, got[k], w)
			}
		}
	}
}

func mustFloat(t *testing.T, s string) float64 {
	t.Helper()
	var f float64
	if err := json.Unmarshal([]byte(s), &f); err != nil {
		t.Fatal(err)
	}
	return f
}

func ratFloat(r *big.Rat) float64 {
	f, _ := r.Float64()
	return f
}

// TestFormulaPositionsVector checks the sum of terms: n + 1 from two
// terms on one component, and zeros where no term writes.
func TestFormulaPositionsVector(t *testing.T) {
	pe := formulaModel().Position
	v := pe.Vector(2, 4)
	want := []string{"1/2", "5", "-1/2", "4", "1", "0", "1", "0"}
	for k, w := range want {
		r, ok, _ := v[k].Rat()
		if !ok || r.RatString() != w {
			t.Errorf("pe_4(2)[%d] = %v, want %s", k, v[k], w)
		}
	}
	if dep, known := pe.DependsOnN(); !dep || !known {
		t.Errorf("DependsOnN = %v, %v; want true, true", dep, known)
	}
	if !pe.Vector(1, 1)[6].IsZero() {
		t.Errorf("pe_1(1)[6] = %v, want the zero Expr (no term writes it there)", pe.Vector(1, 1)[6])
	}
}

// TestFormulaPositionsErrors: terms that do not fit are refused.
func TestFormulaPositionsErrors(t *testing.T) {
	tests := []struct {
		term model.PositionTerm
		want string
	}{
		{model.PositionTerm{Function: model.PosI, Component: 4}, "components 4 … 4, outside 0 … 3"},
		{model.PositionTerm{Function: model.PosI, Component: -1}, "outside 0 … 3"},
		{model.PositionTerm{Function: model.PosOneHot, Component: 2, Size: 3}, "components 2 … 4, outside"},
		{model.PositionTerm{Function: model.PosOneHot}, "size 0, want at least 1"},
		{model.PositionTerm{Function: model.PosSinusoidal, Size: 3, Base: numeric.LitInt(2)}, "want an even number"},
		{model.PositionTerm{Function: model.PosSinusoidal, Size: 2}, "no base"},
		{model.PositionTerm{Function: model.PosSinusoidal, Size: 2, Base: numeric.LitInt(-2)}, "want a positive number"},
		{model.PositionTerm{Function: model.PosI, Size: 2}, "a size is only for one-hot and sinusoidal"},
		{model.PositionTerm{Function: model.PosI, Base: numeric.LitInt(2)}, "a base is only for sinusoidal"},
		{model.PositionTerm{Function: model.PositionFunction(42)}, "unknown position function"},
		{model.PositionTerm{Function: model.PosI, Scale: numeric.Log(numeric.LitInt(0))}, "scale"},
	}
	for _, tt := range tests {
		_, err := model.FormulaPositions("bad", 4, []model.PositionTerm{tt.term})
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%+v: error %v, want one with %q", tt.term, err, tt.want)
		}
	}
	if _, err := model.FormulaPositions("empty", 4, nil); err == nil {
		t.Error("an empty formula is accepted")
	}
	m := formulaModel()
	m.Position.IndependentOfN = true
	if err := m.Validate(); err == nil || !strings.Contains(err.Error(), "depends on n") {
		t.Errorf("a formula in n declared independent of n: %v", err)
	}
}

// TestFileFormula checks what the files hold of a formula in n: the terms
// (in JSON, and in the safetensors architecture, with no position
// tensor), read back to a model that runs at lengths past max_n, where
// the original does; a table's model stops at max_n.
func TestFileFormula(t *testing.T) {
	m := formulaModel()
	data := writeJSON(t, m, 2)
	var f struct {
		Positions map[string]json.RawMessage `json:"positions"`
	}
	if err := json.Unmarshal(data, &f); err != nil {
		t.Fatal(err)
	}
	want := `[{"function":"i/n","component":0},{"function":"n","component":1},{"function":"1","component":1},` +
		`{"function":"1/i","component":2,"scale":"-1"},{"function":"i^2","component":3},{"function":"(-1)^i","component":4},` +
		`{"function":"one-hot","component":5,"size":3},{"function":"sinusoidal","component":8,"size":2,"base":"100"},` +
		`{"function":"i","component":10,"scale":"sqrt(2)"}]`
	var compact bytes.Buffer
	json.Compact(&compact, f.Positions["formula"])
	if compact.String() != want || f.Positions["table"] != nil || string(f.Positions["depends_on_n"]) != "true" {
		t.Errorf("positions = %s\nwant the formula %s, depends_on_n true and no table", compact.String(), want)
	}
	st := writeST(t, m, 2, "F32")
	_, hdr, _ := stHeader(t, st)
	if _, ok := hdr["pos_embed.weight"]; ok {
		t.Error("the safetensors file has a position tensor beside the formula")
	}
	meta := hdr["__metadata__"].(map[string]any)[stArchitectureKey].(string)
	if !strings.Contains(meta, `"formula":[{"function":"i/n","component":0}`) {
		t.Errorf("the architecture holds no formula: %s", meta)
	}
	fromST, _, err := ReadSafetensors(bytes.NewReader(st))
	if err != nil {
		t.Fatal(err)
	}
	fromJSON, _ := readJSON(t, data)
	// Every input up to length 5, past max_n = 2.
	sameOutputs(t, m, fromJSON, "interval:128", 5)
	sameOutputs(t, m, fromST, "fp32", 5)
	table, _ := readJSON(t, writeJSON(t, &model.Model{Name: m.Name, Alphabet: m.Alphabet, WordEmbedding: m.WordEmbedding,
		Position: &model.PositionEncoding{Name: "table", Vector: m.Position.Vector}, D: m.D, Layers: m.Layers, Output: m.Output}, 2))
	r, err := eval.New(numeric.MustParsePrecision("interval:64"), table)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Run([]int{0, 1, 0}, false); err == nil {
		t.Error("the model of a table in n runs past max_n")
	}
}

// TestFileFormulaReadErrors: a bad formula is one error naming its field.
func TestFileFormulaReadErrors(t *testing.T) {
	good := writeJSON(t, formulaModel(), 2)
	set := func(path, value string) []byte { return withField(t, good, path, value) }
	tests := []struct {
		name string
		data []byte
		want string
	}{
		{"unknown function", set("positions.formula[0].function", `"i/N"`), `positions.formula[0].function: unknown position function "i/N"`},
		{"component past d", set("positions.formula[0].component", `11`), "positions.formula[0].component: 11, want 0 … 10 (d = 11)"},
		{"negative component", set("positions.formula[0].component", `-1`), "positions.formula[0].component: -1, want 0 … 10"},
		{"fractional component", set("positions.formula[0].component", `1.5`), "positions.formula[0].component: 1.5 is not an integer"},
		{"one-hot without size", set("positions.formula[6].size", ``), "positions.formula[6].size: missing (one-hot writes size components)"},
		{"size of a scalar", set("positions.formula[0].size", `1`), `positions.formula[0].size: only one-hot and sinusoidal have a size`},
		{"odd sinusoidal", set("positions.formula[7].size", `3`), "positions.formula[7].size: 3, want an even number"},
		{"one-hot past d", set("positions.formula[6].size", `7`), "positions.formula[6].size: 7 components from component 5, past d = 11"},
		{"sinusoidal without base", set("positions.formula[7].base", ``), "positions.formula[7].base: missing"},
		{"base of a scalar", set("positions.formula[0].base", `"2"`), "positions.formula[0].base: only sinusoidal has a base"},
		{"negative base", set("positions.formula[7].base", `"-100"`), "positions.formula[7]: sinusoidal: base -100, want a positive number"},
		{"bad scale", set("positions.formula[3].scale", `"1/0"`), "positions.formula[3].scale:"},
		{"unknown term field", set("positions.formula[0].offset", `1`), "positions.formula[0].offset: unknown field"},
		{"empty formula", set("positions.formula", `[]`), "positions.formula: no terms, want at least one"},
		{"formula as an object", set("positions.formula", `{"function": "i"}`), "positions.formula: an object, want a list"},
		{"depends_on_n false", set("positions.depends_on_n", `false`), "positions.depends_on_n: false, but the formula has a term in n"},
		{"table and formula", set("positions.table", `[["0"]]`), "positions.table: a table and a formula: give one of them"},
	}
	for _, tt := range tests {
		_, _, err := ReadJSON(bytes.NewReader(tt.data))
		if err == nil || !strings.Contains(err.Error(), tt.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: error %v, want one line with %q", tt.name, err, tt.want)
		}
	}
	// A formula of i alone says so.
	indep := set("positions.formula", `[{"function": "i", "component": 0}]`)
	if _, _, err := ReadJSON(bytes.NewReader(indep)); err == nil || !strings.Contains(err.Error(), "positions.depends_on_n: true, but no term of the formula depends on n") {
		t.Errorf("a formula of i with depends_on_n true: %v", err)
	}
	indep = withField(t, indep, "positions.depends_on_n", `false`)
	m, _, err := ReadJSON(bytes.NewReader(indep))
	if err != nil {
		t.Fatal(err)
	}
	if v := m.Position.Vector(7, 9); v[0].String() != "7" {
		t.Errorf("the formula i gives %v at i = 7", v[0])
	}
}

// countingModel is formulaModel with a Vector that counts its calls, as
// the terms (when formula), as a declaration of independence of n (ofI),
// or as a function alone.
func countingModel(kind string, calls *int) *model.Model {
	m := formulaModel()
	// Rational terms only, so that sampling is cheap.
	rational, err := model.FormulaPositions("rational", m.D, m.Position.Terms[:7])
	if err != nil {
		panic(err)
	}
	m.Position = rational
	inner := m.Position.Vector
	pe := &model.PositionEncoding{Name: kind, Vector: func(i, n int) model.Vector { *calls++; return inner(i, n) }}
	switch kind {
	case "formula":
		pe.Terms = m.Position.Terms
	case "of i":
		// i/n and n at n = 1: the same for every n, by construction.
		pe.Vector = func(i, _ int) model.Vector { *calls++; return inner(i, i) }
		pe.IndependentOfN = true
	}
	m.Position = pe
	return m
}

// TestExportLinear counts the encodings a writer samples: a formula is
// checked against its function at the lengths 1 … 8 and N, and an
// encoding of i alone is sampled once per position, in both formats,
// and so is the model read back from that table; only an encoding known
// by its function alone is sampled at every (i, n).
func TestExportLinear(t *testing.T) {
	const maxN = 1000
	write := map[string]func(m *model.Model) ([]byte, error){
		"json": func(m *model.Model) ([]byte, error) {
			var b bytes.Buffer
			err := WriteJSON(context.Background(), &b, m, maxN)
			return b.Bytes(), err
		},
		"safetensors": func(m *model.Model) ([]byte, error) {
			// The encodings of i include 1/3: F64 holds it rounded only.
			var b bytes.Buffer
			_, err := WriteSafetensorsRounded(context.Background(), &b, m, maxN, "F64")
			return b.Bytes(), err
		},
	}
	for format, w := range write {
		for _, tc := range []struct {
			kind     string
			maxCalls int
		}{
			{"formula", 36 + maxN},
			{"of i", maxN},
		} {
			calls := 0
			data, err := w(countingModel(tc.kind, &calls))
			if err != nil {
				t.Fatalf("%s, %s: %v", format, tc.kind, err)
			}
			if calls > tc.maxCalls {
				t.Errorf("%s, %s: %d encodings sampled for N = %d, want at most %d", format, tc.kind, calls, maxN, tc.maxCalls)
			}
			if tc.kind != "of i" {
				continue
			}
			var back *model.Model
			if format == "json" {
				back, _, err = ReadJSON(bytes.NewReader(data))
			} else {
				back, _, err = ReadSafetensors(bytes.NewReader(data))
			}
			if err != nil {
				t.Fatal(err)
			}
			if !back.Position.IndependentOfN {
				t.Errorf("%s: the model read back from a table by i does not know it is independent of n", format)
			}
		}
	}
	// The same check, by function alone, samples every (i, n) once the
	// lengths agree: that is what Terms and IndependentOfN avoid.
	calls := 0
	m := countingModel("of i", &calls)
	m.Position.IndependentOfN = false
	if err := WriteJSON(context.Background(), &bytes.Buffer{}, m, 100); err != nil {
		t.Fatal(err)
	}
	if calls < 100*99/2 {
		t.Errorf("by function alone: %d encodings sampled, want every (i, n)", calls)
	}
}

// TestExportAgreesWithFormula: a formula declared next to a function
// that computes something else is refused, naming where they differ.
func TestExportAgreesWithFormula(t *testing.T) {
	for _, maxN := range []int{3, 20} {
		m := formulaModel()
		terms, inner := m.Position.Terms, m.Position.Vector
		m.Position = &model.PositionEncoding{Name: "off", Terms: terms, Vector: func(i, n int) model.Vector {
			v := inner(i, n)
			if i == 3 && n == maxN {
				v[0] = numeric.LitInt(7)
			}
			return v
		}}
		err := WriteJSON(context.Background(), &bytes.Buffer{}, m, maxN)
		if err == nil || !strings.Contains(err.Error(), "at i = 3, n = "+strconv.Itoa(maxN)+", entry 0, but its formula gives") {
			t.Errorf("N = %d: %v, want the difference at i = 3", maxN, err)
		}
	}
}

// TestWriteCancelled: a cancelled export stops between rows, writes
// nothing and returns the context's error, in both formats.
func TestWriteCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	calls := 0
	m := countingModel("function", &calls)
	inner := m.Position.Vector
	m.Position.Vector = func(i, n int) model.Vector {
		if calls == 500 {
			cancel()
		}
		return inner(i, n)
	}
	var b bytes.Buffer
	if err := WriteJSON(ctx, &b, m, 2000); !errors.Is(err, context.Canceled) || b.Len() != 0 {
		t.Errorf("WriteJSONContext: %v and %d bytes, want context.Canceled and nothing", err, b.Len())
	}
	if calls > 502 {
		t.Errorf("%d encodings sampled after the cancellation at 500", calls)
	}
	if err := WriteSafetensors(ctx, &b, m, 2000, "F64"); !errors.Is(err, context.Canceled) || b.Len() != 0 {
		t.Errorf("WriteSafetensorsContext: %v and %d bytes, want context.Canceled and nothing", err, b.Len())
	}
}

// TestPositionFormulaGolden reads testdata/formula.json, a hand-written
// file with every function of the format, and checks its encoding against
// testdata/formula_golden.txt, the values that testdata/position_formula.py
// computes from the documented definitions (fractions exactly, the rest
// with mpmath to 60 digits): each rational exactly, each irrational
// enclosed within 10⁻⁵⁰ of the reference. Where python3 has mpmath, the
// script is run again and must print the golden file.
func TestPositionFormulaGolden(t *testing.T) {
	data, err := os.ReadFile("../testdata/formula.json")
	if err != nil {
		t.Fatal(err)
	}
	m, _ := readJSON(t, data)
	golden, err := os.ReadFile("../testdata/formula_golden.txt")
	if err != nil {
		t.Fatal(err)
	}
	tol := big.NewRat(1, 1)
	tol.SetString("1e-50")
	lines := strings.Split(strings.TrimSpace(string(golden)), "\n")
	for _, line := range lines {
		var n, i, c int
		var value string
		if _, err := fmt.Sscanf(line, "n %d i %d c %d %s", &n, &i, &c, &value); err != nil {
			t.Fatalf("bad golden line %q: %v", line, err)
		}
		got := m.Position.Vector(i, n)[c]
		if approx, ok := strings.CutPrefix(value, "~"); ok {
			want, _ := new(big.Rat).SetString(approx)
			lo, hi, err := got.Enclose(256)
			if _, rational, _ := got.Rat(); err != nil || rational || want == nil ||
				new(big.Rat).Sub(want, lo).Cmp(tol) > 0 || new(big.Rat).Sub(hi, want).Cmp(tol) > 0 {
				t.Errorf("n = %d, i = %d, component %d: %v (%v), want an irrational ≈ %s", n, i, c, got, err, approx)
			}
			continue
		}
		r, ok, err := got.Rat()
		if err != nil || !ok || r.RatString() != value {
			t.Errorf("n = %d, i = %d, component %d: %v, want %s", n, i, c, got, value)
		}
	}
	if len(lines) != 442 {
		t.Errorf("%d golden lines, want 442 (34 positions × 13 components)", len(lines))
	}
	python, err := exec.LookPath("python3")
	if err != nil || exec.Command(python, "-c", "import mpmath").Run() != nil {
		t.Log("python3 with mpmath not found: the golden file is not regenerated")
		return
	}
	cmd := exec.Command(python, "position_formula.py", "formula.json")
	cmd.Dir = filepath.Join("..", "testdata")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("position_formula.py: %v", err)
	}
	if !bytes.Equal(out, golden) {
		t.Error("position_formula.py no longer prints testdata/formula_golden.txt")
	}
}
