package main

import (
	"io"
	"strings"

	"github.com/transformer-cookbook/verify/internal/gcfloor"
	"github.com/transformer-cookbook/verify/proofs"
)

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

// cmdClaims checks the claims of the registry (or the one --id names)
// and prints their verdicts: a table, each claim explained in full, JSON,
// the Markdown table of docs/claims.md or the README's errata table of
// the refuted claims. It
// exits 1 when a verdict differs from the recorded one.
func cmdClaims(args []string, stdout, stderr io.Writer) error {
	a, err := parseArgs("claims", args)
	if err != nil {
		return err
	}
	if err := noPositional("claims", a.positional); err != nil {
		return err
	}
	var forms []string
	for _, f := range []string{"json", "markdown", "errata"} {
		if a.flags[f] == "true" {
			forms = append(forms, "--"+f)
		}
	}
	if len(forms) > 1 {
		return badInput("%s each choose what claims prints: give one", strings.Join(forms, " and "))
	}
	claims := proofs.All()
	if id, ok := a.flags["id"]; ok {
		c, err := proofs.Get(id)
		if err != nil {
			return badInput("%v", err)
		}
		claims = []*proofs.Claim{c}
	}
	defer gcfloor.Set(gcfloor.Bytes, proofs.GCPercent)()
	bar := newProgress(stderr, a)
	results := proofs.CheckAllProgress(claims, func(done int) {
		bar.show("", done, len(claims), "claims", float64(done)/float64(len(claims)))
	})
	bar.clear()
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
		if err := writeClaimsExplained(stdout, results); err != nil {
			return err
		}
	default:
		if err := writeClaimsTable(stdout, results); err != nil {
			return err
		}
	}
	for _, r := range results {
		if r.Changed() {
			return errFindings
		}
	}
	return nil
}
