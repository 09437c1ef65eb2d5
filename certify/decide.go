package certify

import (
	"math/big"
)

// A query is what a head's second pass decides: query qid of head h over
// the visible positions lo … hi, asked at position pos (w, a witness of a
// state there with that query). items is the number of items at
// lo … hi, whose keys scoreRange has scored for the query.
type query struct {
	qid, lo, hi, pos int
	w                witness
	items            int
}

// A decision is what a decider concluded at a query: whether the model
// keeps the exact order there, the items the reference can select, and
// the head's outputs (ids in head.outs).
type decision struct {
	kept  bool
	cands []item
	outs  []int
	// ties, under average hardmax with ties of several values, lists
	// every composition of a tie set and its output (mixed.go).
	ties []tieFact
}

// A decider works out the decision at a query.
//
// There are two: fastDecider, on float64s and slots, and generalDecider,
// on the backend's own comparisons, item by item. They must decide, and
// charge the budget, alike: the same decision, the same outputs added to
// head.outs in the same order, the same work charged in the same order
// (so that a budget stops both at the same point, with the same report).
// TestDecidersAgree runs both on the same queries.
type decider[T any] interface {
	// decide returns the decision at q. done is false when the decider
	// leaves q to the next one, having changed and charged nothing; why
	// is set when the analysis cannot go on.
	decide(a *analysis[T], h *head[T], q query) (d decision, done bool, why string)
}

// deciders lists the deciders a query is offered to, in order: the last
// one decides every query.
func deciders[T any](in Input) []decider[T] {
	if in.general {
		return []decider[T]{generalDecider[T]{}}
	}
	return []decider[T]{fastDecider[T]{}, generalDecider[T]{}}
}

// headOutputs lists the outputs head h can give at position i to the
// query qid (ids in h.outs); qw is a witness of a state at i with that
// query.
//
// On an input, each model selects the positions of maximal score among
// those the query sees: an item (a key and value a position can hold) can
// be selected only when its score reaches the smallest score of every
// other visible position (a candidate). When the model's scores keep the
// exact order between every exact candidate and every item at another
// position, ties included, both models select the same positions on every
// input (checkOrder), and the output is a candidate's value in both, or
// under average hardmax the mean of m equal values for every tie count m
// the positions allow. When the order is broken somewhere, each model may
// select a different item: the outputs are then the pairs of an exact
// candidate a and a model candidate b that one input can make both
// selections of (a and b the same item, or at two positions with a ahead
// exactly and b ahead in the model), and what they make of the states
// after the sublayer is decided at the output, like the rest.
//
// A query over the same positions is decided once (outCache); one that
// sees no position gives the zero output; one that the chain carried
// from the last length is not decided again (chained). The others are
// scored (scoreRange) and offered to the deciders.
func (a *analysis[T]) headOutputs(h *head[T], qid, i int, qw witness) ([]int, string) {
	lo, hi := visible(h.spec.Mask, i, a.n)
	key := [3]int{qid, lo, hi}
	if outs, ok := h.outCache[key]; ok {
		return outs, ""
	}
	if lo > hi {
		outs := a.zeroOutput(h)
		h.outCache[key] = outs
		h.facts = append(h.facts, fact{qid: qid, lo: lo, hi: hi, kept: true, outs: outs})
		return outs, ""
	}
	if outs, cands, lists, ok, why := a.chained(h, qid, lo, hi); ok || why != "" {
		if why != "" {
			return nil, why
		}
		h.outCache[key] = outs
		h.facts = append(h.facts, fact{qid: qid, lo: lo, hi: hi, kept: true, cands: cands, outs: outs, lists: lists})
		a.res.Carried++
		return outs, ""
	}
	count, why := a.scoreRange(h, qid, lo, hi)
	if why != "" {
		return nil, why
	}
	if why := a.charge(4 * count); why != "" {
		return nil, why
	}
	q := query{qid: qid, lo: lo, hi: hi, pos: i, w: qw, items: count}
	if a.soft(h) {
		d, why := a.softDecide(h, q)
		if why != "" {
			return nil, why
		}
		a.keepDecision(h, q, d)
		return d.outs, ""
	}
	for _, dc := range a.deciders {
		d, done, why := dc.decide(a, h, q)
		if why != "" {
			return nil, why
		}
		if done {
			a.keepDecision(h, q, d)
			return d.outs, ""
		}
	}
	panic("certify: no decider decided the query")
}

// keepDecision keeps decision d at query q: in the cache, as a fact of the
// certificate, and, where the order is kept, for the chain's next length.
func (a *analysis[T]) keepDecision(h *head[T], q query, d decision) {
	h.outCache[[3]int{q.qid, q.lo, q.hi}] = d.outs
	h.facts = append(h.facts, fact{qid: q.qid, lo: q.lo, hi: q.hi, kept: d.kept, cands: d.cands, outs: d.outs, ties: d.ties})
	if !d.kept || d.ties != nil {
		// Not carried: a broken order is decided again at each length,
		// and so are ties of several values, whose compositions the
		// chain does not carry.
		h.forget(q.qid, q.lo)
		return
	}
	sc := &h.scores
	a.conclude(h, q.qid, q.lo, q.hi, d.cands, d.outs, sc.exactRat, func(kid int) T { return a.backend.Set(a.backend.New(), sc.checked[kid]) })
}

// exactRat is key kid's exact score, for the query last scored, as a
// rational.
func (sc *keyScores[T]) exactRat(kid int) *big.Rat {
	if sc.exact(kid) {
		return new(big.Rat).SetFloat64(sc.floats[kid])
	}
	return sc.rats[kid]
}
