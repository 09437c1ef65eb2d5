package prooftest

import (
	"os"
	"runtime/debug"
	"slices"
	"sync"
	"testing"

	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/numeric"
	"github.com/transformer-cookbook/verify/proofs"
	"github.com/transformer-cookbook/verify/recipes/stream"
)

// Checked keeps every claim's result once its checker has run in this
// test binary, so that the tests that need a claim's verdict share one
// run of each checker: with VERIFY_LONG=1, TestLongVerdicts runs only
// the claims the default tier's tests have not. A test that runs a
// checker under changed conditions (TestLostRegionProvesNothing) calls
// CheckAll itself and keeps its results out of here.
var Checked = &Cache{done: map[*proofs.Claim]proofs.Result{}}

// Cache keeps the results of the checkers run in a test binary.
type Cache struct {
	mu   sync.Mutex
	done map[*proofs.Claim]proofs.Result
}

// Results returns the results of claims in their order, running the
// checkers not run yet together, on every core (CheckAll).
func (cc *Cache) Results(claims []*proofs.Claim) []proofs.Result {
	cc.mu.Lock()
	defer cc.mu.Unlock()
	var missing []*proofs.Claim
	for _, c := range claims {
		if _, ok := cc.done[c]; !ok && !slices.Contains(missing, c) {
			missing = append(missing, c)
		}
	}
	for _, r := range proofs.CheckAll(missing) {
		cc.done[r.Claim] = r
	}
	out := make([]proofs.Result, len(claims))
	for k, c := range claims {
		out[k] = cc.done[c]
	}
	return out
}

// Store records r, for a test that ran the checker itself.
func (cc *Cache) Store(r proofs.Result) {
	cc.mu.Lock()
	defer cc.mu.Unlock()
	cc.done[r.Claim] = r
}

// Evidence is the evidence of the registered claim id (its checker run
// through Run, at most once in this binary), failing t when the checker
// cannot run. The evidence is shared: read it, never change it.
func (cc *Cache) Evidence(t *testing.T, id string) *proofs.Evidence {
	t.Helper()
	c, err := proofs.Get(id)
	if err != nil {
		t.Fatal(err)
	}
	r := cc.Results([]*proofs.Claim{c})[0]
	if r.Err != nil {
		t.Fatal(r.Err)
	}
	return r.Evidence
}

// VerdictsAsRecorded fails t for each result that is an error, differs
// from its recorded verdict or has no evidence.
func VerdictsAsRecorded(t *testing.T, results []proofs.Result) {
	t.Helper()
	for _, r := range results {
		if r.Err != nil {
			t.Errorf("%s: %v", r.Claim.ID, r.Err)
			continue
		}
		if r.Changed() {
			t.Errorf("%s: verdict %s, recorded %s: %s", r.Claim.ID, r.Verdict(), r.Claim.Recorded, r.Summary())
		}
		if r.Evidence.Summary == "" {
			t.Errorf("%s: no evidence", r.Claim.ID)
		}
	}
}

// Expect fails t unless the checker returned evidence with verdict
// want.
func Expect(t *testing.T, what string, ev *proofs.Evidence, err error, want proofs.Verdict) {
	t.Helper()
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	if ev.Verdict != want {
		t.Errorf("%s: verdict %s, want %s: %s", what, ev.Verdict, want, ev.Summary)
		return
	}
	t.Logf("%s: %s: %s", what, ev.Verdict, ev.Summary)
}

// Perturb returns a copy of f with entry (i, j) of W2 increased by 1/1000.
func Perturb(f *stream.FF, i, j int) *stream.FF {
	g := *f
	g.W2 = model.Zeros(f.W2.Rows, f.W2.Cols)
	copy(g.W2.Data, f.W2.Data)
	g.W2.Set(i, j, numeric.Add(f.W2.At(i, j), numeric.Frac(1, 1000)))
	return &g
}

// Main runs a package's tests at the collector's target 'verify claims'
// runs the checkers at (proofs.GCPercent), unless GOGC is given.
func Main(m *testing.M) {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(proofs.GCPercent)
	}
	os.Exit(m.Run())
}
