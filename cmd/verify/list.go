package main

import (
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/transformer-cookbook/verify/recipes"
)

// cmdList prints every recipe with its section, weightings, width and
// domain.
func cmdList(args []string, stdout io.Writer) error {
	a, err := parseArgs(args)
	if err != nil {
		return err
	}
	if len(a.positional) > 0 {
		return badInput("list takes no arguments")
	}
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "recipe\tsection\tweightings\texact?\twidth\tdomain\twhat it computes")
	for _, r := range recipes.All() {
		exact := "no"
		if r.Exact {
			exact = "yes"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", r.Name, "§"+r.Section+" ("+r.Label+")", weightingNames(r.Weightings), exact, r.Width, r.Domain, r.Title)
	}
	return tw.Flush()
}
