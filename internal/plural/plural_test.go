package plural

import "testing"

// TestOf: the singular for 1, the plural for 0, 2 and the
// rest, with English's regular plurals written out by hand.
func TestOf(t *testing.T) {
	tests := []struct {
		n    int
		noun string
		want string
	}{
		{1, "claim", "1 claim"},
		{2, "claim", "2 claims"},
		{0, "claim", "0 claims"},
		{-2, "degree", "-2 degrees"},
		{1, "layer", "1 layer"},
		{2, "layer", "2 layers"},
		{1, "linear region", "1 linear region"},
		{2, "linear region", "2 linear regions"},
		{2, "box", "2 boxes"},
		{2, "class", "2 classes"},
		{2, "patch", "2 patches"},
		{2, "hash", "2 hashes"},
		{2, "entry", "2 entries"},
		{1, "entry", "1 entry"},
		{2, "key", "2 keys"},
		{2, "day", "2 days"},
		{2, "FFN", "2 FFNs"},
		{2, "exact LP", "2 exact LPs"},
		{1, "exact LP", "1 exact LP"},
	}
	for _, tc := range tests {
		if got := Of(tc.n, tc.noun); got != tc.want {
			t.Errorf("Of(%d, %q) = %q, want %q", tc.n, tc.noun, got, tc.want)
		}
	}
	if got := Of(uint64(1), "byte"); got != "1 byte" {
		t.Errorf("Of(uint64(1), byte) = %q", got)
	}
	if got := Of(int64(3), "byte"); got != "3 bytes" {
		t.Errorf("Of(int64(3), byte) = %q", got)
	}
}

func TestForm(t *testing.T) {
	for _, tc := range []struct {
		n    int
		want string
	}{{0, "matrices"}, {1, "matrix"}, {2, "matrices"}} {
		if got := Form(tc.n, "matrix", "matrices"); got != tc.want {
			t.Errorf("Form(%d) = %q, want %q", tc.n, got, tc.want)
		}
	}
	if got := Noun(1, "input"); got != "input" {
		t.Errorf("Noun(1, input) = %q", got)
	}
	if got := Noun(5, "input"); got != "inputs" {
		t.Errorf("Noun(5, input) = %q", got)
	}
}
