package stream

import (
	"fmt"
	"math/big"
	"slices"
	"strings"

	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/numeric"
)

// Values assigns exact values to named components; absent ones are 0.
type Values map[string]numeric.Expr

// Program is a transformer under construction on named components. Its
// methods record the construction; Model checks it and builds the weights.
type Program struct {
	Name string

	inputs   []string // components set by the input, in order
	alphabet []string
	embed    func(symbol int) Values
	// columns and embedColumns, when set by SymbolsOf, give the same
	// embedding as embed without a map per symbol.
	columns      []string
	embedColumns func(symbol int, values []numeric.Expr)
	posName      string
	position     func(i, n int) Values
	// posOfI says that position ignores n; posTerms is its formula, when
	// declared (see Formula).
	posOfI   bool
	posTerms []Term
	stages   []Block // the sublayers, in order
	output   *outputSpec
}

type outputSpec struct {
	kind   model.OutputKind
	labels []string
	rows   []Values // one row of W_out per label, over named components
}

// New starts a program whose input sets the given components (by the
// word and position embeddings, or directly through model.RunStream).
func New(name string, inputs ...string) *Program {
	return &Program{Name: name, inputs: append([]string(nil), inputs...)}
}

// Symbols sets the alphabet and the word embedding: embed(s) gives the
// values of input components for symbol s (an index into alphabet). The
// values are read before embed is called again, so that embed may fill
// and return one map for every symbol (a lookup's alphabet has 2N). The
// program and its model keep alphabet, which must not change after.
func (p *Program) Symbols(alphabet []string, embed func(symbol int) Values) *Program {
	p.alphabet, p.embed = alphabet, embed
	p.columns, p.embedColumns = nil, nil
	return p
}

// SymbolsOf is Symbols with the word embedding written by columns:
// embed(s, values) sets values[k], the value of component columns[k] for
// symbol s, or leaves it zero. It makes no map per symbol, which counts
// when the alphabet has thousands (the lookup's has 2N).
func (p *Program) SymbolsOf(alphabet []string, columns []string, embed func(symbol int, values []numeric.Expr)) *Program {
	p.alphabet, p.columns, p.embedColumns = alphabet, slices.Clone(columns), embed
	// Widen merges embeddings by name.
	p.embed = func(s int) Values {
		values := make([]numeric.Expr, len(p.columns))
		embed(s, values)
		out := Values{}
		for k, c := range p.columns {
			if !values[k].IsZero() {
				out[c] = values[k]
			}
		}
		return out
	}
	return p
}

// Positions sets the position embedding pe_n(i), i from 1 to n.
func (p *Program) Positions(name string, pe func(i, n int) Values) *Program {
	p.posName, p.position, p.posOfI, p.posTerms = name, pe, false, nil
	return p
}

// PositionsOfI sets a position embedding pe(i) that does not depend on
// the length n, which a model file then stores once per position.
func (p *Program) PositionsOfI(name string, pe func(i int) Values) *Program {
	p.Positions(name, func(i, _ int) Values { return pe(i) })
	p.posOfI = true
	return p
}

// Formula declares the position embedding set by Positions as a sum of
// the paper's named functions, which a model file stores instead of a
// table of pe_n(i) when the embedding depends on n, so that the file
// holds every length and takes time linear in the largest length to
// write. The two must be the same function of (i, n): model writers
// compare them at a few lengths, and a test at many, for every recipe.
func (p *Program) Formula(terms ...Term) *Program {
	p.posTerms = append([]Term(nil), terms...)
	return p
}

// Term is a term of a position formula (see model.PositionTerm): Scale
// (1 when zero) times Function, written to Components — one component,
// or the consecutive components of a one-hot or sinusoidal term.
type Term struct {
	Function    model.PositionFunction
	Components  []string
	Scale, Base numeric.Expr
}

// Pos is the term f on the given components, with scale 1.
func Pos(f model.PositionFunction, components ...string) Term {
	return Term{Function: f, Components: components}
}

// Times returns t with scale s.
func (t Term) Times(s numeric.Expr) Term {
	t.Scale = s
	return t
}

// Then appends b as the next sublayer (serial composition). Attention and
// feed-forward sublayers are packed into layers in order: an attention
// sublayer starts a layer, a feed-forward sublayer ends one.
func (p *Program) Then(blocks ...Block) *Program {
	for _, b := range blocks {
		if b != nil {
			p.stages = append(p.stages, b)
		}
	}
	return p
}

// Fork returns a copy of p named name, whose later blocks and output are
// its own: the same program up to here, continued another way (a
// softmax head's program beside the average-hard one it simulates).
func (p *Program) Fork(name string) *Program {
	out := *p
	out.Name = name
	out.stages = slices.Clip(p.stages)
	return &out
}

// Readout makes the output the values of the named components.
func (p *Program) Readout(components ...string) *Program {
	o := &outputSpec{kind: model.Readout, labels: components}
	for _, c := range components {
		o.rows = append(o.rows, Values{c: numeric.LitInt(1)})
	}
	p.output = o
	return p
}

// Sign makes the output accept (1) when Σ w_c x_c > 0.
func (p *Program) Sign(w Values) *Program {
	p.output = &outputSpec{kind: model.Sign, labels: []string{"accept"}, rows: []Values{w}}
	return p
}

// Argmax makes the output the label whose row gives the largest logit.
func (p *Program) Argmax(labels []string, rows []Values) *Program {
	p.output = &outputSpec{kind: model.Argmax, labels: labels, rows: rows}
	return p
}

// Serial returns a program running a, then b (§Composition operations,
// Serial Composition). b's inputs must be components that a's input or
// blocks set; b's embeddings and output are used where a has none.
func Serial(a, b *Program) *Program {
	out := *a
	out.Name = a.Name + "∘" + b.Name
	out.stages = append(slices.Clone(a.stages), b.stages...)
	if b.output != nil {
		out.output = b.output
	}
	return &out
}

// Widen returns the parallel composition a ⊕ b (§Composition operations,
// Parallel Composition): both read the same input string, their layers
// run side by side (the shorter padded with identity layers), and the
// stream holds both sets of components, whose names must differ. The
// alphabets must agree; embeddings and the outputs are concatenated.
func Widen(a, b *Program) (*Program, error) {
	if a.embed != nil && b.embed != nil && !slices.Equal(a.alphabet, b.alphabet) {
		return nil, fmt.Errorf("widen %s ⊕ %s: the alphabets differ", a.Name, b.Name)
	}
	for _, c := range b.inputs {
		if slices.Contains(a.inputs, c) {
			return nil, fmt.Errorf("widen %s ⊕ %s: both set component %q; rename one", a.Name, b.Name, c)
		}
	}
	out := &Program{Name: a.Name + "⊕" + b.Name, inputs: append(slices.Clone(a.inputs), b.inputs...)}
	out.alphabet = a.alphabet
	if out.alphabet == nil {
		out.alphabet = b.alphabet
	}
	if a.embed != nil || b.embed != nil {
		out.embed = func(s int) Values { return merge(call(a.embed, s), call(b.embed, s)) }
	}
	if a.position != nil || b.position != nil {
		out.posName = strings.Trim(a.posName+", "+b.posName, ", ")
		out.position = func(i, n int) Values { return merge(callPos(a.position, i, n), callPos(b.position, i, n)) }
		// Side by side, the embeddings keep what is known of them when
		// both sides know it (or have none).
		out.posOfI = (a.position == nil || a.posOfI) && (b.position == nil || b.posOfI)
		if (a.position == nil || a.posTerms != nil) && (b.position == nil || b.posTerms != nil) {
			out.posTerms = append(slices.Clone(a.posTerms), b.posTerms...)
		}
	}
	la, lb := a.layers(), b.layers()
	for l := 0; l < max(len(la), len(lb)); l++ {
		var x, y layer
		if l < len(la) {
			x = la[l]
		}
		if l < len(lb) {
			y = lb[l]
		}
		if x.attn != nil || y.attn != nil {
			out.stages = append(out.stages, Parallel(x.attn, y.attn))
		}
		if x.ff != nil || y.ff != nil {
			out.stages = append(out.stages, Parallel(x.ff, y.ff))
		}
	}
	if a.output != nil && b.output != nil {
		if a.output.kind != model.Readout || b.output.kind != model.Readout {
			return nil, fmt.Errorf("widen %s ⊕ %s: only readout outputs concatenate", a.Name, b.Name)
		}
		out.output = &outputSpec{kind: model.Readout,
			labels: append(slices.Clone(a.output.labels), b.output.labels...),
			rows:   append(slices.Clone(a.output.rows), b.output.rows...)}
	} else if a.output != nil {
		out.output = a.output
	} else {
		out.output = b.output
	}
	return out, nil
}

func call(f func(int) Values, s int) Values {
	if f == nil {
		return nil
	}
	return f(s)
}

func callPos(f func(int, int) Values, i, n int) Values {
	if f == nil {
		return nil
	}
	return f(i, n)
}

func merge(a, b Values) Values {
	out := Values{}
	for k, v := range a {
		out[k] = v
	}
	for k, v := range b {
		out[k] = v
	}
	return out
}

// layer is an attention sublayer and a feed-forward sublayer, either nil.
type layer struct{ attn, ff Block }

// layers packs the stages into transformer layers.
func (p *Program) layers() []layer {
	var ls []layer
	for _, b := range p.stages {
		if b.kind() == attnKind || len(ls) == 0 || ls[len(ls)-1].ff != nil {
			ls = append(ls, layer{})
		}
		if b.kind() == attnKind {
			ls[len(ls)-1].attn = b
		} else {
			ls[len(ls)-1].ff = b
		}
	}
	return ls
}

// Components returns the residual stream's components in their places:
// the inputs, then every written component in the order written. It
// reports the first write-once or read-before-write violation.
func (p *Program) Components() ([]string, error) {
	comps := slices.Clone(p.inputs)
	// set names what wrote each component so far ("": nothing yet).
	set := map[string]string{}
	for _, c := range p.inputs {
		if set[c] != "" {
			return nil, fmt.Errorf("%s: input component %q is declared twice", p.Name, c)
		}
		set[c] = "the input"
	}
	for s, stage := range p.stages {
		if err := p.checkStage(s, stage, set); err != nil {
			return nil, err
		}
		// The sublayer's writes are recorded only after all of its
		// blocks are checked: each sees the sublayer's input alone.
		for _, b := range stage.parts() {
			_, out, acc := blockIO(b)
			if acc {
				continue
			}
			for _, c := range out {
				set[c] = b.describe()
				comps = append(comps, c)
			}
		}
	}
	if p.output != nil {
		for _, row := range p.output.rows {
			for c := range row {
				if set[c] == "" {
					return nil, fmt.Errorf("%s: the output reads %q, which nothing writes", p.Name, c)
				}
			}
		}
	}
	return comps, nil
}

// checkStage checks sublayer s (from 0) against set, what the sublayers
// before it wrote.
func (p *Program) checkStage(s int, stage Block, set map[string]string) error {
	if k := stage.kind(); k != ffKind && k != attnKind {
		return fmt.Errorf("%s: sublayer %d mixes attention and feed-forward blocks: %s", p.Name, s+1, stage.describe())
	}
	// Every block of a sublayer sees the sublayer's input: none may
	// read what a sibling writes.
	writtenHere := map[string]Block{}
	for _, b := range stage.parts() {
		for _, c := range outputsOf(b) {
			if w, ok := writtenHere[c]; ok && w != b {
				return fmt.Errorf("%s: %s and %s both write %q", p.Name, w.describe(), b.describe(), c)
			}
			writtenHere[c] = b
		}
	}
	for _, b := range stage.parts() {
		if err := p.checkBlock(b, writtenHere, set); err != nil {
			return err
		}
	}
	return nil
}

// checkBlock checks one FF or Attn block of a sublayer: its own
// matrices, then that it reads only what the sublayers before it wrote
// and writes each component once.
func (p *Program) checkBlock(b Block, writtenHere map[string]Block, set map[string]string) error {
	if err := checkParts(b); err != nil {
		return fmt.Errorf("%s: %w", p.Name, err)
	}
	in, out, acc := blockIO(b)
	if d := duplicate(in); d != "" {
		return fmt.Errorf("%s: %s reads %q twice", p.Name, b.describe(), d)
	}
	if d := duplicate(out); d != "" {
		return fmt.Errorf("%s: %s writes %q twice", p.Name, b.describe(), d)
	}
	for _, c := range in {
		if w, ok := writtenHere[c]; ok && w != b {
			return fmt.Errorf("%s: %s reads %q, which %s writes in the same sublayer", p.Name, b.describe(), c, w.describe())
		}
		if set[c] == "" {
			return fmt.Errorf("%s: %s reads %q, which nothing before it writes", p.Name, b.describe(), c)
		}
	}
	for _, c := range out {
		if acc {
			if set[c] == "" {
				return fmt.Errorf("%s: %s adds to %q, which nothing before it writes", p.Name, b.describe(), c)
			}
			continue
		}
		if w := set[c]; w != "" {
			return fmt.Errorf("%s: %s writes %q, which %s already wrote (each component is written once)", p.Name, b.describe(), c, w)
		}
	}
	return nil
}

// checkParts is an FF or Attn block's own check.
func checkParts(b Block) error {
	switch b := b.(type) {
	case *FF:
		return b.check()
	case *Attn:
		return b.check()
	}
	return nil
}

// blockIO is what an FF or Attn block reads and writes, and whether it
// adds to what it writes rather than writing it new.
func blockIO(b Block) (in, out []string, accumulate bool) {
	switch b := b.(type) {
	case *FF:
		return b.In, b.Out, b.Accumulate
	case *Attn:
		return b.In, b.Out, b.Accumulate
	}
	return nil, nil, false
}

func outputsOf(b Block) []string {
	switch b := b.(type) {
	case *FF:
		return b.Out
	case *Attn:
		return b.Out
	}
	return nil
}

func duplicate(xs []string) string {
	seen := map[string]bool{}
	for _, x := range xs {
		if seen[x] {
			return x
		}
		seen[x] = true
	}
	return ""
}

// Model checks the program and builds its model: every component placed,
// every block routed (L∘f∘R) into its layer.
func (p *Program) Model() (*model.Model, error) {
	comps, err := p.Components()
	if err != nil {
		return nil, err
	}
	if p.output == nil {
		return nil, fmt.Errorf("%s: no output (Readout, Sign or Argmax)", p.Name)
	}
	at := map[string]int{}
	for k, c := range comps {
		at[c] = k
	}
	d := len(comps)
	m := &model.Model{Name: p.Name, D: d, Components: comps}
	// what names the vector in an error; it is a function so that the
	// name of each of thousands of symbols is written out only on an
	// error.
	// The inputs are looked up in vals, not vals ranged over: a map's
	// iteration costs more than a few lookups, and a lookup's alphabet
	// has 2N symbols.
	inputAt := make([]int, len(p.inputs))
	for k, c := range p.inputs {
		inputAt[k] = at[c]
	}
	vectorInto := func(v model.Vector, vals Values, what func() string) (model.Vector, error) {
		set := 0
		for k, c := range p.inputs {
			if x, ok := vals[c]; ok {
				v[inputAt[k]] = x
				set++
			}
		}
		if set < len(vals) {
			for c := range vals {
				if !slices.Contains(p.inputs, c) {
					return nil, fmt.Errorf("%s: %s sets %q, which is not an input component (%s)", p.Name, what(), c, strings.Join(p.inputs, ", "))
				}
			}
		}
		return v, nil
	}
	vector := func(vals Values, what func() string) (model.Vector, error) {
		return vectorInto(make(model.Vector, d), vals, what)
	}
	if p.embed != nil {
		m.Alphabet = p.alphabet
		m.WordEmbedding = make([]model.Vector, len(p.alphabet))
		// The rows in one block: one allocation, not one per symbol.
		block := make(model.Vector, len(p.alphabet)*d)
		fill, err := p.wordRows(at, vectorInto)
		if err != nil {
			return nil, err
		}
		for s := range p.alphabet {
			row := block[s*d : (s+1)*d : (s+1)*d]
			if err := fill(s, row); err != nil {
				return nil, err
			}
			m.WordEmbedding[s] = row
		}
	} else {
		// A program without symbols is run with RunStream; the model still
		// needs an alphabet, of one symbol embedded as zero.
		m.Alphabet = []string{"·"}
		m.WordEmbedding = []model.Vector{nil}
	}
	if p.position != nil {
		if _, err := vector(p.position(1, 1), func() string { return "the position embedding" }); err != nil {
			return nil, err
		}
		pe := p.position
		m.Position = &model.PositionEncoding{Name: p.posName, IndependentOfN: p.posOfI, Vector: func(i, n int) model.Vector {
			v, _ := vector(pe(i, n), func() string { return "" })
			return v
		}}
		if p.posTerms != nil {
			terms, err := p.modelTerms(at)
			if err != nil {
				return nil, err
			}
			m.Position.Terms = terms
		}
	}
	for l, ly := range p.layers() {
		var ml model.Layer
		if ly.attn != nil {
			a, norm, err := routeAttention(ly.attn, at, d)
			if err != nil {
				return nil, fmt.Errorf("%s: layer %d: %w", p.Name, l+1, err)
			}
			ml.Attention = a
			if norm != nil {
				m.Norm = model.PreNorm
				ml.AttentionNorm = norm
			}
		}
		if ly.ff != nil {
			f, norm, err := routeFeedForward(ly.ff, at, d)
			if err != nil {
				return nil, fmt.Errorf("%s: layer %d: %w", p.Name, l+1, err)
			}
			ml.FeedForward = f
			if norm != nil {
				m.Norm = model.PreNorm
				ml.FeedForwardNorm = norm
			}
		}
		m.Layers = append(m.Layers, ml)
	}
	o := p.output
	w := model.Zeros(len(o.rows), d)
	for r, row := range o.rows {
		for c, x := range row {
			w.Set(r, at[c], x)
		}
	}
	m.Output = model.Output{Kind: o.kind, W: w, Labels: o.labels}
	if err := m.Validate(); err != nil {
		return nil, fmt.Errorf("%s: assembled an invalid model (a bug in the assembler): %w", p.Name, err)
	}
	return m, nil
}

// wordRows returns the function that writes symbol s's row of the word
// embedding: through embedColumns when SymbolsOf set it (its columns
// placed once), else through embed's values and vectorInto.
func (p *Program) wordRows(at map[string]int, vectorInto func(model.Vector, Values, func() string) (model.Vector, error)) (func(s int, row model.Vector) error, error) {
	if p.embedColumns == nil {
		return func(s int, row model.Vector) error {
			_, err := vectorInto(row, p.embed(s), func() string { return fmt.Sprintf("the embedding of %q", p.alphabet[s]) })
			return err
		}, nil
	}
	place := make([]int, len(p.columns))
	for k, c := range p.columns {
		j, ok := at[c]
		if !ok || !slices.Contains(p.inputs, c) {
			return nil, fmt.Errorf("%s: the word embedding sets %q, which is not an input component (%s)", p.Name, c, strings.Join(p.inputs, ", "))
		}
		if slices.Contains(p.columns[:k], c) {
			return nil, fmt.Errorf("%s: the word embedding's columns name %q twice", p.Name, c)
		}
		place[k] = j
	}
	values := make([]numeric.Expr, len(p.columns))
	return func(s int, row model.Vector) error {
		clear(values)
		p.embedColumns(s, values)
		for k, j := range place {
			row[j] = values[k]
		}
		return nil
	}, nil
}

// modelTerms places the terms of the position formula on the stream's
// components, which must be inputs and, for a term of several, consecutive.
func (p *Program) modelTerms(at map[string]int) ([]model.PositionTerm, error) {
	var out []model.PositionTerm
	for _, t := range p.posTerms {
		if len(t.Components) == 0 {
			return nil, fmt.Errorf("%s: the position formula's term %s writes no component", p.Name, t.Function)
		}
		mt := model.PositionTerm{Function: t.Function, Component: at[t.Components[0]], Scale: t.Scale, Base: t.Base}
		if len(t.Components) > 1 || t.Function == model.PosOneHot || t.Function == model.PosSinusoidal {
			mt.Size = len(t.Components)
		}
		for k, c := range t.Components {
			if _, ok := at[c]; !ok || !slices.Contains(p.inputs, c) {
				return nil, fmt.Errorf("%s: the position formula sets %q, which is not an input component (%s)", p.Name, c, strings.Join(p.inputs, ", "))
			}
			if at[c] != mt.Component+k {
				return nil, fmt.Errorf("%s: the position formula's term %s writes %s, which are not consecutive components", p.Name, t.Function, strings.Join(t.Components, ", "))
			}
		}
		out = append(out, mt)
	}
	return out, nil
}

// routeFeedForward builds L∘ff∘R for the blocks of one sublayer, their
// hidden units concatenated, and the selective norm LN(W^N x) when the
// blocks ask for one.
func routeFeedForward(b Block, at map[string]int, d int) (*model.FeedForward, *model.LayerNorm, error) {
	var ffs []*FF
	hidden := 0
	for _, x := range b.parts() {
		f := x.(*FF)
		if len(ffs) > 0 && f.Activation != ffs[0].Activation {
			return nil, nil, fmt.Errorf("%s (%s) and %s (%s) cannot share a sublayer", ffs[0].describe(), ffs[0].Activation, f.describe(), f.Activation)
		}
		if len(ffs) > 0 && (!sameNorm(f.Norm, ffs[0].Norm) || f.Norm != nil && !slices.Equal(f.In, ffs[0].In)) {
			return nil, nil, fmt.Errorf("%s and %s cannot share a sublayer: a selective norm must be the same, over the same components, for every block", ffs[0].describe(), f.describe())
		}
		ffs = append(ffs, f)
		hidden += f.W1.Rows
	}
	first := ffs[0]
	cols := d
	col := func(f *FF, k int) int { return at[f.In[k]] }
	var norm *model.LayerNorm
	if first.Norm != nil {
		norm = selectNorm(first.Norm, first.In, at, d)
		cols = len(first.In)
		col = func(_ *FF, k int) int { return k }
	}
	out := &model.FeedForward{W1: model.Zeros(hidden, cols), B1: make(model.Vector, hidden),
		W2: model.Zeros(d, hidden), B2: make(model.Vector, d), Activation: first.Activation}
	h0 := 0
	for _, f := range ffs {
		for h := 0; h < f.W1.Rows; h++ {
			for k := range f.In {
				out.W1.Set(h0+h, col(f, k), f.W1.At(h, k))
			}
			if f.B1 != nil {
				out.B1[h0+h] = f.B1[h]
			}
			for r, c := range f.Out {
				out.W2.Set(at[c], h0+h, f.W2.At(r, h))
			}
		}
		for r, c := range f.Out {
			if f.B2 != nil {
				out.B2[at[c]] = f.B2[r]
			}
		}
		h0 += f.W1.Rows
	}
	return out, norm, nil
}

// selectNorm is the layer norm LN(W^N x) whose selection W^N picks the
// components in.
func selectNorm(n *Norm, in []string, at map[string]int, d int) *model.LayerNorm {
	sel := model.Zeros(len(in), d)
	for k, c := range in {
		sel.Set(k, at[c], numeric.LitInt(1))
	}
	return &model.LayerNorm{Eps: n.Eps, Gamma: n.Gamma, Beta: n.Beta, Select: &sel}
}

// routeAttention builds L∘sa∘R for the heads of one sublayer, and the
// selective norm LN(W^N x) when the heads ask for one.
func routeAttention(b Block, at map[string]int, d int) (*model.Attention, *model.LayerNorm, error) {
	var heads []*Attn
	for _, x := range b.parts() {
		a := x.(*Attn)
		if len(heads) > 0 && !sameHeadSettings(heads[0], a) {
			return nil, nil, fmt.Errorf("%s and %s cannot share a sublayer: mask, weighting, score scale, temperature and norm must agree", heads[0].describe(), a.describe())
		}
		heads = append(heads, a)
	}
	first := heads[0]
	out := &model.Attention{Mask: first.Mask, Weighting: first.Weighting, Scale: first.Scale, Temperature: first.Temperature}
	var norm *model.LayerNorm
	if first.Norm != nil {
		// The heads read LN(W^N x), whose rows are first.In: every head
		// must read exactly those components.
		for _, a := range heads[1:] {
			if !slices.Equal(a.In, first.In) {
				return nil, nil, fmt.Errorf("%s and %s share a selective norm but read different components", first.describe(), a.describe())
			}
		}
		norm = selectNorm(first.Norm, first.In, at, d)
	}
	for _, a := range heads {
		cols := d
		col := func(k int) int { return at[a.In[k]] }
		if norm != nil {
			cols = len(a.In)
			col = func(k int) int { return k }
		}
		h := model.Head{Q: model.Zeros(a.Q.Rows, cols), K: model.Zeros(a.K.Rows, cols), V: model.Zeros(d, cols)}
		for k := range a.In {
			for r := 0; r < a.Q.Rows; r++ {
				h.Q.Set(r, col(k), a.Q.At(r, k))
				h.K.Set(r, col(k), a.K.At(r, k))
			}
			for r, c := range a.Out {
				h.V.Set(at[c], col(k), a.V.At(r, k))
			}
		}
		out.Heads = append(out.Heads, h)
	}
	return out, norm, nil
}

// Stream returns the initial residual stream for a vector input: at each
// position, the values of the input components (absent ones are 0).
func Stream(m *model.Model, positions []map[string]*big.Rat) ([][]*big.Rat, error) {
	at := map[string]int{}
	for k, c := range m.Components {
		at[c] = k
	}
	h := make([][]*big.Rat, len(positions))
	for i, vals := range positions {
		h[i] = make([]*big.Rat, m.D)
		for k := range h[i] {
			h[i][k] = new(big.Rat)
		}
		for c, x := range vals {
			k, ok := at[c]
			if !ok {
				return nil, fmt.Errorf("position %d: no component %q in %s", i+1, c, m.Name)
			}
			h[i][k].Set(x)
		}
	}
	return h, nil
}
