package recipes

import (
	"fmt"
	"math/rand/v2"
)

// The inputs of the induction heads: the alphabet parameter, and the
// strings a check runs.

// inductionAlphabet reads the alphabet parameter: 1 to maxK distinct
// ASCII letters in increasing order.
func inductionAlphabet(cfg Config, maxK int) ([]string, error) {
	s := cfg.Params["alphabet"]
	if len(s) < 1 || len(s) > maxK {
		return nil, fmt.Errorf("parameter alphabet must have 1 to %d letters, got %q", maxK, s)
	}
	var out []string
	for k := 0; k < len(s); k++ {
		c := s[k]
		if !('A' <= c && c <= 'Z' || 'a' <= c && c <= 'z') {
			return nil, fmt.Errorf("parameter alphabet: %q is not an ASCII letter (the symbols are single letters)", string(c))
		}
		if k > 0 && c <= s[k-1] {
			return nil, fmt.Errorf("parameter alphabet must list distinct letters in alphabetical order (it sets the tie-break), got %q", s)
		}
		out = append(out, string(c))
	}
	return out, nil
}

// inductionInputs enumerates the strings of length n over k symbols when
// there are at most budget of them; else it draws budget strings, each
// over a random subset of 1 to k symbols (few symbols make long runs of
// repeated bigrams and ties of counts; all k make rare followers), and
// some periodic with a random period and a few changes.
func inductionInputs(k int) func(n int, rng *rand.Rand, budget int) ([]Case, bool) {
	return func(n int, rng *rand.Rand, budget int) ([]Case, bool) {
		total := 1
		for i := 0; i < n && total <= budget; i++ {
			total *= k
		}
		if total <= budget {
			ins, _ := sampleOrAll(n, k, rng, budget, nil)
			return SymbolCases(ins), true
		}
		if rng == nil {
			return nil, false
		}
		ins := make([][]int, budget)
		for c := range ins {
			used := rng.Perm(k)[:1+rng.IntN(k)]
			in := make([]int, n)
			switch rng.IntN(3) {
			case 0: // periodic, with a few changed positions
				period := 1 + rng.IntN(min(n, 2*k))
				for i := range in {
					if i < period {
						in[i] = used[rng.IntN(len(used))]
					} else {
						in[i] = in[i-period]
					}
				}
				for range rng.IntN(4) {
					in[rng.IntN(n)] = used[rng.IntN(len(used))]
				}
			default:
				for i := range in {
					in[i] = used[rng.IntN(len(used))]
				}
			}
			ins[c] = in
		}
		return SymbolCases(ins), false
	}
}
