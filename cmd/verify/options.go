package main

import (
	"flag"

	"github.com/transformer-cookbook/verify/check"
)

// The flags several commands share.
var (
	flagRecipe     = flagDoc{name: "recipe", arg: "NAME", help: "the construction ('verify list' names them all)"}
	flagPrecision  = flagDoc{name: "precision", arg: "P", def: "the recipe's: exact; interval:128 where its values are irrational; 53 where its weights are (softmax's 1/τ; 'verify list NAME' says which)", help: "exact, P (a P-bit bigfloat), fp64, fp32, fp16, bf16, fp8-e4m3, fp8-e5m2, interval:P"}
	flagWeighting  = flagDoc{name: "weighting", arg: "W", def: "the recipe's first", help: "softmax/SMAT, avghardmax/AHAT, lhardmax/UHAT, rhardmax/UHAT-right, or all"}
	flagParam      = flagDoc{name: "param", arg: "K=V", repeat: true, help: "set a parameter of the recipe, an exact value (repeatable; 'verify list NAME' shows them)"}
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

// commonOptions are the options several commands share, typed. A command
// embeds them and registers the ones it takes (with the shared
// documentation, or, for a field whose meaning differs by command such
// as --model, with its own).
type commonOptions struct {
	recipe     textValue
	precision  precisionValue
	precisions precisionsValue // frontier's --precision: a list
	weighting  textValue
	params     paramsValue
	maxN       intValue
	cases      intValue
	exhaustive intValue
	seed       seedValue
	lengths    lengthsValue
	json       switchValue
	force      switchValue
	noAnalysis switchValue
	budget     intValue
	every      intValue
	noEvery    switchValue
	model      textValue
	spec       textValue
	maxInput   sizeValue
	out        textValue
	plot       textValue
	quiet      switchValue
	progress   switchValue
}

// register declares the shared flags named, in that order, with their
// shared documentation.
func (o *commonOptions) register(s *flagSet, names ...string) {
	shared := map[string]struct {
		v flag.Value
		d flagDoc
	}{
		"recipe": {&o.recipe, flagRecipe}, "precision": {&o.precision, flagPrecision}, "weighting": {&o.weighting, flagWeighting},
		"param": {&o.params, flagParam}, "max-n": {&o.maxN, flagMaxN}, "cases": {&o.cases, flagCases},
		"exhaustive": {&o.exhaustive, flagExhaustive}, "seed": {&o.seed, flagSeed}, "lengths": {&o.lengths, flagLengths},
		"json": {&o.json, flagJSON}, "force": {&o.force, flagForce}, "no-analysis": {&o.noAnalysis, flagNoAnalysis},
		"analysis-budget": {&o.budget, flagBudget}, "every-budget": {&o.every, flagEvery}, "no-every": {&o.noEvery, flagNoEvery},
		"spec": {&o.spec, flagSpec}, "max-input-size": {&o.maxInput, flagMaxInput}, "quiet": {&o.quiet, flagQuiet},
		"progress": {&o.progress, flagProgress},
	}
	for _, name := range names {
		f, ok := shared[name]
		if !ok {
			panic("verify: no shared flag --" + name)
		}
		s.add(f.v, f.d)
	}
}

// readSizes reads --max-n, --cases, --exhaustive and --analysis-budget
// into the fields given, where set; fits, unless nil, refuses a --max-n
// the input cannot serve. Every case of a length is built before it
// runs: --cases and --exhaustive are capped so that they fit in memory.
func (o *commonOptions) readSizes(maxN, cases, exhaustive, budget *int, fits func(maxN int) error) error {
	for _, f := range []struct {
		v        *intValue
		name     string
		dst      *int
		min, max int
	}{{&o.maxN, "max-n", maxN, 1, check.MaxLength}, {&o.cases, "cases", cases, 1, check.MaxCases},
		{&o.exhaustive, "exhaustive", exhaustive, 0, check.MaxWork}, {&o.budget, "analysis-budget", budget, 1, check.MaxWork}} {
		if !f.v.set {
			continue
		}
		n, ok := f.v.within(f.min, f.max)
		if !ok {
			return badInput("--%s must be an integer from %d to %d, got %q", f.name, f.min, f.max, f.v.text)
		}
		if f.name == "max-n" && fits != nil {
			if err := fits(n); err != nil {
				return err
			}
		}
		*f.dst = n
	}
	return nil
}

// readSeed reads --seed into seed, where set.
func (o *commonOptions) readSeed(seed *uint64) error {
	if !o.seed.set {
		return nil
	}
	if !o.seed.ok {
		return badInput("--seed must be a non-negative integer, got %q", o.seed.text)
	}
	*seed = o.seed.n
	return nil
}
