package proofs

import (
	"fmt"
	"math/big"
	"math/rand/v2"
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

// The claims of §Preliminaries (Uniformity), §Basic Ingredients (Boolean,
// categorical and integer representations, special symbols) and
// §Positional Encodings, with the encodings of §One-Hot Encodings and
// §Almost Orthogonal Embeddings.
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
		&Claim{ID: "prelim.uniformity.principles", Section: "Uniformity", Label: "sec:uniformity",
			Statement: "three principles: properties not involving parameters (position embeddings, precision) may depend on n; parameters may depend on a maximum length N (state how their number scales); dependence on n or N should be computable, e.g. in poly(log N) time",
			Domain:    "conventions for constructions",
			Recorded:  OutOfScope,
			Check: func() (*Evidence, error) {
				return &Evidence{Verdict: OutOfScope, Summary: "conventions the cookbook adopts, not statements with a truth value; the engine records each recipe's dependence instead (MaxN, parameters such as N in lookup and dyck1-n, position encodings that read n)",
					Explain: []string{"Where a recipe's weights depend on N (dyck1-n, hardmax-softmax, lookup-ao), the recipe is built for a given N and checked for n ≤ N; the 'uniformity limit' reported by 'verify --recipe' is where a fixed precision stops being enough."}}, nil
			}},
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
		&Claim{ID: "repr.cat.onehot", Section: "Categorical Representations", Label: "sec:symbols",
			Statement: "categorical representations as one-hot vectors: k symbols as orthogonal vectors e_1 … e_k, separated by a minimum distance, read back exactly (argmax unembedding)",
			Domain:    "k = 26: e_s·e_t = [s = t], ‖e_s − e_t‖² = 2 for s ≠ t (the word embeddings of the recipe categorical); the recipe categorical (k = 4) on every string of length ≤ 4",
			Recorded:  Proved,
			Check:     basCheckCategorical},
		&Claim{ID: "repr.cat.width", Section: "Categorical Representations", Label: "sec:symbols",
			Statement: "to accommodate a set of k categories as orthogonal (one-hot) vectors, a width d ≥ k is required",
			Domain:    "every family of k pairwise orthogonal nonzero vectors in ℝ^d",
			Recorded:  OutOfScope,
			Check: func() (*Evidence, error) {
				return &Evidence{Verdict: OutOfScope, Summary: "a lower bound over every family of vectors, which the engine cannot enumerate; true by linear algebra: pairwise orthogonal nonzero vectors are linearly independent (take the dot product of Σ a_s e_s = 0 with each e_t), so k ≤ d",
					Explain: []string{"The almost orthogonal families of §Almost Orthogonal Embeddings relax orthogonality to |x_i·x_j| ≤ ε and fit N vectors in m = O(log N) dimensions (pe.ao.*)."}}, nil
			}},
		&Claim{ID: "repr.int.count", Section: "Integer Representations", Label: "sec:integers",
			Statement: "a count C is stored as C/n using unmasked uniform attention, and as C/i using future-masked uniform attention",
			Domain:    "the recipe count (C = number of a's) under SMAT and AHAT, every string over {a, b} of length ≤ 7, exact",
			Recorded:  Proved,
			Check: func() (*Evidence, error) {
				return basExhaustiveAll("count", 7)
			}},
		&Claim{ID: "repr.int.precision", Section: "Integer Representations", Label: "sec:integers",
			Statement: "representing integers requires greater numerical precision to represent larger integers: precision bounds the integers that can be represented",
			Domain:    "binary formats fp8-e4m3, bf16, fp16, fp32, fp64 (P significand bits), round to nearest even",
			Recorded:  Proved,
			Check:     basCheckIntPrecision},
		&Claim{ID: "repr.int.bounded", Section: "Integer Representations", Label: "sec:integers",
			Statement: "with bounded position embeddings and Lipschitz position-wise functions (Hahn 2020), or even non-Lipschitz layer normalization (Chiang et al. 2023), all computed values are bounded",
			Domain:    "every transformer of that kind",
			Recorded:  OutOfScope,
			Check: func() (*Evidence, error) {
				return &Evidence{Verdict: OutOfScope, Summary: "a cited theorem about every transformer with bounded position embeddings (a bound over all weights and inputs), which the engine cannot enumerate",
					Explain: []string{"Consistent with it, the counts the cookbook computes are bounded: C/n and C/i ∈ [0, 1] (repr.int.count), and 1/(n+1), 1/(i+1) (repr.bos.uniform)."}}, nil
			}},
		&Claim{ID: "repr.bos.uniform", Section: "Special Symbols",
			Statement: "with a BOS symbol in the sequence, uniform attention computes 1/(n+1) (unmasked), or 1/(i+1) if future-masked",
			Domain:    "the recipe bos (^w, BOS at the first position only) under SMAT and AHAT, every w ∈ {a, b}* with |w| + 1 ≤ 8, exact",
			Recorded:  Proved,
			Check: func() (*Evidence, error) {
				return basExhaustiveAll("bos", 8)
			}},
		&Claim{ID: "pe.inverse.bos", Section: "Simple Positional Encodings",
			Statement: "the value 1/i at position i can be computed using a future-masked uniform attention layer and the presence of a BOS token",
			Domain:    "the recipe bos: its future-masked head gives 1/p at model position p (BOS at p = 1), under SMAT and AHAT, every input of length ≤ 8, exact",
			Recorded:  Proved,
			Check: func() (*Evidence, error) {
				return basExhaustiveAll("bos", 8)
			}},
		&Claim{ID: "pe.ratio.unmasked-bos", Section: "Simple Positional Encodings",
			Statement: "similar to 1/i, the value i/n may also be obtained at position i using an unmasked uniform attention layer and the presence of a beginning-of-sequence token",
			Domain:    "no position encoding (the point of computing it); any number of unmasked attention layers (any weighting) and FFNs; the input ^aa",
			Recorded:  Refuted,
			Check:     basCheckRatioBOS},
		&Claim{ID: "pe.sinusoidal.modulo", Section: "Sinusoidal Positional Encoding",
			Statement: "using the table-lookup operation, sinusoidal positional encodings (M = 10000) can also be used to do modulo counting, to recognize PARITY for instance",
			Domain:    "pe(i, 2c) = cos(i/M^{2c/d}), pe(i, 2c+1) = sin(i/M^{2c/d}), M = 10000",
			Recorded:  OutOfScope,
			Check:     basCheckSinusoidal},
		&Claim{ID: "pe.onehot.dot", Section: "One-Hot Encodings", Label: "sec:one-hot",
			Statement: "positions as one-hot vectors e_1 … e_N ∈ ℝ^N: q·k = e_{q_i}·e_j = 𝕀[j = q_i], so the highest score beats the next by γ = 1",
			Domain:    "N = 64: every pair i, j ≤ 64 of the recipe pe-onehot's position embeddings, exact",
			Recorded:  Proved,
			Check:     basCheckOneHot},
		&Claim{ID: "pe.ao.family", Section: "Almost Orthogonal Embeddings", Label: "sec:almost_orthogonal",
			Statement: "vectors x_1 … x_N ∈ {±1/√m}^m with |x_i·x_j| ≤ ε (i ≠ j) and x_i·x_i ≥ 1 − ε (eq. near_ortho)",
			Domain:    "the families the recipe pe-ao samples (ε = 1/4, δ = 1/2, seed 1) for N = 4, 8, 16: every pair, exact",
			Recorded:  Proved,
			Check:     basCheckAOFamily},
		&Claim{ID: "pe.ao.probability", Section: "Almost Orthogonal Embeddings", Label: "sec:almost_orthogonal",
			Statement: "read as intended (\"at least\"): for any k > 0 with 1/N^k ≤ δ and m = ⌈(12k/ε²) log(2N)⌉ = O(log N), the sampled vectors satisfy eq. near_ortho with probability at least 1 − δ",
			Domain:    "ε = 1/4 (the paper's choice), δ = 9/10, k = log(1/δ)/log N (the least k allowed), N = 2^21 + 1, natural log",
			Recorded:  Refuted,
			Check:     basCheckAOProbability},
		&Claim{ID: "pe.ao.probability-corrected", Section: "Almost Orthogonal Embeddings", Label: "sec:almost_orthogonal",
			Statement: "corrected: for a constant k ≥ 1 (not shrinking with N) and m = ⌈(12k/ε²) log(2N)⌉, the sampled vectors satisfy eq. near_ortho with probability at least 1 − 1/N^k (so at least 1 − δ when 1/N^k ≤ δ)",
			Domain:    "k ∈ {1, 2}, ε ∈ {1/4, 1/3}, N ∈ {2, 4, 16, 64, 256, 1024}, natural log: the union bound with exact binomial tails",
			Recorded:  Proved,
			Check:     basCheckAOCorrected},
	)
}

// basExhaustiveAll proves a recipe's sweep under SMAT and AHAT for every
// input up to maxN.
func basExhaustiveAll(recipe string, maxN int) (*Evidence, error) {
	var parts []string
	for _, w := range []model.Weighting{model.Softmax, model.AverageHardmax} {
		ev, err := exhaustive(sweep{recipe: recipe, weighting: w, maxN: maxN})
		if err != nil || ev.Verdict != Proved {
			return ev, err
		}
		parts = append(parts, ev.Summary)
	}
	return &Evidence{Verdict: Proved, Summary: strings.Join(parts, "; ")}, nil
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
				res, err := cpwl.Verify(f, dom, []cpwl.Piece{piece(space(d), affine(zero, out...))}, nil)
				if err != nil {
					return nil, err
				}
				ev := cpwlEvidence(res, m.Components, m.Components)
				if ev.Verdict != Proved {
					ev.Summary = fmt.Sprintf("bool-convert %s→%s, %v: %s", from, to, truth == 1, ev.Summary)
					return ev, nil
				}
				proofs++
				regions += res.Regions
			}
		}
	}
	return &Evidence{Verdict: Proved,
		Summary: fmt.Sprintf("the recipe bool-convert's FFN, for all 20 conversions from 01, pm1, ge1, pair, pair-delta (δ = 1/4) to 01, pm1, pair, pair-delta, gives exactly the target on every representative (%d cpwl proofs, %d regions; true in ge1 is the whole half-line x ≥ 1)", proofs, regions),
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

func basCheckCategorical() (*Evidence, error) {
	r, err := recipes.Get("categorical")
	if err != nil {
		return nil, err
	}
	con, err := r.Construct(model.Softmax, 1, map[string]string{"k": "26"})
	if err != nil {
		return nil, err
	}
	embs := make([][]*big.Rat, len(con.Model.WordEmbedding))
	for s, row := range con.Model.WordEmbedding {
		for _, e := range row {
			x, ok, err := e.Rat()
			if err != nil || !ok {
				return nil, fmt.Errorf("embedding of symbol %d is not rational", s)
			}
			embs[s] = append(embs[s], x)
		}
	}
	dot := func(a, b []*big.Rat) *big.Rat {
		s := new(big.Rat)
		for k := range a {
			s.Add(s, new(big.Rat).Mul(a[k], b[k]))
		}
		return s
	}
	for s := range embs {
		for t := range embs {
			want := big.NewRat(0, 1)
			if s == t {
				want = big.NewRat(1, 1)
			}
			if d := dot(embs[s], embs[t]); d.Cmp(want) != 0 {
				st := fmt.Sprintf("e_%d·e_%d = %s, want %s", s+1, t+1, d.RatString(), want.RatString())
				return &Evidence{Verdict: Refuted, Summary: st, Explain: []string{st}}, nil
			}
		}
	}
	ev, err := exhaustive(sweep{recipe: "categorical", maxN: 4, params: map[string]string{"k": "4"}})
	if err != nil || ev.Verdict != Proved {
		return ev, err
	}
	return &Evidence{Verdict: Proved,
		Summary: fmt.Sprintf("k = 26: e_s·e_t = [s = t] for all 676 pairs, so ‖e_s − e_t‖² = 2 for s ≠ t (minimum distance √2), exact; and %s", ev.Summary)}, nil
}

// basCheckIntPrecision: in a binary format with P significand bits every
// integer 0 … 2^P is exact and 2^P + 1 is not (it rounds to 2^P).
func basCheckIntPrecision() (*Evidence, error) {
	var parts []string
	for _, f := range []*numeric.Format{numeric.FP8E4M3, numeric.BFloat16, numeric.Binary16, numeric.Binary32, numeric.Binary64} {
		top := new(big.Int).Lsh(big.NewInt(1), uint(f.P))
		upTo := int64(0)
		if f.P <= 11 {
			for k := int64(0); k <= top.Int64(); k++ {
				if got := f.RoundRat(big.NewRat(k, 1)); got != float64(k) {
					s := fmt.Sprintf("%s: the integer %d rounds to %g", f.Name, k, got)
					return &Evidence{Verdict: Refuted, Summary: s, Explain: []string{s}}, nil
				}
			}
			upTo = top.Int64()
		}
		for _, k := range []*big.Int{new(big.Int).Sub(top, big.NewInt(1)), top} {
			r := new(big.Rat).SetInt(k)
			if got := new(big.Rat).SetFloat64(f.RoundRat(r)); got == nil || got.Cmp(r) != 0 {
				s := fmt.Sprintf("%s: 2^%d or 2^%d − 1 is not exact", f.Name, f.P, f.P)
				return &Evidence{Verdict: Refuted, Summary: s, Explain: []string{s}}, nil
			}
		}
		next := new(big.Rat).SetInt(new(big.Int).Add(top, big.NewInt(1)))
		got := new(big.Rat).SetFloat64(f.RoundRat(next))
		if got.Cmp(next) == 0 {
			s := fmt.Sprintf("%s: 2^%d + 1 is exact", f.Name, f.P)
			return &Evidence{Verdict: Refuted, Summary: s, Explain: []string{s}}, nil
		}
		p := fmt.Sprintf("%s (P = %d): 2^%d + 1 rounds to %s", f.Name, f.P, f.P, got.RatString())
		if upTo > 0 {
			p += fmt.Sprintf(", every integer 0 … %d exact", upTo)
		} else {
			p += fmt.Sprintf(", 2^%d − 1 and 2^%d exact", f.P, f.P)
		}
		parts = append(parts, p)
	}
	return &Evidence{Verdict: Proved,
		Summary: "a format with P significand bits holds every integer up to 2^P and not 2^P + 1, so larger integers need more bits: " + strings.Join(parts, "; ") + " (exact rounding)"}, nil
}

// basCheckRatioBOS refutes "i/n by unmasked uniform attention and BOS".
func basCheckRatioBOS() (*Evidence, error) {
	// (1) The cookbook's unmasked uniform head with BOS (recipe bos) on
	// ^aa gives 1/3 = 1/(n+1) at every position, not i/n.
	r, err := recipes.Get("bos")
	if err != nil {
		return nil, err
	}
	con, err := r.Construct(model.AverageHardmax, 8, nil)
	if err != nil {
		return nil, err
	}
	runner, err := model.New(numeric.MustParsePrecision("exact"), con.Model)
	if err != nil {
		return nil, err
	}
	syms, err := con.Model.Tokenize("^aa")
	if err != nil {
		return nil, err
	}
	res, err := runner.Run(syms, false)
	if err != nil {
		return nil, err
	}
	var unmasked []string
	for _, o := range res.Outputs {
		unmasked = append(unmasked, o.Values[0].Text)
	}
	if unmasked[1] != unmasked[2] {
		return &Evidence{Verdict: Holds, Summary: "the unmasked head distinguishes positions 2 and 3 of ^aa"}, nil
	}
	// (2) The lemma behind the refutation, on the engine: seeded random
	// two-layer unmasked models (no position encoding), AHAT and
	// leftmost UHAT, exact: positions 2 and 3 of ^aa always agree.
	models := 0
	rng := rand.New(rand.NewPCG(13, 5))
	for t := 0; t < 20; t++ {
		for _, w := range []model.Weighting{model.AverageHardmax, model.LeftHardmax} {
			m, err := basRandomUnmasked(rng, w)
			if err != nil {
				return nil, err
			}
			run, err := model.New(numeric.MustParsePrecision("exact"), m)
			if err != nil {
				return nil, err
			}
			syms, err := m.Tokenize("^aa")
			if err != nil {
				return nil, err
			}
			out, err := run.Run(syms, false)
			if err != nil {
				return nil, err
			}
			for k := range out.Outputs[1].Values {
				a, b := out.Outputs[1].Values[k], out.Outputs[2].Values[k]
				if a.Text != b.Text {
					s := fmt.Sprintf("a random unmasked model (%s, seed 13) separates positions 2 and 3 of ^aa: %s vs %s", w, a.Text, b.Text)
					return &Evidence{Verdict: Holds, Summary: s, Explain: []string{s}}, nil
				}
			}
			models++
		}
	}
	s := fmt.Sprintf("on ^aa (n = 2) positions 2 and 3 hold the same vector we(a), and every unmasked layer maps equal vectors to equal vectors, so any such transformer outputs one value there, while i/n must be 1/2 and 1; the cookbook's unmasked uniform head gives 1/(n+1) = %s at every position (recipe bos, exact), and %d seeded random two-layer unmasked models (AHAT, UHAT) agree at positions 2 and 3 (exact)", unmasked[0], models)
	return &Evidence{Verdict: Refuted, Summary: s, Explain: []string{s,
		"The lemma: without a position encoding, an unmasked attention layer computes at position i a function g(x_i; x_1, …, x_n), the same g for every i (the weights of position i depend on i only through its query; keys, values and UHAT's tie-breaking by key position are shared by all queries), and FFNs act position-wise; so equal inputs at two positions stay equal through every layer.",
		"What does work: future-masked uniform attention with BOS gives 1/i (pe.inverse.bos), unmasked gives 1/(n+1) (repr.bos.uniform); i/n = (1/n)/(1/i) is a quotient, not piecewise linear, so no ReLU FFN computes it from those two for every n (for n ≤ N a nonuniform FFN could interpolate the finitely many values). Uniformly, i/n has to be supplied as a position encoding (the recipe pe-ratio), as the constructions cited use it."}}, nil
}

// basRandomUnmasked is a random two-layer model without position encoding:
// random embeddings of ^, a, b in ℝ³, an unmasked head with random
// W^Q, W^K, W^V, a random ReLU FFN with biases, a second unmasked head.
func basRandomUnmasked(rng *rand.Rand, w model.Weighting) (*model.Model, error) {
	rv := func() numeric.Expr { return numeric.Frac(int64(rng.IntN(9)-4), int64(rng.IntN(3)+1)) }
	mat := func(r, c int) model.Matrix {
		m := model.Zeros(r, c)
		for i := 0; i < r; i++ {
			for j := 0; j < c; j++ {
				m.Set(i, j, rv())
			}
		}
		return m
	}
	vec := func(n int) model.Vector {
		v := make(model.Vector, n)
		for i := range v {
			v[i] = rv()
		}
		return v
	}
	es := []string{"e1", "e2", "e3"}
	emb := make([]stream.Values, 3)
	for s := range emb {
		emb[s] = stream.Values{"e1": rv(), "e2": rv(), "e3": rv()}
	}
	if w == model.Softmax {
		return nil, fmt.Errorf("softmax scores are irrational in general")
	}
	h1 := []string{"h1", "h2"}
	f := []string{"f1", "f2"}
	o := []string{"o1"}
	return stream.New("unmasked", es...).
		Symbols([]string{"^", "a", "b"}, func(s int) stream.Values { return emb[s] }).
		Then(&stream.Attn{Name: "head 1", In: es, Out: h1, Q: mat(2, 3), K: mat(2, 3), V: mat(2, 3), Mask: model.NoMask, Weighting: w, Scale: model.NoScale}).
		Then(&stream.FF{Name: "ffn", In: append(append([]string(nil), es...), h1...), Out: f, W1: mat(4, 5), B1: vec(4), W2: mat(2, 4), B2: vec(2)}).
		Then(&stream.Attn{Name: "head 2", In: f, Out: o, Q: mat(1, 2), K: mat(1, 2), V: mat(1, 2), Mask: model.NoMask, Weighting: w, Scale: model.NoScale}).
		Readout("f1", "f2", "o1").Model()
}

func basCheckSinusoidal() (*Evidence, error) {
	// A certified fact the remark would need and does not have: no
	// component of the M = 10000 encoding is 2-periodic in i (pe(1) and
	// pe(3) differ in every component, d = 4).
	r, err := recipes.Get("pe-sinusoidal")
	if err != nil {
		return nil, err
	}
	con, err := r.Construct(model.Softmax, 4, nil)
	if err != nil {
		return nil, err
	}
	p1, p3 := con.Model.Position.Vector(1, 4), con.Model.Position.Vector(3, 4)
	for k := range p1 {
		lo1, hi1, err := p1[k].Enclose(128)
		if err != nil {
			return nil, err
		}
		lo3, hi3, err := p3[k].Enclose(128)
		if err != nil {
			return nil, err
		}
		if hi1.Cmp(lo3) >= 0 && hi3.Cmp(lo1) >= 0 {
			return nil, fmt.Errorf("pe(1) and pe(3) are not separated in component %d", k)
		}
	}
	return &Evidence{Verdict: OutOfScope,
		Summary: "no construction is given, and an existence claim over all lookups and FFNs is beyond the engine; with M = 10000 no component is periodic in i with period 2 (the frequencies M^(−2c/d) ≤ 1 < π; certified: pe(1) and pe(3) differ in every component, d = 4), so parity is not read off one component",
		Explain: []string{"(−1)^i = cos(πi) would need the frequency π. The encoding is injective on integers (π is irrational), so a nonuniform construction could recover i mod 2 from pe(i) for i ≤ N, but the paper gives none; the cookbook's own parity-like constructions use the encoding (−1)^i (recipes pe-parity, first).",
			"The paper also swaps sin and cos relative to Vaswani et al. (sin on odd components); the recipe pe-sinusoidal follows the paper."}}, nil
}

func basCheckOneHot() (*Evidence, error) {
	const n = 64
	r, err := recipes.Get("pe-onehot")
	if err != nil {
		return nil, err
	}
	con, err := r.Construct(model.Softmax, n, nil)
	if err != nil {
		return nil, err
	}
	vs := make([][]*big.Rat, n+1)
	for i := 1; i <= n; i++ {
		for _, e := range con.Model.Position.Vector(i, n) {
			x, ok, err := e.Rat()
			if err != nil || !ok {
				return nil, fmt.Errorf("pe-onehot: position %d is not rational", i)
			}
			vs[i] = append(vs[i], x)
		}
	}
	for i := 1; i <= n; i++ {
		for j := 1; j <= n; j++ {
			s := new(big.Rat)
			for k := range vs[i] {
				s.Add(s, new(big.Rat).Mul(vs[i][k], vs[j][k]))
			}
			want := int64(0)
			if i == j {
				want = 1
			}
			if s.Cmp(big.NewRat(want, 1)) != 0 {
				st := fmt.Sprintf("e_%d·e_%d = %s, want %d", i, j, s.RatString(), want)
				return &Evidence{Verdict: Refuted, Summary: st, Explain: []string{st}}, nil
			}
		}
	}
	return &Evidence{Verdict: Proved, Summary: fmt.Sprintf("N = %d: e_i·e_j = 𝕀[i = j] for all %d pairs of the recipe pe-onehot's encodings (exact), so every score is 1 at j = q_i and 0 elsewhere: gap γ = 1, width N", n, n*n)}, nil
}

// basAOSigns reads the sign vectors s_i = √m·x_i of pe-ao's encoding: the
// entries are ±1/√m (irrational unless m is a square), read by certified
// enclosure, and checked to be ±1/√m by squaring the enclosure.
func basAOSigns(n int) ([][]int, int, error) {
	r, err := recipes.Get("pe-ao")
	if err != nil {
		return nil, 0, err
	}
	con, err := r.Construct(model.Softmax, n, nil)
	if err != nil {
		return nil, 0, err
	}
	var signs [][]int
	m := 0
	for i := 1; i <= n; i++ {
		v := con.Model.Position.Vector(i, n)
		m = len(v)
		row := make([]int, m)
		for k, e := range v {
			sq, ok, err := numeric.Mul(e, e).Rat()
			if err != nil {
				return nil, 0, err
			}
			if ok && sq.Cmp(big.NewRat(1, int64(m))) != 0 {
				return nil, 0, fmt.Errorf("pe-ao: entry %d of x_%d squares to %s, not 1/%d", k+1, i, sq.RatString(), m)
			}
			lo, hi, err := e.Enclose(64)
			if err != nil {
				return nil, 0, err
			}
			if k == 0 {
				// The magnitude, once per vector: m·x² encloses 1.
				lo2, hi2, err := numeric.Mul(numeric.LitInt(int64(m)), numeric.Mul(e, e)).Enclose(64)
				if err != nil {
					return nil, 0, err
				}
				if lo2.Cmp(big.NewRat(1, 1)) > 0 || hi2.Cmp(big.NewRat(1, 1)) < 0 {
					return nil, 0, fmt.Errorf("pe-ao: entry %d of x_%d is not ±1/√m", k+1, i)
				}
			}
			switch {
			case lo.Sign() > 0:
				row[k] = 1
			case hi.Sign() < 0:
				row[k] = -1
			default:
				return nil, 0, fmt.Errorf("pe-ao: the sign of entry %d of x_%d is undecided", k+1, i)
			}
		}
		signs = append(signs, row)
	}
	return signs, m, nil
}

func basCheckAOFamily() (*Evidence, error) {
	eps := big.NewRat(1, 4)
	var parts []string
	for _, n := range []int{4, 8, 16} {
		signs, m, err := basAOSigns(n)
		if err != nil {
			return nil, err
		}
		maxDot := 0
		for i := range signs {
			for j := range signs {
				dot := 0
				for k := range signs[i] {
					dot += signs[i][k] * signs[j][k]
				}
				x := big.NewRat(int64(dot), int64(m))
				if i == j {
					if x.Cmp(new(big.Rat).Sub(big.NewRat(1, 1), eps)) < 0 {
						s := fmt.Sprintf("N = %d: x_%d·x_%d = %s < 1 − ε", n, i+1, i+1, x.RatString())
						return &Evidence{Verdict: Refuted, Summary: s, Explain: []string{s}}, nil
					}
					continue
				}
				if dot < 0 {
					dot = -dot
				}
				maxDot = max(maxDot, dot)
				if x.Abs(x).Cmp(eps) > 0 {
					s := fmt.Sprintf("N = %d: |x_%d·x_%d| = %s > ε = 1/4", n, i+1, j+1, x.RatString())
					return &Evidence{Verdict: Refuted, Summary: s, Explain: []string{s}}, nil
				}
			}
		}
		parts = append(parts, fmt.Sprintf("N = %d, m = %d: max_{i≠j} |x_i·x_j| = %d/%d", n, m, maxDot, m))
	}
	return &Evidence{Verdict: Proved, Summary: "x_i·x_i = 1 and |x_i·x_j| ≤ ε = 1/4 for every pair (exact, from the signs of the certified entries ±1/√m): " + strings.Join(parts, "; ") + " (m shrinks as N grows: k = log(1/δ)/log N, see pe.ao.probability)",
		Explain: []string{"These are the families the sampler kept: it resamples with the next seed until the family passes, so this checks the sampled family, not the probability (pe.ao.probability*)."}}, nil
}

// basAODim is m = ⌈(12k/ε²) log(2N)⌉ (natural log) for the real k,
// decided by certified enclosure.
func basAODim(n int64, eps *big.Rat, k numeric.Expr) (int64, error) {
	e2 := new(big.Rat).Mul(eps, eps)
	expr := numeric.Quo(numeric.Mul(numeric.Mul(numeric.LitInt(12), k), numeric.Log(numeric.LitInt(2*n))), numeric.Lit(e2))
	lo, hi, err := expr.Enclose(256)
	if err != nil {
		return 0, err
	}
	ceil := func(x *big.Rat) *big.Int {
		qt, rm := new(big.Int).QuoRem(x.Num(), x.Denom(), new(big.Int))
		if rm.Sign() > 0 {
			qt.Add(qt, big.NewInt(1))
		}
		return qt
	}
	cl, ch := ceil(lo), ceil(hi)
	if cl.Cmp(ch) != 0 || !cl.IsInt64() {
		return 0, fmt.Errorf("m = ⌈%v⌉ undecided", expr)
	}
	return max(cl.Int64(), 1), nil
}

// basTail returns P(|S_m| > εm) and P(|S_m| ≤ εm) for S_m a sum of m
// independent fair ±1 signs (S_m = 2B − m, B binomial): exact.
func basTail(m int64, eps *big.Rat) (tail, inside *big.Rat) {
	c := big.NewInt(1) // C(m, b)
	in, out := new(big.Int), new(big.Int)
	em := new(big.Rat).Mul(eps, big.NewRat(m, 1))
	for b := int64(0); b <= m; b++ {
		s := new(big.Rat).SetInt64(2*b - m)
		if s.Abs(s).Cmp(em) <= 0 {
			in.Add(in, c)
		} else {
			out.Add(out, c)
		}
		c = new(big.Int).Div(new(big.Int).Mul(c, big.NewInt(m-b)), big.NewInt(b+1))
	}
	total := new(big.Int).Lsh(big.NewInt(1), uint(m))
	return new(big.Rat).SetFrac(out, total), new(big.Rat).SetFrac(in, total)
}

func basCheckAOProbability() (*Evidence, error) {
	eps, delta := big.NewRat(1, 4), big.NewRat(9, 10)
	n := int64(1)<<21 + 1
	k := numeric.Quo(numeric.Log(numeric.Lit(new(big.Rat).Inv(delta))), numeric.Log(numeric.LitInt(n)))
	m, err := basAODim(n, eps, k)
	if err != nil {
		return nil, err
	}
	classes := new(big.Int).Lsh(big.NewInt(1), uint(m-1)) // sign vectors up to ±
	s := fmt.Sprintf("ε = 1/4, δ = 9/10, k = log(10/9)/log N (so 1/N^k = δ), N = 2^21 + 1: m = %d (certified enclosure); {±1/√m}^m has 2^%d = %s vectors up to sign, fewer than N, so two sampled vectors are equal up to sign and |x_i·x_j| = 1 > ε: the probability of eq. near_ortho is 0 < 1 − δ = 1/10", m, m-1, classes.String())
	if classes.Cmp(big.NewInt(n)) >= 0 {
		return &Evidence{Verdict: Holds, Summary: "pigeonhole does not apply: " + s}, nil
	}
	return &Evidence{Verdict: Refuted, Summary: s, Explain: []string{s,
		"With k = log(1/δ)/log N, m = ⌈12 log(1/δ) log(2N)/(ε² log N)⌉ tends to ⌈12 log(1/δ)/ε²⌉ as N grows: bounded, so no fixed m fits N almost orthogonal vectors for large N. The bound 1 − 1/N^k needs k bounded below (pe.ao.probability-corrected)."}}, nil
}

func basCheckAOCorrected() (*Evidence, error) {
	var parts []string
	cases := 0
	for _, kk := range []int64{1, 2} {
		for _, eps := range []*big.Rat{big.NewRat(1, 4), big.NewRat(1, 3)} {
			for _, n := range []int64{2, 4, 16, 64, 256, 1024} {
				m, err := basAODim(n, eps, numeric.LitInt(kk))
				if err != nil {
					return nil, err
				}
				tail, _ := basTail(m, eps)
				pairs := big.NewRat(n*(n-1)/2, 1)
				fail := new(big.Rat).Mul(pairs, tail) // union bound; x_i·x_i = 1 always
				nk := new(big.Int).Exp(big.NewInt(n), big.NewInt(kk), nil)
				allowed := new(big.Rat).SetFrac(big.NewInt(1), nk)
				if fail.Cmp(allowed) > 0 {
					f, _ := fail.Float64()
					s := fmt.Sprintf("k = %d, ε = %s, N = %d, m = %d: the union bound C(N, 2)·P(|S_m| > εm) = %.3g exceeds 1/N^k", kk, eps.RatString(), n, m, f)
					return &Evidence{Verdict: Refuted, Summary: s, Explain: []string{s}}, nil
				}
				cases++
				if n == 1024 {
					f, _ := fail.Float64()
					parts = append(parts, fmt.Sprintf("k = %d, ε = %s, N = 1024: m = %d, failure ≤ %.3g ≤ 1/N^k", kk, eps.RatString(), m, f))
				}
			}
		}
	}
	return &Evidence{Verdict: Proved,
		Summary: fmt.Sprintf("%d cases (k ∈ {1, 2}, ε ∈ {1/4, 1/3}, N ∈ {2, 4, 16, 64, 256, 1024}): P(failure) ≤ C(N, 2)·P(|S_m| > εm) ≤ 1/N^k, the binomial tail summed exactly (x_i·x_i = 1 always); e.g. %s", cases, strings.Join(parts, "; ")),
		Explain: []string{"The union bound is over the pairs i < j: x_i·x_j = S_m/m with S_m a sum of m independent fair signs.",
			"By Hoeffding, P(|S_m| > εm) ≤ 2 exp(−mε²/2) ≤ 2(2N)^{−6k}, so C(N, 2)·2(2N)^{−6k} ≤ N^{−k} for every N ≥ 2 once k ≥ 2/5; the printed choice of the least k with 1/N^k ≤ δ lets k → 0 (pe.ao.probability); the printed \"at most 1 − δ\" is a slip for \"at least\" (attn.lookup-ao.probability-literal)."}}, nil
}
