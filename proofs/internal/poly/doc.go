// Package poly is exact polynomial algebra with rational coefficients in
// at most MaxVars variables, for identities that must hold for every real
// value of their variables (the layer norm's mean and variance of a
// vector whose entries are symbols): two polynomials are equal as
// functions exactly when their coefficients are, so comparing
// coefficients decides an identity at once for every value.
package poly
