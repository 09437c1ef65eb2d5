package proofs_test

import (
	"flag"
	"os"
	"runtime"
	"testing"
	"time"

	"github.com/transformer-cookbook/verify/internal/testenv"
	"github.com/transformer-cookbook/verify/proofs"
	_ "github.com/transformer-cookbook/verify/proofs/all"
	"github.com/transformer-cookbook/verify/proofs/internal/prooftest"
)

var writeCosts = flag.Bool("write-costs", false, "TestClaimCosts measures every claim's checker, one at a time, and rewrites costs.txt")

// TestClaimCosts: costs.txt parses and names exactly the registered
// claims, so that no claim is scheduled on a guess and no entry outlives
// its claim. Whether the costs are still right is not timed here (CPU
// time moves with the machine); with -write-costs the test measures
// them and rewrites the file, to be reviewed as a diff.
func TestClaimCosts(t *testing.T) {
	if *writeCosts {
		measureCosts(t)
		return
	}
	ms, err := proofs.ParseCosts(proofs.CostsText)
	if err != nil {
		t.Fatal(err)
	}
	const fix = "run go test ./proofs/ -run '^TestClaimCosts$' -write-costs"
	for _, c := range proofs.All() {
		if _, ok := ms[c.ID]; !ok {
			t.Errorf("costs.txt has no cost for %s: %s", c.ID, fix)
		}
	}
	for id := range ms {
		if _, ok := proofs.Registry[id]; !ok {
			t.Errorf("costs.txt names %s, which is not a registered claim: %s", id, fix)
		}
	}
	if proofs.CostsText != proofs.FormatCosts(ms) {
		t.Errorf("costs.txt is not as -write-costs writes it: %s", fix)
	}
}

// measureCosts runs every claim's checker alone, the garbage it leaves
// collected before the clock stops, and writes the CPU milliseconds each
// took to costs.txt. The results go to the tests' shared cache, so that
// the tests after it do not run the checkers again.
func measureCosts(t *testing.T) {
	if _, ok := testenv.ProcessCPU(); !ok {
		t.Skip("no CPU time on this system: measure the costs on a unix system")
	}
	ms := map[string]int{}
	var total time.Duration
	for _, c := range proofs.All() {
		runtime.GC()
		start, _ := testenv.ProcessCPU()
		ev, err := proofs.Run(c)
		runtime.GC()
		end, _ := testenv.ProcessCPU()
		if err != nil {
			t.Fatal(err)
		}
		prooftest.Checked.Store(proofs.Result{Claim: c, Evidence: ev})
		ms[c.ID] = proofs.RoughMillis(end - start)
		total += end - start
	}
	// Written beside it and renamed over it, so that a failed write leaves
	// the old table whole (proofs may not import internal/atomicfile).
	tmp, err := os.CreateTemp(".", "costs-*.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.WriteString(proofs.FormatCosts(ms)); err != nil {
		tmp.Close()
		t.Fatal(err)
	}
	if err := tmp.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp.Name(), "costs.txt"); err != nil {
		t.Fatal(err)
	}
	t.Logf("%d claims, %.1f CPU-s in all: costs.txt written", len(ms), total.Seconds())
}
