package exact

import (
	"strings"
	"testing"
)

// lpCase is an LP written as text: C, then the rows of A x ≤ B as
// "a1 a2 … | b", then the rows of G x = H likewise.
type lpCase struct {
	name   string
	c      string
	ineq   []string
	eq     []string
	status Status
	value  string // Optimal: the optimal value, derived by hand
	x      string // Optimal: the optimal point when it is unique ("" otherwise)
}

func (tc lpCase) lp(t *testing.T) *LP {
	t.Helper()
	c := vec(t, tc.c)
	n := len(c)
	split := func(rows []string) (Matrix, Vector) {
		var lhs []string
		var rhs []string
		for _, r := range rows {
			a, b, ok := strings.Cut(r, "|")
			if !ok {
				t.Fatalf("%s: row %q has no |", tc.name, r)
			}
			lhs = append(lhs, a)
			rhs = append(rhs, b)
		}
		return mat(t, n, lhs...), vec(t, strings.Join(rhs, " "))
	}
	lp := &LP{C: c}
	lp.A, lp.B = split(tc.ineq)
	lp.G, lp.H = split(tc.eq)
	return lp
}

// nonneg returns the rows −x_j ≤ 0 for n variables.
func nonneg(n int) []string {
	var rows []string
	for j := 0; j < n; j++ {
		f := make([]string, n)
		for k := range f {
			f[k] = "0"
		}
		f[j] = "-1"
		rows = append(rows, strings.Join(f, " ")+" | 0")
	}
	return rows
}

func with(rows []string, more ...[]string) []string {
	out := append([]string(nil), rows...)
	for _, m := range more {
		out = append(out, m...)
	}
	return out
}

var lpCases = []lpCase{
	{
		// Hillier and Lieberman's Wyndor Glass problem: the optimum is the
		// vertex where 2y ≤ 12 and 3x + 2y ≤ 18 are tight: y = 6, x = 2.
		name: "wyndor", c: "3 5",
		ineq:   with([]string{"1 0 | 4", "0 2 | 12", "3 2 | 18"}, nonneg(2)),
		status: Optimal, value: "36", x: "2 6",
	},
	{
		// Chvátal, Linear Programming, ch. 2: optimum at x = (2, 0, 1)
		// where rows 1 and 3 are tight: 2·2 + 1 = 5, 3·2 + 2·1 = 8; value
		// 5·2 + 3·1 = 13, and the dual y = (1, 0, 1) gives 5 + 8 = 13.
		name: "chvatal", c: "5 4 3",
		ineq:   with([]string{"2 3 1 | 5", "4 1 2 | 11", "3 4 2 | 8"}, nonneg(3)),
		status: Optimal, value: "13", x: "2 0 1",
	},
	{
		// Beale's example (1955), on which the largest-coefficient rule
		// cycles: optimum x = (1, 0, 1, 0), value 3/4 + 1/2 = 5/4; rows:
		// 1/4 − 1 ≤ 0, 1/2 − 1/2 ≤ 0 (tight), x6 = 1 (tight).
		name: "beale", c: "3/4 -20 1/2 -6",
		ineq:   with([]string{"1/4 -8 -1 9 | 0", "1/2 -12 -1/2 3 | 0", "0 0 1 0 | 1"}, nonneg(4)),
		status: Optimal, value: "5/4", x: "1 0 1 0",
	},
	{
		// Klee–Minty cube for n = 3: the optimum is the vertex (0, 0, 125).
		name: "klee-minty-3", c: "4 2 1",
		ineq:   with([]string{"1 0 0 | 5", "4 1 0 | 25", "8 4 1 | 125"}, nonneg(3)),
		status: Optimal, value: "125", x: "0 0 125",
	},
	{
		// A degenerate vertex: at (1, 1) three constraints are tight.
		name: "degenerate-vertex", c: "1 1",
		ineq:   with([]string{"1 0 | 1", "0 1 | 1", "1 1 | 2"}, nonneg(2)),
		status: Optimal, value: "2", x: "1 1",
	},
	{
		// All right-hand sides 0: the origin is the only feasible point
		// and every pivot is degenerate.
		name: "degenerate-cone", c: "1 1",
		ineq:   []string{"1 -1 | 0", "-1 1 | 0", "1 1 | 0", "-1 -1 | 0"},
		status: Optimal, value: "0", x: "0 0",
	},
	{
		name: "infeasible", c: "1",
		ineq:   []string{"1 | 1", "-1 | -2"}, // x ≤ 1 and x ≥ 2
		status: Infeasible,
	},
	{
		// x + y ≤ 1, x ≥ 1, y ≥ 1: the certificate is y = (1, 1, 1).
		name: "infeasible-2d", c: "0 0",
		ineq:   []string{"1 1 | 1", "-1 0 | -1", "0 -1 | -1"},
		status: Infeasible,
	},
	{
		name: "unbounded", c: "1",
		ineq:   []string{"-1 | 0"}, // x ≥ 0, maximize x
		status: Unbounded,
	},
	{
		// max x − y on x − y ≤ 1 is bounded even though both are free;
		// the optimum is a face, not a vertex, so no x is given.
		name: "bounded-not-pointed", c: "1 -1",
		ineq:   []string{"1 -1 | 1"},
		status: Optimal, value: "1",
	},
	{
		name: "unbounded-equality", c: "1 0",
		eq:     []string{"1 -1 | 0"}, // x = y, maximize x
		status: Unbounded,
	},
	{
		// Equalities only: x + y = 4, x − y = 2 give x = 3, y = 1.
		name: "equalities", c: "2 1",
		eq:     []string{"1 1 | 4", "1 -1 | 2"},
		status: Optimal, value: "7", x: "3 1",
	},
	{
		// Minimize x + 2y on the segment x + y = 3, x, y ≥ 0: at (3, 0).
		name: "equality-and-bounds", c: "-1 -2",
		ineq:   nonneg(2),
		eq:     []string{"1 1 | 3"},
		status: Optimal, value: "-3", x: "3 0",
	},
	{
		// A negative right-hand side on an equality (the row is negated).
		name: "negative-equality", c: "1 1",
		ineq:   []string{"1 0 | 0"},
		eq:     []string{"-1 -1 | -5"}, // x + y = 5 with x ≤ 0: y = 5 − x, objective 5
		status: Optimal, value: "5",
	},
	{
		// A redundant equality (twice the first): its artificial stays
		// basic at 0 after phase 1.
		name: "redundant-equality", c: "1 0",
		ineq:   []string{"0 -1 | 0"},
		eq:     []string{"1 1 | 2", "2 2 | 4"},
		status: Optimal, value: "2", x: "2 0",
	},
	{
		name: "inconsistent-equalities", c: "1 0",
		eq:     []string{"1 1 | 1", "1 1 | 2"},
		status: Infeasible,
	},
	{
		// Free variables at negative values: x ≥ −5 gives x = −5.
		name: "free-negative", c: "-1",
		ineq:   []string{"-1 | 5"},
		status: Optimal, value: "5", x: "-5",
	},
	{
		name: "free-both-negative", c: "1 1",
		ineq:   []string{"1 0 | -2", "0 1 | -3"},
		status: Optimal, value: "-5", x: "-2 -3",
	},
	{
		// A box around a point away from the origin, |x − 7/3| ≤ 1/2,
		// maximize −x: x = 11/6, value −11/6.
		name: "fractions", c: "-1",
		ineq:   []string{"1 | 17/6", "-1 | -11/6"},
		status: Optimal, value: "-11/6", x: "11/6",
	},
	{
		name: "no-constraints-zero-objective", c: "0 0",
		status: Optimal, value: "0", x: "0 0",
	},
	{
		name: "no-constraints", c: "0 1",
		status: Unbounded,
	},
	{
		name: "no-variables", c: "",
		ineq:   []string{"| 1"}, // 0 ≤ 1
		status: Optimal, value: "0", x: "",
	},
	{
		name: "no-variables-infeasible", c: "",
		ineq:   []string{"| -1"}, // 0 ≤ −1
		status: Infeasible,
	},
	{
		name: "no-variables-equality", c: "",
		eq:     []string{"| 1"}, // 0 = 1
		status: Infeasible,
	},
	{
		name: "nothing", c: "",
		status: Optimal, value: "0", x: "",
	},
	{
		// A zero row 0 ≤ 0 among the constraints is harmless.
		name: "zero-row", c: "1",
		ineq:   []string{"0 | 0", "1 | 3"},
		status: Optimal, value: "3", x: "3",
	},
}

func TestLPSolve(t *testing.T) {
	for _, tc := range lpCases {
		t.Run(tc.name, func(t *testing.T) {
			lp := tc.lp(t)
			sol, err := lp.Solve()
			if err != nil {
				t.Fatal(err)
			}
			if sol.Status != tc.status {
				t.Fatalf("status %v, want %v", sol.Status, tc.status)
			}
			if err := lp.Check(sol); err != nil {
				t.Errorf("certificate rejected: %v", err)
			}
			if tc.status != Optimal {
				return
			}
			if want := rat(t, tc.value); sol.Value.Cmp(want) != 0 {
				t.Errorf("value %v, want %v", sol.Value.RatString(), want.RatString())
			}
			if tc.x != "" || tc.c == "" {
				if want := vec(t, tc.x); !sol.X.Equal(want) {
					t.Errorf("x = %v, want %v", sol.X, want)
				}
			}
		})
	}
}

// TestLPCheckRejects makes sure Check can fail: each certificate is
// spoiled in one way.
func TestLPCheckRejects(t *testing.T) {
	find := func(name string) lpCase {
		for _, tc := range lpCases {
			if tc.name == name {
				return tc
			}
		}
		t.Fatalf("no case %q", name)
		return lpCase{}
	}
	tests := []struct {
		name  string
		spoil func(s *Solution)
	}{
		{"chvatal", func(s *Solution) { s.Value.SetInt64(14) }},
		{"chvatal", func(s *Solution) { s.X[0].SetInt64(3) }},                     // infeasible point
		{"chvatal", func(s *Solution) { s.Y[0].SetInt64(2) }},                     // dual no longer fits C
		{"chvatal", func(s *Solution) { s.X[0].SetInt64(1); s.X[2].SetInt64(2) }}, // feasible but CᵀX ≠ Value
		{"infeasible", func(s *Solution) { s.Y[1].SetInt64(0) }},
		{"unbounded", func(s *Solution) { s.Ray[0].SetInt64(-1) }},
		{"equalities", func(s *Solution) { s.W[0].Neg(s.W[0]) }},
	}
	for i, tc := range tests {
		lp := find(tc.name).lp(t)
		sol, err := lp.Solve()
		if err != nil {
			t.Fatal(err)
		}
		if err := lp.Check(sol); err != nil {
			t.Fatalf("%d %s: unspoiled certificate rejected: %v", i, tc.name, err)
		}
		tc.spoil(sol)
		if err := lp.Check(sol); err == nil {
			t.Errorf("%d %s: spoiled certificate accepted", i, tc.name)
		}
	}
}

func TestLPDimensionErrors(t *testing.T) {
	two := IntVector(1, 1)
	tests := []struct {
		name string
		lp   LP
		msg  string
	}{
		{"A width", LP{C: two, A: mustInts(t, []int64{1, 2, 3}), B: IntVector(1)}, "columns"},
		{"B length", LP{C: two, A: mustInts(t, []int64{1, 2}), B: IntVector(1, 2)}, "B has length 2"},
		{"G width", LP{C: two, G: mustInts(t, []int64{1}), H: IntVector(1)}, "columns"},
		{"H length", LP{C: two, G: mustInts(t, []int64{1, 2}), H: nil}, "H has length 0"},
		{"nil entry", LP{C: Vector{nil, nil}}, "nil"},
		{"short data", LP{C: two, A: Matrix{Rows: 1, Cols: 2, Data: IntVector(1)}, B: IntVector(1)}, "entries"},
	}
	for _, tc := range tests {
		_, err := tc.lp.Solve()
		if err == nil || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("%s: error %v, want one containing %q", tc.name, err, tc.msg)
		}
	}
}

func mustInts(t *testing.T, rows ...[]int64) Matrix {
	t.Helper()
	m, err := IntMatrix(rows...)
	if err != nil {
		t.Fatal(err)
	}
	return m
}
