package recipes

import (
	"fmt"
	"math/big"
	"math/rand/v2"
	"strings"

	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/numeric"
	"github.com/transformer-cookbook/verify/recipes/blocks"
	"github.com/transformer-cookbook/verify/recipes/stream"
)

// ---------------------------------------------------------------------------
// §Boolean Representations

// boolFromReps are the representations bool-convert reads, and
// boolToReps those it writes (tab:booleans).
var (
	boolFromReps = []string{"01", "pm1", "ge1", "pair", "pair-delta", "nonpos-pos", "neg-pos"}
	boolToReps   = []string{"01", "pm1", "pair", "pair-delta"}
)

// boolWidth is the number of components of a representation.
func boolWidth(rep string) int {
	if strings.HasPrefix(rep, "pair") {
		return 2
	}
	return 1
}

// boolValue is the canonical vector of truth value t in rep (for ge1,
// true is 1, the least of [1, ∞)).
func boolValue(rep string, delta *big.Rat, t bool) []*big.Rat {
	sign := int64(-1)
	if t {
		sign = 1
	}
	switch rep {
	case "01", "ge1":
		if t {
			return []*big.Rat{big.NewRat(1, 1)}
		}
		return []*big.Rat{new(big.Rat)}
	case "pm1":
		return []*big.Rat{big.NewRat(sign, 1)}
	case "pair": // the table's false = [−1; +1], true = [+1; −1]
		return []*big.Rat{big.NewRat(sign, 1), big.NewRat(-sign, 1)}
	case "pair-delta": // false = [−δ; +δ], true = [+δ; −δ]
		d := new(big.Rat).Mul(delta, big.NewRat(sign, 1))
		return []*big.Rat{d, new(big.Rat).Neg(d)}
	}
	panic("recipes: unknown Boolean representation " + rep)
}

// boolTruth decodes x in rep, or reports that x represents neither truth
// value.
func boolTruth(rep string, delta *big.Rat, x []*big.Rat) (bool, error) {
	if rep == "ge1" {
		switch {
		case x[0].Sign() == 0:
			return false, nil
		case x[0].Cmp(big.NewRat(1, 1)) >= 0:
			return true, nil
		}
		return false, fmt.Errorf("%s is neither false (0) nor true (≥ 1) in the representation ge1", x[0].RatString())
	}
	for _, t := range []bool{false, true} {
		want := boolValue(rep, delta, t)
		same := true
		for k := range want {
			same = same && x[k].Cmp(want[k]) == 0
		}
		if same {
			return t, nil
		}
	}
	var parts []string
	for _, v := range x {
		parts = append(parts, v.RatString())
	}
	return false, fmt.Errorf("(%s) is neither false nor true in the representation %s", strings.Join(parts, ", "), rep)
}

// boolImpossible explains why an FFN cannot convert from rep exactly.
var boolImpossible = map[string]string{
	"nonpos-pos": "false = (−∞, 0], true = (0, ∞) cannot be converted exactly by any FFN: an FFN computes a continuous function, " +
		"and a continuous f equal to the false value on (−∞, 0] and to the true value on (0, ∞) would need f(0) = lim_{x→0+} f(x), " +
		"the true value; the representation has no minimum gap between false and true (tab:booleans: continuous ops no, min. gap no)",
	"neg-pos": "false = (−∞, 0), true = (0, ∞) cannot be converted exactly by any FFN: false and true come arbitrarily close at 0 (no minimum gap, tab:booleans), " +
		"so a continuous f equal to the false value on (−∞, 0) and to the true value on (0, ∞) would have lim_{x→0−} f = lim_{x→0+} f, i.e. false = true; " +
		"an FFN computes a continuous function, so the map is discontinuous at 0 and no FFN is exact (only GTZero_ε-like approximations with a gray region)",
}

// boolDecoder is an FFN block reading rep from in and writing its truth
// value b ∈ {0, 1} exactly on the representation's domain: the identity
// for 01, GTZero_1(x) = min(x, 1) for ge1, and GTZero_{2δ}(x + δ) (δ = 1
// for pm1 and pair) of the first component for the ±δ representations.
func boolDecoder(rep string, delta *big.Rat, in []string) *stream.FF {
	one := big.NewRat(1, 1)
	switch rep {
	case "01":
		return blocks.Identity(in, []string{"b"})
	case "ge1":
		return blocks.GTZeroEps(in[0], "b", one, new(big.Rat))
	case "pm1", "pair":
		return blocks.GTZeroEps(in[0], "b", big.NewRat(2, 1), big.NewRat(-1, 1))
	case "pair-delta":
		return blocks.GTZeroEps(in[0], "b", new(big.Rat).Add(delta, delta), new(big.Rat).Neg(delta))
	}
	panic("recipes: unknown Boolean representation " + rep)
}

// boolEncoding is the affine map b ↦ α_k b + β_k, per output component,
// that writes truth value b ∈ {0, 1} in rep: 01 is b, pm1 2b − 1, pair
// (2b − 1, 1 − 2b), pair-delta δ(2b − 1, 1 − 2b).
func boolEncoding(rep string, delta *big.Rat) (alpha, beta []*big.Rat) {
	f, t := boolValue(rep, delta, false), boolValue(rep, delta, true)
	for k := range f {
		alpha = append(alpha, new(big.Rat).Sub(t[k], f[k]))
		beta = append(beta, f[k])
	}
	return alpha, beta
}

// postAffine returns the FFN out_k = α_k f(x) + β_k for a block f with one
// output: the Routing Lemma's postmultiplication of f by the column α
// (W2′ = α W2), with the bias b2′ = α b2 + β. One FFN, exact wherever f
// is.
func postAffine(f *stream.FF, out []string, alpha, beta []*big.Rat) (*stream.FF, error) {
	if len(f.Out) != 1 {
		return nil, fmt.Errorf("post-affine: %s has %d outputs, want 1", f.Name, len(f.Out))
	}
	h := f.W1.Rows
	g := &stream.FF{Name: f.Name + "→" + strings.Join(out, ","), In: f.In, Out: out, W1: f.W1, B1: f.B1,
		W2: model.Zeros(len(out), h), B2: make(model.Vector, len(out)), Activation: f.Activation}
	b2 := new(big.Rat)
	if f.B2 != nil {
		var err error
		if b2, err = ratOf(f.B2[0]); err != nil {
			return nil, err
		}
	}
	for k := range out {
		for c := 0; c < h; c++ {
			w, err := ratOf(f.W2.At(0, c))
			if err != nil {
				return nil, err
			}
			g.W2.Set(k, c, numeric.Lit(w.Mul(w, alpha[k])))
		}
		b := new(big.Rat).Mul(alpha[k], b2)
		g.B2[k] = numeric.Lit(b.Add(b, beta[k]))
	}
	return g, nil
}

// ratOf is the exact rational value of a weight.
func ratOf(e numeric.Expr) (*big.Rat, error) {
	r, ok, err := e.Rat()
	if err != nil || !ok {
		return nil, fmt.Errorf("weight %v is not rational", e)
	}
	return r, nil
}

// boolConvert is the conversion between Boolean representations that
// §Boolean Representations assigns to position-wise FFNs ("also to
// convert between different representations"), for the representations
// of tab:booleans that an FFN can convert exactly:
//
//	01:         false = 0,       true = 1
//	pm1:        false = −1,      true = +1
//	ge1:        false = 0,       true ∈ [1, ∞)     (read only)
//	pair:       false = [−1; +1], true = [+1; −1]
//	pair-delta: false = [−δ; +δ], true = [+δ; −δ]
//
// The converter is one FFN: a decoder block writing the truth value
// b ∈ {0, 1} (blocks.Identity for 01; blocks.GTZeroEps: GTZero_1(x) =
// min(x, 1) for ge1, GTZero_2(x + 1) for pm1 and pair, GTZero_{2δ}(x + δ)
// for pair-delta, of the first component), whose output is then mapped
// by the affine encoding of the target (2b − 1, …) folded into W2 and b2
// (Routing Lemma). Each decoder is exact on its representation: every
// input lies outside the gray region (0, ε) of its GTZero.
//
// The representations (−∞, 0]/(0, ∞) ("nonpos-pos") and (−∞, 0)/(0, ∞)
// ("neg-pos") cannot be converted exactly, since false and true have no
// minimum gap and a conversion would be discontinuous at 0: the builder
// returns an error saying so.
//
// The pair follows the table (false = [−1; +1], true = [+1; −1]); the
// paragraph on layer normalization in §Boolean Representations prints
// the opposite, false = [+1; −1], true = [−1; +1]. Either works for
// layer norm; they differ only by which vector is called true.
//
// Domain: one representation of false or true at every position.
var boolConvert = &Recipe{
	Name:        "bool-convert",
	Title:       "convert a Boolean between the representations of tab:booleans with one FFN",
	Section:     "Boolean Representations",
	Label:       "sec:booleans",
	Domain:      "each position holds false or true in the representation from (ge1: 0, or any x ≥ 1)",
	Exact:       true,
	Width:       "1 or 2 (input) + 1 or 2 (output)",
	MinN:        1,
	DefaultMaxN: 8,
	Params: []Param{
		{Name: "from", Default: "ge1", Doc: "the input representation: 01, pm1, ge1 (false 0, true [1, ∞)), pair ([−1; +1]/[+1; −1]), pair-delta ([−δ; +δ]/[+δ; −δ]); nonpos-pos ((−∞,0]/(0,∞)) and neg-pos ((−∞,0)/(0,∞)) are rejected, as no FFN converts them exactly"},
		{Name: "to", Default: "pair", Doc: "the output representation: 01, pm1, pair, pair-delta"},
		{Name: "delta", Default: "1/4", Doc: "δ > 0 of pair-delta (used by from and to alike)"},
	},
	Build: buildBoolConvert,
}

func buildBoolConvert(cfg Config) (*Construction, error) {
	from, err := cfg.Choice("from", boolFromReps...)
	if err != nil {
		return nil, err
	}
	if why, ok := boolImpossible[from]; ok {
		return nil, fmt.Errorf("%s", why)
	}
	to, err := cfg.Choice("to", boolToReps...)
	if err != nil {
		return nil, err
	}
	delta, err := cfg.PositiveRat("delta")
	if err != nil {
		return nil, err
	}
	in, out := []string{"x"}, []string{"y"}
	if boolWidth(from) == 2 {
		in = []string{"x1", "x2"}
	}
	if boolWidth(to) == 2 {
		out = []string{"y1", "y2"}
	}
	dec := boolDecoder(from, delta, in)
	alpha, beta := boolEncoding(to, delta)
	f, err := postAffine(dec, out, alpha, beta)
	if err != nil {
		return nil, err
	}
	f.Name = "convert " + from + "→" + to
	m, err := stream.New("bool-convert-"+from+"-"+to, in...).Then(f).Readout(out...).Model()
	if err != nil {
		return nil, err
	}
	vi := vectorInput{Names: in, Valid: func(x []*big.Rat) error {
		_, err := boolTruth(from, delta, x)
		return err
	}}
	if from == "ge1" {
		// false (0) half the time; true drawn from [1, ∞): its least
		// value 1 and others often, else rationals in [1, 64].
		special := []*big.Rat{big.NewRat(1, 1), big.NewRat(3, 2), big.NewRat(2, 1), big.NewRat(1000000, 1)}
		vi.Sample = func(rng *rand.Rand) []*big.Rat {
			if rng.IntN(2) == 0 {
				return []*big.Rat{new(big.Rat)}
			}
			return []*big.Rat{pickRat(rng, special, 1, 64, 8)}
		}
	} else {
		vi.Finite = [][]*big.Rat{boolValue(from, delta, false), boolValue(from, delta, true)}
	}
	con := vi.Construction(m, pointwise(func(x []*big.Rat) Want {
		t, err := boolTruth(from, delta, x)
		if err != nil {
			// Outside the domain there is no intended value (Valid
			// reports it); 0 stands in.
			zeros := make([]*big.Rat, len(out))
			for k := range zeros {
				zeros[k] = new(big.Rat)
			}
			return values(zeros...)
		}
		return values(boolValue(to, delta, t)...)
	}))
	return con, nil
}
