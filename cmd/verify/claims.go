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
	o := new(claimsOptions)
	positional, err := parseFlags("claims", args, o)
	if err != nil {
		return err
	}
	if err := noPositional("claims", positional); err != nil {
		return err
	}
	claims, err := o.claims()
	if err != nil {
		return err
	}
	defer gcfloor.Set(gcfloor.Bytes, proofs.GCPercent)()
	bar := newProgress(stderr, &o.commonOptions)
	results := proofs.CheckAllProgress(claims, func(done int) {
		bar.show("", done, len(claims), "claims", float64(done)/float64(len(claims)))
	})
	bar.clear()
	if err := o.render(stdout, results); err != nil {
		return err
	}
	for _, r := range results {
		if r.Changed() {
			return errFindings
		}
	}
	return nil
}

// claims returns the claims to check: every one, or that of --id. Of
// --json, --markdown and --errata, at most one is given.
func (o *claimsOptions) claims() ([]*proofs.Claim, error) {
	var forms []string
	for _, f := range []struct {
		name string
		on   bool
	}{{"json", o.json.on()}, {"markdown", o.markdown.on()}, {"errata", o.errata.on()}} {
		if f.on {
			forms = append(forms, "--"+f.name)
		}
	}
	if len(forms) > 1 {
		return nil, badInput("%s each choose what claims prints: give one", strings.Join(forms, " and "))
	}
	if !o.id.set {
		return proofs.All(), nil
	}
	c, err := proofs.Get(o.id.text)
	if err != nil {
		return nil, badInput("%v", err)
	}
	return []*proofs.Claim{c}, nil
}

// render prints the verdicts in the form the flags choose.
func (o *claimsOptions) render(stdout io.Writer, results []proofs.Result) error {
	switch {
	case o.json.on():
		return writeClaimsJSON(stdout, results)
	case o.markdown.on():
		return proofs.WriteMarkdown(stdout, results)
	case o.errata.on():
		return proofs.WriteErrata(stdout, results)
	case o.explain.on():
		return writeClaimsExplained(stdout, results)
	}
	return writeClaimsTable(stdout, results)
}

// writeClaimsJSON prints the verdicts as one JSON document.
func writeClaimsJSON(stdout io.Writer, results []proofs.Result) error {
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
	return writeJSON(stdout, doc)
}
