package check

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/transformer-cookbook/verify/internal/gcfloor"
	"github.com/transformer-cookbook/verify/internal/testenv"
	"github.com/transformer-cookbook/verify/numeric"
	"github.com/transformer-cookbook/verify/recipes"
)

// memoryChild is the environment variable that makes
// TestMemoryEstimateChild run one check: recipe:precision:n:analysis.
const memoryChild = "VERIFY_MEMORY_ESTIMATE_CHILD"

// memoryWorkers is the workers of the checks whose memory is measured.
const memoryWorkers = 2

// TestMemoryEstimateChild is the child process of
// TestMemoryEstimateBounds: it checks length n alone, of a construction
// built for N = n, as a sweep's longest length does.
func TestMemoryEstimateChild(t *testing.T) {
	spec := os.Getenv(memoryChild)
	if spec == "" {
		t.Skip("run by TestMemoryEstimateBounds")
	}
	// The process the estimate bounds is the command line's, which sets
	// the collector's floor.
	gcfloor.Set(gcfloor.Bytes, 100)
	f := strings.Split(spec, ":")
	r, err := recipes.Get(f[0])
	if err != nil {
		t.Fatal(err)
	}
	n, _ := strconv.Atoi(f[2])
	_, err = Run(r, Options{Precision: numeric.MustParsePrecision(f[1]), Weighting: r.DefaultWeighting(), MaxN: n, Lengths: []int{n},
		Cases: 1, Exhaustive: 256, Seed: 1, Workers: memoryWorkers, Analysis: f[3] == "true"})
	if err != nil {
		t.Fatal(err)
	}
	// The peak of this process's own memory (Linux): the resource usage
	// the parent reads of a child also counts the parent's memory when
	// the child was started (the child shares it until it execs, and the
	// kernel keeps that high-water mark), which other tests of the parent
	// inflate.
	if b, err := os.ReadFile("/proc/self/status"); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if kb, ok := strings.CutPrefix(line, "VmHWM:"); ok {
				fmt.Printf("%s%s\n", hwmPrefix, strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(kb), "kB")))
			}
		}
	}
}

// hwmPrefix starts the child's line with its peak resident set in KiB.
const hwmPrefix = "memory-estimate-child-peak-kib="

// TestMemoryEstimateBounds: MemoryEstimate bounds the peak resident set
// of a process that checks a length, measured by the kernel for a child
// process (this test binary, running TestMemoryEstimateChild). The cases
// are small, and each holds most in a different place: the one-hot
// lookup's dense weights at 53 bits, with the analysis (the model again
// in exact rationals) and without; the lookup's inputs of 1024 positions
// and, with the analysis, the symbols each of 2048 positions may hold.
func TestMemoryEstimateBounds(t *testing.T) {
	if testenv.Race {
		t.Skip("the race detector multiplies the memory a process takes")
	}
	if runtime.GOOS != "linux" && runtime.GOOS != "darwin" {
		t.Skip("the peak resident set is read from getrusage on Linux and macOS")
	}
	for _, tc := range []struct {
		recipe, precision string
		n                 int
		analysis          bool
	}{
		{"lookup-onehot", "53", 128, true},
		{"lookup-onehot", "53", 128, false},
		{"lookup", "fp64", 2048, true},
		{"lookup", "bf16", 1024, false},
	} {
		name := fmt.Sprintf("%s:%s:%d:%v", tc.recipe, tc.precision, tc.n, tc.analysis)
		cmd := exec.Command(os.Args[0], "-test.run=^TestMemoryEstimateChild$", "-test.count=1")
		// The collector's pace is the command line's: no GOGC, so that
		// the child's floor and GOGC = 100 above it hold.
		for _, kv := range os.Environ() {
			if !strings.HasPrefix(kv, "GOGC=") {
				cmd.Env = append(cmd.Env, kv)
			}
		}
		cmd.Env = append(cmd.Env, memoryChild+"="+name, "GOMEMLIMIT=off")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s: %v\n%s", name, err, out)
		}
		var peak uint64
		if _, rest, ok := strings.Cut(string(out), hwmPrefix); ok {
			kib, err := strconv.ParseUint(strings.Fields(rest)[0], 10, 64)
			if err != nil {
				t.Fatalf("%s: the child's peak %q: %v", name, rest, err)
			}
			peak = kib * 1024
		} else {
			ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage)
			if !ok {
				t.Skip("no resource usage for a child process here")
			}
			peak = uint64(ru.Maxrss)
			if runtime.GOOS == "linux" {
				peak *= 1024 // KiB there, bytes on macOS
			}
		}
		r, err := recipes.Get(tc.recipe)
		if err != nil {
			t.Fatal(err)
		}
		con, err := r.Construct(r.DefaultWeighting(), tc.n, nil)
		if err != nil {
			t.Fatal(err)
		}
		est := MemoryEstimate(con.Model, numeric.MustParsePrecision(tc.precision), tc.n, memoryWorkers, tc.analysis)
		t.Logf("%s: peak %.1f MiB, estimate %.1f MiB", name, float64(peak)/(1<<20), float64(est)/(1<<20))
		if est < peak {
			t.Errorf("%s: the estimate %.1f MiB is below the peak resident set %.1f MiB", name, float64(est)/(1<<20), float64(peak)/(1<<20))
		}
	}
}
