package check

import (
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// lengthSweep runs Run's lengths ahead of the one being reported: a
// sweep's longest lengths hold few inputs each (one or two at the top of
// the lookup's), so running only a length's cases in parallel leaves
// cores idle where most of the time goes. The lengths' inputs (and
// depth-first items) share one pool of slots, as many as the workers, so
// no more run at once than in a length-by-length sweep (the memory
// estimate holds). The reports are taken in increasing length, and Stop
// is asked before each is taken, so the report, the progress calls, the
// interruption and the stop at the first failure are those of a
// sequential sweep; closing the sweep stops handing out the inputs of
// the lengths started ahead, whose reports are dropped.
type lengthSweep struct {
	ck      *Checker
	lengths []int
	results []chan LengthPart
	shared  *shared
	taken   int
	// over is the shortest length taken whose analysis ran out of its
	// budget: a length started ahead of it may have run its analysis,
	// which a sequential sweep skips (ComposeLength).
	over    int
	done    chan struct{} // closed when the launcher has returned
	running sync.WaitGroup
	stopped bool // by Stop, while next waited for a length
}

// shared is what the lengths running at once share: slots, one per
// worker, that an input or a depth-first item holds while it runs, and
// quit, set when their reports are no longer wanted. A nil *shared is a
// length run on its own.
type shared struct {
	slots chan struct{}
	quit  atomic.Bool
}

// acquire takes a slot, or reports false when the sweep has quit.
func (s *shared) acquire() bool {
	if s == nil {
		return true
	}
	if s.quit.Load() {
		return false
	}
	s.slots <- struct{}{}
	return true
}

func (s *shared) release() {
	if s != nil {
		<-s.slots
	}
}

// quitting reports whether the sweep no longer wants the report.
func (s *shared) quitting() bool { return s != nil && s.quit.Load() }

// sweep starts checking lengths (in increasing order) ahead of next.
func (ck *Checker) sweep(lengths []int) *lengthSweep {
	workers := ck.opts.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	s := &lengthSweep{ck: ck, lengths: lengths, results: make([]chan LengthPart, len(lengths)),
		shared: &shared{slots: make(chan struct{}, workers)}, done: make(chan struct{})}
	for i := range s.results {
		s.results[i] = make(chan LengthPart, 1)
	}
	// At most workers lengths in flight: enough to keep the slots busy
	// while a length's last inputs finish, few enough that a failure
	// wastes little.
	inFlight := make(chan struct{}, workers)
	go func() {
		defer close(s.done)
		for i, n := range lengths {
			inFlight <- struct{}{}
			if s.shared.quitting() {
				return
			}
			s.running.Add(1)
			go func() {
				defer s.running.Done()
				p, _ := ck.part(n, 0, 1, s.shared)
				s.results[i] <- p
				<-inFlight
			}()
		}
	}()
	return s
}

// next returns the report of the next length, in increasing order, or
// interrupted when Stop asks to end the sweep before it.
//
// While it waits for a length, it asks Stop every 50 ms: a length at
// large n takes minutes, and a Ctrl-C must stop the sweep within a
// second or two.
func (s *lengthSweep) next() (LengthReport, bool) {
	stop := s.ck.opts.Stop
	if stop != nil && stop() {
		return LengthReport{}, true
	}
	var p LengthPart
	if stop == nil {
		p = <-s.results[s.taken]
	} else {
		tick := time.NewTicker(50 * time.Millisecond)
		defer tick.Stop()
	wait:
		for {
			select {
			case p = <-s.results[s.taken]:
				break wait
			case <-tick.C:
				if stop() {
					s.stopped = true
					return LengthReport{}, true
				}
			}
		}
	}
	s.taken++
	lr, over := ComposeLength([]LengthPart{p}, s.over)
	if over && s.over == 0 {
		s.over = p.N
	}
	return lr, false
}

// close starts no more lengths, stops handing out the inputs of those
// running, and waits for them, but for a sweep stopped while it waited
// for a length: its inputs in progress finish in the background, their
// reports dropped (each writes only its own length's channel and the
// checker's state, under the checker's lock).
func (s *lengthSweep) close() {
	s.shared.quit.Store(true)
	if s.stopped {
		return
	}
	<-s.done
	s.running.Wait()
}
