package eval

import (
	"errors"
	"fmt"
	"math/big"
	"sync"

	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/numeric"
)

// Result is what Run returns: an output per position, and the trace of
// the residual stream when it was asked for.
type Result struct {
	Outputs []PositionOutput
	Trace   *Trace
}

// PositionOutput is the unembedding at one position. For Sign and Argmax,
// Symbol is the decision ("1"/"0", or a label) and Values the logits W h;
// for Readout and Distribution, Values is the output vector.
type PositionOutput struct {
	Symbol string
	Values []Value
}

// ErrComparisonUndecided is wrapped by errors from comparisons that the backend
// cannot decide: overlapping intervals in the interval backend.
var ErrComparisonUndecided = errors.New("comparison undecided in this backend")

// Run computes the transformer on the input symbols (indices into
// m.Alphabet). With trace set, the Result holds the residual stream after
// every sublayer.
func (inst *Instance[T]) Run(input []int, trace bool) (*Result, error) {
	m, b := inst.Model, inst.B
	n := len(input)
	if n == 0 {
		return nil, fmt.Errorf("empty input: a transformer maps non-empty strings")
	}
	for i, s := range input {
		if s < 0 || s >= len(m.Alphabet) {
			return nil, fmt.Errorf("input position %d: symbol index %d outside the alphabet of %d symbols", i+1, s, len(m.Alphabet))
		}
	}
	pe, err := inst.positions(n)
	if err != nil {
		return nil, err
	}
	h := make([][]T, n)
	for i, s := range input {
		h[i] = make([]T, m.D)
		we := inst.we.row(s)
		for c := range h[i] {
			h[i][c] = b.Set(b.New(), we[c])
			if pe != nil {
				h[i][c] = b.Add(h[i][c], h[i][c], pe[i][c])
			}
		}
	}
	return inst.forward(h, "embedding", trace)
}

// RunStream computes the layers and the unembedding from a given initial
// residual stream h0 (one exact vector of width D per position) instead of
// the embeddings: how recipes whose input is a real vector, such as the
// feed-forward ones, are run. Each entry is rounded once to the format, as
// an input to a real model is; Round tells what it becomes.
func (inst *Instance[T]) RunStream(h0 [][]*big.Rat, trace bool) (*Result, error) {
	m, b := inst.Model, inst.B
	if len(h0) == 0 {
		return nil, fmt.Errorf("empty input: a transformer maps non-empty strings")
	}
	h := make([][]T, len(h0))
	for i, row := range h0 {
		if len(row) != m.D {
			return nil, fmt.Errorf("input position %d: %d values for a residual stream of width %d", i+1, len(row), m.D)
		}
		h[i] = make([]T, m.D)
		for c, x := range row {
			if x == nil {
				x = new(big.Rat)
			}
			h[i][c] = b.SetRat(b.New(), x)
		}
	}
	return inst.forward(h, "input", trace)
}

// Round returns the value x takes in the instance's format.
func (inst *Instance[T]) Round(x *big.Rat) Value {
	return ValueOf(inst.B, inst.B.SetRat(inst.B.New(), x))
}

// forward applies the layers, the final norm and the unembedding to the
// initial residual stream h, labelled first in the trace.
func (inst *Instance[T]) forward(h [][]T, first string, trace bool) (*Result, error) {
	m, b := inst.Model, inst.B
	var err error
	res := &Result{}
	if trace {
		res.Trace = &Trace{Components: m.ComponentNames()}
		addState(res.Trace, b, first, h)
	}
	for l := range inst.layers {
		lp := &inst.layers[l]
		where := fmt.Sprintf("layer %d", l+1)
		if lp.attn != nil || lp.attnNorm != nil {
			h, err = inst.sublayer(h, lp.attnNorm, lp.attnResidual, func(x [][]T) ([][]T, error) {
				if lp.attn == nil {
					return nil, nil
				}
				return inst.attend(lp.attn, x, where+" attention")
			})
			if err != nil {
				return nil, err
			}
			if trace {
				addState(res.Trace, b, where+" attention", h)
			}
		}
		if lp.ff != nil || lp.ffNorm != nil {
			h, err = inst.sublayer(h, lp.ffNorm, lp.ffResidual, func(x [][]T) ([][]T, error) {
				if lp.ff == nil {
					return nil, nil
				}
				out := make([][]T, len(x))
				for i := range x {
					if out[i], err = inst.feedForward(lp.ff, x[i]); err != nil {
						return nil, fmt.Errorf("%s feed-forward at position %d: %w", where, i+1, err)
					}
				}
				return out, nil
			})
			if err != nil {
				return nil, err
			}
			if trace {
				addState(res.Trace, b, where+" feed-forward", h)
			}
		}
	}
	if inst.finalNorm != nil {
		for i := range h {
			if h[i], err = inst.layerNorm(inst.finalNorm, h[i]); err != nil {
				return nil, fmt.Errorf("final norm at position %d: %w", i+1, err)
			}
		}
		if trace {
			addState(res.Trace, b, "final norm", h)
		}
	}
	res.Outputs = make([]PositionOutput, len(h))
	for i := range h {
		if res.Outputs[i], err = inst.output(h[i]); err != nil {
			return nil, fmt.Errorf("output at position %d: %w", i+1, err)
		}
	}
	return res, nil
}

// sublayer applies f with its norm and residual connection as the model's
// placement says: pre-norm f(LN(x)) + x, post-norm LN(f(x) + x), or
// f(x) + x. A nil result of f is the zero function.
func (inst *Instance[T]) sublayer(h [][]T, norm *normParams[T], residual bool, f func([][]T) ([][]T, error)) ([][]T, error) {
	in := h
	var err error
	if norm != nil && inst.Model.Norm == model.PreNorm {
		in = make([][]T, len(h))
		for i := range h {
			if in[i], err = inst.layerNorm(norm, h[i]); err != nil {
				return nil, fmt.Errorf("pre-norm at position %d: %w", i+1, err)
			}
		}
	}
	out, err := f(in)
	if err != nil {
		return nil, err
	}
	next := make([][]T, len(h))
	for i := range h {
		var o []T
		if out != nil {
			o = out[i]
		}
		if next[i], err = inst.residual(norm, residual, h[i], o); err != nil {
			return nil, fmt.Errorf("post-norm at position %d: %w", i+1, err)
		}
	}
	return next, nil
}

// residual is a sublayer's residual connection and post-norm at one
// position whose stream is h and where the sublayer computed out (nil:
// the zero function). out must be fresh (no other variable holds its
// values): the residual sum is stored in it; h is never written, so a
// sublayer that adds nothing passes it on as it is.
func (inst *Instance[T]) residual(norm *normParams[T], residual bool, h, out []T) ([]T, error) {
	b := inst.B
	var next []T
	switch {
	case out == nil && residual:
		next = h
	case out == nil:
		next = zeros(b, len(h))
	case residual:
		next = out
		for c := range h {
			next[c] = b.Add(next[c], next[c], h[c])
		}
	default:
		next = out
	}
	if norm != nil && inst.Model.Norm == model.PostNorm {
		return inst.layerNorm(norm, next)
	}
	return next, nil
}

// matVec returns W x + bias (bias may be nil), each row summed left to
// right and the bias added last.
func (inst *Instance[T]) matVec(w mat[T], x []T, bias []T) []T {
	b := inst.B
	return inst.matVecInto(zeros(b, w.rows), w, x, bias, b.New(), b.New())
}

// matVecInto is matVec written into out, which holds w.rows values of
// the backend (none of them an entry of x or bias): the same operations
// in the same order, so the same results, with t as scratch for the
// products and zero a value b.New() gave that is never written (a row
// with no nonzero column starts from it). Backends whose values are
// pointers write into out's values, so nothing is allocated; out's
// entries are replaced by the results, and out is returned.
func (inst *Instance[T]) matVecInto(out []T, w mat[T], x []T, bias []T, t, zero T) []T {
	b := inst.B
	if inst.exact && w.nz != nil {
		var br []*big.Rat
		if bias != nil {
			br = any(bias).([]*big.Rat)
		}
		matVecExact(any(out).([]*big.Rat), any(w.data).([]*big.Rat), w.cols, w.nz, any(x).([]*big.Rat), br)
		return out
	}
	if w.nz == nil && w.rows > 0 && w.cols > 0 {
		// Machine floats (the IEEE formats keep every term: nz is nil):
		// the same operations on plain slices, without a call through
		// the Backend interface per operation.
		switch be := any(b).(type) {
		case numeric.Float64:
			matVecMachine(any(out[:w.rows]).([]float64), any(w.data).([]float64), w.cols, any(x).([]float64), any(bias).([]float64), nil)
			return out
		case numeric.Float32:
			matVecMachine(any(out[:w.rows]).([]float32), any(w.data).([]float32), w.cols, any(x).([]float32), any(bias).([]float32), nil)
			return out
		case numeric.Emulated:
			matVecMachine(any(out[:w.rows]).([]float64), any(w.data).([]float64), w.cols, any(x).([]float64), any(bias).([]float64), be.F.Round)
			return out
		}
	}
	for r := 0; r < w.rows; r++ {
		row := w.data[r*w.cols : (r+1)*w.cols]
		acc := out[r]
		if w.nz != nil {
			cols := w.nz[r]
			if len(cols) == 0 {
				acc = b.Set(acc, zero)
			}
			for k, c := range cols {
				if k == 0 {
					acc = b.Mul(acc, row[c], x[c])
					continue
				}
				t = b.Mul(t, row[c], x[c])
				acc = b.Add(acc, acc, t)
			}
		} else {
			acc = b.Mul(acc, row[0], x[0])
			for k := 1; k < w.cols; k++ {
				t = b.Mul(t, row[k], x[k])
				acc = b.Add(acc, acc, t)
			}
		}
		if bias != nil {
			acc = b.Add(acc, acc, bias[r])
		}
		out[r] = acc
	}
	return out
}

// matVecExact is matVecInto in exact arithmetic: each row's products over
// its nonzero columns, and the bias, summed by a numeric.ExactSum, in
// machine words while the row's partial sums fit. The results are the
// same rationals, written into out's values.
func matVecExact(out, data []*big.Rat, cols int, nz [][]int, x, bias []*big.Rat) {
	var acc numeric.ExactSum
	for r, rowCols := range nz {
		row := data[r*cols : (r+1)*cols]
		acc.Reset()
		for _, c := range rowCols {
			acc.AddProduct(row[c], x[c])
		}
		if bias != nil {
			acc.Add(bias[r])
		}
		out[r] = acc.Rat(out[r])
	}
}

// matVecMachine is matVecInto's dense case on machine floats: out[r] =
// Σ_c data[r][c]·x[c] left to right, then + bias[r], each product and sum
// rounded on its own (round, for an emulated format, after each).
func matVecMachine[F machineFloat](out, data []F, cols int, x, bias []F, round func(F) F) {
	x = x[:cols]
	for r := range out {
		row := data[r*cols : (r+1)*cols : (r+1)*cols]
		if round == nil {
			acc := F(row[0] * x[0])
			for k := 1; k < cols; k++ {
				acc = F(acc + F(row[k]*x[k]))
			}
			if bias != nil {
				acc = F(acc + bias[r])
			}
			out[r] = acc
			continue
		}
		acc := round(F(row[0] * x[0]))
		for k := 1; k < cols; k++ {
			acc = round(F(acc + round(F(row[k]*x[k]))))
		}
		if bias != nil {
			acc = round(F(acc + bias[r]))
		}
		out[r] = acc
	}
}

// positions returns pe_n(i) for i = 1..n rounded to the backend, or nil.
func (inst *Instance[T]) positions(n int) ([][]T, error) {
	m := inst.Model
	if m.Position == nil {
		return nil, nil
	}
	if pe, ok := inst.pos.get(n); ok {
		return pe, nil
	}
	// An encoding that does not depend on n gives every length the first
	// rows of the longest one computed: only the new rows are rounded.
	independent := false
	if dep, known := m.Position.DependsOnN(); known && !dep {
		independent = true
	}
	var rows [][]T
	if independent {
		if rows = inst.pos.rows(); len(rows) >= n {
			return rows[:n:n], nil
		}
	}
	in := &instantiator[T]{b: inst.B}
	pe := make([][]T, n)
	from := copy(pe, rows) + 1
	for i := from; i <= n; i++ {
		v := m.Position.Vector(i, n)
		if len(v) != m.D {
			return nil, fmt.Errorf("position encoding %q at i = %d, n = %d: %d entries, want D = %d", m.Position.Name, i, n, len(v), m.D)
		}
		// Where an error is, is written out only on an error: a
		// Sprintf per position would cost more than its few entries.
		if pe[i-1] = in.vector(v, ""); in.err != nil {
			in = &instantiator[T]{b: inst.B}
			in.vector(v, fmt.Sprintf("position encoding %q at i = %d, n = %d", m.Position.Name, i, n))
			return nil, in.err
		}
	}
	if independent {
		inst.pos.grow(pe)
		return pe, nil
	}
	inst.pos.put(n, pe)
	return pe, nil
}

// posCache keeps the rounded position embeddings of recent lengths, and
// of an encoding that does not depend on n, the rows of the longest
// length computed (all).
type posCache[T any] struct {
	mu   sync.Mutex
	byN  map[int][][]T
	keys []int
	all  [][]T
}

// rows returns the rows of the longest length computed of an encoding
// that does not depend on n (read only: a longer length's are a new
// slice).
func (c *posCache[T]) rows() [][]T {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.all
}

// grow keeps pe as the rows of the longest length computed, if it is.
func (c *posCache[T]) grow(pe [][]T) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(pe) > len(c.all) {
		c.all = pe
	}
}

const posCacheSize = 16

func newPosCache[T any]() *posCache[T] { return &posCache[T]{byN: map[int][][]T{}} }

func (c *posCache[T]) get(n int) ([][]T, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	pe, ok := c.byN[n]
	return pe, ok
}

func (c *posCache[T]) put(n int, pe [][]T) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.byN[n]; ok {
		return
	}
	if len(c.keys) == posCacheSize {
		delete(c.byN, c.keys[0])
		c.keys = c.keys[1:]
	}
	c.byN[n] = pe
	c.keys = append(c.keys, n)
}

// undecided wraps ErrComparisonUndecided with context.
func undecided(format string, args ...any) error {
	return fmt.Errorf("%s: %w", fmt.Sprintf(format, args...), ErrComparisonUndecided)
}

// output applies the unembedding at one position.
func (inst *Instance[T]) output(h []T) (PositionOutput, error) {
	b := inst.B
	symbol, out, err := inst.decide(inst.matVec(inst.out, h, nil))
	if err != nil {
		return PositionOutput{}, err
	}
	vs := make([]Value, len(out))
	for k, x := range out {
		vs[k] = ValueOf(b, x)
	}
	return PositionOutput{Symbol: symbol, Values: vs}, nil
}

// decide reads the unembedding's logits W h as the output kind says: the
// symbol ("1"/"0" for Sign, a label for Argmax, "" otherwise) and the
// output values (the logits, or their softmax for Distribution).
func (inst *Instance[T]) decide(logits []T) (string, []T, error) {
	b, o := inst.B, inst.Model.Output
	switch o.Kind {
	case model.Sign:
		switch b.Sign(logits[0]) {
		case numeric.Greater:
			return "1", logits, nil
		case numeric.Unordered:
			if b.Finite(logits[0]) || isInterval(b) {
				return "", nil, undecided("the sign of W h = %s", b.Format(logits[0]))
			}
		}
		return "0", logits, nil
	case model.Argmax:
		best := 0
		for k := 1; k < len(logits); k++ {
			switch b.Cmp(logits[k], logits[best]) {
			case numeric.Greater:
				best = k
			case numeric.Unordered:
				if isInterval(b) {
					return "", nil, undecided("argmax: %s vs %s", b.Format(logits[k]), b.Format(logits[best]))
				}
			}
		}
		return o.Labels[best], logits, nil
	case model.Distribution:
		p, err := inst.softmax(logits)
		return "", p, err
	}
	return "", logits, nil
}

// isInterval reports whether b is the interval backend, where Unordered
// means "cannot decide" rather than NaN.
func isInterval[T any](b numeric.Backend[T]) bool {
	return b.Precision().Kind == numeric.KindInterval
}
