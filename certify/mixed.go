package certify

import (
	"fmt"
	"math/big"
	"slices"
	"strconv"

	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/numeric"
)

// Average hardmax over tie sets that hold several values (the package
// doc's "Ties of several values" gives the argument).

// tieFact is one composition of a tie set: counts[k] positions holding
// value vids[k] (increasing ids), all of one maximal score, and the
// head's outputs over them (ids in head.outs): one where the order of
// the values along the positions does not change the model's sum
// (countOnly), else one for each order (orderedOutputs).
type tieFact struct {
	vids, counts []int
	outs         []int
}

// maxCompositions bounds the compositions the analysis follows at one
// query.
const maxCompositions = 1 << 12

// mixedTies reports whether, under average hardmax, some candidate's
// exact score is held by items at two positions or more with two values
// or more: then two positions of that score hold different values (of
// items (p, v) and (p', v) at two positions, and (r, w) with w ≠ v, one
// of p and p' differs from r), and the mean depends on the input.
func (a *analysis[T]) mixedTies(h *head[T], items []scored[T], candR []bool) bool {
	if h.spec.Weighting != model.AverageHardmax {
		return false
	}
	for _, r := range levels(items, candR) {
		pos, vid := -1, -1
		manyPos, manyVid := false, false
		for y := range items {
			it := &items[y]
			if cmpExact(it, &items[r]) != 0 {
				continue
			}
			manyPos = manyPos || pos >= 0 && it.pos != pos
			manyVid = manyVid || vid >= 0 && it.vid != vid
			pos, vid = it.pos, it.vid
		}
		if manyPos && manyVid {
			return true
		}
	}
	return false
}

// levels lists one candidate (an index in items) of each distinct exact
// score among the candidates.
func levels[T any](items []scored[T], candR []bool) []int {
	var reps []int
	for x, c := range candR {
		if !c {
			continue
		}
		dup := false
		for _, r := range reps {
			if cmpExact(&items[r], &items[x]) == 0 {
				dup = true
				break
			}
		}
		if !dup {
			reps = append(reps, x)
		}
	}
	return reps
}

// option is what one visible position can contribute to a tie at one
// level: one of the values vids (an item of the level's score), or
// nothing (out: an item below it).
type option struct {
	vids []int
	out  bool
}

// mixedOutputs lists the outputs at a query at position i whose order the
// model keeps, under average hardmax: for each exact score of a
// candidate (a level), every composition of a tie set at it (how many
// positions hold each value) that the positions allow, and the mean of
// the values over it in both models. The order kept, both models select
// the same positions on every input: the same composition.
func (a *analysis[T]) mixedOutputs(h *head[T], items []scored[T], candR []bool, i int) ([]int, []tieFact, string) {
	where := fmt.Sprintf("layer %d attention, head %d: at position %d", h.layer+1, h.num+1, i)
	if a.input.Precision.Kind == numeric.KindInterval {
		return nil, nil, where + ", keys tie with different values: average hardmax averages a set that depends on the input (the count-only argument is for exact and rounding formats, not enclosures)"
	}
	var seen outSet
	var outs []int
	var facts []tieFact
	done := map[string]bool{}
	for _, r := range levels(items, candR) {
		opts, ok := levelOptions(items, r)
		if why := a.charge(len(items)); why != "" {
			return nil, nil, why
		}
		if !ok {
			continue // some position scores above the level throughout
		}
		classes := classesOf(opts)
		comps, why := compositions(opts, classes, a.charge)
		if why != "" {
			return nil, nil, where + why
		}
		var ordered []tieFact // the compositions whose order matters
		for _, cnt := range comps {
			f := tieFact{}
			for k, m := range cnt {
				if m > 0 {
					f.vids, f.counts = append(f.vids, classes[k]), append(f.counts, m)
				}
			}
			key := fmt.Sprint(f.vids, f.counts)
			if done[key] {
				continue
			}
			done[key] = true
			if a.input.Precision.Kind != numeric.KindExact && !countOnly(a.backend, func(v int) []T { return h.vals.pairs[v].checked }, f) {
				ordered = append(ordered, f)
				continue
			}
			o, why := a.composed(h, &items[r], f)
			if why != "" {
				return nil, nil, why
			}
			f.outs = []int{o}
			facts = append(facts, f)
			outs = seen.add(outs, o)
		}
		fs, why := a.orderedOutputs(h, &items[r], ordered)
		if why != "" {
			return nil, nil, where + why
		}
		for _, f := range fs {
			for _, o := range f.outs {
				outs = seen.add(outs, o)
			}
		}
		facts = append(facts, fs...)
	}
	return outs, facts, ""
}

// levelOptions is each visible position's option at the level of item
// r's exact score; ok is false when some position holds no item at or
// below it (the level is then never the maximum).
func levelOptions[T any](items []scored[T], r int) (opts []option, ok bool) {
	lvl := &items[r]
	for g := 0; g < len(items); {
		e := g
		var o option
		for ; e < len(items) && items[e].pos == items[g].pos; e++ {
			switch c := cmpExact(&items[e], lvl); {
			case c < 0:
				o.out = true
			case c == 0 && !slices.Contains(o.vids, items[e].vid):
				o.vids = append(o.vids, items[e].vid)
			}
		}
		if len(o.vids) == 0 && !o.out {
			return nil, false
		}
		slices.Sort(o.vids)
		opts = append(opts, o)
		g = e
	}
	return opts, true
}

// classesOf is the values the options can contribute, increasing.
func classesOf(opts []option) []int {
	var cs []int
	for _, o := range opts {
		for _, v := range o.vids {
			if !slices.Contains(cs, v) {
				cs = append(cs, v)
			}
		}
	}
	slices.Sort(cs)
	return cs
}

// countOnly reports whether, at every component, the model's values of
// composition f take at most one nonzero number: then the rounded sum is
// the same number in every order (the package doc), and one order
// computes it.
func countOnly[T any](b numeric.Backend[T], vals func(v int) []T, f tieFact) bool {
	for c := range vals(f.vids[0]) {
		var nz T
		have := false
		for _, v := range f.vids {
			x := vals(v)[c]
			if b.Sign(x) == numeric.Equal {
				continue
			}
			if have && b.Cmp(x, nz) != numeric.Equal {
				return false
			}
			nz, have = x, true
		}
	}
	return true
}

// term is the model's vector of products fl(α·v) of value vid by the
// weight α of one of m tied positions: HeadOutput over the value
// followed by m − 1 zero vectors (each adding ±0, which leaves every
// component's value).
func (a *analysis[T]) term(h *head[T], lvl *scored[T], vid, m int) ([]T, string) {
	key := [2]int{vid, m}
	if t, ok := h.terms[key]; ok {
		return t, ""
	}
	v := h.vals.pairs[vid].checked
	zero := make([]T, len(v))
	for c := range zero {
		zero[c] = a.backend.New()
	}
	scM, valM := make([]T, m), make([][]T, m)
	for k := range scM {
		scM[k], valM[k] = lvl.checked, zero
	}
	valM[0] = v
	if why := a.charge(m * len(v)); why != "" {
		return nil, why
	}
	t, err := a.checked.Steps().HeadOutput(h.layer, h.num, scM, valM)
	if err != nil {
		return nil, fmt.Sprintf("layer %d head %d's output in the model: %v", h.layer+1, h.num+1, err)
	}
	if h.terms == nil {
		h.terms = map[[2]int][]T{}
	}
	h.terms[key] = t
	return t, ""
}

// compositions lists the nonzero count vectors (over classes) of tie sets
// the options allow: positions with the same option are interchangeable,
// so each group of g of them contributes every vector over its values of
// sum g (g − o with o of them out, where out is allowed), and the vectors
// of the groups are added in every combination.
func compositions(opts []option, classes []int, charge func(int) string) ([][]int, string) {
	type group struct {
		o option
		g int
	}
	var groups []group
	for _, o := range opts {
		found := false
		for x := range groups {
			if groups[x].o.out == o.out && slices.Equal(groups[x].o.vids, o.vids) {
				groups[x].g++
				found = true
				break
			}
		}
		if !found {
			groups = append(groups, group{o, 1})
		}
	}
	index := map[int]int{}
	for k, v := range classes {
		index[v] = k
	}
	set := map[string][]int{string(encodeCounts(make([]int, len(classes)))): make([]int, len(classes))}
	for _, gr := range groups {
		idx := make([]int, len(gr.o.vids))
		for k, v := range gr.o.vids {
			idx[k] = index[v]
		}
		next := map[string][]int{}
		// Each base with each of the group's vectors: charged first, and
		// bounded, since most sums may repeat ones met before.
		if len(set)*groupVectors(len(idx), gr.g) > 16*maxCompositions {
			return nil, fmt.Sprintf(", the tie sets have more than %d compositions of values, more than the analysis follows", maxCompositions)
		}
		if why := charge(len(set) * groupVectors(len(idx), gr.g) * max(1, len(classes))); why != "" {
			return nil, why
		}
		for _, base := range set {
			least := gr.g
			if gr.o.out {
				least = 0
			}
			for total := least; total <= gr.g; total++ {
				if !spread(base, idx, 0, total, next) {
					return nil, fmt.Sprintf(", the tie sets have more than %d compositions of values, more than the analysis follows", maxCompositions)
				}
			}
		}
		set = next
	}
	var out [][]int
	for _, cnt := range set {
		s := 0
		for _, m := range cnt {
			s += m
		}
		if s > 0 {
			out = append(out, cnt)
		}
	}
	slices.SortFunc(out, slices.Compare)
	return out, ""
}

// groupVectors bounds the vectors over k values summing to at most g:
// C(g + k, k), capped at 1 << 30.
func groupVectors(k, g int) int {
	c := 1
	for x := 1; x <= k; x++ {
		c = c * (g + x) / x
		if c > 1<<30 {
			return 1 << 30
		}
	}
	return c
}

// spread adds to next every vector base plus counts over classes idx[k:]
// summing to total; false once next outgrows maxCompositions.
func spread(base, idx []int, k, total int, next map[string][]int) bool {
	if k == len(idx)-1 || len(idx) == 0 {
		v := slices.Clone(base)
		if len(idx) > 0 {
			v[idx[k]] += total
		} else if total > 0 {
			return true // no value here: only out
		}
		next[string(encodeCounts(v))] = v
		return len(next) <= maxCompositions
	}
	for m := 0; m <= total; m++ {
		b := slices.Clone(base)
		b[idx[k]] += m
		if !spread(b, idx, k+1, total-m, next) {
			return false
		}
	}
	return true
}

func encodeCounts(v []int) []byte {
	var buf []byte
	for _, m := range v {
		buf = strconv.AppendInt(buf, int64(m), 10)
		buf = append(buf, ',')
	}
	return buf
}

// composed is the pair of the head's outputs over a tie set of
// composition f at the score of item lvl, by the models' own HeadOutput:
// the values in increasing id, counts[k] copies of each. The reference's
// mean is exact, so the order is immaterial there; the model's rounded
// sum takes the same value in every order where countOnly holds (the
// package doc).
func (a *analysis[T]) composed(h *head[T], lvl *scored[T], f tieFact) (int, string) {
	or, why := a.refMean(h, lvl, f)
	if why != "" {
		return 0, why
	}
	var scM []T
	var valM [][]T
	for k, v := range f.vids {
		for range f.counts[k] {
			scM, valM = append(scM, lvl.checked), append(valM, h.vals.pairs[v].checked)
		}
	}
	om, err := a.checked.Steps().HeadOutput(h.layer, h.num, scM, valM)
	if err != nil {
		return 0, fmt.Sprintf("layer %d head %d's output in the model: %v", h.layer+1, h.num+1, err)
	}
	return h.outs.id(a, or, om, witness{}), ""
}

// refMean is the reference's output over a tie set of composition f at
// the score of item lvl: exact, in any order.
func (a *analysis[T]) refMean(h *head[T], lvl *scored[T], f tieFact) ([]*big.Rat, string) {
	m := 0
	for _, c := range f.counts {
		m += c
	}
	if why := a.charge(2 * m * len(h.vals.pairs[f.vids[0]].ref)); why != "" {
		return nil, why
	}
	scR, valR := make([]*big.Rat, 0, m), make([][]*big.Rat, 0, m)
	for k, v := range f.vids {
		for range f.counts[k] {
			scR, valR = append(scR, lvl.rat()), append(valR, h.vals.pairs[v].ref)
		}
	}
	or, err := a.ref.Steps().HeadOutput(h.layer, h.num, scR, valR)
	if err != nil {
		return nil, fmt.Sprintf("layer %d head %d's output in the reference: %v", h.layer+1, h.num+1, err)
	}
	return or, ""
}
