package main

import (
	"io"
	"strings"
	"unicode/utf8"
)

// lineWidth is the number of columns the tables and texts of list and
// claims fit in: a terminal of 100 columns shows them unbroken.
const lineWidth = 100

// columnGap separates the columns of a fitted table.
const columnGap = "  "

// clip returns s cut to at most n runes, ending in "…" when cut, so
// that a reader sees that there is more.
func clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	if n <= 0 {
		return ""
	}
	r := []rune(s)
	return strings.TrimRight(string(r[:n-1]), " ,;:") + "…"
}

// wrap breaks s at spaces into lines of at most width runes: the first
// begins with first, the others with indent. A relation or operator
// standing alone ("γ = 1 − 2ε") keeps its operands on its line, so that
// no line begins or ends with "=". A word longer than a line stays whole
// on a line of its own (a number cut in two would read as two), so such
// a line may be longer.
func wrap(first, indent, s string, width int) []string {
	var lines []string
	line := first
	empty := true // line holds no word yet
	for _, unit := range wrapUnits(strings.Fields(s), width-utf8.RuneCountInString(indent)) {
		switch {
		case empty:
			line += unit
		case utf8.RuneCountInString(line)+1+utf8.RuneCountInString(unit) <= width:
			line += " " + unit
		default:
			lines = append(lines, line)
			line = indent + unit
		}
		empty = false
	}
	return append(lines, strings.TrimRight(line, " "))
}

// wrapUnits joins each operator that stands alone to the words on either
// side. A chain too long for room ("a = b = c = …") breaks after its
// operators instead, so that no line begins with one.
func wrapUnits(words []string, room int) []string {
	var units []string
	for k := 0; k < len(words); {
		j := k + 1
		for j+1 < len(words) && isOperator(words[j]) && !isOperator(words[j+1]) {
			j += 2
		}
		if unit := strings.Join(words[k:j], " "); j == k+1 || utf8.RuneCountInString(unit) <= room {
			units = append(units, unit)
		} else {
			for i := k; i < j; i += 2 {
				units = append(units, strings.Join(words[i:min(i+2, j)], " "))
			}
		}
		k = j
	}
	return units
}

// isOperator reports whether a word is one relation or operator sign.
func isOperator(w string) bool {
	switch w {
	case "=", "≠", "<", "≤", ">", "≥", "∈", "∉", "≈", "+", "−", "-", "·", "×", "→", "↦", "⊆", "⊂":
		return true
	}
	return false
}

// column is one column of a fitted table: its header, and the most runes
// a cell may take (0: as many as the widest cell). A cell of the first
// column wider than max is not clipped: it takes a line of its own and
// the rest of its row goes on the next, as in the help of many commands,
// so that a few long names do not narrow every other column.
type column struct {
	header string
	max    int
}

// writeFitted prints rows as a table whose columns are as wide as their
// widest cell (at most max) and whose last column takes what is left of
// lineWidth; cells that do not fit are clipped with "…". No line ends in
// spaces.
func writeFitted(w io.Writer, cols []column, rows [][]string) error {
	widths := make([]int, len(cols))
	for c, col := range cols {
		widths[c] = utf8.RuneCountInString(col.header)
		for _, row := range rows {
			if c > 0 || col.max == 0 || utf8.RuneCountInString(row[c]) <= col.max {
				widths[c] = max(widths[c], utf8.RuneCountInString(row[c]))
			}
		}
		if col.max > 0 {
			widths[c] = min(widths[c], col.max)
		}
	}
	used := 0
	for c := range len(cols) - 1 {
		used += widths[c] + len(columnGap)
	}
	widths[len(cols)-1] = max(lineWidth-used, 1)
	var b strings.Builder
	line := func(cells []string) {
		var l strings.Builder
		for c, cell := range cells {
			cell = clip(cell, widths[c])
			l.WriteString(cell)
			if c < len(cells)-1 {
				l.WriteString(strings.Repeat(" ", widths[c]-utf8.RuneCountInString(cell)) + columnGap)
			}
		}
		b.WriteString(strings.TrimRight(l.String(), " ") + "\n")
	}
	header := make([]string, len(cols))
	for c, col := range cols {
		header[c] = col.header
	}
	line(header)
	for _, row := range rows {
		if utf8.RuneCountInString(row[0]) > widths[0] {
			b.WriteString(row[0] + "\n")
			row = append([]string{""}, row[1:]...)
		}
		line(row)
	}
	_, err := io.WriteString(w, b.String())
	return err
}
