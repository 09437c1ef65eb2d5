package recipes

import (
	"math/big"
	"math/rand/v2"

	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/numeric"
	"github.com/transformer-cookbook/verify/recipes/blocks"
	"github.com/transformer-cookbook/verify/recipes/stream"
)

// The recipes of §First (sec:first): the first predicate from the
// position encoding (−1)^i, and 1/i computed from it.
//
// Their input is a string over {a, b} whose symbols are ignored (the word
// embedding of a and b is 0, or the constant 1 for first-uhat): the paper
// states first on the sequence ((−1)^1, …, (−1)^n) of position encodings,
// and every string of length n gives that sequence.

// firstAlphabet is the input alphabet of the §First recipes.
var firstAlphabet = []string{"a", "b"}

// firstPE is the position encoding (−1)^i in component p.
func firstPE(i, n int) stream.Values {
	if i%2 == 1 {
		return stream.Values{"p": numeric.LitInt(-1)}
	}
	return stream.Values{"p": numeric.LitInt(1)}
}

// firstInputs enumerates (or draws) the strings over {a, b}.
func firstInputs(n int, rng *rand.Rand, budget int) ([]Case, bool) {
	ins, all := sampleOrAll(n, len(firstAlphabet), rng, budget, nil)
	return SymbolCases(ins), all
}

// firstHead is the paper's first attention: future-masked, W^Q = W^K = 0,
// W^V = −I, reading p = (−1)^j and writing c.
func firstHead(w model.Weighting) *stream.Attn {
	return &stream.Attn{Name: "first", In: []string{"p"}, Out: []string{"c"},
		Q: model.Zeros(1, 1), K: model.Zeros(1, 1), V: model.Ints([]int64{-1}),
		Mask: model.Future, Weighting: w, Scale: model.NoScale}
}

// firstThreshold is GTZero_{1/3}(c − 1/3) (§Comparisons with the
// threshold shifted by a = 1/3): 0 for c ≤ 1/3, 1 for c ≥ 2/3.
func firstThreshold() *stream.FF {
	third := big.NewRat(1, 3)
	return blocks.GTZeroEps("c", "first", third, third)
}

// firstProgram is the paper's construction: the head, then the threshold.
func firstProgram(name string, w model.Weighting) *stream.Program {
	return stream.New(name+"-"+WeightingAcronym(w), "p").
		Symbols(firstAlphabet, func(int) stream.Values { return stream.Values{} }).
		Positions("(−1)^i", firstPE).Formula(stream.Pos(model.PosParity, "p")).
		Then(firstHead(w), firstThreshold())
}

// firstIndicator is first_i = 1 iff i = 1 (1-based), as a rational.
func firstIndicator(i int) *big.Rat {
	if i == 1 {
		return big.NewRat(1, 1)
	}
	return new(big.Rat)
}

// firstAverage is the intended attention output of the paper's head, the
// prefix average of the values −(−1)^j: c_i = (1/i) Σ_{j=1}^i −(−1)^j,
// summed term by term.
func firstAverage(i int) *big.Rat {
	s := new(big.Rat)
	for j := 1; j <= i; j++ {
		if j%2 == 1 {
			s.Add(s, big.NewRat(1, 1)) // −(−1)^j = 1 for odd j
		} else {
			s.Sub(s, big.NewRat(1, 1))
		}
	}
	return s.Quo(s, big.NewRat(int64(i), 1))
}

// buildFirst builds the paper's first (both the corrected recipe, which
// claims SMAT and AHAT, and the literal one, which also claims UHAT).
func buildFirst(name string) func(cfg Config) (*Construction, error) {
	return func(cfg Config) (*Construction, error) {
		m, err := firstProgram(name, cfg.Weighting).Readout("first", "c").Model()
		if err != nil {
			return nil, err
		}
		return &Construction{Model: m, Inputs: firstInputs, AllStrings: true, Expected: func(c Case) []Want {
			want := make([]Want, c.Len())
			for i := range want {
				want[i] = values(firstIndicator(i+1), firstAverage(i+1))
			}
			return want
		}}, nil
	}
}

const firstDoc = "first_i = 1 iff i = 1, from the position encoding (−1)^i: future-masked uniform attention with W^V = −I, then GTZero_{1/3}(c − 1/3)"

// first is first of §First, for the weightings under which it is right:
// position encoding p_i = (−1)^i; one future-masked head with
//
//	first.W^Q = 0, first.W^K = 0, first.W^V = −I,
//
// which under SMAT and AHAT averages the values −(−1)^j over j ≤ i:
// c_1 = 1, and for i > 1, c_i = (1/i) Σ_{j≤i} (−1)^{j+1}, which is 0 for
// even i and 1/i ≤ 1/3 for odd i ≥ 3 (the paper's "at most 1/3", equal
// at i = 3); then the FFN GTZero_{1/3}(c − 1/3) (blocks.GTZeroEps with
// ε = a = 1/3) maps c ≤ 1/3 to 0 and c = 1 to 1. Outputs first and c.
// Domain: any string (the symbols are ignored). Exact under SMAT and
// AHAT.
//
// The cheat sheet also claims UHAT, which is wrong: all scores tie, and
// leftmost-hard attention gives every position the value of position 1,
// c_i = 1, so first_i = 1 everywhere (rightmost-hard gives c_i =
// −(−1)^i, so first is 1 at every odd i). That claim is registered as
// first-literal; first-uhat is a construction that works under UHAT.
var first = &Recipe{
	Name: "first", Booleans: []string{"first"}, Title: firstDoc, Section: "First", Label: "sec:first",
	Domain:      "any string over {a, b} (the symbols are ignored), any n",
	Weightings:  []model.Weighting{model.Softmax, model.AverageHardmax},
	Exact:       true,
	Width:       "3 (p = (−1)^i, c, first)",
	MinN:        1,
	DefaultMaxN: 200,
	Build:       buildFirst("first"),
}

// firstLiteral is first of §First as printed (sec:first, cookbook .tex
// lines 1369–1386) with the weightings the cheat sheet claims for it
// (l. 630: SMAT, AHAT and UHAT): the position encoding (−1)^i (l. 1370),
// the future-masked head first.W^Q = 0, first.W^K = 0, first.W^V = −I
// (l. 1380–1382), then GTZero_{1/3}(c_i − 1/3) (l. 1386: §Comparisons'
// GTZero_ε with ε = 1/3, applied to c_i − 1/3) — the same weights as
// the recipe first. Under UHAT (leftmost, the paper's unique-hard attention) it is
// wrong: every score is 0, so leftmost-hard attention picks position 1
// at every i and c_i = −(−1)^1 = 1, whence first_i = GTZero_{1/3}(2/3) = 1
// for every i: every string of length n ≥ 2 is wrong from position 2 on.
// The smallest counterexample is n = 2: first_2 = 1, want 0
// (TestFirstLiteralUHATCounterexample). Under SMAT and AHAT it is the recipe first.
//
// Domain: first's, any string over {a, b}, any n.
var firstLiteral = variant(first, func(r *Recipe) {
	r.Name = "first-literal"
	r.Title = firstDoc + " (as printed: claimed for SMAT, AHAT and UHAT; wrong under UHAT)"
	r.Weightings = []model.Weighting{model.Softmax, model.AverageHardmax, model.LeftHardmax}
	r.Build = buildFirst("first-literal")
})

// firstUHAT is a first of §First that works under unique-hard attention
// (not in the paper, which claims its own first for UHAT; see
// firstLiteral). The word embedding writes the constant 1 (component "1") for every symbol, the
// position encoding p_j = (−1)^j. One future-masked head has
//
//	W^Q = [1, 0], W^K = [0, 1], W^V = [0, 1]   over (1, p),
//
// so s_ij = (−1)^j, and the value is (−1)^j. At i = 1 only j = 1 is
// visible: c_1 = −1. At i ≥ 2 the maximal score +1 is at the even j ≤ i:
// leftmost-hard attention takes j = 2, rightmost-hard the last even
// j ≤ i, average-hard all of them, and each gives c_i = +1. Then
// first = GTZero_1(−c) (blocks.GTZeroEps with its input negated:
// W1 = [−1; −1], b1 = [0; −1], W2 = [1, −1]) is 1 at c = −1 and 0 at
// c = +1. Outputs first and c. Domain: any string. Exact under UHAT
// (leftmost and rightmost) and AHAT; not under SMAT, whose weights on
// the scores ±1 are not hard.
var firstUHAT = &Recipe{
	Name:        "first-uhat",
	Booleans:    []string{"first"},
	Title:       "first_i = 1 iff i = 1 under unique-hard attention: score and value (−1)^j, then GTZero_1(−c)",
	Section:     "First",
	Label:       "sec:first",
	Domain:      "any string over {a, b} (the symbols are ignored), any n",
	Weightings:  []model.Weighting{model.LeftHardmax, model.RightHardmax, model.AverageHardmax},
	Exact:       true,
	Width:       "4 (1, p = (−1)^i, c, first)",
	MinN:        1,
	DefaultMaxN: 200,
	Build: func(cfg Config) (*Construction, error) {
		head := &stream.Attn{Name: "first-uhat", In: []string{"1", "p"}, Out: []string{"c"},
			Q: model.Ints([]int64{1, 0}), K: model.Ints([]int64{0, 1}), V: model.Ints([]int64{0, 1}),
			Mask: model.Future, Weighting: cfg.Weighting, Scale: model.NoScale}
		neg := blocks.GTZeroEps("c", "first", big.NewRat(1, 1), new(big.Rat))
		neg.Name = "GTZero_1(−c)"
		neg.W1 = model.Ints([]int64{-1}, []int64{-1})
		m, err := stream.New("first-uhat-"+WeightingAcronym(cfg.Weighting), "1", "p").
			Symbols(firstAlphabet, func(int) stream.Values { return stream.Values{"1": numeric.LitInt(1)} }).
			Positions("(−1)^i", firstPE).Formula(stream.Pos(model.PosParity, "p")).
			Then(head, neg).Readout("first", "c").Model()
		if err != nil {
			return nil, err
		}
		return &Construction{Model: m, Inputs: firstInputs, AllStrings: true, Expected: func(c Case) []Want {
			want := make([]Want, c.Len())
			for i := range want {
				ci := big.NewRat(1, 1) // the retrieved (−1)^j: j = 1 at i = 1, an even j after
				if i == 0 {
					ci = big.NewRat(-1, 1)
				}
				want[i] = values(firstIndicator(i+1), ci)
			}
			return want
		}}, nil
	},
}

// inversePosition is 1/i from the position encoding (−1)^i alone
// (§First: "compute the value 1/i in every position while only using the
// positional encoding (−1)^i"): the recipe first, then a future-masked uniform
// average Avg← of first (W^Q = W^K = 0, W^V = 1, §Average), which at
// position i is (1/i) Σ_{j≤i} first_j = 1/i. Outputs 1/i and first.
// Domain: any string. Exact under SMAT and AHAT (not UHAT: both layers
// need uniform weights).
var inversePosition = &Recipe{
	Name:        "inverse-position",
	Booleans:    []string{"first"},
	Title:       "1/i at position i from the position encoding (−1)^i: first, then Avg← of first",
	Section:     "First",
	Label:       "sec:first",
	Domain:      "any string over {a, b} (the symbols are ignored), any n",
	Weightings:  []model.Weighting{model.Softmax, model.AverageHardmax},
	Exact:       true,
	Width:       "4 (p, c, first, 1/i)",
	MinN:        1,
	DefaultMaxN: 200,
	Build: func(cfg Config) (*Construction, error) {
		m, err := firstProgram("inverse-position", cfg.Weighting).
			Then(blocks.Avg([]string{"first"}, []string{"1/i"}, model.Future, cfg.Weighting)).
			Readout("1/i", "first").Model()
		if err != nil {
			return nil, err
		}
		return &Construction{Model: m, Inputs: firstInputs, AllStrings: true, Expected: func(c Case) []Want {
			want := make([]Want, c.Len())
			for i := range want {
				want[i] = values(big.NewRat(1, int64(i+1)), firstIndicator(i+1))
			}
			return want
		}}, nil
	},
}

func init() {
	for _, rc := range []*Recipe{first, firstLiteral, firstUHAT, inversePosition} {
		Register(rc)
	}
}
