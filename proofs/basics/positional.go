package basics

import (
	"fmt"
	"math/big"
	"math/rand/v2"
	"strings"

	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/model/eval"
	"github.com/transformer-cookbook/verify/numeric"
	"github.com/transformer-cookbook/verify/proofs"
	"github.com/transformer-cookbook/verify/recipes"
	"github.com/transformer-cookbook/verify/recipes/stream"
)

// The claims of §Positional Encodings: §Simple Positional Encodings
// (1/i and i/n with BOS), §Sinusoidal Positional Encoding, and the
// encodings of §One-Hot Encodings and §Almost Orthogonal Embeddings.

var positionalClaims = []*proofs.Claim{
	{ID: "pe.inverse.bos", Section: "Simple Positional Encodings",
		Statement: "the value 1/i at position i can be computed using a future-masked uniform attention layer and the presence of a BOS token",
		Domain:    "the recipe bos: its future-masked head gives 1/p at model position p (BOS at p = 1), under SMAT and AHAT, every input of length ≤ 8, exact",
		Recorded:  proofs.Holds,
		Check: func() (*proofs.Evidence, error) {
			return exhaustiveAll("bos", 8)
		}},
	{ID: "pe.ratio.unmasked-bos", Section: "Simple Positional Encodings",
		Statement: "similar to 1/i, the value i/n may also be obtained at position i using an unmasked uniform attention layer and the presence of a beginning-of-sequence token",
		Domain:    "no position encoding (the point of computing it); any number of unmasked attention layers (any weighting) and FFNs; the input ^aa",
		Recorded:  proofs.Refuted,
		Check:     checkRatioBOS},
	{ID: "pe.sinusoidal.modulo", Section: "Sinusoidal Positional Encoding",
		Statement: "using the table-lookup operation, sinusoidal positional encodings (M = 10000) can also be used to do modulo counting, to recognize PARITY for instance",
		Domain:    "pe(i, 2c) = cos(i/M^{2c/d}), pe(i, 2c+1) = sin(i/M^{2c/d}), M = 10000",
		Recorded:  proofs.OutOfScope,
		Check:     checkSinusoidal},
	{ID: "pe.onehot.dot", Section: "One-Hot Encodings", Label: "sec:one-hot",
		Statement: "positions as one-hot vectors e_1 … e_N ∈ ℝ^N: q·k = e_{q_i}·e_j = 𝕀[j = q_i], so the highest score beats the next by γ = 1",
		Domain:    "N = 64: every pair i, j ≤ 64 of the recipe pe-onehot's position embeddings, exact",
		Recorded:  proofs.Holds,
		Check:     checkOneHot},
	{ID: "pe.ao.family", Section: "Almost Orthogonal Embeddings", Label: "sec:almost_orthogonal",
		Statement: "vectors x_1 … x_N ∈ {±1/√m}^m with |x_i·x_j| ≤ ε (i ≠ j) and x_i·x_i ≥ 1 − ε (eq. near_ortho)",
		Domain:    "the families the recipe pe-ao samples (ε = 1/4, δ = 1/2, seed 1) for N = 4, 8, 16: every pair, exact",
		Recorded:  proofs.Holds,
		Check:     checkAOFamily},
	{ID: "pe.ao.probability", Section: "Almost Orthogonal Embeddings", Label: "sec:almost_orthogonal",
		Statement: "read as intended (\"at least\"): for any k > 0 with 1/N^k ≤ δ and m = ⌈(12k/ε²) log(2N)⌉ = O(log N), the sampled vectors satisfy eq. near_ortho with probability at least 1 − δ",
		Domain:    "ε = 1/4 (the paper's choice), δ = 9/10, k = log(1/δ)/log N (the least k allowed), N = 2^21 + 1, natural log",
		Recorded:  proofs.Refuted,
		Check:     checkAOProbability},
	{ID: "pe.ao.probability-corrected", Section: "Almost Orthogonal Embeddings", Label: "sec:almost_orthogonal",
		Statement: "corrected: for a constant k ≥ 1 (not shrinking with N) and m = ⌈(12k/ε²) log(2N)⌉, the sampled vectors satisfy eq. near_ortho with probability at least 1 − 1/N^k (so at least 1 − δ when 1/N^k ≤ δ)",
		Domain:    "k ∈ {1, 2}, ε ∈ {1/4, 1/3}, N ∈ {2, 4, 16, 64, 256, 1024}, natural log: the union bound with exact binomial tails",
		Recorded:  proofs.Holds,
		Check:     checkAOCorrected},
}

// ---------------------------------------------------------------------
// §Simple Positional Encodings

// checkRatioBOS refutes "i/n by unmasked uniform attention and BOS".
func checkRatioBOS() (*proofs.Evidence, error) {
	// (1) The cookbook's unmasked uniform head with BOS (recipe bos) on
	// ^aa gives 1/3 = 1/(n+1) at every position, not i/n.
	r, err := recipes.Get("bos")
	if err != nil {
		return nil, err
	}
	con, err := r.Construct(model.AverageHardmax, 8, nil)
	if err != nil {
		return nil, err
	}
	runner, err := eval.New(numeric.MustParsePrecision("exact"), con.Model)
	if err != nil {
		return nil, err
	}
	syms, err := con.Model.Tokenize("^aa")
	if err != nil {
		return nil, err
	}
	res, err := runner.Run(syms, false)
	if err != nil {
		return nil, err
	}
	var unmasked []string
	for _, o := range res.Outputs {
		unmasked = append(unmasked, o.Values[0].Text)
	}
	if unmasked[1] != unmasked[2] {
		return &proofs.Evidence{Verdict: proofs.Holds, Summary: "the unmasked head distinguishes positions 2 and 3 of ^aa"}, nil
	}
	// (2) The lemma behind the refutation, on the engine: seeded random
	// two-layer unmasked models (no position encoding), AHAT and
	// leftmost UHAT, exact: positions 2 and 3 of ^aa always agree.
	models := 0
	rng := rand.New(rand.NewPCG(13, 5))
	for t := 0; t < 20; t++ {
		for _, w := range []model.Weighting{model.AverageHardmax, model.LeftHardmax} {
			m, err := randomUnmasked(rng, w)
			if err != nil {
				return nil, err
			}
			run, err := eval.New(numeric.MustParsePrecision("exact"), m)
			if err != nil {
				return nil, err
			}
			syms, err := m.Tokenize("^aa")
			if err != nil {
				return nil, err
			}
			out, err := run.Run(syms, false)
			if err != nil {
				return nil, err
			}
			for k := range out.Outputs[1].Values {
				a, b := out.Outputs[1].Values[k], out.Outputs[2].Values[k]
				if a.Text != b.Text {
					s := fmt.Sprintf("a random unmasked model (%s, seed 13) separates positions 2 and 3 of ^aa: %s vs %s", w, a.Text, b.Text)
					return &proofs.Evidence{Verdict: proofs.Holds, Summary: s, Explain: []string{s}}, nil
				}
			}
			models++
		}
	}
	s := fmt.Sprintf("on ^aa (n = 2) positions 2 and 3 hold the same vector we(a), and every unmasked layer maps equal vectors to equal vectors, so any such transformer outputs one value there, while i/n must be 1/2 and 1; the cookbook's unmasked uniform head gives 1/(n+1) = %s at every position (recipe bos, exact), and %d seeded random two-layer unmasked models (AHAT, UHAT) agree at positions 2 and 3 (exact)", unmasked[0], models)
	return &proofs.Evidence{Verdict: proofs.Refuted, Summary: s, Explain: []string{s,
		"The lemma: without a position encoding, an unmasked attention layer computes at position i a function g(x_i; x_1, …, x_n), the same g for every i (the weights of position i depend on i only through its query; keys, values and UHAT's tie-breaking by key position are shared by all queries), and FFNs act position-wise; so equal inputs at two positions stay equal through every layer.",
		"What does work: future-masked uniform attention with BOS gives 1/i (pe.inverse.bos), unmasked gives 1/(n+1) (repr.bos.uniform); i/n = (1/n)/(1/i) is a quotient, not piecewise linear, so no ReLU FFN computes it from those two for every n (for n ≤ N a nonuniform FFN could interpolate the finitely many values). Uniformly, i/n has to be supplied as a position encoding (the recipe pe-ratio), as the constructions cited use it."}}, nil
}

// randomUnmasked is a random two-layer model without position encoding:
// random embeddings of ^, a, b in ℝ³, an unmasked head with random
// W^Q, W^K, W^V, a random ReLU FFN with biases, a second unmasked head.
func randomUnmasked(rng *rand.Rand, w model.Weighting) (*model.Model, error) {
	rv := func() numeric.Expr { return numeric.Frac(int64(rng.IntN(9)-4), int64(rng.IntN(3)+1)) }
	mat := func(r, c int) model.Matrix {
		m := model.Zeros(r, c)
		for i := 0; i < r; i++ {
			for j := 0; j < c; j++ {
				m.Set(i, j, rv())
			}
		}
		return m
	}
	vec := func(n int) model.Vector {
		v := make(model.Vector, n)
		for i := range v {
			v[i] = rv()
		}
		return v
	}
	es := []string{"e1", "e2", "e3"}
	emb := make([]stream.Values, 3)
	for s := range emb {
		emb[s] = stream.Values{"e1": rv(), "e2": rv(), "e3": rv()}
	}
	if w == model.Softmax {
		return nil, fmt.Errorf("softmax scores are irrational in general")
	}
	h1 := []string{"h1", "h2"}
	f := []string{"f1", "f2"}
	o := []string{"o1"}
	return stream.New("unmasked", es...).
		Symbols([]string{"^", "a", "b"}, func(s int) stream.Values { return emb[s] }).
		Then(&stream.Attn{Name: "head 1", In: es, Out: h1, Q: mat(2, 3), K: mat(2, 3), V: mat(2, 3), Mask: model.NoMask, Weighting: w, Scale: model.NoScale}).
		Then(&stream.FF{Name: "ffn", In: append(append([]string(nil), es...), h1...), Out: f, W1: mat(4, 5), B1: vec(4), W2: mat(2, 4), B2: vec(2)}).
		Then(&stream.Attn{Name: "head 2", In: f, Out: o, Q: mat(1, 2), K: mat(1, 2), V: mat(1, 2), Mask: model.NoMask, Weighting: w, Scale: model.NoScale}).
		Readout("f1", "f2", "o1").Model()
}

// ---------------------------------------------------------------------
// §Sinusoidal Positional Encoding

func checkSinusoidal() (*proofs.Evidence, error) {
	// A certified fact the remark would need and does not have: no
	// component of the M = 10000 encoding is 2-periodic in i (pe(1) and
	// pe(3) differ in every component, d = 4).
	r, err := recipes.Get("pe-sinusoidal")
	if err != nil {
		return nil, err
	}
	con, err := r.Construct(model.Softmax, 4, nil)
	if err != nil {
		return nil, err
	}
	p1, p3 := con.Model.Position.Vector(1, 4), con.Model.Position.Vector(3, 4)
	for k := range p1 {
		lo1, hi1, err := p1[k].Enclose(128)
		if err != nil {
			return nil, err
		}
		lo3, hi3, err := p3[k].Enclose(128)
		if err != nil {
			return nil, err
		}
		if hi1.Cmp(lo3) >= 0 && hi3.Cmp(lo1) >= 0 {
			return nil, fmt.Errorf("pe(1) and pe(3) are not separated in component %d", k)
		}
	}
	return &proofs.Evidence{Verdict: proofs.OutOfScope,
		Summary: "no construction is given, and an existence claim over all lookups and FFNs is beyond the engine; with M = 10000 no component is periodic in i with period 2 (the frequencies M^(−2c/d) ≤ 1 < π; certified: pe(1) and pe(3) differ in every component, d = 4), so parity is not read off one component",
		Explain: []string{"(−1)^i = cos(πi) would need the frequency π. The encoding is injective on integers (π is irrational), so a nonuniform construction could recover i mod 2 from pe(i) for i ≤ N, but the paper gives none; the cookbook's own parity-like constructions use the encoding (−1)^i (recipes pe-parity, first).",
			"The paper also swaps sin and cos relative to Vaswani et al. (sin on odd components); the recipe pe-sinusoidal follows the paper."}}, nil
}

// ---------------------------------------------------------------------
// §One-Hot Encodings

func checkOneHot() (*proofs.Evidence, error) {
	const n = 64
	r, err := recipes.Get("pe-onehot")
	if err != nil {
		return nil, err
	}
	con, err := r.Construct(model.Softmax, n, nil)
	if err != nil {
		return nil, err
	}
	vs := make([][]*big.Rat, n+1)
	for i := 1; i <= n; i++ {
		for _, e := range con.Model.Position.Vector(i, n) {
			x, ok, err := e.Rat()
			if err != nil || !ok {
				return nil, fmt.Errorf("pe-onehot: position %d is not rational", i)
			}
			vs[i] = append(vs[i], x)
		}
	}
	for i := 1; i <= n; i++ {
		for j := 1; j <= n; j++ {
			s := new(big.Rat)
			for k := range vs[i] {
				s.Add(s, new(big.Rat).Mul(vs[i][k], vs[j][k]))
			}
			want := int64(0)
			if i == j {
				want = 1
			}
			if s.Cmp(big.NewRat(want, 1)) != 0 {
				st := fmt.Sprintf("e_%d·e_%d = %s, want %d", i, j, s.RatString(), want)
				return &proofs.Evidence{Verdict: proofs.Refuted, Summary: st, Explain: []string{st}}, nil
			}
		}
	}
	return &proofs.Evidence{Verdict: proofs.Proved, Summary: fmt.Sprintf("N = %d: e_i·e_j = 𝕀[i = j] for all %d pairs of the recipe pe-onehot's encodings (exact), so every score is 1 at j = q_i and 0 elsewhere: gap γ = 1, width N", n, n*n)}, nil
}

// ---------------------------------------------------------------------
// §Almost Orthogonal Embeddings

// aoSigns reads the sign vectors s_i = √m·x_i of pe-ao's encoding: the
// entries are ±1/√m (irrational unless m is a square), read by certified
// enclosure, and checked to be ±1/√m by squaring the enclosure.
func aoSigns(n int) ([][]int, int, error) {
	r, err := recipes.Get("pe-ao")
	if err != nil {
		return nil, 0, err
	}
	con, err := r.Construct(model.Softmax, n, nil)
	if err != nil {
		return nil, 0, err
	}
	var signs [][]int
	m := 0
	for i := 1; i <= n; i++ {
		v := con.Model.Position.Vector(i, n)
		m = len(v)
		row := make([]int, m)
		for k, e := range v {
			sq, ok, err := numeric.Mul(e, e).Rat()
			if err != nil {
				return nil, 0, err
			}
			if ok && sq.Cmp(big.NewRat(1, int64(m))) != 0 {
				return nil, 0, fmt.Errorf("pe-ao: entry %d of x_%d squares to %s, not 1/%d", k+1, i, sq.RatString(), m)
			}
			lo, hi, err := e.Enclose(64)
			if err != nil {
				return nil, 0, err
			}
			if k == 0 {
				// The magnitude, once per vector: m·x² encloses 1.
				lo2, hi2, err := numeric.Mul(numeric.LitInt(int64(m)), numeric.Mul(e, e)).Enclose(64)
				if err != nil {
					return nil, 0, err
				}
				if lo2.Cmp(big.NewRat(1, 1)) > 0 || hi2.Cmp(big.NewRat(1, 1)) < 0 {
					return nil, 0, fmt.Errorf("pe-ao: entry %d of x_%d is not ±1/√m", k+1, i)
				}
			}
			switch {
			case lo.Sign() > 0:
				row[k] = 1
			case hi.Sign() < 0:
				row[k] = -1
			default:
				return nil, 0, fmt.Errorf("pe-ao: the sign of entry %d of x_%d is undecided", k+1, i)
			}
		}
		signs = append(signs, row)
	}
	return signs, m, nil
}

func checkAOFamily() (*proofs.Evidence, error) {
	eps := big.NewRat(1, 4)
	var parts []string
	for _, n := range []int{4, 8, 16} {
		signs, m, err := aoSigns(n)
		if err != nil {
			return nil, err
		}
		maxDot := 0
		for i := range signs {
			for j := range signs {
				dot := 0
				for k := range signs[i] {
					dot += signs[i][k] * signs[j][k]
				}
				x := big.NewRat(int64(dot), int64(m))
				if i == j {
					if x.Cmp(new(big.Rat).Sub(big.NewRat(1, 1), eps)) < 0 {
						s := fmt.Sprintf("N = %d: x_%d·x_%d = %s < 1 − ε", n, i+1, i+1, x.RatString())
						return &proofs.Evidence{Verdict: proofs.Refuted, Summary: s, Explain: []string{s}}, nil
					}
					continue
				}
				if dot < 0 {
					dot = -dot
				}
				maxDot = max(maxDot, dot)
				if x.Abs(x).Cmp(eps) > 0 {
					s := fmt.Sprintf("N = %d: |x_%d·x_%d| = %s > ε = 1/4", n, i+1, j+1, x.RatString())
					return &proofs.Evidence{Verdict: proofs.Refuted, Summary: s, Explain: []string{s}}, nil
				}
			}
		}
		parts = append(parts, fmt.Sprintf("N = %d, m = %d: max_{i≠j} |x_i·x_j| = %d/%d", n, m, maxDot, m))
	}
	return &proofs.Evidence{Verdict: proofs.Proved, Summary: "x_i·x_i = 1 and |x_i·x_j| ≤ ε = 1/4 for every pair (exact, from the signs of the certified entries ±1/√m): " + strings.Join(parts, "; ") + " (m shrinks as N grows: k = log(1/δ)/log N, see pe.ao.probability)",
		Explain: []string{"These are the families the sampler kept: it resamples with the next seed until the family passes, so this checks the sampled family, not the probability (pe.ao.probability*)."}}, nil
}

// aoDim is m = ⌈(12k/ε²) log(2N)⌉ (natural log) for the real k,
// decided by certified enclosure.
func aoDim(n int64, eps *big.Rat, k numeric.Expr) (int64, error) {
	e2 := new(big.Rat).Mul(eps, eps)
	expr := numeric.Quo(numeric.Mul(numeric.Mul(numeric.LitInt(12), k), numeric.Log(numeric.LitInt(2*n))), numeric.Lit(e2))
	lo, hi, err := expr.Enclose(256)
	if err != nil {
		return 0, err
	}
	ceil := func(x *big.Rat) *big.Int {
		qt, rm := new(big.Int).QuoRem(x.Num(), x.Denom(), new(big.Int))
		if rm.Sign() > 0 {
			qt.Add(qt, big.NewInt(1))
		}
		return qt
	}
	cl, ch := ceil(lo), ceil(hi)
	if cl.Cmp(ch) != 0 || !cl.IsInt64() {
		return 0, fmt.Errorf("m = ⌈%v⌉ undecided", expr)
	}
	return max(cl.Int64(), 1), nil
}

// tail returns P(|S_m| > εm) and P(|S_m| ≤ εm) for S_m a sum of m
// independent fair ±1 signs (S_m = 2B − m, B binomial): exact.
func tail(m int64, eps *big.Rat) (tail, inside *big.Rat) {
	c := big.NewInt(1) // C(m, b)
	in, out := new(big.Int), new(big.Int)
	em := new(big.Rat).Mul(eps, big.NewRat(m, 1))
	for b := int64(0); b <= m; b++ {
		s := new(big.Rat).SetInt64(2*b - m)
		if s.Abs(s).Cmp(em) <= 0 {
			in.Add(in, c)
		} else {
			out.Add(out, c)
		}
		c = new(big.Int).Div(new(big.Int).Mul(c, big.NewInt(m-b)), big.NewInt(b+1))
	}
	total := new(big.Int).Lsh(big.NewInt(1), uint(m))
	return new(big.Rat).SetFrac(out, total), new(big.Rat).SetFrac(in, total)
}

func checkAOProbability() (*proofs.Evidence, error) {
	eps, delta := big.NewRat(1, 4), big.NewRat(9, 10)
	n := int64(1)<<21 + 1
	k := numeric.Quo(numeric.Log(numeric.Lit(new(big.Rat).Inv(delta))), numeric.Log(numeric.LitInt(n)))
	m, err := aoDim(n, eps, k)
	if err != nil {
		return nil, err
	}
	classes := new(big.Int).Lsh(big.NewInt(1), uint(m-1)) // sign vectors up to ±
	s := fmt.Sprintf("ε = 1/4, δ = 9/10, k = log(10/9)/log N (so 1/N^k = δ), N = 2^21 + 1: m = %d (certified enclosure); {±1/√m}^m has 2^%d = %s vectors up to sign, fewer than N, so two sampled vectors are equal up to sign and |x_i·x_j| = 1 > ε: the probability of eq. near_ortho is 0 < 1 − δ = 1/10", m, m-1, classes.String())
	if classes.Cmp(big.NewInt(n)) >= 0 {
		return &proofs.Evidence{Verdict: proofs.Holds, Summary: "pigeonhole does not apply: " + s}, nil
	}
	return &proofs.Evidence{Verdict: proofs.Refuted, Summary: s, Explain: []string{s,
		"With k = log(1/δ)/log N, m = ⌈12 log(1/δ) log(2N)/(ε² log N)⌉ tends to ⌈12 log(1/δ)/ε²⌉ as N grows: bounded, so no fixed m fits N almost orthogonal vectors for large N. The bound 1 − 1/N^k needs k bounded below (pe.ao.probability-corrected)."}}, nil
}

func checkAOCorrected() (*proofs.Evidence, error) {
	var parts []string
	cases := 0
	for _, kk := range []int64{1, 2} {
		for _, eps := range []*big.Rat{big.NewRat(1, 4), big.NewRat(1, 3)} {
			for _, n := range []int64{2, 4, 16, 64, 256, 1024} {
				m, err := aoDim(n, eps, numeric.LitInt(kk))
				if err != nil {
					return nil, err
				}
				tail, _ := tail(m, eps)
				pairs := big.NewRat(n*(n-1)/2, 1)
				fail := new(big.Rat).Mul(pairs, tail) // union bound; x_i·x_i = 1 always
				nk := new(big.Int).Exp(big.NewInt(n), big.NewInt(kk), nil)
				allowed := new(big.Rat).SetFrac(big.NewInt(1), nk)
				if fail.Cmp(allowed) > 0 {
					f, _ := fail.Float64()
					s := fmt.Sprintf("k = %d, ε = %s, N = %d, m = %d: the union bound C(N, 2)·P(|S_m| > εm) = %.3g exceeds 1/N^k", kk, eps.RatString(), n, m, f)
					return &proofs.Evidence{Verdict: proofs.Refuted, Summary: s, Explain: []string{s}}, nil
				}
				cases++
				if n == 1024 {
					f, _ := fail.Float64()
					parts = append(parts, fmt.Sprintf("k = %d, ε = %s, N = 1024: m = %d, failure ≤ %.3g ≤ 1/N^k", kk, eps.RatString(), m, f))
				}
			}
		}
	}
	return &proofs.Evidence{Verdict: proofs.Proved,
		Summary: fmt.Sprintf("%d cases (k ∈ {1, 2}, ε ∈ {1/4, 1/3}, N ∈ {2, 4, 16, 64, 256, 1024}): P(failure) ≤ C(N, 2)·P(|S_m| > εm) ≤ 1/N^k, the binomial tail summed exactly (x_i·x_i = 1 always); e.g. %s", cases, strings.Join(parts, "; ")),
		Explain: []string{"The union bound is over the pairs i < j: x_i·x_j = S_m/m with S_m a sum of m independent fair signs.",
			"By Hoeffding, P(|S_m| > εm) ≤ 2 exp(−mε²/2) ≤ 2(2N)^{−6k}, so C(N, 2)·2(2N)^{−6k} ≤ N^{−k} for every N ≥ 2 once k ≥ 2/5; the printed choice of the least k with 1/N^k ≤ δ lets k → 0 (pe.ao.probability); the printed \"at most 1 − δ\" is a slip for \"at least\" (attn.lookup-ao.probability-literal)."}}, nil
}
