package certify

import (
	"math/big"

	"github.com/transformer-cookbook/verify/certify/recheck"
	"github.com/transformer-cookbook/verify/model/eval"
	"github.com/transformer-cookbook/verify/numeric"
)

// Chain carries the analysis's work from one length to the next, for the
// lengths analysed one after another, n, n + 1, n + 2, … (Input.Chain):
// the reference's projections and each head's tables of distinct
// queries, keys, values and outputs (so that their ids stay the same),
// the items each position held, what each head concluded at each query
// over each range of visible positions, and the independent checker's
// own record of what it verified (recheck.Session). A length analysed out
// of that order starts the chain afresh. A Chain is for one model, one
// reference and one precision; it is not safe for concurrent use.
//
// What a head concluded at query q over positions lo … hi depends only
// on q, on the items (keys and values) those positions hold and on the
// weighting. At the next length, where the items of lo … hi are the same
// ones (compared by their ids), the conclusion stands for the same range
// (a causal mask's, which does not grow), and extends to lo … hi + 1 when
// the order was kept and every key at position hi + 1 scores strictly
// below every candidate, exactly and in the model: such a key can never
// be selected (the largest of the positions' smallest scores is the
// smallest candidate's score), it ties with none, and the candidates, the
// ties and the outputs stay what they were. The lookup's length n adds
// one query, which is worked out whole, and one key, which each earlier
// query checks in a few operations: a sweep of every length up to N costs
// about N² instead of N³/3.
type Chain struct {
	n     int // the last length analysed with it (0: none)
	state any // *chainState[T], for the backend's T
}

// NewChain returns an empty chain.
func NewChain() *Chain { return &Chain{} }

type chainState[T any] struct {
	proj    map[[3]int]*projections
	heads   map[[2]int]*headChain[T]
	session *recheck.Session[T]
	// embeds holds the embeddings computed, by symbol and position, where
	// neither model's depends on the length (nil: it may); gathers, the
	// first pass's classes of them, by step.
	embeds  map[[2]int]*state[T]
	gathers map[int]*embedCache[T]
	// depR and depM are the two models' embedding dependences, worked
	// out length by length.
	depR *dependence[*big.Rat]
	depM *dependence[T]
}

// dependence is eval.Steps.EmbedDependence for the lengths of a chain,
// where the embedding does not depend on the length: what depends on the
// symbols (a component the same for every symbol, the largest magnitude
// of the word embedding's) is worked out once, and each longer length
// adds its new positions to what depends on them (a component the same
// at every position, the largest magnitude of the position encoding's),
// as EmbedDependence works them out.
type dependence[U any] struct {
	inst       *eval.Instance[U]
	dep        []eval.EmbedDependence
	maxW, maxP []U
	pe0        []U
	n          int
}

func newDependence[U any](inst *eval.Instance[U]) *dependence[U] { return &dependence[U]{inst: inst} }

// at is the dependence at length n (n at least the last length asked).
func (d *dependence[U]) at(n int) ([]eval.EmbedDependence, error) {
	b := d.inst.B
	if d.dep == nil {
		// The first length: EmbedDependence's own answer, and the
		// magnitudes it is made of.
		dep, err := d.inst.Steps().EmbedDependence(n)
		if err != nil {
			return nil, err
		}
		d.dep = dep
		width := len(dep)
		d.maxW, d.maxP = make([]U, width), make([]U, width)
		for c := range width {
			d.maxW[c], d.maxP[c] = b.New(), b.New()
		}
		t := b.New()
		for s := range d.inst.Model.Alphabet {
			row, err := d.inst.Steps().WordEmbeddingRow(s)
			if err != nil {
				return nil, err
			}
			for c := range row {
				t = b.Abs(t, row[c])
				d.maxW[c] = b.Max(d.maxW[c], d.maxW[c], t)
			}
		}
		d.n = 0
	}
	if n > d.n {
		pe, err := d.inst.Steps().PositionRows(n)
		if err != nil {
			return nil, err
		}
		t := b.New()
		for i := d.n; i < len(pe); i++ {
			if d.pe0 == nil {
				d.pe0 = pe[0]
			}
			for c := range pe[i] {
				if b.Cmp(pe[i][c], d.pe0[c]) != numeric.Equal {
					d.dep[c].Symbol = false
				}
				t = b.Abs(t, pe[i][c])
				d.maxP[c] = b.Max(d.maxP[c], d.maxP[c], t)
			}
		}
		for c := range d.dep {
			f := b.Finite(d.maxW[c]) && b.Finite(d.maxP[c]) && b.Finite(b.Add(t, d.maxW[c], d.maxP[c]))
			if b.Precision().Kind != numeric.KindExact {
				d.dep[c].Finite = f
			}
		}
		d.n = n
	}
	return d.dep, nil
}

// headChain is one head's part of a chain.
type headChain[T any] struct {
	queries, keys, vals, outs *pairTable[T]
	// items holds each position's items at the last length (nil: none
	// yet), and stable, at this length, the number of positions among
	// 1 … p whose items are not those of the last length.
	items    [][]item
	unstable []int
	// concluded holds, by query id and the range's first position, what
	// the head concluded there with the order kept.
	concluded map[[2]int]*concluded[T]
}

// concluded is a conclusion kept from one length to the next: over
// positions lo … hi, the candidates and the outputs, and the smallest
// candidate score, exact (minE) and in the model (minM).
type concluded[T any] struct {
	hi    int
	cands []item
	outs  []int
	minE  *big.Rat
	minM  T
	// minEf is minE where it is a float64 (nil: not).
	minEf *float64
	// lists are the certificate's lists of its candidates and outputs.
	lists *certLists
}

// chainFor returns the chain's state for length n of an analysis whose
// values are T, starting it afresh unless the last length was n − 1.
func chainFor[T any](c *Chain, n int) *chainState[T] {
	st, ok := c.state.(*chainState[T])
	if !ok || c.n != n-1 {
		st = &chainState[T]{proj: map[[3]int]*projections{}, heads: map[[2]int]*headChain[T]{}, session: recheck.NewSession[T](),
			gathers: map[int]*embedCache[T]{}}
		c.state = st
	}
	return st
}

// headOf is the chain of head hd of layer l, made on first use.
func (st *chainState[T]) headOf(l, hd int) *headChain[T] {
	key := [2]int{l, hd}
	hc, ok := st.heads[key]
	if !ok {
		hc = &headChain[T]{queries: newPairTable[T](), keys: newPairTable[T](), vals: newPairTable[T](), outs: newPairTable[T](),
			concluded: map[[2]int]*concluded[T]{}}
		st.heads[key] = hc
	}
	return hc
}

// compare notes, once pass 1 has gathered this length's items of head h,
// which positions hold the items they held at the last length.
func (hc *headChain[T]) compare(h *head[T]) {
	n := len(h.items)
	hc.unstable = make([]int, n+1)
	for p := 1; p <= n; p++ {
		same := p <= len(hc.items) && sameItems(hc.items[p-1], h.items[p-1])
		hc.unstable[p] = hc.unstable[p-1]
		if !same {
			hc.unstable[p]++
		}
	}
}

// stable reports whether positions lo … hi hold the items they held at
// the last length.
func (hc *headChain[T]) stable(lo, hi int) bool {
	return hi < len(hc.unstable) && hc.unstable[hi] == hc.unstable[lo-1]
}

// keep records this length's items, for the next.
func (hc *headChain[T]) keep(h *head[T]) {
	hc.items = make([][]item, len(h.items))
	for p, its := range h.items {
		hc.items[p] = append([]item(nil), its...)
	}
}

func sameItems(x, y []item) bool {
	if len(x) != len(y) {
		return false
	}
	for k := range x {
		if x[k].kid != y[k].kid || x[k].vid != y[k].vid {
			return false
		}
	}
	return true
}

// chained looks up what head h concluded at the last length for query
// qid over a range from lo, and returns its outputs and candidates where
// it stands for lo … hi at this length (package doc, Chain): the same
// range with the same items, or the range one position shorter, the
// order kept, and every key at hi below every candidate.
func (a *analysis[T]) chained(h *head[T], qid, lo, hi int) (outs []int, cands []item, lists *certLists, ok bool, why string) {
	hc := h.chain
	if hc == nil {
		return nil, nil, nil, false, ""
	}
	c := hc.concluded[[2]int{qid, lo}]
	switch {
	case c == nil:
		return nil, nil, nil, false, ""
	case c.hi == hi && hc.stable(lo, hi):
		return c.outs, c.cands, c.lists, true, ""
	case c.hi != hi-1 || !hc.stable(lo, hi-1):
		return nil, nil, nil, false, ""
	}
	// The keys of position hi, each scored once in both models.
	var kids []int
	var keysM [][]T
	for _, it := range h.items[hi-1] {
		if !h.vals.finite(a.backend, it.vid) {
			return nil, nil, nil, false, ""
		}
		seen := false
		for _, k := range kids {
			seen = seen || k == it.kid
		}
		if !seen {
			kids = append(kids, it.kid)
			keysM = append(keysM, h.keys.pairs[it.kid].checked)
		}
	}
	if why := a.charge(2 * len(kids) * (len(h.queries.pairs[qid].ref) + 1)); why != "" {
		return nil, nil, nil, false, why
	}
	sm, err := a.checked.Steps().KeyScoresInto(h.layer, h.num, h.queries.pairs[qid].checked, keysM, nil)
	if err != nil {
		return nil, nil, nil, false, ""
	}
	q, okq := h.queryFloats(qid)
	for x, kid := range kids {
		if a.backend.Cmp(sm[x], c.minM) != numeric.Less {
			return nil, nil, nil, false, "" // not below in the model (or NaN)
		}
		if okq && c.minEf != nil {
			// Both exact in float64 (dotExactly): compared there.
			if k, okk := h.keys.floats(kid); okk {
				if f, ok := dotExactly(q, k); ok {
					if f >= *c.minEf {
						return nil, nil, nil, false, ""
					}
					continue
				}
			}
		}
		e, err := a.ref.Steps().HeadScore(h.layer, h.num, h.queries.pairs[qid].ref, h.keys.pairs[kid].ref)
		if err != nil || e.Cmp(c.minE) >= 0 {
			return nil, nil, nil, false, ""
		}
	}
	c.hi = hi
	return c.outs, c.cands, c.lists, true, ""
}

// conclude keeps, for the next length, what head h concluded at query
// qid over lo … hi with the order kept: the candidates (the exact scores
// sc and model scores of their keys give the smallest) and the outputs.
func (a *analysis[T]) conclude(h *head[T], qid, lo, hi int, cands []item, outs []int, exact func(kid int) *big.Rat, model func(kid int) T) {
	hc := h.chain
	if hc == nil || len(cands) == 0 {
		return
	}
	c := &concluded[T]{hi: hi, cands: cands, outs: outs, lists: &certLists{}}
	h.facts[len(h.facts)-1].lists = c.lists
	for x, it := range cands {
		e, m := exact(it.kid), model(it.kid)
		if x == 0 || e.Cmp(c.minE) < 0 {
			c.minE = e
		}
		if x == 0 || a.backend.Cmp(m, c.minM) == numeric.Less {
			c.minM = m
		}
	}
	if f, exact := c.minE.Float64(); exact {
		c.minEf = &f
	}
	hc.concluded[[2]int{qid, lo}] = c
}

// forget drops what head h concluded at query qid over a range from lo:
// the order is broken there now, or it was not kept.
func (h *head[T]) forget(qid, lo int) {
	if h.chain != nil {
		delete(h.chain.concluded, [2]int{qid, lo})
	}
}
