package cpwl

import (
	"math/big"
	"testing"

	"github.com/transformer-cookbook/verify/exact"
)

// cpwlFFN returns the FFN of §Continuous Piecewise Linear Functions for
// the points (x_1, y_1), …, (x_{n+1}, y_{n+1}), x_1 < … < x_{n+1}:
// hidden dimension n+1, W1 = [−1, 1, …, 1]ᵀ, b1 = [0, 0, −x_2, …, −x_n],
// W2 = [−m_1, m_1, m_2 − m_1, …, m_n − m_{n−1}], b2 = y_1 − m_1 x_1, with
// slopes m_k = (y_{k+1} − y_k)/(x_{k+1} − x_k). It also returns the
// interpolant as pieces, as the paper writes it by cases.
func cpwlFFN(xs, ys []*big.Rat) (*FFN, []Piece) {
	n := len(xs) - 1
	m := make([]*big.Rat, n+1) // m[1…n]
	for k := 1; k <= n; k++ {
		m[k] = new(big.Rat).Quo(sub(ys[k], ys[k-1]), sub(xs[k], xs[k-1]))
	}
	f := &FFN{W1: exact.NewMatrix(n+1, 1), B1: exact.NewVector(n + 1), W2: exact.NewMatrix(1, n+1)}
	f.W1.At(0, 0).SetInt64(-1)
	f.W2.At(0, 0).Neg(m[1])
	f.W2.At(0, 1).Set(m[1])
	for i := 1; i <= n; i++ {
		f.W1.At(i, 0).SetInt64(1)
	}
	for k := 2; k <= n; k++ {
		f.B1[k].Neg(xs[k-1])
		f.W2.At(0, k).Sub(m[k], m[k-1])
	}
	f.B2 = exact.Vector{sub(ys[0], mul(m[1], xs[0]))}

	// Piece k (1-based) is y_k + m_k (x − x_k) on [x_k, x_{k+1}], the first
	// and last extended to infinity.
	var pieces []Piece
	for k := 1; k <= n; k++ {
		dom := &exact.Polyhedron{Dim: 1}
		var rows []exact.Vector
		if k > 1 {
			rows, dom.B = append(rows, exact.IntVector(-1)), append(dom.B, new(big.Rat).Neg(xs[k-1]))
		}
		if k < n {
			rows, dom.B = append(rows, exact.IntVector(1)), append(dom.B, new(big.Rat).Set(xs[k]))
		}
		dom.A, _ = exact.MatrixFromRows(1, rows...)
		mk, _ := exact.MatrixFromRows(1, exact.Vector{m[k]})
		pieces = append(pieces, Piece{Domain: dom, Map: exact.Affine{A: mk, C: exact.Vector{sub(ys[k-1], mul(m[k], xs[k-1]))}}})
	}
	return f, pieces
}

// TestCPWLWeights checks the construction above against the weights
// derived by hand for the points (−2, 1), (0, −1), (1, 0), (3, 4): slopes
// m = (−1, 1, 2), knots x_2 = 0, x_3 = 1, so W1 = [−1, 1, 1, 1]ᵀ,
// b1 = (0, 0, 0, −1), W2 = (1, −1, 2, 1), b2 = 1 − (−1)(−2) = −1.
func TestCPWLWeights(t *testing.T) {
	f, _ := cpwlFFN(vec(t, "-2 0 1 3"), vec(t, "1 -1 0 4"))
	want := ffn(t, 1, "-1; 1; 1; 1", "0 0 0 -1", "1 -1 2 1", "-1")
	if !f.W1.Equal(want.W1) || !f.B1.Equal(want.B1) || !f.W2.Equal(want.W2) || !f.B2.Equal(want.B2) {
		t.Errorf("weights W1 = %v b1 = %v W2 = %v b2 = %v, want the hand-derived ones", f.W1, f.B1, f.W2, f.B2)
	}
}

// ifPieces is the reference of §Conditionals, "x when p = 1, y when
// p = 0", on inputs (p, x, y). The paper's domain p ∈ {0, 1} is not
// convex; it is stated as two claims, one on the face p = 1 and one on
// p = 0 (each piece meets only its own face; the other is ignored as
// empty there).
func ifPieces(t *testing.T) []Piece {
	return []Piece{piece(t, 3, "0 1 0 | 0", "1 0 0 = 1"), piece(t, 3, "0 0 1 | 0", "1 0 0 = 0")}
}

// proofCase is a cookbook claim that must be proved, with the number of
// linear regions and of compared cells derived by hand.
type proofCase struct {
	name    string
	f       *FFN
	domain  *exact.Polyhedron
	pieces  []Piece
	dim     int
	regions int
	cells   int
}

func proofCases(t *testing.T) []proofCase {
	R := func(d int) *exact.Polyhedron { return poly(t, d) }
	delta, eps := "1/2", "1/4"
	return []proofCase{
		{
			// §Min and Max: units x, −x, x − y; the lines x = 0 and x = y
			// cut ℝ² into 4 regions, each on one side of x = y, so each
			// meets exactly one piece.
			name: "min", f: ffn(t, 2, "1 0; -1 0; 1 -1", "", "1 -1 -1", ""), domain: R(2),
			pieces: []Piece{piece(t, 2, "1 0 | 0", "1 -1 <= 0"), piece(t, 2, "0 1 | 0", "1 -1 >= 0")},
			dim:    2, regions: 4, cells: 4,
		},
		{
			name: "max", f: ffn(t, 2, "1 0; -1 0; -1 1", "", "1 -1 1", ""), domain: R(2),
			pieces: []Piece{piece(t, 2, "1 0 | 0", "1 -1 >= 0"), piece(t, 2, "0 1 | 0", "1 -1 <= 0")},
			dim:    2, regions: 4, cells: 4,
		},
		{
			// §Identity Function, d = 3: the 8 open orthants are the
			// regions (x_i > 0 activates unit i, x_i < 0 unit d + i).
			name: "identity", f: ffn(t, 3, "1 0 0; 0 1 0; 0 0 1; -1 0 0; 0 -1 0; 0 0 -1", "",
				"1 0 0 -1 0 0; 0 1 0 0 -1 0; 0 0 1 0 0 -1", ""),
			domain: R(3),
			pieces: []Piece{piece(t, 3, "1 0 0 | 0; 0 1 0 | 0; 0 0 1 | 0")},
			dim:    3, regions: 8, cells: 8,
		},
		{
			// §Addition and Subtraction: 4 quadrants.
			name: "add", f: ffn(t, 2, "1 0; -1 0; 0 1; 0 -1", "", "1 -1 1 -1", ""), domain: R(2),
			pieces: []Piece{piece(t, 2, "1 1 | 0")},
			dim:    2, regions: 4, cells: 4,
		},
		{
			// §Continuous Piecewise Linear Functions for (−2, 1), (0, −1),
			// (1, 0), (3, 4): units −x, x, x, x − 1 switch at 0 and 1, so
			// 3 regions, one per piece of the interpolant −1 − x, x − 1,
			// 2x − 2.
			name: "cpwl", f: ffn(t, 1, "-1; 1; 1; 1", "0 0 0 -1", "1 -1 2 1", "-1"), domain: R(1),
			pieces: []Piece{
				piece(t, 1, "-1 | -1", "1 <= 0"),
				piece(t, 1, "1 | -1", "1 >= 0", "1 <= 1"),
				piece(t, 1, "2 | -2", "1 >= 1"),
			},
			dim: 1, regions: 3, cells: 3,
		},
		{
			// §Amplification: clip_δ(x) = ReLU(x + δ) − ReLU(x − δ) − δ is
			// x clamped to [−δ, δ]; δ = 1/2.
			name: "clip", f: ffn(t, 1, "1; 1", delta+" -"+delta, "1 -1", "-"+delta), domain: R(1),
			pieces: []Piece{
				piece(t, 1, "0 | -1/2", "1 <= -1/2"),
				piece(t, 1, "1 | 0", "1 >= -1/2", "1 <= 1/2"),
				piece(t, 1, "0 | 1/2", "1 >= 1/2"),
			},
			dim: 1, regions: 3, cells: 3,
		},
		{
			// §Comparisons: GTZero_ε with ε = 1/4: 0 for x ≤ 0, x/ε on
			// [0, ε] (the gray part, still exact), 1 for x ≥ ε.
			name: "gtzero", f: ffn(t, 1, "1; 1", "0 -"+eps, "4 -4", ""), domain: R(1),
			pieces: []Piece{
				piece(t, 1, "0 | 0", "1 <= 0"),
				piece(t, 1, "4 | 0", "1 >= 0", "1 <= 1/4"),
				piece(t, 1, "0 | 1", "1 >= 1/4"),
			},
			dim: 1, regions: 3, cells: 3,
		},
		{
			// GEZero_ε: 0 for x ≤ −ε, 1 + x/ε on [−ε, 0], 1 for x ≥ 0.
			name: "gezero", f: ffn(t, 1, "1; 1", eps+" 0", "4 -4", ""), domain: R(1),
			pieces: []Piece{
				piece(t, 1, "0 | 0", "1 <= -1/4"),
				piece(t, 1, "4 | 1", "1 >= -1/4", "1 <= 0"),
				piece(t, 1, "0 | 1", "1 >= 0"),
			},
			dim: 1, regions: 3, cells: 3,
		},
		{
			// EqZero_ε: units x + ε, x, x − ε give 4 regions; the
			// reference 0, 1 + x/ε, 1 − x/ε, 0.
			name: "eqzero", f: ffn(t, 1, "1; 1; 1", eps+" 0 -"+eps, "4 -8 4", ""), domain: R(1),
			pieces: []Piece{
				piece(t, 1, "0 | 0", "1 <= -1/4"),
				piece(t, 1, "4 | 1", "1 >= -1/4", "1 <= 0"),
				piece(t, 1, "-4 | 1", "1 >= 0", "1 <= 1/4"),
				piece(t, 1, "0 | 0", "1 >= 1/4"),
			},
			dim: 1, regions: 4, cells: 4,
		},
		{
			// GTZero(x, ε) = ReLU(x) − ReLU(x − ε) on ε ≥ 0 (inputs (x, ε)):
			// 0, x, ε. The pattern (inactive, active) would need x < 0 < ε
			// ≤ x... it is empty, so 3 regions.
			name: "gtzero-eps", f: ffn(t, 2, "1 0; 1 -1", "", "1 -1", ""), domain: poly(t, 2, "0 1 >= 0"),
			pieces: []Piece{
				piece(t, 2, "0 0 | 0", "1 0 <= 0"),
				piece(t, 2, "1 0 | 0", "1 0 >= 0", "1 -1 <= 0"),
				piece(t, 2, "0 1 | 0", "1 -1 >= 0"),
			},
			dim: 2, regions: 3, cells: 3,
		},
		{
			// §Conditionals on the paper's domain, the case p = 1, x, y ∈
			// [0, 1]: if(1, x, y) = ReLU(x) + ReLU(y − 1) = x. The
			// domain is the square {p = 1} × [0, 1]², 2-dimensional; in it
			// unit 1 (= x) is active and unit 2 (= y − 1) inactive: one
			// region.
			name: "if p=1", f: ffn(t, 3, "1 1 0; -1 0 1", "-1 0", "1 1", ""),
			domain: poly(t, 3, "1 0 0 = 1", "0 1 0 >= 0", "0 1 0 <= 1", "0 0 1 >= 0", "0 0 1 <= 1"),
			pieces: ifPieces(t),
			dim:    2, regions: 1, cells: 1,
		},
		{
			// The case p = 0: ReLU(x − 1) + ReLU(y) = y.
			name: "if p=0", f: ffn(t, 3, "1 1 0; -1 0 1", "-1 0", "1 1", ""),
			domain: poly(t, 3, "1 0 0 = 0", "0 1 0 >= 0", "0 1 0 <= 1", "0 0 1 >= 0", "0 0 1 <= 1"),
			pieces: ifPieces(t),
			dim:    2, regions: 1, cells: 1,
		},
		{
			// A domain that is a single point, (1, 2): min is 1 there, and
			// the one "region" is 0-dimensional.
			name: "min at a point", f: ffn(t, 2, "1 0; -1 0; 1 -1", "", "1 -1 -1", ""),
			domain: poly(t, 2, "1 0 = 1", "0 1 <= 2", "0 1 >= 2"),
			pieces: []Piece{piece(t, 2, "1 0 | 0", "1 -1 <= 0"), piece(t, 2, "0 1 | 0", "1 -1 >= 0")},
			dim:    0, regions: 1, cells: 1,
		},
		{
			// GTZero_ε with an extra lower-dimensional piece {x = 0} ↦ 0,
			// consistent with the others: checked in its own hull, it adds
			// one 0-dimensional cell.
			name: "gtzero with a point piece", f: ffn(t, 1, "1; 1", "0 -"+eps, "4 -4", ""), domain: R(1),
			pieces: []Piece{
				piece(t, 1, "0 | 0", "1 <= 0"),
				piece(t, 1, "4 | 0", "1 >= 0", "1 <= 1/4"),
				piece(t, 1, "0 | 1", "1 >= 1/4"),
				piece(t, 1, "0 | 0", "1 = 0"),
			},
			dim: 1, regions: 3, cells: 4,
		},
		{
			// The zero FFN (zero weights: constant units) is 0 on ℝ².
			name: "zero", f: ffn(t, 2, "0 0; 0 0", "0 0", "0 0; 0 0", "0 0"), domain: R(2),
			pieces: []Piece{piece(t, 2, "0 0 | 0; 0 0 | 0")},
			dim:    2, regions: 1, cells: 1,
		},
	}
}

func TestCookbookProofs(t *testing.T) {
	for _, tc := range proofCases(t) {
		t.Run(tc.name, func(t *testing.T) {
			res, err := Verify(tc.f, tc.domain, tc.pieces, &Options{Explain: true})
			if err != nil {
				t.Fatal(err)
			}
			if res.Verdict != Equal {
				t.Fatalf("verdict %v (counterexample %+v, gap %v), want equal", res.Verdict, res.Counterexample, res.Gap)
			}
			if res.Dim != tc.dim || res.Regions != tc.regions || res.Cells != tc.cells {
				t.Errorf("dim %d, %d regions, %d cells; want %d, %d, %d", res.Dim, res.Regions, res.Cells, tc.dim, tc.regions, tc.cells)
			}
			checkExplained(t, tc.f, tc.domain, tc.pieces, res)
			if _, err := CheckVerify(tc.f, tc.domain, tc.pieces, res.Certificate); err != nil {
				t.Errorf("certificate rejected: %v", err)
			}
		})
	}
}

// checkExplained checks each listed cell independently: its point lies in
// the domain and the piece, f's activation pattern there is the cell's
// (units at exactly 0 excepted), and f equals the piece's map there.
func checkExplained(t *testing.T, f *FFN, domain *exact.Polyhedron, pieces []Piece, res *Result) {
	t.Helper()
	if len(res.Explained) != res.Cells {
		t.Fatalf("%d cells explained, %d counted", len(res.Explained), res.Cells)
	}
	for _, c := range res.Explained {
		if in, err := domain.Contains(c.Point); err != nil || !in {
			t.Errorf("cell point %v not in the domain", c.Point)
		}
		if in, err := pieces[c.Piece].Domain.Contains(c.Point); err != nil || !in {
			t.Errorf("cell point %v not in piece %d", c.Point, c.Piece)
		}
		pre, _ := f.Pre(c.Point)
		for i, z := range pre {
			if z.Sign() != 0 && (z.Sign() > 0) != c.Pattern[i] {
				t.Errorf("cell point %v: unit %d has pre-activation %v, pattern %v", c.Point, i, z, c.Pattern)
			}
		}
		fx, _ := f.Eval(c.Point)
		gx, _ := pieces[c.Piece].Map.Apply(c.Point)
		if !fx.Equal(gx) {
			t.Errorf("at %v: f = %v, piece %d = %v", c.Point, fx, c.Piece, gx)
		}
	}
}

// refutation is a false claim; check examines the counterexample with
// formulas written by hand, independent of the FFN code.
type refutation struct {
	name   string
	f      *FFN
	domain *exact.Polyhedron
	pieces []Piece
	check  func(t *testing.T, ce *Counterexample)
}

func TestCookbookRefutations(t *testing.T) {
	ifFFN := ffn(t, 3, "1 1 0; -1 0 1", "-1 0", "1 1", "")
	// if(p, x, y) by hand: ReLU(p + x − 1) + ReLU(y − p).
	ifByHand := func(p, x, y *big.Rat) *big.Rat {
		return add(relu(sub(add(p, x), r(1, 1))), relu(sub(y, p)))
	}
	cases := []refutation{
		{
			// min with W2 = [1, −1, −9/10]: f(x, y) = x − (9/10) ReLU(x − y),
			// which is min(x, y) + (x − y)/10 where x > y.
			name: "perturbed min", f: ffn(t, 2, "1 0; -1 0; 1 -1", "", "1 -1 -9/10", ""), domain: poly(t, 2),
			pieces: []Piece{piece(t, 2, "1 0 | 0", "1 -1 <= 0"), piece(t, 2, "0 1 | 0", "1 -1 >= 0")},
			check: func(t *testing.T, ce *Counterexample) {
				x, y := ce.X[0], ce.X[1]
				f := sub(x, mul(r(9, 10), relu(sub(x, y))))
				m := x
				if y.Cmp(x) < 0 {
					m = y
				}
				if x.Cmp(y) <= 0 {
					t.Errorf("counterexample (%v, %v) has x ≤ y, where f = min", x, y)
				}
				if ce.F[0].Cmp(f) != 0 || ce.G[0].Cmp(m) != 0 {
					t.Errorf("at (%v, %v): reported f = %v, g = %v; by hand f = %v, min = %v", x, y, ce.F[0], ce.G[0], f, m)
				}
				if d := sub(f, m); d.Cmp(mul(r(1, 10), sub(x, y))) != 0 {
					t.Errorf("f − min = %v, by hand (x − y)/10", d)
				}
			},
		},
		{
			// §Conditionals with p = 1 but x ∈ [−1, 1] (the paper assumes
			// x ∈ [0, 1]): ReLU(x) + ReLU(y − 1) = ReLU(x) ≠ x for x < 0.
			name: "if with negative x", f: ifFFN,
			domain: poly(t, 3, "1 0 0 = 1", "0 1 0 >= -1", "0 1 0 <= 1", "0 0 1 >= 0", "0 0 1 <= 1"),
			pieces: ifPieces(t),
			check: func(t *testing.T, ce *Counterexample) {
				p, x, y := ce.X[0], ce.X[1], ce.X[2]
				if p.Cmp(r(1, 1)) != 0 || x.Cmp(r(-1, 1)) < 0 || x.Sign() >= 0 || y.Sign() < 0 || y.Cmp(r(1, 1)) > 0 {
					t.Errorf("counterexample %v: want p = 1, −1 ≤ x < 0, 0 ≤ y ≤ 1", ce.X)
				}
				if f := ifByHand(p, x, y); f.Sign() != 0 || ce.F[0].Cmp(f) != 0 || ce.G[0].Cmp(x) != 0 {
					t.Errorf("at %v: reported f = %v, g = %v; by hand f = %v (0), g = x", ce.X, ce.F[0], ce.G[0], f)
				}
			},
		},
		{
			// p = 1, x ∈ [0, 1], y ∈ [0, 2]: for y > 1 the second unit
			// fires, f = x + y − 1.
			name: "if with y above 1", f: ifFFN,
			domain: poly(t, 3, "1 0 0 = 1", "0 1 0 >= 0", "0 1 0 <= 1", "0 0 1 >= 0", "0 0 1 <= 2"),
			pieces: ifPieces(t),
			check: func(t *testing.T, ce *Counterexample) {
				p, x, y := ce.X[0], ce.X[1], ce.X[2]
				if p.Cmp(r(1, 1)) != 0 || y.Cmp(r(1, 1)) <= 0 || y.Cmp(r(2, 1)) > 0 {
					t.Errorf("counterexample %v: want p = 1, 1 < y ≤ 2", ce.X)
				}
				if f := ifByHand(p, x, y); f.Cmp(sub(add(x, y), r(1, 1))) != 0 || ce.F[0].Cmp(f) != 0 {
					t.Errorf("at %v: reported f = %v; by hand x + y − 1 = %v", ce.X, ce.F[0], f)
				}
			},
		},
		{
			// The indicator 𝕀[x > 0] written with closed pieces is not
			// what GTZero_ε computes (nor any continuous function).
			name: "gtzero vs indicator", f: ffn(t, 1, "1; 1", "0 -1/4", "4 -4", ""), domain: poly(t, 1),
			pieces: []Piece{piece(t, 1, "0 | 0", "1 <= 0"), piece(t, 1, "0 | 1", "1 >= 0")},
			check: func(t *testing.T, ce *Counterexample) {
				x := ce.X[0]
				g := r(0, 1)
				if ce.Piece == 1 {
					g = r(1, 1)
				}
				f := mul(r(4, 1), sub(relu(x), relu(sub(x, r(1, 4)))))
				if ce.F[0].Cmp(f) != 0 || ce.G[0].Cmp(g) != 0 || f.Cmp(g) == 0 {
					t.Errorf("at x = %v (piece %d): reported f = %v, g = %v; by hand f = %v, g = %v", x, ce.Piece, ce.F[0], ce.G[0], f, g)
				}
				if x.Sign() <= 0 || x.Cmp(r(1, 4)) >= 0 {
					t.Errorf("x = %v: GTZero_1/4 is 𝕀[x > 0] outside (0, 1/4)", x)
				}
			},
		},
		{
			// A consistent-looking extra piece {x = 0} ↦ 5: lower-
			// dimensional, and wrong.
			name: "wrong point piece", f: ffn(t, 1, "1; 1", "0 -1/4", "4 -4", ""), domain: poly(t, 1),
			pieces: []Piece{
				piece(t, 1, "0 | 0", "1 <= 0"),
				piece(t, 1, "4 | 0", "1 >= 0", "1 <= 1/4"),
				piece(t, 1, "0 | 1", "1 >= 1/4"),
				piece(t, 1, "0 | 5", "1 = 0"),
			},
			check: func(t *testing.T, ce *Counterexample) {
				if ce.Piece != 3 || ce.X[0].Sign() != 0 || ce.F[0].Sign() != 0 || ce.G[0].Cmp(r(5, 1)) != 0 {
					t.Errorf("counterexample %+v: want piece 3 at x = 0 with f = 0, g = 5", ce)
				}
			},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res, err := Verify(tc.f, tc.domain, tc.pieces, nil)
			if err != nil {
				t.Fatal(err)
			}
			if res.Verdict != Differ {
				t.Fatalf("verdict %v, want differ", res.Verdict)
			}
			ce := res.Counterexample
			if in, _ := tc.domain.Contains(ce.X); !in {
				t.Errorf("counterexample %v outside the domain", ce.X)
			}
			if in, _ := tc.pieces[ce.Piece].Domain.Contains(ce.X); !in {
				t.Errorf("counterexample %v outside piece %d", ce.X, ce.Piece)
			}
			tc.check(t, ce)
		})
	}
}

// TestUncovered: pieces that leave part of the domain out.
func TestUncovered(t *testing.T) {
	minFFN := ffn(t, 2, "1 0; -1 0; 1 -1", "", "1 -1 -1", "")
	ifFFN := ffn(t, 3, "1 1 0; -1 0 1", "-1 0", "1 1", "")
	tests := []struct {
		name   string
		f      *FFN
		domain *exact.Polyhedron
		pieces []Piece
		inGap  func(x exact.Vector) bool // by hand: where no piece is
	}{
		{
			name: "min with one piece", f: minFFN, domain: poly(t, 2),
			pieces: []Piece{piece(t, 2, "1 0 | 0", "1 -1 <= 0")},
			inGap:  func(x exact.Vector) bool { return x[0].Cmp(x[1]) > 0 },
		},
		{
			// "x when p = 1, y when p = 0" on p ∈ [0, 1] (not the paper's
			// domain, which is p ∈ {0, 1}, two claims): the pieces are
			// the two faces, and 0 < p < 1 is left out.
			name: "if on a box", f: ifFFN,
			domain: poly(t, 3, "1 0 0 >= 0", "1 0 0 <= 1", "0 1 0 >= 0", "0 1 0 <= 1", "0 0 1 >= 0", "0 0 1 <= 1"),
			pieces: []Piece{piece(t, 3, "0 1 0 | 0", "1 0 0 = 1"), piece(t, 3, "0 0 1 | 0", "1 0 0 = 0")},
			inGap:  func(x exact.Vector) bool { return x[0].Sign() > 0 && x[0].Cmp(r(1, 1)) < 0 },
		},
		{
			name: "no pieces", f: minFFN, domain: poly(t, 2, "1 0 <= 1"),
			inGap: func(x exact.Vector) bool { return x[0].Cmp(r(1, 1)) <= 0 },
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res, err := Verify(tc.f, tc.domain, tc.pieces, nil)
			if err != nil {
				t.Fatal(err)
			}
			if res.Verdict != Uncovered {
				t.Fatalf("verdict %v, want uncovered", res.Verdict)
			}
			if !tc.inGap(res.Gap) {
				t.Errorf("gap point %v is not where the pieces leave a gap", res.Gap)
			}
		})
	}
}
