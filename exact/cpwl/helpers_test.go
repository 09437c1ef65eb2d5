package cpwl

import (
	"math/big"
	"strings"
	"testing"

	"github.com/transformer-cookbook/verify/exact"
)

func vec(t testing.TB, s string) exact.Vector {
	t.Helper()
	var v exact.Vector
	for _, f := range strings.Fields(s) {
		r, err := exact.ParseRat(f)
		if err != nil {
			t.Fatalf("vec(%q): %v", s, err)
		}
		v = append(v, r)
	}
	return v
}

// mat parses a matrix with n columns from rows separated by ";".
func mat(t testing.TB, n int, s string) exact.Matrix {
	t.Helper()
	var rows []exact.Vector
	if strings.TrimSpace(s) != "" {
		for _, r := range strings.Split(s, ";") {
			rows = append(rows, vec(t, r))
		}
	}
	m, err := exact.MatrixFromRows(n, rows...)
	if err != nil {
		t.Fatalf("mat(%q): %v", s, err)
	}
	return m
}

func rat(t testing.TB, s string) *big.Rat {
	t.Helper()
	r, err := exact.ParseRat(s)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// ffn builds f(x) = W2 ReLU(W1 x + b1) + b2 on ℝ^d from the paper's
// matrices written row by row ("1 0; -1 0; 1 -1"); "" biases are zero.
func ffn(t testing.TB, d int, w1, b1, w2, b2 string) *FFN {
	t.Helper()
	f := &FFN{W1: mat(t, d, w1)}
	f.W2 = mat(t, f.W1.Rows, w2)
	if b1 != "" {
		f.B1 = vec(t, b1)
	}
	if b2 != "" {
		f.B2 = vec(t, b2)
	}
	if err := f.Validate(); err != nil {
		t.Fatal(err)
	}
	return f
}

// poly builds a closed polyhedron in ℝ^d from rows "a1 a2 … <= b",
// "a1 a2 … >= b" and "a1 a2 … = b".
func poly(t testing.TB, d int, rows ...string) *exact.Polyhedron {
	t.Helper()
	p := &exact.Polyhedron{Dim: d}
	var a, g []exact.Vector
	for _, r := range rows {
		for _, op := range []string{"<=", ">=", "="} {
			lhs, rhs, ok := strings.Cut(r, op)
			if !ok {
				continue
			}
			av, b := vec(t, lhs), rat(t, strings.TrimSpace(rhs))
			switch op {
			case "<=":
				a, p.B = append(a, av), append(p.B, b)
			case ">=":
				for i := range av {
					av[i].Neg(av[i])
				}
				a, p.B = append(a, av), append(p.B, b.Neg(b))
			case "=":
				g, p.H = append(g, av), append(p.H, b)
			}
			break
		}
	}
	var err error
	if p.A, err = exact.MatrixFromRows(d, a...); err != nil {
		t.Fatal(err)
	}
	if p.G, err = exact.MatrixFromRows(d, g...); err != nil {
		t.Fatal(err)
	}
	return p
}

// piece builds a piece in ℝ^d with the affine map "m1 … | c" (one output;
// several outputs separated by ";") on the polyhedron of rows.
func piece(t testing.TB, d int, m string, rows ...string) Piece {
	t.Helper()
	var ms, cs []string
	for _, out := range strings.Split(m, ";") {
		a, c, ok := strings.Cut(out, "|")
		if !ok {
			t.Fatalf("map %q has no |", m)
		}
		ms, cs = append(ms, a), append(cs, c)
	}
	return Piece{Domain: poly(t, d, rows...), Map: exact.Affine{A: mat(t, d, strings.Join(ms, ";")), C: vec(t, strings.Join(cs, " "))}}
}

func relu(x *big.Rat) *big.Rat {
	if x.Sign() < 0 {
		return new(big.Rat)
	}
	return new(big.Rat).Set(x)
}

func add(xs ...*big.Rat) *big.Rat {
	s := new(big.Rat)
	for _, x := range xs {
		s.Add(s, x)
	}
	return s
}

func mul(a *big.Rat, b *big.Rat) *big.Rat { return new(big.Rat).Mul(a, b) }
func sub(a, b *big.Rat) *big.Rat          { return new(big.Rat).Sub(a, b) }
func r(a, b int64) *big.Rat               { return big.NewRat(a, b) }
