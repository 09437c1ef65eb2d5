package check

import (
	"bufio"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"

	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/numeric"
)

// valueBytes is about what one number takes in a backend: a float64
// slot for the IEEE and emulated formats, a big.Float (its struct and
// mantissa words) for bigfloats, two for intervals, and for exact
// rationals two small big.Ints (more when denominators grow, which no
// estimate made before the run can know).
func valueBytes(p numeric.Precision) uint64 {
	words := func(bits uint) uint64 { return uint64(bits+63) / 64 * 8 }
	switch p.Kind {
	case numeric.KindFloat32:
		return 4
	case numeric.KindFloat64, numeric.KindEmulated:
		return 8
	case numeric.KindBigFloat:
		return 64 + words(p.Bits)
	case numeric.KindInterval:
		return 2 * (64 + words(p.Bits))
	}
	return 112
}

// MemoryEstimate is about how many bytes a check of inputs of length n
// takes at precision p with the given number of workers: the model's
// weights in the backend's numbers (stored dense), and for each worker n
// positions of the residual stream, a sublayer's output, the keys and
// values of every head and the widest FFN's hidden layer.
func MemoryEstimate(m *model.Model, p numeric.Precision, n, workers int) uint64 {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	weights := uint64(len(m.WordEmbedding) * m.D)
	perPosition := uint64(2 * m.D)
	hidden := 0
	for _, l := range m.Layers {
		if a := l.Attention; a != nil {
			kv := 0
			for _, h := range a.Heads {
				weights += uint64(len(h.Q.Data) + len(h.K.Data) + len(h.V.Data))
				kv += h.K.Rows + h.V.Rows
			}
			perPosition = max(perPosition, uint64(2*m.D+kv))
		}
		if f := l.FeedForward; f != nil {
			weights += uint64(len(f.W1.Data) + len(f.W2.Data) + len(f.B1) + len(f.B2))
			hidden = max(hidden, f.W1.Rows)
		}
	}
	weights += uint64(len(m.Output.W.Data))
	perCase := uint64(n) * (perPosition + uint64(hidden))
	return valueBytes(p) * (weights + uint64(workers)*perCase)
}

// AvailableMemory is the memory the machine can give a run: MemAvailable
// in /proc/meminfo, or the cgroup's limit (a container's, a Slurm job's)
// when that is smaller; 0 where it cannot tell.
func AvailableMemory() uint64 {
	avail := meminfoAvailable()
	if b, err := os.ReadFile("/sys/fs/cgroup/memory.max"); err == nil {
		if limit, err := strconv.ParseUint(strings.TrimSpace(string(b)), 10, 64); err == nil && (avail == 0 || limit < avail) {
			avail = limit
		}
	}
	return avail
}

func meminfoAvailable() uint64 {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "MemAvailable:"); ok {
			fields := strings.Fields(rest)
			if len(fields) >= 1 {
				if kb, err := strconv.ParseUint(fields[0], 10, 64); err == nil {
					return kb * 1024
				}
			}
		}
	}
	return 0
}

// ErrMemory is returned (wrapped) when a check would need more memory
// than Options.MemoryLimit.
var ErrMemory = fmt.Errorf("not enough memory")

// GiB prints a byte count in GiB.
func GiB(b uint64) string { return fmt.Sprintf("%.1f GiB", float64(b)/(1<<30)) }
