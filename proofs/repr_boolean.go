package proofs

import (
	"fmt"
	"math/big"
	"sort"
	"strings"

	"github.com/transformer-cookbook/verify/exact"
	"github.com/transformer-cookbook/verify/exact/cpwl"
	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/numeric"
	"github.com/transformer-cookbook/verify/recipes"
	"github.com/transformer-cookbook/verify/recipes/blocks"
	"github.com/transformer-cookbook/verify/recipes/stream"
)

// The claims of §Basic Ingredients, §Boolean Representations: the table
// tab:booleans, conversions between the representations,
// and the pair representation under layer normalization.
//
// The Boolean table (tab:booleans) is checked cell by cell. Its columns
// are read as follows, the only reading under which the table's "no"
// entries for the scalar rows make sense (a lone scalar has variance 0,
// whatever it holds):
//
//   - Min. gap: the distance between the set of representatives of false
//     and that of true is positive.
//   - Fixed mean / fixed variance: the representation sits in a residual
//     vector beside other components c (any values, any number of them),
//     and the layer norm takes the mean and variance of the whole vector;
//     "fixed" means the mean (variance) of [r; c] is the same for every
//     representative r of false and of true, for every context c. So
//     fixed mean ⟺ Σ r is the same for all representatives; fixed
//     variance needs Σ r and Σ r² both the same.
//   - The row ±[δ; −δ] is the family over every δ > 0 (as §Amplification
//     uses it: a difference that may be arbitrarily small); with one fixed
//     δ it would have a gap and a fixed variance, and the table's "no"
//     entries would be wrong.
//   - Continuous ops: NOT (and AND) are computed by an FFN on the
//     representation's sets; for the row marked "no", no continuous
//     function computes NOT.

// basInterval is a set of reals: from lo to hi (nil: unbounded), each end
// open or closed.
type basInterval struct {
	lo, hi         *big.Rat
	loOpen, hiOpen bool
}

func basPoint(s string) basInterval { return basInterval{lo: q(s), hi: q(s)} }

func (iv basInterval) String() string {
	if iv.lo != nil && iv.hi != nil && iv.lo.Cmp(iv.hi) == 0 {
		return iv.lo.RatString()
	}
	l, r := "[", "]"
	lo, hi := "−∞", "∞"
	if iv.lo == nil || iv.loOpen {
		l = "("
	}
	if iv.hi == nil || iv.hiOpen {
		r = ")"
	}
	if iv.lo != nil {
		lo = iv.lo.RatString()
	}
	if iv.hi != nil {
		hi = iv.hi.RatString()
	}
	return l + lo + ", " + hi + r
}

// sample returns a point of the interval: a closed finite end, else a
// point 1 inside the open one.
func (iv basInterval) sample() *big.Rat {
	switch {
	case iv.lo != nil && !iv.loOpen:
		return new(big.Rat).Set(iv.lo)
	case iv.hi != nil && !iv.hiOpen:
		return new(big.Rat).Set(iv.hi)
	case iv.lo != nil && iv.hi != nil:
		m := new(big.Rat).Add(iv.lo, iv.hi)
		return m.Quo(m, big.NewRat(2, 1))
	case iv.lo != nil:
		return new(big.Rat).Add(iv.lo, big.NewRat(1, 1))
	case iv.hi != nil:
		return new(big.Rat).Sub(iv.hi, big.NewRat(1, 1))
	}
	return new(big.Rat)
}

// basRep is a row of tab:booleans. A scalar row has intervals of false
// and true values; a pair row represents false by δ·[−1; +1] and true by
// δ·[+1; −1] for δ in deltas (the table's orientation).
type basRep struct {
	key          string
	falseText    string
	trueText     string
	pair         bool
	falseSet     basInterval
	trueSet      basInterval
	deltas       basInterval
	ops, gap     bool // the table's entries
	mean, fixVar bool
}

var basReps = []basRep{
	{key: "nonpos-pos", falseText: "(−∞, 0]", trueText: "(0, ∞)", falseSet: basInterval{hi: q("0")}, trueSet: basInterval{lo: q("0"), loOpen: true}},
	{key: "zero-one", falseText: "0", trueText: "1", falseSet: basPoint("0"), trueSet: basPoint("1"), ops: true, gap: true},
	{key: "pm-one", falseText: "−1", trueText: "+1", falseSet: basPoint("-1"), trueSet: basPoint("1"), ops: true, gap: true},
	{key: "neg-pos", falseText: "(−∞, 0)", trueText: "(0, ∞)", falseSet: basInterval{hi: q("0"), hiOpen: true}, trueSet: basInterval{lo: q("0"), loOpen: true}, ops: true},
	{key: "zero-ge1", falseText: "0", trueText: "[1, ∞)", falseSet: basPoint("0"), trueSet: basInterval{lo: q("1")}, ops: true, gap: true},
	{key: "pair", falseText: "[−1; +1]", trueText: "[+1; −1]", pair: true, deltas: basPoint("1"), ops: true, gap: true, mean: true, fixVar: true},
	{key: "pair-delta", falseText: "[−δ; +δ]", trueText: "[+δ; −δ]", pair: true, deltas: basInterval{lo: q("0"), loOpen: true}, ops: true, mean: true},
}

func basYesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// representatives returns two representatives of each truth value (one
// for a point set), as exact vectors.
func (r basRep) representatives() (falses, trues [][]*big.Rat) {
	if r.pair {
		ds := []*big.Rat{r.deltas.sample()}
		if r.deltas.lo == nil || r.deltas.hi == nil || r.deltas.lo.Cmp(r.deltas.hi) != 0 {
			ds = append(ds, new(big.Rat).Mul(ds[0], big.NewRat(2, 1)))
		}
		for _, d := range ds {
			nd := new(big.Rat).Neg(d)
			falses = append(falses, []*big.Rat{nd, new(big.Rat).Set(d)})
			trues = append(trues, []*big.Rat{new(big.Rat).Set(d), nd})
		}
		return falses, trues
	}
	return [][]*big.Rat{{r.falseSet.sample()}}, [][]*big.Rat{{r.trueSet.sample()}}
}

func basMean(v []*big.Rat) *big.Rat {
	s := new(big.Rat)
	for _, x := range v {
		s.Add(s, x)
	}
	return s.Quo(s, big.NewRat(int64(len(v)), 1))
}

func basVariance(v []*big.Rat) *big.Rat {
	mu := basMean(v)
	s := new(big.Rat)
	for _, x := range v {
		d := new(big.Rat).Sub(x, mu)
		s.Add(s, d.Mul(d, d))
	}
	return s.Quo(s, big.NewRat(int64(len(v)), 1))
}

func basVec(v []*big.Rat) string { return lnxRatsText(v) }

// basGap decides the "Min. gap" cell: the exact distance between the
// false and the true set.
func basGap(r basRep) (*Evidence, error) {
	var gapText string
	positive := false
	if r.pair {
		// ‖δ'[1; −1] − δ[−1; 1]‖ = √2 (δ + δ'), whose infimum over
		// δ, δ' ∈ D is 2√2 inf D.
		inf := r.deltas.lo
		if inf == nil {
			return nil, fmt.Errorf("%s: δ unbounded below", r.key)
		}
		sq := new(big.Rat).Mul(inf, inf)
		sq.Mul(sq, big.NewRat(8, 1))
		positive = sq.Sign() > 0
		g := "0"
		if positive {
			g = "√" + sq.RatString()
		}
		gapText = fmt.Sprintf("‖δ'[1; −1] − δ[−1; 1]‖ = √2(δ + δ'), whose infimum over δ, δ' is 2√2·inf δ = %s", g)
		if !r.deltas.loOpen || inf.Sign() > 0 {
			gapText += " (attained)"
		} else {
			gapText += ": false and true come arbitrarily close (δ = δ' → 0), no minimum gap"
		}
	} else {
		f, t := r.falseSet, r.trueSet
		if f.hi == nil || t.lo == nil || f.hi.Cmp(t.lo) > 0 || f.hi.Cmp(t.lo) == 0 && !f.hiOpen && !t.loOpen {
			return nil, fmt.Errorf("%s: false %s does not lie below true %s", r.key, f, t)
		}
		gap := new(big.Rat).Sub(t.lo, f.hi)
		positive = gap.Sign() > 0
		gapText = fmt.Sprintf("sup false = %s ≤ inf true = %s, so the distance between the sets is %s", f.hi.RatString(), t.lo.RatString(), gap.RatString())
		if !positive {
			w := f.sample()
			gapText += fmt.Sprintf(": false %s and true %s + 1/m are 1/m apart for every m", w.RatString(), t.lo.RatString())
		}
	}
	s := fmt.Sprintf("false = %s, true = %s: %s; the table says %s", r.falseText, r.trueText, gapText, basYesNo(r.gap))
	if positive != r.gap {
		return &Evidence{Verdict: Refuted, Summary: s, Explain: []string{s}}, nil
	}
	return &Evidence{Verdict: Proved, Summary: s}, nil
}

// basMeanCell decides "Fixed Mean": Σ r the same for every representative.
func basMeanCell(r basRep) (*Evidence, error) {
	var s string
	fixed := false
	if r.pair {
		// Σ δ·u = δ·Σ u with u = [−1; 1] or [1; −1]: Σ u = 0 for both, so
		// Σ r = 0 for every δ, as a polynomial identity in δ.
		sums := []lnxPoly{}
		for _, u := range [][]string{{"-1", "1"}, {"1", "-1"}} {
			p := lnxPoly{}
			for _, c := range u {
				p = lnxPadd(p, lnxPscale(q(c), lnxPvar(0)))
			}
			sums = append(sums, p)
		}
		fixed = len(sums[0]) == 0 && len(sums[1]) == 0
		where := "for every δ ∈ " + r.deltas.String()
		if r.deltas.hi != nil && r.deltas.lo.Cmp(r.deltas.hi) == 0 {
			where = "in particular at δ = " + r.deltas.String()
		}
		s = fmt.Sprintf("Σ r = %s for false and %s for true, %s (coefficients compared), so the mean of [r; c] is Σc/(2 + m) for every context c ∈ ℝ^m", sums[0].format("δ"), sums[1].format("δ"), where)
	} else {
		fs, ts := r.representatives()
		a, b := fs[0][0], ts[0][0]
		fixed = a.Cmp(b) == 0
		s = fmt.Sprintf("the representatives %s (false) and %s (true) give [r; c] means that differ by %s/(1 + m) for every context c ∈ ℝ^m (exact)",
			a.RatString(), b.RatString(), new(big.Rat).Sub(b, a).RatString())
	}
	s = fmt.Sprintf("false = %s, true = %s: %s; the table says %s", r.falseText, r.trueText, s, basYesNo(r.mean))
	if fixed != r.mean {
		return &Evidence{Verdict: Refuted, Summary: s, Explain: []string{s}}, nil
	}
	return &Evidence{Verdict: Proved, Summary: s}, nil
}

// basVarCell decides "Fixed Variance": a witness context where two
// representatives give different variances, or (for the pair) the proof
// that the representatives are permutations of each other, so [r; c] are
// too and have one variance for every context c.
func basVarCell(r basRep) (*Evidence, error) {
	fs, ts := r.representatives()
	all := append(append([][]*big.Rat{}, fs...), ts...)
	var s string
	fixed := false
	if r.pair && len(fs) == 1 {
		a := append([]*big.Rat(nil), fs[0]...)
		b := append([]*big.Rat(nil), ts[0]...)
		less := func(v []*big.Rat) func(i, j int) bool { return func(i, j int) bool { return v[i].Cmp(v[j]) < 0 } }
		sort.Slice(a, less(a))
		sort.Slice(b, less(b))
		fixed = lnxRatsEqual(a, b)
		s = fmt.Sprintf("false %s and true %s are permutations of each other, so [r; c] are too for every context c, and mean and variance (symmetric functions) agree; with c empty both have variance %s",
			basVec(fs[0]), basVec(ts[0]), basVariance(fs[0]).RatString())
	} else {
	search:
		for _, ctx := range [][]*big.Rat{{}, {q("1")}, {q("-1")}, {q("0")}} {
			for i := range all {
				for j := i + 1; j < len(all); j++ {
					vi := append(append([]*big.Rat(nil), all[i]...), ctx...)
					vj := append(append([]*big.Rat(nil), all[j]...), ctx...)
					if a, b := basVariance(vi), basVariance(vj); a.Cmp(b) != 0 {
						s = fmt.Sprintf("Var%s = %s ≠ Var%s = %s (exact)", basVec(vi), a.RatString(), basVec(vj), b.RatString())
						if len(ctx) > 0 && !r.pair {
							s += fmt.Sprintf("; alone the scalar has variance 0 either way, but in a residual vector beside c = %s the variance depends on the truth value", basVec(ctx))
						}
						break search
					}
				}
			}
		}
		if s == "" {
			return nil, fmt.Errorf("%s: no context separates the variances of %v", r.key, all)
		}
	}
	s = fmt.Sprintf("false = %s, true = %s: %s; the table says %s", r.falseText, r.trueText, s, basYesNo(r.fixVar))
	explain := []string{s}
	switch {
	case !r.pair:
		explain = append(explain, "Read as the variance of the representation's own components, a scalar has variance 0 whatever it holds, and every scalar row would be \"yes\"; the table's \"no\" is right in the reading used here, where the layer norm sees the whole residual vector [r; c].")
	case r.key == "pair-delta":
		explain = append(explain, "With one fixed δ the variance would be δ² for both truth values (fixed), and the gap 2√2δ > 0: the table's \"no\" entries hold for the family over every δ > 0, as §Amplification uses it.")
	}
	if fixed != r.fixVar {
		return &Evidence{Verdict: Refuted, Summary: s, Explain: explain}, nil
	}
	return &Evidence{Verdict: Proved, Summary: s, Explain: explain}, nil
}

// basOp is one FFN proof of the ops cell: block f equals the pieces on
// domain (cpwl), and the finite truth table check below.
type basOp struct {
	what   string
	f      *stream.FF
	domain *exact.Polyhedron
	pieces []cpwl.Piece
}

// basPairAnd is AND on pairs: min of the first components, written as
// the pair (m, −m).
func basPairAnd() *stream.FF { return lnxPairBlock(blocks.Min("x1", "y1", "m"), []string{"m1", "m2"}) }

// basOpsCell proves NOT and AND for the rows marked "yes".
func basOpsCell(r basRep) (*Evidence, error) {
	if !r.ops {
		return &Evidence{Verdict: OutOfScope,
			Summary: "an impossibility over every continuous function, which the engine cannot enumerate; true by continuity: NOT would need f(0) in (0, ∞) (0 is false) and f(t) ≤ 0 for every t > 0, but f(t) → f(0) > 0 as t → 0⁺",
			Explain: []string{"Every FFN computes a continuous function, so no FFN computes NOT on false = (−∞, 0], true = (0, ∞).",
				"AND and OR are continuous there (min and max: min(x, y) > 0 iff both are), so it is NOT that fails.",
				"No FFN converts this representation (or (−∞, 0)/(0, ∞)) to 0/1 either: the recipe bool-convert refuses them, since false and true have no minimum gap."}}, nil
	}
	row := func(xs ...string) []string { return xs }
	rs := func(rows ...[]string) [][]string { return rows }
	minPieces := []cpwl.Piece{
		piece(halfspaces(2, row("1", "-1", "0")), affine(rs(row("1", "0")))),
		piece(halfspaces(2, row("-1", "1", "0")), affine(rs(row("0", "1"))))}
	neg := blocks.Scale([]string{"x"}, []string{"y"}, big.NewRat(-1, 1))
	negPieces := []cpwl.Piece{piece(space(1), affine(rs(row("-1"))))}
	var ops []basOp
	var note string
	switch r.key {
	case "zero-one":
		ops = []basOp{
			{"NOT = 1 − x (blocks.Not) on ℝ", blocks.Not("x", "y"), space(1), []cpwl.Piece{piece(space(1), affine(rs(row("-1")), "1"))}},
			{"AND = min (blocks.And) on ℝ²", blocks.And("x", "y", "z"), space(2), minPieces}}
		note = "on {0, 1}: NOT swaps 0 and 1, min is AND"
	case "pm-one", "neg-pos":
		ops = []basOp{
			{"NOT = −x (blocks.Scale by −1) on ℝ", neg, space(1), negPieces},
			{"AND = min (blocks.Min) on ℝ²", blocks.Min("x", "y", "z"), space(2), minPieces}}
		note = "−x swaps the two sets; min(x, y) is one of x, y, so it is true (positive) iff both are"
	case "zero-ge1":
		// NOT: 1 − GTZero_1(x) = 1 − min(max(x, 0), 1): the GTZero_ε block
		// with W2 negated and b2 = 1 (Routing Lemma).
		g := blocks.GTZeroEps("x", "y", big.NewRat(1, 1), new(big.Rat))
		w2 := model.Zeros(1, g.W2.Cols)
		for c := 0; c < g.W2.Cols; c++ {
			w2.Set(0, c, numeric.Neg(g.W2.At(0, c)))
		}
		g.W2, g.B2, g.Name = w2, model.IntVector(1), "1 − GTZero_1"
		and := blocks.Min("x", "y", "z")
		ops = []basOp{
			{"NOT = 1 − GTZero_1(x) at x = 0 (gives 1)", g, halfspaces(1, row("1", "0"), row("-1", "0")), []cpwl.Piece{piece(space(1), affine(rs(row("0")), "1"))}},
			{"NOT on x ≥ 1 (gives 0)", g, halfspaces(1, row("-1", "-1")), []cpwl.Piece{piece(space(1), affine(rs(row("0"))))}},
			{"AND = min on x = 0, y ≥ 0 (gives 0)", and, halfspaces(2, row("1", "0", "0"), row("-1", "0", "0"), row("0", "-1", "0")), []cpwl.Piece{piece(space(2), affine(rs(row("0", "0"))))}},
			{"AND = min on y = 0, x ≥ 0 (gives 0)", and, halfspaces(2, row("0", "1", "0"), row("0", "-1", "0"), row("-1", "0", "0")), []cpwl.Piece{piece(space(2), affine(rs(row("0", "0"))))}},
			{"AND = min on x, y ≥ 1 (gives x or y, ≥ 1)", and, halfspaces(2, row("-1", "0", "-1"), row("0", "-1", "-1")), minPieces}}
		note = "NOT gives exactly 1 (true) on 0 and 0 (false) on [1, ∞); AND gives 0 when an input is 0 and min(x, y) ≥ 1 when both are true"
	case "pair", "pair-delta":
		negPair := blocks.Scale([]string{"x1", "x2"}, []string{"y1", "y2"}, big.NewRat(-1, 1))
		ops = []basOp{
			{"NOT = −x (blocks.Scale by −1) on ℝ²", negPair, space(2), []cpwl.Piece{piece(space(2), affine(rs(row("-1", "0"), row("0", "-1"))))}},
			{"AND = (min(x₁, y₁), −min(x₁, y₁)) (blocks.Min as a ± pair) on ℝ²", basPairAnd(), space(2), []cpwl.Piece{
				piece(halfspaces(2, row("1", "-1", "0")), affine(rs(row("1", "0"), row("-1", "0")))),
				piece(halfspaces(2, row("-1", "1", "0")), affine(rs(row("0", "1"), row("0", "-1"))))}}}
		note = "−x swaps δ[−1; 1] and δ[1; −1]; the first component of AND is min(±δ, ±δ'), nonzero and positive iff both are true, and the output is its ± pair"
	default:
		return nil, fmt.Errorf("no ops for %s", r.key)
	}
	var parts []string
	for _, op := range ops {
		ev, err := proveFFN(op.f, op.domain, op.pieces)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", op.what, err)
		}
		if ev.Verdict != Proved {
			ev.Summary = op.what + ": " + ev.Summary
			return ev, nil
		}
		parts = append(parts, fmt.Sprintf("%s (%s)", op.what, strings.TrimPrefix(ev.Summary, "on the whole domain: ")))
	}
	// The truth tables on canonical representatives, evaluated exactly.
	if ev, err := basTruthTables(r, ops); err != nil || ev != nil {
		return ev, err
	}
	return &Evidence{Verdict: Proved,
		Summary: fmt.Sprintf("false = %s, true = %s: %s (cpwl); %s; truth tables checked exactly on representatives; the table says yes", r.falseText, r.trueText, strings.Join(parts, "; "), note)}, nil
}

// basTruthTables evaluates NOT and AND (the first op named NOT and the
// first named AND) on representatives and decodes the results; it
// returns evidence only on a failure.
func basTruthTables(r basRep, ops []basOp) (*Evidence, error) {
	decode := func(v exact.Vector) (bool, bool) {
		x := v[0]
		if r.pair {
			if new(big.Rat).Neg(x).Cmp(v[1]) != 0 || x.Sign() == 0 {
				return false, false
			}
			if r.deltas.hi != nil && r.deltas.lo.Cmp(r.deltas.hi) == 0 && new(big.Rat).Abs(x).Cmp(r.deltas.lo) != 0 {
				return false, false
			}
			return x.Sign() > 0, true
		}
		in := func(iv basInterval) bool {
			return (iv.lo == nil || x.Cmp(iv.lo) > 0 || !iv.loOpen && x.Cmp(iv.lo) == 0) &&
				(iv.hi == nil || x.Cmp(iv.hi) < 0 || !iv.hiOpen && x.Cmp(iv.hi) == 0)
		}
		switch {
		case in(r.trueSet):
			return true, true
		case in(r.falseSet):
			return false, true
		}
		return false, false
	}
	fs, ts := r.representatives()
	if r.key == "zero-ge1" || r.key == "neg-pos" {
		ts = append(ts, []*big.Rat{q("5/2")})
		if r.key == "neg-pos" {
			fs = append(fs, []*big.Rat{q("-1/1000")})
		}
	}
	type rep struct {
		v []*big.Rat
		t bool
	}
	var reps []rep
	for _, v := range fs {
		reps = append(reps, rep{v, false})
	}
	for _, v := range ts {
		reps = append(reps, rep{v, true})
	}
	var not, and *cpwl.FFN
	for _, op := range ops {
		g, err := ffnOf(op.f)
		if err != nil {
			return nil, err
		}
		if not == nil && strings.HasPrefix(op.what, "NOT") {
			not = g
		}
		if and == nil && strings.HasPrefix(op.what, "AND") {
			and = g
		}
	}
	fail := func(s string) (*Evidence, error) {
		return &Evidence{Verdict: Refuted, Summary: s, Explain: []string{s}}, nil
	}
	for _, a := range reps {
		out, err := not.Eval(exact.Vector(a.v))
		if err != nil {
			return nil, err
		}
		if t, ok := decode(out); !ok || t != !a.t {
			return fail(fmt.Sprintf("NOT(%s) = %s, not a representative of %v", basVec(a.v), out, !a.t))
		}
		for _, b := range reps {
			in := exact.Vector{a.v[0], b.v[0]} // AND reads the first components
			out, err := and.Eval(in)
			if err != nil {
				return nil, err
			}
			if t, ok := decode(out); !ok || t != (a.t && b.t) {
				return fail(fmt.Sprintf("AND(%s, %s) = %s, not a representative of %v", basVec(a.v), basVec(b.v), out, a.t && b.t))
			}
		}
	}
	return nil, nil
}

// ---------------------------------------------------------------------------

func init() {
	for _, r := range basReps {
		r := r
		rowText := fmt.Sprintf("row false = %s, true = %s", r.falseText, r.trueText)
		dom := "the table's sets"
		if r.key == "pair-delta" {
			dom = "δ ranges over every δ > 0 (the family)"
		}
		Register(
			&Claim{ID: "repr.bool." + r.key + ".ops", Section: "Boolean Representations", Label: "sec:booleans",
				Statement: fmt.Sprintf("tab:booleans, %s: Continuous Ops. = %s", rowText, basYesNo(r.ops)),
				Domain:    dom + "; NOT and AND as ReLU FFNs (cpwl) on the representation's sets",
				Recorded:  map[bool]Verdict{true: Proved, false: OutOfScope}[r.ops],
				Check:     func() (*Evidence, error) { return basOpsCell(r) }},
			&Claim{ID: "repr.bool." + r.key + ".gap", Section: "Boolean Representations", Label: "sec:booleans",
				Statement: fmt.Sprintf("tab:booleans, %s: Min. Gap = %s", rowText, basYesNo(r.gap)),
				Domain:    dom + "; the exact distance between the false and the true set",
				Recorded:  Proved,
				Check:     func() (*Evidence, error) { return basGap(r) }},
			&Claim{ID: "repr.bool." + r.key + ".mean", Section: "Boolean Representations", Label: "sec:booleans",
				Statement: fmt.Sprintf("tab:booleans, %s: Fixed Mean = %s", rowText, basYesNo(r.mean)),
				Domain:    dom + "; the mean of [r; c] for every representative r and every context c of other components (the layer norm's view of the residual vector)",
				Recorded:  Proved,
				Check:     func() (*Evidence, error) { return basMeanCell(r) }},
			&Claim{ID: "repr.bool." + r.key + ".variance", Section: "Boolean Representations", Label: "sec:booleans",
				Statement: fmt.Sprintf("tab:booleans, %s: Fixed Variance = %s", rowText, basYesNo(r.fixVar)),
				Domain:    dom + "; the variance of [r; c] for every representative r and every context c",
				Recorded:  Proved,
				Check:     func() (*Evidence, error) { return basVarCell(r) }},
		)
	}
	Register(
		&Claim{ID: "repr.bool.convert", Section: "Boolean Representations", Label: "sec:booleans",
			Statement: "position-wise FFNs can convert between different Boolean representations",
			Domain:    "the recipe bool-convert from 01, pm1, ge1 (false 0, true [1, ∞)), pair, pair-delta (δ = 1/4) to 01, pm1, pair, pair-delta: its one FFN on the residual stream, on every representative",
			Recorded:  Proved,
			Check:     basCheckConvert},
		&Claim{ID: "repr.bool.pair.layernorm", Section: "Boolean Representations", Label: "sec:booleans",
			Statement: "with false = [+1; −1], true = [−1; +1], layer normalization preserves truth values (false stays false, true stays true)",
			Domain:    "LN with ε = 0, β = 0, γ = 1 on both vectors (the text's orientation; the table's is the opposite), the engine's layer norm, exact",
			Recorded:  Proved,
			Check:     basCheckPairLN},
	)
}

// basCheckConvert proves the recipe bool-convert's FFN on every
// representative of its source representation: a point for each finite
// representation, and the half-line x ≥ 1 for true in ge1. The FFN acts
// on the whole residual stream (inputs, then the fresh outputs at 0), so
// the domain fixes the outputs at 0 and the reference is the target
// representation on the outputs, 0 on the inputs.
func basCheckConvert() (*Evidence, error) {
	r, err := recipes.Get("bool-convert")
	if err != nil {
		return nil, err
	}
	targets := map[string][2][]string{ // false, true
		"01": {{"0"}, {"1"}}, "pm1": {{"-1"}, {"1"}}, "pair": {{"-1", "1"}, {"1", "-1"}}, "pair-delta": {{"-1/4", "1/4"}, {"1/4", "-1/4"}},
	}
	sources := []string{"01", "pm1", "ge1", "pair", "pair-delta"}
	proofs, regions := 0, 0
	var cert certTally
	for _, from := range sources {
		for _, to := range []string{"01", "pm1", "pair", "pair-delta"} {
			con, err := r.Construct(model.Softmax, 1, map[string]string{"from": from, "to": to, "delta": "1/4"})
			if err != nil {
				return nil, err
			}
			m := con.Model
			if len(m.Layers) != 1 || m.Layers[0].FeedForward == nil {
				return nil, fmt.Errorf("bool-convert %s→%s: expected one FFN layer", from, to)
			}
			f, err := ffnFromModel(m.Layers[0].FeedForward)
			if err != nil {
				return nil, err
			}
			d := m.D
			nin := 1
			if from == "pair" || from == "pair-delta" {
				nin = 2
			}
			for _, truth := range []int{0, 1} {
				src := targets[from]
				var in []string
				if from == "ge1" {
					in = []string{[]string{"0", "1"}[truth]}
				} else {
					in = src[truth]
				}
				// Domain: inputs at their values (x ≥ 1 for true in ge1),
				// every other component 0.
				var rows [][]string
				for k := 0; k < d; k++ {
					a := make([]string, d+1)
					for c := range a {
						a[c] = "0"
					}
					val := "0"
					if k < nin {
						val = in[k]
					}
					a[k] = "1"
					a[d] = val
					if !(from == "ge1" && truth == 1 && k == 0) {
						rows = append(rows, append([]string(nil), a...))
					}
					a[k] = "-1"
					a[d] = new(big.Rat).Neg(q(val)).RatString()
					rows = append(rows, a)
				}
				dom := halfspaces(d, rows...)
				out := make([]string, d)
				for k := range out {
					out[k] = "0"
				}
				for k, v := range targets[to][truth] {
					out[nin+k] = v
				}
				zero := make([][]string, d)
				for k := range zero {
					zero[k] = make([]string, d)
					for c := range zero[k] {
						zero[k][c] = "0"
					}
				}
				res, rep, err := decideVerify(f, dom, []cpwl.Piece{piece(space(d), affine(zero, out...))})
				if err != nil {
					return nil, err
				}
				ev, err := cpwlEvidence(res, rep, m.Components, m.Components)
				if err != nil {
					return nil, err
				}
				if ev.Verdict != Proved {
					ev.Summary = fmt.Sprintf("bool-convert %s→%s, %v: %s", from, to, truth == 1, ev.Summary)
					return ev, nil
				}
				proofs++
				regions += res.Regions
				cert.addAll(ev.cert)
			}
		}
	}
	return &Evidence{Verdict: Proved,
		Summary: fmt.Sprintf("the recipe bool-convert's FFN, for all 20 conversions from 01, pm1, ge1, pair, pair-delta (δ = 1/4) to 01, pm1, pair, pair-delta, gives exactly the target on every representative (%d cpwl proofs, %d regions; true in ge1 is the whole half-line x ≥ 1; %s)", proofs, regions, cert.note()),
		Explain: []string{"(−∞, 0]/(0, ∞) and (−∞, 0)/(0, ∞) cannot be converted to 0/1 by any FFN (no minimum gap; the recipe refuses them): see repr.bool.nonpos-pos.ops."}}, nil
}

func basCheckPairLN() (*Evidence, error) {
	m, err := lnxModel(2, new(big.Rat), nil)
	if err != nil {
		return nil, err
	}
	var parts []string
	for _, v := range [][]string{{"1", "-1"}, {"-1", "1"}} {
		in := lnxRats(v...)
		vs, err := lnxRunVector(m, "exact", in...)
		if err != nil {
			return nil, err
		}
		got, err := lnxExactValues(vs)
		if err != nil {
			return nil, err
		}
		if !lnxRatsEqual(got, in) {
			s := fmt.Sprintf("LN%s = %s, not %s", lnxRatsText(in), lnxRatsText(got), lnxRatsText(in))
			return &Evidence{Verdict: Refuted, Summary: s, Explain: []string{s}}, nil
		}
		parts = append(parts, fmt.Sprintf("LN%s = %s", lnxRatsText(in), lnxRatsText(got)))
	}
	return &Evidence{Verdict: Proved,
		Summary: strings.Join(parts, ", ") + " (the engine's layer norm, exact): both truth values are fixed points",
		Explain: []string{"With ε > 0, LN([1; −1]) = [1; −1]/√(1 + ε): no longer ±[1; −1] itself but in the family ±[δ; −δ] (the table's last row), which still decodes by sign.",
			"The text prints false = [+1; −1], true = [−1; +1]; tab:booleans prints the opposite (false = [−1; +1]). Both are fixed by LN; the recipes follow the table."}}, nil
}
