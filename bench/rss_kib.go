//go:build linux || freebsd || netbsd || openbsd || dragonfly

package bench

import (
	"os"
	"syscall"
)

// peakRSS is the exited process's maximum resident set size in bytes:
// these kernels give ru_maxrss in KiB.
func peakRSS(ps *os.ProcessState) uint64 {
	if ru, ok := ps.SysUsage().(*syscall.Rusage); ok && ru.Maxrss > 0 {
		return uint64(ru.Maxrss) * 1024
	}
	return 0
}
