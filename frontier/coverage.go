package frontier

import (
	"fmt"
	"io"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/transformer-cookbook/verify/check"
)

// Coverage counts the cells of a set of reports by the evidence of their
// limits, and the cells whose evidence is weaker than a proof or an
// enumeration by the reason the engine gives: how much of the cookbook
// the engine proves at a precision, and what stands in the way of the
// rest.
type Coverage struct {
	Cells int
	// Evidence counts cells by Evidence, in the order of evidenceOrder.
	Evidence map[Evidence]int
	// Reasons counts, for each evidence below Exhaustive, the cells by
	// their reason (reasonOf), most frequent first.
	Reasons map[Evidence][]ReasonCount
}

// Evidence is the evidence of a cell's limit, as the tables mark it.
type Evidence string

// The evidence of a cell, strongest first.
const (
	EvidenceCertified       Evidence = "certified (ᶜ)"
	EvidenceFaithful        Evidence = "proved faithful to the construction (ᶠ)"
	EvidenceExhaustive      Evidence = "every input run (ᵉ)"
	EvidenceCheckedOnly     Evidence = "proved or run at the checked lengths only (ᶜ*, ᶠ*, ᵉ*)"
	EvidenceSampled         Evidence = "sampled (ˢ)"
	EvidenceFailsAtSmallest Evidence = "failing at the smallest length"
	EvidenceCannotRun       Evidence = "cannot run"
	EvidenceNotApplicable   Evidence = "not applicable"
)

const (
	reasonUnknown = "no reason recorded"
	// reasonRunes bounds a reason's length in the table.
	reasonRunes = 160
)

var evidenceOrder = []Evidence{EvidenceCertified, EvidenceFaithful, EvidenceExhaustive, EvidenceCheckedOnly, EvidenceSampled, EvidenceFailsAtSmallest, EvidenceCannotRun, EvidenceNotApplicable}

// ReasonCount is a reason and the number of cells that give it.
type ReasonCount struct {
	Reason string
	Cells  int
}

// Cell is one cell of a frontier table, a recipe at a precision: its
// limit, the evidence of the limit and, below an enumeration, the reason
// the engine gives for it. Cells are what a coverage table counts, and
// what docs/frontier-cells.json keeps of `verify frontier --all`.
type Cell struct {
	Recipe    string   `json:"recipe"`
	Weighting string   `json:"weighting"`
	Precision string   `json:"precision"`
	Limit     int      `json:"limit"`
	Evidence  Evidence `json:"evidence"`
	Reason    string   `json:"reason,omitempty"`
}

// Cells lists the cells of reps, in their order.
func Cells(reps []*Report) []Cell {
	var cells []Cell
	for _, rep := range reps {
		for k := range rep.Rows {
			row := &rep.Rows[k]
			ev, why := cellEvidence(row)
			cells = append(cells, Cell{rep.Recipe, rep.Weighting, row.Precision, row.Limit, ev, why})
		}
	}
	return cells
}

// CoverageOf tallies cells.
func CoverageOf(cells []Cell) Coverage {
	c := Coverage{Cells: len(cells), Evidence: map[Evidence]int{}, Reasons: map[Evidence][]ReasonCount{}}
	reasons := map[Evidence]map[string]int{}
	for _, cell := range cells {
		c.Evidence[cell.Evidence]++
		if cell.Reason == "" {
			continue
		}
		if reasons[cell.Evidence] == nil {
			reasons[cell.Evidence] = map[string]int{}
		}
		reasons[cell.Evidence][cell.Reason]++
	}
	for ev, m := range reasons {
		for why, n := range m {
			c.Reasons[ev] = append(c.Reasons[ev], ReasonCount{why, n})
		}
		sort.Slice(c.Reasons[ev], func(i, j int) bool {
			a, b := c.Reasons[ev][i], c.Reasons[ev][j]
			return a.Cells > b.Cells || a.Cells == b.Cells && a.Reason < b.Reason
		})
	}
	return c
}

// Runnable is the number of cells the engine could run.
func (c Coverage) Runnable() int {
	return c.Cells - c.Evidence[EvidenceCannotRun] - c.Evidence[EvidenceNotApplicable]
}

// ProvedOrRun is the number of cells whose limit is proved for every
// input of every length up to it, or run on every input of each:
// certified, faithful or exhaustive.
func (c Coverage) ProvedOrRun() int {
	return c.Evidence[EvidenceCertified] + c.Evidence[EvidenceFaithful] + c.Evidence[EvidenceExhaustive]
}

// Decided is the number of cells whose limit is settled up to the
// largest length: proved or run up to it (ProvedOrRun), or 0 with an
// input of the smallest length that the format runs wrong, which
// refutes the claim at that precision outright.
func (c Coverage) Decided() int {
	return c.ProvedOrRun() + c.Evidence[EvidenceFailsAtSmallest]
}

// cellEvidence is the evidence of a row's limit and, below an
// enumeration, the reason the engine gives for it.
func cellEvidence(row *Row) (Evidence, string) {
	switch {
	case strings.HasPrefix(row.Error, "not applicable"):
		return EvidenceNotApplicable, normaliseReason(row.Error)
	case row.Error != "":
		return EvidenceCannotRun, normaliseReason(row.Error)
	case row.Failure != nil && row.Limit == 0:
		return EvidenceFailsAtSmallest, failureReason(row.Failure)
	case row.checkedOnly():
		why := reasonUnknown
		if ev := row.EveryLength; ev != nil && ev.Why != "" {
			why = ev.Why
		}
		return EvidenceCheckedOnly, normaliseReason(why)
	}
	switch row.LimitLevel {
	case check.Certified:
		return EvidenceCertified, ""
	case check.Faithful:
		return EvidenceFaithful, ""
	case check.Exhaustive:
		return EvidenceExhaustive, ""
	}
	return EvidenceSampled, sampledReason(row)
}

// sampledReason is why the analysis did not prove the first sampled
// length up to the limit.
func sampledReason(row *Row) string {
	for _, lr := range row.Checked {
		if lr.N > row.Limit && row.Limit > 0 {
			break
		}
		if lr.Level == check.Sampled && lr.Analysis != "" {
			return normaliseReason(lr.Analysis)
		}
	}
	return reasonUnknown
}

// failureReason is the kind of a first failure's cause, or its reason.
func failureReason(f *Failure) string {
	if f.Cause != nil && f.Cause.Kind != "" {
		return string(f.Cause.Kind)
	}
	return normaliseReason(f.Reason)
}

var (
	reasonNumbers  = regexp.MustCompile(`(^|[^\w.])[-+]?\d[\d./eE+-]*`)
	reasonSpaces   = regexp.MustCompile(`\s+`)
	reasonPosition = regexp.MustCompile(`^at position \d+, `)
)

// normaliseReason makes the reasons of different cells comparable: the
// clause after the last ": " (the general reason, after where it
// happened), without what happened before it ("; before that, …") or the
// position it happened at, its numbers replaced by N, shortened. A
// reference exact arithmetic cannot compute says so first.
func normaliseReason(why string) string {
	irrational := strings.Contains(why, "exact backend") || strings.HasPrefix(why, "exact arithmetic cannot compute")
	why, _, _ = strings.Cut(why, "; before that")
	if k := strings.LastIndex(why, ": "); k >= 0 && len(why)-k > 24 {
		why = why[k+2:]
	}
	why = reasonPosition.ReplaceAllString(why, "")
	why = reasonNumbers.ReplaceAllString(why, "${1}N")
	why = strings.TrimSpace(reasonSpaces.ReplaceAllString(why, " "))
	if irrational {
		why = "exact arithmetic cannot compute the construction: " + why
	}
	if r := []rune(why); len(r) > reasonRunes {
		why = string(r[:reasonRunes-1]) + "…"
	}
	return why
}

// WriteMarkdown writes the coverage as two Markdown tables: the cells by
// evidence, then the reasons of the cells below an enumeration.
func (c Coverage) WriteMarkdown(w io.Writer) error {
	var b strings.Builder
	runnable := c.Runnable()
	fmt.Fprintf(&b, "%d cells, %d of which run; %d of those (%s) proved or run on every input of every length up to their limit, and %d (%s) decided: those, and the cells whose smallest length fails on an input run.\n\n",
		c.Cells, runnable, c.ProvedOrRun(), percent(c.ProvedOrRun(), runnable), c.Decided(), percent(c.Decided(), runnable))
	b.WriteString("| evidence | cells |\n|---|---:|\n")
	for _, ev := range evidenceOrder {
		fmt.Fprintf(&b, "| %s | %d |\n", ev, c.Evidence[ev])
	}
	b.WriteString("\n| evidence | reason | cells |\n|---|---|---:|\n")
	for _, ev := range evidenceOrder {
		if !slices.Contains([]Evidence{EvidenceCheckedOnly, EvidenceSampled, EvidenceFailsAtSmallest, EvidenceCannotRun, EvidenceNotApplicable}, ev) {
			continue
		}
		for _, r := range c.Reasons[ev] {
			fmt.Fprintf(&b, "| %s | %s | %d |\n", ev, strings.ReplaceAll(r.Reason, "|", `\|`), r.Cells)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// percent is 100·a/b rounded down, as text ("0%" when b is 0).
func percent(a, b int) string {
	if b == 0 {
		return "0%"
	}
	return fmt.Sprintf("%d%%", 100*a/b)
}
