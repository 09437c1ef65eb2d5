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
	a, err := parseArgs("check", args)
	if err != nil {
		return err
	}
	if err := noPositional("check", a.positional); err != nil {
		return err
	}
	var r *recipes.Recipe
	var user *model.Model
	var dtypes []string
	var digest string
	fileN := 0
	if _, ok := a.flags["model"]; ok {
		if r, err = specFlag(a); err != nil {
			return err
		}
		if _, ok := a.flags["weighting"]; ok {
			return badInput("--weighting does not apply with --model: the model runs with its own weighting")
		}
		if user, fileN, dtypes, digest, err = readModelFileDigest(a); err != nil {
			return err
		}
	} else if _, ok := a.flags["spec"]; ok {
		return badInput("--spec goes with --model FILE")
	} else if r, err = recipeFlag(a); err != nil {
		return err
	}
	p, err := precisionFlag(a, r)
	if err != nil {
		return err
	}
	// A safetensors file runs by default at its dtype's precision: its
	// weights are numbers of that format, as the model's author ran them.
	_, precisionGiven := a.flags["precision"]
	dtypeNote := ""
	if len(dtypes) > 0 && !precisionGiven {
		p, dtypeNote = dtypePrecision(dtypes)
	}
	weightings, explicit, err := weightingFlag(a, r)
	if err != nil {
		return err
	}
	params, err := recipeParams(a)
	if err != nil {
		return err
	}
	if user != nil {
		// The reference is built for the model's weighting where the
		// paper gives one (its bounds differ: softmax's c within 1/4).
		if mw := modelWeighting(user, weightings[0]); r.Supports(mw) {
			weightings = []model.Weighting{mw}
		}
	}
	opts := check.Options{Precision: p, Params: params, Cases: 8, Exhaustive: 256, Seed: 1, MaxN: defaultMaxN(r, p), Model: user}
	// Every report of a model from a file names the file.
	var fileNote []string
	if user != nil {
		fileNote = []string{"model from " + modelName(a.flags["model"])}
	}
	if user != nil && fileN > 0 {
		// Position encodings in a file are a table up to the length it
		// was exported for.
		opts.MaxN = min(opts.MaxN, fileN)
	}
	// Every case of a length is built before it runs: --cases and
	// --exhaustive are capped so that they fit in memory.
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
			if f.name == "max-n" && user != nil && fileN > 0 && n > fileN {
				return badInput("--max-n %d: the model file covers lengths up to %d", n, fileN)
			}
			*f.dst = n
		}
	}
	if v, ok := a.flags["seed"]; ok {
		if opts.Seed, err = strconv.ParseUint(v, 10, 64); err != nil {
			return badInput("--seed must be a non-negative integer, got %q", v)
		}
	}
	if v, ok := a.flags["lengths"]; ok {
		for _, f := range strings.Split(v, ",") {
			n, err := strconv.Atoi(strings.TrimSpace(f))
			if err != nil || n < max(1, r.MinN) || n > opts.MaxN {
				return badInput("--lengths: %q is not a length from %d to --max-n = %d", f, max(1, r.MinN), opts.MaxN)
			}
			opts.Lengths = append(opts.Lengths, n)
		}
	}
	opts.AllLengths = a.flags["all-lengths"] == "true"
	opts.Analysis = a.flags["no-analysis"] != "true"
	if opts.EveryBudget, opts.NoEvery, err = everyFlags(a); err != nil {
		return err
	}
	certOut, wantCerts := a.flags["certificate"]
	if wantCerts {
		if !opts.Analysis {
			return badInput("--certificate needs the analysis: drop --no-analysis")
		}
		if err := atomicfile.Check(certOut); err != nil {
			return badInput("--certificate: %v", err)
		}
		opts.Certificates = true
	}
	if a.flags["force"] != "true" {
		opts.MemoryLimit = limits.Memory()
	}
	// A bad parameter is the user's error, whatever the weighting. The
	// construction is handed to the first weighting's check, which would
	// otherwise build it again.
	built, err := r.Construct(weightings[0], opts.MaxN, params)
	if err != nil {
		return badInput("%v", err)
	}
	asJSON := a.flags["json"] == "true"

	stop := interruptible()
	defer stop.release()
	opts.Stop = stop.requested
	bar := newProgress(stderr, a)
	defer bar.clear()

	var reports []*check.Report
	var skipped []string
	failed, refuted := false, false
	for k, w := range weightings {
		opts.Weighting = w
		opts.Construction = nil
		if k == 0 {
			opts.Construction = built
		}
		opts.Notes = fileNote
		opts.Progress = sweepProgress(bar, opts, r, w, len(weightings) > 1)
		if !asJSON {
			printRow := lengthPrinter(stdout)
			progress := opts.Progress
			opts.Progress = func(rep *check.Report, lr check.LengthReport) {
				bar.clear()
				printRow(rep, lr)
				progress(rep, lr)
			}
		}
		if dtypeNote != "" {
			opts.Notes = append(fileNote, dtypeNote)
		} else if !precisionGiven {
			// The default may differ by weighting: softmax's 1/τ has no
			// exact value. A model from a file has its own.
			var note string
			pw := w
			if user != nil {
				pw = modelWeighting(user, w)
			}
			if opts.Precision, note, err = r.PrecisionFor(pw, opts.MaxN, params); err != nil {
				return badInput("%v", err)
			}
			if note != "" {
				opts.Notes = append(fileNote, note)
			}
		}
		rep, err := check.Run(r, opts)
		bar.clear()
		if err != nil {
			if explicit || errors.Is(err, check.ErrMemory) || user != nil {
				return badInput("%v", err)
			}
			// A weighting the paper claims that cannot be checked is a
			// failure of the run, not a pass.
			failed = true
			under := " under " + recipes.WeightingAcronym(w)
			if len(r.Weightings) == 0 {
				under = ""
			}
			skipped = append(skipped, fmt.Sprintf("%s%s not run: %v", r.Name, under, err))
			if !asJSON {
				fmt.Fprintf(stdout, "%s%s not run: %v\n\n", r.Name, under, err)
			}
			continue
		}
		reports = append(reports, rep)
		if !rep.Passed {
			failed = true
			refuted = refuted || rep.FirstFailure == nil || !rep.FirstFailure.Undecided
		}
		if !asJSON {
			printSummary(stdout, rep)
		}
		if rep.Interrupted {
			break
		}
	}
	if asJSON {
		doc := struct {
			Schema  string          `json:"schema"`
			Reports []*check.Report `json:"reports"`
			Skipped []string        `json:"skipped,omitempty"`
		}{schemaID(kindCheck), reports, skipped}
		if err := writeJSON(stdout, doc); err != nil {
			return err
		}
	}
	if len(reports) == 0 {
		return badInput("nothing could run: %s", strings.Join(skipped, "; "))
	}
	if reports[len(reports)-1].Interrupted {
		return interrupted("the report above covers the lengths checked so far")
	}
	if wantCerts {
		name := ""
		if user != nil {
			name = modelName(a.flags["model"])
		}
		if err := writeCertificates(certOut, r, params, name, digest, reports); err != nil {
			return err
		}
		n := 0
		for _, rep := range reports {
			n += len(rep.Certificates)
		}
		fmt.Fprintf(stderr, "wrote %s: the certificates of %s\n", certOut, plural.Of(n, "length"))
	}
	if failed && !refuted && len(skipped) == 0 {
		return errUndecided
	}
	if failed {
		return errFindings
	}
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

func recipeFlag(a parsedArgs) (*recipes.Recipe, error) {
	name, ok := a.flags["recipe"]
	if !ok {
		return nil, badInput("--recipe NAME is required; recipes: %s (see 'verify list')", strings.Join(recipes.Names(), ", "))
	}
	r, err := recipes.Get(name)
	if err != nil {
		return nil, badInput("%v", err)
	}
	return r, nil
}

// precisionFlag reads --precision; without it, the recipe's default
// (exact, or certified intervals for recipes with irrational values).
func precisionFlag(a parsedArgs, r *recipes.Recipe) (numeric.Precision, error) {
	name, ok := a.flags["precision"]
	if !ok {
		return r.DefaultPrecision(), nil
	}
	p, err := numeric.ParsePrecision(name)
	if err != nil {
		return p, badInput("%v", err)
	}
	return p, nil
}

// weightingFlag returns the weightings to run: the recipe's default, the
// one named, or all the paper gives ("all"); explicit is false for "all"
// and the default.
func weightingFlag(a parsedArgs, r *recipes.Recipe) ([]model.Weighting, bool, error) {
	v, ok := a.flags["weighting"]
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
	which := "each of them"
	if ev := rep.EveryLength; rep.Every && ev != nil {
		which = fmt.Sprintf("every length %d … %d", ev.From, rep.Limit)
	}
	switch {
	case rep.LimitLevel == check.Certified:
		return fmt.Sprintf("every input of %s is right: proved faithful to the construction by the analysis (re-checked by its independent checker), and the construction proved right, or run", which)
	case rep.LimitLevel == check.Faithful:
		s := fmt.Sprintf("every input of %s computes exactly what the construction computes: proved by the analysis (re-checked by its independent checker), or run; the construction itself: %s",
			which, constructionRun(rep))
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
func levelWord(level string) string {
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
	if f.Position > 0 {
		fmt.Fprintf(w, "  position  %d\n  expected  %s\n  actual    %s\n", f.Position, labelled(rep.Outputs, f.Expected), labelled(rep.Outputs, f.Actual))
	}
	fmt.Fprintf(w, "  reason    %s\n\n", f.Reason)
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
	fmt.Fprintf(w, "  reason    %s\n\n", f.Reason)
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

// everyFlags reads --every-budget and --no-every.
func everyFlags(a parsedArgs) (budget int64, off bool, err error) {
	off = a.flags["no-every"] == "true"
	if v, ok := a.flags["every-budget"]; ok {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 0 {
			return 0, false, badInput("--every-budget must be a non-negative integer (0: no bound), got %q", v)
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
