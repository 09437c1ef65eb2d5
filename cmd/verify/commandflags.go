package main

// Each command's options and the declaration of its flags, in the order
// 'verify help COMMAND' lists them.

type checkOptions struct {
	commonOptions
	allLengths  switchValue
	certificate textValue
}

func (o *checkOptions) register(s *flagSet) {
	o.commonOptions.register(s, "recipe", "precision", "weighting", "param", "max-n", "cases", "exhaustive", "seed", "lengths")
	s.add(&o.allLengths, flagDoc{name: "all-lengths", help: "go on after the first failing length"})
	o.commonOptions.register(s, "json", "force", "no-analysis", "analysis-budget", "every-budget", "no-every")
	s.add(&o.certificate, flagDoc{name: "certificate", arg: "FILE", help: "write the certificate of every length the analysis proves (JSON, for 'verify recheck')"})
	s.add(&o.model, flagDoc{name: "model", arg: "FILE", help: "check the model of FILE (.json, .safetensors, or - for stdin) instead of the recipe's"})
	o.commonOptions.register(s, "spec", "max-input-size", "quiet", "progress")
}

type recheckOptions struct {
	commonOptions
	certificate textValue
}

func (o *recheckOptions) register(s *flagSet) {
	s.add(&o.certificate, flagDoc{name: "certificate", arg: "FILE", help: "the certificates (- for stdin)"})
	s.add(&o.model, flagDoc{name: "model", arg: "FILE", help: "the model the certificates are about, when it is a file's"})
	o.commonOptions.register(s, "max-input-size", "force")
}

type runOptions struct {
	commonOptions
	input, inputs textValue
	trace         switchValue
	outsideDomain switchValue
}

func (o *runOptions) register(s *flagSet) {
	o.commonOptions.register(s, "recipe")
	s.add(&o.model, flagDoc{name: "model", arg: "FILE", help: "run the model of FILE (- for stdin) instead (no expected outputs)"})
	s.add(&o.input, flagDoc{name: "input", arg: "STRING", help: "the input"})
	s.add(&o.inputs, flagDoc{name: "inputs", arg: "FILE", help: "run each line of FILE (- for stdin)"})
	o.commonOptions.register(s, "precision", "weighting", "param")
	s.add(&o.maxN, flagDoc{name: "max-n", arg: "N", def: "the input's length", help: "the largest length the model is built for"})
	s.add(&o.trace, flagDoc{name: "trace", help: "print the residual stream after every sublayer (with --json, each run's trace)"})
	s.add(&o.outsideDomain, flagDoc{name: "outside-domain", help: "run an input the recipe claims nothing about, labelling its outputs instead of refusing it"})
	o.commonOptions.register(s, "json", "max-input-size", "force")
}

type listOptions struct {
	commonOptions
	params, markdown switchValue
}

func (o *listOptions) register(s *flagSet) {
	s.add(&o.params, flagDoc{name: "params", help: "add each recipe's parameters and their defaults"})
	o.commonOptions.register(s, "json")
	s.add(&o.markdown, flagDoc{name: "markdown", help: "print the Markdown table of the recipes page"})
}

type claimsOptions struct {
	commonOptions
	id                        textValue
	explain, markdown, errata switchValue
}

func (o *claimsOptions) register(s *flagSet) {
	s.add(&o.id, flagDoc{name: "id", arg: "ID", help: "check one claim"})
	s.add(&o.explain, flagDoc{name: "explain", help: "every claim (or the one of --id) in full: statement, domain, evidence"})
	o.commonOptions.register(s, "json")
	s.add(&o.markdown, flagDoc{name: "markdown", help: "print the table of the claims page"})
	s.add(&o.errata, flagDoc{name: "errata", help: "print the table of refuted claims"})
	o.commonOptions.register(s, "quiet", "progress")
}

type frontierOptions struct {
	commonOptions
	all, noBisect switchValue
	shard         shardValue
	phase         textValue
}

func (o *frontierOptions) register(s *flagSet) {
	s.add(&o.recipe, flagDoc{name: "recipe", arg: "NAME[,NAME…]", help: "the constructions"})
	s.add(&o.all, flagDoc{name: "all", help: "every recipe"})
	s.add(&o.model, flagDoc{name: "model", arg: "FILE", help: "the frontier of the model of FILE (- for stdin), against the reference of --spec"})
	o.commonOptions.register(s, "spec", "max-input-size")
	s.add(&o.precisions, flagDoc{name: "precision", arg: "P,Q,…", def: "fp8-e4m3,fp8-e5m2,bf16,fp16,fp32,fp64,24,53,113", help: "the precisions"})
	o.commonOptions.register(s, "weighting", "param", "max-n", "cases", "exhaustive", "seed", "lengths")
	s.add(&o.noBisect, flagDoc{name: "no-bisect", help: "check only the geometric lengths (not the predicted limit, no bisection)"})
	s.add(&o.shard, flagDoc{name: "shard", arg: "K/N", help: "run shard K of N: a share of the lengths, by cost (phase 1), or of the bisections (phase 2)"})
	s.add(&o.phase, flagDoc{name: "phase", arg: "1|2", def: "1", help: "2: bisect and diagnose, from the files of every phase-1 shard"})
	o.commonOptions.register(s, "json")
	s.add(&o.out, flagDoc{name: "out", arg: "FILE", help: "write the JSON to FILE (atomically), or - for stdout (the table goes to stderr)"})
	s.add(&o.plot, flagDoc{name: "plot", arg: "FILE", help: "draw max |error| against n (.svg or .png)"})
	o.commonOptions.register(s, "quiet", "progress", "force", "no-analysis", "analysis-budget", "every-budget", "no-every")
}

type mergeOptions struct{ commonOptions }

func (o *mergeOptions) register(s *flagSet) {
	o.commonOptions.register(s, "json")
	s.add(&o.out, flagDoc{name: "out", arg: "FILE", help: "write the JSON to FILE (atomically), or - for stdout"})
	s.add(&o.plot, flagDoc{name: "plot", arg: "FILE", help: "draw max |error| against n (.svg or .png)"})
	o.commonOptions.register(s, "max-input-size")
}

type exportOptions struct {
	commonOptions
	format, dtype textValue
	n             intValue
	roundWeights  switchValue
}

func (o *exportOptions) register(s *flagSet) {
	o.commonOptions.register(s, "recipe")
	s.add(&o.out, flagDoc{name: "out", arg: "FILE", help: "FILE.json or FILE.safetensors, or - for stdout"})
	s.add(&o.format, flagDoc{name: "format", arg: "F", def: "json, or the extension of --out", help: "json or safetensors"})
	s.add(&o.n, flagDoc{name: "n", arg: "N", def: "the recipe's", help: "the largest length the model serves"})
	o.commonOptions.register(s, "param", "weighting")
	s.add(&o.dtype, flagDoc{name: "dtype", arg: "D", def: "F64", help: "F64, F32, F16, BF16, F8_E4M3 or F8_E5M2 (safetensors)"})
	s.add(&o.roundWeights, flagDoc{name: "round-weights", help: "store each weight rounded to the dtype, listing those rounded"})
	o.commonOptions.register(s, "force", "quiet", "progress")
}

type benchOptions struct {
	commonOptions
	cases       textValue
	quick, list switchValue
	child       textValue
}

func (o *benchOptions) register(s *flagSet) {
	s.add(&o.cases, flagDoc{name: "case", arg: "REGEX", help: "only the cases matching REGEX"})
	s.add(&o.quick, flagDoc{name: "quick", help: "small sizes: a smoke test, not a measurement"})
	s.add(&o.list, flagDoc{name: "list", help: "list the cases"})
	o.commonOptions.register(s, "json", "quiet", "progress")
	s.add(&o.child, flagDoc{name: "child", arg: "CASE", hidden: true})
}

type edelmanOptions struct {
	commonOptions
	scores, gamma textValue
}

func (o *edelmanOptions) register(s *flagSet) {
	s.add(&o.scores, flagDoc{name: "scores", arg: "LIST", help: "the scores, exact rationals separated by commas"})
	s.add(&o.gamma, flagDoc{name: "gamma", arg: "G", def: "the gap", help: "the γ of the bound (positive, at most the gap)"})
	o.commonOptions.register(s, "json")
}

type formatOptions struct{ commonOptions }

func (o *formatOptions) register(s *flagSet) { o.commonOptions.register(s, "json") }

type roundOptions struct{ commonOptions }

func (o *roundOptions) register(s *flagSet) {
	s.add(&o.precision, flagDoc{name: "precision", arg: "P", help: "the format"})
	o.commonOptions.register(s, "json")
}

// noOptions is the options of a command without flags.
type noOptions struct{}

func (noOptions) register(*flagSet) {}
