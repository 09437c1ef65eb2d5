package check_test

import (
	"fmt"

	"github.com/transformer-cookbook/verify/check"
	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/numeric"
	"github.com/transformer-cookbook/verify/recipes"
)

// Every input of length 3 of the lookup, run in exact arithmetic: each
// position holds one of the 2 × 3 symbols q:v, so there are 6³ = 216
// inputs, and the construction is exact on every one.
func ExampleChecker_Length() {
	r, err := recipes.Get("lookup")
	if err != nil {
		fmt.Println(err)
		return
	}
	ck, err := check.NewChecker(r, check.Options{Precision: numeric.MustParsePrecision("exact"),
		Weighting: model.AverageHardmax, MaxN: 3, Cases: 8, Exhaustive: 256, Seed: 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	lr := ck.Length(3)
	fmt.Println(lr.Level, lr.Cases, "inputs,", lr.Passed, "passed,", lr.Exact, "exact")
	// Output: exhaustive 216 inputs, 216 passed, 216 exact
}
