package recipes_test

import (
	"fmt"

	"github.com/transformer-cookbook/verify/recipes"
)

// The lookup of §Quadratic Maximization, built for inputs of length at
// most 4: the residual stream holds the query q, the constant 1, the
// position's j and j², the value v, and the outputs c and y; its
// alphabet is the 2N symbols q:v.
func ExampleGet() {
	r, err := recipes.Get("lookup")
	if err != nil {
		fmt.Println(err)
		return
	}
	con, err := r.Construct(r.DefaultWeighting(), 4, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	m := con.Model
	fmt.Println(r.Name, "§"+r.Section)
	fmt.Println("components:", m.Components)
	fmt.Println("symbols:", len(m.Alphabet), "layers:", len(m.Layers))
	// Output:
	// lookup §Quadratic Maximization
	// components: [q 1 j j² v c y]
	// symbols: 8 layers: 1
}
