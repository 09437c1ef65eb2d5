package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/transformer-cookbook/verify/frontier"
)

// cheapCommands are the commands the command-line fuzz target runs: those
// that finish in milliseconds whatever their flags (the sweeps are given
// a small --max-n and --cases). The commands that read or write files
// (export, merge, --model, --out, --plot, --inputs) are left to their own
// tests, so that the fuzzer cannot touch the file system.
var cheapCommands = []string{"help", "version", "list", "format", "round", "edelman", "run", "check", "claims"}

// bigNumber finds numbers the fuzzer could make a sweep or an exponent
// expensive with: more than three digits.
var bigNumber = regexp.MustCompile(`[0-9]{4,}`)

// FuzzCommandLine runs argument vectors through the whole command line,
// in process: whatever the arguments, the command ends with status 0, 1
// or 2; bad input (2) prints nothing on stdout and exactly one line on
// stderr, starting "verify: "; no panic. The arguments are the fuzzer's
// string split at NUL bytes, after a command its first byte picks.
func FuzzCommandLine(f *testing.F) {
	for _, seed := range []string{
		"\x06--recipe\x00lokup", "\x07--recipe\x00lookup\x00--maxn\x003",
		"\x07--recipe\x00lookup\x00--recipe\x00first", "\x06--help", "\x04--precision\x00fp16\x001e100000",
		"\x04--precision\x00fp61\x001/3", "\x05--scores\x001, 1", "\x05--scores\x003, 1, 0\x00--gamma\x00-1",
		"\x06--recipe\x00lookup\x00--input\x002:1 1:0\x00--trace", "\x06--recipe\x00tiebreak\x00--input\x002:0.25 1:-5\x00--precision\x00fp16",
		"\x07--recipe\x00gtzero\x00--param\x00eps=0", "\x07--recipe\x00boolean\x00--param\x00tabel=0110", "\x02lookup",
		"\x03fp8-e4m3", "\x08--id\x00lemma.edleman", "\x00frontier", "\x07--recipe\x00dyck1\x00--weighting\x00all\x00--json",
		"\x06--recipe\x00lookup\x00--input\x00\xff\xfe", "\x07--lengths\x003,,4\x00--recipe\x00lookup", "\x01--version\x00extra",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, data string) {
		if len(data) == 0 || len(data) > 256 || bigNumber.MatchString(data) {
			t.Skip()
		}
		command := cheapCommands[int(data[0])%len(cheapCommands)]
		args := strings.Split(data[1:], "\x00")
		if data[1:] == "" {
			args = nil
		}
		for _, a := range args {
			for _, risky := range []string{"model", "out", "plot", "inputs", "all", "max-n", "cases", "exhaustive", "analysis-budget", "progress"} {
				if strings.TrimLeft(strings.SplitN(a, "=", 2)[0], "-") == risky && strings.HasPrefix(a, "-") {
					t.Skip()
				}
			}
		}
		switch command {
		case "check":
			args = append([]string{"--max-n", "6", "--cases", "2", "--exhaustive", "16"}, args...)
		case "run":
			args = append([]string{"run", "--max-n", "6"}, args...)
		case "claims":
			// One claim at most: the registry takes seconds.
			if !strings.Contains(data, "--id") {
				t.Skip()
			}
			args = append([]string{"claims"}, args...)
		default:
			args = append([]string{command}, args...)
		}
		var stdout, stderr bytes.Buffer
		status := run(args, &stdout, &stderr)
		switch status {
		case 0, 1:
		case 2:
			if stdout.Len() != 0 || strings.Count(stderr.String(), "\n") != 1 || !strings.HasPrefix(stderr.String(), "verify: ") {
				t.Errorf("%q: bad input with stdout %q and stderr %q: want one line on stderr only", args, stdout.String(), stderr.String())
			}
		default:
			t.Errorf("%q: status %d", args, status)
		}
		if !utf8.Valid(stderr.Bytes()) {
			t.Errorf("%q: stderr is not UTF-8: %q", args, stderr.String())
		}
	})
}

// FuzzMerge merges a phase-1 shard the fuzzer edits with the other shard
// of its sweep (the lookup at fp16 up to n = 8, in two shards), as verify
// merge reads them from files: whatever the edit, the merge ends with
// status 0, 1 or 2, bad input (2) in one line on stderr and nothing on
// stdout, no panic, and no more memory than 64 times the files and 64
// MiB (the checkers the merge builds to run the failures again and
// phase 2): an edited count or length must not make it allocate for
// work no shard holds.
func FuzzMerge(f *testing.F) {
	dir := f.TempDir()
	var shards [2][]byte
	for k := range shards {
		path := filepath.Join(dir, fmt.Sprintf("seed-%d.json", k+1))
		if _, stderr, status := runCmd("frontier", "--recipe", "lookup", "--precision", "fp16", "--max-n", "8", "--shard", fmt.Sprintf("%d/2", k+1), "--out", path, "--quiet"); status != 0 {
			f.Fatalf("shard %d: %s", k+1, stderr)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			f.Fatal(err)
		}
		shards[k] = data
	}
	other := filepath.Join(dir, "other.json")
	if err := os.WriteFile(other, shards[1], 0o644); err != nil {
		f.Fatal(err)
	}
	f.Add(shards[0])
	f.Add(bytes.Replace(shards[0], []byte(`"shard": "1/2"`), []byte(`"shard": "1/9223372036854775807"`), 1))
	f.Add(bytes.Replace(shards[0], []byte(`"max_n": 8`), []byte(`"max_n": 80000000`), 1))
	f.Add(append(slices.Clone(shards[0]), "\n{}"...))
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzMergeOnce(t, data, other, len(shards[1]))
		// The edit sealed, as a bug would write it: past the checksum,
		// the merge's own checks meet it.
		var doc frontierDoc
		if json.Unmarshal(data, &doc) != nil {
			return
		}
		for _, rep := range doc.Reports {
			if rep != nil {
				frontier.Seal(rep)
			}
		}
		if sealed, err := json.Marshal(doc); err == nil {
			fuzzMergeOnce(t, sealed, other, len(shards[1]))
		}
	})
}

// fuzzMergeOnce merges the shard data with the file other (of size
// otherSize), and checks the status, the streams and the memory.
func fuzzMergeOnce(t *testing.T, data []byte, other string, otherSize int) {
	path := filepath.Join(t.TempDir(), "edited.json")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	status := run([]string{"merge", path, other}, &stdout, &stderr)
	runtime.ReadMemStats(&after)
	switch status {
	case 0, 1:
	case 2:
		if stdout.Len() != 0 || strings.Count(stderr.String(), "\n") != 1 || !strings.HasPrefix(stderr.String(), "verify: ") {
			t.Errorf("bad input with stdout %q and stderr %q: want one line on stderr only", clipMessage(stdout.String(), 200), clipMessage(stderr.String(), 200))
		}
	default:
		t.Errorf("status %d: %s", status, clipMessage(stderr.String(), 200))
	}
	if got, most := after.TotalAlloc-before.TotalAlloc, uint64(64*(len(data)+otherSize))+64<<20; got > most {
		t.Errorf("the merge allocated %d bytes, more than %d", got, most)
	}
}
