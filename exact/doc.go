// Package exact holds the engine's exact rational machinery: parsing of
// user-supplied numbers into rationals without any rounding, rational
// vectors, matrices and affine maps, an exact simplex method for linear
// programs, and polyhedra with their interior points and affine hulls.
// Package exact/cpwl builds on it the decision procedure for "this ReLU
// FFN computes this CPWL function on this domain".
//
// Everything here is exact: values are *big.Rat, and a number that cannot be
// represented exactly is an error, never an approximation. Malformed
// inputs (mismatched dimensions, nil entries) are errors, not panics;
// only an index out of range in Matrix.At and Matrix.Set panics, as a
// slice index would.
//
// # Linear programs
//
// LP.Solve maximizes cᵀx subject to A x ≤ b and G x = h, x free, by the
// two-phase simplex method on a dense tableau of rationals:
//
//   - Standard form. Each free variable is split, x = x⁺ − x⁻ (the x⁻
//     columns are not stored: they are the negated x⁺ columns); each
//     inequality gets a slack; rows with a negative right-hand side are
//     negated.
//   - Phase 1 starts from the slacks where it can and from artificial
//     variables elsewhere (negated inequalities, equalities), and
//     maximizes minus their sum. A negative optimum means infeasible.
//     Otherwise the artificials left in the basis (at 0) are pivoted out
//     on any nonzero entry, or, when their row has none, kept at 0 for
//     good (the row is redundant). Two-phase rather than big-M because it
//     needs no M: in exact arithmetic big-M is sound but its coefficients
//     grow with M, while phase 1 stays in the LP's own numbers.
//   - Phase 2 maximizes cᵀx from that basis.
//
// Both phases use Bland's rule: the entering variable is the lowest-
// numbered one with a positive reduced cost; among rows tied in the ratio
// test, the lowest-numbered basic variable leaves. Bland's rule never
// revisits a basis, so the method terminates on every input, degenerate
// ones included (Beale's example, on which the largest-coefficient rule
// cycles forever, is a test). Exact arithmetic matters here: the rule's
// proof needs ties and zero reduced costs to be recognised exactly,
// which floating point cannot promise. Bland's rule is slow on some
// LPs (exponentially many pivots on Klee–Minty cubes), and the tableau is
// dense, so the solver is meant for the small LPs of the decision
// procedure (tens of rows and columns), not for large ones.
//
// Every Solution carries a certificate — an optimal dual solution, a
// Farkas certificate of infeasibility, or a ray — that LP.Check verifies
// with a few exact matrix-vector products, independently of the simplex.
//
// # Polyhedra
//
// A Polyhedron is {x : A x ≤ b (some rows strict), G x = h}. StrictPoint
// finds a point satisfying the strict rows strictly by maximizing a slack
// t ≤ 1 added to them; InteriorPoint asks every row to be strict;
// RelativeInteriorPoint and AffineHull find the implicit equalities from
// the LP's dual and so handle lower-dimensional polyhedra; Pullback
// rewrites a polyhedron in the coordinates of an affine map, which is how
// a lower-dimensional domain becomes a full-dimensional one.
//
// # Imports
//
// exact is the bottom of the module: it imports nothing of it. numeric
// uses its rational parsing; exact/cpwl and the claims its LPs.
package exact
