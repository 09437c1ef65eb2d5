package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"math/big"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/transformer-cookbook/verify/check"
	"github.com/transformer-cookbook/verify/internal/plural"
	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/model/eval"
	"github.com/transformer-cookbook/verify/numeric"
	"github.com/transformer-cookbook/verify/recipes"
)

// cmdRun runs a recipe on one input (or on each line of --inputs) and
// prints its outputs beside the intended ones, and the residual stream
// with --trace; --json prints the same as one document (the trace as
// each run's "trace").
func cmdRun(args []string, stdout io.Writer) error {
	o := new(runOptions)
	positional, err := parseFlags("run", args, o)
	if err != nil {
		return err
	}
	if err := noPositional("run", positional); err != nil {
		return err
	}
	if o.model.set {
		return runModelFile(o, stdout)
	}
	job, err := o.recipeRun()
	if err != nil {
		return err
	}
	texts, lines, err := o.runInputs()
	if err != nil {
		return err
	}
	var reps []*runReport
	for k, text := range texts {
		rep, err := job.runOne(text)
		if err != nil && len(texts) > 1 {
			if _, bad := err.(usageError); bad {
				return badInput("--inputs line %d: %v", lines[k], err)
			}
			return fmt.Errorf("--inputs line %d: %w", lines[k], err)
		}
		if err != nil {
			return err
		}
		reps = append(reps, rep)
	}
	return printRuns(o.json.on(), stdout, runDocument{Recipe: job.r.Name, Section: job.r.Section, Weighting: reps[0].weighting}, reps)
}

// A recipeRun is what 'verify run --recipe' runs each input with.
type recipeRun struct {
	o      *runOptions
	r      *recipes.Recipe
	p      numeric.Precision
	w      model.Weighting
	params map[string]string
	cache  *runCache
}

// recipeRun resolves the options, in the order their faults are
// reported.
func (o *runOptions) recipeRun() (*recipeRun, error) {
	r, err := o.recipeNamed()
	if err != nil {
		return nil, err
	}
	p, err := o.precisionOf(r)
	if err != nil {
		return nil, err
	}
	ws, _, err := o.weightingsOf(r)
	if err != nil {
		return nil, err
	}
	if len(ws) != 1 {
		return nil, badInput("run takes one weighting, not all")
	}
	params, err := o.params.parsed()
	if err != nil {
		return nil, err
	}
	cache := &runCache{r: r, w: ws[0], params: params, built: map[int]*recipes.Construction{}, runners: map[runnerKey]eval.Runner{}}
	return &recipeRun{o: o, r: r, p: p, w: ws[0], params: params, cache: cache}, nil
}

// runModelFile is 'verify run --model FILE': the model of a file (made
// by export, by hand, or in PyTorch) on the given inputs, its outputs
// without a reference to compare them with.
func runModelFile(o *runOptions, stdout io.Writer) error {
	m, fileN, p, err := o.modelRunner()
	if err != nil {
		return err
	}
	path := modelName(o.model.text)
	runner, err := eval.New(p, m)
	if err != nil {
		return badInput("%s cannot run at precision %s: %v", path, p, err)
	}
	texts, lines, err := o.runInputs()
	if err != nil {
		return err
	}
	var reps []*runReport
	for k, text := range texts {
		syms, err := m.Tokenize(text)
		if err == nil && m.Position != nil && len(syms) > fileN {
			err = fmt.Errorf("the input has %d positions; the file's position encodings stop at N = %d", len(syms), fileN)
		}
		if err != nil {
			if len(texts) > 1 {
				return badInput("--inputs line %d: %v", lines[k], err)
			}
			return badInput("%v", err)
		}
		res, err := runner.Run(syms, o.trace.on())
		if err != nil {
			// The model cannot compute this input (a layer norm of a
			// constant vector with ε = 0, ...): the file is at fault, not a
			// finding of the run.
			return badInput("%s cannot run on %q at precision %s: %v", path, text, p, err)
		}
		tokens := make([]string, len(syms))
		for i, s := range syms {
			tokens[i] = m.Alphabet[s]
		}
		reps = append(reps, &runReport{file: path, p: p, maxN: fileN, notes: runner.Notes(), m: m,
			input: recipes.Case{Symbols: syms}, symbols: tokens, res: res})
	}
	return printRuns(o.json.on(), stdout, runDocument{Model: path}, reps)
}

// modelRunner reads the model of --model and the precision it runs at.
func (o *runOptions) modelRunner() (*model.Model, int, numeric.Precision, error) {
	for _, f := range []struct {
		name string
		set  bool
	}{{"recipe", o.recipe.set}, {"weighting", o.weighting.set}, {"param", len(o.params.list) > 0}, {"max-n", o.maxN.set}, {"outside-domain", o.outsideDomain.set}} {
		if f.set {
			return nil, 0, numeric.Precision{}, badInput("--%s does not apply with --model: the file holds the whole model", f.name)
		}
	}
	if o.model.text == "-" && o.inputs.text == "-" {
		return nil, 0, numeric.Precision{}, badInput("--model - and --inputs - both read standard input: give one of them a file")
	}
	m, fileN, dtypes, err := o.readModelFile()
	if err != nil {
		return nil, 0, numeric.Precision{}, err
	}
	// As in check: a safetensors file runs at its dtype's precision unless
	// told otherwise; a JSON file, whose weights are exact, in exact
	// arithmetic.
	p := numeric.MustParsePrecision("exact")
	if len(dtypes) > 0 {
		p, _ = dtypePrecision(dtypes)
	}
	if o.precision.set {
		if o.precision.err != nil {
			return nil, 0, p, badInput("%v", o.precision.err)
		}
		p = o.precision.p
	}
	return m, fileN, p, nil
}

// printRuns prints the reports as tables, or as one JSON document, and
// returns errFindings when an output differs from its reference.
func printRuns(asJSON bool, stdout io.Writer, doc runDocument, reps []*runReport) error {
	wrong := 0
	for _, rep := range reps {
		wrong += rep.wrong()
	}
	if asJSON {
		doc.Schema = schemaID(kindRun)
		for _, rep := range reps {
			doc.Runs = append(doc.Runs, rep.json())
		}
		if err := writeJSON(stdout, doc); err != nil {
			return err
		}
	} else {
		for k, rep := range reps {
			if k > 0 {
				fmt.Fprintln(stdout)
			}
			if err := rep.print(stdout); err != nil {
				return err
			}
		}
	}
	if wrong > 0 {
		return errFindings
	}
	return nil
}

// runInputs reads --input, or the lines of the file --inputs names ("-"
// for standard input), blank lines skipped: a batch runs every input in
// one process, as a script comparing many inputs wants. lines are the
// inputs' line numbers, for errors.
func (o *runOptions) runInputs() (texts []string, lines []int, err error) {
	text, one := o.input.text, o.input.set
	path, many := o.inputs.text, o.inputs.set
	switch {
	case one && many:
		return nil, nil, badInput("give --input STRING or --inputs FILE, not both")
	case one:
		return []string{text}, []int{1}, nil
	case !many:
		return nil, nil, badInput("run needs --input STRING (or --inputs FILE, one input per line)")
	}
	limit, err := o.inputLimit()
	if err != nil {
		return nil, nil, err
	}
	data, err := readInput(path, "--inputs", limit)
	if err != nil {
		return nil, nil, err
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 64*1024), 16<<20)
	for k := 1; sc.Scan(); k++ {
		if line := strings.TrimSpace(sc.Text()); line != "" {
			texts, lines = append(texts, line), append(lines, k)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, nil, badInput("--inputs %s: %v", path, err)
	}
	if len(texts) == 0 {
		return nil, nil, badInput("--inputs %s: no input (one per line)", path)
	}
	return texts, lines, nil
}

// runCache keeps the constructions and runners of a batch of inputs,
// which share them for each N and precision (building and rounding a
// model can take longer than running it).
type runCache struct {
	r       *recipes.Recipe
	w       model.Weighting
	params  map[string]string
	built   map[int]*recipes.Construction
	runners map[runnerKey]eval.Runner
}

type runnerKey struct {
	m *model.Model
	p string
}

func (c *runCache) construct(n int) (*recipes.Construction, error) {
	if con, ok := c.built[n]; ok {
		return con, nil
	}
	con, err := c.r.Construct(c.w, n, c.params)
	if err == nil {
		c.built[n] = con
	}
	return con, err
}

func (c *runCache) runner(p numeric.Precision, m *model.Model) (eval.Runner, error) {
	k := runnerKey{m, p.String()}
	if run, ok := c.runners[k]; ok {
		return run, nil
	}
	run, err := eval.New(p, m)
	if err == nil {
		c.runners[k] = run
	}
	return run, err
}

// runReport is one input's run: what the text table and the JSON
// document print. r is nil for a model from a file (which has no
// reference: no expected outputs, no verdicts).
type runReport struct {
	r          *recipes.Recipe
	file       string
	p          numeric.Precision
	weighting  string
	maxN       int
	notes      []string
	outsideWhy string
	m          *model.Model
	// input is the case as parsed (a stream before it is rounded).
	input   recipes.Case
	symbols []string
	res     *eval.Result
	// want and bounds are the reference (nil outside the domain).
	want   []recipes.Want
	bounds []recipes.Bound
}

// runOne runs the recipe on the input text.
func (j *recipeRun) runOne(text string) (*runReport, error) {
	in, err := j.prepare(text)
	if err != nil {
		return nil, err
	}
	p := j.p
	var notes []string
	if !j.o.precision.set {
		var note string
		if p, note, err = j.r.PrecisionFor(j.w, in.maxN, j.params); err != nil {
			return nil, badInput("%v", err)
		}
		if note != "" {
			notes = append(notes, note)
		}
	}
	m := in.con.Model
	runner, err := j.cache.runner(p, m)
	if err != nil {
		return nil, badInput("%s cannot run at precision %s: %v", j.r.Name, p, err)
	}
	var res *eval.Result
	c, input := in.c, in.c
	if c.Stream != nil {
		res, err = runner.RunStream(c.Stream, j.o.trace.on())
		c.Stream = check.RoundStream(runner, c.Stream)
	} else {
		res, err = runner.Run(c.Symbols, j.o.trace.on())
	}
	if err != nil {
		return nil, badInput("%s cannot run on this input at precision %s: %v", j.r.Name, p, err)
	}
	weighting := recipes.WeightingAcronym(j.w)
	if len(j.r.Weightings) == 0 {
		weighting = "no attention"
	}
	rep := &runReport{r: j.r, p: p, weighting: weighting, maxN: in.maxN, notes: append(append(notes, in.con.Notes...), runner.Notes()...),
		outsideWhy: in.outsideWhy, m: m, input: input, symbols: symbolsOf(c, m, in.n), res: res, bounds: in.con.Bounds}
	if in.outsideWhy == "" {
		rep.want = in.con.Expected(c)
	}
	return rep, nil
}

// runInput is one input parsed for the construction that runs it.
type runInput struct {
	n, maxN    int // the input's positions, and the N the model is built for
	con        *recipes.Construction
	c          recipes.Case
	outsideWhy string // why the recipe claims nothing of it, "" in its domain
}

// prepare parses the input text, building the model for its positions
// (or --max-n), and refuses it outside the recipe's domain unless
// --outside-domain is given.
func (j *recipeRun) prepare(text string) (runInput, error) {
	var in runInput
	if j.o.maxN.set {
		var ok bool
		if in.maxN, ok = j.o.maxN.within(1, 1<<24); !ok {
			return in, badInput("--max-n must be an integer from 1 to %d, got %q", 1<<24, j.o.maxN.text)
		}
	}
	// The model is built once, for the input's positions (or --max-n):
	// a construction built for the smallest N counts them, since the
	// count does not depend on N (a lookup's alphabet does).
	probe, err := j.cache.construct(max(1, j.r.MinN, in.maxN))
	if err != nil {
		return in, badInput("%v", err)
	}
	if in.n, err = probe.InputLength(text); err != nil {
		return in, badInput("%v", err)
	}
	if in.n < j.r.MinN {
		return in, badInput("%s needs inputs of length at least %d", j.r.Name, j.r.MinN)
	}
	// --outside-domain runs an input the recipe does not claim anything
	// about (a comparison's gray region, a lookup's query past the end,
	// more positions than N), and says so instead of refusing it.
	outside := j.o.outsideDomain.on()
	if in.maxN == 0 {
		in.maxN = in.n
	} else if in.n > in.maxN {
		if !outside {
			return in, badInput("the input has %d positions, more than --max-n = %d (--outside-domain runs it anyway)", in.n, in.maxN)
		}
		in.outsideWhy = fmt.Sprintf("%d positions, more than N = %d", in.n, in.maxN)
	}
	if in.con, err = j.cache.construct(in.maxN); err != nil {
		return in, badInput("%v", err)
	}
	if in.c, err = parseCase(in.con, text); err != nil {
		return in, badInput("%v", err)
	}
	if in.c.Len() != in.n {
		return in, fmt.Errorf("%s: the input counts %d positions but parses as %d", j.r.Name, in.n, in.c.Len())
	}
	if in.con.Valid != nil {
		if err := in.con.Valid(in.c); err != nil {
			if !outside {
				return in, badInput("input outside the domain of %s (%s): %v (--outside-domain runs it anyway)", j.r.Name, j.r.Domain, err)
			}
			if in.outsideWhy == "" {
				in.outsideWhy = err.Error()
			}
		}
	}
	return in, nil
}

// symbolsOf names the n positions of the case c: its tokens, a stream's
// position numbers, or the model's symbols.
func symbolsOf(c recipes.Case, m *model.Model, n int) []string {
	symbols := make([]string, n)
	for i := range symbols {
		if i < len(c.Tokens) {
			symbols[i] = c.Tokens[i]
		} else if c.Stream != nil {
			symbols[i] = strconv.Itoa(i + 1)
		} else {
			symbols[i] = m.Alphabet[c.Symbols[i]]
		}
	}
	return symbols
}

// verdicts compares each position's output with the reference at the
// run's precision (check.CompareAt): "ok", "WRONG: why", "UNDECIDED: why"
// (nothing refuted, nothing confirmed), or "" outside the claimed
// domain; notes name the bounds
// that depend on the input and the outputs not claimed.
func (rep *runReport) verdicts() (verdicts, notes []string) {
	verdicts = make([]string, len(rep.res.Outputs))
	notes = make([]string, len(rep.res.Outputs))
	if rep.want == nil {
		return verdicts, notes
	}
	for i, got := range rep.res.Outputs {
		ok, undecided, why := check.CompareAt(rep.p, rep.want[i], got, rep.bounds, rep.m.Output.Labels)
		switch {
		case ok:
			verdicts[i] = "ok"
		case undecided:
			verdicts[i] = "UNDECIDED: " + strings.TrimPrefix(why, "undecided: ")
		default:
			verdicts[i] = "WRONG: " + why
		}
		notes[i] = noteText(rep.m, rep.want[i])
	}
	return verdicts, notes
}

func (rep *runReport) wrong() int {
	verdicts, _ := rep.verdicts()
	wrong := 0
	for _, v := range verdicts {
		// An undecided output is not confirmed: it counts, as in 'verify
		// check', toward exit status 1.
		if strings.HasPrefix(v, "WRONG") || strings.HasPrefix(v, "UNDECIDED") {
			wrong++
		}
	}
	return wrong
}

// print writes the report as the text table of 'verify run'.
func (rep *runReport) print(stdout io.Writer) error {
	m, r := rep.m, rep.r
	if r == nil {
		fmt.Fprintf(stdout, "%s (from %s) at precision %s, N = %d\n", m.Name, rep.file, rep.p, rep.maxN)
	} else {
		fmt.Fprintf(stdout, "%s (§%s) at precision %s, %s, N = %d\n", r.Name, r.Section, rep.p, rep.weighting, rep.maxN)
	}
	for _, note := range rep.notes {
		fmt.Fprintf(stdout, "note: %s\n", note)
	}
	if rep.outsideWhy != "" {
		fmt.Fprintf(stdout, "note: OUTSIDE THE CLAIMED DOMAIN (%s): %s; the outputs are shown, but %s claims nothing about them\n", r.Domain, rep.outsideWhy, r.Name)
	}
	if rep.res.Trace != nil {
		fmt.Fprintln(stdout)
		if err := rep.res.Trace.Write(stdout, rep.symbols); err != nil {
			return err
		}
	}
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	if r == nil {
		fmt.Fprintln(tw, "position\tsymbol\toutput")
		for i, got := range rep.res.Outputs {
			fmt.Fprintf(tw, "%d\t%s\t%s\n", i+1, rep.symbols[i], outputText(m, got))
		}
		return tw.Flush()
	}
	if rep.outsideWhy != "" {
		// The reference is defined on the domain only: no expected
		// column, no verdict.
		fmt.Fprintln(tw, "position\tsymbol\toutput\tverdict")
		for i, got := range rep.res.Outputs {
			fmt.Fprintf(tw, "%d\t%s\t%s\toutside the claimed domain\n", i+1, rep.symbols[i], outputText(m, got))
		}
		return tw.Flush()
	}
	verdicts, notes := rep.verdicts()
	fmt.Fprintln(tw, "position\tsymbol\toutput\texpected\tverdict")
	for i, got := range rep.res.Outputs {
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\n", i+1, rep.symbols[i], outputText(m, got), wantText(m, rep.want[i]), verdicts[i]+notes[i])
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if wrong := rep.wrong(); wrong > 0 {
		fmt.Fprintf(stdout, "%d of %s wrong\n", wrong, plural.Of(len(rep.res.Outputs), "position"))
	}
	return nil
}

// runDocument is what 'verify run --json' prints: a run per input, of a
// recipe or of the model in a file.
type runDocument struct {
	Schema    string    `json:"schema"`
	Recipe    string    `json:"recipe,omitempty"`
	Model     string    `json:"model,omitempty"`
	Section   string    `json:"section,omitempty"`
	Weighting string    `json:"weighting,omitempty"`
	Runs      []runJSON `json:"runs"`
}

// runJSON is one input's run. The input is given as the model received
// it: Symbols, indices into the model's alphabet, or Stream, the exact
// initial residual stream (before it is rounded to the precision), for
// inputs that are vectors or values beyond the alphabet.
type runJSON struct {
	Input     string        `json:"input"`
	Precision string        `json:"precision"`
	MaxN      int           `json:"max_n"`
	Notes     []string      `json:"notes,omitempty"`
	Outside   string        `json:"outside_domain,omitempty"`
	Symbols   []int         `json:"symbols,omitempty"`
	Stream    [][]string    `json:"stream,omitempty"`
	Positions []runPosition `json:"positions"`
	// Wrong counts the positions whose output is wrong against the
	// reference; absent where there is none (a model run on its own).
	Wrong *int `json:"wrong,omitempty"`
	// Trace is the residual stream after every sublayer (--trace).
	Trace []traceState `json:"trace,omitempty"`
}

// traceState is the residual stream at one point of the model (the
// embedding, each attention and feed-forward sublayer with its residual
// and norm, the final norm), a row per named component with a number
// per position: the table 'verify run --trace' prints.
type traceState struct {
	Sublayer   string           `json:"sublayer"`
	Components []traceComponent `json:"components"`
}

type traceComponent struct {
	Name   string       `json:"name"`
	Values []numberJSON `json:"values"`
}

func traceJSON(t *eval.Trace) []traceState {
	var out []traceState
	for _, s := range t.States {
		st := traceState{Sublayer: s.Label, Components: make([]traceComponent, len(t.Components))}
		for c, name := range t.Components {
			row := traceComponent{Name: name, Values: make([]numberJSON, len(s.Vectors))}
			for i := range s.Vectors {
				row.Values[i] = numberOf(s.Vectors[i][c])
			}
			st.Components[c] = row
		}
		out = append(out, st)
	}
	return out
}

// runPosition is one position's output. Each value has its exact value
// (a fraction in lowest terms) beside the precision's printing, so that
// another implementation can be compared bit for bit; a NaN or an
// infinity has none.
type runPosition struct {
	Position int        `json:"position"`
	Token    string     `json:"token"`
	Symbol   string     `json:"symbol,omitempty"`
	Values   []runValue `json:"values"`
	Expected *runWant   `json:"expected,omitempty"`
	Verdict  string     `json:"verdict,omitempty"`
}

type runValue struct {
	Label string `json:"label"`
	numberJSON
}

type runWant struct {
	Symbol string            `json:"symbol,omitempty"`
	Values map[string]string `json:"values,omitempty"`
}

func (rep *runReport) json() runJSON {
	m := rep.m
	out := runJSON{Input: rep.inputText(), Precision: rep.p.String(), MaxN: rep.maxN, Notes: rep.notes, Outside: rep.outsideWhy}
	if rep.want != nil {
		wrong := rep.wrong()
		out.Wrong = &wrong
	}
	if rep.input.Stream != nil {
		for _, row := range rep.input.Stream {
			texts := make([]string, len(row))
			for c, x := range row {
				texts[c] = "0"
				if x != nil {
					texts[c] = x.RatString()
				}
			}
			out.Stream = append(out.Stream, texts)
		}
	} else {
		out.Symbols = rep.input.Symbols
	}
	verdicts, notes := rep.verdicts()
	for i, got := range rep.res.Outputs {
		pos := runPosition{Position: i + 1, Token: rep.symbols[i], Symbol: got.Symbol, Values: []runValue{}, Verdict: verdicts[i] + notes[i]}
		for k, v := range got.Values {
			pos.Values = append(pos.Values, runValue{Label: labelOf(m, k), numberJSON: numberOf(v)})
		}
		if rep.want != nil {
			w := rep.want[i]
			rw := &runWant{Symbol: w.Symbol}
			for k, t := range check.ValueTexts(w) {
				if rw.Values == nil {
					rw.Values = map[string]string{}
				}
				rw.Values[labelOf(m, k)] = t
			}
			pos.Expected = rw
		}
		out.Positions = append(out.Positions, pos)
	}
	if rep.res.Trace != nil {
		out.Trace = traceJSON(rep.res.Trace)
	}
	return out
}

// inputText is the input as the recipe prints it.
func (rep *runReport) inputText() string {
	if rep.input.Text != "" {
		return rep.input.Text
	}
	return strings.Join(rep.symbols, " ")
}

// parseCase reads the user's input: by the recipe's parser, or as
// symbols of the model's alphabet.
func parseCase(con *recipes.Construction, text string) (recipes.Case, error) {
	if con.Parse != nil {
		return con.Parse(text)
	}
	syms, err := con.Model.Tokenize(text)
	return recipes.Case{Symbols: syms}, err
}

// noteText names the bounds that depend on this input (a softmax
// lookup's max_j |v_j|/4), and the outputs the recipe claims nothing
// about on it, and why: those are shown, not compared.
func noteText(m *model.Model, w recipes.Want) string {
	var parts []string
	for k, b := range w.Tol {
		if b.Max != nil && w.Claimed(k) {
			parts = append(parts, labelOf(m, k)+" within "+shortRat(b.Max))
		}
	}
	for k, why := range w.Unclaimed {
		if why != "" {
			parts = append(parts, labelOf(m, k)+" outside the claimed domain: "+why)
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return " (" + strings.Join(parts, "; ") + ")"
}

// shortRat prints r as a fraction, or, when that is long (a value
// rounded to a binary format), as a decimal of 6 digits.
func shortRat(r *big.Rat) string {
	if s := r.RatString(); len(s) <= 16 {
		return s
	}
	return "≈" + new(big.Float).SetRat(r).Text('g', 6)
}

func outputText(m *model.Model, o eval.PositionOutput) string {
	var parts []string
	if o.Symbol != "" {
		parts = append(parts, o.Symbol)
	}
	for k, v := range o.Values {
		parts = append(parts, labelOf(m, k)+"="+v.Text)
	}
	return strings.Join(parts, " ")
}

func wantText(m *model.Model, w recipes.Want) string {
	var parts []string
	if w.Symbol != "" {
		parts = append(parts, w.Symbol)
	}
	for k, v := range check.ValueTexts(w) {
		parts = append(parts, labelOf(m, k)+"="+v)
	}
	return strings.Join(parts, " ")
}

func labelOf(m *model.Model, k int) string {
	if k < len(m.Output.Labels) {
		return m.Output.Labels[k]
	}
	return fmt.Sprintf("out%d", k+1)
}
