package suggest

import (
	"slices"
	"strings"
	"testing"
)

func TestDistance(t *testing.T) {
	// Hand-counted edits.
	for _, tc := range []struct {
		a, b string
		want int
	}{
		{"", "", 0},
		{"lookup", "lookup", 0},
		{"lokup", "lookup", 1},   // one insertion
		{"lookpu", "lookup", 1},  // one swap of neighbours
		{"maxn", "max-n", 1},     // one insertion
		{"kitten", "sitting", 3}, // k→s, e→i, +g
		{"ca", "abc", 3},         // OSA, not Damerau: the swap cannot be edited again
		{"fp61", "fp16", 1},      // swap
		{"précision", "precision", 1},
	} {
		if got := distance(tc.a, tc.b); got != tc.want {
			t.Errorf("distance(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
		if got := distance(tc.b, tc.a); got != tc.want {
			t.Errorf("distance(%q, %q) = %d, want %d (symmetry)", tc.b, tc.a, got, tc.want)
		}
	}
}

func TestClosest(t *testing.T) {
	recipes := []string{"first", "lookup", "lookup-ao", "lookup-lh", "lookup-onehot", "pred", "pred-literal", "dyck1", "dyck12"}
	for _, tc := range []struct {
		name string
		want []string
	}{
		{"lokup", []string{"lookup"}},
		{"LOOKUP", []string{"lookup", "lookup-ao", "lookup-lh"}}, // names are case-sensitive
		{"lookup-a", []string{"lookup-ao", "lookup", "lookup-lh"}},
		{"prde", []string{"pred"}},
		{"zzz", nil},
		{"fist", []string{"first"}},
		{"dyck", []string{"dyck1", "dyck12"}},
	} {
		if got := Closest(tc.name, recipes); !slices.Equal(got, tc.want) {
			t.Errorf("Closest(%q) = %q, want %q", tc.name, got, tc.want)
		}
	}
}

func TestDidYouMean(t *testing.T) {
	flags := []string{"--max-n", "--maxlen", "--precision", "--seed"}
	for _, tc := range []struct{ name, want string }{
		{"--maxn", ": did you mean --max-n or --maxlen?"},
		{"--precison", ": did you mean --precision?"},
		{"--zzzzzz", ""},
	} {
		if got := DidYouMean(tc.name, flags); got != tc.want {
			t.Errorf("DidYouMean(%q) = %q, want %q", tc.name, got, tc.want)
		}
	}
}

// TestQuote: a short name is quoted whole; a long one is clipped to 60
// characters, counted in runes, with its length.
func TestQuote(t *testing.T) {
	long := strings.Repeat("é", 131072)
	for _, tc := range []struct{ in, want string }{
		{"lookup", `"lookup"`},
		{"a\nb", `"a\nb"`},
		{long, `"` + strings.Repeat("é", 60) + `"… (131072 characters)`},
	} {
		if got := Quote(tc.in); got != tc.want {
			t.Errorf("Quote(%.20q…) = %.80q, want %.80q", tc.in, got, tc.want)
		}
	}
}
