// Package gcfloor keeps the garbage collector from collecting a heap
// smaller than a floor, and leaves it to a GOGC percentage above.
//
// Go collects when the heap has grown by GOGC percent (100) over what was
// live after the last collection, and not below 4 MiB. A check that
// builds a model of a few megabytes (the lookup built for N = 8192 has
// 16,384 symbols) and runs it for tens of milliseconds spent a quarter
// of its time in the collector, marking a model that stays live to the
// end. Under the floor the process does not collect; above it, it
// collects as GOGC says, so the peak memory of a large check is what it
// was.
//
// The floor is small because a larger one costs more than it saves: the
// heap grows to it, and every page of it is faulted in once (about 5 µs
// a page on the 2-core machine measured). At 64 MiB the exact sweep of
// the lookup took 0.17 CPU-s against 0.10 at Go's default; at 8 MiB,
// 0.08, and no command measured took more than at the default beyond
// the noise between runs (the main job 0.21 against 0.22 CPU-s, the
// lookup at 24 bits, n = 512, 0.032 against 0.039; exact at n = 2048
// 0.152 against 0.150).
//
// The command line sets the floor (Bytes) for every command, and nothing
// when GOGC is set in the environment: the user's setting stands. Once
// set, a floor stays in force through a finalizer that runs after each
// collection, for the life of the process; setting a floor of 0 leaves
// Set's percentage alone in charge, and a debug.SetGCPercent made
// elsewhere lasts only until the next collection.
package gcfloor

import (
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
	"sync/atomic"
)

// Bytes is the floor the command line sets: the heap may grow to it
// before a collection.
const Bytes = 8 << 20

// heapMinimum is the Go runtime's smallest goal at GOGC = 100, which it
// scales by GOGC/100.
const heapMinimum = 4 << 20

var (
	// tuned counts the finalizer's runs, for the tests.
	tuned atomic.Uint64

	mu      sync.Mutex
	floor   uint64
	percent int
	armed   bool
)

// Set makes the heap grow to floorBytes before a collection, and above
// that by gogc percent over what is live, and returns the function that
// restores the previous setting. It does nothing when GOGC is set in the
// environment.
func Set(floorBytes uint64, gogc int) (restore func()) {
	if os.Getenv("GOGC") != "" {
		return func() {}
	}
	mu.Lock()
	if !armed {
		// No floor yet: what is restored is the percentage alone.
		percent = debug.SetGCPercent(100)
		debug.SetGCPercent(percent)
	}
	prevFloor, prevPercent := floor, percent
	floor, percent = floorBytes, gogc
	first := !armed
	armed = true
	mu.Unlock()
	tune()
	if first {
		arm()
	}
	return func() {
		mu.Lock()
		floor, percent = prevFloor, prevPercent
		mu.Unlock()
		tune()
	}
}

// sentinel is collected once per collection cycle: its finalizer tunes
// the next goal and makes the next sentinel. It holds more than 16 bytes
// so that the tiny allocator does not place it beside other objects.
type sentinel struct{ _ [32]byte }

func arm() {
	runtime.SetFinalizer(new(sentinel), func(*sentinel) {
		tune()
		tuned.Add(1)
		arm()
	})
}

// tune sets GOGC for the next cycle from the heap live now. It holds mu
// until GOGC is set, so that a Set and the finalizer's tune cannot leave
// the older setting in force.
func tune() {
	mu.Lock()
	defer mu.Unlock()
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(sample)
	var live uint64
	if sample[0].Value.Kind() == metrics.KindUint64 {
		live = sample[0].Value.Uint64()
	}
	debug.SetGCPercent(Percent(floor, percent, live))
}

// Percent is the GOGC whose next goal is floor bytes, or gogc where
// that gives more, with live bytes live. The runtime's goal is the
// larger of live·(1 + GOGC/100) and heapMinimum·GOGC/100 (which alone
// counts before the first collection, when nothing is known live), so
// the percentage is the largest that takes neither above the floor.
func Percent(floor uint64, gogc int, live uint64) int {
	p := 100 * floor / heapMinimum
	if live > 0 {
		if live >= floor {
			return gogc
		}
		p = min(p, 100*(floor-live)/live)
	}
	return max(gogc, int(min(p, 1<<30)))
}
