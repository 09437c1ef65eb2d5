package certify

import (
	"fmt"
	"math/big"

	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/model/eval"
)

// vecPair is one projection of a state, in both models (rid: the id of
// r among the reference's projections of its matrix).
type vecPair[T any] struct {
	rid int
	pair[T]
}

// project3 computes every head's query, key and value of state s.
func (a *analysis[T]) project3(l int, s *state[T]) (qs, ks, vs []vecPair[T], why string) {
	xr, xm, why := a.inputs(l, s)
	if why != "" {
		return nil, nil, nil, why
	}
	heads := len(a.checked.Steps().Attention(l).Heads)
	qs, ks, vs = make([]vecPair[T], heads), make([]vecPair[T], heads), make([]vecPair[T], heads)
	for hd := 0; hd < heads; hd++ {
		for p, dst := range [][]vecPair[T]{qs, ks, vs} {
			if dst[hd], why = a.headVector(l, hd, eval.Projection(p), xr, xm); why != "" {
				return nil, nil, nil, why
			}
		}
	}
	return qs, ks, vs, ""
}

// inputs is what layer l's attention reads of state s, in both models.
func (a *analysis[T]) inputs(l int, s *state[T]) ([]*big.Rat, []T, string) {
	xr, err := a.ref.Steps().SublayerInput(l, true, s.ref)
	if err != nil {
		return nil, nil, fmt.Sprintf("layer %d attention's norm in the reference: %v", l+1, err)
	}
	xm, err := a.checked.Steps().SublayerInput(l, true, s.checked)
	if err != nil {
		return nil, nil, fmt.Sprintf("layer %d attention's norm in the model: %v", l+1, err)
	}
	return xr, xm, ""
}

// headVector is head hd's query, key or value (p) of the sublayer inputs
// xr and xm, with the id of its reference vector: the reference's
// projections are exact, so they depend only on the columns their matrix
// reads, and are computed once per distinct value of those (the lookup's
// queries depend on q alone, its keys on j alone).
func (a *analysis[T]) headVector(l, hd int, p eval.Projection, xr []*big.Rat, xm []T) (vecPair[T], string) {
	// The model's projection is computed whole, each weight a
	// multiply-add in the machine's arithmetic (a unit is about sixteen
	// of those).
	w := projectionOf(a.checked.Steps().Attention(l).Heads[hd], p)
	if why := a.charge(len(w.Data) / 16); why != "" {
		return vecPair[T]{}, why
	}
	var v vecPair[T]
	c := a.projCache(l, hd, p)
	v.rid, v.ref = c.get(xr, func() []*big.Rat { return a.ref.Steps().HeadProjection(l, hd, p, xr) })
	v.checked = a.checked.Steps().HeadProjection(l, hd, p, xm)
	return v, ""
}

// projections caches the reference's projections of one matrix by the
// values of the columns it reads.
type projections struct {
	cols []int
	ids  map[string]int
	vecs [][]*big.Rat
}

func (c *projections) get(x []*big.Rat, compute func() []*big.Rat) (int, []*big.Rat) {
	var buf []byte
	for _, col := range c.cols {
		buf = appendRats(buf, x[col:col+1])
	}
	if id, ok := c.ids[string(buf)]; ok {
		return id, c.vecs[id]
	}
	v := compute()
	c.ids[string(buf)] = len(c.vecs)
	c.vecs = append(c.vecs, v)
	return len(c.vecs) - 1, v
}

// projCache is the cache of head hd of layer l's matrix p.
func (a *analysis[T]) projCache(l, hd int, p eval.Projection) *projections {
	key := [3]int{l, hd, int(p)}
	if c, ok := a.proj[key]; ok {
		return c
	}
	w := projectionOf(a.ref.Model.Layers[l].Attention.Heads[hd], p)
	c := &projections{ids: map[string]int{}}
	for col, on := range w.ReadColumns() {
		if on {
			c.cols = append(c.cols, col)
		}
	}
	a.proj[key] = c
	return c
}

// projectionOf is head h's W^Q, W^K or W^V.
func projectionOf(h model.Head, p eval.Projection) model.Matrix {
	switch p {
	case eval.KeyProjection:
		return h.K
	case eval.ValueProjection:
		return h.V
	}
	return h.Q
}
