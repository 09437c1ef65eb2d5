package eval

import (
	"fmt"
	"math/big"
	"slices"

	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/numeric"
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

// Prefix is the state of a model after the first Len() symbols of a
// string. Extending a Prefix shares its storage with the result, and
// extending the same Prefix again reuses the storage of the earlier
// result: it invalidates the earlier results and everything extended
// from them, as a depth-first search that returns from a subtree wants
// (each depth's storage is then allocated once). Clone gives a copy that
// owns all its storage, to hand to another branch or goroutine.
type Prefix interface {
	// Len is the number of positions.
	Len() int
	// Output is the output at the last position: what Run gives at that
	// position for every string that begins with this prefix. Its values
	// are made at each call, and belong to the caller.
	Output() PositionOutput
	// PointOutput is Output without printing or copying the values, when
	// every one is a rational point that the prefix holds (in exact
	// arithmetic): the symbol, and the values, each Output's Lo and Hi.
	// They belong to the prefix: read only, and valid while it is. ok is
	// false, with nothing else, when Output must be used instead.
	PointOutput() (symbol string, values []*big.Rat, ok bool)
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
		return nil, fmt.Errorf("%T runs whole strings only: %w", r, model.ErrNotPrefixStable)
	}
	return p.prefixRunner(maxLen)
}

// NewPrefixRunnerAt returns an incremental runner of r for the strings of
// length n alone: the position encoding is pe_n's, so that the prefixes
// it extends are those of strings of length n, and their outputs are
// those of such strings (a model whose encoding depends on the length,
// such as i/n, can be enumerated one length at a time). It fails, wrapping
// ErrNotPrefixStable, when r's model is not causally masked.
func NewPrefixRunnerAt(r Runner, n int) (PrefixRunner, error) {
	p, ok := r.(interface {
		prefixRunnerAt(n int) (PrefixRunner, error)
	})
	if !ok {
		return nil, fmt.Errorf("%T runs whole strings only: %w", r, model.ErrNotPrefixStable)
	}
	return p.prefixRunnerAt(n)
}

type prefixRunner[T any] struct {
	inst   *Instance[T]
	maxLen int
	// pe holds pe(i) for i ≤ maxLen: the same at every length, as
	// PrefixStable checked.
	pe    [][]T
	heads int // attention heads in all layers
	// points: the backend is exact on *big.Rat, so that an output value
	// is its own point (PointOutput).
	points bool
	// sums[k] says head k (of all layers) averages its maxima in exact
	// arithmetic: its prefixes keep the sums of their values.
	sums []bool
	sc   *attnScratch[T]
	ws   *prefixScratch[T]
}

// prefixScratch holds the vectors Extend computes and drops within one
// call, reused from one call to the next: only the keys, the values and
// the output outlive a call, in the new prefix's storage.
type prefixScratch[T any] struct {
	// zero is b.New(), never written; t is matVecInto's scratch.
	zero, t T
	emb     []T   // the embedding of the new position
	q       [][]T // the query, per head of every layer
	hidden  [][]T // per layer: W1 x + b1
	act     [][]T // per layer with ReLU: its activation
	ffOut   [][]T // per layer: the feed-forward output
	// attnOut holds, per head of every layer, its output where
	// attendOne computes it into storage.
	attnOut [][]T
}

// kvCache is one head's keys and values at the positions of a prefix,
// and whether each value is finite (attendOne skips zero weights only
// on finite values).
type kvCache[T any] struct {
	keys, vals [][]T
	finite     []bool
}

// prefixState is a Prefix. The key and value of its last position, per
// head, and its output are its own storage (key, val, logits); its
// caches list, before them, those of its ancestors, in storage the
// ancestors own. Extending a prefix writes into its child, the prefix
// that its previous extension returned, rather than a new one: the
// storage of each depth of a depth-first search is allocated once.
type prefixState[T any] struct {
	inst     *Instance[T]
	n        int
	kv       []kvCache[T] // per head, layer by layer
	key, val [][]T        // per head: the key and value of position n
	// sum holds, for the heads the runner's sums selects, the sum of the
	// values of positions 1..n (nil for the others).
	sum    [][]T
	logits []T // W h at position n
	// out is the output's values (logits, or the distribution), symbol
	// its decision, and points the same values as rationals when the
	// runner's backend is exact (nil otherwise).
	out    []T
	symbol string
	points []*big.Rat
	child  *prefixState[T] // the last extension of this prefix, or nil
}

func (p *prefixState[T]) Len() int { return p.n }

func (p *prefixState[T]) Output() PositionOutput {
	if p.n == 0 {
		return PositionOutput{}
	}
	b := p.inst.B
	vs := make([]Value, len(p.out))
	for k, x := range p.out {
		vs[k] = ValueOf(b, x)
	}
	return PositionOutput{Symbol: p.symbol, Values: vs}
}

func (p *prefixState[T]) PointOutput() (string, []*big.Rat, bool) {
	if p.n == 0 || p.points == nil {
		return "", nil, false
	}
	return p.symbol, p.points, true
}

// Clone copies every value: the ancestors whose storage p's caches list
// may be extended again, which writes into it.
func (p *prefixState[T]) Clone() Prefix {
	b := p.inst.B
	vec := func(v []T) []T {
		c := make([]T, len(v))
		for k, x := range v {
			c[k] = b.Set(b.New(), x)
		}
		return c
	}
	c := &prefixState[T]{inst: p.inst, n: p.n, kv: make([]kvCache[T], len(p.kv)), symbol: p.symbol}
	for h, kv := range p.kv {
		ch := kvCache[T]{keys: make([][]T, len(kv.keys)), vals: make([][]T, len(kv.vals)), finite: slices.Clone(kv.finite)}
		for j := range kv.keys {
			ch.keys[j] = vec(kv.keys[j])
			ch.vals[j] = vec(kv.vals[j])
		}
		c.kv[h] = ch
	}
	if p.sum != nil {
		c.sum = make([][]T, len(p.sum))
		for k, v := range p.sum {
			if v != nil {
				c.sum[k] = vec(v)
			}
		}
	}
	if p.n > 0 {
		c.out = vec(p.out)
		if p.points != nil {
			c.points = make([]*big.Rat, len(c.out))
			for k, x := range c.out {
				c.points[k] = any(x).(*big.Rat)
			}
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
	return inst.newPrefixRunner(maxLen)
}

func (inst *Instance[T]) prefixRunnerAt(n int) (PrefixRunner, error) {
	if n < 1 {
		return nil, fmt.Errorf("prefix runner: the length must be at least 1, got %d", n)
	}
	if err := inst.Model.Causal(); err != nil {
		return nil, err
	}
	return inst.newPrefixRunner(n)
}

// newPrefixRunner is a runner whose position encoding is pe_maxLen's.
func (inst *Instance[T]) newPrefixRunner(maxLen int) (PrefixRunner, error) {
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
	exact := inst.B.Precision().Kind == numeric.KindExact
	if _, ok := any(inst.B.New()).(*big.Rat); ok && exact {
		r.points = true
	}
	for _, lp := range inst.layers {
		if lp.attn != nil {
			for range lp.attn.heads {
				r.sums = append(r.sums, exact && lp.attn.spec.Weighting == model.AverageHardmax)
			}
		}
	}
	r.sc, r.ws = r.scratch()
	return r, nil
}

func (r *prefixRunner[T]) scratch() (*attnScratch[T], *prefixScratch[T]) {
	inst, b := r.inst, r.inst.B
	ws := &prefixScratch[T]{zero: b.New(), t: b.New(), emb: zeros(b, inst.Model.D),
		hidden: make([][]T, len(inst.layers)), act: make([][]T, len(inst.layers)), ffOut: make([][]T, len(inst.layers))}
	for l := range inst.layers {
		lp := &inst.layers[l]
		if lp.attn != nil {
			for h := range lp.attn.heads {
				ws.q = append(ws.q, zeros(b, lp.attn.heads[h].q.rows))
				ws.attnOut = append(ws.attnOut, zeros(b, lp.attn.heads[h].v.rows))
			}
		}
		if ff := lp.ff; ff != nil {
			ws.hidden[l] = zeros(b, ff.w1.rows)
			if ff.act == model.ReLU {
				ws.act[l] = zeros(b, ff.w1.rows)
			}
			ws.ffOut[l] = zeros(b, ff.w2.rows)
		}
	}
	return &attnScratch[T]{js: make([]int, 0, r.maxLen), scores: zeros(b, r.maxLen), t: b.New()}, ws
}

// newState returns a prefix with its own storage for one position.
func (r *prefixRunner[T]) newState() *prefixState[T] {
	inst, b := r.inst, r.inst.B
	p := &prefixState[T]{inst: inst, kv: make([]kvCache[T], r.heads), key: make([][]T, 0, r.heads), val: make([][]T, 0, r.heads),
		logits: zeros(b, inst.out.rows)}
	for _, lp := range inst.layers {
		if lp.attn != nil {
			for h := range lp.attn.heads {
				p.key = append(p.key, zeros(b, lp.attn.heads[h].k.rows))
				p.val = append(p.val, zeros(b, lp.attn.heads[h].v.rows))
			}
		}
	}
	p.sum = r.newSums()
	if r.points {
		p.points = make([]*big.Rat, 0, inst.out.rows)
	}
	return p
}

// newSums returns storage for the sums of values of a prefix, each 0.
func (r *prefixRunner[T]) newSums() [][]T {
	var sum [][]T
	k := 0
	for _, lp := range r.inst.layers {
		if lp.attn == nil {
			continue
		}
		for h := range lp.attn.heads {
			if r.sums[k] && sum == nil {
				sum = make([][]T, r.heads)
			}
			if r.sums[k] {
				sum[k] = zeros(r.inst.B, lp.attn.heads[h].v.rows)
			}
			k++
		}
	}
	return sum
}

func (r *prefixRunner[T]) MaxLen() int { return r.maxLen }

func (r *prefixRunner[T]) Fork() PrefixRunner {
	f := *r
	f.sc, f.ws = r.scratch()
	return &f
}

// Extend computes the new position as forward computes every position,
// operation for operation, so that its output is identical to Run's.
// The result is p's child, reused: see prefixState.
func (r *prefixRunner[T]) Extend(p Prefix, symbol int) (Prefix, error) {
	inst, b, m, ws := r.inst, r.inst.B, r.inst.Model, r.ws
	var parent *prefixState[T]
	if p != nil {
		var ok bool
		if parent, ok = p.(*prefixState[T]); !ok {
			return nil, fmt.Errorf("prefix runner: a prefix of another backend (%T)", p)
		}
		if parent.inst != inst {
			return nil, fmt.Errorf("prefix runner: a prefix of another model or instance")
		}
	} else {
		// The root's caches have room for every position, so that the
		// positions below it append in place.
		parent = &prefixState[T]{inst: inst, kv: make([]kvCache[T], r.heads), sum: r.newSums()}
		for h := range parent.kv {
			parent.kv[h] = kvCache[T]{keys: make([][]T, 0, r.maxLen), vals: make([][]T, 0, r.maxLen), finite: make([]bool, 0, r.maxLen)}
		}
	}
	i := parent.n // 0-based index of the new position
	if i >= r.maxLen {
		return nil, fmt.Errorf("prefix runner: position %d beyond the maximum length %d it was checked for", i+1, r.maxLen)
	}
	if symbol < 0 || symbol >= len(m.Alphabet) {
		return nil, fmt.Errorf("input position %d: symbol index %d outside the alphabet of %d symbols", i+1, symbol, len(m.Alphabet))
	}
	next := parent.child
	if next == nil {
		next = r.newState()
		parent.child = next
	}
	// next is invalid until it is complete: a failed extension leaves
	// no prefix behind.
	next.n = 0
	h := ws.emb
	we := inst.we.row(symbol)
	for c := range h {
		h[c] = b.Set(h[c], we[c])
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
				return r.attend(lp.attn, x, i, parent, next, head, l)
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
				out, err := r.feedForward(l, lp.ff, x)
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
	if err = r.output(next, h); err != nil {
		return nil, fmt.Errorf("output at position %d: %w", i+1, err)
	}
	next.n = i + 1
	return next, nil
}

// sublayer is Instance.sublayer at one position. f's result is never h
// (nor any vector h's values belong to), so the residual sum is stored in
// it.
func (r *prefixRunner[T]) sublayer(h []T, norm *normParams[T], residual bool, f func([]T) ([]T, error)) ([]T, error) {
	inst := r.inst
	in := h
	var err error
	if norm != nil && inst.Model.Norm == model.PreNorm {
		if in, err = inst.layerNorm(norm, h); err != nil {
			return nil, fmt.Errorf("pre-norm: %w", err)
		}
	}
	out, err := f(in)
	if err != nil {
		return nil, err
	}
	next, err := inst.residual(norm, residual, h, out)
	if err != nil {
		return nil, fmt.Errorf("post-norm: %w", err)
	}
	return next, nil
}

// attend is Instance.attend at position i, for the heads of layer l
// (from index head on in the caches): the new key and value of each
// head, computed into next's storage, are appended to the parent's, and
// the query attends to them all.
func (r *prefixRunner[T]) attend(a *attnParams[T], x []T, i int, parent, next *prefixState[T], head, l int) ([]T, error) {
	inst, b, sc, ws := r.inst, r.inst.B, r.sc, r.ws
	var out []T
	for h := range a.heads {
		hp, k := &a.heads[h], head+h
		key := inst.matVecInto(next.key[k], hp.k, x, nil, ws.t, ws.zero)
		val := inst.matVecInto(next.val[k], hp.v, x, nil, ws.t, ws.zero)
		pc := &parent.kv[k]
		c := kvCache[T]{
			keys:   append(pc.keys, key),
			vals:   append(pc.vals, val),
			finite: append(pc.finite, allFinite(b, val)),
		}
		next.kv[k] = c
		sc.finite = c.finite
		// sums[m] is the sum of the values of positions 1..m, for m = i
		// and i+1, when the head keeps them.
		var sums [2][]T
		if r.sums[k] {
			sum := next.sum[k]
			for c := range sum {
				sum[c] = b.Add(sum[c], parent.sum[k][c], val[c])
			}
			sums = [2][]T{parent.sum[k], sum}
		}
		q := inst.matVecInto(ws.q[k], hp.q, x, nil, ws.t, ws.zero)
		o, err := r.attendOne(a, hp, q, c.keys, c.vals, i, ws.attnOut[k], sums)
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

// attendOne is Instance.attendOne, into out (one value per row of the
// value matrix) for a hard weighting in exact arithmetic, with the
// prefix's running sum of the values when the head keeps one; any other
// weighting or backend goes to Instance.attendOne.
func (r *prefixRunner[T]) attendOne(a *attnParams[T], hp *headParams[T], q []T, keys, vals [][]T, i int, out []T, sums [2][]T) ([]T, error) {
	inst, b, sc := r.inst, r.inst.B, r.sc
	if a.spec.Weighting == model.Softmax || b.Precision().Kind != numeric.KindExact {
		return inst.attendOne(a, hp, q, keys, vals, i, sc)
	}
	js, scores, err := inst.scores(a, hp, q, keys, i, sc)
	if err != nil {
		return nil, err
	}
	if len(js) == 0 {
		for c := range out {
			out[c] = b.Set(out[c], r.ws.zero)
		}
		return out, nil
	}
	// sums[m] is the sum of the values of positions 1..i+m: the sum of
	// every unmasked position's when they are 1..len(js).
	var sum []T
	if n := len(js); js[n-1] == n-1 && n >= i && n-i < len(sums) {
		sum = sums[n-i]
	}
	return inst.hardExact(out, a.spec.Weighting, scores, js, vals, sum, sc)
}

// feedForward is Instance.feedForward for layer l into the runner's
// scratch.
func (r *prefixRunner[T]) feedForward(l int, p *ffParams[T], x []T) ([]T, error) {
	inst, b, ws := r.inst, r.inst.B, r.ws
	hidden := inst.matVecInto(ws.hidden[l], p.w1, x, p.b1, ws.t, ws.zero)
	if p.act == model.ReLU {
		// activate's b.Max(b.New(), b.New(), x), into storage.
		act := ws.act[l]
		for k, z := range hidden {
			act[k] = b.Max(act[k], ws.zero, z)
		}
		hidden = act
	} else {
		for k, z := range hidden {
			a, err := inst.activate(p, z)
			if err != nil {
				return nil, fmt.Errorf("%s of hidden unit %d: %w", p.act, k+1, err)
			}
			hidden[k] = a
		}
	}
	return inst.matVecInto(ws.ffOut[l], p.w2, hidden, p.b2, ws.t, ws.zero), nil
}

// output is Instance.output at the new position into next's storage,
// without the printed values and bounds, which Output makes when asked.
func (r *prefixRunner[T]) output(next *prefixState[T], h []T) error {
	inst, ws := r.inst, r.ws
	symbol, out, err := inst.decide(inst.matVecInto(next.logits, inst.out, h, nil, ws.t, ws.zero))
	if err != nil {
		return err
	}
	next.out, next.symbol = out, symbol
	if r.points {
		next.points = next.points[:0]
		for _, x := range next.out {
			next.points = append(next.points, any(x).(*big.Rat))
		}
	}
	return nil
}
