package main

import (
	"fmt"
	"io"
	"os"
	"strings"
)

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
