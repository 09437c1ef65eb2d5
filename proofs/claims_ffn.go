package proofs

import (
	"fmt"
	"math/big"
	"math/rand/v2"
	"strings"

	"github.com/transformer-cookbook/verify/exact"
	"github.com/transformer-cookbook/verify/exact/cpwl"
	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/numeric"
	"github.com/transformer-cookbook/verify/recipes/blocks"
	"github.com/transformer-cookbook/verify/recipes/stream"
)

// The claims of §Feed-Forward Layers: each ReLU construction is decided
// on its whole domain by the exact decision procedure (exact/cpwl), the
// Boolean ones by exhaustive exact evaluation, and the GELU product of
// §Multiplication by certified interval searches. The cheat sheet's
// "Exact?" column is checked row by row at the end. Helpers are prefixed
// ff (this file) so as not to collide with the other chapters' files.

// proveAt proves a fixed-ε block for several ε, each on all of ℝ.
func proveAt(epsilons []string, build func(eps *big.Rat) *stream.FF, pieces func(eps *big.Rat) []cpwl.Piece) func() (*Evidence, error) {
	return func() (*Evidence, error) {
		var cases []ffnCase
		for _, e := range epsilons {
			eps := q(e)
			cases = append(cases, ffnCase{label: "ε = " + e, f: build(eps), domain: space(1), pieces: pieces(eps)})
		}
		return ffProveCases(cases)
	}
}

func joinComma(xs []string) string { return strings.Join(xs, ", ") }

// ffPlural is "1 region", "3 regions".
func ffPlural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

var epsilons = []string{"1/4", "1", "3"}

// ffnCase is one decision of the procedure: the block f against the
// reference pieces, or against the block g when pieces is nil, on domain.
type ffnCase struct {
	label  string
	f      *stream.FF
	domain *exact.Polyhedron
	pieces []cpwl.Piece
	g      *stream.FF
}

func (c ffnCase) decide() (*cpwl.Result, error) {
	f, err := ffnOf(c.f)
	if err != nil {
		return nil, err
	}
	if c.pieces == nil {
		g, err := ffnOf(c.g)
		if err != nil {
			return nil, err
		}
		return cpwl.Equivalent(f, g, c.domain, &cpwl.Options{Explain: true})
	}
	return cpwl.Verify(f, c.domain, c.pieces, &cpwl.Options{Explain: true})
}

// ffProveCases decides every case: PROVED when each is, else the first
// counterexample (or uncovered point), labelled with its case.
func ffProveCases(cases []ffnCase) (*Evidence, error) {
	var parts, explain []string
	cells := 0
	for _, c := range cases {
		res, err := c.decide()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", c.label, err)
		}
		ev := cpwlEvidence(res, c.f.In, c.f.Out)
		if ev.Verdict != Proved {
			if c.label != "" {
				ev.Summary = c.label + ": " + ev.Summary
			}
			return ev, nil
		}
		if len(cases) == 1 {
			return ev, nil
		}
		cells += res.Cells
		parts = append(parts, fmt.Sprintf("%s (%s)", c.label, ffPlural(res.Regions, "region")))
		for _, e := range ev.Explain {
			explain = append(explain, c.label+": "+e)
		}
	}
	return &Evidence{Verdict: Proved, Summary: fmt.Sprintf("on the whole domain of every case: %s; %d cells compared exactly (exact LP)",
		joinComma(parts), cells), Explain: explain}, nil
}

// ffExpectDiffer turns a refutation into the proof of a negative claim ("the
// bound is needed", "not exact"): PROVED with the counterexample when the
// procedure finds one, REFUTED when the block turns out equal after all.
func ffExpectDiffer(c ffnCase, what string) (*Evidence, error) {
	res, err := c.decide()
	if err != nil {
		return nil, err
	}
	ev := cpwlEvidence(res, c.f.In, c.f.Out)
	if ev.Verdict == Proved {
		return &Evidence{Verdict: Refuted, Summary: c.label + ": the block equals the reference on the whole domain after all (" + ev.Summary + ")", Explain: ev.Explain}, nil
	}
	return &Evidence{Verdict: Proved, Summary: what + ": " + ev.Summary + " (exact)", Explain: ev.Explain}, nil
}

// interval is the closed interval {x : lo ≤ x ≤ hi} of ℝ ("" for an
// unbounded end).
func ffInterval(lo, hi string) *exact.Polyhedron {
	var rs [][]string
	if lo != "" {
		rs = append(rs, []string{"-1", ffNeg(lo)})
	}
	if hi != "" {
		rs = append(rs, []string{"1", hi})
	}
	return halfspaces(1, rs...)
}

// line is x ↦ a x + b on ℝ.
func ffLine(a, b string) exact.Affine { return affine([][]string{{a}}, b) }

func ffNeg(s string) string { return new(big.Rat).Neg(q(s)).RatString() }

func ffRat(r *big.Rat) string { return r.RatString() }

// rows and row write matrices for affine and halfspaces.
func ffRows(rs ...[]string) [][]string { return rs }
func ffRow(xs ...string) []string      { return xs }

// ---------------------------------------------------------------------
// §Continuous Piecewise Linear Functions

// ffCPWLPoints are the point sets (x_1:y_1, …) the CPWL claims are checked
// for: the recipe's default, two pieces, a zero slope and a repeated
// slope (m_k = m_{k−1}, so a knot whose ReLU has weight 0), and six
// pieces with fractional knots.
var ffCPWLPoints = []string{
	"-2:1,0:-1,1:0,3:4",
	"0:0,1:1,2:0",
	"-1:2,0:2,1:3,2:4,5:-1",
	"-3:1/2,-5/4:-2,-1/3:7/3,0:0,1/2:1/2,7/2:-9,4:11",
}

func ffParsePts(s string) (xs, ys []*big.Rat) {
	for _, p := range strings.Split(s, ",") {
		a, b, _ := strings.Cut(p, ":")
		xs, ys = append(xs, q(a)), append(ys, q(b))
	}
	return xs, ys
}

// slopes are m_1 … m_n (0-based here: m[k] is the slope on [x_k, x_{k+1}]).
func ffSlopes(xs, ys []*big.Rat) []*big.Rat {
	m := make([]*big.Rat, len(xs)-1)
	for k := range m {
		dy := new(big.Rat).Sub(ys[k+1], ys[k])
		m[k] = dy.Quo(dy, new(big.Rat).Sub(xs[k+1], xs[k]))
	}
	return m
}

// ffCPWLCases are the paper's case split for the points: y_1 + m_1(x − x_1)
// for x ≤ x_2, y_k + m_k(x − x_k) for x_k ≤ x ≤ x_{k+1}, and
// y_n + m_n(x − x_n) for x ≥ x_n (1-based as printed).
func ffCPWLCases(xs, ys []*big.Rat) []cpwl.Piece {
	m := ffSlopes(xs, ys)
	n := len(m)
	var ps []cpwl.Piece
	for k := 0; k < n; k++ {
		lo, hi := ffRat(xs[k]), ffRat(xs[k+1])
		if k == 0 {
			lo = ""
		}
		if k == n-1 {
			hi = ""
		}
		c := new(big.Rat).Mul(m[k], xs[k])
		ps = append(ps, piece(ffInterval(lo, hi), ffLine(ffRat(m[k]), ffRat(c.Sub(ys[k], c)))))
	}
	return ps
}

// ffCPWLRewrite builds the FFN of the paper's rewritten formula
// f(x) = y_1 + m_1(x − x_1) + Σ_{k=2}^n (m_k − m_{k−1}) ReLU(x − x_k),
// with its linear part m_1 x written as m_1 ReLU(x) − m_1 ReLU(−x) (the
// only way an FFN carries a linear term).
func ffCPWLRewrite(xs, ys []*big.Rat) *stream.FF {
	m := ffSlopes(xs, ys)
	n := len(m)
	f := &stream.FF{Name: "cpwl formula", In: []string{"x"}, Out: []string{"f"},
		W1: model.Zeros(n+1, 1), B1: make(model.Vector, n+1), W2: model.Zeros(1, n+1)}
	f.W1.Set(0, 0, numeric.LitInt(1))
	f.W1.Set(1, 0, numeric.LitInt(-1))
	f.W2.Set(0, 0, numeric.Lit(m[0]))
	f.W2.Set(0, 1, numeric.Lit(new(big.Rat).Neg(m[0])))
	for k := 1; k < n; k++ { // the knot x_{k+1} (1-based), slope change m_{k+1} − m_k
		f.W1.Set(k+1, 0, numeric.LitInt(1))
		f.B1[k+1] = numeric.Lit(new(big.Rat).Neg(xs[k]))
		f.W2.Set(0, k+1, numeric.Lit(new(big.Rat).Sub(m[k], m[k-1])))
	}
	c := new(big.Rat).Mul(m[0], xs[0])
	f.B2 = model.RatVector(c.Sub(ys[0], c))
	return f
}

// interpolation is the reference "f(x_k) = y_k, linear in between and
// beyond the outer points", as pieces on [x_k, x_{k+1}] and the two rays,
// computed from the points alone (not from the slopes' formula).
func ffInterpolation(xs, ys []*big.Rat) []cpwl.Piece {
	var ps []cpwl.Piece
	n := len(xs) - 1
	for k := 0; k < n; k++ {
		// the line through (x_k, y_k) and (x_{k+1}, y_{k+1}): y = a x + b
		a := new(big.Rat).Quo(new(big.Rat).Sub(ys[k+1], ys[k]), new(big.Rat).Sub(xs[k+1], xs[k]))
		b := new(big.Rat).Sub(ys[k], new(big.Rat).Mul(a, xs[k]))
		ps = append(ps, piece(ffInterval(ffRat(xs[k]), ffRat(xs[k+1])), ffLine(ffRat(a), ffRat(b))))
		if k == 0 {
			ps = append(ps, piece(ffInterval("", ffRat(xs[0])), ffLine(ffRat(a), ffRat(b))))
		}
		if k == n-1 {
			ps = append(ps, piece(ffInterval(ffRat(xs[n]), ""), ffLine(ffRat(a), ffRat(b))))
		}
	}
	return ps
}

func ffCheckCPWL(build func(xs, ys []*big.Rat) (*stream.FF, error), ref func(xs, ys []*big.Rat) []cpwl.Piece) func() (*Evidence, error) {
	return func() (*Evidence, error) {
		var cases []ffnCase
		for _, pts := range ffCPWLPoints {
			xs, ys := ffParsePts(pts)
			f, err := build(xs, ys)
			if err != nil {
				return nil, err
			}
			cases = append(cases, ffnCase{label: "points " + pts, f: f, domain: space(1), pieces: ref(xs, ys)})
		}
		return ffProveCases(cases)
	}
}

func ffCPWLBlock(xs, ys []*big.Rat) (*stream.FF, error) { return blocks.CPWL("x", "f", xs, ys) }

// ---------------------------------------------------------------------
// §Canceling Residual Connections

// ffRegionPieces are the linear regions of f on ℝ^d as pieces, each with
// the map f computes there minus shift·x: the reference "f(x) − x" for
// f′ when shift is 1.
func ffRegionPieces(f *stream.FF, shift int64) ([]cpwl.Piece, error) {
	g, err := ffnOf(f)
	if err != nil {
		return nil, err
	}
	d := g.In()
	regions, err := cpwl.Regions(g, space(d), nil)
	if err != nil {
		return nil, err
	}
	var ps []cpwl.Piece
	for _, r := range regions {
		h := g.Hidden()
		p := &exact.Polyhedron{Dim: d, A: exact.NewMatrix(h, d), B: exact.NewVector(h)}
		for i := 0; i < h; i++ {
			sign := int64(1) // inactive: w·x + b ≤ 0
			if r.Pattern[i] {
				sign = -1 // active: −(w·x + b) ≤ 0
			}
			for k := 0; k < d; k++ {
				p.A.Set(i, k, new(big.Rat).Mul(big.NewRat(sign, 1), g.W1.At(i, k)))
			}
			b := new(big.Rat)
			if g.B1 != nil {
				b.Set(g.B1[i])
			}
			p.B[i] = b.Mul(b, big.NewRat(-sign, 1))
		}
		m := exact.Affine{A: exact.NewMatrix(r.Map.A.Rows, r.Map.A.Cols), C: r.Map.C.Clone()}
		for i := 0; i < m.A.Rows; i++ {
			for k := 0; k < m.A.Cols; k++ {
				v := new(big.Rat).Set(r.Map.A.At(i, k))
				if i == k {
					v.Sub(v, big.NewRat(shift, 1))
				}
				m.A.Set(i, k, v)
			}
		}
		ps = append(ps, piece(p, m))
	}
	return ps, nil
}

// ffRandomSquareFF is a seeded ReLU block from ℝ^d to itself with h hidden
// units and small rational weights (a generic f to cancel the residual
// of).
func ffRandomSquareFF(names []string, h int, seed uint64) *stream.FF {
	rng := rand.New(rand.NewPCG(seed, 0x5eed))
	d := len(names)
	small := func() numeric.Expr { return numeric.Frac(int64(rng.IntN(9)-4), int64(1+rng.IntN(3))) }
	f := &stream.FF{Name: fmt.Sprintf("random(seed %d)", seed), In: names, Out: names,
		W1: model.Zeros(h, d), B1: make(model.Vector, h), W2: model.Zeros(d, h), B2: make(model.Vector, d)}
	for i := 0; i < h; i++ {
		for k := 0; k < d; k++ {
			f.W1.Set(i, k, small())
			f.W2.Set(k, i, small())
		}
		f.B1[i] = small()
	}
	for k := 0; k < d; k++ {
		f.B2[k] = small()
	}
	return f
}

// ffCancelCases are the f's whose residual is cancelled: the sort of the
// cancel-residual recipe, (x, y) ↦ (min, max); clip_{1/2} on ℝ²; and two
// seeded random blocks, on ℝ² (3 units) and ℝ³ (2 units).
func ffCancelCases() []*stream.FF {
	xy := []string{"x", "y"}
	sort := &stream.FF{Name: "sort", In: xy, Out: xy,
		W1: model.Ints([]int64{1, 0}, []int64{-1, 0}, []int64{1, -1}, []int64{1, 0}, []int64{-1, 0}, []int64{-1, 1}),
		W2: model.Ints([]int64{1, -1, -1, 0, 0, 0}, []int64{0, 0, 0, 1, -1, 1})}
	return []*stream.FF{sort, blocks.ClipVector(xy, xy, q("1/2")),
		ffRandomSquareFF(xy, 3, 1), ffRandomSquareFF([]string{"x", "y", "z"}, 2, 2)}
}

// ffCheckCancel proves cancel(f)(x) = f(x) − x on ℝ^d for every f, i.e.
// f′(x) + x = f(x): the reference is f's own linear regions (enumerated
// exactly) with f's map minus the identity.
func ffCheckCancel(cancel func(*stream.FF) (*stream.FF, error), fs []*stream.FF) (*Evidence, error) {
	var cases []ffnCase
	for _, f := range fs {
		g, err := cancel(f)
		if err != nil {
			return nil, err
		}
		ps, err := ffRegionPieces(f, 1)
		if err != nil {
			return nil, err
		}
		cases = append(cases, ffnCase{label: fmt.Sprintf("f = %s on ℝ^%d", f.Name, len(f.In)), f: g, domain: space(len(f.In)), pieces: ps})
	}
	return ffProveCases(cases)
}

// ---------------------------------------------------------------------
// §Identity Function, §Min and Max, §Addition and Subtraction,
// §Multiplication (by a constant)

// ffIdentityMap is x ↦ c x on ℝ^d.
func ffIdentityMap(d int, c string) exact.Affine {
	rs := make([][]string, d)
	for i := range rs {
		rs[i] = make([]string, d)
		for k := range rs[i] {
			rs[i][k] = "0"
			if i == k {
				rs[i][k] = c
			}
		}
	}
	return affine(rs)
}

func ffNames(prefix string, d int) []string {
	xs := make([]string, d)
	for k := range xs {
		xs[k] = fmt.Sprintf("%s%d", prefix, k+1)
	}
	return xs
}

// ffIdentityCases: id = ReLU(x) − ReLU(−x) is x on ℝ^d for each d.
func ffIdentityCases(ds ...int) []ffnCase {
	var cs []ffnCase
	for _, d := range ds {
		xs := ffNames("x", d)
		cs = append(cs, ffnCase{label: fmt.Sprintf("d = %d", d), f: blocks.Identity(xs, ffNames("y", d)), domain: space(d),
			pieces: []cpwl.Piece{piece(space(d), ffIdentityMap(d, "1"))}})
	}
	return cs
}

var ffScaleConstants = []string{"0", "1", "-3/2", "7", "1/3"}

// ffScaleCases: c·x by the identity postmultiplied by c (blocks.Scale) and
// premultiplied by c (the identity block with W1 scaled by c), on ℝ.
func ffScaleCases(build func(c *big.Rat) *stream.FF) []ffnCase {
	var cs []ffnCase
	for _, c := range ffScaleConstants {
		cs = append(cs, ffnCase{label: "post c = " + c, f: build(q(c)), domain: space(1),
			pieces: []cpwl.Piece{piece(space(1), ffLine(c, "0"))}})
		pre := blocks.Identity([]string{"x"}, []string{"y"})
		pre.W1 = pre.W1.Scale(numeric.Lit(q(c)))
		cs = append(cs, ffnCase{label: "pre c = " + c, f: pre, domain: space(1),
			pieces: []cpwl.Piece{piece(space(1), ffLine(c, "0"))}})
	}
	return cs
}

func ffScaleBlock(c *big.Rat) *stream.FF { return blocks.Scale([]string{"x"}, []string{"y"}, c) }

func ffMinCase(f *stream.FF) ffnCase {
	return ffnCase{label: "min", f: f, domain: space(2), pieces: []cpwl.Piece{
		piece(halfspaces(2, ffRow("1", "-1", "0")), affine(ffRows(ffRow("1", "0")))),
		piece(halfspaces(2, ffRow("-1", "1", "0")), affine(ffRows(ffRow("0", "1"))))}}
}

func ffMaxCase(f *stream.FF) ffnCase {
	return ffnCase{label: "max", f: f, domain: space(2), pieces: []cpwl.Piece{
		piece(halfspaces(2, ffRow("1", "-1", "0")), affine(ffRows(ffRow("0", "1")))),
		piece(halfspaces(2, ffRow("-1", "1", "0")), affine(ffRows(ffRow("1", "0"))))}}
}

func ffAddCase(f *stream.FF) ffnCase {
	return ffnCase{label: "add", f: f, domain: space(2), pieces: []cpwl.Piece{piece(space(2), affine(ffRows(ffRow("1", "1"))))}}
}

func ffSubCase(f *stream.FF) ffnCase {
	return ffnCase{label: "sub", f: f, domain: space(2), pieces: []cpwl.Piece{piece(space(2), affine(ffRows(ffRow("1", "-1"))))}}
}

// ffPaddedMax is max with W2 zero-padded to 2×3 and b2 to ℝ², as §Min and
// Max suggests "to make the output of a max component in ℝ²".
func ffPaddedMax() *stream.FF {
	f := blocks.Max("x", "y", "m")
	w2 := model.Zeros(2, 3)
	for k := 0; k < 3; k++ {
		w2.Set(0, k, f.W2.At(0, k))
	}
	f.Out, f.W2, f.B2 = []string{"m", "pad"}, w2, make(model.Vector, 2)
	return f
}

// ---------------------------------------------------------------------
// §Comparisons

// The three-piece definitions, gray regions included, for fixed ε.
func ffGtzeroPieces(eps *big.Rat) []cpwl.Piece {
	e := ffRat(eps)
	return []cpwl.Piece{piece(ffInterval("", "0"), ffLine("0", "0")),
		piece(ffInterval("0", e), ffLine(ffRat(new(big.Rat).Inv(eps)), "0")),
		piece(ffInterval(e, ""), ffLine("0", "1"))}
}

func ffGezeroPieces(eps *big.Rat) []cpwl.Piece {
	e := ffRat(eps)
	return []cpwl.Piece{piece(ffInterval("", ffNeg(e)), ffLine("0", "0")),
		piece(ffInterval(ffNeg(e), "0"), ffLine(ffRat(new(big.Rat).Inv(eps)), "1")),
		piece(ffInterval("0", ""), ffLine("0", "1"))}
}

func ffEqzeroPieces(eps *big.Rat) []cpwl.Piece {
	e, inv := ffRat(eps), ffRat(new(big.Rat).Inv(eps))
	return []cpwl.Piece{piece(ffInterval("", ffNeg(e)), ffLine("0", "0")),
		piece(ffInterval(ffNeg(e), "0"), ffLine(inv, "1")),
		piece(ffInterval("0", e), ffLine(ffNeg(inv), "1")),
		piece(ffInterval(e, ""), ffLine("0", "0"))}
}

func ffGtzeroEps(eps *big.Rat) *stream.FF { return blocks.GTZeroEps("x", "y", eps, new(big.Rat)) }
func ffGezeroEps(eps *big.Rat) *stream.FF { return blocks.GEZeroEps("x", "y", eps, new(big.Rat)) }
func ffEqzeroEps(eps *big.Rat) *stream.FF { return blocks.EqZeroEps("x", "y", eps, new(big.Rat)) }

// exactRegions proves a fixed-ε comparison equal to its indicator on each
// polyhedron of its exact region (given as (lo, hi, value) intervals of
// multiples of ε), for every ε.
func ffExactRegions(build func(eps *big.Rat) *stream.FF, regions [][3]string) func() (*Evidence, error) {
	return func() (*Evidence, error) {
		var cases []ffnCase
		for _, e := range epsilons {
			eps := q(e)
			for _, r := range regions {
				lo, hi := ffScaled(r[0], eps), ffScaled(r[1], eps)
				cases = append(cases, ffnCase{label: fmt.Sprintf("ε = %s, %s", e, ffDescribeInterval(lo, hi)), f: build(eps),
					domain: ffInterval(lo, hi), pieces: []cpwl.Piece{piece(ffInterval(lo, hi), ffLine("0", r[2]))}})
			}
		}
		return ffProveCases(cases)
	}
}

// scaled is k·ε for the multiple k ("" stays unbounded).
func ffScaled(k string, eps *big.Rat) string {
	if k == "" {
		return ""
	}
	return ffRat(new(big.Rat).Mul(q(k), eps))
}

func ffDescribeInterval(lo, hi string) string {
	switch {
	case lo == "":
		return "x ≤ " + hi
	case hi == "":
		return "x ≥ " + lo
	case lo == hi:
		return "x = " + lo
	}
	return lo + " ≤ x ≤ " + hi
}

// The input-dependent comparisons on {(x, ε) : ε ≥ 0}.
func ffEpsHalf(rs ...[]string) *exact.Polyhedron {
	return halfspaces(2, append([][]string{ffRow("0", "-1", "0")}, rs...)...)
}

func ffGtzeroXEps() []cpwl.Piece {
	return []cpwl.Piece{
		piece(ffEpsHalf(ffRow("1", "0", "0")), affine(ffRows(ffRow("0", "0")))),                         // x ≤ 0: 0
		piece(ffEpsHalf(ffRow("-1", "0", "0"), ffRow("1", "-1", "0")), affine(ffRows(ffRow("1", "0")))), // 0 ≤ x ≤ ε: x
		piece(ffEpsHalf(ffRow("-1", "1", "0")), affine(ffRows(ffRow("0", "1"))))}                        // x ≥ ε: ε
}

func ffGezeroXEps() []cpwl.Piece {
	return []cpwl.Piece{
		piece(ffEpsHalf(ffRow("1", "1", "0")), affine(ffRows(ffRow("0", "0")))),                         // x ≤ −ε: 0
		piece(ffEpsHalf(ffRow("-1", "-1", "0"), ffRow("1", "0", "0")), affine(ffRows(ffRow("1", "1")))), // −ε ≤ x ≤ 0: x + ε
		piece(ffEpsHalf(ffRow("-1", "0", "0")), affine(ffRows(ffRow("0", "1"))))}                        // x ≥ 0: ε
}

func ffEqzeroXEps() []cpwl.Piece {
	return []cpwl.Piece{
		piece(ffEpsHalf(ffRow("1", "1", "0")), affine(ffRows(ffRow("0", "0")))),                          // x ≤ −ε: 0
		piece(ffEpsHalf(ffRow("-1", "-1", "0"), ffRow("1", "0", "0")), affine(ffRows(ffRow("1", "1")))),  // −ε ≤ x ≤ 0: ε − |x|
		piece(ffEpsHalf(ffRow("-1", "0", "0"), ffRow("1", "-1", "0")), affine(ffRows(ffRow("-1", "1")))), // 0 ≤ x ≤ ε: ε − |x|
		piece(ffEpsHalf(ffRow("-1", "1", "0")), affine(ffRows(ffRow("0", "0"))))}                         // x ≥ ε: 0
}

// grayPoints: a point of each comparison's gray region where it differs
// from the indicator it stands for (the cheat sheet's "No").
func ffCheckComparatorsNotExact(gt, ge, eq func(eps *big.Rat) *stream.FF) (*Evidence, error) {
	type probe struct {
		name  string
		build func(eps *big.Rat) *stream.FF
		at    string // the point as a multiple of ε
		ind   func(x *big.Rat) bool
	}
	probes := []probe{
		{"GTZero_ε", gt, "1/2", func(x *big.Rat) bool { return x.Sign() > 0 }},
		{"GEZero_ε", ge, "-1/2", func(x *big.Rat) bool { return x.Sign() >= 0 }},
		{"EqZero_ε", eq, "1/2", func(x *big.Rat) bool { return x.Sign() == 0 }},
	}
	var parts []string
	for _, p := range probes {
		for _, e := range epsilons {
			eps := q(e)
			x := new(big.Rat).Mul(q(p.at), eps)
			g, err := ffnOf(p.build(eps))
			if err != nil {
				return nil, err
			}
			y, err := g.Eval(exact.Vector{x})
			if err != nil {
				return nil, err
			}
			want := new(big.Rat)
			if p.ind(x) {
				want.SetInt64(1)
			}
			if y[0].Cmp(want) == 0 {
				return &Evidence{Verdict: Refuted, Summary: fmt.Sprintf("%s with ε = %s is exact at the gray-region point x = %s: %s = 𝕀", p.name, e, x.RatString(), y[0].RatString())}, nil
			}
			if e == epsilons[0] {
				parts = append(parts, fmt.Sprintf("%s(%s) = %s ≠ %s", p.name, x.RatString(), y[0].RatString(), want.RatString()))
			}
		}
	}
	return &Evidence{Verdict: Proved, Summary: fmt.Sprintf("each differs from its indicator in its gray region, for every ε ∈ {%s} (exact): at ε = %s, %s",
		joinComma(epsilons), epsilons[0], joinComma(parts)),
		Explain: []string{"No FFN computes an indicator exactly on ℝ: FFNs are continuous, 𝕀[x > 0], 𝕀[x ≥ 0] and 𝕀[x = 0] jump at 0 (§Comparisons: \"not CPWL because there is a jump\")."}}, nil
}

// ---------------------------------------------------------------------
// §Boolean Functions

// index is the number of the assignment x (x_1 the most significant bit),
// as the paper's matrix numbers ξ_0 … ξ_{2^m−1}.
func ffIndex(x []int) int {
	k := 0
	for _, b := range x {
		k = 2*k + b
	}
	return k
}

func ffAssignment(k, m int) []int {
	x := make([]int, m)
	for i := m - 1; i >= 0; i-- {
		x[i] = k & 1
		k >>= 1
	}
	return x
}

func ffRatVec(x []int) exact.Vector {
	v := make(exact.Vector, len(x))
	for i, b := range x {
		v[i] = big.NewRat(int64(b), 1)
	}
	return v
}

// ffCheckBooleanTables evaluates ff_φ exactly at every x ∈ {0,1}^m for every
// truth table φ of m ≤ maxM bits.
func ffCheckBooleanTables(build func(xs []string, out string, table []bool) (*stream.FF, error), maxM int) (*Evidence, error) {
	tables, evals := 0, 0
	for m := 1; m <= maxM; m++ {
		xs := ffNames("x", m)
		for t := 0; t < 1<<(1<<m); t++ {
			table := make([]bool, 1<<m)
			for k := range table {
				table[k] = t>>k&1 == 1
			}
			f, err := build(xs, "phi", table)
			if err != nil {
				return nil, err
			}
			g, err := ffnOf(f)
			if err != nil {
				return nil, err
			}
			for k := 0; k < 1<<m; k++ {
				x := ffAssignment(k, m)
				y, err := g.Eval(ffRatVec(x))
				if err != nil {
					return nil, err
				}
				want := int64(0)
				if table[ffIndex(x)] {
					want = 1
				}
				evals++
				if y[0].Cmp(big.NewRat(want, 1)) != 0 {
					return &Evidence{Verdict: Refuted, Summary: fmt.Sprintf("m = %d, truth table %0*b (φ(ξ_0) first): at x = %v ff_φ gives %s, φ(x) = %d (exact)",
						m, 1<<m, ffReverseBits(t, 1<<m), x, y[0].RatString(), want)}, nil
				}
			}
			tables++
		}
	}
	return &Evidence{Verdict: Proved, Summary: fmt.Sprintf("every truth table φ of m ≤ %d bits (%d tables) at every x ∈ {0,1}^m: %d exact evaluations", maxM, tables, evals)}, nil
}

func ffReverseBits(t, n int) int {
	r := 0
	for k := 0; k < n; k++ {
		r = r<<1 | t>>k&1
	}
	return r
}

// ffCheckBooleanHidden: the hidden layer ReLU(W1 x + b1) of ff_φ is
// h_k = 𝕀[ξ_k = x] at every x ∈ {0,1}^m, m ≤ maxM (any table: the hidden
// layer does not depend on φ).
func ffCheckBooleanHidden(build func(xs []string, out string, table []bool) (*stream.FF, error), maxM int) (*Evidence, error) {
	evals := 0
	for m := 1; m <= maxM; m++ {
		g, err := ffBooleanFFN(build, m)
		if err != nil {
			return nil, err
		}
		for k := 0; k < 1<<m; k++ {
			x := ffAssignment(k, m)
			z, err := g.Pre(ffRatVec(x))
			if err != nil {
				return nil, err
			}
			for u, zu := range z {
				h := new(big.Rat).Set(zu)
				if h.Sign() < 0 {
					h.SetInt64(0)
				}
				want := int64(0)
				if u == k {
					want = 1
				}
				evals++
				if h.Cmp(big.NewRat(want, 1)) != 0 {
					return &Evidence{Verdict: Refuted, Summary: fmt.Sprintf("m = %d, x = %v: hidden unit h_%d = %s, 𝕀[ξ_%d = x] = %d (exact)", m, x, u, h.RatString(), u, want)}, nil
				}
			}
		}
	}
	return &Evidence{Verdict: Proved, Summary: fmt.Sprintf("every hidden unit at every x ∈ {0,1}^m for m ≤ %d: %d exact evaluations", maxM, evals)}, nil
}

// ffCheckBooleanDerivation: for every m ≤ maxM and k, the three printed
// forms of the pre-activation, ½(2ξ_k − 1)·(2x − 1) − (m/2 − 1),
// 2ξ_k·x − x·1 − ξ_k·1 + 1 and (2ξ_k − 1)·x − 1·ξ_k + 1, are the same
// affine function of x ∈ ℝ^m (coefficients and constants compared
// exactly), and it is row k of the block's W1 with b1[k].
func ffCheckBooleanDerivation(build func(xs []string, out string, table []bool) (*stream.FF, error), maxM int) (*Evidence, error) {
	forms := 0
	for m := 1; m <= maxM; m++ {
		g, err := ffBooleanFFN(build, m)
		if err != nil {
			return nil, err
		}
		for k := 0; k < 1<<m; k++ {
			xi := ffAssignment(k, m)
			ones := 0
			for _, b := range xi {
				ones += b
			}
			// each form as (coefficients of x, constant)
			type form struct {
				a []*big.Rat
				c *big.Rat
			}
			var fs []form
			// ½(2ξ − 1)·(2x − 1) − (m/2 − 1) = Σ (2ξ_i − 1) x_i − ½ Σ (2ξ_i − 1) − m/2 + 1
			a1 := make([]*big.Rat, m)
			s := new(big.Rat)
			for i, b := range xi {
				a1[i] = big.NewRat(int64(2*b-1), 1)
				s.Add(s, big.NewRat(int64(2*b-1), 1))
			}
			c1 := new(big.Rat).Mul(s, big.NewRat(-1, 2))
			c1.Sub(c1, big.NewRat(int64(m), 2)).Add(c1, big.NewRat(1, 1))
			fs = append(fs, form{a1, c1})
			// 2ξ·x − x·1 − ξ·1 + 1
			a2 := make([]*big.Rat, m)
			for i, b := range xi {
				a2[i] = big.NewRat(int64(2*b), 1)
				a2[i].Sub(a2[i], big.NewRat(1, 1))
			}
			fs = append(fs, form{a2, big.NewRat(int64(1-ones), 1)})
			// (2ξ − 1)·x − 1·ξ + 1, as W1 and b1 of the block
			a3 := make([]*big.Rat, m)
			for i := range a3 {
				a3[i] = g.W1.At(k, i)
			}
			c3 := new(big.Rat)
			if g.B1 != nil {
				c3 = g.B1[k]
			}
			fs = append(fs, form{a3, c3})
			for j := 1; j < len(fs); j++ {
				same := fs[j].c.Cmp(fs[0].c) == 0
				for i := 0; i < m; i++ {
					same = same && fs[j].a[i].Cmp(fs[0].a[i]) == 0
				}
				if !same {
					return &Evidence{Verdict: Refuted, Summary: fmt.Sprintf("m = %d, k = %d: form %d of the pre-activation, %v·x + %s, differs from ½(2ξ_k − 1)·(2x − 1) − (m/2 − 1) = %v·x + %s (exact)",
						m, k, j+1, fs[j].a, fs[j].c.RatString(), fs[0].a, fs[0].c.RatString())}, nil
				}
			}
			forms++
		}
	}
	return &Evidence{Verdict: Proved, Summary: fmt.Sprintf("the three printed forms and the block's row (W1, b1) are one affine function of x ∈ ℝ^m, for every k and m ≤ %d (%d rows, coefficients compared exactly)", maxM, forms)}, nil
}

// ffCheckConnectives: ∧ = min, ∨ = max and ¬ = 1 − x on {0,1}^m, exactly.
func ffCheckConnectives(and, or func(x, y, out string) *stream.FF, not func(x, out string) *stream.FF) (*Evidence, error) {
	type conn struct {
		name string
		f    *stream.FF
		m    int
		want func(x []int) int
	}
	cs := []conn{
		{"x ∧ y", and("x", "y", "z"), 2, func(x []int) int { return x[0] & x[1] }},
		{"x ∨ y", or("x", "y", "z"), 2, func(x []int) int { return x[0] | x[1] }},
		{"¬x", not("x", "z"), 1, func(x []int) int { return 1 - x[0] }},
	}
	for _, c := range cs {
		g, err := ffnOf(c.f)
		if err != nil {
			return nil, err
		}
		for k := 0; k < 1<<c.m; k++ {
			x := ffAssignment(k, c.m)
			y, err := g.Eval(ffRatVec(x))
			if err != nil {
				return nil, err
			}
			if y[0].Cmp(big.NewRat(int64(c.want(x)), 1)) != 0 {
				return &Evidence{Verdict: Refuted, Summary: fmt.Sprintf("%s at %v: the FFN gives %s, the truth table %d (exact)", c.name, x, y[0].RatString(), c.want(x))}, nil
			}
		}
	}
	return &Evidence{Verdict: Proved, Summary: "∧ (min), ∨ (max) and ¬ (1 − x) at every input of {0,1}² and {0,1}: 10 exact evaluations against the truth tables"}, nil
}

// ---------------------------------------------------------------------
// §Conditionals

// face is {(p, x, y) : p = v, a ≤ x ≤ b, a ≤ y ≤ b} ("" for no bound on x, y).
func ffFace(v, a, b string) *exact.Polyhedron {
	rs := [][]string{ffRow("1", "0", "0", v), ffRow("-1", "0", "0", ffNeg(v))}
	if a != "" {
		rs = append(rs, ffRow("0", "-1", "0", ffNeg(a)), ffRow("0", "0", "-1", ffNeg(a)))
	}
	if b != "" {
		rs = append(rs, ffRow("0", "1", "0", b), ffRow("0", "0", "1", b))
	}
	return halfspaces(3, rs...)
}

// ffIfCases: if(1, x, y) = x and if(0, x, y) = y on [a, b]².
func ffIfCases(f *stream.FF, a, b string) []ffnCase {
	where := fmt.Sprintf("[%s, %s]", a, b)
	if a == "" && b == "" {
		where = "ℝ"
	}
	return []ffnCase{
		{label: "p = 1, x, y ∈ " + where, f: f, domain: ffFace("1", a, b), pieces: []cpwl.Piece{piece(ffFace("1", a, b), affine(ffRows(ffRow("0", "1", "0"))))}},
		{label: "p = 0, x, y ∈ " + where, f: f, domain: ffFace("0", a, b), pieces: []cpwl.Piece{piece(ffFace("0", a, b), affine(ffRows(ffRow("0", "0", "1"))))}},
	}
}

var ffIfIntervals = [][2]string{{"0", "1"}, {"-1", "1"}, {"-5/2", "3"}, {"2", "7"}, {"-8", "-1/2"}}

func ffCheckIfIntervals(build func(a, b *big.Rat) (*stream.FF, error)) (*Evidence, error) {
	var cases []ffnCase
	for _, ab := range ffIfIntervals {
		f, err := build(q(ab[0]), q(ab[1]))
		if err != nil {
			return nil, err
		}
		cases = append(cases, ffIfCases(f, ab[0], ab[1])...)
	}
	return ffProveCases(cases)
}

func ffIfInterval(a, b *big.Rat) (*stream.FF, error) {
	return blocks.IfInterval("p", "x", "y", "out", a, b)
}

// ---------------------------------------------------------------------
// The registry

func ffClaim(id, section, label, statement, domain string, v Verdict, check func() (*Evidence, error)) *Claim {
	return &Claim{ID: id, Section: section, Label: label, Statement: statement, Domain: domain, Recorded: v, Check: check}
}

func ffOne(c ffnCase) func() (*Evidence, error) {
	return func() (*Evidence, error) { return ffProveCases([]ffnCase{c}) }
}

func ffAll(cs ...ffnCase) func() (*Evidence, error) {
	return func() (*Evidence, error) { return ffProveCases(cs) }
}

const (
	ffSecCPWL     = "Continuous Piecewise Linear Functions"
	ffSecCancel   = "Canceling Residual Connections"
	ffSecIdentity = "Identity Function"
	ffSecMinMax   = "Min and Max"
	ffSecAdd      = "Addition and Subtraction"
	ffSecMul      = "Multiplication"
	ffSecCompare  = "Comparisons"
	ffSecBoolean  = "Boolean Functions"
	ffSecIf       = "Conditionals"
)

func init() {
	xy := func(f func(x, y, out string) *stream.FF) *stream.FF { return f("x", "y", "out") }
	Register(
		ffClaim("ffn.cpwl.exact", ffSecCPWL, "sec:ffnn_cpwl",
			"the FFN W1 = [−1; 1; …; 1], b1 = [0; 0; −x_2; …; −x_n], W2 = [−m_1, m_1, m_2 − m_1, …, m_n − m_{n−1}], b2 = y_1 − m_1 x_1 computes the CPWL f through (x_1, y_1), …, (x_{n+1}, y_{n+1})",
			"x ∈ ℝ, for 4 point sets (n = 2 … 6 pieces, a zero slope, a repeated slope, fractional knots)", Proved,
			ffCheckCPWL(ffCPWLBlock, ffInterpolation)),
		ffClaim("ffn.cpwl.rewrite", ffSecCPWL, "sec:ffnn_cpwl",
			"f(x) = y_1 + m_1(x − x_1) + Σ_{k=2}^n (m_k − m_{k−1}) ReLU(x − x_k) equals the cases y_1 + m_1(x − x_1) (x ≤ x_2), y_k + m_k(x − x_k) (x_k ≤ x ≤ x_{k+1}), y_n + m_n(x − x_n) (x ≥ x_n)",
			"x ∈ ℝ, for the same 4 point sets; the formula as an FFN (its linear part as m_1 ReLU(x) − m_1 ReLU(−x))", Proved,
			ffCheckCPWL(func(xs, ys []*big.Rat) (*stream.FF, error) { return ffCPWLRewrite(xs, ys), nil }, ffCPWLCases)),
		ffClaim("ffn.cancel-residual.exact", ffSecCancel, "sec:ffnn_cancel_residual",
			"f′ with W1′ = [f.W1; I; −I], b1′ = [f.b1; 0; 0], W2′ = [f.W2, −I, I], b2′ = f.b2 gives f′(x) + x = f(x)",
			"x ∈ ℝ^d for four f: sort (min, max) on ℝ², clip_{1/2} on ℝ², seeded random ReLU blocks on ℝ² (3 units) and ℝ³ (2 units); f′ is checked against f − x on f's own linear regions", Proved,
			func() (*Evidence, error) { return ffCheckCancel(blocks.CancelResidual, ffCancelCases()) }),
		ffClaim("ffn.identity.scalar", ffSecIdentity, "sec:ffnn_identity",
			"eq:identity: W1 = [1; −1], W2 = [1, −1], b = 0: id(x) = ReLU(x) − ReLU(−x) = x",
			"x ∈ ℝ", Proved, ffAll(ffIdentityCases(1)...)),
		ffClaim("ffn.identity.vector", ffSecIdentity, "sec:ffnn_identity",
			"eqn:ffwd_id_parallel_d2: W1 = [I^d; −I^d], W2 = [I^d, −I^d], b = 0 computes id on ℝ^d",
			"x ∈ ℝ^d, d = 2, 3, 4", Proved, ffAll(ffIdentityCases(2, 3, 4)...)),
		ffClaim("ffn.zero.residual", ffSecIdentity, "sec:ffnn_identity",
			"the zero FFN (all weights and biases 0) satisfies x + zero(x) = x",
			"x ∈ ℝ^d, d = 1, 2, 3: zero(x) = 0 on all of ℝ^d", Proved,
			func() (*Evidence, error) {
				var cs []ffnCase
				for d := 1; d <= 3; d++ {
					cs = append(cs, ffnCase{label: fmt.Sprintf("d = %d", d), f: blocks.Zero(ffNames("x", d)), domain: space(d),
						pieces: []cpwl.Piece{piece(space(d), ffIdentityMap(d, "0"))}})
				}
				return ffProveCases(cs)
			}),
		ffClaim("ffn.min.exact", ffSecMinMax, "sec:ffnn_minmax",
			"min(x, y) = ReLU(x) − ReLU(−x) − ReLU(x − y) with W1 = [[1,0],[−1,0],[1,−1]], W2 = [1,−1,−1]",
			"(x, y) ∈ ℝ²", Proved, ffOne(ffMinCase(blocks.Min("x", "y", "min")))),
		ffClaim("ffn.max.exact", ffSecMinMax, "sec:ffnn_minmax",
			"max(x, y) = ReLU(x) − ReLU(−x) + ReLU(y − x) with W1 = [[1,0],[−1,0],[−1,1]], W2 = [1,−1,1]",
			"(x, y) ∈ ℝ²", Proved, ffOne(ffMaxCase(xy(blocks.Max)))),
		ffClaim("ffn.max.padded", ffSecMinMax, "sec:ffnn_minmax",
			"zero-padding max.W2 to 2×3 and max.b2 to ℝ² makes the output of a max component in ℝ²: (max(x, y), 0)",
			"(x, y) ∈ ℝ²", Proved, ffOne(ffnCase{label: "padded max", f: ffPaddedMax(), domain: space(2), pieces: []cpwl.Piece{
				piece(halfspaces(2, ffRow("1", "-1", "0")), affine(ffRows(ffRow("0", "1"), ffRow("0", "0")))),
				piece(halfspaces(2, ffRow("-1", "1", "0")), affine(ffRows(ffRow("1", "0"), ffRow("0", "0"))))}})),
		ffClaim("ffn.add.exact", ffSecAdd, "sec:ffnn_addition",
			"add(x, y) = ReLU(x) − ReLU(−x) + ReLU(y) − ReLU(−y) = x + y",
			"(x, y) ∈ ℝ²", Proved, ffOne(ffAddCase(xy(blocks.Add)))),
		ffClaim("ffn.sub.exact", ffSecAdd, "sec:ffnn_addition",
			"\"or subtraction\": add's W1 with W2 = [1, −1, −1, 1] gives x − y",
			"(x, y) ∈ ℝ²", Proved, ffOne(ffSubCase(xy(blocks.Sub)))),
		ffClaim("ffn.scale.exact", ffSecMul, "sec:ffnn_multiplication",
			"multiplication by a constant c: the identity recipe with the routing lemma to premultiply or postmultiply by c computes c·x",
			"x ∈ ℝ, c ∈ {0, 1, −3/2, 7, 1/3}, both postmultiplied (W2 scaled) and premultiplied (W1 scaled)", Proved,
			func() (*Evidence, error) { return ffProveCases(ffScaleCases(ffScaleBlock)) }),
		ffClaim("ffn.gtzero-eps.definition", ffSecCompare, "sec:comparison",
			"GTZero_ε (W1 = [1; 1], b1 = [0; −ε], W2 = [1/ε, −1/ε]) is 0 for x ≤ 0, x/ε for 0 < x < ε (gray), 1 for x ≥ ε",
			"x ∈ ℝ, ε ∈ {1/4, 1, 3}", Proved, proveAt(epsilons, ffGtzeroEps, ffGtzeroPieces)),
		ffClaim("ffn.gezero-eps.definition", ffSecCompare, "sec:comparison",
			"GEZero_ε (W1 = [1; 1], b1 = [ε; 0], W2 = [1/ε, −1/ε]) is 0 for x ≤ −ε, 1 + x/ε for −ε < x < 0 (gray), 1 for x ≥ 0",
			"x ∈ ℝ, ε ∈ {1/4, 1, 3}", Proved, proveAt(epsilons, ffGezeroEps, ffGezeroPieces)),
		ffClaim("ffn.eqzero-eps.definition", ffSecCompare, "sec:comparison",
			"EqZero_ε (W1 = [1; 1; 1], b1 = [ε; 0; −ε], W2 = [1/ε, −2/ε, 1/ε]) is 0 for |x| ≥ ε, 1 − |x/ε| for 0 < |x| < ε (gray), 1 at x = 0",
			"x ∈ ℝ, ε ∈ {1/4, 1, 3}", Proved, proveAt(epsilons, ffEqzeroEps, ffEqzeroPieces)),
		ffClaim("ffn.gtzero-eps.indicator", ffSecCompare, "sec:comparison",
			"GTZero_ε computes 𝕀[x > 0] exactly outside the gray region",
			"x ≤ 0 and x ≥ ε as separate polyhedra, ε ∈ {1/4, 1, 3}", Proved,
			ffExactRegions(ffGtzeroEps, [][3]string{{"", "0", "0"}, {"1", "", "1"}})),
		ffClaim("ffn.gezero-eps.indicator", ffSecCompare, "sec:comparison",
			"GEZero_ε computes 𝕀[x ≥ 0] exactly outside the gray region",
			"x ≤ −ε and x ≥ 0 as separate polyhedra, ε ∈ {1/4, 1, 3}", Proved,
			ffExactRegions(ffGezeroEps, [][3]string{{"", "-1", "0"}, {"0", "", "1"}})),
		ffClaim("ffn.eqzero-eps.indicator", ffSecCompare, "sec:comparison",
			"EqZero_ε computes 𝕀[x = 0] exactly outside the gray region",
			"x ≤ −ε, x = 0 and x ≥ ε as separate polyhedra, ε ∈ {1/4, 1, 3}", Proved,
			ffExactRegions(ffEqzeroEps, [][3]string{{"", "-1", "0"}, {"0", "0", "1"}, {"1", "", "0"}})),
		ffClaim("ffn.gtzero.definition", ffSecCompare, "sec:comparison",
			"GTZero(x, ε) (W1 = [[1, 0], [1, −1]], W2 = [1, −1]) is 0 for x ≤ 0, x for 0 < x < ε (gray), ε for x ≥ ε",
			"{(x, ε) ∈ ℝ² : ε ≥ 0}: every ε at once", Proved,
			ffOne(ffnCase{f: blocks.GTZero("x", "eps", "out"), domain: ffEpsHalf(), pieces: ffGtzeroXEps()})),
		ffClaim("ffn.gezero.definition", ffSecCompare, "sec:comparison",
			"GEZero(x, ε) (W1 = [[1, 1], [1, 0]], W2 = [1, −1]) is 0 for x ≤ −ε, x + ε for −ε < x < 0 (gray), ε for x ≥ 0",
			"{(x, ε) ∈ ℝ² : ε ≥ 0}: every ε at once", Proved,
			ffOne(ffnCase{f: blocks.GEZero("x", "eps", "out"), domain: ffEpsHalf(), pieces: ffGezeroXEps()})),
		ffClaim("ffn.eqzero.definition", ffSecCompare, "sec:comparison",
			"EqZero(x, ε) (W1 = [[1, 1], [1, 0], [1, −1]], W2 = [1, −2, 1]) is 0 for |x| ≥ ε, ε − |x| for 0 < |x| < ε (gray), ε at x = 0",
			"{(x, ε) ∈ ℝ² : ε ≥ 0}: every ε at once", Proved,
			ffOne(ffnCase{f: blocks.EqZero("x", "eps", "out"), domain: ffEpsHalf(), pieces: ffEqzeroXEps()})),
		ffClaim("ffn.comparisons.input-dependent.indicator", ffSecCompare, "sec:comparison",
			"outside the gray regions GTZero(x, ε) = ε·𝕀[x > 0], GEZero(x, ε) = ε·𝕀[x ≥ 0], EqZero(x, ε) = ε·𝕀[x = 0] (\"accept values as small as x ≥ ε as true\")",
			"ε ≥ 0 and x outside the gray region, each exact region a polyhedron of (x, ε)-space: every ε at once", Proved,
			ffAll(
				ffnCase{label: "GTZero, x ≤ 0", f: blocks.GTZero("x", "eps", "out"), domain: ffEpsHalf(ffRow("1", "0", "0")), pieces: []cpwl.Piece{piece(space(2), affine(ffRows(ffRow("0", "0"))))}},
				ffnCase{label: "GTZero, x ≥ ε", f: blocks.GTZero("x", "eps", "out"), domain: ffEpsHalf(ffRow("-1", "1", "0")), pieces: []cpwl.Piece{piece(space(2), affine(ffRows(ffRow("0", "1"))))}},
				ffnCase{label: "GEZero, x ≤ −ε", f: blocks.GEZero("x", "eps", "out"), domain: ffEpsHalf(ffRow("1", "1", "0")), pieces: []cpwl.Piece{piece(space(2), affine(ffRows(ffRow("0", "0"))))}},
				ffnCase{label: "GEZero, x ≥ 0", f: blocks.GEZero("x", "eps", "out"), domain: ffEpsHalf(ffRow("-1", "0", "0")), pieces: []cpwl.Piece{piece(space(2), affine(ffRows(ffRow("0", "1"))))}},
				ffnCase{label: "EqZero, x ≤ −ε", f: blocks.EqZero("x", "eps", "out"), domain: ffEpsHalf(ffRow("1", "1", "0")), pieces: []cpwl.Piece{piece(space(2), affine(ffRows(ffRow("0", "0"))))}},
				ffnCase{label: "EqZero, x = 0", f: blocks.EqZero("x", "eps", "out"), domain: ffEpsHalf(ffRow("1", "0", "0"), ffRow("-1", "0", "0")), pieces: []cpwl.Piece{piece(space(2), affine(ffRows(ffRow("0", "1"))))}},
				ffnCase{label: "EqZero, x ≥ ε", f: blocks.EqZero("x", "eps", "out"), domain: ffEpsHalf(ffRow("-1", "1", "0")), pieces: []cpwl.Piece{piece(space(2), affine(ffRows(ffRow("0", "0"))))}},
			)),
		ffClaim("ffn.boolean.exact", ffSecBoolean, "sec:ffnn_boolean",
			"ff_φ (W1 rows (2ξ_k − 1)ᵀ, b1_k = 1 − 1·ξ_k, W2 = [φ(ξ_0) … φ(ξ_{2^m−1})]) computes any φ: {0,1}^m → {0,1}",
			"every φ of m ≤ 3 bits (4 + 16 + 256 truth tables), every x ∈ {0,1}^m", Proved,
			func() (*Evidence, error) { return ffCheckBooleanTables(blocks.Boolean, 3) }),
		ffClaim("ffn.boolean.hidden", ffSecBoolean, "sec:ffnn_boolean",
			"the hidden units are h_k = ReLU((2ξ_k − 1)·x − 1·ξ_k + 1) = 𝕀[ξ_k = x], so y = Σ_k φ(ξ_k) h_k = φ(x)",
			"every x ∈ {0,1}^m, m ≤ 6", Proved,
			func() (*Evidence, error) { return ffCheckBooleanHidden(blocks.Boolean, 6) }),
		ffClaim("ffn.boolean.derivation", ffSecBoolean, "sec:ffnn_boolean",
			"½(2ξ_k − 1)·(2x − 1) − (m/2 − 1) = 2ξ_k·x − x·1 − ξ_k·1 + 1 = (2ξ_k − 1)·x − 1·ξ_k + 1 = (ff_φ.W1 x + ff_φ.b1)_k",
			"x ∈ ℝ^m (affine identities, coefficients compared exactly), every k, m ≤ 6", Proved,
			func() (*Evidence, error) { return ffCheckBooleanDerivation(blocks.Boolean, 6) }),
		ffClaim("ffn.boolean.connectives", ffSecBoolean, "sec:ffnn_boolean",
			"conjunction is equivalent to min, disjunction to max, and negation is 1 − x",
			"x ∈ {0,1}² (∧, ∨) and {0,1} (¬), exhaustively", Proved,
			func() (*Evidence, error) { return ffCheckConnectives(blocks.And, blocks.Or, blocks.Not) }),
		ffClaim("ffn.not.exact", ffSecBoolean, "sec:ffnn_boolean",
			"¬x is \"just 1 − x\": the block W1 = [1; −1], W2 = [−1, 1], b2 = 1 is 1 − x",
			"x ∈ ℝ (not only {0,1})", Proved,
			ffOne(ffnCase{f: blocks.Not("x", "y"), domain: space(1), pieces: []cpwl.Piece{piece(space(1), ffLine("-1", "1"))}})),
		ffClaim("ffn.if.exact", ffSecIf, "sec:ffnn_conditional",
			"if(p, x, y) with W1 = [[1, 1, 0], [−1, 0, 1]], b1 = [−1; 0], W2 = [1, 1]: if(1, x, y) = ReLU(x) + ReLU(y − 1) = x, if(0, x, y) = ReLU(x − 1) + ReLU(y) = y",
			"the faces p = 1 and p = 0 with x, y ∈ [0, 1] (the paper's assumption), as polyhedra of ℝ³", Proved,
			ffAll(ffIfCases(blocks.If("p", "x", "y", "out"), "0", "1")...)),
		ffClaim("ffn.if.interval", ffSecIf, "sec:ffnn_conditional",
			"\"the construction is easily generalized for any bounded interval\": with r = b − a, W1 = [[r, 1, 0], [−r, 0, 1]], b1 = [−a − r; −a], W2 = [1, 1], b2 = a gives x at p = 1 and y at p = 0",
			"the faces p = 1 and p = 0 with x, y ∈ [a, b] for [a, b] = [0, 1], [−1, 1], [−5/2, 3], [2, 7], [−8, −1/2]", Proved,
			func() (*Evidence, error) { return ffCheckIfIntervals(ffIfInterval) }),
		ffClaim("ffn.if.bounds-needed", ffSecIf, "sec:ffnn_conditional",
			"the assumption x, y ∈ [0, 1] is needed: on the face p = 1 with x, y unbounded, if(1, x, y) ≠ x somewhere",
			"the face p = 1, (x, y) ∈ ℝ²", Proved,
			func() (*Evidence, error) {
				c := ffnCase{label: "p = 1, x, y ∈ ℝ", f: blocks.If("p", "x", "y", "out"), domain: ffFace("1", "", ""),
					pieces: []cpwl.Piece{piece(ffFace("1", "", ""), affine(ffRows(ffRow("0", "1", "0"))))}}
				return ffExpectDiffer(c, "if(1, x, y) ≠ x off [0, 1]²")
			}),
		// clip_δ is §Amplification's (ln.clip.exact).
	)
	ffRegisterMultiplication()
	ffRegisterCheatSheet()
}

// ---------------------------------------------------------------------
// §Multiplication: the GELU product, in certified interval arithmetic

// ffTaylorPrec and ffMulPrec are the precisions of the interval runs: 128-bit
// endpoints for the Taylor remainder, which must resolve R(z) = O(z⁴)
// against |z|³/6 down to z = 2^−40, and 64 for the product, whose
// smallest inputs are 2^−20.
const (
	ffTaylorPrec = 128
	ffMulPrec    = 64
)

// ffRunVectors runs m at interval:prec on one position per input (the
// feed-forward blocks act position by position, so one run checks many
// points) and returns the readout's enclosures.
func ffRunVectors(m *model.Model, inputs []map[string]*big.Rat, prec uint) ([][]model.Value, error) {
	inst, err := model.Instantiate(numeric.NewIntervals(prec), m)
	if err != nil {
		return nil, err
	}
	h, err := stream.Stream(m, inputs)
	if err != nil {
		return nil, err
	}
	res, err := inst.RunStream(h, false)
	if err != nil {
		return nil, err
	}
	out := make([][]model.Value, len(res.Outputs))
	for i, o := range res.Outputs {
		out[i] = o.Values
		for _, v := range o.Values {
			if !v.Finite() {
				return nil, fmt.Errorf("input %v: output %s is not finite", inputs[i], v.Text)
			}
		}
	}
	return out, nil
}

// ffEnclose is a certified rational enclosure of a constant expression.
func ffEnclose(e numeric.Expr) (lo, hi *big.Rat, err error) { return e.Enclose(2 * ffTaylorPrec) }

// ffMagnitude is the largest |v| over an enclosure [lo, hi].
func ffMagnitude(lo, hi *big.Rat) *big.Rat {
	a, b := new(big.Rat).Abs(lo), new(big.Rat).Abs(hi)
	if a.Cmp(b) < 0 {
		return b
	}
	return a
}

func ffCube(x *big.Rat) *big.Rat { return new(big.Rat).Mul(x, new(big.Rat).Mul(x, x)) }

// ffGeluPoints are the z of the Taylor search: [−8, 8] in steps of 1/8, and
// ±2^−k for k = 6, 8, …, 40 (tiny z, where R(z) = O(z⁴) meets the
// bound |z|³/6 = O(z³)).
func ffGeluPoints() []*big.Rat {
	var zs []*big.Rat
	for k := -64; k <= 64; k++ {
		zs = append(zs, big.NewRat(int64(k), 8))
	}
	for k := 6; k <= 40; k += 2 {
		t := new(big.Rat).SetFrac(big.NewInt(1), new(big.Int).Lsh(big.NewInt(1), uint(k)))
		zs = append(zs, t, new(big.Rat).Neg(t))
	}
	return zs
}

var ffInvSqrt2Pi = numeric.Quo(numeric.LitInt(1), numeric.Sqrt(numeric.Mul(numeric.LitInt(2), numeric.Pi())))

// ffGeluModel is one GELU unit: g = GELU(z).
func ffGeluModel(act model.Activation) (*model.Model, error) {
	f := &stream.FF{Name: "gelu", In: []string{"z"}, Out: []string{"g"}, W1: model.Ints([]int64{1}), W2: model.Ints([]int64{1}), Activation: act}
	return stream.New("gelu", "z").Then(f).Readout("g").Model()
}

// ffCheckTaylor: |R(z)| ≤ |z|³/6 for R(z) = GELU(z) − z/2 − z²/√(2π), each
// point certified: the enclosure of |R(z)| lies below |z|³/6.
func ffCheckTaylor(m *model.Model, bound *big.Rat) (*Evidence, error) {
	zs := ffGeluPoints()
	in := make([]map[string]*big.Rat, len(zs))
	for i, z := range zs {
		in[i] = map[string]*big.Rat{"z": z}
	}
	out, err := ffRunVectors(m, in, ffTaylorPrec)
	if err != nil {
		return nil, err
	}
	cLo, cHi, err := ffEnclose(ffInvSqrt2Pi)
	if err != nil {
		return nil, err
	}
	worst, worstZ := new(big.Rat), new(big.Rat)
	for i, z := range zs {
		g := out[i][0]
		if z.Sign() == 0 { // GELU(0) = 0 · Φ(0) = 0 exactly, so R(0) = 0
			if g.Lo.Sign() != 0 || g.Hi.Sign() != 0 {
				return &Evidence{Verdict: Refuted, Summary: "GELU(0) ≠ 0: enclosure " + g.Text}, nil
			}
			continue
		}
		half := new(big.Rat).Quo(z, big.NewRat(2, 1))
		z2 := new(big.Rat).Mul(z, z)
		lo := new(big.Rat).Sub(g.Lo, half)
		lo.Sub(lo, new(big.Rat).Mul(z2, cHi))
		hi := new(big.Rat).Sub(g.Hi, half)
		hi.Sub(hi, new(big.Rat).Mul(z2, cLo))
		r := ffMagnitude(lo, hi)
		b := new(big.Rat).Mul(bound, ffCube(new(big.Rat).Abs(z)))
		if r.Cmp(b) > 0 {
			if lo.Cmp(b) > 0 || hi.Cmp(new(big.Rat).Neg(b)) < 0 {
				return &Evidence{Verdict: Refuted, Summary: fmt.Sprintf("at z = %s: R(z) ∈ [%s, %s], outside ±%s·|z|³ = ±%s (certified)",
					z.RatString(), lo.FloatString(12), hi.FloatString(12), bound.RatString(), b.FloatString(12))}, nil
			}
			return nil, fmt.Errorf("z = %s: the enclosure of R(z) is too wide to decide |R(z)| ≤ %s·|z|³", z.RatString(), bound.RatString())
		}
		ratio := new(big.Rat).Quo(r, ffCube(new(big.Rat).Abs(z)))
		if ratio.Cmp(worst) > 0 {
			worst, worstZ = ratio, z
		}
	}
	return &Evidence{Verdict: Holds, Summary: fmt.Sprintf("no counterexample: %d points z (every multiple of 1/8 in [−8, 8], ±2^−k for k = 6, 8, …, 40), each certified (interval:%d); largest |R(z)|/|z|³ = %s at z = %s (the bound is 1/6 ≈ 0.1667)",
		len(zs), ffTaylorPrec, worst.FloatString(4), worstZ.RatString())}, nil
}

// The product search has two parts. The dense part evaluates the
// paper's identity ε(x, y) = √(π/2)(GELU(x + y) − GELU(x) − GELU(y)) − xy
// at every (x, y) of a grid from certified enclosures of GELU at the grid
// points (computed once each by the engine's GELU unit), combined in exact
// rational interval arithmetic; the block part runs the FFN mul itself
// (blocks.MulGELU) on a coarse grid and on tiny inputs.

// ffMulGrids are the dense grids ((1/den)ℤ ∩ [−max, max])²: a coarse one
// (step 1/2) over [−8, 8]² and a fine one (step 1/8) over [−2, 2]², where the ratio
// |ε|/(|x| + |y|)³ is largest.
var ffMulGrids = []struct{ den, max int }{{2, 8}, {8, 2}}

// ffRatInterval is a rational enclosure [lo, hi].
type ffRatInterval struct{ lo, hi *big.Rat }

func (a ffRatInterval) sub(b ffRatInterval) ffRatInterval {
	return ffRatInterval{new(big.Rat).Sub(a.lo, b.hi), new(big.Rat).Sub(a.hi, b.lo)}
}

// scale multiplies by c ∈ [cLo, cHi] with 0 < cLo.
func (a ffRatInterval) scale(cLo, cHi *big.Rat) ffRatInterval {
	lo, hi := new(big.Rat).Mul(a.lo, cHi), new(big.Rat).Mul(a.hi, cHi)
	if a.lo.Sign() >= 0 {
		lo.Mul(a.lo, cLo)
	}
	if a.hi.Sign() <= 0 {
		hi.Mul(a.hi, cLo)
	}
	return ffRatInterval{lo, hi}
}

// ffMulTiny are the block part's inputs: the multiples of 4 in [−8, 8]²,
// (±1, ±1), and ±2^−k (k = 10, 20) paired with each other and with ±1
// and 8.
func ffMulTiny() [][2]*big.Rat {
	var ps [][2]*big.Rat
	for i := -2; i <= 2; i++ {
		for j := -2; j <= 2; j++ {
			ps = append(ps, [2]*big.Rat{big.NewRat(int64(4*i), 1), big.NewRat(int64(4*j), 1)})
		}
	}
	for _, s := range []int64{1, -1} {
		ps = append(ps, [2]*big.Rat{big.NewRat(s, 1), big.NewRat(1, 1)}, [2]*big.Rat{big.NewRat(s, 1), big.NewRat(-1, 1)})
	}
	for k := 10; k <= 20; k += 10 {
		t := new(big.Rat).SetFrac(big.NewInt(1), new(big.Int).Lsh(big.NewInt(1), uint(k)))
		for _, s := range []*big.Rat{t, new(big.Rat).Neg(t)} {
			for _, u := range []*big.Rat{t, new(big.Rat).Neg(t), big.NewRat(1, 1), big.NewRat(-1, 1), big.NewRat(8, 1)} {
				ps = append(ps, [2]*big.Rat{s, u}, [2]*big.Rat{u, s})
			}
		}
	}
	return ps
}

// ffMulWorst tracks the largest ratio |ε|/(|x| + |y|)³ and checks each
// point against the bound.
type ffMulWorst struct {
	bound, ratio *big.Rat
	at           [2]*big.Rat
}

// check returns a refutation, an error when the enclosure is too wide to
// decide, or nil.
func (w *ffMulWorst) check(x, y *big.Rat, e ffRatInterval) (*Evidence, error) {
	s := new(big.Rat).Add(new(big.Rat).Abs(x), new(big.Rat).Abs(y))
	if s.Sign() == 0 {
		if e.lo.Sign() != 0 || e.hi.Sign() != 0 {
			return &Evidence{Verdict: Refuted, Summary: fmt.Sprintf("ε(0, 0) ∈ [%s, %s] ≠ 0", e.lo.FloatString(12), e.hi.FloatString(12))}, nil
		}
		return nil, nil
	}
	b := new(big.Rat).Mul(w.bound, ffCube(s))
	m := ffMagnitude(e.lo, e.hi)
	if m.Cmp(b) > 0 {
		if e.lo.Cmp(b) > 0 || e.hi.Cmp(new(big.Rat).Neg(b)) < 0 {
			return &Evidence{Verdict: Refuted, Summary: fmt.Sprintf("at (x, y) = (%s, %s): ε ∈ [%s, %s], outside ±%s(|x|+|y|)³ = ±%s (certified)",
				x.RatString(), y.RatString(), e.lo.FloatString(12), e.hi.FloatString(12), w.bound.RatString(), b.FloatString(12))}, nil
		}
		return nil, fmt.Errorf("(%s, %s): the enclosure of ε is too wide to decide the bound", x.RatString(), y.RatString())
	}
	if r := new(big.Rat).Quo(m, ffCube(s)); r.Cmp(w.ratio) > 0 {
		w.ratio, w.at = r, [2]*big.Rat{x, y}
	}
	return nil, nil
}

// ffCheckMulBound: |ε(x, y)| ≤ bound·(|x| + |y|)³ at every point of the
// dense grid (from the GELU unit gelu) and at every input of the block
// part (running mul), each certified.
func ffCheckMulBound(gelu, mul *model.Model, bound *big.Rat) (*Evidence, error) {
	w := &ffMulWorst{bound: bound, ratio: new(big.Rat)}
	cLo, cHi, err := ffEnclose(blocks.SqrtHalfPi)
	if err != nil {
		return nil, err
	}
	dense := 0
	for _, grid := range ffMulGrids {
		// GELU at every z ∈ (1/den)ℤ ∩ [−2·max, 2·max]
		n := 2 * grid.max * grid.den
		var in []map[string]*big.Rat
		for k := -n; k <= n; k++ {
			in = append(in, map[string]*big.Rat{"z": big.NewRat(int64(k), int64(grid.den))})
		}
		out, err := ffRunVectors(gelu, in, ffMulPrec)
		if err != nil {
			return nil, err
		}
		g := func(k int) ffRatInterval { v := out[k+n][0]; return ffRatInterval{v.Lo, v.Hi} }
		half := n / 2
		for i := -half; i <= half; i++ {
			for j := -half; j <= half; j++ {
				x, y := big.NewRat(int64(i), int64(grid.den)), big.NewRat(int64(j), int64(grid.den))
				xy := new(big.Rat).Mul(x, y)
				e := g(i+j).sub(g(i)).sub(g(j)).scale(cLo, cHi).sub(ffRatInterval{xy, xy})
				if ev, err := w.check(x, y, e); ev != nil || err != nil {
					return ev, err
				}
				dense++
			}
		}
	}
	// the block itself
	ps := ffMulTiny()
	var in []map[string]*big.Rat
	for _, p := range ps {
		in = append(in, map[string]*big.Rat{"x": p[0], "y": p[1]})
	}
	res, err := ffRunVectors(mul, in, ffMulPrec)
	if err != nil {
		return nil, err
	}
	for k, p := range ps {
		xy := new(big.Rat).Mul(p[0], p[1])
		v := res[k][0]
		if ev, err := w.check(p[0], p[1], ffRatInterval{new(big.Rat).Sub(v.Lo, xy), new(big.Rat).Sub(v.Hi, xy)}); ev != nil || err != nil {
			if ev != nil {
				ev.Summary = "the block mul " + ev.Summary
			}
			return ev, err
		}
	}
	return &Evidence{Verdict: Holds, Summary: fmt.Sprintf("no counterexample: %d points (x, y), every multiple of 1/2 in [−8, 8]² and of 1/8 in [−2, 2]² (from certified GELU enclosures), and %d inputs of the block mul (multiples of 4 in [−8, 8]², (±1, ±1), ±2^−k with k ≤ 20 against ±2^−k, ±1, 8), each certified (interval:%d); largest |ε|/(|x|+|y|)³ = %s at (%s, %s) (the bound is %s)",
		dense+len(ps), len(ps), ffMulPrec, w.ratio.FloatString(4), w.at[0].RatString(), w.at[1].RatString(), bound.RatString())}, nil
}

func ffMulModel(act model.Activation) (*model.Model, error) {
	return stream.New("mul", "x", "y").Then(blocks.MulGELU("x", "y", "xy", act)).Readout("xy").Model()
}

var ffGelus = []struct {
	name string
	act  model.Activation
}{{"erf", model.GELU}, {"tanh", model.GELUTanh}}

// ffCheckDerivation: the step "from |R(z)| ≤ |z|³/6 we can derive
// |ε(x, y)| ≤ (|x|+|y|)³/4" as an inference. ε = √(π/2)(R(x+y) − R(x) −
// R(y)) for any function of the form z/2 + z²/√(2π) + R(z); the premise
// allows R(2) = 8/6 and R(1) = −1/6 (at the bound, opposite signs), and
// then ε(1, 1) = √(π/2)(8/6 + 2/6) > 2 = (1 + 1)³/4.
func ffCheckDerivation() (*Evidence, error) {
	r1, r2 := big.NewRat(-1, 6), big.NewRat(8, 6)
	for _, c := range []struct{ z, r *big.Rat }{{big.NewRat(1, 1), r1}, {big.NewRat(2, 1), r2}} {
		if new(big.Rat).Abs(c.r).Cmp(new(big.Rat).Quo(ffCube(c.z), big.NewRat(6, 1))) > 0 {
			return nil, fmt.Errorf("the remainder %s at z = %s violates the premise", c.r.RatString(), c.z.RatString())
		}
	}
	diff := new(big.Rat).Sub(r2, new(big.Rat).Mul(big.NewRat(2, 1), r1)) // R(2) − R(1) − R(1)
	eps := numeric.Mul(blocks.SqrtHalfPi, numeric.Lit(diff))
	lo, hi, err := ffEnclose(eps)
	if err != nil {
		return nil, err
	}
	bound := big.NewRat(2, 1) // (|1| + |1|)³/4
	if lo.Cmp(bound) <= 0 {
		return &Evidence{Verdict: Holds, Summary: fmt.Sprintf("no counterexample: ε(1, 1) ∈ [%s, %s] is not certified above 2", lo.FloatString(6), hi.FloatString(6))}, nil
	}
	return &Evidence{Verdict: Refuted,
		Summary: fmt.Sprintf("the premise allows R(1) = −1/6 and R(2) = 8/6 (both at |z|³/6); then ε(1, 1) = √(π/2)(R(2) − 2R(1)) = √(π/2)·5/3 ∈ [%s, %s] > 2 = (1 + 1)³/4 (certified)", lo.FloatString(6), hi.FloatString(6)),
		Explain: []string{
			"ε(x, y) = √(π/2)(GELU(x+y) − GELU(x) − GELU(y)) − xy = √(π/2)(R(x+y) − R(x) − R(y)) for any GELU(z) = z/2 + z²/√(2π) + R(z).",
			"A function with R(z) = s(z)|z|³/6, s smooth, |s| ≤ 1, s(1) = −1, s(2) = 1 satisfies |R(z)| ≤ |z|³/6 everywhere and has ε(1, 1) = √(π/2)·5/3 ≈ 2.089 > 2.",
			"From |R| ≤ |z|³/6 alone one gets only |ε| ≤ √(π/2)(|x+y|³ + |x|³ + |y|³)/6 ≤ (√(π/2)/3)(|x|+|y|)³ ≈ 0.418(|x|+|y|)³.",
			"The printed bound itself holds (ffn.mul.bound.erf, ffn.mul.bound.tanh); a correct derivation needs more than the pointwise remainder bound, e.g. the integral form R(z) = ∫₀^z GELU‴(t)(z − t)²/2 dt with |GELU‴| ≤ 1, which gives |R(2) − 2R(1)| ≤ 1 at x = y = 1 and in general |ε| ≤ (√(π/2)/8)(|x| + |y|)³ ≈ 0.157(|x| + |y|)³, worst at x = y (a quadrature outside the engine).",
		}}, nil
}

// ffCheckMulNotExact: at (1, 1) the certified enclosure of mul(1, 1)
// excludes 1 = xy, for both GELUs (the cheat sheet's "No").
func ffCheckMulNotExact(models map[string]*model.Model) (*Evidence, error) {
	var parts []string
	for _, g := range ffGelus {
		out, err := ffRunVectors(models[g.name], []map[string]*big.Rat{{"x": big.NewRat(1, 1), "y": big.NewRat(1, 1)}}, ffTaylorPrec)
		if err != nil {
			return nil, err
		}
		v := out[0][0]
		if v.Contains(big.NewRat(1, 1)) {
			return &Evidence{Verdict: Refuted, Summary: fmt.Sprintf("%s GELU: mul(1, 1) ∈ [%s, %s] may be exactly 1", g.name, v.Lo.FloatString(12), v.Hi.FloatString(12))}, nil
		}
		parts = append(parts, fmt.Sprintf("%s GELU: mul(1, 1) ∈ [%s, %s]", g.name, v.Lo.FloatString(8), v.Hi.FloatString(8)))
	}
	return &Evidence{Verdict: Proved, Summary: "the GELU product is not xy: at (1, 1), " + joinComma(parts) + ", both excluding 1 (certified, interval:128)",
		Explain: []string{"No ReLU network computes xy exactly either (see ffn.mul.relu-impossible)."}}, nil
}

func ffRegisterMultiplication() {
	for _, g := range ffGelus {
		g := g
		Register(
			ffClaim("ffn.mul.taylor."+g.name, ffSecMul, "sec:ffnn_multiplication",
				fmt.Sprintf("GELU(z) = z/2 + z²/√(2π) + R(z) with |R(z)| ≤ |z|³/6 (here GELU is the %s form)", map[string]string{"erf": "erf (eq:gelu)", "tanh": "tanh approximation (eq:gelu_approx1)"}[g.name]),
				"z ∈ [−8, 8] on the grid of step 1/8, and tiny ±2^−k (k ≤ 40); certified interval arithmetic at 128 bits", Holds,
				func() (*Evidence, error) {
					m, err := ffGeluModel(g.act)
					if err != nil {
						return nil, err
					}
					return ffCheckTaylor(m, big.NewRat(1, 6))
				}),
			ffClaim("ffn.mul.bound."+g.name, ffSecMul, "sec:ffnn_multiplication",
				fmt.Sprintf("√(π/2)(GELU(x + y) − GELU(x) − GELU(y)) = xy + ε(x, y) with |ε(x, y)| ≤ (|x| + |y|)³/4, by the FFN mul (W1 = [[1, 1], [1, 0], [0, 1]], W2 = √(π/2)[1, −1, −1]); %s GELU", g.name),
				"(x, y) on the grids of step 1/2 in [−8, 8]² and 1/8 in [−2, 2]², and tiny ±2^−k (k ≤ 20) paired with ±2^−k, ±1, 8; certified interval arithmetic at 64 bits", Holds,
				func() (*Evidence, error) {
					gm, err := ffGeluModel(g.act)
					if err != nil {
						return nil, err
					}
					m, err := ffMulModel(g.act)
					if err != nil {
						return nil, err
					}
					return ffCheckMulBound(gm, m, big.NewRat(1, 4))
				}),
		)
	}
	Register(
		ffClaim("ffn.mul.derivation", ffSecMul, "sec:ffnn_multiplication",
			"\"|R(z)| ≤ |z|³/6. From this, we can derive … |ε(x, y)| ≤ (|x| + |y|)³/4\": the bound as a consequence of the remainder bound alone",
			"the inference: any R with |R(z)| ≤ |z|³/6 for all z, at x = y = 1", Refuted, ffCheckDerivation),
		ffClaim("ffn.mul.relu-impossible", ffSecMul, "sec:ffnn_multiplication",
			"multiplication of two activations can only be approximated: no ReLU FFN computes xy exactly",
			"(x, y) ∈ ℝ², ReLU FFNs of any width (and depth)", OutOfScope,
			func() (*Evidence, error) {
				return &Evidence{Verdict: OutOfScope,
					Summary: "an impossibility over all FFNs, which the engine cannot enumerate; true by a CPWL argument (see --explain)",
					Explain: []string{
						"A ReLU network is CPWL with finitely many pieces, so t ↦ f(t, t) is CPWL on ℝ with finitely many breakpoints and is affine on some interval [t₀ − h, t₀ + h], h > 0.",
						"There its second difference f(t₀+h, t₀+h) − 2f(t₀, t₀) + f(t₀−h, t₀−h) is 0, while for xy it is (t₀+h)² − 2t₀² + (t₀−h)² = 2h² > 0. So f ≠ xy, on every open set.",
						"The same argument shows any piecewise linear activation fails; the paper's \"requires an activation function with nonzero second derivative\" is the cited Lemma (Akyürek et al.), not checked here.",
					}}, nil
			}),
	)
}

// ---------------------------------------------------------------------
// The cheat sheet (tab:ffnn_cheatsheet): its "Exact?" column, row by row.
// Each claim cites the section of the row's Reference column.

func ffRegisterCheatSheet() {
	Register(
		ffClaim("ffn.cheatsheet.identity.exact", ffSecIdentity, "sec:ffnn_identity",
			"cheat sheet: Identity, ℝ^d → ℝ^d, \"returns the input unchanged\", Exact? Yes",
			"x ∈ ℝ^d, d = 1 … 4", Proved, ffAll(ffIdentityCases(1, 2, 3, 4)...)),
		ffClaim("ffn.cheatsheet.minmax.exact", ffSecMinMax, "sec:ffnn_minmax",
			"cheat sheet: Min / Max, ℝ² → ℝ, Exact? Yes",
			"(x, y) ∈ ℝ²", Proved, ffAll(ffMinCase(blocks.Min("x", "y", "out")), ffMaxCase(blocks.Max("x", "y", "out")))),
		ffClaim("ffn.cheatsheet.addsub.exact", ffSecAdd, "sec:ffnn_addition",
			"cheat sheet: Add / Subtract, ℝ² → ℝ, Exact? Yes",
			"(x, y) ∈ ℝ²", Proved, ffAll(ffAddCase(blocks.Add("x", "y", "out")), ffSubCase(blocks.Sub("x", "y", "out")))),
		ffClaim("ffn.cheatsheet.scale.exact", "Routing Lemma", "sec:routing",
			"cheat sheet: Multiply by c, ℝ → ℝ, x ↦ c x, Exact? Yes",
			"x ∈ ℝ, c ∈ {0, 1, −3/2, 7, 1/3}", Proved,
			func() (*Evidence, error) { return ffProveCases(ffScaleCases(ffScaleBlock)) }),
		ffClaim("ffn.cheatsheet.mul.not-exact", ffSecMul, "sec:ffnn_multiplication",
			"cheat sheet: Multiply (xy), ℝ² → ℝ, \"via 2nd-order Taylor expansion of GELU\", Exact? No",
			"the GELU product at (x, y) = (1, 1), erf and tanh GELU", Proved,
			func() (*Evidence, error) {
				models := map[string]*model.Model{}
				for _, g := range ffGelus {
					m, err := ffMulModel(g.act)
					if err != nil {
						return nil, err
					}
					models[g.name] = m
				}
				return ffCheckMulNotExact(models)
			}),
		ffClaim("ffn.cheatsheet.comparators.not-exact", ffSecCompare, "sec:comparison",
			"cheat sheet: Comparators, ℝ → {0,1}, 𝕀[x > 0], 𝕀[x ≥ 0], 𝕀[x = 0], Exact? No",
			"GTZero_ε, GEZero_ε, EqZero_ε at a point of their gray regions, ε ∈ {1/4, 1, 3}", Proved,
			func() (*Evidence, error) { return ffCheckComparatorsNotExact(ffGtzeroEps, ffGezeroEps, ffEqzeroEps) }),
		ffClaim("ffn.cheatsheet.boolean.exact", ffSecBoolean, "sec:ffnn_boolean",
			"cheat sheet: Boolean functions, {0,1}^m → {0,1}, \"any Boolean function of m bits\", Exact? Yes",
			"every φ of m ≤ 3 bits, every x ∈ {0,1}^m", Proved,
			func() (*Evidence, error) { return ffCheckBooleanTables(blocks.Boolean, 3) }),
		ffClaim("ffn.cheatsheet.if.exact", ffSecIf, "sec:ffnn_conditional",
			"cheat sheet: Conditional (if), \"if p = 1 then x else y\", Exact? Yes, on the section's domain x, y ∈ [0, 1]",
			"the faces p = 1 and p = 0 with x, y ∈ [0, 1]", Proved,
			ffAll(ffIfCases(blocks.If("p", "x", "y", "out"), "0", "1")...)),
		ffClaim("ffn.cheatsheet.if.type", ffSecIf, "sec:ffnn_conditional",
			"cheat sheet: Conditional (if) has type {0,1} × ℝ² → ℝ and is exact: if(p, x, y) for every real x, y",
			"the faces p = 1 and p = 0 with (x, y) ∈ ℝ² (the row's type; §Conditionals assumes x, y ∈ [0, 1])", Refuted,
			func() (*Evidence, error) {
				ev, err := ffProveCases(ffIfCases(blocks.If("p", "x", "y", "out"), "", ""))
				if err != nil || ev.Verdict != Refuted {
					return ev, err
				}
				ev.Explain = append(ev.Explain,
					"No ReLU FFN is exact on {0,1} × ℝ²: an FFN f is L-Lipschitz for some L, but |f(1, x, y) − f(0, x, y)| = |x − y| would be unbounded at distance 1.",
					"§Conditionals itself assumes x, y ∈ [0, 1] (or a bounded interval [a, b], with weights depending on it): ffn.if.exact, ffn.if.interval.")
				return ev, nil
			}),
		ffClaim("ffn.cheatsheet.cpwl.exact", ffSecCPWL, "sec:ffnn_cpwl",
			"cheat sheet: CPWL f, \"any continuous piecewise-linear function with finitely many pieces\", Exact? Yes: the univariate construction",
			"d = 1: x ∈ ℝ, for 4 point sets", Proved, ffCheckCPWL(ffCPWLBlock, ffInterpolation)),
		ffClaim("ffn.cheatsheet.cpwl.multivariate", ffSecCPWL, "sec:ffnn_cpwl",
			"cheat sheet: CPWL f: ℝ^d → ℝ for d > 1, exact (\"computed exactly by a FFNN with O(log k) layers\", Arora et al., not reproduced)",
			"d > 1", OutOfScope,
			func() (*Evidence, error) {
				return &Evidence{Verdict: OutOfScope,
					Summary: "the multivariate construction is cited (Arora et al. 2018), not given; it needs several layers, which one feed-forward sublayer is not",
					Explain: []string{
						"One hidden layer does not suffice for d ≥ 2: max(0, x₁, x₂) is CPWL but not a two-layer ReLU FFN. A two-layer FFN is non-differentiable on a union of whole hyperplanes (each unit's kink extends along its whole hyperplane unless units on the same hyperplane cancel, and then they cancel everywhere on it), while max(0, x₁, x₂) is non-differentiable on the ray {x₁ = 0, x₂ < 0} but differentiable at (0, 1) on the same line.",
						"So the row's \"Yes\" for ℝ^d → ℝ holds for multi-layer networks, as the section says, not for the single FFN of the other rows."}}, nil
			}),
		ffClaim("ffn.cheatsheet.cancel-residual.exact", ffSecCancel, "sec:ffnn_cancel_residual",
			"cheat sheet: Cancel Residual, ℝ^d → ℝ^d, \"builds f′ so that f′(x) + x = f(x)\", Exact? Yes",
			"x ∈ ℝ^d for four f (sort, clip, two seeded random blocks)", Proved,
			func() (*Evidence, error) { return ffCheckCancel(blocks.CancelResidual, ffCancelCases()) }),
	)
}

// ffBooleanFFN is ff_φ for m inputs and the all-false table, as a ReLU
// FFN: its hidden layer and W1 do not depend on φ.
func ffBooleanFFN(build func(xs []string, out string, table []bool) (*stream.FF, error), m int) (*cpwl.FFN, error) {
	f, err := build(ffNames("x", m), "phi", make([]bool, 1<<m))
	if err != nil {
		return nil, err
	}
	return ffnOf(f)
}
