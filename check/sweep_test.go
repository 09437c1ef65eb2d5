package check

import (
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/numeric"
	"github.com/transformer-cookbook/verify/recipes"
)

// TestSweepAheadIsSequential: running lengths ahead (sweep.go) must not
// change a report. The lookup in fp16 fails at n = 51 (scores above 2048
// tie: see docs/frontier.md), so the sweep has a first failure to stop at and,
// with AllLengths, failures after it; the reference is the same check
// with one worker, where a single slot runs one input at a time in
// increasing length, as the sequential sweep did.
func TestSweepAheadIsSequential(t *testing.T) {
	r, err := recipes.Get("lookup")
	if err != nil {
		t.Fatal(err)
	}
	for _, all := range []bool{false, true} {
		opts := Options{Precision: numeric.MustParsePrecision("fp16"), Weighting: model.AverageHardmax,
			MaxN: 80, Cases: 3, Exhaustive: 64, Seed: 7, AllLengths: all}
		var reports []*Report
		for _, workers := range []int{1, 2, 5} {
			opts.Workers = workers
			var calls []int
			opts.Progress = func(_ *Report, lr LengthReport) { calls = append(calls, lr.N) }
			rep, err := Run(r, opts)
			if err != nil {
				t.Fatal(err)
			}
			var want []int
			for _, lr := range rep.Lengths {
				want = append(want, lr.N)
			}
			if diff := cmp.Diff(want, calls); diff != "" {
				t.Errorf("workers %d: progress calls out of order (-lengths +calls):\n%s", workers, diff)
			}
			reports = append(reports, rep)
		}
		if reports[0].Passed || reports[0].FirstFailure.N != 51 {
			t.Fatalf("all lengths %v: want the first failure at n = 51, got passed %v limit %d", all, reports[0].Passed, reports[0].Limit)
		}
		if last := reports[0].Lengths[len(reports[0].Lengths)-1].N; all != (last > 51) {
			t.Errorf("all lengths %v: the sweep ended at n = %d", all, last)
		}
		for k, rep := range reports[1:] {
			if diff := cmp.Diff(reports[0], rep); diff != "" {
				t.Errorf("all lengths %v: workers %d differ from 1 worker (-1 +%d):\n%s", all, []int{2, 5}[k], []int{2, 5}[k], diff)
			}
		}
	}
}

// TestSweepStop: Stop is asked before each length starts; when it says
// stop, the report holds exactly the lengths started before, and says it
// was interrupted.
func TestSweepStop(t *testing.T) {
	r, err := recipes.Get("lookup")
	if err != nil {
		t.Fatal(err)
	}
	for _, workers := range []int{1, 3} {
		// Stop after the fourth length is reported: the sweep asks Stop
		// before each length and, while it waits for one, every 50 ms.
		var reported atomic.Int32
		opts := Options{Precision: numeric.MustParsePrecision("exact"), Weighting: model.AverageHardmax,
			MaxN: 30, Cases: 2, Exhaustive: 8, Seed: 1, Workers: workers,
			Stop:     func() bool { return reported.Load() >= 4 },
			Progress: func(*Report, LengthReport) { reported.Add(1) }}
		rep, err := Run(r, opts)
		if err != nil {
			t.Fatal(err)
		}
		var got []int
		for _, lr := range rep.Lengths {
			got = append(got, lr.N)
		}
		if !rep.Interrupted || !cmp.Equal(got, []int{1, 2, 3, 4}) {
			t.Errorf("workers %d: interrupted %v after lengths %v; want true after 1, 2, 3, 4", workers, rep.Interrupted, got)
		}
	}
}

// TestSweepQuitHandsOutNothing: once a sweep has quit, a length running
// ahead runs no more inputs (from scratch, or depth first) and its empty
// report is not read.
func TestSweepQuitHandsOutNothing(t *testing.T) {
	for _, name := range []string{"lookup", "dyck1"} {
		r, err := recipes.Get(name)
		if err != nil {
			t.Fatal(err)
		}
		ck, err := NewChecker(r, Options{Precision: numeric.MustParsePrecision("exact"), Weighting: model.AverageHardmax,
			MaxN: 10, Cases: 4, Exhaustive: 1 << 12, Seed: 1, Workers: 2})
		if err != nil {
			t.Fatal(err)
		}
		sh := &shared{slots: make(chan struct{}, 2)}
		if lr := ck.length(10, sh); lr.Cases == 0 {
			t.Fatalf("%s: a running sweep checked no input of length 10", name)
		}
		sh.quit.Store(true)
		if lr := ck.length(10, sh); lr.Cases != 0 || lr.Passed != 0 {
			t.Errorf("%s: after quitting, length 10 still checked %d inputs", name, lr.Cases)
		}
	}
}

// TestSweepStopsWithinALength: a stop asked while a length runs ends the
// sweep then, not when the length is done (at 53 bits the lookup's
// length 1500 takes about half a second on one core, and one at n =
// 30000 minutes): the report holds the lengths before it. Before, the
// sweep waited for the length, and reported it.
func TestSweepStopsWithinALength(t *testing.T) {
	r, err := recipes.Get("lookup")
	if err != nil {
		t.Fatal(err)
	}
	var asked atomic.Int32
	opts := Options{Precision: numeric.MustParsePrecision("53"), Weighting: model.AverageHardmax,
		MaxN: 1500, Lengths: []int{1500}, Cases: 2, Seed: 1, Workers: 1,
		// No to the ask before the length, yes to the next (a poll).
		Stop: func() bool { return asked.Add(1) > 1 }}
	rep, err := Run(r, opts)
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Interrupted || len(rep.Lengths) != 0 {
		t.Errorf("interrupted %v with %d lengths; want interrupted before length 1500 was done", rep.Interrupted, len(rep.Lengths))
	}
}
