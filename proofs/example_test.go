package proofs_test

import (
	"fmt"

	"github.com/transformer-cookbook/verify/proofs"
)

// A claim of the paper, checked: GTZero (§Comparisons) is the CPWL map
// ReLU(x/ε) − ReLU(x/ε − 1), and its definition is proved on the whole
// real line by the decision procedure for ReLU networks, one linear
// Piece at a time.
func ExampleRun() {
	c, err := proofs.Get("ffn.gtzero.definition")
	if err != nil {
		fmt.Println(err)
		return
	}
	ev, err := proofs.Run(c)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(c.ID, ev.Verdict, ev.Verdict == c.Recorded)
	// Output: ffn.gtzero.definition PROVED true
}
