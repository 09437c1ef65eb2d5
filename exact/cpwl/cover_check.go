package cpwl

import (
	"fmt"
	"math/big"

	"github.com/transformer-cookbook/verify/exact"
)

// CoverResult is the answer of Cover.
type CoverResult struct {
	// Covered reports whether the cells cover the domain.
	Covered bool
	// Gap is a point of the domain in no cell when Covered is false,
	// checked by evaluating every row exactly.
	Gap exact.Vector
	// Parts counts the parts of the split that were decided, and LPs the
	// linear programs solved to decide them (each certified by
	// exact.LP.Check); parts settled by a parallel row of their own need
	// no LP.
	Parts, LPs int
}

// Cover decides exactly whether the closed polyhedra cells cover the
// closed polyhedron domain: whether domain ∖ ⋃ cells is empty. It shares
// nothing with the enumeration of linear regions but the LP solver, so it
// can check that enumeration's answer.
//
// The set outside a cell C = {c_j x ≤ d_j, j = 1…m} splits by the first
// row that fails,
//
//	Q ∖ C = ⋃_j Q ∩ {c_j x > d_j} ∩ {c_i x ≤ d_i, i < j},
//
// into disjoint parts, and Q ⊆ ⋃ cells exactly when every part is
// covered by the other cells. The search starts from a point w of Q: if
// no cell contains w, w is the gap; otherwise Q is split by a cell that
// contains w, and each nonempty part is searched from a point of its own.
// A part is empty when an LP proves it (see part); parts are not dropped
// for being thin, so the decision rests on no argument about interiors,
// and a domain of measure zero in ℝ^d (a line, a point) is decided like
// any other. The points of a
// part violate a row of every cell used above it strictly, so each level
// uses a new cell and the depth is at most len(cells).
//
// Equalities of a cell count as two inequalities. Cells may overlap and
// need not lie in the domain.
func Cover(domain *exact.Polyhedron, cells []*exact.Polyhedron) (*CoverResult, error) {
	if err := domain.Validate(); err != nil {
		return nil, fmt.Errorf("cpwl: cover: domain: %w", err)
	}
	if !domain.Closed() {
		return nil, fmt.Errorf("cpwl: cover: the domain must be closed (it has strict rows)")
	}
	cs := make([][]ineq, 0, len(cells))
	for i, c := range cells {
		if err := c.Validate(); err != nil {
			return nil, fmt.Errorf("cpwl: cover: cell %d: %w", i, err)
		}
		if c.Dim != domain.Dim {
			return nil, fmt.Errorf("cpwl: cover: cell %d lies in ℝ^%d, the domain in ℝ^%d", i, c.Dim, domain.Dim)
		}
		if !c.Closed() {
			return nil, fmt.Errorf("cpwl: cover: cell %d is not closed (it has strict rows)", i)
		}
		if rows, ok := closedRows(c); ok {
			cs = append(cs, rows)
		}
	}
	s := &coverSearch{dom: domain, cells: cs, res: &CoverResult{}}
	w, ok, err := s.part(nil)
	if err != nil {
		return nil, err
	}
	if ok {
		gap, err := s.search(nil, w)
		if err != nil {
			return nil, err
		}
		if gap != nil {
			s.res.Gap = gap
			return s.res, nil
		}
	}
	s.res.Covered = true
	return s.res, nil
}

// ineq is the row a x ≤ b, or a x < b when strict.
type ineq struct {
	a      exact.Vector
	b      *big.Rat
	strict bool
}

func (r ineq) holds(x exact.Vector) bool {
	c := dot(r.a, x).Cmp(r.b)
	return c < 0 || (c == 0 && !r.strict)
}

// closedRows returns the rows of the closed polyhedron p, an equality as
// two inequalities, with rows 0 ≤ b that always hold left out; ok is
// false when a row 0 ≤ b fails, so that p is empty.
func closedRows(p *exact.Polyhedron) (rows []ineq, ok bool) {
	add := func(a exact.Vector, b *big.Rat) bool {
		if a.IsZero() {
			return b.Sign() >= 0
		}
		rows = append(rows, ineq{a: a, b: b})
		return true
	}
	for i := 0; i < p.A.Rows; i++ {
		if !add(p.A.Row(i), p.B[i]) {
			return nil, false
		}
	}
	for i := 0; i < p.G.Rows; i++ {
		if !add(p.G.Row(i), p.H[i]) || !add(neg(p.G.Row(i)), new(big.Rat).Neg(p.H[i])) {
			return nil, false
		}
	}
	return rows, true
}

type coverSearch struct {
	dom   *exact.Polyhedron
	cells [][]ineq
	res   *CoverResult
}

// search returns a point of Q = domain ∩ extra in no cell, or nil when
// the cells cover Q; w is a point of Q.
func (s *coverSearch) search(extra []ineq, w exact.Vector) (exact.Vector, error) {
	k := s.cellAt(w)
	if k < 0 {
		if !s.contains(extra, w) {
			return nil, fmt.Errorf("cpwl: cover: internal error: gap point %v outside its part", w)
		}
		return w, nil
	}
	prefix := extra
	for _, r := range s.cells[k] {
		if s.implied(prefix, r) {
			// The part outside r is empty, and r adds nothing to the
			// prefix.
			s.res.Parts++
			continue
		}
		outside := ineq{a: neg(r.a), b: new(big.Rat).Neg(r.b), strict: true} // r.a x > r.b
		part := append(append(make([]ineq, 0, len(prefix)+1), prefix...), outside)
		p, ok, err := s.part(part)
		if err != nil {
			return nil, err
		}
		if ok {
			if gap, err := s.search(part, p); gap != nil || err != nil {
				return gap, err
			}
		}
		prefix = append(append(make([]ineq, 0, len(prefix)+1), prefix...), r)
	}
	return nil, nil
}

// cellAt returns the index of a cell that contains w, or −1. Among the
// cells that contain w it takes one with the fewest rows tight at w: the
// split by a cell that w lies deep inside leaves the fewest parts.
func (s *coverSearch) cellAt(w exact.Vector) int {
	best, bestTight := -1, 0
	for k, c := range s.cells {
		tight := 0
		for _, r := range c {
			v := dot(r.a, w).Cmp(r.b)
			if v > 0 {
				tight = -1
				break
			}
			if v == 0 {
				tight++
			}
		}
		if tight >= 0 && (best < 0 || tight < bestTight) {
			best, bestTight = k, tight
			if tight == 0 {
				break
			}
		}
	}
	return best
}

func (s *coverSearch) contains(extra []ineq, x exact.Vector) bool {
	if in, err := s.dom.Contains(x); err != nil || !in {
		return false
	}
	for _, r := range extra {
		if !r.holds(x) {
			return false
		}
	}
	return true
}

// implied reports whether the part domain ∩ prefix ∩ {r.a x > r.b} is
// empty because a row of the domain or of prefix is a positive multiple
// λ r.a of r.a with right-hand side at most λ r.b: that row alone gives
// r.a x ≤ r.b. No LP is needed for it.
func (s *coverSearch) implied(prefix []ineq, r ineq) bool {
	for i := 0; i < s.dom.A.Rows; i++ {
		if impliedBy(s.dom.A.Row(i), s.dom.B[i], r) {
			return true
		}
	}
	for _, p := range prefix {
		if impliedBy(p.a, p.b, r) {
			return true
		}
	}
	return false
}

func impliedBy(a exact.Vector, b *big.Rat, r ineq) bool {
	j := 0
	for j < len(r.a) && r.a[j].Sign() == 0 {
		j++
	}
	if j == len(r.a) || a[j].Sign() == 0 {
		return false
	}
	lambda := new(big.Rat).Quo(a[j], r.a[j])
	if lambda.Sign() <= 0 {
		return false
	}
	t := new(big.Rat)
	for c := range a {
		if a[c].Cmp(t.Mul(lambda, r.a[c])) != 0 {
			return false
		}
	}
	return t.Quo(b, lambda).Cmp(r.b) <= 0
}

// part decides whether P = domain ∩ extra is empty, and returns a point of
// it when it is not, checked by evaluating every row.
//
// One LP in (x, t) usually decides: maximize t subject to the domain's
// rows, a x + t ≤ b for every row of extra (strict or not), and t ≤ 1.
// Its optimum t* is certified by the dual (exact.LP.Check). t* > 0 gives
// a point of P with slack t* in every row of extra, strictly inside the
// part, the best start for the search below it; t* < 0, or no feasible
// (x, t), proves even the closure of P empty. Only at t* = 0, where the
// closure is nonempty but flat, a second LP decides P itself
// (exact.Polyhedron.StrictPoint, slack on the strict rows alone, also
// certified).
func (s *coverSearch) part(extra []ineq) (exact.Vector, bool, error) {
	s.res.Parts++
	n := s.dom.Dim
	m := s.dom.A.Rows
	// t = t' + shift with shift ≤ every right-hand side of extra (and ≤ 0),
	// so that x = 0, t' = 0 satisfies the rows of extra and, when the
	// domain's rows hold at 0, the simplex needs no phase 1.
	shift := new(big.Rat)
	for _, r := range extra {
		if r.b.Cmp(shift) < 0 {
			shift = r.b
		}
	}
	lp := &exact.LP{C: exact.NewVector(n + 1), A: exact.NewMatrix(m+len(extra)+1, n+1), B: make(exact.Vector, 0, m+len(extra)+1)}
	lp.C[n].SetInt64(1)
	row := 0
	put := func(a exact.Vector, b *big.Rat, slack bool) {
		for j, x := range a {
			lp.A.At(row, j).Set(x)
		}
		if slack {
			lp.A.At(row, n).SetInt64(1)
		}
		lp.B = append(lp.B, b)
		row++
	}
	for i := 0; i < m; i++ {
		put(s.dom.A.Row(i), s.dom.B[i], false)
	}
	for _, r := range extra {
		put(r.a, new(big.Rat).Sub(r.b, shift), true)
	}
	lp.A.At(row, n).SetInt64(1)
	lp.B = append(lp.B, new(big.Rat).Sub(big.NewRat(1, 1), shift))
	if s.dom.G.Rows > 0 {
		lp.G = exact.NewMatrix(s.dom.G.Rows, n+1)
		for i := 0; i < s.dom.G.Rows; i++ {
			for j := 0; j < n; j++ {
				lp.G.At(i, j).Set(s.dom.G.At(i, j))
			}
		}
		lp.H = s.dom.H
	}
	s.res.LPs++
	sol, err := lp.Solve()
	if err != nil {
		return nil, false, err
	}
	if err := lp.Check(sol); err != nil {
		return nil, false, fmt.Errorf("cpwl: cover: uncertified LP answer: %w", err)
	}
	switch sol.Status {
	case exact.Infeasible:
		return nil, false, nil
	case exact.Unbounded:
		return nil, false, fmt.Errorf("cpwl: cover: internal error: the slack LP is bounded by t ≤ 1")
	}
	var x exact.Vector
	switch t := new(big.Rat).Add(sol.X[n], shift); t.Sign() {
	case -1:
		return nil, false, nil
	case 1:
		x = sol.X[:n]
	default:
		p := &exact.Polyhedron{Dim: n, Strict: make([]bool, m, m+len(extra)), G: s.dom.G, H: s.dom.H}
		rows := make([]exact.Vector, 0, m+len(extra))
		for i := 0; i < m; i++ {
			rows = append(rows, s.dom.A.Row(i))
			p.B = append(p.B, s.dom.B[i])
		}
		for _, r := range extra {
			rows = append(rows, r.a)
			p.B = append(p.B, r.b)
			p.Strict = append(p.Strict, r.strict)
		}
		if p.A, err = exact.MatrixFromRows(n, rows...); err != nil {
			return nil, false, err
		}
		s.res.LPs++
		var ok bool
		if x, ok, err = p.StrictPoint(); err != nil || !ok {
			return nil, false, err
		}
	}
	if !s.contains(extra, x) {
		return nil, false, fmt.Errorf("cpwl: cover: internal error: the LP's point %v is not in its part", x)
	}
	return x, true, nil
}
