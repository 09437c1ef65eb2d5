//go:build !unix

package certify_test

import "time"

// processCPU is not measured here: the benchmarks report wall time only.
func processCPU() (time.Duration, bool) { return 0, false }
