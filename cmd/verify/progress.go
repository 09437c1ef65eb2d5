package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"sync/atomic"
)

// interrupt turns Ctrl-C into a request that a sweep checks between
// lengths, so that it stops cleanly: the lengths checked are reported and
// no output file is written. A second Ctrl-C is not caught and ends the
// process at once.
type interrupt struct {
	stop atomic.Bool
	sig  chan os.Signal
	// ctx is cancelled by the Ctrl-C, for work that takes a context.
	ctx    context.Context
	cancel context.CancelFunc
}

func interruptible() *interrupt {
	in := &interrupt{sig: make(chan os.Signal, 1)}
	in.ctx, in.cancel = context.WithCancel(context.Background())
	signal.Notify(in.sig, os.Interrupt)
	go func() {
		if _, ok := <-in.sig; ok {
			in.stop.Store(true)
			in.cancel()
			signal.Reset(os.Interrupt)
		}
	}()
	return in
}

func (in *interrupt) requested() bool { return in.stop.Load() }

func (in *interrupt) release() {
	signal.Stop(in.sig)
	close(in.sig)
	in.cancel()
}

// progress draws a one-line progress bar on a terminal; it is silent
// when its writer is not a terminal (a file, a pipe, CI's log) or when
// told to be quiet.
type progress struct {
	w     io.Writer
	on    bool
	width int
}

func newProgress(w io.Writer, quiet bool) *progress {
	p := &progress{w: w, width: 30}
	if f, ok := w.(*os.File); ok && !quiet {
		if fi, err := f.Stat(); err == nil && fi.Mode()&os.ModeCharDevice != 0 {
			p.on = true
		}
	}
	return p
}

func (p *progress) show(label string, done, total int) {
	if !p.on || total <= 0 {
		return
	}
	filled := min(p.width, p.width*done/total)
	fmt.Fprintf(p.w, "\r\033[K[%s%s] %d/%d lengths  %s", strings.Repeat("=", filled), strings.Repeat(" ", p.width-filled), done, total, label)
}

func (p *progress) clear() {
	if p.on {
		fmt.Fprint(p.w, "\r\033[K")
	}
}
