// Package exact holds the engine's exact rational machinery: parsing of
// user-supplied numbers into rationals without any rounding, and (as the
// proofs issue lands) rational vectors and matrices, an exact simplex and
// the enumeration of linear regions of ReLU networks.
//
// Everything here is exact: values are *big.Rat, and a number that cannot be
// represented exactly is an error, never an approximation.
package exact
