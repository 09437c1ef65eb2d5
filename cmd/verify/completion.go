package main

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/transformer-cookbook/verify/recipes"
)

// cmdCompletion prints a bash completion script, built from the same
// table of commands and flags the parser reads, so that it cannot drift
// from what the parser accepts.
func cmdCompletion(args []string, stdout io.Writer) error {
	positional, err := parseArgs("completion", args)
	if err != nil {
		return err
	}
	if len(positional) != 1 || positional[0] != "bash" {
		return badInput("completion takes one shell: bash (zsh reads it after 'autoload bashcompinit; bashcompinit')")
	}
	var cases strings.Builder
	for _, c := range commands {
		var flags []string
		for _, f := range c.flags {
			if !f.hidden {
				flags = append(flags, "--"+f.name)
			}
		}
		sort.Strings(flags)
		fmt.Fprintf(&cases, "\t\t%s) flags=%q ;;\n", c.name, strings.Join(flags, " "))
	}
	var names []string
	for _, c := range commands {
		names = append(names, c.name)
	}
	_, err = fmt.Fprintf(stdout, bashCompletion, strings.Join(names, " "), strings.Join(recipes.Names(), " "),
		"exact fp64 fp32 fp16 bf16 fp8-e4m3 fp8-e5m2 24 53 113 interval:64 interval:128", cases.String())
	return err
}

// bashCompletion completes the command, then its flags, and the values
// of --recipe, --spec, --precision and --weighting; files elsewhere.
const bashCompletion = `# bash completion for verify: source <(verify completion bash)
_verify() {
	local cur prev cmd flags
	cur=${COMP_WORDS[COMP_CWORD]}
	prev=${COMP_WORDS[COMP_CWORD-1]}
	cmd=check
	if [[ ${COMP_WORDS[1]} != -* ]]; then cmd=${COMP_WORDS[1]}; fi
	if [[ $COMP_CWORD -eq 1 && $cur != -* ]]; then
		COMPREPLY=($(compgen -W "%s" -- "$cur"))
		return
	fi
	case $prev in
	--recipe|--spec) COMPREPLY=($(compgen -W "%s" -- "$cur")); return ;;
	--precision) COMPREPLY=($(compgen -W "%s" -- "$cur")); return ;;
	--weighting) COMPREPLY=($(compgen -W "softmax avghardmax lhardmax rhardmax SMAT AHAT UHAT UHAT-right all" -- "$cur")); return ;;
	--model|--out|--plot|--inputs) COMPREPLY=($(compgen -f -- "$cur")); return ;;
	esac
	case $cmd in
%s	esac
	COMPREPLY=($(compgen -W "$flags" -- "$cur"))
}
complete -o default -F _verify verify
`
