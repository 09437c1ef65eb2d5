package exact

import (
	"math/big"
	"strings"
	"testing"
)

// poly builds a polyhedron in ℝ^n from rows "a1 … | b" (a trailing "<"
// makes the row strict) and equalities "g1 … = h".
func poly(t *testing.T, n int, rows ...string) *Polyhedron {
	t.Helper()
	p := &Polyhedron{Dim: n}
	var a, g []string
	var b, h []string
	for _, r := range rows {
		if lhs, rhs, ok := strings.Cut(r, "="); ok {
			g, h = append(g, lhs), append(h, rhs)
			continue
		}
		lhs, rhs, ok := strings.Cut(r, "|")
		if !ok {
			t.Fatalf("row %q has neither | nor =", r)
		}
		strict := strings.HasSuffix(strings.TrimSpace(rhs), "<")
		rhs = strings.TrimSuffix(strings.TrimSpace(rhs), "<")
		a, b = append(a, lhs), append(b, rhs)
		p.Strict = append(p.Strict, strict)
	}
	p.A, p.B = mat(t, n, a...), vec(t, strings.Join(b, " "))
	p.G, p.H = mat(t, n, g...), vec(t, strings.Join(h, " "))
	return p
}

// Each set comes with a hand-written membership test of its (relative)
// interior, independent of Polyhedron.Contains.
var interiorCases = []struct {
	name string
	dim  int
	rows []string
	// strictOK: StrictPoint finds a point (strict rows strict);
	// interiorOK: InteriorPoint finds one; relOK: the set is nonempty.
	strictOK, interiorOK, relOK bool
	hullDim                     int
	implicit                    []int
	inside                      func(x []*big.Rat) bool // the relative interior
}{
	{
		name: "open square", dim: 2,
		rows:     []string{"1 0 | 1 <", "-1 0 | 0 <", "0 1 | 1 <", "0 -1 | 0 <"},
		strictOK: true, interiorOK: true, relOK: false, // RelativeInteriorPoint refuses strict rows
		inside: func(x []*big.Rat) bool { return between(x[0], 0, 1) && between(x[1], 0, 1) },
	},
	{
		name: "closed square", dim: 2,
		rows:     []string{"1 0 | 1", "-1 0 | 0", "0 1 | 1", "0 -1 | 0"},
		strictOK: true, interiorOK: true, relOK: true, hullDim: 2,
		inside: func(x []*big.Rat) bool { return between(x[0], 0, 1) && between(x[1], 0, 1) },
	},
	{
		name: "half-plane", dim: 2,
		rows:     []string{"-1 -1 | 3"}, // x + y ≥ −3
		strictOK: true, interiorOK: true, relOK: true, hullDim: 2,
		inside: func(x []*big.Rat) bool { return new(big.Rat).Add(x[0], x[1]).Cmp(big.NewRat(-3, 1)) > 0 },
	},
	{
		name: "whole space", dim: 3,
		strictOK: true, interiorOK: true, relOK: true, hullDim: 3,
		inside: func(x []*big.Rat) bool { return len(x) == 3 },
	},
	{
		name: "empty", dim: 1,
		rows: []string{"1 | 0", "-1 | -1"}, // x ≤ 0, x ≥ 1
	},
	{
		name: "open and empty", dim: 1,
		rows:     []string{"1 | 0 <", "-1 | 0"}, // 0 ≤ x < 0
		strictOK: false,
	},
	{
		name: "half-open", dim: 1,
		rows:     []string{"1 | 1 <", "-1 | 0"}, // 0 ≤ x < 1
		strictOK: true, interiorOK: true,
		inside: func(x []*big.Rat) bool { return between(x[0], 0, 1) },
	},
	{
		// x, y ≥ 0 and x + y ≤ 0: only the origin, every row implicit.
		name: "point", dim: 2,
		rows:     []string{"-1 0 | 0", "0 -1 | 0", "1 1 | 0"},
		strictOK: true, interiorOK: false, relOK: true, hullDim: 0, implicit: []int{0, 1, 2},
		inside: func(x []*big.Rat) bool { return x[0].Sign() == 0 && x[1].Sign() == 0 },
	},
	{
		// The segment 0 ≤ x ≤ 1, y = 0 written with two inequalities.
		name: "segment", dim: 2,
		rows:     []string{"1 0 | 1", "-1 0 | 0", "0 1 | 0", "0 -1 | 0"},
		strictOK: true, interiorOK: false, relOK: true, hullDim: 1, implicit: []int{2, 3},
		inside: func(x []*big.Rat) bool { return between(x[0], 0, 1) && x[1].Sign() == 0 },
	},
	{
		// The standard triangle x + y + z = 1, x, y, z ≥ 0: interior
		// relative to the plane.
		name: "triangle in a plane", dim: 3,
		rows:     []string{"-1 0 0 | 0", "0 -1 0 | 0", "0 0 -1 | 0", "1 1 1 = 1"},
		strictOK: true, interiorOK: true, relOK: true, hullDim: 2,
		inside: func(x []*big.Rat) bool {
			s := new(big.Rat).Add(x[0], x[1])
			return x[0].Sign() > 0 && x[1].Sign() > 0 && x[2].Sign() > 0 && s.Add(s, x[2]).Cmp(big.NewRat(1, 1)) == 0
		},
	},
	{
		// x = 1 and x ≤ 1: the inequality is constant on the line, so the
		// interior relative to {x = 1} is the line itself.
		name: "inequality constant on the equalities", dim: 2,
		// (x ≤ 1 is tight on all of it, so it is an implicit equality).
		rows:     []string{"1 0 | 1", "1 0 = 1"},
		strictOK: true, interiorOK: true, relOK: true, hullDim: 1, implicit: []int{0},
		inside: func(x []*big.Rat) bool { return x[0].Cmp(big.NewRat(1, 1)) == 0 },
	},
	{
		name: "strict row constant on the equalities", dim: 2,
		rows: []string{"1 0 | 1 <", "1 0 = 1"}, // x < 1 and x = 1
	},
	{
		name: "inconsistent equalities", dim: 2,
		rows: []string{"1 1 = 1", "2 2 = 3"},
	},
	{
		name: "zero-dimensional space", dim: 0,
		strictOK: true, interiorOK: true, relOK: true, hullDim: 0,
		inside: func(x []*big.Rat) bool { return len(x) == 0 },
	},
	{
		name: "zero-dimensional and empty", dim: 0,
		rows: []string{"| -1"},
	},
}

func between(x *big.Rat, lo, hi int64) bool {
	return x.Cmp(big.NewRat(lo, 1)) > 0 && x.Cmp(big.NewRat(hi, 1)) < 0
}

func TestInteriorPoints(t *testing.T) {
	for _, tc := range interiorCases {
		t.Run(tc.name, func(t *testing.T) {
			p := poly(t, tc.dim, tc.rows...)
			x, ok, err := p.StrictPoint()
			if err != nil {
				t.Fatal(err)
			}
			if ok != tc.strictOK {
				t.Fatalf("StrictPoint ok = %v, want %v", ok, tc.strictOK)
			}
			if ok {
				if in, _ := p.Contains(x); !in {
					t.Errorf("StrictPoint %v is not in the set", x)
				}
			}
			x, ok, err = p.InteriorPoint()
			if err != nil {
				t.Fatal(err)
			}
			if ok != tc.interiorOK {
				t.Fatalf("InteriorPoint ok = %v, want %v", ok, tc.interiorOK)
			}
			if ok && !tc.inside(x) {
				t.Errorf("InteriorPoint %v is not in the interior", x)
			}
			if !p.Closed() {
				if _, _, _, err := p.RelativeInteriorPoint(); err == nil {
					t.Error("RelativeInteriorPoint accepted strict rows")
				}
				return
			}
			x, implicit, ok, err := p.RelativeInteriorPoint()
			if err != nil {
				t.Fatal(err)
			}
			if ok != tc.relOK {
				t.Fatalf("RelativeInteriorPoint ok = %v, want %v", ok, tc.relOK)
			}
			if !ok {
				if _, ok, err := p.AffineHull(); ok || err != nil {
					t.Errorf("AffineHull of the empty set: ok = %v, err = %v", ok, err)
				}
				return
			}
			if !tc.inside(x) {
				t.Errorf("RelativeInteriorPoint %v is not in the relative interior", x)
			}
			if !equalInts(implicit, tc.implicit) {
				t.Errorf("implicit equalities %v, want %v", implicit, tc.implicit)
			}
			hull, ok, err := p.AffineHull()
			if err != nil || !ok {
				t.Fatalf("AffineHull: ok = %v, err = %v", ok, err)
			}
			if hull.In() != tc.hullDim || hull.Out() != tc.dim {
				t.Fatalf("hull map ℝ^%d → ℝ^%d, want ℝ^%d → ℝ^%d", hull.In(), hull.Out(), tc.hullDim, tc.dim)
			}
		})
	}
}

// TestAffineHullSegment checks the parametrization itself: the segment
// {0 ≤ x ≤ 1, y = 0} has hull y = 0, so x₀ and the one column of N have
// y-component 0 and N's x-component is nonzero.
func TestAffineHullSegment(t *testing.T) {
	p := poly(t, 2, "1 0 | 1", "-1 0 | 0", "0 1 | 0", "0 -1 | 0")
	hull, ok, err := p.AffineHull()
	if err != nil || !ok {
		t.Fatal(ok, err)
	}
	if hull.A.Cols != 1 || hull.A.At(1, 0).Sign() != 0 || hull.C[1].Sign() != 0 || hull.A.At(0, 0).Sign() == 0 {
		t.Errorf("hull x = %v + N z with N =\n%v; want y = 0 along a line in x", hull.C, hull.A)
	}
	// The pullback is the interval 0 ≤ x₀ + N₀₀ z ≤ 1: full-dimensional.
	q, err := p.Pullback(hull)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := q.InteriorPoint(); !ok {
		t.Error("the segment is not full-dimensional in its hull's coordinates")
	}
}

func TestSolutions(t *testing.T) {
	// x + y + z = 1, x − y = 0: one free variable; every point x₀ + N z
	// must solve both equations for any z (checked at z = 0, 1, −2).
	G := mat(t, 3, "1 1 1", "1 -1 0")
	h := vec(t, "1 0")
	param, ok, err := Solutions(3, G, h)
	if err != nil || !ok {
		t.Fatal(ok, err)
	}
	if param.In() != 1 {
		t.Fatalf("%d parameters, want 1", param.In())
	}
	for _, z := range []string{"0", "1", "-2"} {
		x, err := param.Apply(vec(t, z))
		if err != nil {
			t.Fatal(err)
		}
		gx, _ := G.MulVec(x)
		if !gx.Equal(h) {
			t.Errorf("z = %s: x = %v gives G x = %v, want %v", z, x, gx, h)
		}
	}
	if _, ok, _ := Solutions(2, mat(t, 2, "1 1", "2 2"), vec(t, "1 3")); ok {
		t.Error("x + y = 1, 2x + 2y = 3 reported solvable")
	}
	if _, _, err := Solutions(2, mat(t, 3, "1 1 1"), vec(t, "1")); err == nil {
		t.Error("3 columns for 2 unknowns accepted")
	}
}

func TestPolyhedronErrors(t *testing.T) {
	tests := []struct {
		name string
		p    Polyhedron
		msg  string
	}{
		{"A width", Polyhedron{Dim: 2, A: mustInts(t, []int64{1}), B: IntVector(0)}, "columns"},
		{"B length", Polyhedron{Dim: 1, A: mustInts(t, []int64{1}), B: IntVector(0, 1)}, "B has length"},
		{"Strict length", Polyhedron{Dim: 1, A: mustInts(t, []int64{1}), B: IntVector(0), Strict: []bool{true, true}}, "Strict"},
		{"G width", Polyhedron{Dim: 1, G: mustInts(t, []int64{1, 1}), H: IntVector(0)}, "columns"},
		{"negative", Polyhedron{Dim: -1}, "dimension"},
	}
	for _, tc := range tests {
		if _, _, err := tc.p.InteriorPoint(); err == nil || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("%s: error %v, want one containing %q", tc.name, err, tc.msg)
		}
	}
	p := poly(t, 2, "1 0 | 1")
	if _, err := p.Contains(IntVector(1)); err == nil {
		t.Error("Contains accepted a point of the wrong dimension")
	}
	if _, err := p.Intersect(poly(t, 3)); err == nil {
		t.Error("Intersect accepted different dimensions")
	}
}
