// Package recipes holds the constructions of the Transformer Cookbook as a
// library: each Recipe builds a model.Model with exact weights taken from
// the paper's formulas, and carries the exact function it is meant to
// compute, the domain on which the paper claims it, the attention
// weightings it is said to work with, and its section in the paper.
//
// Check runs a recipe at a precision over a sweep of lengths and inputs,
// comparing every output with the exact reference, and reports the
// uniformity limit: the largest length up to which every checked case was
// right.
package recipes
