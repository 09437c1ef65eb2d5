package modelfile

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"math/rand/v2"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/model/eval"
	"github.com/transformer-cookbook/verify/numeric"
)

// fileModel is a model for the file tests, with the largest length its
// file holds and the precisions it runs at.
type fileModel struct {
	name  string
	m     *model.Model
	maxN  int
	precs []string
}

// tinyModel is the example of the format's documentation: a nil word
// embedding row, positions 1/i that do not depend on n, an irrational
// temperature, a bias left nil and a residual switched off.
func tinyModel() *model.Model {
	return &model.Model{
		Name:          "tiny",
		Alphabet:      []string{"a", "b"},
		WordEmbedding: []model.Vector{model.IntVector(1, 0), nil},
		Position: &model.PositionEncoding{Name: "1/i", Vector: func(i, n int) model.Vector {
			return model.Vector{numeric.Expr{}, numeric.Frac(1, int64(i))}
		}},
		D:          2,
		Components: []string{"x", "pos"},
		Layers: []model.Layer{{
			Attention: &model.Attention{
				Heads:       []model.Head{{Q: model.Ints([]int64{1, 0}), K: rows(row("0", "-3/7")), V: model.Ints([]int64{1, 0}, []int64{0, 0})}},
				Mask:        model.Future,
				Weighting:   model.Softmax,
				Scale:       model.NoScale,
				Temperature: numeric.Quo(numeric.LitInt(1), numeric.Log(numeric.LitInt(24))),
			},
			FeedForward:           &model.FeedForward{W1: model.Ints([]int64{1, -1}), B1: model.IntVector(0), W2: model.Ints([]int64{1}, []int64{0})},
			NoFeedForwardResidual: true,
		}},
		Output: model.Output{Kind: model.Sign, W: model.Ints([]int64{1, 0})},
	}
}

// selectModel has positions i/n that depend on n, a pre-norm selection
// matrix, two heads with √d_key = 2, GELU, and a readout with labels.
func selectModel() *model.Model {
	sel := rows(row("1", "0", "0"), row("0", "1", "-1"))
	return &model.Model{
		Name:          "select",
		Alphabet:      []string{"x", "y", "z"},
		WordEmbedding: []model.Vector{vec("1", "2", "3"), vec("-1", "0", "1/2"), vec("0", "0", "1")},
		Position: &model.PositionEncoding{Name: "i/n", Vector: func(i, n int) model.Vector {
			return model.Vector{numeric.Frac(int64(i), int64(n)), numeric.Expr{}, numeric.Frac(-1, int64(n))}
		}},
		D: 3,
		Layers: []model.Layer{{
			AttentionNorm: &model.LayerNorm{Eps: ex("1/8"), Gamma: vec("2", "1"), Select: &sel},
			Attention: &model.Attention{
				Heads: []model.Head{
					{Q: model.Zeros(4, 2), K: model.Zeros(4, 2), V: rows(row("1", "0"), row("0", "1"), row("1", "1"))},
					{Q: rows(row("1", "0"), row("0", "1"), row("1", "1"), row("0", "0")), K: rows(row("1", "1"), row("0", "1"), row("1", "0"), row("1", "1")), V: model.Zeros(3, 2)},
				},
				Mask:      model.StrictPast,
				Weighting: model.AverageHardmax,
			},
			FeedForwardNorm: &model.LayerNorm{Eps: numeric.Sqrt(ex("2")), Beta: vec("0", "1", "-1")},
			FeedForward: &model.FeedForward{
				W1: rows(row("1", "0", "0"), row("0", "-1", "2")), B1: vec("1/3", "0"),
				W2: rows(row("1", "0"), row("0", "1"), row("1", "-1")), B2: vec("0", "0", "1"),
				Activation: model.GELU,
			},
			NoAttentionResidual: true,
		}},
		Norm:      model.PreNorm,
		FinalNorm: &model.LayerNorm{Eps: ex("1/4")},
		Output:    model.Output{Kind: model.Readout, W: rows(row("1", "0", "0"), row("0", "0", "1")), Labels: []string{"first", "third"}},
	}
}

// trigModel has irrational position encodings (sin and cos), post-norm,
// a softmax output, and the hard weightings under other masks.
func trigModel() *model.Model {
	half := numeric.Frac(1, 2)
	return &model.Model{
		Name:          "trig",
		Alphabet:      []string{"0", "1"},
		WordEmbedding: []model.Vector{vec("0", "1"), vec("1", "0")},
		Position: &model.PositionEncoding{Name: "sinusoidal", Vector: func(i, n int) model.Vector {
			x := numeric.LitInt(int64(i))
			return model.Vector{numeric.Sin(x), numeric.Cos(numeric.Mul(x, numeric.Neg(half)))}
		}},
		D: 2,
		Layers: []model.Layer{
			{
				Attention: &model.Attention{Heads: []model.Head{{Q: model.Ints([]int64{1, 1}), K: model.Ints([]int64{1, -1}), V: model.Identity(2)}}, Mask: model.Past, Weighting: model.RightHardmax},
				FeedForward: &model.FeedForward{
					W1: model.Identity(2), W2: model.Identity(2).Scale(numeric.Frac(-1, 3)), Activation: model.Linear,
				},
				AttentionNorm: &model.LayerNorm{Eps: ex("1")},
			},
			{
				Attention: &model.Attention{Heads: []model.Head{{Q: model.Ints([]int64{2, 0}), K: model.Ints([]int64{0, 1}), V: model.Identity(2)}}, Mask: model.StrictFuture, Weighting: model.LeftHardmax, Scale: model.NoScale},
			},
		},
		Norm:   model.PostNorm,
		Output: model.Output{Kind: model.Distribution, W: model.Ints([]int64{1, 0}, []int64{0, 1}), Labels: []string{"zero", "one"}},
	}
}

func fileModels() []fileModel {
	return []fileModel{
		{"tiny", tinyModel(), 3, []string{"interval:128", "fp32", "100"}},
		{"valid", validModel(), 3, []string{"exact", "fp16"}},
		{"select", selectModel(), 4, []string{"interval:64", "fp64"}},
		{"trig", trigModel(), 4, []string{"interval:128", "bf16"}},
		{"formula", formulaModel(), 3, []string{"interval:128", "fp32"}},
	}
}

// writeJSON writes m, failing the test on an error.
func writeJSON(t testing.TB, m *model.Model, maxN int) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := WriteJSON(context.Background(), &b, m, maxN); err != nil {
		t.Fatalf("WriteJSON(%s): %v", m.Name, err)
	}
	return b.Bytes()
}

// readJSON reads a model file, failing the test on an error.
func readJSON(t testing.TB, data []byte) (*model.Model, int) {
	t.Helper()
	m, maxN, err := ReadJSON(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("ReadJSON: %v\n%s", err, data)
	}
	return m, maxN
}

// allInputs lists every input of length n over k symbols.
func allInputs(n, k int) [][]int {
	var out [][]int
	cur := make([]int, n)
	var rec func(i int)
	rec = func(i int) {
		if i == n {
			out = append(out, append([]int(nil), cur...))
			return
		}
		for s := 0; s < k; s++ {
			cur[i] = s
			rec(i + 1)
		}
	}
	rec(0)
	return out
}

// sameOutputs checks that a and b compute the same outputs, value for
// value (the exact bounds and the backend's text), at prec on inputs of
// every length up to maxN: all of them, or 6 spread over them where there
// are more (the interval runs of GELU and layer norm are slow under
// -race).
func sameOutputs(t *testing.T, a, b *model.Model, prec string, maxN int) {
	t.Helper()
	p := numeric.MustParsePrecision(prec)
	ra, errA := eval.New(p, a)
	rb, errB := eval.New(p, b)
	if errA != nil || errB != nil {
		t.Fatalf("%s at %s: instantiating: %v / %v", a.Name, prec, errA, errB)
	}
	runs := 0
	for n := 1; n <= maxN; n++ {
		all := allInputs(n, len(a.Alphabet))
		step := max(1, len(all)/6)
		for c := 0; c < len(all); c += step {
			in := all[c]
			resA, errA := ra.Run(in, false)
			resB, errB := rb.Run(in, false)
			if fmt.Sprint(errA) != fmt.Sprint(errB) {
				t.Fatalf("%s at %s on %v: errors %v / %v", a.Name, prec, in, errA, errB)
			}
			if errA != nil {
				continue
			}
			runs++
			if got, want := outputsText(resB), outputsText(resA); got != want {
				t.Fatalf("%s at %s on %v: read back gives\n%s\nthe original\n%s", a.Name, prec, in, got, want)
			}
		}
	}
	if runs == 0 {
		t.Fatalf("%s at %s: no input ran", a.Name, prec)
	}
}

// outputsText prints outputs with the exact bounds of every value.
func outputsText(res *eval.Result) string {
	var b strings.Builder
	for i, o := range res.Outputs {
		fmt.Fprintf(&b, "%d: %q", i+1, o.Symbol)
		for _, v := range o.Values {
			fmt.Fprintf(&b, " %s[%v, %v]", v.Text, v.Lo, v.Hi)
		}
		b.WriteString("\n")
	}
	return b.String()
}

// sameExpr reports whether b is a as a model file stores it: the same
// rational, or the same irrational expression.
func sameExpr(a, b numeric.Expr) bool {
	ra, okA, errA := a.Rat()
	rb, okB, errB := b.Rat()
	if errA != nil || errB != nil || okA != okB {
		return false
	}
	if okA {
		return ra.Cmp(rb) == 0
	}
	return a.String() == b.String()
}

// weightsOf lists every weight of m (the tensors a safetensors file
// would hold, nil word embeddings as zeros, and the scalars ε and τ) by
// name.
func weightsOf(t *testing.T, m *model.Model, maxN int) map[string][]numeric.Expr {
	t.Helper()
	enc := &encoder{}
	enc.model(m, maxN)
	if enc.err != nil {
		t.Fatal(enc.err)
	}
	out := map[string][]numeric.Expr{}
	for _, td := range enc.tensors {
		out[td.name] = td.data
	}
	norms := map[string]*model.LayerNorm{"final_norm": m.FinalNorm}
	for l, layer := range m.Layers {
		norms[fmt.Sprintf("layers.%d.attn_norm", l)] = layer.AttentionNorm
		norms[fmt.Sprintf("layers.%d.ffn_norm", l)] = layer.FeedForwardNorm
		if layer.Attention != nil {
			out[fmt.Sprintf("layers.%d.attn.temperature", l)] = []numeric.Expr{layer.Attention.Temperature}
		}
	}
	for name, ln := range norms {
		if ln != nil {
			out[name+".eps"] = []numeric.Expr{ln.Eps}
		}
	}
	return out
}

// TestFileRoundTrip writes each model, reads it back, and checks that
// every weight reads back as it was (the same rational, or the same
// irrational expression), that the file reads back to the same bytes,
// and that both models compute the same outputs at several precisions on
// every input up to max_n.
func TestFileRoundTrip(t *testing.T) {
	for _, fm := range fileModels() {
		t.Run(fm.name, func(t *testing.T) {
			data := writeJSON(t, fm.m, fm.maxN)
			back, maxN := readJSON(t, data)
			if maxN != fm.maxN {
				t.Errorf("max_n = %d, want %d", maxN, fm.maxN)
			}
			if again := writeJSON(t, back, maxN); !bytes.Equal(again, data) {
				t.Errorf("the model read back writes\n%s\nthe original wrote\n%s", again, data)
			}
			want, got := weightsOf(t, fm.m, fm.maxN), weightsOf(t, back, maxN)
			if len(got) != len(want) {
				t.Errorf("%d weight tensors read back, want %d", len(got), len(want))
			}
			for name, w := range want {
				g := got[name]
				if len(g) != len(w) {
					t.Errorf("%s: %d entries read back, want %d", name, len(g), len(w))
					continue
				}
				for k := range w {
					if !sameExpr(w[k], g[k]) {
						t.Errorf("%s[%d] reads back as %v, want %v", name, k, g[k], w[k])
					}
				}
			}
			for _, prec := range fm.precs {
				sameOutputs(t, fm.m, back, prec, fm.maxN)
			}
		})
	}
}

// TestFileGolden pins the format: the documented example is
// testdata/tiny.json, byte for byte.
func TestFileGolden(t *testing.T) {
	want, err := os.ReadFile("../testdata/tiny.json")
	if err != nil {
		t.Fatal(err)
	}
	if got := writeJSON(t, tinyModel(), 3); !bytes.Equal(got, want) {
		t.Errorf("WriteJSON(tiny) =\n%s\nwant testdata/tiny.json:\n%s", got, want)
	}
}

// TestFilePositions checks what the file records of position encodings:
// rows by i when pe does not depend on n, blocks by n when it does, and
// an error past max_n rather than a made-up encoding.
func TestFilePositions(t *testing.T) {
	table := func(data []byte) (bool, string) {
		var f struct {
			Positions struct {
				DependsOnN bool `json:"depends_on_n"`
				Table      any  `json:"table"`
			} `json:"positions"`
		}
		if err := json.Unmarshal(data, &f); err != nil {
			t.Fatal(err)
		}
		return f.Positions.DependsOnN, fmt.Sprint(f.Positions.Table)
	}
	if dep, tab := table(writeJSON(t, tinyModel(), 3)); dep || tab != "[[0 1] [0 1/2] [0 1/3]]" {
		t.Errorf("1/i: depends_on_n %v, table %s; want false and 3 rows by i", dep, tab)
	}
	sel := writeJSON(t, selectModel(), 2)
	if dep, tab := table(sel); !dep || tab != "[[[1 0 -1]] [[1/2 0 -1/2] [1 0 -1/2]]]" {
		t.Errorf("i/n: depends_on_n %v, table %s; want true and blocks by n", dep, tab)
	}
	back, _ := readJSON(t, sel)
	r, err := eval.New(numeric.MustParsePrecision("interval:64"), back)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Run([]int{0, 1}, false); err != nil {
		t.Errorf("n = 2 = max_n: %v", err)
	}
	_, err = r.Run([]int{0, 1, 2}, false)
	if err == nil || !strings.Contains(err.Error(), "n = 3") {
		t.Errorf("n = 3 > max_n: error %v, want one about n = 3", err)
	}
}

// TestFileWeightText checks the text of weights: rationals as fractions,
// irrational expressions as String prints them, and reading back the
// same value and the same text, including the literals whose text
// numeric's own parser would read as a quotient or a negation.
func TestFileWeightText(t *testing.T) {
	sqrt2 := numeric.Sqrt(numeric.LitInt(2))
	tests := []struct {
		e    numeric.Expr
		want string
	}{
		{numeric.Expr{}, "0"},
		{numeric.LitInt(0), "0"},
		{numeric.Frac(-3, 7), "-3/7"},
		{numeric.LitInt(-12), "-12"},
		{numeric.Quo(numeric.LitInt(6), numeric.LitInt(4)), "3/2"},
		{numeric.Mul(numeric.Frac(1, 2), numeric.LitInt(3)), "3/2"},
		{numeric.Sqrt(numeric.LitInt(4)), "2"},
		{numeric.Lit(new(big.Rat).SetFrac(new(big.Int).Lsh(big.NewInt(1), 200), big.NewInt(3))), new(big.Int).Lsh(big.NewInt(1), 200).String() + "/3"},
		{numeric.Quo(numeric.Log(numeric.LitInt(512)), numeric.Frac(1, 4)), "log(512)/(1/4)"},
		{numeric.Mul(sqrt2, numeric.Frac(-1, 3)), "sqrt(2)*(-1/3)"},
		{numeric.Mul(numeric.LitInt(-3), sqrt2), "(-3)*sqrt(2)"},
		{numeric.Mul(numeric.Neg(numeric.LitInt(3)), sqrt2), "(-3)*sqrt(2)"},
		{numeric.Quo(numeric.LitInt(-3), numeric.Pi()), "(-3)/pi"},
		{numeric.Neg(numeric.Quo(sqrt2, numeric.LitInt(2))), "-(sqrt(2)/2)"},
		{numeric.Neg(numeric.Neg(sqrt2)), "-(-sqrt(2))"},
		{numeric.Sub(numeric.Pi(), numeric.Sub(numeric.LitInt(1), sqrt2)), "pi-(1-sqrt(2))"},
		{numeric.Add(numeric.Quo(numeric.LitInt(6), numeric.LitInt(4)), sqrt2), "(6/4)+sqrt(2)"},
		{numeric.Cos(numeric.Mul(numeric.LitInt(3), numeric.Exp(numeric.Neg(numeric.Mul(numeric.Frac(2, 3), numeric.Log(numeric.LitInt(10000))))))), "cos(3*exp(-((2/3)*log(10000))))"},
		{numeric.Sin(numeric.Frac(-1, 3)), "sin(-1/3)"},
	}
	for _, tt := range tests {
		got, err := weightText(tt.e)
		if err != nil || got != tt.want {
			t.Errorf("weightText(%v) = %q, %v; want %q", tt.e, got, err, tt.want)
			continue
		}
		back, err := parseWeight(got)
		if err != nil {
			t.Errorf("parseWeight(%q): %v", got, err)
			continue
		}
		if !sameExpr(tt.e, back) && !(tt.e.IsZero() && back.String() == "0") {
			t.Errorf("parseWeight(%q) = %v, not the same as %v", got, back, tt.e)
		}
		if again, _ := weightText(back); again != got {
			t.Errorf("%q reads back and writes as %q", got, again)
		}
		lo1, hi1, err1 := tt.e.Enclose(200)
		lo2, hi2, err2 := back.Enclose(200)
		if err1 != nil || err2 != nil || lo1.Cmp(lo2) != 0 || hi1.Cmp(hi2) != 0 {
			t.Errorf("%q: enclosures differ: [%v, %v] %v vs [%v, %v] %v", got, lo1, hi1, err1, lo2, hi2, err2)
		}
	}
}

// TestFileWeightTinyValue: exp(−3·10⁹) has a real value (tiny), which
// the reader must accept without turning its enclosure into rationals
// (whose denominator would not fit in memory).
func TestFileWeightTinyValue(t *testing.T) {
	e, err := parseWeight("exp(-3000000000)")
	if err != nil {
		t.Fatal(err)
	}
	if s, err := weightText(e); err != nil || s != "exp(-3000000000)" {
		t.Errorf("weightText = %q, %v", s, err)
	}
}

func TestFileWeightTextErrors(t *testing.T) {
	for _, e := range []numeric.Expr{
		numeric.Quo(numeric.LitInt(1), numeric.LitInt(0)),
		numeric.Log(numeric.LitInt(0)),
		numeric.Mul(numeric.Sqrt(numeric.LitInt(-1)), numeric.Pi()),
	} {
		if s, err := weightText(e); err == nil {
			t.Errorf("weightText(%v) = %q, want an error", e, s)
		}
	}
	deep := numeric.Pi()
	for k := 0; k < numeric.MaxExprDepth+1; k++ {
		deep = numeric.Sqrt(deep)
	}
	if _, err := weightText(deep); err == nil || !strings.Contains(err.Error(), "nested") {
		t.Errorf("an expression nested %d deep: %v, want an error about nesting", numeric.MaxExprDepth+1, err)
	}
}

func TestFileParseWeightErrors(t *testing.T) {
	tests := []struct{ text, want string }{
		{"", "unexpected end"},
		{"NaN", `unexpected "NaN"`},
		{"inf", `unknown name "inf"`},
		{"-Inf", `unexpected "Inf"`},
		{"1/0", "division by zero"},
		{"1/(1-1)", "division by zero"},
		{"log(0)", "no real value"},
		{"sqrt(-2)*pi", "no real value"},
		{"exp(exp(exp(100)))", "no real value"},
		{"exp(" + strings.Repeat("pi*", 60) + "pi)", "no real value"},
		{"0x1p3", "without hex floats"},
		{".5", "without hex floats"},
		{"1.", "a decimal point needs digits after it"},
		{"1e", "an exponent needs digits"},
		{"1e+", "an exponent needs digits"},
		{"1.5e-", "an exponent needs digits"},
		{"1e401", "exponent 401 out of range (at most ±400)"},
		{"1e-999999999", "exponent 999999999 out of range"},
		{"1e" + strings.Repeat("9", 30), "out of range"},
		{"1.5.5", `unexpected ".5"`},
		{"1e5e5", `unexpected "e5"`},
		{"2+", "unexpected end"},
		{"(1", "missing )"},
		{"1)", `unexpected ")"`},
		{"sqrt 2", "sqrt needs ("},
		{"foo(1)", `unknown name "foo"`},
		{"1 2", `unexpected "2"`},
		{strings.Repeat("(", 100) + "1" + strings.Repeat(")", 100), "nested more than 64 deep"},
		{strings.Repeat("-", 100) + "1", "nested more than 64 deep"},
		{strings.Repeat("pi*", 100) + "pi", "more than 64 operations deep"},
		{strings.Repeat("sqrt(", 30) + "2" + strings.Repeat(")", 30) + strings.Repeat("+1", 40), "more than 64 operations deep"},
		{strings.Repeat("1", numeric.MaxExprText+1), "more than"},
	}
	for _, tt := range tests {
		e, err := parseWeight(tt.text)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("parseWeight(%.20q) = %v, %v; want an error containing %q", tt.text, e, err, tt.want)
		}
	}
}

// withField returns the model file data with the field at path (like
// "layers[0].attention.heads[0].query") set to the JSON value, or deleted
// when value is "". Objects lose their field order, which files need not
// keep; numbers keep their text. A path that does not lead to an existing
// object fails the test, so that no test checks an unchanged file.
func withField(t *testing.T, data []byte, path, value string) []byte {
	t.Helper()
	unmarshal := func(data []byte, v any) error {
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.UseNumber()
		return dec.Decode(v)
	}
	var root any
	if err := unmarshal(data, &root); err != nil {
		t.Fatal(err)
	}
	parts := strings.Split(path, ".")
	cur := root
	for k, part := range parts {
		name, idx, _ := strings.Cut(part, "[")
		last := k == len(parts)-1
		obj, ok := cur.(map[string]any)
		if !ok {
			t.Fatalf("%s: %s is not in an object", path, part)
		}
		if last && idx == "" {
			if value == "" {
				if _, ok := obj[name]; !ok {
					t.Fatalf("%s: no field to delete", path)
				}
				delete(obj, name)
			} else {
				var v any
				if err := unmarshal([]byte(value), &v); err != nil {
					t.Fatalf("%s: bad value %s: %v", path, value, err)
				}
				obj[name] = v
			}
			break
		}
		cur = obj[name]
		for idx != "" {
			var i int
			var rest string
			fmt.Sscanf(idx, "%d]", &i)
			_, rest, _ = strings.Cut(idx, "]")
			idx = strings.TrimPrefix(rest, "[")
			arr, ok := cur.([]any)
			if !ok || i >= len(arr) {
				t.Fatalf("%s: no element %d", path, i)
			}
			if last && idx == "" {
				var v any
				if err := unmarshal([]byte(value), &v); err != nil {
					t.Fatalf("%s: bad value %s: %v", path, value, err)
				}
				arr[i] = v
				break
			}
			cur = arr[i]
		}
	}
	out, err := json.Marshal(root)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestFileReadErrors checks that a bad file is an error naming what is
// wrong and where.
func TestFileReadErrors(t *testing.T) {
	tiny := writeJSON(t, tinyModel(), 3)
	valid := writeJSON(t, validModel(), 2)
	sel := writeJSON(t, selectModel(), 2)
	set := func(data []byte, path, value string) []byte { return withField(t, data, path, value) }
	head := "layers[0].attention.heads[0]"
	huge := set(set(tiny, "d", "1000000000"), "components", "")
	tests := []struct {
		name string
		data []byte
		want string
	}{
		{"empty", nil, "empty file"},
		{"truncated", tiny[:len(tiny)/2], "truncated file"},
		{"truncated at a key", tiny[:bytes.Index(tiny, []byte(`"layers"`))+3], "truncated file"},
		{"not an object", []byte(`[1, 2]`), "not a JSON object"},
		{"syntax", bytes.Replace(tiny, []byte(`"d": 2,`), []byte(`"d": 2,,`), 1), "JSON syntax error at line "},
		{"trailing data", append(append([]byte{}, tiny...), "{}"...), "data after the JSON object"},
		{"duplicate field", bytes.Replace(tiny, []byte(`"d": 2,`), []byte(`"d": 2, "d": 3,`), 1), `d: duplicate field "d"`},
		{"unknown field", set(tiny, "layers[0].attention.masque", `"none"`), `layers[0].attention.masque: unknown field (known: mask, weighting, scale, temperature, heads)`},
		{"unknown top field", set(tiny, "width", "2"), `width: unknown field`},
		{"missing field", set(tiny, "layers[0].attention_residual", ""), "layers[0].attention_residual: missing"},
		{"missing output", set(tiny, "output", ""), "output: missing"},
		{"wrong format", set(tiny, "format", `"onnx"`), `format: "onnx", want "transformer-cookbook-model"`},
		{"future version", set(tiny, "version", "2"), "version: 2: this engine reads version 1"},
		{"wrong type", set(tiny, "d", `"2"`), "d: a string, want an integer"},
		{"fractional width", set(tiny, "d", "2.5"), "d: 2.5 is not an integer"},
		{"negative width", set(tiny, "d", "-2"), "d: -2: the width must be positive"},
		{"zero max_n", set(tiny, "max_n", "0"), "max_n: 0, must be at least 1"},
		{"huge width", set(tiny, "d", "1000000000"), "components: 2 names, want d = 1000000000"},
		{"huge width, no names", huge, "word_embedding[0]: 2 entries, want 1000000000 (d)"},
		{"huge max_n", set(tiny, "max_n", "4000000000"), "positions.table: 3 rows, want 4000000000 (max_n)"},
		{"wrong row length", set(tiny, head+".query", `[["1", "0", "0"]]`), head + ".query[0]: 3 entries, want 2 (d_in)"},
		{"ragged matrix", set(tiny, head+".value", `[["1", "0"], ["0"]]`), head + ".value[1]: 1 entry, want 2 (d_in)"},
		{"key rows differ from query", set(tiny, head+".key", `[["0", "1"], ["1", "1"]]`), head + ".key: 2 rows, want 1 (d_key, the rows of query)"},
		{"value rows", set(tiny, head+".value", `[["1", "0"]]`), head + ".value: 1 row, want 2 (d)"},
		{"empty matrix", set(tiny, head+".query", `[]`), head + ".query: no rows"},
		{"dimension mismatch between layers", set(tiny, "layers[0].feed_forward.w2", `[["1", "0"], ["0", "0"]]`), "layers[0].feed_forward.w2[0]: 2 entries, want 1 (hidden units)"},
		{"bias length", set(tiny, "layers[0].feed_forward.b1", `["0", "1"]`), "layers[0].feed_forward.b1: 2 entries, want 1 (hidden units, the rows of w1)"},
		{"NaN weight", set(tiny, head+".key[0]", `["0", "NaN"]`), head + `.key[0][1]: weight "NaN"`},
		{"1/0 weight", set(tiny, head+".key[0]", `["0", "1/0"]`), head + `.key[0][1]: "1/0" has no real value: 1/0: division by zero`},
		{"malformed decimal", set(tiny, head+".key[0]", `["0", "0.5e"]`), head + `.key[0][1]: weight "0.5e" at offset 4: an exponent needs digits`},
		{"exponent bomb", set(tiny, head+".key[0]", `["0", 1e999999999]`), head + `.key[0][1]: weight "1e999999999" at offset 2: exponent 999999999 out of range (at most ±400)`},
		{"boolean weight", set(tiny, head+".key[0]", `["0", true]`), head + `.key[0][1]: a boolean, want a weight: a number or a string like "-3/7"`},
		{"irrational without a value", set(tiny, "layers[0].attention.temperature", `"1/log(1)"`), `layers[0].attention.temperature: "1/log(1)"`},
		{"unknown weighting", set(tiny, "layers[0].attention.weighting", `"hardmax"`), `layers[0].attention.weighting: unknown weighting "hardmax" (known: softmax, lhardmax, rhardmax, avghardmax)`},
		{"unknown mask", set(tiny, "layers[0].attention.mask", `"causal"`), `layers[0].attention.mask: unknown mask "causal"`},
		{"unknown scale", set(tiny, "layers[0].attention.scale", `"sqrt"`), `unknown score scale "sqrt"`},
		{"unknown activation", set(tiny, "layers[0].feed_forward.activation", `"tanh"`), `unknown activation "tanh"`},
		{"unknown output kind", set(tiny, "output.kind", `"logits"`), `output.kind: unknown output kind "logits"`},
		{"unknown norm", set(tiny, "norm", `"layer"`), `norm: unknown norm placement "layer"`},
		{"sign output rows", set(tiny, "output.w", `[["1", "0"], ["0", "1"]]`), "output.w: 2 rows, want 1 (1 for a sign output)"},
		{"argmax without labels", set(tiny, "output.kind", `"argmax"`), "output.labels: argmax needs labels"},
		{"null row", set(tiny, head+".query", `[null]`), head + ".query[0]: null, want a list of weights"},
		{"null where a list belongs", set(tiny, "alphabet", `null`), "alphabet: null, want a list of strings"},
		{"repeated symbol", set(tiny, "alphabet", `["a", "a"]`), `alphabet[1]: symbol "a" appears twice`},
		{"no heads", set(tiny, "layers[0].attention.heads", `[]`), "layers[0].attention.heads: no heads"},
		{"head weights elsewhere", set(tiny, head+".w", `[["1"]]`), head + ".w: unknown field (known: query, key, value)"},
		{"norm without placement", set(valid, "norm", `"none"`), `layers[0].attention_norm: a layer norm needs norm placement "post" or "pre"`},
		{"final norm without pre-norm", set(valid, "norm", `"post"`), `final_norm: a final norm needs norm placement "pre"`},
		{"select with post-norm", set(sel, "norm", `"post"`), `layers[0].attention_norm.select: a selection matrix W^N is only for the sublayer norms of a pre-norm model`},
		{"gamma of the selected width", set(sel, "layers[0].attention_norm.gamma", `["2", "1", "1"]`), "layers[0].attention_norm.gamma: 3 entries, want 2 (the normalised width)"},
		{"positions by n", set(sel, "positions.table[0]", `[["1", "0", "-1"], ["1", "0", "-1"]]`), "positions.table[0]: 2 rows, want 1 (n = 1)"},
		{"deep nesting", set(tiny, "name", strings.Repeat("[", 40)+strings.Repeat("]", 40)), "nested more than 32 deep"},
		{"repeated component name", set(tiny, "components", `["x", "x"]`), `components[1]: "x" is also the name of components[0]`},
		{"invalid UTF-8", bytes.Replace(tiny, []byte(`"x"`), []byte("\"x\xff\""), 1), "(byte " + strconv.Itoa(bytes.Index(tiny, []byte(`"x"`))+3) + "): model files are UTF-8"},
		{"UTF-16LE with a mark", append([]byte{0xff, 0xfe}, utf16LE(tiny)...), "the file is UTF-16LE text"},
		{"UTF-16LE", utf16LE(tiny), "the file is UTF-16LE text"},
		{"UTF-16BE", utf16BE(tiny), "the file is UTF-16BE text"},
		{"UTF-32LE", utf16LE(utf16LE(tiny)), "the file is UTF-32LE text"},
		{"a string past the bound", set(tiny, "name", `"`+strings.Repeat("n", maxJSONString+1)+`"`), fmt.Sprintf("name: a string of %d bytes, more than", maxJSONString+1)},
		{"a key past the bound", set(tiny, "name", `{"`+strings.Repeat("k", maxJSONString+1)+`": 1}`), "name: a key: a string of"},
		{"an array past the bound", set(tiny, "components", "["+strings.Repeat(`"a",`, maxJSONArray)+`"a"]`), fmt.Sprintf("components: more than %d entries", maxJSONArray)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, _, err := ReadJSON(bytes.NewReader(tt.data))
			if err == nil || m != nil {
				t.Fatalf("ReadJSON = %v, %v; want an error containing %q", m, err, tt.want)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %q, want it to contain %q", err, tt.want)
			}
		})
	}
}

// utf16LE and utf16BE encode ASCII text in UTF-16 (each byte in two).
func utf16LE(b []byte) []byte {
	var out []byte
	for _, c := range b {
		out = append(out, c, 0)
	}
	return out
}

func utf16BE(b []byte) []byte {
	var out []byte
	for _, c := range b {
		out = append(out, 0, c)
	}
	return out
}

// TestFileLongArrayAllocatesLittle: an array of names far past the bound
// (four million, 28 MB of text) is refused when the bound is reached,
// allocating the text once and about what the bound's entries take.
func TestFileLongArrayAllocatesLittle(t *testing.T) {
	tiny := writeJSON(t, tinyModel(), 3)
	names := "[" + strings.Repeat(`"name",`, 4_000_000) + `"name"]`
	data := bytes.Replace(tiny, []byte(`["x", "pos"]`), []byte(names), 1)
	if len(data) == len(tiny) {
		t.Fatalf("no components in %s", tiny)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	if _, _, err := ReadJSON(bytes.NewReader(data)); err == nil || !strings.Contains(err.Error(), "components: more than") {
		t.Fatalf("error %v", err)
	}
	runtime.ReadMemStats(&after)
	// Storing all four million took some 320 MB.
	if grew := after.TotalAlloc - before.TotalAlloc; grew > uint64(len(data))+64<<20 {
		t.Errorf("refusing %d MB allocated %d MB", len(data)>>20, grew>>20)
	}
}

// TestFileHugeDimensionAllocatesLittle checks that declared sizes are
// checked against the data before anything is allocated for them.
func TestFileHugeDimensionAllocatesLittle(t *testing.T) {
	tiny := writeJSON(t, tinyModel(), 3)
	for _, data := range [][]byte{
		withField(t, withField(t, tiny, "d", "2000000000"), "components", ""),
		withField(t, tiny, "max_n", "2000000000"),
	} {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		if _, _, err := ReadJSON(bytes.NewReader(data)); err == nil {
			t.Fatal("no error")
		}
		runtime.ReadMemStats(&after)
		if grew := after.TotalAlloc - before.TotalAlloc; grew > 1<<22 {
			t.Errorf("reading a file of %d bytes allocated %d bytes", len(data), grew)
		}
	}
}

func TestFileWriteErrors(t *testing.T) {
	var b bytes.Buffer
	bad := tinyModel()
	bad.Layers[0].Attention.Heads[0].K = model.Zeros(2, 2)
	if err := WriteJSON(context.Background(), &b, bad, 3); err == nil || !strings.Contains(err.Error(), "W^K is 2×2, want 1×2") {
		t.Errorf("a model that does not validate: %v", err)
	}
	if err := WriteJSON(context.Background(), &b, tinyModel(), 0); err == nil || !strings.Contains(err.Error(), "at least 1") {
		t.Errorf("maxN = 0: %v", err)
	}
	noValue := tinyModel()
	noValue.Layers[0].FeedForward.B1 = model.Vector{numeric.Quo(numeric.LitInt(1), numeric.LitInt(0))}
	if err := WriteJSON(context.Background(), &b, noValue, 3); err == nil || !strings.Contains(err.Error(), "layers[0].feed_forward.b1[0]: 1/0: division by zero") {
		t.Errorf("a weight 1/0: %v", err)
	}
	short := tinyModel()
	short.Position.Vector = func(i, n int) model.Vector {
		if i == 3 {
			return nil
		}
		return model.IntVector(0, 0)
	}
	if err := WriteJSON(context.Background(), &b, short, 3); err == nil || !strings.Contains(err.Error(), "pe_n(i) at i = 3, n = 3 has 0 entries, want d = 2") {
		t.Errorf("a position encoding of the wrong width: %v", err)
	}
	if b.Len() != 0 {
		t.Errorf("failed writes wrote %d bytes", b.Len())
	}
}

// checkReadJSON is the property of FuzzReadJSON: ReadJSON returns a
// model or an error, never both or neither, and never panics; and a
// model it returns writes a file that reads back and writes the same
// bytes again.
func checkReadJSON(t *testing.T, data []byte) {
	var m *model.Model
	var maxN int
	var err error
	checkReadMemory(t, len(data), func() { m, maxN, err = ReadJSON(bytes.NewReader(data)) })
	if err != nil {
		if m != nil {
			t.Fatalf("ReadJSON returned a model and the error %v", err)
		}
		return
	}
	if m == nil {
		t.Fatal("ReadJSON returned neither a model nor an error")
	}
	var first bytes.Buffer
	if err := WriteJSON(context.Background(), &first, m, maxN); err != nil {
		t.Fatalf("a model that reads does not write: %v", err)
	}
	m2, maxN2, err := ReadJSON(bytes.NewReader(first.Bytes()))
	if err != nil {
		t.Fatalf("a written model does not read back: %v\n%s", err, first.Bytes())
	}
	var second bytes.Buffer
	if err := WriteJSON(context.Background(), &second, m2, maxN2); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(first.Bytes(), second.Bytes()) {
		t.Fatalf("written, read back and written again:\n%s\nfirst:\n%s", second.Bytes(), first.Bytes())
	}
}

// jsonSeeds are the fuzz seeds: every test model, and a few edge cases.
func jsonSeeds(t testing.TB) [][]byte {
	var seeds [][]byte
	for _, fm := range fileModels() {
		seeds = append(seeds, writeJSON(t, fm.m, fm.maxN))
	}
	// A file written elsewhere, with decimals as strings, as numbers and
	// inside expressions.
	dec := bytes.Replace(seeds[0], []byte(`["0", "-3/7"]`), []byte(`["-2.0*pi", -1.5e-3]`), 1)
	dec = bytes.Replace(dec, []byte(`"1/log(24)"`), []byte(`"0.5/log(2.4e1)"`), 1)
	if bytes.Equal(dec, seeds[0]) {
		t.Fatal("the decimal seed is the tiny file")
	}
	seeds = append(seeds, dec)
	return append(seeds, []byte(`{}`), []byte(`{"format": "transformer-cookbook-model", "version": 1}`), []byte(`[`), []byte("\"\\u00"))
}

func FuzzReadJSON(f *testing.F) {
	for _, s := range jsonSeeds(f) {
		f.Add(s)
	}
	f.Fuzz(checkReadJSON)
}

// TestFileMutations runs the fuzz property on the seeds, on every prefix
// of a model file, and on a few thousand files with bytes changed,
// inserted or deleted at random (seeded), as a fuzzer's first steps
// would.
func TestFileMutations(t *testing.T) {
	seeds := jsonSeeds(t)
	for _, s := range seeds {
		checkReadJSON(t, s)
	}
	for k := 0; k < len(seeds[0]); k++ {
		checkReadJSON(t, seeds[0][:k])
	}
	for _, data := range mutations(seeds[:4], 3000) {
		checkReadJSON(t, data)
	}
}

// mutations returns count variants of the seeds, each with one to three
// random edits: a byte replaced (by one that matters to JSON, or any),
// inserted or deleted, or a run of bytes copied elsewhere.
func mutations(seeds [][]byte, count int) [][]byte {
	rng := rand.New(rand.NewPCG(8, 0))
	special := []byte(`0123456789-/"[]{},:.e ` + "\x00\xff")
	out := make([][]byte, count)
	for c := range out {
		data := append([]byte(nil), seeds[rng.IntN(len(seeds))]...)
		for edits := 1 + rng.IntN(3); edits > 0 && len(data) > 0; edits-- {
			k := rng.IntN(len(data))
			switch rng.IntN(4) {
			case 0:
				data[k] = special[rng.IntN(len(special))]
			case 1:
				data = slices.Insert(data, k, special[rng.IntN(len(special))])
			case 2:
				data = slices.Delete(data, k, k+1)
			default:
				j := rng.IntN(len(data))
				end := min(len(data), j+1+rng.IntN(16))
				data = slices.Insert(data, k, slices.Clone(data[j:end])...)
			}
		}
		out[c] = data
	}
	return out
}

// TestFileExactDecimals checks that decimals, as strings and as JSON
// numbers, read as the exact rational their text names (the values are
// worked out by hand: 1.5e-3 = 15/10⁴ = 3/2000), and that each malformed
// one is refused with one error naming its field.
func TestFileExactDecimals(t *testing.T) {
	tenTo324 := new(big.Int).Exp(big.NewInt(10), big.NewInt(324), nil)
	tests := []struct {
		text string // the weight's JSON: a string or a number
		want *big.Rat
	}{
		{`"0.1"`, big.NewRat(1, 10)},
		{`0.1`, big.NewRat(1, 10)},
		{`"0.25"`, big.NewRat(1, 4)},
		{`-0.25`, big.NewRat(-1, 4)},
		{`"-1.5e-3"`, big.NewRat(-3, 2000)},
		{`-1.5e-3`, big.NewRat(-3, 2000)},
		{`"1e2"`, big.NewRat(100, 1)},
		{`1E+2`, big.NewRat(100, 1)},
		{`2.50e-0`, big.NewRat(5, 2)},
		{`"007.100"`, big.NewRat(71, 10)},
		{`3`, big.NewRat(3, 1)},
		{`-0`, new(big.Rat)},
		{`0.000`, new(big.Rat)},
		// The float64 nearest 0.1, written out, is not 1/10: the reader
		// keeps every digit.
		{`0.1000000000000000055511151231257827021181583404541015625`, new(big.Rat).SetFrac(big.NewInt(3602879701896397), new(big.Int).Lsh(big.NewInt(1), 55))},
		{`5e-324`, new(big.Rat).SetFrac(big.NewInt(5), tenTo324)},
		{`"1e400"`, new(big.Rat).SetInt(new(big.Int).Exp(big.NewInt(10), big.NewInt(400), nil))},
		{`"0.5/3"`, big.NewRat(1, 6)},
	}
	tiny := writeJSON(t, tinyModel(), 3)
	path := "layers[0].attention.heads[0].key[0]"
	for _, tt := range tests {
		data := withField(t, tiny, path, `["0", `+tt.text+`]`)
		m, _, err := ReadJSON(bytes.NewReader(data))
		if err != nil {
			t.Errorf("%s: %v", tt.text, err)
			continue
		}
		got := m.Layers[0].Attention.Heads[0].K.At(0, 1)
		r, ok, err := got.Rat()
		if err != nil || !ok || r.Cmp(tt.want) != 0 {
			t.Errorf("%s reads as %v (rational %v, %v), want exactly %s", tt.text, got, ok, err, tt.want.RatString())
		}
	}
	// Inside an expression, and in the scalars ε and τ.
	for _, tt := range []struct{ field, text, want string }{
		{"layers[0].attention.temperature", `"0.5*log(24)"`, "(1/2)*log(24)"},
		{"layers[0].attention.temperature", `0.125`, "1/8"},
	} {
		m, _, err := ReadJSON(bytes.NewReader(withField(t, tiny, tt.field, tt.text)))
		if err != nil {
			t.Errorf("%s = %s: %v", tt.field, tt.text, err)
			continue
		}
		if got := m.Layers[0].Attention.Temperature.String(); got != tt.want {
			t.Errorf("%s = %s reads as %s, want %s", tt.field, tt.text, got, tt.want)
		}
	}
	for _, bad := range []string{`"1e"`, `"0x1p3"`, `"1/0"`, `"NaN"`, `"inf"`, `"1e999999999"`, `1e999999999`, `"1e-401"`, `"1,5"`, `"1.e3"`, `""`} {
		_, _, err := ReadJSON(bytes.NewReader(withField(t, tiny, path, `["0", `+bad+`]`)))
		if err == nil {
			t.Errorf("%s: read, want an error", bad)
			continue
		}
		if msg := err.Error(); !strings.HasPrefix(msg, path+"[1]: ") || strings.Contains(msg, "\n") {
			t.Errorf("%s: error %q, want one line starting with the field's path %s[1]", bad, msg, path)
		}
	}
}

// TestSyntaxErrorPlace: a syntax error names the line and column an
// editor shows (counted from 1, columns in characters) and the byte. By
// hand: in `{"a": 1,\n "é": x}` the x is on line 2, column 7 (space,
// quote, é, quote, colon, space, x), byte 17 (9 bytes on line 1, é two).
func TestSyntaxErrorPlace(t *testing.T) {
	_, _, err := ReadJSON(strings.NewReader("{\"a\": 1,\n \"é\": x}"))
	if err == nil || !strings.Contains(err.Error(), "line 2, column 7 (byte 17)") {
		t.Errorf("error %v, want it at line 2, column 7 (byte 17)", err)
	}
}

// TestFileWeightPythonReading: what String never prints is read as
// Python reads it; the values are Python's (fractions.Fraction over the
// same text).
func TestFileWeightPythonReading(t *testing.T) {
	tests := []struct{ text, want string }{
		{"+1", "1"}, {"--1", "1"}, {"-+1", "-1"}, {"+-1", "-1"}, {"-+-2", "2"},
		{"1/2/3", "1/6"}, {"2*3/4", "3/2"}, {"1-2-3", "-4"}, {"1/2*4", "2"},
		{"2/+3", "2/3"}, {"+3/4", "3/4"}, {"-(-3)", "3"}, {"+0.5", "1/2"},
	}
	for _, tt := range tests {
		e, err := parseWeight(tt.text)
		if err != nil {
			t.Errorf("parseWeight(%q): %v", tt.text, err)
			continue
		}
		if r, ok, _ := e.Rat(); !ok || r.RatString() != tt.want {
			t.Errorf("parseWeight(%q) = %v, want %s", tt.text, e, tt.want)
		}
	}
}

// TestFileParseWeightErrorsWrap: a weight without a real value is refused
// with an error that still says which numeric failure it was, however
// its message is shortened.
func TestFileParseWeightErrorsWrap(t *testing.T) {
	for _, tt := range []struct {
		text string
		want error
	}{
		{"sqrt(-2)*pi", numeric.ErrDomain},
		{"exp(" + strings.Repeat("pi*", 60) + "pi)", numeric.ErrOverflow},
	} {
		_, err := parseWeight(tt.text)
		if !errors.Is(err, tt.want) {
			t.Errorf("parseWeight(%.20q…): %v, want an error wrapping %v", tt.text, err, tt.want)
		}
	}
}
