package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/transformer-cookbook/verify/proofs"
)

// writeClaimsTable prints one line per claim, its ID, verdict and
// evidence clipped to lineWidth, then the tally; --explain prints the
// rest.
func writeClaimsTable(w io.Writer, results []proofs.Result) error {
	rows := make([][]string, len(results))
	for k, r := range results {
		v := r.Verdict()
		if r.Changed() {
			v += " (recorded " + string(r.Claim.Recorded) + ")"
		}
		rows[k] = []string{r.Claim.ID, v, r.Summary()}
	}
	// An ID is never clipped (it is what --id takes): the few longer than
	// the column take a line of their own.
	if err := writeFitted(w, []column{{"claim", 32}, {"verdict", 0}, {"evidence (--explain: in full)", 0}}, rows); err != nil {
		return err
	}
	// The tally fits unless verdicts changed or checkers failed, which
	// lengthen it.
	_, err := fmt.Fprintln(w, strings.Join(wrap("", "  ", proofs.Tally(results), lineWidth), "\n"))
	return err
}

// writeClaimsExplained prints each claim in full: its section, the
// paper's statement, the domain checked, the verdict and the whole
// evidence with the checker's details, wrapped to lineWidth.
func writeClaimsExplained(w io.Writer, results []proofs.Result) error {
	var b strings.Builder
	const indent = "             " // the width of "  statement  "
	field := func(name, value string) {
		for _, l := range wrap("  "+name+indent[len(name)+2:], indent, value, lineWidth) {
			b.WriteString(l + "\n")
		}
	}
	for k, r := range results {
		if k > 0 {
			b.WriteString("\n")
		}
		c := r.Claim
		section := "§" + c.Section
		if c.Label != "" {
			section += " (" + c.Label + ")"
		}
		for _, l := range wrap(c.ID+" ", "  ", section, lineWidth) {
			b.WriteString(l + "\n")
		}
		field("statement", c.Statement)
		field("domain", c.Domain)
		field("verdict", r.Verdict()+" (recorded "+string(c.Recorded)+")")
		field("evidence", r.Summary())
		if r.Evidence != nil {
			for _, line := range r.Evidence.Explain {
				for _, l := range wrap("    ", "      ", line, lineWidth) {
					b.WriteString(l + "\n")
				}
			}
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}
