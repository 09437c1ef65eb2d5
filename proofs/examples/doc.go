// Package examples holds the claims of §Putting It All Together:
// Example Constructions (IDs example.*): the induction heads
// (most-recent and most-frequent, with the paper's example strings and
// intermediate sequences; example_induction.go), the Dyck languages (the
// definition, fig:dyck_1_examples, Dyck-1 uniform and nonuniform;
// example_dyck.go; Dyck-1-2 and Dyck-k-D, example_dyck12.go), and the
// one-layer lower bounds (example_shared.go, with the helpers that run
// recipes exactly and read their traces). Every check is exact;
// exhaustive bounds are stated in the evidence. claims.go lists the
// tables.
//
// The package registers its claims when linked in; proofs/all links it.
package examples
