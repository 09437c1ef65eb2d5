package main

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/transformer-cookbook/verify/internal/plural"
	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/proofs"
	"github.com/transformer-cookbook/verify/recipes"
)

// cmdList prints the recipes: a table that fits lineWidth columns (with
// --params, each recipe's parameters below it), one recipe in full with
// NAME, JSON with --json, or the Markdown table of docs/recipes.md.
func cmdList(args []string, stdout io.Writer) error {
	o := new(listOptions)
	positional, err := parseFlags("list", args, o)
	if err != nil {
		return err
	}
	if len(positional) > 1 {
		return badInput("list takes at most one recipe name, got %q", strings.Join(positional, " "))
	}
	rs := recipes.All()
	if len(positional) == 1 {
		r, err := recipes.Get(positional[0])
		if err != nil {
			return badInput("%v", err)
		}
		rs = []*recipes.Recipe{r}
	}
	switch {
	case o.markdown.on() && (o.json.on() || len(positional) == 1):
		return badInput("--markdown prints the table of every recipe: give it alone")
	case o.markdown.on():
		return listMarkdown(stdout)
	case o.json.on():
		return listJSON(stdout, rs)
	case len(positional) == 1:
		return listOne(stdout, rs[0])
	}
	if err := listTable(stdout, rs); err != nil || !o.params.on() {
		return err
	}
	return listParams(stdout, rs)
}

// listTable prints one line per recipe: its name and weightings whole,
// the section and what it computes clipped to the line.
func listTable(w io.Writer, rs []*recipes.Recipe) error {
	rows := make([][]string, len(rs))
	for k, r := range rs {
		rows[k] = []string{r.Name, "§" + r.Section, weightingNames(r.Weightings), r.Title}
	}
	// The name is never clipped (it is what one types): the two longest
	// take a line of their own. The section gives way to what the recipe
	// computes, the more telling of the two.
	cols := []column{{"recipe", 18}, {"section", 20}, {"weightings", 0}, {"what it computes", 0}}
	if err := writeFitted(w, cols, rows); err != nil {
		return err
	}
	_, err := fmt.Fprintf(w, "%s; 'verify list NAME' shows one in full, --params the parameters, --json all\n", plural.Of(len(rs), "recipe"))
	return err
}

// listParams prints each recipe's parameters, the documentation wrapped
// below its flag.
func listParams(w io.Writer, rs []*recipes.Recipe) error {
	var b strings.Builder
	b.WriteString("\nparameters (--param NAME=VALUE; the value shown is the default):\n")
	for _, r := range rs {
		if len(r.Params) == 0 {
			continue
		}
		b.WriteString(r.Name + "\n")
		writeParams(&b, r.Params)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// writeParams writes one "--param NAME=DEFAULT  doc" entry per parameter,
// the doc wrapped under the entry. A default that a shell would split or
// drop (empty, or with spaces or ';') is quoted as one would type it.
func writeParams(b *strings.Builder, ps []recipes.Param) {
	for _, p := range ps {
		value := p.Default
		if value == "" || strings.ContainsAny(value, ` ;|&<>()*?$"'\`) {
			value = "'" + strings.ReplaceAll(value, "'", `'\''`) + "'"
		}
		for _, l := range wrap("  --param "+p.Name+"="+value+"  ", "      ", p.Doc, lineWidth) {
			b.WriteString(l + "\n")
		}
	}
}

// listOne prints everything known of one recipe, each field wrapped to
// lineWidth, and the claims of the registry about its section.
func listOne(w io.Writer, r *recipes.Recipe) error {
	var b strings.Builder
	const indent = "            " // the width of "weightings  "
	field := func(name, value string) {
		for _, l := range wrap(name+indent[len(name):], indent, value, lineWidth) {
			b.WriteString(l + "\n")
		}
	}
	field("recipe", r.Name)
	section := "§" + r.Section
	if r.Label != "" {
		section += " (" + r.Label + ")"
	}
	field("section", section)
	field("computes", r.Title)
	field("domain", r.Domain)
	if len(r.Weightings) == 0 {
		field("weightings", "— (no attention: it runs the same under every weighting)")
	} else {
		names := strings.Split(weightingNames(r.Weightings), ", ")
		names[0] += " (the default)"
		field("weightings", strings.Join(names, ", "))
	}
	if r.Exact {
		field("exact", "yes: the paper claims the network computes its function exactly")
	} else {
		field("exact", "no: the paper claims it within the bounds its construction gives")
	}
	if r.Width != "" {
		field("width", r.Width)
	} else {
		field("width", "— (the paper gives no formula)")
	}
	lengths := fmt.Sprintf("from n = %d; a check sweeps up to n = %d unless --max-n says otherwise", r.MinN, r.DefaultMaxN)
	if r.LimitN > 0 {
		lengths += fmt.Sprintf("; models are built for N ≤ %d at most", r.LimitN)
	}
	field("lengths", lengths)
	field("precision", defaultPrecisions(r).text())
	if len(r.Params) == 0 {
		field("parameters", "none")
	} else {
		field("parameters", "--param NAME=VALUE; the value shown is the default")
		writeParams(&b, r.Params)
	}
	claims := recipeClaims(r)
	if len(claims) == 0 {
		field("claims", "none in the registry about §"+r.Section+" or naming "+r.Name)
	} else {
		field("claims", plural.Of(len(claims), "claim")+" about §"+r.Section+" or naming "+r.Name+", with the verdicts recorded; 'verify claims --id ID --explain' checks one")
	}
	if _, err := io.WriteString(w, b.String()); err != nil || len(claims) == 0 {
		return err
	}
	rows := make([][]string, len(claims))
	for k, c := range claims {
		rows[k] = []string{"  " + c.ID, string(c.Recorded), c.Statement}
	}
	return writeFitted(w, []column{{"  claim", 0}, {"recorded", 0}, {"statement", 0}}, rows)
}

// precisionName is a recipe's default precision: "exact" when it names
// none.
// weightingPrecisions are the precisions a check of a recipe runs at
// by default, under its first (default) weighting and under the others
// where they differ.
type weightingPrecisions struct {
	def    string
	others []string // "53 under SMAT"
	why    string   // why a default is not the recipe's own
}

// defaultPrecisions asks the recipe, as a check does (PrecisionFor at
// its default sweep's N), which precision each weighting runs at: a
// construction whose weights exact arithmetic cannot hold (softmax's
// 1/τ = log(8N)/γ) runs at 53 bits, which its own Precision does not say.
func defaultPrecisions(r *recipes.Recipe) weightingPrecisions {
	ws := r.Weightings
	if len(ws) == 0 {
		ws = []model.Weighting{model.AverageHardmax}
	}
	var out weightingPrecisions
	for i, w := range ws {
		name := precisionName(r.Precision)
		if p, note, err := r.PrecisionFor(w, r.DefaultMaxN, nil); err == nil {
			name = p.String()
			if note != "" && out.why == "" {
				out.why = "53: each operation rounded to 53 bits, since exact arithmetic cannot hold the weights and interval arithmetic could not confirm the exact outputs"
			}
		}
		switch {
		case i == 0:
			out.def = name
		case name != out.def:
			out.others = append(out.others, name+" under "+recipes.WeightingAcronym(w))
		}
	}
	return out
}

// text is the precisions in a sentence.
func (p weightingPrecisions) text() string {
	s := p.def
	if len(p.others) > 0 {
		s += ", " + strings.Join(p.others, ", ")
	}
	s += " (a check's default"
	if p.why != "" {
		s += "; " + p.why
	}
	return s + ")"
}

func precisionName(p string) string {
	if p == "" {
		return "exact"
	}
	return p
}

// recipeClaims returns the claims of the registry about r: those of its
// section (the same title and, where both give one, the same label: the
// paper has two sections called Comparisons), and those whose statement
// or domain names the recipe.
func recipeClaims(r *recipes.Recipe) []*proofs.Claim {
	var out []*proofs.Claim
	for _, c := range proofs.All() {
		if c.Section == r.Section && (c.Label == "" || r.Label == "" || c.Label == r.Label) ||
			namesRecipe(c.Statement, r.Name) || namesRecipe(c.Domain, r.Name) {
			out = append(out, c)
		}
	}
	return out
}

// namesRecipe reports whether text names the recipe called name: after
// the word "recipe", or anywhere for a name no prose uses as a word (one
// with a hyphen or a digit, like lookup-ao or dyck1; "lookup", "min" or
// "first" are words of many statements about other recipes).
func namesRecipe(text, name string) bool {
	words := strings.FieldsFunc(text, func(c rune) bool {
		return !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-')
	})
	distinct := strings.ContainsAny(name, "-0123456789")
	for k, w := range words {
		if w == name && (distinct || k > 0 && words[k-1] == "recipe") {
			return true
		}
	}
	return false
}

// recipeJSON is one recipe as 'verify list --json' prints it.
type recipeJSON struct {
	Name     string `json:"name"`
	Computes string `json:"computes"`
	Section  string `json:"section"`
	Label    string `json:"label,omitempty"`
	Domain   string `json:"domain"`
	// Weightings are the paper's, the first the default; empty for a
	// recipe without attention.
	Weightings  []string `json:"weightings"`
	Exact       bool     `json:"exact"`
	Width       string   `json:"width,omitempty"`
	MinN        int      `json:"min_n"`
	DefaultMaxN int      `json:"default_max_n"`
	LimitN      int      `json:"limit_n,omitempty"`
	// Precision is the precision a check runs at by default under the
	// default weighting; SoftmaxPrecision, under SMAT where it differs.
	Precision        string            `json:"precision"`
	SoftmaxPrecision string            `json:"softmax_precision,omitempty"`
	Params           []paramJSON       `json:"params"`
	Claims           []recipeClaimJSON `json:"claims"`
}

type paramJSON struct {
	Name    string `json:"name"`
	Default string `json:"default"`
	Doc     string `json:"doc"`
}

// recipeClaimJSON is a claim about a recipe's section, with the verdict
// recorded in the registry (list does not run the checkers).
type recipeClaimJSON struct {
	ID        string `json:"id"`
	Recorded  string `json:"recorded"`
	Statement string `json:"statement"`
}

// listJSON prints the recipes as one JSON document.
func listJSON(w io.Writer, rs []*recipes.Recipe) error {
	doc := struct {
		Schema  string       `json:"schema"`
		Recipes []recipeJSON `json:"recipes"`
	}{Schema: schemaID(kindList), Recipes: []recipeJSON{}}
	for _, r := range rs {
		j := recipeJSON{Name: r.Name, Computes: r.Title, Section: r.Section, Label: r.Label, Domain: r.Domain,
			Weightings: []string{}, Exact: r.Exact, Width: r.Width, MinN: r.MinN, DefaultMaxN: r.DefaultMaxN, LimitN: r.LimitN,
			Precision: precisionName(r.Precision), Params: []paramJSON{}, Claims: []recipeClaimJSON{}}
		if len(r.Weightings) > 0 {
			j.Weightings = strings.Split(weightingNames(r.Weightings), ", ")
			if p, _, err := r.PrecisionFor(r.Weightings[0], r.DefaultMaxN, nil); err == nil {
				j.Precision = p.String()
			}
			if slices.Contains(r.Weightings, model.Softmax) {
				if p, _, err := r.PrecisionFor(model.Softmax, r.DefaultMaxN, nil); err == nil && p.String() != j.Precision {
					j.SoftmaxPrecision = p.String()
				}
			}
		}
		for _, p := range r.Params {
			j.Params = append(j.Params, paramJSON{p.Name, p.Default, p.Doc})
		}
		for _, c := range recipeClaims(r) {
			j.Claims = append(j.Claims, recipeClaimJSON{c.ID, string(c.Recorded), c.Statement})
		}
		doc.Recipes = append(doc.Recipes, j)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(doc)
}

// listMarkdown prints the recipes as the Markdown table of docs/recipes.md
// (between its "recipes" markers; a test keeps the two equal).
func listMarkdown(w io.Writer) error {
	fmt.Fprintln(w, "| recipe | section | weightings | exact? | what it computes | domain |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|")
	for _, r := range recipes.All() {
		exact := "no"
		if r.Exact {
			exact = "yes"
		}
		cell := func(s string) string { return strings.ReplaceAll(s, "|", "\\|") }
		if _, err := fmt.Fprintf(w, "| `%s` | %s | %s | %s | %s | %s |\n", r.Name, cell(r.Section), weightingNames(r.Weightings), exact, cell(r.Title), cell(r.Domain)); err != nil {
			return err
		}
	}
	return nil
}
