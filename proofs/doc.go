// Package proofs is the registry of the Transformer Cookbook's claims:
// every fact the paper states (that an FFN computes a function exactly,
// that a gap is γ, that an error is at most a bound, that a row of a
// table holds), each with the checker that decides it and the verdict
// recorded for this version of the code. The tests re-run every checker
// and fail when a verdict changes, so a regression in a recipe, or a
// change in what the engine can prove, is caught like a failing build.
//
// # Verdicts
//
//   - PROVED: decided for every point of the domain the paper states the
//     claim on. Finite domains by exhaustive evaluation in exact
//     arithmetic (the paper's example strings, truth tables of a fixed
//     number of bits); ReLU FFNs on polyhedral domains by the exact
//     decision procedure of package exact/cpwl (linear regions enumerated
//     by exact LP, affine maps compared exactly on each cell), whose
//     answer stands only after its certificate is checked independently
//     of the enumeration (cpwl.CheckVerify, CheckEquivalent,
//     CheckRegions: the cells, rebuilt from the network, cover the
//     domain, decided by LPs whose certificates exact.LP.Check verifies,
//     and the maps agree on each; the evidence gives the number of those
//     LPs); a certificate that fails is an error, never a proof;
//     identities by exact algebra with the family's parameter a symbol;
//     existence and negative claims by a certified witness.
//   - HOLDS: checked on finitely many members of an infinite family the
//     paper states the claim for (every n, every N, every ε > 0, every
//     FFN), each member decided exactly; Run lowers a checker's PROVED to
//     HOLDS for the claims listed in families.go and says so in the
//     evidence. Or: no counterexample in a recorded search (how many
//     cases, which generator, which seed). Not a proof, and never shown
//     as one.
//   - REFUTED: a concrete counterexample, certified: exact arithmetic where
//     possible, otherwise an interval enclosure that excludes the claimed
//     value. Where the paper's formula is wrong as printed and right
//     after a correction, both are registered: the literal one REFUTED,
//     the corrected one with its own verdict. A literal recipe's claim
//     also says what the printed construction computes (literal.go): on
//     the paper's own examples, and on every input up to a small length,
//     how many it gets wrong at each length and the smallest wrong one,
//     Checked against an independent simulation of the paper's
//     description (testdata/literal_recipes.py, dyck12_literal.py).
//   - OUT OF SCOPE: with the reason (lower bounds by communication
//     complexity, statements about training).
//
// Every run in interval arithmetic (a sweep at interval:64, a layer norm
// at interval:128) is run again at twice the bits: the verdict must be the
// same and each output's two enclosures must intersect, as two sound
// enclosures of one number do; otherwise the checker fails with an error
// naming the output. An unsound operation (rounding inward) shows there.
//
// # Claims
//
// A Claim has an ID that reads well (ffn.min.exact, attn.first.uhat,
// lemma.edelman), the paper's section, the statement in the paper's words
// (formulas quoted), the domain and assumptions it is checked under, the
// checker, and the recorded verdict. IDs are grouped by the paper's
// chapters: repr (Basic Ingredients), pe (Positional Encodings), ffn,
// attn, ln (Layer Normalization), round (Rounding and Approximation),
// assembly, example.
//
// # Packages
//
// This package is the core: the registry (claim.go), running the
// checkers and printing their verdicts (table.go), the checkers' costs
// (cost.go, costs.txt), the families checked on finitely many members
// (families.go), and what the chapters' checkers share: the decision
// procedure for ReLU networks with its certificates checked (decide.go,
// cases.go, polyhedra.go, modelffn.go), a recipe's own check as evidence
// (sweep.go), what a literal recipe computes (literal.go), vectors run
// through the engine's layer norm (vectors.go), strings over an alphabet
// (strings.go) and the two readings of attention scores (scores.go).
//
// The claims live in a package per chapter of the paper: proofs/basics
// (Basic Ingredients, with Positional Encodings), proofs/ffn,
// proofs/attention, proofs/layernorm, proofs/rounding, proofs/assembly
// and proofs/examples. Each holds its claims as tables, a row per claim
// beside the checkers the rows name, and registers them when linked in;
// proofs/all links every chapter, so a user of the registry imports it
// for its side effect:
//
//	import _ "github.com/transformer-cookbook/verify/proofs/all"
//
// All lists the claims by ID, whatever the order of linking. A chapter
// imports this package and the packages below it, never another chapter;
// proofs/internal/poly (polynomial identities) and
// proofs/internal/prooftest (what the chapters' tests share) serve
// several.
//
// # Imports
//
// proofs imports check (to run constructions over their domains), the
// recipes with their blocks and streams, model, numeric, exact and
// exact/cpwl (the decision procedure for ReLU networks); no chapter.
// Only the command line and proofs/all's chapters import it.
package proofs
