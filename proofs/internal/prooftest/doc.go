// Package prooftest is what the tests of the proofs packages share: a
// cache of checkers' results (Checked), so that the tests of one binary
// run each checker once, the comparison of verdicts with the recorded
// ones, and small helpers for tests of checkers (Expect, Perturb). Only
// tests import it.
package prooftest
