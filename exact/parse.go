package exact

import (
	"fmt"
	"math/big"
	"regexp"
	"strconv"
	"strings"

	"github.com/transformer-cookbook/verify/internal/plural"
)

// MaxExponent bounds the decimal (e) and binary (p) exponents that ParseRat
// accepts: 10^99000 is already a 330000-bit integer, and a larger exponent
// in a typo would make big.Rat allocate for a long time. Every number
// with an exponent in range and a mantissa of up to 400 digits prints
// within the 100,000 characters a value may take, so that the bound the
// message states is the one that applies.
const MaxExponent = 99000

// maxLen bounds the length of a number's text.
const maxLen = 100000

var exponentRE = regexp.MustCompile(`[eEpP]([+-]?\d+)$`)

// ParseRat parses an exact rational number: an integer ("-3"), a fraction
// ("1/3", "-22/7"), a decimal ("0.1", "1.5e-3") or a hexadecimal float
// ("0x1.8p-3"). The value is exact: "0.1" is 1/10, not the float64 nearest
// to it. Infinities, NaN, a zero denominator and exponents beyond
// ±MaxExponent are errors.
func ParseRat(s string) (*big.Rat, error) {
	t := strings.TrimSpace(s)
	switch strings.ToLower(strings.TrimLeft(t, "+-")) {
	case "":
		return nil, fmt.Errorf("empty number")
	case "inf", "infinity", "nan":
		return nil, fmt.Errorf("%q is not a finite rational number", s)
	}
	if len(t) > maxLen {
		return nil, fmt.Errorf("number too long (%d characters, at most %d)", len(t), maxLen)
	}
	// big.Rat reads underscores between digits, also in exponents, where
	// they would slip past the exponent bound below.
	if strings.Contains(t, "_") {
		return nil, fmt.Errorf("%q: underscores are not allowed in numbers", s)
	}
	isHex := strings.Contains(strings.ToLower(t), "0x")
	if m := exponentRE.FindStringSubmatch(t); m != nil && (!isHex || strings.ContainsAny(t[len(t)-len(m[0]):], "pP")) {
		e, err := strconv.Atoi(m[1])
		if err != nil || e > MaxExponent || e < -MaxExponent {
			return nil, fmt.Errorf("exponent of %q out of range (at most ±%d)", s, MaxExponent)
		}
	}
	if _, den, ok := strings.Cut(t, "/"); ok {
		if d, ok := new(big.Int).SetString(den, 0); ok && d.Sign() == 0 {
			return nil, fmt.Errorf("%q has a zero denominator", s)
		}
	}
	r, ok := new(big.Rat).SetString(t)
	if !ok {
		return nil, fmt.Errorf("%q is not a number (write an integer, a fraction a/b, a decimal like 1.5e-3 or a hex float like 0x1p-3)", s)
	}
	// Every value accepted prints (RatString) within maxLen characters,
	// so that it reads back: "1e100000" is within the exponent bound but
	// has 100001 digits. A b-bit integer has at most ⌊b·log₁₀2⌋ + 1 digits.
	digits := func(x *big.Int) int { return x.BitLen()*30103/100000 + 1 }
	if n := digits(r.Num()) + digits(r.Denom()) + 2; n > maxLen {
		return nil, fmt.Errorf("%.40q is too large: its exact value takes up to %d characters (at most %d)", s, n, maxLen)
	}
	return r, nil
}

// ParseMatrix parses a matrix of exact rationals written by rows: rows
// separated by ';', entries within a row by spaces or commas ("1 0; 0 1",
// "1/2, -3; 0.25, 7"). Every row must have the same number of entries, at
// least one; an error names the row and entry at fault.
func ParseMatrix(s string) ([][]*big.Rat, error) {
	if strings.TrimSpace(s) == "" {
		return nil, fmt.Errorf("empty matrix (write rows separated by ';', entries by spaces or commas)")
	}
	var rows [][]*big.Rat
	for i, text := range strings.Split(s, ";") {
		row, err := parseEntries(text)
		if err != nil {
			return nil, fmt.Errorf("row %d: %w", i+1, err)
		}
		if len(row) == 0 {
			return nil, fmt.Errorf("row %d is empty (write rows separated by ';', entries by spaces or commas)", i+1)
		}
		if i > 0 && len(row) != len(rows[0]) {
			return nil, fmt.Errorf("row %d has %s, row 1 has %d", i+1, plural.Of(len(row), "entry"), len(rows[0]))
		}
		rows = append(rows, row)
	}
	return rows, nil
}

// ParseVector parses a vector of exact rationals: entries separated by
// spaces, commas or semicolons ("1, -1/2, 0.25"; "0; 0" reads as the
// column it looks like).
func ParseVector(s string) ([]*big.Rat, error) {
	v, err := parseEntries(strings.ReplaceAll(s, ";", ","))
	if err == nil && len(v) == 0 {
		err = fmt.Errorf("empty vector (write entries separated by spaces or commas)")
	}
	return v, err
}

// parseEntries reads the rationals of s, separated by spaces or commas.
func parseEntries(s string) ([]*big.Rat, error) {
	fields := strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' || r == '\n' })
	out := make([]*big.Rat, len(fields))
	for k, f := range fields {
		r, err := ParseRat(f)
		if err != nil {
			return nil, fmt.Errorf("entry %d: %w", k+1, err)
		}
		out[k] = r
	}
	return out, nil
}
