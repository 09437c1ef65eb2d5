package recipes

import (
	"math/big"

	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/recipes/blocks"
	"github.com/transformer-cookbook/verify/recipes/stream"
)

// The trivial attention recipes of §Trivial Cases: the identity by the
// residual connection (att_zero), and uniform averaging (Avg, Avg←). Each
// runs on vectors given directly as the residual stream (verify run
// --input "x1, x2; x1, x2").

// identityAttn is id of §Identity (sec:identity-attention): the attention
// head att_zero with
//
//	att_zero.W^Q = 0, att_zero.W^K = 0, att_zero.W^V = 0,
//
// whose output is 0 at every position under every weighting (all scores
// tie at 0, and every value is 0), so that with the residual connection
// id(x) = att_zero(x) + x = x. Domain: x_i ∈ ℝ^d at every position, any
// length n. Exact under SMAT, AHAT and UHAT (the cheat sheet's column):
// whatever the weights α_ij are, Σ_j α_ij · 0 = 0.
var identityAttn = &Recipe{
	Name:        "identity-attn",
	Title:       "id(x) = att_zero(x) + x: attention with W^Q = W^K = W^V = 0 and the residual connection",
	Section:     "Identity",
	Label:       "sec:identity-attention",
	Domain:      "x_i ∈ ℝ^d at every position i ∈ [n], any n",
	Weightings:  []model.Weighting{model.Softmax, model.AverageHardmax, model.LeftHardmax},
	Exact:       true,
	Width:       "d (the input, updated in place)",
	MinN:        1,
	DefaultMaxN: 200,
	Params:      []Param{dParam},
	Build: func(cfg Config) (*Construction, error) {
		d, err := cfg.Int("d", 1, 64)
		if err != nil {
			return nil, err
		}
		xs := componentNames("x", d)
		m, err := stream.New("identity-attn-"+WeightingAcronym(cfg.Weighting), xs...).
			Then(blocks.AttZero(xs, cfg.Weighting)).Readout(xs...).Model()
		if err != nil {
			return nil, err
		}
		return realVectors(xs).Construction(m, pointwise(func(x []*big.Rat) Want { return values(x...) })), nil
	},
}

// avgRecipe is Avg (mask model.NoMask) or Avg← (mask model.Future) of
// §Average (sec:uniform-attention):
//
//	Avg.W^Q = 0, Avg.W^K = 0, Avg.W^V = I,
//
// so every score is 0 and every unmasked position gets the same weight:
// Avg(x)_i = (1/n) Σ_{k=1}^n x_k, and with future masking
// Avg←(x)_i = (1/i) Σ_{k=1}^i x_k. Softmax of equal scores is exactly
// uniform (e^0 = 1, so each weight is 1/n), and average-hard attention
// ties every position: exact under SMAT and AHAT, the cheat sheet's
// column. Under UHAT the tie goes to one position (the leftmost: x_1
// everywhere), so the construction does not average (pinned by
// TestAvgUnderUHAT). The head writes the average to fresh components
// y1 … yd. Domain: x_i ∈ ℝ^d.
func avgRecipe(name, title string, mask model.Mask) *Recipe {
	return &Recipe{
		Name:        name,
		Title:       title,
		Section:     "Average",
		Label:       "sec:uniform-attention",
		Domain:      "x_i ∈ ℝ^d at every position i ∈ [n], any n",
		Weightings:  []model.Weighting{model.Softmax, model.AverageHardmax},
		Exact:       true,
		Width:       "2d (the input x and the average y)",
		MinN:        1,
		DefaultMaxN: 200,
		Params:      []Param{dParam},
		Build: func(cfg Config) (*Construction, error) {
			d, err := cfg.Int("d", 1, 64)
			if err != nil {
				return nil, err
			}
			xs, ys := componentNames("x", d), componentNames("y", d)
			m, err := stream.New(name+"-"+WeightingAcronym(cfg.Weighting), xs...).
				Then(blocks.Avg(xs, ys, mask, cfg.Weighting)).Readout(ys...).Model()
			if err != nil {
				return nil, err
			}
			return realVectors(xs).Construction(m, func(xs [][]*big.Rat) []Want {
				return averages(xs, mask == model.Future)
			}), nil
		},
	}
}

// averages is the reference of Avg and Avg←, computed as the paper states
// them: (1/n) Σ_{k≤n} x_k at every position, or (1/i) Σ_{k≤i} x_k at
// position i when prefix is set.
func averages(xs [][]*big.Rat, prefix bool) []Want {
	n := len(xs)
	want := make([]Want, n)
	// sum[c] is Σ_{k<upto} x_k[c]: the running sum of the prefixes, or
	// the whole sum once, so that a length costs n·d additions, not n²·d
	// (the same rationals: addition is exact).
	var sum []*big.Rat
	upto := 0
	for i := range xs {
		to := n
		if prefix {
			to = i + 1
		}
		for ; upto < to; upto++ {
			for c, x := range xs[upto] {
				if c == len(sum) {
					sum = append(sum, new(big.Rat))
				}
				sum[c].Add(sum[c], x)
			}
		}
		mean := make([]*big.Rat, len(xs[i]))
		for c := range mean {
			mean[c] = new(big.Rat).Quo(sum[c], big.NewRat(int64(to), 1))
		}
		want[i] = values(mean...)
	}
	return want
}

var (
	// avg is the unmasked uniform average of §Average. Domain: x_i ∈ ℝ^d
	// at every position, any n.
	avg = avgRecipe("avg", "Avg(x)_i = (1/n) Σ_{k=1}^n x_k: uniform attention with W^Q = W^K = 0, W^V = I", model.NoMask)
	// avgPrefix is the future-masked uniform average Avg← of §Average.
	// Domain: x_i ∈ ℝ^d at every position, any n.
	avgPrefix = avgRecipe("avg-prefix", "Avg←(x)_i = (1/i) Σ_{k=1}^i x_k: future-masked uniform attention with W^Q = W^K = 0, W^V = I", model.Future)
)

func init() {
	for _, rc := range []*Recipe{identityAttn, avg, avgPrefix} {
		Register(rc)
	}
}
