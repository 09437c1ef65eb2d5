package recipes_test

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/recipes"
)

// TestInputsProbe holds every construction to Inputs' contract for a nil
// generator, which the checker uses to ask whether a length is enumerable
// without drawing: the same enumeration as with a generator when there
// are at most budget inputs, and nothing otherwise. Each recipe is built
// in every weighting, with its default parameters and, where it takes
// them, with rational values.
func TestInputsProbe(t *testing.T) {
	for _, r := range recipes.All() {
		ws := r.Weightings
		if len(ws) == 0 {
			ws = []model.Weighting{model.Softmax}
		}
		paramSets := []map[string]string{nil}
		if r.HasParam("values") {
			paramSets = append(paramSets, map[string]string{"values": "rationals"})
		}
		for _, w := range ws {
			for _, params := range paramSets {
				maxN := min(max(r.DefaultMaxN, r.MinN, 1), 9)
				con, err := r.Construct(w, maxN, params)
				if err != nil {
					t.Errorf("%s %s %v: build: %v", r.Name, recipes.WeightingAcronym(w), params, err)
					continue
				}
				for n := max(r.MinN, 1); n <= maxN; n++ {
					for _, budget := range []int{1, 3, 16, 256} {
						probed, pAll := con.Inputs(n, nil, budget)
						drawn, dAll := con.Inputs(n, rand.New(rand.NewPCG(7, uint64(n))), budget)
						name := r.Name + " " + recipes.WeightingAcronym(w)
						switch {
						case pAll != dAll:
							t.Errorf("%s %v n = %d budget %d: enumerable %v probing, %v drawing", name, params, n, budget, pAll, dAll)
						case !pAll && len(probed) > 0:
							t.Errorf("%s %v n = %d budget %d: the probe drew %d inputs", name, params, n, budget, len(probed))
						case pAll && !slices.EqualFunc(probed, drawn, sameCase):
							t.Errorf("%s %v n = %d budget %d: the probe enumerates other inputs than the run", name, params, n, budget)
						case !dAll && len(drawn) != budget:
							t.Errorf("%s %v n = %d budget %d: drew %d inputs", name, params, n, budget, len(drawn))
						}
					}
				}
			}
		}
	}
}

func sameCase(a, b recipes.Case) bool {
	return slices.Equal(a.Symbols, b.Symbols) && a.Text == b.Text && len(a.Stream) == len(b.Stream)
}
