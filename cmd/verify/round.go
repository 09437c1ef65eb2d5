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
// decimal, as an exact fraction, and the rounding error; --json prints
// the same as one document, every number exact.
func cmdRound(args []string, stdout io.Writer) error {
	o := new(roundOptions)
	positional, err := parseFlags("round", args, o)
	if err != nil {
		return err
	}
	if !o.precision.set {
		return badInput("round needs --precision NAME (%s)", numeric.PrecisionNames)
	}
	p, err := o.precision.p, o.precision.err
	if err != nil {
		return badInput("%v", err)
	}
	if len(positional) == 0 {
		return badInput("round needs at least one value, like 1/3 or 0.1")
	}
	vals := make([]*big.Rat, len(positional))
	for i, s := range positional {
		if vals[i], err = exact.ParseRat(s); err != nil {
			return badInput("%v", err)
		}
	}
	r := &rounder{vals: vals}
	if err := numeric.Visit(p, r); err != nil {
		return err
	}
	if o.json.on() {
		doc := roundDoc{Schema: schemaID(kindRound), Format: p.String()}
		for i, res := range r.out {
			doc.Values = append(doc.Values, res.json(positional[i], vals[i], p.String()))
		}
		return writeJSON(stdout, doc)
	}
	w := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintf(w, "value\trounded to %s\tas a fraction\terror (rounded − value)\n", p)
	for i, res := range r.out {
		v, text := vals[i], positional[i]
		switch {
		case res.lo == nil: // ±Inf or NaN: the value overflowed the format
			fmt.Fprintf(w, "%s\t%s\t%s\t%s\n", text, res.text, "none", "overflow")
		case res.lo.Cmp(res.hi) != 0:
			fmt.Fprintf(w, "%s\t[%s, %s]\t[%s, %s]\t[%s, %s]\n", text, decimal(res.lo), decimal(res.hi),
				res.lo.RatString(), res.hi.RatString(), showError(res.lo, v), showError(res.hi, v))
		default:
			fmt.Fprintf(w, "%s\t%s\t%s\t%s\n", text, decimal(res.lo), res.lo.RatString(), showError(res.lo, v))
		}
	}
	return w.Flush()
}

// rounded is one value rounded: the format's printing, and its exact
// value (lo = hi), or an interval's enclosure [lo, hi]; lo is nil for an
// infinity or a NaN.
type rounded struct {
	text   string
	lo, hi *big.Rat
}

// rounder is the numeric.Visitor that runs roundAll on the backend of the
// chosen precision.
type rounder struct {
	vals []*big.Rat
	out  []rounded
}

func (r *rounder) Rat(b numeric.Backend[*big.Rat]) error        { return roundAll(b, r) }
func (r *rounder) BigFloat(b numeric.Backend[*big.Float]) error { return roundAll(b, r) }
func (r *rounder) Float64(b numeric.Backend[float64]) error     { return roundAll(b, r) }
func (r *rounder) Float32(b numeric.Backend[float32]) error     { return roundAll(b, r) }
func (r *rounder) Interval(b numeric.Backend[*numeric.Interval]) error {
	return roundAll(b, r)
}

func roundAll[T any](b numeric.Backend[T], r *rounder) error {
	for _, v := range r.vals {
		x := b.SetRat(b.New(), v)
		res := rounded{text: b.Format(x)}
		if lo, hi, err := b.Bounds(x); err == nil {
			res.lo, res.hi = lo, hi
		}
		r.out = append(r.out, res)
	}
	return nil
}

// roundDoc is what 'verify round --json' prints.
type roundDoc struct {
	Schema string      `json:"schema"`
	Format string      `json:"format"`
	Values []roundJSON `json:"values"`
}

// roundJSON is one value rounded: the value typed (input) and its exact
// value (value, a fraction), the rounded value as the format prints it
// (text), exactly as a decimal and a fraction (rounded), and the error
// rounded − value as a fraction. An interval precision gives the
// enclosure's ends (lo, hi) and their errors instead; a value past the
// format's range, overflow and neither.
type roundJSON struct {
	Input    string     `json:"input"`
	Format   string     `json:"format"`
	Value    string     `json:"value"`
	Text     string     `json:"text"`
	Rounded  *exactJSON `json:"rounded,omitempty"`
	Error    string     `json:"error,omitempty"`
	Lo       *exactJSON `json:"lo,omitempty"`
	Hi       *exactJSON `json:"hi,omitempty"`
	ErrorLo  string     `json:"error_lo,omitempty"`
	ErrorHi  string     `json:"error_hi,omitempty"`
	Overflow bool       `json:"overflow,omitempty"`
}

// exactJSON is a number exactly: as a fraction in lowest terms, and as
// a decimal where it has a finite one (every binary floating-point
// number has; 1/3 in exact arithmetic has not, and has no decimal).
type exactJSON struct {
	Decimal string `json:"decimal,omitempty"`
	Exact   string `json:"exact"`
}

func exactOf(x *big.Rat) *exactJSON {
	out := &exactJSON{Exact: x.RatString()}
	if k, ok := decimalPlaces(x.Denom()); ok {
		s := x.FloatString(k) // exact: the denominator divides 10^k
		if k > 0 {
			s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
		}
		out.Decimal = s
	}
	return out
}

func (res rounded) json(input string, v *big.Rat, format string) roundJSON {
	out := roundJSON{Input: input, Format: format, Value: v.RatString(), Text: res.text}
	diff := func(x *big.Rat) string { return new(big.Rat).Sub(x, v).RatString() }
	switch {
	case res.lo == nil:
		out.Overflow = true
	case res.lo.Cmp(res.hi) != 0:
		out.Lo, out.Hi, out.ErrorLo, out.ErrorHi = exactOf(res.lo), exactOf(res.hi), diff(res.lo), diff(res.hi)
	default:
		out.Rounded, out.Error = exactOf(res.lo), diff(res.lo)
	}
	return out
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
