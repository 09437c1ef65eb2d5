package proofs

import (
	"fmt"
	"math/big"
	"math/rand/v2"
	"sort"
	"strings"

	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/numeric"
	"github.com/transformer-cookbook/verify/recipes/blocks"
	"github.com/transformer-cookbook/verify/recipes/stream"
)

// The claims of §Layer Normalization (Relevant Properties, Post-Norm vs.
// Pre-Norm, Circumventing Layer Normalization, Amplification) and of the
// layer norm's use in §Layernorm hash. Three kinds of checker:
//
//   - homogeneity and Lipschitz constants of ReLU FFNs, decided from their
//     linear regions (exact/cpwl.Regions);
//   - identities of the layer norm with ε = 0, β = 0, γ = 1 decided for
//     every value of their variables by the small polynomial algebra
//     below (the mean is the zero polynomial, the variance k² times a
//     polynomial free of the scale k, …);
//   - the engine's own model (its layer norm, the recipes), run exactly
//     where the square roots are rational and in certified intervals
//     elsewhere, which must agree with the identities and gives the
//     counterexamples to the printed statements.

// This file holds what several sections share (the polynomial algebra,
// the engine's layer norm, ± pair blocks, seeded searches); the claims
// are in layernorm_properties.go, layernorm_circumvent.go and
// layernorm_hash.go.

// ---------------------------------------------------------------------------
// Polynomials with rational coefficients

// lnxMaxVars is the number of variables a polynomial may use.
const lnxMaxVars = 8

// lnxMono is a monomial's exponents, one per variable.
type lnxMono [lnxMaxVars]uint8

// lnxPoly is a polynomial with rational coefficients (no zero terms stored).
// Two polynomials are equal as functions on ℝ^n exactly when their
// coefficients are, so comparing coefficients decides an identity for
// every real value of the variables at once.
type lnxPoly map[lnxMono]*big.Rat

// lnxPconst is the constant polynomial r.
func lnxPconst(r *big.Rat) lnxPoly {
	p := lnxPoly{}
	p.addTerm(lnxMono{}, r)
	return p
}

// lnxPvar is variable number v.
func lnxPvar(v int) lnxPoly {
	var m lnxMono
	m[v] = 1
	return lnxPoly{m: big.NewRat(1, 1)}
}

func (p lnxPoly) addTerm(m lnxMono, c *big.Rat) {
	if c.Sign() == 0 {
		return
	}
	if old, ok := p[m]; ok {
		old.Add(old, c)
		if old.Sign() == 0 {
			delete(p, m)
		}
		return
	}
	p[m] = new(big.Rat).Set(c)
}

func lnxPadd(p, q lnxPoly) lnxPoly {
	out := lnxPoly{}
	for m, c := range p {
		out.addTerm(m, c)
	}
	for m, c := range q {
		out.addTerm(m, c)
	}
	return out
}

func lnxPscale(r *big.Rat, p lnxPoly) lnxPoly {
	out := lnxPoly{}
	for m, c := range p {
		out.addTerm(m, new(big.Rat).Mul(r, c))
	}
	return out
}

func lnxPsub(p, q lnxPoly) lnxPoly { return lnxPadd(p, lnxPscale(big.NewRat(-1, 1), q)) }

func lnxPmul(p, q lnxPoly) lnxPoly {
	out := lnxPoly{}
	for m1, c1 := range p {
		for m2, c2 := range q {
			var m lnxMono
			for v := range m {
				m[v] = m1[v] + m2[v]
			}
			out.addTerm(m, new(big.Rat).Mul(c1, c2))
		}
	}
	return out
}

// lnxPequal reports whether p and q have the same coefficients.
func lnxPequal(p, q lnxPoly) bool { return len(lnxPsub(p, q)) == 0 }

// degreeIn returns the degree of p's monomials in variable v, and false
// when p is zero or its monomials have different degrees in v.
func (p lnxPoly) degreeIn(v int) (int, bool) {
	deg := -1
	for m := range p {
		if deg >= 0 && int(m[v]) != deg {
			return 0, false
		}
		deg = int(m[v])
	}
	return deg, deg >= 0
}

// divVar is p/(variable v)^k, for p homogeneous of degree k in v.
func (p lnxPoly) divVar(v, k int) lnxPoly {
	out := lnxPoly{}
	for m, c := range p {
		m[v] -= uint8(k)
		out.addTerm(m, c)
	}
	return out
}

// format prints p with the given variable names, highest degree first.
func (p lnxPoly) format(names ...string) string {
	if len(p) == 0 {
		return "0"
	}
	type term struct {
		m lnxMono
		c *big.Rat
	}
	var ts []term
	for m, c := range p {
		ts = append(ts, term{m, c})
	}
	sort.Slice(ts, func(i, j int) bool {
		for v := range ts[i].m {
			if ts[i].m[v] != ts[j].m[v] {
				return ts[i].m[v] > ts[j].m[v]
			}
		}
		return false
	})
	var b strings.Builder
	for k, t := range ts {
		c := new(big.Rat).Set(t.c)
		switch {
		case k > 0 && c.Sign() < 0:
			b.WriteString(" − ")
			c.Neg(c)
		case k > 0:
			b.WriteString(" + ")
		case c.Sign() < 0:
			b.WriteString("−")
			c.Neg(c)
		}
		var vars []string
		for v, e := range t.m {
			if e == 0 {
				continue
			}
			name := fmt.Sprintf("x%d", v+1)
			if v < len(names) {
				name = names[v]
			}
			if e > 1 {
				name += fmt.Sprintf("^%d", e)
			}
			vars = append(vars, name)
		}
		if c.Cmp(big.NewRat(1, 1)) != 0 || len(vars) == 0 {
			b.WriteString(c.RatString())
		}
		b.WriteString(strings.Join(vars, ""))
	}
	return b.String()
}

// lnxPolys builds a vector of polynomials from affine combinations of the
// variables: each entry is a row "c_0 c_1 … c_n" meaning c_0 + Σ c_v x_v.
func lnxPolys(rows ...[]string) []lnxPoly {
	out := make([]lnxPoly, len(rows))
	for i, row := range rows {
		p := lnxPconst(q(row[0]))
		for v, c := range row[1:] {
			p = lnxPadd(p, lnxPscale(q(c), lnxPvar(v)))
		}
		out[i] = p
	}
	return out
}

// lnxMoments returns the mean μ, the centred entries e_i − μ and the
// variance σ² = (1/d) Σ (e_i − μ)² of a vector of polynomial entries, as
// the layer norm's definition computes them.
func lnxMoments(entries []lnxPoly) (mean lnxPoly, centred []lnxPoly, variance lnxPoly) {
	inv := big.NewRat(1, int64(len(entries)))
	mean = lnxPoly{}
	for _, e := range entries {
		mean = lnxPadd(mean, e)
	}
	mean = lnxPscale(inv, mean)
	variance = lnxPoly{}
	for _, e := range entries {
		c := lnxPsub(e, mean)
		centred = append(centred, c)
		variance = lnxPadd(variance, lnxPmul(c, c))
	}
	return mean, centred, lnxPscale(inv, variance)
}

// lnxScaleFree takes the layer norm (ε = 0, β = 0, γ = 1) of a vector whose
// entries carry a scale variable k > 0. It checks, by comparing
// coefficients, that the mean is the zero polynomial, that each centred
// entry is k·c_i with c_i free of k, and that the variance is k²·P with P
// free of k. Then LN_i = k c_i/√(k² P) = c_i/√P for every k > 0 and every
// point where P > 0: the result does not depend on k. It returns c and P.
func lnxScaleFree(entries []lnxPoly, k int) (c []lnxPoly, p lnxPoly, err error) {
	mean, centred, variance := lnxMoments(entries)
	if len(mean) != 0 {
		return nil, nil, fmt.Errorf("the mean is %s, not the zero polynomial", mean.format())
	}
	for i, e := range centred {
		if len(e) == 0 {
			c = append(c, e)
			continue
		}
		if deg, ok := e.degreeIn(k); !ok || deg != 1 {
			return nil, nil, fmt.Errorf("entry %d − μ = %s is not the scale times a polynomial free of it", i+1, e.format())
		}
		c = append(c, e.divVar(k, 1))
	}
	if deg, ok := variance.degreeIn(k); !ok || deg != 2 {
		return nil, nil, fmt.Errorf("σ² = %s is not the scale squared times a polynomial free of it", variance.format())
	}
	return c, variance.divVar(k, 2), nil
}

// ---------------------------------------------------------------------------
// The engine's layer norm

// lnxModel is a model whose output is LN(x) for x ∈ ℝ^d: an identity FFN
// reading the selective pre-norm of its inputs (§Layernorm hash's
// LN(W^N x)), with the given ε and γ (nil: ones) and β = 0.
func lnxModel(d int, eps *big.Rat, gamma model.Vector) (*model.Model, error) {
	xs, ys := make([]string, d), make([]string, d)
	for k := range xs {
		xs[k], ys[k] = fmt.Sprintf("x%d", k+1), fmt.Sprintf("y%d", k+1)
	}
	norm := blocks.Identity(xs, ys)
	norm.Norm = &stream.Norm{Eps: numeric.Lit(eps), Gamma: gamma}
	return stream.New("ln", xs...).Then(norm).Readout(ys...).Model()
}

// lnxRunVector runs m on one position whose input components take the
// values vals (in the order of m's inputs, the first len(vals)
// components), at the given precision.
func lnxRunVector(m *model.Model, precision string, vals ...*big.Rat) ([]model.Value, error) {
	at := map[string]*big.Rat{}
	for k, v := range vals {
		at[m.Components[k]] = v
	}
	h, err := stream.Stream(m, []map[string]*big.Rat{at})
	if err != nil {
		return nil, err
	}
	res, err := runStream(m, precision, h)
	if err != nil {
		return nil, err
	}
	return res.Outputs[0].Values, nil
}

// lnxExactValues returns the values as rationals, or an error naming one that
// is not a single exact point.
func lnxExactValues(vs []model.Value) ([]*big.Rat, error) {
	out := make([]*big.Rat, len(vs))
	for k, v := range vs {
		r, ok := v.Rat()
		if !ok {
			return nil, fmt.Errorf("output %d = %s is not exact", k+1, v.Text)
		}
		out[k] = r
	}
	return out, nil
}

func lnxRatsText(xs []*big.Rat) string {
	parts := make([]string, len(xs))
	for k, x := range xs {
		parts[k] = x.RatString()
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

func lnxRatsEqual(a, b []*big.Rat) bool {
	if len(a) != len(b) {
		return false
	}
	for k := range a {
		if a[k].Cmp(b[k]) != 0 {
			return false
		}
	}
	return true
}

func lnxRats(xs ...string) []*big.Rat {
	out := make([]*big.Rat, len(xs))
	for k, x := range xs {
		out[k] = q(x)
	}
	return out
}

// ---------------------------------------------------------------------------
// ± pairs and seeded searches

// lnxPairBlock is the block f written as a ± pair: f's hidden layer, and
// W2' = [W2; −W2] (the Routing Lemma's postmultiplication by [1; −1]),
// writing (f, −f) to out.
func lnxPairBlock(f *stream.FF, out []string) *stream.FF {
	g := *f
	g.Out = out
	w2 := model.Zeros(2, f.W2.Cols)
	for c := 0; c < f.W2.Cols; c++ {
		w2.Set(0, c, f.W2.At(0, c))
		w2.Set(1, c, numeric.Neg(f.W2.At(0, c)))
	}
	g.W2 = w2
	g.Name = f.Name + " (± pair)"
	return &g
}

// lnxRandRat is a random rational a/b with |a| ≤ 50, 1 ≤ b ≤ 16.
func lnxRandRat(rng *rand.Rand) *big.Rat {
	return big.NewRat(int64(rng.IntN(101)-50), int64(rng.IntN(16)+1))
}

// lnxSearch runs cases inputs drawn by gen (PCG seeded by seed) through
// the recipe of s, certified: HOLDS when every one is as the reference
// says, else REFUTED with the first that is not.
func lnxSearch(s sweep, cases int, seed uint64, gen func(*rand.Rand) string) (*Evidence, error) {
	rng := rand.New(rand.NewPCG(seed, 17))
	inputs := make([]string, cases)
	for k := range inputs {
		inputs[k] = gen(rng)
	}
	ev, err := runInputs(s, inputs)
	if err != nil || ev.Verdict != Proved {
		return ev, err
	}
	p := s.precision
	if p == "" {
		p = "exact"
	}
	return &Evidence{Verdict: Holds, Summary: fmt.Sprintf("no counterexample: %d inputs (PCG seed %d), %s, %s", cases, seed, p, s.describe())}, nil
}
