package model

import (
	"errors"
	"fmt"
)

// Incremental runs of causally masked models.
//
// Under the masks Future (j ≤ i) and StrictFuture (j < i) nothing at a
// position i reads a later position: its attention sees keys and values
// of positions 1..i only, and every other sublayer works position by
// position. When moreover pe_n(i) does not depend on the length n, the
// residual stream at position i, and so its output, is the same in every
// string that begins with the same i symbols. A Prefix keeps, per
// attention head of every layer, the keys and values of its positions;
// Extend computes one new position through all layers against them, so
// that a depth-first enumeration of all strings pays about one position
// per string instead of its length.

// ErrNotPrefixStable is wrapped by NewPrefixRunner's error for models whose
// outputs at a position may depend on later positions or on the length:
// callers run each string from scratch instead.
var ErrNotPrefixStable = errors.New("the model is not prefix-stable")

// Prefix is the state of a model after the first Len() symbols of a
// string. Extending a Prefix shares its storage with the result (append
// only): extending the same Prefix again invalidates the earlier results
// and everything extended from them, as a depth-first search that
// returns from a subtree wants. Clone gives a copy that owns its storage,
// to hand to another branch or goroutine.
type Prefix interface {
	// Len is the number of positions.
	Len() int
	// Output is the output at the last position: what Run gives at that
	// position for every string that begins with this prefix.
	Output() PositionOutput
	Clone() Prefix
}

// PrefixRunner extends prefixes of one model. It holds scratch space, so
// one goroutine uses it at a time; Fork gives another for another
// goroutine (prefixes may move between the runners of one model).
type PrefixRunner interface {
	// Extend returns p followed by symbol (an index into the alphabet);
	// a nil p is the empty prefix.
	Extend(p Prefix, symbol int) (Prefix, error)
	// MaxLen is the longest prefix the runner was checked for.
	MaxLen() int
	Fork() PrefixRunner
}

// NewPrefixRunner returns an incremental runner of r for strings of
// length up to maxLen, or an error wrapping ErrNotPrefixStable when r's
// model has an attention sublayer that is not causally masked, or a
// position encoding pe_n(i) that differs from pe_i(i) for some
// i ≤ n ≤ maxLen.
func NewPrefixRunner(r Runner, maxLen int) (PrefixRunner, error) {
	p, ok := r.(interface {
		prefixRunner(maxLen int) (PrefixRunner, error)
	})
	if !ok {
		return nil, fmt.Errorf("%T runs whole strings only: %w", r, ErrNotPrefixStable)
	}
	return p.prefixRunner(maxLen)
}

// PrefixStable reports why m is not prefix-stable up to length maxLen
// (nil when it is): see NewPrefixRunner.
func (m *Model) PrefixStable(maxLen int) error {
	for l, layer := range m.Layers {
		if a := layer.Attention; a != nil && a.Mask != Future && a.Mask != StrictFuture {
			return fmt.Errorf("layer %d attention is masked %s, so a position sees later ones: %w", l+1, a.Mask, ErrNotPrefixStable)
		}
	}
	if m.Position == nil {
		return nil
	}
	// A Go function cannot be inspected, so the encoding is compared at
	// every length the runner will see. Equal printed expressions are the
	// same expression, which every backend rounds alike; a different
	// expression of the same value might round differently (an interval
	// enclosure), so it counts as a difference.
	for i := 1; i <= maxLen; i++ {
		own := m.Position.Vector(i, i)
		for n := i + 1; n <= maxLen; n++ {
			v := m.Position.Vector(i, n)
			if len(v) != len(own) {
				return fmt.Errorf("position encoding %q has %d entries at i = %d, n = %d and %d at n = %d: %w", m.Position.Name, len(v), i, n, len(own), i, ErrNotPrefixStable)
			}
			for c := range v {
				if v[c].String() != own[c].String() {
					return fmt.Errorf("position encoding %q depends on the length: pe_%d(%d)[%d] = %v but pe_%d(%d)[%d] = %v: %w",
						m.Position.Name, n, i, c+1, v[c], i, i, c+1, own[c], ErrNotPrefixStable)
				}
			}
		}
	}
	return nil
}

type prefixRunner[T any] struct {
	inst   *Instance[T]
	maxLen int
	// pe holds pe(i) for i ≤ maxLen: the same at every length, as
	// PrefixStable checked.
	pe    [][]T
	heads int // attention heads in all layers
	sc    *attnScratch[T]
}

// kvCache is one head's keys and values at the positions of a prefix,
// and whether each value is finite (attendOne skips zero weights only
// on finite values).
type kvCache[T any] struct {
	keys, vals [][]T
	finite     []bool
}

type prefixState[T any] struct {
	n   int
	kv  []kvCache[T] // per head, layer by layer
	out PositionOutput
}

func (p *prefixState[T]) Len() int               { return p.n }
func (p *prefixState[T]) Output() PositionOutput { return p.out }

func (p *prefixState[T]) Clone() Prefix {
	c := &prefixState[T]{n: p.n, out: p.out, kv: make([]kvCache[T], len(p.kv))}
	for k, h := range p.kv {
		// The vectors themselves are never written once cached, so the
		// copy shares them; only the slices that Extend appends to are
		// new.
		c.kv[k] = kvCache[T]{
			keys:   append([][]T(nil), h.keys...),
			vals:   append([][]T(nil), h.vals...),
			finite: append([]bool(nil), h.finite...),
		}
	}
	return c
}

func (inst *Instance[T]) prefixRunner(maxLen int) (PrefixRunner, error) {
	if maxLen < 1 {
		return nil, fmt.Errorf("prefix runner: the maximum length must be at least 1, got %d", maxLen)
	}
	if err := inst.Model.PrefixStable(maxLen); err != nil {
		return nil, err
	}
	pe, err := inst.positions(maxLen)
	if err != nil {
		return nil, err
	}
	r := &prefixRunner[T]{inst: inst, maxLen: maxLen, pe: pe}
	for _, lp := range inst.layers {
		if lp.attn != nil {
			r.heads += len(lp.attn.heads)
		}
	}
	r.sc = r.scratch()
	return r, nil
}

func (r *prefixRunner[T]) scratch() *attnScratch[T] {
	b := r.inst.B
	return &attnScratch[T]{js: make([]int, 0, r.maxLen), scores: zeros(b, r.maxLen), t: b.New()}
}

func (r *prefixRunner[T]) MaxLen() int { return r.maxLen }

func (r *prefixRunner[T]) Fork() PrefixRunner {
	f := *r
	f.sc = r.scratch()
	return &f
}

// Extend computes the new position as forward computes every position,
// operation for operation, so that its output is identical to Run's.
func (r *prefixRunner[T]) Extend(p Prefix, symbol int) (Prefix, error) {
	inst, b, m := r.inst, r.inst.B, r.inst.Model
	var parent *prefixState[T]
	if p != nil {
		var ok bool
		if parent, ok = p.(*prefixState[T]); !ok {
			return nil, fmt.Errorf("prefix runner: a prefix of another backend (%T)", p)
		}
	} else {
		parent = &prefixState[T]{kv: make([]kvCache[T], r.heads)}
	}
	i := parent.n // 0-based index of the new position
	if i >= r.maxLen {
		return nil, fmt.Errorf("prefix runner: position %d beyond the maximum length %d it was checked for", i+1, r.maxLen)
	}
	if symbol < 0 || symbol >= len(m.Alphabet) {
		return nil, fmt.Errorf("input position %d: symbol index %d outside the alphabet of %d symbols", i+1, symbol, len(m.Alphabet))
	}
	next := &prefixState[T]{n: i + 1, kv: make([]kvCache[T], r.heads)}
	h := make([]T, m.D)
	for c := range h {
		h[c] = b.Set(b.New(), inst.we[symbol][c])
		if r.pe != nil {
			h[c] = b.Add(h[c], h[c], r.pe[i][c])
		}
	}
	var err error
	head := 0 // index of the layer's first head in kv
	for l := range inst.layers {
		lp := &inst.layers[l]
		if lp.attn != nil || lp.attnNorm != nil {
			h, err = r.sublayer(h, lp.attnNorm, lp.attnResidual, func(x []T) ([]T, error) {
				if lp.attn == nil {
					return nil, nil
				}
				return r.attend(lp.attn, x, i, parent.kv[head:], next.kv[head:], l)
			})
			if err != nil {
				return nil, err
			}
			if lp.attn != nil {
				head += len(lp.attn.heads)
			}
		}
		if lp.ff != nil || lp.ffNorm != nil {
			h, err = r.sublayer(h, lp.ffNorm, lp.ffResidual, func(x []T) ([]T, error) {
				if lp.ff == nil {
					return nil, nil
				}
				out, err := inst.feedForward(lp.ff, x)
				if err != nil {
					return nil, fmt.Errorf("layer %d feed-forward at position %d: %w", l+1, i+1, err)
				}
				return out, nil
			})
			if err != nil {
				return nil, err
			}
		}
	}
	if inst.finalNorm != nil {
		if h, err = inst.layerNorm(inst.finalNorm, h); err != nil {
			return nil, fmt.Errorf("final norm at position %d: %w", i+1, err)
		}
	}
	if next.out, err = inst.output(h); err != nil {
		return nil, fmt.Errorf("output at position %d: %w", i+1, err)
	}
	return next, nil
}

// sublayer is Instance.sublayer at one position (i, for messages).
func (r *prefixRunner[T]) sublayer(h []T, norm *normParams[T], residual bool, f func([]T) ([]T, error)) ([]T, error) {
	inst, b := r.inst, r.inst.B
	in := h
	var err error
	if norm != nil && inst.Model.Norm == PreNorm {
		if in, err = inst.layerNorm(norm, h); err != nil {
			return nil, fmt.Errorf("pre-norm: %w", err)
		}
	}
	out, err := f(in)
	if err != nil {
		return nil, err
	}
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
	if norm != nil && inst.Model.Norm == PostNorm {
		if next, err = inst.layerNorm(norm, next); err != nil {
			return nil, fmt.Errorf("post-norm: %w", err)
		}
	}
	return next, nil
}

// attend is Instance.attend at position i: the new key and value of each
// head are appended to the prefix's, and the query attends to them all.
func (r *prefixRunner[T]) attend(a *attnParams[T], x []T, i int, parent, next []kvCache[T], l int) ([]T, error) {
	inst, b, sc := r.inst, r.inst.B, r.sc
	var out []T
	for h := range a.heads {
		hp := &a.heads[h]
		key := inst.matVec(hp.k, x, nil)
		val := inst.matVec(hp.v, x, nil)
		c := kvCache[T]{
			keys:   append(parent[h].keys, key),
			vals:   append(parent[h].vals, val),
			finite: append(parent[h].finite, allFinite(b, val)),
		}
		next[h] = c
		sc.finite = c.finite
		q := inst.matVec(hp.q, x, nil)
		o, err := inst.attendOne(a, hp, q, c.keys, c.vals, i, sc)
		if err != nil {
			return nil, fmt.Errorf("layer %d attention head %d at position %d: %w", l+1, h+1, i+1, err)
		}
		if out == nil {
			out = o
			continue
		}
		for c := range o {
			out[c] = b.Add(out[c], out[c], o[c])
		}
	}
	return out, nil
}
