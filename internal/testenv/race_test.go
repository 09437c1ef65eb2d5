package testenv

import (
	"runtime/debug"
	"testing"
)

// TestRaceMatchesBuildInfo: the build tag and the build's own record of
// -race agree, so a test that shortens itself under the race detector
// does so exactly when it runs under it.
func TestRaceMatchesBuildInfo(t *testing.T) {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		t.Fatal("the test binary has no build info")
	}
	recorded := false
	for _, s := range bi.Settings {
		if s.Key == "-race" {
			recorded = s.Value == "true"
		}
	}
	if recorded != Race {
		t.Errorf("Race = %v, but the build info records -race = %v", Race, recorded)
	}
}
