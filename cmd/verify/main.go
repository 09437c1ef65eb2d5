// Command verify runs the constructions of the Transformer Cookbook at a
// chosen precision and compares them with their exact values.
//
// Usage:
//
//	verify --recipe NAME [--precision P] [flags]  check a recipe over lengths and inputs
//	verify COMMAND [flags]                        list, run, claims, frontier, merge, export,
//	                                              bench, edelman, format, round, version
//	verify help [COMMAND]                         the commands; one command's flags and examples
//
// help.go documents every command; commandflags.go declares each
// command's flags, which the parser (flags.go), the help and the
// completion script all read.
//
// Exit status: 0 when every check passed, 1 when a check failed or was
// undecided (a finding, reported), 2 for bad usage, bad input or a report that could not be written, with one line on
// stderr saying what was wrong, 130 when interrupted by Ctrl-C.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/transformer-cookbook/verify/internal/gcfloor"
	"github.com/transformer-cookbook/verify/internal/limits"
	"github.com/transformer-cookbook/verify/internal/suggest"
)

// usageError is bad input from the user: exit status 2.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

func badInput(format string, args ...any) error {
	return usageError{fmt.Sprintf(format, args...)}
}

func main() {
	// Too few file descriptors or too little address space would stop
	// the runtime midway with a fatal error; refuse before any work.
	if err := limits.Setup(); err != nil {
		fmt.Fprintln(os.Stderr, "verify: "+err.Error())
		os.Exit(2)
	}
	// A check builds its model and runs it in tens of milliseconds:
	// under 8 MiB the heap is not collected (internal/gcfloor).
	gcfloor.Set(gcfloor.Bytes, 100)
	handleSignals(os.Stderr)
	stop := startCPUProfile(os.Stderr)
	status := run(os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(status)
}

// run executes the command line args and returns the exit status: 0 on
// success, 2 on bad input, 1 when the work itself failed, 130 when it
// was interrupted (Ctrl-C), as a shell reports a process ended by SIGINT.
func run(args []string, stdout, stderr io.Writer) int {
	out := &stickyWriter{w: stdout}
	err := dispatch(args, out, stderr)
	var help helpRequest
	if errors.As(err, &help) {
		err = cmdHelp([]string{help.command}, out)
	}
	if out.err != nil {
		// The report, or part of it, was lost: whatever the command
		// found, that is what to say (its own error is likely the same
		// write's).
		fmt.Fprintln(stderr, "verify: writing standard output: "+out.err.Error())
		return 2
	}
	if err == nil {
		return 0
	}
	if err == errFindings {
		fmt.Fprintln(stderr, "verify: a check failed (see the report above)")
		return 1
	}
	if err == errUndecided {
		fmt.Fprintln(stderr, "verify: a check was undecided: no input refuted, and not every one confirmed (see the report above)")
		return 1
	}
	msg := clipMessage(strings.ReplaceAll(err.Error(), "\n", " "), maxMessage)
	fmt.Fprintln(stderr, "verify: "+msg)
	var ue usageError
	switch {
	case errors.As(err, &ue):
		return 2
	case errors.Is(err, errInterrupted):
		return 130
	}
	return 1
}

// maxMessage bounds an error line, in characters: a message names what
// was wrong, and whatever it quotes of the input is clipped where it is
// made (suggest.Quote); this is the net under those.
const maxMessage = 2000

// clipMessage shortens msg to at most most characters, keeping its
// start and its end, and saying how much it left out.
func clipMessage(msg string, most int) string {
	r := []rune(msg)
	if len(r) <= most {
		return msg
	}
	head, tail := most*2/3, most/4
	return string(r[:head]) + fmt.Sprintf(" … (%d characters left out) … ", len(r)-head-tail) + string(r[len(r)-tail:])
}

// stickyWriter passes writes to w until one fails, and keeps that error:
// a command writing its report to a full disk (> /dev/full) must not
// exit 0 with the report lost.
type stickyWriter struct {
	w   io.Writer
	err error
}

func (s *stickyWriter) Write(p []byte) (int, error) {
	if s.err != nil {
		return 0, s.err
	}
	n, err := s.w.Write(p)
	if err == nil && n < len(p) {
		err = io.ErrShortWrite
	}
	s.err = err
	return n, err
}

// errInterrupted is wrapped by the error of a command stopped by Ctrl-C.
var errInterrupted = errors.New("interrupted")

// interrupted returns the error of a command stopped by Ctrl-C, saying
// what was kept: "interrupted: " + what.
func interrupted(what string) error {
	return fmt.Errorf("%w: %s", errInterrupted, what)
}

func dispatch(args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		return badInput("no command; run 'verify help' for the list")
	}
	if len(args) == 2 && isHelpFlag(args[1]) && (args[0] == "help" || args[0] == "version") {
		return cmdHelp(args[:1], stdout)
	}
	switch args[0] {
	case "help", "-h", "-help", "--help":
		return cmdHelp(args[1:], stdout)
	case "version", "--version", "-version":
		if len(args) > 1 {
			return badInput("version takes no arguments")
		}
		return cmdVersion(stdout)
	case "check":
		return cmdCheck(args[1:], stdout, stderr)
	case "recheck":
		return cmdRecheck(args[1:], stdout, stderr)
	case "format":
		return cmdFormat(args[1:], stdout)
	case "round":
		return cmdRound(args[1:], stdout)
	case "list":
		return cmdList(args[1:], stdout)
	case "run":
		return cmdRun(args[1:], stdout)
	case "claims":
		return cmdClaims(args[1:], stdout, stderr)
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
	case "completion":
		return cmdCompletion(args[1:], stdout)
	}
	if strings.HasPrefix(args[0], "-") {
		return cmdCheck(args, stdout, stderr)
	}
	return badInput("unknown command %s%s ('verify help' lists the commands)", suggest.Quote(args[0]), suggest.DidYouMean(args[0], commandNames()))
}
