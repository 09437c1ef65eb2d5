package proofs

// The registry-wide tests are an external package (proofs_test), so
// that they can link every chapter in (proofs/all) and see all the
// claims; these are the internals they read.
var (
	Registry    = registry
	Families    = families
	CostsText   = costsText
	ParseCosts  = parseCosts
	FormatCosts = formatCosts
	RoughMillis = roughMillis
	LoseRegion  = loseRegion
)
