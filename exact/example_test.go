package exact_test

import (
	"fmt"

	"github.com/transformer-cookbook/verify/exact"
)

// A decimal is read exactly: 0.1 is 1/10, not the float64 nearest it.
func ExampleParseRat() {
	for _, s := range []string{"0.1", "-3/7", "1.5e-3"} {
		r, err := exact.ParseRat(s)
		if err != nil {
			fmt.Println(err)
			continue
		}
		fmt.Println(s, "=", r.RatString())
	}
	// Output:
	// 0.1 = 1/10
	// -3/7 = -3/7
	// 1.5e-3 = 3/2000
}

func ExampleParseVector() {
	v, err := exact.ParseVector("1/2, 0.25 -1")
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, x := range v {
		fmt.Print(x.RatString(), " ")
	}
	fmt.Println()
	// Output: 1/2 1/4 -1
}
