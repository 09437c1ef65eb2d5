package basics

import (
	"fmt"
	"math/big"
	"strings"

	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/numeric"
	"github.com/transformer-cookbook/verify/proofs"
	"github.com/transformer-cookbook/verify/recipes"
)

// The claims of §Preliminaries (Uniformity) and of §Basic Ingredients
// other than the Boolean table: §Special Symbols, §Categorical
// Representations and §Integer Representations. exhaustiveAll is
// shared with pe.inverse.bos (positional.go).

var valuesClaims = []*proofs.Claim{
	{ID: "prelim.uniformity.principles", Section: "Uniformity", Label: "sec:uniformity",
		Statement: "three principles: properties not involving parameters (position embeddings, precision) may depend on n; parameters may depend on a maximum length N (state how their number scales); dependence on n or N should be computable, e.g. in poly(log N) time",
		Domain:    "conventions for constructions",
		Recorded:  proofs.OutOfScope,
		Check: func() (*proofs.Evidence, error) {
			return &proofs.Evidence{Verdict: proofs.OutOfScope, Summary: "conventions the cookbook adopts, not statements with a truth value; the engine records each recipe's dependence instead (MaxN, parameters such as N in lookup and dyck1-n, position encodings that read n)",
				Explain: []string{"Where a recipe's weights depend on N (dyck1-n, hardmax-softmax, lookup-ao), the recipe is built for a given N and checked for n ≤ N; the 'uniformity limit' reported by 'verify --recipe' is where a fixed precision stops being enough."}}, nil
		}},
	{ID: "repr.cat.onehot", Section: "Categorical Representations", Label: "sec:symbols",
		Statement: "categorical representations as one-hot vectors: k symbols as orthogonal vectors e_1 … e_k, separated by a minimum distance, read back exactly (argmax unembedding)",
		Domain:    "k = 26: e_s·e_t = [s = t], ‖e_s − e_t‖² = 2 for s ≠ t (the word embeddings of the recipe categorical); the recipe categorical (k = 4) on every string of length ≤ 4",
		Recorded:  proofs.Holds,
		Check:     checkCategorical},
	{ID: "repr.cat.width", Section: "Categorical Representations", Label: "sec:symbols",
		Statement: "to accommodate a set of k categories as orthogonal (one-hot) vectors, a width d ≥ k is required",
		Domain:    "every family of k pairwise orthogonal nonzero vectors in ℝ^d",
		Recorded:  proofs.OutOfScope,
		Check: func() (*proofs.Evidence, error) {
			return &proofs.Evidence{Verdict: proofs.OutOfScope, Summary: "a lower bound over every family of vectors, which the engine cannot enumerate; true by linear algebra: pairwise orthogonal nonzero vectors are linearly independent (take the dot product of Σ a_s e_s = 0 with each e_t), so k ≤ d",
				Explain: []string{"The almost orthogonal families of §Almost Orthogonal Embeddings relax orthogonality to |x_i·x_j| ≤ ε and fit N vectors in m = O(log N) dimensions (pe.ao.*)."}}, nil
		}},
	{ID: "repr.int.count", Section: "Integer Representations", Label: "sec:integers",
		Statement: "a count C is stored as C/n using unmasked uniform attention, and as C/i using future-masked uniform attention",
		Domain:    "the recipe count (C = number of a's) under SMAT and AHAT, every string over {a, b} of length ≤ 7, exact",
		Recorded:  proofs.Holds,
		Check: func() (*proofs.Evidence, error) {
			return exhaustiveAll("count", 7)
		}},
	{ID: "repr.int.precision", Section: "Integer Representations", Label: "sec:integers",
		Statement: "representing integers requires greater numerical precision to represent larger integers: precision bounds the integers that can be represented",
		Domain:    "binary formats fp8-e4m3, bf16, fp16, fp32, fp64 (P significand bits), round to nearest even",
		Recorded:  proofs.Holds,
		Check:     checkIntPrecision},
	{ID: "repr.int.bounded", Section: "Integer Representations", Label: "sec:integers",
		Statement: "with bounded position embeddings and Lipschitz position-wise functions (Hahn 2020), or even non-Lipschitz layer normalization (Chiang et al. 2023), all computed values are bounded",
		Domain:    "every transformer of that kind",
		Recorded:  proofs.OutOfScope,
		Check: func() (*proofs.Evidence, error) {
			return &proofs.Evidence{Verdict: proofs.OutOfScope, Summary: "a cited theorem about every transformer with bounded position embeddings (a bound over all weights and inputs), which the engine cannot enumerate",
				Explain: []string{"Consistent with it, the counts the cookbook computes are bounded: C/n and C/i ∈ [0, 1] (repr.int.count), and 1/(n+1), 1/(i+1) (repr.bos.uniform)."}}, nil
		}},
	{ID: "repr.bos.uniform", Section: "Special Symbols",
		Statement: "with a BOS symbol in the sequence, uniform attention computes 1/(n+1) (unmasked), or 1/(i+1) if future-masked",
		Domain:    "the recipe bos (^w, BOS at the first position only) under SMAT and AHAT, every w ∈ {a, b}* with |w| + 1 ≤ 8, exact",
		Recorded:  proofs.Holds,
		Check: func() (*proofs.Evidence, error) {
			return exhaustiveAll("bos", 8)
		}},
}

// exhaustiveAll proves a recipe's sweep under SMAT and AHAT for every
// input up to maxN.
func exhaustiveAll(recipe string, maxN int) (*proofs.Evidence, error) {
	var parts []string
	for _, w := range []model.Weighting{model.Softmax, model.AverageHardmax} {
		ev, err := proofs.Exhaustive(proofs.Sweep{Recipe: recipe, Weighting: w, MaxN: maxN})
		if err != nil || ev.Verdict != proofs.Proved {
			return ev, err
		}
		parts = append(parts, ev.Summary)
	}
	return &proofs.Evidence{Verdict: proofs.Proved, Summary: strings.Join(parts, "; ")}, nil
}

// ---------------------------------------------------------------------
// §Categorical Representations

func checkCategorical() (*proofs.Evidence, error) {
	r, err := recipes.Get("categorical")
	if err != nil {
		return nil, err
	}
	con, err := r.Construct(model.Softmax, 1, map[string]string{"k": "26"})
	if err != nil {
		return nil, err
	}
	embs := make([][]*big.Rat, len(con.Model.WordEmbedding))
	for s, row := range con.Model.WordEmbedding {
		for _, e := range row {
			x, ok, err := e.Rat()
			if err != nil || !ok {
				return nil, fmt.Errorf("embedding of symbol %d is not rational", s)
			}
			embs[s] = append(embs[s], x)
		}
	}
	dot := func(a, b []*big.Rat) *big.Rat {
		s := new(big.Rat)
		for k := range a {
			s.Add(s, new(big.Rat).Mul(a[k], b[k]))
		}
		return s
	}
	for s := range embs {
		for t := range embs {
			want := big.NewRat(0, 1)
			if s == t {
				want = big.NewRat(1, 1)
			}
			if d := dot(embs[s], embs[t]); d.Cmp(want) != 0 {
				st := fmt.Sprintf("e_%d·e_%d = %s, want %s", s+1, t+1, d.RatString(), want.RatString())
				return &proofs.Evidence{Verdict: proofs.Refuted, Summary: st, Explain: []string{st}}, nil
			}
		}
	}
	ev, err := proofs.Exhaustive(proofs.Sweep{Recipe: "categorical", MaxN: 4, Params: map[string]string{"k": "4"}})
	if err != nil || ev.Verdict != proofs.Proved {
		return ev, err
	}
	return &proofs.Evidence{Verdict: proofs.Proved,
		Summary: fmt.Sprintf("k = 26: e_s·e_t = [s = t] for all 676 pairs, so ‖e_s − e_t‖² = 2 for s ≠ t (minimum distance √2), exact; and %s", ev.Summary)}, nil
}

// ---------------------------------------------------------------------
// §Integer Representations

// checkIntPrecision: in a binary format with P significand bits every
// integer 0 … 2^P is exact and 2^P + 1 is not (it rounds to 2^P).
func checkIntPrecision() (*proofs.Evidence, error) {
	var parts []string
	for _, f := range []*numeric.Format{numeric.FP8E4M3, numeric.BFloat16, numeric.Binary16, numeric.Binary32, numeric.Binary64} {
		top := new(big.Int).Lsh(big.NewInt(1), uint(f.P))
		upTo := int64(0)
		if f.P <= 11 {
			for k := int64(0); k <= top.Int64(); k++ {
				if got := f.RoundRat(big.NewRat(k, 1)); got != float64(k) {
					s := fmt.Sprintf("%s: the integer %d rounds to %g", f.Name, k, got)
					return &proofs.Evidence{Verdict: proofs.Refuted, Summary: s, Explain: []string{s}}, nil
				}
			}
			upTo = top.Int64()
		}
		for _, k := range []*big.Int{new(big.Int).Sub(top, big.NewInt(1)), top} {
			r := new(big.Rat).SetInt(k)
			if got := new(big.Rat).SetFloat64(f.RoundRat(r)); got == nil || got.Cmp(r) != 0 {
				s := fmt.Sprintf("%s: 2^%d or 2^%d − 1 is not exact", f.Name, f.P, f.P)
				return &proofs.Evidence{Verdict: proofs.Refuted, Summary: s, Explain: []string{s}}, nil
			}
		}
		next := new(big.Rat).SetInt(new(big.Int).Add(top, big.NewInt(1)))
		got := new(big.Rat).SetFloat64(f.RoundRat(next))
		if got.Cmp(next) == 0 {
			s := fmt.Sprintf("%s: 2^%d + 1 is exact", f.Name, f.P)
			return &proofs.Evidence{Verdict: proofs.Refuted, Summary: s, Explain: []string{s}}, nil
		}
		p := fmt.Sprintf("%s (P = %d): 2^%d + 1 rounds to %s", f.Name, f.P, f.P, got.RatString())
		if f.P <= 25 {
			// Counting past 2^P in the format's own arithmetic, as a model
			// run at this precision does: both sums are ties, which round
			// to the even neighbour, 2^P + 1 down to 2^P and 2^P + 3 up to
			// 2^P + 4 (so neither truncation nor rounding ties up passes).
			e := numeric.NewEmulated(f)
			two := float64(top.Int64())
			for _, c := range []struct{ add, want float64 }{{1, two}, {3, two + 4}} {
				if got := e.Add(0, e.SetInt64(0, top.Int64()), c.add); got != c.want {
					s := fmt.Sprintf("%s: 2^%d + %g = %g in the format's arithmetic, want %g (ties to even)", f.Name, f.P, c.add, got, c.want)
					return &proofs.Evidence{Verdict: proofs.Refuted, Summary: s, Explain: []string{s}}, nil
				}
			}
			p += fmt.Sprintf(" and 2^%d + 3 to 2^%d + 4 in its own additions", f.P, f.P)
		}
		if upTo > 0 {
			p += fmt.Sprintf(", every integer 0 … %d exact", upTo)
		} else {
			p += fmt.Sprintf(", 2^%d − 1 and 2^%d exact", f.P, f.P)
		}
		parts = append(parts, p)
	}
	return &proofs.Evidence{Verdict: proofs.Proved,
		Summary: "a format with P significand bits holds every integer up to 2^P and not 2^P + 1, so larger integers need more bits: " + strings.Join(parts, "; ") + " (exact rounding)"}, nil
}
