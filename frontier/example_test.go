package frontier_test

import (
	"fmt"

	"github.com/transformer-cookbook/verify/frontier"
	"github.com/transformer-cookbook/verify/numeric"
)

// The lookup's scores 2qj − j² at the query's key j = q and its
// neighbour differ by 1 at magnitude q², so a format of P significant
// bits keeps them apart while q² < 2^P: the limit is ⌊√(2^P)⌋, 45 for
// fp16 (P = 11, √2048 ≈ 45.25) and 16 for bf16 (P = 8).
func ExamplePredict() {
	for _, name := range []string{"fp16", "bf16"} {
		pr := frontier.Predict("lookup", numeric.MustParsePrecision(name), 1000)
		fmt.Println(name, pr.Limit)
	}
	// Output:
	// fp16 45
	// bf16 16
}
