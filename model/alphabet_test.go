package model

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// TestRepeatedSymbol holds repeatedSymbol to a map's answer on random
// alphabets of 0 to 3,000 short symbols (so that hashes collide in the
// table and symbols share prefixes), with and without a repeat placed at
// random.
func TestRepeatedSymbol(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for trial := range 2000 {
		alphabet := make([]string, rng.IntN(3001))
		for s := range alphabet {
			alphabet[s] = fmt.Sprint(s, ":", rng.IntN(3))
		}
		if len(alphabet) > 1 && trial%2 == 0 {
			i, j := rng.IntN(len(alphabet)), rng.IntN(len(alphabet))
			alphabet[i] = alphabet[j]
		}
		want := -1
		seen := map[string]bool{}
		for s, sym := range alphabet {
			if seen[sym] {
				want = s
				break
			}
			seen[sym] = true
		}
		if got := repeatedSymbol(alphabet); got != want {
			t.Fatalf("trial %d: repeatedSymbol = %d, want %d (alphabet of %d)", trial, got, want, len(alphabet))
		}
	}
}
