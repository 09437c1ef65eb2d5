package proofs

import (
	"os"
	"runtime/debug"
	"testing"
)

// TestMain runs the tests at the collector's target 'verify claims' runs
// the checkers at (GCPercent), unless GOGC is given.
func TestMain(m *testing.M) {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(GCPercent)
	}
	os.Exit(m.Run())
}
