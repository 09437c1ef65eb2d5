// Package cpwl decides, exactly, whether a ReLU feed-forward network
// computes a given continuous piecewise linear (CPWL) function on a
// polyhedral domain (§Continuous Piecewise Linear Functions,
// §Feed-Forward Layers). It proves claims like "the FFN min of §Min and
// Max computes min(x, y) on ℝ²" rather than sampling them, and refutes
// false ones with a rational counterexample.
//
// # The claim
//
// f(x) = W2 ReLU(W1 x + b1) + b2 is an FFN (rational parameters) from ℝ^d
// to ℝ^k; D = {x : A x ≤ b, G x = h} is a closed polyhedron; the
// reference g is either a list of pieces (closed polyhedron P_r, affine
// map x ↦ M_r x + c_r), as in the paper's definition of a CPWL function
// (Verify), or a second FFN (Equivalent). Verify answers Equal when the
// pieces cover D and f(x) = M_r x + c_r for every r and every x ∈ D ∩ P_r
// (so the pieces also agree wherever they overlap, and g is a function
// on D), Differ with a point of D where f and some piece containing it
// disagree, or Uncovered with a point of D in no piece.
//
// # The method
//
//  1. D is written in coordinates of its affine hull, x = x₀ + N z with
//     N injective (implicit equalities found by LP, exact.Polyhedron.
//     AffineHull); in z, D is full-dimensional in ℝ^k, and f, the pieces
//     and their maps are pulled back along the same map. From here on
//     "full-dimensional" means k-dimensional, and every polyhedron is
//     written by rows a z ≤ b with a ≠ 0 (rows 0 ≤ b are true or false
//     everywhere and are resolved at once), so it is full-dimensional
//     exactly when some z satisfies every row strictly — an LP
//     (exact.Polyhedron.StrictPoint).
//  2. Coverage: a search for a point of D outside every piece, splitting
//     D ∖ P by the first violated row of P (see gap). If one exists the
//     verdict is Uncovered.
//  3. The linear regions of f are enumerated depth first over the hidden
//     units: a node fixes the signs of units 1…i (unit i active: its
//     pre-activation ≥ 0, inactive: ≤ 0) and is expanded only when it is
//     full-dimensional, so the search visits exactly the nonempty regions
//     (and their ancestors). On the region of pattern s, f is the affine
//     map x ↦ W2 diag(s) W1 x + W2 diag(s) b1 + b2.
//  4. Each region R is intersected with each piece P_r that is
//     full-dimensional in D; for every full-dimensional cell R ∩ P_r an
//     interior point is found and f's map on R is compared with M_r, c_r
//     as maps in z coordinates (matrices and offsets, exactly). Pieces
//     that meet D in a nonempty lower-dimensional set are checked by the
//     same procedure on the domain D ∩ P_r, in its own affine hull.
//
// # Why this proves f = g
//
// Take a piece P with map g_P, and let Q = D ∩ P. If Q is full-
// dimensional: the cells R ∩ Q over the regions R of f are closed, and
// the full-dimensional ones cover Q. (The regions cover D; a cell that is
// not full-dimensional lies in a hyperplane, so the full-dimensional
// cells cover Q up to a finite union of hyperplanes, hence a dense subset
// of Q, since Q is convex and full-dimensional and so the closure of its
// interior; a finite union of closed sets that contains a dense subset of
// Q contains Q.) On a closed region f is affine, equal to the region's
// map even on the region's boundary, because there each unit's sign
// condition holds non-strictly and ReLU(t) = t for t ≥ 0, 0 for t ≤ 0.
// Two affine maps that agree on a full-dimensional set agree on the
// whole hull, so equality of the maps, checked on each full-dimensional
// cell, gives f = g_P on each closed cell, hence on all of Q. That is why
// lower-dimensional cells need no check: each lies in the union of the
// full-dimensional ones, where f = g_P is already proved. A lower-
// dimensional Q is the same argument in Q's own hull. With the pieces
// covering D, every x ∈ D is in some P and f(x) = g_P(x) for every such P.
// Continuity of g is not assumed; it follows.
//
// Conversely a failed comparison gives a genuine counterexample: the maps
// differ on a full-dimensional cell, so they differ at some interior point
// of it (the interior point itself, or one reached by stepping inside the
// cell along a row of the difference of the matrices), which lies in D and
// in P. It is mapped back to ℝ^d and f and g_P are evaluated there
// exactly. So the procedure decides the claim.
//
// # Certificates
//
// Nothing rests on the simplex being right. Every point the procedure
// uses is checked by evaluating the rows exactly; every "this cell is not
// full-dimensional" is an LP optimum t* ≤ 0 whose dual certificate is
// checked by exact.LP.Check; counterexamples and gap points are checked
// against D, the pieces, f and g by direct evaluation.
//
// Nor does an Equal verdict rest on the enumeration being right: a
// search that missed a region would compare fewer cells and still answer
// Equal. So the verdict comes with a Certificate, the cells compared
// (patterns and pieces), and CheckVerify, CheckEquivalent and
// CheckRegions re-check it from f, g, D and the pieces alone, in ℝ^d and
// without the affine-hull frame, the region search or its shortcuts:
//
//   - each cell is rebuilt as D ∩ P ∩ {the pattern's sign rows}, so it
//     lies in D and its pattern holds on all of it by construction, and
//     f's map there is recomputed from the pattern (W2 diag(s) W1 x +
//     W2 diag(s) b1 + b2, by exact matrix products);
//   - on each cell the two maps agree: equal as maps, or else each output
//     of their difference has maximum and minimum 0 over the cell, by two
//     certified LPs (a lower-dimensional D, where maps that differ in ℝ^d
//     agree on D's hull);
//   - the cells cover: the pieces cover D, and the cells of each piece P
//     cover D ∩ P (Equivalent: the cells cover D). Cover decides D ∖ ⋃
//     cells = ∅ exactly, splitting by the first violated row of one cell
//     at a time, every part either certified empty by an LP (the dual of
//     its slack LP, or a Farkas certificate, checked by exact.LP.Check) or
//     settled by a parallel row, or holding a point that some cell must
//     contain; a point in no cell is a gap, and the check fails with it.
//
// The checks cost about as much as the enumeration (on the benchmark's
// 242 regions, 669 LPs against its 533).
//
// # Cost
//
// h hidden units in ℝ^k have at most Σ_{i≤k} C(h, i) linear regions (the
// cells of an arrangement of h hyperplanes), and the search solves about
// one LP per node it expands, fewer where it can step across a
// hyperplane or settle a unit by a parallel row. Each LP is exact, with a
// dense tableau, about a millisecond at these sizes. So the enumeration is
// practical while that sum stays in the thousands: a dozen units in ℝ³
// (at most 299 regions; 242 for the benchmark's random network on a box)
// take about half a second, and comparing two such networks about as
// long; 64 units in ℝ⁶ could have 8·10⁷ regions. Options.MaxRegions
// bounds the work.
//
// # Imports
//
// cpwl imports exact alone: it decides networks given as rational
// matrices (FFN) and knows nothing of the engine's models. The claims
// (package proofs) convert a model's feed-forward sublayer to an FFN.
package cpwl
