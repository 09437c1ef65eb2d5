// Package recipes holds the constructions of the Transformer Cookbook as a
// library. Each Recipe states what the paper says of a construction (its
// section, the domain on which it is claimed, the attention weightings of
// the cheat sheet, whether it is exact, its width) and has a builder that
// turns its parameters (ε, δ, N, a truth table, …) into a Construction:
// the model with exact weights taken from the paper's formulas, assembled
// from the blocks of package blocks on the named residual stream of
// package stream, together with the exact intended function, the domain
// check, the input generator and the paper's error bounds.
//
// # Conventions
//
// References are computed from the input as the paper states the function
// (plain Go on rationals), never from the weights. Where the reference is
// irrational (a layer norm's square root, a sine) only a certified
// interval enclosure can confirm an output, so such recipes default to
// interval arithmetic. Package check runs a construction and compares its
// outputs with the reference.
//
// Where a construction taken literally from the paper does not do what the
// paper says, the literal version is registered as NAME-literal beside the
// corrected NAME, and a test pins the counterexample: amplify-literal
// (§Amplification), first-literal (the cheat sheet's UHAT for §First),
// pred-literal (§Predecessor's final formula at i = 1), dyck12-literal
// (§Dyck-1-2's step-2 scores), induction-recent-literal and
// induction-frequent-literal (§Induction Heads). A literal recipe is the
// printed formulas and nothing else: an object the paper prints once and
// uses in several places is the same object everywhere, no part of the
// correction is carried over, and its doc comment names the lines of the
// paper each part comes from.
//
// # Layout and imports
//
// Each file is a section of the paper (lookups.go: §Index Lookup,
// dyck.go: the Dyck examples, …); recipe.go holds the types every recipe
// shares, registry.go the registry and weighting.go the attention
// weightings. A large family is split by concern: dyck.go holds the
// recipes, what the paper says of each (the doc comment of each cites its
// section and states its domain), dyck_program.go builds the weights,
// dyck_reference.go computes the intended function, and dyck_inputs.go
// lists or draws the inputs; likewise induction*.go, and lookups.go with
// lookups_program.go.
//
// The recipes themselves are unexported values: a program reaches one by
// its command-line name through Get, and every one through All or Names.
// A variant of a recipe (its literal version) is that recipe with the
// fields that differ, so that what the two share is stated once.
//
// recipes imports model, numeric, exact (to parse exact
// parameters) and its own blocks and stream; never the checking machinery
// (package check), which imports it. Its tests are an external package
// (recipes_test) so that they can check constructions with package check;
// export_test.go hands them the few internals they test.
package recipes
