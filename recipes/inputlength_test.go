package recipes_test

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/recipes"
)

// TestInputLengthAnyN: a construction built for the smallest N counts
// the positions of an input of length n > N, typed as 'verify run'
// takes it (a case's Text, or its symbols separated by spaces, or in one
// run where the model's Tokenize reads it), as the construction built for N = n parses it; this is what
// lets run build its model for the input's positions.
func TestInputLengthAnyN(t *testing.T) {
	const n = 6
	for _, r := range recipes.All() {
		w := model.Softmax
		if len(r.Weightings) > 0 {
			w = r.Weightings[0]
		}
		small, err := r.Construct(w, max(1, r.MinN), nil)
		if err != nil {
			t.Errorf("%s at N = %d: %v", r.Name, max(1, r.MinN), err)
			continue
		}
		full, err := r.Construct(w, n, nil)
		if err != nil {
			t.Errorf("%s at N = %d: %v", r.Name, n, err)
			continue
		}
		cases, _ := full.Inputs(n, rand.New(rand.NewPCG(1, 2)), 3)
		for _, c := range cases {
			texts := []string{c.Text}
			if c.Text == "" {
				syms := make([]string, len(c.Symbols))
				for i, s := range c.Symbols {
					syms[i] = full.Model.Alphabet[s]
				}
				texts = []string{strings.Join(syms, " ")}
				if full.Parse == nil {
					// model.Tokenize reads a run of symbols too.
					texts = append(texts, strings.Join(syms, ""))
				}
			}
			for _, text := range texts {
				got, err := small.InputLength(text)
				if err != nil || got != n {
					t.Errorf("%s: InputLength(%q) at N = %d = %d, %v; want %d", r.Name, text, max(1, r.MinN), got, err, n)
				}
				parsed, err := full.InputLength(text)
				if err != nil || parsed != n {
					t.Errorf("%s: InputLength(%q) at N = %d = %d, %v; want %d", r.Name, text, n, parsed, err, n)
				}
			}
		}
	}
}
