//go:build unix

package testenv

import (
	"syscall"
	"time"
)

// ProcessCPU is the CPU time (user + system, every thread, the garbage
// collector's too) the process has used so far: what benchmarks report
// beside wall time, since other processes sharing the machine inflate
// the one much more than the other. ok is false where it is not measured.
func ProcessCPU() (cpu time.Duration, ok bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}
