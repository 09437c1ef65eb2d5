package main

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/transformer-cookbook/verify/proofs"
)

var claimsFlags = []string{"id", "explain", "json", "markdown", "errata"}

// claimJSON is one claim with what its checker found, as --json prints it.
type claimJSON struct {
	ID        string   `json:"id"`
	Section   string   `json:"section"`
	Label     string   `json:"label,omitempty"`
	Statement string   `json:"statement"`
	Domain    string   `json:"domain"`
	Recorded  string   `json:"recorded"`
	Verdict   string   `json:"verdict"`
	Evidence  string   `json:"evidence"`
	Explain   []string `json:"explain,omitempty"`
	Seconds   float64  `json:"seconds"`
	// Tightness, for a bound whose best constant the checker encloses:
	// the claimed constant and the best one's enclosure, as fractions.
	Tightness *tightnessJSON `json:"tightness,omitempty"`
}

type tightnessJSON struct {
	Claimed string `json:"claimed"`
	BestLo  string `json:"best_lo"`
	BestHi  string `json:"best_hi,omitempty"` // absent: bounded from below only
	How     string `json:"how"`
}

// cmdClaims checks the claims of the registry and prints their verdicts:
// a table, JSON, the Markdown table of docs/claims.md, the README's errata
// table of the refuted claims, or one claim explained. It
// exits 1 when a verdict differs from the recorded one.
func cmdClaims(args []string, stdout io.Writer) error {
	a, err := parseArgs(args, claimsFlags...)
	if err != nil {
		return err
	}
	if len(a.positional) > 0 {
		return badInput("unexpected argument %q (flags: --%s)", a.positional[0], strings.Join(claimsFlags, ", --"))
	}
	claims := proofs.All()
	if id, ok := a.flags["id"]; ok {
		c, err := proofs.Get(id)
		if err != nil {
			return badInput("%v", err)
		}
		claims = []*proofs.Claim{c}
	} else if a.flags["explain"] == "true" {
		return badInput("--explain needs --id ID")
	}
	results := proofs.CheckAll(claims)
	switch {
	case a.flags["json"] == "true":
		out := make([]claimJSON, len(results))
		for k, r := range results {
			c := r.Claim
			out[k] = claimJSON{ID: c.ID, Section: c.Section, Label: c.Label, Statement: c.Statement, Domain: c.Domain,
				Recorded: string(c.Recorded), Verdict: r.Verdict(), Evidence: r.Summary()}
			if r.Evidence != nil {
				out[k].Explain, out[k].Seconds = r.Evidence.Explain, r.Evidence.Elapsed.Seconds()
				if t := r.Evidence.Tight; t != nil {
					out[k].Tightness = &tightnessJSON{Claimed: t.Claimed.RatString(), BestLo: t.BestLo.RatString(), How: t.How}
					if t.BestHi != nil {
						out[k].Tightness.BestHi = t.BestHi.RatString()
					}
				}
			}
		}
		doc := struct {
			Schema string      `json:"schema"`
			Claims []claimJSON `json:"claims"`
		}{schemaID(kindClaims), out}
		if err := writeJSON(stdout, doc); err != nil {
			return err
		}
	case a.flags["markdown"] == "true":
		if err := proofs.WriteMarkdown(stdout, results); err != nil {
			return err
		}
	case a.flags["errata"] == "true":
		if err := proofs.WriteErrata(stdout, results); err != nil {
			return err
		}
	case a.flags["explain"] == "true":
		r := results[0]
		c := r.Claim
		fmt.Fprintf(stdout, "%s (§%s)\n  statement  %s\n  domain     %s\n  verdict    %s (recorded %s)\n  evidence   %s\n",
			c.ID, c.Section, c.Statement, c.Domain, r.Verdict(), c.Recorded, r.Summary())
		if r.Evidence != nil {
			for _, line := range r.Evidence.Explain {
				fmt.Fprintf(stdout, "    %s\n", line)
			}
		}
	default:
		tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "claim\tsection\tverdict\tevidence")
		for _, r := range results {
			v := r.Verdict()
			if r.Changed() {
				v += " (recorded " + string(r.Claim.Recorded) + ")"
			}
			fmt.Fprintf(tw, "%s\t§%s\t%s\t%s\n", r.Claim.ID, r.Claim.Section, v, r.Summary())
		}
		if err := tw.Flush(); err != nil {
			return err
		}
		fmt.Fprintln(stdout, proofs.Tally(results))
	}
	for _, r := range results {
		if r.Changed() {
			return errFindings
		}
	}
	return nil
}
