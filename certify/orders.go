package certify

import (
	"fmt"
	"slices"

	"github.com/transformer-cookbook/verify/numeric"
)

// maxOrderSums bounds the distinct partial sums orderedOutputs follows
// at one length of the prefixes.
const maxOrderSums = 1 << 12

// orderedOutputs lists, for each composition of fs (tie sets at the
// score of item lvl whose order along the positions may change the
// model's sum), its outputs over every order of its values. The model
// sums left to right, the first term fl(α·v), then fl(s + fl(α·v)) for
// each next value (eval.Steps.HeadOutput, docs/model-format.md), with α
// the weight of one of the m tied positions. So the sums over the orders
// are those of the prefixes: a prefix's count vector p holds every
// partial sum of an order of p's values, and p + e_k the sums fl(s + t_k)
// of them. The terms t_k are read off the model's HeadOutput (term); the
// prefixes followed are those below some composition of the same m.
// TestOrderedSumsAreHeadOutput holds the sums to HeadOutput over every
// order.
func (a *analysis[T]) orderedOutputs(h *head[T], lvl *scored[T], fs []tieFact) ([]tieFact, string) {
	b := a.backend
	byM := map[int][]int{}
	var ms []int
	for x, f := range fs {
		m := 0
		for _, c := range f.counts {
			m += c
		}
		if _, ok := byM[m]; !ok {
			ms = append(ms, m)
		}
		byM[m] = append(byM[m], x)
	}
	slices.Sort(ms)
	for _, m := range ms {
		// The classes of this m's compositions, and each composition's
		// count vector over them.
		var classes []int
		for _, x := range byM[m] {
			for _, v := range fs[x].vids {
				if !slices.Contains(classes, v) {
					classes = append(classes, v)
				}
			}
		}
		slices.Sort(classes)
		targets := make([][]int, len(byM[m]))
		for t, x := range byM[m] {
			targets[t] = make([]int, len(classes))
			for k, v := range fs[x].vids {
				targets[t][slices.Index(classes, v)] = fs[x].counts[k]
			}
		}
		terms := make([][]T, len(classes))
		for k, v := range classes {
			t, why := a.term(h, lvl, v, m)
			if why != "" {
				return nil, why
			}
			terms[k] = t
		}
		// A prefix is followed where it is at most some composition of
		// this m, component by component: its under lists those. The
		// compositions at least p + e_k are those at least p with
		// t[k] ≥ p[k] + 1, whichever prefix p leads to p + e_k, so each
		// prefix's list is its parent's, filtered (no search of every
		// composition for every prefix).
		layer := map[string]*prefix[T]{}
		for k := range classes {
			p := make([]int, len(classes))
			p[k] = 1
			if under := atLeast(targets, nil, k, 1); len(under) > 0 {
				layer[string(encodeCounts(p))] = &prefix[T]{counts: p, sums: [][]T{terms[k]}, under: under}
			}
		}
		for step := 1; step < m; step++ {
			next := map[string]*prefix[T]{}
			total := 0
			// In the order of the keys: the outputs are numbered as met,
			// and the deciders must number them alike.
			keys := make([]string, 0, len(layer))
			for k := range layer {
				keys = append(keys, k)
			}
			slices.Sort(keys)
			for _, pk := range keys {
				pr := layer[pk]
				for k := range classes {
					q := slices.Clone(pr.counts)
					q[k]++
					key := string(encodeCounts(q))
					nx := next[key]
					if nx == nil {
						under := atLeast(targets, pr.under, k, q[k])
						if len(under) == 0 {
							continue // below no composition of this m
						}
						nx = &prefix[T]{counts: q, seen: map[string]bool{}, under: under}
						next[key] = nx
					}
					// A sum and its key, a few units a component.
					if why := a.charge(4 * len(pr.sums) * len(terms[k])); why != "" {
						return nil, why
					}
					for _, s := range pr.sums {
						sum := make([]T, len(s))
						for c := range s {
							sum[c] = b.Add(b.New(), s[c], terms[k][c])
						}
						if nx.add(b, sum) {
							total++
						}
					}
				}
			}
			if total > maxOrderSums {
				return nil, fmt.Sprintf(", the orders of the tied values give more than %d partial sums, more than the analysis follows", maxOrderSums)
			}
			layer = next
		}
		for t, x := range byM[m] {
			pr := layer[string(encodeCounts(targets[t]))]
			or, why := a.refMean(h, lvl, fs[x])
			if why != "" {
				return nil, why
			}
			for _, s := range pr.sums {
				fs[x].outs = append(fs[x].outs, h.outs.id(a, or, s, witness{}))
			}
		}
	}
	return fs, ""
}

// prefix is the partial sums of the orders of a count vector's values.
// atLeast lists the targets among those of from (nil: every target)
// whose count k is at least c.
func atLeast(targets [][]int, from []int, k, c int) []int {
	if from == nil {
		from = make([]int, len(targets))
		for t := range from {
			from[t] = t
		}
	}
	var out []int
	for _, t := range from {
		if targets[t][k] >= c {
			out = append(out, t)
		}
	}
	return out
}

type prefix[T any] struct {
	counts []int
	sums   [][]T
	seen   map[string]bool
	under  []int // the compositions (targets) at least counts
}

// add keeps sum unless one of the same values is kept; it reports
// whether it kept it.
func (p *prefix[T]) add(b numeric.Backend[T], sum []T) bool {
	key := string(appendValues(nil, b, sum))
	if p.seen[key] {
		return false
	}
	p.seen[key] = true
	p.sums = append(p.sums, sum)
	return true
}
