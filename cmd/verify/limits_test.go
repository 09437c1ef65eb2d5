package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
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

// TestBinaryModelTooLargeToRead: a model file whose reading could take
// more memory than the address space left is refused before it is
// parsed, in one line that names --force. Under a 2 GB limit less than
// 2 GB is left, and a file of 40 MB may take 64 times that.
func TestBinaryModelTooLargeToRead(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh to set a ulimit")
	}
	path := filepath.Join(t.TempDir(), "huge.json")
	if err := os.WriteFile(path, bytes.Repeat([]byte(" "), 40<<20), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"check", "--model", path, "--spec", "lookup"},
		{"run", "--model", path, "--input", "1:0"},
		{"frontier", "--model", path, "--spec", "lookup", "--max-n", "4"},
	} {
		cmd := exec.Command("sh", append([]string{"-c", "ulimit -v 2000000 && exec \"$0\" \"$@\"", verifyBin}, args...)...)
		_, stderr, status := execVerifyCmd(t, cmd)
		if status != 2 || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, "--force") || !strings.Contains(stderr, "64 times") {
			t.Errorf("%s: status %d, stderr %q; want status 2 and one line naming --force", args[0], status, firstLines(stderr, 3))
		}
	}
}
