package eval

import (
	"fmt"
	"math/big"

	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/numeric"
)

// feedForward computes W2 act(W1 x + b1) + b2 at one position.
func (inst *Instance[T]) feedForward(p *ffParams[T], x []T) ([]T, error) {
	return inst.feedForwardSeen(p, x, nil)
}

// feedForwardSeen is feedForward, showing W1 x + b1 to seen (when set)
// before the activation replaces it.
func (inst *Instance[T]) feedForwardSeen(p *ffParams[T], x []T, seen func(preActivation []T)) ([]T, error) {
	hidden := inst.matVec(p.w1, x, p.b1)
	if seen != nil {
		seen(hidden)
	}
	for k, z := range hidden {
		a, err := inst.activate(p, z)
		if err != nil {
			return nil, fmt.Errorf("%s of hidden unit %d: %w", p.act, k+1, err)
		}
		hidden[k] = a
	}
	return inst.matVec(p.w2, hidden, p.b2), nil
}

// activate applies the activation to one value, in the order of
// operations stated in the package documentation.
func (inst *Instance[T]) activate(p *ffParams[T], x T) (T, error) {
	b := inst.B
	switch p.act {
	case model.ReLU:
		return b.Max(b.New(), b.New(), x), nil
	case model.Linear:
		return x, nil
	case model.GELU:
		// x/2 · (1 + erf(x · 1/√2))
		t := b.Mul(b.New(), x, p.c1)
		e, err := b.Erf(t, t)
		if err != nil {
			return x, err
		}
		return halfTimes(b, x, b.Add(e, e, b.SetInt64(b.New(), 1))), nil
	case model.GELUTanh:
		// x/2 · (1 + tanh(√(2/π) · (x + 0.044715 · x³)))
		x3 := b.Mul(b.New(), x, x)
		x3 = b.Mul(x3, x3, x)
		inner := b.Add(b.New(), x, b.Mul(b.New(), p.c2, x3))
		t := b.Mul(b.New(), p.c1, inner)
		th, err := b.Tanh(t, t)
		if err != nil {
			return x, err
		}
		return halfTimes(b, x, b.Add(th, th, b.SetInt64(b.New(), 1))), nil
	case model.GELUSigmoid:
		// x / (1 + exp(−1.702 · x))
		t := b.Neg(b.New(), b.Mul(b.New(), p.c1, x))
		e, err := b.Exp(t, t)
		if err != nil {
			return x, err
		}
		return b.Div(b.New(), x, b.Add(e, e, b.SetInt64(b.New(), 1)))
	}
	return x, fmt.Errorf("unknown activation %d", p.act)
}

// halfTimes returns (x/2)·y: halving is exact in binary formats (barring
// underflow), so x/2 is computed first, as torch does 0.5 * x * (...).
func halfTimes[T any](b numeric.Backend[T], x, y T) T {
	half := b.SetRat(b.New(), big.NewRat(1, 2))
	return b.Mul(b.New(), b.Mul(b.New(), half, x), y)
}

// layerNorm computes (x − μ)/√(σ² + ε) ⊙ γ + β, after W^N when the norm
// selects components.
func (inst *Instance[T]) layerNorm(p *normParams[T], x []T) ([]T, error) {
	b := inst.B
	if p.sel != nil {
		x = inst.matVec(*p.sel, x, nil)
	}
	d := b.SetInt64(b.New(), int64(len(x)))
	sum := b.Set(b.New(), x[0])
	for _, v := range x[1:] {
		sum = b.Add(sum, sum, v)
	}
	mu, err := b.Div(b.New(), sum, d)
	if err != nil {
		return nil, err
	}
	centred := make([]T, len(x))
	var sq T
	for k, v := range x {
		centred[k] = b.Sub(b.New(), v, mu)
		t := b.Mul(b.New(), centred[k], centred[k])
		if k == 0 {
			sq = t
		} else {
			sq = b.Add(sq, sq, t)
		}
	}
	variance, err := b.Div(b.New(), sq, d)
	if err != nil {
		return nil, err
	}
	den, err := b.Sqrt(b.New(), b.Add(b.New(), variance, p.eps))
	if err != nil {
		return nil, fmt.Errorf("layer norm √(σ² + ε): %w", err)
	}
	out := make([]T, len(x))
	for k := range x {
		y, err := b.Div(b.New(), centred[k], den)
		if err != nil {
			return nil, fmt.Errorf("layer norm: σ² + ε = 0 (a constant vector with ε = 0): %w", err)
		}
		if p.gamma != nil {
			y = b.Mul(y, y, p.gamma[k])
		}
		if p.beta != nil {
			y = b.Add(y, y, p.beta[k])
		}
		out[k] = y
	}
	return out, nil
}
