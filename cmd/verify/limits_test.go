package main

import (
	"os/exec"
	"strings"
	"testing"
)

// TestBinaryResourceLimits: under a file-descriptor or address-space
// limit too small for a run, the command refuses with one line and exit
// status 2, instead of the runtime's fatal error and goroutine dump;
// under one that leaves room it runs.
func TestBinaryResourceLimits(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh to set a ulimit")
	}
	tests := []struct {
		ulimit string // the sh ulimit flag and value
		want   string // a part of the one line; "" when the run may pass
	}{
		{"-n 5", "ulimit -n"},
		{"-n 15", "ulimit -n"},
		{"-n 64", ""},
		// The Go runtime reserves address space by what the limit
		// allows (686 MiB under 879, 1.2 GiB without one), so whether a
		// limit leaves room differs between machines: each of these either
		// runs or refuses in one line, never a fatal error midway.
		{"-v 900000", ""},
		{"-v 1100000", ""},
		{"-v 1300000", ""},
		{"-v 2000000", ""},
	}
	for _, tt := range tests {
		t.Run(tt.ulimit, func(t *testing.T) {
			cmd := exec.Command("sh", "-c", "ulimit "+tt.ulimit+" && exec \"$0\" \"$@\"", verifyBin, "--recipe", "lookup", "--max-n", "4")
			stdout, stderr, status := execVerifyCmd(t, cmd)
			lines := strings.Split(strings.TrimRight(stderr, "\n"), "\n")
			switch {
			case tt.want != "" && (status != 2 || len(lines) != 1 || !strings.Contains(stderr, tt.want) || stdout != ""):
				t.Errorf("status %d, stderr %q, stdout %d bytes; want status 2 and one line naming %q", status, stderr, len(stdout), tt.want)
			case tt.want == "" && status == 2 && (len(lines) != 1 || !strings.Contains(stderr, "ulimit")):
				t.Errorf("status 2 with stderr %q; want one line naming the limit", stderr)
			case tt.want == "" && status != 0 && status != 2:
				t.Errorf("status %d, stderr %q; want 0, or 2 with one line", status, firstLines(stderr, 3))
			}
		})
	}
}

func firstLines(s string, n int) string {
	lines := strings.SplitN(s, "\n", n+1)
	return strings.Join(lines[:min(n, len(lines))], "\n")
}
