package plural_test

import (
	"fmt"

	"github.com/transformer-cookbook/verify/internal/plural"
)

func ExampleOf() {
	fmt.Println(plural.Of(1, "claim"))
	fmt.Println(plural.Of(247, "claim"))
	fmt.Println(plural.Of(0, "entry"))
	// Output:
	// 1 claim
	// 247 claims
	// 0 entries
}
