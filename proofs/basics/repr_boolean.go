package basics

import (
	"fmt"
	"math/big"
	"sort"
	"strings"

	"github.com/transformer-cookbook/verify/exact"
	"github.com/transformer-cookbook/verify/exact/cpwl"
	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/numeric"
	"github.com/transformer-cookbook/verify/proofs"
	"github.com/transformer-cookbook/verify/proofs/internal/poly"
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

// interval is a set of reals: from lo to hi (nil: unbounded), each end
// open or closed.
type interval struct {
	lo, hi         *big.Rat
	loOpen, hiOpen bool
}

func point(s string) interval { return interval{lo: proofs.Q(s), hi: proofs.Q(s)} }

func (iv interval) String() string {
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
// Point 1 inside the open one.
func (iv interval) sample() *big.Rat {
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

// rep is a row of tab:booleans. A scalar row has intervals of false
// and true values; a pair row represents false by δ·[−1; +1] and true by
// δ·[+1; −1] for δ in deltas (the table's orientation).
type rep struct {
	key          string
	falseText    string
	trueText     string
	pair         bool
	falseSet     interval
	trueSet      interval
	deltas       interval
	ops, gap     bool // the table's entries
	mean, fixVar bool
}

var reps = []rep{
	{key: "nonpos-pos", falseText: "(−∞, 0]", trueText: "(0, ∞)", falseSet: interval{hi: proofs.Q("0")}, trueSet: interval{lo: proofs.Q("0"), loOpen: true}},
	{key: "zero-one", falseText: "0", trueText: "1", falseSet: point("0"), trueSet: point("1"), ops: true, gap: true},
	{key: "pm-one", falseText: "−1", trueText: "+1", falseSet: point("-1"), trueSet: point("1"), ops: true, gap: true},
	{key: "neg-pos", falseText: "(−∞, 0)", trueText: "(0, ∞)", falseSet: interval{hi: proofs.Q("0"), hiOpen: true}, trueSet: interval{lo: proofs.Q("0"), loOpen: true}, ops: true},
	{key: "zero-ge1", falseText: "0", trueText: "[1, ∞)", falseSet: point("0"), trueSet: interval{lo: proofs.Q("1")}, ops: true, gap: true},
	{key: "pair", falseText: "[−1; +1]", trueText: "[+1; −1]", pair: true, deltas: point("1"), ops: true, gap: true, mean: true, fixVar: true},
	{key: "pair-delta", falseText: "[−δ; +δ]", trueText: "[+δ; −δ]", pair: true, deltas: interval{lo: proofs.Q("0"), loOpen: true}, ops: true, mean: true},
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// representatives returns two representatives of each truth value (one
// for a point set), as exact vectors.
func (r rep) representatives() (falses, trues [][]*big.Rat) {
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

func mean(v []*big.Rat) *big.Rat {
	s := new(big.Rat)
	for _, x := range v {
		s.Add(s, x)
	}
	return s.Quo(s, big.NewRat(int64(len(v)), 1))
}

func variance(v []*big.Rat) *big.Rat {
	mu := mean(v)
	s := new(big.Rat)
	for _, x := range v {
		d := new(big.Rat).Sub(x, mu)
		s.Add(s, d.Mul(d, d))
	}
	return s.Quo(s, big.NewRat(int64(len(v)), 1))
}

func vec(v []*big.Rat) string { return proofs.RatsText(v) }

// gap decides the "Min. gap" cell: the exact distance between the
// false and the true set.
func gap(r rep) (*proofs.Evidence, error) {
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
	s := fmt.Sprintf("false = %s, true = %s: %s; the table says %s", r.falseText, r.trueText, gapText, yesNo(r.gap))
	if positive != r.gap {
		return &proofs.Evidence{Verdict: proofs.Refuted, Summary: s, Explain: []string{s}}, nil
	}
	return &proofs.Evidence{Verdict: proofs.Proved, Summary: s}, nil
}

// meanCell decides "Fixed Mean": Σ r the same for every representative.
func meanCell(r rep) (*proofs.Evidence, error) {
	var s string
	fixed := false
	if r.pair {
		// Σ δ·u = δ·Σ u with u = [−1; 1] or [1; −1]: Σ u = 0 for both, so
		// Σ r = 0 for every δ, as a polynomial identity in δ.
		sums := []poly.Poly{}
		for _, u := range [][]string{{"-1", "1"}, {"1", "-1"}} {
			p := poly.Poly{}
			for _, c := range u {
				p = poly.Add(p, poly.Scale(proofs.Q(c), poly.Var(0)))
			}
			sums = append(sums, p)
		}
		fixed = len(sums[0]) == 0 && len(sums[1]) == 0
		where := "for every δ ∈ " + r.deltas.String()
		if r.deltas.hi != nil && r.deltas.lo.Cmp(r.deltas.hi) == 0 {
			where = "in particular at δ = " + r.deltas.String()
		}
		s = fmt.Sprintf("Σ r = %s for false and %s for true, %s (coefficients compared), so the mean of [r; c] is Σc/(2 + m) for every context c ∈ ℝ^m", sums[0].Format("δ"), sums[1].Format("δ"), where)
	} else {
		fs, ts := r.representatives()
		a, b := fs[0][0], ts[0][0]
		fixed = a.Cmp(b) == 0
		s = fmt.Sprintf("the representatives %s (false) and %s (true) give [r; c] means that differ by %s/(1 + m) for every context c ∈ ℝ^m (exact)",
			a.RatString(), b.RatString(), new(big.Rat).Sub(b, a).RatString())
	}
	s = fmt.Sprintf("false = %s, true = %s: %s; the table says %s", r.falseText, r.trueText, s, yesNo(r.mean))
	if fixed != r.mean {
		return &proofs.Evidence{Verdict: proofs.Refuted, Summary: s, Explain: []string{s}}, nil
	}
	return &proofs.Evidence{Verdict: proofs.Proved, Summary: s}, nil
}

// varCell decides "Fixed Variance": a witness context where two
// representatives give different variances, or (for the pair) the proof
// that the representatives are permutations of each other, so [r; c] are
// too and have one variance for every context c.
func varCell(r rep) (*proofs.Evidence, error) {
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
		fixed = proofs.RatsEqual(a, b)
		s = fmt.Sprintf("false %s and true %s are permutations of each other, so [r; c] are too for every context c, and mean and variance (symmetric functions) agree; with c empty both have variance %s",
			vec(fs[0]), vec(ts[0]), variance(fs[0]).RatString())
	} else {
	search:
		for _, ctx := range [][]*big.Rat{{}, {proofs.Q("1")}, {proofs.Q("-1")}, {proofs.Q("0")}} {
			for i := range all {
				for j := i + 1; j < len(all); j++ {
					vi := append(append([]*big.Rat(nil), all[i]...), ctx...)
					vj := append(append([]*big.Rat(nil), all[j]...), ctx...)
					if a, b := variance(vi), variance(vj); a.Cmp(b) != 0 {
						s = fmt.Sprintf("Var%s = %s ≠ Var%s = %s (exact)", vec(vi), a.RatString(), vec(vj), b.RatString())
						if len(ctx) > 0 && !r.pair {
							s += fmt.Sprintf("; alone the scalar has variance 0 either way, but in a residual vector beside c = %s the variance depends on the truth value", vec(ctx))
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
	s = fmt.Sprintf("false = %s, true = %s: %s; the table says %s", r.falseText, r.trueText, s, yesNo(r.fixVar))
	explain := []string{s}
	switch {
	case !r.pair:
		explain = append(explain, "Read as the variance of the representation's own components, a scalar has variance 0 whatever it holds, and every scalar row would be \"yes\"; the table's \"no\" is right in the reading used here, where the layer norm sees the whole residual vector [r; c].")
	case r.key == "pair-delta":
		explain = append(explain, "With one fixed δ the variance would be δ² for both truth values (fixed), and the gap 2√2δ > 0: the table's \"no\" entries hold for the family over every δ > 0, as §Amplification uses it.")
	}
	if fixed != r.fixVar {
		return &proofs.Evidence{Verdict: proofs.Refuted, Summary: s, Explain: explain}, nil
	}
	return &proofs.Evidence{Verdict: proofs.Proved, Summary: s, Explain: explain}, nil
}

// op is one FFN proof of the ops cell: block f equals the pieces on
// domain (cpwl), and the finite truth table check below.
type op struct {
	what   string
	f      *stream.FF
	domain *exact.Polyhedron
	pieces []cpwl.Piece
}

// pairAnd is AND on pairs: min of the first components, written as
// the pair (m, −m).
func pairAnd() *stream.FF { return proofs.PairBlock(blocks.Min("x1", "y1", "m"), []string{"m1", "m2"}) }

// opsCell proves NOT and AND for the rows marked "yes".
func opsCell(r rep) (*proofs.Evidence, error) {
	if !r.ops {
		return &proofs.Evidence{Verdict: proofs.OutOfScope,
			Summary: "an impossibility over every continuous function, which the engine cannot enumerate; true by continuity: NOT would need f(0) in (0, ∞) (0 is false) and f(t) ≤ 0 for every t > 0, but f(t) → f(0) > 0 as t → 0⁺",
			Explain: []string{"Every FFN computes a continuous function, so no FFN computes NOT on false = (−∞, 0], true = (0, ∞).",
				"AND and OR are continuous there (min and max: min(x, y) > 0 iff both are), so it is NOT that fails.",
				"No FFN converts this representation (or (−∞, 0)/(0, ∞)) to 0/1 either: the recipe bool-convert refuses them, since false and true have no minimum gap."}}, nil
	}
	row := func(xs ...string) []string { return xs }
	rs := func(rows ...[]string) [][]string { return rows }
	minPieces := []cpwl.Piece{
		proofs.Piece(proofs.Halfspaces(2, row("1", "-1", "0")), proofs.Affine(rs(row("1", "0")))),
		proofs.Piece(proofs.Halfspaces(2, row("-1", "1", "0")), proofs.Affine(rs(row("0", "1"))))}
	neg := blocks.Scale([]string{"x"}, []string{"y"}, big.NewRat(-1, 1))
	negPieces := []cpwl.Piece{proofs.Piece(proofs.Space(1), proofs.Affine(rs(row("-1"))))}
	var ops []op
	var note string
	switch r.key {
	case "zero-one":
		ops = []op{
			{"NOT = 1 − x (blocks.Not) on ℝ", blocks.Not("x", "y"), proofs.Space(1), []cpwl.Piece{proofs.Piece(proofs.Space(1), proofs.Affine(rs(row("-1")), "1"))}},
			{"AND = min (blocks.And) on ℝ²", blocks.And("x", "y", "z"), proofs.Space(2), minPieces}}
		note = "on {0, 1}: NOT swaps 0 and 1, min is AND"
	case "pm-one", "neg-pos":
		ops = []op{
			{"NOT = −x (blocks.Scale by −1) on ℝ", neg, proofs.Space(1), negPieces},
			{"AND = min (blocks.Min) on ℝ²", blocks.Min("x", "y", "z"), proofs.Space(2), minPieces}}
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
		ops = []op{
			{"NOT = 1 − GTZero_1(x) at x = 0 (gives 1)", g, proofs.Halfspaces(1, row("1", "0"), row("-1", "0")), []cpwl.Piece{proofs.Piece(proofs.Space(1), proofs.Affine(rs(row("0")), "1"))}},
			{"NOT on x ≥ 1 (gives 0)", g, proofs.Halfspaces(1, row("-1", "-1")), []cpwl.Piece{proofs.Piece(proofs.Space(1), proofs.Affine(rs(row("0"))))}},
			{"AND = min on x = 0, y ≥ 0 (gives 0)", and, proofs.Halfspaces(2, row("1", "0", "0"), row("-1", "0", "0"), row("0", "-1", "0")), []cpwl.Piece{proofs.Piece(proofs.Space(2), proofs.Affine(rs(row("0", "0"))))}},
			{"AND = min on y = 0, x ≥ 0 (gives 0)", and, proofs.Halfspaces(2, row("0", "1", "0"), row("0", "-1", "0"), row("-1", "0", "0")), []cpwl.Piece{proofs.Piece(proofs.Space(2), proofs.Affine(rs(row("0", "0"))))}},
			{"AND = min on x, y ≥ 1 (gives x or y, ≥ 1)", and, proofs.Halfspaces(2, row("-1", "0", "-1"), row("0", "-1", "-1")), minPieces}}
		note = "NOT gives exactly 1 (true) on 0 and 0 (false) on [1, ∞); AND gives 0 when an input is 0 and min(x, y) ≥ 1 when both are true"
	case "pair", "pair-delta":
		negPair := blocks.Scale([]string{"x1", "x2"}, []string{"y1", "y2"}, big.NewRat(-1, 1))
		ops = []op{
			{"NOT = −x (blocks.Scale by −1) on ℝ²", negPair, proofs.Space(2), []cpwl.Piece{proofs.Piece(proofs.Space(2), proofs.Affine(rs(row("-1", "0"), row("0", "-1"))))}},
			{"AND = (min(x₁, y₁), −min(x₁, y₁)) (blocks.Min as a ± pair) on ℝ²", pairAnd(), proofs.Space(2), []cpwl.Piece{
				proofs.Piece(proofs.Halfspaces(2, row("1", "-1", "0")), proofs.Affine(rs(row("1", "0"), row("-1", "0")))),
				proofs.Piece(proofs.Halfspaces(2, row("-1", "1", "0")), proofs.Affine(rs(row("0", "1"), row("0", "-1"))))}}}
		note = "−x swaps δ[−1; 1] and δ[1; −1]; the first component of AND is min(±δ, ±δ'), nonzero and positive iff both are true, and the output is its ± pair"
	default:
		return nil, fmt.Errorf("no ops for %s", r.key)
	}
	var parts []string
	for _, op := range ops {
		ev, err := proofs.ProveFFN(op.f, op.domain, op.pieces)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", op.what, err)
		}
		if ev.Verdict != proofs.Proved {
			ev.Summary = op.what + ": " + ev.Summary
			return ev, nil
		}
		parts = append(parts, fmt.Sprintf("%s (%s)", op.what, strings.TrimPrefix(ev.Summary, "on the whole domain: ")))
	}
	// The truth tables on canonical representatives, evaluated exactly.
	if ev, err := truthTables(r, ops); err != nil || ev != nil {
		return ev, err
	}
	return &proofs.Evidence{Verdict: proofs.Proved,
		Summary: fmt.Sprintf("false = %s, true = %s: %s (cpwl); %s; truth tables checked exactly on representatives; the table says yes", r.falseText, r.trueText, strings.Join(parts, "; "), note)}, nil
}

// truthTables evaluates NOT and AND (the first op named NOT and the
// first named AND) on representatives and decodes the results; it
// returns evidence only on a failure.
func truthTables(r rep, ops []op) (*proofs.Evidence, error) {
	not, and, err := notAnd(ops)
	if err != nil {
		return nil, err
	}
	fail := func(s string) (*proofs.Evidence, error) {
		return &proofs.Evidence{Verdict: proofs.Refuted, Summary: s, Explain: []string{s}}, nil
	}
	vs := tableInputs(r)
	for _, a := range vs {
		out, err := not.Eval(exact.Vector(a.v))
		if err != nil {
			return nil, err
		}
		if t, ok := r.decode(out); !ok || t != !a.t {
			return fail(fmt.Sprintf("NOT(%s) = %s, not a representative of %v", vec(a.v), out, !a.t))
		}
		for _, b := range vs {
			in := exact.Vector{a.v[0], b.v[0]} // AND reads the first components
			out, err := and.Eval(in)
			if err != nil {
				return nil, err
			}
			if t, ok := r.decode(out); !ok || t != (a.t && b.t) {
				return fail(fmt.Sprintf("AND(%s, %s) = %s, not a representative of %v", vec(a.v), vec(b.v), out, a.t && b.t))
			}
		}
	}
	return nil, nil
}

// decode reads v as a truth value of r: ok is false when v represents
// neither.
func (r rep) decode(v exact.Vector) (truth, ok bool) {
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
	switch {
	case r.trueSet.contains(x):
		return true, true
	case r.falseSet.contains(x):
		return false, true
	}
	return false, false
}

// contains reports whether x lies in iv, open or closed at each end.
func (iv interval) contains(x *big.Rat) bool {
	return (iv.lo == nil || x.Cmp(iv.lo) > 0 || !iv.loOpen && x.Cmp(iv.lo) == 0) &&
		(iv.hi == nil || x.Cmp(iv.hi) < 0 || !iv.hiOpen && x.Cmp(iv.hi) == 0)
}

// valued is a representative with the truth value it stands for.
type valued struct {
	v []*big.Rat
	t bool
}

// tableInputs are the representatives the truth tables are checked on:
// r's own, and for the half-line representations a point deep inside
// (and for neg-pos one just below zero), where an FFN that only fits the
// endpoints would fail.
func tableInputs(r rep) []valued {
	fs, ts := r.representatives()
	if r.key == "zero-ge1" || r.key == "neg-pos" {
		ts = append(ts, []*big.Rat{proofs.Q("5/2")})
		if r.key == "neg-pos" {
			fs = append(fs, []*big.Rat{proofs.Q("-1/1000")})
		}
	}
	var vs []valued
	for _, v := range fs {
		vs = append(vs, valued{v, false})
	}
	for _, v := range ts {
		vs = append(vs, valued{v, true})
	}
	return vs
}

// notAnd returns the networks of the first NOT and the first AND of ops.
func notAnd(ops []op) (not, and *cpwl.FFN, err error) {
	for _, op := range ops {
		g, err := proofs.FFNOf(op.f)
		if err != nil {
			return nil, nil, err
		}
		if not == nil && strings.HasPrefix(op.what, "NOT") {
			not = g
		}
		if and == nil && strings.HasPrefix(op.what, "AND") {
			and = g
		}
	}
	return not, and, nil
}

// ---------------------------------------------------------------------------

// tableClaims are the cells of tab:booleans, four claims for each
// representation (row) of reps.
func tableClaims() []*proofs.Claim {
	var cs []*proofs.Claim
	for _, r := range reps {
		rowText := fmt.Sprintf("row false = %s, true = %s", r.falseText, r.trueText)
		dom := "the table's sets"
		if r.key == "pair-delta" {
			dom = "δ ranges over every δ > 0 (the family)"
		}
		cs = append(cs,
			&proofs.Claim{ID: "repr.bool." + r.key + ".ops", Section: "Boolean Representations", Label: "sec:booleans",
				Statement: fmt.Sprintf("tab:booleans, %s: Continuous Ops. = %s", rowText, yesNo(r.ops)),
				Domain:    dom + "; NOT and AND as ReLU FFNs (cpwl) on the representation's sets",
				Recorded:  map[bool]proofs.Verdict{true: proofs.Proved, false: proofs.OutOfScope}[r.ops],
				Check:     func() (*proofs.Evidence, error) { return opsCell(r) }},
			&proofs.Claim{ID: "repr.bool." + r.key + ".gap", Section: "Boolean Representations", Label: "sec:booleans",
				Statement: fmt.Sprintf("tab:booleans, %s: Min. Gap = %s", rowText, yesNo(r.gap)),
				Domain:    dom + "; the exact distance between the false and the true set",
				Recorded:  proofs.Proved,
				Check:     func() (*proofs.Evidence, error) { return gap(r) }},
			&proofs.Claim{ID: "repr.bool." + r.key + ".mean", Section: "Boolean Representations", Label: "sec:booleans",
				Statement: fmt.Sprintf("tab:booleans, %s: Fixed Mean = %s", rowText, yesNo(r.mean)),
				Domain:    dom + "; the mean of [r; c] for every representative r and every context c of other components (the layer norm's view of the residual vector)",
				Recorded:  proofs.Proved,
				Check:     func() (*proofs.Evidence, error) { return meanCell(r) }},
			&proofs.Claim{ID: "repr.bool." + r.key + ".variance", Section: "Boolean Representations", Label: "sec:booleans",
				Statement: fmt.Sprintf("tab:booleans, %s: Fixed Variance = %s", rowText, yesNo(r.fixVar)),
				Domain:    dom + "; the variance of [r; c] for every representative r and every context c",
				Recorded:  proofs.Proved,
				Check:     func() (*proofs.Evidence, error) { return varCell(r) }},
		)
	}
	return cs
}

var booleanClaims = []*proofs.Claim{
	{ID: "repr.bool.convert", Section: "Boolean Representations", Label: "sec:booleans",
		Statement: "position-wise FFNs can convert between different Boolean representations",
		Domain:    "the recipe bool-convert from 01, pm1, ge1 (false 0, true [1, ∞)), pair, pair-delta (δ = 1/4) to 01, pm1, pair, pair-delta: its one FFN on the residual stream, on every representative",
		Recorded:  proofs.Proved,
		Check:     checkConvert},
	{ID: "repr.bool.pair.layernorm", Section: "Boolean Representations", Label: "sec:booleans",
		Statement: "with false = [+1; −1], true = [−1; +1], layer normalization preserves truth values (false stays false, true stays true)",
		Domain:    "LN with ε = 0, β = 0, γ = 1 on both vectors (the text's orientation; the table's is the opposite), the engine's layer norm, exact",
		Recorded:  proofs.Proved,
		Check:     checkPairLN},
}

// checkConvert proves the recipe bool-convert's FFN on every
// representative of its source representation: a point for each finite
// representation, and the half-line x ≥ 1 for true in ge1. The FFN acts
// on the whole residual stream (inputs, then the fresh outputs at 0), so
// the domain fixes the outputs at 0 and the reference is the target
// representation on the outputs, 0 on the inputs.
func checkConvert() (*proofs.Evidence, error) {
	r, err := recipes.Get("bool-convert")
	if err != nil {
		return nil, err
	}
	targets := map[string][2][]string{ // false, true
		"01": {{"0"}, {"1"}}, "pm1": {{"-1"}, {"1"}}, "pair": {{"-1", "1"}, {"1", "-1"}}, "pair-delta": {{"-1/4", "1/4"}, {"1/4", "-1/4"}},
	}
	sources := []string{"01", "pm1", "ge1", "pair", "pair-delta"}
	decided, regions := 0, 0
	var cert proofs.CertTally
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
			f, err := proofs.FFNFromModel(m.Layers[0].FeedForward)
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
					a[d] = new(big.Rat).Neg(proofs.Q(val)).RatString()
					rows = append(rows, a)
				}
				dom := proofs.Halfspaces(d, rows...)
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
				res, rep, err := proofs.DecideVerify(f, dom, []cpwl.Piece{proofs.Piece(proofs.Space(d), proofs.Affine(zero, out...))})
				if err != nil {
					return nil, err
				}
				ev, err := proofs.CPWLEvidence(res, rep, m.Components, m.Components)
				if err != nil {
					return nil, err
				}
				if ev.Verdict != proofs.Proved {
					ev.Summary = fmt.Sprintf("bool-convert %s→%s, %v: %s", from, to, truth == 1, ev.Summary)
					return ev, nil
				}
				decided++
				regions += res.Regions
				cert.AddAll(ev.Cert)
			}
		}
	}
	return &proofs.Evidence{Verdict: proofs.Proved,
		Summary: fmt.Sprintf("the recipe bool-convert's FFN, for all 20 conversions from 01, pm1, ge1, pair, pair-delta (δ = 1/4) to 01, pm1, pair, pair-delta, gives exactly the target on every representative (%d cpwl proofs, %d regions; true in ge1 is the whole half-line x ≥ 1; %s)", decided, regions, cert.Note()),
		Explain: []string{"(−∞, 0]/(0, ∞) and (−∞, 0)/(0, ∞) cannot be converted to 0/1 by any FFN (no minimum gap; the recipe refuses them): see repr.bool.nonpos-pos.ops."}}, nil
}

func checkPairLN() (*proofs.Evidence, error) {
	m, err := proofs.LayerNormModel(2, new(big.Rat), nil)
	if err != nil {
		return nil, err
	}
	var parts []string
	for _, v := range [][]string{{"1", "-1"}, {"-1", "1"}} {
		in := proofs.Rats(v...)
		vs, err := proofs.RunVector(m, "exact", in...)
		if err != nil {
			return nil, err
		}
		got, err := proofs.ExactValues(vs)
		if err != nil {
			return nil, err
		}
		if !proofs.RatsEqual(got, in) {
			s := fmt.Sprintf("LN%s = %s, not %s", proofs.RatsText(in), proofs.RatsText(got), proofs.RatsText(in))
			return &proofs.Evidence{Verdict: proofs.Refuted, Summary: s, Explain: []string{s}}, nil
		}
		parts = append(parts, fmt.Sprintf("LN%s = %s", proofs.RatsText(in), proofs.RatsText(got)))
	}
	return &proofs.Evidence{Verdict: proofs.Proved,
		Summary: strings.Join(parts, ", ") + " (the engine's layer norm, exact): both truth values are fixed points",
		Explain: []string{"With ε > 0, LN([1; −1]) = [1; −1]/√(1 + ε): no longer ±[1; −1] itself but in the family ±[δ; −δ] (the table's last row), which still decodes by sign.",
			"The text prints false = [+1; −1], true = [−1; +1]; tab:booleans prints the opposite (false = [−1; +1]). Both are fixed by LN; the recipes follow the table."}}, nil
}
