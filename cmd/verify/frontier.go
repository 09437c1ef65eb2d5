package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
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
	a, err := parseArgs("frontier", args)
	if err != nil {
		return err
	}
	switch a.flags["phase"] {
	case "2":
		return frontierPhase2(a, stdout, stderr)
	case "", "1":
	default:
		return badInput("--phase must be 1 or 2, got %q", a.flags["phase"])
	}
	if _, ok := a.flags["phase"]; ok {
		if _, sharded := a.flags["shard"]; !sharded {
			return badInput("--phase 1 goes with --shard K/N")
		}
	}
	if err := noPositional("frontier", a.positional); err != nil {
		return err
	}
	var rs []*recipes.Recipe
	_, one := a.flags["recipe"]
	var user *model.Model
	fileN := 0
	if _, ok := a.flags["model"]; ok {
		// A model from a file, against one recipe's reference.
		for _, f := range []string{"all", "weighting", "shard"} {
			if _, ok := a.flags[f]; ok {
				return badInput("--%s does not apply with --model FILE --spec NAME", f)
			}
		}
		r, err := specFlag(a)
		if err != nil {
			return err
		}
		if user, fileN, _, err = readModelFile(a); err != nil {
			return err
		}
		rs = []*recipes.Recipe{r}
	} else if _, ok := a.flags["spec"]; ok {
		return badInput("--spec goes with --model FILE")
	}
	switch {
	case user != nil:
	case a.flags["all"] == "true" && one:
		return badInput("give --recipe NAME or --all, not both")
	case a.flags["all"] == "true":
		rs = recipes.All()
	case !one:
		return badInput("--recipe NAME[,NAME…] or --all is required; recipes: %s (see 'verify list')", strings.Join(recipes.Names(), ", "))
	default:
		for _, name := range strings.Split(a.flags["recipe"], ",") {
			r, err := recipes.Get(strings.TrimSpace(name))
			if err != nil {
				return badInput("%v", err)
			}
			rs = append(rs, r)
		}
	}
	names := frontier.DefaultPrecisions
	if v, ok := a.flags["precision"]; ok {
		names = strings.Split(v, ",")
	}
	var precisions []numeric.Precision
	seen := map[string]bool{}
	for _, name := range names {
		p, err := numeric.ParsePrecision(strings.TrimSpace(name))
		if err != nil {
			return badInput("--precision: %v", err)
		}
		if seen[p.String()] {
			return badInput("--precision: %s is listed twice", p)
		}
		seen[p.String()] = true
		precisions = append(precisions, p)
	}
	opts := frontier.Options{Precisions: precisions, Cases: 8, Exhaustive: 256, Seed: 1,
		NoBisect: a.flags["no-bisect"] == "true", Analysis: a.flags["no-analysis"] != "true"}
	if a.flags["force"] != "true" {
		opts.MemoryLimit = limits.Memory()
	}
	for _, f := range []struct {
		name     string
		dst      *int
		min, max int
	}{{"max-n", &opts.MaxN, 1, check.MaxLength}, {"cases", &opts.Cases, 1, check.MaxCases}, {"exhaustive", &opts.Exhaustive, 0, check.MaxWork}, {"analysis-budget", &opts.AnalysisBudget, 1, check.MaxWork}} {
		if v, ok := a.flags[f.name]; ok {
			n, err := strconv.Atoi(v)
			if err != nil || n < f.min || n > f.max {
				return badInput("--%s must be an integer from %d to %d, got %q", f.name, f.min, f.max, v)
			}
			*f.dst = n
		}
	}
	if v, ok := a.flags["seed"]; ok {
		if opts.Seed, err = strconv.ParseUint(v, 10, 64); err != nil {
			return badInput("--seed must be a non-negative integer, got %q", v)
		}
	}
	if opts.EveryBudget, opts.NoEvery, err = everyFlags(a); err != nil {
		return err
	}
	if _, ok := a.flags["shard"]; ok {
		if opts.Shard, opts.Shards, err = shardFlag(a); err != nil {
			return err
		}
		if _, ok := a.flags["plot"]; ok {
			return badInput("--plot draws a whole sweep: give it to 'verify merge'")
		}
		// One plan for the recipes of the command, each carrying on from
		// the last one's loads.
		opts.Loads = map[int]float64{}
	}
	if v, ok := a.flags["lengths"]; ok {
		for _, f := range strings.Split(v, ",") {
			n, err := strconv.Atoi(strings.TrimSpace(f))
			if err != nil || n < 1 {
				return badInput("--lengths: %q is not a length", f)
			}
			opts.Lengths = append(opts.Lengths, n)
		}
	}
	params, err := recipeParams(a)
	if err != nil {
		return err
	}
	// With several recipes, a parameter goes to those that take it.
	for k := range params {
		used := false
		for _, r := range rs {
			used = used || r.HasParam(k)
		}
		if !used {
			return badInput("--param %s: no recipe given takes a parameter %s ('verify list --params')", k, k)
		}
	}
	if len(rs) > 1 {
		if _, ok := a.flags["weighting"]; ok {
			return badInput("--weighting applies to one recipe: give --recipe NAME")
		}
	}
	if opts.Shards > 0 {
		if most := shardUnits(rs, opts); opts.Shards > most {
			return badInput("--shard %s: the sweep has at most %d units of work (lengths × precisions, an exhaustive length split at most into its inputs, --exhaustive %d), so at most %d shards can have any", a.flags["shard"], most, opts.Exhaustive, most)
		}
	}
	if err := checkOutputs(a, len(rs)); err != nil {
		return err
	}
	noteStaleOutputs(a, stderr)

	stop := interruptible()
	defer stop.release()
	opts.Stop = stop.requested
	bar := newProgress(stderr, a)

	var doc frontierDoc
	for _, r := range rs {
		o := opts
		o.Recipe, o.Params = r, map[string]string{}
		for k, v := range params {
			if r.HasParam(k) {
				o.Params[k] = v
			}
		}
		if o.MaxN == 0 {
			o.MaxN = r.DefaultMaxN
			if o.MaxN == 0 {
				o.MaxN = 64
			}
			if user != nil && fileN > 0 {
				// Position encodings in a file are a table up to the
				// length it was written for.
				o.MaxN = min(o.MaxN, fileN)
			}
		} else if user != nil && fileN > 0 && o.MaxN > fileN {
			return badInput("--max-n %d: the model file covers lengths up to %d", o.MaxN, fileN)
		}
		if o.Weighting, err = oneWeighting(a, r); err != nil {
			return err
		}
		if user != nil {
			o.Model, o.ModelFile = user, modelName(a.flags["model"])
			// The reference is built for the model's weighting where the
			// paper gives one, as check --model does.
			if mw := modelWeighting(user, o.Weighting); r.Supports(mw) {
				o.Weighting = mw
			}
		}
		con, err := r.Construct(o.Weighting, o.MaxN, o.Params)
		if err == nil && user != nil {
			// A model the reference cannot check is bad input, as it is
			// to check --model, not a row of "cannot run".
			if err := check.Adopt(con, user); err != nil {
				return badInput("%s cannot check this model: %v", r.Name, err)
			}
		}
		if err != nil {
			if len(rs) == 1 {
				return badInput("%v", err)
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
			return badInput("%v", err)
		}
		doc.Reports = append(doc.Reports, rep)
		if rep.Interrupted {
			break
		}
	}
	return writeFrontier(a, doc, stdout, stderr)
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

// shardFlag reads --shard K/N (1/1 when absent) as 0-based K and N.
func shardFlag(a parsedArgs) (k, n int, err error) {
	v, ok := a.flags["shard"]
	if !ok {
		return 0, 1, nil
	}
	if c, err := fmt.Sscanf(v, "%d/%d", &k, &n); err != nil || c != 2 || n < 1 || k < 1 || k > n || fmt.Sprintf("%d/%d", k, n) != v {
		return 0, 0, badInput("--shard must be K/N with 1 ≤ K ≤ N (e.g. 3/8), got %q", v)
	}
	return k - 1, n, nil
}

// frontierPhase2 runs shard K/N of phase 2 of sharded sweeps, from the
// files of all their phase-1 shards: the options of the sweeps are
// theirs.
func frontierPhase2(a parsedArgs, stdout, stderr io.Writer) error {
	for _, f := range []string{"recipe", "all", "model", "spec", "precision", "weighting", "max-n", "cases", "exhaustive", "seed", "lengths",
		"no-bisect", "no-analysis", "analysis-budget", "every-budget", "no-every", "plot"} {
		if _, ok := a.flags[f]; ok {
			return badInput("--%s does not apply to phase 2, which continues the phase-1 shards with their options", f)
		}
	}
	if len(a.params) > 0 {
		return badInput("--param does not apply to phase 2, which continues the phase-1 shards with their options")
	}
	if len(a.positional) == 0 {
		return badInput("phase 2 needs the JSON files of every phase-1 shard (verify frontier --shard K/N --out FILE)")
	}
	shard, shards, err := shardFlag(a)
	if err != nil {
		return err
	}
	if err := checkOutputs(a, 1); err != nil {
		return err
	}
	noteStaleOutputs(a, stderr)
	docs, err := readFrontierDocs(a)
	if err != nil {
		return err
	}
	var sweeps [][]*frontier.Report
	for k := range docs[0].Reports {
		var reps []*frontier.Report
		for i, d := range docs {
			if d.Reports[k].Phase != 1 {
				return badInput("%s: not a phase-1 shard (verify frontier --shard K/N --out FILE)", a.positional[i])
			}
			reps = append(reps, d.Reports[k])
		}
		sweeps = append(sweeps, reps)
	}
	opts := frontier.Phase2Options{Shard: shard, Shards: shards}
	if a.flags["force"] != "true" {
		opts.MemoryLimit = limits.Memory()
	}
	stop := interruptible()
	defer stop.release()
	opts.Stop = stop.requested
	bar := newProgress(stderr, a)
	opts.Progress = func(done, planned int, precision string, n int) {
		bar.show(fmt.Sprintf("phase 2 %s n = %d", precision, n), done, planned, "lengths", float64(done)/float64(max(planned, 1)))
	}
	reps, err := frontier.Phase2(sweeps, opts)
	bar.clear()
	if err != nil {
		return badInput("%v", err)
	}
	return writeFrontier(a, frontierDoc{Reports: reps}, stdout, stderr)
}

// readFrontierDocs reads the positional files as frontier documents,
// each with as many reports as the first.
func readFrontierDocs(a parsedArgs) ([]frontierDoc, error) {
	limit, err := maxInputFlag(a)
	if err != nil {
		return nil, err
	}
	var docs []frontierDoc
	for _, path := range a.positional {
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
			return nil, badInput("%s has %s, %s has %d", path, plural.Of(len(d.Reports), "report"), a.positional[0], len(docs[0].Reports))
		}
		docs = append(docs, d)
	}
	return docs, nil
}

// cmdMerge combines the JSON results of the shards of a frontier sweep.
func cmdMerge(args []string, stdout, stderr io.Writer) error {
	a, err := parseArgs("merge", args)
	if err != nil {
		return err
	}
	if len(a.positional) == 0 {
		return badInput("merge needs the JSON files of the shards (verify frontier --shard K/N --out FILE)")
	}
	if err := checkOutputs(a, 1); err != nil {
		return err
	}
	noteStaleOutputs(a, stderr)
	docs, err := readFrontierDocs(a)
	if err != nil {
		return err
	}
	if _, ok := a.flags["plot"]; ok && len(docs[0].Reports) > 1 {
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
	return writeFrontier(a, out, stdout, stderr)
}

// checkOutputs refuses output files that cannot be written (a plot that
// is neither .svg nor .png, a directory, a directory that does not exist
// or is not writable) before a long sweep rather than after it.
func checkOutputs(a parsedArgs, reports int) error {
	if p, ok := a.flags["plot"]; ok {
		if ext := strings.ToLower(filepath.Ext(p)); ext != ".svg" && ext != ".png" {
			return badInput("--plot: %q must end in .svg or .png", p)
		}
		if reports > 1 {
			return badInput("--plot draws one recipe: give --recipe NAME")
		}
	}
	for _, flag := range []string{"out", "plot"} {
		if path, ok := a.flags[flag]; ok && !(flag == "out" && path == "-") {
			if err := atomicfile.Check(path); err != nil {
				return badInput("--%s: %v", flag, err)
			}
		}
	}
	// Every output distinct from the other and from every input: one
	// would overwrite the other, or the file being read.
	out, plot := a.flags["out"], a.flags["plot"]
	if out != "" && out != "-" && plot != "" && samePath(out, plot) {
		return badInput("--out and --plot name the same file %q: one would overwrite the other", out)
	}
	for _, flag := range []string{"out", "plot"} {
		path := a.flags[flag]
		if path == "" || path == "-" {
			continue
		}
		for _, in := range a.positional {
			if in != "-" && samePath(path, in) {
				return badInput("--%s %q is also an input: writing it would overwrite what is read", flag, path)
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
func noteStaleOutputs(a parsedArgs, stderr io.Writer) {
	for _, flag := range []string{"out", "plot"} {
		if path, ok := a.flags[flag]; ok {
			noteStale(stderr, path)
		}
	}
}

// writeFrontier prints the reports (text, or JSON with --json) and
// writes --out and --plot, each atomically. An interrupted sweep prints
// what it checked and writes no file. --out - writes the JSON to stdout
// and the text to stderr, so that stdout holds the document alone.
func writeFrontier(a parsedArgs, doc frontierDoc, stdout, stderr io.Writer) error {
	doc.Schema = schemaID(kindFrontier)
	toStdout := a.flags["out"] == "-"
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
		} else if path, ok := a.flags["out"]; ok {
			if err := atomicfile.Write(path, encode); err != nil {
				return badInput("%v", err)
			}
		}
		if path, ok := a.flags["plot"]; ok {
			if err := frontier.WritePlot(doc.Reports[0], path); err != nil {
				return badInput("%v", err)
			}
		}
	}
	switch {
	case a.flags["json"] == "true" && toStdout:
		// The document is on stdout once already.
	case a.flags["json"] == "true":
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
func oneWeighting(a parsedArgs, r *recipes.Recipe) (w model.Weighting, err error) {
	if a.flags["weighting"] == "all" {
		return 0, badInput("a frontier runs one weighting; name it (--weighting %s)", weightingNames(r.Weightings))
	}
	ws, _, err := weightingFlag(a, r)
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
