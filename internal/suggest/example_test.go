package suggest_test

import (
	"fmt"

	"github.com/transformer-cookbook/verify/internal/suggest"
)

// A misspelt recipe name gets the closest names as a suggestion, to
// follow the message that names it.
func ExampleDidYouMean() {
	names := []string{"lookup", "lookup-lh", "first", "dyck1"}
	fmt.Println(`unknown recipe "lokup"` + suggest.DidYouMean("lokup", names))
	fmt.Printf("%q\n", suggest.DidYouMean("zzzzzz", names))
	// Output:
	// unknown recipe "lokup": did you mean lookup?
	// ""
}
