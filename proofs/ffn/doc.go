// Package ffn holds the claims of §Feed-Forward Layers (IDs ffn.*): each
// ReLU construction decided on its whole domain by the exact decision
// procedure (exact/cpwl, through proofs.ProveFFN and proofs.ProveCases),
// the Boolean ones by exhaustive exact evaluation, and the GELU product
// of §Multiplication by certified interval searches. The cheat sheet's
// "Exact?" column is checked row by row (ffn_cheatsheet.go).
//
// Files: one per section of the chapter (ffn_cpwl.go, ffn_residual.go,
// ffn_arithmetic.go, ffn_multiplication.go with ffn_gelu_sup.go and
// ffn_gelu_search.go, ffn_comparison.go, ffn_boolean.go,
// ffn_conditional.go), ffn_family.go for the claims stated for every ε,
// ffn_shared.go for the section names and the row constructor claim;
// claims.go lists the tables in the paper's order. A row is claim(id,
// section, label, statement, domain, verdict, checker).
//
// The package registers its claims when linked in; proofs/all links it.
package ffn
