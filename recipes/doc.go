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
// Check runs a construction at a precision over a sweep of lengths and
// inputs (every input where there are few, seeded random ones pushed to
// the domain's boundaries otherwise), compares every output with the exact
// reference, and reports the uniformity limit: the largest length up to
// which every checked case was right.
//
// # Conventions
//
// References are computed from the input as the paper states the function
// (plain Go on rationals), never from the weights. Outputs claimed exact
// must equal the reference as rationals; where the reference is irrational
// (a layer norm's square root, a sine) only a certified interval enclosure
// can confirm it, so such recipes default to interval arithmetic. Where the
// paper claims a bound, the bound itself is checked.
//
// Where a construction taken literally from the paper does not do what the
// paper says, the literal version is registered as NAME-literal beside the
// corrected NAME, and a test pins the counterexample: amplify-literal
// (§Amplification), first-literal (the cheat sheet's UHAT for §First),
// pred-literal (§Predecessor's final formula at i = 1).
package recipes
