// Package testenv tells tests about the build and the run they are in:
// whether the race detector is on (exact arithmetic runs about fifteen
// times slower under it, so some checks shorten themselves there), and
// whether the long tier of the tests was asked for.
//
// The tests come in two tiers. The default tier (go test ./...) runs
// every package's quick checks: a sample of the claims, the small lengths
// of each exhaustive sweep. The long tier is the tests named TestLong…,
// which call Long first and run only with VERIFY_LONG=1 in the
// environment: the whole claim registry, the exhaustive sweeps at the
// lengths the documentation gives, the full mutation run. CI runs both.
//
// It imports nothing of the module and may be imported by any test.
package testenv
