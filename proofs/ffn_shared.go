package proofs

// The claims of §Feed-Forward Layers: each ReLU construction is decided
// on its whole domain by the exact decision procedure (exact/cpwl), the
// Boolean ones by exhaustive exact evaluation, and the GELU product of
// §Multiplication by certified interval searches. The cheat sheet's
// "Exact?" column is checked row by row (ffn_cheatsheet.go). The claims
// are in the ffn_*.go files, one per section; helpers are prefixed ff so
// as not to collide with the other chapters' files. Those the sections
// share are here and in ffn.go.

// ---------------------------------------------------------------------
// The registry: the claim constructor and section names of the ffn_*.go
// files.

func ffClaim(id, section, label, statement, domain string, v Verdict, check func() (*Evidence, error)) *Claim {
	return &Claim{ID: id, Section: section, Label: label, Statement: statement, Domain: domain, Recorded: v, Check: check}
}

func ffOne(c ffnCase) func() (*Evidence, error) {
	return func() (*Evidence, error) { return ffProveCases([]ffnCase{c}) }
}

func ffAll(cs ...ffnCase) func() (*Evidence, error) {
	return func() (*Evidence, error) { return ffProveCases(cs) }
}

const (
	ffSecCPWL     = "Continuous Piecewise Linear Functions"
	ffSecCancel   = "Canceling Residual Connections"
	ffSecIdentity = "Identity Function"
	ffSecMinMax   = "Min and Max"
	ffSecAdd      = "Addition and Subtraction"
	ffSecMul      = "Multiplication"
	ffSecCompare  = "Comparisons"
	ffSecBoolean  = "Boolean Functions"
	ffSecIf       = "Conditionals"
)
