package frontier

import (
	"fmt"
	"io"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/transformer-cookbook/verify/check"
	"github.com/transformer-cookbook/verify/recipes"
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
	// Integers counts, among the cells that fail or are undecided on the
	// format's values, those with an integer domain proved or run
	// (IntegerCell), by its level.
	Integers map[check.Level]int
	// Sections is, for each section of the paper (in the recipes'
	// order) and each of SectionPrecisions, its strongest cell.
	Sections []SectionRow
}

// SectionPrecisions are the precisions of the coverage's table by
// section: the formats users train and run in.
var SectionPrecisions = []string{"fp16", "bf16", "fp32"}

// SectionRow is a section's strongest cell at each of
// SectionPrecisions (nil: no cell of the section at that precision).
type SectionRow struct {
	Section string
	Best    []*Cell
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
	// Integers, for a position-wise cell that fails (or is undecided) on
	// the format's values, is the widest domain of integer inputs on which
	// the analysis proved or ran every input (check.IntegerDomain).
	Integers *IntegerCell `json:"integers,omitempty"`
}

// IntegerCell is a cell's widest integer domain: every input whose
// components are integers of magnitude at most 2^Width is right, with
// the evidence Level (Width −1: none, Level empty).
type IntegerCell struct {
	Width int         `json:"width"`
	Level check.Level `json:"level,omitempty"`
}

// integers is the widest integer domain of the row's checked lengths
// (nil: none searched).
func (row *Row) integers() *check.IntegerDomain {
	for _, lr := range row.Checked {
		if lr.Integers != nil {
			return lr.Integers
		}
	}
	return nil
}

// Cells lists the cells of reps, in their order.
func Cells(reps []*Report) []Cell {
	var cells []Cell
	for _, rep := range reps {
		for k := range rep.Rows {
			row := &rep.Rows[k]
			ev, why := cellEvidence(row)
			cell := Cell{Recipe: rep.Recipe, Weighting: rep.Weighting, Precision: row.Precision, Limit: row.Limit, Evidence: ev, Reason: why}
			if d := row.integers(); d != nil {
				cell.Integers = &IntegerCell{Width: d.Width, Level: d.Level}
			}
			cells = append(cells, cell)
		}
	}
	return cells
}

// CoverageOf tallies cells.
func CoverageOf(cells []Cell) Coverage {
	c := Coverage{Cells: len(cells), Evidence: map[Evidence]int{}, Reasons: map[Evidence][]ReasonCount{}, Integers: map[check.Level]int{}}
	c.Sections = sectionRows(cells)
	reasons := map[Evidence]map[string]int{}
	for _, cell := range cells {
		c.Evidence[cell.Evidence]++
		if d := cell.Integers; d != nil && d.Width >= 0 {
			c.Integers[d.Level]++
		}
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
	if n := c.Integers[check.Certified] + c.Integers[check.Faithful] + c.Integers[check.Exhaustive]; n > 0 {
		fmt.Fprintf(&b, "\nOf the cells that fail on the format's values, %d are right on every input of integer components up to some 2^w, the widest such domain (`integers` in a report): %d certified, %d proved faithful to the construction, %d every input run.\n",
			n, c.Integers[check.Certified], c.Integers[check.Faithful], c.Integers[check.Exhaustive])
	}
	if len(c.Sections) > 0 {
		fmt.Fprintf(&b, "\nEach section's strongest cell at %s: the recipe, its limit and evidence (over the format's values), or, where every cell of the section fails there, its widest integer domain ℤ ≤ 2^w.\n\n| section | %s |\n|---|%s\n",
			strings.Join(SectionPrecisions, ", "), strings.Join(SectionPrecisions, " | "), strings.Repeat("---|", len(SectionPrecisions)))
		for _, sr := range c.Sections {
			fmt.Fprintf(&b, "| %s |", sr.Section)
			for _, cell := range sr.Best {
				fmt.Fprintf(&b, " %s |", cell.bestText())
			}
			b.WriteString("\n")
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// sectionRows is the strongest cell of each section at each of
// SectionPrecisions, the sections in the recipes' order (cells of no
// known recipe are left out).
func sectionRows(cells []Cell) []SectionRow {
	var rows []SectionRow
	at := map[string]int{}
	for k := range cells {
		cell := &cells[k]
		col := slices.Index(SectionPrecisions, cell.Precision)
		r, err := recipes.Get(cell.Recipe)
		if col < 0 || err != nil {
			continue
		}
		i, ok := at[r.Section]
		if !ok {
			i = len(rows)
			at[r.Section] = i
			rows = append(rows, SectionRow{Section: r.Section, Best: make([]*Cell, len(SectionPrecisions))})
		}
		if best := rows[i].Best[col]; best == nil || cell.stronger(best) {
			rows[i].Best[col] = cell
		}
	}
	return rows
}

// class ranks what a cell establishes: every input of every length up
// to its limit proved or run over the format's values (3), an integer
// domain (2), sampled (1), failing or not running (0).
func (c *Cell) class() int {
	switch c.Evidence {
	case EvidenceCertified, EvidenceExhaustive, EvidenceFaithful:
		return 3
	}
	if d := c.Integers; d != nil && d.Width >= 0 {
		return 2
	}
	if c.Evidence == EvidenceSampled || c.Evidence == EvidenceCheckedOnly {
		return 1
	}
	return 0
}

// againstIntent says the cell's evidence is against the intended
// function (certified, or every input run), not the construction only.
func (c *Cell) againstIntent() bool {
	if c.class() == 2 {
		return c.Integers.Level != check.Faithful
	}
	return c.Evidence == EvidenceCertified || c.Evidence == EvidenceExhaustive
}

// stronger orders cells by class, then the longer limit (the wider
// integer domain), then evidence against the intended function above
// the construction only, then the recipe's name.
func (c *Cell) stronger(d *Cell) bool {
	if a, b := c.class(), d.class(); a != b {
		return a > b
	}
	if c.class() == 2 && c.Integers.Width != d.Integers.Width {
		return c.Integers.Width > d.Integers.Width
	}
	if c.class() != 2 && c.Limit != d.Limit {
		return c.Limit > d.Limit
	}
	if a, b := c.againstIntent(), d.againstIntent(); a != b {
		return a
	}
	return c.Recipe < d.Recipe
}

// bestText is a cell as the table by section shows it: the recipe and
// its limit with its mark ("lookup-onehot ≥ 64ᶠ" where the limit is the
// largest length checked), or its integer domain ("add ℤ ≤ 2^10ᶜ"), or
// its evidence.
func (c *Cell) bestText() string {
	if c == nil {
		return "—"
	}
	mark := map[Evidence]string{EvidenceCertified: "ᶜ", EvidenceFaithful: "ᶠ", EvidenceExhaustive: "ᵉ"}
	switch c.class() {
	case 3:
		return fmt.Sprintf("%s %d%s", c.Recipe, c.Limit, mark[c.Evidence])
	case 2:
		return fmt.Sprintf("%s ℤ ≤ 2^%d%s", c.Recipe, c.Integers.Width, LevelMark(c.Integers.Level))
	}
	return fmt.Sprintf("%s: %s", c.Recipe, c.Evidence)
}

// percent is 100·a/b rounded down, as text ("0%" when b is 0).
func percent(a, b int) string {
	if b == 0 {
		return "0%"
	}
	return fmt.Sprintf("%d%%", 100*a/b)
}
