package model

import (
	"errors"
	"fmt"
	"strings"
)

// ErrNotPrefixStable is wrapped by NewPrefixRunner's error for models whose
// outputs at a position may depend on later positions or on the length:
// callers run each string from scratch instead.
var ErrNotPrefixStable = errors.New("the model is not prefix-stable")

// PrefixStable reports why m is not prefix-stable up to length maxLen
// (nil when it is): see NewPrefixRunner.
func (m *Model) PrefixStable(maxLen int) error {
	if err := m.Causal(); err != nil {
		return err
	}
	if m.Position == nil {
		return nil
	}
	// A Go function cannot be inspected, so the encoding is compared at
	// every length the runner will see. Equal printed expressions are the
	// same expression, which every backend rounds alike; a different
	// expression of the same value might round differently (an interval
	// enclosure), so it counts as a difference.
	for i := 1; i <= maxLen; i++ {
		own := m.Position.Vector(i, i)
		for n := i + 1; n <= maxLen; n++ {
			v := m.Position.Vector(i, n)
			if len(v) != len(own) {
				return fmt.Errorf("position encoding %q has %d entries at i = %d, n = %d and %d at n = %d: %w", m.Position.Name, len(v), i, n, len(own), i, ErrNotPrefixStable)
			}
			for c := range v {
				if v[c].String() != own[c].String() {
					return fmt.Errorf("position encoding %q depends on the length: pe_%d(%d)[%d] = %v but pe_%d(%d)[%d] = %v: %w",
						m.Position.Name, n, i, c+1, v[c], i, i, c+1, own[c], ErrNotPrefixStable)
				}
			}
		}
	}
	return nil
}

// Causal reports why m's positions may see later ones (nil when every
// attention sublayer is masked Future or StrictFuture): then a position's
// stream depends on the positions up to it only, in a string of a given
// length.
func (m *Model) Causal() error {
	for l, layer := range m.Layers {
		if a := layer.Attention; a != nil && a.Mask != Future && a.Mask != StrictFuture {
			return fmt.Errorf("layer %d attention is masked %s, so a position sees later ones: %w", l+1, a.Mask, ErrNotPrefixStable)
		}
	}
	return nil
}

// Tokenize splits s into symbols of m's alphabet: at white space when s
// has any (for alphabets with multi-character symbols, like "3:1 1:0"),
// otherwise by longest match.
func (m *Model) Tokenize(s string) ([]int, error) {
	var out []int
	if fields := strings.Fields(s); len(fields) > 1 || len(fields) == 1 && fields[0] != s {
		index := map[string]int{}
		for k, sym := range m.Alphabet {
			index[sym] = k
		}
		for i, f := range fields {
			k, ok := index[f]
			if !ok {
				return nil, fmt.Errorf("input %q: %q at position %d is not a symbol of the alphabet (%s)", s, f, i+1, alphabetSummary(m.Alphabet))
			}
			out = append(out, k)
		}
		return out, nil
	}
	for pos := 0; pos < len(s); {
		best, bestLen := -1, 0
		for k, sym := range m.Alphabet {
			if len(sym) > bestLen && strings.HasPrefix(s[pos:], sym) {
				best, bestLen = k, len(sym)
			}
		}
		if best < 0 {
			return nil, fmt.Errorf("input %q: no symbol of the alphabet (%s) at offset %d", s, alphabetSummary(m.Alphabet), pos)
		}
		out = append(out, best)
		pos += bestLen
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("empty input: a transformer maps non-empty strings")
	}
	return out, nil
}

// alphabetSummary lists an alphabet, or its first symbols when it is long.
func alphabetSummary(a []string) string {
	if len(a) <= 12 {
		return strings.Join(a, " ")
	}
	return strings.Join(a[:8], " ") + fmt.Sprintf(" … %s: %d symbols", a[len(a)-1], len(a))
}

// ComponentNames is the names of the residual stream's components: Components,
// or h1 … hD when it is nil.
func (m *Model) ComponentNames() []string {
	if m.Components != nil {
		return m.Components
	}
	names := make([]string, m.D)
	for c := range names {
		names[c] = fmt.Sprintf("h%d", c+1)
	}
	return names
}
