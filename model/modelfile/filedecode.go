package modelfile

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/transformer-cookbook/verify/internal/plural"
	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/numeric"
)

// decoder walks the tree of a model file (or of a safetensors file's
// architecture) into a Model, checking every field against its path and
// every shape against the dimensions read so far, so that an error names
// the field: "layers[2].attention.heads[0].query[3]: 4 entries, want 5
// (d_in)". Weights come from src: the tree itself, or tensors. The first
// error sticks; every method returns a harmless zero value after it, so
// the walk needs no error checks of its own to stay safe.
type decoder struct {
	src weightSource
	err error
	// parsed holds the weights read so far, by their text (at most
	// maxInterned): a matrix writes the same few weights again and again,
	// and an Expr is never changed, so one is shared instead of parsed
	// and stored for each entry.
	parsed map[string]numeric.Expr
}

// dims is the expected shape of a matrix: rows < 0 accepts any positive
// number of rows (d_key, hidden units), which the matrix then fixes.
type dims struct {
	rows, cols         int
	rowsWhat, colsWhat string
}

// weightSource supplies the weights of a model being read: at the
// object's field key in a JSON file, or the tensor named tensor in a
// safetensors file. Each method reports a missing required weight, a
// wrong shape or a bad entry through d, and returns ok = false when the
// weight is absent.
type weightSource interface {
	// inline reports whether weights are fields of the tree's objects.
	inline() bool
	matrix(d *decoder, o *jsonObject, key, tensor string, want dims, required bool) (model.Matrix, bool)
	vector(d *decoder, o *jsonObject, key, tensor string, n int, what string) (model.Vector, bool)
	// embedding returns one row per symbol (nil for a zero row).
	embedding(d *decoder, o *jsonObject, symbols, width int) []model.Vector
	// positions returns the position table (see positionTable).
	positions(d *decoder, o *jsonObject, maxN, width int, dependsOnN bool) [][]model.Vector
}

func (d *decoder) failf(path, format string, args ...any) {
	if d.err == nil {
		d.err = fmt.Errorf("%s: %s", path, fmt.Sprintf(format, args...))
	}
}

// fields reports the first field of o that is neither an architecture
// field nor, in a JSON file, a weight field.
func (d *decoder) fields(o *jsonObject, arch []string, weights ...string) {
	if d.err != nil || o == nil {
		return
	}
	known := arch
	if d.src.inline() {
		known = append(slices.Clip(arch), weights...)
	}
	for _, k := range o.keys {
		if !slices.Contains(known, k) {
			list := "none here"
			if len(known) > 0 {
				list = "known: " + strings.Join(known, ", ")
			}
			d.failf(childPath(o.path, k), "unknown field (%s)", list)
			return
		}
	}
}

// get returns o's field key, failing when it is required and missing.
func (d *decoder) get(o *jsonObject, key string, required bool) (any, string, bool) {
	if d.err != nil || o == nil {
		return nil, "", false
	}
	path := childPath(o.path, key)
	v, ok := o.vals[key]
	if !ok && required {
		d.failf(path, "missing")
	}
	return v, path, ok
}

func (d *decoder) str(o *jsonObject, key string) string {
	v, path, ok := d.get(o, key, true)
	if !ok {
		return ""
	}
	s, isStr := v.(string)
	if !isStr {
		d.failf(path, "%s, want a string", jsonType(v))
	}
	return s
}

func (d *decoder) integer(o *jsonObject, key string) int {
	v, path, ok := d.get(o, key, true)
	if !ok {
		return 0
	}
	num, isNum := v.(json.Number)
	if !isNum {
		d.failf(path, "%s, want an integer", jsonType(v))
		return 0
	}
	k, err := strconv.Atoi(string(num))
	if err != nil {
		d.failf(path, "%s is not an integer in range", num)
	}
	return k
}

func (d *decoder) boolean(o *jsonObject, key string) bool {
	v, path, ok := d.get(o, key, true)
	if !ok {
		return false
	}
	b, isBool := v.(bool)
	if !isBool {
		d.failf(path, "%s, want true or false", jsonType(v))
	}
	return b
}

// strs reads a list of strings; an optional one that is absent is nil.
func (d *decoder) strs(o *jsonObject, key string, required bool) []string {
	v, path, ok := d.get(o, key, required)
	if !ok {
		return nil
	}
	arr, isArr := v.([]any)
	if !isArr {
		d.failf(path, "%s, want a list of strings", jsonType(v))
		return nil
	}
	out := make([]string, len(arr))
	for i, x := range arr {
		s, isStr := x.(string)
		if !isStr {
			d.failf(indexPath(path, i), "%s, want a string", jsonType(x))
			return nil
		}
		out[i] = s
	}
	return out
}

func (d *decoder) object(o *jsonObject, key string, required bool) *jsonObject {
	v, path, ok := d.get(o, key, required)
	if !ok {
		return nil
	}
	return d.asObject(v, path)
}

func (d *decoder) asObject(v any, path string) *jsonObject {
	obj, isObj := v.(*jsonObject)
	if !isObj && d.err == nil {
		d.failf(path, "%s, want an object", jsonType(v))
	}
	return obj
}

func (d *decoder) array(o *jsonObject, key string) ([]any, string) {
	v, path, ok := d.get(o, key, true)
	if !ok {
		return nil, path
	}
	arr, isArr := v.([]any)
	if !isArr {
		d.failf(path, "%s, want a list", jsonType(v))
	}
	return arr, path
}

// enum reads one of names, as the index of the name.
func (d *decoder) enum(o *jsonObject, key string, names []string, what string) int {
	s := d.str(o, key)
	if d.err != nil {
		return 0
	}
	if k := slices.Index(names, s); k >= 0 {
		return k
	}
	d.failf(childPath(o.path, key), "unknown %s %q (known: %s)", what, s, strings.Join(names, ", "))
	return 0
}

// scalar reads a weight kept in the architecture (ε, τ) as its exact
// text in both formats.
func (d *decoder) scalar(o *jsonObject, key string) numeric.Expr {
	v, path, ok := d.get(o, key, true)
	if !ok {
		return numeric.Expr{}
	}
	return d.weight(v, path)
}

// weight parses one weight of the tree: a string, or a JSON number,
// which is read from its text (the tree keeps it), exactly like the
// string of the same text: 0.1 is 1/10.
func (d *decoder) weight(v any, path string) numeric.Expr {
	return d.weightAt(v, func() string { return path })
}

// weightAt is weight with the path made only for an error: a matrix's
// entries are millions, and their paths would take more memory than
// their weights.
func (d *decoder) weightAt(v any, path func() string) numeric.Expr {
	var s string
	switch x := v.(type) {
	case string:
		s = x
	case json.Number:
		s = string(x)
	default:
		d.failf(path(), "%s, want a weight: a number or a string like \"-3/7\"", jsonType(v))
		return numeric.Expr{}
	}
	if e, ok := d.parsed[s]; ok {
		return e
	}
	e, err := parseWeight(s)
	if err != nil {
		d.failf(path(), "%v", err)
		return e
	}
	if d.parsed == nil {
		d.parsed = map[string]numeric.Expr{}
	}
	if len(d.parsed) < maxInterned {
		d.parsed[s] = e
	}
	return e
}

// entry is weight for the entry k of a row at path, where zero is stored
// as the zero Expr (as Zeros makes it) to keep sparse matrices small.
func (d *decoder) entry(v any, path string, k int) numeric.Expr {
	if s, ok := v.(string); ok && s == "0" {
		return numeric.Expr{}
	}
	e := d.weightAt(v, func() string { return indexPath(path, k) })
	if e.IsZeroLiteral() {
		// parseWeight folds a rational expression to its literal.
		return numeric.Expr{}
	}
	return e
}

// model walks the root object.
func (d *decoder) model(root *jsonObject) (*model.Model, int) {
	d.fields(root, []string{"format", "version", "name", "max_n", "d", "components", "alphabet", "positions", "norm", "layers", "final_norm", "output"}, "word_embedding")
	if f := d.str(root, "format"); d.err == nil && f != fileFormat {
		d.failf(childPath(root.path, "format"), "%q, want %q", f, fileFormat)
	}
	if v := d.integer(root, "version"); d.err == nil && v != fileVersion {
		d.failf(childPath(root.path, "version"), "%d: this engine reads version %d", v, fileVersion)
	}
	m := &model.Model{Name: d.str(root, "name")}
	maxN := d.integer(root, "max_n")
	if d.err == nil && maxN < 1 {
		d.failf(childPath(root.path, "max_n"), "%d, must be at least 1", maxN)
	}
	m.D = d.integer(root, "d")
	if d.err == nil && m.D < 1 {
		d.failf(childPath(root.path, "d"), "%d: the width must be positive", m.D)
	}
	m.Components = d.strs(root, "components", false)
	first := map[string]int{}
	for k, name := range m.Components {
		if j, dup := first[name]; dup && d.err == nil {
			d.failf(indexPath(childPath(root.path, "components"), k), "%q is also the name of components[%d]: each component needs a name of its own", name, j)
		}
		first[name] = k
	}
	if d.err == nil && m.Components != nil && len(m.Components) != m.D {
		d.failf(childPath(root.path, "components"), "%s, want d = %d", plural.Of(len(m.Components), "name"), m.D)
	}
	m.Alphabet = d.strs(root, "alphabet", true)
	if d.err == nil && len(m.Alphabet) == 0 {
		d.failf(childPath(root.path, "alphabet"), "empty")
	}
	// By a map: the lookup's alphabet has 2N symbols, and a search per
	// symbol made reading quadratic in N.
	seen := make(map[string]bool, len(m.Alphabet))
	for s, sym := range m.Alphabet {
		if d.err == nil && seen[sym] {
			d.failf(indexPath(childPath(root.path, "alphabet"), s), "symbol %q appears twice", sym)
		}
		seen[sym] = true
	}
	if d.err == nil {
		m.WordEmbedding = d.src.embedding(d, root, len(m.Alphabet), m.D)
	}
	if po := d.object(root, "positions", false); po != nil {
		d.fields(po, []string{"name", "depends_on_n", "formula"}, "table")
		name, dep := d.str(po, "name"), d.boolean(po, "depends_on_n")
		_, hasFormula := po.vals["formula"]
		switch {
		case d.err != nil:
		case hasFormula:
			m.Position = d.formula(po, name, dep, m.D)
		default:
			m.Position = model.TablePositions(name, maxN, dep, d.src.positions(d, po, maxN, m.D, dep))
		}
	}
	m.Norm = model.NormPlacement(d.enum(root, "norm", normNames, "norm placement"))
	layers, path := d.array(root, "layers")
	for l, v := range layers {
		if d.err != nil {
			break
		}
		m.Layers = append(m.Layers, d.layer(d.asObject(v, indexPath(path, l)), l, m))
	}
	if fo := d.object(root, "final_norm", false); fo != nil {
		if d.err == nil && m.Norm != model.PreNorm {
			d.failf(fo.path, "a final norm needs norm placement \"pre\"")
		}
		m.FinalNorm = d.norm(fo, "final_norm", m.D, false)
	}
	if oo := d.object(root, "output", true); oo != nil {
		m.Output = d.output(oo, m.D)
	}
	return m, maxN
}

// formula reads positions.formula, the encoding as a sum of named
// functions (see PositionTerm), which replaces the table: the file holds
// either.
func (d *decoder) formula(po *jsonObject, name string, dep bool, width int) *model.PositionEncoding {
	if _, ok := po.vals["table"]; ok {
		d.failf(childPath(po.path, "table"), "a table and a formula: give one of them")
		return nil
	}
	list, path := d.array(po, "formula")
	if d.err == nil && len(list) == 0 {
		d.failf(path, "no terms, want at least one")
	}
	terms := make([]model.PositionTerm, 0, len(list))
	for k, v := range list {
		if d.err != nil {
			return nil
		}
		terms = append(terms, d.term(d.asObject(v, indexPath(path, k)), width))
	}
	if d.err != nil {
		return nil
	}
	if got := slices.ContainsFunc(terms, func(t model.PositionTerm) bool { return t.Function.DependsOnN() }); got != dep {
		why := "no term of the formula depends on n"
		if got {
			why = "the formula has a term in n (n or i/n)"
		}
		d.failf(childPath(po.path, "depends_on_n"), "%v, but %s", dep, why)
		return nil
	}
	p, err := model.FormulaPositions(name, width, terms)
	if err != nil {
		d.failf(path, "%v", err)
		return nil
	}
	return p
}

// term reads one term of a position formula.
func (d *decoder) term(o *jsonObject, width int) model.PositionTerm {
	d.fields(o, []string{"function", "component", "size", "scale", "base"})
	t := model.PositionTerm{Function: model.PositionFunction(d.enum(o, "function", model.PositionFunctionNames(), "position function"))}
	t.Component = d.integer(o, "component")
	if d.err == nil && (t.Component < 0 || t.Component >= width) {
		d.failf(childPath(o.path, "component"), "%d, want 0 … %d (d = %d)", t.Component, width-1, width)
	}
	_, hasSize := o.vals["size"]
	switch {
	case d.err != nil:
	case t.Function.Sized() && !hasSize:
		d.failf(childPath(o.path, "size"), "missing (%s writes size components)", t.Function)
	case !t.Function.Sized() && hasSize:
		d.failf(childPath(o.path, "size"), "only one-hot and sinusoidal have a size; %q writes one component", t.Function)
	case hasSize:
		t.Size = d.integer(o, "size")
		path := childPath(o.path, "size")
		switch {
		case d.err != nil:
		case t.Size < 1:
			d.failf(path, "%d, want at least 1", t.Size)
		case t.Function == model.PosSinusoidal && t.Size%2 != 0:
			d.failf(path, "%d, want an even number (a cos and a sin per frequency)", t.Size)
		case t.Size > width-t.Component:
			d.failf(path, "%s from component %d, past d = %d", plural.Of(t.Size, "component"), t.Component, width)
		}
	}
	if _, ok := o.vals["scale"]; ok {
		// The zero Expr means a scale of 1: a written 0 must stay 0.
		if t.Scale = d.scalar(o, "scale"); t.Scale.IsZero() {
			t.Scale = numeric.LitInt(0)
		}
	}
	_, hasBase := o.vals["base"]
	switch {
	case d.err != nil:
	case t.Function == model.PosSinusoidal:
		t.Base = d.scalar(o, "base")
	case hasBase:
		d.failf(childPath(o.path, "base"), "only sinusoidal has a base")
	}
	if d.err == nil {
		if err := t.Check(width); err != nil {
			d.failf(o.path, "%v", err)
		}
	}
	return t
}

func (d *decoder) layer(o *jsonObject, l int, m *model.Model) model.Layer {
	d.fields(o, []string{"attention_norm", "attention", "attention_residual", "feed_forward_norm", "feed_forward", "feed_forward_residual"})
	var layer model.Layer
	tensor := fmt.Sprintf("layers.%d", l)
	sublayerNorm := func(key, suffix string) *model.LayerNorm {
		no := d.object(o, key, false)
		if no == nil {
			return nil
		}
		if d.err == nil && m.Norm == model.NoNorm {
			d.failf(no.path, "a layer norm needs norm placement \"post\" or \"pre\"; the model's is \"none\"")
		}
		return d.norm(no, tensor+suffix, m.D, m.Norm == model.PreNorm)
	}
	layer.AttentionNorm = sublayerNorm("attention_norm", ".attn_norm")
	if ao := d.object(o, "attention", false); ao != nil {
		layer.Attention = d.attention(ao, tensor+".attn", m.D, model.InputWidth(layer.AttentionNorm, m.Norm, m.D))
	}
	layer.NoAttentionResidual = !d.boolean(o, "attention_residual")
	layer.FeedForwardNorm = sublayerNorm("feed_forward_norm", ".ffn_norm")
	if fo := d.object(o, "feed_forward", false); fo != nil {
		layer.FeedForward = d.feedForward(fo, tensor+".ffn", m.D, model.InputWidth(layer.FeedForwardNorm, m.Norm, m.D))
	}
	layer.NoFeedForwardResidual = !d.boolean(o, "feed_forward_residual")
	return layer
}

// norm reads a layer norm; selectOK says whether a selection matrix W^N
// is allowed (pre-norm sublayer norms).
func (d *decoder) norm(o *jsonObject, tensor string, width int, selectOK bool) *model.LayerNorm {
	d.fields(o, []string{"eps"}, "gamma", "beta", "select")
	ln := &model.LayerNorm{Eps: d.scalar(o, "eps")}
	if sel, ok := d.src.matrix(d, o, "select", tensor+".select.weight", dims{-1, width, "rows", "d"}, false); ok {
		if d.err == nil && !selectOK {
			d.failf(childPath(o.path, "select"), "a selection matrix W^N is only for the sublayer norms of a pre-norm model")
		}
		ln.Select = &sel
		width = sel.Rows
	}
	ln.Gamma, _ = d.src.vector(d, o, "gamma", tensor+".weight", width, "the normalised width")
	ln.Beta, _ = d.src.vector(d, o, "beta", tensor+".bias", width, "the normalised width")
	return ln
}

func (d *decoder) attention(o *jsonObject, tensor string, width, dIn int) *model.Attention {
	d.fields(o, []string{"mask", "weighting", "scale", "temperature", "heads"})
	a := &model.Attention{
		Mask:      model.Mask(d.enum(o, "mask", model.MaskNames(), "mask")),
		Weighting: model.Weighting(d.enum(o, "weighting", model.WeightingNames(), "weighting")),
		Scale:     model.ScoreScale(d.enum(o, "scale", scaleNames, "score scale")),
	}
	if _, ok := o.vals["temperature"]; ok {
		a.Temperature = d.scalar(o, "temperature")
	}
	heads, path := d.array(o, "heads")
	if d.err == nil && len(heads) == 0 {
		d.failf(path, "no heads")
	}
	for h, v := range heads {
		if d.err != nil {
			break
		}
		ho := d.asObject(v, indexPath(path, h))
		d.fields(ho, nil, "query", "key", "value")
		t := fmt.Sprintf("%s.heads.%d", tensor, h)
		var head model.Head
		head.Q, _ = d.src.matrix(d, ho, "query", t+".q_proj.weight", dims{-1, dIn, "d_key", "d_in"}, true)
		head.K, _ = d.src.matrix(d, ho, "key", t+".k_proj.weight", dims{head.Q.Rows, dIn, "d_key, the rows of query", "d_in"}, true)
		head.V, _ = d.src.matrix(d, ho, "value", t+".v_proj.weight", dims{width, dIn, "d", "d_in"}, true)
		a.Heads = append(a.Heads, head)
	}
	return a
}

func (d *decoder) feedForward(o *jsonObject, tensor string, width, dIn int) *model.FeedForward {
	d.fields(o, []string{"activation"}, "w1", "b1", "w2", "b2")
	f := &model.FeedForward{Activation: model.Activation(d.enum(o, "activation", model.ActivationNames(), "activation"))}
	f.W1, _ = d.src.matrix(d, o, "w1", tensor+".fc1.weight", dims{-1, dIn, "hidden units", "d_in"}, true)
	f.B1, _ = d.src.vector(d, o, "b1", tensor+".fc1.bias", f.W1.Rows, "hidden units, the rows of w1")
	f.W2, _ = d.src.matrix(d, o, "w2", tensor+".fc2.weight", dims{width, f.W1.Rows, "d", "hidden units"}, true)
	f.B2, _ = d.src.vector(d, o, "b2", tensor+".fc2.bias", width, "d")
	return f
}

func (d *decoder) output(o *jsonObject, width int) model.Output {
	d.fields(o, []string{"kind", "labels"}, "w")
	out := model.Output{Kind: model.OutputKind(d.enum(o, "kind", model.OutputKindNames(), "output kind"))}
	out.Labels = d.strs(o, "labels", false)
	want := dims{-1, width, "outputs", "d"}
	switch out.Kind {
	case model.Sign:
		want.rows, want.rowsWhat = 1, "1 for a sign output"
	case model.Argmax, model.Distribution:
		if d.err == nil && len(out.Labels) == 0 {
			d.failf(childPath(o.path, "labels"), "%s needs labels", out.Kind)
		}
		want.rows, want.rowsWhat = len(out.Labels), "one per label"
	case model.Readout:
		if out.Labels != nil {
			want.rows, want.rowsWhat = len(out.Labels), "one per label"
		}
	}
	out.W, _ = d.src.matrix(d, o, "w", "unembed.weight", want, true)
	return out
}

// jsonWeights reads weights written inline in a JSON model file.
type jsonWeights struct{}

func (jsonWeights) inline() bool { return true }

func (jsonWeights) matrix(d *decoder, o *jsonObject, key, _ string, want dims, required bool) (model.Matrix, bool) {
	v, path, ok := d.get(o, key, required)
	if !ok || d.err != nil {
		return model.Matrix{}, false
	}
	rows := d.rows(v, path, want, false)
	if d.err != nil {
		return model.Matrix{}, false
	}
	m := model.Matrix{Rows: len(rows), Cols: want.cols, Data: make([]numeric.Expr, 0, len(rows)*want.cols)}
	for _, r := range rows {
		m.Data = append(m.Data, r...)
	}
	return m, true
}

func (jsonWeights) vector(d *decoder, o *jsonObject, key, _ string, n int, what string) (model.Vector, bool) {
	v, path, ok := d.get(o, key, false)
	if !ok || d.err != nil {
		return nil, false
	}
	return d.row(v, path, n, what), d.err == nil
}

func (jsonWeights) embedding(d *decoder, o *jsonObject, symbols, width int) []model.Vector {
	v, path, ok := d.get(o, "word_embedding", true)
	if !ok {
		return nil
	}
	return d.rows(v, path, dims{symbols, width, "one per symbol of the alphabet", "d"}, true)
}

func (jsonWeights) positions(d *decoder, o *jsonObject, maxN, width int, dependsOnN bool) [][]model.Vector {
	v, path, ok := d.get(o, "table", true)
	if !ok {
		return nil
	}
	if !dependsOnN {
		return [][]model.Vector{d.rows(v, path, dims{maxN, width, "max_n", "d"}, false)}
	}
	blocks, isArr := v.([]any)
	if !isArr {
		d.failf(path, "%s, want a list of max_n blocks", jsonType(v))
		return nil
	}
	if len(blocks) != maxN {
		d.failf(path, "%s, want max_n = %d (block n holds pe_n(1) … pe_n(n))", plural.Of(len(blocks), "block"), maxN)
		return nil
	}
	table := make([][]model.Vector, 0, maxN)
	for n, b := range blocks {
		table = append(table, d.rows(b, indexPath(path, n), dims{n + 1, width, fmt.Sprintf("n = %d", n+1), "d"}, false))
		if d.err != nil {
			return nil
		}
	}
	return table
}

// rows reads a list of rows of weights of shape want; nullRows allows a
// null row (a nil Vector).
func (d *decoder) rows(v any, path string, want dims, nullRows bool) []model.Vector {
	arr, isArr := v.([]any)
	if !isArr {
		d.failf(path, "%s, want a list of rows", jsonType(v))
		return nil
	}
	switch {
	case want.rows >= 0 && len(arr) != want.rows:
		d.failf(path, "%s, want %d (%s)", plural.Of(len(arr), "row"), want.rows, want.rowsWhat)
		return nil
	case len(arr) == 0:
		d.failf(path, "no rows, want at least one (%s)", want.rowsWhat)
		return nil
	}
	out := make([]model.Vector, len(arr))
	for r, x := range arr {
		if x == nil && nullRows {
			continue
		}
		if out[r] = d.row(x, indexPath(path, r), want.cols, want.colsWhat); d.err != nil {
			return nil
		}
	}
	return out
}

// row reads a list of n weights.
func (d *decoder) row(v any, path string, n int, what string) model.Vector {
	arr, isArr := v.([]any)
	if !isArr {
		d.failf(path, "%s, want a list of weights", jsonType(v))
		return nil
	}
	if len(arr) != n {
		d.failf(path, "%s, want %d (%s)", plural.Of(len(arr), "entry"), n, what)
		return nil
	}
	out := make(model.Vector, n)
	for k, x := range arr {
		if out[k] = d.entry(x, path, k); d.err != nil {
			return nil
		}
	}
	return out
}
