package exact

import (
	"math/big"
	"math/rand/v2"
	"testing"
)

// TestLPRandomVertices compares Solve with brute force on seeded random
// LPs in 2 and 3 variables, boxed by |x_j| ≤ 10 so that they are bounded
// and the optimum, if any, is at a vertex: every choice of n rows (all
// equalities included) with a unique solution is a candidate, and the
// best feasible candidate is the optimum; none means infeasible. The
// random right-hand sides in [−6, 6] make some LPs infeasible, and small
// coefficients make ties and degenerate vertices common.
func TestLPRandomVertices(t *testing.T) {
	rng := rand.New(rand.NewPCG(42, 42))
	ri := func(lo, hi int) *big.Rat { return big.NewRat(int64(lo+rng.IntN(hi-lo+1)), 1) }
	var infeasible, optimal int
	for trial := 0; trial < 200; trial++ {
		n := 2 + trial%2
		m := rng.IntN(5)
		p := 0
		if n == 3 && rng.IntN(2) == 0 {
			p = 1
		}
		lp := &LP{C: make(Vector, n), A: NewMatrix(m+2*n, n), G: NewMatrix(p, n)}
		for j := range lp.C {
			lp.C[j] = ri(-3, 3)
		}
		for i := 0; i < m; i++ {
			for j := 0; j < n; j++ {
				lp.A.Set(i, j, ri(-2, 2))
			}
			lp.B = append(lp.B, ri(-6, 6))
		}
		for j := 0; j < n; j++ {
			lp.A.At(m+2*j, j).SetInt64(1)
			lp.A.At(m+2*j+1, j).SetInt64(-1)
			lp.B = append(lp.B, big.NewRat(10, 1), big.NewRat(10, 1))
		}
		for q := 0; q < p; q++ {
			for j := 0; j < n; j++ {
				lp.G.Set(q, j, ri(-2, 2))
			}
			lp.H = append(lp.H, ri(-3, 3))
		}

		best := bruteForce(lp)
		sol, err := lp.Solve()
		if err != nil {
			t.Fatal(err)
		}
		if err := lp.Check(sol); err != nil {
			t.Errorf("trial %d: certificate rejected: %v", trial, err)
		}
		switch {
		case best == nil && sol.Status != Infeasible:
			t.Errorf("trial %d: no feasible vertex, Solve says %v", trial, sol.Status)
		case best != nil && sol.Status != Optimal:
			t.Errorf("trial %d: optimum %v at a vertex, Solve says %v", trial, best, sol.Status)
		case best != nil && sol.Value.Cmp(best) != 0:
			t.Errorf("trial %d: value %v, brute force %v", trial, sol.Value, best)
		}
		if best == nil {
			infeasible++
		} else {
			optimal++
		}
	}
	t.Logf("%d infeasible, %d optimal", infeasible, optimal)
	if infeasible < 10 || optimal < 10 {
		t.Errorf("%d infeasible and %d optimal LPs: the mix does not exercise both", infeasible, optimal)
	}
}

// bruteForce returns the best objective value over the vertices of the
// LP's feasible set, or nil when it has none.
func bruteForce(lp *LP) *big.Rat {
	n, m, p := len(lp.C), lp.A.Rows, lp.G.Rows
	var best *big.Rat
	var choose func(start int, picked []int)
	choose = func(start int, picked []int) {
		if len(picked) == n-p {
			var rows []Vector
			var rhs Vector
			for q := 0; q < p; q++ {
				rows, rhs = append(rows, lp.G.Row(q)), append(rhs, lp.H[q])
			}
			for _, i := range picked {
				rows, rhs = append(rows, lp.A.Row(i)), append(rhs, lp.B[i])
			}
			M, _ := MatrixFromRows(n, rows...)
			param, ok, _ := Solutions(n, M, rhs)
			if !ok || param.In() != 0 {
				return
			}
			x := param.C
			if lp.checkFeasible(x) != nil {
				return
			}
			if v := dot(lp.C, x); best == nil || v.Cmp(best) > 0 {
				best = v
			}
			return
		}
		for i := start; i < m; i++ {
			choose(i+1, append(picked, i))
		}
	}
	choose(0, nil)
	return best
}
