package main

import (
	"strings"
	"testing"
	"time"
)

// TestProgressTimeLeft: the estimate is elapsed·(1 − f)/f for the share
// f of the work done (10 s for a quarter: 30 s left), written as m:ss;
// updates off a terminal come at most once a second, but the first and
// the last always.
func TestProgressTimeLeft(t *testing.T) {
	var out strings.Builder
	now := time.Unix(0, 0)
	p := &progress{w: &out, mode: progressLines, width: 24, now: func() time.Time { return now }}
	p.start = now
	now = now.Add(10 * time.Second)
	p.show("lookup n = 4", 1, 4, "lengths", 0.005) // under a hundredth: no estimate yet
	p.show("lookup n = 8", 1, 4, "lengths", 0.25)
	now = now.Add(500 * time.Millisecond)
	p.show("lookup n = 10", 2, 4, "lengths", 0.3) // within the second: not shown
	now = now.Add(100 * time.Millisecond)
	p.show("lookup n = 12", 4, 4, "lengths", 1) // the last: shown
	want := "progress: 1/4 lengths,   0%, 0:10 elapsed, estimating the time left  lookup n = 4\n" +
		"progress: 1/4 lengths,  25%, 0:10 elapsed, about 0:30 left  lookup n = 8\n" +
		"progress: 4/4 lengths, 100%, 0:11 elapsed, about 0:00 left  lookup n = 12\n"
	if out.String() != want {
		t.Errorf("got\n%s\nwant\n%s", out.String(), want)
	}
	for _, tc := range []struct {
		d    time.Duration
		want string
	}{{0, "0:00"}, {59499 * time.Millisecond, "0:59"}, {61 * time.Second, "1:01"}, {3723 * time.Second, "1:02:03"}} {
		if got := clock(tc.d); got != tc.want {
			t.Errorf("clock(%v) = %q, want %q", tc.d, got, tc.want)
		}
	}
}

// TestBinaryProgress: --progress reports a sweep's lengths on stderr,
// leaving stdout as it is without it; --quiet and a non-terminal stderr
// without --progress print none.
func TestBinaryProgress(t *testing.T) {
	args := []string{"--recipe", "gtzero", "--max-n", "4"}
	plain, plainErr, status := execVerify(t, args...)
	if status != 0 || plainErr != "" {
		t.Fatalf("status %d, stderr %q", status, plainErr)
	}
	stdout, stderr, status := execVerify(t, append(args, "--progress")...)
	if status != 0 || stdout != plain {
		t.Errorf("--progress: status %d, stdout differs:\n%s", status, stdout)
	}
	lines := strings.Split(strings.TrimSpace(stderr), "\n")
	if len(lines) < 2 || !strings.HasPrefix(lines[0], "progress: 1/4 lengths, ") || !strings.HasPrefix(lines[len(lines)-1], "progress: 4/4 lengths, 100%, ") {
		t.Errorf("--progress: stderr %q", stderr)
	}
	if _, stderr, _ := execVerify(t, append(args, "--progress", "--quiet")...); stderr != "" {
		t.Errorf("--quiet: stderr %q", stderr)
	}
}
