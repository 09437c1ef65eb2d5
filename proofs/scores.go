package proofs

import (
	"fmt"

	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/recipes"
)

// RecipeDKey is d_key of the lookup head of recipe built for N.
func RecipeDKey(recipe string, n int) (int, error) {
	r, err := recipes.Get(recipe)
	if err != nil {
		return 0, err
	}
	con, err := r.Construct(model.AverageHardmax, n, nil)
	if err != nil {
		return 0, err
	}
	_, head, err := LookupHead(con.Model)
	if err != nil {
		return 0, err
	}
	return head.Q.Rows, nil
}

// The two readings, as the statements name them: each claim of the pairs
// ends with one.
const (
	ReadQK     = " (scores as q·k, the engine's convention)"
	ReadScaled = " (scores q·k/√d_key, Definition def:attn)"
)

// LookupHead returns the index of the first layer with attention in
// m and that layer's single head.
func LookupHead(m *model.Model) (int, *model.Head, error) {
	for l, layer := range m.Layers {
		if layer.Attention != nil {
			if len(layer.Attention.Heads) != 1 {
				return 0, nil, fmt.Errorf("%s: layer %d has %d heads", m.Name, l+1, len(layer.Attention.Heads))
			}
			return l, &layer.Attention.Heads[0], nil
		}
	}
	return 0, nil, fmt.Errorf("%s: no attention layer", m.Name)
}
