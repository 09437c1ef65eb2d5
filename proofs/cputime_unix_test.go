//go:build unix

package proofs

import (
	"syscall"
	"time"
)

// processCPU is the CPU time (user + system, every thread, the garbage
// collector's too) the process has used so far: what a claim's checker
// costs, which other processes sharing the machine do not inflate as
// they do its wall time.
func processCPU() (time.Duration, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}
