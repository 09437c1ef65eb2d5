package main

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// TestBinaryModelFiles: a model exported and checked back against its
// recipe passes; a perturbed one fails with exit status 1 and a concrete
// input. safetensors holds binary floats: the lookup's integer weights
// survive it exactly, Dyck-1's thresholds 1/N² do not (the export refuses
// them unless told to round), and the exact check then fails by the
// rounding (accept = 1 − 2⁻⁵⁴ on "()").
func TestBinaryModelFiles(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		recipe, file, weighting string
		export, check           []string
		pass                    bool
	}{
		{"dyck1-n", "d.json", "ahat", nil, nil, true},
		{"lookup", "l.safetensors", "ahat", nil, nil, true},
		{"dyck1-n", "d.safetensors", "ahat", []string{"--round-weights"}, []string{"--precision", "exact"}, false},
		// A softmax model is checked against the softmax reference (c
		// within 1/4) at the precision softmax needs, not exactly.
		{"lookup", "ls.json", "smat", nil, nil, true},
	} {
		path := filepath.Join(dir, tc.file)
		if _, stderr, status := execVerify(t, append([]string{"export", "--recipe", tc.recipe, "--weighting", tc.weighting, "--n", "12", "--out", path}, tc.export...)...); status != 0 {
			t.Fatalf("export %s: %s", tc.file, stderr)
		}
		stdout, stderr, status := execVerify(t, append([]string{"check", "--model", path, "--spec", tc.recipe, "--exhaustive", "5000"}, tc.check...)...)
		if pass := status == 0 && strings.Contains(stdout, "PASS"); pass != tc.pass || !pass && status != 1 {
			t.Errorf("check %s: status %d, want it to pass: %v\n%s%s", tc.file, status, tc.pass, stdout, stderr)
		}
	}
	// Flip the sign of the first FFN's one weight in the JSON file (the
	// bracket's sign read into the violation count).
	data, err := os.ReadFile(filepath.Join(dir, "d.json"))
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	k := strings.Index(text, `"-1"`)
	if k < 0 {
		t.Fatalf("no weight -1 in the file:\n%.500s", text)
	}
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(bad, []byte(text[:k]+`"1"`+text[k+4:]), 0o644)
	stdout, _, status := execVerify(t, "check", "--model", bad, "--spec", "dyck1-n", "--exhaustive", "5000")
	if status != 1 || !strings.Contains(stdout, "FAIL") || !strings.Contains(stdout, "input") {
		t.Errorf("a perturbed model: status %d\n%s", status, stdout)
	}
}

// TestBinaryBadFiles: bad model files and output paths, and the bad
// numbers a user may type, each exit 2 with one line and no file written.
func TestBinaryBadFiles(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.json")
	if _, stderr, status := execVerify(t, "export", "--recipe", "lookup", "--n", "8", "--out", good); status != 0 {
		t.Fatal(stderr)
	}
	data, _ := os.ReadFile(good)
	dyck := filepath.Join(dir, "dyck.json")
	if _, stderr, status := execVerify(t, "export", "--recipe", "dyck1-n", "--n", "8", "--out", dyck); status != 0 {
		t.Fatal(stderr)
	}
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		os.WriteFile(p, b, 0o644)
		return p
	}
	truncated := write("truncated.json", data[:len(data)/2])
	hostile := write("hostile.json", []byte(`{"format": "transformer-cookbook-model", "version": 1, "d": 1000000000000}`))
	garbage := write("garbage.safetensors", []byte("\xff\xff\xff\xff\xff\xff\xff\x7fnot a header"))
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"check", "--model", filepath.Join(dir, "missing.json"), "--spec", "lookup"}, "missing.json"},
		{[]string{"check", "--model", truncated, "--spec", "lookup"}, "truncated.json"},
		{[]string{"check", "--model", hostile, "--spec", "lookup"}, "hostile.json"},
		{[]string{"check", "--model", garbage, "--spec", "lookup"}, "garbage.safetensors"},
		{[]string{"check", "--model", good}, "--spec NAME"},
		{[]string{"check", "--model", good, "--spec", "nosuch"}, "nosuch"},
		{[]string{"check", "--model", good, "--spec", "dyck1"}, "outputs are (y, c)"},
		{[]string{"check", "--model", dyck, "--spec", "dyck-kd", "--param", "outputs=accept"}, `lacks the reference's symbol "["`},
		{[]string{"check", "--model", good, "--spec", "lookup", "--max-n", "9"}, "covers lengths up to 8"},
		{[]string{"check", "--model", write("model.txt", data), "--spec", "lookup"}, ".json or .safetensors"},
		{[]string{"check", "--spec", "lookup"}, "--spec goes with --model"},
		{[]string{"check", "--model", good, "--spec", "lookup", "--weighting", "smat"}, "own weighting"},
		{[]string{"frontier", "--recipe", "lookup", "--precision", "fp16,fp16"}, "listed twice"},
		{[]string{"export", "--recipe", "lookup"}, "needs --out"},
		{[]string{"export", "--recipe", "lookup", "--out", filepath.Join(dir, "x.pdf")}, ".json"},
		{[]string{"export", "--recipe", "lookup", "--out", filepath.Join(dir, "no", "dir", "x.json")}, "x.json"},
		{[]string{"export", "--recipe", "lookup", "--n", "0", "--out", filepath.Join(dir, "y.json")}, "--n must be"},
		{[]string{"export", "--recipe", "lookup", "--n", "-3", "--out", filepath.Join(dir, "y.json")}, "--n must be"},
		{[]string{"export", "--recipe", "lookup", "--out", filepath.Join(dir, "y.safetensors"), "--dtype", "F12"}, "--dtype must be one of F64, F32, F16, BF16, F8_E4M3, F8_E5M2"},
		{[]string{"export", "--recipe", "lookup", "--n", "8", "--out", filepath.Join(dir, "y.json"), "--round-weights"}, "--round-weights applies to .safetensors"},
		// Dyck-1's biases 1/N and −1/N²: with N = 3, F16 holds neither.
		{[]string{"export", "--recipe", "dyck1-n", "--n", "3", "--dtype", "F16", "--out", filepath.Join(dir, "y.safetensors")}, "3 weights are not exactly representable in F16: layers.1.ffn.fc1.bias[1] = -1/9, nearest -0.111083984375; layers.1.ffn.fc1.bias[2] = 1/3, nearest 0.333251953125;"},
		// The lookup's positions (1, j, j²): j = 256 gives 65536, past F16's 65504.
		{[]string{"export", "--recipe", "lookup", "--n", "256", "--dtype", "F16", "--round-weights", "--out", filepath.Join(dir, "y.safetensors")}, "pos_embed.weight[255][3] = 65536: overflows F16 (largest finite 65504)"},
		{[]string{"export", "--recipe", "nosuch", "--out", filepath.Join(dir, "y.json")}, "nosuch"},
		{[]string{"--recipe", "lookup", "--precision", "0"}, "precision"},
		{[]string{"--recipe", "lookup", "--precision", "1000000000"}, "precision"},
		{[]string{"--recipe", "lookup", "--max-n", "-5"}, "--max-n"},
		{[]string{"run", "--recipe", "dyck1", "--input", ""}, "input"},
		{[]string{"run", "--recipe", "dyck1", "--input", "(x)"}, "alphabet"},
		{[]string{"frontier", "--recipe", "lookup", "--out", filepath.Join(dir, "no", "f.json")}, "cannot write"},
	}
	for _, tc := range tests {
		stdout, stderr, status := execVerify(t, tc.args...)
		lines := strings.Split(strings.TrimSuffix(stderr, "\n"), "\n")
		if status != 2 || stdout != "" || len(lines) != 1 || !strings.Contains(lines[0], tc.want) {
			t.Errorf("verify %q: status %d, stdout %.100q, stderr %q; want 2, nothing, one line naming %q", tc.args, status, stdout, stderr, tc.want)
		}
	}
	entries, _ := os.ReadDir(dir)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if want := "dyck.json garbage.safetensors good.json hostile.json model.txt truncated.json"; strings.Join(names, " ") != want {
		t.Errorf("files left: %v, want %s", names, want)
	}
}

// TestBinaryInterrupt: Ctrl-C stops a sweep cleanly: the lengths checked
// are reported, one line on stderr says it was interrupted, the exit
// status is 130 (a shell's for SIGINT), and no output file is written.
// The signal is sent on an event the process reports, never after a
// fixed wait (which comes too early on a loaded machine, before the
// handler is installed): the check once it printed length 8, the
// frontier once its progress (--progress, a line per update off a
// terminal) reports a length done.
func TestBinaryInterrupt(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "f.json")
	for _, tc := range []struct {
		args     []string
		ready    func(stdout, stderr string) bool // the line just read
		reported string
	}{
		{[]string{"--recipe", "lookup", "--precision", "113", "--max-n", "8192"},
			func(stdout, _ string) bool { f := strings.Fields(stdout); return len(f) > 0 && f[0] == "8" }, " 8 "},
		{[]string{"frontier", "--recipe", "lookup", "--precision", "113", "--max-n", "8192", "--out", out, "--progress"},
			func(_, stderr string) bool { return strings.HasPrefix(stderr, "progress: ") }, "lengths checked"},
	} {
		cmd := exec.Command(verifyBin, tc.args...)
		outPipe, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		errPipe, err := cmd.StderrPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		var stdout, stderr strings.Builder
		var once sync.Once
		reached := make(chan struct{})
		var readers sync.WaitGroup
		read := func(pipe io.Reader, into *strings.Builder, isStdout bool) {
			defer readers.Done()
			sc := bufio.NewScanner(pipe)
			for sc.Scan() {
				line := sc.Text()
				into.WriteString(line + "\n")
				if isStdout && tc.ready(line, "") || !isStdout && tc.ready("", line) {
					once.Do(func() { close(reached) })
				}
			}
		}
		readers.Add(2)
		go read(outPipe, &stdout, true)
		go read(errPipe, &stderr, false)
		exited := make(chan struct{})
		go func() { readers.Wait(); close(exited) }()
		select {
		case <-reached:
			cmd.Process.Signal(os.Interrupt)
		case <-exited:
			t.Errorf("%q ended before the event to interrupt it on", tc.args)
		}
		<-exited
		err = cmd.Wait()
		var exit *exec.ExitError
		if !errors.As(err, &exit) || exit.ExitCode() != 130 {
			t.Errorf("%q: %v, want exit status 130", tc.args, err)
		}
		var lines []string
		for _, l := range strings.Split(strings.TrimSpace(stderr.String()), "\n") {
			if !strings.HasPrefix(l, "progress: ") {
				lines = append(lines, l)
			}
		}
		if len(lines) != 1 || !strings.Contains(lines[0], "interrupted") {
			t.Errorf("%q: stderr %q, want one line saying it was interrupted (besides progress)", tc.args, stderr.String())
		}
		if !strings.Contains(stdout.String(), "lookup") || !strings.Contains(stdout.String(), tc.reported) {
			t.Errorf("%q: the lengths checked are not reported:\n%s", tc.args, stdout.String())
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("an interrupted sweep left %d files", len(entries))
	}
}

// TestBinaryExportInterrupt: a signal that can be handled (INT, TERM,
// HUP, QUIT) during a long export (the sinusoidal encoding, whose
// irrational entries are each checked as they are written: minutes for
// n ≤ 65536) ends it at once with one line and the exit status 128 + the
// signal's number, and leaves no file, not even the temporary one. The
// signal is sent once the temporary file exists, when the export is
// writing.
func TestBinaryExportInterrupt(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT} {
		dir := t.TempDir()
		cmd := exec.Command(verifyBin, "export", "--recipe", "pe-sinusoidal", "--n", "65536", "--out", filepath.Join(dir, "s.json"))
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		exited := make(chan error, 1)
		go func() { exited <- cmd.Wait() }()
		var err error
	wait:
		for {
			select {
			case err = <-exited:
				t.Fatalf("%v: the export ended before it wrote its temporary file: %v", sig, err)
			default:
			}
			if entries, _ := os.ReadDir(dir); len(entries) > 0 {
				break wait
			}
			time.Sleep(10 * time.Millisecond)
		}
		signalled := time.Now()
		cmd.Process.Signal(sig)
		err = <-exited
		var exit *exec.ExitError
		if !errors.As(err, &exit) || exit.ExitCode() != 128+int(sig) {
			t.Errorf("%v: %v, want exit status %d", sig, err, 128+int(sig))
		}
		if took := time.Since(signalled); took > 20*time.Second {
			t.Errorf("%v: the export took %v to stop", sig, took)
		}
		if s := stderr.String(); !strings.HasPrefix(s, "verify: interrupted by SIG") || strings.Count(s, "\n") != 1 || stdout.Len() != 0 {
			t.Errorf("%v: stdout %q, stderr %q: want one line saying the export was interrupted", sig, stdout.String(), s)
		}
		if entries, _ := os.ReadDir(dir); len(entries) != 0 {
			t.Errorf("%v: an interrupted export left %d files", sig, len(entries))
		}
	}
}

// TestBinaryOutputPaths: --out never replaces what it should not: a
// directory is refused before any work, a FIFO and a device are written
// as streams and stay what they are, a symbolic link is followed, an
// existing file keeps its mode, and a temporary file a killed run left
// is named.
func TestBinaryOutputPaths(t *testing.T) {
	dir := t.TempDir()
	if _, stderr, status := execVerify(t, "frontier", "--recipe", "lookup", "--precision", "fp16", "--out", dir); status != 2 || !strings.Contains(stderr, "is a directory") {
		t.Errorf("--out DIR: status %d, stderr %q", status, stderr)
	}
	if _, stderr, status := execVerify(t, "export", "--recipe", "lookup", "--out", filepath.Join(dir, "no", "x.json")); status != 2 || !strings.Contains(stderr, "does not exist") {
		t.Errorf("--out in a missing directory: status %d, stderr %q", status, stderr)
	}

	kept := filepath.Join(dir, "kept.json")
	os.WriteFile(kept, nil, 0o600)
	os.Chmod(kept, 0o600)
	link := filepath.Join(dir, "link.json")
	os.Symlink("kept.json", link)
	if _, stderr, status := execVerify(t, "export", "--recipe", "first", "--n", "4", "--out", link); status != 0 {
		t.Fatalf("export through a link: status %d, stderr %q", status, stderr)
	}
	lf, _ := os.Lstat(link)
	kf, _ := os.Stat(kept)
	if lf.Mode()&os.ModeSymlink == 0 || kf.Mode().Perm() != 0o600 || kf.Size() == 0 {
		t.Errorf("after an export through a link: link %v, target %v of %d bytes", lf.Mode(), kf.Mode(), kf.Size())
	}

	fifo := filepath.Join(dir, "pipe.json")
	if err := syscall.Mkfifo(fifo, 0o600); err == nil {
		read := make(chan []byte)
		go func() { b, _ := os.ReadFile(fifo); read <- b }()
		if _, stderr, status := execVerify(t, "export", "--recipe", "first", "--n", "4", "--out", fifo); status != 0 {
			t.Fatalf("export to a FIFO: status %d, stderr %q", status, stderr)
		}
		if fi, _ := os.Lstat(fifo); fi.Mode()&os.ModeNamedPipe == 0 {
			t.Fatalf("the FIFO became %v", fi.Mode())
		}
		if b := <-read; !bytes.Contains(b, []byte(`"first`)) {
			t.Errorf("read from the FIFO: %.80q", b)
		}
	}
	null := filepath.Join(dir, "null.json")
	if err := syscall.Mknod(null, syscall.S_IFCHR|0o666, 1<<8|3); err != nil {
		t.Logf("the device case is skipped: mknod is not permitted here (%v)", err)
	} else {
		_, stderr, status := execVerify(t, "frontier", "--recipe", "gtzero", "--precision", "fp16", "--max-n", "4", "--out", null)
		if fi, _ := os.Lstat(null); status != 0 || fi.Mode()&os.ModeCharDevice == 0 {
			t.Errorf("frontier --out DEVICE: status %d, stderr %q, the device became %v", status, stderr, fi.Mode())
		}
	}

	// A temporary file of a process that has ended is named, not removed.
	done := exec.Command("true")
	done.Run()
	stale := filepath.Join(dir, ".kept.json.verify-"+strconv.Itoa(done.Process.Pid)+"-00aa.tmp")
	os.WriteFile(stale, nil, 0o600)
	_, stderr, status := execVerify(t, "export", "--recipe", "first", "--n", "4", "--out", kept)
	if status != 0 || !strings.Contains(stderr, stale) || strings.Count(stderr, "\n") != 1 {
		t.Errorf("with a stale temporary file: status %d, stderr %q", status, stderr)
	}
}

// TestBinaryOutputNotWritable: an --out in a directory the user cannot
// write is refused before the sweep, with one line. Root writes
// anywhere, so as root the binary runs as the user nobody (65534).
func TestBinaryOutputNotWritable(t *testing.T) {
	dir := t.TempDir()
	locked := filepath.Join(dir, "locked")
	if err := os.Mkdir(locked, 0o555); err != nil {
		t.Fatal(err)
	}
	bin := verifyBin
	cmd := func(args ...string) *exec.Cmd { return exec.Command(bin, args...) }
	if os.Getuid() == 0 {
		// A copy nobody can reach: the test's directories (this one and
		// the one the testing package made for the test) are private.
		os.Chmod(dir, 0o755)
		os.Chmod(filepath.Dir(dir), 0o755)
		bin = filepath.Join(dir, "verify")
		data, err := os.ReadFile(verifyBin)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(bin, data, 0o755); err != nil {
			t.Fatal(err)
		}
		for d := dir; d != "/" && d != "."; d = filepath.Dir(d) {
			if fi, err := os.Stat(d); err == nil && fi.Mode().Perm()&0o001 == 0 {
				t.Skipf("%s is not reachable by other users", d)
			}
		}
		cmd = func(args ...string) *exec.Cmd {
			c := exec.Command(bin, args...)
			c.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
			c.Dir = dir
			return c
		}
	}
	c := cmd("frontier", "--recipe", "lookup", "--precision", "fp16", "--out", filepath.Join(locked, "f.json"))
	var stdout, stderr bytes.Buffer
	c.Stdout, c.Stderr = &stdout, &stderr
	if err := c.Run(); err != nil && c.ProcessState == nil {
		t.Skipf("cannot run as another user here: %v", err)
	}
	if status := c.ProcessState.ExitCode(); status != 2 || stdout.Len() != 0 || !strings.Contains(stderr.String(), "permission denied") || strings.Count(stderr.String(), "\n") != 1 {
		t.Errorf("status %d, stdout %q, stderr %q: want 2, no report, one line saying permission denied", status, stdout.String(), stderr.String())
	}
}
