package recipes

import (
	"fmt"
	"math/big"
	"regexp"
	"strings"

	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/numeric"
	"github.com/transformer-cookbook/verify/recipes/blocks"
	"github.com/transformer-cookbook/verify/recipes/stream"
)

// multiHead is §Simulating Multi-Head Attention with Single-Head
// Attention: "an attention layer with H heads can be simulated by H
// single-headed attention layers, and the results summed together at the
// end using addition" (§Addition and Subtraction).
//
// The layer simulated has H = 2 heads of quadratic maximisation
// (§Quadratic Maximization, as in lookup). Position i holds a symbol
// "q:v", a query q ∈ [n] and a value v ∈ {0, 1}; the residual stream is
// (q, 1, j, j², v, n+1, …), the position embedding writing 1, j, j² and
// n+1. Over (q, 1, j, j², v, n+1):
//
//	head 1: W^Q = [[1,0,0,0,0,0], [0,1,0,0,0,0]], W^K = [[0,0,2,0,0,0], [0,0,0,−1,0,0]], W^V = [0,0,0,0,1,0]
//	head 2: W^Q = [[−1,0,0,0,0,1], [0,1,0,0,0,0]], W^K and W^V as head 1,
//
// so head 1 scores 2q_i j − j² and retrieves c1 = v_{q_i}, and head 2,
// whose query is n+1−q_i, retrieves c2 = v_{n+1−q_i}; both maxima are
// unique with gap 1. Then y = add(c1, c2) = v_{q_i} + v_{n+1−q_i}.
//
// Parameter form chooses the model: "simulation" (the section's
// construction: head 1 alone in layer 1, head 2 alone in layer 2, then
// the addition FFN) or "multi-head" (both heads in one sublayer, then the
// addition). Under SMAT each head is W^Q-scaled by log(8N) (gap 1, as in
// lookup) and rounded by GTZero_{1/2}(c − 1/4) before the addition, so
// that y is exact and |c1 − v|, |c2 − v| ≤ 1/4.
//
// Domain: n ≤ N, q_i ∈ [n], v_i ∈ {0, 1}. Output: y (exact), c1, c2.
var multiHead = &Recipe{
	Name:       "multihead",
	Booleans:   []string{"y"},
	Title:      "a two-head attention layer simulated by two single-head layers and an addition",
	Section:    "Simulating Multi-Head Attention with Single-Head Attention",
	Label:      "sec:multi-head",
	Domain:     "n ≤ N, q_i ∈ [n], v_i ∈ {0,1}",
	Weightings: []model.Weighting{model.AverageHardmax, model.LeftHardmax, model.Softmax},
	Exact:      true,
	Width:      "9: q, 1, j, j², v, n+1, c1, c2, y (11 under SMAT, with the rounded y1, y2)",
	MinN:       1,
	// As for lookup, the scores grow as n²: fp16 first merges the
	// maximum with a neighbour at query 46, fp32 at 4097; head 2's query
	// n+1−q reaches 46 at n = 46 with q = 1.
	DefaultMaxN: 8192,
	LimitN:      1 << 16,
	Params: []Param{{Name: "form", Default: "simulation",
		Doc: "simulation (each head alone in its own layer, then addition: the section's construction) or multi-head (both heads in one sublayer, then addition)"}},
	Build: buildMultiHead,
}

func init() { Register(multiHead) }

// multiHeadHeads returns the two quadratic-maximisation heads, over
// (q, 1, j, j², v, n+1), writing c1 and c2.
func multiHeadHeads(w model.Weighting) (h1, h2 *stream.Attn) {
	in := []string{"q", "1", "j", "j²", "v", "n+1"}
	k := model.Ints([]int64{0, 0, 2, 0, 0, 0}, []int64{0, 0, 0, -1, 0, 0})
	v := model.Ints([]int64{0, 0, 0, 0, 1, 0})
	h1 = &stream.Attn{Name: "head1", In: in, Out: []string{"c1"},
		Q: model.Ints([]int64{1, 0, 0, 0, 0, 0}, []int64{0, 1, 0, 0, 0, 0}), K: k, V: v,
		Weighting: w, Scale: model.NoScale}
	h2 = &stream.Attn{Name: "head2", In: in, Out: []string{"c2"},
		Q: model.Ints([]int64{-1, 0, 0, 0, 0, 1}, []int64{0, 1, 0, 0, 0, 0}), K: k, V: v,
		Weighting: w, Scale: model.NoScale}
	return h1, h2
}

func buildMultiHead(cfg Config) (*Construction, error) {
	w, maxN := cfg.Weighting, cfg.MaxN
	form, err := cfg.Choice("form", "simulation", "multi-head")
	if err != nil {
		return nil, err
	}
	if maxN < 1 {
		return nil, fmt.Errorf("the maximum length N must be at least 1, got %d", maxN)
	}
	p := stream.New("multihead-"+form+"-"+WeightingAcronym(w), "q", "1", "j", "j²", "v", "n+1").
		Symbols(lookupAlphabet(maxN), func(s int) stream.Values {
			return stream.Values{"q": numeric.LitInt(int64(s/2 + 1)), "v": numeric.LitInt(int64(s % 2))}
		}).
		Positions("(1, j, j², n+1)", func(i, n int) stream.Values {
			return stream.Values{"1": numeric.LitInt(1), "j": numeric.LitInt(int64(i)),
				"j²": numeric.LitInt(int64(i) * int64(i)), "n+1": numeric.LitInt(int64(n) + 1)}
		}).
		Formula(stream.Pos(model.PosOne, "1"), stream.Pos(model.PosI, "j"), stream.Pos(model.PosISquared, "j²"),
			stream.Pos(model.PosN, "n+1"), stream.Pos(model.PosOne, "n+1"))
	h1, h2 := multiHeadHeads(w)
	con := &Construction{Inputs: lookupInputs, Valid: lookupValid, Expected: multiHeadExpected, Symbols: lookupSymbols, Count: countLookupSymbols}
	rounded := w == model.Softmax
	if rounded {
		// The same program under average hardmax, its c1 and c2 rounded as
		// under softmax (the same sublayers): the construction the softmax
		// heads simulate, which the analysis certifies them against
		// (Construction.Simulated).
		hard1, hard2 := multiHeadHeads(model.AverageHardmax)
		if con.Simulated, err = multiHeadModel(p.Fork(p.Name+"/hard"), form, hard1, hard2, true); err != nil {
			return nil, err
		}
		// W^Q' = (1/τ) W^Q with τ = γ/log(8N), γ = 1, for each head.
		if h1, err = blocks.SoftmaxSimulation(h1, numeric.LitInt(1), maxN); err != nil {
			return nil, err
		}
		if h2, err = blocks.SoftmaxSimulation(h2, numeric.LitInt(1), maxN); err != nil {
			return nil, err
		}
		b := Bound{Max: blocks.SoftmaxBound(), Source: "|c − v| ≤ 2N·exp(−γ/τ) = 1/4 (§Simulating Average-Hard Attention with Soft Attention, Edelman's lemma)"}
		con.Bounds = []Bound{{}, b, b}
	}
	con.Model, err = multiHeadModel(p, form, h1, h2, rounded)
	return con, err
}

// multiHeadModel finishes p with the heads h1 and h2 in the given form,
// then y = c1 + c2, or, rounded, y = y1 + y2 with y_k = Round01(c_k).
func multiHeadModel(p *stream.Program, form string, h1, h2 *stream.Attn, rounded bool) (*model.Model, error) {
	x1, x2 := "c1", "c2"
	var r1, r2 stream.Block
	if rounded {
		x1, x2 = "y1", "y2"
		r1, r2 = blocks.Round01("c1", x1), blocks.Round01("c2", x2)
	}
	add := blocks.Add(x1, x2, "y")
	if form == "simulation" {
		p.Then(h1, r1, h2, r2, add)
	} else {
		p.Then(stream.Parallel(h1, h2))
		if r1 != nil {
			p.Then(stream.Parallel(r1, r2))
		}
		p.Then(add)
	}
	return p.Readout("y", "c1", "c2").Model()
}

// multiHeadExpected: y = v_{q_i} + v_{n+1−q_i}, c1 = v_{q_i},
// c2 = v_{n+1−q_i}.
func multiHeadExpected(c Case) []Want {
	in := c.Symbols
	n := len(in)
	want := make([]Want, n)
	for i, s := range in {
		q := s/2 + 1
		a := int64(in[q-1] % 2)
		b := int64(in[n-q] % 2) // position n+1−q, 0-based n−q
		want[i] = Want{Values: []*big.Rat{big.NewRat(a+b, 1), big.NewRat(a, 1), big.NewRat(b, 1)}}
	}
	return want
}

// lookupSymbolRun is a run of the symbols q:v with nothing between them,
// which model.Tokenize splits at the longest match ("1:012:1" is 1:0 12:1).
var lookupSymbolRun = regexp.MustCompile(`^(?:[0-9]+:[01])+$`)

// countLookupSymbols counts the positions of an input of the symbols q:v
// as model.Tokenize reads it: separated by white space, or in one run.
func countLookupSymbols(text string) (int, error) {
	if f := strings.Fields(text); len(f) == 1 && f[0] == text && lookupSymbolRun.MatchString(text) {
		return strings.Count(text, ":"), nil
	}
	return countFields(text)
}
