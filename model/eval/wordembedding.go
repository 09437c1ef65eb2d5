package eval

import (
	"fmt"
	"sync/atomic"

	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/numeric"
)

// wordChunk is how many word embedding rows are rounded together, on the
// first use of one of them.
const wordChunk = 256

// wordEmbedding is a model's word embedding rounded to a backend. A row
// of rational literals cannot fail to round, so those rows are rounded
// when a run first reads them, a chunk of rows at a time: a model built
// for N = 8192 has an alphabet of 16,384 symbols, and a run at n = 512
// reads 1,024 of them. Rows with any other expression are rounded at
// once, so that an error in one is Instantiate's. Safe for concurrent
// use: two runs that fill the same chunk at once both round it, and one
// of the two (equal) results is kept.
type wordEmbedding[T any] struct {
	b        numeric.Backend[T]
	rows     []model.Vector
	alphabet []string
	d        int
	chunks   []atomic.Pointer[[]T]
}

// newWordEmbedding rounds m's word embedding to b: at once the chunks
// that hold a row with an expression other than a literal, and the rest
// when first read.
func newWordEmbedding[T any](b numeric.Backend[T], m *model.Model, in *instantiator[T]) *wordEmbedding[T] {
	w := &wordEmbedding[T]{b: b, rows: m.WordEmbedding, alphabet: m.Alphabet, d: m.D,
		chunks: make([]atomic.Pointer[[]T], (len(m.WordEmbedding)+wordChunk-1)/wordChunk)}
	for c := range w.chunks {
		if w.literal(c) {
			continue
		}
		block := w.round(c, in)
		if in.err != nil {
			return w
		}
		w.chunks[c].Store(&block)
	}
	return w
}

// literal reports whether every entry of chunk c is a rational literal.
func (w *wordEmbedding[T]) literal(c int) bool {
	for _, row := range w.rows[c*wordChunk : min((c+1)*wordChunk, len(w.rows))] {
		for _, e := range row {
			if !e.IsLiteral() {
				return false
			}
		}
	}
	return true
}

// round rounds chunk c's rows into one block. The row's name is written
// only for an error (the row is then read again to say where): one
// Sprintf per symbol costs more than the row, with thousands of symbols.
func (w *wordEmbedding[T]) round(c int, in *instantiator[T]) []T {
	lo, hi := c*wordChunk, min((c+1)*wordChunk, len(w.rows))
	block := make([]T, (hi-lo)*w.d)
	for s := lo; s < hi; s++ {
		dst := block[(s-lo)*w.d : (s-lo+1)*w.d : (s-lo+1)*w.d]
		row := w.rows[s]
		if row == nil {
			for k := range dst {
				dst[k] = w.b.New()
			}
			continue
		}
		failed := in.err != nil
		in.vectorInto(dst, row, "")
		if in.err != nil && !failed {
			in.err = nil
			in.vectorInto(dst, row, fmt.Sprintf("word embedding of %q", w.alphabet[s]))
		}
	}
	return block
}

// row is symbol s's row, rounded. It must not be modified.
func (w *wordEmbedding[T]) row(s int) []T {
	c := s / wordChunk
	p := w.chunks[c].Load()
	if p == nil {
		// Only chunks of literals are left to round here, and a literal
		// rounds without error at every backend: one that did not would
		// otherwise give wrong values silently.
		in := &instantiator[T]{b: w.b}
		block := w.round(c, in)
		if in.err != nil {
			panic(fmt.Sprintf("model: a word embedding row of literals failed to round: %v", in.err))
		}
		if w.chunks[c].CompareAndSwap(nil, &block) {
			p = &block
		} else {
			p = w.chunks[c].Load()
		}
	}
	k := (s - c*wordChunk) * w.d
	return (*p)[k : k+w.d : k+w.d]
}

// expr is entry c of symbol s's row as the model writes it (the zero
// Expr for a row that is nil).
func (w *wordEmbedding[T]) expr(s, c int) numeric.Expr {
	if w.rows[s] == nil {
		return numeric.Expr{}
	}
	return w.rows[s][c]
}

// len is the number of symbols.
func (w *wordEmbedding[T]) len() int { return len(w.rows) }
