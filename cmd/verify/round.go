package main

import (
	"fmt"
	"io"
	"math/big"
	"strings"
	"text/tabwriter"

	"github.com/transformer-cookbook/verify/exact"
	"github.com/transformer-cookbook/verify/numeric"
)

// cmdRound rounds each value to the format and prints the result as a
// decimal, as an exact fraction, and the rounding error.
func cmdRound(args []string, stdout io.Writer) error {
	a, err := parseArgs("round", args)
	if err != nil {
		return err
	}
	name, ok := a.flags["precision"]
	if !ok {
		return badInput("round needs --precision NAME (%s)", numeric.PrecisionNames)
	}
	p, err := numeric.ParsePrecision(name)
	if err != nil {
		return badInput("%v", err)
	}
	if len(a.positional) == 0 {
		return badInput("round needs at least one value, like 1/3 or 0.1")
	}
	vals := make([]*big.Rat, len(a.positional))
	for i, s := range a.positional {
		if vals[i], err = exact.ParseRat(s); err != nil {
			return badInput("%v", err)
		}
	}
	w := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintf(w, "value\trounded to %s\tas a fraction\terror (rounded − value)\n", p)
	if err := numeric.Visit(p, rounder{a.positional, vals, w}); err != nil {
		return err
	}
	return w.Flush()
}

// rounder is the numeric.Visitor that runs roundAll on the backend of the
// chosen precision.
type rounder struct {
	text []string
	vals []*big.Rat
	w    io.Writer
}

func (r rounder) Rat(b numeric.Backend[*big.Rat]) error        { return roundAll(b, r) }
func (r rounder) BigFloat(b numeric.Backend[*big.Float]) error { return roundAll(b, r) }
func (r rounder) Float64(b numeric.Backend[float64]) error     { return roundAll(b, r) }
func (r rounder) Float32(b numeric.Backend[float32]) error     { return roundAll(b, r) }
func (r rounder) Interval(b numeric.Backend[*numeric.Interval]) error {
	return roundAll(b, r)
}

func roundAll[T any](b numeric.Backend[T], r rounder) error {
	for i, v := range r.vals {
		x := b.SetRat(b.New(), v)
		lo, hi, err := b.Bounds(x)
		if err != nil { // ±Inf or NaN: the value overflowed the format
			fmt.Fprintf(r.w, "%s\t%s\t%s\t%s\n", r.text[i], b.Format(x), "none", "overflow")
			continue
		}
		decText, exactText, errText := decimal(lo), lo.RatString(), showError(lo, v)
		if lo.Cmp(hi) != 0 {
			decText = "[" + decimal(lo) + ", " + decimal(hi) + "]"
			exactText = "[" + lo.RatString() + ", " + hi.RatString() + "]"
			errText = "[" + showError(lo, v) + ", " + showError(hi, v) + "]"
		}
		fmt.Fprintf(r.w, "%s\t%s\t%s\t%s\n", r.text[i], decText, exactText, errText)
	}
	return nil
}

// maxDigits bounds the exact decimal expansions that round prints.
const maxDigits = 40

// decimal prints the exact decimal expansion of x when it is finite (as
// for every finite binary floating-point value) and has at most maxDigits
// significant digits; otherwise the expansion rounded to maxDigits
// significant digits and followed by "…".
func decimal(x *big.Rat) string {
	if k, ok := decimalPlaces(x.Denom()); ok && k <= 4*maxDigits {
		s := x.FloatString(k) // exact: the denominator divides 10^k
		if k > 0 {
			s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
		}
		if len(strings.Trim(s, "-0.")) <= maxDigits {
			return s
		}
	}
	f := new(big.Float).SetPrec(4 * maxDigits).SetRat(x)
	return f.Text('g', maxDigits) + "…"
}

// decimalPlaces returns the k for which den = 2^a·5^b divides 10^k
// (k = max(a, b)), and false when den has another prime factor.
func decimalPlaces(den *big.Int) (int, bool) {
	d := new(big.Int).Set(den)
	a := int(d.TrailingZeroBits())
	d.Rsh(d, uint(a))
	b := 0
	five, r := big.NewInt(5), new(big.Int)
	for d.Cmp(big.NewInt(1)) > 0 {
		q, m := new(big.Int).QuoRem(d, five, r)
		if m.Sign() != 0 {
			return 0, false
		}
		d, b = q, b+1
	}
	return max(a, b), true
}

// showError prints got − want as a short decimal, and relative to want.
func showError(got, want *big.Rat) string {
	d := new(big.Rat).Sub(got, want)
	if d.Sign() == 0 {
		return "0 (exact)"
	}
	df, _ := d.Float64()
	if want.Sign() == 0 {
		return fmt.Sprintf("%.3g", df)
	}
	rel, _ := new(big.Rat).Quo(d, want).Float64()
	return fmt.Sprintf("%.3g (relative %.3g)", df, rel)
}
