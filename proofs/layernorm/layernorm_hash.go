package layernorm

import (
	"fmt"
	"math/big"
	"math/rand/v2"
	"strings"

	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/model/eval"
	"github.com/transformer-cookbook/verify/numeric"
	"github.com/transformer-cookbook/verify/proofs"
	"github.com/transformer-cookbook/verify/proofs/internal/poly"
	"github.com/transformer-cookbook/verify/recipes"
)

// The claims of §Layernorm hash. Shared helpers are in
// layernorm_shared.go.

// ---------------------------------------------------------------------------
// The claims

var hashClaims = []*proofs.Claim{
	{ID: "ln.hash.formula", Section: "Layernorm hash", Label: "sec:layernorm_hash",
		Statement: "lh(x) = LN([x, 1, −x, −1]) = √(2/(x² + 1))·[x, 1, −x, −1], with LN.ε = 0, β = 0, γ = 1",
		Domain:    "every x ∈ ℝ (polynomial identity); the engine's model (recipe lh) on a certified search",
		Recorded:  proofs.Proved,
		Check:     checkLHFormula},
	{ID: "ln.hash.scale", Section: "Layernorm hash", Label: "sec:layernorm_hash",
		Statement: "the layernorm hash is scale-invariant: lh(x) = LN([kx, k, −kx, −k]) for k > 0 (e.g. LN([x/i, 1/i, −x/i, −1/i]) when only x/i and 1/i are computable)",
		Domain:    "every x ∈ ℝ and k > 0 (polynomial identity); the engine's model (recipe lh) exactly where √ is rational and on a certified search",
		Recorded:  proofs.Proved,
		Check:     checkLHScale},
	{ID: "ln.hash.literal", Section: "Layernorm hash", Label: "sec:layernorm_hash",
		Statement: "as printed: \"the layernorm hash is scale-invariant in the sense that lh(kx) = lh(x)\"",
		Domain:    "x = 1, k = 2, the engine's model (recipe lh), exact and certified intervals",
		Recorded:  proofs.Refuted,
		Check:     checkLHLiteral},
	{ID: "ln.hash.argmax", Section: "Layernorm hash", Label: "sec:layernorm_hash",
		Statement: "s_{i,j} = lh(q_i)·lh(j) is uniquely maximized when q_i = j",
		Domain:    "every q, j ∈ ℝ (so every pair of positions): polynomial identities",
		Recorded:  proofs.Proved,
		Check:     checkLHArgmax},
	{ID: "ln.hash.definition-eps", Section: "Layernorm hash", Label: "sec:layernorm_hash",
		Statement: "the layernorm-hash lookup with the layer norm of Definition LN, whose LN.ε > 0 (\"a small constant for numerical stability\"; the construction takes LN.ε = 0, which the definition excludes): s_{i,j} = lh_ε(q_i)·lh_ε(j) is uniquely maximized when q_i = j",
		Domain:    "ε ∈ {1/4, 1/10, 1/100, 1/1000}, q ∈ [10⁴], j = q + 1 (exact, comparing squares); the engine's lookup-lh built for N = 26 with every LN.ε = 1/100, under AHAT (interval:128)",
		Recorded:  proofs.Refuted,
		Check:     checkLHDefinitionEps},
	{ID: "ln.hash.gap", Section: "Layernorm hash", Label: "sec:layernorm_hash",
		Statement: "the minimum gap between the score at the desired position s_{i,q_i} and the scores at other positions decreases with n" + proofs.ReadQK,
		Domain:    "q, j ∈ [N], N = 2 … 256 (exact); the rate at N = 1000 (certified enclosure)",
		Recorded:  proofs.Holds,
		Check:     func() (*proofs.Evidence, error) { return checkLHGap(1) }},
	{ID: "ln.hash.gap.sqrt-dkey", Section: "Layernorm hash", Label: "sec:layernorm_hash",
		Statement: "the minimum gap between the score at the desired position s_{i,q_i} and the scores at other positions decreases with n" + proofs.ReadScaled,
		Domain:    "q, j ∈ [N], N = 2 … 256 (exact), d_key = 4 from the lookup-lh head; the rate at N = 1000 (certified enclosure)",
		Recorded:  proofs.Holds,
		Check:     checkHashGapSqrtDkey},
}

// checkHashGapSqrtDkey checks ln.hash.gap.sqrt-dkey.
func checkHashGapSqrtDkey() (*proofs.Evidence, error) {
	d, err := proofs.RecipeDKey("lookup-lh", 2)
	if err != nil {
		return nil, err
	}
	return checkLHGap(d)
}

// lhVector is [x, 1, −x, −1] in variable 0 (x).
func lhVector() []poly.Poly {
	return poly.Polys([]string{"0", "1"}, []string{"1", "0"}, []string{"0", "-1"}, []string{"-1", "0"})
}

// checkLHPoly checks that c = [x, 1, −x, −1] and 2P = x² + 1, so that
// c/√P = √(2/(x² + 1))·[x, 1, −x, −1].
func checkLHPoly(c []poly.Poly, p poly.Poly) error {
	want := lhVector()
	for k := range want {
		if !poly.Equal(c[k], want[k]) {
			return fmt.Errorf("entry %d − μ is %s, not %s", k+1, c[k].Format("x"), want[k].Format("x"))
		}
	}
	x := poly.Var(0)
	if rhs := poly.Add(poly.Mul(x, x), poly.Const(big.NewRat(1, 1))); !poly.Equal(poly.Scale(big.NewRat(2, 1), p), rhs) {
		return fmt.Errorf("2σ² = %s, not x² + 1", poly.Scale(big.NewRat(2, 1), p).Format("x"))
	}
	return nil
}

// lhSearch runs the recipe lh (input (a, b) = (kx, k), reference
// √(2/(x²+1))·[x, 1, −x, −1] with x = a/b) on a certified search: x from
// 0, ±1, large and tiny values and random rationals, k from 1/i (as when
// counting positions), tiny and large scales.
func lhSearch() (*proofs.Evidence, error) {
	xs := []string{"0", "1", "-1", "64", "-64", "1/1000000", "-1/1000000", "1000000"}
	ks := []string{"1", "1/1000", "1/1048576", "1000000"}
	return search(proofs.Sweep{Recipe: "lh", MaxN: 1, Precision: "interval:128"}, 150, 9, func(rng *rand.Rand) string {
		x, k := randRat(rng), big.NewRat(1, int64(rng.IntN(1000)+1))
		if rng.IntN(3) == 0 {
			x = proofs.Q(xs[rng.IntN(len(xs))])
		}
		if rng.IntN(3) == 0 {
			k = proofs.Q(ks[rng.IntN(len(ks))])
		}
		return new(big.Rat).Mul(k, x).RatString() + ", " + k.RatString()
	})
}

func checkLHFormula() (*proofs.Evidence, error) {
	mean, centred, variance := poly.Moments(lhVector())
	if len(mean) != 0 {
		s := "the mean of [x, 1, −x, −1] is " + mean.Format("x")
		return &proofs.Evidence{Verdict: proofs.Refuted, Summary: s, Explain: []string{s}}, nil
	}
	if err := checkLHPoly(centred, variance); err != nil {
		s := err.Error()
		return &proofs.Evidence{Verdict: proofs.Refuted, Summary: s, Explain: []string{s}}, nil
	}
	res, err := lhSearch()
	if err != nil {
		return nil, err
	}
	if res.Verdict != proofs.Holds {
		return res, nil
	}
	return &proofs.Evidence{Verdict: proofs.Proved,
		Summary: fmt.Sprintf("for every x ∈ ℝ: the mean of [x, 1, −x, −1] is 0 and 2σ² = %s (coefficients compared), so LN = [x, 1, −x, −1]/√((x² + 1)/2) = √(2/(x² + 1))·[x, 1, −x, −1]; the engine's model (recipe lh) agrees: %s", poly.Scale(big.NewRat(2, 1), variance).Format("x"), res.Summary)}, nil
}

func checkLHScale() (*proofs.Evidence, error) {
	// Variable 0 is x, variable 1 the scale k: entries kx, k, −kx, −k.
	kx := poly.Mul(poly.Var(0), poly.Var(1))
	entries := []poly.Poly{kx, poly.Var(1), poly.Scale(big.NewRat(-1, 1), kx), poly.Scale(big.NewRat(-1, 1), poly.Var(1))}
	c, p, err := poly.ScaleFree(entries, 1)
	if err == nil {
		err = checkLHPoly(c, p)
	}
	if err != nil {
		s := "LN([kx, k, −kx, −k]): " + err.Error()
		return &proofs.Evidence{Verdict: proofs.Refuted, Summary: s, Explain: []string{s}}, nil
	}
	// Exact cases: x = 7 (√(2/50) = 1/5) from several scales, x = 1.
	r, err := recipes.Get("lh")
	if err != nil {
		return nil, err
	}
	con, err := r.Construct(model.Softmax, 1, nil)
	if err != nil {
		return nil, err
	}
	cases := []struct{ in, want []*big.Rat }{
		{proofs.Rats("7", "1"), proofs.Rats("7/5", "1/5", "-7/5", "-1/5")},
		{proofs.Rats("21", "3"), proofs.Rats("7/5", "1/5", "-7/5", "-1/5")},
		{proofs.Rats("7/2", "1/2"), proofs.Rats("7/5", "1/5", "-7/5", "-1/5")},
		{proofs.Rats("7/1000", "1/1000"), proofs.Rats("7/5", "1/5", "-7/5", "-1/5")},
		{proofs.Rats("-1/3", "1/3"), proofs.Rats("-1", "1", "1", "-1")},
		{proofs.Rats("5", "5"), proofs.Rats("1", "1", "-1", "-1")},
	}
	var exactText []string
	for _, c := range cases {
		vs, err := proofs.RunVector(con.Model, "exact", c.in...)
		if err != nil {
			return nil, err
		}
		got, err := proofs.ExactValues(vs)
		if err != nil {
			return nil, err
		}
		if !proofs.RatsEqual(got, c.want) {
			s := fmt.Sprintf("the engine's LN(%s, %s, …) = %s, want %s", c.in[0].RatString(), c.in[1].RatString(), proofs.RatsText(got), proofs.RatsText(c.want))
			return &proofs.Evidence{Verdict: proofs.Refuted, Summary: s, Explain: []string{s}}, nil
		}
		exactText = append(exactText, fmt.Sprintf("(%s, %s)", c.in[0].RatString(), c.in[1].RatString()))
	}
	res, err := lhSearch()
	if err != nil {
		return nil, err
	}
	if res.Verdict != proofs.Holds {
		return res, nil
	}
	return &proofs.Evidence{Verdict: proofs.Proved,
		Summary: fmt.Sprintf("for every x ∈ ℝ and k > 0: the mean of [kx, k, −kx, −k] is 0, its centred entries are k·[x, 1, −x, −1] and σ² = k²(x² + 1)/2 (coefficients compared), so LN = lh(x) whatever k; the engine's model gives lh exactly at (kx, k) = %s and agrees on a certified search", strings.Join(exactText, ", ")),
		Explain: []string{res.Summary}}, nil
}

func checkLHLiteral() (*proofs.Evidence, error) {
	r, err := recipes.Get("lh")
	if err != nil {
		return nil, err
	}
	con, err := r.Construct(model.Softmax, 1, nil)
	if err != nil {
		return nil, err
	}
	one, err := proofs.RunVector(con.Model, "exact", proofs.Rats("1", "1")...)
	if err != nil {
		return nil, err
	}
	two, err := proofs.RunVector(con.Model, "interval:128", proofs.Rats("2", "1")...)
	if err != nil {
		return nil, err
	}
	a, ok := one[0].Rat()
	if !ok {
		return nil, fmt.Errorf("lh(1)_1 = %s is not exact", one[0].Text)
	}
	b := two[0]
	if b.Contains(a) {
		return &proofs.Evidence{Verdict: proofs.Holds, Summary: fmt.Sprintf("lh(1)_1 = %s lies in lh(2)_1 ∈ %s: not separated", a.RatString(), b.Text)}, nil
	}
	s := fmt.Sprintf("k = 2, x = 1: lh(1) = LN([1, 1, −1, −1]) has first entry %s (exact), lh(2) = LN([2, 1, −2, −1]) has first entry 2√(2/5) ∈ %s (certified, the engine's layer norm), so lh(kx) ≠ lh(x); what holds is LN([kx, k, −kx, −k]) = lh(x) (ln.hash.scale)", a.RatString(), b.Text)
	return &proofs.Evidence{Verdict: proofs.Refuted, Summary: s, Explain: []string{s}}, nil
}

// checkLHArgmax: lh(q)·lh(j) = 4(qj + 1)/√((q² + 1)(j² + 1)) and
// (q² + 1)(j² + 1) − (qj + 1)² = (q − j)², as polynomial identities.
func checkLHArgmax() (*proofs.Evidence, error) {
	qv, jv := poly.Var(0), poly.Var(1)
	one := poly.Const(big.NewRat(1, 1))
	vq := lhVector()
	// [j, 1, −j, −1] in variable 1.
	vj := poly.Polys([]string{"0", "0", "1"}, []string{"1", "0", "0"}, []string{"0", "0", "-1"}, []string{"-1", "0", "0"})
	dot := poly.Poly{}
	for k := range vq {
		dot = poly.Add(dot, poly.Mul(vq[k], vj[k]))
	}
	qj1 := poly.Add(poly.Mul(qv, jv), one)
	if !poly.Equal(dot, poly.Scale(big.NewRat(2, 1), qj1)) {
		s := fmt.Sprintf("[q, 1, −q, −1]·[j, 1, −j, −1] = %s, not 2(qj + 1)", dot.Format("q", "j"))
		return &proofs.Evidence{Verdict: proofs.Refuted, Summary: s, Explain: []string{s}}, nil
	}
	lhs := poly.Sub(poly.Mul(poly.Add(poly.Mul(qv, qv), one), poly.Add(poly.Mul(jv, jv), one)), poly.Mul(qj1, qj1))
	diff := poly.Sub(qv, jv)
	if !poly.Equal(lhs, poly.Mul(diff, diff)) {
		s := fmt.Sprintf("(q² + 1)(j² + 1) − (qj + 1)² = %s, not (q − j)²", lhs.Format("q", "j"))
		return &proofs.Evidence{Verdict: proofs.Refuted, Summary: s, Explain: []string{s}}, nil
	}
	return &proofs.Evidence{Verdict: proofs.Proved,
		Summary: "for all q, j ∈ ℝ: [q, 1, −q, −1]·[j, 1, −j, −1] = 2(qj + 1), so lh(q)·lh(j) = 4(qj + 1)/√((q² + 1)(j² + 1)); and (q² + 1)(j² + 1) − (qj + 1)² = (q − j)² (coefficients compared), so the score is < 4 = lh(q)·lh(q) unless j = q: if qj + 1 ≤ 0 it is ≤ 0, else its square is 16(1 − (q − j)²/((q² + 1)(j² + 1)))",
		Explain: []string{"The same identity gives the gap: 4 − lh(q)·lh(j) = 4(1 − cos(θ_q − θ_j)) with θ_x = arctan x (ln.hash.gap)."}}, nil
}

// checkLHDefinitionEps: with LN.ε = ε > 0, lh_ε(x) = [x, 1, −x, −1]/
// √((x² + 1)/2 + ε), so for a fixed query q the score lh_ε(q)·lh_ε(j) is
// a positive factor times (qj + 1)/√(j² + 1 + 2ε), whose maximum over
// real j is at j = q(1 + 2ε), not q: once 2εq is large enough, position
// Q + 1 scores at least as high as q. For each ε the first such q is
// found exactly (both scores are positive: their squares compare), and
// the engine's lookup-lh, every layer norm given ε = 1/100, is run on an
// input whose query q = 25 then reads position 26.
func checkLHDefinitionEps() (*proofs.Evidence, error) {
	var firsts []string
	for _, eps := range []*big.Rat{big.NewRat(1, 4), big.NewRat(1, 10), big.NewRat(1, 100), big.NewRat(1, 1000)} {
		// (qj + 1)²/(j² + 1 + 2ε) at j, for the query q.
		score := func(q, j int64) *big.Rat {
			num := new(big.Rat).SetInt64(q*j + 1)
			num.Mul(num, num)
			den := new(big.Rat).Mul(eps, big.NewRat(2, 1))
			den.Add(den, new(big.Rat).SetInt64(j*j+1))
			return num.Quo(num, den)
		}
		found := int64(0)
		for q := int64(1); q <= 10000; q++ {
			if score(q, q+1).Cmp(score(q, q)) >= 0 {
				found = q
				break
			}
		}
		if found == 0 {
			firsts = append(firsts, fmt.Sprintf("ε = %s: the maximum stays at j = q for every q ≤ 10⁴", eps.RatString()))
			continue
		}
		firsts = append(firsts, fmt.Sprintf("ε = %s: from q = %d (N = %d), lh_ε(q)·lh_ε(q + 1) ≥ lh_ε(q)·lh_ε(q)", eps.RatString(), found, found+1))
	}
	run, err := runLookupLHEps(big.NewRat(1, 100), 25)
	if err != nil {
		return nil, err
	}
	s := fmt.Sprintf("%s (exact); %s; the argmax moves to j ≈ q(1 + 2ε), so a layer norm with ε > 0 breaks the lookup for N above about 1/(4ε) (PyTorch's default ε = 10⁻⁵: about 25,000 positions), and only ε = 0, outside Definition LN, makes it exact", strings.Join(firsts, "; "), run)
	return &proofs.Evidence{Verdict: proofs.Refuted, Summary: s, Explain: append(firsts, run)}, nil
}

// runLookupLHEps runs lookup-lh built for N = q + 1, with every layer
// norm's ε set to eps, under AHAT at interval:128, on the input whose
// positions 1 … q carry value 0 and whose last position asks for q and
// carries value 1: right, the last output is v_q = 0; it says what the
// engine gives.
func runLookupLHEps(eps *big.Rat, q int) (string, error) {
	r, err := recipes.Get("lookup-lh")
	if err != nil {
		return "", err
	}
	con, err := r.Construct(model.AverageHardmax, q+1, nil)
	if err != nil {
		return "", err
	}
	m := con.Model
	setEps(m, eps)
	sym := map[string]int{}
	for s, name := range m.Alphabet {
		sym[name] = s
	}
	in := make([]int, q+1)
	for i := range q {
		in[i] = sym["1:0"]
	}
	in[q] = sym[fmt.Sprintf("%d:1", q)]
	runner, err := eval.New(numeric.MustParsePrecision("interval:128"), m)
	if err != nil {
		return "", err
	}
	res, err := runner.Run(in, false)
	if err != nil {
		return "", err
	}
	last := res.Outputs[q]
	half := big.NewRat(1, 2)
	for _, v := range last.Values {
		if v.Lo == nil || v.Lo.Cmp(half) <= 0 {
			return "", fmt.Errorf("lookup-lh with ε = %s at N = %d: the last position's outputs %v are not v_{q+1} = 1 as the exact comparison predicts", eps.RatString(), q+1, last.Values)
		}
	}
	return fmt.Sprintf("the engine's lookup-lh built for N = %d with LN.ε = %s under AHAT (interval:128), on %d × \"1:0\" then \"%d:1\": the last position asks for v_%d = 0 and gets %s (certified: every output above 1/2), the value of position %d", q+1, eps.RatString(), q, q, q, last.Values[0].Text, q+1), nil
}

// setEps sets every layer norm of m to LN.ε = eps.
func setEps(m *model.Model, eps *big.Rat) {
	for k := range m.Layers {
		for _, ln := range []*model.LayerNorm{m.Layers[k].AttentionNorm, m.Layers[k].FeedForwardNorm} {
			if ln != nil {
				ln.Eps = numeric.Lit(eps)
			}
		}
	}
	if m.FinalNorm != nil {
		m.FinalNorm.Eps = numeric.Lit(eps)
	}
}

// lhRatio is r(q, j) = (qj + 1)²/((q² + 1)(j² + 1)): the score is 4√r
// when qj + 1 > 0 (always, for positions), so comparing scores is
// comparing these rationals.
func lhRatio(a, b int64) *big.Rat {
	n := big.NewInt(a*b + 1)
	n.Mul(n, n)
	d := new(big.Int).Mul(big.NewInt(a*a+1), big.NewInt(b*b+1))
	return new(big.Rat).SetFrac(n, d)
}

// checkLHGap: for each N, the largest score below 4 among q ≠ j ∈ [N] is
// attained at {N − 1, N}, and it increases strictly with N, so the
// minimum gap γ(N) = 4 − lh(N−1)·lh(N) decreases strictly; exact, by
// comparing the rationals r(q, j). The rate: N⁴γ(N) at N = 1000.
//
// With dKey > 1 the scores are read under Definition def:attn,
// lh(q)·lh(j)/√d_key: one positive factor, which keeps the pair where the
// gap is smallest and its strict decrease; the gap and its rate are then
// those above divided by √d_key.
func checkLHGap(dKey int) (*proofs.Evidence, error) {
	const maxN = 256
	best := new(big.Rat) // max r over q < j ≤ N so far
	var prev *big.Rat
	for n := int64(2); n <= maxN; n++ {
		for a := int64(1); a < n; a++ {
			if r := lhRatio(a, n); r.Cmp(best) > 0 {
				best = r
			}
		}
		last := lhRatio(n-1, n)
		if last.Cmp(best) != 0 {
			s := fmt.Sprintf("N = %d: the largest off-diagonal score is not at (N − 1, N)", n)
			return &proofs.Evidence{Verdict: proofs.Refuted, Summary: s, Explain: []string{s}}, nil
		}
		if prev != nil && last.Cmp(prev) <= 0 {
			s := fmt.Sprintf("N = %d: the minimum gap does not decrease (r = %s after %s)", n, last.RatString(), prev.RatString())
			return &proofs.Evidence{Verdict: proofs.Refuted, Summary: s, Explain: []string{s}}, nil
		}
		prev = last
	}
	const big1000 = 1000
	r := lhRatio(big1000-1, big1000)
	gap := numeric.Sub(numeric.LitInt(4), numeric.Mul(numeric.LitInt(4), numeric.Sqrt(numeric.Lit(r))))
	lo, hi, err := numeric.Mul(numeric.LitInt(1e12), gap).Enclose(256)
	if err != nil {
		return nil, err
	}
	flo, _ := lo.Float64()
	fhi, _ := hi.Float64()
	if lo.Cmp(proofs.Q("2")) < 0 || hi.Cmp(proofs.Q("21/10")) > 0 {
		s := fmt.Sprintf("N⁴γ(N) at N = 1000 lies in [%.10f, %.10f], not near 2", flo, fhi)
		return &proofs.Evidence{Verdict: proofs.Refuted, Summary: s, Explain: []string{s}}, nil
	}
	sum := fmt.Sprintf("for N = 2 … %d: among q ≠ j ∈ [N] the largest score is lh(N−1)·lh(N), and it increases strictly with N, so the minimum gap γ(N) = 4 − lh(N−1)·lh(N) decreases strictly (exact, comparing (qj + 1)²/((q² + 1)(j² + 1))); N⁴γ(N) ∈ [%.6f, %.6f] at N = 1000 (certified): γ(N) ≈ 2/N⁴ → 0", maxN, flo, fhi)
	if dKey > 1 {
		slo, shi, err := numeric.Quo(numeric.Mul(numeric.LitInt(1e12), gap), numeric.Sqrt(numeric.LitInt(int64(dKey)))).Enclose(256)
		if err != nil {
			return nil, err
		}
		sflo, _ := slo.Float64()
		sfhi, _ := shi.Float64()
		sum = fmt.Sprintf("d_key = %d (rows of the lookup-lh head's W^Q): every score lh(q)·lh(j)/√%d shares one positive factor, so the smallest gap γ(N)/√%d sits at the same pair and decreases as γ(N) does, with N⁴γ(N)/√%d ∈ [%.6f, %.6f] at N = 1000 (certified); %s", dKey, dKey, dKey, dKey, sflo, sfhi, sum)
	}
	return &proofs.Evidence{Verdict: proofs.Proved, Summary: sum}, nil
}
