package recipes

import (
	"fmt"
	"math/big"

	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/numeric"
	"github.com/transformer-cookbook/verify/recipes/blocks"
	"github.com/transformer-cookbook/verify/recipes/stream"
)

// Feed-forward blocks the induction heads compose by the Routing Lemma
// (thm:routing) and §Boolean Functions: a block reading linear
// combinations of components, ff_φ pruned to the units that reach the
// output, and the sum of several blocks in one FFN.

// inductPremultiply is the Routing Lemma's f ∘ R (thm:routing: W1′ = W1 R,
// b1′ = b1) for a block f: its input k becomes the linear combination
// Σ_c r[k][c] in[c] of the components in.
func inductPremultiply(f *stream.FF, name string, in []string, r [][]int64) (*stream.FF, error) {
	if len(r) != len(f.In) {
		return nil, fmt.Errorf("premultiply %s: R has %d rows, want %d", f.Name, len(r), len(f.In))
	}
	g := *f
	g.Name, g.In = name, in
	g.W1 = model.Zeros(f.W1.Rows, len(in))
	for h := 0; h < f.W1.Rows; h++ {
		for c := range in {
			sum := new(big.Rat)
			for k := range f.In {
				w, err := ratOf(f.W1.At(h, k))
				if err != nil {
					return nil, err
				}
				sum.Add(sum, w.Mul(w, big.NewRat(r[k][c], 1)))
			}
			if sum.Sign() != 0 {
				g.W1.Set(h, c, numeric.Lit(sum))
			}
		}
	}
	return &g, nil
}

// inductPrune drops the hidden units of f whose output weights are all 0:
// the same function, with fewer units. ff_φ of §Boolean Functions has one
// unit per truth assignment, and only those where φ is true reach the
// output; for a conjunction that is the single unit ReLU(Σ x − (m − 1)).
func inductPrune(f *stream.FF) (*stream.FF, error) {
	var keep []int
	for h := 0; h < f.W1.Rows; h++ {
		for o := range f.Out {
			w, err := ratOf(f.W2.At(o, h))
			if err != nil {
				return nil, err
			}
			if w.Sign() != 0 {
				keep = append(keep, h)
				break
			}
		}
	}
	g := *f
	g.W1, g.W2 = model.Zeros(len(keep), len(f.In)), model.Zeros(len(f.Out), len(keep))
	g.B1 = make(model.Vector, len(keep))
	for r, h := range keep {
		for c := range f.In {
			g.W1.Set(r, c, f.W1.At(h, c))
		}
		if f.B1 != nil {
			g.B1[r] = f.B1[h]
		}
		for o := range f.Out {
			g.W2.Set(o, r, f.W2.At(o, h))
		}
	}
	return &g, nil
}

// inductConjunction is ff_φ for φ = x_1 ∧ … ∧ x_m (§Boolean Functions),
// pruned.
func inductConjunction(xs []string, out string) (*stream.FF, error) {
	table := make([]bool, 1<<len(xs))
	table[len(table)-1] = true
	f, err := blocks.Boolean(xs, out, table)
	if err != nil {
		return nil, err
	}
	f.Name = "∧"
	return inductPrune(f)
}

// inductSum is the parallel composition of single-output blocks fs
// followed by the Routing Lemma's L = [1 … 1] (thm:routing: W2′ = L W2,
// b2′ = L b2): one FFN, their hidden units side by side, reading the
// union of their inputs and writing the sum of their outputs to out.
func inductSum(name, out string, fs ...*stream.FF) *stream.FF {
	var in []string
	col := map[string]int{}
	hidden := 0
	for _, f := range fs {
		for _, c := range f.In {
			if _, ok := col[c]; !ok {
				col[c] = len(in)
				in = append(in, c)
			}
		}
		hidden += f.W1.Rows
	}
	g := &stream.FF{Name: name, In: in, Out: []string{out}, W1: model.Zeros(hidden, len(in)),
		B1: make(model.Vector, hidden), W2: model.Zeros(1, hidden)}
	b2 := numeric.LitInt(0)
	h0 := 0
	for _, f := range fs {
		for h := 0; h < f.W1.Rows; h++ {
			for k, c := range f.In {
				g.W1.Set(h0+h, col[c], f.W1.At(h, k))
			}
			if f.B1 != nil {
				g.B1[h0+h] = f.B1[h]
			}
			g.W2.Set(0, h0+h, f.W2.At(0, h))
		}
		if f.B2 != nil {
			b2 = numeric.Add(b2, f.B2[0])
		}
		h0 += f.W1.Rows
	}
	if r, ok, err := b2.Rat(); err == nil && ok && r.Sign() != 0 {
		g.B2 = model.Vector{numeric.Lit(r)}
	}
	return g
}
