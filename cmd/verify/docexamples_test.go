package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/transformer-cookbook/verify/internal/testenv"
)

// The documented examples: every command of a fenced sh block of
// README.md and docs/*.md that runs the tool ("go run ./cmd/verify …")
// is run, in the order written, in a fresh directory per file (so that
// an export's file is there for the check after it), and what the docs
// show of it must be what it prints:
//
//   - a fenced block tagged text is output: the stdout of the last
//     command before it in the same file; several text blocks after one
//     command are excerpts of its output, in order;
//   - a comment line "# verify: …" right after a command is its stderr,
//     with "(exit N)" its exit status.
//
// In shown output a line "…" (or "...") stands for any number of lines,
// "…" inside a line for any text, and durations ("2.5 s", "40 ms") for
// any duration. A command without "(exit N)" must exit 0, or 1 with a
// finding (FAIL, UNDECIDED, WRONG or a first failure) in what it printed.
// Commands that are not the tool's (go test, sbatch, kubectl, apt-get)
// are not run; the PyTorch examples ("/usr/bin/python3 python/…") run
// where /usr/bin/python3 imports torch, and the commands after them in
// their file are skipped where it does not. testdata/doc-examples.txt
// names the commands too long for the default tier.

// docCommand is one command of the docs with what they show of it.
type docCommand struct {
	file   string
	line   int
	text   string   // as written, continuation lines joined
	args   string   // after "go run ./cmd/verify ", first line only; "" for other commands
	python bool     // a PyTorch example
	shown  []string // the text blocks after it, each a block of lines
	stderr string   // the "# verify: …" lines after it, joined
	status int      // the "(exit N)" shown, or -1
}

var (
	docDuration = regexp.MustCompile(`\d+(\.\d+)? ?(ms|µs|s|minutes?|seconds?)\b`)
	docExit     = regexp.MustCompile(`\s*\(exit (\d+)\)\s*$`)
)

// parseDocCommands reads the commands of one Markdown file.
func parseDocCommands(file string, data []byte) ([]*docCommand, error) {
	var cmds []*docCommand
	var last *docCommand // the last tool command, owner of text blocks
	lines := strings.Split(string(data), "\n")
	for i := 0; i < len(lines); i++ {
		fence, ok := strings.CutPrefix(lines[i], "```")
		if !ok {
			continue
		}
		start := i + 1
		end := start
		for end < len(lines) && !strings.HasPrefix(lines[end], "```") {
			end++
		}
		if end == len(lines) {
			return nil, fmt.Errorf("%s:%d: a fenced block is not closed", file, i+1)
		}
		body := lines[start:end]
		i = end
		switch strings.TrimSpace(fence) {
		case "text":
			if last == nil {
				return nil, fmt.Errorf("%s:%d: output shown before any command", file, start)
			}
			last.shown = append(last.shown, strings.Join(body, "\n"))
		case "sh":
			var cur *docCommand
			for k := 0; k < len(body); k++ {
				l := body[k]
				if c, ok := strings.CutPrefix(strings.TrimSpace(l), "# "); ok && cur != nil && (strings.HasPrefix(c, "verify: ") || cur.stderr != "") {
					cur.stderr = strings.TrimSpace(cur.stderr + " " + strings.TrimSpace(c))
					continue
				}
				if strings.TrimSpace(l) == "" || strings.HasPrefix(strings.TrimSpace(l), "#") {
					continue
				}
				c := &docCommand{file: file, line: start + k + 1, status: -1}
				text := stripComment(l)
				first := text
				for strings.HasSuffix(text, "\\") && k+1 < len(body) {
					k++
					text = strings.TrimSuffix(text, "\\") + " " + strings.TrimSpace(stripComment(body[k]))
				}
				c.text = text
				if a, ok := strings.CutPrefix(first, "go run ./cmd/verify "); ok {
					c.args = strings.TrimSpace(strings.TrimSuffix(a, "\\"))
					last = c
				}
				c.python = strings.Contains(text, "/usr/bin/python3 python/") || strings.Contains(text, "/usr/bin/python3 -c")
				cmds = append(cmds, c)
				cur = c
			}
			for _, c := range cmds {
				if m := docExit.FindStringSubmatch(c.stderr); m != nil {
					fmt.Sscan(m[1], &c.status)
					c.stderr = docExit.ReplaceAllString(c.stderr, "")
				}
			}
		}
	}
	return cmds, nil
}

// stripComment drops a trailing "   # comment" (two spaces or more before
// the #, as the docs align them) from a shell line.
func stripComment(l string) string {
	if k := strings.Index(l, "  #"); k >= 0 {
		l = l[:k]
	}
	return strings.TrimRight(l, " ")
}

// docTiers reads testdata/doc-examples.txt: file and command → tier.
func docTiers(t *testing.T) map[string]string {
	f, err := os.Open("testdata/doc-examples.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tiers := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		l := strings.TrimSpace(sc.Text())
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		f := strings.SplitN(l, " ", 3)
		if len(f) != 3 || f[0] != "long" && f[0] != "manual" {
			t.Fatalf("testdata/doc-examples.txt: %q is not TIER FILE COMMAND", l)
		}
		tiers[f[1]+" "+f[2]] = f[0]
	}
	return tiers
}

// docFiles is README.md and docs/*.md, from the module root.
func docFiles(t *testing.T) []string {
	files, err := filepath.Glob("../../docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	return append([]string{"../../README.md"}, files...)
}

// matchShown reports whether the shown lines are in got, in order, with
// "…" lines eliding any lines, "…" in a line any text, and durations
// any duration; it returns the first shown line not found.
func matchShown(shown, got string) (bool, string) {
	norm := func(s string) string { return docDuration.ReplaceAllString(strings.TrimRight(s, " "), "D") }
	gl := strings.Split(strings.TrimRight(got, "\n"), "\n")
	for k := range gl {
		gl[k] = norm(gl[k])
	}
	pos, gap := 0, true // an excerpt may start anywhere
	for _, s := range strings.Split(shown, "\n") {
		s = norm(s)
		if t := strings.TrimSpace(s); t == "…" || t == "..." {
			gap = true
			continue
		}
		re := regexp.MustCompile("^" + strings.ReplaceAll(regexp.QuoteMeta(s), "…", ".*") + "$")
		found := -1
		for k := pos; k < len(gl); k++ {
			if re.MatchString(gl[k]) {
				found = k
				break
			}
			if !gap {
				break
			}
		}
		if found < 0 {
			return false, s
		}
		pos, gap = found+1, false
	}
	return true, ""
}

// finding says whether the output reports a finding (exit status 1).
func finding(out string) bool {
	return strings.Contains(out, "FAIL") || strings.Contains(out, "UNDECIDED") || strings.Contains(out, "first failure") || strings.Contains(out, "WRONG")
}

// TestDocExamples runs the documented commands (see above).
func TestDocExamples(t *testing.T) {
	tiers := docTiers(t)
	torch := exec.Command("/usr/bin/python3", "-c", "import torch").Run() == nil
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, file := range docFiles(t) {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		name := strings.TrimPrefix(file, "../../")
		cmds, err := parseDocCommands(name, data)
		if err != nil {
			t.Fatal(err)
		}
		dir := t.TempDir()
		for _, sub := range []string{"docs"} {
			if err := os.Mkdir(filepath.Join(dir, sub), 0o755); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.Symlink(filepath.Join(root, "python"), filepath.Join(dir, "python")); err != nil {
			t.Fatal(err)
		}
		blocked := "" // why the commands after a skipped PyTorch example cannot run
		for _, c := range cmds {
			where := fmt.Sprintf("%s:%d", c.file, c.line)
			if c.args == "" && !c.python {
				continue // not the tool's command: go test, sbatch, kubectl, apt-get
			}
			if c.python && !torch {
				blocked = fmt.Sprintf("%s needs PyTorch under /usr/bin/python3", where)
				continue
			}
			key := name + " " + c.args
			seen[key] = true
			switch tiers[key] {
			case "long":
				if !testenv.LongEnabled() {
					continue
				}
			case "manual":
				if os.Getenv("VERIFY_DOCS") == "" {
					continue
				}
			}
			if blocked != "" && !c.python {
				t.Logf("%s: skipped: after %s", where, blocked)
				continue
			}
			t.Run(where, func(t *testing.T) {
				runDocCommand(t, c, dir)
			})
		}
	}
	for key := range tiers {
		if !seen[key] {
			t.Errorf("testdata/doc-examples.txt names %q, which no doc shows", key)
		}
	}
}

// runDocCommand runs c in dir through sh, the tool as the built binary,
// and compares it with what the docs show.
func runDocCommand(t *testing.T, c *docCommand, dir string) {
	text := strings.ReplaceAll(c.text, "go run ./cmd/verify", verifyBin)
	cmd := exec.Command("sh", "-c", text)
	cmd.Dir = dir
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	status := 0
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		status = exit.ExitCode()
	} else if err != nil {
		t.Fatalf("%s: %v", c.text, err)
	}
	switch {
	case c.status >= 0 && status != c.status:
		t.Errorf("%s: exit status %d, the docs show %d\nstderr: %s", c.text, status, c.status, errb.String())
	case c.status < 0 && status != 0 && !(status == 1 && finding(out.String())):
		t.Errorf("%s: exit status %d\nstdout: %s\nstderr: %s", c.text, status, out.String(), errb.String())
	}
	for _, shown := range c.shown {
		if ok, line := matchShown(shown, out.String()); !ok {
			t.Errorf("%s: the docs show\n%s\nbut it prints\n%s\n(first line not found: %q)", c.text, shown, out.String(), line)
		}
	}
	if c.stderr != "" {
		if ok, _ := matchShown(c.stderr, strings.Join(strings.Fields(errb.String()), " ")); !ok {
			t.Errorf("%s: the docs show on stderr\n%s\nbut it prints\n%s", c.text, c.stderr, errb.String())
		}
	}
}

// TestMatchShown checks the comparison on hand-made cases: it must fail
// on a changed line, a missing line and lines out of order.
func TestMatchShown(t *testing.T) {
	got := "header\nn = 1 in 2.5 s\nmiddle\nFAIL: at n = 46\n  input 1 2 3\n"
	for _, tc := range []struct {
		shown string
		want  bool
	}{
		{"header\nn = 1 in 7 s", true},
		{"header\n…\nFAIL: at n = 46", true},
		{"FAIL: at n = …\n  input 1 …", true},
		{"header\nFAIL: at n = 46", false}, // a line skipped without …
		{"FAIL: at n = 45", false},
		{"FAIL: at n = 46\nheader", false},
		{"header\n…\nnot there", false},
	} {
		if ok, _ := matchShown(tc.shown, got); ok != tc.want {
			t.Errorf("matchShown(%q) = %v, want %v", tc.shown, ok, tc.want)
		}
	}
}
