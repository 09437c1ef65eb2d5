package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// TestBinaryHelp: every command answers --help, -h and 'verify help CMD'
// alike, on stdout with exit status 0: its usage, every flag it accepts
// (with the defaults stated in its table) and an example, in lines of at
// most 100 columns.
func TestBinaryHelp(t *testing.T) {
	for _, c := range commands {
		want, stderr, status := execVerify(t, "help", c.name)
		if status != 0 || stderr != "" {
			t.Errorf("verify help %s: status %d, stderr %q", c.name, status, stderr)
			continue
		}
		var asks [][]string
		switch c.name {
		case "check":
			asks = [][]string{{"check", "--help"}, {"check", "-h"}, {"--recipe", "lookup", "--help"}}
		case "help":
			asks = [][]string{{"help", "--help"}, {"help", "-h"}}
		case "version":
			asks = [][]string{{"version", "--help"}, {"version", "-h"}}
		default:
			asks = [][]string{{c.name, "--help"}, {c.name, "-h"}, {c.name, "-help"}}
		}
		for _, args := range asks {
			got, stderr, status := execVerify(t, args...)
			if status != 0 || stderr != "" || got != want {
				t.Errorf("verify %q: status %d, stderr %q, and stdout differs from 'verify help %s':\n%s", args, status, stderr, c.name, got)
			}
		}
		for _, part := range []string{"verify " + c.name + ": ", "Usage:\n", "Examples:\n"} {
			if !strings.Contains(want, part) {
				t.Errorf("verify help %s lacks %q:\n%s", c.name, part, want)
			}
		}
		for _, f := range c.flags {
			if f.hidden {
				if strings.Contains(want, "--"+f.name) {
					t.Errorf("verify help %s shows the hidden --%s", c.name, f.name)
				}
				continue
			}
			if !strings.Contains(want, "  "+flagSynopsis(f)+" ") {
				t.Errorf("verify help %s does not list %s", c.name, flagSynopsis(f))
			}
			if f.def != "" && !strings.Contains(strings.Join(strings.Fields(want), " "), "(default: "+f.def+")") {
				t.Errorf("verify help %s does not state the default of --%s", c.name, f.name)
			}
		}
		checkWidth(t, "verify help "+c.name, want)
	}
	overview, stderr, status := execVerify(t, "help")
	if status != 0 || stderr != "" {
		t.Fatalf("verify help: status %d, stderr %q", status, stderr)
	}
	for _, args := range [][]string{{"--help"}, {"-h"}} {
		if got, _, status := execVerify(t, args...); status != 0 || got != overview {
			t.Errorf("verify %q: status %d, not the overview", args, status)
		}
	}
	for _, c := range commands {
		if !strings.Contains(overview, "  "+c.name+" ") {
			t.Errorf("the overview does not list %s", c.name)
		}
	}
	checkWidth(t, "verify help", overview)
}

func checkWidth(t *testing.T, what, text string) {
	t.Helper()
	for _, line := range strings.Split(text, "\n") {
		if n := len([]rune(line)); n > 100 {
			t.Errorf("%s: a line of %d columns: %q", what, n, line)
		}
	}
}

// TestHelpExamplesParse: every example in the help names flags its
// command accepts, so the help cannot drift from the parser.
func TestHelpExamplesParse(t *testing.T) {
	for _, c := range commands {
		for _, ex := range c.examples {
			args := shellWords(t, ex)
			if len(args) == 0 || args[0] != "verify" {
				t.Errorf("%s: example %q does not start with verify", c.name, ex)
				continue
			}
			args = args[1:]
			command := c.name
			switch {
			case c.name == "check" && strings.HasPrefix(args[0], "-"):
			case c.name == "version" || c.name == "help":
				continue
			case args[0] == c.name:
				args = args[1:]
			default:
				t.Errorf("%s: example %q runs another command", c.name, ex)
				continue
			}
			if _, err := parseArgs(command, args); err != nil {
				t.Errorf("%s: example %q: %v", c.name, ex, err)
			}
		}
	}
}

// shellWords splits a command line as sh would, for the quoting the
// examples use: double quotes around a word with spaces.
func shellWords(t *testing.T, s string) []string {
	var words []string
	var cur strings.Builder
	quoted, inWord := false, false
	for _, r := range s {
		switch {
		case r == '"':
			quoted, inWord = !quoted, true
		case r == ' ' && !quoted:
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		default:
			cur.WriteRune(r)
			inWord = true
		}
	}
	if quoted {
		t.Fatalf("unbalanced quotes in %q", s)
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words
}

// TestFlagsDocumented: every flag a command accepts is in that
// command's rows of the reference, docs/commands.md.
func TestFlagsDocumented(t *testing.T) {
	doc, err := os.ReadFile("../../docs/commands.md")
	if err != nil {
		t.Fatal(err)
	}
	rows := map[string]string{} // command → its rows of the table
	for _, line := range strings.Split(string(doc), "\n") {
		rest, ok := strings.CutPrefix(line, "| `verify ")
		if !ok {
			continue
		}
		name, _, _ := strings.Cut(rest, " ")
		name = strings.Trim(name, "`[],")
		if strings.HasPrefix(name, "-") {
			name = "check" // verify --recipe, verify --version
			if strings.HasPrefix(rest, "--version") {
				name = "version"
			}
		}
		rows[name] += line
	}
	for _, c := range commands {
		row, ok := rows[c.name]
		if !ok {
			t.Errorf("docs/commands.md has no row for verify %s", c.name)
			continue
		}
		for _, f := range c.flags {
			if !f.hidden && !strings.Contains(row, "--"+f.name) {
				t.Errorf("docs/commands.md does not mention --%s in the rows of verify %s", f.name, c.name)
			}
		}
	}
}

// TestBinarySuggestions: a misspelt recipe, precision, weighting, flag,
// command or claim ID gets the closest names, not the whole list: one
// line, exit status 2.
func TestBinarySuggestions(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--recipe", "lokup"}, `unknown recipe "lokup": did you mean lookup?`},
		{[]string{"--recipe", "lookup", "--maxn", "8"}, `unknown flag "--maxn": did you mean --max-n?`},
		{[]string{"--recipe", "lookup", "--precison", "fp16"}, `did you mean --precision?`},
		{[]string{"--recipe", "lookup", "--precision", "fp61"}, `unknown precision "fp61": did you mean fp64 or fp16?`},
		{[]string{"--recipe", "lookup", "--weighting", "ahta"}, `unknown weighting "ahta": did you mean AHAT?`},
		{[]string{"fronteir"}, `unknown command "fronteir": did you mean frontier?`},
		{[]string{"help", "claim"}, `no command "claim": did you mean claims?`},
		{[]string{"claims", "--id", "lemma.edleman"}, `unknown claim "lemma.edleman": did you mean lemma.edelman?`},
		{[]string{"run", "--recipe", "lookup", "--inptu", "1:0"}, `did you mean --input or --inputs?`},
		{[]string{"--recipe", "boolean", "--param", "tabel=0110"}, `boolean has no parameter "tabel": did you mean table?`},
	} {
		stdout, stderr, status := execVerify(t, tc.args...)
		if status != 2 || stdout != "" || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, tc.want) {
			t.Errorf("verify %q: status %d, stdout %q, stderr %q; want 2 and one line with %q", tc.args, status, stdout, stderr, tc.want)
		}
		if len(stderr) > 300 {
			t.Errorf("verify %q: a message of %d bytes lists too much: %q", tc.args, len(stderr), stderr)
		}
	}
}

// TestBinaryVersion: --version prints the module version, the revision
// the binary was built from (when the build recorded one) and the Go
// version, exit 0.
func TestBinaryVersion(t *testing.T) {
	for _, args := range [][]string{{"--version"}, {"version"}} {
		stdout, stderr, status := execVerify(t, args...)
		if status != 0 || stderr != "" || !strings.HasPrefix(stdout, "verify ") || !strings.HasSuffix(stdout, ", "+runtime.Version()+"\n") {
			t.Errorf("verify %q: status %d, stdout %q, stderr %q", args, status, stdout, stderr)
		}
	}
	// A build that records version control names the checkout's commit.
	head, err := exec.Command("git", "rev-parse", "HEAD").Output()
	if err != nil {
		t.Skipf("no git checkout to compare the revision with: %v", err)
	}
	bin := filepath.Join(t.TempDir(), "verify")
	build := exec.Command("go", "build", "-buildvcs=true", "-o", bin, ".")
	if out, err := build.CombinedOutput(); err != nil {
		t.Skipf("go build -buildvcs=true: %v\n%s", err, out)
	}
	out, err := exec.Command(bin, "--version").Output()
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(out), "revision unknown") {
		// Go does not stamp every checkout (a git worktree, some
		// sandboxes); the line then says so, which the loop above read.
		t.Skipf("go build -buildvcs=true recorded no revision here: %s", out)
	}
	if rev := strings.TrimSpace(string(head)); !strings.Contains(string(out), "revision "+rev) {
		t.Errorf("verify --version = %q, want revision %s", out, rev)
	}
}

// TestBinaryCompletion: the bash completion script parses, and completes
// commands, each command's flags and the recipe names, as bash runs it.
func TestBinaryCompletion(t *testing.T) {
	script, stderr, status := execVerify(t, "completion", "bash")
	if status != 0 || stderr != "" {
		t.Fatalf("status %d, stderr %q", status, stderr)
	}
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash here")
	}
	for _, tc := range []struct {
		words []string
		want  string
	}{
		{[]string{"verify", "fro"}, "frontier"},
		{[]string{"verify", "frontier", "--pre"}, "--precision"},
		{[]string{"verify", "--max"}, "--max-input-size --max-n"},
		{[]string{"verify", "--recipe", "lookup-o"}, "lookup-onehot"},
		{[]string{"verify", "run", "--precision", "fp8"}, "fp8-e4m3 fp8-e5m2"},
		{[]string{"verify", "export", "--dt"}, "--dtype"},
	} {
		prog := script + "\nCOMP_WORDS=(" + strings.Join(tc.words, " ") + "); COMP_CWORD=" + strconv.Itoa(len(tc.words)-1) + "; _verify; echo \"${COMPREPLY[*]}\"\n"
		out, err := exec.Command(bash, "-c", prog).Output()
		if err != nil || strings.TrimSpace(string(out)) != tc.want {
			t.Errorf("completing %q: %q, %v; want %q", tc.words, out, err, tc.want)
		}
	}
}

// TestHelpExamplesRun: every example in the help runs, in a directory
// holding the files the examples name, and ends with exit status 0 or 1
// (1: a finding, as the lookup's failure in fp16), never 2, the status of
// bad input: an example that the tool refuses misleads whoever copies it.
// The examples that take minutes, or read an earlier one's shards, are
// named with the reason; the long ones run in the long tier.
func TestHelpExamplesRun(t *testing.T) {
	skip := map[string]string{
		"verify claims": "every claim of the registry: minutes (the claims' tests run them)",
		"verify frontier --all --shard 1/4 --out p1-1.json":                          "a quarter of every recipe's frontier: minutes",
		"verify frontier --phase 2 --shard 1/4 p1-*.json --out p2-1.json":            "reads the phase-1 shards of the example before",
		"verify merge p1-*.json p2-*.json --out lookup.json":                         "reads the shards of the examples before",
		"verify bench --case lookup":                                                 "a benchmark: seconds to minutes, and its numbers are timings",
		"verify bench --quick":                                                       "a benchmark",
		"verify completion bash > ~/.local/share/bash-completion/completions/verify": "writes into the home directory",
	}
	dir := t.TempDir()
	t.Chdir(dir)
	// The files the examples read.
	for _, args := range [][]string{
		{"export", "--recipe", "first", "--out", "first.json"},
		{"export", "--recipe", "lookup", "--n", "4", "--out", "l.json"},
		{"check", "--model", "l.json", "--spec", "lookup", "--precision", "fp32", "--lengths", "4", "--certificate", "l.cert.json", "--quiet"},
		{"check", "--recipe", "lookup", "--precision", "fp32", "--lengths", "4", "--certificate", "lookup.cert.json", "--quiet"},
	} {
		if _, errOut, status := runCmd(args...); status != 0 {
			t.Fatalf("verify %v: status %d: %s", args, status, errOut)
		}
	}
	for _, c := range commands {
		for _, ex := range c.examples {
			if why, ok := skip[ex]; ok {
				t.Logf("skipped %q: %s", ex, why)
				continue
			}
			args := shellWords(t, ex)[1:]
			_, errOut, status := runCmd(args...)
			if status != 0 && status != 1 || strings.Contains(errOut, "panic") {
				t.Errorf("%s: example %q: status %d: %s", c.name, ex, status, errOut)
			}
		}
	}
}
