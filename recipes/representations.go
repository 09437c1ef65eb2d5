package recipes

import (
	"fmt"
	"math/big"
	"math/rand/v2"

	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/numeric"
	"github.com/transformer-cookbook/verify/recipes/blocks"
	"github.com/transformer-cookbook/verify/recipes/stream"
)

// The discrete representations of §Basic Ingredients: Booleans
// (sec:booleans), categories (sec:symbols), integers as counts
// (sec:integers), and the special symbol BOS (§Special Symbols).

// ---------------------------------------------------------------------------
// §Special Symbols

// bosAlphabet is the alphabet of the bos recipe: the beginning-of-sequence
// symbol ^ and the symbols a, b.
var bosAlphabet = []string{"^", "a", "b"}

// bos is §Special Symbols: "Having one of these tokens in the sequence
// also allows a transformer to compute the value 1/(n+1) (or 1/(i+1) if
// future-masked) by using uniform attention." The word embedding writes
// the indicator bos = 1 for ^ (0 for a and b); then two uniform-attention
// layers of §Average read it: Avg (W^Q = W^K = 0, W^V = 1, unmasked) and
// Avg← (the same, future-masked).
//
// The paper's n is the length of the string w without BOS, and its i the
// position of a symbol of w; the model reads ^w, of length n + 1, and
// w's i-th symbol sits at the model's position i + 1 (BOS at model
// position 1 is the paper's i = 0). Unmasked, every position receives
// (1/(n+1)) Σ_j bos_j = 1/(n+1); future-masked, the model's position
// i + 1 receives 1/(i+1) (1 at BOS itself). So at model position p of an
// input of model length N = n + 1 the outputs are 1/N and 1/p.
//
// Domain: ^ at the first position and nowhere else. Exact under SMAT and
// AHAT (uniform attention; under UHAT the tie goes to one position).
var bos = &Recipe{
	Name:        "bos",
	Title:       "1/(n+1) (unmasked) and 1/(i+1) (future-masked) by uniform attention to a beginning-of-sequence symbol",
	Section:     "Special Symbols",
	Label:       "",
	Domain:      "^w with w ∈ {a, b}*: BOS (^) at the first position only; the model's length is |w| + 1 = n + 1",
	Weightings:  []model.Weighting{model.Softmax, model.AverageHardmax},
	Exact:       true,
	Width:       "3 (bos, 1/(n+1), 1/(i+1))",
	MinN:        1,
	DefaultMaxN: 200,
	Build: func(cfg Config) (*Construction, error) {
		w := cfg.Weighting
		m, err := stream.New("bos-"+WeightingAcronym(w), "bos").
			Symbols(bosAlphabet, func(s int) stream.Values {
				if s == 0 {
					return stream.Values{"bos": numeric.LitInt(1)}
				}
				return stream.Values{}
			}).
			Then(blocks.Avg([]string{"bos"}, []string{"1/(n+1)"}, model.NoMask, w),
				blocks.Avg([]string{"bos"}, []string{"1/(i+1)"}, model.Future, w)).
			Readout("1/(n+1)", "1/(i+1)").Model()
		if err != nil {
			return nil, err
		}
		return &Construction{Model: m, Inputs: bosInputs, Valid: bosValid, Expected: bosExpected}, nil
	}}

// bosInputs returns ^w for the strings w ∈ {a, b}^{n−1}: n is the
// model's length, BOS included.
func bosInputs(n int, rng *rand.Rand, budget int) ([]Case, bool) {
	ws, all := sampleOrAll(n-1, 2, rng, budget, nil)
	ins := make([][]int, len(ws))
	for k, w := range ws {
		in := []int{0}
		for _, s := range w {
			in = append(in, s+1)
		}
		ins[k] = in
	}
	return SymbolCases(ins), all
}

func bosValid(c Case) error {
	for i, s := range c.Symbols {
		if i == 0 && s != 0 {
			return fmt.Errorf("position 1 holds %q: the input must begin with the BOS symbol ^", bosAlphabet[s])
		}
		if i > 0 && s == 0 {
			return fmt.Errorf("position %d holds BOS (^): it may only be at the first position", i+1)
		}
	}
	return nil
}

// bosExpected: at model position p (BOS is p = 1, the paper's i = p − 1)
// of an input of model length N (the paper's n = N − 1), 1/N = 1/(n+1)
// and 1/p = 1/(i+1).
func bosExpected(c Case) []Want {
	n := c.Len()
	want := make([]Want, n)
	for p := 1; p <= n; p++ {
		want[p-1] = values(big.NewRat(1, int64(n)), big.NewRat(1, int64(p)))
	}
	return want
}

// ---------------------------------------------------------------------------
// §Integer Representations

// count is §Integer Representations: "a count C stored as C/n where n is
// the length of the input or C/i where i is the position where this
// integer is stored. We often end up with the former when using unmasked
// uniform attention to compute integer values, and the latter when using
// future-masked uniform attention." The word embedding writes the
// indicator [x_j = a] of the counted symbol; Avg (§Average, W^Q = W^K =
// 0, W^V = 1) gives C/n with C = #a in the whole string at every
// position, and Avg← gives C_i/i with C_i = #a in x_1 … x_i at position
// i. Domain: every string over {a, b}. Exact under SMAT and AHAT.
var count = &Recipe{
	Name:        "count",
	Title:       "a count C stored as C/n (unmasked uniform attention) and C_i/i (future-masked): here C = the number of a's",
	Section:     "Integer Representations",
	Label:       "sec:integers",
	Domain:      "every string over {a, b}",
	Weightings:  []model.Weighting{model.Softmax, model.AverageHardmax},
	Exact:       true,
	Width:       "3 ([x_j = a], C/n, C_i/i)",
	MinN:        1,
	DefaultMaxN: 200,
	Build: func(cfg Config) (*Construction, error) {
		w := cfg.Weighting
		m, err := stream.New("count-"+WeightingAcronym(w), "[a]").
			Symbols([]string{"a", "b"}, func(s int) stream.Values {
				if s == 0 {
					return stream.Values{"[a]": numeric.LitInt(1)}
				}
				return stream.Values{}
			}).
			Then(blocks.Avg([]string{"[a]"}, []string{"C/n"}, model.NoMask, w),
				blocks.Avg([]string{"[a]"}, []string{"C_i/i"}, model.Future, w)).
			Readout("C/n", "C_i/i").Model()
		if err != nil {
			return nil, err
		}
		return &Construction{Model: m,
			Inputs: func(n int, rng *rand.Rand, budget int) ([]Case, bool) {
				ins, all := sampleOrAll(n, 2, rng, budget, nil)
				return SymbolCases(ins), all
			},
			Expected: countExpected}, nil
	}}

// countExpected counts the a's (symbol 0): C/n and, at position i, C_i/i.
func countExpected(c Case) []Want {
	n := c.Len()
	total := 0
	for _, s := range c.Symbols {
		if s == 0 {
			total++
		}
	}
	want := make([]Want, n)
	prefix := 0
	for i, s := range c.Symbols {
		if s == 0 {
			prefix++
		}
		want[i] = values(big.NewRat(int64(total), int64(n)), big.NewRat(int64(prefix), int64(i+1)))
	}
	return want
}

// ---------------------------------------------------------------------------
// §Categorical Representations

// categorical is §Categorical Representations: the k symbols of the
// alphabet are one-hot vectors (the word embedding we(σ_s) = e_s, width
// d = k), and the argmax unembedding with W_out = I (§Unembedding) reads
// each back: y_i = argmax(W_out h_i) = x_i. No layers: the identity
// transducer on one-hot representations. The symbols are a, b, c, …
// Domain: every string over the k symbols. Exact (the logits are e_{x_i},
// the maximum is unique with gap 1).
var categorical = &Recipe{
	Name:        "categorical",
	Title:       "one-hot word embeddings of k symbols read back by an argmax unembedding: y_i = x_i",
	Section:     "Categorical Representations",
	Label:       "sec:symbols",
	Domain:      "every string over the k symbols a, b, c, …",
	Exact:       true,
	Width:       "k",
	MinN:        1,
	DefaultMaxN: 16,
	Params:      []Param{{Name: "k", Default: "4", Doc: "the number of symbols k (1 to 26): a, b, c, …"}},
	Build: func(cfg Config) (*Construction, error) {
		k, err := cfg.Int("k", 1, 26)
		if err != nil {
			return nil, err
		}
		alphabet := make([]string, k)
		comps := make([]string, k)
		rows := make([]stream.Values, k)
		for s := range alphabet {
			alphabet[s] = string(rune('a' + s))
			comps[s] = "e_" + alphabet[s]
			rows[s] = stream.Values{comps[s]: numeric.LitInt(1)}
		}
		m, err := stream.New(fmt.Sprintf("categorical-%d", k), comps...).
			Symbols(alphabet, func(s int) stream.Values { return stream.Values{comps[s]: numeric.LitInt(1)} }).
			Argmax(alphabet, rows).Model()
		if err != nil {
			return nil, err
		}
		return &Construction{Model: m,
			Inputs: func(n int, rng *rand.Rand, budget int) ([]Case, bool) {
				ins, all := sampleOrAll(n, k, rng, budget, nil)
				return SymbolCases(ins), all
			},
			Expected: func(c Case) []Want {
				want := make([]Want, c.Len())
				for i, s := range c.Symbols {
					logits := make([]*big.Rat, k)
					for t := range logits {
						logits[t] = new(big.Rat)
					}
					logits[s] = big.NewRat(1, 1)
					want[i] = Want{Symbol: alphabet[s], Values: logits}
				}
				return want
			}}, nil
	}}

func init() {
	for _, rc := range []*Recipe{bos, count, categorical, boolConvert} {
		Register(rc)
	}
}
