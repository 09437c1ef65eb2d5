package eval

import (
	"fmt"
	"math/big"
)

// The intermediate values of one sublayer, computed from a given input by
// the forward pass's own code. An explanation of a run that replays part
// of it (package diagnose names every rounding on the way to a score) is
// checked against these, so that it never describes a computation the
// model does not do.

// HeadScores returns what head head (0-based) of layer layer's attention
// computes at query position i (0-based) from x, the sublayer's input
// (one vector per position, each entry a value the backend holds): the
// positions the mask lets i attend to, in increasing order, and their
// scores q_i·k_j (divided by √d_key and by τ where the model says so).
// The query, the keys and the scores come from the same functions as in
// Run, in the same order of operations.
func (inst *Instance[T]) HeadScores(layer, head int, x [][]*big.Rat, i int) ([]int, []Value, error) {
	if layer < 0 || layer >= len(inst.layers) || inst.layers[layer].attn == nil {
		return nil, nil, fmt.Errorf("layer %d has no attention sublayer", layer+1)
	}
	a := inst.layers[layer].attn
	if head < 0 || head >= len(a.heads) {
		return nil, nil, fmt.Errorf("layer %d has %d heads, not a head %d", layer+1, len(a.heads), head+1)
	}
	if i < 0 || i >= len(x) {
		return nil, nil, fmt.Errorf("query position %d outside the input's 1 … %d", i+1, len(x))
	}
	hp := &a.heads[head]
	xs, err := inst.backendVectors(x, hp.k.cols)
	if err != nil {
		return nil, nil, err
	}
	b := inst.B
	keys := make([][]T, len(xs))
	for j := range xs {
		keys[j] = inst.matVec(hp.k, xs[j], nil)
	}
	q := inst.matVec(hp.q, xs[i], nil)
	sc := &attnScratch[T]{js: make([]int, 0, len(xs)), scores: zeros(b, len(xs)), t: b.New(), finite: make([]bool, len(xs))}
	js, scores, err := inst.scores(a, hp, q, keys, i, sc)
	if err != nil {
		return nil, nil, err
	}
	out := make([]Value, len(scores))
	for k, s := range scores {
		out[k] = ValueOf(b, s)
	}
	return append([]int(nil), js...), out, nil
}

// FeedForwardRows returns what layer layer's feed-forward sublayer
// computes at one position from its input x (each entry a value the
// backend holds): W1 x + b1 before the activation, and the sublayer's
// output W2 act(W1 x + b1) + b2, by the code Run uses.
func (inst *Instance[T]) FeedForwardRows(layer int, x []*big.Rat) (preActivation, out []Value, err error) {
	if layer < 0 || layer >= len(inst.layers) || inst.layers[layer].ff == nil {
		return nil, nil, fmt.Errorf("layer %d has no feed-forward sublayer", layer+1)
	}
	p := inst.layers[layer].ff
	xs, err := inst.backendVectors([][]*big.Rat{x}, p.w1.cols)
	if err != nil {
		return nil, nil, err
	}
	b := inst.B
	y, err := inst.feedForwardSeen(p, xs[0], func(z []T) {
		preActivation = make([]Value, len(z))
		for k, v := range z {
			preActivation[k] = ValueOf(b, v)
		}
	})
	if err != nil {
		return nil, nil, err
	}
	out = make([]Value, len(y))
	for k, v := range y {
		out[k] = ValueOf(b, v)
	}
	return preActivation, out, nil
}

// backendVectors converts vectors of width d to the backend (exactly,
// for values it holds).
func (inst *Instance[T]) backendVectors(x [][]*big.Rat, d int) ([][]T, error) {
	b := inst.B
	out := make([][]T, len(x))
	for j, row := range x {
		if len(row) != d {
			return nil, fmt.Errorf("position %d has %d components, the sublayer reads %d", j+1, len(row), d)
		}
		out[j] = make([]T, d)
		for c, v := range row {
			if v == nil {
				return nil, fmt.Errorf("position %d, component %d has no value", j+1, c+1)
			}
			out[j][c] = b.SetRat(b.New(), v)
		}
	}
	return out, nil
}
