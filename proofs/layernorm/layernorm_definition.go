package layernorm

import (
	"fmt"
	"math/big"
	"strings"

	"github.com/transformer-cookbook/verify/proofs"
)

// The definition of layer normalization (§Layer Normalization, Definition
// "layer normalization"): LN(x) = (x − μ)/√(σ² + ε) ⊙ γ + β. The
// constructions of the chapter feed it vectors of mean 0 with γ = 1 and
// β = 0, where a layer norm that forgot μ, ε, γ or β would pass unseen;
// this claim checks the engine's layer norm on vectors where each term
// changes the result.

// definitionCase is one input with its parameters. The vectors are
// chosen so that σ² + ε is the square of a rational: LN(x) is then
// rational and compared exactly, its expected value worked out by hand
// from the definition (in want).
type definitionCase struct {
	x, gamma, beta []string
	eps            string
	want           []string
	exercises      string // which term of the definition changes the result
}

func definitionCases() []definitionCase {
	return []definitionCase{
		// μ = 3, centred (−2, −1, 3), σ² = 14/3, σ² + ε = 9.
		{x: []string{"1", "2", "6"}, eps: "13/3", want: []string{"-2/3", "-1/3", "1"},
			exercises: "μ = 3 ≠ 0 and ε = 13/3 (with ε = 0, √(14/3) is irrational)"},
		// The same, times γ = (2, −1, 1/2), plus β = (1, 0, −3).
		{x: []string{"1", "2", "6"}, eps: "13/3", gamma: []string{"2", "-1", "1/2"}, beta: []string{"1", "0", "-3"},
			want: []string{"-1/3", "1/3", "-5/2"}, exercises: "γ non-uniform and β ≠ 0"},
		// μ = 5, σ² = 4: ε = 0 gives (−1, 1), ε = 5 gives (−2/3, 2/3).
		{x: []string{"3", "7"}, eps: "0", want: []string{"-1", "1"}, exercises: "μ = 5, ε = 0"},
		{x: []string{"3", "7"}, eps: "5", want: []string{"-2/3", "2/3"}, exercises: "μ = 5, ε = 5 (vs. ε = 0 above)"},
		// μ = 1, centred (−1, −1, −1, 3), σ² = 3, σ² + ε = 4.
		{x: []string{"0", "0", "0", "4"}, eps: "1", want: []string{"-1/2", "-1/2", "-1/2", "3/2"},
			exercises: "μ = 1 on d = 4, ε = 1"},
		// A negative mean, and β alone: μ = −2, centred (−1, 1), σ² = 1,
		// σ² + ε = 4.
		{x: []string{"-3", "-1"}, eps: "3", beta: []string{"1/2", "1/2"}, want: []string{"0", "1"},
			exercises: "μ = −2, ε = 3, β = (1/2, 1/2)"},
	}
}

// checkDefinition runs the engine's layer norm (a model's final norm)
// in exact arithmetic on every case.
func checkDefinition() (*proofs.Evidence, error) {
	var done []string
	for _, c := range definitionCases() {
		x, want := proofs.Rats(c.x...), proofs.Rats(c.want...)
		gamma, beta := optionalRats(c.gamma), optionalRats(c.beta)
		m := proofs.AffineLayerNormModel(len(x), proofs.Rats(c.eps)[0], or(gamma, "1", len(x)), or(beta, "0", len(x)))
		at := fmt.Sprintf("LN%s with ε = %s", proofs.RatsText(x), c.eps)
		if gamma != nil {
			at += ", γ = " + proofs.RatsText(gamma)
		}
		if beta != nil {
			at += ", β = " + proofs.RatsText(beta)
		}
		out, err := proofs.RunRows(m, "exact", [][]*big.Rat{x})
		if err != nil {
			// A layer norm that computes the wrong σ² can need an
			// irrational square root, which exact arithmetic refuses: an
			// enclosure that excludes the definition's value refutes it.
			iv, ierr := proofs.RunRows(m, "interval:128", [][]*big.Rat{x})
			if ierr != nil {
				return nil, err
			}
			for k, v := range iv[0].Values {
				if v.Lo == nil || v.Lo.Cmp(want[k]) > 0 || v.Hi.Cmp(want[k]) < 0 {
					s := fmt.Sprintf("%s: output %d = %s (certified, interval:128), but the definition gives %s (%s)", at, k+1, v.Text, want[k].RatString(), c.exercises)
					return &proofs.Evidence{Verdict: proofs.Refuted, Summary: s, Explain: []string{s}}, nil
				}
			}
			return nil, err
		}
		vals := make([]*big.Rat, len(out[0].Values))
		for k, v := range out[0].Values {
			r, ok := v.Rat()
			if !ok {
				return nil, fmt.Errorf("%s: output %d = %s is not exact", at, k+1, v.Text)
			}
			vals[k] = r
		}
		if !proofs.RatsEqual(vals, want) {
			s := fmt.Sprintf("%s = %s, but the definition gives %s (%s)", at, proofs.RatsText(vals), proofs.RatsText(want), c.exercises)
			return &proofs.Evidence{Verdict: proofs.Refuted, Summary: s, Explain: []string{s}}, nil
		}
		done = append(done, fmt.Sprintf("%s = %s", at, proofs.RatsText(vals)))
	}
	// Six vectors are instances, not every x ∈ ℝ^d: HOLDS.
	return &proofs.Evidence{Verdict: proofs.Holds, Summary: fmt.Sprintf("the engine's layer norm equals the definition, exactly, on %d vectors where the mean, ε, γ and β each change the result: %s",
		len(done), strings.Join(done, "; "))}, nil
}

var definitionClaims = []*proofs.Claim{{ID: "ln.definition", Section: "Layer Normalization", Label: "sec:layernorm",
	Statement: "Definition (layer normalization): LN(x) = (x − μ)/√(σ² + ε) ⊙ γ + β with μ = (1/d) Σ x_i, σ² = (1/d) Σ (x_i − μ)² (the engine's layer norm is this)",
	Domain:    "six vectors with μ ≠ 0, ε that changes the result, non-uniform γ and β ≠ 0, d = 2, 3, 4, each with σ² + ε a rational square; exact",
	Recorded:  proofs.Holds, Check: checkDefinition}}

// or is xs, or d copies of the default when xs is nil.
func or(xs []*big.Rat, def string, d int) []*big.Rat {
	if xs != nil {
		return xs
	}
	out := make([]string, d)
	for k := range out {
		out[k] = def
	}
	return proofs.Rats(out...)
}

// optionalRats is Rats, with nil for no values (a layer norm's γ = 1
// or β = 0).
func optionalRats(xs []string) []*big.Rat {
	if len(xs) == 0 {
		return nil
	}
	return proofs.Rats(xs...)
}
