package main

import (
	"fmt"
	"io"
	"os"
	"runtime/pprof"
)

// cpuProfileEnv names a file that receives a CPU profile of the whole
// process (`go tool pprof verify FILE`): for profiling a command as a
// user runs it, fresh process, start-up and garbage collection included,
// which a benchmark in a warm test binary hides.
const cpuProfileEnv = "VERIFY_CPUPROFILE"

// startCPUProfile starts the profile VERIFY_CPUPROFILE asks for, and
// returns the function that ends it (nothing to end when it is unset).
func startCPUProfile(stderr io.Writer) (stop func()) {
	path := os.Getenv(cpuProfileEnv)
	if path == "" {
		return func() {}
	}
	f, err := os.Create(path)
	if err == nil {
		err = pprof.StartCPUProfile(f)
	}
	if err != nil {
		fmt.Fprintf(stderr, "verify: %s: %v (no profile written)\n", cpuProfileEnv, err)
		return func() {}
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}
}
