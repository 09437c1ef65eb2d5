// Command verify runs the constructions of the Transformer Cookbook at a
// chosen precision and compares them with their exact values.
//
// Usage:
//
//	verify --recipe NAME [--precision P] [flags]  check a recipe over lengths and inputs
//	verify list                                   list the recipes
//	verify run --recipe NAME --input STRING       run one input, with its trace
//	verify claims [--json] [--id ID --explain] [--errata]  the claim registry's verdicts
//	verify bench [--case REGEX] [--quick]         performance figures beside bare baselines
//	verify edelman --scores "s1, s2, …"           Edelman's lemma evaluated on one score vector
//	verify format [NAME]                          describe a number format
//	verify round --precision NAME VALUE...        round values to a format
//
// Exit status: 0 when every check passed, 1 when a check failed (a
// finding, reported), 2 for bad usage or bad input, with one line on
// stderr saying what was wrong.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
)

const usage = `verify: exact verification of Transformer Cookbook constructions

Usage:
  verify --recipe NAME [--precision P] [flags]   check a recipe over a sweep of lengths and inputs
      --param K=V       set a parameter of the recipe (repeatable; 'verify list --params')
      --weighting W     softmax/SMAT, avghardmax/AHAT, lhardmax/UHAT, rhardmax, or all
                        (default: the recipe's first weighting)
      --max-n N         largest length checked (default: the recipe's; at most 256 for
                        exact and interval precisions, whose arithmetic is slower)
      --lengths a,b,c   lengths to check (default: 1..8, then growing by a quarter)
      --cases K         random inputs per length when there are too many to enumerate (8;
                        above n = 64, K·64/n but at least 2: each input checks n positions)
      --exhaustive E    enumerate every input when there are at most E (256)
      --seed S          seed of the random inputs (1)
      --all-lengths     go on after the first failing length
      --json            print the report as one JSON document
      --force           run even when the memory estimate exceeds what the machine has
  verify check --model FILE --spec NAME [flags as above]
                                                 check a model from a file (.json or .safetensors; - reads stdin) against
                                                 a recipe's reference: same report and exit status
  verify export --recipe NAME --out FILE [--n N] [--param K=V] [--weighting W] [--dtype F32|F64]
                                                 write a recipe's model for lengths ≤ N: FILE.json keeps
                                                 every weight exact; FILE.safetensors rounds to F32/F64;
                                                 --out - writes to stdout (--format json|safetensors)
  verify list [--params]                         every recipe, with its section in the paper
                                                 (--params: and each recipe's parameters)
  verify run --recipe NAME --input STRING [--precision P] [--weighting W] [--max-n N]
             [--param K=V] [--trace] [--outside-domain] [--json]
                                                 run one input, with the residual stream;
                                                 --inputs FILE runs each line of FILE ("-": stdin),
                                                 --json prints the outputs with their exact values
  verify run --model FILE --input STRING [--precision P] [--inputs FILE] [--json] [--trace]
                                                 the model of a file on its own: its outputs, no reference
  verify claims [--json] [--id ID [--explain]] [--errata]   check the paper's claims: verdict and evidence of each
                                                 (PROVED, HOLDS, REFUTED, OUT OF SCOPE); exit 1 when
                                                 a verdict differs from the one recorded
  verify frontier --recipe NAME[,NAME…] | --all uniformity limits: for each precision, the largest n at which
                                                 every checked case is right, the first failure and its cause,
                                                 and the limit theory predicts where the paper gives a gap
      --precision P,Q,…  (fp8-e4m3,fp8-e5m2,bf16,fp16,fp32,fp64,24,53,113)
      --max-n, --cases, --exhaustive, --seed, --param, --weighting, --lengths   as above
      --no-bisect       check only the geometric lengths (1 … 8, then growing by a quarter)
      --shard K/N       check the inputs whose index is K−1 modulo N; 'verify merge' combines (and bisects)
      --json            print JSON;  --out FILE  write the JSON to FILE (atomically; - for stdout)
      --plot FILE       draw max |error| against n (.svg or .png);  --quiet  no progress bar
  verify frontier --model FILE --spec NAME [flags as above]
                                                 the frontier of a model from a file, against NAME's reference
  verify merge FILE...  [--json] [--out F] [--plot F]
                                                 combine the JSON of the shards of one frontier sweep
  verify bench [--case REGEX] [--quick] [--list] [--json]
                                                 the engine's performance figures, each beside its bare
                                                 baseline, with allocations and peak RSS (each case runs in
                                                 a process of its own); --quick: small sizes, a smoke test
  verify edelman --scores "s1, s2, …" [--gamma G] [--json]
                                                 Edelman's lemma on one score vector: its gap, the certified
                                                 ‖hardmax(s) − softmax(s)‖₁, the bound 2n e^{−γ} and the sharp
                                                 form 2S/(1 + S); a tied maximum (no gap) is bad input
  verify format [NAME] [--json]                  describe a number format (all without NAME)
  verify round --precision NAME VALUE... [--json]  round each VALUE (1/3, 0.1, 1e-3, 0x1p-3)

Exit status: 0 every check passed, 1 a check failed (reported), 2 bad usage or input.
Every JSON document opens with "schema": "verify/KIND/VERSION" (docs/commands.md).

Precision names: exact, P (bigfloat with a P-bit significand), fp64, fp32,
fp16, bf16, fp8-e4m3, fp8-e5m2, interval:P
`

// usageError is bad input from the user: exit status 2.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

func badInput(format string, args ...any) error {
	return usageError{fmt.Sprintf(format, args...)}
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run executes the command line args and returns the exit status: 0 on
// success, 2 on bad input, 1 when the work itself failed.
func run(args []string, stdout, stderr io.Writer) int {
	err := dispatch(args, stdout, stderr)
	if err == nil {
		return 0
	}
	if err == errFindings {
		fmt.Fprintln(stderr, "verify: a check failed (see the report above)")
		return 1
	}
	msg := strings.ReplaceAll(err.Error(), "\n", " ")
	fmt.Fprintln(stderr, "verify: "+msg)
	var ue usageError
	if errors.As(err, &ue) {
		return 2
	}
	return 1
}

func dispatch(args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		return badInput("no command; run 'verify help' for the list")
	}
	switch args[0] {
	case "help", "-h", "-help", "--help":
		_, err := io.WriteString(stdout, usage)
		return err
	case "format":
		return cmdFormat(args[1:], stdout)
	case "round":
		return cmdRound(args[1:], stdout)
	case "list":
		return cmdList(args[1:], stdout)
	case "run":
		return cmdRun(args[1:], stdout)
	case "check":
		return cmdCheck(args[1:], stdout)
	case "claims":
		return cmdClaims(args[1:], stdout)
	case "frontier":
		return cmdFrontier(args[1:], stdout, stderr)
	case "merge":
		return cmdMerge(args[1:], stdout, stderr)
	case "export":
		return cmdExport(args[1:], stdout, stderr)
	case "bench":
		return cmdBench(args[1:], stdout, stderr)
	case "edelman":
		return cmdEdelman(args[1:], stdout)
	}
	if strings.HasPrefix(args[0], "-") {
		return cmdCheck(args, stdout)
	}
	return badInput("unknown command %q; commands: --recipe (check), check --model, list, run, claims, frontier, merge, export, bench, edelman, format, round, help", args[0])
}

// parsedArgs holds the flags and positional arguments of a subcommand.
type parsedArgs struct {
	flags      map[string]string
	params     []string // every --param NAME=VALUE, in order
	positional []string
}

// parseArgs reads --name value, --name=value and -name value for the
// flags listed in known, and keeps everything else as positional
// arguments. Negative numbers ("-0.5", "-1/3") are positional, which the
// flag package cannot do.
func parseArgs(args []string, known ...string) (parsedArgs, error) {
	p := parsedArgs{flags: map[string]string{}}
	isKnown := map[string]bool{}
	for _, k := range known {
		isKnown[k] = true
	}
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			p.positional = append(p.positional, args[i+1:]...)
			break
		}
		if !strings.HasPrefix(a, "-") || len(a) > 1 && (a[1] >= '0' && a[1] <= '9' || a[1] == '.') {
			p.positional = append(p.positional, a)
			continue
		}
		name, value, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if !isKnown[name] {
			return p, badInput("unknown flag %q (flags: --%s)", a, strings.Join(known, ", --"))
		}
		if !hasValue && boolFlags[name] {
			value = "true"
		} else if !hasValue {
			if i+1 >= len(args) {
				return p, badInput("flag --%s needs a value", name)
			}
			i++
			value = args[i]
		}
		if name == "param" {
			p.params = append(p.params, value)
			continue
		}
		p.flags[name] = value
	}
	return p, nil
}

// recipeParams reads the --param NAME=VALUE flags.
func recipeParams(a parsedArgs) (map[string]string, error) {
	out := map[string]string{}
	for _, kv := range a.params {
		k, v, ok := strings.Cut(kv, "=")
		k = strings.TrimSpace(k)
		if !ok || k == "" {
			return nil, badInput("--param takes NAME=VALUE, got %q", kv)
		}
		if _, dup := out[k]; dup {
			return nil, badInput("--param %s is given twice", k)
		}
		out[k] = strings.TrimSpace(v)
	}
	return out, nil
}
