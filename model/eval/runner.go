package eval

import (
	"math/big"

	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/numeric"
)

// Runner is an instantiated model seen without its value type: what
// callers that choose the precision at run time (the command line tool)
// use. *Instance[T] implements it.
type Runner interface {
	Run(input []int, trace bool) (*Result, error)
	RunStream(h0 [][]*big.Rat, trace bool) (*Result, error)
	Round(x *big.Rat) Value
	Precision() numeric.Precision
	// Notes lists choices the engine made for this backend (for example,
	// unscaled scores in exact mode when √d_key is irrational).
	Notes() []string
	// HeadScores and FeedForwardRows compute one sublayer's intermediate
	// values from a given input, by the forward pass's own code (see
	// parts.go).
	HeadScores(layer, head int, x [][]*big.Rat, i int) ([]int, []Value, error)
	FeedForwardRows(layer int, x []*big.Rat) (preActivation, out []Value, err error)
}

func (inst *Instance[T]) Precision() numeric.Precision { return inst.B.Precision() }
func (inst *Instance[T]) Notes() []string              { return inst.notes }

// New instantiates m at precision p. A bigfloat precision of at most
// numeric.NarrowMaxBits bits runs in float64 where its values allow, to
// the same results (narrowRunner).
func New(p numeric.Precision, m *model.Model) (Runner, error) {
	if p.Kind == numeric.KindBigFloat && p.Bits <= numeric.NarrowMaxBits {
		return newNarrowRunner(p, m)
	}
	v := &newVisitor{m: m}
	if err := numeric.Visit(p, v); err != nil {
		return nil, err
	}
	return v.r, nil
}

type newVisitor struct {
	m *model.Model
	r Runner
}

func instantiate[T any](v *newVisitor, b numeric.Backend[T]) error {
	inst, err := Instantiate(b, v.m)
	if err != nil {
		return err
	}
	v.r = inst
	return nil
}

func (v *newVisitor) Rat(b numeric.Backend[*big.Rat]) error               { return instantiate(v, b) }
func (v *newVisitor) BigFloat(b numeric.Backend[*big.Float]) error        { return instantiate(v, b) }
func (v *newVisitor) Float64(b numeric.Backend[float64]) error            { return instantiate(v, b) }
func (v *newVisitor) Float32(b numeric.Backend[float32]) error            { return instantiate(v, b) }
func (v *newVisitor) Interval(b numeric.Backend[*numeric.Interval]) error { return instantiate(v, b) }
