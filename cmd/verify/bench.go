package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/transformer-cookbook/verify/bench"
	"github.com/transformer-cookbook/verify/internal/plural"
)

// unmeetableEnv names, comma-separated, cases whose target the parent
// replaces by one no figure meets: the tests' way to see a target missed
// without depending on the machine's speed.
const unmeetableEnv = "VERIFY_BENCH_UNMEETABLE"

// cmdBench runs the performance cases and prints each figure beside its
// bare baseline. A target not met is a finding (exit status 1), except
// with --quick, whose small sizes measure nothing a target speaks of: it
// judges none, and fails only when a case cannot run.
func cmdBench(args []string, stdout, stderr io.Writer) error {
	o := new(benchOptions)
	positional, err := parseFlags("bench", args, o)
	if err != nil {
		return err
	}
	if len(positional) > 0 {
		return badInput("unexpected argument %q (flags: --case REGEX, --quick, --list, --json)", positional[0])
	}
	size := bench.Size{Quick: o.quick.on()}
	if o.child.set {
		return benchChild(o.child.text, size, stdout)
	}
	cases, err := o.selected()
	if err != nil {
		return err
	}
	if o.list.on() {
		tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "case\tunit\ttarget\tmeasures")
		for _, c := range cases {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", c.Name, c.Unit, c.Target.Text, c.Measures)
		}
		return tw.Flush()
	}
	exe, err := os.Executable()
	if err != nil {
		return fmt.Errorf("cannot find this program to run each case in a process of its own: %w", err)
	}
	bar := newProgress(stderr, &o.commonOptions)
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
			bar.show(c.Name, k, total, "cases", float64(k)/float64(total))
		},
	}
	machine := bench.ThisMachine()
	before := bench.SampleLoad()
	results := bench.Run(cases, opts)
	own := 0.0
	for _, r := range results {
		own += r.CPUSeconds
	}
	load := bench.Between(before, bench.SampleLoad(), own)
	bar.clear()
	if o.json.on() {
		return writeBenchJSON(stdout, machine, size, load, results)
	}
	return writeBench(stdout, machine, size, load, results)
}

// selected returns the cases of --case (every one without it), the
// targets named in $VERIFY_BENCH_UNMEETABLE made unmeetable.
func (o *benchOptions) selected() ([]bench.Case, error) {
	var re *regexp.Regexp
	if o.cases.set {
		var err error
		if re, err = regexp.Compile(o.cases.text); err != nil {
			return nil, badInput("--case: bad regular expression %q: %v", o.cases.text, err)
		}
	}
	cases := bench.Select(re)
	if names := os.Getenv(unmeetableEnv); names != "" {
		for k, c := range cases {
			if slices.Contains(strings.Split(names, ","), c.Name) {
				cases[k].Target = bench.Target{Text: "unmeetable", Met: func(*bench.Result) bool { return false }}
			}
		}
	}
	if len(cases) == 0 {
		var names []string
		for _, c := range bench.Cases() {
			names = append(names, c.Name)
		}
		return nil, badInput("--case %q matches no case; cases: %s", o.cases.text, strings.Join(names, ", "))
	}
	return cases, nil
}

// writeBenchJSON prints the results as one JSON document; a target not
// met is a finding.
func writeBenchJSON(stdout io.Writer, machine bench.Machine, size bench.Size, load *bench.Load, results []bench.Result) error {
	err := writeJSON(stdout, struct {
		Schema  string         `json:"schema"`
		Machine bench.Machine  `json:"machine"`
		Seed    int            `json:"seed"`
		Quick   bool           `json:"quick,omitempty"`
		Load    *bench.Load    `json:"load,omitempty"`
		Results []bench.Result `json:"results"`
	}{schemaID(kindBench), machine, bench.Seed, size.Quick, load, results})
	if err == nil && len(bench.Unmet(results)) > 0 {
		err = errFindings
	}
	return err
}

// writeBench prints the results as a table; a target not met is a
// finding.
func writeBench(stdout io.Writer, machine bench.Machine, size bench.Size, load *bench.Load, results []bench.Result) error {
	mode := ""
	if size.Quick {
		mode = ", --quick (small sizes: a smoke test, not a measurement; no target is judged)"
	}
	fmt.Fprintf(stdout, "machine: %s\nseed %d%s\n", machine, bench.Seed, mode)
	fmt.Fprintf(stdout, "figures from CPU time (user + sys, every thread of the case's process), the wall column by the wall clock; targets are judged on CPU time\n\n")
	if err := bench.WriteTable(stdout, results); err != nil {
		return err
	}
	if load != nil {
		fmt.Fprintf(stdout, "\nload during the run: %s, of %s\n", load, plural.Of(machine.CPUs, "CPU"))
	}
	if unmet := bench.Unmet(results); len(unmet) > 0 {
		fmt.Fprintf(stdout, "\n%s not met: %s\n", plural.Of(len(unmet), "target"), strings.Join(unmet, ", "))
		return errFindings
	}
	return nil
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
