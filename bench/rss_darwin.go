package bench

import (
	"os"
	"syscall"
)

// peakRSS is the exited process's maximum resident set size in bytes:
// macOS gives ru_maxrss in bytes, not KiB.
func peakRSS(ps *os.ProcessState) uint64 {
	if ru, ok := ps.SysUsage().(*syscall.Rusage); ok && ru.Maxrss > 0 {
		return uint64(ru.Maxrss)
	}
	return 0
}
