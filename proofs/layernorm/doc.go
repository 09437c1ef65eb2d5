// Package layernorm holds the claims of §Layer Normalization (IDs ln.*):
// Relevant Properties, Post-Norm vs. Pre-Norm, Circumventing Layer
// Normalization, Amplification, and the layer norm's use in §Layernorm
// hash. Three kinds of checker:
//
//   - homogeneity and Lipschitz constants of ReLU FFNs, decided from their
//     linear regions (exact/cpwl.Regions);
//   - identities of the layer norm with ε = 0, β = 0, γ = 1 decided for
//     every value of their variables by polynomial algebra
//     (proofs/internal/poly: the mean is the zero polynomial, the
//     variance k² times a polynomial free of the scale k, …);
//   - the engine's own model (its layer norm, the recipes), run exactly
//     where the square roots are rational and in certified intervals
//     elsewhere, which must agree with the identities and gives the
//     counterexamples to the printed statements.
//
// Files: layernorm_definition.go, layernorm_properties.go,
// layernorm_hash.go, layernorm_circumvent.go, a table of claims each;
// layernorm_shared.go what they share; claims.go the list.
//
// The package registers its claims when linked in; proofs/all links it.
package layernorm
