package main

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"strconv"
	"strings"
)

// defaultMaxInput is how many bytes an input file may hold unless
// --max-input-size says otherwise: the largest model a construction of
// the paper makes here (the one-hot lookup for n ≤ 1024, 74 MB of JSON)
// several times over, and well within a laptop's memory, since a file
// is read whole and its weights take more room parsed than as text.
const defaultMaxInput = 512 << 20

// flagMaxInput is the flag of every command that reads a file.
var flagMaxInput = flagDoc{name: "max-input-size", arg: "SIZE", def: "512MiB",
	help: "the largest input file read (a model, shards, --inputs), in bytes or with KB, MB, GB, KiB, MiB, GiB"}

// inputLimit reads --max-input-size.
func (o *commonOptions) inputLimit() (int64, error) {
	if !o.maxInput.set {
		return defaultMaxInput, nil
	}
	if o.maxInput.err != nil {
		return 0, badInput("--max-input-size: %v", o.maxInput.err)
	}
	return o.maxInput.n, nil
}

// parseSize reads a size in bytes: an integer, or one followed by a
// decimal (KB, MB, GB) or binary (KiB, MiB, GiB) unit.
func parseSize(s string) (int64, error) {
	units := []struct {
		suffix string
		factor int64
	}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"B", 1}}
	t := strings.TrimSpace(s)
	factor := int64(1)
	for _, u := range units {
		if rest, ok := strings.CutSuffix(t, u.suffix); ok {
			t, factor = strings.TrimSpace(rest), u.factor
			break
		}
	}
	n, err := strconv.ParseInt(t, 10, 64)
	if err != nil || n < 1 || n > (1<<62)/factor {
		return 0, fmt.Errorf("%q is not a size (a positive number of bytes, or with KB, MB, GB, KiB, MiB, GiB)", s)
	}
	return n * factor, nil
}

// readInput reads the input file path ("-": standard input) whole, what
// naming the flag or argument in errors. A path must name a regular file
// (or a link to one): a device (/dev/zero), a FIFO or a directory is
// refused before it is opened, since it could be read without end or
// block forever; a stream is piped to "-" instead. A file larger than
// limit is refused by its size before anything is read, and standard
// input when it goes past limit, so that a huge input costs no memory.
func readInput(path, what string, limit int64) ([]byte, error) {
	if path == "-" {
		data, err := io.ReadAll(io.LimitReader(os.Stdin, limit+1))
		if err != nil {
			return nil, badInput("%s: reading standard input: %v", what, err)
		}
		if int64(len(data)) > limit {
			return nil, badInput("%s: standard input holds more than %s; pass --max-input-size to read more", what, sizeText(limit))
		}
		return data, nil
	}
	fi, err := os.Stat(path)
	if err != nil {
		return nil, badInput("%s: %v", what, unwrapPathError(err))
	}
	if !fi.Mode().IsRegular() {
		return nil, badInput("%s: %s is %s, not a regular file; pipe a stream to - (standard input) instead", what, path, fileKind(fi.Mode()))
	}
	if fi.Size() > limit {
		return nil, badInput("%s: %s holds %s, more than %s; pass --max-input-size to read it", what, path, sizeText(fi.Size()), sizeText(limit))
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, badInput("%s: %v", what, unwrapPathError(err))
	}
	defer f.Close()
	// The file may grow after the Stat: read at most one byte past the
	// limit to see it.
	data, err := readAtMost(f, limit+1, fi.Size())
	if err != nil {
		return nil, badInput("%s: reading %s: %v", what, path, err)
	}
	if int64(len(data)) > limit {
		return nil, badInput("%s: %s holds more than %s; pass --max-input-size to read it", what, path, sizeText(limit))
	}
	return data, nil
}

func unwrapPathError(err error) error {
	if pe, ok := err.(*fs.PathError); ok {
		return fmt.Errorf("%s: %v", pe.Path, pe.Err)
	}
	return err
}

// fileKind names what a non-regular file is.
func fileKind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a device"
	case m&fs.ModeSocket != 0:
		return "a socket"
	}
	return "not a regular file"
}

// sizeText writes a byte count for people: "512 MiB", "1.5 GiB", "300 bytes".
func sizeText(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.4g GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.4g MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.4g KiB", float64(n)/(1<<10))
	}
	return strconv.FormatInt(n, 10) + " bytes"
}

// readAtMost reads r to its end or to limit bytes, into a buffer of the
// size hint (the file's size when it was opened) and one more byte, so
// that a file of hundreds of megabytes is read in one allocation, not the
// doubling series of io.ReadAll (twice the file, for a moment).
func readAtMost(r io.Reader, limit, hint int64) ([]byte, error) {
	r = io.LimitReader(r, limit)
	buf := make([]byte, 0, max(0, min(hint, limit))+1)
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)] // a file that grew
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return buf, err
		}
	}
}
