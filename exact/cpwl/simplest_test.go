package cpwl

import "testing"

func TestSimplest(t *testing.T) {
	tests := []struct{ lo, hi, want string }{
		{"0", "1", "1/2"},
		{"1/3", "1/2", "2/5"}, // denominators 2 and 3 give only the ends; 2/5 is the mediant
		{"-1/2", "1/3", "0"},
		{"2", "5/2", "7/3"},
		{"-5/2", "-2", "-7/3"},
		{"0", "5", "1"},
		{"3/2", "7", "2"},
		{"0", "1/100", "1/101"},
		{"1/101", "1/100", "2/201"},
		{"355/113", "22/7", "377/120"}, // between π's convergents: 3 + 1/(7 + 1/17)
	}
	for _, tc := range tests {
		lo, hi := rat(t, tc.lo), rat(t, tc.hi)
		got := simplest(lo, hi)
		if got.Cmp(rat(t, tc.want)) != 0 {
			t.Errorf("simplest(%s, %s) = %v, want %s", tc.lo, tc.hi, got.RatString(), tc.want)
		}
		if got.Cmp(lo) <= 0 || got.Cmp(hi) >= 0 {
			t.Errorf("simplest(%s, %s) = %v is not strictly between", tc.lo, tc.hi, got.RatString())
		}
	}
}
