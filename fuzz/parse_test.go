package fuzz

import (
	"math"
	"math/big"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/transformer-cookbook/verify/exact"
	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/numeric"
	"github.com/transformer-cookbook/verify/recipes"
)

// FuzzParsePrecision checks the reader of --precision on arbitrary
// strings: it never panics; it returns an error, or a precision whose
// String() reads back to the same precision (so reports name precisions
// that the command line accepts) and that numeric.Visit can instantiate.
func FuzzParsePrecision(f *testing.F) {
	for _, s := range []string{
		"exact", "fp64", "fp32", "fp16", "bf16", "fp8-e4m3", "fp8-e5m2",
		"2", "1", "53", "+53", "053", "-53", "4096", "4097", "1048576", "99999999999999999999",
		"interval:128", "interval:", "interval:1", "interval:+2", "interval:-2", "interval:4096", "interval:4097",
		"Interval:53", "FP16", "", " 53", "53 ", "+", "-", "+-5", "0x10", "interval:0x10", "exact ",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p, err := numeric.ParsePrecision(s)
		if err != nil {
			return
		}
		name := p.String()
		q, err := numeric.ParsePrecision(name)
		if err != nil {
			t.Fatalf("ParsePrecision(%q) = %s, which does not parse back: %v", s, name, err)
		}
		if q != p {
			t.Fatalf("ParsePrecision(%q) = %+v, printed %q, which parses to %+v", s, p, name, q)
		}
		if q.String() != name {
			t.Fatalf("ParsePrecision(%q) prints as %q, then as %q", s, name, q.String())
		}
		if err := numeric.Visit(p, &backends{}); err != nil {
			t.Fatalf("ParsePrecision(%q) = %s, which Visit refuses: %v", s, name, err)
		}
	})
}

// FuzzParseRat checks exact.ParseRat, the reader of every rational on the
// command line and in --param, on arbitrary strings: it never panics; it
// returns an error, or a value whose RatString reads back to the same
// value; it keeps its documented limits (an exponent beyond
// ±exact.MaxExponent is an error), so that a short typo cannot make it
// allocate for minutes: a value's numerator and denominator have at most
// about 4 bits per character of text plus MaxExponent·log2(10) bits.
func FuzzParseRat(f *testing.F) {
	for _, s := range []string{
		"0", "-3", "1/3", "-22/7", "6/4", "0.1", "1.5e-3", "+2.5E2", "0x1.8p-3", "0x10", "  7  ",
		"", "inf", "-Inf", "NaN", "1/0", "abc", "1e1000000", "1e-100001", "0x1p200000", "1/2/3",
		"1e99990", "1e-99990", "0x1p100000", "0x1p-100000", "0b101", "0o17", "1_000", "0x_1",
		"1/0x10", "1e1_0", "0x1p-1_0", "0x1e5", "1e+05", "1E-0", ".5", "5.", "-.5e1", "1/-2", "1/ 2", "1 /2",
		"0x1.fffffffffffffp1023", "1p3", "1.5p-2", "-0", "+0/5", "0/0",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if e, ok := textExponent(s); ok && e.CmpAbs(big.NewInt(20*exact.MaxExponent)) > 0 {
			// Such an exponent is far beyond the limit; should the guard
			// miss it (see textExponent), big.Rat would spend minutes
			// and gigabytes on it. The smaller ones in the corpus show
			// the same miss cheaply.
			t.Skipf("%.40q: exponent %v far beyond ±%d", s, e, exact.MaxExponent)
		}
		r, err := exact.ParseRat(s)
		if err != nil {
			return
		}
		if e, ok := textExponent(s); ok && e.CmpAbs(big.NewInt(exact.MaxExponent)) > 0 {
			t.Fatalf("ParseRat(%.60q) = a value of %d/%d bits, but its exponent %v is beyond ±%d, which ParseRat documents as an error",
				s, r.Num().BitLen(), r.Denom().BitLen(), e, exact.MaxExponent)
		}
		limit := 4*len(s) + int(math.Ceil(exact.MaxExponent*math.Log2(10))) + 64
		if n, d := r.Num().BitLen(), r.Denom().BitLen(); n > limit || d > limit {
			t.Fatalf("ParseRat(%.60q): a value of %d/%d bits, more than %d from %d characters", s, n, d, limit, len(s))
		}
		text := r.RatString()
		back, err := exact.ParseRat(text)
		if err != nil {
			t.Fatalf("ParseRat(%.60q) = %.60s… (%d characters), whose RatString does not parse back: %v", s, text, len(text), err)
		}
		if back.Cmp(r) != 0 {
			t.Fatalf("ParseRat(%.60q) = %.60s, which parses back to %.60s", s, text, back.RatString())
		}
	})
}

// textExponent is the exponent written in s, read independently of
// exact.ParseRat: the digits after the last e or E (decimal mantissas) or
// p or P, up to the end of the trimmed text, with an optional sign and
// with the underscores that math/big accepts between digits (big.Rat
// reads "1e1_000" as 10^1000).
func textExponent(s string) (*big.Int, bool) {
	t := strings.ToLower(strings.TrimSpace(s))
	if strings.Contains(t, "/") {
		return nil, false // a fraction of integers has no exponent
	}
	k := strings.LastIndexByte(t, 'p')
	if !strings.Contains(t, "0x") {
		k = max(k, strings.LastIndexByte(t, 'e'))
	}
	if k < 0 {
		return nil, false
	}
	digits := strings.TrimLeft(t[k+1:], "+-")
	if len(t[k+1:])-len(digits) > 1 {
		return nil, false
	}
	digits = strings.ReplaceAll(digits, "_", "")
	if digits == "" || strings.Trim(digits, "0123456789") != "" {
		return nil, false
	}
	e, ok := new(big.Int).SetString(digits, 10)
	if !ok {
		return nil, false
	}
	if strings.HasPrefix(t[k+1:], "-") {
		e.Neg(e)
	}
	return e, true
}

// tokenizeModels are recipes' models with different kinds of alphabet:
// single letters, brackets, a BOS symbol, and lookup's multi-character
// q:v symbols, where longest match matters ("1:0" and "11:0").
var tokenizeModels = sync.OnceValue(func() []*model.Model {
	var ms []*model.Model
	for _, spec := range []struct {
		name string
		n    int
	}{
		{"categorical", 4}, {"dyck12", 4}, {"bos", 4}, {"induction-recent", 4},
		{"pred", 4}, {"tiebreak", 4}, {"lookup", 12},
	} {
		r, err := recipes.Get(spec.name)
		if err != nil {
			panic(err)
		}
		con, err := r.Construct(r.DefaultWeighting(), spec.n, nil)
		if err != nil {
			panic(err)
		}
		ms = append(ms, con.Model)
	}
	return ms
})

// FuzzTokenize checks model.Model.Tokenize, the reader of `verify run
// --input`, on arbitrary strings and the alphabets of tokenizeModels: it
// never panics; a success returns at least one symbol, each in the
// alphabet, and joining them gives the input back (with single spaces
// when the input was split at white space, else with nothing); and an
// input made of alphabet symbols separated by white space, or of
// single-character symbols, is accepted.
func FuzzTokenize(f *testing.F) {
	for _, s := range []string{"abca", "(())", "^ab", "ABAB", "0h1", "1:0 2:1", "1:0 11:1 12:0", "1:011:1",
		"", " ", "a b", " a", "a\tb\n", "ab c", "x", "1:", "12:1", "13:0", "\xff", "é"} {
		for m := range 7 {
			f.Add(uint8(m), s)
		}
	}
	f.Fuzz(func(t *testing.T, which uint8, s string) {
		ms := tokenizeModels()
		m := ms[int(which)%len(ms)]
		got, err := m.Tokenize(s)
		fields := strings.Fields(s)
		split := len(fields) > 1 || len(fields) == 1 && fields[0] != s
		if err != nil {
			if split && allSymbols(m, fields) {
				t.Fatalf("%s: Tokenize(%q) fails though every field is a symbol: %v", m.Name, s, err)
			}
			if !split && singleChars(m) && s != "" && allSymbols(m, chars(s)) {
				t.Fatalf("%s: Tokenize(%q) fails though every character is a symbol: %v", m.Name, s, err)
			}
			return
		}
		if len(got) == 0 {
			t.Fatalf("%s: Tokenize(%q) returns no symbols and no error", m.Name, s)
		}
		syms := make([]string, len(got))
		for i, k := range got {
			if k < 0 || k >= len(m.Alphabet) {
				t.Fatalf("%s: Tokenize(%q)[%d] = %d, outside the alphabet of %d symbols", m.Name, s, i, k, len(m.Alphabet))
			}
			syms[i] = m.Alphabet[k]
		}
		if split {
			if j, want := strings.Join(syms, " "), strings.Join(fields, " "); j != want {
				t.Fatalf("%s: Tokenize(%q) = %q, which joins to %q, want %q", m.Name, s, syms, j, want)
			}
		} else if j := strings.Join(syms, ""); j != s {
			t.Fatalf("%s: Tokenize(%q) = %q, which joins to %q", m.Name, s, syms, j)
		}
	})
}

func allSymbols(m *model.Model, parts []string) bool {
	for _, p := range parts {
		found := false
		for _, a := range m.Alphabet {
			found = found || a == p
		}
		if !found {
			return false
		}
	}
	return true
}

func singleChars(m *model.Model) bool {
	for _, a := range m.Alphabet {
		if utf8.RuneCountInString(a) != 1 {
			return false
		}
	}
	return true
}

// chars splits s into its characters (bytes of invalid UTF-8 stay as
// they are).
func chars(s string) []string {
	var out []string
	for len(s) > 0 {
		_, n := utf8.DecodeRuneInString(s)
		out = append(out, s[:n])
		s = s[n:]
	}
	return out
}
