package recipes

import (
	"fmt"
	"math/big"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/numeric"
	"github.com/transformer-cookbook/verify/recipes/blocks"
	"github.com/transformer-cookbook/verify/recipes/stream"
)

// The recipes of §Predecessor (sec:predecessor): position i retrieves the
// value v_{i−1} of the position before it, and 0 at i = 1:
//
//	pred((1, (−1)^1, v_1), …, (1, (−1)^n, v_n)) = (0, v_1, …, v_{n−1}).
//
// The values v_i are bounded to [0, 1]; the input symbols are "0", "h"
// and "1", with the values 0, 1/2 and 1 ("h" for one half, so that inputs
// are typed as plain strings like "0h1"). Any other rational value is
// typed as values separated by spaces or commas ("0.25, 3/7, h"), and run
// from its stream (predParse): the section states pred for every
// v_i ∈ [0, 1], and the strict variant copies any value.

// predSymbols is the alphabet of the predecessor recipes and predValue
// the value each symbol holds.
var predSymbols = []string{"0", "h", "1"}

func predValue(s int) *big.Rat { return big.NewRat(int64(s), 2) }

// pred is the corrected construction of §Predecessor with positional
// encoding (1, (−1)^i): two future-masked heads in one sublayer,
//
//	pred.odd:  W^Q = [1, 0, 0], W^K = [0, 1, 0], W^V = [0, 0, 1]
//	pred.even: W^Q = [1, 0, 0], W^K = [0, −1, 0], W^V = [0, 0, 1]
//
// over (1, (−1)^j, v_j), so that pred.odd scores (−1)^j (even positions
// win: at odd i > 1 the rightmost of them is i−1) and pred.even scores
// −(−1)^j (odd positions win: at even i the rightmost is i−1). A
// feed-forward layer computes even_i = GTZero_1((−1)^i) and
// lit = if(even, pred.even, pred.odd) (§Conditionals: exact since the
// values are in [0, 1]). That is the paper's final formula, which never
// uses first: at i = 1 both heads can only attend to position 1, so lit
// is v_1, not the stated 0 (see pred-literal). This recipe adds
// pred = if(first_i, 0, lit), with first_i from §First: GTZero_{1/3}(c −
// 1/3) of a future-masked head c, in the same sublayer as the two heads.
//
// Under rightmost UHAT (the construction as printed) c cannot be the
// paper's uniform head (Q = K = 0, V = −I on (−1)^i): all its scores tie,
// and rightmost hardmax picks position i itself, c = −(−1)^i, which is 1
// at every odd i, not only at i = 1. So under UHAT-right c is the head
// W^Q = [1, 0, 0], W^K = [0, 1, 0], W^V = [0, −1, 0] (pred.odd's scores,
// reading −(−1)^j): c = 1 at i = 1 (position 1 alone) and −1 at every
// i ≥ 2 (the rightmost even j ≤ i).
//
// Under AHAT (the cheat sheet's other weighting) the two heads get the
// tie-breaking term of §Simulating Unique-Hard Attention with
// Average-Hard Attention, q̂ = [q; γ], k̂ = [k; t(j)] with γ = 2 (the
// scores ±1 are 2 apart) and t(j) = −1/j or j/n (both select the
// rightmost maximum) from a position-encoding component, and c is the
// paper's uniform head: c = 1 at i = 1, and 0 or 1/i ≤ 1/3 at i ≥ 2.
// Scores are q·k, not divided by √d_key (√2 once the tie-breaking row is
// added; γ is quoted for q·k).
//
// Domain: v_i ∈ [0, 1] rational (the symbols 0, h, 1, or typed values),
// any n. Output: pred_i, exact.
var pred = &Recipe{
	Name:       "pred",
	Title:      "predecessor with positional encoding (−1)^i: position i retrieves v_{i−1}, and 0 at i = 1",
	Section:    "Predecessor",
	Label:      "sec:predecessor",
	Domain:     "v_i ∈ [0,1] ∩ ℚ (symbols 0, h = 1/2, 1, or values like \"0.25, 3/7\"), any n",
	Weightings: []model.Weighting{model.RightHardmax, model.AverageHardmax},
	Exact:      true,
	Width:      "Θ(1): 1, (−1)^i, v, zero, [t(i)], the heads' outputs, even, first, lit, pred",
	MinN:       1,
	// The scores are ±1 (exact everywhere) under UHAT-right; under AHAT
	// the tie-breaking term separates the two rightmost candidates j = i−1
	// and i−3 by 4/(j(j−2)) (−1/j) or 4/n (j/n). Measured: at fp16 the
	// first rounding tie is at i = n = 102 for −1/j and at n = 1368
	// (i = 857) for j/n; at fp32 at i = n = 8194 for −1/j (none up to
	// 40000 for j/n). Separately, §First's threshold 1/3 is not a binary
	// fraction: at fp32 and bf16, pred_1 is 2^−24 (2^−8) instead of 0
	// when v_1 = 1 (see TestPredFP32First); at fp16 it rounds exactly.
	DefaultMaxN: 2048,
	Params:      predParams,
	Build:       func(cfg Config) (*Construction, error) { return buildPred(cfg, false) },
}

// predLiteral is §Predecessor's construction exactly as printed
// (sec:predecessor, cookbook .tex lines 1615–1674): the input
// (1, (−1)^i, v_i) at each position (the signature of pred, l. 1624),
// the two future-masked heads
//
//	pred.odd:  W^Q = [1, 0, 0], W^K = [0, 1, 0],  W^V = [0, 0, 1]   (l. 1634)
//	pred.even: W^Q = [1, 0, 0], W^K = [0, −1, 0], W^V = [0, 0, 1]   (l. 1654)
//
// in one sublayer, then even_i = GTZero_1((−1)^i) (l. 1672, §Comparisons'
// GTZero_ε with ε = 1) and the final formula (l. 1674)
//
//	pred = if(GTZero_1((−1)^i), pred.even, pred.odd)
//
// with §Conditionals' if (l. 1257: W1 = [[1, 1, 0], [−1, 0, 1]],
// b1 = [−1; 0], W2 = [1, 1]). Nothing is added: no first, and no
// tie-breaking term.
//
// What is wrong: the final formula never uses first, although the
// section says "If i = 1, we output 0" (l. 1629) and states pred(…)_1 = 0.
// At i = 1 (odd, so the formula selects pred.odd), the future mask leaves
// only position 1, so the output is v_1: on the input "1" it outputs 1,
// not 0. Under rightmost UHAT, the weighting the section names (l. 1627),
// positions i ≥ 2 are right.
//
// The cheat sheet also lists AHAT for Predecessor (l. 631). The section
// adds no tie-breaking, so under AHAT the printed heads average every
// maximal position: at even i pred.even averages v_j over the odd j < i,
// and at odd i pred.odd over the even j < i, so from i = 4 on the output
// is the mean of every other earlier value, not v_{i−1} (on "1000" it
// outputs (1, 1, 0, 1/2)). The corrected recipe pred adds if(first, 0, ·)
// and, under AHAT, the tie-breaking term of §Simulating Unique-Hard
// Attention with Average-Hard Attention.
//
// Domain: pred's.
var predLiteral = variant(pred, func(r *Recipe) {
	r.Name = "pred-literal"
	r.Title = "predecessor as printed: if(GTZero_1((−1)^i), pred.even, pred.odd), which outputs v_1 instead of 0 at i = 1 (and under AHAT, with no tie-breaking, averages from i = 4 on)"
	r.Width = "Θ(1): 1, (−1)^i, v, the heads' outputs, even, lit"
	r.Params = []Param{predValuesParam}
	r.Build = func(cfg Config) (*Construction, error) { return buildPred(cfg, true) }
})

var predParams = []Param{{Name: "t", Default: "-1/j",
	Doc: "under AHAT, the tie-breaking term t(j) of §Simulating Unique-Hard Attention with Average-Hard Attention that makes the heads rightmost: -1/j or j/n (a position-encoding component; unused under UHAT-right)"},
	predValuesParam}

var predValuesParam = valuesParam("alphabet", "the symbols 0, h = 1/2 and 1")

// predStrict is the strict-masking variant at the end of §Predecessor:
// "it suffices to use a positional encoding of i/n along with UHAT". One
// head with strict future masking (j < i) over (i/n, v): W^Q = W^K =
// [1, 0], W^V = [0, 1], so s_ij = (i/n)(j/n), which among j < i is
// uniquely maximal at j = i−1 (by i/n² over j = i−2). Position 1 attends
// to nothing and outputs 0 (the model's convention for strict masks, one
// of the section's "special value" options). The maximum is unique, so
// leftmost and rightmost UHAT and AHAT all retrieve v_{i−1}.
//
// The section assumes v_i ∈ [0, 1] for the conditional of pred; this
// head has none, and copies any value exactly.
//
// Domain: any rational v_i (the symbols 0, h, 1, or typed values), any n.
// Output: pred_i, exact.
var predStrict = &Recipe{
	Name:       "pred-strict",
	Title:      "predecessor with strict future masking and positional encoding i/n",
	Section:    "Predecessor",
	Label:      "sec:predecessor",
	Domain:     "v_i ∈ ℚ (symbols 0, h = 1/2, 1, or values like \"-2.5, 3/7\"; the section's bound [0,1] is needed by pred's conditional only), any n",
	Weightings: []model.Weighting{model.LeftHardmax, model.RightHardmax, model.AverageHardmax},
	Exact:      true,
	Width:      "3: i/n, v, pred",
	MinN:       1,
	// fp16 first rounds (i/n)((i−1)/n) and (i/n)((i−2)/n), which differ
	// by i/n², to the same number at n = 1030, i = 731 (bf16: n = 133,
	// i = 128; fp32: no n ≤ 40000): leftmost UHAT then picks i−2 and AHAT
	// averages. Rightmost UHAT never fails this way, since rounding is
	// monotone and a tie goes to i−1.
	DefaultMaxN: 2048,
	Params:      []Param{predValuesParam},
	Build:       buildPredStrict,
}

func init() {
	Register(pred)
	Register(predLiteral)
	Register(predStrict)
}

// predTieBreak returns the position-encoding value t(j) and the rational
// function it is, for the AHAT heads.
func predTieBreak(name string) (func(j, n int) *big.Rat, error) {
	switch name {
	case "-1/j":
		return func(j, n int) *big.Rat { return big.NewRat(-1, int64(j)) }, nil
	case "j/n":
		return func(j, n int) *big.Rat { return big.NewRat(int64(j), int64(n)) }, nil
	}
	return nil, fmt.Errorf("parameter t must be -1/j or j/n (the rightmost tie-breaking terms), got %q", name)
}

// predHeads returns pred.odd and pred.even with the paper's weights over
// (1, s, v), s = (−1)^j, writing odd and even.
func predHeads(w model.Weighting) (odd, even *stream.Attn) {
	in := []string{"1", "s", "v"}
	odd = &stream.Attn{Name: "pred.odd", In: in, Out: []string{"pred.odd"},
		Q: model.Ints([]int64{1, 0, 0}), K: model.Ints([]int64{0, 1, 0}), V: model.Ints([]int64{0, 0, 1}),
		Mask: model.Future, Weighting: w, Scale: model.NoScale}
	even = &stream.Attn{Name: "pred.even", In: in, Out: []string{"pred.even"},
		Q: model.Ints([]int64{1, 0, 0}), K: model.Ints([]int64{0, -1, 0}), V: model.Ints([]int64{0, 0, 1}),
		Mask: model.Future, Weighting: w, Scale: model.NoScale}
	return odd, even
}

// predFirstHead is the attention half of §First, writing c (1 at i = 1,
// at most 1/3 elsewhere): the paper's uniform future-masked head
// (Q = K = 0, V = −I on (−1)^j) under AHAT; under UHAT-right, where
// uniform attention is impossible, the head scoring (−1)^j and reading
// −(−1)^j (see pred).
func predFirstHead(w model.Weighting) *stream.Attn {
	if w == model.AverageHardmax {
		return &stream.Attn{Name: "first", In: []string{"s"}, Out: []string{"c"},
			Q: model.Ints([]int64{0}), K: model.Ints([]int64{0}), V: model.Ints([]int64{-1}),
			Mask: model.Future, Weighting: w, Scale: model.NoScale}
	}
	return &stream.Attn{Name: "first(parity)", In: []string{"1", "s"}, Out: []string{"c"},
		Q: model.Ints([]int64{1, 0}), K: model.Ints([]int64{0, 1}), V: model.Ints([]int64{0, -1}),
		Mask: model.Future, Weighting: w, Scale: model.NoScale}
}

func buildPred(cfg Config, literal bool) (*Construction, error) {
	w := cfg.Weighting
	if w != model.RightHardmax && w != model.AverageHardmax {
		return nil, fmt.Errorf("the construction needs rightmost UHAT or AHAT with tie-breaking, not %s", WeightingAcronym(w))
	}
	inputs := []string{"1", "s", "v"}
	if !literal {
		inputs = append(inputs, "zero") // never set: the constant 0 of if(first, 0, ·)
	}
	var t func(j, n int) *big.Rat
	peName := "(1, (−1)^i)"
	// The tie-breaking term is the correction's: the printed heads have
	// none (see predLiteral).
	tieBreak := w == model.AverageHardmax && !literal
	if tieBreak {
		var err error
		if t, err = predTieBreak(cfg.Params["t"]); err != nil {
			return nil, err
		}
		inputs = append(inputs, "t")
		peName = "(1, (−1)^i, " + cfg.Params["t"] + ")"
	}
	name := "pred"
	if literal {
		name = "pred-literal"
	}
	p := stream.New(name+"-"+WeightingAcronym(w), inputs...).
		Symbols(predSymbols, func(s int) stream.Values {
			return stream.Values{"v": numeric.Lit(predValue(s))}
		}).
		Positions(peName, func(i, n int) stream.Values {
			vals := stream.Values{"1": numeric.LitInt(1), "s": numeric.LitInt(int64(1 - 2*(i%2)))}
			if t != nil {
				vals["t"] = numeric.Lit(t(i, n))
			}
			return vals
		}).
		Formula(predTerms(cfg.Params["t"], t != nil)...)
	odd, even := predHeads(w)
	if tieBreak {
		// γ = 2: the scores ±1 are either maximal or 2 below the maximum.
		two := big.NewRat(2, 1)
		odd = blocks.TieBreak(odd, "1", "t", two)
		even = blocks.TieBreak(even, "1", "t", two)
	}
	// even_i = GTZero_1((−1)^i): 1 at even i (s = 1), 0 at odd i (s = −1).
	isEven := blocks.GTZeroEps("s", "even", big.NewRat(1, 1), new(big.Rat))
	sel := blocks.If("even", "pred.even", "pred.odd", "lit")
	if literal {
		p.Then(stream.Parallel(odd, even), isEven, sel)
		m, err := p.Readout("lit").Model()
		if err != nil {
			return nil, err
		}
		return predConstruction(cfg, m, true)
	}
	// first_i = GTZero_{1/3}(c − 1/3) (§First).
	third := big.NewRat(1, 3)
	first := blocks.GTZeroEps("c", "first", third, third)
	p.Then(stream.Parallel(odd, even, predFirstHead(w)), stream.Parallel(isEven, first), sel,
		blocks.If("first", "zero", "lit", "pred"))
	m, err := p.Readout("pred").Model()
	if err != nil {
		return nil, err
	}
	return predConstruction(cfg, m, true)
}

// predConstruction is the construction of a predecessor model m (the
// symbols 0, h, 1 and a component v): its inputs and reference for the
// alphabet and for any rational value, with the values bounded to [0, 1]
// where bounded is set (the conditional of pred needs it).
func predConstruction(cfg Config, m *model.Model, bounded bool) (*Construction, error) {
	rationals, err := valueMode(cfg, "alphabet")
	if err != nil {
		return nil, err
	}
	col, err := component(m, "v")
	if err != nil {
		return nil, err
	}
	if _, err := valueCase(m, col, []int{0}, []*big.Rat{big.NewRat(1, 3)}, []string{"1/3"}, ", "); err != nil {
		return nil, err
	}
	con := &Construction{Model: m, Inputs: predInputs, AllStrings: true,
		Expected: func(c Case) []Want {
			if c.Stream == nil {
				return predExpected(c)
			}
			return predValues(caseValues(c, col, nil))
		},
		Parse: func(text string) (Case, error) { return predParse(m, col, text) }}
	if bounded {
		con.Valid = func(c Case) error {
			for i, v := range caseValues(c, col, predValue) {
				if v.Sign() < 0 || v.Cmp(big.NewRat(1, 1)) > 0 {
					return fmt.Errorf("position %d: v = %s is outside [0, 1], which the section assumes (the conditional choosing pred.even or pred.odd is exact for values in [0, 1] only)", i+1, v.RatString())
				}
			}
			return nil
		}
	}
	if rationals {
		draw := randValue
		if bounded {
			draw = randUnit
		}
		con.AllStrings = false
		con.Inputs = func(n int, rng *rand.Rand, budget int) ([]Case, bool) {
			if rng == nil {
				return nil, false
			}
			cases := make([]Case, budget)
			for k := range cases {
				vals, tokens := make([]*big.Rat, n), make([]string, n)
				for i := range vals {
					vals[i] = draw(rng)
					tokens[i] = vals[i].RatString()
				}
				c, err := valueCase(m, col, make([]int, n), vals, tokens, ", ")
				if err != nil {
					panic("recipes: " + err.Error()) // built once above
				}
				cases[k] = c
			}
			return cases, false
		}
		where := ""
		if bounded {
			where = " in [0, 1]"
		}
		con.Notes = append(con.Notes, "values=rationals: every position holds a seeded random rational value"+where+", compared exactly")
	}
	return con, nil
}

// predNamed are the values the alphabet names.
var predNamed = map[string]*big.Rat{"0": big.NewRat(0, 1), "h": big.NewRat(1, 2), "1": big.NewRat(1, 1)}

// predParse reads an input: a string of the symbols 0, h, 1 ("0h1",
// "0 h 1"), or values separated by spaces or commas, each a rational or
// h ("0.25, 3/7, h"). Values of the alphabet make a string of symbols;
// any other value, an input given by its stream.
func predParse(m *model.Model, col int, text string) (Case, error) {
	if syms, err := m.Tokenize(text); err == nil {
		return Case{Symbols: syms}, nil
	}
	fields := strings.FieldsFunc(text, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' || r == '\n' })
	if len(fields) == 0 {
		return Case{}, fmt.Errorf("empty input: a transformer maps non-empty strings")
	}
	vals, syms := make([]*big.Rat, len(fields)), make([]int, len(fields))
	symbolic := true
	for i, f := range fields {
		v, err := parseValue(f, predNamed)
		if err != nil {
			return Case{}, fmt.Errorf("position %d: %w (type the symbols 0, h, 1, or values separated by spaces or commas)", i+1, err)
		}
		vals[i] = v
		k := slices.IndexFunc(predSymbols, func(s string) bool { return predNamed[s].Cmp(v) == 0 })
		symbolic = symbolic && k >= 0
		syms[i] = max(k, 0)
	}
	if symbolic {
		return Case{Symbols: syms}, nil
	}
	return valueCase(m, col, make([]int, len(fields)), vals, fields, ", ")
}

// predValues is the paper's function on any values: 0 at position 1,
// v_{i−1} at position i ≥ 2.
func predValues(vals []*big.Rat) []Want {
	want := make([]Want, len(vals))
	for i := range vals {
		v := new(big.Rat)
		if i > 0 {
			v = vals[i-1]
		}
		want[i] = valueWant([]*big.Rat{v}, nil)
	}
	return want
}

func buildPredStrict(cfg Config) (*Construction, error) {
	w := cfg.Weighting
	head := blocks.PredStrict("i/n", []string{"v"}, []string{"pred"}, w)
	m, err := stream.New("pred-strict-"+WeightingAcronym(w), "i/n", "v").
		Symbols(predSymbols, func(s int) stream.Values {
			return stream.Values{"v": numeric.Lit(predValue(s))}
		}).
		Positions("(i/n)", func(i, n int) stream.Values {
			return stream.Values{"i/n": numeric.Frac(int64(i), int64(n))}
		}).
		Formula(stream.Pos(model.PosIOverN, "i/n")).
		Then(head).Readout("pred").Model()
	if err != nil {
		return nil, err
	}
	return predConstruction(cfg, m, false)
}

// predInputs enumerates {0, h, 1}^n when there are at most budget inputs,
// else draws them uniformly.
func predInputs(n int, rng *rand.Rand, budget int) ([]Case, bool) {
	ins, all := sampleOrAll(n, len(predSymbols), rng, budget, nil)
	return SymbolCases(ins), all
}

// predExpected is the paper's function: 0 at position 1, v_{i−1} at
// position i ≥ 2.
func predExpected(c Case) []Want {
	want := make([]Want, len(c.Symbols))
	for i := range c.Symbols {
		v := new(big.Rat)
		if i > 0 {
			v = predValue(c.Symbols[i-1])
		}
		want[i] = Want{Values: []*big.Rat{v}}
	}
	return want
}

// predTerms is the formula of pred's position embedding: 1, (−1)^i, and
// the tie-breaking term t (−1/j or j/n) when tie is set.
func predTerms(t string, tie bool) []stream.Term {
	terms := []stream.Term{stream.Pos(model.PosOne, "1"), stream.Pos(model.PosParity, "s")}
	if tie {
		terms = append(terms, tieBreakFormula(t, "t"))
	}
	return terms
}
