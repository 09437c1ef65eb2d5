package exact

import (
	"math/big"
	"strings"
	"testing"
)

func TestParseRat(t *testing.T) {
	tests := []struct {
		in   string
		want *big.Rat // hand-written value
	}{
		{"0", big.NewRat(0, 1)},
		{"-3", big.NewRat(-3, 1)},
		{"1/3", big.NewRat(1, 3)},
		{"-22/7", big.NewRat(-22, 7)},
		{"6/4", big.NewRat(3, 2)},
		{"0.1", big.NewRat(1, 10)}, // the decimal, not the float64 0.1
		{"1.5e-3", big.NewRat(3, 2000)},
		{"+2.5E2", big.NewRat(250, 1)},
		{"0x1.8p-3", big.NewRat(3, 16)},
		{"0x10", big.NewRat(16, 1)},
		{"  7  ", big.NewRat(7, 1)},
	}
	for _, tc := range tests {
		got, err := ParseRat(tc.in)
		if err != nil {
			t.Errorf("ParseRat(%q): %v", tc.in, err)
			continue
		}
		if got.Cmp(tc.want) != 0 {
			t.Errorf("ParseRat(%q) = %v, want %v", tc.in, got, tc.want)
		}
	}
}

func TestParseRatErrors(t *testing.T) {
	tests := []struct{ in, msg string }{
		{"", "empty"},
		{"inf", "not a finite"},
		{"-Inf", "not a finite"},
		{"NaN", "not a finite"},
		{"1/0", "zero denominator"},
		{"abc", "not a number"},
		{"1e1000000", "out of range"},
		{"1e-100001", "out of range"},
		{"0x1p200000", "out of range"},
		{"1/2/3", "not a number"},
		{strings.Repeat("9", maxLen+1), "too long"},
		// Found by fuzz.FuzzParseRat: an underscore hid the exponent
		// 1000000 from the bound.
		{"0e100000_0", "underscores"},
		{"1e1_000_000_000", "underscores"},
		// Just past the exponent bound the message names (1e100000 was
		// once refused as "too large" under a bound of ±100000).
		{"1e99001", "out of range (at most ±99000)"},
		{"1e-99001", "out of range (at most ±99000)"},
		{"1e100000", "out of range (at most ±99000)"},
		// Within it, a mantissa of 2000 digits makes a value that prints
		// in more characters than ParseRat reads back.
		{strings.Repeat("7", 2000) + "e99000", "too large"},
	}
	for _, tc := range tests {
		_, err := ParseRat(tc.in)
		if err == nil || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("ParseRat(%.20q) error = %v, want one containing %q", tc.in, err, tc.msg)
		}
	}
}

// TestParseRatExponentBound: every exponent the message allows is read,
// with a mantissa of up to 400 digits, in decimal and binary.
func TestParseRatExponentBound(t *testing.T) {
	mantissa := "0." + strings.Repeat("9", 399)
	for _, in := range []string{"1e99000", "1e-99000", "-1E+99000", mantissa + "e99000", mantissa + "e-99000", "0x1p99000", "0x1p-99000", "0x1.fffp-99000"} {
		r, err := ParseRat(in)
		if err != nil {
			t.Errorf("ParseRat(%.30q…): %v", in, err)
			continue
		}
		if back, err := ParseRat(r.RatString()); err != nil || back.Cmp(r) != 0 {
			t.Errorf("ParseRat(%.30q…) does not read back: %v", in, err)
		}
	}
}

func TestParseMatrix(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want [][]string // by hand
	}{
		{"1 0; 0 1", [][]string{{"1", "0"}, {"0", "1"}}},
		{"1/2, -3; 0.25,7", [][]string{{"1/2", "-3"}, {"1/4", "7"}}},
		{" -1  2  3 ", [][]string{{"-1", "2", "3"}}},
		{"1;2;3", [][]string{{"1"}, {"2"}, {"3"}}},
	} {
		got, err := ParseMatrix(tc.in)
		if err != nil {
			t.Errorf("ParseMatrix(%q): %v", tc.in, err)
			continue
		}
		if len(got) != len(tc.want) {
			t.Errorf("ParseMatrix(%q): %d rows, want %d", tc.in, len(got), len(tc.want))
			continue
		}
		for i, row := range tc.want {
			for k, w := range row {
				if r, _ := new(big.Rat).SetString(w); k >= len(got[i]) || got[i][k].Cmp(r) != 0 {
					t.Errorf("ParseMatrix(%q)[%d][%d] = %v, want %s", tc.in, i, k, got[i], w)
				}
			}
		}
	}
	for _, tc := range []struct{ in, msg string }{
		{"", "empty matrix"},
		{"1 2; 3", "row 2 has 1 entry, row 1 has 2"},
		{"1 2;", "row 2 is empty"},
		{"1 x", "row 1: entry 2"},
		{"1/0", "zero denominator"},
	} {
		if _, err := ParseMatrix(tc.in); err == nil || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("ParseMatrix(%q): error %v, want one containing %q", tc.in, err, tc.msg)
		}
	}
	v, err := ParseVector("0; -1/2, 3")
	if err != nil || len(v) != 3 || v[1].Cmp(big.NewRat(-1, 2)) != 0 {
		t.Errorf("ParseVector: %v, %v", v, err)
	}
	if _, err := ParseVector("  "); err == nil {
		t.Error("ParseVector accepted an empty vector")
	}
}
