package check

import (
	"fmt"
	"math/big"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/recipes"
)

// Adopt makes con check m instead of its own model: a model from a file
// (a user's weights, built elsewhere) against the recipe's reference
// function, inputs and domain. m must read the same inputs and write the
// same outputs as the recipe's model: every symbol of the recipe's
// alphabet (inputs move to the model's symbols of the same names); for
// vector inputs, components named like the
// recipe's input components (m.Components), which the input vectors are
// moved to by name; and the same kind of output with the same labels.
func Adopt(con *recipes.Construction, m *model.Model) error {
	if err := m.Validate(); err != nil {
		return err
	}
	own := con.Model
	if m.Output.Kind != own.Output.Kind {
		return fmt.Errorf("the model's output is %s; the reference's is %s", m.Output.Kind, own.Output.Kind)
	}
	if !slices.Equal(m.Output.Labels, own.Output.Labels) {
		return fmt.Errorf("the model's outputs are (%s); the reference's are (%s)", strings.Join(m.Output.Labels, ", "), strings.Join(own.Output.Labels, ", "))
	}
	// Symbols move to the model's symbols of the same name: its alphabet
	// may hold more (a lookup exported for a larger N).
	symbol := map[string]int{}
	for k, s := range m.Alphabet {
		symbol[s] = k
	}
	to := make([]int, len(own.Alphabet))
	for k, s := range own.Alphabet {
		j, ok := symbol[s]
		if !ok {
			return fmt.Errorf("the model's alphabet (%s) lacks the reference's symbol %q", summary(m.Alphabet), s)
		}
		to[k] = j
	}
	con.AdaptSymbols = func(in []int) []int {
		out := make([]int, len(in))
		for i, s := range in {
			out[i] = to[s]
		}
		return out
	}
	// Vector inputs are written into the recipe's own residual layout;
	// they move to m's components of the same names.
	where := make([]int, len(own.Components))
	index := map[string]int{}
	for k, name := range m.Components {
		index[name] = k
	}
	for k, name := range own.Components {
		where[k] = -1
		if j, ok := index[name]; ok {
			where[k] = j
		}
	}
	// The components the recipe's inputs set, seen on a few of its own
	// inputs, must all be the model's: a missing one is refused now,
	// not found later on the first input that happens to set it.
	for n := 1; n <= 3; n++ {
		cases, _ := con.Inputs(n, rand.New(rand.NewPCG(uint64(n), 0xad0)), 16)
		for _, c := range cases {
			for _, row := range c.Stream {
				for k, x := range row {
					if x.Sign() != 0 && k < len(where) && where[k] < 0 {
						return fmt.Errorf("the recipe's inputs set component %q, which the model does not name (its components: %s)", own.Components[k], summary(m.Components))
					}
				}
			}
		}
	}
	con.Adapt = func(h0 [][]*big.Rat) ([][]*big.Rat, error) {
		out := make([][]*big.Rat, len(h0))
		for i, row := range h0 {
			out[i] = make([]*big.Rat, m.D)
			for k := range out[i] {
				out[i][k] = new(big.Rat)
			}
			for k, x := range row {
				if x.Sign() == 0 {
					continue
				}
				if k >= len(where) || where[k] < 0 {
					name := fmt.Sprintf("component %d", k+1)
					if k < len(own.Components) {
						name = fmt.Sprintf("component %q", own.Components[k])
					}
					return nil, fmt.Errorf("the input sets %s, which the model does not name (its components: %s)", name, summary(m.Components))
				}
				out[i][where[k]] = x
			}
		}
		return out, nil
	}
	con.Model = m
	con.Notes = append(con.Notes, fmt.Sprintf("the model checked is %q, not the recipe's own", m.Name))
	return nil
}

func summary(names []string) string {
	if len(names) > 12 {
		return strings.Join(names[:12], ", ") + fmt.Sprintf(", … (%d in all)", len(names))
	}
	return strings.Join(names, ", ")
}
