package numeric

import (
	"bufio"
	"errors"
	"math"
	"math/big"
	"math/rand/v2"
	"os"
	"strings"
	"testing"
)

// exprLine is a line of testdata/expr.txt: the expression, the target
// (a bit count, a format name, or "bounds") and one or two hex floats.
type exprLine struct {
	text, target string
	vals         []string
}

func readExprGolden(t *testing.T) []exprLine {
	t.Helper()
	f, err := os.Open("testdata/expr.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var lines []exprLine
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") || line == "" {
			continue
		}
		parts := strings.Split(line, "\t")
		if len(parts) < 3 || (parts[1] == "bounds") != (len(parts) == 4) {
			t.Fatalf("bad line %q", line)
		}
		lines = append(lines, exprLine{parts[0], parts[1], parts[2:]})
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return lines
}

// TestEvalGolden: Backend.Eval rounds irrational expressions once and
// correctly, against mpmath (testdata/gen_expr.py).
func TestEvalGolden(t *testing.T) {
	cases := 0
	for _, l := range readExprGolden(t) {
		if l.target == "bounds" {
			continue
		}
		text, target, want := l.text, l.target, l.vals[0]
		e, err := ParseExpr(text)
		if err != nil {
			t.Fatalf("ParseExpr(%q): %v", text, err)
		}
		p := MustParsePrecision(target)
		var got string
		switch p.Kind {
		case KindBigFloat:
			v, err := NewBigFloat(p.Bits).Eval(nil, e)
			if err != nil {
				t.Fatalf("%s at %s: %v", text, target, err)
			}
			got = hexOf(v)
		case KindFloat32:
			v, err := NewFloat32().Eval(0, e)
			if err != nil {
				t.Fatalf("%s at %s: %v", text, target, err)
			}
			got = hexOfFloat(float64(v))
		default:
			var v float64
			if p.Kind == KindFloat64 {
				v, err = NewFloat64().Eval(0, e)
			} else {
				v, err = NewEmulated(p.Format).Eval(0, e)
			}
			if err != nil {
				t.Fatalf("%s at %s: %v", text, target, err)
			}
			got = hexOfFloat(v)
		}
		if !sameHex(got, want) {
			t.Errorf("Eval(%s) at %s = %s, want %s", text, target, got, want)
		}
		if p.Kind == KindBigFloat && p.Bits >= 24 && p.Bits <= 113 {
			checkIntervalEval(t, e, p.Bits, want)
		}
		cases++
	}
	if cases < 100 {
		t.Fatalf("only %d golden cases", cases)
	}
}

// checkIntervalEval: the interval enclosure at prec bits contains the
// correctly rounded value at prec bits' neighbourhood of the true value
// and is at most 4 ulps wide.
func checkIntervalEval(t *testing.T, e Expr, prec uint, nearest string) {
	t.Helper()
	iv, err := NewIntervals(prec).Eval(nil, e)
	if err != nil {
		t.Fatalf("interval Eval(%v): %v", e, err)
	}
	// The true value lies within half an ulp of nearest; the enclosure must
	// reach at least to nearest from one side and not exceed 4 ulps.
	want, _, _ := big.ParseFloat(nearest, 0, prec, big.ToNearestEven)
	ulp := new(big.Float).SetMantExp(big.NewFloat(1), want.MantExp(nil)-int(prec))
	lo := new(big.Float).Sub(want, ulp)
	hi := new(big.Float).Add(want, ulp)
	if iv.Lo.Cmp(hi) > 0 || iv.Hi.Cmp(lo) < 0 {
		t.Errorf("interval Eval(%v) at %d bits = [%s, %s] far from %s", e, prec, iv.Lo.Text('g', 20), iv.Hi.Text('g', 20), nearest)
	}
	width := new(big.Float).Sub(iv.Hi, iv.Lo)
	if width.Cmp(new(big.Float).Mul(ulp, big.NewFloat(4))) > 0 {
		t.Errorf("interval Eval(%v) at %d bits is %s wide, over 4 ulps", e, prec, width.Text('g', 5))
	}
}

func hexOf(x *big.Float) string {
	if x.IsInf() {
		if x.Sign() > 0 {
			return "+Inf"
		}
		return "-Inf"
	}
	r, _ := x.Rat(nil)
	return ratHex(r)
}

func hexOfFloat(x float64) string {
	switch {
	case math.IsNaN(x):
		return "NaN"
	case math.IsInf(x, 1):
		return "+Inf"
	case math.IsInf(x, -1):
		return "-Inf"
	}
	return ratHex(new(big.Rat).SetFloat64(x))
}

// ratHex is the canonical form: the value as a normalised rational string,
// which makes hex floats from Python and Go comparable.
func ratHex(r *big.Rat) string { return r.RatString() }

func sameHex(got, want string) bool {
	if want == "NaN" || strings.HasSuffix(want, "Inf") {
		return got == want
	}
	w, ok := new(big.Rat).SetString(want)
	return ok && got == w.RatString()
}

func TestEvalExact(t *testing.T) {
	tests := []struct {
		expr string
		want *big.Rat // nil: irrational
	}{
		{"(1/3+1/6)*2", big.NewRat(1, 1)},
		{"sqrt(9/4)", big.NewRat(3, 2)},
		{"log(1)", big.NewRat(0, 1)},
		{"exp(0)", big.NewRat(1, 1)},
		{"-0.25", big.NewRat(-1, 4)},
		{"1e-3/2", big.NewRat(1, 2000)},
		{"sqrt(2)", nil},
		{"sqrt(pi/2)", nil},
		{"log(8*16)", nil},
		{"pi-pi", nil}, // rational, but only by an identity: refused, not guessed
	}
	for _, tc := range tests {
		e, err := ParseExpr(tc.expr)
		if err != nil {
			t.Fatalf("ParseExpr(%q): %v", tc.expr, err)
		}
		got, err := NewExact().Eval(nil, e)
		switch {
		case tc.want == nil && !errors.Is(err, ErrIrrational):
			t.Errorf("exact Eval(%s) = %v, %v; want ErrIrrational", tc.expr, got, err)
		case tc.want != nil && (err != nil || got.Cmp(tc.want) != 0):
			t.Errorf("exact Eval(%s) = %v, %v; want %v", tc.expr, got, err, tc.want)
		}
		if tc.want == nil && err != nil && !strings.Contains(err.Error(), "exact") {
			t.Errorf("error %q does not name the backend", err)
		}
	}
}

func TestEvalErrors(t *testing.T) {
	for _, text := range []string{"1/0", "log(0)", "log(-1)", "sqrt(-2)", "sqrt(pi-4)", "1/(pi-pi)", "exp(1e12)"} {
		e, err := ParseExpr(text)
		if err != nil {
			t.Fatalf("ParseExpr(%q): %v", text, err)
		}
		if _, err := NewBigFloat(53).Eval(nil, e); err == nil {
			t.Errorf("bigfloat Eval(%s) gave no error", text)
		}
		if _, err := NewFloat64().Eval(0, e); err == nil {
			t.Errorf("fp64 Eval(%s) gave no error", text)
		}
		if _, err := NewIntervals(53).Eval(nil, e); err == nil {
			t.Errorf("interval Eval(%s) gave no error", text)
		}
	}
}

func TestParseExpr(t *testing.T) {
	good := map[string]string{
		"sqrt(pi/2)":    "sqrt(pi/2)",
		" 1 + 2 * 3 ":   "1+(2*3)",
		"(1+2)*3":       "(1+2)*3",
		"-x":            "",
		"-1/4":          "-1/4", // the literal, as String prints it
		"2/4":           "2/4",  // a quotient: not in lowest terms
		"-1.5/3":        "(-3/2)/3",
		"log(8*16)/1":   "log(8*16)/1",
		"exp(-1/3)+pi":  "exp(-1/3)+pi",
		"2*-3":          "2*(-3)",
		"sqrt(2)*3/7":   "(sqrt(2)*3)/7",
		"1.5e+2-2.5E-1": "150-(1/4)",
	}
	for in, want := range good {
		e, err := ParseExpr(in)
		if want == "" {
			if err == nil {
				t.Errorf("ParseExpr(%q) = %v, want an error", in, e)
			}
			continue
		}
		if err != nil {
			t.Errorf("ParseExpr(%q): %v", in, err)
			continue
		}
		if e.String() != want {
			t.Errorf("ParseExpr(%q) = %s, want %s", in, e, want)
		}
		// String reads back to the same expression.
		if back, err := ParseExpr(e.String()); err != nil || back.String() != e.String() {
			t.Errorf("ParseExpr(%q) = %v, %v", e.String(), back, err)
		}
	}
	// Hex floats are not read (a model file's weights are read with this
	// parser, and a decimal is what other tools write).
	for _, bad := range []string{"", "1+", "sqrt 2", "sqrt(2", "foo(1)", "1/0x", ")", "1 2", "inf", "0x1p-3", "0x1.8p+1*(1/3)"} {
		if e, err := ParseExpr(bad); err == nil {
			t.Errorf("ParseExpr(%q) = %v, want an error", bad, e)
		}
	}
}

// TestIsZeroLiteral: 0 as written (the zero value, a literal 0, −0/5)
// and nothing else (an expression equal to 0 is not a literal).
func TestIsZeroLiteral(t *testing.T) {
	for _, tc := range []struct {
		e    Expr
		want bool
	}{
		{Expr{}, true},
		{LitInt(0), true},
		{Frac(0, 5), true},
		{LitInt(1), false},
		{Frac(-1, 3), false},
		{Sub(LitInt(1), LitInt(1)), false},
		{Pi(), false},
	} {
		if got := tc.e.IsZeroLiteral(); got != tc.want {
			t.Errorf("%v.IsZeroLiteral() = %v, want %v", tc.e, got, tc.want)
		}
	}
}

// TestIsLiteral: literals and the zero value, whose Eval cannot fail,
// and not an expression, even a rational one.
func TestIsLiteral(t *testing.T) {
	for _, tc := range []struct {
		e    Expr
		want bool
	}{
		{Expr{}, true},
		{LitInt(5000), true},
		{Frac(-1, 3), true},
		{Quo(LitInt(1), LitInt(3)), false},
		{Neg(LitInt(2)), false},
		{Sqrt(LitInt(2)), false},
	} {
		if got := tc.e.IsLiteral(); got != tc.want {
			t.Errorf("%v.IsLiteral() = %v, want %v", tc.e, got, tc.want)
		}
	}
}

// TestLitIntIsSetInt64: LitInt's value, built in place, is big.Rat's
// SetInt64 of the same integer at the edges (0, the interned range's
// ends, 2^31, 2^32, 2^63 − 1, −2^63) and at random, and it survives
// being an operand: arithmetic whose result goes elsewhere leaves it.
func TestLitIntIsSetInt64(t *testing.T) {
	ks := []int64{0, 1, -1, smallLitMin, smallLitMin - 1, smallLitMax, smallLitMax + 1,
		1 << 31, -1 << 31, 1 << 32, -(1 << 32), math.MaxInt64, math.MinInt64, math.MinInt64 + 1}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 1000 {
		ks = append(ks, rng.Int64()>>rng.IntN(64))
	}
	for _, k := range ks {
		want := new(big.Rat).SetInt64(k)
		e := LitInt(k)
		got, ok, err := e.Rat()
		if err != nil || !ok || got.Cmp(want) != 0 || !got.IsInt() || got.String() != want.String() {
			t.Fatalf("LitInt(%d) = %v (%v, %v), want %v", k, got, ok, err, want)
		}
		sum := new(big.Rat).Add(got, got)
		if _, err := (Exact{}).Eval(sum, Mul(e, e)); err != nil {
			t.Fatal(err)
		}
		if got.Cmp(want) != 0 || e.String() != want.RatString() {
			t.Fatalf("LitInt(%d) changed to %v (%s) by arithmetic on it", k, got, e)
		}
	}
}
