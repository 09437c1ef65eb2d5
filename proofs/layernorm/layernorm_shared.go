package layernorm

import (
	"fmt"
	"math/big"
	"math/rand/v2"

	"github.com/transformer-cookbook/verify/proofs"
)

// This file holds what several sections share (seeded searches and
// random rationals); the polynomial algebra is proofs/internal/poly, the
// engine's layer norm run on vectors and the ± pair blocks are in
// package proofs (vectors.go), which other chapters use too. The claims
// are in layernorm_definition.go, layernorm_properties.go,
// layernorm_circumvent.go and layernorm_hash.go.

// ---------------------------------------------------------------------------
// Seeded searches

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
