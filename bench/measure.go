package bench

import (
	"flag"
	"fmt"
	"math"
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/transformer-cookbook/verify/internal/plural"
)

// benchMu serialises testing.Benchmark calls: they share the benchtime
// flag PerUnit sets.
var benchMu sync.Mutex

// PerUnit runs op under testing.Benchmark (op performs b.N iterations,
// each of units units: score terms, operations) and returns the CPU time
// (user + sys of this process, every thread) and the wall time per unit,
// and the allocations per unit. The setup belongs outside op:
// testing.Benchmark calls op several times while it sizes b.N.
func PerUnit(s Size, units float64, op func(b *testing.B)) Measurement {
	return perUnitFor(s.benchTime(), units, op)
}

func perUnitFor(d time.Duration, units float64, op func(b *testing.B)) Measurement {
	// The CPU time of op's last call, the one whose b.N the result
	// reports (testing.Benchmark calls op with growing b.N).
	var cpu time.Duration
	r := benchmark(d, func(b *testing.B) {
		start := processCPU()
		op(b)
		cpu = processCPU() - start
	})
	if r.N == 0 {
		return Measurement{}
	}
	per := float64(r.N) * units
	wall := float64(r.T.Nanoseconds()) / per
	m := Measurement{
		Value:   wall,
		Wall:    wall,
		Allocs:  float64(r.MemAllocs) / per,
		Bytes:   float64(r.MemBytes) / per,
		Counted: true,
		Note:    plural.Of(r.N, "run"),
	}
	if cpu > 0 {
		m.Value = float64(cpu.Nanoseconds()) / per
	}
	return m
}

// benchmark is testing.Benchmark for d: outside `go test` the benchtime
// flag is only reachable through the flag set testing.Init registers.
func benchmark(d time.Duration, op func(b *testing.B)) testing.BenchmarkResult {
	benchMu.Lock()
	defer benchMu.Unlock()
	if flag.Lookup("test.benchtime") == nil {
		testing.Init()
	}
	if f := flag.Lookup("test.benchtime"); f != nil {
		old := f.Value.String()
		if err := f.Value.Set(d.String()); err == nil {
			defer f.Value.Set(old)
		}
	}
	return testing.Benchmark(op)
}

// Timed runs run once and returns its CPU time (user + sys of this
// process, every thread) as the figure, and its wall time, in seconds. A
// garbage collection first keeps the previous case's garbage out of the
// figure.
func Timed(run func() error) (Measurement, error) {
	runtime.GC()
	cpu, start := processCPU(), time.Now()
	err := run()
	wall := time.Since(start).Seconds()
	m := Measurement{Value: wall, Wall: wall}
	if c := processCPU() - cpu; c > 0 {
		m.Value = c.Seconds()
	}
	return m, err
}

// TimedMedian runs run k times, each as Timed does, and returns the
// median CPU time and the median wall time, in seconds. A run of tens of
// milliseconds moves by a third from one run to the next (the first one
// grows the heap, the collector takes an idle core when it finds one);
// the median of a few is the run's steady cost. Where the system gives
// no CPU time for a run, the figure is the median wall time, never a mix
// of the two.
func TimedMedian(k int, run func() error) (Measurement, error) {
	cpu, wall := make([]float64, k), make([]float64, k)
	for i := range k {
		runtime.GC()
		c, start := processCPU(), time.Now()
		err := run()
		wall[i] = time.Since(start).Seconds()
		cpu[i] = (processCPU() - c).Seconds()
		if err != nil {
			return Measurement{}, err
		}
	}
	m := Measurement{Value: median(wall), Wall: median(wall)}
	if !slices.ContainsFunc(cpu, func(c float64) bool { return c <= 0 }) {
		m.Value = median(cpu)
	}
	return m, nil
}

// median is the middle of xs once sorted (of the two middle ones, the
// upper); it sorts a copy.
func median(xs []float64) float64 {
	s := slices.Sorted(slices.Values(xs))
	return s[len(s)/2]
}

// Wall times run once by the wall clock, in seconds: for speed-ups, which
// are ratios of elapsed times. A garbage collection first keeps the
// previous case's garbage out of the figure.
func Wall(run func() error) (float64, error) {
	runtime.GC()
	start := time.Now()
	err := run()
	return time.Since(start).Seconds(), err
}

// SpeedUp runs the same work on 1 core (GOMAXPROCS 1, one worker) and
// on 2 (GOMAXPROCS 2, two workers), twice each in the order 1, 2, 2, 1
// so that warming up favours neither, and returns the speed-up t1/t2 of
// the faster runs, in unit "×". GOMAXPROCS bounds the garbage collector
// too, so that "1 core" is not one worker helped by a second core's
// collector.
func SpeedUp(run func(workers int) error) (Measurement, error) {
	prev := runtime.GOMAXPROCS(0)
	defer runtime.GOMAXPROCS(prev)
	t := [3]float64{0, math.Inf(1), math.Inf(1)} // by cores
	for _, cores := range []int{1, 2, 2, 1} {
		runtime.GOMAXPROCS(cores)
		s, err := Wall(func() error { return run(cores) })
		if err != nil {
			return Measurement{}, err
		}
		t[cores] = min(t[cores], s)
	}
	note := fmt.Sprintf("1 core %s, 2 cores %s (the faster of two runs each)", seconds(t[1]), seconds(t[2]))
	if runtime.NumCPU() < 2 {
		note += " (this machine has 1 CPU)"
	}
	return Measurement{Value: t[1] / t[2], Note: note}, nil
}

func seconds(s float64) string {
	if s < 1 {
		return fmt.Sprintf("%.0f ms", s*1000)
	}
	return fmt.Sprintf("%.2f s", s)
}

// allocTolerance is the most allocations per unit that still counts as
// "no allocation per score term / per operation": one allocation in the
// inner loop costs at least one per unit, while the allocations of each
// position and pass spread over the n score terms of a query.
const allocTolerance = 0.1

// AtMost is met when the figure is at most v.
func AtMost(v float64, unit string) Target {
	return Target{Text: fmt.Sprintf("≤ %s %s", trim(v), unit), Met: func(r *Result) bool { return r.Figure <= v }}
}

// AtLeast is met when the figure is at least v (throughputs, speed-ups).
func AtLeast(v float64, unit string) Target {
	return Target{Text: fmt.Sprintf("≥ %s %s", trim(v), unit), Met: func(r *Result) bool { return r.Figure >= v }}
}

// RatioAtMost is met when figure/baseline is at most x.
func RatioAtMost(x float64) Target {
	return Target{Text: fmt.Sprintf("≤ %s× bare", trim(x)), Met: func(r *Result) bool { return r.Ratio != nil && *r.Ratio <= x }}
}

// NoAllocs is met when the allocations per unit stay below
// allocTolerance.
func NoAllocs() Target {
	return Target{Text: "no alloc", Met: func(r *Result) bool { return r.Allocs != nil && *r.Allocs < allocTolerance }}
}

// NoAllocsBeyondBare is met when the allocations per unit exceed the
// bare baseline's by less than allocTolerance: the engine adds none of
// its own where the library operation itself allocates (math/big's
// Float.Quo allocates on every call).
func NoAllocsBeyondBare() Target {
	return Target{Text: "no alloc beyond bare", Met: func(r *Result) bool {
		return r.Allocs != nil && r.BaselineAllocs != nil && *r.Allocs < *r.BaselineAllocs+allocTolerance
	}}
}

// PeakBelow is met when the peak RSS is below bytes, or unknown.
func PeakBelow(bytes uint64, text string) Target {
	return Target{Text: "RSS < " + text, Met: func(r *Result) bool { return r.PeakRSS == 0 || r.PeakRSS < bytes }}
}

// Report is no target: the figure is only reported.
func Report() Target { return Target{Text: "report"} }

// All is met when every target is.
func All(ts ...Target) Target {
	var text string
	for k, t := range ts {
		if k > 0 {
			text += ", "
		}
		text += t.Text
	}
	return Target{Text: text, Met: func(r *Result) bool {
		for _, t := range ts {
			if t.Met != nil && !t.Met(r) {
				return false
			}
		}
		return true
	}}
}

func trim(v float64) string { return fmt.Sprintf("%g", v) }
