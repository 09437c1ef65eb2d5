package recipes

import (
	"fmt"
	"math/big"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/transformer-cookbook/verify/exact"
	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/numeric"
	"github.com/transformer-cookbook/verify/recipes/blocks"
)

// Values that are not symbols. The lookups, the predecessors and
// tie-breaking copy a value v_j from one position to another, and the
// paper states them for real values (lookup: (ℝ³)^+ → ℝ^+), while their
// alphabets hold a few values only (bits, or 0, 1/2, 1) so that inputs can
// be enumerated. An input with any other rational value is run from its
// initial residual stream: the embedding of the symbol holding the value
// 0 at that position, with the value component set to v (valueCase). The
// models are unchanged; only the value component differs.

// valuesParam selects what a check draws: the alphabet's values, or
// seeded random rationals (sampled, never enumerated).
func valuesParam(alphabet, doc string) Param {
	return Param{Name: "values", Default: alphabet,
		Doc: "the values a check draws: " + alphabet + " (" + doc + "; enumerated while few) or rationals (seeded random rationals at every position, so every length is sampled)"}
}

// valueMode reads the values parameter: true for rationals.
func valueMode(cfg Config, alphabet string) (bool, error) {
	v, err := cfg.Choice("values", alphabet, "rationals")
	return v == "rationals", err
}

// exactEmbedding is the initial residual stream of the symbols, exactly:
// word embedding plus position encoding, as Run adds them.
func exactEmbedding(m *model.Model, symbols []int) ([][]*big.Rat, error) {
	n := len(symbols)
	h := make([][]*big.Rat, n)
	for i, s := range symbols {
		h[i] = make([]*big.Rat, m.D)
		var pe model.Vector
		if m.Position != nil {
			pe = m.Position.Vector(i+1, n)
		}
		for c := range h[i] {
			x := new(big.Rat)
			for _, v := range []model.Vector{m.WordEmbedding[s], pe} {
				if c >= len(v) || v[c].IsZero() {
					continue
				}
				r, ok, err := v[c].Rat()
				if err != nil || !ok {
					return nil, fmt.Errorf("the embedding's component %d at position %d is not rational (%v)", c+1, i+1, v[c])
				}
				x.Add(x, r)
			}
			h[i][c] = x
		}
	}
	return h, nil
}

// component is the index of the component called name in m.
func component(m *model.Model, name string) (int, error) {
	if k := slices.Index(m.Components, name); k >= 0 {
		return k, nil
	}
	return 0, fmt.Errorf("%s has no component %q", m.Name, name)
}

// valueCase is the input whose position i holds symbol base[i] (one whose
// value is 0) with the value component col set to vals[i]; tokens are how
// its positions print.
func valueCase(m *model.Model, col int, base []int, vals []*big.Rat, tokens []string, sep string) (Case, error) {
	h, err := exactEmbedding(m, base)
	if err != nil {
		return Case{}, err
	}
	for i, v := range vals {
		if h[i][col].Sign() != 0 {
			return Case{}, fmt.Errorf("%s: symbol %q does not hold the value 0", m.Name, m.Alphabet[base[i]])
		}
		h[i][col] = new(big.Rat).Set(v)
	}
	return Case{Symbols: base, Stream: h, Text: strings.Join(tokens, sep), Tokens: tokens}, nil
}

// caseValues is the value at every position of c: from its stream (as the
// format holds it, see check.Run) when it has one, else of its symbols.
func caseValues(c Case, col int, ofSymbol func(s int) *big.Rat) []*big.Rat {
	vals := make([]*big.Rat, len(c.Symbols))
	for i, s := range c.Symbols {
		if c.Stream != nil {
			vals[i] = c.Stream[i][col]
		} else {
			vals[i] = ofSymbol(s)
		}
	}
	return vals
}

func isBit(v *big.Rat) bool {
	return v.IsInt() && (v.Sign() == 0 || v.Cmp(big.NewRat(1, 1)) == 0)
}

func allBits(vals []*big.Rat) bool {
	for _, v := range vals {
		if !isBit(v) {
			return false
		}
	}
	return true
}

// maxAbs is max_j |vals[j]| (0 for none).
func maxAbs(vals []*big.Rat) *big.Rat {
	m := new(big.Rat)
	for _, v := range vals {
		if a := new(big.Rat).Abs(v); a.Cmp(m) > 0 {
			m = a
		}
	}
	return m
}

// roundingUnclaimed is why y is not compared on an input with a value
// that is not a bit.
const roundingUnclaimed = "the paper claims the rounding y = GTZero_{1/2}(c − 1/4) for values in {0, 1} only"

// softmaxValueBound is the bound on |c − v_q| under the softmax
// simulation for values v_j read at the positions j the head attends:
// by Edelman's lemma the weights w satisfy ‖w − e_q‖₁ ≤ 2n e^{−γ/τ} ≤
// 2N/(8N) = 1/4 for n ≤ N, and c − v_q = Σ_j (w_j − [j = q]) v_j, so
// |c − v_q| ≤ ‖w − e_q‖₁ · max_j |v_j| ≤ max_j |v_j|/4 (1/4 for bits:
// the paper's bound).
func softmaxValueBound(vals []*big.Rat) Bound {
	b := new(big.Rat).Mul(maxAbs(vals), blocks.SoftmaxBound())
	return Bound{Max: b, Source: "|c − v_q| ≤ ‖w − e_q‖₁·max_j |v_j| ≤ 2N·exp(−γ/τ)·max_j |v_j| = max_j |v_j|/4 (Edelman's lemma, §Simulating Average-Hard Attention with Soft Attention)"}
}

// softmaxBoundText describes the bound of a lookup's c under SMAT.
const softmaxBoundText = "|c − v| ≤ 2N·exp(−γ/τ)·max_j |v_j| = 1/4 for v ∈ {0, 1}, max_j |v_j|/4 for other values (§Simulating Average-Hard Attention with Soft Attention, Edelman's lemma)"

// parseValue reads a value: an exact rational ("3/7", "-0.25"), or one
// of the alphabet's names for values (the predecessors' "h" for 1/2).
func parseValue(s string, named map[string]*big.Rat) (*big.Rat, error) {
	if v, ok := named[s]; ok {
		return new(big.Rat).Set(v), nil
	}
	return exact.ParseRat(s)
}

// randValue draws a rational value: a bit one time in four (so that
// inputs mix the alphabet's values with others), else a fraction with a
// small or a decimal denominator in [−16, 16], and one time in eight a
// large one, up to 10⁶ in magnitude (the softmax bound scales with
// max_j |v_j|).
func randValue(rng *rand.Rand) *big.Rat {
	switch k := rng.IntN(8); {
	case k < 2:
		return big.NewRat(int64(rng.IntN(2)), 1)
	case k == 2:
		return randRat(rng, -1_000_000, 1_000_000, 7)
	default:
		dens := []int64{1, 2, 3, 4, 7, 10, 1000}
		return randRat(rng, -16, 16, dens[rng.IntN(len(dens))])
	}
}

// randUnit draws a rational in [0, 1]: 0, 1/2 and 1 often, else a
// fraction with a small or a decimal denominator.
func randUnit(rng *rand.Rand) *big.Rat {
	if rng.IntN(4) == 0 {
		return big.NewRat(int64(rng.IntN(3)), 2)
	}
	dens := []int64{3, 7, 10, 1000, 1 << 20}
	return randRat(rng, 0, 1, dens[rng.IntN(len(dens))])
}

// valueWant is the reference of an input given by its stream: the values
// as exact reals, so that a point must equal them and an interval
// enclosure must contain them. A value like 3/7 is not a binary number:
// interval arithmetic holds the input as an enclosure, and the output
// copied from it can only be that enclosure, never the point 3/7.
// unclaimed[k], where not empty, marks output k as not claimed (its
// value is a placeholder).
func valueWant(vals []*big.Rat, unclaimed []string) Want {
	w := Want{Reals: make([]numeric.Expr, len(vals))}
	for k, v := range vals {
		w.Reals[k] = numeric.Lit(v)
	}
	for _, why := range unclaimed {
		if why != "" {
			w.Unclaimed = unclaimed
			break
		}
	}
	return w
}
