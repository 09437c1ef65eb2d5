package main

import (
	"encoding/json"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/transformer-cookbook/verify/bench"
)

// benchTable splits the table of `verify bench` into rows of cells, cut
// at the header's column starts (cells hold spaces: "≤ 2 ns").
func benchTable(t *testing.T, out string) (header []string, rows [][]string) {
	t.Helper()
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	at := -1
	for k, l := range lines {
		if strings.HasPrefix(l, "case ") {
			at = k
			break
		}
	}
	if at < 0 {
		t.Fatalf("no table header in:\n%s", out)
	}
	var starts []int
	for k, r := range []rune(lines[at]) {
		if r != ' ' && (k == 0 || []rune(lines[at])[k-1] == ' ' && k >= 2 && []rune(lines[at])[k-2] == ' ') {
			starts = append(starts, k)
		}
	}
	cut := func(l string) []string {
		rs := []rune(l)
		var cells []string
		for c, s := range starts {
			end := len(rs)
			if c+1 < len(starts) {
				end = min(starts[c+1], len(rs))
			}
			if s > len(rs) {
				s = len(rs)
			}
			cells = append(cells, strings.TrimSpace(string(rs[s:end])))
		}
		return cells
	}
	header = cut(lines[at])
	for _, l := range lines[at+1:] {
		if utf8.RuneCountInString(l) == 0 {
			break // the table ends; the load and the targets missed follow
		}
		rows = append(rows, cut(l))
	}
	return header, rows
}

// TestBenchQuick runs two cases as a user would (through the built binary,
// which runs each case in a child of its own) and reads the table back.
func TestBenchQuick(t *testing.T) {
	cases := []string{"lookup-fp64", "sweep-dyck1-exact"}
	stdout, stderr, status := execVerify(t, "bench", "--quick", "--case", "^("+strings.Join(cases, "|")+")$")
	if status != 0 {
		t.Fatalf("status %d, stderr %q", status, stderr)
	}
	if !strings.HasPrefix(stdout, "machine: ") || !strings.Contains(stdout, "GOMAXPROCS") || !strings.Contains(stdout, "seed 1") {
		t.Errorf("no machine and seed lines:\n%s", stdout)
	}
	header, rows := benchTable(t, stdout)
	if strings.Join(header, "|") != strings.Join(bench.Columns, "|") {
		t.Fatalf("header %q, want %q", header, bench.Columns)
	}
	if len(rows) != len(cases) {
		t.Fatalf("%d rows, want %d:\n%s", len(rows), len(cases), stdout)
	}
	col := map[string]int{}
	for k, h := range header {
		col[h] = k
	}
	for k, row := range rows {
		if row[col["case"]] != cases[k] {
			t.Errorf("row %d is %q, want %q", k, row[col["case"]], cases[k])
		}
		if strings.HasPrefix(row[col["note"]], "error") {
			t.Errorf("%s: %s", cases[k], row[col["note"]])
			continue
		}
		if v, err := strconv.ParseFloat(row[col["others"]], 64); runtime.GOOS == "linux" && (err != nil || v < 0) {
			t.Errorf("%s: others %q is not a number of CPUs", cases[k], row[col["others"]])
		}
		for _, c := range []string{"figure", "wall", "baseline", "cpu s", "wall s"} {
			if v, err := strconv.ParseFloat(row[col[c]], 64); err != nil || v <= 0 {
				t.Errorf("%s: %s %q is not a positive number", cases[k], c, row[col[c]])
			}
		}
		if v, err := strconv.ParseFloat(strings.TrimSuffix(row[col["ratio"]], "×"), 64); err != nil || v <= 0 {
			t.Errorf("%s: ratio %q", cases[k], row[col["ratio"]])
		}
		// --quick judges no target.
		if m := row[col["met"]]; m != "—" {
			t.Errorf("%s: met %q, want —", cases[k], m)
		}
		if rss := row[col["peak RSS"]]; rss != "n/a" {
			if v, err := strconv.ParseFloat(strings.TrimSuffix(rss, "MiB"), 64); err != nil || v <= 0 {
				t.Errorf("%s: peak RSS %q", cases[k], rss)
			}
		}
	}
	// The forward pass counts allocations; the sweep, timed by the wall
	// clock, does not.
	if _, err := strconv.ParseFloat(rows[0][col["allocs/unit"]], 64); err != nil {
		t.Errorf("lookup-fp64: allocs %q", rows[0][col["allocs/unit"]])
	}
	if a := rows[1][col["allocs/unit"]]; a != "—" {
		t.Errorf("sweep: allocs %q, want —", a)
	}
}

// TestBenchJSON: --json holds the machine, the seed and one result per
// case, with the peak RSS the parent read from its child.
func TestBenchJSON(t *testing.T) {
	stdout, stderr, status := execVerify(t, "bench", "--quick", "--json", "--case", "^sweep-dyck1-exact$")
	if status != 0 {
		t.Fatalf("status %d, stderr %q", status, stderr)
	}
	var doc struct {
		Machine bench.Machine
		Seed    int
		Load    *bench.Load
		Results []bench.Result
	}
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
		t.Fatalf("%v:\n%s", err, stdout)
	}
	if doc.Machine.CPUs < 1 || doc.Seed != bench.Seed || len(doc.Results) != 1 {
		t.Fatalf("got %+v", doc)
	}
	r := doc.Results[0]
	if r.Error != "" || r.Figure <= 0 || r.Baseline == nil || r.Ratio == nil || r.Met != nil || r.Target != "≤ 30 s" {
		t.Errorf("result %+v", r)
	}
	// The child's CPU time from its rusage, the figure by the wall clock
	// beside the CPU one, and the load on Linux, per case and for the run.
	if r.CPUSeconds <= 0 || r.FigureWall == nil || *r.FigureWall <= 0 || r.Seconds <= 0 {
		t.Errorf("no CPU seconds, wall figure or wall seconds: %+v", r)
	}
	if runtime.GOOS == "linux" && (r.Load == nil || r.Load.Seconds <= 0 || doc.Load == nil || doc.Load.Seconds < r.Load.Seconds) {
		t.Errorf("no load: case %+v, run %+v", r.Load, doc.Load)
	}
}

func TestBenchList(t *testing.T) {
	stdout, stderr, status := runCmd("bench", "--list")
	if status != 0 {
		t.Fatalf("status %d, stderr %q", status, stderr)
	}
	for _, c := range bench.Cases() {
		if !strings.Contains(stdout, c.Name+" ") {
			t.Errorf("--list lacks %s", c.Name)
		}
	}
}

// TestBenchBadInput: exit status 2, nothing on stdout, one line on
// stderr naming the problem.
func TestBenchBadInput(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"bench", "--bogus"}, `unknown flag "--bogus"`},
		{[]string{"bench", "--case", "("}, "bad regular expression"},
		{[]string{"bench", "--case", "^nothing$"}, "matches no case"},
		{[]string{"bench", "--case"}, "flag --case needs a value"},
		{[]string{"bench", "extra"}, `unexpected argument "extra"`},
		{[]string{"bench", "--child", "nope"}, `no case "nope"`},
	} {
		stdout, stderr, status := runCmd(tc.args...)
		if status != 2 || stdout != "" || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, tc.want) {
			t.Errorf("%q: status %d, stdout %q, stderr %q; want 2, nothing, one line with %q", tc.args, status, stdout, stderr, tc.want)
		}
	}
}

// TestBenchTargetExit: a target not met is a finding (exit status 1,
// named on stdout), in the table and in JSON; a case that only reports
// passes; --quick judges no target. The unmeetable target comes from the
// test hook, so that the verdict does not hang on the machine's speed.
func TestBenchTargetExit(t *testing.T) {
	const one = "^op-fp64-add$" // a "report" case, about 1 s to measure
	unmeetable := []string{unmeetableEnv + "=op-fp64-add"}

	stdout, stderr, status := execVerifyEnv(t, unmeetable, "bench", "--case", one)
	if status != 1 || !strings.HasSuffix(stdout, "\n\n1 target not met: op-fp64-add\n") {
		t.Errorf("unmeetable: status %d, stderr %q, stdout:\n%s", status, stderr, stdout)
	} else if f := strings.Fields(findRow(stdout, "op-fp64-add")); !strings.Contains(strings.Join(f, " "), "unmeetable NO") {
		t.Errorf("unmeetable: row %q", f)
	}

	stdout, stderr, status = execVerifyEnv(t, unmeetable, "bench", "--json", "--case", one)
	var doc struct{ Results []struct{ Met *bool } }
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil || status != 1 || len(doc.Results) != 1 || doc.Results[0].Met == nil || *doc.Results[0].Met {
		t.Errorf("unmeetable --json: status %d, %v, stderr %q, stdout:\n%s", status, err, stderr, stdout)
	}

	stdout, stderr, status = execVerifyEnv(t, unmeetable, "bench", "--quick", "--case", one)
	if status != 0 || !strings.Contains(stdout, "no target is judged") || strings.Contains(stdout, "not met") {
		t.Errorf("--quick: status %d, stderr %q, stdout:\n%s", status, stderr, stdout)
	}

	stdout, stderr, status = execVerify(t, "bench", "--case", one)
	if status != 0 || strings.Contains(stdout, "not met") {
		t.Errorf("report only: status %d, stderr %q, stdout:\n%s", status, stderr, stdout)
	}
}
