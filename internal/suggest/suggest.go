package suggest

import (
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"
)

// maxShown is how many names a suggestion lists at most: a short list
// to choose from, never the whole registry.
const maxShown = 3

// Closest returns up to three candidates closest to name, the closest
// first (ties in the candidates' order): those within a distance of
// about a third of name's length (at least 1, at most 3), and those name
// is a prefix of or that are a prefix of name; the same name in
// another case comes first. It returns nil when
// nothing is close.
func Closest(name string, candidates []string) []string {
	type scored struct {
		name string
		d    int
	}
	key := strings.ToLower(name)
	limit := min(max(1, len([]rune(key))/3), 3)
	var close []scored
	for _, c := range candidates {
		ck := strings.ToLower(c)
		if c == name {
			continue
		}
		// The distance is at least the difference of the lengths: where
		// that is over the limit only a prefix can be close, and a long
		// name costs no alignment.
		d := limit + 1
		if abs(utf8.RuneCountInString(ck)-utf8.RuneCountInString(key)) <= limit {
			d = distance(key, ck) // 0 for the same name in another case
		}
		switch {
		case d <= limit:
		case len(key) >= 3 && (strings.HasPrefix(ck, key) || strings.HasPrefix(key, ck)):
			// "lookup" for "lookup-onehot": a prefix is close however much
			// is left, but ranks after every misspelling.
			d = limit + 1 + abs(len(ck)-len(key))
		default:
			continue
		}
		close = append(close, scored{c, d})
	}
	slices.SortStableFunc(close, func(a, b scored) int { return a.d - b.d })
	var out []string
	for _, s := range close[:min(len(close), maxShown)] {
		out = append(out, s.name)
	}
	return out
}

// DidYouMean returns ": did you mean X?" (or "X or Y", "X, Y or Z") with
// the candidates closest to name, or "" when none is close.
func DidYouMean(name string, candidates []string) string {
	near := Closest(name, candidates)
	if len(near) == 0 {
		return ""
	}
	list := near[0]
	if len(near) > 1 {
		list = strings.Join(near[:len(near)-1], ", ") + " or " + near[len(near)-1]
	}
	return ": did you mean " + list + "?"
}

// distance is the optimal string alignment distance between a and b,
// counted in runes.
func distance(a, b string) int {
	s, t := []rune(a), []rune(b)
	// Three rows: the one before the previous is needed for swaps.
	prev2 := make([]int, len(t)+1)
	prev := make([]int, len(t)+1)
	cur := make([]int, len(t)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(s); i++ {
		cur[0] = i
		for j := 1; j <= len(t); j++ {
			cost := 1
			if s[i-1] == t[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && s[i-1] == t[j-2] && s[i-2] == t[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(t)]
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// Quote is %q of a name a user gave, clipped to its first 60 characters
// with a count of the rest: a message names what was wrong in one line,
// however long the input.
func Quote(name string) string {
	const most = 60
	r := []rune(name)
	if len(r) <= most {
		return fmt.Sprintf("%q", name)
	}
	return fmt.Sprintf("%q… (%d characters)", string(r[:most]), len(r))
}
