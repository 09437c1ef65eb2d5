package frontier

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/transformer-cookbook/verify/check"
	"github.com/transformer-cookbook/verify/internal/plural"
)

// LimitText is a row's limit as a table shows it: "45" when a failure
// follows, "≥ 8192" when every checked length passed (up to the largest
// checked), "—" when the construction cannot run at the precision; then
// the mark of its evidence (LevelMark), and "*" where that evidence holds
// of the checked lengths only, not of every length up to the limit.
func (row *Row) LimitText() string {
	switch {
	case row.Error != "":
		return "—"
	case row.Failure == nil && len(row.Checked) > 0:
		return fmt.Sprintf("≥ %d%s", row.Checked[len(row.Checked)-1].N, row.mark())
	case row.Failure == nil:
		return "?"
	}
	return fmt.Sprint(row.Limit) + row.mark()
}

// mark is the mark of the row's limit: its level's, and "*" where every
// length up to it is not covered (a proof at the checked lengths only).
func (row *Row) mark() string {
	m := LevelMark(row.LimitLevel)
	if row.checkedOnly() {
		m += "*"
	}
	return m
}

// IntegerText is a failing position-wise row's widest integer domain,
// "ℤ ≤ 2^10ᶜ" ("" where none was searched or none holds).
func (row *Row) IntegerText() string {
	d := row.integers()
	if d == nil || d.Width < 0 {
		return ""
	}
	return fmt.Sprintf("ℤ ≤ 2^%d%s", d.Width, LevelMark(d.Level))
}

// DecisionText is the length up to which every output decides right, when
// it goes beyond the exact limit ("" otherwise): "≥ 64ˢ" or "41ᶠ".
func (row *Row) DecisionText() string {
	if row.Error != "" || row.Failure == nil || row.DecisionLimit <= row.Limit {
		return ""
	}
	if len(row.Checked) > 0 && row.DecisionLimit == row.Checked[len(row.Checked)-1].N {
		return fmt.Sprintf("≥ %d%s", row.DecisionLimit, LevelMark(row.DecisionLevel))
	}
	return fmt.Sprint(row.DecisionLimit) + LevelMark(row.DecisionLevel)
}

// LevelMark marks a limit with its evidence: ᶜ certified (every input of
// every length up to it right against the intended function: proved
// faithful to a construction a claim proves, or run), ᶠ faithful (every
// input computes what the construction computes, proved; the
// construction itself right on the inputs run), ᵉ every input run, ˢ
// sampled (some lengths rest on a few seeded inputs). LevelLegend
// explains them.
func LevelMark(level check.Level) string {
	switch level {
	case check.Certified:
		return "ᶜ"
	case check.Faithful:
		return "ᶠ"
	case check.Exhaustive:
		return "ᵉ"
	case check.Sampled:
		return "ˢ"
	}
	return ""
}

// LevelLegend is the line under a table of marked limits.
const LevelLegend = "evidence up to each limit: ᶜ every input right against the intended function (proved, or run), ᶠ every input computes exactly what the construction computes (proved by the analysis; the construction itself right on the inputs run), ᵉ every input run, ˢ sampled (a few seeded inputs at some length); * at the checked lengths only (not every length up to the limit); a → b: exact up to a, every output decides right (nearer the right value) up to b"

// IntegerLegend ends the legend of a table with an integer domain in it.
const IntegerLegend = "; ℤ ≤ 2^w: failing on the format's values, every input of integer components up to 2^w right"

// Tally counts the cells of reports by the evidence of their limits:
// what a table of many recipes says in one line.
func Tally(reps []*Report) string {
	counts := map[string]int{}
	cells := 0
	for _, rep := range reps {
		for _, row := range rep.Rows {
			cells++
			switch {
			case strings.HasPrefix(row.Error, "not applicable"):
				counts["not applicable"]++
			case row.Error != "":
				counts["cannot run"]++
			case row.Failure != nil && row.Limit == 0:
				counts["fail at the smallest length"]++
			case row.checkedOnly():
				counts[string(row.LimitLevel)+" at the checked lengths"]++
			default:
				counts[string(row.LimitLevel)]++
			}
		}
	}
	parts := []string{}
	// The first two counts are the ones a reader looks for: printed even
	// when 0.
	for x, k := range []struct{ key, text string }{
		{string(check.Certified), "certified against the intended function at every length up to the limit (ᶜ)"},
		{string(check.Faithful), "proved against the construction only, at every length (ᶠ)"},
		{string(check.Certified) + " at the checked lengths", "certified against the intended function at the checked lengths only (ᶜ*)"},
		{string(check.Faithful) + " at the checked lengths", "against the construction at the checked lengths only (ᶠ*)"},
		{string(check.Exhaustive), "every input run (ᵉ)"},
		{string(check.Exhaustive) + " at the checked lengths", "every input run at the checked lengths only (ᵉ*)"},
		{string(check.Sampled), "sampled (ˢ)"},
		{"fail at the smallest length", "failing at the smallest length"},
		{"not applicable", "not applicable (irrational exact values)"},
		{"cannot run", "cannot run"},
	} {
		if c := counts[k.key]; c > 0 || x < 2 {
			parts = append(parts, fmt.Sprintf("%d %s", c, k.text))
		}
	}
	return fmt.Sprintf("%s: %s", plural.Of(cells, "cell"), strings.Join(parts, ", "))
}

// WriteTable writes the limits of several reports as one aligned table,
// a row per recipe and a column per precision; a cell is the measured
// limit, with the prediction after a slash where the paper gives one.
func WriteTable(w io.Writer, reps []*Report) error {
	var precisions []string
	seen := map[string]bool{}
	for _, rep := range reps {
		for _, row := range rep.Rows {
			if !seen[row.Precision] {
				seen[row.Precision] = true
				precisions = append(precisions, row.Precision)
			}
		}
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "recipe\tweighting\tmax n\t%s\t\n", strings.Join(precisions, "\t"))
	integers := false
	for _, rep := range reps {
		cells := make([]string, len(precisions))
		for k, p := range precisions {
			cells[k] = ""
			for _, row := range rep.Rows {
				if row.Precision == p {
					cells[k] = row.LimitText()
					if d := row.DecisionText(); d != "" {
						cells[k] += " → " + d
					}
					if t := row.IntegerText(); t != "" {
						cells[k] += " " + t
						integers = true
					}
					if row.Prediction != nil && row.Prediction.Limit > 0 {
						cells[k] += fmt.Sprintf(" / %d", row.Prediction.Limit)
					}
				}
			}
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t\n", rep.Recipe, rep.Weighting, rep.MaxN, strings.Join(cells, "\t"))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	legend := LevelLegend
	if integers {
		legend += IntegerLegend
	}
	if _, err := fmt.Fprintln(w, legend); err != nil {
		return err
	}
	_, err := fmt.Fprintln(w, Tally(reps))
	return err
}

// WriteText writes one report: a line per precision with the measured
// limit, the first failure and its cause, the prediction, and the
// lengths checked.
func WriteText(w io.Writer, rep *Report) error {
	writeTitle(w, rep)
	if rep.Shard != "" {
		fmt.Fprintf(w, ", phase %d, shard %s\n", rep.Phase, rep.Shard)
		return writeShard(w, rep)
	}
	fmt.Fprintln(w)
	if rep.Interrupted {
		fmt.Fprintln(w, "INTERRUPTED: the rows hold the lengths checked before the interrupt, no more")
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "precision\tlimit\tdecides to\tfirst failure\tcause\tpredicted\tlengths checked")
	for k := range rep.Rows {
		fmt.Fprintln(tw, rowLine(&rep.Rows[k]))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(w, LevelLegend)
	if rep.Reference != "" {
		fmt.Fprintf(w, "ᶠ here: every input computes what %s computes, each output within its claimed bound\n", rep.Reference)
	}
	for k := range rep.Rows {
		writeRowDetail(w, rep, &rep.Rows[k])
	}
	return nil
}

// writeTitle writes the report's first line, without its end: a shard
// adds its phase.
func writeTitle(w io.Writer, rep *Report) {
	if rep.Model != "" {
		fmt.Fprintf(w, "model %s against %s", rep.Model, rep.Recipe)
	} else {
		fmt.Fprint(w, rep.Recipe)
	}
	fmt.Fprintf(w, " (§%s), %s, lengths up to %d, seed %d", rep.Section, rep.Weighting, rep.MaxN, rep.Seed)
	if len(rep.Params) > 0 {
		var ps []string
		for k, v := range rep.Params {
			ps = append(ps, k+"="+v)
		}
		fmt.Fprintf(w, ", %s", strings.Join(slices.Sorted(slices.Values(ps)), " "))
	}
}

// rowLine is a row's line of the table, its cells separated by tabs.
func rowLine(row *Row) string {
	fail, cause, pred := "—", "", "—"
	if row.Failure != nil {
		fail = fmt.Sprintf("n = %d", row.Failure.N)
		if row.Failure.Undecided {
			// Not a failure: no input refuted, one left undecided.
			fail = fmt.Sprintf("n = %d undecided", row.Failure.N)
		}
		if row.Failure.Cause != nil {
			cause = string(row.Failure.Cause.Kind)
		}
	}
	if row.Error != "" {
		fail = "cannot run"
		if strings.HasPrefix(row.Error, "not applicable") {
			fail = "n/a"
		}
	}
	if p := row.Prediction; p != nil {
		pred = fmt.Sprint(p.Limit)
		if p.Limit == 0 {
			pred = "none ≤ max n"
		}
	}
	decides := row.DecisionText()
	if decides == "" {
		decides = "—"
	}
	return fmt.Sprintf("%s\t%s\t%s\t%s\t%s\t%s\t%s", row.Precision, row.LimitText(), decides, fail, cause, pred, checkedText(row))
}

// writeRowDetail writes what the table has no room for of a row: why it
// cannot run, or its first failure, prediction and analysis of every
// length.
func writeRowDetail(w io.Writer, rep *Report, row *Row) {
	// Each line names its recipe: a run of several recipes prints
	// their failures one after another.
	cell := row.Precision
	if rep.Recipe != "" {
		cell = rep.Recipe + ", " + row.Precision
	}
	if row.Error != "" {
		fmt.Fprintf(w, "%s: %s\n", cell, row.Error)
		return
	}
	if row.Failure != nil {
		writeFailure(w, rep, row, cell)
	}
	if p := row.Prediction; p != nil {
		if row.Failure == nil {
			fmt.Fprintf(w, "%s: every checked length passed\n", cell)
		}
		fmt.Fprintf(w, "  predicted (gap %s at magnitude %s): %s\n", p.Gap, p.Magnitude, p.Why)
	}
	if t := positionwiseText(row); t != "" {
		fmt.Fprintf(w, "%s: %s\n", cell, t)
	} else if t := everyText(row, rep.Seed, rep.Reference); t != "" {
		fmt.Fprintf(w, "%s: %s\n", cell, t)
	}
}

// positionwiseText is what the position-wise analysis concluded of a
// row's one position, which holds at every length: what it proved or ran
// and over which domain, or how it failed or why it stopped ("" where it
// did not run).
func positionwiseText(row *Row) string {
	for _, lr := range row.Checked {
		if lr.Positionwise == "" {
			continue
		}
		s := string(lr.Level) + " at every length: " + lr.Positionwise
		switch {
		case lr.Proof != "":
			s += "; the construction itself proved on its domain by claim " + lr.Proof
		case lr.Level == check.Faithful:
			s += "; that the construction itself is right there rests on the inputs run"
		}
		return s
	}
	for _, lr := range row.Checked {
		if strings.HasPrefix(lr.Analysis, check.PositionwisePrefix) {
			return lr.Analysis
		}
	}
	return ""
}

// writeFailure writes a row's first failure: the input, what went wrong
// and why, and the lengths around it.
func writeFailure(w io.Writer, rep *Report, row *Row, cell string) {
	f := row.Failure
	what := "first failure"
	if f.Undecided {
		// Nothing refuted: the limit stops at an input not confirmed.
		what = "first undecided input (none refuted)"
	}
	fmt.Fprintf(w, "%s: %s at n = %d, position %d (input index %d of that length, seed %d)\n", cell, what, f.N, f.Position, f.Case, rep.Seed)
	fmt.Fprintf(w, "  input     %s\n", shorten(f.Input, 120))
	if f.Found == "analysis" {
		fmt.Fprintf(w, "  found by  the analysis (an order of scores %s breaks), not by chance\n", row.Precision)
	}
	if f.Found == check.FoundPositionwise {
		fmt.Fprintf(w, "  found by  the position-wise analysis of every %s input of one position, not by chance: every length holds it at a position\n", row.Precision)
	}
	if len(f.Expected) > 0 {
		fmt.Fprintf(w, "  expected  %s\n  actual    %s\n", strings.Join(f.Expected, ", "), strings.Join(f.Actual, ", "))
	}
	fmt.Fprintf(w, "  reason    %s\n", f.Reason)
	if c := f.Cause; c != nil {
		fmt.Fprintf(w, "  cause     %s: %s", c.Kind, c.Detail)
		if c.Where != "" {
			fmt.Fprintf(w, " (%s)", c.Where)
		}
		fmt.Fprintln(w)
	}
	var ns []int
	for _, lr := range row.Checked {
		ns = append(ns, lr.N)
	}
	fmt.Fprintf(w, "  checked   n = %s\n", joinInts(ns))
	if len(row.PassesAgain) > 0 {
		fmt.Fprintf(w, "  not monotone: passes again at n = %s\n", joinInts(row.PassesAgain))
	}
	writeDecisions(w, row)
	if d := row.integers(); d != nil {
		fmt.Fprintf(w, "  integers  %s\n", integerLine(d))
	}
}

// integerLine is an integer domain's evidence and statement.
func integerLine(d *check.IntegerDomain) string {
	if d.Level == "" {
		return d.Statement
	}
	return string(d.Level) + " at every length: " + d.Statement
}

// writeDecisions writes how far every output decides right, where the
// row's decisions were checked.
func writeDecisions(w io.Writer, row *Row) {
	d := row.DecisionText()
	if d == "" {
		return
	}
	if strings.HasPrefix(d, "≥") {
		fmt.Fprintf(w, "  decisions every output decides right at every checked length (%s)", levelName(row.DecisionLevel))
	} else {
		fmt.Fprintf(w, "  decisions every output decides right up to n = %s (%s)", d, levelName(row.DecisionLevel))
	}
	if _, hi := decisionBracket(row.Checked, 1); hi > 0 {
		fmt.Fprintf(w, "; one decides wrong at n = %d", hi)
	}
	fmt.Fprintln(w)
}

// everyText says what the analysis of every length found of a row, in
// the two facts a proof against the construction is: what the format
// computes, and what the construction computes ("" where it did not run).
func everyText(row *Row, seed uint64, reference string) string {
	ev := row.EveryLength
	if ev == nil || row.Limit < 1 {
		return ""
	}
	var s string
	switch {
	case row.Every && row.LimitLevel == check.Exhaustive:
		return ""
	case row.Every:
		s = fmt.Sprintf("every length %d … %d: every input %s (proved by the analysis, re-checked by its independent checker; work %d, the checker's %d)", ev.From, row.Limit, check.FaithfulClaim(reference), ev.Work, ev.CheckWork)
	case ev.Certified >= ev.From:
		to := "the construction"
		if reference != "" {
			to = reference + " (each output within its claimed bound)"
		}
		s = fmt.Sprintf("every length %d … %d proved faithful to %s; above, at the checked lengths only: %s at n = %d", ev.From, ev.Certified, to, ev.Why, ev.At)
	case row.LimitLevel == check.Sampled || row.LimitLevel == check.Exhaustive:
		return "" // nothing proved, and no proved limit to qualify
	default:
		return fmt.Sprintf("the analysis of every length did not certify n = %d: %s", ev.At, ev.Why)
	}
	if row.LimitLevel == check.Certified || ev.Level == check.Certified {
		return s + "; the construction itself: proved"
	}
	return s + "; " + check.ItselfRuns(reference) + ": " + constructionSampled(row, seed)
}

// constructionSampled says what was run of the construction up to a
// row's limit: every input of the lengths run whole, and the drawn
// inputs of the others, with the seed that drew them.
func constructionSampled(row *Row, seed uint64) string {
	var whole []int
	drawn, at := 0, 0
	for _, lr := range row.Checked {
		if lr.N > row.Limit {
			continue
		}
		if lr.Exhaustive {
			whole = append(whole, lr.N)
			continue
		}
		drawn += lr.Cases
		at++
	}
	s := fmt.Sprintf("sampled, %d inputs at %d lengths, seed %d", drawn, at, seed)
	if len(whole) > 0 {
		s += fmt.Sprintf("; every input at n = %s", joinInts(whole))
	}
	return s
}

// checkedText lists the checked lengths, compressing runs of the
// geometric sweep: "1–8, 10, 12, 15, …, 41, 45, 46, 51 (24 lengths)".
func checkedText(row *Row) string {
	var ns []int
	for _, lr := range row.Checked {
		ns = append(ns, lr.N)
	}
	if len(ns) <= 8 {
		return joinInts(ns)
	}
	return fmt.Sprintf("%s, …, %s (%d lengths)", joinInts(ns[:3]), joinInts(ns[len(ns)-3:]), len(ns))
}

func joinInts(ns []int) string {
	s := make([]string, len(ns))
	for k, n := range ns {
		s[k] = fmt.Sprint(n)
	}
	return strings.Join(s, ", ")
}

func shorten(s string, max int) string {
	if r := []rune(s); len(r) > max {
		return string(r[:max]) + fmt.Sprintf(" … (%d characters; --json has it whole)", len(r))
	}
	return s
}

// writeShard writes what a shard did, precision by precision: the lengths
// (and ranges of an exhaustive length's inputs) of phase 1, or the
// bisection and diagnosis of phase 2. Its limits mean nothing before the
// merge.
func writeShard(w io.Writer, rep *Report) error {
	if rep.Interrupted {
		fmt.Fprintln(w, "INTERRUPTED: the shard holds what was checked before the interrupt, and cannot be merged")
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	mine := 0
	for _, row := range rep.Rows {
		var what string
		switch {
		case rep.Phase == 2 && !row.Mine:
			continue
		case row.Error != "":
			what = shorten(row.Error, 100)
		case rep.Phase == 1:
			what = partsText(row.Parts)
		default:
			what = bisectedText(row)
		}
		mine++
		fmt.Fprintf(tw, "  %s\t%s\n", row.Precision, what)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if mine == 0 {
		fmt.Fprintln(w, "  no precision of this sweep is this shard's")
	}
	_, err := fmt.Fprintln(w, "'verify merge' combines the shards of both phases into the report of the whole sweep")
	return err
}

// partsText lists a phase-1 row's parts: whole lengths, then the ranges
// of the inputs of the lengths split between shards.
func partsText(parts []check.LengthPart) string {
	var whole []int
	var split []int
	ranges := map[int][]string{}
	of := map[int]int{}
	for _, p := range parts {
		if p.Exhaustive() && p.To-p.From < p.Of {
			if ranges[p.N] == nil {
				split = append(split, p.N)
			}
			ranges[p.N] = append(ranges[p.N], fmt.Sprintf("%d–%d", p.From, p.To-1))
			of[p.N] = p.Of
			continue
		}
		whole = append(whole, p.N)
	}
	var out []string
	if len(whole) > 0 {
		out = append(out, fmt.Sprintf("n = %s (%s)", joinInts(whole), plural.Of(len(whole), "length")))
	}
	for _, n := range split {
		out = append(out, fmt.Sprintf("inputs %s of the %d of n = %d", strings.Join(ranges[n], ", "), of[n], n))
	}
	if len(out) == 0 {
		return "nothing"
	}
	return strings.Join(out, "; ")
}

// bisectedText says what phase 2 did of a row.
func bisectedText(row Row) string {
	var ns []int
	for _, lr := range row.Bisected {
		ns = append(ns, lr.N)
	}
	out := "nothing to bisect"
	if len(ns) > 0 {
		out = "bisected n = " + joinInts(ns)
	}
	if f := row.Failure; f != nil {
		out += fmt.Sprintf("; first failure at n = %d", f.N)
		if f.Cause != nil {
			out += ": " + string(f.Cause.Kind)
		}
	}
	return out
}
