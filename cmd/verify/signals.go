package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync/atomic"
	"syscall"

	"github.com/transformer-cookbook/verify/internal/atomicfile"
)

// endSignals end the process (but the first Ctrl-C during a sweep, which
// stops it cleanly): the temporary files being written are removed
// first, and the exit status is 128 + the signal's number, as a shell
// reports a process ended by it.
var endSignals = []os.Signal{os.Interrupt, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT}

// sweeping is the interrupt of the sweep running, if any, which the
// first Ctrl-C stops cleanly instead of ending the process.
var sweeping atomic.Pointer[interrupt]

// handleSignals is called once, by main.
func handleSignals(stderr io.Writer) {
	c := make(chan os.Signal, 1)
	signal.Notify(c, endSignals...)
	go func() {
		// Only the process's first Ctrl-C stops a sweep cleanly: any
		// later one ends the process, whatever sweep is running by then.
		first := true
		for s := range c {
			if in := sweeping.Load(); s == os.Interrupt && first && in != nil && in.stop.CompareAndSwap(false, true) {
				first = false
				in.cancel()
				continue
			}
			atomicfile.RemoveTemporary()
			sig, _ := s.(syscall.Signal)
			fmt.Fprintf(stderr, "verify: interrupted by %s: stopped, leaving no partly written file\n", signalName(sig))
			os.Exit(128 + int(sig))
		}
	}()
}

func signalName(s syscall.Signal) string {
	switch s {
	case syscall.SIGINT:
		return "SIGINT (Ctrl-C)"
	case syscall.SIGTERM:
		return "SIGTERM"
	case syscall.SIGHUP:
		return "SIGHUP"
	case syscall.SIGQUIT:
		return "SIGQUIT"
	}
	return s.String()
}

// interrupt turns the first Ctrl-C during a sweep into a request that the
// sweep checks between lengths, so that it stops cleanly: the lengths
// checked are reported and no output file is written. A second Ctrl-C
// ends the process at once (handleSignals).
type interrupt struct {
	stop atomic.Bool
	// ctx is cancelled by the Ctrl-C, for work that takes a context.
	ctx    context.Context
	cancel context.CancelFunc
}

// interruptible makes the first Ctrl-C stop the sweep that follows
// cleanly, until release.
func interruptible() *interrupt {
	in := &interrupt{}
	in.ctx, in.cancel = context.WithCancel(context.Background())
	sweeping.Store(in)
	return in
}

func (in *interrupt) requested() bool { return in.stop.Load() }

func (in *interrupt) release() {
	sweeping.CompareAndSwap(in, nil)
	in.cancel()
}

// noteStale says, on stderr, which temporary files of path a killed run
// left behind (SIGKILL cannot be caught), so that the user can remove
// them; they are not removed here, in case they are wanted.
func noteStale(stderr io.Writer, path string) {
	for _, f := range atomicfile.Stale(path) {
		fmt.Fprintf(stderr, "verify: note: %s is a temporary file left by a run that was killed while writing %s; remove it\n", f, path)
	}
}
