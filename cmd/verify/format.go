package main

import (
	"fmt"
	"io"
	"math/big"
	"strings"
	"text/tabwriter"

	"github.com/transformer-cookbook/verify/numeric"
)

// cmdFormat prints the Info of one precision, or a summary of all the
// named formats; --json prints either as one document.
func cmdFormat(args []string, stdout io.Writer) error {
	o := new(formatOptions)
	positional, err := parseFlags("format", args, o)
	if err != nil {
		return err
	}
	asJSON := o.json.on()
	names := numeric.FormatNames()
	switch len(positional) {
	case 0:
		if !asJSON {
			return formatTable(stdout)
		}
	case 1:
		names = positional
	default:
		return badInput("format takes one precision name, got %d", len(positional))
	}
	var ps []numeric.Precision
	for _, name := range names {
		p, err := numeric.ParsePrecision(name)
		if err != nil {
			return badInput("%v", err)
		}
		ps = append(ps, p)
	}
	if asJSON {
		doc := formatDoc{Schema: schemaID(kindFormat)}
		for _, p := range ps {
			doc.Formats = append(doc.Formats, formatJSONOf(p))
		}
		return writeJSON(stdout, doc)
	}
	return describeFormat(stdout, ps[0])
}

// describeFormat prints what a format is, a row a property.
func describeFormat(stdout io.Writer, p numeric.Precision) error {
	in := numeric.Describe(p)
	w := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	row := func(k, v string) { fmt.Fprintf(w, "%s\t%s\n", k, v) }
	row("name", in.Name)
	row("summary", in.Summary)
	if p.Kind == numeric.KindExact {
		return w.Flush()
	}
	row("significand bits", fmt.Sprintf("%d (including the implicit leading bit)", in.SignificandBits))
	if in.StorageBits > 0 {
		row("storage bits", fmt.Sprintf("%d = 1 sign + %d exponent + %d stored significand",
			in.StorageBits, in.ExponentBits, in.SignificandBits-1))
		row("exponent bias", fmt.Sprint(in.Bias))
	}
	row("exponent range", fmt.Sprintf("emin %d, emax %d", in.EMin, in.EMax))
	row("max finite", showValue(in.MaxFinite))
	row("min normal", showValue(in.MinNormal))
	if in.MinSubnormal != nil {
		row("min subnormal", showValue(in.MinSubnormal))
	} else {
		row("min subnormal", "none (no subnormals)")
	}
	row("machine epsilon", showValue(in.Epsilon))
	row("infinities", yesNo(in.HasInf))
	if in.NaNs > 0 {
		row("NaN", fmt.Sprintf("yes (%d bit patterns)", in.NaNs))
	} else {
		row("NaN", "no")
	}
	row("overflow gives", in.Overflow)
	row("rounding", roundingOf(p))
	return w.Flush()
}

func roundingOf(p numeric.Precision) string {
	if p.Kind == numeric.KindInterval {
		return "outward (lower endpoints toward −Inf, upper toward +Inf)"
	}
	return "to nearest, ties to even, once per operation (exp, log, erf, tanh, sqrt correctly rounded)"
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// showValue prints x as a decimal and a power of two, or only as a power of
// two when x is too large or small for its decimal expansion to be useful.
func showValue(x *big.Float) string {
	mant := new(big.Float)
	e := x.MantExp(mant) // x = mant × 2^e, 0.5 ≤ mant < 1
	pow := fmt.Sprintf("2^%d", e-1)
	if m2, _ := new(big.Float).SetMantExp(mant, 1).Float64(); m2 != 1 {
		pow = fmt.Sprintf("%s × 2^%d", new(big.Float).SetMantExp(mant, 1).Text('g', -1), e-1)
	}
	if e > 2000 || e < -2000 {
		return pow
	}
	return x.Text('g', -1) + " = " + pow
}

// formatTable summarises the named formats side by side.
func formatTable(stdout io.Writer) error {
	w := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(w, "name\tbits\tp\temin\temax\tmax finite\tmin normal\tmin subnormal\tepsilon\tinf\tNaN patterns\t")
	for _, name := range numeric.FormatNames() {
		in := numeric.Describe(numeric.MustParsePrecision(name))
		fmt.Fprintf(w, "%s\t%d\t%d\t%d\t%d\t%s\t%s\t%s\t%s\t%s\t%d\t\n", in.Name, in.StorageBits,
			in.SignificandBits, in.EMin, in.EMax, g(in.MaxFinite), g(in.MinNormal),
			g(in.MinSubnormal), g(in.Epsilon), yesNo(in.HasInf), in.NaNs)
	}
	if err := w.Flush(); err != nil {
		return err
	}
	_, err := fmt.Fprintln(stdout, "\nAlso: exact, P (bigfloat, P-bit significand, "+
		"big.Float's exponent range), interval:P. 'verify format NAME' describes one.")
	return err
}

func g(x *big.Float) string {
	s := x.Text('g', 6)
	return strings.Replace(s, "e+", "e", 1)
}

// formatDoc is what 'verify format --json' prints: the named formats, or
// the one asked for.
type formatDoc struct {
	Schema  string       `json:"schema"`
	Formats []formatJSON `json:"formats"`
}

// formatJSON is a format's numeric.Info. The values are exact (each a
// binaryJSON); a field that does not apply to the format (an encoding's
// width for a big.Float precision, everything for exact) is left out.
type formatJSON struct {
	Name            string      `json:"name"`
	Summary         string      `json:"summary"`
	SignificandBits int         `json:"significand_bits,omitempty"` // counting the implicit leading bit
	StorageBits     int         `json:"storage_bits,omitempty"`
	ExponentBits    int         `json:"exponent_bits,omitempty"`
	Bias            int         `json:"exponent_bias,omitempty"`
	EMin            int         `json:"emin,omitempty"`
	EMax            int         `json:"emax,omitempty"`
	MaxFinite       *binaryJSON `json:"max_finite,omitempty"`
	MinNormal       *binaryJSON `json:"min_normal,omitempty"`
	MinSubnormal    *binaryJSON `json:"min_subnormal,omitempty"` // absent: no subnormals
	Epsilon         *binaryJSON `json:"epsilon,omitempty"`
	Infinities      bool        `json:"infinities"`
	NaNPatterns     int         `json:"nan_patterns"`
	Overflow        string      `json:"overflow"`
	Rounding        string      `json:"rounding,omitempty"`
}

func formatJSONOf(p numeric.Precision) formatJSON {
	in := numeric.Describe(p)
	f := formatJSON{Name: in.Name, Summary: in.Summary, Overflow: in.Overflow}
	if p.Kind == numeric.KindExact {
		return f
	}
	f.SignificandBits, f.StorageBits, f.ExponentBits, f.EMin, f.EMax = in.SignificandBits, in.StorageBits, in.ExponentBits, in.EMin, in.EMax
	if in.StorageBits > 0 {
		f.Bias = in.Bias
	}
	f.MaxFinite, f.MinNormal, f.MinSubnormal, f.Epsilon = binaryOf(in.MaxFinite), binaryOf(in.MinNormal), binaryOf(in.MinSubnormal), binaryOf(in.Epsilon)
	f.Infinities, f.NaNPatterns, f.Rounding = in.HasInf, in.NaNs, roundingOf(p)
	return f
}
