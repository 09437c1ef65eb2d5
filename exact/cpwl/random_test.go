package cpwl

import (
	"math/big"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/transformer-cookbook/verify/exact"
)

// randomFFN returns an FFN ℝ^d → ℝ^k with h hidden units and integer
// weights and biases in [−3, 3].
func randomFFN(rng *rand.Rand, d, h, k int) *FFN {
	ri := func() *big.Rat { return big.NewRat(int64(rng.IntN(7)-3), 1) }
	f := &FFN{W1: exact.NewMatrix(h, d), B1: exact.NewVector(h), W2: exact.NewMatrix(k, h), B2: exact.NewVector(k)}
	for _, v := range [][]*big.Rat{f.W1.Data, f.B1, f.W2.Data, f.B2} {
		for i := range v {
			v[i] = ri()
		}
	}
	return f
}

func cloneFFN(f *FFN) *FFN {
	return &FFN{
		W1: exact.Matrix{Rows: f.W1.Rows, Cols: f.W1.Cols, Data: exact.Vector(f.W1.Data).Clone()},
		B1: f.B1.Clone(),
		W2: exact.Matrix{Rows: f.W2.Rows, Cols: f.W2.Cols, Data: exact.Vector(f.W2.Data).Clone()},
		B2: f.B2.Clone(),
	}
}

// rebuild returns the FFN whose hidden units are the given (w, b, W2
// column) triples.
func rebuild(f *FFN, units [][3]exact.Vector) *FFN {
	g := &FFN{W1: exact.NewMatrix(len(units), f.In()), B1: exact.NewVector(len(units)), W2: exact.NewMatrix(f.Out(), len(units)), B2: f.B2.Clone()}
	for u, un := range units {
		for j, x := range un[0] {
			g.W1.Set(u, j, x)
		}
		g.B1[u].Set(un[1][0])
		for o, x := range un[2] {
			g.W2.Set(o, u, x)
		}
	}
	return g
}

func unitsOf(f *FFN) [][3]exact.Vector {
	var units [][3]exact.Vector
	for u := 0; u < f.Hidden(); u++ {
		col := make(exact.Vector, f.Out())
		for o := range col {
			col[o] = f.W2.At(o, u)
		}
		units = append(units, [3]exact.Vector{f.W1.Row(u), {f.B1[u]}, col})
	}
	return units
}

func scaled(v exact.Vector, c *big.Rat) exact.Vector {
	w := make(exact.Vector, len(v))
	for i, x := range v {
		w[i] = new(big.Rat).Mul(x, c)
	}
	return w
}

// Perturbations: the first three keep the function on the box [−4, 4]^d
// (so the verdict must be Equal), the last may change it.
const (
	same       = iota // a copy
	rearranged        // units permuted, one split in halves, one rescaled
	deadUnit          // plus a unit with w = e₁, b = −5: inactive on the box
	nudged            // one parameter moved by ±1
)

func perturb(rng *rand.Rand, f *FFN, kind int) *FFN {
	switch kind {
	case same:
		return cloneFFN(f)
	case rearranged:
		units := unitsOf(f)
		rng.Shuffle(len(units), func(i, j int) { units[i], units[j] = units[j], units[i] })
		// ReLU(c z) = c ReLU(z) for c > 0: scale unit 0 by c, its output by 1/c.
		c := big.NewRat(int64(2+rng.IntN(2)), 1)
		u0 := units[0]
		units[0] = [3]exact.Vector{scaled(u0[0], c), scaled(u0[1], c), scaled(u0[2], new(big.Rat).Inv(c))}
		half := big.NewRat(1, 2)
		last := units[len(units)-1]
		h := [3]exact.Vector{last[0], last[1], scaled(last[2], half)}
		return rebuild(f, append(units[:len(units)-1], h, h))
	case deadUnit:
		units := unitsOf(f)
		w := exact.NewVector(f.In())
		w[0].SetInt64(1)
		out := exact.NewVector(f.Out())
		for o := range out {
			out[o].SetInt64(int64(rng.IntN(7) - 3))
		}
		return rebuild(f, append(units, [3]exact.Vector{w, exact.IntVector(-5), out}))
	}
	g := cloneFFN(f)
	params := [][]*big.Rat{g.W1.Data, g.B1, g.W2.Data, g.B2}
	p := params[rng.IntN(len(params))]
	e := p[rng.IntN(len(p))]
	e.Add(e, big.NewRat(int64(2*rng.IntN(2)-1), 1))
	return g
}

func box(d int, lo, hi int64) *exact.Polyhedron {
	p := &exact.Polyhedron{Dim: d, A: exact.NewMatrix(2*d, d)}
	for j := 0; j < d; j++ {
		p.A.At(2*j, j).SetInt64(1)
		p.A.At(2*j+1, j).SetInt64(-1)
		p.B = append(p.B, big.NewRat(hi, 1), big.NewRat(-lo, 1))
	}
	return p
}

// samples returns the points of [−4, 4]^d with coordinates in steps of
// 1/2, and 100 random ones with denominator 16.
func samples(rng *rand.Rand, d int) []exact.Vector {
	var pts []exact.Vector
	var rec func(prefix exact.Vector)
	rec = func(prefix exact.Vector) {
		if len(prefix) == d {
			pts = append(pts, prefix)
			return
		}
		for i := int64(-8); i <= 8; i++ {
			rec(append(slices.Clone(prefix), big.NewRat(i, 2)))
		}
	}
	rec(nil)
	for k := 0; k < 100; k++ {
		x := make(exact.Vector, d)
		for j := range x {
			x[j] = big.NewRat(int64(rng.IntN(129)-64), 16)
		}
		pts = append(pts, x)
	}
	return pts
}

// TestRandomEquivalent compares seeded random FFNs with perturbed copies
// and the verdict with dense sampling: a difference found by sampling
// must be a Differ verdict, the function-preserving perturbations must be
// proved Equal, and every counterexample must check out.
func TestRandomEquivalent(t *testing.T) {
	rng := rand.New(rand.NewPCG(2024, 1))
	grids := map[int][]exact.Vector{1: samples(rng, 1), 2: samples(rng, 2)}
	var differ, sampled int
	for trial := 0; trial < 80; trial++ {
		d := 1 + trial%2
		f := randomFFN(rng, d, 2+rng.IntN(4), 1+rng.IntN(2))
		kind := trial % 4
		g := perturb(rng, f, kind)
		dom := box(d, -4, 4)
		res, err := Equivalent(f, g, dom, nil)
		if err != nil {
			t.Fatalf("trial %d: %v", trial, err)
		}
		found := false
		for _, x := range grids[d] {
			fx, _ := f.Eval(x)
			gx, _ := g.Eval(x)
			if !fx.Equal(gx) {
				found = true
				break
			}
		}
		if found && res.Verdict != Differ {
			t.Errorf("trial %d (kind %d): sampling finds f ≠ g, verdict %v", trial, kind, res.Verdict)
		}
		if kind != nudged && res.Verdict != Equal {
			t.Errorf("trial %d (kind %d): a function-preserving change, verdict %v at %v", trial, kind, res.Verdict, res.Counterexample.X)
		}
		if res.Verdict == Equal {
			if _, err := CheckEquivalent(f, g, dom, res.Certificate); err != nil {
				t.Errorf("trial %d (kind %d): certificate rejected: %v", trial, kind, err)
			}
		}
		if res.Verdict == Differ {
			differ++
			if found {
				sampled++
			}
			ce := res.Counterexample
			fx, _ := f.Eval(ce.X)
			gx, _ := g.Eval(ce.X)
			if in, _ := dom.Contains(ce.X); !in || fx.Equal(gx) {
				t.Errorf("trial %d: bad counterexample %v (in domain %v, f = %v, g = %v)", trial, ce.X, in, fx, gx)
			}
		}
		// The common refinement of f with itself is f's own regions.
		if kind == same {
			regs, err := Regions(f, dom, nil)
			if err != nil || len(regs) != res.Regions {
				t.Errorf("trial %d: %d regions of f, %d of f against itself (%v)", trial, len(regs), res.Regions, err)
			}
		}
	}
	t.Logf("%d differ verdicts, %d of them also found by sampling", differ, sampled)
	if differ == 0 {
		t.Error("no nudge changed the function: the test exercises nothing")
	}
}

// TestRandomDeadUnitOutsideBox: the dead unit is dead only on the box; on
// ℝ^d the function changes (where x₁ > 5, if the unit's output weights
// are not all 0), and a counterexample must lie there.
func TestRandomDeadUnitOutsideBox(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	for trial := 0; trial < 20; trial++ {
		d := 1 + trial%2
		f := randomFFN(rng, d, 3, 1)
		g := perturb(rng, f, deadUnit)
		res, err := Equivalent(f, g, poly(t, d), nil)
		if err != nil {
			t.Fatal(err)
		}
		dead := g.W2.At(0, g.Hidden()-1).Sign() == 0
		switch {
		case dead && res.Verdict != Equal:
			t.Errorf("trial %d: zero output weight, verdict %v", trial, res.Verdict)
		case !dead && res.Verdict != Differ:
			t.Errorf("trial %d: verdict %v, want differ for x₁ > 5", trial, res.Verdict)
		case !dead && res.Counterexample.X[0].Cmp(big.NewRat(5, 1)) <= 0:
			t.Errorf("trial %d: counterexample %v, but f = g where x₁ ≤ 5", trial, res.Counterexample.X)
		}
	}
}

// TestRandomInterpolants builds §Continuous Piecewise Linear Functions'
// FFN for random points and proves it equal to the interpolant; then
// moves one point of the reference and expects a counterexample near it.
func TestRandomInterpolants(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 5))
	for trial := 0; trial < 40; trial++ {
		n := 2 + rng.IntN(5) // n pieces, n+1 points
		var xs, ys []*big.Rat
		x := int64(-10)
		for k := 0; k <= n; k++ {
			x += 1 + int64(rng.IntN(4))
			xs = append(xs, big.NewRat(x, 2))
			ys = append(ys, big.NewRat(int64(rng.IntN(11)-5), int64(1+rng.IntN(3))))
		}
		f, pieces := cpwlFFN(xs, ys)
		res, err := Verify(f, poly(t, 1), pieces, nil)
		if err != nil {
			t.Fatal(err)
		}
		if res.Verdict != Equal || res.Cells < n {
			t.Fatalf("trial %d: points %v %v: verdict %v, %d cells", trial, xs, ys, res.Verdict, res.Cells)
		}
		if _, err := CheckVerify(f, poly(t, 1), pieces, res.Certificate); err != nil {
			t.Errorf("trial %d: certificate rejected: %v", trial, err)
		}
		// Move y_j by 1 in the reference only.
		j := rng.IntN(n + 1)
		ys2 := slices.Clone(ys)
		ys2[j] = new(big.Rat).Add(ys[j], big.NewRat(1, 1))
		_, moved := cpwlFFN(xs, ys2)
		res, err = Verify(f, poly(t, 1), moved, nil)
		if err != nil {
			t.Fatal(err)
		}
		if res.Verdict != Differ {
			t.Fatalf("trial %d: moved point %d, verdict %v", trial, j, res.Verdict)
		}
		// The reference changed only on the pieces touching x_j: the
		// counterexample lies strictly between x_{j−1} and x_{j+1} (the
		// outer pieces extend to ±∞).
		cx := res.Counterexample.X[0]
		if (j >= 2 && cx.Cmp(xs[j-1]) <= 0) || (j+2 <= n && cx.Cmp(xs[j+1]) >= 0) {
			t.Errorf("trial %d: moved point %d at %v, counterexample %v too far", trial, j, xs[j], cx)
		}
		fx, _ := f.Eval(res.Counterexample.X)
		gx, _ := moved[res.Counterexample.Piece].Map.Apply(res.Counterexample.X)
		if fx.Equal(gx) {
			t.Errorf("trial %d: f = g = %v at the counterexample", trial, fx)
		}
	}
}

// TestRandomRegionsAsPieces takes a random FFN on a box, writes its
// regions as the pieces of a reference (the sign conditions of each
// pattern, built here from the pattern alone), and proves f equal to it;
// then spoils one piece's offset (differ, inside that piece) or drops a
// piece (uncovered, inside the dropped region).
func TestRandomRegionsAsPieces(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 9))
	for trial := 0; trial < 12; trial++ {
		d := 1 + trial%2
		f := randomFFN(rng, d, 3, 1)
		dom := box(d, -4, 4)
		regs, err := Regions(f, dom, nil)
		if err != nil {
			t.Fatal(err)
		}
		pieces := make([]Piece, len(regs))
		for i, reg := range regs {
			p := &exact.Polyhedron{Dim: d, A: exact.NewMatrix(f.Hidden(), d), B: exact.NewVector(f.Hidden())}
			for u := 0; u < f.Hidden(); u++ {
				// Active: w x + b ≥ 0, i.e. −w x ≤ b; inactive: w x ≤ −b.
				for j := 0; j < d; j++ {
					p.A.Set(u, j, f.W1.At(u, j))
					if reg.Pattern[u] {
						p.A.At(u, j).Neg(p.A.At(u, j))
					}
				}
				p.B[u].Set(f.B1[u])
				if !reg.Pattern[u] {
					p.B[u].Neg(p.B[u])
				}
			}
			m, _ := f.RegionMap(reg.Pattern)
			pieces[i] = Piece{Domain: p, Map: m}
		}
		res, err := Verify(f, dom, pieces, nil)
		if err != nil {
			t.Fatal(err)
		}
		if res.Verdict != Equal || res.Cells != len(regs) {
			t.Fatalf("trial %d: verdict %v with %d cells for %d regions", trial, res.Verdict, res.Cells, len(regs))
		}
		if _, err := CheckVerify(f, dom, pieces, res.Certificate); err != nil {
			t.Errorf("trial %d: certificate rejected: %v", trial, err)
		}
		i := rng.IntN(len(pieces))
		spoiled := slices.Clone(pieces)
		spoiled[i].Map = exact.Affine{A: pieces[i].Map.A, C: exact.Vector{new(big.Rat).Add(pieces[i].Map.C[0], big.NewRat(1, 3))}}
		res, err = Verify(f, dom, spoiled, nil)
		if err != nil {
			t.Fatal(err)
		}
		if res.Verdict != Differ || res.Counterexample.Piece != i {
			t.Errorf("trial %d: spoiled piece %d, verdict %v", trial, i, res.Verdict)
		}
		if len(pieces) > 1 {
			dropped := slices.Delete(slices.Clone(pieces), i, i+1)
			res, err = Verify(f, dom, dropped, nil)
			if err != nil {
				t.Fatal(err)
			}
			if res.Verdict != Uncovered {
				t.Fatalf("trial %d: dropped piece %d, verdict %v", trial, i, res.Verdict)
			}
			if s, _ := f.PatternAt(res.Gap); s.String() != regs[i].Pattern.String() {
				t.Errorf("trial %d: gap %v has pattern %v, the dropped region %v", trial, res.Gap, s, regs[i].Pattern)
			}
		}
	}
}

// TestRegionsBruteForce checks the depth-first enumeration against the
// plain definition: a pattern s is a region exactly when the polyhedron
// {x ∈ D : (W1 x + b1)_i ≥ 0 where s_i, ≤ 0 elsewhere} has an interior
// point, asked of exact.Polyhedron.InteriorPoint for each of the 2^h
// patterns — no search, no steps across hyperplanes, no parallel-row
// shortcuts. Repeated and opposite units are mixed in, since those are
// what the shortcuts handle.
func TestRegionsBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 8))
	for trial := 0; trial < 24; trial++ {
		d := 1 + trial%3
		f := randomFFN(rng, d, 3+rng.IntN(3), 1)
		if trial%2 == 1 {
			// Repeat unit 0 negated and doubled (the same hyperplane).
			units := unitsOf(f)
			two := big.NewRat(-2, 1)
			f = rebuild(f, append(units, [3]exact.Vector{scaled(units[0][0], two), scaled(units[0][1], two), units[0][2]}))
		}
		dom := box(d, -4, 4)
		if trial%4 >= 2 {
			dom = poly(t, d)
		}
		want := map[string]bool{}
		h := f.Hidden()
		for mask := 0; mask < 1<<h; mask++ {
			p := &exact.Polyhedron{Dim: d, A: exact.NewMatrix(dom.A.Rows+h, d), B: exact.NewVector(dom.A.Rows + h)}
			for i := 0; i < dom.A.Rows; i++ {
				for j := 0; j < d; j++ {
					p.A.Set(i, j, dom.A.At(i, j))
				}
				p.B[i].Set(dom.B[i])
			}
			s := make(Pattern, h)
			for u := 0; u < h; u++ {
				s[u] = mask>>u&1 == 1
				row := dom.A.Rows + u
				for j := 0; j < d; j++ {
					p.A.Set(row, j, f.W1.At(u, j))
					if s[u] {
						p.A.At(row, j).Neg(p.A.At(row, j))
					}
				}
				p.B[row].Set(f.B1[u])
				if !s[u] {
					p.B[row].Neg(p.B[row])
				}
			}
			// A unit with w = 0 is constant: its pattern is fixed by the
			// sign of b (inactive at b = 0), not left to both.
			constant := false
			for u := 0; u < h; u++ {
				if exact.Vector(f.W1.Row(u)).IsZero() && s[u] != (f.B1[u].Sign() > 0) {
					constant = true
				}
			}
			if constant {
				continue
			}
			if _, ok, err := p.InteriorPoint(); err != nil {
				t.Fatal(err)
			} else if ok {
				want[s.String()] = true
			}
		}
		regs, err := Regions(f, dom, nil)
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]bool{}
		for _, reg := range regs {
			if got[reg.Pattern.String()] {
				t.Errorf("trial %d: region %v found twice", trial, reg.Pattern)
			}
			got[reg.Pattern.String()] = true
		}
		for s := range want {
			if !got[s] {
				t.Errorf("trial %d: region %s missed", trial, s)
			}
		}
		for s := range got {
			if !want[s] {
				t.Errorf("trial %d: %s is not a full-dimensional region", trial, s)
			}
		}
		if _, err := CheckRegions(f, dom, regs); err != nil {
			t.Errorf("trial %d: regions rejected: %v", trial, err)
		}
	}
}
