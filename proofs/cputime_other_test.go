//go:build !unix

package proofs

import "time"

// processCPU is not measured here: the claims' costs are measured on a
// unix system.
func processCPU() (time.Duration, bool) { return 0, false }
