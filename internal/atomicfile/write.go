package atomicfile

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
)

// live holds the temporary files being written, for RemoveTemporary;
// closed is set once they were removed, so that none is created after.
var live struct {
	sync.Mutex
	files  map[string]bool
	closed bool
}

// Check reports whether path can be written, before the work that
// produces its content: a directory, a missing parent directory or one
// that cannot be written is an error.
func Check(path string) error {
	dest, fi, err := resolve(path)
	if err != nil {
		return err
	}
	if fi != nil && !fi.Mode().IsRegular() {
		return nil // a device or FIFO is written as it is, later
	}
	// A probe: the temporary file Write will need, created and removed.
	tmp, err := createTemp(dest, 0o600)
	if err != nil {
		return err
	}
	name := tmp.Name()
	tmp.Close()
	forget(name)
	return os.Remove(name)
}

// Write writes the file at path through write: atomically for a regular
// file (or a new one, or a symbolic link's target), as a stream for a
// device or FIFO; see the package documentation. On an error nothing at
// path has changed, but for a stream, which may have received part of
// the content.
func Write(path string, write func(w io.Writer) error) (err error) {
	dest, fi, err := resolve(path)
	if err != nil {
		return err
	}
	if fi != nil && !fi.Mode().IsRegular() {
		return writeStream(path, dest, write)
	}
	perm := fs.FileMode(0o666) // less the umask, applied by the system
	if fi != nil {
		perm = fi.Mode().Perm()
	}
	tmp, err := createTemp(dest, perm)
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
			forget(tmp.Name())
		}
	}()
	if err = write(tmp); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	// On disk before the rename, so that a crash leaves the old file or
	// the whole new one.
	if err = tmp.Sync(); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err = tmp.Close(); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if fi != nil {
		// The umask applied at creation may have cleared bits the old
		// file had.
		if err = os.Chmod(tmp.Name(), perm); err != nil {
			return fmt.Errorf("writing %s: %w", path, err)
		}
	}
	live.Lock()
	defer live.Unlock()
	if live.closed {
		return fmt.Errorf("writing %s: interrupted", path)
	}
	if err = os.Rename(tmp.Name(), dest); err != nil {
		return fmt.Errorf("cannot write %s: %w", path, err)
	}
	delete(live.files, tmp.Name())
	return nil
}

// Target returns the file that Write(path) would write: path with its
// symbolic links followed, including a last link to a file not yet
// there, and its directory's links resolved, as an absolute path. Two
// outputs with the same Target are one file.
func Target(path string) (string, error) {
	dest, _, err := resolve(path)
	if err != nil {
		return "", err
	}
	abs, err := filepath.Abs(dest)
	if err != nil {
		return "", err
	}
	if dir, err := filepath.EvalSymlinks(filepath.Dir(abs)); err == nil {
		abs = filepath.Join(dir, filepath.Base(abs))
	}
	return abs, nil
}

// resolve follows path's symbolic links to the file to write, and
// returns what is there (nil when nothing is yet). A directory, or a
// parent that is not one, is an error naming path.
func resolve(path string) (string, fs.FileInfo, error) {
	if path == "" {
		// Else the temporary file would be made in the working directory
		// and only the rename, after all the work, would fail.
		return "", nil, errors.New("the file name is empty")
	}
	dest := path
	for hops := 0; ; hops++ {
		fi, err := os.Lstat(dest)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			dir := filepath.Dir(dest)
			if di, err := os.Stat(dir); err != nil || !di.IsDir() {
				return "", nil, fmt.Errorf("cannot write %s: the directory %s does not exist", path, dir)
			}
			return dest, nil, nil
		case err != nil:
			return "", nil, fmt.Errorf("cannot write %s: %w", path, unwrapPath(err))
		case fi.Mode()&fs.ModeSymlink != 0:
			if hops == 40 {
				return "", nil, fmt.Errorf("cannot write %s: too many symbolic links", path)
			}
			target, err := os.Readlink(dest)
			if err != nil {
				return "", nil, fmt.Errorf("cannot write %s: %w", path, unwrapPath(err))
			}
			if !filepath.IsAbs(target) {
				target = filepath.Join(filepath.Dir(dest), target)
			}
			dest = target
		case fi.IsDir():
			return "", nil, fmt.Errorf("cannot write %s: it is a directory", path)
		default:
			return dest, fi, nil
		}
	}
}

// writeStream writes to a device or FIFO as it is.
func writeStream(path, dest string, write func(w io.Writer) error) error {
	f, err := os.OpenFile(dest, os.O_WRONLY, 0)
	if err != nil {
		return fmt.Errorf("cannot write %s: %w", path, unwrapPath(err))
	}
	if err := write(f); err != nil {
		f.Close()
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}

// tempPrefix is the start of the names of dest's temporary files.
func tempPrefix(dest string) string {
	return "." + filepath.Base(dest) + ".verify-"
}

// createTemp creates dest's temporary file, .NAME.verify-PID-RANDOM.tmp
// in dest's directory, with permissions perm (less the umask), and
// records it as live.
func createTemp(dest string, perm fs.FileMode) (*os.File, error) {
	live.Lock()
	defer live.Unlock()
	if live.closed {
		return nil, fmt.Errorf("cannot write %s: interrupted", dest)
	}
	for range 100 {
		var r [6]byte
		rand.Read(r[:])
		name := filepath.Join(filepath.Dir(dest), tempPrefix(dest)+strconv.Itoa(os.Getpid())+"-"+hex.EncodeToString(r[:])+".tmp")
		f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, perm)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			// The temporary file's name means nothing to the user: say
			// why dest cannot be written.
			return nil, fmt.Errorf("cannot write %s: %w", dest, unwrapPath(err))
		}
		if live.files == nil {
			live.files = map[string]bool{}
		}
		live.files[name] = true
		return f, nil
	}
	return nil, fmt.Errorf("cannot write %s: no free temporary name", dest)
}

func forget(name string) {
	live.Lock()
	delete(live.files, name)
	live.Unlock()
}

func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// RemoveTemporary removes every temporary file being written, and makes
// every later Write fail: for a handler of a signal that ends the
// process. A Write that already renamed its file has finished it whole.
func RemoveTemporary() {
	live.Lock()
	defer live.Unlock()
	live.closed = true
	for name := range live.files {
		os.Remove(name)
		delete(live.files, name)
	}
}

// Stale lists the temporary files of path (after its symbolic links)
// left by a process that no longer runs: a run killed while writing it.
func Stale(path string) []string {
	dest, _, err := resolve(path)
	if err != nil {
		return nil
	}
	entries, err := os.ReadDir(filepath.Dir(dest))
	if err != nil {
		return nil
	}
	prefix := tempPrefix(dest)
	var stale []string
	for _, e := range entries {
		rest, ok := strings.CutPrefix(e.Name(), prefix)
		if !ok || !strings.HasSuffix(rest, ".tmp") {
			continue
		}
		pid, _, _ := strings.Cut(rest, "-")
		if n, err := strconv.Atoi(pid); err == nil && !running(n) {
			stale = append(stale, filepath.Join(filepath.Dir(dest), e.Name()))
		}
	}
	return stale
}
