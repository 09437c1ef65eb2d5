package recipes

import (
	"fmt"
	"math/big"
	"math/rand/v2"
	"strconv"

	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/numeric"
)

// Lookup is index lookup by quadratic maximisation (§Quadratic
// Maximization, qmLookup, after Barceló et al. 2024): position i holds a
// query q_i ∈ [n] and a value v_i ∈ {0, 1}, and retrieves v_{q_i}.
//
// The residual stream is (q, 1, j, j², v, c, y): the word embedding of the
// symbol "q:v" writes q and v, the position embedding writes 1, j and j².
// One attention head has W^Q = [q; 1] and W^K = [2j; −j²], so that
// s_ij = 2 q_i j − j², uniquely maximised at j = q_i with gap γ = 1 to
// every other j; W^V copies v into c. The scores are not divided by
// √d_key (= √2): the section's gap γ = 1, and τ below, are computed for
// q·k. A feed-forward layer then writes y = GTZero_{1/2}(c − 1/4)
// (§Comparisons), which rounds c to 0 or 1.
//
// Under AHAT, c = v_{q_i} exactly. Under SMAT, W^Q is multiplied by
// 1/τ = log(8N)/γ as in §Simulating Average-Hard Attention with Soft
// Attention, which with Edelman's lemma gives |c − v_{q_i}| ≤ 2N e^{−γ/τ}
// = 1/4 for n ≤ N, and y = v_{q_i} exactly.
//
// Domain: n ≤ N, q_i ∈ [n], v_i ∈ {0, 1}. Output: y (exact) and c.
var Lookup = &Recipe{
	Name:       "lookup",
	Title:      "index lookup by quadratic maximization: position i retrieves v_{q_i}",
	Section:    "Quadratic Maximization",
	Label:      "sec:quadratic-maximization",
	Domain:     "n ≤ N, q_i ∈ [n], v_i ∈ {0,1}",
	Weightings: []model.Weighting{model.AverageHardmax, model.Softmax},
	Width:      "7 (Θ(1): q, 1, j, j², v, and the outputs c, y)",
	MinN:       1,
	// 24-bit arithmetic separates q² from q² − 1 up to q = 4096 only, so
	// the sweep must pass that length to show where it stops.
	DefaultMaxN: 8192,
	Build:       buildLookup,
	Inputs:      lookupInputs,
	Valid:       lookupValid,
	Expected:    lookupExpected,
	Bounds:      lookupBounds,
}

func init() { Register(Lookup) }

// Residual stream components of Lookup.
const (
	lkQ = iota
	lkOne
	lkJ
	lkJ2
	lkV
	lkC
	lkY
	lkD
)

// lookupSymbol names the symbol holding query q and value v.
func lookupSymbol(q, v int) string { return strconv.Itoa(q) + ":" + strconv.Itoa(v) }

// lookupIndex is the alphabet index of lookupSymbol(q, v).
func lookupIndex(q, v int) int { return 2*(q-1) + v }

func buildLookup(w model.Weighting, maxN int) (*model.Model, error) {
	if maxN < 1 {
		return nil, fmt.Errorf("lookup: the maximum length N must be at least 1, got %d", maxN)
	}
	if w != model.AverageHardmax && w != model.Softmax {
		return nil, fmt.Errorf("lookup: the quadratic-maximization lookup is given for AHAT and SMAT, not %s", WeightingAcronym(w))
	}
	m := &model.Model{
		Name:       "lookup-" + WeightingAcronym(w),
		D:          lkD,
		Components: []string{"q", "1", "j", "j²", "v", "c", "y"},
	}
	for q := 1; q <= maxN; q++ {
		for v := 0; v <= 1; v++ {
			m.Alphabet = append(m.Alphabet, lookupSymbol(q, v))
			e := make(model.Vector, lkD)
			e[lkQ] = numeric.LitInt(int64(q))
			e[lkV] = numeric.LitInt(int64(v))
			m.WordEmbedding = append(m.WordEmbedding, e)
		}
	}
	m.Position = &model.PositionEncoding{Name: "(1, j, j²)", Vector: func(i, n int) model.Vector {
		e := make(model.Vector, lkD)
		e[lkOne] = numeric.LitInt(1)
		e[lkJ] = numeric.LitInt(int64(i))
		e[lkJ2] = numeric.LitInt(int64(i) * int64(i))
		return e
	}}

	q := model.Zeros(2, lkD)
	q.Set(0, lkQ, numeric.LitInt(1))
	q.Set(1, lkOne, numeric.LitInt(1))
	if w == model.Softmax {
		// W^Q' = (1/τ) W^Q with τ = γ/log(8N), γ = 1.
		q = q.Scale(numeric.Log(numeric.LitInt(8 * int64(maxN))))
	}
	k := model.Zeros(2, lkD)
	k.Set(0, lkJ, numeric.LitInt(2))
	k.Set(1, lkJ2, numeric.LitInt(-1))
	v := model.Zeros(lkD, lkD)
	v.Set(lkC, lkV, numeric.LitInt(1))

	// y = GTZero_ε(c − 1/4) with ε = 1/2: hidden units ReLU(c − 1/4) and
	// ReLU(c − 1/4 − ε), output (1/ε)(h1 − h2).
	w1 := model.Zeros(2, lkD)
	w1.Set(0, lkC, numeric.LitInt(1))
	w1.Set(1, lkC, numeric.LitInt(1))
	w2 := model.Zeros(lkD, 2)
	w2.Set(lkY, 0, numeric.LitInt(2))
	w2.Set(lkY, 1, numeric.LitInt(-2))
	m.Layers = []model.Layer{{
		Attention: &model.Attention{
			Heads:     []model.Head{{Q: q, K: k, V: v}},
			Mask:      model.NoMask,
			Weighting: w,
			Scale:     model.NoScale,
		},
		FeedForward: &model.FeedForward{
			W1: w1,
			B1: model.RatVector(big.NewRat(-1, 4), big.NewRat(-3, 4)),
			W2: w2,
		},
	}}
	out := model.Zeros(2, lkD)
	out.Set(0, lkY, numeric.LitInt(1))
	out.Set(1, lkC, numeric.LitInt(1))
	m.Output = model.Output{Kind: model.Readout, W: out, Labels: []string{"y", "c"}}
	return m, nil
}

// lookupInputs draws queries from [n], half of them near n, where the
// scores are largest and rounding bites first.
func lookupInputs(n int, rng *rand.Rand, budget int) ([][]int, bool) {
	ins, all := sampleOrAll(n, 2*n, rng, budget, func(i, n int, rng *rand.Rand) int {
		q := 1 + rng.IntN(n)
		if rng.IntN(2) == 0 {
			q = max(1, n-rng.IntN(8))
		}
		return lookupIndex(q, rng.IntN(2))
	})
	return ins, all
}

// lookupValid checks the domain: every query points into the input.
func lookupValid(m *model.Model, input []int) error {
	for i, s := range input {
		if q := s/2 + 1; q > len(input) {
			return fmt.Errorf("position %d: query %d points past the end of an input of length %d (the domain is q_i ∈ [n])", i+1, q, len(input))
		}
	}
	return nil
}

func lookupExpected(m *model.Model, input []int) []Want {
	want := make([]Want, len(input))
	for i, s := range input {
		q := s/2 + 1
		v := int64(input[q-1] % 2)
		want[i] = Want{Values: []*big.Rat{big.NewRat(v, 1), big.NewRat(v, 1)}}
	}
	return want
}

func lookupBounds(w model.Weighting, maxN int) []Bound {
	if w == model.Softmax {
		return []Bound{{}, {Max: big.NewRat(1, 4), Source: "|c − v| ≤ 2N·exp(−γ/τ) = 1/4 (§Simulating Average-Hard Attention with Soft Attention, Edelman's lemma)"}}
	}
	return nil
}
