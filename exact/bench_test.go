package exact

import (
	"math/big"
	"math/rand/v2"
	"testing"
)

// randomBoxLP is a seeded LP with n free variables and m random
// inequality rows (integer coefficients in [−5, 5], right-hand sides in
// [0, 20], so 0 is feasible) plus the box |x_j| ≤ 10, and a random
// objective: bounded and feasible.
func randomBoxLP(seed uint64, n, m int) *LP {
	rng := rand.New(rand.NewPCG(seed, 1))
	ri := func(lo, hi int) *big.Rat { return big.NewRat(int64(lo+rng.IntN(hi-lo+1)), 1) }
	lp := &LP{C: make(Vector, n), A: NewMatrix(m+2*n, n)}
	for j := range lp.C {
		lp.C[j] = ri(-5, 5)
	}
	for i := 0; i < m; i++ {
		for j := 0; j < n; j++ {
			lp.A.Set(i, j, ri(-5, 5))
		}
		lp.B = append(lp.B, ri(0, 20))
	}
	for j := 0; j < n; j++ {
		lp.A.At(m+2*j, j).SetInt64(1)
		lp.A.At(m+2*j+1, j).SetInt64(-1)
		lp.B = append(lp.B, big.NewRat(10, 1), big.NewRat(10, 1))
	}
	return lp
}

func benchmarkLP(b *testing.B, n, m int, solve func(*LP) *Solution) {
	lp := randomBoxLP(uint64(n*100+m), n, m)
	var s *Solution
	for b.Loop() {
		s = solve(lp)
	}
	if s.Status != Optimal {
		b.Fatal(s.Status)
	}
	b.ReportMetric(float64(s.Pivots), "pivots")
}

func solveOrFail(lp *LP) *Solution {
	s, err := lp.Solve()
	if err != nil {
		panic(err)
	}
	return s
}

// BenchmarkLP4x30: 4 variables and 30 rows, the size of a node's LP when
// enumerating 12 units in ℝ³ (3 coordinates and the slack t).
func BenchmarkLP4x30(b *testing.B) { benchmarkLP(b, 4, 24, solveOrFail) }

// BenchmarkLP10x30: 10 variables, 30 rows.
func BenchmarkLP10x30(b *testing.B) { benchmarkLP(b, 10, 10, solveOrFail) }

// BenchmarkInteriorPoint finds an interior point of a random polytope in
// ℝ³ with 30 facets' worth of rows.
func BenchmarkInteriorPoint(b *testing.B) {
	lp := randomBoxLP(7, 3, 24)
	p := &Polyhedron{Dim: 3, A: lp.A, B: lp.B}
	for b.Loop() {
		if _, ok, err := p.InteriorPoint(); err != nil || !ok {
			b.Fatal(ok, err)
		}
	}
}
