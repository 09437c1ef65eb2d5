package recipes

import (
	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/numeric"
)

// The index lookups of §Index Lookup other than quadratic maximisation
// (lookup.go): one-hot positions, almost orthogonal positions and the
// layernorm hash, and the softmax simulation of §Simulating Average-Hard
// Attention with Soft Attention on the one-hot lookup. All read the
// alphabet of lookup ("q:v": query q ∈ [N], value v ∈ {0, 1}) and share
// its inputs, domain and reference (lookupConstruction): position i
// retrieves v_{q_i}, for any rational value typed as "q:v" (c exactly
// under AHAT and UHAT, within max_j |v_j|/4 under SMAT; y for bits only). Each ends like lookup:
// the attention output c, then y = GTZero_{1/2}(c − 1/4) (blocks.Round01),
// and reads out (y, c). Scores are q·k, not divided by √d_key, as the
// sections compute their gaps for q·k.

// lookupOneHot is ohLookup of §One-Hot Encodings: positions are one-hot
// vectors e_1, …, e_N ∈ ℝ^N, and position i holds (e_{q_i}, e_i, v_i): the
// word embedding of "q:v" writes e_q and v, the position embedding e_i.
// The head has, as printed,
//
//	W^Q = [I^{N×N} 0^{N×N} 0^{N×1}], W^K = [0^{N×N} I^{N×N} 0^{N×1}],
//	W^V = [0^{1×N} 0^{1×N} 1],
//
// so s_ij = e_{q_i}·e_j = [j = q_i]: the maximum 1 is unique, with gap
// γ = 1 to every other score 0. Under AHAT and UHAT (leftmost) c = v_{q_i}
// exactly; under SMAT W^Q is multiplied by 1/τ = log(8N)/γ (§Simulating
// Average-Hard Attention with Soft Attention), so |c − v_{q_i}| ≤ 1/4 for
// n ≤ N and y = v_{q_i} exactly. A position i > N has no one-hot vector:
// its embedding is 0, so its key is 0 (it is never the maximum, as every
// query is some e_q with q ≤ N).
//
// Domain: n ≤ N, q_i ∈ [n], v_i rational (c); v_i ∈ {0, 1} for y. Width
// 2N+1 (+ c, y).
var lookupOneHot = &Recipe{
	Name:        "lookup-onehot",
	Booleans:    []string{"y"},
	Title:       "index lookup with one-hot positions: position i retrieves v_{q_i}",
	Section:     "One-Hot Encodings",
	Label:       "sec:one-hot",
	Domain:      lookupDomain,
	Weightings:  []model.Weighting{model.AverageHardmax, model.LeftHardmax, model.Softmax},
	Exact:       true,
	Width:       "2N+1 (e_{q_i}, e_i, v) + 2 (the outputs c, y)",
	MinN:        1,
	DefaultMaxN: 32,
	LimitN:      1024,
	Params:      []Param{lookupValuesParam},
	Build:       func(cfg Config) (*Construction, error) { return buildOneHot(cfg, "lookup-onehot") },
}

// hardmaxSoftmax is §Simulating Average-Hard Attention with Soft
// Attention, shown on the one-hot lookup of §One-Hot Encodings (its
// builder, under SMAT only): the scores have a unique maximum with gap
// γ = 1, and W^Q′ = (1/τ) W^Q with τ = γ/log(8N) makes the gap log 8N, so
// by Edelman's lemma (Lemma B.7) |c_i − v_{q_i}| ≤ 2N e^{−γ/τ} = 1/4 for
// every n ≤ N, and GTZero_{1/2}(c_i − 1/4) rounds c_i to v_{q_i} exactly
// (0 for c ≤ 1/4, 1 for c ≥ 3/4).
//
// The weights hold log(8N), which exact arithmetic cannot: the recipe
// runs at 53 bits by default, where y must be exactly v and c within 1/4
// of it. In certified interval arithmetic c's enclosure lies within 1/4,
// but y's cannot be the point v (interval arithmetic encloses GTZero's two
// ReLU branches separately), so y is undecided there.
//
// Domain: n ≤ N, q_i ∈ [n], v_i rational (c, within max_j |v_j|/4);
// v_i ∈ {0, 1} for y. Outputs: y (exact) and c (within 1/4 for bits). Past N the bound fails: with N = 1, the input
// "1:1 1:0 1:0 1:0" gives c = 8/11 and y = 21/22 at position 1.
var hardmaxSoftmax = &Recipe{
	Name:        "hardmax-softmax",
	Booleans:    []string{"y"},
	Title:       "average-hard attention simulated by softmax with τ = γ/log(8N), then rounded: the one-hot lookup under SMAT",
	Section:     "Simulating Average-Hard Attention with Soft Attention",
	Label:       "sec:att_approx",
	Domain:      lookupDomain,
	Weightings:  []model.Weighting{model.Softmax},
	Exact:       true,
	Width:       "2N+1 (e_{q_i}, e_i, v) + 2 (the outputs c, y)",
	MinN:        1,
	DefaultMaxN: 32,
	LimitN:      1024,
	Params:      []Param{lookupValuesParam},
	Build:       func(cfg Config) (*Construction, error) { return buildOneHot(cfg, "hardmax-softmax") },
}

// lookupAO is aoLookup of §Almost Orthogonal Embeddings: position j is
// encoded by a vector x_j ∈ {±1/√m}^m of a family x_1, …, x_N with
// |x_i·x_j| ≤ ε (i ≠ j) and x_i·x_i ≥ 1 − ε, and the projections are those
// of the one-hot lookup (eq. one_hot_qkv), so s_ij = x_{q_i}·x_j, which is
// ≥ 1 − ε at j = q_i and ≤ ε elsewhere: gap γ = 1 − 2ε.
//
// The dimension is the paper's m = ⌈(12k/ε²) log(2N)⌉, with k the
// constant making the failure probability 1/N^k ≤ δ, i.e. k = log(1/δ)/
// log N for N ≥ 2; the ceiling is certified (interval arithmetic, the
// endpoints' ceilings agreeing). For N = 1 no such k exists (1/1^k = 1)
// but none is needed: the family is one vector, with no pairs and
// x_1·x_1 = 1, so m = 1. The family is sampled uniformly with a seeded
// PCG and then checked exactly; a family that fails the check is replaced
// by the next seed's (at most 1000 tries), and Construction.Notes records
// the seed used and the measured max_{i≠j} |x_i·x_j|. (Every x_i·x_i is 1
// exactly for vectors in {±1/√m}^m.)
//
// Exact arithmetic: the entries ±1/√m are irrational unless m is a
// square, so the stream holds the sign vectors s_j = √m·x_j ∈ {±1}^m
// (the word embedding of "q:v" writes s_q and v, the position embedding
// s_j) and W^Q carries the factor 1/m:
//
//	W^Q = (1/m)[I^{m×m} 0^{m×m} 0], W^K = [0 I^{m×m} 0], W^V = [0 0 1],
//
// so q_i·k_j = s_{q_i}·s_j/m = x_{q_i}·x_j, exactly the paper's scores.
// Under SMAT W^Q is further multiplied by 1/τ = log(8N)/γ. Positions past
// N have no vector (embedding 0, key 0).
//
// The paper says the sampled vectors satisfy the conditions "with
// probability at most 1 − δ": it means at least. And with k =
// log(1/δ)/log N the union bound (Hoeffding: N(N−1)(2N)^{−6k}) does not
// give 1 − δ once k < 2/5: for fixed δ, m stays bounded as N grows, and the
// failure probability tends to 1 (measured in lookups_test.go: at N = 64,
// δ = 1/2, ε = 1/4, m = 156, all of 20 seeds fail). The sampler's check
// makes the lookup right whatever δ is; δ only sets m, and so how many
// seeds are tried.
//
// The default δ is 1/2 (m = 185 at N = 6). A larger δ gives a smaller,
// faster family, but the check then fails often (at δ = 9/10 about 9 seeds
// in 10 at N = 6, 79 in 80 at N = 7, and all of 2000 at N = 8, where
// m = 27 and the paper promises success with probability 1/10).
//
// Domain: n ≤ N, q_i ∈ [n], v_i rational (c); v_i ∈ {0, 1} for y. Width
// 2m+1 (+ c, y).
var lookupAO = &Recipe{
	Name:        "lookup-ao",
	Booleans:    []string{"y"},
	Title:       "index lookup with almost orthogonal positions: position i retrieves v_{q_i}",
	Section:     "Almost Orthogonal Embeddings",
	Label:       "sec:almost_orthogonal",
	Domain:      lookupDomain,
	Weightings:  []model.Weighting{model.AverageHardmax, model.LeftHardmax, model.Softmax},
	Exact:       true,
	Width:       "2m+1 (s_{q_i}, s_i, v; m = ⌈(12k/ε²) log 2N⌉ = O(log N)) + 2 (the outputs c, y)",
	MinN:        1,
	DefaultMaxN: 4,
	LimitN:      4096,
	Params: []Param{
		{Name: "eps", Default: "1/4", Doc: "the near-orthogonality ε, 0 < ε < 1/2 (the gap 1 − 2ε must be positive); the paper takes 1/4"},
		{Name: "delta", Default: "1/2", Doc: "the failure probability δ of one sample, 0 < δ < 1: k = log(1/δ)/log N (m = 185 at N = 6; a larger δ gives a smaller m, e.g. 29 at δ = 9/10; a failed sample is resampled)"},
		{Name: "k", Default: "", Doc: "the constant k of m = ⌈(12k/ε²) log 2N⌉; empty: the smallest k with 1/N^k ≤ δ, k = log(1/δ)/log N (which makes m bounded in N: the union bound needs k ≥ about 2/5, which the paper does not say)"},
		{Name: "seed", Default: "1", Doc: "the first seed of the sampler (PCG); a family failing the check is resampled with the next seed"},
		lookupValuesParam,
	},
	Build: buildAO,
}

// lookupLH is lhLookup of §Layernorm hash: positions and queries are
// stored by their layernorm hash
//
//	lh(x) = LN([x, 1, −x, −1]) = √(2/(x² + 1))·[x, 1, −x, −1]
//
// (LN.ε = 0, β = 0, γ = 1), and the head has, as printed,
// W^Q = [I⁴ 0 0], W^K = [0 I⁴ 0], W^V = [0 0 1] over (lh(q_i), lh(i), v),
// so s_ij = lh(q_i)·lh(j) = 4(q_i j + 1)/√((q_i² + 1)(j² + 1)), which is
// 4 cos(arctan q_i − arctan j): uniquely maximal (= 4) at j = q_i
// (Cauchy–Schwarz; arctan is injective).
//
// The paper's selective layer norm LN(W^N x) normalises one group of
// components per sublayer, and the lookup needs two hashes: normalising
// [q, 1, −q, −1, j, 1, −j, −1] jointly would divide position j's key by
// √(q_j² + j² + 2), which depends on q_j, and break the argmax (on
// "1:1 1:0" both positions would retrieve v_2; see lookups_test.go). So
// each hash is computed in its own feed-forward sublayer, an identity FFN
// reading LN(W^N x) (stream.FF with a Norm): lh(q_i) from [q, 1, −q, −1]
// (the word embedding writes q, −q and v, the position embedding 1, −1, j
// and −j), then lh(i) from [j, 1, −j, −1]. (The paper's scaled forms
// [q/i, 1/i, −q/i, −1/i] and [1, 1/j, −1, −1/j] have the same hashes; a
// word and a position embedding cannot form q/i. The paper prints the
// first with a comma for a row break, "1/i, −q_i/i", so that it shows
// three rows; the 4-vector is meant.) Then the head, then
// GTZero_{1/2}(c − 1/4). Width 17: the paper's 9 (lh(q_i), lh(i), v), the 6
// components the hashes are computed from, and c, y.
//
// The square root makes the hashes irrational, so the recipe runs in
// certified interval arithmetic (interval:128): the unique maximum is
// decided on enclosures, the hardmax weight is then exactly 1, and c and y
// are exact points. Under SMAT, 1/τ = log(8N)/γ(N) with γ(N) the smallest
// gap for lengths ≤ N (lhGap), which decays like 2/N⁴: the scores are
// then of size ~N⁴ log 8N, and rounded formats lose the lookup early.
// There y's enclosure is [1 − 2w, 1 + 2w] when v = 1 (interval arithmetic
// encloses GTZero's two ReLU branches separately), which cannot confirm
// the exact y = 1: under SMAT the recipe runs at 53 bits by default.
//
// Measured (every query at every position, with v one-hot at the query),
// under AHAT and UHAT the lookup first fails at n = 4 in bf16, n = 6 in
// fp16 (query 5, whose gap to position 6 is 4 − lh(5)·lh(6) ≈ 0.0021,
// about an fp16 ulp below 4) and n = 51 in fp32 (query 51, gap
// 4 − lh(50)·lh(51) ≈ 3.1·10⁻⁷); under SMAT (built for N = n) at n = 6 in
// fp16 and n = 45 in fp32, while fp64 holds to n = 200 at least.
// DefaultMaxN is 64 so that the default fp32 sweep reaches n = 51. Under
// SMAT in interval arithmetic pass a smaller --max-n (about 32): the
// softmax then takes exp of score differences of size ~N⁴ log 8N, which
// the interval backend evaluates slowly (one input of length 32, built
// for N = 32, takes about 1 s; of length 64, about 36 s).
//
// Domain: n ≤ N, q_i ∈ [n], v_i rational (c); v_i ∈ {0, 1} for y (AHAT
// and UHAT do not depend on N). Width 9 (+ 6 to compute the hashes, + c, y).
var lookupLH = &Recipe{
	Name:        "lookup-lh",
	Booleans:    []string{"y"},
	Title:       "index lookup with the layernorm hash: position i retrieves v_{q_i}",
	Section:     "Layernorm hash",
	Label:       "sec:layernorm_hash",
	Domain:      lookupDomain,
	Weightings:  []model.Weighting{model.AverageHardmax, model.LeftHardmax, model.Softmax},
	Exact:       true,
	Width:       "9 (lh(q_i), lh(i), v) + 6 (q, −q, 1, −1, j, −j, which the hashes are computed from) + 2 (the outputs c, y)",
	MinN:        1,
	DefaultMaxN: 64,
	LimitN:      1 << 16,
	Precision:   "interval:128",
	// Under SMAT the outputs are rounded on purpose (y = GTZero(c − 1/4)
	// with c within 1/4 of v): interval enclosures cannot show y exact, a
	// 53-bit run can.
	SoftmaxPrecision: "53",
	Params:           []Param{lookupValuesParam},
	Build:            buildLH,
}

func init() {
	for _, rc := range []*Recipe{lookupOneHot, hardmaxSoftmax, lookupAO, lookupLH} {
		Register(rc)
	}
}

// lhScore is lh(a)·lh(b) = 4(ab + 1)/√((a² + 1)(b² + 1)), as an exact
// real.
func lhScore(a, b int64) numeric.Expr {
	return numeric.Quo(numeric.LitInt(4*(a*b+1)), numeric.Sqrt(numeric.LitInt((a*a+1)*(b*b+1))))
}

// lhGap is the smallest gap of the layernorm-hash scores for lengths
// n ≤ N: γ(N) = 4 − lh(N−1)·lh(N) (for N ≥ 2; γ(2) for N = 1, whose single
// score has no gap to keep).
//
// Derivation: with θ_x = arctan x, x/√(x² + 1) = sin θ_x and
// 1/√(x² + 1) = cos θ_x, so lh(x) = √2·[sin θ_x, cos θ_x, −sin θ_x,
// −cos θ_x] and lh(a)·lh(b) = 4(ab + 1)/√((a² + 1)(b² + 1)) =
// 4 cos(θ_a − θ_b). The gap of query q to position j ≠ q is
// 4(1 − cos(θ_q − θ_j)), increasing in |θ_q − θ_j| < π/2. θ is increasing
// and concave on [1, ∞), so its steps θ_{k+1} − θ_k decrease in k, and
// |θ_q − θ_j| for distinct q, j ∈ [N] is at least the last step,
// θ_N − θ_{N−1} = arctan(1/(N² − N + 1)), attained by q, j = N − 1, N: the
// smallest gap is 4 − lh(N−1)·lh(N) = 4 − 4(N² − N + 1)/√((N² + 1)(N² −
// 2N + 2)). With δ = θ_N − θ_{N−1} ≈ 1/N², it is 4(1 − cos δ) ≈ 2δ² ≈
// 2/N⁴.
func lhGap(maxN int) numeric.Expr {
	n := int64(max(maxN, 2))
	return numeric.Sub(numeric.LitInt(4), lhScore(n-1, n))
}
