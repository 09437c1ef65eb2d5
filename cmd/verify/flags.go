package main

import (
	"flag"
	"io"
	"strings"

	"github.com/transformer-cookbook/verify/internal/suggest"
)

// A flagDoc is one flag of a command: what the parser accepts and what
// help and completion print.
type flagDoc struct {
	name   string // without the dashes
	arg    string // the value's placeholder; "" for a flag that takes none
	def    string // the default, "" when there is none to state
	help   string
	hidden bool // accepted but not shown (a parent process's flag to its child)
	repeat bool // may be given more than once (--param)
}

// flagOptions is a command's typed options: register declares its flags,
// in the order help lists them. The parser, the help and the completion
// script all read that one declaration.
type flagOptions interface {
	register(s *flagSet)
}

// flagSet is one command's flags: a flag.FlagSet that stores each value
// into its typed field, and the flags' documentation in declaration
// order (a FlagSet only knows them sorted by name).
type flagSet struct {
	command string
	fs      *flag.FlagSet
	docs    []flagDoc
	byName  map[string]flagDoc
}

func newFlagSet(command string) *flagSet {
	fs := flag.NewFlagSet(command, flag.ContinueOnError)
	// Errors are worded and printed by run, as for every other command
	// line error; the FlagSet's own usage text is not the help.
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	return &flagSet{command: command, fs: fs, byName: map[string]flagDoc{}}
}

// add declares a flag, its value stored by v.
func (s *flagSet) add(v flag.Value, d flagDoc) {
	s.fs.Var(v, d.name, d.help)
	s.docs = append(s.docs, d)
	s.byName[d.name] = d
}

// flagsOf returns the flags command declares, in help's order.
func flagsOf(c *commandDoc) *flagSet {
	s := newFlagSet(c.name)
	if c.options != nil {
		c.options().register(s)
	}
	return s
}

// parseFlags reads args into o for command and returns the positional
// arguments.
func parseFlags(command string, args []string, o flagOptions) ([]string, error) {
	s := newFlagSet(command)
	o.register(s)
	return s.parse(args)
}

// parse reads args into the flags' values and returns the positional
// arguments. The command line keeps rules of its own that flag.FlagSet
// does not have, so a pre-pass sorts the words first: flags may follow
// positional arguments; negative numbers ("-0.5", "-1/3") and "-"
// (standard input) are positional; --name, -name and ---name are alike;
// "--" ends the flags; -h or --help anywhere asks for the command's help;
// a flag given twice is refused, but for a repeatable one. The FlagSet
// then sets the values from --name=value words alone.
func (s *flagSet) parse(args []string) ([]string, error) {
	var flags, positional []string
	seen := map[string]bool{}
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			positional = append(positional, args[i+1:]...)
			break
		}
		if isPositional(a) {
			positional = append(positional, a)
			continue
		}
		if isHelpFlag(a) {
			return nil, helpRequest{s.command}
		}
		name, value, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		d, ok := s.byName[name]
		if !ok {
			return nil, s.unknown(a, name)
		}
		switch {
		case d.arg == "" && !hasValue:
			value = "true"
		case !hasValue:
			if i+1 >= len(args) {
				return nil, badInput("flag --%s needs a value (%s)", name, d.arg)
			}
			i++
			value = args[i]
		}
		if seen[name] && !d.repeat {
			return nil, badInput("flag --%s is given twice", name)
		}
		seen[name] = true
		flags = append(flags, "--"+name+"="+value)
	}
	if err := s.fs.Parse(flags); err != nil {
		return nil, badInput("%v", err)
	}
	return positional, nil
}

// isPositional reports whether a is an argument rather than a flag: a
// word without a leading dash, "-" alone (standard input), or a negative
// number.
func isPositional(a string) bool {
	return a == "-" || !strings.HasPrefix(a, "-") || len(a) > 1 && (a[1] >= '0' && a[1] <= '9' || a[1] == '.')
}

// unknown refuses the flag word a (name without its dashes), suggesting
// the nearest flag the command has.
func (s *flagSet) unknown(a, name string) error {
	var names []string
	for _, d := range s.docs {
		names = append(names, "--"+d.name)
	}
	flag, _, _ := strings.Cut(a, "=")
	if hint := suggest.DidYouMean("--"+name, names); hint != "" {
		return badInput("unknown flag %s%s ('verify help %s' lists the flags)", suggest.Quote(flag), hint, s.command)
	}
	return badInput("unknown flag %s ('verify help %s' lists the flags)", suggest.Quote(flag), s.command)
}

// isHelpFlag reports whether a asks for help: -h, -help or --help.
func isHelpFlag(a string) bool {
	return a == "-h" || a == "-help" || a == "--help"
}

// noPositional refuses positional arguments, for the commands that take
// only flags.
func noPositional(command string, positional []string) error {
	if len(positional) == 0 {
		return nil
	}
	return badInput("unexpected argument %q; 'verify help %s' lists the flags", positional[0], command)
}

// parseArgs parses args against the flags the table declares for
// command, into a new value of its options, and returns the positional
// arguments: for a command that reads no flag.
func parseArgs(command string, args []string) ([]string, error) {
	var o flagOptions = noOptions{}
	if c := mustCommand(command); c.options != nil {
		o = c.options()
	}
	return parseFlags(command, args, o)
}

// init fills each command's table of flags from its options, for help
// and completion.
func init() {
	for k := range commands {
		commands[k].flags = flagsOf(&commands[k]).docs
	}
}
