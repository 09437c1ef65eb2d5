package atomicfile

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

func writeString(s string) func(io.Writer) error {
	return func(w io.Writer) error { _, err := io.WriteString(w, s); return err }
}

// entries lists dir's names, to see that no temporary file is left.
func entries(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	return names
}

func TestRegularFiles(t *testing.T) {
	dir := t.TempDir()
	umask := syscall.Umask(0o022)
	syscall.Umask(umask)
	fresh := filepath.Join(dir, "new.json")
	if err := Write(fresh, writeString("one")); err != nil {
		t.Fatal(err)
	}
	// A new file gets what a shell's redirection gives it: 0666 less the
	// umask.
	if fi, _ := os.Stat(fresh); fi.Mode() != fs.FileMode(0o666&^umask) {
		t.Errorf("new file: mode %v, want %v", fi.Mode(), fs.FileMode(0o666&^umask))
	}
	for _, perm := range []fs.FileMode{0o600, 0o755, 0o640} {
		path := filepath.Join(dir, "old"+strconv.Itoa(int(perm)))
		if err := os.WriteFile(path, []byte("old"), perm); err != nil {
			t.Fatal(err)
		}
		os.Chmod(path, perm) // whatever the umask
		if err := Write(path, writeString("new")); err != nil {
			t.Fatal(err)
		}
		fi, _ := os.Stat(path)
		got, _ := os.ReadFile(path)
		if fi.Mode() != perm || string(got) != "new" {
			t.Errorf("replacing a %v file: mode %v, content %q", perm, fi.Mode(), got)
		}
	}
	// A failed write leaves the old file whole and no temporary file.
	path := filepath.Join(dir, "old384")
	err := Write(path, func(w io.Writer) error { io.WriteString(w, "half"); return errors.New("boom") })
	if got, _ := os.ReadFile(path); err == nil || string(got) != "new" {
		t.Errorf("failed write: err %v, content %q", err, got)
	}
	for _, name := range entries(t, dir) {
		if strings.HasSuffix(name, ".tmp") {
			t.Errorf("a temporary file is left: %s", name)
		}
	}
}

func TestSymlinks(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "target.json")
	os.WriteFile(target, []byte("old"), 0o600)
	link := filepath.Join(dir, "link.json")
	if err := os.Symlink("target.json", link); err != nil {
		t.Skipf("no symbolic links here: %v", err)
	}
	if err := Write(link, writeString("new")); err != nil {
		t.Fatal(err)
	}
	fi, _ := os.Lstat(link)
	got, _ := os.ReadFile(target)
	tf, _ := os.Stat(target)
	if fi.Mode()&fs.ModeSymlink == 0 || string(got) != "new" || tf.Mode() != 0o600 {
		t.Errorf("through a link: link mode %v, target content %q mode %v; want the link kept and its target replaced", fi.Mode(), got, tf.Mode())
	}
	// A dangling link creates its target.
	dangling := filepath.Join(dir, "dangling.json")
	os.Symlink(filepath.Join(dir, "sub-target.json"), dangling)
	if err := Write(dangling, writeString("made")); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "sub-target.json")); string(got) != "made" {
		t.Errorf("dangling link: target holds %q", got)
	}
	loop := filepath.Join(dir, "loop")
	os.Symlink("loop", loop)
	if err := Write(loop, writeString("x")); err == nil || !strings.Contains(err.Error(), "too many symbolic links") {
		t.Errorf("a link to itself: %v", err)
	}
}

// TestTarget: two names of one file, before the file exists, have one
// Target; two different files do not.
func TestTarget(t *testing.T) {
	dir := t.TempDir()
	if err := os.Symlink("out.svg", filepath.Join(dir, "alias.svg")); err != nil {
		t.Skipf("no symbolic links here: %v", err)
	}
	os.Mkdir(filepath.Join(dir, "real"), 0o700)
	os.Symlink("real", filepath.Join(dir, "linkdir"))
	os.Symlink("../alias.svg", filepath.Join(dir, "real", "chain.svg"))
	for _, tc := range []struct {
		a, b string
		same bool
	}{
		{"out.svg", "alias.svg", true},         // a link to a file not yet there
		{"out.svg", "real/chain.svg", true},    // a chain of two links
		{"real/x.svg", "linkdir/x.svg", true},  // a linked directory
		{"out.svg", "./real/../out.svg", true}, // another spelling
		{"out.svg", "real/out.svg", false},
		{"alias.svg", "linkdir/out.svg", false},
	} {
		ta, err := Target(filepath.Join(dir, tc.a))
		if err != nil {
			t.Fatal(err)
		}
		tb, err := Target(filepath.Join(dir, tc.b))
		if err != nil {
			t.Fatal(err)
		}
		if (ta == tb) != tc.same {
			t.Errorf("Target(%s) = %s, Target(%s) = %s; want same = %v", tc.a, ta, tc.b, tb, tc.same)
		}
	}
}

// TestStreams: a FIFO and a device are written as streams and stay what
// they are.
func TestStreams(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "pipe")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("no FIFOs here: %v", err)
	}
	read := make(chan string)
	go func() {
		b, _ := os.ReadFile(fifo)
		read <- string(b)
	}()
	if err := Write(fifo, writeString("through the pipe")); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Lstat(fifo); fi.Mode()&fs.ModeNamedPipe == 0 {
		// Its reader waits on the FIFO that was replaced.
		t.Fatalf("the FIFO became %v", fi.Mode())
	}
	if got := <-read; got != "through the pipe" {
		t.Errorf("FIFO reader got %q", got)
	}
	if es := entries(t, dir); len(es) != 1 {
		t.Errorf("files beside the FIFO: %q", es)
	}

	// A character device like /dev/null (1, 3), made here so that a
	// broken writer replaces this one, not the system's.
	null := filepath.Join(dir, "null")
	if err := syscall.Mknod(null, syscall.S_IFCHR|0o666, 1<<8|3); err != nil {
		t.Skipf("mknod is not permitted here (it needs root or CAP_MKNOD): %v", err)
	}
	if err := Write(null, writeString("discarded")); err != nil {
		// A container may allow mknod but not opening the device.
		if errors.Is(err, fs.ErrPermission) {
			t.Skipf("the device cannot be opened here: %v", err)
		}
		t.Fatal(err)
	}
	if fi, _ := os.Lstat(null); fi.Mode()&fs.ModeCharDevice == 0 {
		t.Errorf("the device became %v", fi.Mode())
	}
}

func TestRefused(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct{ path, want string }{
		{dir, "is a directory"},
		{filepath.Join(dir, "missing", "f.json"), "does not exist"},
		{"", "file name is empty"},
	} {
		if err := Check(tc.path); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Check(%s) = %v, want %q", tc.path, err, tc.want)
		}
		if err := Write(tc.path, writeString("x")); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Write(%s) = %v, want %q", tc.path, err, tc.want)
		}
	}
	if err := Check(filepath.Join(dir, "fine.json")); err != nil {
		t.Errorf("Check of a new file: %v", err)
	}
	if es := entries(t, dir); len(es) != 0 {
		t.Errorf("Check left files: %q", es)
	}
}

// TestRemoveTemporary: a signal handler's RemoveTemporary removes the
// file being written, and no write completes after it.
func TestRemoveTemporary(t *testing.T) {
	defer func() { live.Lock(); live.closed = false; live.Unlock() }()
	dir := t.TempDir()
	path := filepath.Join(dir, "f.json")
	inWrite, release := make(chan struct{}), make(chan struct{})
	done := make(chan error)
	go func() {
		done <- Write(path, func(w io.Writer) error {
			io.WriteString(w, "partial")
			close(inWrite)
			<-release
			return nil
		})
	}()
	<-inWrite
	if es := entries(t, dir); len(es) != 1 || !strings.HasPrefix(es[0], ".f.json.verify-"+strconv.Itoa(os.Getpid())+"-") {
		t.Fatalf("while writing: %q", es)
	}
	RemoveTemporary()
	close(release)
	if err := <-done; err == nil {
		t.Error("the write completed after RemoveTemporary")
	}
	if es := entries(t, dir); len(es) != 0 {
		t.Errorf("left: %q", es)
	}
}

// TestStale: the temporary files of a process that ended are stale;
// this process's are not, nor other files.
func TestStale(t *testing.T) {
	dir := t.TempDir()
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Skip(err)
	}
	dead := cmd.Process.Pid
	path := filepath.Join(dir, "f.json")
	staleName := ".f.json.verify-" + strconv.Itoa(dead) + "-0a0b.tmp"
	for _, name := range []string{staleName, ".f.json.verify-" + strconv.Itoa(os.Getpid()) + "-0c0d.tmp", ".g.json.verify-" + strconv.Itoa(dead) + "-0e0f.tmp", "f.json"} {
		os.WriteFile(filepath.Join(dir, name), nil, 0o600)
	}
	got := Stale(path)
	if len(got) != 1 || filepath.Base(got[0]) != staleName {
		t.Errorf("Stale = %q, want only %s", got, staleName)
	}
}
