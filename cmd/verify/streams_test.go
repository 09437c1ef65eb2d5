package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

// execVerifyIn runs the built binary with args and stdin as its standard
// input.
func execVerifyIn(t *testing.T, stdin []byte, args ...string) (stdout, stderr string, status int) {
	t.Helper()
	cmd := exec.Command(verifyBin, args...)
	var out, errb bytes.Buffer
	cmd.Stdin, cmd.Stdout, cmd.Stderr = bytes.NewReader(stdin), &out, &errb
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &exit):
		status = exit.ExitCode()
	default:
		t.Fatalf("running verify %q: %v", args, err)
	}
	return out.String(), errb.String(), status
}

// TestBinaryRunSizing: run builds its model for the input's positions,
// not its characters. A lookup-ao input of 100 positions (491
// characters) runs with --max-n 100, for which an almost orthogonal
// family exists (not for N = 491); a lookup input of 20,000 positions
// (about 160,000 characters, past the 65,536 the recipe builds) runs at
// fp64. Each position i queries q_i and must read v_{q_i}, the value
// typed at position q_i.
func TestBinaryRunSizing(t *testing.T) {
	for _, tc := range []struct {
		recipe string
		n      int
		args   []string
	}{
		{"lookup-ao", 100, []string{"--max-n", "100"}},
		{"lookup", 20000, []string{"--precision", "fp64"}},
	} {
		// Queries spread over [1, n] by a stride prime to n, values a
		// pattern of bits that is not periodic in the stride.
		qs, vs := make([]int, tc.n), make([]int, tc.n)
		fields := make([]string, tc.n)
		for i := range qs {
			qs[i], vs[i] = (i*7919)%tc.n+1, (i*i/3)%2
		}
		for i := range qs {
			fields[i] = strings.Join([]string{strconv.Itoa(qs[i]), strconv.Itoa(vs[i])}, ":")
		}
		input := strings.Join(fields, " ")
		args := append([]string{"run", "--recipe", tc.recipe, "--inputs", "-", "--json"}, tc.args...)
		stdout, stderr, status := execVerifyIn(t, []byte(input+"\n"), args...)
		if status != 0 {
			t.Errorf("%s with %d positions (%d characters): status %d: %s", tc.recipe, tc.n, len(input), status, stderr)
			continue
		}
		var d struct {
			Runs []struct {
				MaxN      int `json:"max_n"`
				Wrong     int
				Positions []struct {
					Values []struct{ Label, Exact string }
				}
			}
		}
		if err := json.Unmarshal([]byte(stdout), &d); err != nil || len(d.Runs) != 1 {
			t.Fatalf("%s: %v", tc.recipe, err)
		}
		run := d.Runs[0]
		if run.MaxN != tc.n || run.Wrong != 0 || len(run.Positions) != tc.n {
			t.Errorf("%s: N = %d, %d wrong, %d positions; want N = %d, none wrong", tc.recipe, run.MaxN, run.Wrong, len(run.Positions), tc.n)
			continue
		}
		for i, p := range run.Positions {
			for _, v := range p.Values {
				if v.Label == "c" && v.Exact != strconv.Itoa(vs[qs[i]-1]) {
					t.Errorf("%s: position %d queries %d: c = %s, want %d", tc.recipe, i+1, qs[i], v.Exact, vs[qs[i]-1])
					break
				}
			}
		}
	}
}
