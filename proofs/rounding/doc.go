// Package rounding holds the claims of §Rounding and Approximation (IDs
// round.*): rounding makes the comparisons of §Comparisons exact steps
// (§Comparisons, under Rounding), and the five propositions of §Error
// Analysis, checked as inequalities with explicit constants: exactly
// where the quantities are rational (ReLU FFNs, the triangle
// inequality), by certified interval arithmetic where they are not
// (softmax, layer norm), each search seeded.
//
// Files: round_comparison.go and one round_error_*.go per proposition,
// a table of claims each; round_shared.go holds the section names, norms,
// the seeded random source and the exact LP; claims.go the list.
//
// The package registers its claims when linked in; proofs/all links it.
package rounding
