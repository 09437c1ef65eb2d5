package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/transformer-cookbook/verify/check"
	"github.com/transformer-cookbook/verify/frontier"
	"github.com/transformer-cookbook/verify/internal/atomicfile"
	"github.com/transformer-cookbook/verify/internal/limits"
	"github.com/transformer-cookbook/verify/internal/plural"
	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/numeric"
	"github.com/transformer-cookbook/verify/recipes"
)

// frontierDoc is the JSON document of frontier and merge: one report per
// recipe. Merge reads it back from the shards' files.
type frontierDoc struct {
	Schema  string             `json:"schema"`
	Reports []*frontier.Report `json:"reports"`
}

// cmdFrontier measures the uniformity limits of one recipe (or all) at
// a list of precisions.
func cmdFrontier(args []string, stdout, stderr io.Writer) error {
	o := new(frontierOptions)
	positional, err := parseFlags("frontier", args, o)
	if err != nil {
		return err
	}
	switch o.phase.text {
	case "2":
		return frontierPhase2(o, positional, stdout, stderr)
	case "", "1":
	default:
		return badInput("--phase must be 1 or 2, got %q", o.phase.text)
	}
	if o.phase.set && !o.shard.set {
		return badInput("--phase 1 goes with --shard K/N")
	}
	if err := noPositional("frontier", positional); err != nil {
		return err
	}
	sw, err := o.sweep()
	if err != nil {
		return err
	}
	if err := checkOutputs(&o.commonOptions, nil, len(sw.recipes)); err != nil {
		return err
	}
	noteStaleOutputs(&o.commonOptions, stderr)
	stop := interruptible()
	defer stop.release()
	sw.opts.Stop = stop.requested
	doc, err := sw.run(newProgress(stderr, &o.commonOptions))
	if err != nil {
		return err
	}
	return writeFrontier(&o.commonOptions, doc, stdout, stderr)
}

// A frontierSweep is a frontier's options resolved: the recipes (or the
// model of a file and its reference) and what each is swept with.
type frontierSweep struct {
	o       *frontierOptions
	recipes []*recipes.Recipe
	user    *model.Model // the model of --model, or nil
	fileN   int          // the largest length the model file covers, 0 for any
	params  map[string]string
	opts    frontier.Options
}

// sweep resolves the options, in the order their faults are reported.
func (o *frontierOptions) sweep() (*frontierSweep, error) {
	sw := &frontierSweep{o: o}
	if err := sw.source(); err != nil {
		return nil, err
	}
	precisions, err := o.precisionList()
	if err != nil {
		return nil, err
	}
	sw.opts = frontier.Options{Precisions: precisions, Cases: 8, Exhaustive: 256, Seed: 1, NoBisect: o.noBisect.on(), Analysis: !o.noAnalysis.on()}
	if !o.force.on() {
		sw.opts.MemoryLimit = limits.Memory()
	}
	if err := o.readSizes(&sw.opts.MaxN, &sw.opts.Cases, &sw.opts.Exhaustive, &sw.opts.AnalysisBudget, nil); err != nil {
		return nil, err
	}
	if err := o.readSeed(&sw.opts.Seed); err != nil {
		return nil, err
	}
	if sw.opts.EveryBudget, sw.opts.NoEvery, err = o.everyBudget(); err != nil {
		return nil, err
	}
	if o.shard.set {
		if sw.opts.Shard, sw.opts.Shards, err = o.shard.parsed(); err != nil {
			return nil, err
		}
		if o.plot.set {
			return nil, badInput("--plot draws a whole sweep: give it to 'verify merge'")
		}
		// One plan for the recipes of the command, each carrying on from
		// the last one's loads.
		sw.opts.Loads = map[int]float64{}
	}
	for _, l := range o.lengths.items {
		if !l.ok || l.n < 1 {
			return nil, badInput("--lengths: %q is not a length", l.text)
		}
		sw.opts.Lengths = append(sw.opts.Lengths, l.n)
	}
	if err := sw.readParams(); err != nil {
		return nil, err
	}
	if len(sw.recipes) > 1 && o.weighting.set {
		return nil, badInput("--weighting applies to one recipe: give --recipe NAME")
	}
	if sw.opts.Shards > 0 {
		if most := shardUnits(sw.recipes, sw.opts); sw.opts.Shards > most {
			return nil, badInput("--shard %s: the sweep has at most %d units of work (lengths × precisions, an exhaustive length split at most into its inputs, --exhaustive %d), so at most %d shards can have any", o.shard.text, most, sw.opts.Exhaustive, most)
		}
	}
	return sw, nil
}

// source reads what is swept: the recipes of --recipe or --all, or the
// model of --model against the reference of --spec.
func (sw *frontierSweep) source() error {
	o := sw.o
	if o.model.set {
		for _, f := range []struct {
			name string
			set  bool
		}{{"all", o.all.set}, {"weighting", o.weighting.set}, {"shard", o.shard.set}} {
			if f.set {
				return badInput("--%s does not apply with --model FILE --spec NAME", f.name)
			}
		}
		r, err := o.specRecipe()
		if err != nil {
			return err
		}
		sw.recipes = []*recipes.Recipe{r}
		sw.user, sw.fileN, _, err = o.readModelFile()
		return err
	}
	switch {
	case o.spec.set:
		return badInput("--spec goes with --model FILE")
	case o.all.on() && o.recipe.set:
		return badInput("give --recipe NAME or --all, not both")
	case o.all.on():
		sw.recipes = recipes.All()
		return nil
	case !o.recipe.set:
		return badInput("--recipe NAME[,NAME…] or --all is required; recipes: %s (see 'verify list')", strings.Join(recipes.Names(), ", "))
	}
	for _, name := range strings.Split(o.recipe.text, ",") {
		r, err := recipes.Get(strings.TrimSpace(name))
		if err != nil {
			return badInput("%v", err)
		}
		sw.recipes = append(sw.recipes, r)
	}
	return nil
}

// precisionList reads --precision, a list of distinct precisions.
func (o *frontierOptions) precisionList() ([]numeric.Precision, error) {
	items := o.precisions.items
	if !o.precisions.set {
		items = parsePrecisions(frontier.DefaultPrecisions)
	}
	var precisions []numeric.Precision
	seen := map[string]bool{}
	for _, it := range items {
		if it.err != nil {
			return nil, badInput("--precision: %v", it.err)
		}
		if seen[it.p.String()] {
			return nil, badInput("--precision: %s is listed twice", it.p)
		}
		seen[it.p.String()] = true
		precisions = append(precisions, it.p)
	}
	return precisions, nil
}

// readParams reads --param: with several recipes, a parameter goes to
// those that take it, and one that none takes is refused.
func (sw *frontierSweep) readParams() error {
	params, err := sw.o.params.parsed()
	if err != nil {
		return err
	}
	for k := range params {
		used := false
		for _, r := range sw.recipes {
			used = used || r.HasParam(k)
		}
		if !used {
			return badInput("--param %s: no recipe given takes a parameter %s ('verify list --params')", k, k)
		}
	}
	sw.params = params
	return nil
}

// run sweeps each recipe in turn, until one is interrupted.
func (sw *frontierSweep) run(bar *progress) (frontierDoc, error) {
	var doc frontierDoc
	for _, r := range sw.recipes {
		o, err := sw.optionsFor(r)
		if err != nil {
			return doc, err
		}
		con, err := r.Construct(o.Weighting, o.MaxN, o.Params)
		if err == nil && sw.user != nil {
			// A model the reference cannot check is bad input, as it is
			// to check --model, not a row of "cannot run".
			if err := check.Adopt(con, sw.user); err != nil {
				return doc, badInput("%s cannot check this model: %v", r.Name, err)
			}
		}
		if err != nil {
			if len(sw.recipes) == 1 {
				return doc, badInput("%v", err)
			}
			// With several recipes, one that cannot be built for these
			// options is a row of errors, not the end of the sweep.
			doc.Reports = append(doc.Reports, unbuilt(r, o, err))
			continue
		}
		o.Progress = func(done, planned int, precision string, n int) {
			bar.show(fmt.Sprintf("%s %s n = %d", r.Name, precision, n), done, planned, "lengths", float64(done)/float64(planned))
		}
		rep, err := frontier.Run(o)
		bar.clear()
		if err != nil {
			return doc, badInput("%v", err)
		}
		doc.Reports = append(doc.Reports, rep)
		if rep.Interrupted {
			break
		}
	}
	return doc, nil
}

// optionsFor returns the options of the sweep of r: the parameters it
// takes, its length and its weighting.
func (sw *frontierSweep) optionsFor(r *recipes.Recipe) (frontier.Options, error) {
	o := sw.opts
	o.Recipe, o.Params = r, map[string]string{}
	for k, v := range sw.params {
		if r.HasParam(k) {
			o.Params[k] = v
		}
	}
	if o.MaxN == 0 {
		o.MaxN = r.DefaultMaxN
		if o.MaxN == 0 {
			o.MaxN = 64
		}
		if sw.user != nil && sw.fileN > 0 {
			// Position encodings in a file are a table up to the
			// length it was written for.
			o.MaxN = min(o.MaxN, sw.fileN)
		}
	} else if sw.user != nil && sw.fileN > 0 && o.MaxN > sw.fileN {
		return o, badInput("--max-n %d: the model file covers lengths up to %d", o.MaxN, sw.fileN)
	}
	var err error
	if o.Weighting, err = sw.o.oneWeighting(r); err != nil {
		return o, err
	}
	if sw.user != nil {
		o.Model, o.ModelFile = sw.user, modelName(sw.o.model.text)
		// The reference is built for the model's weighting where the
		// paper gives one, as check --model does.
		if mw := modelWeighting(sw.user, o.Weighting); r.Supports(mw) {
			o.Weighting = mw
		}
	}
	return o, nil
}

// shardUnits bounds the number of units of phase 1 of a sharded sweep
// of the recipes rs: each recipe's lengths (with the two the theory
// adds) at each precision, an exhaustive length cut into at most its
// inputs, which are at most --exhaustive, and a sampled one a unit.
// More shards than this have nothing to do.
func shardUnits(rs []*recipes.Recipe, opts frontier.Options) int {
	const most = 1 << 40
	total := 0
	for _, r := range rs {
		lengths := len(opts.Lengths)
		if lengths == 0 {
			lengths = len(check.DefaultLengths(r.MinN, opts.MaxN))
		}
		n := (lengths + 2) * len(opts.Precisions) * max(1, min(opts.Exhaustive, most))
		total = min(most, total+n)
	}
	return total
}

// frontierPhase2 runs shard K/N of phase 2 of sharded sweeps, from the
// files of all their phase-1 shards: the options of the sweeps are
// theirs.
func frontierPhase2(o *frontierOptions, files []string, stdout, stderr io.Writer) error {
	if err := o.refusePhase1Flags(); err != nil {
		return err
	}
	if len(files) == 0 {
		return badInput("phase 2 needs the JSON files of every phase-1 shard (verify frontier --shard K/N --out FILE)")
	}
	shard, shards, err := o.shard.parsed()
	if err != nil {
		return err
	}
	if err := checkOutputs(&o.commonOptions, files, 1); err != nil {
		return err
	}
	noteStaleOutputs(&o.commonOptions, stderr)
	docs, err := readFrontierDocs(&o.commonOptions, files)
	if err != nil {
		return err
	}
	var sweeps [][]*frontier.Report
	for k := range docs[0].Reports {
		var reps []*frontier.Report
		for i, d := range docs {
			if d.Reports[k].Phase != 1 {
				return badInput("%s: not a phase-1 shard (verify frontier --shard K/N --out FILE)", files[i])
			}
			reps = append(reps, d.Reports[k])
		}
		sweeps = append(sweeps, reps)
	}
	opts := frontier.Phase2Options{Shard: shard, Shards: shards}
	if !o.force.on() {
		opts.MemoryLimit = limits.Memory()
	}
	stop := interruptible()
	defer stop.release()
	opts.Stop = stop.requested
	bar := newProgress(stderr, &o.commonOptions)
	opts.Progress = func(done, planned int, precision string, n int) {
		bar.show(fmt.Sprintf("phase 2 %s n = %d", precision, n), done, planned, "lengths", float64(done)/float64(max(planned, 1)))
	}
	reps, err := frontier.Phase2(sweeps, opts)
	bar.clear()
	if err != nil {
		return badInput("%v", err)
	}
	return writeFrontier(&o.commonOptions, frontierDoc{Reports: reps}, stdout, stderr)
}

// refusePhase1Flags refuses the options of a sweep in phase 2, which
// continues the phase-1 shards with theirs.
func (o *frontierOptions) refusePhase1Flags() error {
	for _, f := range []struct {
		name string
		set  bool
	}{{"recipe", o.recipe.set}, {"all", o.all.set}, {"model", o.model.set}, {"spec", o.spec.set}, {"precision", o.precisions.set},
		{"weighting", o.weighting.set}, {"max-n", o.maxN.set}, {"cases", o.cases.set}, {"exhaustive", o.exhaustive.set}, {"seed", o.seed.set},
		{"lengths", o.lengths.set}, {"no-bisect", o.noBisect.set}, {"no-analysis", o.noAnalysis.set}, {"analysis-budget", o.budget.set},
		{"every-budget", o.every.set}, {"no-every", o.noEvery.set}, {"plot", o.plot.set}} {
		if f.set {
			return badInput("--%s does not apply to phase 2, which continues the phase-1 shards with their options", f.name)
		}
	}
	if len(o.params.list) > 0 {
		return badInput("--param does not apply to phase 2, which continues the phase-1 shards with their options")
	}
	return nil
}

// readFrontierDocs reads the positional files as frontier documents,
// each with as many reports as the first.
func readFrontierDocs(o *commonOptions, files []string) ([]frontierDoc, error) {
	limit, err := o.inputLimit()
	if err != nil {
		return nil, err
	}
	var docs []frontierDoc
	for _, path := range files {
		data, err := readInput(path, "merge", limit)
		if err != nil {
			return nil, err
		}
		var d frontierDoc
		dec := json.NewDecoder(strings.NewReader(string(data)))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&d); err != nil {
			// encoding/json quotes the value it refused, which may be
			// thousands of digits long.
			return nil, badInput("%s: not a frontier report: %s", path, clipMessage(err.Error(), 200))
		}
		if _, err := dec.Token(); err != io.EOF {
			return nil, badInput("%s: data after the JSON document, at byte %d", path, dec.InputOffset()+1)
		}
		if err := readSchema(d.Schema, kindFrontier); err != nil {
			return nil, badInput("%s: %v", path, err)
		}
		if len(d.Reports) == 0 || slices.Contains(d.Reports, nil) {
			return nil, badInput("%s: a frontier document without reports", path)
		}
		if len(docs) > 0 && len(d.Reports) != len(docs[0].Reports) {
			return nil, badInput("%s has %s, %s has %d", path, plural.Of(len(d.Reports), "report"), files[0], len(docs[0].Reports))
		}
		docs = append(docs, d)
	}
	return docs, nil
}

// cmdMerge combines the JSON results of the shards of a frontier sweep.
func cmdMerge(args []string, stdout, stderr io.Writer) error {
	o := new(mergeOptions)
	files, err := parseFlags("merge", args, o)
	if err != nil {
		return err
	}
	if len(files) == 0 {
		return badInput("merge needs the JSON files of the shards (verify frontier --shard K/N --out FILE)")
	}
	if err := checkOutputs(&o.commonOptions, files, 1); err != nil {
		return err
	}
	noteStaleOutputs(&o.commonOptions, stderr)
	docs, err := readFrontierDocs(&o.commonOptions, files)
	if err != nil {
		return err
	}
	if o.plot.set && len(docs[0].Reports) > 1 {
		return badInput("--plot draws one recipe; these files hold %d", len(docs[0].Reports))
	}
	out := frontierDoc{Schema: schemaID(kindFrontier)}
	for k := range docs[0].Reports {
		var shards []*frontier.Report
		for _, d := range docs {
			shards = append(shards, d.Reports[k])
		}
		rep, err := frontier.Merge(shards)
		if err != nil {
			return badInput("%v", err)
		}
		out.Reports = append(out.Reports, rep)
	}
	return writeFrontier(&o.commonOptions, out, stdout, stderr)
}

// checkOutputs refuses output files that cannot be written (a plot that
// is neither .svg nor .png, a directory, a directory that does not exist
// or is not writable) before a long sweep rather than after it.
func checkOutputs(o *commonOptions, inputs []string, reports int) error {
	if o.plot.set {
		if ext := strings.ToLower(filepath.Ext(o.plot.text)); ext != ".svg" && ext != ".png" {
			return badInput("--plot: %q must end in .svg or .png", o.plot.text)
		}
		if reports > 1 {
			return badInput("--plot draws one recipe: give --recipe NAME")
		}
	}
	outputs := []struct {
		flag string
		v    *textValue
	}{{"out", &o.out}, {"plot", &o.plot}}
	for _, f := range outputs {
		if f.v.set && !(f.flag == "out" && f.v.text == "-") {
			if err := atomicfile.Check(f.v.text); err != nil {
				return badInput("--%s: %v", f.flag, err)
			}
		}
	}
	// Every output distinct from the other and from every input: one
	// would overwrite the other, or the file being read.
	out, plot := o.out.text, o.plot.text
	if out != "" && out != "-" && plot != "" && samePath(out, plot) {
		return badInput("--out and --plot name the same file %q: one would overwrite the other", out)
	}
	for _, f := range outputs {
		path := f.v.text
		if path == "" || path == "-" {
			continue
		}
		for _, in := range inputs {
			if in != "-" && samePath(path, in) {
				return badInput("--%s %q is also an input: writing it would overwrite what is read", f.flag, path)
			}
		}
	}
	return nil
}

// samePath reports whether two paths name one file: the same file once
// symbolic links are followed (a link to a file not yet written
// included, see atomicfile.Target), or, where both exist, the same file
// by another route (a hard link).
func samePath(a, b string) bool {
	ta, errA := atomicfile.Target(a)
	tb, errB := atomicfile.Target(b)
	if errA == nil && errB == nil && ta == tb {
		return true
	}
	sa, errA := os.Stat(a)
	sb, errB := os.Stat(b)
	return errA == nil && errB == nil && os.SameFile(sa, sb)
}

// noteStaleOutputs names the temporary files of --out and --plot that a
// killed run left.
func noteStaleOutputs(o *commonOptions, stderr io.Writer) {
	for _, v := range []*textValue{&o.out, &o.plot} {
		if v.set {
			noteStale(stderr, v.text)
		}
	}
}

// writeFrontier prints the reports (text, or JSON with --json) and
// writes --out and --plot, each atomically. An interrupted sweep prints
// what it checked and writes no file. --out - writes the JSON to stdout
// and the text to stderr, so that stdout holds the document alone.
func writeFrontier(o *commonOptions, doc frontierDoc, stdout, stderr io.Writer) error {
	doc.Schema = schemaID(kindFrontier)
	toStdout := o.out.text == "-"
	text := stdout
	if toStdout {
		text = stderr
	}
	stopped := false
	for _, rep := range doc.Reports {
		stopped = stopped || rep.Interrupted
	}
	encode := func(w io.Writer) error { return writeJSON(w, doc) }
	if !stopped {
		if toStdout {
			if err := encode(stdout); err != nil {
				return err
			}
		} else if o.out.set {
			if err := atomicfile.Write(o.out.text, encode); err != nil {
				return badInput("%v", err)
			}
		}
		if o.plot.set {
			if err := frontier.WritePlot(doc.Reports[0], o.plot.text); err != nil {
				return badInput("%v", err)
			}
		}
	}
	switch {
	case o.json.on() && toStdout:
		// The document is on stdout once already.
	case o.json.on():
		if err := encode(stdout); err != nil {
			return err
		}
	default:
		if len(doc.Reports) > 1 && doc.Reports[0].Shard == "" {
			if err := frontier.WriteTable(text, doc.Reports); err != nil {
				return err
			}
			fmt.Fprintln(text)
		}
		for _, rep := range doc.Reports {
			if err := frontier.WriteText(text, rep); err != nil {
				return err
			}
			fmt.Fprintln(text)
		}
	}
	if stopped {
		return interrupted("the report printed covers the lengths checked so far; no file written")
	}
	return nil
}

// oneWeighting is --weighting for a frontier: one weighting, the
// recipe's first by default.
func (o *commonOptions) oneWeighting(r *recipes.Recipe) (w model.Weighting, err error) {
	if o.weighting.text == "all" {
		return 0, badInput("a frontier runs one weighting; name it (--weighting %s)", weightingNames(r.Weightings))
	}
	ws, _, err := o.weightingsOf(r)
	if err != nil {
		return 0, err
	}
	return ws[0], nil
}

// unbuilt is the report of a recipe that cannot be built for a sweep's
// options (a length past what it builds): every row says why.
func unbuilt(r *recipes.Recipe, o frontier.Options, err error) *frontier.Report {
	rep := &frontier.Report{Recipe: r.Name, Section: r.Section, Weighting: recipes.WeightingAcronym(o.Weighting),
		MaxN: o.MaxN, Seed: o.Seed, Cases: o.Cases, Exhaustive: o.Exhaustive}
	if o.Shards > 0 {
		// A shard like the others, whose rows hold their error alone.
		rep.Shard, rep.Phase = fmt.Sprintf("%d/%d", o.Shard+1, o.Shards), 1
		rep.Lengths = slices.Compact(slices.Sorted(slices.Values(o.Lengths)))
		if o.Lengths == nil {
			rep.Lengths = check.DefaultLengths(r.MinN, o.MaxN)
		}
	}
	if len(r.Weightings) == 0 {
		rep.Weighting = "no attention"
	}
	for _, p := range o.Precisions {
		rep.Rows = append(rep.Rows, frontier.Row{Precision: p.String(), Error: "cannot build: " + err.Error()})
	}
	if rep.Shard != "" {
		frontier.Seal(rep)
	}
	return rep
}
