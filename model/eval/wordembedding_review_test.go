package eval

import (
	"fmt"
	"math/big"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"

	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/numeric"
)

// reviewModel has an alphabet of k symbols in a stream of width 2 and no
// layers: row s is (s, s mod 3), read out as it is.
func reviewModel(k int) *model.Model {
	m := &model.Model{Name: "review", D: 2, Alphabet: make([]string, k), WordEmbedding: make([]model.Vector, k),
		Output: model.Output{Kind: model.Readout, W: model.Ints([]int64{1, 0}, []int64{0, 1})}}
	for s := range k {
		m.Alphabet[s] = fmt.Sprint("s", s)
		m.WordEmbedding[s] = model.Vector{numeric.LitInt(int64(s)), numeric.LitInt(int64(s % 3))}
	}
	return m
}

// TestWordEmbeddingErrorIsInstantiates: a row that cannot round (√2 in
// exact arithmetic), in a chunk of literals past the first, is
// Instantiate's error, naming the row and the entry as before the rows
// were rounded lazily.
func TestWordEmbeddingErrorIsInstantiates(t *testing.T) {
	m := reviewModel(700)
	m.WordEmbedding[600][1] = numeric.Sqrt(numeric.LitInt(2))
	m.WordEmbedding[650][0] = numeric.Sqrt(numeric.LitInt(3))
	_, err := Instantiate[*big.Rat](numeric.Exact{}, m)
	if err == nil {
		t.Fatal("√2 instantiated in exact arithmetic")
	}
	const want = `word embedding of "s600"[2] = sqrt(2): `
	if !strings.HasPrefix(err.Error(), want) {
		t.Errorf("error %q, want it to begin %q", err, want)
	}
}

// TestNarrowWordEmbeddingExit: a word embedding literal that leaves
// float64's share of the range (2^−1100 at 24 bits) gives the results
// of the 24-bit big.Float instance whether it is rounded at Instantiate
// or when a run first reads it, on each symbol, run after run, and
// concurrently.
func TestNarrowWordEmbeddingExit(t *testing.T) {
	for _, at := range []int{0, 5, 300, 699} {
		m := reviewModel(700)
		tiny := new(big.Rat).SetFrac(big.NewInt(1), new(big.Int).Lsh(big.NewInt(1), 1100))
		m.WordEmbedding[at][1] = numeric.Lit(tiny)
		p := numeric.MustParsePrecision("24")
		r, err := New(p, m)
		if err != nil {
			t.Fatal(err)
		}
		ref, err := Instantiate[*big.Float](numeric.NewBigFloat(24), m)
		if err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		for g := range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for _, s := range rand.New(rand.NewPCG(uint64(g), uint64(at))).Perm(len(m.Alphabet)) {
					in := []int{s, (s + 1) % len(m.Alphabet), at}
					got, err := r.Run(in, false)
					if err != nil {
						t.Error(err)
						return
					}
					want, err := ref.Run(in, false)
					if err != nil {
						t.Error(err)
						return
					}
					for i := range want.Outputs {
						for c := range want.Outputs[i].Values {
							if g, w := got.Outputs[i].Values[c].Text, want.Outputs[i].Values[c].Text; g != w {
								t.Errorf("row %d tiny, input %v position %d value %d: %s, want %s", at, in, i+1, c, g, w)
								return
							}
						}
					}
				}
			}()
		}
		wg.Wait()
	}
}

// naiveDependence is EmbedDependence from its definition: every row's
// entry rounded by Eval and compared with row 0's, the bounds over every
// row and position.
func naiveDependence[T any](b numeric.Backend[T], m *model.Model, pe [][]T) []EmbedDependence {
	bounded := b.Precision().Kind != numeric.KindExact
	out := make([]EmbedDependence, m.D)
	for c := range out {
		dep := EmbedDependence{Symbol: true, Position: true, Finite: true}
		val := func(s int) T {
			var e numeric.Expr
			if m.WordEmbedding[s] != nil {
				e = m.WordEmbedding[s][c]
			}
			v, err := b.Eval(b.New(), e)
			if err != nil {
				panic(err)
			}
			return v
		}
		maxW, maxP, t := b.New(), b.New(), b.New()
		first := val(0)
		for s := range m.Alphabet {
			v := val(s)
			if b.Cmp(v, first) != numeric.Equal {
				dep.Position = false
			}
			dep.Finite = dep.Finite && b.Finite(v)
			t = b.Abs(t, v)
			maxW = b.Max(maxW, maxW, t)
		}
		for _, row := range pe {
			if b.Cmp(row[c], pe[0][c]) != numeric.Equal {
				dep.Symbol = false
			}
			dep.Finite = dep.Finite && b.Finite(row[c])
			t = b.Abs(t, row[c])
			maxP = b.Max(maxP, maxP, t)
		}
		if dep.Finite && pe != nil {
			dep.Finite = b.Finite(b.Add(t, maxW, maxP))
		}
		if !bounded {
			dep.Finite = true
		}
		out[c] = dep
	}
	return out
}

// TestEmbedDependenceAgainstDefinition: random word embeddings over 600
// symbols whose entries are shared expressions, equal values written
// apart, nil rows, zero entries and values that overflow the format,
// against naiveDependence (EmbedDependence as it was at 4986f70), at
// exact, fp16, 24-bit bigfloat, fp64 and 64-bit intervals. At intervals
// it fails since b462f9b: a component that every row writes with one
// irrational expression is now Position (the rows are skipped as row 0's
// expression), where comparing the rounded values gave Unordered.
func TestEmbedDependenceAgainstDefinition(t *testing.T) {
	t.Run("exact", func(t *testing.T) { testDependence[*big.Rat](t, numeric.Exact{}, false) })
	t.Run("fp16", func(t *testing.T) { testDependence[float64](t, numeric.NewEmulated(numeric.Binary16), true) })
	t.Run("bigfloat-24", func(t *testing.T) { testDependence[*big.Float](t, numeric.NewBigFloat(24), true) })
	t.Run("fp64", func(t *testing.T) { testDependence[float64](t, numeric.Float64{}, true) })
	// An interval of √2 is not a point: two of them are Unordered, not
	// Equal, even when they are the same expression rounded.
	t.Run("interval-64", func(t *testing.T) { testDependence[*numeric.Interval](t, numeric.NewIntervals(64), true) })
}

func testDependence[T any](t *testing.T, b numeric.Backend[T], irrational bool) {
	rng := rand.New(rand.NewPCG(3, 4))
	huge := numeric.Lit(new(big.Rat).SetInt(new(big.Int).Lsh(big.NewInt(1), 2000)))
	for trial := range 60 {
		k := 1 + rng.IntN(600)
		m := reviewModel(k)
		shared := []numeric.Expr{numeric.LitInt(5000), numeric.Frac(1, 3), {}, numeric.LitInt(0)}
		if irrational {
			shared = append(shared, numeric.Sqrt(numeric.LitInt(2)))
		}
		pick := func() numeric.Expr {
			switch rng.IntN(8) {
			case 0:
				return numeric.LitInt(5000) // equal to shared[0], another Expr
			case 1:
				return huge
			case 2:
				return numeric.LitInt(int64(rng.IntN(3)))
			default:
				return shared[rng.IntN(len(shared))]
			}
		}
		for s := range k {
			switch rng.IntN(10) {
			case 0:
				m.WordEmbedding[s] = nil
			default:
				m.WordEmbedding[s] = model.Vector{pick(), pick()}
			}
		}
		if trial%4 == 0 && k > 1 {
			// Component 1 is one expression in every row.
			e := shared[trial/4%len(shared)]
			for s := range k {
				if m.WordEmbedding[s] == nil {
					m.WordEmbedding[s] = model.Vector{{}, {}}
				}
				m.WordEmbedding[s][1] = e
			}
		}
		if rng.IntN(2) == 0 {
			m.Position = &model.PositionEncoding{Name: "p", Vector: func(i, n int) model.Vector {
				return model.Vector{numeric.LitInt(int64(i % 2)), {}}
			}}
		}
		inst, err := Instantiate(b, m)
		if err != nil {
			t.Fatal(err)
		}
		const n = 3
		got, err := inst.Steps().EmbedDependence(n)
		if err != nil {
			t.Fatal(err)
		}
		pe, err := inst.positions(n)
		if err != nil {
			t.Fatal(err)
		}
		want := naiveDependence(b, m, pe)
		for c := range want {
			if got[c] != want[c] {
				t.Errorf("trial %d (%d symbols) component %d: %+v, want %+v", trial, k, c, got[c], want[c])
			}
		}
	}
}

// TestWordEmbeddingPrefixAndRunRace: the prefix runner, Run and
// EmbedDependence read the rows of one instance at once (under the race
// detector), and agree with Run alone.
func TestWordEmbeddingPrefixAndRunRace(t *testing.T) {
	m := reviewModel(1000)
	inst, err := Instantiate[*big.Rat](numeric.Exact{}, m)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for g := range 6 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(g), 9))
			switch g % 3 {
			case 0:
				pr, err := inst.prefixRunner(4)
				if err != nil {
					t.Error(err)
					return
				}
				var p Prefix
				for range 4 {
					s := rng.IntN(1000)
					if p, err = pr.Extend(p, s); err != nil {
						t.Error(err)
						return
					}
				}
			case 1:
				for range 200 {
					s := rng.IntN(1000)
					res, err := inst.Run([]int{s}, false)
					if err != nil {
						t.Error(err)
						return
					}
					if w := fmt.Sprint(s); res.Outputs[0].Values[0].Text != w {
						t.Errorf("symbol %d reads %s", s, res.Outputs[0].Values[0].Text)
						return
					}
				}
			default:
				if _, err := inst.Steps().EmbedDependence(3); err != nil {
					t.Error(err)
				}
			}
		}()
	}
	wg.Wait()
}

// TestValidateErrorOrder: an alphabet with a row of the wrong length
// before a repeated symbol is reported as the row, as Validate did when
// it checked symbol by symbol (4986f70). It fails since 658f82c, which
// looks for repeats over the whole alphabet first.
func TestValidateErrorOrder(t *testing.T) {
	m := reviewModel(5)
	m.WordEmbedding[1] = model.Vector{numeric.LitInt(1)}
	m.Alphabet[4] = m.Alphabet[3]
	err := m.Validate()
	if err == nil || !strings.Contains(err.Error(), `the row of "s1"`) {
		t.Errorf("Validate: %v, want the row of \"s1\" named", err)
	}
}
