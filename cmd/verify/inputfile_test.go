package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

func TestParseSize(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int64
	}{{"1", 1}, {"300", 300}, {"2KB", 2000}, {"2KiB", 2048}, {"512MiB", 512 << 20}, {"1 GiB", 1 << 30}, {"3GB", 3e9}, {"10B", 10}} {
		if got, err := parseSize(tc.in); err != nil || got != tc.want {
			t.Errorf("parseSize(%q) = %d, %v; want %d", tc.in, got, err, tc.want)
		}
	}
	for _, bad := range []string{"", "0", "-1", "1.5MiB", "MiB", "1TiB", "99999999999GiB"} {
		if _, err := parseSize(bad); err == nil {
			t.Errorf("parseSize(%q) accepted", bad)
		}
	}
}

// TestBinaryInputFiles: an input file is read only when it is a regular
// file within the size limit: a device, a FIFO or a directory (also
// behind a .json link) is refused before it is opened, without reading
// or blocking; a file over the limit is refused by its size, in a
// process that stays small whatever the size; standard input over the
// limit is refused once the limit is passed.
func TestBinaryInputFiles(t *testing.T) {
	dir := t.TempDir()
	zeroLink := filepath.Join(dir, "zero.json")
	if err := os.Symlink("/dev/zero", zeroLink); err != nil {
		t.Skip(err)
	}
	fifo := filepath.Join(dir, "pipe.json")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip(err)
	}
	big := filepath.Join(dir, "big.json")
	f, err := os.Create(big)
	if err != nil {
		t.Fatal(err)
	}
	f.Truncate(2 << 30) // sparse: 2 GiB that take no disk
	f.Close()
	exported := filepath.Join(dir, "first.json")
	if _, stderr, status := execVerify(t, "export", "--recipe", "first", "--n", "4", "--out", exported); status != 0 {
		t.Fatal(stderr)
	}
	timeBin := "/usr/bin/time"
	if _, err := os.Stat(timeBin); err != nil {
		t.Logf("no %s to measure the peak memory with: the memory bound is not checked", timeBin)
		timeBin = ""
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"check", "--model", "/dev/zero", "--spec", "first"}, `"/dev/zero" must end in .json or .safetensors`},
		{[]string{"check", "--model", zeroLink, "--spec", "first"}, "is a character device, not a regular file"},
		{[]string{"run", "--model", fifo, "--input", "ab"}, "is a FIFO, not a regular file"},
		{[]string{"check", "--model", dir + "/", "--spec", "first"}, "must end in .json"},
		{[]string{"frontier", "--model", big, "--spec", "first"}, "holds 2 GiB, more than 512 MiB; pass --max-input-size"},
		{[]string{"check", "--model", exported, "--spec", "first", "--max-input-size", "100"}, "more than 100 bytes"},
		{[]string{"check", "--model", exported, "--spec", "first", "--max-input-size", "lots"}, `--max-input-size: "lots" is not a size`},
		{[]string{"merge", zeroLink}, "is a character device"},
		{[]string{"run", "--recipe", "first", "--inputs", fifo}, "is a FIFO"},
	} {
		// /usr/bin/time reports the peak resident set of verify alone:
		// a process forked from this test counts the test's own memory
		// in its rusage (Linux keeps the peak of the image exec replaced).
		rss := filepath.Join(dir, "rss")
		cmd := exec.Command(verifyBin, tc.args...)
		if timeBin != "" {
			cmd = exec.Command(timeBin, append([]string{"-q", "-f", "%M", "-o", rss, verifyBin}, tc.args...)...)
		}
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		cmd.Run()
		status := cmd.ProcessState.ExitCode()
		if status != 2 || stdout.Len() != 0 || strings.Count(stderr.String(), "\n") != 1 || !strings.Contains(stderr.String(), tc.want) {
			t.Errorf("verify %q: status %d, stdout %q, stderr %q; want 2 and one line with %q", tc.args, status, stdout.String(), stderr.String(), tc.want)
		}
		// Refusing never reads the file: the process stays small (its
		// peak resident set, in KiB).
		if timeBin == "" {
			continue
		}
		text, _ := os.ReadFile(rss)
		kib, err := strconv.Atoi(strings.TrimSpace(string(text)))
		if err != nil {
			t.Errorf("verify %q: /usr/bin/time wrote %q", tc.args, text)
		} else if kib > 100<<10 {
			t.Errorf("verify %q: peak memory %d MiB refusing it", tc.args, kib>>10)
		}
	}
	// The same file within the limit is read.
	if _, stderr, status := execVerify(t, "check", "--model", exported, "--spec", "first", "--max-n", "4", "--max-input-size", "1MiB"); status != 0 {
		t.Errorf("a model within --max-input-size: status %d, %s", status, stderr)
	}
	// Standard input past the limit.
	cmd := exec.Command(verifyBin, "check", "--model", "-", "--spec", "first", "--max-input-size", "1KiB")
	cmd.Stdin = strings.NewReader("{" + strings.Repeat(" ", 4096) + "}")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	cmd.Run()
	if cmd.ProcessState.ExitCode() != 2 || !strings.Contains(stderr.String(), "standard input holds more than 1 KiB") {
		t.Errorf("stdin past the limit: status %d, stderr %q", cmd.ProcessState.ExitCode(), stderr.String())
	}
}
