package exact

import (
	"errors"
	"math/big"
)

// tableau is the dense simplex tableau of an LP in standard form.
//
// The free variables are split, x = x⁺ − x⁻ with x⁺, x⁻ ≥ 0; each row of
// A x ≤ B gets a slack, A x + s = B; rows with a negative right-hand side
// are negated (sigma = −1), so that the right-hand side is nonnegative;
// and a row whose slack cannot start in the basis (a negated inequality,
// or any equality) gets an artificial variable that phase 1 drives to 0.
//
// Not every column is stored: x⁻'s column is always minus x⁺'s, and the
// artificial of a negated inequality is always minus its slack's (both
// hold initially and pivoting is linear), so both are read off the stored
// column with a sign. The stored columns are x⁺ (n), the slacks (m) and
// the artificials of the equalities (p), then the right-hand side. The
// artificial columns of the equalities are kept after they leave the
// basis, never to enter again: with the slack columns they hold B⁻¹, from
// which the dual solution is read at the end.
//
// Variables are numbered for Bland's rule: x⁺ 0…n−1, x⁻ n…2n−1, slacks
// 2n…2n+m−1, artificials 2n+m…2n+2m+p−1 (row r's at 2n+m+r).
type tableau struct {
	n, m, p int
	free    []bool       // free[j]: x_j is free (has an x⁻); else x_j ≥ 0 (only in tests of the pivot rules)
	rows    [][]*big.Rat // m+p rows of n+m+p stored entries and the right-hand side
	obj     []*big.Rat   // reduced costs of the stored columns, then −z
	basis   []int
	sigma   []int
	cost    []*big.Rat // costs of the stored columns in the current phase
	pivots  int

	// rule picks the entering variable and the leaving row; Bland's rule
	// unless a test swaps in another one. maxPivots (0: none) lets a test
	// stop a rule that cycles.
	rule      func(t *tableau) (enter int, row int)
	maxPivots int
}

var errPivotLimit = errors.New("exact: pivot limit reached")

// newTableau sets up the tableau of lp; free nil means every variable is
// free.
func newTableau(lp *LP, free []bool) *tableau {
	n, m, p := len(lp.C), lp.A.Rows, lp.G.Rows
	if free == nil {
		free = make([]bool, n)
		for j := range free {
			free[j] = true
		}
	}
	width := n + m + p + 1
	t := &tableau{n: n, m: m, p: p, free: free, basis: make([]int, m+p), sigma: make([]int, m+p), rule: bland}
	for r := 0; r < m+p; r++ {
		row := NewVector(width)
		var rhs *big.Rat
		if r < m {
			for j := 0; j < n; j++ {
				row[j].Set(lp.A.At(r, j))
			}
			row[n+r].SetInt64(1)
			rhs = lp.B[r]
		} else {
			for j := 0; j < n; j++ {
				row[j].Set(lp.G.At(r-m, j))
			}
			rhs = lp.H[r-m]
		}
		row[width-1].Set(rhs)
		t.sigma[r] = 1
		if rhs.Sign() < 0 {
			t.sigma[r] = -1
			for _, e := range row {
				e.Neg(e)
			}
		}
		if r < m && t.sigma[r] > 0 {
			t.basis[r] = 2*n + r
		} else {
			if r >= m {
				row[n+r].SetInt64(1) // the equality's artificial, added after the negation
			}
			t.basis[r] = 2*n + m + r
		}
		t.rows = append(t.rows, row)
	}
	return t
}

// stored returns the stored column of variable v and the sign with which
// v's column is read from it.
func (t *tableau) stored(v int) (col, sign int) {
	n, m := t.n, t.m
	switch {
	case v < n:
		return v, 1
	case v < 2*n:
		return v - n, -1
	case v < 2*n+m:
		return v - n, 1
	case v < 2*n+2*m:
		return v - n - m, -1 // the artificial of a negated inequality: minus its slack
	default:
		return v - n - m, 1
	}
}

func (t *tableau) artificial(v int) bool { return v >= 2*t.n+t.m }

// enterable reports whether v may enter the basis: artificials never do,
// and x⁻ exists only for free variables.
func (t *tableau) enterable(v int) bool {
	return !t.artificial(v) && (v < t.n || v >= 2*t.n || t.free[v-t.n])
}

// reduced returns the reduced cost of variable v.
func (t *tableau) reduced(v int) *big.Rat {
	j, s := t.stored(v)
	if s > 0 {
		return t.obj[j]
	}
	return new(big.Rat).Neg(t.obj[j])
}

// basicCost returns the cost of variable v in the current phase.
func (t *tableau) basicCost(v int, phase int) *big.Rat {
	if t.artificial(v) {
		if phase == 1 {
			return big.NewRat(-1, 1)
		}
		return new(big.Rat)
	}
	j, s := t.stored(v)
	if s > 0 {
		return t.cost[j]
	}
	return new(big.Rat).Neg(t.cost[j])
}

// setObjective prices out the basis for the costs of the phase: phase 1
// maximizes −(sum of the artificials), phase 2 maximizes Cᵀx.
func (t *tableau) setObjective(c Vector, phase int) {
	width := t.n + t.m + t.p + 1
	t.cost = NewVector(width - 1)
	for j := range t.cost {
		switch {
		case phase == 2 && j < t.n:
			t.cost[j].Set(c[j])
		case phase == 1 && j >= t.n+t.m:
			t.cost[j].SetInt64(-1)
		}
	}
	t.obj = NewVector(width)
	for j := 0; j < width-1; j++ {
		t.obj[j].Set(t.cost[j])
	}
	tmp := new(big.Rat)
	for r, v := range t.basis {
		cb := t.basicCost(v, phase)
		if cb.Sign() == 0 {
			continue
		}
		for j, e := range t.rows[r] {
			if e.Sign() != 0 {
				t.obj[j].Sub(t.obj[j], tmp.Mul(cb, e))
			}
		}
	}
}

// bland is Bland's rule: the entering variable is the lowest-numbered one
// with a positive reduced cost, and among the rows that tie in the ratio
// test the leaving variable is the lowest-numbered basic one. With it the
// simplex method never returns to a basis it has left, so it terminates
// even on degenerate LPs (Bland 1977). row is −1 when the LP is unbounded
// along the entering variable; enter is −1 at an optimum.
func bland(t *tableau) (enter, row int) {
	for v := 0; v < 2*t.n+t.m; v++ {
		if t.enterable(v) && t.reduced(v).Sign() > 0 {
			return v, t.ratioTest(v)
		}
	}
	return -1, -1
}

// ratioTest returns the row that leaves when v enters: the one with the
// least ratio rhs/entry over the positive entries of v's column, ties
// going to the lowest-numbered basic variable; −1 when there is no
// positive entry.
func (t *tableau) ratioTest(v int) int {
	j, s := t.stored(v)
	last := t.n + t.m + t.p
	best := -1
	var bestRHS, bestA *big.Rat
	l, r := new(big.Rat), new(big.Rat)
	for i, row := range t.rows {
		a := row[j]
		if a.Sign()*s <= 0 {
			continue
		}
		if s < 0 {
			a = new(big.Rat).Neg(a)
		}
		rhs := row[last]
		if best >= 0 {
			// Compare rhs/a with bestRHS/bestA without dividing (a > 0).
			c := l.Mul(rhs, bestA).Cmp(r.Mul(bestRHS, a))
			if c > 0 || (c == 0 && t.basis[i] > t.basis[best]) {
				continue
			}
		}
		best, bestRHS, bestA = i, rhs, a
	}
	return best
}

// pivot brings variable v into the basis in row r.
func (t *tableau) pivot(r, v int) {
	j, s := t.stored(v)
	pr := t.rows[r]
	inv := new(big.Rat).Inv(pr[j])
	if s < 0 {
		inv.Neg(inv)
	}
	var nz []int
	for k, e := range pr {
		if e.Sign() != 0 {
			e.Mul(e, inv)
			nz = append(nz, k)
		}
	}
	f, tmp := new(big.Rat), new(big.Rat)
	eliminate := func(row []*big.Rat) {
		if row[j].Sign() == 0 {
			return
		}
		f.Set(row[j])
		if s < 0 {
			f.Neg(f)
		}
		for _, k := range nz {
			row[k].Sub(row[k], tmp.Mul(f, pr[k]))
		}
	}
	for i, row := range t.rows {
		if i != r {
			eliminate(row)
		}
	}
	eliminate(t.obj)
	t.basis[r] = v
	t.pivots++
}

// iterate runs the simplex method of the current phase to an optimum
// (unbounded = −1) or to an unbounded entering variable (returned).
func (t *tableau) iterate() (unbounded int, err error) {
	for {
		if t.maxPivots > 0 && t.pivots >= t.maxPivots {
			return -1, errPivotLimit
		}
		v, r := t.rule(t)
		if v < 0 {
			return -1, nil
		}
		if r < 0 {
			return v, nil
		}
		t.pivot(r, v)
	}
}

// driveOutArtificials pivots every artificial still basic (at value 0)
// after phase 1 out of the basis, on any nonzero entry of its row outside
// the artificial columns. The pivots are degenerate (the right-hand side
// is 0), so feasibility is kept. A row with no such entry is a linear
// combination of other rows: its artificial stays basic at 0, and since
// the row is zero in every column that can enter it never changes again.
func (t *tableau) driveOutArtificials() {
	for r := range t.rows {
		if !t.artificial(t.basis[r]) {
			continue
		}
		for j := 0; j < t.n+t.m; j++ {
			e := t.rows[r][j]
			if e.Sign() == 0 {
				continue
			}
			v := j + t.n // a slack
			if j < t.n {
				v = j // x⁺
				if e.Sign() < 0 && t.free[j] {
					v = j + t.n // x⁻, so that the pivot entry is positive (any nonzero one would do: the right-hand side is 0)
				}
			}
			t.pivot(r, v)
			break
		}
	}
}

// solve runs both phases and reads off the solution and its certificate,
// for the LP the tableau was made from (objective c).
func (t *tableau) solve(c Vector) (*Solution, error) {
	needPhase1 := false
	for _, v := range t.basis {
		if t.artificial(v) {
			needPhase1 = true
		}
	}
	last := t.n + t.m + t.p
	if needPhase1 {
		t.setObjective(c, 1)
		if v, err := t.iterate(); err != nil {
			return nil, err
		} else if v >= 0 {
			return nil, errors.New("exact: internal error: phase 1 unbounded")
		}
		// The optimum of phase 1 is −(least sum of artificials) ≤ 0.
		if t.obj[last].Sign() != 0 {
			y, w := t.duals(1)
			return &Solution{Status: Infeasible, Y: y, W: w, Pivots: t.pivots}, nil
		}
		t.driveOutArtificials()
	}
	t.setObjective(c, 2)
	v, err := t.iterate()
	if err != nil {
		return nil, err
	}
	x := t.point()
	if v >= 0 {
		return &Solution{Status: Unbounded, X: x, Ray: t.ray(v), Pivots: t.pivots}, nil
	}
	y, w := t.duals(2)
	value := new(big.Rat).Neg(t.obj[last])
	return &Solution{Status: Optimal, X: x, Value: value, Y: y, W: w, Pivots: t.pivots}, nil
}

// point returns the current basic solution in the original variables.
func (t *tableau) point() Vector {
	x := NewVector(t.n)
	last := t.n + t.m + t.p
	for r, v := range t.basis {
		switch {
		case v < t.n:
			x[v].Add(x[v], t.rows[r][last])
		case v < 2*t.n:
			x[v-t.n].Sub(x[v-t.n], t.rows[r][last])
		}
	}
	return x
}

// ray returns the direction in x along which entering variable v grows
// without bound: v moves by 1 and each basic variable by minus its entry
// in v's column.
func (t *tableau) ray(v int) Vector {
	d := NewVector(t.n)
	j, s := t.stored(v)
	switch {
	case v < t.n:
		d[v].SetInt64(1)
	case v < 2*t.n:
		d[v-t.n].SetInt64(-1)
	}
	tmp := new(big.Rat)
	for r, b := range t.basis {
		tmp.Set(t.rows[r][j])
		if s < 0 {
			tmp.Neg(tmp)
		}
		switch {
		case b < t.n:
			d[b].Sub(d[b], tmp)
		case b < 2*t.n:
			d[b-t.n].Add(d[b-t.n], tmp)
		}
	}
	return d
}

// duals reads the simplex multipliers π = c_B B⁻¹ off the reduced costs
// of the columns that started as ±unit vectors, and turns them back to
// the orientation of the original rows (y = σπ). A slack has cost 0 and
// column σᵢeᵢ, so its reduced cost is −σᵢπᵢ = −yᵢ. An equality's
// artificial has column e_q and cost −1 (phase 1) or 0 (phase 2), so its
// reduced cost is cost − π_q.
func (t *tableau) duals(phase int) (y, w Vector) {
	y = NewVector(t.m)
	for i := range y {
		y[i].Neg(t.obj[t.n+i])
	}
	w = NewVector(t.p)
	for q := range w {
		w[q].Neg(t.obj[t.n+t.m+q])
		if phase == 1 {
			w[q].Sub(w[q], ratOne)
		}
		if t.sigma[t.m+q] < 0 {
			w[q].Neg(w[q])
		}
	}
	return y, w
}
