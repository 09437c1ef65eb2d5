// Command verify runs the constructions of the Transformer Cookbook at a
// chosen precision and compares them with their exact values.
//
// Usage:
//
//	verify format [NAME]                         describe a number format
//	verify round --precision NAME VALUE...       round values to a format
//
// Bad input gets one line on stderr and exit status 2.
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
  verify format [NAME]                      describe a number format (all of them without NAME)
  verify round --precision NAME VALUE...    round each VALUE (1/3, 0.1, 1e-3, 0x1p-3) to the format

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
	err := dispatch(args, stdout)
	if err == nil {
		return 0
	}
	msg := strings.ReplaceAll(err.Error(), "\n", " ")
	fmt.Fprintln(stderr, "verify: "+msg)
	var ue usageError
	if errors.As(err, &ue) {
		return 2
	}
	return 1
}

func dispatch(args []string, stdout io.Writer) error {
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
	}
	return badInput("unknown command %q; commands: format, round, help", args[0])
}

// parsedArgs holds the flags and positional arguments of a subcommand.
type parsedArgs struct {
	flags      map[string]string
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
		if !hasValue {
			if i+1 >= len(args) {
				return p, badInput("flag --%s needs a value", name)
			}
			i++
			value = args[i]
		}
		p.flags[name] = value
	}
	return p, nil
}
