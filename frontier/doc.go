// Package frontier measures uniformity limits (§Uniformity, §Rounding):
// for a construction and each precision in a list, the largest length n
// such that every checked input of every checked length up to n is right,
// the first failure above it with the cause the engine can see, and,
// where the paper gives a gap or a bound, the length at which theory
// predicts the format stops resolving it.
//
// A frontier sweep checks the lengths 1 … 8 and then lengths growing by
// a quarter up to MaxN (every one of them, also after a failure, so that
// the error can be plotted against n), then bisects between the last
// passing length below the first failure and that failure. Failures need
// not be monotone in n: a report lists the lengths it checked and never
// claims a length it did not check.
//
// Sweeps can be split into shards, in two phases that a plan divides by
// cost with no coordination between the shards (plan.go): phase 1 (Run
// with Shards set) checks a share of the lengths, Phase2 bisects and
// diagnoses a share of the precisions, and Merge combines both into the
// report one unsharded run makes, byte for byte.
//
// # Imports
//
// frontier imports check (to check each length), diagnose (to explain a
// first failure), recipes, model and numeric, and gonum's plot for the
// figures. Only the command line imports it.
package frontier
