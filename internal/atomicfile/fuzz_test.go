package atomicfile

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// FuzzWrite: whatever the content, the point at which the writer fails
// and what the path held (nothing, a file of some mode, a link to one),
// the path then holds the old content after a failure and the new one
// after a success, keeps its mode, and no temporary file is left.
func FuzzWrite(f *testing.F) {
	f.Add([]byte("old"), []byte("new"), 3, byte(0))
	f.Add([]byte(""), []byte("a longer new content"), 5, byte(1))
	f.Add([]byte("x"), []byte(""), -1, byte(2))
	f.Add([]byte("keep me"), []byte("never"), 0, byte(3))
	f.Fuzz(func(t *testing.T, old, content []byte, failAt int, kind byte) {
		dir := t.TempDir()
		path := filepath.Join(dir, "out.json")
		target := path
		perms := []fs.FileMode{0o600, 0o640, 0o644, 0o755}
		perm := perms[int(kind/4)%len(perms)]
		existed := kind%4 != 0
		if existed {
			if err := os.WriteFile(path, old, perm); err != nil {
				t.Fatal(err)
			}
			os.Chmod(path, perm)
		}
		if kind%4 == 3 {
			// Through a symbolic link to the file.
			link := filepath.Join(dir, "link.json")
			if err := os.Symlink("out.json", link); err != nil {
				t.Skip(err)
			}
			path = link
		}
		fails := failAt >= 0 && failAt <= len(content)
		err := Write(path, func(w io.Writer) error {
			if fails {
				w.Write(content[:failAt])
				return errors.New("the writer failed")
			}
			_, err := w.Write(content)
			return err
		})
		got, readErr := os.ReadFile(target)
		switch {
		case fails && err == nil:
			t.Fatal("a failing writer reported success")
		case !fails && err != nil:
			t.Fatal(err)
		case fails && existed && string(got) != string(old):
			t.Errorf("after a failure the file holds %q, want the old %q", got, old)
		case fails && !existed && readErr == nil:
			t.Errorf("after a failure a new file exists")
		case !fails && string(got) != string(content):
			t.Errorf("after a success the file holds %q, want %q", got, content)
		}
		if fi, err := os.Stat(target); err == nil && existed && fi.Mode().Perm() != perm {
			t.Errorf("mode %v, want %v", fi.Mode().Perm(), perm)
		}
		es, _ := os.ReadDir(dir)
		for _, e := range es {
			if e.Name() != "out.json" && e.Name() != "link.json" {
				t.Errorf("left behind: %s", e.Name())
			}
		}
	})
}
