package modelfile

import (
	"context"
	"fmt"
	"math/big"

	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/numeric"
)

// encoder turns a Model into the objects of a model file. With inline
// set (a JSON file) the weights are written as text into the objects;
// otherwise (safetensors) they are collected as tensors under PyTorch
// state-dict names and the objects hold the architecture only. The first
// error sticks, naming the weight's path.
type encoder struct {
	inline  bool
	tensors []tensorData
	err     error
	// ctx, when not nil, cancels a long encoding (see live), and may
	// carry a progress report (WithProgress) of done steps out of
	// planned, a step per position encoded or checked.
	ctx           context.Context
	done, planned int
}

type progressKey struct{}

// WithProgress returns a copy of ctx under which the model writers
// (WriteJSONContext, WriteSafetensorsContext, …) report how far they
// are through the position encodings, the part of a file that grows
// with N: report(done, total) after each position, from the writer's
// goroutine.
func WithProgress(ctx context.Context, report func(done, total int)) context.Context {
	return context.WithValue(ctx, progressKey{}, report)
}

// tick reports one more step done to the progress in e.ctx.
func (e *encoder) tick() {
	e.done++
	if e.ctx == nil {
		return
	}
	if report, ok := e.ctx.Value(progressKey{}).(func(done, total int)); ok {
		report(e.done, max(e.planned, e.done))
	}
}

// tensorData is a tensor to store: its name, shape and entries in
// row-major order.
type tensorData struct {
	name  string
	shape []int
	data  []numeric.Expr
}

func (e *encoder) fail(path string, err error) {
	if e.err == nil {
		e.err = fmt.Errorf("%s: %w", path, err)
	}
}

// text is the text of one weight.
func (e *encoder) text(path string, x numeric.Expr) string {
	if e.err != nil {
		return ""
	}
	s, err := weightText(x)
	if err != nil {
		e.fail(path, err)
	}
	return s
}

// texts is the text of the weights of a row, whose entry k is at(k) in
// errors (built only then: a matrix has a million entries).
func (e *encoder) texts(v model.Vector, at func(k int) string) []string {
	if e.err != nil {
		return nil
	}
	out := make([]string, len(v))
	for k, x := range v {
		s, err := weightText(x)
		if err != nil {
			e.fail(at(k), err)
			return nil
		}
		out[k] = s
	}
	return out
}

// entries locates the entries of a vector at path.
func entries(path string) func(k int) string {
	return func(k int) string { return indexPath(path, k) }
}

// peEntries locates the entries of pe_n(i).
func peEntries(i, n int) func(k int) string {
	return func(k int) string { return fmt.Sprintf("positions: pe_n(i) at i = %d, n = %d, entry %d", i, n, k) }
}

// matrix stores m at path (JSON) or as the tensor named tensor.
func (e *encoder) matrix(path, tensor string, m model.Matrix) [][]string {
	if !e.inline {
		e.tensors = append(e.tensors, tensorData{tensor, []int{m.Rows, m.Cols}, m.Data})
		return nil
	}
	rows := make([][]string, m.Rows)
	for r := 0; r < m.Rows && e.live(); r++ {
		rows[r] = e.texts(m.Data[r*m.Cols:(r+1)*m.Cols], func(k int) string { return indexPath(indexPath(path, r), k) })
	}
	return rows
}

// vector stores v at path or as a tensor; nil stays absent.
func (e *encoder) vector(path, tensor string, v model.Vector) []string {
	if v == nil {
		return nil
	}
	if !e.inline {
		e.tensors = append(e.tensors, tensorData{tensor, []int{len(v)}, v})
		return nil
	}
	return e.texts(v, entries(path))
}

// model encodes m, whose position encodings are sampled up to maxN.
func (e *encoder) model(m *model.Model, maxN int) *jsonModel {
	if err := m.Validate(); err != nil {
		e.err = err
		return nil
	}
	if maxN < 1 {
		e.err = fmt.Errorf("the maximum length N must be at least 1, got %d", maxN)
		return nil
	}
	jm := &jsonModel{
		Format: fileFormat, Version: fileVersion,
		Name: m.Name, MaxN: maxN, D: m.D,
		Components: m.Components, Alphabet: m.Alphabet,
		Norm:   normNames[m.Norm],
		Layers: []jsonLayer{},
	}
	jm.WordEmbedding = e.embedding(m)
	if m.Position != nil {
		jm.Positions = e.positions(m, maxN)
	}
	for l, layer := range m.Layers {
		if !e.live() {
			return nil
		}
		jm.Layers = append(jm.Layers, e.layer(m, l, layer))
	}
	if m.FinalNorm != nil {
		jm.FinalNorm = e.norm("final_norm", "final_norm", m.FinalNorm)
	}
	jm.Output = jsonOutput{
		Kind:   m.Output.Kind.String(),
		W:      e.matrix("output.w", "unembed.weight", m.Output.W),
		Labels: m.Output.Labels,
	}
	return jm
}

// embedding stores the word embeddings: rows in JSON (null for a nil
// row), one |alphabet|×d tensor otherwise (zeros for a nil row).
func (e *encoder) embedding(m *model.Model) [][]string {
	if e.inline {
		rows := make([][]string, len(m.WordEmbedding))
		for s, v := range m.WordEmbedding {
			rows[s] = e.vector(indexPath("word_embedding", s), "", v)
		}
		return rows
	}
	data := make([]numeric.Expr, 0, len(m.WordEmbedding)*m.D)
	for _, v := range m.WordEmbedding {
		if v == nil {
			v = make(model.Vector, m.D)
		}
		data = append(data, v...)
	}
	e.tensors = append(e.tensors, tensorData{"embed.weight", []int{len(m.WordEmbedding), m.D}, data})
	return nil
}

func (e *encoder) layer(m *model.Model, l int, layer model.Layer) jsonLayer {
	path, tensor := indexPath("layers", l), fmt.Sprintf("layers.%d", l)
	jl := jsonLayer{
		AttentionResidual:   !layer.NoAttentionResidual,
		FeedForwardResidual: !layer.NoFeedForwardResidual,
	}
	if layer.AttentionNorm != nil {
		jl.AttentionNorm = e.norm(path+".attention_norm", tensor+".attn_norm", layer.AttentionNorm)
	}
	if a := layer.Attention; a != nil {
		ja := &jsonAttention{Mask: a.Mask.String(), Weighting: a.Weighting.String(), Scale: scaleNames[a.Scale]}
		if !a.Temperature.IsZero() {
			ja.Temperature = e.text(path+".attention.temperature", a.Temperature)
		}
		for h, head := range a.Heads {
			hp, ht := indexPath(path+".attention.heads", h), fmt.Sprintf("%s.attn.heads.%d", tensor, h)
			ja.Heads = append(ja.Heads, jsonHead{
				Query: e.matrix(hp+".query", ht+".q_proj.weight", head.Q),
				Key:   e.matrix(hp+".key", ht+".k_proj.weight", head.K),
				Value: e.matrix(hp+".value", ht+".v_proj.weight", head.V),
			})
		}
		jl.Attention = ja
	}
	if layer.FeedForwardNorm != nil {
		jl.FeedForwardNorm = e.norm(path+".feed_forward_norm", tensor+".ffn_norm", layer.FeedForwardNorm)
	}
	if f := layer.FeedForward; f != nil {
		fp, ft := path+".feed_forward", tensor+".ffn"
		jl.FeedForward = &jsonFeedForward{
			Activation: f.Activation.String(),
			W1:         e.matrix(fp+".w1", ft+".fc1.weight", f.W1),
			B1:         e.vector(fp+".b1", ft+".fc1.bias", f.B1),
			W2:         e.matrix(fp+".w2", ft+".fc2.weight", f.W2),
			B2:         e.vector(fp+".b2", ft+".fc2.bias", f.B2),
		}
	}
	return jl
}

func (e *encoder) norm(path, tensor string, ln *model.LayerNorm) *jsonNorm {
	jn := &jsonNorm{
		Eps:   e.text(path+".eps", ln.Eps),
		Gamma: e.vector(path+".gamma", tensor+".weight", ln.Gamma),
		Beta:  e.vector(path+".beta", tensor+".bias", ln.Beta),
	}
	if ln.Select != nil {
		jn.Select = e.matrix(path+".select", tensor+".select.weight", *ln.Select)
	}
	return jn
}

// positions stores the position encoding for lengths up to maxN: its
// formula when it has one that depends on n, else a table. The table
// has one row per position when the encoding does not depend on n —
// known from its formula or its declaration, or else learnt by comparing
// every pe_n(i) with pe_N(i) by the text of its weights, which takes
// time quadratic in maxN — and otherwise the whole triangle of pe_n(i),
// 1 ≤ i ≤ n ≤ maxN.
func (e *encoder) positions(m *model.Model, maxN int) *jsonPositions {
	p := m.Position
	jp := &jsonPositions{Name: p.Name}
	dep, known := p.DependsOnN()
	e.planned = maxN
	if p.Terms != nil && maxN > agreeLengths {
		e.planned += maxN
	}
	if p.Terms != nil {
		e.agree(m, maxN)
		if dep && e.err == nil {
			jp.DependsOnN = true
			jp.Formula = e.formula(p.Terms)
			return jp
		}
	}
	last, lastText := e.longestRows(m, maxN)
	if !known {
		jp.DependsOnN = e.learnDependsOnN(m, maxN, last, lastText)
	}
	if e.err != nil {
		return nil
	}
	if !jp.DependsOnN {
		e.rowTable(jp, m, maxN, last, lastText)
		return jp
	}
	e.triangle(jp, m, maxN)
	if e.err != nil {
		return nil
	}
	return jp
}

// sample is pe_n(i), the first entry of the wrong length an error.
func (e *encoder) sample(m *model.Model, i, n int) model.Vector {
	v := m.Position.Vector(i, n)
	if len(v) != m.D && e.err == nil {
		e.err = fmt.Errorf("positions: pe_n(i) at i = %d, n = %d has %d entries, want d = %d", i, n, len(v), m.D)
	}
	return v
}

// longestRows are pe_maxN(i) for every position i, and their texts where
// the file holds its weights inline (nil otherwise).
func (e *encoder) longestRows(m *model.Model, maxN int) (last []model.Vector, lastText [][]string) {
	last = make([]model.Vector, maxN)
	lastText = make([][]string, maxN)
	for i := 1; i <= maxN && e.live(); i++ {
		last[i-1] = e.sample(m, i, maxN)
		if e.inline {
			lastText[i-1] = e.texts(last[i-1], peEntries(i, maxN))
		}
		e.tick()
	}
	return last, lastText
}

// learnDependsOnN reports whether some pe_n(i), n < maxN, is written
// otherwise than pe_maxN(i), filling in lastText as it needs it.
func (e *encoder) learnDependsOnN(m *model.Model, maxN int, last []model.Vector, lastText [][]string) bool {
	for n := 1; n < maxN && e.live(); n++ {
		for i := 1; i <= n && e.live(); i++ {
			t := e.texts(e.sample(m, i, n), peEntries(i, n))
			if lastText[i-1] == nil {
				lastText[i-1] = e.texts(last[i-1], peEntries(i, maxN))
			}
			for k := range t {
				if t[k] != lastText[i-1][k] {
					return true
				}
			}
		}
	}
	return false
}

// rowTable stores an encoding that does not depend on n as one row per
// position.
func (e *encoder) rowTable(jp *jsonPositions, m *model.Model, maxN int, last []model.Vector, lastText [][]string) {
	if e.inline {
		jp.Table = lastText
		return
	}
	data := make([]numeric.Expr, 0, maxN*m.D)
	for _, v := range last {
		data = append(data, v...)
	}
	e.tensors = append(e.tensors, tensorData{"pos_embed.weight", []int{maxN, m.D}, data})
}

// triangle stores the whole triangle of pe_n(i); a tensor holds it as a
// maxN × maxN × d cube, zero above the diagonal.
func (e *encoder) triangle(jp *jsonPositions, m *model.Model, maxN int) {
	var blocks [][][]string
	var data []numeric.Expr
	for n := 1; n <= maxN && e.live(); n++ {
		block := make([][]string, n)
		for i := 1; i <= n && e.live(); i++ {
			v := e.sample(m, i, n)
			if e.inline {
				block[i-1] = e.texts(v, peEntries(i, n))
			} else {
				data = append(data, v...)
			}
		}
		if e.inline {
			blocks = append(blocks, block)
		} else {
			data = append(data, make([]numeric.Expr, (maxN-n)*m.D)...)
		}
	}
	if e.err != nil {
		return
	}
	if e.inline {
		jp.Table = blocks
	} else {
		e.tensors = append(e.tensors, tensorData{"pos_embed.weight", []int{maxN, maxN, m.D}, data})
	}
}

// agreeLengths is how many of the shortest lengths agree compares at
// every position (besides the longest, maxN): enough to tell i/n from i,
// 1/i or n, at a cost linear in maxN.
const agreeLengths = 8

// agree checks that the position encoding's function equals its formula
// at every position of the lengths 1 … agreeLengths and maxN, so that a
// formula declared wrongly next to the function is an error here rather
// than a file that computes something else.
func (e *encoder) agree(m *model.Model, maxN int) {
	p := m.Position
	formula, err := model.FormulaPositions(p.Name, m.D, p.Terms)
	if err != nil {
		e.err = fmt.Errorf("positions: %w", err)
		return
	}
	check := func(i, n int) {
		got, want := p.Vector(i, n), formula.Vector(i, n)
		if len(got) != m.D {
			e.err = fmt.Errorf("positions: pe_n(i) at i = %d, n = %d has %d entries, want d = %d", i, n, len(got), m.D)
			return
		}
		for k := range want {
			if !sameValue(got[k], want[k]) {
				e.err = fmt.Errorf("positions: %q gives %v at i = %d, n = %d, entry %d, but its formula gives %v", p.Name, got[k], i, n, k, want[k])
				return
			}
		}
	}
	for n := 1; n <= min(maxN, agreeLengths) && e.err == nil; n++ {
		for i := 1; i <= n && e.err == nil; i++ {
			check(i, n)
		}
	}
	for i := 1; i <= maxN && maxN > agreeLengths && e.live(); i++ {
		check(i, maxN)
		e.tick()
	}
}

// sameValue reports whether a and b are the same number: equal rationals,
// or irrational expressions of the same text.
func sameValue(a, b numeric.Expr) bool {
	x, okA, errA := a.Rat()
	y, okB, errB := b.Rat()
	switch {
	case errA != nil || errB != nil:
		return false
	case okA && okB:
		return x.Cmp(y) == 0
	case okA || okB:
		return false
	}
	return a.String() == b.String()
}

// formula is the terms as the file writes them.
func (e *encoder) formula(terms []model.PositionTerm) []jsonTerm {
	out := make([]jsonTerm, len(terms))
	for k, t := range terms {
		path := indexPath("positions.formula", k)
		jt := jsonTerm{Function: t.Function.String(), Component: t.Component, Size: t.Size}
		if s, ok, _ := t.Scale.Rat(); !t.Scale.IsZero() && !(ok && s.Cmp(big.NewRat(1, 1)) == 0) {
			jt.Scale = e.text(path+".scale", t.Scale)
		}
		if !t.Base.IsZero() {
			jt.Base = e.text(path+".base", t.Base)
		}
		out[k] = jt
	}
	return out
}

// live reports whether encoding goes on: no error so far and no
// cancellation. It is checked once per row, so that a cancellation stops
// even a slow row-by-row encoding at once.
func (e *encoder) live() bool {
	if e.err != nil {
		return false
	}
	if e.ctx != nil {
		if err := e.ctx.Err(); err != nil {
			e.err = err
			return false
		}
	}
	return true
}
