package positionwise

import (
	"fmt"
	"math/big"

	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/numeric"
)

// program is a position-wise model as the analysis walks it: the
// feed-forward sublayers, in order, then the readout, each parameter with
// its exact value and the value the format stores.
type program struct {
	d      int
	layers []ffLayer
	out    matrix
}

type ffLayer struct {
	w1, w2   matrix
	b1, b2   []weight // nil: none
	relu     bool     // else the activation is linear, or opaque
	residual bool
	// opaque: another activation (GELU), whose output the analysis does
	// not follow (top): boxes through it are run, never proved.
	opaque bool
	// norm is the layer's pre-norm (nil: none), index the layer's in the
	// model (the runner's numbering); lnorm.go.
	norm  *model.LayerNorm
	index int
}

type matrix struct {
	rows, cols int
	w          []weight
}

// Applicable says why the analysis cannot treat m ("" when it can): it
// treats models that compute each position on its own — feed-forward
// sublayers, pre-norms of them, and a readout of values — and nothing
// else. It follows ReLU and linear units with rational parameters; other
// activations and irrational parameters are opaque (top: their boxes are
// run, never proved).
func Applicable(m *model.Model) string {
	switch {
	case m.Position != nil:
		return "the model adds a position encoding"
	case m.FinalNorm != nil:
		return "the model ends with a layer norm"
	case m.Output.Kind != model.Readout:
		return "the model's output is not a readout of values"
	}
	for k, l := range m.Layers {
		switch {
		case l.Attention != nil:
			return fmt.Sprintf("layer %d attends: its positions are not computed on their own", k+1)
		case l.AttentionNorm != nil:
			return fmt.Sprintf("layer %d normalises its attention's input: the analysis bounds no square root there", k+1)
		case l.FeedForwardNorm != nil && m.Norm != model.PreNorm:
			return fmt.Sprintf("layer %d normalises after its sublayer: the analysis bounds no square root there", k+1)
		}
	}
	return ""
}

// compile builds m's program, each parameter rounded by round (the
// runner's own rounding of a rational: what the format stores).
func compile(m *model.Model, round func(*big.Rat) (*big.Rat, error)) (*program, error) {
	if why := Applicable(m); why != "" {
		return nil, fmt.Errorf("%s", why)
	}
	p := &program{d: m.D}
	var err error
	for k, l := range m.Layers {
		f := l.FeedForward
		if f == nil {
			continue
		}
		var L ffLayer
		where := fmt.Sprintf("layer %d", k+1)
		L.relu, L.residual = f.Activation == model.ReLU, !l.NoFeedForwardResidual
		L.norm, L.index = l.FeedForwardNorm, k
		L.opaque = f.Activation != model.ReLU && f.Activation != model.Linear
		if L.w1, err = compileMatrix(f.W1, round, where+" W1"); err != nil {
			return nil, err
		}
		if L.w2, err = compileMatrix(f.W2, round, where+" W2"); err != nil {
			return nil, err
		}
		if L.b1, err = compileVector(f.B1, f.W1.Rows, round, where+" b1"); err != nil {
			return nil, err
		}
		if L.b2, err = compileVector(f.B2, f.W2.Rows, round, where+" b2"); err != nil {
			return nil, err
		}
		p.layers = append(p.layers, L)
	}
	if p.out, err = compileMatrix(m.Output.W, round, "the readout"); err != nil {
		return nil, err
	}
	return p, nil
}

func compileParam(e numeric.Expr, round func(*big.Rat) (*big.Rat, error), where string) (weight, error) {
	r, ok, err := e.Rat()
	if err == nil && !ok {
		// An irrational parameter (√(π/2)): its values are not followed
		// (a product with it is top).
		return weight{unknown: true}, nil
	}
	if err != nil {
		return weight{}, fmt.Errorf("%s: %w", where, err)
	}
	s, err := round(r)
	if err != nil {
		return weight{}, fmt.Errorf("%s: %w", where, err)
	}
	return newWeight(r, s), nil
}

func compileMatrix(m model.Matrix, round func(*big.Rat) (*big.Rat, error), where string) (matrix, error) {
	out := matrix{rows: m.Rows, cols: m.Cols, w: make([]weight, len(m.Data))}
	for k, e := range m.Data {
		w, err := compileParam(e, round, fmt.Sprintf("%s[%d][%d]", where, k/max(m.Cols, 1)+1, k%max(m.Cols, 1)+1))
		if err != nil {
			return matrix{}, err
		}
		out.w[k] = w
	}
	return out, nil
}

func compileVector(v model.Vector, n int, round func(*big.Rat) (*big.Rat, error), where string) ([]weight, error) {
	if v == nil {
		return nil, nil
	}
	out := make([]weight, n)
	for k, e := range v {
		w, err := compileParam(e, round, fmt.Sprintf("%s[%d]", where, k+1))
		if err != nil {
			return nil, err
		}
		out[k] = w
	}
	return out, nil
}

// matVec is W x + b as the model computes it (model.Instance's matVec):
// each row's products left to right, each added to the sum so far, then
// the bias. A zero product adds nothing (0 + y = y exactly), so this is
// also the order of the backends that skip zero weights.
func (g *grid) matVec(w matrix, x []aval, b []weight) []aval {
	out := make([]aval, w.rows)
	for r := range out {
		acc := zeroVal
		for c := 0; c < w.cols; c++ {
			acc = g.add(acc, g.mul(w.w[r*w.cols+c], x[c]))
		}
		if b != nil {
			acc = g.add(acc, b[r].constant())
		}
		out[r] = acc
	}
	return out
}

// run is the program on the values of one box's inputs (the stream's
// other components 0), to the readout's values. norm is the layer norm
// rule (lnorm.go): layer j's pre-norm of the stream h, told whether every
// ReLU so far is decided in the construction (affine).
func (g *grid) run(p *program, h []aval, norm func(j int, h []aval, affine bool) []aval) []aval {
	affine := true
	for j, L := range p.layers {
		in := h
		if L.norm != nil {
			in = norm(j, h, affine)
		}
		hidden := g.matVec(L.w1, in, L.b1)
		if L.opaque && mutation != "gelu-as-linear" {
			affine = false
			for k := range hidden {
				hidden[k] = topVal
			}
		}
		if L.relu {
			for k, a := range hidden {
				if a.top || !a.zero && a.ev.lo < 0 && a.ev.hi > 0 {
					affine = false
				}
				hidden[k] = relu(a)
			}
		}
		f := g.matVec(L.w2, hidden, L.b2)
		if L.residual {
			for c := range f {
				f[c] = g.add(f[c], h[c])
			}
		}
		h = f
	}
	return g.matVec(p.out, h, nil)
}
