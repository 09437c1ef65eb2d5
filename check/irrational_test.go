package check

import (
	"bufio"
	"math/big"
	"os"
	"strings"
	"testing"

	"github.com/transformer-cookbook/verify/model/eval"
	"github.com/transformer-cookbook/verify/numeric"
	"github.com/transformer-cookbook/verify/recipes"
)

// goldenRounding is one line of testdata/irrational.txt: the correct
// rounding of a recipe's irrational reference to a precision, computed by
// testdata/gen_irrational.py with mpmath and exact integers.
type goldenRounding struct {
	expr string
	p    numeric.Precision
	want *big.Rat
}

func readGoldenRoundings(t *testing.T) []goldenRounding {
	t.Helper()
	f, err := os.Open("testdata/irrational.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []goldenRounding
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Split(sc.Text(), "\t")
		if len(fields) != 3 {
			t.Fatalf("bad golden line %q", sc.Text())
		}
		p, err := numeric.ParsePrecision(fields[1])
		if err != nil {
			t.Fatal(err)
		}
		r, ok := new(big.Rat).SetString(fields[2])
		if !ok {
			t.Fatalf("bad golden value %q", fields[2])
		}
		out = append(out, goldenRounding{fields[0], p, r})
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(out) < 100 {
		t.Fatalf("%d golden lines: the file is truncated", len(out))
	}
	return out
}

func point(r *big.Rat) eval.Value {
	return eval.Value{Lo: r, Hi: new(big.Rat).Set(r), Text: r.RatString()}
}

// TestCorrectRoundingGolden: at every precision that rounds, an output
// equal to mpmath's correct rounding of a recipe's irrational reference
// passes, and a point beside it (half a unit of the 2000th bit away, or
// the next value of the format) is refuted, not left undecided.
func TestCorrectRoundingGolden(t *testing.T) {
	for _, g := range readGoldenRoundings(t) {
		e, err := numeric.ParseExpr(g.expr)
		if err != nil {
			t.Fatal(err)
		}
		got, err := numeric.RoundExpr(g.p, e)
		if err != nil || got.Cmp(g.want) != 0 {
			t.Errorf("RoundExpr(%v, %s) = %v, %v, want %s", g.p, g.expr, got, err, g.want.RatString())
		}
		w := recipes.Want{Reals: []numeric.Expr{e}}
		ok, und, why := CompareAt(g.p, w, eval.PositionOutput{Values: []eval.Value{point(g.want)}}, nil, []string{"y"})
		if !ok || und {
			t.Errorf("%v, %s: the correct rounding %s judged %v, undecided %v: %s", g.p, g.expr, g.want.RatString(), ok, und, why)
		}
		// The next value of the format (ulp from the precision's bits at
		// the value's magnitude: a spacing, whatever the exponent range).
		ulp := new(big.Rat).SetFrac(big.NewInt(1), new(big.Int).Lsh(big.NewInt(1), 2000))
		for _, off := range []*big.Rat{ulp, spacing(g.want, g.p)} {
			for _, sign := range []int{1, -1} {
				other := new(big.Rat).Set(off)
				if sign < 0 {
					other.Neg(other)
				}
				other.Add(other, g.want)
				ok, und, why := CompareAt(g.p, w, eval.PositionOutput{Values: []eval.Value{point(other)}}, nil, []string{"y"})
				if ok || und || why == "" {
					t.Errorf("%v, %s: %s judged %v, undecided %v (%q), want refuted", g.p, g.expr, other.RatString(), ok, und, why)
				}
			}
		}
	}
}

// spacing is 2^(e−P+1) for the value's exponent e (2^e ≤ |r| < 2^(e+1)):
// the spacing of p's grid at r where r is normal, and never 0.
func spacing(r *big.Rat, p numeric.Precision) *big.Rat {
	exp := new(big.Float).SetRat(r).MantExp(nil) // 2^(exp−1) ≤ |r| < 2^exp
	sh := exp - p.SignificandBits()
	pow := new(big.Rat).SetInt(new(big.Int).Lsh(big.NewInt(1), uint(max(sh, -sh))))
	if sh < 0 {
		return pow.Inv(pow)
	}
	return pow
}

// TestRealComparisonsByHand: each outcome of the comparison with a real
// reference, worked by hand. exp(log(x)) is x exactly, which Expr.Rat does
// not see, so its enclosures straddle x at every precision: the cases that
// must end undecided.
func TestRealComparisonsByHand(t *testing.T) {
	r := func(a, b int64) *big.Rat { return big.NewRat(a, b) }
	expr := func(s string) numeric.Expr {
		e, err := numeric.ParseExpr(s)
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	fp16, iv := numeric.MustParsePrecision("fp16"), numeric.MustParsePrecision("interval:64")
	bound := func(b *big.Rat) []recipes.Bound { return []recipes.Bound{{Max: b}} }
	for _, tc := range []struct {
		name      string
		p         numeric.Precision
		real      string
		got       eval.Value
		bounds    []recipes.Bound
		ok, undec bool
	}{
		// √2/4 ≈ 0.35355: fp16's spacing in [1/4, 1/2) is 2^-12, and
		// 0.35355·4096 = 1448.15, so the correct rounding is 1448/4096 =
		// 181/512.
		{"fp16 correct rounding", fp16, "sqrt(2)/4", point(r(181, 512)), nil, true, false},
		{"fp16 the next value up", fp16, "sqrt(2)/4", point(r(1449, 4096)), nil, false, false},
		// 1 + 2^-11 is the midpoint of 1 and 1 + 2^-10 in fp16.
		{"fp16 on a midpoint", fp16, "exp(log(1+1/2048))", point(r(1, 1)), nil, false, true},
		// A real that is rational, 2/5: 0.4·4096 = 1638.4, so 1638/4096.
		{"fp16 a rational real, rounded", fp16, "sqrt(4/25)", point(r(819, 2048)), nil, true, false},
		{"fp16 a rational real, exact", fp16, "sqrt(4/25)", point(r(2, 5)), nil, false, false},
		{"interval contains", iv, "sqrt(2)/4", enclosure(r(35, 100), r(36, 100)), nil, true, false},
		{"interval below", iv, "sqrt(2)/4", enclosure(r(1, 4), r(1, 3)), nil, false, false},
		{"interval above", iv, "sqrt(2)/4", enclosure(r(1, 2), r(1, 1)), nil, false, false},
		{"interval touches", iv, "exp(log(1/2))", enclosure(r(1, 2), r(1, 1)), nil, false, true},
		{"bound holds", fp16, "sqrt(2)/4", point(r(0, 1)), bound(r(36, 100)), true, false},
		{"bound exceeded", fp16, "sqrt(2)/4", point(r(0, 1)), bound(r(3, 10)), false, false},
		{"bound met exactly", fp16, "exp(log(1/2))", point(r(0, 1)), bound(r(1, 2)), false, true},
		{"bound on an interval", iv, "sqrt(2)/4", enclosure(r(0, 1), r(1, 10)), bound(r(36, 100)), true, false},
	} {
		w := recipes.Want{Reals: []numeric.Expr{expr(tc.real)}}
		ok, und, why := CompareAt(tc.p, w, eval.PositionOutput{Values: []eval.Value{tc.got}}, tc.bounds, []string{"y"})
		if ok != tc.ok || und != tc.undec {
			t.Errorf("%s: %v against %s: ok %v, undecided %v (%q), want %v, %v", tc.name, tc.got.Text, tc.real, ok, und, why, tc.ok, tc.undec)
		}
		if !ok && !strings.Contains(why, "y") {
			t.Errorf("%s: the reason %q does not name the output", tc.name, why)
		}
		if und && !strings.HasPrefix(why, "undecided") {
			t.Errorf("%s: an undecided comparison's reason %q does not say so", tc.name, why)
		}
	}
}

// TestRefinementDecides: a reference that its first enclosure cannot
// place is decided by a refined one. x = m + 2^-400·√2, for m = 1 + 2^-53
// the midpoint of 1 and 1 + 2^-52 in 53 bits: x rounds up, to 1 + 2^-52,
// but a 256-bit enclosure of x holds m and points below it; one at 512
// bits does not.
func TestRefinementDecides(t *testing.T) {
	e, err := numeric.ParseExpr("1 + 1/9007199254740992 + sqrt(2)/" + new(big.Int).Lsh(big.NewInt(1), 400).String())
	if err != nil {
		t.Fatal(err)
	}
	w := recipes.Want{Reals: []numeric.Expr{e}}
	p := numeric.MustParsePrecision("53")
	up := new(big.Rat).Add(big.NewRat(1, 1), new(big.Rat).SetFrac(big.NewInt(1), new(big.Int).Lsh(big.NewInt(1), 52)))
	ok, und, why := CompareAt(p, w, eval.PositionOutput{Values: []eval.Value{point(up)}}, nil, []string{"y"})
	if !ok || und {
		t.Errorf("1 + 2^-52 judged %v, undecided %v (%q), want the correct rounding of a value just above the midpoint", ok, und, why)
	}
	// In interval arithmetic, an output enclosure [m + 2^-400, 2] holds
	// x but not x's 256-bit enclosure, [m, m + 2^-255] (x's last term
	// rounded away at 256 bits): only a refined enclosure confirms it.
	mid := new(big.Rat).Add(big.NewRat(1, 1), new(big.Rat).SetFrac(big.NewInt(1), new(big.Int).Lsh(big.NewInt(1), 53)))
	mid.Add(mid, new(big.Rat).SetFrac(big.NewInt(1), new(big.Int).Lsh(big.NewInt(1), 400)))
	ok, und, why = CompareAt(numeric.MustParsePrecision("interval:64"), w, eval.PositionOutput{Values: []eval.Value{enclosure(mid, big.NewRat(2, 1))}}, nil, []string{"y"})
	if !ok || und {
		t.Errorf("[m + 2^-400, 2] judged %v, undecided %v (%q), want it confirmed by a refined enclosure", ok, und, why)
	}
}

// TestLiteralRealIsExact: a rational literal in Want.Reals (the values of
// an input given by its stream) is claimed exactly, not by its correct
// rounding: at fp16, 1/3 rounds to 1365/4096 (0.3333·4096 = 1365.33),
// which must not pass for the literal 1/3, while the same value written
// as sqrt(1/9) is a real and passes as its rounding.
func TestLiteralRealIsExact(t *testing.T) {
	fp16 := numeric.MustParsePrecision("fp16")
	rounded := point(big.NewRat(1365, 4096))
	sqrt, err := numeric.ParseExpr("sqrt(1/9)")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		e  numeric.Expr
		ok bool
	}{
		{numeric.Lit(big.NewRat(1, 3)), false},
		{sqrt, true},
	} {
		ok, und, why := CompareAt(fp16, recipes.Want{Reals: []numeric.Expr{tc.e}}, eval.PositionOutput{Values: []eval.Value{rounded}}, nil, []string{"y"})
		if ok != tc.ok || und {
			t.Errorf("%v at fp16 against 1365/4096: ok %v, undecided %v (%q), want %v", tc.e, ok, und, why, tc.ok)
		}
	}
}

// TestFarUpBounds: the error reported for a real reference is an upper
// bound on the exact largest distance (distances), and within a relative
// 2^-60 of it.
func TestFarUpBounds(t *testing.T) {
	r := func(a, b int64) *big.Rat { return big.NewRat(a, b) }
	third, e := r(1, 3), numeric.Sqrt(numeric.LitInt(2))
	lo, hi, err := e.Enclose(realBits)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ a, b, c, d *big.Rat }{
		{r(0, 1), r(0, 1), lo, hi},
		{r(3, 2), r(3, 2), lo, hi},
		{r(-7, 1), r(1, 1), lo, hi},
		{third, third, third, r(1, 2)},
		{r(1, 1000000007), r(1, 1000000007), r(-1, 3), r(-1, 3)},
	} {
		_, far := distances(tc.a, tc.b, tc.c, tc.d)
		cDown, dUp := outward(tc.c, tc.d)
		got := farUp(tc.a, tc.b, cDown, dUp)
		slack := new(big.Rat).Mul(far, r(1, 1<<60))
		slack.Add(slack, r(1, 1<<62))
		if got.Cmp(far) < 0 || new(big.Rat).Sub(got, far).Cmp(slack) > 0 {
			f, _ := far.Float64()
			g, _ := got.Float64()
			t.Errorf("farUp([%s, %s], [%s, %s]) = %g, want an upper bound on %g within 2^-60", tc.a.RatString(), tc.b.RatString(), tc.c.FloatString(5), tc.d.FloatString(5), g, f)
		}
	}
}

// TestRealNote: a report at a precision that rounds says how real
// references are judged, for a recipe that has them (lh), and not for
// one that has none (lookup) or in interval arithmetic.
func TestRealNote(t *testing.T) {
	for _, tc := range []struct {
		recipe, precision string
		note              bool
	}{
		{"lh", "fp32", true},
		{"pe-sinusoidal", "53", true},
		{"lh", "interval:64", false},
		{"lookup", "fp32", false},
	} {
		r, err := recipes.Get(tc.recipe)
		if err != nil {
			t.Fatal(err)
		}
		rep, err := Run(r, Options{Precision: numeric.MustParsePrecision(tc.precision), MaxN: 2, Lengths: []int{1}, Cases: 1, Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		has := false
		for _, n := range rep.Notes {
			has = has || strings.HasPrefix(n, "real references")
		}
		if has != tc.note {
			t.Errorf("%s at %s: a note on real references %v, want %v (%q)", tc.recipe, tc.precision, has, tc.note, rep.Notes)
		}
	}
}
