package exact

import (
	"fmt"
	"math/big"
	"strings"
)

// Matrix is a Rows×Cols matrix of exact rationals, stored row-major in
// Data. A matrix with no rows is a valid value whatever its Cols: the
// zero Matrix stands for "no constraints" in an LP or a Polyhedron.
type Matrix struct {
	Rows, Cols int
	Data       []*big.Rat
}

// NewMatrix returns the rows×cols zero matrix.
func NewMatrix(rows, cols int) Matrix {
	return Matrix{Rows: rows, Cols: cols, Data: NewVector(rows * cols)}
}

// IntMatrix returns the matrix with the given integer rows, as printed in
// the paper, or an error when the rows have different lengths. Its width
// is that of the first row (0 when there is none).
func IntMatrix(rows ...[]int64) (Matrix, error) {
	vs := make([]Vector, len(rows))
	for i, r := range rows {
		vs[i] = IntVector(r...)
	}
	cols := 0
	if len(rows) > 0 {
		cols = len(rows[0])
	}
	return MatrixFromRows(cols, vs...)
}

// MatrixFromRows returns the matrix with the given rows, each of length
// cols (stated separately so that a matrix without rows keeps its width).
// The entries are copied.
func MatrixFromRows(cols int, rows ...Vector) (Matrix, error) {
	if cols < 0 {
		return Matrix{}, fmt.Errorf("exact: negative width %d", cols)
	}
	m := Matrix{Rows: len(rows), Cols: cols, Data: make([]*big.Rat, 0, len(rows)*cols)}
	for i, r := range rows {
		if err := r.check(fmt.Sprintf("row %d", i), cols); err != nil {
			return Matrix{}, fmt.Errorf("exact: %w", err)
		}
		m.Data = append(m.Data, r.Clone()...)
	}
	return m, nil
}

// At returns the entry in row i, column j (not a copy). Like a slice
// index, an index out of range panics.
func (m Matrix) At(i, j int) *big.Rat { return m.Data[i*m.Cols+j] }

// Set sets the entry in row i, column j to a copy of x.
func (m Matrix) Set(i, j int, x *big.Rat) { m.Data[i*m.Cols+j] = new(big.Rat).Set(x) }

// Row returns row i as a view: its entries are those of m.
func (m Matrix) Row(i int) Vector { return Vector(m.Data[i*m.Cols : (i+1)*m.Cols]) }

// MulVec returns m x, or an error when len(x) ≠ m.Cols.
func (m Matrix) MulVec(x Vector) (Vector, error) {
	if len(x) != m.Cols {
		return nil, fmt.Errorf("exact: %d×%d matrix times a vector of length %d", m.Rows, m.Cols, len(x))
	}
	return m.mulVec(x), nil
}

func (m Matrix) mulVec(x Vector) Vector {
	y := make(Vector, m.Rows)
	for i := range y {
		y[i] = dot(m.Row(i), x)
	}
	return y
}

// Mul returns the product m n, or an error when m.Cols ≠ n.Rows.
func (m Matrix) Mul(n Matrix) (Matrix, error) {
	if m.Cols != n.Rows {
		return Matrix{}, fmt.Errorf("exact: %d×%d matrix times a %d×%d matrix", m.Rows, m.Cols, n.Rows, n.Cols)
	}
	return m.mul(n), nil
}

func (m Matrix) mul(n Matrix) Matrix {
	p := NewMatrix(m.Rows, n.Cols)
	t := new(big.Rat)
	for i := 0; i < m.Rows; i++ {
		for k := 0; k < m.Cols; k++ {
			a := m.At(i, k)
			if a.Sign() == 0 {
				continue
			}
			for j := 0; j < n.Cols; j++ {
				if b := n.At(k, j); b.Sign() != 0 {
					e := p.At(i, j)
					e.Add(e, t.Mul(a, b))
				}
			}
		}
	}
	return p
}

// Equal reports whether m and n have the same shape and the same entries.
func (m Matrix) Equal(n Matrix) bool {
	return m.Rows == n.Rows && m.Cols == n.Cols && Vector(m.Data).Equal(Vector(n.Data))
}

// Validate reports a negative dimension, data that does not match the
// shape, or a nil entry.
func (m Matrix) Validate() error {
	if m.Rows < 0 || m.Cols < 0 {
		return fmt.Errorf("exact: matrix shape %d×%d", m.Rows, m.Cols)
	}
	if len(m.Data) != m.Rows*m.Cols {
		return fmt.Errorf("exact: %d entries for a %d×%d matrix", len(m.Data), m.Rows, m.Cols)
	}
	if err := Vector(m.Data).check("matrix entry", -1); err != nil {
		return fmt.Errorf("exact: %w", err)
	}
	return nil
}

// checkShape validates m as the matrix called name with the given number
// of columns; rows < 0 accepts any number of rows. A matrix without rows
// passes whatever its Cols, so that the zero Matrix means "none".
func (m Matrix) checkShape(name string, rows, cols int) error {
	if err := m.Validate(); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	if rows >= 0 && m.Rows != rows {
		return fmt.Errorf("%s has %d rows, want %d", name, m.Rows, rows)
	}
	if m.Rows > 0 && m.Cols != cols {
		return fmt.Errorf("%s has %d columns, want %d", name, m.Cols, cols)
	}
	return nil
}

// String prints m one row per line.
func (m Matrix) String() string {
	var b strings.Builder
	for i := 0; i < m.Rows; i++ {
		b.WriteString("[")
		for j := 0; j < m.Cols; j++ {
			if j > 0 {
				b.WriteString(" ")
			}
			b.WriteString(m.At(i, j).RatString())
		}
		b.WriteString("]\n")
	}
	return b.String()
}
