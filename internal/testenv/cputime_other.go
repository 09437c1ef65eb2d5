//go:build !unix

package testenv

import "time"

// ProcessCPU is not measured here: callers report wall time only.
func ProcessCPU() (cpu time.Duration, ok bool) { return 0, false }
