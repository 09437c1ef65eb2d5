package proofs

import (
	"fmt"
	"math/big"

	"github.com/transformer-cookbook/verify/exact"
	"github.com/transformer-cookbook/verify/exact/cpwl"
	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/numeric"
)

// FFNFromModel converts a ReLU feed-forward sublayer of the engine's model
// to the FFN of the decision procedure (exact/cpwl), which knows nothing
// of models. Every parameter must be rational (numeric.Expr.Rat); the
// activation must be ReLU.
func FFNFromModel(ff *model.FeedForward) (*cpwl.FFN, error) {
	if ff == nil {
		return nil, fmt.Errorf("nil feed-forward layer")
	}
	if ff.Activation != model.ReLU {
		return nil, fmt.Errorf("the activation is %v; only ReLU networks are CPWL", ff.Activation)
	}
	w1, err := modelRatMatrix("W1", ff.W1)
	if err != nil {
		return nil, err
	}
	w2, err := modelRatMatrix("W2", ff.W2)
	if err != nil {
		return nil, err
	}
	b1, err := modelRatVector("b1", ff.B1)
	if err != nil {
		return nil, err
	}
	b2, err := modelRatVector("b2", ff.B2)
	if err != nil {
		return nil, err
	}
	f := &cpwl.FFN{W1: w1, B1: b1, W2: w2, B2: b2}
	return f, f.Validate()
}

func modelRatMatrix(name string, m model.Matrix) (exact.Matrix, error) {
	if len(m.Data) != m.Rows*m.Cols {
		return exact.Matrix{}, fmt.Errorf("%s has %d entries for %d×%d", name, len(m.Data), m.Rows, m.Cols)
	}
	out := exact.Matrix{Rows: m.Rows, Cols: m.Cols, Data: make([]*big.Rat, len(m.Data))}
	for k, e := range m.Data {
		r, err := modelRatOf(e)
		if err != nil {
			return exact.Matrix{}, fmt.Errorf("%s[%d][%d]: %w", name, k/max(m.Cols, 1), k%max(m.Cols, 1), err)
		}
		out.Data[k] = r
	}
	return out, nil
}

func modelRatVector(name string, v model.Vector) (exact.Vector, error) {
	if v == nil {
		return nil, nil
	}
	out := make(exact.Vector, len(v))
	for i, e := range v {
		r, err := modelRatOf(e)
		if err != nil {
			return nil, fmt.Errorf("%s[%d]: %w", name, i, err)
		}
		out[i] = r
	}
	return out, nil
}

func modelRatOf(e numeric.Expr) (*big.Rat, error) {
	r, ok, err := e.Rat()
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, fmt.Errorf("%v is not rational; the decision procedure is exact", e)
	}
	return r, nil
}
