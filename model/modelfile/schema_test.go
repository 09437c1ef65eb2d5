package modelfile_test

import (
	"bytes"
	"context"
	"math/big"
	"os"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/model/eval"
	"github.com/transformer-cookbook/verify/model/modelfile"
	"github.com/transformer-cookbook/verify/numeric"
	"github.com/transformer-cookbook/verify/recipes"
)

// The JSON Schema of model files (docs/model.schema.json) is checked
// against the reader from both sides: every file the engine writes is
// valid, and each of a set of broken files is refused by both.

const (
	schemaPath  = "../../docs/model.schema.json"
	docPath     = "../../docs/model-format.md"
	examplePath = "../testdata/majority.json"
)

// compileSchema compiles the model file schema, which the compiler first
// checks against the draft 2020-12 meta-schema.
func compileSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	f, err := os.Open(schemaPath)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	doc, err := jsonschema.UnmarshalJSON(f)
	if err != nil {
		t.Fatalf("%s: %v", schemaPath, err)
	}
	id, _ := doc.(map[string]any)["$id"].(string)
	if !strings.HasPrefix(id, "https://") {
		t.Fatalf("%s: $id %q, want an https URL", schemaPath, id)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	if err := c.AddResource(id, doc); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile(id)
	if err != nil {
		t.Fatalf("%s: %v", schemaPath, err)
	}
	return sch
}

func validate(sch *jsonschema.Schema, data []byte) error {
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return err
	}
	return sch.Validate(inst)
}

// TestSchemaValidatesEveryExport writes the model of every recipe, under
// each weighting it supports, and validates the file against the schema.
func TestSchemaValidatesEveryExport(t *testing.T) {
	sch := compileSchema(t)
	files, formulas := 0, 0
	for _, r := range recipes.All() {
		weightings := r.Weightings
		if len(weightings) == 0 {
			weightings = []model.Weighting{r.DefaultWeighting()}
		}
		maxN := 4
		if r.LimitN > 0 {
			maxN = min(maxN, r.LimitN)
		}
		maxN = max(maxN, r.MinN, 1)
		for _, w := range weightings {
			con, err := r.Construct(w, maxN, nil)
			if err != nil {
				t.Errorf("%s/%s: %v", r.Name, w, err)
				continue
			}
			var file bytes.Buffer
			if err := modelfile.WriteJSON(context.Background(), &file, con.Model, maxN); err != nil {
				t.Errorf("%s/%s: WriteJSON: %v", r.Name, w, err)
				continue
			}
			if err := validate(sch, file.Bytes()); err != nil {
				t.Errorf("%s/%s: the export does not validate: %v", r.Name, w, err)
			}
			if bytes.Contains(file.Bytes(), []byte(`"formula": [`)) {
				formulas++
			}
			files++
		}
	}
	if n := len(recipes.All()); files < n {
		t.Errorf("validated %d files for %d recipes", files, n)
	}
	if formulas == 0 {
		t.Error("no export holds a position formula, so the schema's formula is not checked")
	}
	t.Logf("%d exports of %d recipes validate, %d with a position formula", files, len(recipes.All()), formulas)
}

// TestSchemaWorkedExample checks the worked example of the format's
// documentation: the file on disk is the one the page shows, it is valid,
// and it computes what the page says, worked out by hand there: the
// fraction of a's so far, minus 1/2, and "1" when that is positive.
func TestSchemaWorkedExample(t *testing.T) {
	data, err := os.ReadFile(examplePath)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := os.ReadFile(docPath)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(doc, append(append([]byte("```json\n"), data...), "```\n"...)) {
		t.Errorf("%s does not show %s as a ```json block", docPath, examplePath)
	}
	if err := validate(compileSchema(t), data); err != nil {
		t.Errorf("the worked example does not validate: %v", err)
	}
	m, maxN, err := modelfile.ReadJSON(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if maxN != 8 {
		t.Errorf("max_n = %d, want 8", maxN)
	}
	tests := []struct {
		input   string
		symbols string
		logits  []*big.Rat // 1/2 less than the fraction of a's in x_1 … x_i
	}{
		{"aab", "111", []*big.Rat{big.NewRat(1, 2), big.NewRat(1, 2), big.NewRat(1, 6)}},
		{"abb", "100", []*big.Rat{big.NewRat(1, 2), big.NewRat(0, 1), big.NewRat(-1, 6)}},
		{"ba", "00", []*big.Rat{big.NewRat(-1, 2), big.NewRat(0, 1)}},
	}
	for _, prec := range []string{"exact", "fp32", "bf16"} {
		r, err := eval.New(numeric.MustParsePrecision(prec), m)
		if err != nil {
			t.Fatal(err)
		}
		for _, tt := range tests {
			in, err := m.Tokenize(tt.input)
			if err != nil {
				t.Fatal(err)
			}
			res, err := r.Run(in, false)
			if err != nil {
				t.Fatalf("%s at %s: %v", tt.input, prec, err)
			}
			var got strings.Builder
			for i, o := range res.Outputs {
				got.WriteString(o.Symbol)
				// Exact values only where the format holds them: bf16's
				// 1/3 is not a third.
				if prec == "exact" && !o.Values[0].Equals(tt.logits[i]) {
					t.Errorf("%s at position %d: W h = %v, want %s", tt.input, i+1, o.Values[0], tt.logits[i].RatString())
				}
			}
			if got.String() != tt.symbols {
				t.Errorf("%s at %s: outputs %s, want %s", tt.input, prec, got.String(), tt.symbols)
			}
		}
	}
}

// TestSchemaRejectsBrokenFiles edits the worked example, one hand-written
// defect a file, and checks that the schema and the reader both refuse
// each, the reader with one line naming the field.
func TestSchemaRejectsBrokenFiles(t *testing.T) {
	sch := compileSchema(t)
	base, err := os.ReadFile(examplePath)
	if err != nil {
		t.Fatal(err)
	}
	if err := validate(sch, base); err != nil {
		t.Fatalf("the example itself does not validate: %v", err)
	}
	if _, _, err := modelfile.ReadJSON(bytes.NewReader(base)); err != nil {
		t.Fatalf("the example itself does not read: %v", err)
	}
	const (
		embedding = `  "word_embedding": [
    ["1", "1", "0"],
    ["0", "1", "0"]
  ],
`
		headObject = `{
            "query": [["0", "0", "0"]],
            "key": [["0", "0", "0"]],
            "value": [
              ["0", "0", "0"],
              ["0", "0", "0"],
              ["1", "0", "0"]
            ]
          }`
		heads  = "[\n          " + headObject + "\n        ]"
		head   = `"query": [["0", "0", "0"]],`
		layer0 = `"attention_residual": true,`
		ffn    = `"feed_forward_residual": true`
	)
	// pe is a positions object with the given fields, before the norm.
	pe := func(fields string) string { return `"positions": {"name": "p", ` + fields + `}, "norm": "none",` }
	tests := []struct {
		name      string
		old, new  string
		readerErr string // what the reader's error must hold
	}{
		{"unknown top-level field", `"d": 3,`, `"d": 3, "width": 3,`, "width: unknown field"},
		{"unknown attention field", `"mask": "future",`, `"mask": "future", "masque": "future",`, "layers[0].attention.masque: unknown field"},
		{"unknown head field", head, head + ` "w": [["1"]],`, "layers[0].attention.heads[0].w: unknown field"},
		{"missing residual switch", layer0, ``, "layers[0].attention_residual: missing"},
		{"misspelt field", `"output": {`, `"outputs": {`, "outputs: unknown field"},
		{"missing word embedding", embedding, ``, "word_embedding: missing"},
		{"heads as an object", heads, headObject, "layers[0].attention.heads: an object, want a list"},
		{"wrong format", `"transformer-cookbook-model"`, `"onnx"`, `format: "onnx", want "transformer-cookbook-model"`},
		{"future version", `"version": 1,`, `"version": 2,`, "version: 2: this engine reads version 1"},
		{"width as a string", `"d": 3,`, `"d": "3",`, "d: a string, want an integer"},
		{"fractional width", `"d": 3,`, `"d": 2.5,`, "d: 2.5 is not an integer"},
		{"zero max_n", `"max_n": 8,`, `"max_n": 0,`, "max_n: 0, must be at least 1"},
		{"mask name", `"mask": "future"`, `"mask": "causal"`, `layers[0].attention.mask: unknown mask "causal" (known: none, future, strict-future, past, strict-past)`},
		{"weighting name", `"avghardmax"`, `"AHAT"`, `layers[0].attention.weighting: unknown weighting "AHAT" (known: softmax, lhardmax, rhardmax, avghardmax)`},
		{"scale name", `"scale": "none"`, `"scale": "sqrt"`, `layers[0].attention.scale: unknown score scale "sqrt"`},
		{"norm placement", `"norm": "none"`, `"norm": "layer"`, `norm: unknown norm placement "layer"`},
		{"output kind", `"kind": "sign"`, `"kind": "logits"`, `output.kind: unknown output kind "logits"`},
		{"activation name", ffn, `"feed_forward": {"activation": "tanh", "w1": [["1", "0", "0"]], "w2": [["0"], ["0"], ["0"]]}, ` + ffn, `layers[0].feed_forward.activation: unknown activation "tanh"`},
		{"residual as a string", layer0, `"attention_residual": "yes",`, "layers[0].attention_residual: a string, want true or false"},
		{"weight as a boolean", `-0.5`, `true`, `output.w[0][1]: a boolean, want a weight`},
		{"weight as an object", `-0.5`, `{"num": -1, "den": 2}`, `output.w[0][1]: an object, want a weight`},
		{"empty weight", `-0.5`, `""`, `output.w[0][1]: weight "" at offset 0: unexpected end`},
		{"hex float weight", `-0.5`, `"-0x1p-1"`, `output.w[0][1]: weight "-0x1p-1" at offset 2: unexpected "x1p-1"`},
		{"NaN weight", `-0.5`, `"NaN"`, `output.w[0][1]: weight "NaN" at offset 0: unexpected "NaN"`},
		{"infinite weight", `-0.5`, `"Infinity"`, `output.w[0][1]: weight "Infinity" at offset 0: unexpected "Infinity"`},
		{"no heads", heads, `[]`, "layers[0].attention.heads: no heads"},
		{"empty matrix", head, `"query": [],`, "layers[0].attention.heads[0].query: no rows"},
		{"empty row", head, `"query": [[]],`, "layers[0].attention.heads[0].query[0]: 0 entries, want 3 (d_in)"},
		{"null row", head, `"query": [null],`, "layers[0].attention.heads[0].query[0]: null, want a list of weights"},
		{"row as a string", head, `"query": ["0 0 0"],`, `layers[0].attention.heads[0].query[0]: a string, want a list of weights`},
		{"two rows for a sign", `"w": [["0", -0.5, "1"]]`, `"w": [["0", -0.5, "1"], ["0", "0", "1"]]`, "output.w: 2 rows, want 1 (1 for a sign output)"},
		{"argmax without labels", `"kind": "sign"`, `"kind": "argmax"`, "output.labels: argmax needs labels"},
		{"empty labels", `"kind": "sign",`, `"kind": "readout", "labels": [],`, "output.w: 1 row, want 0 (one per label)"},
		{"repeated symbol", `"alphabet": ["a", "b"]`, `"alphabet": ["a", "a"]`, `alphabet[1]: symbol "a" appears twice`},
		{"empty alphabet", `"alphabet": ["a", "b"]`, `"alphabet": []`, "alphabet: empty"},
		{"final norm without pre-norm", `"output": {`, `"final_norm": {"eps": "0"}, "output": {`, `final_norm: a final norm needs norm placement "pre"`},
		{"layer norm without placement", layer0, layer0 + ` "attention_norm": {"eps": "1/100"},`, `layers[0].attention_norm: a layer norm needs norm placement "post" or "pre"`},
		{"positions without a table", `"norm": "none",`, `"positions": {"name": "i", "depends_on_n": false}, "norm": "none",`, "positions.table: missing"},
		{"depends_on_n as a string", `"norm": "none",`, `"positions": {"name": "i", "depends_on_n": "no", "table": [["1", "0", "0"]]}, "norm": "none",`, "positions.depends_on_n: a string, want true or false"},
		{"position function name", `"norm": "none",`, pe(`"depends_on_n": false, "formula": [{"function": "j", "component": 0}]`), `positions.formula[0].function: unknown position function "j"`},
		{"one-hot without size", `"norm": "none",`, pe(`"depends_on_n": false, "formula": [{"function": "one-hot", "component": 0}]`), "positions.formula[0].size: missing"},
		{"size of a scalar function", `"norm": "none",`, pe(`"depends_on_n": false, "formula": [{"function": "i", "component": 0, "size": 2}]`), "positions.formula[0].size: only one-hot and sinusoidal have a size"},
		{"sinusoidal without base", `"norm": "none",`, pe(`"depends_on_n": false, "formula": [{"function": "sinusoidal", "component": 0, "size": 2}]`), "positions.formula[0].base: missing"},
		{"odd sinusoidal", `"norm": "none",`, pe(`"depends_on_n": false, "formula": [{"function": "sinusoidal", "component": 0, "size": 1, "base": "10000"}]`), "positions.formula[0].size: 1, want an even number"},
		{"base of a scalar function", `"norm": "none",`, pe(`"depends_on_n": true, "formula": [{"function": "i/n", "component": 0, "base": "2"}]`), "positions.formula[0].base: only sinusoidal has a base"},
		{"negative component", `"norm": "none",`, pe(`"depends_on_n": false, "formula": [{"function": "i", "component": -1}]`), "positions.formula[0].component: -1, want 0 … 2"},
		{"empty formula", `"norm": "none",`, pe(`"depends_on_n": false, "formula": []`), "positions.formula: no terms"},
		{"table and formula", `"norm": "none",`, pe(`"depends_on_n": false, "table": [["1", "0", "0"]], "formula": [{"function": "i", "component": 0}]`), "positions.table: a table and a formula"},
		{"components as a string", `"components": ["is_a", "one", "frac_a"]`, `"components": "is_a one frac_a"`, "components: a string, want a list of strings"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if !bytes.Contains(base, []byte(tt.old)) {
				t.Fatalf("the example has no %s", tt.old)
			}
			data := bytes.Replace(base, []byte(tt.old), []byte(tt.new), 1)
			if err := validate(sch, data); err == nil {
				t.Errorf("the schema accepts the file")
			}
			m, _, err := modelfile.ReadJSON(bytes.NewReader(data))
			switch {
			case err == nil:
				t.Errorf("ReadJSON accepts the file: %v", m.Name)
			case !strings.Contains(err.Error(), tt.readerErr):
				t.Errorf("ReadJSON: %q, want it to contain %q", err, tt.readerErr)
			case strings.Contains(err.Error(), "\n"):
				t.Errorf("ReadJSON: %q is more than one line", err)
			}
		})
	}
}

// TestSchemaHandWrittenFiles: the files written by hand for the tests,
// such as the position formula of every function, validate.
func TestSchemaHandWrittenFiles(t *testing.T) {
	sch := compileSchema(t)
	for _, name := range []string{"formula.json", "tiny.json", "majority.json"} {
		data, err := os.ReadFile("../testdata/" + name)
		if err != nil {
			t.Fatal(err)
		}
		if err := validate(sch, data); err != nil {
			t.Errorf("%s does not validate: %v", name, err)
		}
	}
}
