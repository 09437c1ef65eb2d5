package recheck

import (
	"fmt"
	"math/big"
	"slices"
	"strings"

	"github.com/transformer-cookbook/verify/numeric"
)

// maxTieSets bounds the compositions Check derives at one query.
const maxTieSets = 1 << 14

// mixed checks a fact that lists the compositions of tie sets of several
// values (average hardmax, the order kept; package doc, "Ties of several
// values") and returns the head's outputs there. Check verifies the
// candidates and the order as for any kept order, with ties of
// different values allowed, then derives the compositions itself,
// position by position, and requires the fact's to be exactly those,
// each with the output Check computes.
func (h *headCheck[T]) mixed(q State[T], lo, hi int, fact *QueryFact[T], where func() string) ([]State[T], error) {
	if !h.average || !fact.Kept {
		return nil, refuse("%s: the certificate lists tie sets where the head is not average hardmax with the order kept", where())
	}
	if h.ck.b.Precision().Kind == numeric.KindInterval {
		return nil, refuse("%s: the certificate lists tie sets of several values at an interval precision, where the count-only argument does not hold", where())
	}
	if h.sess != nil {
		delete(h.sess.verified, chainKey(h.ck, q, lo))
	}
	cands, err := h.listed(lo, hi, fact, where)
	if err != nil {
		return nil, err
	}
	sc := &h.sc
	if err := sc.score(h, q, lo, hi, where); err != nil {
		return nil, err
	}
	h.severalValues = true
	chosen, kept, err := h.held(lo, hi, cands, where)
	h.severalValues = false
	if err != nil {
		return nil, err
	}
	if !kept {
		return nil, refuse("%s: the certificate says the model keeps the exact order, but it does not", where())
	}
	derived := map[string][]State[T]{}
	var order []string
	var levels []int // a key of each exact score of a candidate
	for _, c := range chosen {
		if !slices.ContainsFunc(levels, func(k int) bool { return sc.exact(k, c.kid) == 0 }) {
			levels = append(levels, c.kid)
		}
	}
	for _, lvl := range levels {
		sets, err := h.tieSets(lo, hi, lvl, where)
		if err != nil {
			return nil, err
		}
		for _, s := range sets {
			k := s.key()
			if _, ok := derived[k]; ok {
				continue
			}
			o, err := h.meansOver(lvl, s, where)
			if err != nil {
				return nil, err
			}
			derived[k] = o
			order = append(order, k)
		}
	}
	listed := map[string]bool{}
	vals := h.g.vals[h.hd]
	for _, t := range fact.Ties {
		if len(t.Values) != len(t.Counts) || len(t.Values) == 0 {
			return nil, refuse("%s: the certificate lists a malformed tie set", where())
		}
		var s tieSet
		for x, v := range t.Values {
			vid, ok := vals.ids[h.ck.keyOf(v)]
			if !ok || t.Counts[x] <= 0 {
				return nil, refuse("%s: the certificate lists a tie set with a value no position holds", where())
			}
			s.add(vid, t.Counts[x])
		}
		k := s.key()
		o, ok := derived[k]
		if !ok {
			return nil, refuse("%s: the certificate lists the tie set %s, which the positions cannot make", where(), k)
		}
		if err := h.sameOutputs(func() string { return where() + ", tie set " + k }, t.Outputs, o); err != nil {
			return nil, err
		}
		listed[k] = true
	}
	var outs []State[T]
	seen := map[string]bool{}
	for _, k := range order {
		if !listed[k] {
			return nil, refuse("%s: the certificate omits the tie set %s, which the positions can make", where(), k)
		}
		for _, o := range derived[k] {
			if sk := h.ck.stateKey(o); !seen[sk] {
				seen[sk] = true
				outs = append(outs, o)
			}
		}
	}
	return outs, nil
}

// tieSet is a composition: counts[x] positions holding value vids[x]
// (ids, increasing).
type tieSet struct {
	vids, counts []int
}

func (s *tieSet) add(vid, m int) {
	x, found := slices.BinarySearch(s.vids, vid)
	if found {
		s.counts[x] += m
		return
	}
	s.vids, s.counts = slices.Insert(s.vids, x, vid), slices.Insert(s.counts, x, m)
}

func (s tieSet) key() string {
	var b strings.Builder
	for x, v := range s.vids {
		if s.counts[x] == 0 {
			continue
		}
		fmt.Fprintf(&b, "%d×v%d ", s.counts[x], v)
	}
	return strings.TrimSpace(b.String())
}

// tieSets derives the compositions of tie sets at the exact score of key
// lvl over positions lo … hi: each position holds, on an input, one item;
// it joins the tie with that item's value when the item's key scores
// lvl's, stays out when it scores below, and a position whose keys all
// score above makes the score never maximal (no tie set). Position by
// position, every choice of every position is added to every composition
// of the positions before (the positions are taken to hold their items
// independently, which over-approximates the inputs). Where the tied
// values take two nonzero numbers at one component in the model, the
// rounded sum depends on their order, and Check refuses.
func (h *headCheck[T]) tieSets(lo, hi, lvl int, where func() string) ([]tieSet, error) {
	sc := &h.sc
	sets := map[string]tieSet{"": {}}
	for p := lo; p <= hi; p++ {
		out := false
		var in []int
		for _, s := range h.slots[p-1] {
			switch c := sc.exact(s.kid, lvl); {
			case c < 0:
				out = true
			case c == 0:
				for _, v := range s.vids {
					if !slices.Contains(in, v) {
						in = append(in, v)
					}
				}
			}
		}
		if !out && len(in) == 0 {
			return nil, nil
		}
		next := map[string]tieSet{}
		for _, s := range sets {
			if out {
				next[s.key()] = s
			}
			for _, v := range in {
				t := tieSet{vids: slices.Clone(s.vids), counts: slices.Clone(s.counts)}
				t.add(v, 1)
				next[t.key()] = t
			}
		}
		if len(next) > maxTieSets {
			return nil, refuse("%s: the tie sets have more than %d compositions", where(), maxTieSets)
		}
		sets = next
		h.ck.work += int64(len(sets))
	}
	var out []tieSet
	for k, s := range sets {
		if k != "" {
			out = append(out, s)
		}
	}
	return out, nil
}

// sameAtMostOnce reports whether, at every component, the model's values
// vids take at most one nonzero number (compared as numbers): then every
// order of them along the positions sums to the same number (package
// doc).
func (h *headCheck[T]) sameAtMostOnce(vids []int) bool {
	b := h.ck.b
	vecs := h.g.vals[h.hd].vecs
	for c := range vecs[vids[0]].Model {
		var nz []T
		for _, v := range vids {
			if x := vecs[v].Model[c]; b.Sign(x) != numeric.Equal && !slices.ContainsFunc(nz, func(y T) bool { return b.Cmp(x, y) == numeric.Equal }) {
				nz = append(nz, x)
			}
		}
		if len(nz) > 1 {
			return false
		}
	}
	return true
}

// meansOver is the head's outputs over tie set s at the exact score of
// key lvl, in both models: the reference's mean, exact in any order, by
// its HeadOutput; the model's by its HeadOutput over the values in
// increasing id where sameAtMostOnce holds (or the model is exact), else
// its sum over every order of the values (orderSums).
func (h *headCheck[T]) meansOver(lvl int, s tieSet, where func() string) ([]State[T], error) {
	ck, sc := h.ck, &h.sc
	vecs := h.g.vals[h.hd].vecs
	var scR []*big.Rat
	var valR [][]*big.Rat
	var scM []T
	var valM [][]T
	for x, v := range s.vids {
		for range s.counts[x] {
			scR, valR = append(scR, sc.rat(lvl)), append(valR, vecs[v].Ref)
			scM, valM = append(scM, sc.muOf(lvl)), append(valM, vecs[v].Model)
		}
	}
	or, err := ck.r.Steps().HeadOutput(h.l, h.hd, scR, valR)
	if err != nil {
		return nil, refuse("%s: the reference's output: %v", where(), err)
	}
	ck.work += int64(2 * len(scR) * len(or))
	if ck.b.Precision().Kind == numeric.KindExact || h.sameAtMostOnce(s.vids) {
		om, err := ck.m.Steps().HeadOutput(h.l, h.hd, scM, valM)
		if err != nil {
			return nil, refuse("%s: the model's output: %v", where(), err)
		}
		return []State[T]{{Ref: or, Model: om}}, nil
	}
	sums, err := h.orderSums(lvl, s, where)
	if err != nil {
		return nil, err
	}
	outs := make([]State[T], len(sums))
	for x, m := range sums {
		outs[x] = State[T]{Ref: or, Model: m}
	}
	return outs, nil
}
