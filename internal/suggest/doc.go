// Package suggest finds the names closest to a misspelt one, for the
// "did you mean …" of an error message: an unknown recipe, precision,
// weighting, flag or claim ID.
//
// Closeness is the optimal-string-alignment distance (insertions,
// deletions, substitutions and swaps of two neighbours, each costing 1)
// between lower-cased names; a candidate of which the name is a prefix,
// or that is a prefix of the name, also counts as close. It imports
// nothing of the module and may be imported by any package.
package suggest
