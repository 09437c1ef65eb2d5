package recipes

import ()

// The references of the induction heads, in plain Go from the paper's
// definitions of Induct_rightmost and Induct_frequent, never from the
// weights.

// InductRightmost is the reference of most-recent induction, in plain Go:
// at position i, the symbol after the rightmost k < i with x_k = x_i, or
// x_i when there is none.
func InductRightmost(x []int) []int {
	out := make([]int, len(x))
	for i := range x {
		out[i] = x[i]
		for k := i - 1; k >= 0; k-- {
			if x[k] == x[i] {
				out[i] = x[k+1]
				break
			}
		}
	}
	return out
}

// InductFrequent is the reference of most-frequent induction, in plain
// Go: the bigram counts up to position i, the most frequent follower of
// x_i (the smallest symbol index among ties), or x_i when it has none.
func InductFrequent(x []int, k int) []int {
	count := make([][]int, k)
	for s := range count {
		count[s] = make([]int, k)
	}
	out := make([]int, len(x))
	for i, s := range x {
		if i > 0 {
			count[x[i-1]][s]++
		}
		out[i] = s
		best := 0
		for t := 0; t < k; t++ {
			if count[s][t] > best {
				best, out[i] = count[s][t], t
			}
		}
	}
	return out
}

// inductWants wraps reference outputs as wanted symbols.
func inductWants(alphabet []string, ys []int) []Want {
	want := make([]Want, len(ys))
	for i, y := range ys {
		want[i] = Want{Symbol: alphabet[y]}
	}
	return want
}
