package gcfloor

import (
	"context"
	"os"
	"os/exec"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"strings"
	"testing"
	"time"
)

// TestPercent: the GOGC whose goal is the floor, from the runtime's goal
// max(live·(1 + GOGC/100), 4 MiB·GOGC/100), worked by hand for a floor of
// 64 MiB: before anything is live, 4 MiB·16 = 64 MiB; with 1 MiB live the
// minimum still rules (1600, not 6300); with 8 MiB, 8·(1 + 7) = 64; from
// 32 MiB on twice what is live passes the floor and GOGC rules.
func TestPercent(t *testing.T) {
	const mib = 1 << 20
	for _, tc := range []struct {
		floor      uint64
		gogc       int
		live, want uint64
	}{
		{64 * mib, 100, 0, 1600},
		{64 * mib, 100, 1 * mib, 1600},
		{64 * mib, 100, 8 * mib, 700},
		{64 * mib, 100, 16 * mib, 300},
		{64 * mib, 100, 32 * mib, 100},
		{64 * mib, 100, 40 * mib, 100},
		{64 * mib, 100, 64 * mib, 100},
		{64 * mib, 100, 1 << 40, 100},
		{64 * mib, 400, 8 * mib, 700},
		{64 * mib, 400, 16 * mib, 400},
		// The command line's 8 MiB: twice the runtime's minimum at first,
		// 8 = 3·(1 + 5/3) with 3 MiB live, GOGC from 4 MiB on.
		{8 * mib, 100, 0, 200},
		{8 * mib, 100, 1 * mib, 200},
		{8 * mib, 100, 3 * mib, 166},
		{8 * mib, 100, 4 * mib, 100},
		{0, 100, 0, 100},
		{0, 400, 8 * mib, 400},
	} {
		if got := Percent(tc.floor, tc.gogc, tc.live); got != int(tc.want) {
			t.Errorf("Percent(%d MiB, %d, %d MiB) = %d, want %d", tc.floor/mib, tc.gogc, tc.live/mib, got, tc.want)
		}
	}
}

// child is the environment variable that makes TestCollections run its
// measurement in this process (a child with a fresh runtime).
const child = "GCFLOOR_TEST_CHILD"

// testFloor is the floor the tests set: larger than Bytes, so that what
// it holds off is far from Go's own goal.
const testFloor = 64 << 20

// TestCollections: in a fresh process without GOGC, a 64 MiB floor lets
// 40 MiB of garbage go by without a collection while 2 MiB stay live,
// where Go alone collects every few MiB; restored, Go collects again;
// with 48 MiB live (twice that is above the floor) the goal is Go's
// own, twice what is live, not the floor's. (The goal is read after a
// collection, not while garbage is made: on a loaded machine what is
// allocated during a slow mark counts as live.)
func TestCollections(t *testing.T) {
	if os.Getenv(child) == "" {
		runChild(t, "TestCollections", "")
		return
	}
	const mib = 1 << 20
	live := make([][]byte, 0, 64)
	hold := func(n int) {
		for range n {
			live = append(live, make([]byte, mib))
		}
	}
	var sink []byte
	garbage := func(n int) uint32 {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		for range n * 16 {
			sink = make([]byte, 64<<10)
		}
		runtime.ReadMemStats(&after)
		return after.NumGC - before.NumGC
	}
	hold(2)
	runtime.GC()
	restore := Set(testFloor, 100)
	runtime.GC() // the finalizer tunes the goal from what is live
	runtime.Gosched()
	if n := garbage(40); n != 0 {
		t.Errorf("with the floor: %d collections in 40 MiB of garbage, want 0", n)
	}
	restore()
	runtime.GC()
	runtime.Gosched()
	// Go's goal is a few MiB here; how many cycles 40 MiB takes depends
	// on how fast marking keeps up on the machine, but one at least.
	if n := garbage(40); n == 0 {
		t.Errorf("restored: no collection in 40 MiB of garbage, want Go's, one every few MiB")
	}
	Set(testFloor, 100)
	hold(46)
	// The finalizer runs after a collection, when its goroutine is
	// scheduled, and a run pending from a collection during hold may
	// come first: after two collections, each waited for, the last run
	// read the live heap of the second.
	for range 2 {
		before := tuned.Load()
		runtime.GC()
		for deadline := time.Now().Add(time.Minute); tuned.Load() == before; runtime.Gosched() {
			if time.Now().After(deadline) {
				t.Fatal("no finalizer ran within a minute of a collection: the floor is no longer tuned")
			}
		}
	}
	goal := []metrics.Sample{{Name: "/gc/heap/goal:bytes"}}
	metrics.Read(goal)
	// Twice what is live, and the runtime's own (stacks, globals, this
	// binary's heap): about 106 MiB; the floor's percentage at the
	// previous cycle's live heap would give several hundred.
	if g := goal[0].Value.Uint64(); g > 3*48*mib {
		t.Errorf("48 MiB live: the goal is %d MiB, want about twice what is live (96 MiB)", g/mib)
	}
	runtime.KeepAlive(live)
	runtime.KeepAlive(sink)
}

// TestGOGCStands: with GOGC set in the environment, Set does nothing:
// GOGC keeps the user's value, no finalizer is armed, and the heap is
// collected at GOGC's pace (a 64 MiB floor would hold off 40 MiB of
// garbage).
func TestGOGCStands(t *testing.T) {
	if os.Getenv(child) == "" {
		runChild(t, "TestGOGCStands", "150")
		return
	}
	restore := Set(testFloor, 100)
	restore()
	if got := debug.SetGCPercent(150); got != 150 {
		t.Errorf("GOGC = %d after Set, want the environment's 150", got)
	}
	mu.Lock()
	a := armed
	mu.Unlock()
	if a {
		t.Error("Set armed its finalizer although GOGC is set")
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	var sink []byte
	for range 40 * 16 {
		sink = make([]byte, 64<<10)
	}
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(sink)
	if after.NumGC == before.NumGC {
		t.Error("no collection in 40 MiB of garbage at GOGC = 150")
	}
}

// runChild runs test in a fresh process of this test binary, with GOGC
// set to gogc ("" removes it), and fails on its failure; the child is
// killed if it runs for more than two minutes.
func runChild(t *testing.T, test, gogc string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run", "^"+test+"$", "-test.v")
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "GOGC=") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, child+"=1")
	if gogc != "" {
		cmd.Env = append(cmd.Env, "GOGC="+gogc)
	}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	t.Logf("child:\n%s", out)
}
