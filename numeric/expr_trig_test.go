package numeric

import (
	"errors"
	"math/big"
	"strings"
	"testing"

	"github.com/leanovate/gopter/gen"
	"github.com/leanovate/gopter/prop"
)

// TestExprTrigString: sin and cos print as functions, are atomic operands
// (no parentheses around them), and read back through ParseExpr.
func TestExprTrigString(t *testing.T) {
	tests := []struct {
		e    Expr
		want string
	}{
		{Sin(Frac(1, 3)), "sin(1/3)"},
		{Cos(Neg(Pi())), "cos(-pi)"},
		{Mul(Sin(LitInt(2)), LitInt(3)), "sin(2)*3"},
		{Neg(Cos(Pi())), "-cos(pi)"},
		{Quo(LitInt(1), Cos(Quo(LitInt(4096), Exp(LitInt(2))))), "1/cos(4096/exp(2))"},
		{Sin(Cos(Expr{})), "sin(cos(0))"},
		{Sub(Sin(Frac(1, 2)), Cos(Neg(LitInt(2)))), "sin(1/2)-cos(-2)"},
	}
	for _, tc := range tests {
		if got := tc.e.String(); got != tc.want {
			t.Errorf("String() = %s, want %s", got, tc.want)
		}
		back, err := ParseExpr(tc.want)
		if err != nil || back.String() != tc.want {
			t.Errorf("ParseExpr(%q) = %v, %v", tc.want, back, err)
		}
	}
	for _, bad := range []string{"sin 1", "cos(1", "sin()", "tan(1)"} {
		if e, err := ParseExpr(bad); err == nil {
			t.Errorf("ParseExpr(%q) = %v, want an error", bad, e)
		}
	}
}

// TestExprTrigRat: sin(0) and cos(0) are rational; sin and cos of any
// other rational are transcendental; of an irrational argument they are
// refused even where an identity makes them rational.
func TestExprTrigRat(t *testing.T) {
	tests := []struct {
		expr string
		want *big.Rat // nil: irrational
	}{
		{"sin(0)", big.NewRat(0, 1)},
		{"cos(0)", big.NewRat(1, 1)},
		{"cos(1-1)", big.NewRat(1, 1)},
		{"sin(-0)", big.NewRat(0, 1)},
		{"2*cos(0)+sin(0)/3", big.NewRat(2, 1)},
		{"sin(1)", nil},
		{"cos(1)", nil},
		{"sin(-1/3)", nil},
		{"cos(1e-300)", nil},
		{"sin(pi)", nil},
		{"cos(pi/3)", nil},
		{"sin(0)*pi", nil},
	}
	for _, tc := range tests {
		e, err := ParseExpr(tc.expr)
		if err != nil {
			t.Fatalf("ParseExpr(%q): %v", tc.expr, err)
		}
		r, ok, err := e.Rat()
		switch {
		case err != nil:
			t.Errorf("Rat(%s): %v", tc.expr, err)
		case tc.want == nil && ok:
			t.Errorf("Rat(%s) = %v, want irrational", tc.expr, r)
		case tc.want != nil && (!ok || r.Cmp(tc.want) != 0):
			t.Errorf("Rat(%s) = %v, %v; want %v", tc.expr, r, ok, tc.want)
		}
		got, err := NewExact().Eval(nil, e)
		switch {
		case tc.want == nil && !errors.Is(err, ErrIrrational):
			t.Errorf("exact Eval(%s) = %v, %v; want ErrIrrational", tc.expr, got, err)
		case tc.want == nil && !strings.Contains(err.Error(), "exact"):
			t.Errorf("error %q does not name the backend", err)
		case tc.want != nil && (err != nil || got.Cmp(tc.want) != 0):
			t.Errorf("exact Eval(%s) = %v, %v; want %v", tc.expr, got, err, tc.want)
		}
	}
	if _, _, err := Sin(Quo(LitInt(1), LitInt(0))).Rat(); !errors.Is(err, ErrDivByZero) {
		t.Errorf("Rat(sin(1/0)): %v, want ErrDivByZero", err)
	}
}

// TestEncloseGolden: Expr.Enclose contains the value and is narrow, for
// every expression of testdata/expr.txt, against mpmath's bounds there
// (600-bit dyadics LO < value < HI). An endpoint lo of at most 600 bits
// with lo ≤ value is at most LO, so lo ≤ LO and HI ≤ hi is exactly the
// claim lo ≤ value ≤ hi.
func TestEncloseGolden(t *testing.T) {
	cases := 0
	for _, l := range readExprGolden(t) {
		if l.target != "bounds" {
			continue
		}
		cases++
		e, err := ParseExpr(l.text)
		if err != nil {
			t.Fatalf("ParseExpr(%q): %v", l.text, err)
		}
		refLo, refHi := parseRatHex(t, l.vals[0]), parseRatHex(t, l.vals[1])
		for _, bits := range []uint{2, 11, 24, 53, 113, 300} {
			lo, hi, err := e.Enclose(bits)
			if err != nil {
				t.Errorf("Enclose(%s, %d): %v", l.text, bits, err)
				continue
			}
			if lo.Cmp(refLo) > 0 || hi.Cmp(refHi) < 0 {
				t.Errorf("Enclose(%s, %d) = [%s, %s] misses [%s, %s]", l.text, bits,
					lo.FloatString(30), hi.FloatString(30), refLo.FloatString(30), refHi.FloatString(30))
			}
			if !narrowRat(lo, hi, refHi, bits, 4) {
				t.Errorf("Enclose(%s, %d) = [%s, %s] is over 4 ulps wide", l.text, bits,
					lo.FloatString(30), hi.FloatString(30))
			}
		}
	}
	if cases < 30 {
		t.Fatalf("only %d bounds lines", cases)
	}
}

// parseRatHex reads a hex float such as -0x1fp-4 as an exact rational.
func parseRatHex(t *testing.T, s string) *big.Rat {
	t.Helper()
	f, _, err := big.ParseFloat(s, 0, 2000, big.ToNearestEven)
	if err != nil {
		t.Fatalf("bad hex float %q: %v", s, err)
	}
	r, acc := f.Rat(nil)
	if acc != big.Exact {
		t.Fatalf("hex float %q not exact", s)
	}
	return r
}

// narrowRat reports whether hi − lo is at most ulps units in the last place
// of v at bits bits.
func narrowRat(lo, hi, v *big.Rat, bits uint, ulps int64) bool {
	// The exponent of v; rounding v to 64 bits could only raise it by one
	// at a power of two, which makes the check looser by 2, not wrong.
	exp := new(big.Float).SetPrec(64).SetRat(v).MantExp(nil)
	ulp := new(big.Float).SetMantExp(big.NewFloat(1), exp-int(bits))
	u, _ := ulp.Rat(nil)
	width := new(big.Rat).Sub(hi, lo)
	return width.Cmp(u.Mul(u, big.NewRat(ulps, 1))) <= 0
}

// TestEncloseRational: a rational expression encloses as itself, exactly,
// in two separate values (changing one leaves the other alone).
func TestEncloseRational(t *testing.T) {
	tests := []struct {
		expr string
		want *big.Rat
	}{
		{"1/3", big.NewRat(1, 3)},
		{"sqrt(9/4)-1", big.NewRat(1, 2)},
		{"cos(0)*7/5", big.NewRat(7, 5)},
		{"sin(1-1)", big.NewRat(0, 1)},
		{"exp(0)+log(1)", big.NewRat(1, 1)},
	}
	for _, tc := range tests {
		e, err := ParseExpr(tc.expr)
		if err != nil {
			t.Fatalf("ParseExpr(%q): %v", tc.expr, err)
		}
		for _, bits := range []uint{0, 2, 53} {
			lo, hi, err := e.Enclose(bits)
			if err != nil || lo.Cmp(tc.want) != 0 || hi.Cmp(tc.want) != 0 {
				t.Errorf("Enclose(%s, %d) = %v, %v, %v; want %v twice", tc.expr, bits, lo, hi, err, tc.want)
				continue
			}
			lo.Add(lo, big.NewRat(1, 1))
			if hi.Cmp(tc.want) != 0 {
				t.Errorf("Enclose(%s, %d): lo and hi are the same *big.Rat", tc.expr, bits)
			}
		}
	}
	// The zero Expr is 0.
	if lo, hi, err := (Expr{}).Enclose(53); err != nil || lo.Sign() != 0 || hi.Sign() != 0 {
		t.Errorf("Enclose of the zero Expr = %v, %v, %v", lo, hi, err)
	}
}

// TestEncloseErrors: expressions without a real value, including inside
// sin and cos, are errors naming the cause.
func TestEncloseErrors(t *testing.T) {
	tests := []struct {
		expr string
		want error
	}{
		{"1/0", ErrDivByZero},
		{"sin(1/0)", ErrDivByZero},
		{"1/(pi-pi)", ErrDivByZero},
		{"log(-1)", ErrDomain},
		{"cos(log(0))", ErrDomain},
		{"sin(sqrt(pi-4))", ErrDomain},
		{"exp(1e12)", ErrOverflow},
		{"cos(exp(1e12))", ErrOverflow},
	}
	for _, tc := range tests {
		e, err := ParseExpr(tc.expr)
		if err != nil {
			t.Fatalf("ParseExpr(%q): %v", tc.expr, err)
		}
		if lo, hi, err := e.Enclose(53); !errors.Is(err, tc.want) {
			t.Errorf("Enclose(%s) = %v, %v, %v; want %v", tc.expr, lo, hi, err, tc.want)
		}
		if _, err := NewFloat64().Eval(0, e); !errors.Is(err, tc.want) {
			t.Errorf("fp64 Eval(%s): %v, want %v", tc.expr, err, tc.want)
		}
	}
}

// TestEvalTrigUndecided: sin(pi) is 0, but Rat does not know the identity
// and an enclosure of 0 never rounds both ways to the same value (it
// straddles ±tiny, or −0 and +0), so every rounding backend reports
// ErrRoundingUndecided instead of guessing; the interval backend encloses 0.
func TestEvalTrigUndecided(t *testing.T) {
	e := Sin(Pi())
	if _, err := NewBigFloat(53).Eval(nil, e); !errors.Is(err, ErrRoundingUndecided) {
		t.Errorf("bigfloat Eval(sin(pi)): %v, want ErrRoundingUndecided", err)
	}
	if _, err := NewFloat64().Eval(0, e); !errors.Is(err, ErrRoundingUndecided) {
		t.Errorf("fp64 Eval(sin(pi)): %v, want ErrRoundingUndecided", err)
	}
	iv, err := NewIntervals(53).Eval(nil, e)
	if err != nil {
		t.Fatalf("interval Eval(sin(pi)): %v", err)
	}
	if iv.Lo.Sign() > 0 || iv.Hi.Sign() < 0 {
		t.Errorf("interval Eval(sin(pi)) = [%v, %v] misses 0", iv.Lo, iv.Hi)
	}
}

// TestEncloseTrigPythagoras (gopter): for rationals x = a/b, most of which
// are not dyadic and so enclose as intervals, not points (the interval
// forms of sin and cos), the enclosure of sin(x)·sin(x) + cos(x)·cos(x)
// contains 1.
func TestEncloseTrigPythagoras(t *testing.T) {
	seed := arithSeed(t, 20240611)
	runProp(t, seed, 300, prop.ForAll(
		func(a, b int64, bits uint) bool {
			if b < 1 { // not generated, but a shrinker must not divide by 0
				b = 1
			}
			x := Frac(a, b)
			s, c := Sin(x), Cos(x)
			lo, hi, err := Add(Mul(s, s), Mul(c, c)).Enclose(bits)
			if err != nil {
				t.Logf("x = %d/%d at %d bits: %v", a, b, bits, err)
				return false
			}
			one := big.NewRat(1, 1)
			if lo.Cmp(one) > 0 || hi.Cmp(one) < 0 {
				t.Logf("x = %d/%d at %d bits: [%s, %s]", a, b, bits, lo.FloatString(40), hi.FloatString(40))
				return false
			}
			return true
		},
		gen.Int64Range(-1<<50, 1<<50),
		gen.Int64Range(1, 1<<20),
		gen.UIntRange(2, 200),
	))
}
