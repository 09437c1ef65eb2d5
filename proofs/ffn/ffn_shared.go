package ffn

import "github.com/transformer-cookbook/verify/proofs"

// The claims of §Feed-Forward Layers: each ReLU construction is decided
// on its whole domain by the exact decision procedure (exact/cpwl), the
// Boolean ones by exhaustive exact evaluation, and the GELU product of
// §Multiplication by certified interval searches. The cheat sheet's
// "Exact?" column is checked row by row (ffn_cheatsheet.go). The claims
// are in the ffn_*.go files, one per section. What the sections share
// is here; the decision procedure's use, which other chapters share too,
// is in package proofs (decide.go, cases.go, polyhedra.go).

// ---------------------------------------------------------------------
// The registry: the claim constructor and section names of the ffn_*.go
// files.

func claim(id, section, label, statement, domain string, v proofs.Verdict, check func() (*proofs.Evidence, error)) *proofs.Claim {
	return &proofs.Claim{ID: id, Section: section, Label: label, Statement: statement, Domain: domain, Recorded: v, Check: check}
}

func one(c proofs.FFNCase) func() (*proofs.Evidence, error) {
	return func() (*proofs.Evidence, error) { return proofs.ProveCases([]proofs.FFNCase{c}) }
}

func all(cs ...proofs.FFNCase) func() (*proofs.Evidence, error) {
	return func() (*proofs.Evidence, error) { return proofs.ProveCases(cs) }
}

const (
	secCPWL     = "Continuous Piecewise Linear Functions"
	secCancel   = "Canceling Residual Connections"
	secIdentity = "Identity Function"
	secMinMax   = "Min and Max"
	secAdd      = "Addition and Subtraction"
	secMul      = "Multiplication"
	secCompare  = "Comparisons"
	secBoolean  = "Boolean Functions"
	secIf       = "Conditionals"
)
