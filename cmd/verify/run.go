package main

import (
	"fmt"
	"io"
	"math/big"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/transformer-cookbook/verify/check"
	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/recipes"
)

var runFlags = []string{"recipe", "input", "precision", "weighting", "param", "max-n", "trace", "outside-domain"}

// cmdRun runs a recipe on one input and prints its outputs beside the
// intended ones, and the residual stream with --trace.
func cmdRun(args []string, stdout io.Writer) error {
	a, err := parseArgs(args, runFlags...)
	if err != nil {
		return err
	}
	if len(a.positional) > 0 {
		return badInput("unexpected argument %q (flags: --%s)", a.positional[0], strings.Join(runFlags, ", --"))
	}
	r, err := recipeFlag(a)
	if err != nil {
		return err
	}
	p, err := precisionFlag(a, r)
	if err != nil {
		return err
	}
	_, precisionGiven := a.flags["precision"]
	ws, _, err := weightingFlag(a, r)
	if err != nil {
		return err
	}
	if len(ws) != 1 {
		return badInput("run takes one weighting, not all")
	}
	w := ws[0]
	params, err := recipeParams(a)
	if err != nil {
		return err
	}
	text, ok := a.flags["input"]
	if !ok {
		return badInput("run needs --input STRING")
	}
	// The alphabet of some recipes depends on N; a first model with N at
	// least the number of symbols tokenizes the input.
	guess := max(len(strings.Fields(text)), len([]rune(text)), 1)
	maxN := 0
	if v, ok := a.flags["max-n"]; ok {
		if maxN, err = strconv.Atoi(v); err != nil || maxN < 1 || maxN > 1<<24 {
			return badInput("--max-n must be an integer from 1 to %d, got %q", 1<<24, v)
		}
		guess = max(guess, maxN)
	}
	con, err := r.Construct(w, guess, params)
	if err != nil {
		return badInput("%v", err)
	}
	c, err := parseCase(con, text)
	if err != nil {
		return badInput("%v", err)
	}
	// --outside-domain runs an input the recipe does not claim anything
	// about (a comparison's gray region, a lookup's query past the end,
	// more positions than N), and says so instead of refusing it.
	outside := a.flags["outside-domain"] == "true"
	var outsideWhy string
	if con.Valid != nil {
		if err := con.Valid(c); err != nil {
			if !outside {
				return badInput("input outside the domain of %s (%s): %v (--outside-domain runs it anyway)", r.Name, r.Domain, err)
			}
			outsideWhy = err.Error()
		}
	}
	n := c.Len()
	if n < r.MinN {
		return badInput("%s needs inputs of length at least %d", r.Name, r.MinN)
	}
	if maxN == 0 {
		maxN = n
	} else if n > maxN {
		if !outside {
			return badInput("the input has %d positions, more than --max-n = %d (--outside-domain runs it anyway)", n, maxN)
		}
		if outsideWhy == "" {
			outsideWhy = fmt.Sprintf("%d positions, more than N = %d", n, maxN)
		}
	}
	if maxN != guess {
		if con, err = r.Construct(w, maxN, params); err != nil {
			return badInput("%v", err)
		}
		if c, err = parseCase(con, text); err != nil {
			return badInput("%v", err)
		}
	}
	m := con.Model
	if con.Valid != nil && !outside {
		if err := con.Valid(c); err != nil {
			return badInput("input outside the domain of %s (%s): %v (--outside-domain runs it anyway)", r.Name, r.Domain, err)
		}
	}
	var notes []string
	if !precisionGiven {
		var note string
		if p, note, err = r.PrecisionFor(w, maxN, params); err != nil {
			return badInput("%v", err)
		}
		if note != "" {
			notes = append(notes, note)
		}
	}
	runner, err := model.New(p, m)
	if err != nil {
		return badInput("%s cannot run at precision %s: %v", r.Name, p, err)
	}
	var res *model.Result
	if c.Stream != nil {
		res, err = runner.RunStream(c.Stream, a.flags["trace"] == "true")
		c.Stream = check.RoundStream(runner, c.Stream)
	} else {
		res, err = runner.Run(c.Symbols, a.flags["trace"] == "true")
	}
	if err != nil {
		return fmt.Errorf("running %s: %w", r.Name, err)
	}
	weighting := recipes.WeightingAcronym(w)
	if len(r.Weightings) == 0 {
		weighting = "no attention"
	}
	fmt.Fprintf(stdout, "%s (§%s) at precision %s, %s, N = %d\n", r.Name, r.Section, p, weighting, maxN)
	for _, note := range append(append(notes, con.Notes...), runner.Notes()...) {
		fmt.Fprintf(stdout, "note: %s\n", note)
	}
	if outsideWhy != "" {
		fmt.Fprintf(stdout, "note: OUTSIDE THE CLAIMED DOMAIN (%s): %s; the outputs are shown, but %s claims nothing about them\n", r.Domain, outsideWhy, r.Name)
	}
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
	if res.Trace != nil {
		fmt.Fprintln(stdout)
		if err := res.Trace.Write(stdout, symbols); err != nil {
			return err
		}
	}
	bounds := con.Bounds
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	if outsideWhy != "" {
		// The reference is defined on the domain only: no expected
		// column, no verdict.
		fmt.Fprintln(tw, "position\tsymbol\toutput\tverdict")
		for i, got := range res.Outputs {
			fmt.Fprintf(tw, "%d\t%s\t%s\toutside the claimed domain\n", i+1, symbols[i], outputText(m, got))
		}
		return tw.Flush()
	}
	want := con.Expected(c)
	fmt.Fprintln(tw, "position\tsymbol\toutput\texpected\tverdict")
	wrong := 0
	for i, got := range res.Outputs {
		ok, why := check.Compare(want[i], got, bounds, m.Output.Labels)
		verdict := "ok"
		if !ok {
			verdict, wrong = "WRONG: "+why, wrong+1
		}
		verdict += noteText(m, want[i])
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\n", i+1, symbols[i], outputText(m, got), wantText(m, want[i]), verdict)
	}
	tw.Flush()
	if wrong > 0 {
		fmt.Fprintf(stdout, "%d of %d positions wrong\n", wrong, n)
		return errFindings
	}
	return nil
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

func outputText(m *model.Model, o model.PositionOutput) string {
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
