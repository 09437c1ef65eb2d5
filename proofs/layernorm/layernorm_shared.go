package layernorm

import (
	"fmt"
	"github.com/transformer-cookbook/verify/proofs"
	"math/big"
	"math/rand/v2"
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

// ---------------------------------------------------------------------------
// The engine's layer norm

// ---------------------------------------------------------------------------
// ± pairs and seeded searches

// randRat is a random rational a/b with |a| ≤ 50, 1 ≤ b ≤ 16.
func randRat(rng *rand.Rand) *big.Rat {
	return big.NewRat(int64(rng.IntN(101)-50), int64(rng.IntN(16)+1))
}

// search runs cases inputs drawn by gen (PCG seeded by seed) through
// the recipe of s, certified: HOLDS when every one is as the reference
// says, else REFUTED with the first that is not.
func search(s proofs.Sweep, cases int, seed uint64, gen func(*rand.Rand) string) (*proofs.Evidence, error) {
	rng := rand.New(rand.NewPCG(seed, 17))
	inputs := make([]string, cases)
	for k := range inputs {
		inputs[k] = gen(rng)
	}
	ev, err := proofs.RunInputs(s, inputs)
	if err != nil || ev.Verdict != proofs.Proved {
		return ev, err
	}
	p := s.Precision
	if p == "" {
		p = "exact"
	}
	return &proofs.Evidence{Verdict: proofs.Holds, Summary: fmt.Sprintf("no counterexample: %d inputs (PCG seed %d), %s, %s", cases, seed, p, s.Describe())}, nil
}
