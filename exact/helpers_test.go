package exact

import (
	"math/big"
	"strings"
	"testing"
)

// vec parses a vector written as in the paper: "1/4 -8 -1 9".
func vec(t testing.TB, s string) Vector {
	t.Helper()
	fields := strings.Fields(s)
	v := make(Vector, len(fields))
	for i, f := range fields {
		r, err := ParseRat(f)
		if err != nil {
			t.Fatalf("vec(%q): %v", s, err)
		}
		v[i] = r
	}
	return v
}

// mat parses a matrix of n columns, one row per string.
func mat(t testing.TB, n int, rows ...string) Matrix {
	t.Helper()
	vs := make([]Vector, len(rows))
	for i, r := range rows {
		vs[i] = vec(t, r)
	}
	m, err := MatrixFromRows(n, vs...)
	if err != nil {
		t.Fatalf("mat: %v", err)
	}
	return m
}

func rat(t testing.TB, s string) *big.Rat {
	t.Helper()
	r, err := ParseRat(s)
	if err != nil {
		t.Fatalf("rat(%q): %v", s, err)
	}
	return r
}
