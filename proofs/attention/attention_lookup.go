package attention

import (
	"fmt"
	"math/big"
	"strings"

	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/numeric"
	"github.com/transformer-cookbook/verify/proofs"
	"github.com/transformer-cookbook/verify/recipes"
	"github.com/transformer-cookbook/verify/recipes/blocks"
	"github.com/transformer-cookbook/verify/recipes/stream"
)

// The claims of §Index Lookup (tab:lookup-summary) and of its four
// lookups' sections, §One-Hot Encodings, §Almost Orthogonal Embeddings,
// §Layernorm hash and §Quadratic Maximization, and the cheat sheet's
// Index Lookup cells. The lookups' sweeps (lookupHard,
// lookupSoft) are in attention.go, since §Simulating Average-Hard
// Attention with Soft Attention rests on them too.

// ---------------------------------------------------------------------
// §Index Lookup: scores, gaps and widths from the constructions' weights.

// embed is h⁽⁰⁾_i = we(x_i) + pe_n(i), exactly.
func rat(e numeric.Expr) (*big.Rat, error) {
	r, ok, err := e.Rat()
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, fmt.Errorf("weight %v is irrational", e)
	}
	return r, nil
}

func embed(m *model.Model, sym, i, n int) ([]*big.Rat, error) {
	h := make([]*big.Rat, m.D)
	for c := range h {
		h[c] = new(big.Rat)
		if c < len(m.WordEmbedding[sym]) {
			v, err := rat(m.WordEmbedding[sym][c])
			if err != nil {
				return nil, err
			}
			h[c].Add(h[c], v)
		}
	}
	if m.Position != nil {
		pe := m.Position.Vector(i, n)
		for c := range pe {
			v, err := rat(pe[c])
			if err != nil {
				return nil, err
			}
			h[c].Add(h[c], v)
		}
	}
	return h, nil
}

func matVec(a model.Matrix, x []*big.Rat) ([]*big.Rat, error) {
	out := make([]*big.Rat, a.Rows)
	for r := range out {
		out[r] = new(big.Rat)
		for c := 0; c < a.Cols; c++ {
			if x[c].Sign() == 0 || a.At(r, c).IsZero() {
				continue
			}
			w, err := rat(a.At(r, c))
			if err != nil {
				return nil, err
			}
			if w.Sign() != 0 {
				out[r].Add(out[r], new(big.Rat).Mul(w, x[c]))
			}
		}
	}
	return out, nil
}

func dot(x, y []*big.Rat) *big.Rat {
	s := new(big.Rat)
	for k := range x {
		s.Add(s, new(big.Rat).Mul(x[k], y[k]))
	}
	return s
}

// lookupScores returns, for a lookup built for N (its head in the
// first layer, reading the embeddings, scores q·k unscaled), the scores
// s[q][j] = q·k_j of a query q ∈ [N] (symbol "q:0" at position 1) and a
// key at position j ∈ [N] (symbol "1:0"), at length n = N, exactly from
// the model's embeddings and W^Q, W^K.
func lookupScores(m *model.Model, maxN int) ([][]*big.Rat, error) {
	l, head, err := proofs.LookupHead(m)
	if err != nil {
		return nil, err
	}
	a := m.Layers[l].Attention
	if l != 0 || m.Norm != model.NoNorm || a.Scale != model.NoScale || !a.Temperature.IsZero() {
		return nil, fmt.Errorf("%s: the head does not read the embeddings with unscaled scores", m.Name)
	}
	sym := map[string]int{}
	for s, name := range m.Alphabet {
		sym[name] = s
	}
	keys := make([][]*big.Rat, maxN+1)
	for j := 1; j <= maxN; j++ {
		hj, err := embed(m, sym["1:0"], j, maxN)
		if err != nil {
			return nil, err
		}
		if keys[j], err = matVec(head.K, hj); err != nil {
			return nil, err
		}
	}
	scores := make([][]*big.Rat, maxN+1)
	for q := 1; q <= maxN; q++ {
		hq, err := embed(m, sym[fmt.Sprintf("%d:0", q)], 1, maxN)
		if err != nil {
			return nil, err
		}
		qv, err := matVec(head.Q, hq)
		if err != nil {
			return nil, err
		}
		scores[q] = make([]*big.Rat, maxN+1)
		for j := 1; j <= maxN; j++ {
			scores[q][j] = dot(qv, keys[j])
		}
	}
	return scores, nil
}

// gap returns min over q of (s[q][q] − max_{j≠q} s[q][j]), and an
// error text when some s[q][j] ≥ s[q][q] for j ≠ q (the maximum is not
// unique at j = q).
func gap(scores [][]*big.Rat) (*big.Rat, string) {
	var gap *big.Rat
	n := len(scores) - 1
	for q := 1; q <= n; q++ {
		for j := 1; j <= n; j++ {
			if j == q {
				continue
			}
			d := new(big.Rat).Sub(scores[q][q], scores[q][j])
			if d.Sign() <= 0 {
				return nil, fmt.Sprintf("query %d: s_%d = %s ≥ s_%d = %s", q, j, scores[q][j].RatString(), q, scores[q][q].RatString())
			}
			if gap == nil || d.Cmp(gap) < 0 {
				gap = d
			}
		}
	}
	if gap == nil {
		gap = new(big.Rat) // N = 1: no other position
	}
	return gap, ""
}

// lookupGap decides the gap of a lookup recipe for every N in ns
// (the model built for N, queries and keys in [N]): the maximum is unique
// at j = q and the smallest gap is exactly want (or, with atLeast, at
// least want(N)).
func lookupGap(recipe string, params map[string]string, ns []int, want func(n int) *big.Rat, atLeast bool) (*proofs.Evidence, error) {
	r, err := recipes.Get(recipe)
	if err != nil {
		return nil, err
	}
	var measured []string
	for _, n := range ns {
		con, err := r.Construct(model.AverageHardmax, n, params)
		if err != nil {
			return nil, err
		}
		gap, bad, err := gapModel(con.Model, n, want(n), atLeast)
		if err != nil {
			return nil, err
		}
		if bad != "" {
			s := fmt.Sprintf("%s built for N = %d: %s", recipe, n, bad)
			return &proofs.Evidence{Verdict: proofs.Refuted, Summary: s, Explain: []string{s}}, nil
		}
		measured = append(measured, fmt.Sprintf("N = %d: %s", n, gap.RatString()))
	}
	rel := "="
	if atLeast {
		rel = "≥"
	}
	return &proofs.Evidence{Verdict: proofs.Proved, Summary: fmt.Sprintf("%s built for each N ∈ %v: q·k_j computed exactly from its embeddings and W^Q, W^K for every query q ∈ [N] and key position j ∈ [N]; the maximum is unique at j = q, and the smallest gap %s %s for every N (measured: %s)",
		recipe, ns, rel, want(ns[len(ns)-1]).RatString(), strings.Join(measured, ", ")), Explain: measured}, nil
}

// gapModel measures the gap of a lookup model built for N: the
// smallest gap, and what is wrong when the maximum is not unique at j = q
// or the gap is not want (at least want, with atLeast).
func gapModel(m *model.Model, n int, want *big.Rat, atLeast bool) (*big.Rat, string, error) {
	scores, err := lookupScores(m, n)
	if err != nil {
		return nil, "", err
	}
	gap, bad := gap(scores)
	if bad == "" && (atLeast && gap.Cmp(want) < 0 || !atLeast && gap.Cmp(want) != 0) {
		bad = fmt.Sprintf("the smallest gap is %s, want %s", gap.RatString(), want.RatString())
	}
	return gap, bad, nil
}

// lookupWidth compares the lookup head's input width with the
// paper's: the residual components that W^Q, W^K or W^V of the lookup
// head read (columns with a nonzero entry), which are the lookup's input
// vectors of tab:lookup-summary; the recipes' models also hold the
// components the head writes (c, and the rounded y), and, for the
// layernorm hash, the raw components the hashes are computed from.
func lookupWidth(recipe string, params map[string]string, ns []int, want func(con *recipes.Construction, n int) (int, string, error), notes ...string) (*proofs.Evidence, error) {
	r, err := recipes.Get(recipe)
	if err != nil {
		return nil, err
	}
	var parts []string
	for _, n := range ns {
		con, err := r.Construct(model.AverageHardmax, n, params)
		if err != nil {
			return nil, err
		}
		_, head, err := proofs.LookupHead(con.Model)
		if err != nil {
			return nil, err
		}
		var read []string
		for c := 0; c < con.Model.D; c++ {
			used := false
			for _, mat := range []model.Matrix{head.Q, head.K, head.V} {
				for row := 0; row < mat.Rows; row++ {
					used = used || !isZero(mat.At(row, c))
				}
			}
			if used {
				read = append(read, con.Model.Components[c])
			}
		}
		w, formula, err := want(con, n)
		if err != nil {
			return nil, err
		}
		if len(read) != w {
			s := fmt.Sprintf("%s built for N = %d: the head reads %d components (%s), the paper's width %s = %d", recipe, n, len(read), strings.Join(read, ", "), formula, w)
			return &proofs.Evidence{Verdict: proofs.Refuted, Summary: s, Explain: []string{s}}, nil
		}
		parts = append(parts, fmt.Sprintf("N = %d: %d = %s (model width D = %d)", n, w, formula, con.Model.D))
	}
	return &proofs.Evidence{Verdict: proofs.Proved, Summary: fmt.Sprintf("the lookup head of %s reads exactly the paper's width of components (nonzero columns of W^Q, W^K, W^V): %s", recipe, strings.Join(parts, "; ")), Explain: append(parts, notes...)}, nil
}

// aoDimension is the paper's m = ⌈(12k/ε²) log(2N)⌉ with
// k = log(1/δ)/log N (the k making 1/N^k = δ), for N ≥ 2, with the
// ceiling certified (both ends of an interval enclosure have it).
func aoDimension(n int, eps, delta *big.Rat) (int, error) {
	e := numeric.Quo(
		numeric.Mul(numeric.Mul(numeric.LitInt(12), numeric.Log(numeric.Lit(new(big.Rat).Inv(delta)))), numeric.Log(numeric.LitInt(2*int64(n)))),
		numeric.Mul(numeric.Lit(new(big.Rat).Mul(eps, eps)), numeric.Log(numeric.LitInt(int64(n)))))
	lo, hi, err := e.Enclose(256)
	if err != nil {
		return 0, err
	}
	ceil := func(x *big.Rat) *big.Int {
		q, r := new(big.Int).QuoRem(x.Num(), x.Denom(), new(big.Int))
		if r.Sign() > 0 {
			q.Add(q, big.NewInt(1))
		}
		return q
	}
	if ceil(lo).Cmp(ceil(hi)) != 0 || !ceil(lo).IsInt64() {
		return 0, fmt.Errorf("m = ⌈%v⌉ is undecided at 256 bits", e)
	}
	return int(ceil(lo).Int64()), nil
}

// pairOK is P(|S| ≤ εm) for S a sum of m independent fair signs: the
// probability that two independent uniform vectors of {±1/√m}^m have
// |x_i·x_j| ≤ ε, exactly.
func pairOK(m int, eps *big.Rat) *big.Rat {
	ok := new(big.Int)
	em := new(big.Rat).Mul(eps, big.NewRat(int64(m), 1))
	for b := 0; b <= m; b++ {
		s := big.NewRat(int64(2*b-m), 1)
		if s.Abs(s).Cmp(em) <= 0 {
			ok.Add(ok, new(big.Int).Binomial(int64(m), int64(b)))
		}
	}
	return new(big.Rat).SetFrac(ok, new(big.Int).Lsh(big.NewInt(1), uint(m)))
}

// aoSuccessBound returns an exact upper bound on the probability that
// N vectors drawn uniformly and independently from {±1/√m}^m satisfy
// eq. near_ortho with ε: the pairs (x_1, x_j), j = 2 … N, must all have
// |x_1·x_j| ≤ ε, and these N − 1 events are independent (given x_1, the
// vectors x_1 ⊙ x_j are independent and uniform), each of probability
// pairOK(m, ε); so P(success) ≤ pairOK^{N−1}. (x_i·x_i = 1 ≥ 1 − ε
// always.) For N = 2 the bound is the probability itself.
func aoSuccessBound(n, m int, eps *big.Rat) *big.Rat {
	p := pairOK(m, eps)
	num := new(big.Int).Exp(p.Num(), big.NewInt(int64(n-1)), nil)
	den := new(big.Int).Exp(p.Denom(), big.NewInt(int64(n-1)), nil)
	return new(big.Rat).SetFrac(num, den)
}

// aoProbability decides "with probability at least 1 − δ" (atMost
// false) or, as printed, "at most 1 − δ" (atMost true) at (N, ε, δ): the
// exact success probability for N = 2, or the exact upper bound of
// aoSuccessBound.
func aoProbability(atMost bool, n int, eps, delta string) (*proofs.Evidence, error) {
	e, d := proofs.Q(eps), proofs.Q(delta)
	m, err := aoDimension(n, e, d)
	if err != nil {
		return nil, err
	}
	p := aoSuccessBound(n, m, e)
	oneMinus := new(big.Rat).Sub(big.NewRat(1, 1), d)
	what := "P(success) ≤ P(|x_1·x_j| ≤ ε for j = 2 … N) = P(|S_m| ≤ εm)^{N−1}"
	if n == 2 {
		what = "P(success) = P(|S_m| ≤ εm)"
	}
	where := fmt.Sprintf("N = %d, ε = %s, δ = %s: k = log(1/δ)/log N, m = %d; %s = %s (exact binomial sums, S_m a sum of m fair signs)", n, eps, delta, m, what, decimal(p, 6))
	if atMost {
		// For N = 2 p is the probability itself: refuted when it exceeds
		// 1 − δ. For N > 2 p is an upper bound: it proves the printed
		// "at most" when p ≤ 1 − δ and decides nothing otherwise.
		switch {
		case n == 2 && p.Cmp(oneMinus) > 0:
			s := where + fmt.Sprintf(" > 1 − δ = %s: the vectors satisfy eq. near_ortho with probability above 1 − δ (the paper means \"at least\")", oneMinus.RatString())
			return &proofs.Evidence{Verdict: proofs.Refuted, Summary: s, Explain: []string{s, "exact probability: " + p.RatString()}}, nil
		case p.Cmp(oneMinus) <= 0:
			return &proofs.Evidence{Verdict: proofs.Proved, Summary: where + fmt.Sprintf(" ≤ 1 − δ = %s", oneMinus.RatString())}, nil
		}
		return &proofs.Evidence{Verdict: proofs.Holds, Summary: where + " > 1 − δ, but it is only an upper bound: undecided"}, nil
	}
	if p.Cmp(oneMinus) < 0 {
		s := where + fmt.Sprintf(" < 1 − δ = %s: the sampled family fails more often than δ", oneMinus.RatString())
		return &proofs.Evidence{Verdict: proofs.Refuted, Summary: s, Explain: []string{s,
			"bound (exact): " + decimal(p, 17),
			"with k = log(1/δ)/log N, m = ⌈12 log(1/δ) log(2N)/(ε² log N)⌉ stays bounded as N grows (→ ⌈12 log(1/δ)/ε²⌉), so the failure probability of a pair stays fixed and the family fails with probability → 1; the union bound N(N−1)(2N)^{−6k} behind the paper's choice is below δ only for k ≳ 2/5"}}, nil
	}
	return &proofs.Evidence{Verdict: proofs.Holds, Summary: where + " ≥ 1 − δ: the bound does not refute it"}, nil
}

// lhSquares compares lh(a)·lh(b) with lh(c)·lh(d) for positive
// integers: both are 4(xy + 1)/√((x² + 1)(y² + 1)) > 0, so the
// comparison is that of the squares, (ab + 1)²(c² + 1)(d² + 1) against
// (cd + 1)²(a² + 1)(b² + 1), in exact integers.
func lhSquares(a, b, c, d int64) int {
	sq := func(x int64) *big.Int { return big.NewInt(x * x) }
	lhs := new(big.Int).Mul(sq(a*b+1), big.NewInt((c*c+1)*(d*d+1)))
	rhs := new(big.Int).Mul(sq(c*d+1), big.NewInt((a*a+1)*(b*b+1)))
	return lhs.Cmp(rhs)
}

// lhUniqueMax: lh(q)·lh(j) < lh(q)·lh(q) = 4 for every q ≠ j ≤ maxN,
// exactly (squares: (qj + 1)² < (q² + 1)(j² + 1)).
func lhUniqueMax(maxN int64) (*proofs.Evidence, error) {
	for a := int64(1); a <= maxN; a++ {
		if lhSquares(a, a, 1, 1) != 0 { // lh(a)·lh(a) = lh(1)·lh(1) = 4
			return nil, fmt.Errorf("lh(%d)·lh(%d) ≠ 4", a, a)
		}
		for b := int64(1); b <= maxN; b++ {
			if a != b && lhSquares(a, b, a, a) >= 0 {
				s := fmt.Sprintf("lh(%d)·lh(%d) ≥ lh(%d)·lh(%d)", a, b, a, a)
				return &proofs.Evidence{Verdict: proofs.Refuted, Summary: s, Explain: []string{s}}, nil
			}
		}
	}
	return &proofs.Evidence{Verdict: proofs.Proved, Summary: fmt.Sprintf("for every q, j ≤ %d: lh(q)·lh(q) = 4 and lh(q)·lh(j) < 4 for j ≠ q, exactly (positive scores compared by their squares: (qj + 1)² < (q² + 1)(j² + 1))", maxN)}, nil
}

// lhGap: for every N ≤ maxN the smallest gap 4 − lh(q)·lh(j) over
// Q ≠ j ∈ [N] is 4 − lh(N−1)·lh(N) (attained only by {N − 1, N}), and it
// decreases strictly with N; exact comparisons of squares. With dKey > 1
// the scores are read under Definition def:attn, lh(q)·lh(j)/√d_key: the
// one positive factor keeps where the smallest gap is and that it
// decreases, and the values reported are γ(N)/√d_key.
func lhGap(maxN int64, dKey int) (*proofs.Evidence, error) {
	for n := int64(2); n <= maxN; n++ {
		for a := int64(1); a <= n; a++ {
			for b := int64(1); b <= n; b++ {
				if a == b {
					continue
				}
				c := lhSquares(a, b, n-1, n)
				edge := min(a, b) == n-1 && max(a, b) == n
				if c > 0 || (c == 0) != edge {
					s := fmt.Sprintf("N = %d: lh(%d)·lh(%d) vs lh(N−1)·lh(N): %d, so 4 − lh(N−1)·lh(N) is not the smallest gap", n, a, b, c)
					return &proofs.Evidence{Verdict: proofs.Refuted, Summary: s, Explain: []string{s}}, nil
				}
			}
		}
		if n < maxN && lhSquares(n, n+1, n-1, n) <= 0 {
			s := fmt.Sprintf("γ(%d) ≥ γ(%d): the gap does not decrease", n+1, n)
			return &proofs.Evidence{Verdict: proofs.Refuted, Summary: s, Explain: []string{s}}, nil
		}
	}
	var vals []string
	name, rate := func(n int64) string { return fmt.Sprintf("γ(%d)", n) }, "2/N⁴"
	if dKey > 1 {
		name = func(n int64) string { return fmt.Sprintf("γ(%d)/√%d", n, dKey) }
		rate = fmt.Sprintf("2/(√%d·N⁴)", dKey)
	}
	for _, n := range []int64{2, 3, 10, maxN} {
		e := numeric.Sub(numeric.LitInt(4), numeric.Quo(numeric.LitInt(4*((n-1)*n+1)), numeric.Sqrt(numeric.LitInt(((n-1)*(n-1)+1)*(n*n+1)))))
		if dKey > 1 {
			e = numeric.Quo(e, numeric.Sqrt(numeric.LitInt(int64(dKey))))
		}
		lo, hi, err := e.Enclose(128)
		if err != nil {
			return nil, err
		}
		vals = append(vals, fmt.Sprintf("%s ∈ [%s, %s]", name(n), decimal(lo, 6), decimal(hi, 6)))
	}
	sum := fmt.Sprintf("for every N ≤ %d: the smallest gap over q ≠ j ∈ [N] is γ(N) = 4 − lh(N−1)·lh(N), attained only at {N−1, N}, and γ(N+1) < γ(N), exactly (squares of positive scores compared in integers); %s (≈ %s)", maxN, strings.Join(vals, ", "), rate)
	if dKey > 1 {
		sum = fmt.Sprintf("d_key = %d (rows of the lookup head's W^Q): the scores lh(q)·lh(j)/√%d share one positive factor, so the smallest gap is γ(N)/√%d at the same pair and decreases with N as γ(N) does; %s", dKey, dKey, dKey, sum)
	}
	return &proofs.Evidence{Verdict: proofs.Proved, Summary: sum}, nil
}

// qmFactor scales the quadratic-maximization scores: the query of
// position i by q(i, n), the key of position j by k(i, j, n).
type qmFactor struct {
	name string
	q    func(i, n int) *big.Rat
	k    func(i, j, n int) *big.Rat
}

func one(int, int) *big.Rat         { return big.NewRat(1, 1) }
func keyOne(int, int, int) *big.Rat { return big.NewRat(1, 1) }

// qmKeyFactors are the factors the corrected claim allows: positive,
// and the same for every key j of one query (they may depend on i and
// n), at the paper's examples and at extremes either way.
var qmKeyFactors = []qmFactor{
	{"unscaled", one, keyOne},
	{"q scaled by 1/i", func(i, _ int) *big.Rat { return big.NewRat(1, int64(i)) }, keyOne},
	{"q scaled by 1/n", func(_, n int) *big.Rat { return big.NewRat(1, int64(n)) }, keyOne},
	{"q scaled by n", func(_, n int) *big.Rat { return big.NewRat(int64(n), 1) }, keyOne},
	{"q scaled by 2^−64", func(int, int) *big.Rat {
		return new(big.Rat).SetFrac(big.NewInt(1), new(big.Int).Lsh(big.NewInt(1), 64))
	}, keyOne},
	{"q scaled by 2^64", func(int, int) *big.Rat { return new(big.Rat).SetInt(new(big.Int).Lsh(big.NewInt(1), 64)) }, keyOne},
	{"every k scaled by 1/n", one, func(_, _, n int) *big.Rat { return big.NewRat(1, int64(n)) }},
	{"every k scaled by 1/i", one, func(i, _, _ int) *big.Rat { return big.NewRat(1, int64(i)) }},
	{"every k scaled by n²", one, func(_, _, n int) *big.Rat { return big.NewRat(int64(n*n), 1) }},
}

// qmLiteralFactors are factors "some factor" admits that the
// corrected claim does not: one that differs between keys (1/j, the
// keys' analogue of the queries' 1/i), zero, and a negative one.
var qmLiteralFactors = []qmFactor{
	{"k_j scaled by 1/j", one, func(_, j, _ int) *big.Rat { return big.NewRat(1, int64(j)) }},
	{"q scaled by 0", func(int, int) *big.Rat { return new(big.Rat) }, keyOne},
	{"q scaled by −1", func(int, int) *big.Rat { return big.NewRat(-1, 1) }, keyOne},
}

// qmScaled: for every n ≤ maxN, position i ∈ [n] and query q ∈ [n],
// the quadratic-maximization scores (from the lookup model's embeddings
// and W^Q, W^K at length n), scaled by each factor, are uniquely maximal
// at j = q: PROVED on these instances, or REFUTED by the first query
// whose maximum moves, with every factor's first counterexample.
func qmScaled(maxN int, factors []qmFactor) (*proofs.Evidence, error) {
	r, err := recipes.Get("lookup")
	if err != nil {
		return nil, err
	}
	con, err := r.Construct(model.AverageHardmax, maxN, nil)
	if err != nil {
		return nil, err
	}
	m := con.Model
	_, head, err := proofs.LookupHead(m)
	if err != nil {
		return nil, err
	}
	sym := map[string]int{}
	for s, name := range m.Alphabet {
		sym[name] = s
	}
	checked := 0
	broken := map[string]string{} // factor → its first counterexample
	for n := 1; n <= maxN; n++ {
		keys := make([][]*big.Rat, n+1)
		for j := 1; j <= n; j++ {
			h, err := embed(m, sym["1:0"], j, n)
			if err != nil {
				return nil, err
			}
			if keys[j], err = matVec(head.K, h); err != nil {
				return nil, err
			}
		}
		for i := 1; i <= n; i++ {
			for qq := 1; qq <= n; qq++ {
				h, err := embed(m, sym[fmt.Sprintf("%d:0", qq)], i, n)
				if err != nil {
					return nil, err
				}
				qv, err := matVec(head.Q, h)
				if err != nil {
					return nil, err
				}
				for _, f := range factors {
					best := -1
					var top *big.Rat
					unique := true
					for j := 1; j <= n; j++ {
						s := dot(qv, keys[j])
						s.Mul(s, f.q(i, n))
						s.Mul(s, f.k(i, j, n))
						switch {
						case top == nil || s.Cmp(top) > 0:
							best, top, unique = j, s, true
						case s.Cmp(top) == 0:
							unique = false
						}
					}
					checked++
					if _, seen := broken[f.name]; (best != qq || !unique) && !seen {
						tie := ""
						if !unique {
							tie = ", and is not unique"
						}
						broken[f.name] = fmt.Sprintf("n = %d, i = %d, q_i = %d, %s: the maximum is at j = %d%s", n, i, qq, f.name, best, tie)
					}
				}
			}
		}
	}
	if len(broken) > 0 {
		var ex []string
		for _, f := range factors {
			if b, ok := broken[f.name]; ok {
				ex = append(ex, b)
			}
		}
		return &proofs.Evidence{Verdict: proofs.Refuted, Summary: strings.Join(ex, "; ") + " (exact)", Explain: ex}, nil
	}
	var names []string
	for _, f := range factors {
		names = append(names, f.name)
	}
	return &proofs.Evidence{Verdict: proofs.Proved, Summary: fmt.Sprintf("for every n ≤ %d, i ∈ [n], q_i ∈ [n]: s_ij = 2q_i j − j² (from the lookup model's embeddings, W^Q and W^K) is uniquely maximal at j = q_i, and so scaled by each factor (%s; %d score vectors, exact); for any factor c > 0 common to the keys of one query, c·s_ij < c·s_iq iff s_ij < s_iq", maxN, strings.Join(names, ", "), checked),
		Explain: []string{"a factor that differs between keys is another matter: k_j scaled by 1/j (the keys' analogue of 1/i) gives s_ij = 2q_i − j, maximal at j = 1 for every query (attn.lookup-qm.scaled.literal)"}}, nil
}

// lookupInputs is every input of every length ≤ maxN over the lookup
// alphabet of a model built for N ≥ maxN whose queries lie in [n].
func lookupInputs(m *model.Model, maxN int) [][]int {
	var out [][]int
	for n := 1; n <= maxN; n++ {
		for _, in := range allStrings(2*n, n) {
			out = append(out, in) // symbol s is "q:v" with q = s/2 + 1 ≤ n
		}
	}
	_ = m
	return out
}

// lookupWant is v_{q_i} for y and c.
func lookupWant(m *model.Model) func(in []int) []expected {
	return func(in []int) []expected {
		want := make([]expected, len(in))
		for i, s := range in {
			var qq, v int
			fmt.Sscanf(m.Alphabet[s], "%d:%d", &qq, &v)
			var vq int
			fmt.Sscanf(m.Alphabet[in[qq-1]], "%d:%d", new(int), &vq)
			x := big.NewRat(int64(vq), 1)
			want[i] = expected{values: []*big.Rat{x, x}}
		}
		return want
	}
}

// jointNormModel is the layernorm-hash lookup with one selective
// layer norm over both hashes, LN([q, 1, −q, −1, j, 1, −j, −1]) (the
// paper's "sa(LN(W^N x)) + x" with W^N selecting the components both
// hashes are made of), followed by lhLookup's head (W^Q = [I⁴ 0 0],
// W^K = [0 I⁴ 0], W^V = [0 0 1]) and the rounding GTZero_{1/2}(c − 1/4).
func jointNormModel(maxN int) (*model.Model, error) {
	raw := []string{"q", "1", "−q", "−1", "j", "1′", "−j", "−1′"}
	lh := make([]string, 8)
	for k := range lh {
		lh[k] = fmt.Sprintf("lh%d", k+1)
	}
	joint := blocks.Identity(raw, lh)
	joint.Name, joint.Norm = "LN(W^N x), both hashes", &stream.Norm{}
	in := append(append([]string(nil), lh...), "v")
	q, k, v := model.Zeros(4, 9), model.Zeros(4, 9), model.Zeros(1, 9)
	for r := 0; r < 4; r++ {
		q.Set(r, r, numeric.LitInt(1))
		k.Set(r, 4+r, numeric.LitInt(1))
	}
	v.Set(0, 8, numeric.LitInt(1))
	head := &stream.Attn{Name: "lh-lookup", In: in, Out: []string{"c"}, Q: q, K: k, V: v, Weighting: model.AverageHardmax, Scale: model.NoScale}
	var alphabet []string
	for qq := 1; qq <= maxN; qq++ {
		alphabet = append(alphabet, fmt.Sprintf("%d:0", qq), fmt.Sprintf("%d:1", qq))
	}
	return stream.New("lookup-lh-joint-norm", "q", "−q", "1", "−1", "1′", "−1′", "j", "−j", "v").
		Symbols(alphabet, func(s int) stream.Values {
			qq := int64(s/2 + 1)
			return stream.Values{"q": numeric.LitInt(qq), "−q": numeric.LitInt(-qq), "v": numeric.LitInt(int64(s % 2))}
		}).
		Positions("(1, −1, 1, −1, j, −j)", func(i, n int) stream.Values {
			return stream.Values{"1": numeric.LitInt(1), "−1": numeric.LitInt(-1), "1′": numeric.LitInt(1), "−1′": numeric.LitInt(-1),
				"j": numeric.LitInt(int64(i)), "−j": numeric.LitInt(-int64(i))}
		}).
		Then(joint, head, blocks.Round01("c", "y")).Readout("y", "c").Model()
}

// lookupModelCheck runs a lookup model on every input up to maxN at
// precision p: PROVED when every y and c is exactly v_{q_i} (exact points),
// REFUTED with the first wrong output.
func lookupModelCheck(m *model.Model, maxN int, p string) (*proofs.Evidence, error) {
	fail, cases, err := checkInputs(m, p, lookupInputs(m, maxN), lookupWant(m))
	if err != nil {
		return nil, err
	}
	if fail != "" {
		return &proofs.Evidence{Verdict: proofs.Refuted, Summary: fail + ", " + p, Explain: []string{fail}}, nil
	}
	return &proofs.Evidence{Verdict: proofs.Proved, Summary: fmt.Sprintf("%s: every input of length ≤ %d (%d inputs, %s), y and c exactly v_{q_i}", m.Name, maxN, cases, p)}, nil
}

var lookupClaims = []*proofs.Claim{
	// §Index Lookup: tab:lookup-summary.
	claim("attn.lookup-onehot.width", secLookup,
		"tab:lookup-summary: one-hot lookup ohLookup: (ℝ^{2N+1})^+ → ℝ^+, width Θ(N)",
		"the lookup head of lookup-onehot built for N ∈ {1, 2, 5, 16}: the components its W^Q, W^K, W^V read, against 2N+1", proofs.Holds,
		func() (*proofs.Evidence, error) {
			return lookupWidth("lookup-onehot", nil, []int{1, 2, 5, 16}, func(_ *recipes.Construction, n int) (int, string, error) {
				return 2*n + 1, fmt.Sprintf("2N+1 = 2·%d+1", n), nil
			})
		}),
	claim("attn.lookup-ao.width", secLookup,
		"tab:lookup-summary: almost orthogonal lookup aoLookup: (ℝ^{2m+1})^+ → ℝ^+ with m = ⌈(12k/ε²) log(2N)⌉ = O(log N)",
		"the lookup head of lookup-ao (ε = 1/4, δ = 1/2) built for N ∈ {2, 3, 4}: the components it reads against 2m+1, m computed from the paper's formula with k = log(1/δ)/log N (certified ceiling)", proofs.Holds,
		checkLookupAoWidth),
	claim("attn.lookup-lh.width", secLookup,
		"tab:lookup-summary: layernorm-hash lookup lhLookup: (ℝ^9)^+ → ℝ^+ (lh(q_i), lh(i), v_i), width Θ(1)",
		"the lookup head of lookup-lh built for N ∈ {1, 4, 64}: the components it reads against 9", proofs.Holds,
		func() (*proofs.Evidence, error) {
			return lookupWidth("lookup-lh", nil, []int{1, 4, 64}, func(*recipes.Construction, int) (int, string, error) { return 9, "9", nil })
		}),
	claim("attn.lookup-qm.width", secLookup,
		"tab:lookup-summary: quadratic-maximization lookup qmLookup: (ℝ^5)^+ → ℝ^+ (q_i, 1, i, i², v_i), width Θ(1)",
		"the lookup head of lookup built for N ∈ {1, 4, 64}: the components it reads against 5", proofs.Holds,
		func() (*proofs.Evidence, error) {
			return lookupWidth("lookup", nil, []int{1, 4, 64}, func(*recipes.Construction, int) (int, string, error) { return 5, "5", nil })
		}),

	// §One-Hot Encodings.
	claim("attn.lookup-onehot.exact", secOneHot,
		"ohLookup with W^Q = [I 0 0], W^K = [0 I 0], W^V = [0 0 1]: q_i·k_j = 𝕀[j = q_i], and \"with hard attention, this suffices to concentrate all attention on j = q_i\"",
		"N = 3, every input of length n ≤ 3 (q_i ∈ [n], v_i ∈ {0,1}); AHAT and UHAT (leftmost); exact", proofs.Holds,
		sweepEvidence(lookupHard("lookup-onehot", ahat), lookupHard("lookup-onehot", uhat))),
	claim("attn.lookup-onehot.gap", secOneHot,
		"\"there is a minimum gap between the highest attention score and the next-highest attention score of γ = 1\""+proofs.ReadQK,
		"lookup-onehot built for N ∈ {2, …, 12}: every query q ∈ [N] against every key position j ∈ [N]; exact", proofs.Holds,
		func() (*proofs.Evidence, error) {
			return lookupGap("lookup-onehot", nil, []int{2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}, func(int) *big.Rat { return big.NewRat(1, 1) }, false)
		}),

	// §Almost Orthogonal Embeddings.
	claim("attn.lookup-ao.exact", secAO,
		"aoLookup with the projections of eq. one_hot_qkv over an almost orthogonal family: \"Under hard attention, the output at position i is then exactly v_{q_i}\"",
		"N = 3, ε = 1/4, δ = 9/10 (m = 33, the sampled family checked exactly), every input of length n ≤ 3; AHAT and UHAT (leftmost); exact", proofs.Holds,
		sweepEvidence(lookupHard("lookup-ao", ahat), lookupHard("lookup-ao", uhat))),
	claim("attn.lookup-ao.gap", secAO,
		"\"The minimum gap between the attention scores q_i·k_{q_i} and q_i·k_j for j ≠ q_i is γ = 1 − 2ε\" (a lower bound: |x_i·x_j| ≤ ε, x_i·x_i ≥ 1 − ε)"+proofs.ReadQK,
		"the family lookup-ao samples and checks for ε = 1/4, δ = 1/2, N ∈ {2, …, 8}: every query q ∈ [N] against every key j ∈ [N]; exact", proofs.Holds,
		func() (*proofs.Evidence, error) {
			return lookupGap("lookup-ao", params("eps", "1/4", "delta", "1/2", "seed", "1"), []int{2, 3, 4, 5, 6, 7, 8}, func(int) *big.Rat { return big.NewRat(1, 2) }, true)
		}),
	claim("attn.lookup-ao.probability-literal", secAO,
		"as printed: with k such that 1/N^k ≤ δ and m = ⌈(12k/ε²) log(2N)⌉, vectors sampled uniformly from {±1/√m}^m satisfy eq. near_ortho \"with probability at most 1 − δ\"",
		"N = 2, ε = 1/4, δ = 1/2 (k = 1, m = 267): the exact probability", proofs.Refuted,
		func() (*proofs.Evidence, error) { return aoProbability(true, 2, "1/4", "1/2") }),
	claim("attn.lookup-ao.probability", secAO,
		"corrected reading: with k = log(1/δ)/log N (so 1/N^k = δ) and m = ⌈(12k/ε²) log(2N)⌉, the sampled vectors satisfy eq. near_ortho with probability at least 1 − δ",
		"N = 1024, ε = 1/4, δ = 1/2 (m = 147): an exact upper bound on the success probability", proofs.Refuted,
		func() (*proofs.Evidence, error) { return aoProbability(false, 1024, "1/4", "1/2") }),

	// §Layernorm hash.
	claim("attn.lookup-lh.exact", secLH,
		"lhLookup: q_i = lh(q_i), k_j = lh(j), W^V = [0 0 1]; \"Under hard attention, this allows us to attend only to position j = q_i\", retrieving v_{q_i}",
		"N = 3, every input of length n ≤ 3 under AHAT and under UHAT (leftmost); certified interval arithmetic (interval:64), every output an exact point", proofs.Holds,
		pointEvidence(lookupHard("lookup-lh", ahat), lookupHard("lookup-lh", uhat))),
	claim("attn.lookup-lh.unique-max", secLH,
		"\"the dot product s_ij = lh(q_i)·lh(j) is uniquely maximized when q_i = j\", with lh(x) = √(2/(x²+1))·[x, 1, −x, −1]",
		"q, j ∈ [40]; exact integer arithmetic", proofs.Holds,
		func() (*proofs.Evidence, error) { return lhUniqueMax(40) }),
	claim("attn.lookup-lh.gap", secLH,
		"\"the minimum gap between the score at the desired position s_{i,q_i} and the score at other positions decreases with n\"; its value (derived in recipes/lookups.go, lhGap) is γ(N) = 4 − lh(N−1)·lh(N) ≈ 2/N⁴"+proofs.ReadQK,
		"N ≤ 40, every q ≠ j ∈ [N]; exact integer arithmetic (and interval enclosures for the values)", proofs.Holds,
		func() (*proofs.Evidence, error) { return lhGap(40, 1) }),
	claim("attn.lookup-lh.joint-norm", secLH,
		"one selective layer norm, y = sa(LN(W^N x)) + x, with W^N selecting the hash inputs, gives the lookup's queries lh(q_i) and keys lh(j) (read as one LN over both hashes' components)",
		"N = 2, every input of length n ≤ 2 with one LN over [q, 1, −q, −1, j, 1, −j, −1], then lhLookup's head, AHAT; interval:64", proofs.Refuted,
		checkLookupLhJointNorm),

	// §Quadratic Maximization.
	claim("attn.lookup-qm.exact", secQM,
		"qmLookup with q_i = [q_i; 1], k_j = [2j; −j²]: s_ij = 2q_i j − j²; \"Under hard attention, this solves the lookup problem exactly\"",
		"N = 3, every input of length n ≤ 3; AHAT and UHAT (leftmost); exact", proofs.Holds,
		sweepEvidence(lookupHard("lookup", ahat), lookupHard("lookup", uhat))),
	claim("attn.lookup-qm.gap", secQM,
		"\"the minimum gap between the score at the desired position s_{i,q_i} and the score at any other position s_{i,j} (j ≠ q_i) is γ = 1\""+proofs.ReadQK,
		"lookup built for N ∈ {2, …, 32}: every query q ∈ [N] against every key position j ∈ [N]; exact", proofs.Holds,
		checkLookupQmGap),
	claim("attn.lookup-qm.scaled", secQM,
		"\"2q_i j − j² … is uniquely maximized when j = q_i. This is true even if either q_i or k_j is scaled by some factor (for example, 1/i or 1/n)\", with the factor positive and the same for every key j of a query (it may depend on i and n)"+proofs.ReadQK,
		"n ≤ 12, every position i ∈ [n] and query q_i ∈ [n]; on the query the factors 1/i, 1/n, n, 2^−64 and 2^64, on every key 1/n, 1/i and n²; exact", proofs.Holds,
		func() (*proofs.Evidence, error) { return qmScaled(12, qmKeyFactors) }),
	claim("attn.lookup-qm.scaled.literal", secQM,
		"\"2q_i j − j² … is uniquely maximized when j = q_i. This is true even if either q_i or k_j is scaled by some factor (for example, 1/i or 1/n)\", as printed: any factor"+proofs.ReadQK,
		"n ≤ 12, every position i ∈ [n] and query q_i ∈ [n]; the factors 1/j on k_j, 0 and −1 on the query; exact", proofs.Refuted,
		func() (*proofs.Evidence, error) { return qmScaled(12, qmLiteralFactors) }),

	// The cheat sheet (tab:sa_cheatsheet, see cheatsheet): Index Lookup.
	claim("attn.cheatsheet.index-lookup.smat", secLookup, cheatsheet+"Index Lookup, \"lookup values at a particular index in the sequence\": SMAT"+proofs.ReadQK,
		"the four lookups of §Index Lookup with the softmax simulation (y exact, |c − v| ≤ 1/4): one-hot and qm for each N ≤ 3, ao (the default ε = 1/4, δ = 1/2, and ε = 9/20, δ = 9/10) and lh for each N ≤ 2, every input of length n ≤ N; interval:64", proofs.Holds,
		checkCheatsheetIndexLookupSmat),
	claim("attn.cheatsheet.index-lookup.ahat", secLookup, cheatsheet+"Index Lookup: AHAT",
		"the four lookups (one-hot, ao with ε = 1/4, lh, qm), N = 3, every input of length n ≤ 3; exact (lh: interval:64, every output a point)", proofs.Holds,
		pointEvidence(lookupsUnder(ahat)...)),
	claim("attn.cheatsheet.index-lookup.uhat", secLookup, cheatsheet+"Index Lookup: UHAT",
		"the four lookups, N = 3, every input of length n ≤ 3 (lh: N = 2, n ≤ 2); leftmost UHAT; exact (lh: interval:64, every output a point)", proofs.Holds,
		pointEvidence(lookupsUnder(uhat)...)),
}

// checkLookupAoWidth checks attn.lookup-ao.width.
func checkLookupAoWidth() (*proofs.Evidence, error) {
	return lookupWidth("lookup-ao", params("eps", "1/4", "delta", "1/2", "seed", "1"), []int{2, 3, 4}, func(_ *recipes.Construction, n int) (int, string, error) {
		m, err := aoDimension(n, proofs.Q("1/4"), proofs.Q("1/2"))
		return 2*m + 1, fmt.Sprintf("2m+1 with m = %d", m), err
	}, "m = O(log N) holds, but with k = log(1/δ)/log N (the k for which 1/N^k = δ) m = ⌈12 log(1/δ) log(2N)/(ε² log N)⌉ decreases in N toward ⌈12 log(1/δ)/ε²⌉ = 134 here: bounded, not Θ(log N) (see attn.lookup-ao.probability)")
}

// checkLookupLhJointNorm checks attn.lookup-lh.joint-norm.
func checkLookupLhJointNorm() (*proofs.Evidence, error) {
	m, err := jointNormModel(2)
	if err != nil {
		return nil, err
	}
	return lookupModelCheck(m, 2, iv)
}

// checkLookupQmGap checks attn.lookup-qm.gap.
func checkLookupQmGap() (*proofs.Evidence, error) {
	var ns []int
	for n := 2; n <= 32; n++ {
		ns = append(ns, n)
	}
	return lookupGap("lookup", nil, ns, func(int) *big.Rat { return big.NewRat(1, 1) }, false)
}

// checkCheatsheetIndexLookupSmat checks attn.cheatsheet.index-lookup.smat.
func checkCheatsheetIndexLookupSmat() (*proofs.Evidence, error) {
	var fs []func() (*proofs.Evidence, error)
	for _, r := range lookups {
		ss := []proofs.Sweep{lookupSoft(r)}
		if r == "lookup-ao" {
			ss = aoSoftSweeps()
		}
		fs = append(fs, func() (*proofs.Evidence, error) { return softmaxSim(ss...) })
	}
	return all(fs...)
}
