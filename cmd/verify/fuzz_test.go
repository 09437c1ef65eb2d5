package main

import (
	"bytes"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"
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
