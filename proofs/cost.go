package proofs

import (
	"cmp"
	_ "embed"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// costsText is the CPU time each claim's checker takes, measured one
// claim at a time and rounded to 1, 2 or 5 times a power of ten
// (go test ./proofs/ -run '^TestClaimCosts$' -write-costs rewrites it;
// TestClaimCosts holds it to the registry). The checkers' costs span
// four orders of magnitude, and the costliest takes an eighth of the
// whole: started last, it would run alone on one core while the others
// idle, so CheckAll starts the costliest first.
//
//go:embed costs.txt
var costsText string

// costs is costsText read; nil if it does not parse, which leaves the
// claims in their own order (TestClaimCosts fails first).
var costs, _ = parseCosts(costsText)

// parseCosts reads lines "ID MILLISECONDS" (blank lines and lines
// starting "#" aside), IDs in increasing order, each once, every cost a
// positive integer.
func parseCosts(text string) (map[string]int, error) {
	out := map[string]int{}
	last := ""
	for k, line := range strings.Split(text, "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Fields(line)
		if len(f) != 2 {
			return nil, fmt.Errorf("costs.txt:%d: want \"ID MILLISECONDS\", got %q", k+1, line)
		}
		ms, err := strconv.Atoi(f[1])
		if err != nil || ms <= 0 {
			return nil, fmt.Errorf("costs.txt:%d: cost %q is not a positive number of milliseconds", k+1, f[1])
		}
		if f[0] <= last {
			return nil, fmt.Errorf("costs.txt:%d: %s after %s: the IDs must be in increasing order, each once", k+1, f[0], last)
		}
		last = f[0]
		out[f[0]] = ms
	}
	return out, nil
}

// formatCosts writes costs (claim ID to milliseconds) as costs.txt holds
// them, sorted by ID after a header saying how to remeasure.
func formatCosts(ms map[string]int) string {
	var b strings.Builder
	b.WriteString("# CPU milliseconds each claim's checker takes, measured one claim at a time\n" +
		"# and rounded to 1, 2 or 5 times a power of ten;\n" +
		"# CheckAll starts the costliest first. Remeasure after changing a checker:\n" +
		"#   go test ./proofs/ -run '^TestClaimCosts$' -write-costs\n")
	ids := make([]string, 0, len(ms))
	for id := range ms {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, id := range ids {
		fmt.Fprintf(&b, "%s %d\n", id, ms[id])
	}
	return b.String()
}

// costliestFirst returns the indices of claims in the order to start
// their checkers: by decreasing cost, a claim the table does not know
// first (it may be long), ties in the claims' order.
func costliestFirst(claims []*Claim) []int {
	cost := func(c *Claim) int {
		if ms, ok := costs[c.ID]; ok {
			return ms
		}
		return math.MaxInt
	}
	order := make([]int, len(claims))
	for k := range order {
		order[k] = k
	}
	slices.SortStableFunc(order, func(i, j int) int { return cmp.Compare(cost(claims[j]), cost(claims[i])) })
	return order
}
