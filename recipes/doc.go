// Package recipes holds the constructions of the Transformer Cookbook, each
// a builder of model components with exact weights plus the exact function
// it is meant to compute and the domain on which the paper claims it.
//
// It is built in a later issue; this file only reserves the package in the
// module layout.
package recipes
