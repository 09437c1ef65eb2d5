package recipes

import (
	"fmt"
	"math/big"
	"math/rand/v2"
	"strings"

	"github.com/transformer-cookbook/verify/exact"
	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/recipes/stream"
)

// The inputs recipes draw: every string of symbols or seeded random ones
// (sampleOrAll), and sequences of real vectors (vectorInput).

// vectorInput describes recipes whose input is a sequence of real vectors
// (the feed-forward recipes, Avg, layer norm): each position holds the
// values of the components Names, typed as "x, y; x, y" (positions
// separated by ";", values by ",").
type vectorInput struct {
	Names []string
	// Finite, when set, is the whole domain of one position (Boolean
	// inputs): sequences are enumerated while there are few enough.
	Finite [][]*big.Rat
	// Sample draws one position's values from the domain, with the
	// boundaries of the claimed domain (where the paper's gray regions
	// begin) drawn often.
	Sample func(rng *rand.Rand) []*big.Rat
	// Valid reports a position outside the domain (nil: all of ℝ^k).
	Valid func(x []*big.Rat) error
	// Ranges, when set, bound each component as the domain does (see
	// VectorDomain.Ranges).
	Ranges []ComponentRange
}

// Construction returns a Construction for model m over this input, with
// the reference ref on whole sequences (given the inputs as the format
// stores them).
func (vi vectorInput) Construction(m *model.Model, ref func(xs [][]*big.Rat) []Want) *Construction {
	c := &Construction{Model: m}
	c.Vector = &VectorDomain{Names: vi.Names, Finite: vi.Finite, Valid: vi.Valid, Ranges: vi.Ranges,
		Case: func(xs [][]*big.Rat) Case { return vi.newCase(m, xs) }}
	c.Inputs = func(n int, rng *rand.Rand, budget int) ([]Case, bool) {
		if vi.Finite != nil {
			idx, all := sampleOrAll(n, len(vi.Finite), rng, budget, nil)
			cases := make([]Case, len(idx))
			for k, in := range idx {
				xs := make([][]*big.Rat, n)
				for i, s := range in {
					xs[i] = vi.Finite[s]
				}
				cases[k] = vi.newCase(m, xs)
			}
			return cases, all
		}
		if rng == nil {
			return nil, false
		}
		cases := make([]Case, budget)
		for k := range cases {
			xs := make([][]*big.Rat, n)
			for i := range xs {
				xs[i] = vi.Sample(rng)
			}
			cases[k] = vi.newCase(m, xs)
		}
		return cases, false
	}
	c.Valid = func(cs Case) error {
		if vi.Valid == nil {
			return nil
		}
		for i, x := range vi.values(m, cs) {
			if err := vi.Valid(x); err != nil {
				return fmt.Errorf("position %d: %w", i+1, err)
			}
		}
		return nil
	}
	c.Expected = func(cs Case) []Want { return ref(vi.values(m, cs)) }
	c.Parse = func(text string) (Case, error) {
		var xs [][]*big.Rat
		for i, pos := range strings.Split(text, ";") {
			fields := strings.Split(pos, ",")
			if len(fields) != len(vi.Names) {
				return Case{}, fmt.Errorf("position %d: %d values, want %d (%s); separate positions with ';' and values with ','",
					i+1, len(fields), len(vi.Names), strings.Join(vi.Names, ", "))
			}
			x := make([]*big.Rat, len(fields))
			for k, f := range fields {
				v, err := exact.ParseRat(strings.TrimSpace(f))
				if err != nil {
					return Case{}, fmt.Errorf("position %d, %s: %w", i+1, vi.Names[k], err)
				}
				x[k] = v
			}
			xs = append(xs, x)
		}
		return vi.newCase(m, xs), nil
	}
	return c
}

// newCase places the values xs[i] of Names on the residual stream.
func (vi vectorInput) newCase(m *model.Model, xs [][]*big.Rat) Case {
	pos := make([]map[string]*big.Rat, len(xs))
	texts := make([]string, len(xs))
	for i, x := range xs {
		pos[i] = map[string]*big.Rat{}
		parts := make([]string, len(x))
		for k, v := range x {
			pos[i][vi.Names[k]] = v
			parts[k] = v.RatString()
		}
		texts[i] = strings.Join(parts, ", ")
	}
	h, err := stream.Stream(m, pos)
	if err != nil {
		panic("recipes: " + err.Error()) // the recipe names a component its model lacks
	}
	return Case{Stream: h, Text: strings.Join(texts, "; ")}
}

// values reads the values of Names back from a case's stream.
func (vi vectorInput) values(m *model.Model, c Case) [][]*big.Rat {
	at := map[string]int{}
	for k, name := range m.Components {
		at[name] = k
	}
	xs := make([][]*big.Rat, len(c.Stream))
	for i, row := range c.Stream {
		xs[i] = make([]*big.Rat, len(vi.Names))
		for k, name := range vi.Names {
			xs[i][k] = row[at[name]]
		}
	}
	return xs
}

// pointwise is the reference of a position-wise recipe: ref maps one
// position's inputs to its outputs.
func pointwise(ref func(x []*big.Rat) Want) func(xs [][]*big.Rat) []Want {
	return func(xs [][]*big.Rat) []Want {
		want := make([]Want, len(xs))
		for i, x := range xs {
			want[i] = ref(x)
		}
		return want
	}
}

// randRat draws a rational in [lo, hi] with denominator den, uniformly on
// that grid.
func randRat(rng *rand.Rand, lo, hi int64, den int64) *big.Rat {
	k := rng.Int64N((hi-lo)*den + 1)
	return big.NewRat(lo*den+k, den)
}

// pickRat draws, with probability 1/3, one of the special values (the
// boundaries of a domain or of a gray region), else randRat(lo, hi, den).
func pickRat(rng *rand.Rand, special []*big.Rat, lo, hi, den int64) *big.Rat {
	if len(special) > 0 && rng.IntN(3) == 0 {
		return new(big.Rat).Set(special[rng.IntN(len(special))])
	}
	return randRat(rng, lo, hi, den)
}

// sampleOrAll enumerates the inputs of length n over an alphabet of size
// k when k^n ≤ budget, else draws budget inputs with rng, each symbol
// drawn by pick (or uniformly when pick is nil); with a nil rng, it
// draws none.
func sampleOrAll(n, k int, rng *rand.Rand, budget int, pick func(i, n int, rng *rand.Rand) int) ([][]int, bool) {
	total := 1
	for i := 0; i < n && total <= budget; i++ {
		total *= k
	}
	if total <= budget {
		all := make([][]int, 0, total)
		cur := make([]int, n)
		for c := 0; c < total; c++ {
			x := c
			for i := n - 1; i >= 0; i-- {
				cur[i] = x % k
				x /= k
			}
			all = append(all, append([]int(nil), cur...))
		}
		return all, true
	}
	if rng == nil {
		return nil, false
	}
	out := make([][]int, budget)
	for c := range out {
		in := make([]int, n)
		for i := range in {
			if pick != nil {
				in[i] = pick(i, n, rng)
			} else {
				in[i] = rng.IntN(k)
			}
		}
		out[c] = in
	}
	return out, false
}

// VectorDomain describes the input of one position of a recipe whose
// input is a sequence of real vectors.
type VectorDomain struct {
	// Names are the components a position's input sets (the others
	// start at 0).
	Names []string
	// Domain is the recipe's claimed domain, in the paper's words.
	Domain string
	// Finite, when set, is every input of one position.
	Finite [][]*big.Rat
	// Valid reports a position's input outside the claimed domain (nil:
	// every point of ℝ^k is in it).
	Valid func(x []*big.Rat) error
	// Ranges, when set, bound each component of Names as the domain does
	// (Valid still decides each point): an analysis of every input splits
	// no more than they hold.
	Ranges []ComponentRange
	// Case places the positions' inputs on the residual stream: the
	// input of length len(xs) whose position i holds xs[i].
	Case func(xs [][]*big.Rat) Case
}

// ComponentRange is what a domain allows of one component: the listed
// Values, or the interval [Lo, Hi] (a nil end: unbounded).
type ComponentRange struct {
	Values []*big.Rat
	Lo, Hi *big.Rat
}
