package stream

import (
	"fmt"
	"strings"

	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/numeric"
)

// Block is one sublayer's worth of computation over named components: an
// *FF, an *Attn, or a Parallel group of either.
type Block interface {
	kind() blockKind
	// parts lists the FF or Attn blocks the block is made of.
	parts() []Block
	describe() string
}

// FF is a feed-forward block over its own input and output spaces:
// out = W2 act(W1 in + B1) + B2, where in lists the components In and out
// the components Out. W1 is hidden×len(In), W2 is len(Out)×hidden.
//
// Out components are new unless Accumulate is set: then the block adds to
// components already set (the cancel-residual recipe of §Canceling
// Residual Connections, which sets x to 0 by adding −x).
//
// Norm, if set, is a selective pre-norm, as for Attn: the block reads the
// layer norm of its In components alone, ff(LN(W^N x)) + x. This is how a
// layer norm's output (the layernorm hash, an amplified sign) is stored
// in the stream.
type FF struct {
	Name       string
	In, Out    []string
	W1         model.Matrix
	B1         model.Vector
	W2         model.Matrix
	B2         model.Vector
	Activation model.Activation
	Accumulate bool
	Norm       *Norm
}

// Attn is an attention head over its own input space: queries W^Q in and
// keys W^K in (both d_key×len(In)), values W^V in (len(Out)×len(In)),
// written to the new components Out.
//
// Norm, if set, is the selective pre-norm LN(W^N x) of §Layernorm hash:
// the head reads the layer norm of its In components alone (W^N selects
// them), and the model gets pre-norm placement. Accumulate, as for FF,
// adds the head's output to components already set (att_zero of
// §Identity adds 0 to the input).
type Attn struct {
	Name        string
	In, Out     []string
	Q, K, V     model.Matrix
	Mask        model.Mask
	Weighting   model.Weighting
	Scale       model.ScoreScale
	Temperature numeric.Expr
	Norm        *Norm
	Accumulate  bool
}

// Norm is a selective layer norm of a block's inputs: LN(W^N x), where
// W^N picks the block's In components (§Layernorm hash).
type Norm struct {
	Eps         numeric.Expr
	Gamma, Beta model.Vector // over In; nil: ones and zeros
}

// blockKind says which sublayer a block is: a Parallel group of blocks of
// different kinds is mixed, which no sublayer can be, and an empty group
// has the kind "".
type blockKind string

const (
	ffKind    blockKind = "ff"
	attnKind  blockKind = "attn"
	mixedKind blockKind = "mixed"
)

type parallel struct {
	k      blockKind
	blocks []Block
}

func (f *FF) kind() blockKind       { return ffKind }
func (a *Attn) kind() blockKind     { return attnKind }
func (p *parallel) kind() blockKind { return p.k }
func (f *FF) parts() []Block        { return []Block{f} }
func (a *Attn) parts() []Block      { return []Block{a} }
func (p *parallel) parts() []Block  { return p.blocks }

func (f *FF) describe() string   { return fmt.Sprintf("feed-forward block %q", f.Name) }
func (a *Attn) describe() string { return fmt.Sprintf("attention block %q", a.Name) }
func (p *parallel) describe() string {
	var names []string
	for _, b := range p.blocks {
		names = append(names, b.describe())
	}
	return "parallel(" + strings.Join(names, ", ") + ")"
}

// Parallel composes blocks of one kind into one sublayer (§Composition
// operations): feed-forward blocks side by side, their hidden units
// concatenated (they must share an activation); attention blocks as the
// heads of one multi-head sublayer (they must share mask, weighting,
// score scaling, temperature and norm). Each block sees the sublayer's
// input, so none may read what another writes.
func Parallel(blocks ...Block) Block {
	p := &parallel{}
	for _, b := range blocks {
		if b == nil {
			continue
		}
		if p.k == "" {
			p.k = b.kind()
		}
		if b.kind() != p.k {
			p.k = mixedKind
		}
		p.blocks = append(p.blocks, b.parts()...)
	}
	return p
}

func (f *FF) reads() []string   { return f.In }
func (a *Attn) reads() []string { return a.In }

// check validates the block's own shapes.
func (f *FF) check() error {
	if len(f.In) == 0 || len(f.Out) == 0 {
		return fmt.Errorf("%s: needs input and output components", f.describe())
	}
	hidden := f.W1.Rows
	if err := shape(f.W1, hidden, len(f.In)); err != nil {
		return fmt.Errorf("%s: W1 %w", f.describe(), err)
	}
	if err := shape(f.W2, len(f.Out), hidden); err != nil {
		return fmt.Errorf("%s: W2 %w", f.describe(), err)
	}
	if f.B1 != nil && len(f.B1) != hidden {
		return fmt.Errorf("%s: b1 has length %d, want %d", f.describe(), len(f.B1), hidden)
	}
	if f.B2 != nil && len(f.B2) != len(f.Out) {
		return fmt.Errorf("%s: b2 has length %d, want %d", f.describe(), len(f.B2), len(f.Out))
	}
	return f.Norm.check(f.describe(), len(f.In))
}

func (n *Norm) check(what string, width int) error {
	if n != nil && (n.Gamma != nil && len(n.Gamma) != width || n.Beta != nil && len(n.Beta) != width) {
		return fmt.Errorf("%s: the norm's γ and β must have one entry per input component (%d)", what, width)
	}
	return nil
}

// sameNorm reports whether two blocks' norms can be one sublayer's.
func sameNorm(a, b *Norm) bool {
	if (a == nil) != (b == nil) {
		return false
	}
	return a == nil || a.Eps.String() == b.Eps.String() && vectorString(a.Gamma) == vectorString(b.Gamma) && vectorString(a.Beta) == vectorString(b.Beta)
}

func vectorString(v model.Vector) string {
	if v == nil {
		return "nil"
	}
	return fmt.Sprint([]numeric.Expr(v))
}

func (a *Attn) check() error {
	if len(a.In) == 0 || len(a.Out) == 0 {
		return fmt.Errorf("%s: needs input and output components", a.describe())
	}
	if a.Q.Rows == 0 {
		return fmt.Errorf("%s: W^Q has no rows", a.describe())
	}
	if err := shape(a.Q, a.Q.Rows, len(a.In)); err != nil {
		return fmt.Errorf("%s: W^Q %w", a.describe(), err)
	}
	if err := shape(a.K, a.Q.Rows, len(a.In)); err != nil {
		return fmt.Errorf("%s: W^K %w", a.describe(), err)
	}
	if err := shape(a.V, len(a.Out), len(a.In)); err != nil {
		return fmt.Errorf("%s: W^V %w", a.describe(), err)
	}
	return a.Norm.check(a.describe(), len(a.In))
}

func shape(m model.Matrix, rows, cols int) error {
	if len(m.Data) != m.Rows*m.Cols {
		return fmt.Errorf("has %d entries for a %d×%d shape", len(m.Data), m.Rows, m.Cols)
	}
	if m.Rows != rows || m.Cols != cols {
		return fmt.Errorf("is %d×%d, want %d×%d", m.Rows, m.Cols, rows, cols)
	}
	return nil
}

// sameHeadSettings reports whether two heads can share a sublayer.
func sameHeadSettings(a, b *Attn) bool {
	if a.Mask != b.Mask || a.Weighting != b.Weighting || a.Scale != b.Scale ||
		a.Temperature.String() != b.Temperature.String() {
		return false
	}
	return sameNorm(a.Norm, b.Norm)
}

// Parts returns the FF or Attn blocks a block is made of: itself, or the
// members of a Parallel group.
func Parts(b Block) []Block { return b.parts() }
