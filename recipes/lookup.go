package recipes

import (
	"fmt"
	"math/big"
	"math/rand/v2"
	"strconv"

	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/numeric"
	"github.com/transformer-cookbook/verify/recipes/blocks"
	"github.com/transformer-cookbook/verify/recipes/stream"
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
// Under AHAT and UHAT (the maximum is unique), c = v_{q_i} exactly. Under SMAT, W^Q is multiplied by
// 1/τ = log(8N)/γ as in §Simulating Average-Hard Attention with Soft
// Attention, which with Edelman's lemma gives |c − v_{q_i}| ≤ 2N e^{−γ/τ}
// = 1/4 for n ≤ N, and y = v_{q_i} exactly.
//
// Domain: n ≤ N, q_i ∈ [n], v_i ∈ {0, 1}. Output: y (exact) and c.
var Lookup = &Recipe{
	Name:       "lookup",
	Booleans:   []string{"y"},
	Title:      "index lookup by quadratic maximization: position i retrieves v_{q_i}",
	Section:    "Quadratic Maximization",
	Label:      "sec:quadratic-maximization",
	Domain:     "n ≤ N, q_i ∈ [n], v_i ∈ {0,1}",
	Weightings: []model.Weighting{model.AverageHardmax, model.LeftHardmax, model.Softmax},
	Exact:      true,
	Width:      "7 (Θ(1): q, 1, j, j², v, and the outputs c, y)",
	MinN:       1,
	// 24-bit arithmetic separates q² from q² − 1 up to q = 4096 only, so
	// the sweep must pass that length to show where it stops.
	DefaultMaxN: 8192,
	LimitN:      1 << 16,
	Build:       buildLookup,
}

func init() { Register(Lookup) }

// lookupSymbol names the symbol holding query q and value v.
func lookupSymbol(q, v int) string { return strconv.Itoa(q) + ":" + strconv.Itoa(v) }

// lookupIndex is the alphabet index of lookupSymbol(q, v).
func lookupIndex(q, v int) int { return 2*(q-1) + v }

func buildLookup(cfg Config) (*Construction, error) {
	w, maxN := cfg.Weighting, cfg.MaxN
	if maxN < 1 {
		return nil, fmt.Errorf("the maximum length N must be at least 1, got %d", maxN)
	}
	p := stream.New("lookup-"+WeightingAcronym(w), "q", "1", "j", "j²", "v").
		Symbols(lookupAlphabet(maxN), func(s int) stream.Values {
			return stream.Values{"q": numeric.LitInt(int64(s/2 + 1)), "v": numeric.LitInt(int64(s % 2))}
		}).
		Positions("(1, j, j²)", func(i, n int) stream.Values {
			return stream.Values{"1": numeric.LitInt(1), "j": numeric.LitInt(int64(i)), "j²": numeric.LitInt(int64(i) * int64(i))}
		})
	// The head reads (q, 1, j, j², v): W^Q = [q; 1], W^K = [2j; −j²].
	head := &stream.Attn{
		Name: "qm-lookup", In: []string{"q", "1", "j", "j²", "v"}, Out: []string{"c"},
		Q:         model.Ints([]int64{1, 0, 0, 0, 0}, []int64{0, 1, 0, 0, 0}),
		K:         model.Ints([]int64{0, 0, 2, 0, 0}, []int64{0, 0, 0, -1, 0}),
		V:         model.Ints([]int64{0, 0, 0, 0, 1}),
		Weighting: w, Scale: model.NoScale,
	}
	con := &Construction{Inputs: lookupInputs, Valid: lookupValid, Expected: lookupExpected, Symbols: lookupSymbols}
	if w == model.Softmax {
		// W^Q' = (1/τ) W^Q with τ = γ/log(8N), γ = 1.
		var err error
		if head, err = blocks.SoftmaxSimulation(head, numeric.LitInt(1), maxN); err != nil {
			return nil, err
		}
		con.Bounds = []Bound{{}, {Max: blocks.SoftmaxBound(), Source: "|c − v| ≤ 2N·exp(−γ/τ) = 1/4 (§Simulating Average-Hard Attention with Soft Attention, Edelman's lemma)"}}
	}
	p.Then(head, blocks.Round01("c", "y"))
	m, err := p.Readout("y", "c").Model()
	con.Model = m
	return con, err
}

// lookupAlphabet lists the symbols "q:v" for q ∈ [N], v ∈ {0, 1}.
func lookupAlphabet(maxN int) []string {
	var alphabet []string
	for q := 1; q <= maxN; q++ {
		alphabet = append(alphabet, lookupSymbol(q, 0), lookupSymbol(q, 1))
	}
	return alphabet
}

// lookupInputs draws queries from [n], half of them near n, where the
// scores are largest and rounding bites first.
func lookupInputs(n int, rng *rand.Rand, budget int) ([]Case, bool) {
	ins, all := sampleOrAll(n, 2*n, rng, budget, func(i, n int, rng *rand.Rand) int {
		q := 1 + rng.IntN(n)
		if rng.IntN(2) == 0 {
			q = max(1, n-rng.IntN(8))
		}
		return lookupIndex(q, rng.IntN(2))
	})
	return SymbolCases(ins), all
}

// lookupSymbols lists the symbols q:v with q ≤ n, the domain at any
// position of an input of length n.
func lookupSymbols(i, n int) []int {
	out := make([]int, 2*n)
	for k := range out {
		out[k] = k
	}
	return out
}

// lookupValid checks the domain: every query points into the input.
func lookupValid(c Case) error {
	input := c.Symbols
	for i, s := range input {
		if q := s/2 + 1; q > len(input) {
			return fmt.Errorf("position %d: query %d points past the end of an input of length %d (the domain is q_i ∈ [n])", i+1, q, len(input))
		}
	}
	return nil
}

func lookupExpected(c Case) []Want {
	input := c.Symbols
	want := make([]Want, len(input))
	for i, s := range input {
		q := s/2 + 1
		v := int64(input[q-1] % 2)
		want[i] = Want{Values: []*big.Rat{big.NewRat(v, 1), big.NewRat(v, 1)}}
	}
	return want
}
