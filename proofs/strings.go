package proofs

import (
	"slices"
	"strings"
)

// DyckAlphabet is the alphabet {(, )}.
var DyckAlphabet = []string{"(", ")"}

// Strings lists every string over alphabet of length 1 … n.
func Strings(alphabet []string, n int) [][]int {
	var out [][]int
	var rec func(prefix []int)
	rec = func(prefix []int) {
		if len(prefix) > 0 {
			out = append(out, slices.Clone(prefix))
		}
		if len(prefix) == n {
			return
		}
		for s := range alphabet {
			rec(append(prefix, s))
		}
	}
	rec(nil)
	return out
}

// Text writes the string in as its letters from alphabet.
func Text(alphabet []string, in []int) string {
	var b strings.Builder
	for _, s := range in {
		b.WriteString(alphabet[s])
	}
	return b.String()
}
