package numeric_test

import (
	"fmt"
	"math/big"

	"github.com/transformer-cookbook/verify/numeric"
)

// fp16 holds 11 significant bits: 1/3 = 1.0101010101…₂ × 2⁻² rounds to
// 1.0101010101₂ × 2⁻² = 1365/4096 (the next bit is 0, so down).
func ExampleFormat_RoundRat() {
	x := numeric.Binary16.RoundRat(big.NewRat(1, 3))
	fmt.Println(x, new(big.Rat).SetFloat64(x).RatString())
	// Output: 0.333251953125 1365/4096
}

func ExampleParsePrecision() {
	for _, name := range []string{"fp16", "bf16", "24", "exact"} {
		p, err := numeric.ParsePrecision(name)
		if err != nil {
			fmt.Println(err)
			continue
		}
		fmt.Println(p, p.SignificandBits())
	}
	// Output:
	// fp16 11
	// bf16 8
	// 24 24
	// exact 0
}

// An expression in the paper's syntax: irrational constants stay exact
// expressions, rationals fold to their value.
func ExampleParseExpr() {
	for _, s := range []string{"sqrt(2)/3", "(1/2 + 1/3)*6"} {
		e, err := numeric.ParseExpr(s)
		if err != nil {
			fmt.Println(err)
			continue
		}
		r, rational, _ := e.Rat()
		if rational {
			fmt.Println(s, "is the rational", r.RatString())
		} else {
			fmt.Println(s, "is irrational:", e)
		}
	}
	// Output:
	// sqrt(2)/3 is irrational: sqrt(2)/3
	// (1/2 + 1/3)*6 is the rational 5
}
