package proofs

import (
	"fmt"
	"math/big"
	"strings"

	"github.com/transformer-cookbook/verify/exact"
	"github.com/transformer-cookbook/verify/exact/cpwl"
)

// Point prints a vector with its components' names: (x = 1/2, y = −3).
func Point(names []string, v exact.Vector) string {
	parts := make([]string, len(v))
	for k, x := range v {
		name := fmt.Sprintf("x%d", k+1)
		if k < len(names) {
			name = names[k]
		}
		parts[k] = name + " = " + x.RatString()
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

// Space is ℝ^d as a polyhedron.
func Space(d int) *exact.Polyhedron {
	return &exact.Polyhedron{Dim: d, A: exact.NewMatrix(0, d), B: exact.NewVector(0)}
}

// Halfspaces is {x ∈ ℝ^d : a_r·x ≤ b_r} for rows (a_r, b_r) written as
// d+1 rationals "a1 … ad b".
func Halfspaces(d int, rows ...[]string) *exact.Polyhedron {
	p := &exact.Polyhedron{Dim: d, A: exact.NewMatrix(len(rows), d), B: exact.NewVector(len(rows))}
	for r, row := range rows {
		if len(row) != d+1 {
			panic(fmt.Sprintf("proofs: halfspace row %v for dimension %d", row, d))
		}
		for k := 0; k < d; k++ {
			p.A.Set(r, k, Q(row[k]))
		}
		p.B[r] = Q(row[d])
	}
	return p
}

// Affine is x ↦ A x + c with A given by rows of rationals.
func Affine(rows [][]string, c ...string) exact.Affine {
	d := 0
	if len(rows) > 0 {
		d = len(rows[0])
	}
	a := exact.NewMatrix(len(rows), d)
	for r, row := range rows {
		for k, x := range row {
			a.Set(r, k, Q(x))
		}
	}
	v := exact.NewVector(len(rows))
	for r := range v {
		v[r] = new(big.Rat)
		if r < len(c) {
			v[r] = Q(c[r])
		}
	}
	return exact.Affine{A: a, C: v}
}

// Piece is the piece of a CPWL reference on the polyhedron p with map f.
func Piece(p *exact.Polyhedron, f exact.Affine) cpwl.Piece { return cpwl.Piece{Domain: p, Map: f} }

// Q parses a rational written like "-3/7"; the claims' own constants.
func Q(s string) *big.Rat {
	r, ok := new(big.Rat).SetString(s)
	if !ok {
		panic("proofs: bad rational " + s)
	}
	return r
}

// JoinComma joins xs with commas, as the summaries list things.
func JoinComma(xs []string) string { return strings.Join(xs, ", ") }

// Interval is the closed interval {x : lo ≤ x ≤ hi} of ℝ ("" for an
// unbounded end).
func Interval(lo, hi string) *exact.Polyhedron {
	var rs [][]string
	if lo != "" {
		rs = append(rs, []string{"-1", Neg(lo)})
	}
	if hi != "" {
		rs = append(rs, []string{"1", hi})
	}
	return Halfspaces(1, rs...)
}

// Line is x ↦ a x + b on ℝ.
func Line(a, b string) exact.Affine { return Affine([][]string{{a}}, b) }

// Neg is −s, s a rational written like "-3/7".
func Neg(s string) string { return new(big.Rat).Neg(Q(s)).RatString() }

// Rat writes r as the claims write their constants.
func Rat(r *big.Rat) string { return r.RatString() }

// Rows and Row write the matrices of Affine and Halfspaces, a row at a
// time.
func Rows(rs ...[]string) [][]string { return rs }

// Row is one row of Rows.
func Row(xs ...string) []string { return xs }

// Names are the d names prefix1 … prefixd.
func Names(prefix string, d int) []string {
	xs := make([]string, d)
	for k := range xs {
		xs[k] = fmt.Sprintf("%s%d", prefix, k+1)
	}
	return xs
}

// Magnitude is the largest |v| over an enclosure [lo, hi].
func Magnitude(lo, hi *big.Rat) *big.Rat {
	a, b := new(big.Rat).Abs(lo), new(big.Rat).Abs(hi)
	if a.Cmp(b) < 0 {
		return b
	}
	return a
}
