package main

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/transformer-cookbook/verify/recipes"
)

// cmdList prints every recipe with its section, weightings, width and
// domain; with --params, each recipe's parameters below it.
func cmdList(args []string, stdout io.Writer) error {
	a, err := parseArgs("list", args)
	if err != nil {
		return err
	}
	if len(a.positional) > 0 {
		return badInput("list takes no arguments")
	}
	withParams := a.flags["params"] == "true"
	if a.flags["markdown"] == "true" {
		return listMarkdown(stdout)
	}
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "recipe\tsection\tweightings\texact?\twidth\tdomain\twhat it computes")
	for _, r := range recipes.All() {
		exact := "no"
		if r.Exact {
			exact = "yes"
		}
		section := "§" + r.Section
		if r.Label != "" {
			section += " (" + r.Label + ")"
		}
		width := r.Width
		if width == "" {
			width = "—"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", r.Name, section, weightingNames(r.Weightings), exact, width, r.Domain, r.Title)
	}
	if err := tw.Flush(); err != nil || !withParams {
		return err
	}
	fmt.Fprintln(stdout, "\nparameters (--param NAME=VALUE; the value shown is the default):")
	for _, r := range recipes.All() {
		for _, p := range r.Params {
			fmt.Fprintf(stdout, "  %s  --param %s=%s  %s\n", r.Name, p.Name, p.Default, p.Doc)
		}
	}
	return nil
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
