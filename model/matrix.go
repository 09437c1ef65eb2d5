package model

import (
	"fmt"
	"math/big"
	"strings"

	"github.com/transformer-cookbook/verify/numeric"
)

// Matrix is a Rows×Cols matrix of exact parameters, stored row-major. The
// zero numeric.Expr stands for 0, so a new Matrix is the zero matrix.
type Matrix struct {
	Rows, Cols int
	Data       []numeric.Expr
}

// Vector is a column of exact parameters; nil stands for the zero vector
// (or, for a layer norm's γ, for all ones) of whatever length is needed.
type Vector []numeric.Expr

// Zeros returns the rows×cols zero matrix.
func Zeros(rows, cols int) Matrix {
	return Matrix{Rows: rows, Cols: cols, Data: make([]numeric.Expr, rows*cols)}
}

// Identity returns the n×n identity matrix.
func Identity(n int) Matrix {
	m := Zeros(n, n)
	for i := 0; i < n; i++ {
		m.Set(i, i, numeric.LitInt(1))
	}
	return m
}

// Ints returns the matrix with the given integer rows, as printed in the
// paper; all rows must have the same length.
func Ints(rows ...[]int64) Matrix {
	m := Zeros(len(rows), 0)
	if len(rows) > 0 {
		m = Zeros(len(rows), len(rows[0]))
	}
	for i, r := range rows {
		if len(r) != m.Cols {
			panic(fmt.Sprintf("model.Ints: row %d has %d entries, row 0 has %d", i, len(r), m.Cols))
		}
		for j, v := range r {
			m.Set(i, j, numeric.LitInt(v))
		}
	}
	return m
}

// At returns the entry in row i, column j.
func (m Matrix) At(i, j int) numeric.Expr { return m.Data[i*m.Cols+j] }

// Set sets the entry in row i, column j.
func (m Matrix) Set(i, j int, e numeric.Expr) { m.Data[i*m.Cols+j] = e }

// Scale returns c·m, entry by entry (exact: the products are expressions).
func (m Matrix) Scale(c numeric.Expr) Matrix {
	out := Zeros(m.Rows, m.Cols)
	for k, e := range m.Data {
		if !e.IsZero() {
			out.Data[k] = numeric.Mul(c, e)
		}
	}
	return out
}

// String prints the matrix one row per line.
func (m Matrix) String() string {
	var b strings.Builder
	for i := 0; i < m.Rows; i++ {
		b.WriteString("[")
		for j := 0; j < m.Cols; j++ {
			if j > 0 {
				b.WriteString(" ")
			}
			b.WriteString(m.At(i, j).String())
		}
		b.WriteString("]\n")
	}
	return b.String()
}

// check reports a matrix whose shape is not rows×cols, or whose data does
// not match its shape.
func (m Matrix) check(where, name string, rows, cols int) error {
	if len(m.Data) != m.Rows*m.Cols {
		return fmt.Errorf("%s: %s has %d entries for a %d×%d shape", where, name, len(m.Data), m.Rows, m.Cols)
	}
	if m.Rows != rows || m.Cols != cols {
		return fmt.Errorf("%s: %s is %d×%d, want %d×%d", where, name, m.Rows, m.Cols, rows, cols)
	}
	return nil
}

// checkVector reports a vector of the wrong length (nil is always fine).
func checkVector(v Vector, where, name string, n int) error {
	if v != nil && len(v) != n {
		return fmt.Errorf("%s: %s has length %d, want %d", where, name, len(v), n)
	}
	return nil
}

// Ints returns the vector with the given integer entries.
func IntVector(xs ...int64) Vector {
	v := make(Vector, len(xs))
	for i, x := range xs {
		v[i] = numeric.LitInt(x)
	}
	return v
}

// RatVector returns the vector with the given rational entries.
func RatVector(xs ...*big.Rat) Vector {
	v := make(Vector, len(xs))
	for i, x := range xs {
		v[i] = numeric.Lit(x)
	}
	return v
}

// ReadColumns marks the columns of m that hold a weight other than a
// literal 0 (numeric.Expr.IsZeroLiteral): the components of its input that
// reach its output through a nonzero weight.
func (m Matrix) ReadColumns() []bool {
	out := make([]bool, m.Cols)
	for k, e := range m.Data {
		if !e.IsZeroLiteral() {
			out[k%m.Cols] = true
		}
	}
	return out
}

// WrittenRows marks the rows of m that hold a weight other than 0 as
// written: the components of its output that its input can move.
func (m Matrix) WrittenRows() []bool {
	out := make([]bool, m.Rows)
	for k, e := range m.Data {
		if !e.IsZeroLiteral() {
			out[k/m.Cols] = true
		}
	}
	return out
}
