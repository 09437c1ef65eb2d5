//go:build !unix

package bench

import "time"

// processCPU is unknown here: 0, and the figures fall back to the wall
// clock.
func processCPU() time.Duration { return 0 }
