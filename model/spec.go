package model

import (
	"fmt"
	"slices"

	"github.com/transformer-cookbook/verify/internal/plural"
	"github.com/transformer-cookbook/verify/numeric"
)

// Model is a transformer with exact parameters (§Transformers):
//
//	h⁽⁰⁾_i = we(x_i) + pe_n(i)
//	h⁽ℓ⁾ = tl⁽ℓ⁾(h⁽ℓ⁻¹⁾)
//	y_i = out(h⁽ᴸ⁾_i)
type Model struct {
	Name string
	// Alphabet lists the input symbols; WordEmbedding has one row of
	// length D per symbol, in the same order.
	Alphabet      []string
	WordEmbedding []Vector
	// Position is the position embedding pe_n(i) (nil for none).
	Position *PositionEncoding
	// D is the width of the residual stream; Components optionally names
	// its dimensions, for traces.
	D          int
	Components []string

	Layers []Layer
	// Norm places the layer norms of the layers: none, post-norm or
	// pre-norm. Under PreNorm, FinalNorm (if set) follows the last layer.
	Norm      NormPlacement
	FinalNorm *LayerNorm

	Output Output
}

// PositionEncoding is a position embedding that may depend on the position
// i (1-based, as in the paper) and the length n: the cookbook's encodings
// are functions like 1/i, i/n, i² and (−1)^i. Vector must return D exact
// entries.
//
// A model file cannot hold a Go function, so it holds what a writer can
// learn of one: the encoding's formula when Terms gives it and it depends
// on n (see FormulaPositions), else a table of its values, one row per
// position when it does not depend on n. Terms and IndependentOfN let a
// writer know that without sampling Vector at every (i, n), which costs
// time quadratic in the largest length.
type PositionEncoding struct {
	Name   string
	Vector func(i, n int) Vector
	// Terms, when not nil, is the same encoding as a sum of the paper's
	// named functions: Vector must equal it at every (i, n), which
	// writers check at a few lengths (and a test at many, for every
	// recipe) before they store the terms in its place.
	Terms []PositionTerm
	// IndependentOfN declares that Vector does not depend on n, so that
	// a writer samples it once per position.
	IndependentOfN bool
}

// NormPlacement says where layer norms go (§Post-Norm vs. Pre-Norm).
type NormPlacement int

const (
	NoNorm   NormPlacement = iota
	PostNorm               // y = LN(f(x) + x)
	PreNorm                // y = f(LN(x)) + x, and FinalNorm after the last layer
)

// Layer is a transformer layer: a self-attention sublayer then a
// feed-forward sublayer, each with its residual connection unless
// switched off. A nil sublayer is the zero function, so with its residual
// it is the identity.
type Layer struct {
	Attention   *Attention
	FeedForward *FeedForward
	// NoAttentionResidual and NoFeedForwardResidual switch a residual
	// connection off, for recipes that say they need none.
	NoAttentionResidual   bool
	NoFeedForwardResidual bool
	// AttentionNorm and FeedForwardNorm are the layer norms of the two
	// sublayers, placed by Model.Norm; nil means none for that sublayer.
	AttentionNorm   *LayerNorm
	FeedForwardNorm *LayerNorm
}

// Mask restricts which positions j a position i attends to.
type Mask int

const (
	NoMask       Mask = iota
	Future            // j ≤ i (causal)
	StrictFuture      // j < i; position 1 sees nothing and outputs 0
	Past              // j ≥ i
	StrictPast        // j > i; position n sees nothing and outputs 0
)

var maskNames = []string{"none", "future", "strict-future", "past", "strict-past"}

func (m Mask) String() string { return enumName(maskNames, int(m)) }

// MaskNames lists the masks' names in order, as model files spell them.
func MaskNames() []string { return slices.Clone(maskNames) }

// Allows reports whether position i may attend to position j (both
// 1-based; §Transformers: future masking lets i see j ≤ i, strict future
// masking j < i, and past masking the mirror images).
func (m Mask) Allows(i, j int) bool {
	switch m {
	case Future:
		return j <= i
	case StrictFuture:
		return j < i
	case Past:
		return j >= i
	case StrictPast:
		return j > i
	}
	return true
}

// Weighting is the attention weighting function S (§Hard Attention).
type Weighting int

const (
	Softmax        Weighting = iota // SMAT
	LeftHardmax                     // leftmost hardmax (UHAT, leftmost)
	RightHardmax                    // rightmost hardmax (UHAT, rightmost)
	AverageHardmax                  // average hardmax (AHAT)
)

var weightingNames = []string{"softmax", "lhardmax", "rhardmax", "avghardmax"}

func (w Weighting) String() string { return enumName(weightingNames, int(w)) }

// WeightingNames lists the weightings' names in order, as model files
// spell them.
func WeightingNames() []string { return slices.Clone(weightingNames) }

// ScoreScale says whether scores are divided by √d_key.
type ScoreScale int

const (
	// ScaleSqrtDKey is the paper's definition, s = q·k/√d_key.
	ScaleSqrtDKey ScoreScale = iota
	// NoScale computes s = q·k, as many constructions quote their gaps.
	NoScale
)

func (s ScoreScale) String() string { return enumName([]string{"q·k/√d_key", "q·k"}, int(s)) }

// Attention is a self-attention sublayer (Definition Self-Attention), with
// one or more heads whose outputs are summed (each head's W^V maps to the
// residual stream, which is concatenation followed by W^O).
type Attention struct {
	Heads     []Head
	Mask      Mask
	Weighting Weighting
	Scale     ScoreScale
	// Temperature τ divides every score; the zero Expr means τ = 1.
	Temperature numeric.Expr
}

// Head holds the projections of one attention head: W^Q and W^K are
// d_key×d_in, W^V is D×d_in, where d_in is D, or the height of the
// sublayer norm's selection matrix W^N.
type Head struct {
	Q, K, V Matrix
}

// Activation is the activation function of a feed-forward sublayer.
type Activation int

const (
	ReLU        Activation = iota
	GELU                   // x Φ(x) = x/2 (1 + erf(x/√2))
	GELUTanh               // x/2 (1 + tanh(√(2/π)(x + 0.044715 x³)))
	GELUSigmoid            // x σ(1.702 x)
	Linear                 // no activation (the identity)
)

var activationNames = []string{"relu", "gelu", "gelu-tanh", "gelu-sigmoid", "linear"}

func (a Activation) String() string { return enumName(activationNames, int(a)) }

// ActivationNames lists the activations' names in order, as model files
// spell them.
func ActivationNames() []string { return slices.Clone(activationNames) }

// FeedForward is a two-layer position-wise network (Definition FFN):
// ff(x) = W2 act(W1 x + b1) + b2, with W1 hidden×d_in and W2 D×hidden.
type FeedForward struct {
	W1         Matrix
	B1         Vector
	W2         Matrix
	B2         Vector
	Activation Activation
}

// LayerNorm is a layer normalisation (§Layer Normalization):
// LN(x) = (x − μ)/√(σ² + ε) ⊙ γ + β. Eps may be 0. Gamma nil means all
// ones, Beta nil all zeros. Select, when set, is the matrix W^N of
// §Layernorm hash: the sublayer sees LN(W^N x) instead of LN(x), so that
// only chosen components are normalised.
type LayerNorm struct {
	Eps    numeric.Expr
	Gamma  Vector
	Beta   Vector
	Select *Matrix
}

// Reads marks the components of a stream of width d that the norm reads:
// its selection's columns, or all of them.
func (ln *LayerNorm) Reads(d int) []bool {
	if ln.Select != nil {
		return ln.Select.ReadColumns()
	}
	all := make([]bool, d)
	for c := range all {
		all[c] = true
	}
	return all
}

// OutputKind is the unembedding (§Unembedding).
type OutputKind int

const (
	// Readout outputs the vector W h at each position (W may be any k×D).
	Readout OutputKind = iota
	// Sign outputs accept (1) when W h > 0, else reject (0); W is 1×D.
	Sign
	// Argmax outputs the label of the largest entry of W h (the leftmost
	// among ties); W is |Labels|×D.
	Argmax
	// Distribution outputs softmax(W h); W is |Labels|×D.
	Distribution
)

var outputNames = []string{"readout", "sign", "argmax", "softmax"}

func (k OutputKind) String() string { return enumName(outputNames, int(k)) }

// OutputKindNames lists the output kinds' names in order, as model files
// spell them.
func OutputKindNames() []string { return slices.Clone(outputNames) }

// Output is the unembedding function out.
type Output struct {
	Kind   OutputKind
	W      Matrix
	Labels []string // for Argmax and Distribution; names of Readout rows
}

func enumName(names []string, k int) string {
	if k >= 0 && k < len(names) {
		return names[k]
	}
	return fmt.Sprintf("invalid(%d)", k)
}

// checkName says what is wrong with a name of a component, a symbol or
// an output label: reports print them and inputs and recipes are matched
// by them, so a name is not empty and holds no control character.
func checkName(name string) error {
	if name == "" {
		return fmt.Errorf("an empty name")
	}
	for _, r := range name {
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) {
			return fmt.Errorf("the name %q holds a control character (%U)", name, r)
		}
	}
	return nil
}

// Validate checks every dimension of m and returns an error naming the
// layer and the matrix of the first mismatch.
func (m *Model) Validate() error {
	// The steps run in this order so that the error reported is the
	// first fault in reading order: the stream, then names, then layers.
	for _, step := range []func() error{
		m.checkEmbedding,
		m.checkComponentNames,
		m.checkAlphabetNames,
		m.checkOutputLabels,
		m.checkPosition,
		m.checkLayers,
		m.checkFinalNorm,
	} {
		if err := step(); err != nil {
			return err
		}
	}
	return m.Output.check(m.D)
}

// checkEmbedding checks the stream's width, the alphabet and one word
// embedding per symbol.
func (m *Model) checkEmbedding() error {
	if m.D <= 0 {
		return fmt.Errorf("model %q: the residual stream width D is %d", m.Name, m.D)
	}
	if len(m.Alphabet) == 0 {
		return fmt.Errorf("model %q: empty alphabet", m.Name)
	}
	if len(m.WordEmbedding) != len(m.Alphabet) {
		return fmt.Errorf("model %q: %d word embeddings for %d symbols", m.Name, len(m.WordEmbedding), len(m.Alphabet))
	}
	// The first fault in the alphabet's order is reported: a row of the
	// wrong width before the first repeated symbol, or that symbol.
	repeat := repeatedSymbol(m.Alphabet)
	rows := m.Alphabet
	if repeat >= 0 {
		rows = m.Alphabet[:repeat]
	}
	for s, sym := range rows {
		// The row's name is written out only on an error: one Sprintf
		// per symbol costs more than the check, with thousands of them.
		if v := m.WordEmbedding[s]; v != nil && len(v) != m.D {
			return checkVector(v, "word embedding", fmt.Sprintf("the row of %q", sym), m.D)
		}
	}
	if repeat >= 0 {
		return fmt.Errorf("model %q: symbol %q appears twice in the alphabet", m.Name, m.Alphabet[repeat])
	}
	return nil
}

// checkComponentNames checks that the components, if named, have one
// distinct, printable name each: a checked model's inputs and outputs are
// matched to a recipe's by component name, so a name must say which
// component it is.
func (m *Model) checkComponentNames() error {
	if m.Components != nil && len(m.Components) != m.D {
		return fmt.Errorf("model %q: %s for D = %d", m.Name, plural.Of(len(m.Components), "component name"), m.D)
	}
	first := map[string]int{}
	for k, name := range m.Components {
		if j, dup := first[name]; dup {
			return fmt.Errorf("model %q: components %d and %d are both named %q", m.Name, j+1, k+1, name)
		}
		if err := checkName(name); err != nil {
			return fmt.Errorf("model %q: component %d: %w", m.Name, k+1, err)
		}
		first[name] = k
	}
	return nil
}

func (m *Model) checkAlphabetNames() error {
	for s, sym := range m.Alphabet {
		if err := checkName(sym); err != nil {
			return fmt.Errorf("model %q: symbol %d of the alphabet: %w", m.Name, s+1, err)
		}
	}
	return nil
}

func (m *Model) checkOutputLabels() error {
	labels := map[string]int{}
	for k, label := range m.Output.Labels {
		if j, dup := labels[label]; dup {
			return fmt.Errorf("model %q: outputs %d and %d are both labelled %q", m.Name, j+1, k+1, label)
		}
		if err := checkName(label); err != nil {
			return fmt.Errorf("model %q: output %d's label: %w", m.Name, k+1, err)
		}
		labels[label] = k
	}
	return nil
}

// checkPosition checks the norm placement and the position encoding.
func (m *Model) checkPosition() error {
	if m.Norm < NoNorm || m.Norm > PreNorm {
		return fmt.Errorf("model %q: invalid norm placement %d", m.Name, m.Norm)
	}
	p := m.Position
	if p == nil {
		return nil
	}
	if p.Vector == nil {
		return fmt.Errorf("model %q: position encoding %q has no function", m.Name, p.Name)
	}
	if p.Terms == nil {
		return nil
	}
	if err := checkTerms(p.Terms, m.D); err != nil {
		return fmt.Errorf("model %q: position encoding %q: %w", m.Name, p.Name, err)
	}
	if p.IndependentOfN && termsDependOnN(p.Terms) {
		return fmt.Errorf("model %q: position encoding %q is declared independent of n, but its formula depends on n", m.Name, p.Name)
	}
	return nil
}

func (m *Model) checkLayers() error {
	for l, layer := range m.Layers {
		if err := m.checkLayer(fmt.Sprintf("layer %d", l+1), layer); err != nil {
			return err
		}
	}
	return nil
}

// checkLayer checks one layer's sublayers, then its norms.
func (m *Model) checkLayer(where string, layer Layer) error {
	if a := layer.Attention; a != nil {
		if err := a.check(where+" attention", m.D, InputWidth(layer.AttentionNorm, m.Norm, m.D)); err != nil {
			return err
		}
	}
	if f := layer.FeedForward; f != nil {
		if err := f.check(where+" feed-forward", m.D, InputWidth(layer.FeedForwardNorm, m.Norm, m.D)); err != nil {
			return err
		}
	}
	if err := m.checkSublayerNorm(where, "attention norm", layer.AttentionNorm); err != nil {
		return err
	}
	return m.checkSublayerNorm(where, "feed-forward norm", layer.FeedForwardNorm)
}

// checkSublayerNorm checks a layer's norm, if it has one, against the
// model's placement.
func (m *Model) checkSublayerNorm(where, name string, ln *LayerNorm) error {
	if ln == nil {
		return nil
	}
	if m.Norm == NoNorm {
		return fmt.Errorf("%s: has a %s but the model's Norm placement is none", where, name)
	}
	if ln.Select != nil && m.Norm != PreNorm {
		return fmt.Errorf("%s %s: a selection matrix W^N needs pre-norm", where, name)
	}
	return ln.check(where+" "+name, m.D)
}

func (m *Model) checkFinalNorm() error {
	if m.FinalNorm == nil {
		return nil
	}
	if m.Norm != PreNorm {
		return fmt.Errorf("model %q: a final norm needs pre-norm placement", m.Name)
	}
	if m.FinalNorm.Select != nil {
		return fmt.Errorf("final norm: a selection matrix W^N is only for sublayer norms")
	}
	return m.FinalNorm.check("final norm", m.D)
}

// InputWidth is the width of what a sublayer reads: D, or the height of its
// pre-norm selection matrix.
func InputWidth(ln *LayerNorm, placement NormPlacement, d int) int {
	if ln != nil && ln.Select != nil && placement == PreNorm {
		return ln.Select.Rows
	}
	return d
}

func (a *Attention) check(where string, d, dIn int) error {
	if len(a.Heads) == 0 {
		return fmt.Errorf("%s: no heads", where)
	}
	if a.Mask < NoMask || a.Mask > StrictPast {
		return fmt.Errorf("%s: invalid mask %d", where, a.Mask)
	}
	if a.Weighting < Softmax || a.Weighting > AverageHardmax {
		return fmt.Errorf("%s: invalid weighting %d", where, a.Weighting)
	}
	if a.Scale != ScaleSqrtDKey && a.Scale != NoScale {
		return fmt.Errorf("%s: invalid score scale %d", where, a.Scale)
	}
	for h, head := range a.Heads {
		hw := fmt.Sprintf("%s head %d", where, h+1)
		dKey := head.Q.Rows
		if dKey <= 0 {
			return fmt.Errorf("%s: W^Q has no rows (d_key = 0)", hw)
		}
		if err := head.Q.check(hw, "W^Q", dKey, dIn); err != nil {
			return err
		}
		if err := head.K.check(hw, "W^K", dKey, dIn); err != nil {
			return err
		}
		if err := head.V.check(hw, "W^V", d, dIn); err != nil {
			return err
		}
	}
	return nil
}

func (f *FeedForward) check(where string, d, dIn int) error {
	hidden := f.W1.Rows
	if hidden <= 0 {
		return fmt.Errorf("%s: W1 has no rows (no hidden units)", where)
	}
	if f.Activation < ReLU || f.Activation > Linear {
		return fmt.Errorf("%s: invalid activation %d", where, f.Activation)
	}
	if err := f.W1.check(where, "W1", hidden, dIn); err != nil {
		return err
	}
	if err := checkVector(f.B1, where, "b1", hidden); err != nil {
		return err
	}
	if err := f.W2.check(where, "W2", d, hidden); err != nil {
		return err
	}
	return checkVector(f.B2, where, "b2", d)
}

func (ln *LayerNorm) check(where string, d int) error {
	width := d
	if ln.Select != nil {
		if ln.Select.Rows <= 0 {
			return fmt.Errorf("%s: W^N has no rows", where)
		}
		if err := ln.Select.check(where, "W^N", ln.Select.Rows, d); err != nil {
			return err
		}
		width = ln.Select.Rows
	}
	if err := checkVector(ln.Gamma, where, "γ", width); err != nil {
		return err
	}
	return checkVector(ln.Beta, where, "β", width)
}

func (o *Output) check(d int) error {
	switch o.Kind {
	case Readout:
		if o.W.Rows <= 0 {
			return fmt.Errorf("output: the readout W has no rows")
		}
		if o.Labels != nil && len(o.Labels) != o.W.Rows {
			return fmt.Errorf("output: %s for %s", plural.Of(len(o.Labels), "label"), plural.Of(o.W.Rows, "readout row"))
		}
		return o.W.check("output", "W_out", o.W.Rows, d)
	case Sign:
		return o.W.check("output", "W_out", 1, d)
	case Argmax, Distribution:
		if len(o.Labels) == 0 {
			return fmt.Errorf("output: %s needs labels", o.Kind)
		}
		return o.W.check("output", "W_out", len(o.Labels), d)
	}
	return fmt.Errorf("output: invalid kind %d", o.Kind)
}
