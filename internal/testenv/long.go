package testenv

import (
	"os"
	"testing"
)

// LongVar is the environment variable that turns the long tier on when
// it is "1".
const LongVar = "VERIFY_LONG"

// LongSkip is the message a long test skips with when the long tier is
// off: it says how to run it.
const LongSkip = "long check: set VERIFY_LONG=1 (CI runs it in its long step)"

// LongEnabled reports whether the long tier was asked for.
func LongEnabled() bool { return os.Getenv(LongVar) == "1" }

// Long skips t unless the long tier was asked for (VERIFY_LONG=1). Every
// test that calls it is named TestLong…, so that
// go test -run '^TestLong' selects the long tier alone.
func Long(t testing.TB) {
	t.Helper()
	if !LongEnabled() {
		t.Skip(LongSkip)
	}
}
