package main

import (
	"errors"
	"slices"
	"testing"
)

// TestFlagRules: the command line's own rules, which flag.FlagSet alone
// does not have, hold through the pre-pass (flags.go).
func TestFlagRules(t *testing.T) {
	o := new(roundOptions)
	positional, err := parseFlags("round", []string{"1/3", "-2049", "--precision", "fp16", "-.5", "-", "--", "--json"}, o)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"1/3", "-2049", "-.5", "-", "--json"}; !slices.Equal(positional, want) {
		t.Errorf("positional %q, want %q", positional, want)
	}
	if !o.precision.set || o.precision.text != "fp16" || o.json.set {
		t.Errorf("--precision %q (set %v), --json set %v", o.precision.text, o.precision.set, o.json.set)
	}

	c := new(checkOptions)
	if _, err := parseFlags("check", []string{"-recipe=lookup", "---max-n", "-3", "--param", "a=1", "--param", "b=2", "--json=no"}, c); err != nil {
		t.Fatal(err)
	}
	if c.recipe.text != "lookup" || c.maxN.n != -3 || !c.maxN.ok || len(c.params.list) != 2 || !c.json.set || c.json.on() {
		t.Errorf("parsed %+v", c)
	}

	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--max-n", "4", "--max-n=5"}, "flag --max-n is given twice"},
		{[]string{"--json", "--json"}, "flag --json is given twice"},
		{[]string{"--precision"}, "flag --precision needs a value (P)"},
		{[]string{"--maxn", "4"}, `unknown flag "--maxn": did you mean --max-n? ('verify help check' lists the flags)`},
	} {
		_, err := parseFlags("check", tc.args, new(checkOptions))
		if err == nil || err.Error() != tc.want {
			t.Errorf("%q: error %v, want %q", tc.args, err, tc.want)
		}
	}
	var help helpRequest
	if _, err := parseFlags("check", []string{"--recipe", "lookup", "-h"}, new(checkOptions)); !errors.As(err, &help) || help.command != "check" {
		t.Errorf("-h after a flag: %v, want the help of check", err)
	}
}
