package certify

import (
	"fmt"
	"os"
	"sync"
	"testing"
)

// TestMain fails the package's tests when the independent checker
// refuses any proof of the analysis, in any test: a refusal withdraws the
// conclusion, so a test that only looks at the conclusion would pass on
// an analysis that proposes false proofs (the checker catching them is
// the checker's merit, not the analysis's).
func TestMain(m *testing.M) {
	var mu sync.Mutex
	var whys []string
	refused = func(why string) {
		mu.Lock()
		whys = append(whys, why)
		mu.Unlock()
	}
	code := m.Run()
	if len(whys) > 0 {
		fmt.Fprintf(os.Stderr, "FAIL: the independent checker refused %d of the analysis's proofs; the first: %s\n", len(whys), whys[0])
		code = 1
	}
	os.Exit(code)
}
