package proofs

import (
	"fmt"
	"io"
	"runtime"
	"strings"
	"sync"

	"github.com/transformer-cookbook/verify/internal/plural"
)

// Result is a claim with what its checker found (Err when it could not
// run).
type Result struct {
	Claim    *Claim
	Evidence *Evidence
	Err      error
}

// Verdict is the verdict found, or "ERROR".
func (r Result) Verdict() string {
	if r.Err != nil {
		return "ERROR"
	}
	return string(r.Evidence.Verdict)
}

// Summary is the evidence in one line, or the error.
func (r Result) Summary() string {
	if r.Err != nil {
		return "the checker could not run: " + r.Err.Error()
	}
	return r.Evidence.Summary
}

// Changed reports whether the verdict differs from the recorded one.
func (r Result) Changed() bool { return r.Verdict() != string(r.Claim.Recorded) }

// GCPercent is the garbage collector's target (GOGC) the checkers run
// best at, which 'verify claims' and the tests set unless GOGC is given:
// the checkers keep a few MB live and allocate fast, so at Go's default
// of 100 the collector ran every few MB: the registry took 25.4 CPU-s on
// 2 cores, against 15.5 at 400, for a peak of 75 MB against 210.
const GCPercent = 400

// CheckAll runs the checkers of claims on every core, the costliest
// first (costs.txt), and returns the results in the claims' order.
func CheckAll(claims []*Claim) []Result {
	return CheckAllProgress(claims, nil)
}

// CheckAllProgress is CheckAll, calling progress (when not nil) after
// each claim with the number checked so far, from one goroutine at a
// time.
func CheckAllProgress(claims []*Claim, progress func(done int)) []Result {
	return checkAll(claims, runtime.GOMAXPROCS(0), progress)
}

// checkAll is CheckAllProgress on the given number of workers.
func checkAll(claims []*Claim, workers int, progress func(done int)) []Result {
	results := make([]Result, len(claims))
	var wg sync.WaitGroup
	var mu sync.Mutex
	done := 0
	next := make(chan int)
	for range max(1, min(workers, len(claims))) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range next {
				ev, err := Run(claims[k])
				results[k] = Result{Claim: claims[k], Evidence: ev, Err: err}
				if progress != nil {
					mu.Lock()
					done++
					progress(done)
					mu.Unlock()
				}
			}
		}()
	}
	for _, k := range costliestFirst(claims) {
		next <- k
	}
	close(next)
	wg.Wait()
	return results
}

// Tally counts the verdicts found: "219 claims: 173 PROVED, 11 HOLDS,
// 24 REFUTED, 11 OUT OF SCOPE", with the number of changed verdicts and
// errors when there are any.
func Tally(results []Result) string {
	count := map[string]int{}
	changed := 0
	for _, r := range results {
		count[r.Verdict()]++
		if r.Changed() {
			changed++
		}
	}
	parts := []string{}
	for _, v := range []string{string(Proved), string(Holds), string(Refuted), string(OutOfScope), "ERROR"} {
		if count[v] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", count[v], v))
		}
	}
	s := plural.Of(len(results), "claim") + ": " + strings.Join(parts, ", ")
	if changed > 0 {
		s += fmt.Sprintf("; %d %s from the recorded verdict", changed, plural.Form(changed, "differs", "differ"))
	}
	return s
}

// WriteMarkdown writes the table of verdicts that docs/claims.md carries
// (between its "claims" markers; a test keeps the two equal).
func WriteMarkdown(w io.Writer, results []Result) error {
	cell := func(s string) string { return strings.ReplaceAll(s, "|", "\\|") }
	if _, err := fmt.Fprintf(w, "%s.\n\n| claim | section | verdict | evidence |\n|---|---|---|---|\n", Tally(results)); err != nil {
		return err
	}
	for _, r := range results {
		// The anchor lets the errata table link to the row.
		if _, err := fmt.Fprintf(w, "| <a id=\"%s\"></a>`%s` | %s | %s | %s |\n", r.Claim.ID, r.Claim.ID, cell(r.Claim.Section), r.Verdict(), cell(r.Summary())); err != nil {
			return err
		}
	}
	return nil
}

// WriteErrata prints the refuted claims as the README's errata table:
// each claim linked to its row of docs/claims.md, what the paper says,
// and the counterexample the checker found.
func WriteErrata(w io.Writer, results []Result) error {
	cell := func(s string) string { return strings.ReplaceAll(s, "|", "\\|") }
	if _, err := fmt.Fprint(w, "| claim | section | the paper says | counterexample |\n|---|---|---|---|\n"); err != nil {
		return err
	}
	for _, r := range results {
		if r.Verdict() != string(Refuted) {
			continue
		}
		c := r.Claim
		if _, err := fmt.Fprintf(w, "| [`%s`](docs/claims.md#%s) | %s | %s | %s |\n", c.ID, c.ID, cell(c.Section), cell(c.Statement), cell(r.Summary())); err != nil {
			return err
		}
	}
	return nil
}
