package eval

import (
	"fmt"
	"math/big"

	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/numeric"
)

// Instance is a Model instantiated at one backend: every parameter rounded
// once to the backend's format (as a low-precision model is stored), and
// ready to Run. An Instance is safe for concurrent use by several
// goroutines: Run does not modify it, except for a guarded cache of
// position embeddings and the word embedding's rows of literals, which
// are rounded when a run first reads them. The Model must not change
// while an Instance of it is in use.
type Instance[T any] struct {
	Model *model.Model
	B     numeric.Backend[T]
	// notes records choices the engine made for this backend, such as
	// comparing unscaled scores in exact mode when √d_key is irrational.
	notes []string

	we        *wordEmbedding[T]
	layers    []layerParams[T]
	finalNorm *normParams[T]
	out       mat[T]
	pos       *posCache[T]
	// generic turns off the machine-float and machine-word paths of hard
	// attention (for the tests that compare the paths).
	generic bool
	// exact says B is numeric.Exact (and T is *big.Rat): dot products,
	// matrix rows and hard attention then take the machine-word paths.
	exact bool
}

// mat is a matrix of backend values, row-major. nz, when set, lists each
// row's nonzero columns: in exact and bigfloat arithmetic, where 0·x = 0
// for every value x and adding 0 changes nothing, matVec skips the zero
// weights, which are most of a routed matrix's. The IEEE formats keep
// every term, since 0·∞ is NaN there, as in PyTorch.
type mat[T any] struct {
	rows, cols int
	data       []T
	nz         [][]int
}

type layerParams[T any] struct {
	attn         *attnParams[T]
	ff           *ffParams[T]
	attnNorm     *normParams[T]
	ffNorm       *normParams[T]
	attnResidual bool
	ffResidual   bool
}

type attnParams[T any] struct {
	spec  *model.Attention
	heads []headParams[T]
	// temp is τ, or nil for τ = 1.
	temp *T
}

type headParams[T any] struct {
	q, k, v mat[T]
	// sqrtDKey divides the scores, or is nil when they are not scaled.
	sqrtDKey *T
}

type ffParams[T any] struct {
	w1, w2 mat[T]
	b1, b2 []T
	act    model.Activation
	// Constants of the activation, rounded once: 1/√2 for GELU; √(2/π)
	// and 0.044715 for GELUTanh; 1.702 for GELUSigmoid.
	c1, c2 T
}

type normParams[T any] struct {
	eps         T
	gamma, beta []T // nil: ones and zeros
	sel         *mat[T]
}

// instantiator rounds exact parameters to a backend and keeps the first
// error.
type instantiator[T any] struct {
	b   numeric.Backend[T]
	err error
}

func (in *instantiator[T]) expr(e numeric.Expr, where string) T {
	return in.entry(e, where, -1, -1)
}

// entry is expr for entry [r][c] of a matrix, or [r] of a vector (c < 0):
// its place is printed only when there is an error to report, not for
// every weight of a model.
func (in *instantiator[T]) entry(e numeric.Expr, where string, r, c int) T {
	v, err := in.b.Eval(in.b.New(), e)
	if err != nil && in.err == nil {
		switch {
		case r < 0:
			in.err = fmt.Errorf("%s: %w", where, err)
		case c < 0:
			in.err = fmt.Errorf("%s[%d] = %v: %w", where, r+1, e, err)
		default:
			in.err = fmt.Errorf("%s[%d][%d] = %v: %w", where, r+1, c+1, e, err)
		}
	}
	return v
}

func (in *instantiator[T]) matrix(m model.Matrix, where string) mat[T] {
	out := mat[T]{rows: m.Rows, cols: m.Cols, data: make([]T, len(m.Data))}
	for k, e := range m.Data {
		out.data[k] = in.entry(e, where, k/m.Cols, k%m.Cols)
	}
	if kind := in.b.Precision().Kind; kind == numeric.KindExact || kind == numeric.KindBigFloat {
		out.nz = make([][]int, m.Rows)
		for r := 0; r < m.Rows; r++ {
			for c := 0; c < m.Cols; c++ {
				if in.err == nil && in.b.Sign(out.data[r*m.Cols+c]) != numeric.Equal {
					out.nz[r] = append(out.nz[r], c)
				}
			}
		}
	}
	return out
}

func (in *instantiator[T]) vector(v model.Vector, where string) []T {
	if v == nil {
		return nil
	}
	return in.vectorInto(make([]T, len(v)), v, where)
}

// vectorInto is vector into out, which has v's length.
func (in *instantiator[T]) vectorInto(out []T, v model.Vector, where string) []T {
	for k, e := range v {
		out[k] = in.entry(e, where, k, -1)
	}
	return out
}

func (in *instantiator[T]) norm(ln *model.LayerNorm, where string) *normParams[T] {
	if ln == nil {
		return nil
	}
	p := &normParams[T]{
		eps:   in.expr(ln.Eps, where+" ε"),
		gamma: in.vector(ln.Gamma, where+" γ"),
		beta:  in.vector(ln.Beta, where+" β"),
	}
	if ln.Select != nil {
		s := in.matrix(*ln.Select, where+" W^N")
		p.sel = &s
	}
	return p
}

// Instantiate validates m and rounds its parameters once to b's format.
// Parameters that b cannot represent (an irrational constant in exact
// mode) are an error naming the parameter.
func Instantiate[T any](b numeric.Backend[T], m *model.Model) (*Instance[T], error) {
	if err := m.Validate(); err != nil {
		return nil, err
	}
	in := &instantiator[T]{b: b}
	inst := &Instance[T]{Model: m, B: b, pos: newPosCache[T]()}
	_, inst.exact = any(b).(numeric.Exact)
	inst.we = newWordEmbedding(b, m, in)
	for l, layer := range m.Layers {
		where := fmt.Sprintf("layer %d", l+1)
		lp := layerParams[T]{
			attnResidual: !layer.NoAttentionResidual,
			ffResidual:   !layer.NoFeedForwardResidual,
		}
		if m.Norm != model.NoNorm {
			lp.attnNorm = in.norm(layer.AttentionNorm, where+" attention norm")
			lp.ffNorm = in.norm(layer.FeedForwardNorm, where+" feed-forward norm")
		}
		if a := layer.Attention; a != nil {
			lp.attn = inst.attentionParams(in, a, where+" attention")
		}
		if f := layer.FeedForward; f != nil {
			lp.ff = inst.feedForwardParams(in, f, where+" feed-forward")
		}
		inst.layers = append(inst.layers, lp)
	}
	if m.Norm == model.PreNorm {
		inst.finalNorm = in.norm(m.FinalNorm, "final norm")
	}
	inst.out = in.matrix(m.Output.W, "output W_out")
	if in.err != nil {
		return nil, in.err
	}
	return inst, nil
}

func (inst *Instance[T]) attentionParams(in *instantiator[T], a *model.Attention, where string) *attnParams[T] {
	b := inst.B
	p := &attnParams[T]{spec: a}
	if !a.Temperature.IsZero() {
		t := in.expr(a.Temperature, where+" temperature τ")
		if in.err == nil && b.Sign(t) != numeric.Greater {
			in.err = fmt.Errorf("%s: temperature τ = %v must be positive", where, a.Temperature)
		}
		p.temp = &t
	}
	for h, head := range a.Heads {
		hw := fmt.Sprintf("%s head %d", where, h+1)
		hp := headParams[T]{
			q: in.matrix(head.Q, hw+" W^Q"),
			k: in.matrix(head.K, hw+" W^K"),
			v: in.matrix(head.V, hw+" W^V"),
		}
		if a.Scale == model.ScaleSqrtDKey && head.Q.Rows != 1 {
			d := b.SetInt64(b.New(), int64(head.Q.Rows))
			s, err := b.Sqrt(b.New(), d)
			if err != nil {
				// Only Exact fails, and only for a d_key that is not a
				// square. A positive factor changes no maximum and no tie,
				// and softmax in Exact can only take exp(0) = 1, where the
				// factor does not matter either: so unscaled scores give
				// the exact result whenever there is one.
				inst.notes = append(inst.notes, fmt.Sprintf("%s: √%d is irrational, so exact mode compares the unscaled scores q·k (the same maxima and ties)", hw, head.Q.Rows))
			} else {
				hp.sqrtDKey = &s
			}
		}
		p.heads = append(p.heads, hp)
	}
	return p
}

func (inst *Instance[T]) feedForwardParams(in *instantiator[T], f *model.FeedForward, where string) *ffParams[T] {
	p := &ffParams[T]{
		w1:  in.matrix(f.W1, where+" W1"),
		b1:  in.vector(f.B1, where+" b1"),
		w2:  in.matrix(f.W2, where+" W2"),
		b2:  in.vector(f.B2, where+" b2"),
		act: f.Activation,
	}
	switch f.Activation {
	case model.GELU:
		p.c1 = in.expr(numeric.Quo(numeric.LitInt(1), numeric.Sqrt(numeric.LitInt(2))), where+" GELU constant 1/√2")
	case model.GELUTanh:
		p.c1 = in.expr(numeric.Sqrt(numeric.Quo(numeric.LitInt(2), numeric.Pi())), where+" GELU constant √(2/π)")
		p.c2 = in.expr(numeric.Lit(big.NewRat(44715, 1000000)), where+" GELU constant 0.044715")
	case model.GELUSigmoid:
		p.c1 = in.expr(numeric.Lit(big.NewRat(1702, 1000)), where+" GELU constant 1.702")
	}
	return p
}

func zeros[T any](b numeric.Backend[T], n int) []T {
	v := make([]T, n)
	if _, ok := any(b).(numeric.Exact); ok {
		// The n rationals in one allocation, not n: a forward pass makes
		// a vector of them per position and matrix.
		block := make([]big.Rat, n)
		for i := range v {
			v[i] = any(&block[i]).(T)
		}
		return v
	}
	for i := range v {
		v[i] = b.New()
	}
	return v
}
