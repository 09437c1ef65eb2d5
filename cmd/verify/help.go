package main

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/transformer-cookbook/verify/internal/suggest"
)

// A commandDoc is one command: its usage lines, a one-line summary for
// 'verify help', a paragraph, its flags and examples.
type commandDoc struct {
	name     string
	usage    []string
	summary  string
	about    string
	options  func() flagOptions // a new value of the command's options; nil for a command without flags
	flags    []flagDoc          // what options declares (init)
	examples []string
}

// commands documents every command, in the order 'verify help' lists
// them; each command's options declare its flags.
var commands = []commandDoc{
	{
		name:    "check",
		usage:   []string{"verify --recipe NAME [--precision P] [flags]", "verify check --model FILE --spec NAME [flags]"},
		summary: "the main job: run a recipe on a seeded sweep of lengths and inputs, compare every output with the exact reference",
		about: "Runs the construction at the precision on every length of the sweep (every input while there are at most --exhaustive, " +
			"else --cases seeded ones), compares each output with the exact answer, prints a row per length with its evidence " +
			"(exhaustive, certified or sampled) and the uniformity limit with the first failing case. With --model, the model of a " +
			"file (.json or .safetensors, or - for stdin) is checked against the reference of --spec. Exit 1 when a case fails.",
		options: func() flagOptions { return new(checkOptions) },
		examples: []string{"verify --recipe lookup --precision fp16", "verify --recipe dyck1 --weighting all --max-n 64 --json",
			"verify check --model first.json --spec first"},
	},
	{
		name:    "recheck",
		usage:   []string{"verify recheck --certificate FILE [--model FILE] [flags]"},
		summary: "re-check the certificates of 'check --certificate' with the independent checker",
		about: "Reads the certificates a check wrote (verify check --certificate FILE: what the analysis proved of each length it certified) " +
			"and has the independent checker re-derive every fact of each from the models alone: the recipe's construction, and the model the " +
			"certificates are about (the recipe's own, or --model, which must be the file they name by its SHA-256). Prints a verdict per " +
			"length. Exit 1 when a certificate does not hold.",
		options:  func() flagOptions { return new(recheckOptions) },
		examples: []string{"verify recheck --model l.json --certificate l.cert.json", "verify recheck --certificate lookup.cert.json"},
	},
	{
		name:    "run",
		usage:   []string{"verify run --recipe NAME --input STRING [flags]", "verify run --model FILE --input STRING [flags]"},
		summary: "one input: the outputs beside the expected ones, and the residual stream after every sublayer",
		about: "Runs one input (symbols separated by spaces, e.g. \"2:1 3:0 1:1\" for lookup; vectors as \"x, y; x, y\"), or each line of " +
			"--inputs, and prints every position's outputs beside the exact expected ones. With --model, the model of a file runs on its own " +
			"(no reference).",
		options:  func() flagOptions { return new(runOptions) },
		examples: []string{`verify run --recipe lookup --input "2:1 3:0 1:1" --trace`, `verify run --recipe tiebreak --input "2:0.25 1:-5" --precision fp16`},
	},
	{
		name:    "list",
		usage:   []string{"verify list [NAME] [flags]"},
		summary: "every recipe with its section of the paper; one recipe in detail",
		about: "Without NAME, a line per recipe: its section, weightings and what it computes. With NAME, the recipe in full: " +
			"section, domain, weightings, exactness, width, lengths, parameters and the claims of the registry about it.",
		options:  func() flagOptions { return new(listOptions) },
		examples: []string{"verify list", "verify list lookup", "verify list --params"},
	},
	{
		name:    "claims",
		usage:   []string{"verify claims [flags]"},
		summary: "check every claim of the paper: PROVED, HOLDS, REFUTED or OUT OF SCOPE, with the evidence",
		about: "Runs every claim's checker and prints its verdict and evidence, with a tally. Exit 1 when a verdict differs from the one recorded " +
			"in the registry.",
		options:  func() flagOptions { return new(claimsOptions) },
		examples: []string{"verify claims", "verify claims --id lemma.edelman --explain"},
	},
	{
		name: "frontier",
		usage: []string{"verify frontier --recipe NAME[,NAME…] | --all [flags]", "verify frontier --model FILE --spec NAME [flags]",
			"verify frontier --phase 2 --shard K/N PHASE1-FILE… [flags]"},
		summary: "uniformity limits per precision, with the first failure's input and cause, and the limit theory predicts",
		about: "For each precision, the largest n at which every checked input of every checked length is right, found by a geometric sweep " +
			"(with the predicted limit and the length after it) and bisection; the first failure with its input and cause; and the limit predicted from the paper's score gap. Exit 0: a limit is " +
			"a measurement, not a failure. A sweep splits over machines in two phases: --shard K/N checks a share of the lengths, divided by " +
			"their cost; --phase 2 --shard K/N, given every phase-1 file, bisects and diagnoses a share of the precisions; 'verify merge' combines both.",
		options: func() flagOptions { return new(frontierOptions) },
		examples: []string{"verify frontier --recipe lookup --precision fp16,bf16,fp32 --max-n 256", "verify frontier --all --shard 1/4 --out p1-1.json",
			"verify frontier --phase 2 --shard 1/4 p1-*.json --out p2-1.json"},
	},
	{
		name:    "merge",
		usage:   []string{"verify merge FILE… [flags]"},
		summary: "combine the shards of one frontier sweep",
		about: "Reads the JSON files written by 'verify frontier --shard K/N --out FILE' (phase 1) and 'verify frontier --phase 2 --shard K/N' " +
			"(phase 2), every shard of each, and prints the report one run would have made. Given the phase-1 files alone, it runs phase 2 itself.",
		options:  func() flagOptions { return new(mergeOptions) },
		examples: []string{"verify merge p1-*.json p2-*.json --out lookup.json"},
	},
	{
		name:    "export",
		usage:   []string{"verify export --recipe NAME --out FILE [flags]"},
		summary: "write a recipe's model as JSON (exact weights) or safetensors",
		about: "Writes the model for lengths up to --n: FILE.json keeps every weight exact; FILE.safetensors stores them in --dtype, and " +
			"names every weight the dtype does not hold (writing nothing) unless --round-weights is given. Written atomically.",
		options:  func() flagOptions { return new(exportOptions) },
		examples: []string{"verify export --recipe lookup --n 64 --out lookup.json", "verify export --recipe first --out first.safetensors --dtype F16 --round-weights"},
	},
	{
		name:    "bench",
		usage:   []string{"verify bench [flags]"},
		summary: "the engine's performance figures beside bare-arithmetic baselines",
		about: "Runs each performance case in a process of its own and prints its figure (from CPU time, user + sys) beside the same by the wall clock, " +
			"the bare baseline, the ratio, the target, allocations, peak memory, the process's CPU and wall seconds and the machine's load meanwhile. " +
			"Targets are judged on CPU time. A target not met is a finding (exit 1); --quick judges none.",
		options:  func() flagOptions { return new(benchOptions) },
		examples: []string{"verify bench --case lookup", "verify bench --quick"},
	},
	{
		name:     "edelman",
		usage:    []string{`verify edelman --scores "s1, s2, …" [flags]`},
		summary:  "Edelman's lemma on one score vector: its gap, the certified ‖hardmax − softmax‖₁ and the bound 2n e^{−γ}",
		about:    "Evaluates Lemma B.7 on exact rational scores, certified in interval arithmetic. A tied maximum leaves no gap and is refused.",
		options:  func() flagOptions { return new(edelmanOptions) },
		examples: []string{`verify edelman --scores "3, 1, 0, -2"`, `verify edelman --scores "1, 0" --gamma 1/2 --json`},
	},
	{
		name:     "format",
		usage:    []string{"verify format [NAME] [--json]"},
		options:  func() flagOptions { return new(formatOptions) },
		summary:  "describe a number format (every named one without NAME)",
		about:    "What ml_dtypes.finfo tells: significand bits, exponent range, largest finite, smallest normal and subnormal, machine epsilon, infinities, NaN, overflow.",
		examples: []string{"verify format", "verify format fp8-e4m3"},
	},
	{
		name:     "round",
		usage:    []string{"verify round --precision P VALUE…"},
		summary:  "round exact values to a format",
		about:    "Rounds each VALUE (an integer, a fraction 1/3, a decimal 1.5e-3, a hex float 0x1p-3; read exactly) to the format, with the error.",
		options:  func() flagOptions { return new(roundOptions) },
		examples: []string{"verify round --precision fp16 1/3 0.1 -2049"},
	},
	{
		name:     "completion",
		usage:    []string{"verify completion bash"},
		summary:  "a bash completion script: commands, flags, recipe and precision names",
		about:    "Load it in the shell with: source <(verify completion bash). zsh reads it after 'autoload bashcompinit; bashcompinit'.",
		examples: []string{"verify completion bash > ~/.local/share/bash-completion/completions/verify"},
	},
	{
		name:     "version",
		usage:    []string{"verify version", "verify --version"},
		summary:  "the module version and the revision it was built from",
		examples: []string{"verify --version"},
	},
	{
		name:     "help",
		usage:    []string{"verify help [COMMAND]", "verify COMMAND --help"},
		summary:  "this list, or a command's usage, flags and examples",
		examples: []string{"verify help frontier"},
	},
}

// commandNamed returns the documentation of the command name.
func commandNamed(name string) (*commandDoc, bool) {
	for k := range commands {
		if commands[k].name == name {
			return &commands[k], true
		}
	}
	return nil, false
}

// mustCommand is commandNamed for the names written in this package.
func mustCommand(name string) *commandDoc {
	c, ok := commandNamed(name)
	if !ok {
		panic("verify: no command " + name)
	}
	return c
}

func commandNames() []string {
	var names []string
	for _, c := range commands {
		names = append(names, c.name)
	}
	return names
}

// helpRequest is returned by the parser when the arguments ask for help:
// dispatch prints the command's help and exits 0.
type helpRequest struct{ command string }

func (h helpRequest) Error() string { return "help for " + h.command }

// writeOverview prints 'verify help': the commands, one line each.
func writeOverview(w io.Writer) error {
	var b strings.Builder
	b.WriteString("verify: exact verification of Transformer Cookbook constructions\n\nUsage:\n  verify --recipe NAME [--precision P] [flags]   the main job ('verify help check')\n  verify COMMAND [flags]\n\nCommands:\n")
	for _, c := range commands {
		b.WriteString(hang(fmt.Sprintf("  %-11s", c.name), c.summary, lineWidth))
	}
	b.WriteString("\n'verify help COMMAND' (or 'verify COMMAND --help') prints a command's flags with their defaults and examples.\n\n")
	b.WriteString("Exit status: 0 every check passed, 1 a check failed or was undecided (a finding, reported on stdout),\n2 bad usage or input, or a report that could not be written (one line on stderr), 130 interrupted (Ctrl-C).\n")
	_, err := io.WriteString(w, wrapLines(b.String(), lineWidth))
	return err
}

// writeCommandHelp prints one command's usage, paragraph, flags and
// examples.
func writeCommandHelp(w io.Writer, c *commandDoc) error {
	var b strings.Builder
	fmt.Fprintf(&b, "verify %s: %s\n\nUsage:\n", c.name, c.summary)
	for _, u := range c.usage {
		fmt.Fprintf(&b, "  %s\n", u)
	}
	if c.about != "" {
		fmt.Fprintf(&b, "\n%s\n", c.about)
	}
	var shown []flagDoc
	for _, f := range c.flags {
		if !f.hidden {
			shown = append(shown, f)
		}
	}
	if len(shown) > 0 {
		b.WriteString("\nFlags:\n")
		width := 0
		for _, f := range shown {
			width = max(width, len([]rune(flagSynopsis(f))))
		}
		for _, f := range shown {
			text := f.help
			if f.def != "" {
				text += " (default: " + f.def + ")"
			}
			syn := flagSynopsis(f)
			pad := strings.Repeat(" ", width-len([]rune(syn)))
			b.WriteString(hang("  "+syn+pad+"  ", text, lineWidth))
		}
	}
	if len(c.examples) > 0 {
		b.WriteString("\nExamples:\n")
		for _, e := range c.examples {
			fmt.Fprintf(&b, "  %s\n", e)
		}
	}
	_, err := io.WriteString(w, wrapLines(b.String(), lineWidth))
	return err
}

func flagSynopsis(f flagDoc) string {
	if f.arg == "" {
		return "--" + f.name
	}
	return "--" + f.name + " " + f.arg
}

// hang writes text after head, wrapped at width columns with the
// continuation lines indented under the text's start (under head's
// indentation plus 8 when head is wider than half the line).
func hang(head, text string, width int) string {
	indent := utf8.RuneCountInString(head)
	if indent > width/2 {
		return head + "\n" + hang(strings.Repeat(" ", 8), text, width)
	}
	return strings.Join(wrap(head, strings.Repeat(" ", indent), text, width), "\n") + "\n"
}

// wrapLines breaks the lines of s longer than width at spaces, indenting
// the continuation as the line was indented.
func wrapLines(s string, width int) string {
	var b strings.Builder
	for _, line := range strings.SplitAfter(s, "\n") {
		body := strings.TrimSuffix(line, "\n")
		if utf8.RuneCountInString(body) <= width {
			b.WriteString(line)
			continue
		}
		lead := body[:len(body)-len(strings.TrimLeft(body, " "))]
		b.WriteString(hang(lead, strings.TrimLeft(body, " "), width))
	}
	return b.String()
}

// cmdHelp is 'verify help [COMMAND]'.
func cmdHelp(args []string, stdout io.Writer) error {
	switch len(args) {
	case 0:
		return writeOverview(stdout)
	case 1:
		c, ok := commandNamed(args[0])
		if !ok {
			return badInput("no command %q%s ('verify help' lists them)", args[0], suggest.DidYouMean(args[0], commandNames()))
		}
		return writeCommandHelp(stdout, c)
	}
	return badInput("help takes one command name, got %d", len(args))
}
