package eval

import (
	"fmt"
	"math/big"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/numeric"
)

// wordModel is validModel with an alphabet of 700 symbols (three chunks
// of rows): row s is (s, s/7, 0), written as literals, except that
// every fifth row is nil (zero) and row 300, in the second chunk, writes
// 1/3 as an expression (1 ÷ 3), which Instantiate must round at once.
func wordModel() *model.Model {
	m := validModel()
	m.Alphabet = make([]string, 700)
	m.WordEmbedding = make([]model.Vector, 700)
	for s := range m.Alphabet {
		m.Alphabet[s] = fmt.Sprint("s", s)
		if s%5 != 4 {
			m.WordEmbedding[s] = model.Vector{numeric.LitInt(int64(s)), numeric.Frac(int64(s), 7), numeric.LitInt(0)}
		}
	}
	m.WordEmbedding[300] = model.Vector{numeric.LitInt(1), numeric.Quo(numeric.LitInt(1), numeric.LitInt(3)), numeric.Expr{}}
	return m
}

// TestWordEmbeddingRounding: the rows rounded when first read are each
// entry rounded by the backend's Eval, whichever goroutine reads them
// first and in whatever order (eight at once, under the race detector);
// only the chunk with an expression is rounded by Instantiate.
func TestWordEmbeddingRounding(t *testing.T) {
	t.Run("exact", func(t *testing.T) { testWordEmbedding[*big.Rat](t, numeric.Exact{}) })
	t.Run("bigfloat-24", func(t *testing.T) { testWordEmbedding[*big.Float](t, numeric.NewBigFloat(24)) })
	t.Run("fp16", func(t *testing.T) { testWordEmbedding[float64](t, numeric.NewEmulated(numeric.Binary16)) })
	t.Run("fp64", func(t *testing.T) { testWordEmbedding[float64](t, numeric.Float64{}) })
}

func testWordEmbedding[T any](t *testing.T, b numeric.Backend[T]) {
	m := wordModel()
	inst, err := Instantiate(b, m)
	if err != nil {
		t.Fatal(err)
	}
	for c, want := range []bool{false, true, false} {
		if got := inst.we.chunks[c].Load() != nil; got != want {
			t.Errorf("chunk %d rounded by Instantiate: %v, want %v", c, got, want)
		}
	}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for _, s := range rand.New(rand.NewPCG(uint64(g), 1)).Perm(len(m.Alphabet)) {
				row := inst.we.row(s)
				if len(row) != m.D || cap(row) != m.D {
					t.Errorf("row %d: length %d, capacity %d, want %d", s, len(row), cap(row), m.D)
					return
				}
				for c, got := range row {
					var e numeric.Expr
					if m.WordEmbedding[s] != nil {
						e = m.WordEmbedding[s][c]
					}
					want, err := b.Eval(b.New(), e)
					if err != nil {
						t.Error(err)
						return
					}
					if b.Cmp(got, want) != numeric.Equal {
						t.Errorf("row %d entry %d: %s, want %s", s, c, b.Format(got), b.Format(want))
						return
					}
				}
			}
		}()
	}
	wg.Wait()
}

// TestEmbedDependenceRoundsOnlyWhatDiffers: over 700 symbols, a component
// that every row writes with the same expression depends on the position
// alone without a row rounded past the first chunk; equal values written
// by different expressions (5000, made twice) are compared as values; and
// one row that differs, late in the alphabet, is found.
func TestEmbedDependenceRoundsOnlyWhatDiffers(t *testing.T) {
	m := validModel()
	same, other := numeric.LitInt(5000), numeric.LitInt(5000)
	m.Alphabet = make([]string, 700)
	m.WordEmbedding = make([]model.Vector, 700)
	for s := range m.Alphabet {
		m.Alphabet[s] = fmt.Sprint("s", s)
		m.WordEmbedding[s] = model.Vector{same, same, same}
	}
	m.WordEmbedding[650] = model.Vector{same, other, numeric.LitInt(7)}
	inst, err := Instantiate[*big.Rat](numeric.Exact{}, m)
	if err != nil {
		t.Fatal(err)
	}
	deps, err := inst.Steps().EmbedDependence(2)
	if err != nil {
		t.Fatal(err)
	}
	for c, want := range []bool{true, true, false} {
		if deps[c].Position != want {
			t.Errorf("component %d depends on the position alone: %v, want %v", c, deps[c].Position, want)
		}
	}
	if inst.we.chunks[1].Load() != nil {
		t.Errorf("chunk 1 (symbols 256 to 511), which repeats row 0's expressions, was rounded")
	}
	if inst.we.chunks[2].Load() == nil {
		t.Errorf("chunk 2, whose row 650 differs, was not rounded")
	}
}
