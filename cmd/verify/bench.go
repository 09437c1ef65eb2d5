package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"text/tabwriter"

	"github.com/transformer-cookbook/verify/bench"
)

// benchFlags are the flags of `verify bench`; --child is the hidden one a
// parent passes to the copy of itself that runs one case.
var benchFlags = []string{"case", "quick", "list", "json", "child"}

// --quick and --list take no value: parseArgs asks boolFlags, kept with
// the check's flags, so bench's own are added where they are defined.
func init() {
	boolFlags["quick"] = true
	boolFlags["list"] = true
}

// cmdBench runs the performance cases and prints each figure
// beside its bare baseline.
func cmdBench(args []string, stdout, stderr io.Writer) error {
	a, err := parseArgs(args, benchFlags...)
	if err != nil {
		return err
	}
	if len(a.positional) > 0 {
		return badInput("unexpected argument %q (flags: --case REGEX, --quick, --list, --json)", a.positional[0])
	}
	size := bench.Size{Quick: a.flags["quick"] == "true"}
	if name, ok := a.flags["child"]; ok {
		return benchChild(name, size, stdout)
	}
	var re *regexp.Regexp
	if v, ok := a.flags["case"]; ok {
		if re, err = regexp.Compile(v); err != nil {
			return badInput("--case: bad regular expression %q: %v", v, err)
		}
	}
	cases := bench.Select(re)
	if len(cases) == 0 {
		var names []string
		for _, c := range bench.Cases() {
			names = append(names, c.Name)
		}
		return badInput("--case %q matches no case; cases: %s", a.flags["case"], strings.Join(names, ", "))
	}
	if a.flags["list"] == "true" {
		tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "case\tunit\ttarget\tmeasures")
		for _, c := range cases {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", c.Name, c.Unit, c.Target.Text, c.Measures)
		}
		return tw.Flush()
	}
	exe, err := os.Executable()
	if err != nil {
		return fmt.Errorf("cannot find this program to run each case in a process of its own: %v", err)
	}
	bar := newProgress(stderr, a.flags["json"] == "true")
	opts := bench.Options{
		Size: size,
		Child: func(name string) *exec.Cmd {
			args := []string{"bench", "--child", name}
			if size.Quick {
				args = append(args, "--quick")
			}
			return exec.Command(exe, args...)
		},
		Progress: func(c bench.Case, k, total int) {
			if bar.on {
				fmt.Fprintf(bar.w, "\r\033[K[%d/%d] %s", k+1, total, c.Name)
			}
		},
	}
	machine := bench.ThisMachine()
	results := bench.Run(cases, opts)
	bar.clear()
	if a.flags["json"] == "true" {
		return writeJSON(stdout, struct {
			Schema  string         `json:"schema"`
			Machine bench.Machine  `json:"machine"`
			Seed    int            `json:"seed"`
			Quick   bool           `json:"quick,omitempty"`
			Results []bench.Result `json:"results"`
		}{schemaID(kindBench), machine, bench.Seed, size.Quick, results})
	}
	mode := ""
	if size.Quick {
		mode = ", --quick (small sizes: a smoke test, not a measurement)"
	}
	fmt.Fprintf(stdout, "machine: %s\nseed %d%s\n\n", machine, bench.Seed, mode)
	return bench.WriteTable(stdout, results)
}

// benchChild runs one case in this process and writes its result as one
// line of JSON, for the parent that reads this process's peak RSS.
func benchChild(name string, size bench.Size, stdout io.Writer) error {
	c, ok := bench.Get(name)
	if !ok {
		return badInput("--child: no case %q", name)
	}
	return json.NewEncoder(stdout).Encode(bench.Measure(c, size))
}
