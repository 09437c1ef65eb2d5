package cpwl

import "strings"

// Pattern is an activation pattern s ∈ {0,1}^h: s_i says whether hidden
// unit i is active (ReLU(z) = z) or inactive (ReLU(z) = 0) on a linear
// region. It prints as a string of 0s and 1s, unit 1 first.
type Pattern []bool

func (s Pattern) String() string {
	var b strings.Builder
	for _, a := range s {
		if a {
			b.WriteByte('1')
		} else {
			b.WriteByte('0')
		}
	}
	return b.String()
}

func (s Pattern) clone() Pattern { return append(Pattern(nil), s...) }
