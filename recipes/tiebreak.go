package recipes

import (
	"fmt"
	"math/big"
	"math/rand/v2"
	"strconv"
	"strings"

	"github.com/transformer-cookbook/verify/exact"
	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/numeric"
	"github.com/transformer-cookbook/verify/recipes/blocks"
	"github.com/transformer-cookbook/verify/recipes/stream"
)

// tieBreaking is §Simulating Unique-Hard Attention with Average-Hard
// Attention: a base head whose scores are either maximal or at least γ
// below the maximum gets the tie-breaking term
//
//	q̂_i = [q_i; γ],  k̂_j = [k_j; t(j)],  t(j) ∈ {−1/j, j/n (rightmost); 1/j, −j/n (leftmost)},
//
// and average-hard attention on the new scores then does what leftmost or
// rightmost unique-hard attention does on the old ones.
//
// Position i holds a symbol "k:v", a key k ∈ {0, 1, 2} and a value
// v ∈ {0, 1}. The residual stream is (k, v, 1, t): the word embedding
// writes k and v, the position embedding 1 and t(i). The base head has
// W^Q = [0, 0, 1] (q = 1), W^K = [1, 0, 0] (k_j), W^V = [0, 1, 0], so
// s_ij = k_j, whose distinct values are γ = 1 apart; blocks.TieBreak adds
// the row q̂ = γ·1, k̂ = t(j). The head writes c, and y = GTZero_{1/2}(c −
// 1/4) rounds it. With mask "future" position i considers j ≤ i, with
// "none" every j.
//
// The precondition, checked at the extremes: the term changes a score by
// γ t(j), and t spans [−1, −1/n], [1/n, 1], [1/n, 1] and [−1, −1/n] for
// the four choices (t(1) and t(n) are the ends), so |t(j) − t(j′)| ≤
// 1 − 1/n < 1 for all four: a score γ below the maximum (or, as the
// section requires, more than γ below) stays strictly below it, and among
// the maximal ones t, being strictly monotone in j, picks one position.
// So all four are right, even with a gap of exactly γ (the section's
// condition is a strict "< max − γ"; non-strict suffices). The cheat
// sheet instead describes the bias as ±1/(j+1), which spans less than 1/2
// and works too, but is not one of the section's four.
//
// Under AHAT c is exactly v at the chosen position. Under SMAT (the cheat
// sheet's other weighting) the tie-broken head is given to
// §Simulating Average-Hard Attention with Soft Attention: its gap, the
// smallest difference between the top score and any other for n ≤ N, is
// γ/(N(N−1)) for t = ±1/j (two tied maxima at j and j+1 differ by
// γ(1/j − 1/(j+1)) ≥ γ/(N(N−1)); a non-maximal score is at least
// γ(1 − (1 − 1/n)) = γ/n below) and γ/N for t = ±j/n (tied maxima differ
// by at least γ/n, non-maximal scores are γ/n below), and γ for N = 1.
// W^Q is scaled by log(8N)/gap, so |c − v| ≤ 1/4 and y = v.
//
// The value is copied, not compared: an input may hold any rational v_i
// ("2:3/7 1:-5", tieBreakParse), and c is then the selected value
// exactly under AHAT, within max_j |v_j|/4 (over the positions attended)
// under SMAT; y rounds c to a bit and is claimed for bits only.
//
// Domain: k_i ∈ {0, 1, 2}, v_i rational (c), v_i ∈ {0, 1} for y, any n
// (n ≤ N under SMAT). Output: y (exact) and c.
var tieBreaking = &Recipe{
	Name:       "tiebreak",
	Booleans:   []string{"y"},
	Title:      "tie-breaking: average-hard attention simulates leftmost or rightmost unique-hard attention",
	Section:    "Simulating Unique-Hard Attention with Average-Hard Attention",
	Label:      "sec:tie-breaking",
	Domain:     "k_i ∈ {0,1,2}, v_i ∈ ℚ (typed k:v, e.g. 2:-3/7), any n; n ≤ N under SMAT; y is claimed for v_i ∈ {0,1} only",
	Weightings: []model.Weighting{model.AverageHardmax, model.Softmax},
	Exact:      true,
	Width:      "6: k, v, 1, t, c, y",
	MinN:       1,
	// Two adjacent maximal keys k = 2 at j, j+1 are separated by
	// 1/(j(j+1)) (±1/j) or 1/n (±j/n). Measured first rounding ties:
	// fp16 at n = 37 (−1/j), 26 (1/j), 410 (j/n), 684 (−j/n); fp32 at
	// 2948 (−1/j), 2081 (1/j), none up to 40000 (j/n). The terms that
	// subtract keep the score 2 + γt in [1, 2), whose spacing is half
	// that of [2, 4), so they last longer than their mirror images.
	DefaultMaxN: 1024,
	Params: []Param{
		{Name: "t", Default: "-1/j", Doc: "the tie-breaking term t(j): -1/j or j/n (rightmost), 1/j or -j/n (leftmost)"},
		{Name: "mask", Default: "future", Doc: "the head's mask: future (position i considers j ≤ i) or none"},
		{Name: "gamma", Default: "1", Doc: "γ in q̂ = [q; γ]; the paper's precondition is that the base scores' gap (here 1) is at least γ: a larger γ can overturn the maximum (allowed under AHAT to show it)"},
		valuesParam("bits", "v ∈ {0, 1}, the symbols k:0 and k:1"),
	},
	Build: buildTieBreak,
}

func init() { Register(tieBreaking) }

// tieBreakTerm is one of the section's four terms: its value at
// position j of n, and whether it selects the rightmost maximum.
type tieBreakTerm struct {
	Term      func(j, n int) *big.Rat
	Rightmost bool
}

var tieBreakTerms = map[string]tieBreakTerm{
	"-1/j": {func(j, n int) *big.Rat { return big.NewRat(-1, int64(j)) }, true},
	"1/j":  {func(j, n int) *big.Rat { return big.NewRat(1, int64(j)) }, false},
	"j/n":  {func(j, n int) *big.Rat { return big.NewRat(int64(j), int64(n)) }, true},
	"-j/n": {func(j, n int) *big.Rat { return big.NewRat(-int64(j), int64(n)) }, false},
}

// tieBreakSymbols lists "k:v" for k ∈ {0, 1, 2}, v ∈ {0, 1}: symbol s has
// k = s/2, v = s%2.
var tieBreakSymbols = []string{"0:0", "0:1", "1:0", "1:1", "2:0", "2:1"}

// TieBreakGap is the gap of the tie-broken scores for n ≤ maxN: the
// smallest difference between the top score and any other, when the base
// scores have gap at least γ (see tieBreaking): γ/(N(N−1)) for ±1/j,
// γ/N for ±j/n, γ when N = 1.
func TieBreakGap(t string, gamma *big.Rat, maxN int) (numeric.Expr, error) {
	if _, ok := tieBreakTerms[t]; !ok {
		return numeric.Expr{}, fmt.Errorf("unknown tie-breaking term %q (-1/j, 1/j, j/n, -j/n)", t)
	}
	d := int64(1)
	switch {
	case maxN <= 1:
	case t == "-1/j" || t == "1/j":
		d = int64(maxN) * int64(maxN-1)
	default:
		d = int64(maxN)
	}
	return numeric.Lit(new(big.Rat).Quo(gamma, big.NewRat(d, 1))), nil
}

func buildTieBreak(cfg Config) (*Construction, error) {
	w, maxN := cfg.Weighting, cfg.MaxN
	tName, err := cfg.Choice("t", "-1/j", "1/j", "j/n", "-j/n")
	if err != nil {
		return nil, err
	}
	maskName, err := cfg.Choice("mask", "future", "none")
	if err != nil {
		return nil, err
	}
	gamma, err := cfg.PositiveRat("gamma")
	if err != nil {
		return nil, err
	}
	if w != model.AverageHardmax && w != model.Softmax {
		return nil, fmt.Errorf("the paper gives tie-breaking for AHAT (and SMAT), not %s", WeightingAcronym(w))
	}
	term := tieBreakTerms[tName]
	mask := model.Future
	if maskName == "none" {
		mask = model.NoMask
	}
	p := stream.New("tiebreak-"+WeightingAcronym(w), "k", "v", "1", "t").
		Symbols(tieBreakSymbols, func(s int) stream.Values {
			return stream.Values{"k": numeric.LitInt(int64(s / 2)), "v": numeric.LitInt(int64(s % 2))}
		}).
		Positions("(1, "+tName+")", func(i, n int) stream.Values {
			return stream.Values{"1": numeric.LitInt(1), "t": numeric.Lit(term.Term(i, n))}
		}).
		Formula(stream.Pos(model.PosOne, "1"), tieBreakFormula(tName, "t"))
	base := &stream.Attn{Name: "base", In: []string{"k", "v", "1"}, Out: []string{"c"},
		Q: model.Ints([]int64{0, 0, 1}), K: model.Ints([]int64{1, 0, 0}), V: model.Ints([]int64{0, 1, 0}),
		Mask: mask, Weighting: model.AverageHardmax, Scale: model.NoScale}
	head := blocks.TieBreak(base, "1", "t", gamma)
	con := &Construction{Inputs: tieBreakInputs}
	if w == model.Softmax {
		if maxN < 1 {
			return nil, fmt.Errorf("the maximum length N must be at least 1, got %d", maxN)
		}
		if gamma.Cmp(big.NewRat(1, 1)) > 0 {
			return nil, fmt.Errorf("under SMAT γ must be at most the scores' gap 1 (got %s): the gap after tie-breaking is only derived then", gamma.RatString())
		}
		gap, _ := TieBreakGap(tName, gamma, maxN)
		// The tie-broken average-hard head, which the softmax one
		// simulates: what the analysis certifies it against
		// (Construction.Simulated).
		if con.Simulated, err = p.Fork(p.Name+"/hard").Then(head, blocks.Round01("c", "y")).Readout("y", "c").Model(); err != nil {
			return nil, err
		}
		if head, err = blocks.SoftmaxSimulation(head, gap, maxN); err != nil {
			return nil, err
		}
		con.Bounds = []Bound{{}, {Max: blocks.SoftmaxBound(), Source: "|c − v| ≤ 2N·exp(−gap/τ)·max_j |v_j| = 1/4 for v ∈ {0, 1}, max_j |v_j|/4 over the positions attended for other values, with the tie-broken gap " + gap.String() + " (§Simulating Average-Hard Attention with Soft Attention)"}}
		con.Notes = append(con.Notes, "tie-broken gap "+gap.String()+" for n ≤ N = "+strconv.Itoa(maxN))
	}
	m, err := p.Then(head, blocks.Round01("c", "y")).Readout("y", "c").Model()
	if err != nil {
		return nil, err
	}
	con.Model = m
	rationals, err := valueMode(cfg, "bits")
	if err != nil {
		return nil, err
	}
	col, err := component(m, "v")
	if err != nil {
		return nil, err
	}
	if _, err := valueCase(m, col, []int{0}, []*big.Rat{big.NewRat(1, 2)}, []string{"0:1/2"}, " "); err != nil {
		return nil, err
	}
	future, softmax := mask == model.Future, w == model.Softmax
	con.Expected = func(c Case) []Want {
		if c.Stream == nil {
			return tieBreakExpected(c, term.Rightmost, future)
		}
		return tieBreakValues(c, caseValues(c, col, nil), term.Rightmost, future, softmax)
	}
	con.Parse = func(text string) (Case, error) { return tieBreakParse(m, col, text) }
	if rationals {
		con.Inputs = func(n int, rng *rand.Rand, budget int) ([]Case, bool) {
			// The keys as tieBreakInputs draws them, the values at random.
			if rng == nil {
				return nil, false
			}
			// Where the keys are few enough to enumerate, each pattern
			// comes round again with other values until budget inputs
			// are drawn.
			ins, _ := tieBreakInputs(n, rng, budget)
			cases := make([]Case, budget)
			for k := range cases {
				in := ins[k%len(ins)]
				base, vals, tokens := make([]int, n), make([]*big.Rat, n), make([]string, n)
				for i, s := range in.Symbols {
					base[i], vals[i] = s/2*2, randValue(rng)
					tokens[i] = strconv.Itoa(s/2) + ":" + vals[i].RatString()
				}
				c, err := valueCase(m, col, base, vals, tokens, " ")
				if err != nil {
					panic("recipes: " + err.Error()) // built once above
				}
				cases[k] = c
			}
			return cases, false
		}
		con.Notes = append(con.Notes, "values=rationals: every position holds a seeded random rational value (bits among them); c is compared with the selected value exactly (within max_j |v_j|/4 under SMAT); y, which the paper claims for bits only, is compared on inputs of bits only (its max |error| counts those only)")
	}
	return con, nil
}

// tieBreakParse reads "k:v k:v …": a key k ∈ {0, 1, 2} and any rational
// value v at each position; an input of bits is a string of symbols.
func tieBreakParse(m *model.Model, col int, text string) (Case, error) {
	fields := strings.Fields(text)
	if len(fields) == 0 {
		return Case{}, fmt.Errorf("empty input: a transformer maps non-empty strings")
	}
	base, vals := make([]int, len(fields)), make([]*big.Rat, len(fields))
	for i, f := range fields {
		ks, vs, ok := strings.Cut(f, ":")
		k, err := strconv.Atoi(ks)
		if !ok || err != nil || k < 0 || k > 2 {
			return Case{}, fmt.Errorf("position %d: %q is not k:v, a key k ∈ {0, 1, 2} and a value v (like 2:1 or 1:-3/7)", i+1, f)
		}
		if vals[i], err = exact.ParseRat(vs); err != nil {
			return Case{}, fmt.Errorf("position %d: %q: the value: %w", i+1, f, err)
		}
		base[i] = 2 * k
	}
	if allBits(vals) {
		for i, v := range vals {
			base[i] += int(v.Num().Int64())
		}
		return Case{Symbols: base}, nil
	}
	return valueCase(m, col, base, vals, fields, " ")
}

// tieBreakValues is tieBreakExpected for any values: c is the value at
// the selected position; y is claimed where every value is a bit. Under
// SMAT c is within max_j |v_j|/4 over the positions the head attends
// (softmaxValueBound).
func tieBreakValues(c Case, vals []*big.Rat, rightmost, future, softmax bool) []Want {
	want := make([]Want, len(vals))
	bits := allBits(vals)
	for i := range want {
		last := len(vals)
		if future {
			last = i + 1
		}
		v := vals[tieBreakSelect(c.Symbols, i, rightmost, future)]
		y, unclaimed := v, []string{"", ""}
		if !bits {
			y, unclaimed[0] = new(big.Rat), roundingUnclaimed // y: a placeholder
		}
		want[i] = valueWant([]*big.Rat{y, v}, unclaimed)
		if softmax {
			want[i].Tol = []Bound{{}, softmaxValueBound(vals[:last])}
		}
	}
	return want
}

// tieBreakInputs draws keys mostly from {1, 2}, so that the maximum is
// often tied and often has a key one below it; a quarter of the inputs
// put a maximal key at the first position, a quarter at the last (where
// t takes its extreme values), and a quarter hold exactly two maximal
// keys, adjacent, with different values, anywhere (the closest tie the
// term must break; leftmost terms are tested where it is late, rightmost
// ones where it is early).
func tieBreakInputs(n int, rng *rand.Rand, budget int) ([]Case, bool) {
	ins, all := sampleOrAll(n, len(tieBreakSymbols), rng, budget, nil)
	if all || rng == nil {
		return SymbolCases(ins), all
	}
	for _, in := range ins {
		mode := rng.IntN(4)
		for i := range in {
			k := 1 + rng.IntN(2)
			if mode == 3 {
				k = rng.IntN(2)
			} else if rng.IntN(8) == 0 {
				k = 0
			}
			in[i] = 2*k + rng.IntN(2)
		}
		switch mode {
		case 1:
			in[0] = 4 + rng.IntN(2)
		case 2:
			in[n-1] = 4 + rng.IntN(2)
		case 3:
			if n >= 2 {
				p, v := rng.IntN(n-1), rng.IntN(2)
				in[p], in[p+1] = 4+v, 4+1-v
			}
		}
	}
	return SymbolCases(ins), false
}

// tieBreakExpected: at each position, v at the leftmost or rightmost
// position of maximal k among the positions considered (j ≤ i under the
// future mask, all j otherwise); y = c = that v.
func tieBreakExpected(c Case, rightmost, future bool) []Want {
	in := c.Symbols
	want := make([]Want, len(in))
	for i := range in {
		best := tieBreakSelect(in, i, rightmost, future)
		v := big.NewRat(int64(in[best]%2), 1)
		want[i] = Want{Values: []*big.Rat{v, v}}
	}
	return want
}

// tieBreakSelect is the position (0-based) position i selects: the
// leftmost or rightmost of maximal key among those it considers.
func tieBreakSelect(in []int, i int, rightmost, future bool) int {
	last := len(in) - 1
	if future {
		last = i
	}
	best := 0
	for j := 1; j <= last; j++ {
		if k, kb := in[j]/2, in[best]/2; k > kb || k == kb && rightmost {
			best = j
		}
	}
	return best
}

// tieBreakFormula is the tie-breaking term named t (−1/j, 1/j, j/n or
// −j/n) as a term of a position formula on component c.
func tieBreakFormula(t, c string) stream.Term {
	minus := numeric.LitInt(-1)
	switch t {
	case "-1/j":
		return stream.Pos(model.PosInverseI, c).Times(minus)
	case "1/j":
		return stream.Pos(model.PosInverseI, c)
	case "j/n":
		return stream.Pos(model.PosIOverN, c)
	}
	return stream.Pos(model.PosIOverN, c).Times(minus)
}
