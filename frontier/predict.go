package frontier

import (
	"fmt"
	"math/big"
	"slices"
	"sync"

	"github.com/transformer-cookbook/verify/numeric"
)

// A gapModel is what the paper says of a construction's attention
// scores at length n: the largest score at the query's position and the
// largest score elsewhere (top − gap), as exact or 256-bit values.
type gapModel struct {
	gap, magnitude string // γ(n) and M(n), as the paper gives them
	// scores returns the top score and the runner-up at length n, for
	// the query and key that make the gap smallest; ok is false when
	// length n has no runner-up.
	scores func(n int) (top, second *big.Float, ok bool)
	// largest is the largest intermediate value at length n (a product
	// that must not overflow); nil when bounded.
	largest func(n int) *big.Float
	// limit, when set, replaces the scan over top and second scores: it
	// returns the predicted limit up to maxN (0: none) and why.
	limit func(p numeric.Precision, maxN int) (int, string)
}

// positionsApart predicts where the scores j/n of consecutive positions
// first round to one value (§A Transformer Construction for Dyck-1-2:
// the nearest unmatched neighbour is the rightmost maximum of j/n, matched
// positions lowered by 1): below 1 the format's spacing is 2^−P, so no two
// of them meet while 1/n ≥ 2^−P, and past that the pairs in [1/2, 1), where
// the spacing is widest, are checked one by one.
func positionsApart(p numeric.Precision, maxN int) (int, string) {
	bits := p.SignificandBits()
	for n := 2; n <= maxN; n++ {
		if bits < 62 && n <= 1<<bits {
			continue
		}
		for j := n / 2; j < n; j++ {
			a, _ := roundTo(p, fl(big.NewRat(int64(j), int64(n))))
			b, _ := roundTo(p, fl(big.NewRat(int64(j+1), int64(n))))
			if a != nil && b != nil && a.Cmp(b) == 0 {
				return n - 1, fmt.Sprintf("at n = %d the scores %d/%d and %d/%d (gap 1/%d) round to one value in %s, %s", n, j, n, j+1, n, n, formatName(p), a.Text('g', 10))
			}
		}
	}
	return 0, fmt.Sprintf("the scores j/n stay apart up to n = %d", maxN)
}

const predictBits = 256

func fl(x *big.Rat) *big.Float { return new(big.Float).SetPrec(predictBits).SetRat(x) }

func intf(k int64) *big.Float { return new(big.Float).SetPrec(predictBits).SetInt64(k) }

// lhDot is lh(a)·lh(b) = 4(ab + 1)/√((a² + 1)(b² + 1)) (§Layernorm hash).
func lhDot(a, b int64) *big.Float {
	num := intf(4 * (a*b + 1))
	den := new(big.Float).SetPrec(predictBits).Mul(intf(a*a+1), intf(b*b+1))
	den.Sqrt(den)
	return num.Quo(num, den)
}

var gapModels = map[string]gapModel{
	// §Quadratic Maximization: s_j = 2q·j − j² = q² − (q − j)², integers,
	// largest q² at j = q and q² − 1 at j = q ± 1; the products 2q·j
	// reach 2n².
	"lookup": {gap: "1", magnitude: "n²",
		scores: func(n int) (*big.Float, *big.Float, bool) {
			if n < 2 {
				return nil, nil, false
			}
			q := int64(n)
			return intf(q * q), intf(q*q - 1), true
		},
		largest: func(n int) *big.Float { return intf(2 * int64(n) * int64(n)) }},
	// §Layernorm hash: s = lh(q)·lh(j) ≤ 4, equality at j = q; the
	// smallest gap at length n is between n − 1 and n, about 2/n⁴.
	"lookup-lh": {gap: "4 − lh(n−1)·lh(n) ≈ 2/n⁴", magnitude: "4",
		scores: func(n int) (*big.Float, *big.Float, bool) {
			if n < 2 {
				return nil, nil, false
			}
			return intf(4), lhDot(int64(n-1), int64(n)), true
		}},
	// §A Transformer Construction for Dyck-1-2 and its generalisation:
	// the nearest unmatched bracket by the rightmost maximum of j/n.
	"dyck12":  {gap: "1/n", magnitude: "1", limit: positionsApart},
	"dyck-kd": {gap: "1/n", magnitude: "1", limit: positionsApart},
	// §One-Hot Encodings: scores 𝕀[j = q_i] ∈ {0, 1} for every n.
	"lookup-onehot": {gap: "1", magnitude: "1",
		scores: func(n int) (*big.Float, *big.Float, bool) { return intf(1), intf(0), n >= 2 }},
}

// roundTo rounds x to precision p (ties to even); an IEEE format's
// overflow gives ±Inf, or NaN for fp8-e4m3, which has no infinities.
func roundTo(p numeric.Precision, x *big.Float) (*big.Float, bool) {
	switch p.Kind {
	case numeric.KindBigFloat:
		return new(big.Float).SetPrec(p.Bits).Set(x), true
	case numeric.KindFloat64, numeric.KindFloat32, numeric.KindEmulated:
		r := p.Format.RoundBig(x)
		if r != r {
			return nil, false
		}
		return new(big.Float).SetFloat64(r), true
	}
	return nil, false
}

// Predict is the theory's limit for a recipe at a rounding precision:
// the largest n ≤ maxN such that at every length m ≤ n the top score and
// the runner-up of the paper's gap round to different values, and no
// product overflows. Nil where the paper gives no gap, or the precision
// does not round (exact, intervals).
func Predict(recipe string, p numeric.Precision, maxN int) *Prediction {
	// A sweep asks for each precision's prediction several times (its
	// lengths, phase 2, the report), and the scan costs up to 0.1 s at
	// n = 100,000: keep each.
	key := predictionKey{recipe, p.String(), maxN}
	if pr, ok := predictions.Load(key); ok {
		return clonePrediction(pr.(*Prediction))
	}
	pr := predict(recipe, p, maxN)
	predictions.Store(key, pr)
	return clonePrediction(pr)
}

type predictionKey struct {
	recipe, precision string
	maxN              int
}

var predictions sync.Map // predictionKey → *Prediction

// clonePrediction copies pr, so that a caller's report never shares it.
func clonePrediction(pr *Prediction) *Prediction {
	if pr == nil {
		return nil
	}
	c := *pr
	return &c
}

// sweepLengths returns the lengths a sweep to maxN checks at precision
// p: the given ones and, where the sweep bisects, the limit the theory
// predicts there (Predict) and the length after it, within [minN, maxN].
// Checking them with the others tests the prediction directly; where it
// is right, the gap between the last pass and the first failure is
// already closed and the bisection has nothing to do. Every shard of a
// sharded sweep computes them alike, so its plan divides their work like
// the rest.
func sweepLengths(recipe string, minN int, lengths []int, p numeric.Precision, maxN int, bisect bool) []int {
	out := slices.Clone(lengths)
	if pr := Predict(recipe, p, maxN); bisect && pr != nil && pr.Limit > 0 {
		for _, n := range []int{pr.Limit, pr.Limit + 1} {
			if n >= max(1, minN) && n <= maxN {
				out = append(out, n)
			}
		}
	}
	return slices.Compact(slices.Sorted(slices.Values(out)))
}

func predict(recipe string, p numeric.Precision, maxN int) *Prediction {
	g, ok := gapModels[recipe]
	if !ok || p.Kind == numeric.KindExact || p.Kind == numeric.KindInterval {
		return nil
	}
	pr := &Prediction{Gap: g.gap, Magnitude: g.magnitude}
	if g.limit != nil {
		pr.Limit, pr.Why = g.limit(p, maxN)
		return pr
	}
	for n := 1; n <= maxN; n++ {
		if g.largest != nil {
			if r, ok := roundTo(p, g.largest(n)); !ok || r.IsInf() {
				pr.Limit = n - 1
				pr.Why = fmt.Sprintf("at n = %d the product %s overflows %s", n, g.largest(n).Text('g', 10), formatName(p))
				return pr
			}
		}
		top, second, ok := g.scores(n)
		if !ok {
			continue
		}
		rt, ok1 := roundTo(p, top)
		rs, ok2 := roundTo(p, second)
		if !ok1 || !ok2 || rt.IsInf() {
			pr.Limit = n - 1
			pr.Why = fmt.Sprintf("at n = %d the top score %s overflows %s", n, top.Text('g', 10), formatName(p))
			return pr
		}
		if rt.Cmp(rs) == 0 {
			pr.Limit = n - 1
			gap := new(big.Float).Sub(top, second)
			pr.Why = fmt.Sprintf("at n = %d the scores %s and %s (gap %s) round to one value in %s, %s", n,
				top.Text('g', 10), second.Text('g', 10), gap.Text('g', 3), formatName(p), rt.Text('g', 10))
			return pr
		}
	}
	pr.Why = fmt.Sprintf("the gap stays resolved up to n = %d", maxN)
	return pr
}

// formatName names a precision in a sentence: "fp16", "a 24-bit
// bigfloat".
func formatName(p numeric.Precision) string {
	if p.Kind == numeric.KindBigFloat {
		return fmt.Sprintf("a %d-bit bigfloat", p.Bits)
	}
	return p.String()
}
