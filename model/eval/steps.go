package eval

import (
	"fmt"

	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/numeric"
)

// Steps is an Instance seen one piece of the forward pass at a time, for
// an analysis that follows the sets of residual-stream states a position
// can hold over every input rather than one input (the certificates and
// the diagnosis): each method runs, on one position's vector, the code
// Run runs there, in the same order of operations, so that what an
// analysis concludes of these pieces holds of Run. Layers and sublayers
// are numbered from 0; attn selects a layer's attention sublayer (true)
// or its feed-forward one.
//
// Steps shares its instance's parameters (Instance.Steps converts, and
// copies nothing): it is a view, not a copy, and safe for concurrent use
// as the instance is.
type Steps[T any] Instance[T]

// Steps returns the step-by-step view of inst.
func (inst *Instance[T]) Steps() *Steps[T] { return (*Steps[T])(inst) }

// Instance returns the instance st views.
func (st *Steps[T]) Instance() *Instance[T] { return (*Instance[T])(st) }

// Layers is the number of layers.
func (st *Steps[T]) Layers() int { inst := st.Instance(); return len(inst.layers) }

// HasSublayer reports whether layer l (0-based) has an attention
// sublayer (attn) or a feed-forward sublayer (!attn) that Run applies: a
// sublayer, or a norm without one.
func (st *Steps[T]) HasSublayer(l int, attn bool) bool {
	inst := st.Instance()
	lp := &inst.layers[l]
	if attn {
		return lp.attn != nil || lp.attnNorm != nil
	}
	return lp.ff != nil || lp.ffNorm != nil
}

// Embed returns the initial residual stream at position i (1-based) of an
// input of length n whose symbol there is s: the word embedding plus the
// position encoding, as Run adds them.
func (st *Steps[T]) Embed(s, i, n int) ([]T, error) {
	inst := st.Instance()
	m, b := inst.Model, inst.B
	if s < 0 || s >= len(m.Alphabet) {
		return nil, fmt.Errorf("symbol index %d outside the alphabet of %d symbols", s, len(m.Alphabet))
	}
	if i < 1 || i > n {
		return nil, fmt.Errorf("position %d outside 1 … %d", i, n)
	}
	pe, err := inst.positions(n)
	if err != nil {
		return nil, err
	}
	h := make([]T, m.D)
	we := inst.we.row(s)
	for c := range h {
		h[c] = b.Set(b.New(), we[c])
		if pe != nil {
			h[c] = b.Add(h[c], h[c], pe[i-1][c])
		}
	}
	return h, nil
}

// WordEmbeddingRow returns symbol s's word embedding as the instance
// rounded it, which Embed adds to the position's row. The caller must not
// write it.
func (st *Steps[T]) WordEmbeddingRow(s int) ([]T, error) {
	inst := st.Instance()
	if s < 0 || s >= len(inst.Model.Alphabet) {
		return nil, fmt.Errorf("symbol index %d outside the alphabet of %d symbols", s, len(inst.Model.Alphabet))
	}
	return inst.we.row(s), nil
}

// PositionRows returns the position encodings of positions 1 … n of an
// input of length n as the instance rounded them (nil when the model has
// none), which Embed adds to the word embedding. The caller must not
// write them.
func (st *Steps[T]) PositionRows(n int) ([][]T, error) {
	inst := st.Instance()
	if n < 1 {
		return nil, fmt.Errorf("length %d", n)
	}
	return inst.positions(n)
}

// EmbedDependence says what one component of Embed(s, i, n) depends on,
// over every symbol s and every position i of inputs of length n.
type EmbedDependence struct {
	// Symbol: the position encoding's component has the same value at
	// every position, so the embedding's depends on the symbol alone.
	Symbol bool
	// Position: the word embedding's component has the same value for
	// every symbol, so the embedding's depends on the position alone.
	Position bool
	// Finite: every value the component takes is finite.
	Finite bool
}

// EmbedDependence reports, for each component of the embeddings of inputs
// of length n, what it depends on (a constant component depends on
// neither, and is marked both). Embed adds the word embedding and the
// position encoding component by component, so a component whose
// position encoding is the same everywhere is a function of the symbol.
// Values are compared as numbers: a zero's sign is not told apart.
// Finite is decided from the largest magnitudes: |w + p| ≤ |w|max + |p|max
// and rounding is monotone, so when that sum rounds to a finite value
// every sum does.
func (st *Steps[T]) EmbedDependence(n int) ([]EmbedDependence, error) {
	inst := st.Instance()
	b := inst.B
	pe, err := inst.positions(n)
	if err != nil {
		return nil, err
	}
	// Exact values are all finite, and so are their sums: then only the
	// comparisons are made, and only until one differs.
	bounded := b.Precision().Kind != numeric.KindExact
	// An interval of an irrational value is not Equal to itself (their
	// order is undecided), so there the rows are compared as rounded.
	sameIsEqual := b.Precision().Kind != numeric.KindInterval
	out := make([]EmbedDependence, inst.Model.D)
	for c := range out {
		dep := EmbedDependence{Symbol: true, Position: true, Finite: true}
		maxW, maxP := b.New(), b.New()
		t := b.New()
		first, firstExpr := inst.we.row(0), inst.we.expr(0, c)
		for s := range inst.we.len() {
			if s > 0 && sameIsEqual && inst.we.expr(s, c) == firstExpr {
				// The same expression rounds to the same value: nothing
				// to compare, and nothing new for the bounds. Rows are
				// then rounded only where they differ (a model for
				// N = 8192 has 16,384).
				continue
			}
			row := inst.we.row(s)
			if dep.Position && s > 0 && b.Cmp(row[c], first[c]) != numeric.Equal {
				dep.Position = false
			}
			if !bounded {
				if !dep.Position {
					break
				}
				continue
			}
			dep.Finite = dep.Finite && b.Finite(row[c])
			t = b.Abs(t, row[c])
			maxW = b.Max(maxW, maxW, t)
		}
		for i, row := range pe {
			if dep.Symbol && i > 0 && b.Cmp(row[c], pe[0][c]) != numeric.Equal {
				dep.Symbol = false
			}
			if !bounded {
				if !dep.Symbol {
					break
				}
				continue
			}
			dep.Finite = dep.Finite && b.Finite(row[c])
			t = b.Abs(t, row[c])
			maxP = b.Max(maxP, maxP, t)
		}
		if bounded && dep.Finite && pe != nil {
			dep.Finite = b.Finite(b.Add(t, maxW, maxP))
		}
		out[c] = dep
	}
	return out, nil
}

// PreNormed reports whether SublayerInput normalises the stream before the
// attention (attn) or feed-forward sublayer of layer l; when it does not,
// it returns the stream itself.
func (st *Steps[T]) PreNormed(l int, attn bool) bool {
	inst := st.Instance()
	return inst.sublayerNorm(l, attn) != nil && inst.Model.Norm == model.PreNorm
}

// SublayerInput is what the attention (attn) or feed-forward sublayer of
// layer l reads at a position whose residual stream is h: its layer norm
// under pre-norm, h itself otherwise.
func (st *Steps[T]) SublayerInput(l int, attn bool, h []T) ([]T, error) {
	inst := st.Instance()
	norm := inst.sublayerNorm(l, attn)
	if norm == nil || inst.Model.Norm != model.PreNorm {
		return h, nil
	}
	return inst.layerNorm(norm, h)
}

// SublayerOutput is the residual stream after the attention (attn) or
// feed-forward sublayer of layer l at a position whose stream was h and
// where the sublayer computed out (nil: the zero function, as for a norm
// without a sublayer): the residual connection and the post-norm, as Run
// applies them. h is not written.
func (st *Steps[T]) SublayerOutput(l int, attn bool, h, out []T) ([]T, error) {
	inst := st.Instance()
	lp := &inst.layers[l]
	residual := lp.ffResidual
	if attn {
		residual = lp.attnResidual
	}
	if out != nil {
		// residual stores the sum in out, which is the caller's.
		out = append([]T(nil), out...)
		for c := range out {
			out[c] = inst.B.Set(inst.B.New(), out[c])
		}
	}
	return inst.residual(inst.sublayerNorm(l, attn), residual, h, out)
}

func (inst *Instance[T]) sublayerNorm(l int, attn bool) *normParams[T] {
	if attn {
		return inst.layers[l].attnNorm
	}
	return inst.layers[l].ffNorm
}

// FeedForward returns the feed-forward sublayer of layer l applied to x
// (nil, nil when the layer has none).
func (st *Steps[T]) FeedForward(l int, x []T) ([]T, error) {
	inst := st.Instance()
	p := inst.layers[l].ff
	if p == nil {
		return nil, nil
	}
	return inst.feedForward(p, x)
}

// Attend returns layer l's attention sublayer applied to x, the
// sublayer's input at every position (the sum of its heads, one vector
// per position; nil, nil when the layer has none), as Run computes it.
func (st *Steps[T]) Attend(l int, x [][]T) ([][]T, error) {
	inst := st.Instance()
	a := inst.layers[l].attn
	if a == nil {
		return nil, nil
	}
	return inst.attend(a, x, fmt.Sprintf("layer %d attention", l+1))
}

// Attention returns the specification of layer l's attention sublayer
// (nil when it has none).
func (st *Steps[T]) Attention(l int) *model.Attention {
	inst := st.Instance()
	if a := inst.layers[l].attn; a != nil {
		return a.spec
	}
	return nil
}

// Projection names one of a head's matrices.
type Projection int

const (
	QueryProjection Projection = iota
	KeyProjection
	ValueProjection
)

// HeadProjection returns the query, the key or the value of head hd of
// layer l's attention at a position whose sublayer input is x.
func (st *Steps[T]) HeadProjection(l, hd int, p Projection, x []T) []T {
	inst := st.Instance()
	hp := &inst.layers[l].attn.heads[hd]
	w := hp.q
	switch p {
	case KeyProjection:
		w = hp.k
	case ValueProjection:
		w = hp.v
	}
	return inst.matVec(w, x, nil)
}

// HeadScore returns the score of key k for query q in head hd of layer
// l: q·k, divided by √d_key and by τ where the model says so.
func (st *Steps[T]) HeadScore(l, hd int, q, k []T) (T, error) {
	inst := st.Instance()
	a := inst.layers[l].attn
	sc := &attnScratch[T]{scores: zeros(inst.B, 1), t: inst.B.New()}
	_, scores, err := inst.scoreKeys(a, &a.heads[hd], q, [][]T{k}, []int{0}, sc)
	if err != nil {
		return inst.B.New(), err
	}
	return scores[0], nil
}

// KeyScores is HeadScore for each of keys, with one scratch for all:
// scores[x] is the score of keys[x].
func (st *Steps[T]) KeyScores(l, hd int, q []T, keys [][]T) ([]T, error) {
	return st.KeyScoresInto(l, hd, q, keys, nil)
}

// KeyScoresInto is KeyScores written into dst when it has room for them,
// else into a new slice. A backend whose values are pointers writes each
// score into the number dst holds there (which must be a number of the
// backend's, not shared with anything the caller still reads), so that
// scoring again allocates nothing. Machine floats are scored on plain
// slices, with the operations of HeadScore in the same order and rounded
// the same way (dotMachine, as hardAttendMachine does), not through the
// Backend interface: an analysis (package certify) scores every key for
// every query.
func (st *Steps[T]) KeyScoresInto(l, hd int, q []T, keys [][]T, dst []T) ([]T, error) {
	inst := st.Instance()
	a := inst.layers[l].attn
	hp := &a.heads[hd]
	if len(q) > 0 && machineValues(inst.B) {
		if len(dst) < len(keys) {
			dst = make([]T, len(keys))
		}
		dst = dst[:len(keys)]
		var divisors []T
		if hp.sqrtDKey != nil {
			divisors = append(divisors, *hp.sqrtDKey)
		}
		if a.temp != nil {
			divisors = append(divisors, *a.temp)
		}
		switch be := any(inst.B).(type) {
		case numeric.Float64:
			keyScoresMachine[float64](q, keys, divisors, nil, dst)
		case numeric.Float32:
			keyScoresMachine[float32](q, keys, divisors, nil, dst)
		case numeric.Emulated:
			keyScoresMachine[float64](q, keys, divisors, be.F.Round, dst)
		case numeric.NarrowBigFloat:
			keyScoresMachine[float64](q, keys, divisors, be.Round, dst)
		}
		return dst, nil
	}
	js := make([]int, len(keys))
	for j := range js {
		js[j] = j
	}
	if len(dst) < len(keys) {
		dst = zeros(inst.B, len(keys))
	}
	sc := &attnScratch[T]{scores: dst[:len(keys)], t: inst.B.New()}
	_, scores, err := inst.scoreKeys(a, &a.heads[hd], q, keys, js, sc)
	return scores, err
}

// machineValues reports whether b's values are machine floats: fp64 and
// fp32 natively, the other formats (and small bigfloats) in float64s.
func machineValues[T any](b numeric.Backend[T]) bool {
	switch any(b).(type) {
	case numeric.Float64, numeric.Float32, numeric.Emulated, numeric.NarrowBigFloat:
		return true
	}
	return false
}

// keyScoresMachine is KeyScoresInto's loop on machine floats F, which
// are T's values: each score q·k summed by dotMachine, then divided by
// each divisor in turn, rounded by round after each operation (nil: the
// native formats).
func keyScoresMachine[F machineFloat, T any](q []T, keys [][]T, divisors []T, round func(float64) float64, dst []T) {
	var r func(F) F
	if round != nil {
		r = any(round).(func(F) F)
	}
	qf, ks, divs, out := any(q).([]F), any(keys).([][]F), any(divisors).([]F), any(dst).([]F)
	if r == nil && len(divs) == 0 {
		// dotMachine inlined: the common case, one call saved per key.
		for x, k := range ks {
			k = k[:len(qf)]
			s := F(qf[0] * k[0])
			for c := 1; c < len(qf); c++ {
				s = F(s + F(qf[c]*k[c]))
			}
			out[x] = s
		}
		return
	}
	for x, k := range ks {
		s := dotMachine(qf, k, r)
		for _, div := range divs {
			s = F(s / div)
			if r != nil {
				s = r(s)
			}
		}
		out[x] = s
	}
}

// ScoreIsDot reports whether HeadScore is q·k itself: no √d_key and no τ
// divide it.
func (st *Steps[T]) ScoreIsDot(l, hd int) bool {
	inst := st.Instance()
	a := inst.layers[l].attn
	return a.temp == nil && a.heads[hd].sqrtDKey == nil
}

// HeadOutput returns what head hd of layer l outputs at a query whose
// visible positions, in increasing order, have the given scores and values:
// the weighting's selection and weighted sum, as Run computes them.
func (st *Steps[T]) HeadOutput(l, hd int, scores []T, vals [][]T) ([]T, error) {
	inst := st.Instance()
	b := inst.B
	a := inst.layers[l].attn
	if len(scores) != len(vals) {
		return nil, fmt.Errorf("%d scores for %d values", len(scores), len(vals))
	}
	d := inst.layers[l].attn.heads[hd].v.rows
	if len(scores) == 0 {
		return zeros(b, d), nil
	}
	js := make([]int, len(scores))
	finite := make([]bool, len(scores))
	for j := range js {
		js[j] = j
		finite[j] = allFinite(b, vals[j])
	}
	sc := &attnScratch[T]{js: js, scores: scores, t: b.New(), finite: finite}
	if a.spec.Weighting != model.Softmax && b.Precision().Kind == numeric.KindExact {
		return inst.hardExact(zeros(b, d), a.spec.Weighting, scores, js, vals, nil, sc)
	}
	return inst.weightedSum(a.spec.Weighting, scores, js, vals, d, sc)
}

// SumHeads is the attention sublayer's output from its heads' outputs at
// one position, added in head order as Run adds them.
func (st *Steps[T]) SumHeads(outs [][]T) []T {
	inst := st.Instance()
	b := inst.B
	sum := make([]T, len(outs[0]))
	for c := range sum {
		sum[c] = b.Set(b.New(), outs[0][c])
	}
	for _, o := range outs[1:] {
		for c := range sum {
			sum[c] = b.Add(sum[c], sum[c], o[c])
		}
	}
	return sum
}

// FinalNorm applies the final layer norm (pre-norm models), or returns h.
func (st *Steps[T]) FinalNorm(h []T) ([]T, error) {
	inst := st.Instance()
	if inst.finalNorm == nil {
		return h, nil
	}
	return inst.layerNorm(inst.finalNorm, h)
}

// Output applies the unembedding to the last residual stream at one
// position.
func (st *Steps[T]) Output(h []T) (PositionOutput, error) {
	inst := st.Instance()
	return inst.output(h)
}
