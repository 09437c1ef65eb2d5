package recipes

import (
	"fmt"
	"math/big"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/transformer-cookbook/verify/exact"
	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/numeric"
	"github.com/transformer-cookbook/verify/recipes/blocks"
	"github.com/transformer-cookbook/verify/recipes/stream"
)

// lookup is index lookup by quadratic maximisation (§Quadratic
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
// The section states lookup: (ℝ³)^+ → ℝ^+, for any values: an input may
// hold any rational v_i ("2:3/7 1:-5/2", lookupParse), and c is then
// v_{q_i} exactly under AHAT and UHAT, within max_j |v_j|/4 under SMAT
// (softmaxValueBound); y rounds c to a bit and is claimed for bits only.
//
// Domain: n ≤ N, q_i ∈ [n], v_i rational (c); v_i ∈ {0, 1} for y.
// Output: y (exact) and c.
var lookup = &Recipe{
	Name:       "lookup",
	Booleans:   []string{"y"},
	Title:      "index lookup by quadratic maximization: position i retrieves v_{q_i}",
	Section:    "Quadratic Maximization",
	Label:      "sec:quadratic-maximization",
	Domain:     lookupDomain,
	Weightings: []model.Weighting{model.AverageHardmax, model.LeftHardmax, model.Softmax},
	Exact:      true,
	Width:      "7 (Θ(1): q, 1, j, j², v, and the outputs c, y)",
	MinN:       1,
	// 24-bit arithmetic separates q² from q² − 1 up to q = 4096 only, so
	// the sweep must pass that length to show where it stops.
	DefaultMaxN: 8192,
	LimitN:      1 << 16,
	Params:      []Param{lookupValuesParam},
	Build:       buildLookup,
}

// lookupDomain is the domain of the lookups.
const lookupDomain = "n ≤ N, q_i ∈ [n], v_i ∈ ℚ (typed q:v, e.g. 2:-3/7); y is claimed for v_i ∈ {0,1} only"

func init() { Register(lookup) }

// lookupSymbol names the symbol holding query q and value v.
func lookupSymbol(q, v int) string { return strconv.Itoa(q) + ":" + strconv.Itoa(v) }

// lookupIndex is the alphabet index of lookupSymbol(q, v).
func lookupIndex(q, v int) int { return 2*(q-1) + v }

func buildLookup(cfg Config) (*Construction, error) {
	w, maxN := cfg.Weighting, cfg.MaxN
	if maxN < 1 {
		return nil, fmt.Errorf("the maximum length N must be at least 1, got %d", maxN)
	}
	// The alphabet has 2N symbols: they are written by columns, without a
	// map each, and q:0 and q:1 share q's literal.
	q, qLit := 0, numeric.Expr{}
	p := stream.New("lookup-"+WeightingAcronym(w), "q", "1", "j", "j²", "v").
		SymbolsOf(lookupAlphabet(maxN), []string{"q", "v"}, func(s int, values []numeric.Expr) {
			if q != s/2+1 {
				q, qLit = s/2+1, numeric.LitInt(int64(s/2+1))
			}
			values[0], values[1] = qLit, numeric.LitInt(int64(s%2))
		}).
		Positions("(1, j, j²)", func(i, n int) stream.Values {
			return stream.Values{"1": numeric.LitInt(1), "j": numeric.LitInt(int64(i)), "j²": numeric.LitInt(int64(i) * int64(i))}
		}).
		Formula(stream.Pos(model.PosOne, "1"), stream.Pos(model.PosI, "j"), stream.Pos(model.PosISquared, "j²"))
	// The head reads (q, 1, j, j², v): W^Q = [q; 1], W^K = [2j; −j²].
	head := &stream.Attn{
		Name: "qm-lookup", In: []string{"q", "1", "j", "j²", "v"}, Out: []string{"c"},
		Q:         model.Ints([]int64{1, 0, 0, 0, 0}, []int64{0, 1, 0, 0, 0}),
		K:         model.Ints([]int64{0, 0, 2, 0, 0}, []int64{0, 0, 0, -1, 0}),
		V:         model.Ints([]int64{0, 0, 0, 0, 1}),
		Weighting: w, Scale: model.NoScale,
	}
	var simulated *model.Model
	if w == model.Softmax {
		// The lookup under average hardmax, which the softmax head
		// simulates: what the analysis certifies it against
		// (Construction.Simulated).
		hard := *head
		hard.Weighting = model.AverageHardmax
		var err error
		if simulated, err = p.Fork(p.Name+"/hard").Then(&hard, blocks.Round01("c", "y")).Readout("y", "c").Model(); err != nil {
			return nil, err
		}
		// W^Q' = (1/τ) W^Q with τ = γ/log(8N), γ = 1.
		if head, err = blocks.SoftmaxSimulation(head, numeric.LitInt(1), maxN); err != nil {
			return nil, err
		}
	}
	p.Then(head, blocks.Round01("c", "y"))
	m, err := p.Readout("y", "c").Model()
	if err != nil {
		return nil, err
	}
	con, err := lookupConstruction(cfg, m, w == model.Softmax)
	if err != nil {
		return nil, err
	}
	con.Simulated = simulated
	return con, nil
}

// lookupValuesParam is the values parameter of the lookups.
var lookupValuesParam = valuesParam("bits", "v ∈ {0, 1}, the symbols q:0 and q:1")

// lookupConstruction is the construction of a lookup model m (the
// symbols "q:v", a component v, outputs y and c) built for N = cfg.MaxN:
// its inputs, domain and reference, for bits and for any rational value.
// A typed input "q:v" takes any rational v (lookupParse); under SMAT the
// bound on c scales with the values (softmaxValueBound).
func lookupConstruction(cfg Config, m *model.Model, softmax bool) (*Construction, error) {
	rationals, err := valueMode(cfg, "bits")
	if err != nil {
		return nil, err
	}
	col, err := component(m, "v")
	if err != nil {
		return nil, err
	}
	con := &Construction{Model: m, Inputs: lookupInputs, Valid: lookupValid, Symbols: lookupSymbols,
		Expected: lookupReference(col, softmax), Parse: lookupParse(m, col, cfg.MaxN), Count: countFields}
	if softmax {
		con.Bounds = []Bound{{}, {Max: blocks.SoftmaxBound(), Source: softmaxBoundText}}
	}
	if _, err := valueCase(m, col, []int{lookupIndex(1, 0)}, []*big.Rat{big.NewRat(1, 2)}, []string{"1:1/2"}, " "); err != nil {
		return nil, err
	}
	if rationals {
		con.Inputs = lookupValueInputs(m, col)
		c := "c is compared with v_{q_i} exactly"
		if softmax {
			c = "c is compared with v_{q_i} within max_j |v_j|/4"
		}
		con.Notes = append(con.Notes, "values=rationals: every position holds a seeded random rational value (bits among them); "+c+"; y, which the paper claims for bits only, is compared on inputs of bits only (its max |error| counts those only)")
	}
	return con, nil
}

// lookupParse reads a lookup input typed as "q:v q:v …": a query q ∈ [N]
// and any rational value v ("2:3/7", "1:-0.25") at each position. An
// input of bits is the string of symbols it always was; any other value
// makes it an input given by its stream (valueCase).
func lookupParse(m *model.Model, col, maxN int) func(text string) (Case, error) {
	return func(text string) (Case, error) {
		fields := strings.Fields(text)
		if len(fields) == 0 {
			return Case{}, fmt.Errorf("empty input: a transformer maps non-empty strings")
		}
		base, vals := make([]int, len(fields)), make([]*big.Rat, len(fields))
		for i, f := range fields {
			qs, vs, ok := strings.Cut(f, ":")
			q, err := strconv.Atoi(qs)
			if !ok || err != nil || q < 1 {
				return Case{}, fmt.Errorf("position %d: %q is not q:v, a query q ≥ 1 and a value v (like 2:1 or 2:-3/7)", i+1, f)
			}
			if q > maxN {
				return Case{}, fmt.Errorf("position %d: %q queries %d, past N = %d", i+1, f, q, maxN)
			}
			if vals[i], err = exact.ParseRat(vs); err != nil {
				return Case{}, fmt.Errorf("position %d: %q: the value: %w", i+1, f, err)
			}
			base[i] = lookupIndex(q, 0)
		}
		if allBits(vals) {
			for i, v := range vals {
				base[i] += int(v.Num().Int64())
			}
			return Case{Symbols: base}, nil
		}
		return valueCase(m, col, base, vals, fields, " ")
	}
}

// lookupValueInputs draws inputs of seeded random rational values
// (randValue), the queries drawn as lookupInputs draws them.
func lookupValueInputs(m *model.Model, col int) func(n int, rng *rand.Rand, budget int) ([]Case, bool) {
	return func(n int, rng *rand.Rand, budget int) ([]Case, bool) {
		if rng == nil {
			return nil, false
		}
		cases := make([]Case, budget)
		for k := range cases {
			base, vals, tokens := make([]int, n), make([]*big.Rat, n), make([]string, n)
			for i := range base {
				q := 1 + rng.IntN(n)
				if rng.IntN(2) == 0 {
					q = max(1, n-rng.IntN(8))
				}
				base[i], vals[i] = lookupIndex(q, 0), randValue(rng)
				tokens[i] = strconv.Itoa(q) + ":" + vals[i].RatString()
			}
			c, err := valueCase(m, col, base, vals, tokens, " ")
			if err != nil {
				panic("recipes: " + err.Error()) // lookupConstruction built one
			}
			cases[k] = c
		}
		return cases, false
	}
}

// lookupReference is the reference of a lookup: c = v_{q_i}, and
// y = v_{q_i} where every value is a bit. Under SMAT c is within
// max_j |v_j|/4 of it (softmaxValueBound; the construction's 1/4 for
// bits).
func lookupReference(col int, softmax bool) func(c Case) []Want {
	return func(c Case) []Want {
		if c.Stream == nil {
			return lookupExpected(c)
		}
		vals := caseValues(c, col, nil)
		bits := allBits(vals)
		var tol []Bound
		if softmax {
			tol = []Bound{{}, softmaxValueBound(vals)}
		}
		want := make([]Want, len(c.Symbols))
		unclaimed := []string{"", ""}
		if !bits {
			unclaimed[0] = roundingUnclaimed
		}
		for i, s := range c.Symbols {
			v := vals[s/2]
			y := v
			if !bits {
				y = new(big.Rat) // a placeholder: not claimed
			}
			want[i] = valueWant([]*big.Rat{y, v}, unclaimed)
			want[i].Tol = tol
		}
		return want
	}
}

// lookupAlphabet lists the symbols "q:v" for q ∈ [N], v ∈ {0, 1}.
func lookupAlphabet(maxN int) []string {
	// Every symbol is a substring of one string: two allocations for the
	// 2N symbols, not three for each. The symbol q:v is len(q) + 2 bytes.
	var text strings.Builder
	text.Grow(2 * maxN * (len(strconv.Itoa(maxN)) + 2))
	var digits [20]byte
	for q := 1; q <= maxN; q++ {
		d := strconv.AppendInt(digits[:0], int64(q), 10)
		for v := range 2 {
			text.Write(d)
			text.WriteByte(':')
			text.WriteByte(byte('0' + v))
		}
	}
	all, start := text.String(), 0
	alphabet := make([]string, 0, 2*maxN)
	for q, digits, tens := 1, 1, 10; q <= maxN; q++ {
		if q == tens {
			digits, tens = digits+1, tens*10
		}
		for range 2 {
			alphabet = append(alphabet, all[start:start+digits+2])
			start += digits + 2
		}
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
// position of an input of length n: the symbols 0 … 2n − 1, one shared
// list for every position (Construction.Symbols).
func lookupSymbols(i, n int) []int { return counting(2 * n) }

// countingList holds 0, 1, 2, …, grown on demand and never written
// once published: counting hands out its prefixes.
var (
	countingList atomic.Pointer[[]int]
	countingMu   sync.Mutex
)

// counting is the read-only list 0 … k − 1 (its capacity k, so that an
// append copies it).
func counting(k int) []int {
	if p := countingList.Load(); p != nil && len(*p) >= k {
		return (*p)[:k:k]
	}
	countingMu.Lock()
	defer countingMu.Unlock()
	p := countingList.Load()
	if p == nil || len(*p) < k {
		size := k
		if p != nil {
			size = max(k, 2*len(*p))
		}
		list := make([]int, size)
		for x := range list {
			list[x] = x
		}
		countingList.Store(&list)
		p = &list
	}
	return (*p)[:k:k]
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
