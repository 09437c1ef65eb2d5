package recipes

import (
	"math/rand/v2"
	"strconv"
)

// The inputs of the Dyck recipes: the alphabet of k bracket types with the
// paper's encoding o, and the strings a check runs, drawn near the
// language's boundary where there are too many to enumerate.

// dyckAlphabet lists the symbols of k bracket types.
func dyckAlphabet(k int) []string {
	pairs := []string{"()", "[]", "{}"}
	var out []string
	for t := 1; t <= k; t++ {
		if t <= len(pairs) {
			out = append(out, pairs[t-1][:1], pairs[t-1][1:])
		} else {
			out = append(out, "<"+strconv.Itoa(t), ">"+strconv.Itoa(t))
		}
	}
	return out
}

// dyckO is the paper's o of a symbol index: +t opens type t, −t closes
// it.
func dyckO(s int) int {
	if s%2 == 0 {
		return s/2 + 1
	}
	return -(s/2 + 1)
}

// dyckSymbol is the symbol index of o.
func dyckSymbol(o int) int {
	if o > 0 {
		return 2 * (o - 1)
	}
	return 2*(-o-1) + 1
}

// dyckWord returns a random word of Dyck-k of even length m whose depth
// is at most d (d = 0: any depth), drawn by a walk that opens or closes
// with equal chance where both keep the word completable.
func dyckWord(m, k, d int, rng *rand.Rand) []int {
	var out, stack []int
	for len(out) < m {
		rem := m - len(out)
		canOpen := len(stack)+1 <= rem-1 && (d == 0 || len(stack) < d)
		canClose := len(stack) > 0
		if canOpen && (!canClose || rng.IntN(2) == 0) {
			t := 1 + rng.IntN(k)
			stack = append(stack, t)
			out = append(out, dyckSymbol(t))
		} else {
			out = append(out, dyckSymbol(-stack[len(stack)-1]))
			stack = stack[:len(stack)-1]
		}
	}
	return out
}

// dyckInputs enumerates the strings of length n over k bracket types
// when there are at most budget, and otherwise draws budget of them,
// most near the language's boundary: words of Dyck-k-d (for odd n, with
// one random symbol inserted), the same with one symbol changed, words
// of depth exactly d + 1 (a chain of d + 1 nested pairs inserted at the
// top level), and uniformly random strings. d = 0 means any depth.
func dyckInputs(k, d int) func(n int, rng *rand.Rand, budget int) ([]Case, bool) {
	return func(n int, rng *rand.Rand, budget int) ([]Case, bool) {
		if all, ok := dyckEnumerate(n, 2*k, budget); ok {
			return SymbolCases(all), true
		}
		if rng == nil {
			return nil, false
		}
		cases := make([][]int, budget)
		for c := range cases {
			cases[c] = dyckSample(n, k, d, rng)
		}
		return SymbolCases(cases), false
	}
}

// dyckEnumerate lists the strings of length n over an alphabet of size a
// when there are at most budget.
func dyckEnumerate(n, a, budget int) ([][]int, bool) {
	total := 1
	for i := 0; i < n; i++ {
		if total *= a; total > budget {
			return nil, false
		}
	}
	ins, _ := sampleOrAll(n, a, nil, total, nil)
	return ins, true
}

// dyckSample draws one string of length n (see dyckInputs).
func dyckSample(n, k, d int, rng *rand.Rand) []int {
	word := func(m int) []int {
		w := dyckWord(m-m%2, k, d, rng)
		if m%2 == 1 {
			at := rng.IntN(len(w) + 1)
			w = append(w[:at], append([]int{rng.IntN(2 * k)}, w[at:]...)...)
		}
		return w
	}
	switch mode := rng.IntN(8); {
	case mode < 3:
		return word(n)
	case mode < 5:
		w := word(n)
		at := rng.IntN(n)
		w[at] = (w[at] + 1 + rng.IntN(2*k-1)) % (2 * k)
		return w
	case mode < 6 && d > 0 && n >= 2*(d+1):
		w := word(n - 2*(d+1))
		// Insert the chain at a position where the depth is 0.
		var tops []int
		depth := 0
		for i := 0; i <= len(w); i++ {
			if depth == 0 {
				tops = append(tops, i)
			}
			if i < len(w) {
				depth += dyckSign(dyckO(w[i]))
			}
		}
		at := tops[rng.IntN(len(tops))]
		chain := make([]int, 0, 2*(d+1))
		var types []int
		for j := 0; j <= d; j++ {
			t := 1 + rng.IntN(k)
			types = append(types, t)
			chain = append(chain, dyckSymbol(t))
		}
		for j := d; j >= 0; j-- {
			chain = append(chain, dyckSymbol(-types[j]))
		}
		return append(w[:at:at], append(chain, w[at:]...)...)
	}
	w := make([]int, n)
	for i := range w {
		w[i] = rng.IntN(2 * k)
	}
	return w
}

func dyckSign(x int) int {
	switch {
	case x > 0:
		return 1
	case x < 0:
		return -1
	}
	return 0
}
