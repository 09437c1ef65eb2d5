package modelfile

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"strings"

	"github.com/transformer-cookbook/verify/model"
)

// # Model files
//
// WriteJSON and ReadJSON store a whole Model in a JSON file, losslessly:
// a model read back computes what the original computes, at every
// precision, on every input of length at most max_n. For example, a
// one-layer model over {a, b} of width 2 (testdata/tiny.json, which a
// test keeps equal to what WriteJSON writes):
//
//	{
//	  "format": "transformer-cookbook-model",
//	  "version": 1,
//	  "name": "tiny",
//	  "max_n": 3,
//	  "d": 2,
//	  "components": ["x", "pos"],
//	  "alphabet": ["a", "b"],
//	  "word_embedding": [
//	    ["1", "0"],
//	    null
//	  ],
//	  "positions": {
//	    "name": "1/i",
//	    "depends_on_n": false,
//	    "table": [
//	      ["0", "1"],
//	      ["0", "1/2"],
//	      ["0", "1/3"]
//	    ]
//	  },
//	  "norm": "none",
//	  "layers": [
//	    {
//	      "attention": {
//	        "mask": "future",
//	        "weighting": "softmax",
//	        "scale": "none",
//	        "temperature": "1/log(24)",
//	        "heads": [
//	          {
//	            "query": [
//	              ["1", "0"]
//	            ],
//	            "key": [
//	              ["0", "-3/7"]
//	            ],
//	            "value": [
//	              ["1", "0"],
//	              ["0", "0"]
//	            ]
//	          }
//	        ]
//	      },
//	      "attention_residual": true,
//	      "feed_forward": {
//	        "activation": "relu",
//	        "w1": [
//	          ["1", "-1"]
//	        ],
//	        "b1": ["0"],
//	        "w2": [
//	          ["1"],
//	          ["0"]
//	        ]
//	      },
//	      "feed_forward_residual": false
//	    }
//	  ],
//	  "output": {
//	    "kind": "sign",
//	    "w": [
//	      ["1", "0"]
//	    ]
//	  }
//	}
//
// The fields, with the Model fields they hold:
//
//   - format, version: always "transformer-cookbook-model" and 1.
//   - name (Name), d (D, > 0), components (Components; optional, d names),
//     alphabet (Alphabet, non-empty, no repeats).
//   - max_n: the largest input length N the file was written for (≥ 1).
//     Position encodings are Go functions of (i, n), so the file stores
//     either their formula or their values. An encoding with Terms that
//     depends on n is stored as positions.formula, a list of terms
//     {function, component, size, scale, base} (see PositionTerm), which
//     holds at every length. Otherwise positions.table holds pe_n(i) for
//     every 1 ≤ i ≤ n ≤ N, as N rows pe(1) … pe(N) when depends_on_n is
//     false (known from Terms or IndependentOfN, or else checked by the
//     writer, pe_n(i) = pe_N(i) for every n ≤ N), else as N blocks, block
//     n holding the n rows pe_n(1) … pe_n(n). A model read back from a
//     table runs inputs of length at most N (longer ones are an error, as
//     their encodings are not in the file); positions is absent when the
//     model has none.
//   - word_embedding: one row of d weights per symbol of the alphabet, in
//     its order; null for a row that is nil (zeros).
//   - norm: "none", "post" or "pre" (Norm); final_norm (FinalNorm,
//     optional, pre-norm only).
//   - layers: one object per Layer. attention and feed_forward are
//     optional (a missing sublayer is the zero function);
//     attention_residual and feed_forward_residual are required booleans
//     (true unless NoAttentionResidual / NoFeedForwardResidual);
//     attention_norm and feed_forward_norm are optional layer norms.
//   - attention: mask ("none", "future", "strict-future", "past",
//     "strict-past"), weighting ("softmax", "lhardmax", "rhardmax",
//     "avghardmax"), scale ("sqrt-d-key" for q·k/√d_key, "none" for q·k),
//     temperature (optional weight; absent means τ = 1), heads: a
//     non-empty list of {query, key, value}, the matrices W^Q and W^K
//     (d_key × d_in) and W^V (d × d_in), where d_in is d, or the rows of
//     the sublayer norm's select.
//   - feed_forward: activation ("relu", "gelu", "gelu-tanh",
//     "gelu-sigmoid", "linear"), w1 (hidden × d_in), b1 (hidden;
//     optional, absent is zeros), w2 (d × hidden), b2 (d; optional).
//   - a layer norm: eps (a weight), gamma and beta (optional: absent are
//     ones and zeros), select (optional matrix W^N, rows × d, pre-norm
//     sublayer norms only; gamma and beta then have its rows' length).
//   - output: kind ("readout", "sign", "argmax", "softmax"), w (the
//     unembedding: any rows × d for readout, 1 × d for sign, one row per
//     label for argmax and softmax), labels (required for argmax and
//     softmax; for readout optional names of the rows).
//
// A matrix is a list of rows, each a list of weights. WriteJSON writes
// every weight as a JSON string: an exact rational "-3/7", "0", "12", or
// an irrational constant in numeric's expression syntax,
// "log(512)/(1/4)", "sqrt(2)*(-1/3)" (see weightText for the grammar).
// ReadJSON also reads exact decimals, "0.25" or "-1.5e-3", and JSON
// numbers, from their text: 0.1 is exactly 1/10, never the float64
// nearest to it. docs/model-format.md specifies the format in full, and
// docs/model.schema.json is its JSON Schema. Reading is strict: an
// unknown or repeated field, a missing one, a wrong JSON type, a matrix
// of the wrong shape, a weight that does not parse or has no real value
// ("1/0", "log(0)", "NaN", "1e999999999"), an unknown
// name of a mask, weighting, activation, norm placement or output kind,
// and anything after the JSON object are errors naming the field's path,
// like layers[2].attention.heads[0].query[3]. Sizes are checked against
// the data present before anything is allocated for them, so that a file
// declaring d = 10⁹ is an error, not an allocation.

const (
	fileFormat  = "transformer-cookbook-model"
	fileVersion = 1
)

// The names of the enums that have no String method fit for a file.
var (
	normNames  = []string{"none", "post", "pre"}
	scaleNames = []string{"sqrt-d-key", "none"}
)

// WriteJSON writes m to w as a model file (see the format above) holding
// its position encodings for every length up to maxN. It validates m
// first, and writes nothing on an error: a dimension mismatch, an invalid
// enum, a weight without a real value, or a position encoding of the
// wrong width. It stops with ctx's error when ctx is done before the file
// is written, so that a long export can be interrupted; it writes
// nothing then.
func WriteJSON(ctx context.Context, w io.Writer, m *model.Model, maxN int) error {
	enc := &encoder{inline: true, ctx: ctx}
	jm := enc.model(m, maxN)
	if enc.err != nil {
		return enc.err
	}
	var buf bytes.Buffer
	je := json.NewEncoder(&buf)
	je.SetEscapeHTML(false)
	if err := je.Encode(jm); err != nil {
		return err
	}
	out := indentJSON(bytes.TrimSpace(buf.Bytes()))
	_, err := w.Write(append(out, '\n'))
	return err
}

// ReadJSON reads a model file written by WriteJSON (or by hand, to the
// same format), and returns the model and the largest length max_n its
// position encodings cover. It never panics: anything wrong in the file
// is an error naming the path of the field.
func ReadJSON(r io.Reader) (*model.Model, int, error) {
	root, err := decodeTree(r, "", maxJSONString)
	if err != nil {
		return nil, 0, err
	}
	d := &decoder{src: jsonWeights{}}
	m, maxN := d.model(root)
	if d.err != nil {
		return nil, 0, d.err
	}
	if err := m.Validate(); err != nil {
		return nil, 0, err
	}
	return m, maxN, nil
}

// The file's JSON objects, as written. The reader walks the same fields
// by name (filedecode.go) to report errors by path. Weight fields are
// omitted in a safetensors file's architecture, whose weights are
// tensors.
type (
	jsonModel struct {
		Format        string         `json:"format"`
		Version       int            `json:"version"`
		Name          string         `json:"name"`
		MaxN          int            `json:"max_n"`
		D             int            `json:"d"`
		Components    []string       `json:"components,omitempty"`
		Alphabet      []string       `json:"alphabet"`
		WordEmbedding [][]string     `json:"word_embedding,omitempty"`
		Positions     *jsonPositions `json:"positions,omitempty"`
		Norm          string         `json:"norm"`
		Layers        []jsonLayer    `json:"layers"`
		FinalNorm     *jsonNorm      `json:"final_norm,omitempty"`
		Output        jsonOutput     `json:"output"`
	}
	jsonPositions struct {
		Name       string     `json:"name"`
		DependsOnN bool       `json:"depends_on_n"`
		Formula    []jsonTerm `json:"formula,omitempty"`
		Table      any        `json:"table,omitempty"` // [][]string, or [][][]string by n
	}
	jsonTerm struct {
		Function  string `json:"function"`
		Component int    `json:"component"`
		Size      int    `json:"size,omitempty"`
		Scale     string `json:"scale,omitempty"`
		Base      string `json:"base,omitempty"`
	}
	jsonLayer struct {
		AttentionNorm       *jsonNorm        `json:"attention_norm,omitempty"`
		Attention           *jsonAttention   `json:"attention,omitempty"`
		AttentionResidual   bool             `json:"attention_residual"`
		FeedForwardNorm     *jsonNorm        `json:"feed_forward_norm,omitempty"`
		FeedForward         *jsonFeedForward `json:"feed_forward,omitempty"`
		FeedForwardResidual bool             `json:"feed_forward_residual"`
	}
	jsonAttention struct {
		Mask        string     `json:"mask"`
		Weighting   string     `json:"weighting"`
		Scale       string     `json:"scale"`
		Temperature string     `json:"temperature,omitempty"`
		Heads       []jsonHead `json:"heads"`
	}
	jsonHead struct {
		Query [][]string `json:"query,omitempty"`
		Key   [][]string `json:"key,omitempty"`
		Value [][]string `json:"value,omitempty"`
	}
	jsonFeedForward struct {
		Activation string     `json:"activation"`
		W1         [][]string `json:"w1,omitempty"`
		B1         []string   `json:"b1,omitempty"`
		W2         [][]string `json:"w2,omitempty"`
		B2         []string   `json:"b2,omitempty"`
	}
	jsonNorm struct {
		Eps    string     `json:"eps"`
		Gamma  []string   `json:"gamma,omitempty"`
		Beta   []string   `json:"beta,omitempty"`
		Select [][]string `json:"select,omitempty"`
	}
	jsonOutput struct {
		Kind   string     `json:"kind"`
		W      [][]string `json:"w,omitempty"`
		Labels []string   `json:"labels,omitempty"`
	}
)

// indentJSON indents compact JSON two spaces a level, keeping each array
// of scalars (a row of weights) on one line, so that a matrix reads as
// one row per line.
func indentJSON(src []byte) []byte {
	var out bytes.Buffer
	depth := 0
	newline := func() {
		out.WriteByte('\n')
		out.WriteString(strings.Repeat("  ", depth))
	}
	for i := 0; i < len(src); i++ {
		switch c := src[i]; c {
		case '"':
			j := stringEnd(src, i)
			out.Write(src[i:j])
			i = j - 1
		case '{', '[':
			if i+1 < len(src) && (src[i+1] == '}' || src[i+1] == ']') {
				out.Write(src[i : i+2])
				i++
				continue
			}
			if end, ok := flatArray(src, i); ok {
				for k := i; k <= end; k++ {
					if src[k] == '"' {
						j := stringEnd(src, k)
						out.Write(src[k:j])
						k = j - 1
						continue
					}
					out.WriteByte(src[k])
					if src[k] == ',' {
						out.WriteByte(' ')
					}
				}
				i = end
				continue
			}
			out.WriteByte(c)
			depth++
			newline()
		case '}', ']':
			depth--
			newline()
			out.WriteByte(c)
		case ',':
			out.WriteByte(',')
			newline()
		case ':':
			out.WriteString(": ")
		default:
			out.WriteByte(c)
		}
	}
	return out.Bytes()
}

// stringEnd returns the index just past the JSON string starting at i.
func stringEnd(src []byte, i int) int {
	for j := i + 1; j < len(src); j++ {
		switch src[j] {
		case '\\':
			j++
		case '"':
			return j + 1
		}
	}
	return len(src)
}

// flatArray reports whether src[i] opens an array of scalars, and where
// it closes.
func flatArray(src []byte, i int) (int, bool) {
	if src[i] != '[' {
		return 0, false
	}
	for j := i + 1; j < len(src); j++ {
		switch src[j] {
		case '"':
			j = stringEnd(src, j) - 1
		case '[', '{':
			return 0, false
		case ']':
			return j, true
		}
	}
	return 0, false
}

// MaxReadMultiple bounds the memory reading a model file takes, as a
// multiple of the file's size: what ReadJSON and ReadSafetensors
// allocate in all (so also their peak), measured for files of repeated
// and of distinct weights in each format and dtype
// (TestReadMemoryFollowsTheFile).
const MaxReadMultiple = 64
