package main

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/transformer-cookbook/verify/check"
	"github.com/transformer-cookbook/verify/internal/atomicfile"
	"github.com/transformer-cookbook/verify/internal/limits"
	"github.com/transformer-cookbook/verify/internal/plural"
	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/numeric"
	"github.com/transformer-cookbook/verify/recipes"
)

// errFindings is returned when a check ran and found wrong outputs: exit
// status 1, with the report already printed.
var errFindings = fmt.Errorf("a check failed")

// errUndecided is returned when a check did not pass but refuted no
// input: interval arithmetic left one undecided. Exit status 1, as a
// finding: what was checked is not confirmed.
var errUndecided = fmt.Errorf("a check was undecided")

// cmdCheck is the main job: run a recipe over a sweep of lengths and
// inputs at one precision and compare with the exact reference.
func cmdCheck(args []string, stdout, stderr io.Writer) error {
	o := new(checkOptions)
	positional, err := parseFlags("check", args, o)
	if err != nil {
		return err
	}
	if err := noPositional("check", positional); err != nil {
		return err
	}
	job, err := o.job()
	if err != nil {
		return err
	}
	// Held until the report and the certificates are written: Ctrl-C
	// meanwhile stops the sweep, not the writing.
	stop := interruptible()
	defer stop.release()
	job.opts.Stop = stop.requested
	bar := newProgress(stderr, &o.commonOptions)
	defer bar.clear()
	res := job.run(stdout, bar)
	if res.err != nil {
		return res.err
	}
	return job.finish(res, stdout, stderr)
}

// A checkJob is a check's options resolved against its recipe (and the
// model of --model): what each weighting's sweep runs with.
type checkJob struct {
	o          *checkOptions
	r          *recipes.Recipe
	user       *model.Model // the model of --model, or nil
	fileN      int          // the largest length the model file covers, 0 for any
	dtypes     []string
	digest     string
	fileNote   []string // the note every report of a model from a file carries
	dtypeNote  string
	weightings []model.Weighting
	explicit   bool // the weighting was named, not "all" or the default
	params     map[string]string
	opts       check.Options
	built      *recipes.Construction // the first weighting's construction
}

// job resolves the options, in the order their faults are reported.
func (o *checkOptions) job() (*checkJob, error) {
	j := &checkJob{o: o}
	if err := j.source(); err != nil {
		return nil, err
	}
	p, err := o.precisionOf(j.r)
	if err != nil {
		return nil, err
	}
	// A safetensors file runs by default at its dtype's precision: its
	// weights are numbers of that format, as the model's author ran them.
	if len(j.dtypes) > 0 && !o.precision.set {
		p, j.dtypeNote = dtypePrecision(j.dtypes)
	}
	if j.weightings, j.explicit, err = o.weightingsOf(j.r); err != nil {
		return nil, err
	}
	if j.params, err = o.params.parsed(); err != nil {
		return nil, err
	}
	if j.user != nil {
		// The reference is built for the model's weighting where the
		// paper gives one (its bounds differ: softmax's c within 1/4).
		if mw := modelWeighting(j.user, j.weightings[0]); j.r.Supports(mw) {
			j.weightings = []model.Weighting{mw}
		}
		// Every report of a model from a file names the file.
		j.fileNote = []string{"model from " + modelName(o.model.text)}
	}
	if err := j.sweep(p); err != nil {
		return nil, err
	}
	// A bad parameter is the user's error, whatever the weighting. The
	// construction is handed to the first weighting's check, which would
	// otherwise build it again.
	if j.built, err = j.r.Construct(j.weightings[0], j.opts.MaxN, j.params); err != nil {
		return nil, badInput("%v", err)
	}
	return j, nil
}

// source reads what is checked: the recipe of --recipe, or the model of
// --model against the reference of --spec.
func (j *checkJob) source() error {
	o := j.o
	var err error
	switch {
	case o.model.set:
		if j.r, err = o.specRecipe(); err != nil {
			return err
		}
		if o.weighting.set {
			return badInput("--weighting does not apply with --model: the model runs with its own weighting")
		}
		j.user, j.fileN, j.dtypes, j.digest, err = o.readModelFileDigest()
		return err
	case o.spec.set:
		return badInput("--spec goes with --model FILE")
	}
	j.r, err = o.recipeNamed()
	return err
}

// sweep reads the options of the sweep at precision p.
func (j *checkJob) sweep(p numeric.Precision) error {
	o := j.o
	j.opts = check.Options{Precision: p, Params: j.params, Cases: 8, Exhaustive: 256, Seed: 1, MaxN: defaultMaxN(j.r, p), Model: j.user}
	if j.user != nil && j.fileN > 0 {
		// Position encodings in a file are a table up to the length it
		// was exported for.
		j.opts.MaxN = min(j.opts.MaxN, j.fileN)
	}
	if err := o.readSizes(&j.opts.MaxN, &j.opts.Cases, &j.opts.Exhaustive, &j.opts.AnalysisBudget, j.fits); err != nil {
		return err
	}
	if err := o.readSeed(&j.opts.Seed); err != nil {
		return err
	}
	if err := j.lengths(); err != nil {
		return err
	}
	j.opts.AllLengths = o.allLengths.on()
	j.opts.Analysis = !o.noAnalysis.on()
	var err error
	if j.opts.EveryBudget, j.opts.NoEvery, err = o.everyBudget(); err != nil {
		return err
	}
	if o.certificate.set {
		if !j.opts.Analysis {
			return badInput("--certificate needs the analysis: drop --no-analysis")
		}
		if err := atomicfile.Check(o.certificate.text); err != nil {
			return badInput("--certificate: %v", err)
		}
		j.opts.Certificates = true
	}
	if !o.force.on() {
		j.opts.MemoryLimit = limits.Memory()
	}
	return nil
}

// fits refuses a --max-n beyond the lengths a model file covers.
func (j *checkJob) fits(n int) error {
	if j.user != nil && j.fileN > 0 && n > j.fileN {
		return badInput("--max-n %d: the model file covers lengths up to %d", n, j.fileN)
	}
	return nil
}

// lengths reads --lengths, each from the recipe's least to --max-n.
func (j *checkJob) lengths() error {
	least := max(1, j.r.MinN)
	for _, l := range j.o.lengths.items {
		if !l.ok || l.n < least || l.n > j.opts.MaxN {
			return badInput("--lengths: %q is not a length from %d to --max-n = %d", l.text, least, j.opts.MaxN)
		}
		j.opts.Lengths = append(j.opts.Lengths, l.n)
	}
	return nil
}

// checkResult is what the sweeps of a check found.
type checkResult struct {
	reports []*check.Report
	skipped []string // the weightings that could not run, and why
	failed  bool
	refuted bool // a failure refuted an input, not only left one undecided
	err     error
}

// run runs the sweep of each weighting, printing the text report as it
// goes unless the report is JSON.
func (j *checkJob) run(stdout io.Writer, bar *progress) checkResult {
	var res checkResult
	for k, w := range j.weightings {
		rep, err := j.runOne(k, w, stdout, bar)
		if err != nil {
			if errors.As(err, new(usageError)) {
				return checkResult{err: err}
			}
			if j.explicit || errors.Is(err, check.ErrMemory) || j.user != nil {
				return checkResult{err: badInput("%v", err)}
			}
			// A weighting the paper claims that cannot be checked is a
			// failure of the run, not a pass.
			res.failed = true
			under := " under " + recipes.WeightingAcronym(w)
			if len(j.r.Weightings) == 0 {
				under = ""
			}
			res.skipped = append(res.skipped, fmt.Sprintf("%s%s not run: %v", j.r.Name, under, err))
			if !j.o.json.on() {
				fmt.Fprintf(stdout, "%s%s not run: %v\n\n", j.r.Name, under, err)
			}
			continue
		}
		res.reports = append(res.reports, rep)
		if !rep.Passed {
			res.failed = true
			res.refuted = res.refuted || rep.FirstFailure == nil || !rep.FirstFailure.Undecided
		}
		if !j.o.json.on() {
			printSummary(stdout, rep)
		}
		if rep.Interrupted {
			break
		}
	}
	return res
}

// runOne runs the sweep of the weighting w, the k-th.
func (j *checkJob) runOne(k int, w model.Weighting, stdout io.Writer, bar *progress) (*check.Report, error) {
	opts := j.opts
	opts.Weighting = w
	if k == 0 {
		opts.Construction = j.built
	}
	opts.Notes = j.fileNote
	opts.Progress = sweepProgress(bar, opts, j.r, w, len(j.weightings) > 1)
	if !j.o.json.on() {
		printRow := lengthPrinter(stdout)
		progress := opts.Progress
		opts.Progress = func(rep *check.Report, lr check.LengthReport) {
			bar.clear()
			printRow(rep, lr)
			progress(rep, lr)
		}
	}
	if j.dtypeNote != "" {
		opts.Notes = append(j.fileNote, j.dtypeNote)
	} else if !j.o.precision.set {
		// The default may differ by weighting: softmax's 1/τ has no
		// exact value. A model from a file has its own.
		var note string
		var err error
		pw := w
		if j.user != nil {
			pw = modelWeighting(j.user, w)
		}
		if opts.Precision, note, err = j.r.PrecisionFor(pw, opts.MaxN, j.params); err != nil {
			return nil, badInput("%v", err)
		}
		if note != "" {
			opts.Notes = append(j.fileNote, note)
		}
	}
	rep, err := check.Run(j.r, opts)
	bar.clear()
	return rep, err
}

// finish writes the JSON report and the certificates, and says how the
// check ended.
func (j *checkJob) finish(res checkResult, stdout, stderr io.Writer) error {
	if j.o.json.on() {
		doc := struct {
			Schema  string          `json:"schema"`
			Reports []*check.Report `json:"reports"`
			Skipped []string        `json:"skipped,omitempty"`
		}{schemaID(kindCheck), res.reports, res.skipped}
		if err := writeJSON(stdout, doc); err != nil {
			return err
		}
	}
	if len(res.reports) == 0 {
		return badInput("nothing could run: %s", strings.Join(res.skipped, "; "))
	}
	if res.reports[len(res.reports)-1].Interrupted {
		return interrupted("the report above covers the lengths checked so far")
	}
	if j.o.certificate.set {
		if err := j.writeCertificates(res.reports, stderr); err != nil {
			return err
		}
	}
	if res.failed && !res.refuted && len(res.skipped) == 0 {
		return errUndecided
	}
	if res.failed {
		return errFindings
	}
	return nil
}

// writeCertificates writes the certificates of --certificate.
func (j *checkJob) writeCertificates(reports []*check.Report, stderr io.Writer) error {
	name := ""
	if j.user != nil {
		name = modelName(j.o.model.text)
	}
	path := j.o.certificate.text
	if err := writeCertificates(path, j.r, j.params, name, j.digest, reports); err != nil {
		return err
	}
	n := 0
	for _, rep := range reports {
		n += len(rep.Certificates)
	}
	fmt.Fprintf(stderr, "wrote %s: the certificates of %s\n", path, plural.Of(n, "length"))
	return nil
}

// exactMaxN caps the default sweep in exact and interval arithmetic, which
// cost far more per operation and, in exact mode, never round.
const exactMaxN = 256

func defaultMaxN(r *recipes.Recipe, p numeric.Precision) int {
	n := r.DefaultMaxN
	if n == 0 {
		n = 64
	}
	if p.Kind == numeric.KindExact || p.Kind == numeric.KindInterval {
		n = min(n, exactMaxN)
	}
	return n
}

// recipeNamed reads --recipe.
func (o *commonOptions) recipeNamed() (*recipes.Recipe, error) {
	name, ok := o.recipe.text, o.recipe.set
	if !ok {
		return nil, badInput("--recipe NAME is required; recipes: %s (see 'verify list')", strings.Join(recipes.Names(), ", "))
	}
	r, err := recipes.Get(name)
	if err != nil {
		return nil, badInput("%v", err)
	}
	return r, nil
}

// precisionOf reads --precision; without it, the recipe's default
// (exact, or certified intervals for recipes with irrational values).
func (o *commonOptions) precisionOf(r *recipes.Recipe) (numeric.Precision, error) {
	if !o.precision.set {
		return r.DefaultPrecision(), nil
	}
	if o.precision.err != nil {
		return o.precision.p, badInput("%v", o.precision.err)
	}
	return o.precision.p, nil
}

// weightingsOf returns the weightings to run: the recipe's default, the
// one named, or all the paper gives ("all"); explicit is false for "all"
// and the default.
func (o *commonOptions) weightingsOf(r *recipes.Recipe) ([]model.Weighting, bool, error) {
	v, ok := o.weighting.text, o.weighting.set
	switch {
	case len(r.Weightings) == 0 && ok:
		return nil, false, badInput("%s has no attention sublayer: --weighting does not apply", r.Name)
	case len(r.Weightings) == 0:
		return []model.Weighting{model.Softmax}, false, nil
	case !ok:
		return r.Weightings[:1], false, nil
	case v == "all":
		return r.Weightings, false, nil
	}
	w, err := recipes.ParseWeighting(v)
	if err != nil {
		return nil, false, badInput("%v", err)
	}
	if !r.Supports(w) {
		return nil, false, badInput("%s is given in the paper for %s, not %s", r.Name, weightingNames(r.Weightings), v)
	}
	return []model.Weighting{w}, true, nil
}

func weightingNames(ws []model.Weighting) string {
	if len(ws) == 0 {
		return "—"
	}
	var names []string
	for _, w := range ws {
		names = append(names, recipes.WeightingAcronym(w))
	}
	return strings.Join(names, ", ")
}

// lengthPrinter prints a table row per length as the sweep goes.
func lengthPrinter(w io.Writer) func(*check.Report, check.LengthReport) {
	first := true
	return func(rep *check.Report, lr check.LengthReport) {
		if first {
			// The title waits for the first length, so that a recipe that
			// cannot run prints only its error.
			fmt.Fprintf(w, "%s (§%s) at precision %s, %s, lengths up to %d, seed %d\n",
				rep.Recipe, rep.Section, rep.Precision, rep.Weighting, rep.MaxN, rep.Seed)
			decided := ""
			if len(rep.Decisions) > 0 {
				decided = fmt.Sprintf(" %7s", "decided")
			}
			fmt.Fprintf(w, "  %8s %7s  %-10s %7s %7s%s  max |error| of %s\n", "n", "cases", "evidence", "exact", "passed", decided, strings.Join(rep.Outputs, ", "))
			first = false
		}
		decided := ""
		if len(rep.Decisions) > 0 {
			decided = fmt.Sprintf(" %7d", lr.Decided)
		}
		fmt.Fprintf(w, "  %8d %7d  %-10s %7d %7d%s  %s\n", lr.N, lr.Cases, lr.Level, lr.Exact, lr.Passed, decided, strings.Join(lr.MaxError, "  "))
	}
}

// sweepProgress draws the progress of one weighting's sweep: lengths
// done of those planned, and the time left from their costs.
func sweepProgress(bar *progress, opts check.Options, r *recipes.Recipe, w model.Weighting, named bool) func(*check.Report, check.LengthReport) {
	lengths := opts.Lengths
	if lengths == nil {
		lengths = check.DefaultLengths(r.MinN, opts.MaxN)
	}
	lengths = slices.Compact(slices.Sorted(slices.Values(lengths)))
	total := 0.0
	for _, n := range lengths {
		total += lengthCost(n)
	}
	label := r.Name
	if named {
		label += " " + recipes.WeightingAcronym(w)
	}
	done, cost := 0, 0.0
	return func(_ *check.Report, lr check.LengthReport) {
		done++
		cost += lengthCost(lr.N)
		bar.show(fmt.Sprintf("%s n = %d", label, lr.N), done, len(lengths), "lengths", cost/total)
	}
}

// evidenceText says what the lengths up to the limit rest on, in the two
// facts a proof against the construction is: what the format computes,
// and what the construction itself computes. Nothing says every input is
// right unless both are established.
func evidenceText(rep *check.Report) string {
	var sampled []string
	cases := 0
	why := ""
	for _, lr := range rep.Lengths {
		if lr.N > rep.Limit {
			break
		}
		if lr.Level == check.Sampled {
			sampled = append(sampled, strconv.Itoa(lr.N))
			cases = max(cases, lr.Cases)
			if why == "" {
				why = lr.Analysis
			}
		}
	}
	for _, lr := range rep.Lengths {
		if lr.Positionwise != "" && lr.N <= rep.Limit {
			// One statement over one position holds at every length.
			return string(lr.Level) + ": " + lr.Positionwise
		}
	}
	which := "each of them"
	if ev := rep.EveryLength; rep.Every && ev != nil {
		which = fmt.Sprintf("every length %d … %d", ev.From, rep.Limit)
	}
	switch {
	case rep.LimitLevel == check.Certified:
		return fmt.Sprintf("every input of %s is right: proved faithful to the construction by the analysis (re-checked by its independent checker), and the construction proved right, or run", which)
	case rep.LimitLevel == check.Faithful:
		s := fmt.Sprintf("every input of %s %s: proved by the analysis (re-checked by its independent checker), or run; %s: %s",
			which, check.FaithfulClaim(rep.Reference), check.ItselfRuns(rep.Reference), constructionRun(rep))
		return s + everyNote(rep)
	case rep.LimitLevel == check.Exhaustive:
		return "every input of each of them run"
	case len(sampled) > 0:
		s := fmt.Sprintf("sampled at n = %s (up to %s each, seed %d)", shortList(sampled), plural.Of(cases, "input"), rep.Seed)
		if why != "" {
			s += "; not proved: " + why
		}
		return s
	}
	return ""
}

// constructionRun says what was run of the construction up to the limit:
// the drawn inputs of the lengths not run whole, with the seed that drew
// them, and the lengths run whole.
func constructionRun(rep *check.Report) string {
	var whole []string
	drawn, at := 0, 0
	for _, lr := range rep.Lengths {
		switch {
		case lr.N > rep.Limit:
		case lr.Exhaustive:
			whole = append(whole, strconv.Itoa(lr.N))
		default:
			drawn += lr.Cases
			at++
		}
	}
	s := fmt.Sprintf("sampled, %s at %s, seed %d", plural.Of(drawn, "input"), plural.Of(at, "length"), rep.Seed)
	if len(whole) > 0 {
		s += "; every input at n = " + shortList(whole)
	}
	return s
}

// everyNote says, where the proof holds of the checked lengths only, how
// far the analysis of every length went and why it stopped.
func everyNote(rep *check.Report) string {
	ev := rep.EveryLength
	switch {
	case rep.Every || ev == nil:
		return ""
	case ev.Certified >= ev.From:
		return fmt.Sprintf("; at the checked lengths only: every length %d … %d proved, then at n = %d %s", ev.From, ev.Certified, ev.At, ev.Why)
	}
	return fmt.Sprintf("; at the checked lengths only: %s", ev.Why)
}

// levelWord says a level of evidence in a sentence.
func levelWord(level check.Level) string {
	switch level {
	case check.Certified:
		return "every input of each proved right or run"
	case check.Faithful:
		return "every input of each proved faithful to the construction or run"
	case check.Exhaustive:
		return "every input of each run"
	}
	return "on sampled inputs"
}

// shortList joins numbers, eliding the middle of a long list.
func shortList(xs []string) string {
	if len(xs) > 8 {
		return strings.Join(xs[:3], ", ") + ", …, " + strings.Join(xs[len(xs)-3:], ", ")
	}
	return strings.Join(xs, ", ")
}

// printSummary prints the outputs' claims and the closing verdict.
func printSummary(w io.Writer, rep *check.Report) {
	tw := tabwriter.NewWriter(w, 0, 0, 1, ' ', 0)
	fmt.Fprintf(tw, "  scores\t%s\n", rep.Scale)
	for k, out := range rep.Outputs {
		fmt.Fprintf(tw, "  output %s\t%s\n", out, rep.Bounds[k])
	}
	for _, n := range rep.Notes {
		fmt.Fprintf(tw, "  note\t%s\n", n)
	}
	tw.Flush()
	var checked []string
	for _, lr := range rep.Lengths {
		checked = append(checked, strconv.Itoa(lr.N))
	}
	if rep.Interrupted && rep.Passed {
		fmt.Fprintf(w, "INTERRUPTED: every case passed at the lengths checked before the interrupt (checked: %s)\n\n", strings.Join(checked, ", "))
		return
	}
	if rep.Passed {
		fmt.Fprintf(w, "PASS: every case passed at every checked length up to n = %d (checked: %s)\n", rep.Limit, strings.Join(checked, ", "))
		fmt.Fprintf(w, "  evidence  %s\n\n", evidenceText(rep))
		return
	}
	if rep.DecisionLimit > rep.Limit {
		fmt.Fprintf(w, "DECIDES: every output decides right (%s: nearer the right value than the wrong one) at every checked length up to n = %d, %s, though not exactly beyond n = %d\n",
			strings.Join(rep.Decisions, ", "), rep.DecisionLimit, levelWord(rep.DecisionLevel), rep.Limit)
	}
	f := rep.FirstFailure
	if f.Undecided {
		printUndecided(w, rep, checked)
		return
	}
	if rep.Limit > 0 {
		fmt.Fprintf(w, "FAIL: uniformity limit n = %d: every case passed at the checked lengths up to %d (checked: %s); first failure at n = %d\n",
			rep.Limit, rep.Limit, strings.Join(checked, ", "), f.N)
		fmt.Fprintf(w, "  evidence  %s\n", evidenceText(rep))
	} else {
		fmt.Fprintf(w, "FAIL: the smallest checked length, n = %d, already fails\n", f.N)
	}
	fmt.Fprintf(w, "  input     %s\n", shorten(f.Input, 160))
	if f.Found == "analysis" {
		fmt.Fprintf(w, "  found by  the analysis: an order of scores the precision breaks (see --json's analysis)\n")
	}
	if f.Found == check.FoundPositionwise {
		fmt.Fprintf(w, "  found by  the position-wise analysis: every input at the precision (of one position, or of all the length's positions where attention with fixed scores mixes them), enumerated or split into boxes\n")
	}
	if f.Position > 0 {
		fmt.Fprintf(w, "  position  %d\n  expected  %s\n  actual    %s\n", f.Position, labelled(rep.Outputs, f.Expected), labelled(rep.Outputs, f.Actual))
	}
	fmt.Fprintf(w, "  reason    %s\n", f.Reason)
	if d := integerDomain(rep); d != nil {
		fmt.Fprintf(w, "  integers  %s\n", integerText(d))
	}
	fmt.Fprintln(w)
}

// integerDomain is the widest integer domain the position-wise analysis
// proved of a construction that fails on the format's values (nil: none
// searched).
func integerDomain(rep *check.Report) *check.IntegerDomain {
	for _, lr := range rep.Lengths {
		if lr.Integers != nil {
			return lr.Integers
		}
	}
	return nil
}

// integerText is an integer domain in a line: its evidence, then the
// analysis's statement.
func integerText(d *check.IntegerDomain) string {
	if d.Level == "" {
		return d.Statement
	}
	return string(d.Level) + " at every length: " + d.Statement
}

// printUndecided closes a report whose first failing length has no
// refuted input, only one interval arithmetic could not decide: not a
// pass, and not a counterexample.
func printUndecided(w io.Writer, rep *check.Report, checked []string) {
	f := rep.FirstFailure
	if rep.Limit > 0 {
		fmt.Fprintf(w, "UNDECIDED: every case passed at the checked lengths up to %d (checked: %s); at n = %d an input is undecided, and none is refuted\n",
			rep.Limit, strings.Join(checked, ", "), f.N)
		fmt.Fprintf(w, "  evidence  %s\n", evidenceText(rep))
	} else {
		fmt.Fprintf(w, "UNDECIDED: at the smallest checked length, n = %d, an input is undecided, and none is refuted\n", f.N)
	}
	fmt.Fprintf(w, "  input     %s\n", shorten(f.Input, 160))
	if f.Position > 0 {
		fmt.Fprintf(w, "  position  %d\n  expected  %s\n  actual    %s\n", f.Position, labelled(rep.Outputs, f.Expected), labelled(rep.Outputs, f.Actual))
	}
	fmt.Fprintf(w, "  reason    %s\n", f.Reason)
	if d := integerDomain(rep); d != nil {
		fmt.Fprintf(w, "  integers  %s\n", integerText(d))
	}
	fmt.Fprintln(w)
}

// labelled pairs each value with its output's name: "y = 1, c = 0.8".
func labelled(names, values []string) string {
	parts := make([]string, len(values))
	for i, v := range values {
		parts[i] = v
		if i < len(names) {
			parts[i] = names[i] + " = " + v
		}
	}
	return strings.Join(parts, ", ")
}

func shorten(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + fmt.Sprintf("… (%d characters; --json prints it whole)", len(s))
}

// modelWeighting is the weighting a model's attention runs with: softmax
// if any layer uses it (its exponentials decide the default precision),
// else the first layer's, else def (no attention).
func modelWeighting(m *model.Model, def model.Weighting) model.Weighting {
	w, found := def, false
	for _, l := range m.Layers {
		if a := l.Attention; a != nil {
			if a.Weighting == model.Softmax {
				return model.Softmax
			}
			if !found {
				w, found = a.Weighting, true
			}
		}
	}
	return w
}

// everyBudget reads --every-budget and --no-every.
func (o *commonOptions) everyBudget() (budget int64, off bool, err error) {
	off = o.noEvery.on()
	if o.every.set {
		n := o.every.n
		if !o.every.ok || n < 0 {
			return 0, false, badInput("--every-budget must be a non-negative integer (0: no bound), got %q", o.every.text)
		}
		if off {
			return 0, false, badInput("--every-budget and --no-every contradict each other")
		}
		budget = n
		if n == 0 {
			budget = -1 // no bound
		}
	}
	return budget, off, nil
}
