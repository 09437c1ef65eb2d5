package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"
)

// progress draws the progress of a long command on stderr: a line
// redrawn in place on a terminal, or, with --progress, a line per update
// (at most one a second) where stderr is a file or a pipe. It is silent
// when stderr is not a terminal, unless --progress, and with --quiet.
type progress struct {
	w       io.Writer
	mode    progressMode
	width   int
	start   time.Time
	lastOut time.Time
	now     func() time.Time // the clock, replaced in tests
}

type progressMode int

const (
	progressOff   progressMode = iota
	progressBar                // redrawn in place
	progressLines              // a line per update
)

// newProgress reads --quiet and --progress from o (a command without
// them is silent off a terminal and drawn on one).
func newProgress(w io.Writer, o *commonOptions) *progress {
	p := &progress{w: w, width: 24, now: time.Now}
	p.start = p.now()
	switch {
	case o.quiet.on():
	case isTerminal(w):
		p.mode = progressBar
	case o.progress.on():
		p.mode = progressLines
	}
	return p
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// show reports done of total units (lengths, claims) with a label, and
// the fraction of the work done, which may differ from done/total when
// units cost unequally (a length n costs about n² score terms); the
// time left is estimated from that fraction.
func (p *progress) show(label string, done, total int, unit string, fraction float64) {
	if p.mode == progressOff || total <= 0 {
		return
	}
	now := p.now()
	if p.mode == progressLines && done > 1 && done < total && now.Sub(p.lastOut) < time.Second {
		return
	}
	if p.mode == progressBar && done < total && now.Sub(p.lastOut) < 100*time.Millisecond {
		return
	}
	p.lastOut = now
	fraction = min(max(fraction, 0), 1)
	elapsed := now.Sub(p.start)
	// An estimate from the first hundredth of the work, or the first
	// second, says more about start-up than about what is left.
	eta := "estimating the time left"
	if fraction >= 0.01 && elapsed >= time.Second {
		left := time.Duration(float64(elapsed) * (1 - fraction) / fraction)
		eta = "about " + clock(left) + " left"
	}
	text := fmt.Sprintf("%d/%d %s, %3.0f%%, %s elapsed, %s  %s", done, total, unit, 100*fraction, clock(elapsed), eta, label)
	if p.mode == progressLines {
		fmt.Fprintf(p.w, "progress: %s\n", text)
		return
	}
	filled := min(p.width, int(float64(p.width)*fraction))
	fmt.Fprintf(p.w, "\r\033[K[%s%s] %s", strings.Repeat("=", filled), strings.Repeat(" ", p.width-filled), text)
}

// clock writes d as m:ss, or h:mm:ss from an hour.
func clock(d time.Duration) string {
	s := int(d.Round(time.Second).Seconds())
	if s >= 3600 {
		return fmt.Sprintf("%d:%02d:%02d", s/3600, s/60%60, s%60)
	}
	return fmt.Sprintf("%d:%02d", s/60, s%60)
}

// clear removes the redrawn line before the report is printed.
func (p *progress) clear() {
	if p.mode == progressBar {
		fmt.Fprint(p.w, "\r\033[K")
	}
}

// lengthCost is about what checking one length n costs against the
// others, for the estimate of the time left: n positions attend to n
// keys, for a number of inputs that shrinks as 64/n above n = 64.
func lengthCost(n int) float64 {
	return float64(n) * float64(min(n, 64))
}
