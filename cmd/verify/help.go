package main

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/transformer-cookbook/verify/internal/suggest"
)

// A flagDoc is one flag of a command: what parseArgs accepts and what
// help prints.
type flagDoc struct {
	name   string // without the dashes
	arg    string // the value's placeholder; "" for a flag that takes none
	def    string // the default, "" when there is none to state
	help   string
	hidden bool // accepted but not shown (a parent process's flag to its child)
}

// A commandDoc is one command: its usage lines, a one-line summary for
// 'verify help', a paragraph, its flags and examples.
type commandDoc struct {
	name     string
	usage    []string
	summary  string
	about    string
	flags    []flagDoc
	examples []string
}

// The flags several commands share.
var (
	flagRecipe     = flagDoc{name: "recipe", arg: "NAME", help: "the construction ('verify list' names them all)"}
	flagPrecision  = flagDoc{name: "precision", arg: "P", def: "the recipe's: exact; interval:128 where its values are irrational; 53 where its weights are (softmax's 1/τ; 'verify list NAME' says which)", help: "exact, P (a P-bit bigfloat), fp64, fp32, fp16, bf16, fp8-e4m3, fp8-e5m2, interval:P"}
	flagWeighting  = flagDoc{name: "weighting", arg: "W", def: "the recipe's first", help: "softmax/SMAT, avghardmax/AHAT, lhardmax/UHAT, rhardmax/UHAT-right, or all"}
	flagParam      = flagDoc{name: "param", arg: "K=V", help: "set a parameter of the recipe, an exact value (repeatable; 'verify list NAME' shows them)"}
	flagMaxN       = flagDoc{name: "max-n", arg: "N", def: "the recipe's; at most 256 in exact and interval arithmetic", help: "the largest length checked"}
	flagCases      = flagDoc{name: "cases", arg: "K", def: "8; above n = 64, K·64/n but at least 2", help: "random inputs per length when there are too many to enumerate"}
	flagExhaustive = flagDoc{name: "exhaustive", arg: "E", def: "256", help: "enumerate every input of a length when there are at most E"}
	flagSeed       = flagDoc{name: "seed", arg: "S", def: "1", help: "seed of the random inputs (printed in every report)"}
	flagLengths    = flagDoc{name: "lengths", arg: "a,b,…", def: "1 … 8, then growing by a quarter", help: "the lengths to check"}
	flagJSON       = flagDoc{name: "json", help: "print one JSON document instead of the text"}
	flagForce      = flagDoc{name: "force", help: "run (or read a model file) even when the memory estimate exceeds what the machine has"}
	flagNoAnalysis = flagDoc{name: "no-analysis", help: "skip the analysis that certifies a length or finds inputs to try first"}
	flagBudget     = flagDoc{name: "analysis-budget", arg: "N", help: "bound the analysis's work per length"}
	flagEvery      = flagDoc{name: "every-budget", arg: "N", def: "268435456", help: "bound the work of the analysis and its checker for every length up to the limit together, about a minute of CPU by default (0: no bound); above it, the limit's proof holds at the checked lengths only"}
	flagNoEvery    = flagDoc{name: "no-every", help: "prove the checked lengths only, not every length up to the limit"}
	flagSpec       = flagDoc{name: "spec", arg: "NAME", help: "the recipe whose reference a model file is checked against"}
	flagQuiet      = flagDoc{name: "quiet", help: "no progress line (it is drawn on stderr only when stderr is a terminal)"}
	flagProgress   = flagDoc{name: "progress", help: "draw the progress on stderr even when it is not a terminal, a line per update"}
)

// commands documents every command, in the order 'verify help' lists
// them. parseArgs accepts exactly the flags listed here.
var commands = []commandDoc{
	{
		name:    "check",
		usage:   []string{"verify --recipe NAME [--precision P] [flags]", "verify check --model FILE --spec NAME [flags]"},
		summary: "the main job: run a recipe on a seeded sweep of lengths and inputs, compare every output with the exact reference",
		about: "Runs the construction at the precision on every length of the sweep (every input while there are at most --exhaustive, " +
			"else --cases seeded ones), compares each output with the exact answer, prints a row per length with its evidence " +
			"(exhaustive, certified or sampled) and the uniformity limit with the first failing case. With --model, the model of a " +
			"file (.json or .safetensors, or - for stdin) is checked against the reference of --spec. Exit 1 when a case fails.",
		flags: []flagDoc{flagRecipe, flagPrecision, flagWeighting, flagParam, flagMaxN, flagCases, flagExhaustive, flagSeed, flagLengths,
			{name: "all-lengths", help: "go on after the first failing length"}, flagJSON, flagForce, flagNoAnalysis, flagBudget, flagEvery, flagNoEvery,
			{name: "certificate", arg: "FILE", help: "write the certificate of every length the analysis proves (JSON, for 'verify recheck')"},
			{name: "model", arg: "FILE", help: "check the model of FILE (.json, .safetensors, or - for stdin) instead of the recipe's"}, flagSpec, flagMaxInput,
			flagQuiet, flagProgress},
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
		flags: []flagDoc{{name: "certificate", arg: "FILE", help: "the certificates (- for stdin)"},
			{name: "model", arg: "FILE", help: "the model the certificates are about, when it is a file's"}, flagMaxInput, flagForce},
		examples: []string{"verify recheck --model l.json --certificate l.cert.json", "verify recheck --certificate lookup.cert.json"},
	},
	{
		name:    "run",
		usage:   []string{"verify run --recipe NAME --input STRING [flags]", "verify run --model FILE --input STRING [flags]"},
		summary: "one input: the outputs beside the expected ones, and the residual stream after every sublayer",
		about: "Runs one input (symbols separated by spaces, e.g. \"2:1 3:0 1:1\" for lookup; vectors as \"x, y; x, y\"), or each line of " +
			"--inputs, and prints every position's outputs beside the exact expected ones. With --model, the model of a file runs on its own " +
			"(no reference).",
		flags: []flagDoc{flagRecipe, {name: "model", arg: "FILE", help: "run the model of FILE (- for stdin) instead (no expected outputs)"},
			{name: "input", arg: "STRING", help: "the input"}, {name: "inputs", arg: "FILE", help: "run each line of FILE (- for stdin)"},
			flagPrecision, flagWeighting, flagParam, {name: "max-n", arg: "N", def: "the input's length", help: "the largest length the model is built for"},
			{name: "trace", help: "print the residual stream after every sublayer (with --json, each run's trace)"},
			{name: "outside-domain", help: "run an input the recipe claims nothing about, labelling its outputs instead of refusing it"},
			flagJSON, flagMaxInput, flagForce},
		examples: []string{`verify run --recipe lookup --input "2:1 3:0 1:1" --trace`, `verify run --recipe tiebreak --input "2:0.25 1:-5" --precision fp16`},
	},
	{
		name:    "list",
		usage:   []string{"verify list [NAME] [flags]"},
		summary: "every recipe with its section of the paper; one recipe in detail",
		about: "Without NAME, a line per recipe: its section, weightings and what it computes. With NAME, the recipe in full: " +
			"section, domain, weightings, exactness, width, lengths, parameters and the claims of the registry about it.",
		flags: []flagDoc{{name: "params", help: "add each recipe's parameters and their defaults"}, flagJSON,
			{name: "markdown", help: "print the Markdown table of the recipes page"}},
		examples: []string{"verify list", "verify list lookup", "verify list --params"},
	},
	{
		name:    "claims",
		usage:   []string{"verify claims [flags]"},
		summary: "check every claim of the paper: PROVED, HOLDS, REFUTED or OUT OF SCOPE, with the evidence",
		about: "Runs every claim's checker and prints its verdict and evidence, with a tally. Exit 1 when a verdict differs from the one recorded " +
			"in the registry.",
		flags: []flagDoc{{name: "id", arg: "ID", help: "check one claim"}, {name: "explain", help: "every claim (or the one of --id) in full: statement, domain, evidence"},
			flagJSON, {name: "markdown", help: "print the table of the claims page"}, {name: "errata", help: "print the table of refuted claims"},
			flagQuiet, flagProgress},
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
		flags: []flagDoc{{name: "recipe", arg: "NAME[,NAME…]", help: "the constructions"}, {name: "all", help: "every recipe"},
			{name: "model", arg: "FILE", help: "the frontier of the model of FILE (- for stdin), against the reference of --spec"}, flagSpec, flagMaxInput,
			{name: "precision", arg: "P,Q,…", def: "fp8-e4m3,fp8-e5m2,bf16,fp16,fp32,fp64,24,53,113", help: "the precisions"},
			flagWeighting, flagParam, flagMaxN, flagCases, flagExhaustive, flagSeed, flagLengths,
			{name: "no-bisect", help: "check only the geometric lengths (not the predicted limit, no bisection)"},
			{name: "shard", arg: "K/N", help: "run shard K of N: a share of the lengths, by cost (phase 1), or of the bisections (phase 2)"},
			{name: "phase", arg: "1|2", def: "1", help: "2: bisect and diagnose, from the files of every phase-1 shard"},
			flagJSON, {name: "out", arg: "FILE", help: "write the JSON to FILE (atomically), or - for stdout (the table goes to stderr)"},
			{name: "plot", arg: "FILE", help: "draw max |error| against n (.svg or .png)"}, flagQuiet, flagProgress, flagForce, flagNoAnalysis, flagBudget,
			flagEvery, flagNoEvery},
		examples: []string{"verify frontier --recipe lookup --precision fp16,bf16,fp32 --max-n 256", "verify frontier --all --shard 1/4 --out p1-1.json",
			"verify frontier --phase 2 --shard 1/4 p1-*.json --out p2-1.json"},
	},
	{
		name:    "merge",
		usage:   []string{"verify merge FILE… [flags]"},
		summary: "combine the shards of one frontier sweep",
		about: "Reads the JSON files written by 'verify frontier --shard K/N --out FILE' (phase 1) and 'verify frontier --phase 2 --shard K/N' " +
			"(phase 2), every shard of each, and prints the report one run would have made. Given the phase-1 files alone, it runs phase 2 itself.",
		flags: []flagDoc{flagJSON, {name: "out", arg: "FILE", help: "write the JSON to FILE (atomically), or - for stdout"},
			{name: "plot", arg: "FILE", help: "draw max |error| against n (.svg or .png)"}, flagMaxInput},
		examples: []string{"verify merge p1-*.json p2-*.json --out lookup.json"},
	},
	{
		name:    "export",
		usage:   []string{"verify export --recipe NAME --out FILE [flags]"},
		summary: "write a recipe's model as JSON (exact weights) or safetensors",
		about: "Writes the model for lengths up to --n: FILE.json keeps every weight exact; FILE.safetensors stores them in --dtype, and " +
			"names every weight the dtype does not hold (writing nothing) unless --round-weights is given. Written atomically.",
		flags: []flagDoc{flagRecipe, {name: "out", arg: "FILE", help: "FILE.json or FILE.safetensors, or - for stdout"},
			{name: "format", arg: "F", def: "json, or the extension of --out", help: "json or safetensors"}, {name: "n", arg: "N", def: "the recipe's", help: "the largest length the model serves"},
			flagParam, flagWeighting, {name: "dtype", arg: "D", def: "F64", help: "F64, F32, F16, BF16, F8_E4M3 or F8_E5M2 (safetensors)"},
			{name: "round-weights", help: "store each weight rounded to the dtype, listing those rounded"}, flagForce, flagQuiet, flagProgress},
		examples: []string{"verify export --recipe lookup --n 64 --out lookup.json", "verify export --recipe first --out first.safetensors --dtype F16 --round-weights"},
	},
	{
		name:    "bench",
		usage:   []string{"verify bench [flags]"},
		summary: "the engine's performance figures beside bare-arithmetic baselines",
		about: "Runs each performance case in a process of its own and prints its figure (from CPU time, user + sys) beside the same by the wall clock, " +
			"the bare baseline, the ratio, the target, allocations, peak memory, the process's CPU and wall seconds and the machine's load meanwhile. " +
			"Targets are judged on CPU time. A target not met is a finding (exit 1); --quick judges none.",
		flags: []flagDoc{{name: "case", arg: "REGEX", help: "only the cases matching REGEX"}, {name: "quick", help: "small sizes: a smoke test, not a measurement"},
			{name: "list", help: "list the cases"}, flagJSON, flagQuiet, flagProgress, {name: "child", arg: "CASE", hidden: true}},
		examples: []string{"verify bench --case lookup", "verify bench --quick"},
	},
	{
		name:     "edelman",
		usage:    []string{`verify edelman --scores "s1, s2, …" [flags]`},
		summary:  "Edelman's lemma on one score vector: its gap, the certified ‖hardmax − softmax‖₁ and the bound 2n e^{−γ}",
		about:    "Evaluates Lemma B.7 on exact rational scores, certified in interval arithmetic. A tied maximum leaves no gap and is refused.",
		flags:    []flagDoc{{name: "scores", arg: "LIST", help: "the scores, exact rationals separated by commas"}, {name: "gamma", arg: "G", def: "the gap", help: "the γ of the bound (positive, at most the gap)"}, flagJSON},
		examples: []string{`verify edelman --scores "3, 1, 0, -2"`, `verify edelman --scores "1, 0" --gamma 1/2 --json`},
	},
	{
		name:     "format",
		usage:    []string{"verify format [NAME] [--json]"},
		flags:    []flagDoc{flagJSON},
		summary:  "describe a number format (every named one without NAME)",
		about:    "What ml_dtypes.finfo tells: significand bits, exponent range, largest finite, smallest normal and subnormal, machine epsilon, infinities, NaN, overflow.",
		examples: []string{"verify format", "verify format fp8-e4m3"},
	},
	{
		name:     "round",
		usage:    []string{"verify round --precision P VALUE…"},
		summary:  "round exact values to a format",
		about:    "Rounds each VALUE (an integer, a fraction 1/3, a decimal 1.5e-3, a hex float 0x1p-3; read exactly) to the format, with the error.",
		flags:    []flagDoc{{name: "precision", arg: "P", help: "the format"}, flagJSON},
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

// helpRequest is returned by parseArgs when the arguments ask for help:
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
