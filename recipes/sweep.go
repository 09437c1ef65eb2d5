package recipes

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// lengthSweep runs Check's lengths ahead of the one being reported: a
// sweep's longest lengths hold few inputs each (one or two at the top of
// the lookup's), so running only a length's cases in parallel leaves
// cores idle where most of the time goes. The lengths' cases share one
// pool of slots, as many as the workers, so no more inputs run at once
// than in a length-by-length sweep (the memory estimate holds). The
// reports are taken in increasing length, so the report, the progress
// calls and the stop at the first failure are those of a sequential
// sweep; a length started past a failure is discarded when the sweep is
// closed.
type lengthSweep struct {
	ck      *Checker
	lengths []int
	results []chan sweepResult
	quit    atomic.Bool
	taken   int
	done    chan struct{} // closed when the launcher has returned
	running sync.WaitGroup
}

type sweepResult struct {
	lr          LengthReport
	interrupted bool
}

// sweep starts checking lengths (in increasing order) ahead of next.
func (ck *Checker) sweep(lengths []int) *lengthSweep {
	workers := ck.opts.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	s := &lengthSweep{ck: ck, lengths: lengths, results: make([]chan sweepResult, len(lengths)), done: make(chan struct{})}
	for i := range s.results {
		s.results[i] = make(chan sweepResult, 1)
	}
	slots := make(chan struct{}, workers)
	// At most workers lengths in flight: enough to keep the slots busy
	// while a length's last inputs finish, few enough that a failure
	// wastes little.
	inFlight := make(chan struct{}, workers)
	go func() {
		defer close(s.done)
		for i, n := range lengths {
			inFlight <- struct{}{}
			if s.quit.Load() {
				return
			}
			// Asked here, before a length starts, as a sequential sweep
			// asks before each length.
			if stop := ck.opts.Stop; stop != nil && stop() {
				s.results[i] <- sweepResult{interrupted: true}
				return
			}
			s.running.Add(1)
			go func() {
				defer s.running.Done()
				s.results[i] <- sweepResult{lr: ck.length(n, 0, 1, slots)}
				<-inFlight
			}()
		}
	}()
	return s
}

// next returns the report of the next length, in increasing order, or
// interrupted when Stop asked to end the sweep before it.
func (s *lengthSweep) next() (LengthReport, bool) {
	r := <-s.results[s.taken]
	s.taken++
	return r.lr, r.interrupted
}

// close starts no more lengths and waits for those running.
func (s *lengthSweep) close() {
	s.quit.Store(true)
	<-s.done
	s.running.Wait()
}
