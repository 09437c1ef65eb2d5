package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// verifyBin is the command built once for the tests below, which run it
// as a user would: through its arguments, output and exit status.
var verifyBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "verify-bin")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	verifyBin = filepath.Join(dir, "verify")
	build := exec.Command("go", "build", "-o", verifyBin, ".")
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "building verify:", err)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// execVerify runs the built binary with args.
func execVerify(t *testing.T, args ...string) (stdout, stderr string, status int) {
	t.Helper()
	return execVerifyCmd(t, exec.Command(verifyBin, args...))
}

// execVerifyEnv runs the built binary with args and extra environment.
func execVerifyEnv(t *testing.T, env []string, args ...string) (stdout, stderr string, status int) {
	t.Helper()
	cmd := exec.Command(verifyBin, args...)
	cmd.Env = append(os.Environ(), env...)
	return execVerifyCmd(t, cmd)
}

// execVerifyStdin runs the built binary with args and stdin as its
// standard input.
func execVerifyStdin(t *testing.T, stdin []byte, args ...string) (stdout, stderr string, status int) {
	t.Helper()
	cmd := exec.Command(verifyBin, args...)
	cmd.Stdin = bytes.NewReader(stdin)
	return execVerifyCmd(t, cmd)
}

// execVerifyCmd runs cmd and returns what it printed and its exit status;
// a process that could not run fails the test.
func execVerifyCmd(t *testing.T, cmd *exec.Cmd) (stdout, stderr string, status int) {
	t.Helper()
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &exit):
		status = exit.ExitCode()
	default:
		t.Fatalf("running verify %q: %v", cmd.Args[1:], err)
	}
	return out.String(), errb.String(), status
}

// TestBinaryBadInput: every kind of bad input gets exit status 2, nothing
// on stdout, and exactly one line on stderr that says what was wrong.
func TestBinaryBadInput(t *testing.T) {
	tests := []struct {
		args []string
		want string // a phrase the message must contain
	}{
		{nil, "no command"},
		{[]string{"frobnicate"}, `unknown command "frobnicate"`},
		{[]string{"--precision", "24"}, "--recipe NAME is required"},
		{[]string{"--recipe", "nope"}, `unknown recipe "nope"`},
		{[]string{"--recipe"}, "flag --recipe needs a value"},
		{[]string{"--recipe", "lookup", "--precision", "1"}, `bad precision "1"`},
		{[]string{"--recipe", "lookup", "--precision", "fp12"}, `"fp12"`},
		{[]string{"--recipe", "lookup", "--max-n", "x"}, "--max-n must be an integer"},
		{[]string{"--recipe", "lookup", "--max-n", "0"}, "--max-n must be an integer"},
		{[]string{"--recipe", "lookup", "--max-n", "99999999999"}, "--max-n must be an integer"},
		{[]string{"--recipe", "lookup", "--cases", "-3"}, "--cases must be an integer"},
		{[]string{"--recipe", "lookup", "--seed", "-1"}, "--seed must be a non-negative integer"},
		{[]string{"--recipe", "lookup", "--max-n", "10", "--lengths", "3,11"}, `"11" is not a length`},
		{[]string{"--recipe", "lookup", "--lengths", "3,,4"}, "is not a length"},
		{[]string{"--recipe", "lookup", "--bogus"}, `unknown flag "--bogus"`},
		{[]string{"--recipe", "lookup", "extra"}, `unexpected argument "extra"`},
		{[]string{"--recipe", "lookup", "--weighting", "rhardmax"}, "not rhardmax"},
		{[]string{"--recipe", "lookup", "--weighting", "sideways"}, `"sideways"`},
		// Softmax lookup needs log(8N), which no rational equals.
		{[]string{"--recipe", "lookup", "--weighting", "smat", "--precision", "exact"}, "not a rational number"},
		{[]string{"--recipe", "boolean", "--param", "table=01x1"}, `is not a digit`},
		{[]string{"--recipe", "boolean", "--param", "tabel=0110"}, `has no parameter "tabel"`},
		{[]string{"--recipe", "gtzero", "--param", "eps=0"}, "must be positive"},
		{[]string{"--recipe", "gtzero", "--param", "eps"}, "--param takes NAME=VALUE"},
		{[]string{"--recipe", "gtzero", "--param", "eps=1", "--param", "eps=2"}, "given twice"},
		{[]string{"--recipe", "cpwl", "--param", "points=0:0,1:1"}, "at least 3 points"},
		{[]string{"--recipe", "min", "--weighting", "ahat"}, "no attention sublayer"},
		{[]string{"run", "--recipe", "min", "--input", "1, 2, 3"}, "3 values, want 2"},
		{[]string{"run", "--recipe", "min", "--input", "1, x"}, "position 1, y"},
		{[]string{"run", "--recipe", "gtzero", "--input", "1/8"}, "gray region"},
		{[]string{"list", "extra"}, `unknown recipe "extra"`},
		{[]string{"run", "--recipe", "lookup"}, "run needs --input"},
		{[]string{"run", "--recipe", "lookup", "--input", "2:1 x"}, `"x" is not q:v`},
		// Query 3 points past the end of a length-2 input.
		{[]string{"run", "--recipe", "lookup", "--input", "3:1 1:0", "--max-n", "3"}, "outside the domain"},
		{[]string{"run", "--recipe", "lookup", "--input", "1:1 1:0 1:1", "--max-n", "2"}, "more than --max-n"},
		{[]string{"run", "--recipe", "lookup", "--input", "1:1", "--weighting", "all"}, "one weighting"},
		{[]string{"round", "--precision", "fp16", "1/0"}, "1/0"},
		{[]string{"format", "fp99"}, "fp99"},
	}
	for _, tc := range tests {
		stdout, stderr, status := execVerify(t, tc.args...)
		if status != 2 {
			t.Errorf("verify %q: exit status %d, want 2 (stderr %q)", tc.args, status, stderr)
		}
		if stdout != "" {
			t.Errorf("verify %q wrote to stdout:\n%s", tc.args, stdout)
		}
		lines := strings.Split(strings.TrimSuffix(stderr, "\n"), "\n")
		if len(lines) != 1 || !strings.HasPrefix(lines[0], "verify: ") || !strings.Contains(lines[0], tc.want) {
			t.Errorf("verify %q: stderr %q, want one line naming %q", tc.args, stderr, tc.want)
		}
	}
}

// TestBinaryOutsideDomain: --outside-domain runs what the recipe makes no
// claim about and labels it so. GTZero_ε(x) = ReLU(x/ε) − ReLU(x/ε − 1)
// at x = 1/8 in the gray region of ε = 1/4 is 1/2 − 0 = 1/2 (by hand);
// a lookup longer than N runs on the model built for N.
func TestBinaryOutsideDomain(t *testing.T) {
	tests := []struct {
		args []string
		want []string
	}{
		{[]string{"run", "--recipe", "gtzero", "--input", "1/8", "--outside-domain"}, []string{"gray region", "out=1/2"}},
		{[]string{"run", "--recipe", "lookup", "--input", "1:1 1:0 1:1", "--max-n", "2", "--outside-domain"}, []string{"3 positions, more than N = 2"}},
	}
	for _, tc := range tests {
		stdout, stderr, status := execVerify(t, tc.args...)
		if status != 0 || stderr != "" {
			t.Errorf("verify %q: exit status %d, stderr %q", tc.args, status, stderr)
		}
		for _, w := range append(tc.want, "OUTSIDE THE CLAIMED DOMAIN") {
			if !strings.Contains(stdout, w) {
				t.Errorf("verify %q: output lacks %q:\n%s", tc.args, w, stdout)
			}
		}
		rows := 0
		for _, line := range strings.Split(stdout, "\n") {
			if f := strings.Fields(line); len(f) > 0 && f[0] >= "1" && f[0] <= "9" {
				rows++
				if !strings.HasSuffix(line, "outside the claimed domain") {
					t.Errorf("verify %q: a row with a verdict outside the domain: %q", tc.args, line)
				}
			}
		}
		if rows == 0 {
			t.Errorf("verify %q: no output rows:\n%s", tc.args, stdout)
		}
	}
}

// TestBinaryExactPasses: in exact arithmetic AHAT lookup is right at every
// length it is given (the paper's claim for AHAT lookup), and the closing
// line says so with the largest length checked.
func TestBinaryExactPasses(t *testing.T) {
	stdout, stderr, status := execVerify(t, "--recipe", "lookup", "--precision", "exact", "--max-n", "30", "--seed", "7")
	if status != 0 || stderr != "" {
		t.Fatalf("exit status %d, stderr %q, stdout:\n%s", status, stderr, stdout)
	}
	if !strings.Contains(stdout, "seed 7") {
		t.Errorf("the seed is not printed:\n%s", stdout)
	}
	if !strings.Contains(stdout, "PASS: every case passed at every checked length up to n = 30") {
		t.Errorf("no PASS line up to 30:\n%s", stdout)
	}
	// One table row per default length: 1..8, then +25%, then 30.
	rows := regexp.MustCompile(`(?m)^\s+(\d+)\s+(\d+)\s+(certified|exhaustive|sampled)\s+(\d+)\s+(\d+)\s`).FindAllStringSubmatch(stdout, -1)
	var ns []string
	for _, r := range rows {
		ns = append(ns, r[1])
		if r[2] != r[4] || r[2] != r[5] {
			t.Errorf("row %q: cases, exact and passed differ", r[0])
		}
	}
	if got, want := strings.Join(ns, ","), "1,2,3,4,5,6,7,8,10,12,15,18,22,27,30"; got != want {
		t.Errorf("lengths %s, want %s", got, want)
	}
}

// jsonReport is the part of the --json document the tests read.
type jsonReport struct {
	Reports []struct {
		Precision    string `json:"precision"`
		Weighting    string `json:"weighting"`
		Seed         uint64 `json:"seed"`
		Limit        int    `json:"limit"`
		Passed       bool   `json:"passed"`
		FirstFailure *struct {
			N        int      `json:"n"`
			Input    string   `json:"input"`
			Position int      `json:"position"`
			Expected []string `json:"expected"`
			Actual   []string `json:"actual"`
		} `json:"first_failure"`
		Lengths []struct {
			N      int `json:"n"`
			Cases  int `json:"cases"`
			Passed int `json:"passed"`
		} `json:"lengths"`
	} `json:"reports"`
}

// TestBinaryFP16Finding: at fp16, AHAT lookup has a rounding tie at n = 46
// (derived by hand in recipes.TestLookupRoundingTies), so a sweep that
// checks n = 46 must fail there or earlier with exit status 1, and the
// failing input it reports, run on its own, must be wrong at the reported
// position with the reported output.
func TestBinaryFP16Finding(t *testing.T) {
	args := []string{"--recipe", "lookup", "--precision", "fp16", "--max-n", "46", "--lengths", "8,20,40,46", "--cases", "16", "--json"}
	stdout, stderr, status := execVerify(t, args...)
	if status != 1 {
		t.Fatalf("exit status %d, want 1 (a finding); stderr %q", status, stderr)
	}
	if !strings.Contains(stderr, "a check failed") {
		t.Errorf("stderr %q does not say a check failed", stderr)
	}
	var doc jsonReport
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
		t.Fatalf("--json output is not JSON: %v\n%s", err, stdout)
	}
	if len(doc.Reports) != 1 {
		t.Fatalf("%d reports, want 1", len(doc.Reports))
	}
	rep := doc.Reports[0]
	if rep.Passed || rep.FirstFailure == nil || rep.Precision != "fp16" || rep.Weighting != "AHAT" || rep.Seed != 1 {
		t.Fatalf("report %+v", rep)
	}
	f := rep.FirstFailure
	if rep.Limit >= f.N || f.N > 46 || f.Position < 1 || f.Position > f.N {
		t.Errorf("limit %d, first failure at n = %d, position %d", rep.Limit, f.N, f.Position)
	}
	last := rep.Lengths[len(rep.Lengths)-1]
	if last.N != f.N || last.Passed == last.Cases {
		t.Errorf("the sweep did not stop at the failing length: %+v", rep.Lengths)
	}

	// Replay the reported input through 'verify run'.
	out, errOut, st := execVerify(t, "run", "--recipe", "lookup", "--precision", "fp16", "--max-n", "46", "--input", f.Input)
	if st != 1 {
		t.Fatalf("run on the failing input: exit status %d, want 1; stderr %q\n%s", st, errOut, out)
	}
	row := resultRow(out, f.Position)
	if row == "" || !strings.Contains(row, "WRONG") {
		t.Fatalf("position %d is not reported wrong:\n%s", f.Position, out)
	}
	for k, label := range []string{"y", "c"} {
		if want := label + "=" + f.Actual[k]; !strings.Contains(row, want) {
			t.Errorf("run shows %q, the sweep reported %s", row, want)
		}
	}
}

// findRow returns the last line of out whose first field is first: the
// results table comes after the trace, whose component "1" would match
// position 1.
func findRow(out, first string) string {
	row := ""
	for _, line := range strings.Split(out, "\n") {
		if f := strings.Fields(line); len(f) > 0 && f[0] == first {
			row = line
		}
	}
	return row
}

// resultRow returns the row of 'verify run”s results table for position
// pos: the line that starts with pos and ends with a verdict (a summary
// line such as "1 of 46 positions wrong" starts with a number too).
func resultRow(out string, pos int) string {
	for _, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		if len(f) > 0 && f[0] == strconv.Itoa(pos) && (strings.Contains(line, "WRONG") || f[len(f)-1] == "ok") {
			return line
		}
	}
	return ""
}

// TestBinaryRunTrace: the trace shows the residual stream after each
// sublayer with named components; the values below are derived by hand
// from §Quadratic Maximization for the input with queries (2, 3, 1) and
// values (1, 0, 1): c_i = v_{q_i} = (0, 1, 1).
func TestBinaryRunTrace(t *testing.T) {
	stdout, stderr, status := execVerify(t, "run", "--recipe", "lookup", "--input", "2:1 3:0 1:1", "--trace")
	if status != 0 || stderr != "" {
		t.Fatalf("exit status %d, stderr %q\n%s", status, stderr, stdout)
	}
	for _, want := range []string{"embedding", "layer 1 attention", "layer 1 feed-forward"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("trace lacks %q:\n%s", want, stdout)
		}
	}
	// The j² row of the embedding: 1, 4, 9.
	if row := findRow(stdout, "j²"); !regexp.MustCompile(`j²\s+1\s+4\s+9\s*$`).MatchString(row) {
		t.Errorf("j² row %q, want 1 4 9", row)
	}
	for pos, want := range []string{"y=0 c=0", "y=1 c=1", "y=1 c=1"} {
		row := findRow(stdout, strconv.Itoa(pos+1))
		if strings.Count(row, want) != 2 || !strings.HasSuffix(strings.TrimSpace(row), "ok") {
			t.Errorf("position %d: %q, want output and expected %s, ok", pos+1, row, want)
		}
	}
}

// TestBinaryList: list names the recipe with its section (clipped to
// fit the line) and weightings.
func TestBinaryList(t *testing.T) {
	stdout, stderr, status := execVerify(t, "list")
	if status != 0 || stderr != "" {
		t.Fatalf("exit status %d, stderr %q", status, stderr)
	}
	row := findRow(stdout, "lookup")
	for _, want := range []string{"§Quadratic Maximiza", "AHAT, UHAT, SMAT", "index lookup by quadratic"} {
		if !strings.Contains(row, want) {
			t.Errorf("list row %q lacks %q", row, want)
		}
	}
}
