package certify

import (
	"fmt"
	"sort"
)

// candidates marks the items that can be a maximum under the order cmp:
// those whose score reaches the largest of the other positions' smallest
// scores. items come grouped by position.
func candidates[T any](items []scored[T], cmp func(x, y *scored[T]) int) []bool {
	// top1 and top2: the two largest of the positions' smallest scores,
	// at two different positions.
	var top1, top2 *scored[T]
	for g := 0; g < len(items); {
		m := &items[g]
		e := g + 1
		for ; e < len(items) && items[e].pos == items[g].pos; e++ {
			if cmp(&items[e], m) < 0 {
				m = &items[e]
			}
		}
		switch {
		case top1 == nil || cmp(m, top1) > 0:
			top2, top1 = top1, m
		case top2 == nil || cmp(m, top2) > 0:
			top2 = m
		}
		g = e
	}
	cand := make([]bool, len(items))
	for x := range items {
		thr := top1
		if top1 != nil && top1.pos == items[x].pos {
			thr = top2
		}
		cand[x] = thr == nil || cmp(&items[x], thr) >= 0
	}
	return cand
}

// marked lists the indices x where marks[x] is set.
func marked(marks []bool) []int {
	var xs []int
	for x, m := range marks {
		if m {
			xs = append(xs, x)
		}
	}
	return xs
}

// orderKept reports whether the model keeps the exact order between every
// candidate and every item at another position (checkOrder). With few
// candidates (a unique maximum, as hard attention is mostly used) each is
// compared with every item; with many (a uniform average), the items are
// sorted once.
func (a *analysis[T]) orderKept(h *head[T], items []scored[T], cand []bool, qw witness, i int) (kept, sorted bool) {
	var cs []int
	for x, c := range cand {
		if !c {
			continue
		}
		dup := false
		for _, y := range cs {
			if items[y].pos == items[x].pos && items[y].kid == items[x].kid {
				dup = true // the same key at the same position: the same scores
				break
			}
		}
		if !dup {
			cs = append(cs, x)
		}
		if len(cs) > maxLinear {
			break
		}
	}
	if len(cs) > maxLinear {
		perm := make([]int, len(items))
		for x := range perm {
			perm[x] = x
		}
		sort.SliceStable(perm, func(x, y int) bool { return cmpExact(&items[perm[x]], &items[perm[y]]) < 0 })
		sorted, sortedCand := make([]scored[T], len(items)), make([]bool, len(items))
		for x, p := range perm {
			sorted[x], sortedCand[x] = items[p], cand[p]
		}
		return a.checkOrder(h, sorted, sortedCand, qw, i), true
	}
	b := a.backend
	for _, x := range cs {
		c := &items[x]
		// The violations nearest c in exact score make the clearest
		// report: the lookup's keys n − 1 and n.
		var lower, upper, tie *scored[T]
		for y := range items {
			it := &items[y]
			if it.pos == c.pos {
				continue
			}
			switch e, m := cmpExact(it, c), b.Cmp(it.checked, c.checked); {
			case e < 0 && m != -1:
				if lower == nil || cmpExact(it, lower) > 0 {
					lower = it
				}
			case e > 0 && m != 1:
				if upper == nil || cmpExact(it, upper) < 0 {
					upper = it
				}
			case e == 0 && m != 0 && tie == nil:
				tie = it
			}
		}
		switch {
		case lower != nil:
			a.broken(h, qw, i, lower, c, "order")
		case upper != nil:
			a.broken(h, qw, i, c, upper, "order")
		case tie != nil:
			a.broken(h, qw, i, c, tie, "tie")
		default:
			continue
		}
		return false, false
	}
	return true, false
}

// maxLinear is the most distinct candidates orderKept compares with every
// item rather than sorting.
const maxLinear = 8

// ranked is the item of largest (or smallest) model score among some
// items, and the best at another position.
type ranked[T any] struct {
	first, second *scored[T]
}

// add keeps the best two at different positions; better says whether x
// ranks above y.
func (r *ranked[T]) add(it *scored[T], better func(x, y T) bool) {
	switch {
	case r.first == nil || better(it.checked, r.first.checked):
		if r.first != nil && r.first.pos != it.pos {
			r.second = r.first
		}
		r.first = it
	case it.pos != r.first.pos && (r.second == nil || better(it.checked, r.second.checked)):
		r.second = it
	}
}

// other is the best item at a position other than pos (nil: none).
func (r *ranked[T]) other(pos int) *scored[T] {
	if r.first != nil && r.first.pos != pos {
		return r.first
	}
	return r.second
}

// checkOrder reports whether the model keeps the exact order between
// every candidate and every item at another position: lower stays lower,
// higher higher, a tie a tie. items are sorted by exact score. A broken
// order between keys whose values differ is recorded as a break, whose
// witness gives inputs to try.
func (a *analysis[T]) checkOrder(h *head[T], items []scored[T], cand []bool, qw witness, i int) bool {
	b := a.backend
	above := func(x, y T) bool { return b.Cmp(x, y) == 1 }
	below := func(x, y T) bool { return b.Cmp(x, y) == -1 }
	var groups [][2]int
	for g := 0; g < len(items); {
		e := g
		for e < len(items) && cmpExact(&items[e], &items[g]) == 0 {
			e++
		}
		groups = append(groups, [2]int{g, e})
		g = e
	}
	// prev[k]: the largest model scores of the groups before k; next[k]:
	// the smallest of the groups after k.
	prev := make([]ranked[T], len(groups))
	next := make([]ranked[T], len(groups))
	for k := 1; k < len(groups); k++ {
		prev[k] = prev[k-1]
		for x := groups[k-1][0]; x < groups[k-1][1]; x++ {
			prev[k].add(&items[x], above)
		}
	}
	for k := len(groups) - 2; k >= 0; k-- {
		next[k] = next[k+1]
		for x := groups[k+1][0]; x < groups[k+1][1]; x++ {
			next[k].add(&items[x], below)
		}
	}
	for k, g := range groups {
		// A tie stays a tie when the group's largest and smallest model
		// scores at positions other than a candidate's equal its own; a
		// NaN, which no order ranks, sends the group to the pairwise
		// comparison.
		var hi, lo ranked[T]
		nan := false
		for y := g[0]; y < g[1]; y++ {
			hi.add(&items[y], above)
			lo.add(&items[y], below)
			nan = nan || b.Cmp(items[y].checked, items[y].checked) != 0
		}
		for x := g[0]; x < g[1]; x++ {
			if !cand[x] {
				continue
			}
			it := &items[x]
			if p := prev[k].other(it.pos); p != nil && b.Cmp(p.checked, it.checked) != -1 {
				a.broken(h, qw, i, p, it, "order")
				return false
			}
			if q := next[k].other(it.pos); q != nil && b.Cmp(q.checked, it.checked) != 1 {
				a.broken(h, qw, i, it, q, "order")
				return false
			}
			if !nan {
				for _, y := range []*scored[T]{hi.other(it.pos), lo.other(it.pos)} {
					if y != nil && b.Cmp(y.checked, it.checked) != 0 {
						a.broken(h, qw, i, it, y, "tie")
						return false
					}
				}
				continue
			}
			for y := g[0]; y < g[1]; y++ {
				if items[y].pos != it.pos && b.Cmp(items[y].checked, it.checked) != 0 {
					a.broken(h, qw, i, it, &items[y], "tie")
					return false
				}
			}
		}
	}
	return true
}

// broken records the broken order between items x and y at query
// position i, with the witness of two items at their positions with their
// keys and different values, joined to the query's witness qw where they
// agree with it, else alone (qw is one input of the query's class, and the
// key at the query's own position may be another's: a candidate only,
// which the checker runs); none when their values agree.
func (a *analysis[T]) broken(h *head[T], qw witness, i int, x, y *scored[T], what string) {
	where := fmt.Sprintf("layer %d attention, head %d", h.layer+1, h.num+1)
	detail := fmt.Sprintf("at position %d, keys at positions %d and %d: exact scores %s and %s, %s computes %s and %s",
		i, x.pos, y.pos, x.rat().RatString(), y.rat().RatString(), a.input.Precision, a.backend.Format(x.checked), a.backend.Format(y.checked))
	if what == "tie" {
		detail = "an exact tie broken: " + detail
	} else {
		detail = "the exact order lost: " + detail
	}
	// The pairs of items there with different values: a witness joined
	// to the query's preferred, the pair's alone else.
	differ := false
	var alone witness
	for _, xi := range h.items[x.pos-1] {
		if xi.kid != x.kid {
			continue
		}
		for _, yi := range h.items[y.pos-1] {
			if yi.kid != y.kid || yi.vid == xi.vid {
				continue
			}
			differ = true
			pair := union(xi.w, yi.w)
			if w := union(qw, pair); w.known {
				a.record(&a.res.Breaks, where, detail, w)
				return
			}
			if !alone.known {
				alone = pair
			}
		}
	}
	if alone.known {
		a.record(&a.res.Breaks, where, detail, alone)
		return
	}
	if differ {
		a.record(&a.res.Breaks, where, detail, witness{})
		return
	}
	a.record(&a.res.Breaks, where, detail+" (the values there agree)", witness{})
}
