package diagnose

import (
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"

	"github.com/transformer-cookbook/verify/model/eval"
)

// floatText prints x with digits significant digits (−1: the shortest
// that reads back), or, beyond 2^±2048, approximately in a form that
// costs no decimal conversion of the whole exponent.
func floatText(x *big.Float, digits int) string {
	if x.IsInf() || x.Sign() == 0 {
		return x.Text('g', digits)
	}
	exp := x.MantExp(nil)
	if exp > -2048 && exp < 2048 {
		return x.Text('g', digits)
	}
	m, _ := new(big.Float).SetMantExp(x, -exp).Float64() // 0.5 ≤ |m| < 1
	l := math.Log10(math.Abs(m)) + float64(exp)*math.Log10(2)
	e10 := math.Floor(l)
	frac := math.Copysign(math.Pow(10, l-e10), m)
	if digits < 0 {
		digits = 6
	}
	return strconv.FormatFloat(frac, 'g', digits, 64) + "e" + strconv.Itoa(int(e10))
}

// belowReference reports whether y is within the reference's own rounding
// at x: a change the reference makes that the exact values may not.
func (d *diagnosis) belowReference(y, x *big.Rat) bool {
	scale := new(big.Rat).Abs(x)
	if scale.Cmp(big.NewRat(1, 1)) < 0 {
		scale.SetInt64(1)
	}
	return y.Cmp(scale.Mul(scale, pow2(-(d.refBits-16)))) <= 0
}

// spacing is the distance between consecutive values of the format at
// |x| (its unit in the last place there): 2^(e−P+1) for 2^e ≤ |x| <
// 2^(e+1), with e at least the format's smallest normal exponent. A
// bigfloat has no subnormals: its spacing at 0 is 0.
func (d *diagnosis) spacing(x *big.Rat) *big.Rat {
	p := d.prec.SignificandBits()
	zero := x.Sign() == 0
	e := 0
	if !zero {
		e = floorLog2(x)
	}
	if f := d.prec.Format; f != nil {
		if zero || e < f.EMin {
			e = f.EMin
		}
	} else if zero {
		return new(big.Rat)
	}
	return pow2(e - p + 1)
}

// floorLog2 is ⌊log₂|x|⌋ for x ≠ 0.
func floorLog2(x *big.Rat) int {
	f := new(big.Float).SetPrec(64).SetMode(big.ToZero).SetRat(new(big.Rat).Abs(x))
	return f.MantExp(nil) - 1
}

// pow2 is 2^k as an exact rational.
func pow2(k int) *big.Rat {
	if k >= 0 {
		return new(big.Rat).SetInt(new(big.Int).Lsh(big.NewInt(1), uint(k)))
	}
	return new(big.Rat).SetFrac(big.NewInt(1), new(big.Int).Lsh(big.NewInt(1), uint(-k)))
}

// numText prints an exact value briefly: an integer, a short exact
// decimal, a short fraction, or a decimal approximation marked ≈.
func numText(r *big.Rat) string {
	if r.Num().BitLen()+r.Denom().BitLen() > 1024 {
		return "≈" + floatText(new(big.Float).SetPrec(64).SetRat(r), 6)
	}
	if r.IsInt() {
		if s := r.RatString(); len(s) <= 20 {
			return s
		}
	}
	frac := r.RatString()
	if digits, ok := decimalDigits(r.Denom()); ok && digits <= 12 && r.Denom().BitLen() <= 64 {
		if s := strings.TrimRight(r.FloatString(digits), "0"); len(s) <= 14 && len(s) <= len(frac)+1 {
			return s
		}
	}
	if len(frac) <= 16 {
		return frac
	}
	return "≈" + floatText(new(big.Float).SetPrec(64).SetRat(r), 6)
}

// decimalDigits returns the number of decimals of 1/q when q = 2^a 5^b.
func decimalDigits(q *big.Int) (int, bool) {
	q = new(big.Int).Set(q)
	a, b := 0, 0
	two, five, rem := big.NewInt(2), big.NewInt(5), new(big.Int)
	for q.Cmp(big.NewInt(1)) > 0 {
		switch {
		case rem.Mod(q, two).Sign() == 0:
			q.Quo(q, two)
			a++
		case rem.Mod(q, five).Sign() == 0:
			q.Quo(q, five)
			b++
		default:
			return 0, false
		}
		if a > 64 || b > 64 {
			return 0, false
		}
	}
	return max(a, b), true
}

// unitsText prints a number u ≥ 0 of units in the last place: two
// significant digits below 100, a whole number below a million, and
// beyond that compactly ("about 2.2e219 units"), whatever its size.
func unitsText(u *big.Rat) string {
	var s string
	switch f, _ := u.Float64(); {
	case f < 100:
		s = strconv.FormatFloat(f, 'g', 2, 64)
	case f < 1e6:
		s = strconv.FormatFloat(f, 'f', 0, 64)
	default:
		return "about " + sciText(new(big.Float).SetPrec(64).SetRat(u), 2) + " units"
	}
	if s == "1" {
		return "1 unit"
	}
	return s + " units"
}

// sciText prints x ≠ 0 with digits significant digits in scientific
// notation, "2.2e219" (at any exponent, through floatText).
func sciText(x *big.Float, digits int) string {
	s := floatText(x, digits)
	if !strings.ContainsAny(s, "e") {
		// x.Text('g') chose a plain decimal: redo it in %e form.
		s = x.Text('e', digits-1)
	}
	mant, exp, ok := strings.Cut(s, "e")
	if !ok {
		return s
	}
	sign := ""
	if exp, ok = strings.CutPrefix(exp, "-"); ok {
		sign = "-"
	}
	exp = strings.TrimLeft(strings.TrimPrefix(exp, "+"), "0")
	if exp == "" {
		exp = "0"
	}
	return mant + "e" + sign + exp
}

// valueText prints a value the format holds, as the format prints it.
func (d *diagnosis) valueText(x *big.Rat) string { return heldText(d.runner.Round(x)) }

// heldText prints a value a format holds: an integer in full (fp16
// prints 2500 as 2.5e+03), anything else as the format prints it, up to
// maxDigits significant digits; a wider value (a bigfloat of hundreds of
// bits) is printed to maxDigits digits, marked ≈.
func heldText(v eval.Value) string {
	r, ok := v.Rat()
	if ok && r.IsInt() && r.Num().BitLen() <= 64 {
		return r.Num().String()
	}
	if !ok || significantDigits(v.Text) <= maxDigits {
		return v.Text
	}
	return "≈" + floatText(new(big.Float).SetPrec(128).SetRat(r), maxDigits)
}

// maxDigits bounds the significant digits of a printed value.
const maxDigits = 20

// significantDigits counts the digits of a decimal's significand, "1.25e-3"
// has 3 (leading zeros excluded).
func significantDigits(s string) int {
	if k := strings.IndexAny(s, "eE"); k >= 0 {
		s = s[:k]
	}
	n, lead := 0, true
	for _, ch := range s {
		if ch < '0' || ch > '9' {
			continue
		}
		if lead && ch == '0' {
			continue
		}
		lead = false
		n++
	}
	return n
}

// spacingText prints a spacing, a power of two: small ones as 2^-k.
func spacingText(sp *big.Rat) string {
	if sp.Sign() > 0 && sp.Num().Cmp(big.NewInt(1)) == 0 {
		if k := sp.Denom().BitLen() - 1; k > 4 && new(big.Int).Lsh(big.NewInt(1), uint(k)).Cmp(sp.Denom()) == 0 {
			return fmt.Sprintf("2^-%d", k)
		}
	}
	return numText(sp)
}
