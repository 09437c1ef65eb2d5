package cpwl

import (
	"fmt"

	"github.com/transformer-cookbook/verify/exact"
)

// Options tune Verify, Equivalent and Regions. A nil *Options is the
// zero value.
type Options struct {
	// Explain records every cell compared in Result.Cells, for an
	// --explain listing of the proof.
	Explain bool
	// MaxRegions stops the enumeration with ErrTooManyRegions once it has
	// found more linear regions than this (0: no limit). The number of
	// regions of h units in ℝ^d can reach Σ_{i≤d} C(h, i).
	MaxRegions int
}

func (o *Options) maxRegions() int {
	if o == nil {
		return 0
	}
	return o.MaxRegions
}

func (o *Options) explain() bool { return o != nil && o.Explain }

// Verdict is the outcome of a decision.
type Verdict int

const (
	// Equal: f = g on all of the domain, proved.
	Equal Verdict = iota + 1
	// Differ: Result.Counterexample holds a point of the domain where
	// f ≠ g, checked by evaluating both exactly.
	Differ
	// Uncovered: the reference's pieces do not cover the domain;
	// Result.Gap is a point of the domain in none of them.
	Uncovered
)

func (v Verdict) String() string {
	switch v {
	case Equal:
		return "equal"
	case Differ:
		return "differ"
	case Uncovered:
		return "uncovered"
	}
	return fmt.Sprintf("Verdict(%d)", int(v))
}

// Result is a verdict with its evidence.
type Result struct {
	Verdict Verdict
	// Counterexample is set when Verdict is Differ.
	Counterexample *Counterexample
	// Gap is set when Verdict is Uncovered: a point of the domain that no
	// piece contains (checked exactly).
	Gap exact.Vector
	// Dim is the dimension of the domain (of its affine hull).
	Dim int
	// Regions counts the full-dimensional linear regions of f on the
	// domain (for Equivalent, of the common refinement of f's and g's
	// activation patterns). Cells counts the full-dimensional cells on
	// which two affine maps were compared. On Differ both count the
	// search up to the counterexample only.
	Regions, Cells int
	// LPs counts the linear programs solved (the affine hull's excepted);
	// the enumeration solves one only where it cannot step to a point of
	// a new region.
	LPs int
	// Explained lists the cells compared, when Options.Explain is set.
	Explained []Cell
	// Certificate is set when Verdict is Equal: the cells compared, for
	// CheckVerify or CheckEquivalent to re-check without the enumeration.
	Certificate *Certificate
}

// Cell is one comparison of the proof: on the cell, f computes the
// affine map of Pattern and the reference that of Piece (or of PatternG),
// and the two maps are the same.
type Cell struct {
	// Pattern is f's activation pattern on the cell.
	Pattern Pattern
	// PatternG is g's activation pattern (Equivalent only).
	PatternG Pattern
	// Piece is the index of the reference's piece (Verify only; −1 for
	// Equivalent).
	Piece int
	// Dim is the dimension of the cell: that of the domain, or that of
	// the piece within the domain when the piece is lower-dimensional.
	Dim int
	// Point is a point of the cell's relative interior, in ℝ^d.
	Point exact.Vector
}

// Counterexample is a point x of the domain where f(x) ≠ g(x).
type Counterexample struct {
	X exact.Vector
	// F is f(x) and G is g(x), both evaluated exactly at X.
	F, G exact.Vector
	// Piece is the index of the reference's piece that contains X and
	// gives G (Verify; −1 for Equivalent).
	Piece int
	// Pattern and PatternG are the activation patterns of f and (for
	// Equivalent) g at X.
	Pattern, PatternG Pattern
}
