package exact

import (
	"fmt"
	"math/big"
)

// Solutions returns the solution set of G x = h as an injective affine
// map z ↦ x₀ + N z from ℝ^k onto it, where k = n − rank G and the columns
// of N are a basis of the kernel of G; ok is false when the system has no
// solution. G may have no rows (every x is a solution: N = I, x₀ = 0); n
// is the number of unknowns, given separately for that case.
//
// The parametrization is what turns a lower-dimensional polyhedron into a
// full-dimensional one in fewer variables (Polyhedron.Pullback).
func Solutions(n int, G Matrix, h Vector) (param Affine, ok bool, err error) {
	if n < 0 {
		return Affine{}, false, fmt.Errorf("exact: %d unknowns", n)
	}
	if err := G.checkShape("exact: G", -1, n); err != nil {
		return Affine{}, false, err
	}
	if err := h.check("exact: h", G.Rows); err != nil {
		return Affine{}, false, err
	}
	r, pivots := rref(G, h)
	for i := len(pivots); i < r.Rows; i++ {
		// A zero row of the echelon form with a nonzero right-hand side
		// reads 0 = c ≠ 0.
		if r.At(i, n).Sign() != 0 {
			return Affine{}, false, nil
		}
	}
	isPivot := make([]bool, n)
	for _, c := range pivots {
		isPivot[c] = true
	}
	var free []int
	for c := 0; c < n; c++ {
		if !isPivot[c] {
			free = append(free, c)
		}
	}
	x0 := NewVector(n)
	for i, c := range pivots {
		x0[c].Set(r.At(i, n))
	}
	N := NewMatrix(n, len(free))
	for k, f := range free {
		N.At(f, k).SetInt64(1)
		for i, c := range pivots {
			N.At(c, k).Neg(r.At(i, f))
		}
	}
	return Affine{A: N, C: x0}, true, nil
}

// rref returns the reduced row echelon form of the augmented matrix [G | h]
// and the pivot column of each of its leading rows; the rows after
// len(pivots) are zero in their first G.Cols entries.
func rref(G Matrix, h Vector) (Matrix, []int) {
	n := G.Cols
	r := NewMatrix(G.Rows, n+1)
	for i := 0; i < G.Rows; i++ {
		for j := 0; j < n; j++ {
			r.At(i, j).Set(G.At(i, j))
		}
		r.At(i, n).Set(h[i])
	}
	var pivots []int
	t := new(big.Rat)
	row := 0
	for c := 0; c < n && row < r.Rows; c++ {
		p := -1
		for i := row; i < r.Rows; i++ {
			if r.At(i, c).Sign() != 0 {
				p = i
				break
			}
		}
		if p < 0 {
			continue
		}
		for j := 0; j <= n; j++ {
			r.Data[row*(n+1)+j], r.Data[p*(n+1)+j] = r.Data[p*(n+1)+j], r.Data[row*(n+1)+j]
		}
		inv := new(big.Rat).Inv(r.At(row, c))
		for j := c; j <= n; j++ {
			r.At(row, j).Mul(r.At(row, j), inv)
		}
		for i := 0; i < r.Rows; i++ {
			f := new(big.Rat).Set(r.At(i, c))
			if i == row || f.Sign() == 0 {
				continue
			}
			for j := c; j <= n; j++ {
				if e := r.At(row, j); e.Sign() != 0 {
					r.At(i, j).Sub(r.At(i, j), t.Mul(f, e))
				}
			}
		}
		pivots = append(pivots, c)
		row++
	}
	return r, pivots
}
