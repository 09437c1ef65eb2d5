package recheck

import (
	"math/big"
	"strconv"

	"github.com/transformer-cookbook/verify/numeric"
)

// Session carries what Check verified from one length to the next, for
// the certificates of lengths n, n + 1, n + 2, … checked one after
// another (CheckNext): each head's tables of distinct queries, keys and
// values (so that their ids stay the same), the items each position
// held, and what it verified at each query over each range. A
// certificate of another length starts the session afresh. A Session is
// for one model, one reference and one precision; it is not safe for
// concurrent use.
//
// What a head gives at query q over positions lo … hi depends only on q,
// on the items those positions hold and on the weighting. At the next
// length, where the items of lo … hi are the same ones, a fact for the
// same range is the fact verified there (a causal mask's ranges do not
// grow), and one for lo … hi + 1 is the fact verified for lo … hi,
// candidates and outputs alike, when the order was kept and every key at
// position hi + 1 scores strictly below every candidate, exactly and in
// the model: such a key can never be selected (the largest of the
// positions' smallest scores is the smallest candidate's score: bar), it
// ties with none, and nothing else changes. Check verifies both: the
// items, compared by id, and the keys of the new position, scored by the
// models. Any other fact it verifies whole.
type Session[T any] struct {
	n     int
	state *sessionState[T]
}

// NewSession returns an empty session.
func NewSession[T any]() *Session[T] { return &Session[T]{} }

type sessionState[T any] struct {
	heads map[[2]int]*sessionHead[T]
	// lengthFree says neither model's embedding depends on the length,
	// and embeds holds the first pass's work, by step (embedState).
	lengthFree bool
	embeds     map[int]*embedState[T]
	interned   map[memory]string
}

// at is the session's state for length n, started afresh unless the last
// length checked was n − 1.
func (s *Session[T]) at(n int, lengthFree bool) *sessionState[T] {
	if s.state == nil || s.n != n-1 || s.state.lengthFree != lengthFree {
		s.state = &sessionState[T]{heads: map[[2]int]*sessionHead[T]{}, lengthFree: lengthFree, embeds: map[int]*embedState[T]{},
			interned: map[memory]string{}}
	}
	return s.state
}

// done records that the certificate of length n was accepted: its items
// are what the next length is held to.
func (s *Session[T]) done(n int) {
	for _, sh := range s.state.heads {
		sh.items, sh.current = sh.current, nil
	}
	s.n = n
}

// sessionHead is one head's part of a session (by step and head).
type sessionHead[T any] struct {
	queries, keys, vals *table[T]
	// items are each position's items at the last length accepted;
	// current, this length's; unstable[p] counts the positions of 1 … p
	// whose items differ.
	items, current [][]item
	unstable       []int
	verified       map[string]*verified[T]
	// ints is the keys and queries as int64s (scores.queryInts); outIDs
	// numbers the outputs (headCheck.outID).
	ints   *keyInts[T]
	outIDs map[string]int
}

// verified is what Check verified at one query over lo … hi, with the
// order kept: the candidates, the outputs, and the smallest candidate
// score, exact (minE) and in the model (minM).
type verified[T any] struct {
	hi    int
	cands []slot
	outs  []State[T]
	minE  *big.Rat
	minM  T
	// cands and outs are the lists of the certificate's fact last held
	// to it (its own lists, not the certificate: a session keeps few
	// things of each length); ids the outputs' numbers (outID).
	factCands []Item[T]
	factOuts  []State[T]
	ids       []int
}

// head is the session's part for head hd of step k, made on first use.
func (st *sessionState[T]) head(k, hd int) *sessionHead[T] {
	key := [2]int{k, hd}
	sh, ok := st.heads[key]
	if !ok {
		sh = &sessionHead[T]{queries: newTable[T](), keys: newTable[T](), vals: newTable[T](), verified: map[string]*verified[T]{}}
		st.heads[key] = sh
	}
	return sh
}

// compare notes which positions hold this length's items (items, by
// position) as they did at the last length.
func (sh *sessionHead[T]) compare(items [][]item) {
	sh.current = items
	sh.unstable = make([]int, len(items)+1)
	for p := 1; p <= len(items); p++ {
		sh.unstable[p] = sh.unstable[p-1]
		if p > len(sh.items) || !sameItemList(sh.items[p-1], items[p-1]) {
			sh.unstable[p]++
		}
	}
}

func (sh *sessionHead[T]) stable(lo, hi int) bool {
	return hi < len(sh.unstable) && sh.unstable[hi] == sh.unstable[lo-1]
}

func sameItemList(x, y []item) bool {
	if len(x) != len(y) {
		return false
	}
	for k := range x {
		if x[k] != y[k] {
			return false
		}
	}
	return true
}

// carried returns the outputs of the fact for query q over lo … hi where
// what the session verified at the last length stands for it (Session):
// the fact must then say what was verified, and the keys of a new
// position must fall below every candidate in both models.
func (h *headCheck[T]) carried(sh *sessionHead[T], q State[T], key string, lo, hi int, fact *QueryFact[T], where func() string) ([]State[T], []int, bool, error) {
	v := sh.verified[key]
	switch {
	case v == nil:
		return nil, nil, false, nil
	case v.hi == hi && sh.stable(lo, hi):
	case v.hi == hi-1 && sh.stable(lo, hi-1):
		if ok, err := h.below(q, hi, v, where); err != nil || !ok {
			return nil, nil, false, err
		}
	default:
		return nil, nil, false, nil
	}
	if !fact.Kept {
		return nil, nil, false, nil // verified whole, as a broken order
	}
	if !v.sameFact(fact) {
		cands, err := h.listed(lo, hi, fact, where)
		if err != nil {
			return nil, nil, false, err
		}
		if !sameSlots(cands, v.cands) {
			return nil, nil, false, nil
		}
		if err := h.sameOutputs(where, fact.Outputs, v.outs); err != nil {
			return nil, nil, false, nil
		}
		v.heldTo(fact)
	}
	if v.ids == nil {
		v.ids = h.outIDsOf(v.outs) // the session's numbers: kept
	}
	v.hi = hi
	return v.outs, v.ids, true, nil
}

// sameFact reports whether fact lists the candidates and outputs of the
// fact v was last held to in the same memory: vectors are never written
// once made, so the same memory holds the same values, and the fact says
// what that one said.
func (v *verified[T]) sameFact(fact *QueryFact[T]) bool {
	if v.factCands == nil || len(v.factCands) != len(fact.Candidates) || len(v.factOuts) != len(fact.Outputs) {
		return false
	}
	for x, it := range fact.Candidates {
		was := v.factCands[x]
		if it.Pos != was.Pos || !sameMemory(it.Key, was.Key) || !sameMemory(it.Value, was.Value) {
			return false
		}
	}
	for x, o := range fact.Outputs {
		if !sameMemory(o, v.factOuts[x]) {
			return false
		}
	}
	return true
}

// heldTo records fact as the one v was last held to.
func (v *verified[T]) heldTo(fact *QueryFact[T]) {
	v.factCands = append([]Item[T](nil), fact.Candidates...)
	v.factOuts = append([]State[T](nil), fact.Outputs...)
}

// sameMemory reports whether two pairs of vectors are the same memory.
func sameMemory[T any](x, y State[T]) bool {
	return len(x.Ref) == len(y.Ref) && len(x.Model) == len(y.Model) && len(x.Ref) > 0 && len(x.Model) > 0 &&
		&x.Ref[0] == &y.Ref[0] && &x.Model[0] == &y.Model[0]
}

// below reports whether every key at position p scores below every
// candidate of v, exactly and in the model, and holds a finite value.
func (h *headCheck[T]) below(q State[T], p int, v *verified[T], where func() string) (bool, error) {
	ck := h.ck
	h.slotsOf()
	if h.nonFinite[p] != h.nonFinite[p-1] {
		return false, nil
	}
	var keysM [][]T
	ss := h.slots[p-1]
	for _, s := range ss {
		keysM = append(keysM, h.g.keys[h.hd].vecs[s.kid].Model)
	}
	mu, err := ck.m.Steps().KeyScoresInto(h.l, h.hd, q.Model, keysM, nil)
	if err != nil {
		return false, refuse("%s: the model's scores: %v", where(), err)
	}
	ck.work += int64(2 * len(ss) * len(q.Ref))
	qi, ints := h.sc.queryInts(q)
	for x, s := range ss {
		if ck.b.Cmp(mu[x], v.minM) != numeric.Less {
			return false, nil // not below in the model, or NaN
		}
		if ints && v.minE.IsInt() && v.minE.Num().IsInt64() {
			// Small integers (scores.queryInts): their dot product is
			// exact in an int64.
			d := len(qi)
			if dotInts(qi, h.sc.keyInts[s.kid*d:s.kid*d+d]) >= v.minE.Num().Int64() {
				return false, nil
			}
			continue
		}
		e, err := h.exactScore(q, s.kid)
		if err != nil {
			return false, refuse("%s: the reference's score: %v", where(), err)
		}
		if e.Cmp(v.minE) >= 0 {
			return false, nil
		}
	}
	return true, nil
}

// exactScore is query q's exact score of key kid, by the reference's own
// HeadScore.
func (h *headCheck[T]) exactScore(q State[T], kid int) (*big.Rat, error) {
	return h.ck.r.Steps().HeadScore(h.l, h.hd, q.Ref, h.g.keys[h.hd].vecs[kid].Ref)
}

// verify keeps what Check verified at query q over lo … hi with the order
// kept, for the next length.
func (h *headCheck[T]) verify(sh *sessionHead[T], q State[T], key string, hi int, chosen []chosen, outs []State[T], fact *QueryFact[T]) error {
	if sh == nil || len(chosen) == 0 {
		return nil
	}
	v := &verified[T]{hi: hi, outs: outs}
	v.heldTo(fact)
	for x, c := range chosen {
		v.cands = append(v.cands, c.slot)
		e, err := h.exactScore(q, c.kid)
		if err != nil {
			return err
		}
		m := h.sc.muOf(c.kid)
		if x == 0 || e.Cmp(v.minE) < 0 {
			v.minE = e
		}
		if x == 0 || h.ck.b.Cmp(m, v.minM) == numeric.Less {
			v.minM = h.ck.b.Set(h.ck.b.New(), m)
		}
	}
	sh.verified[key] = v
	return nil
}

// chainKey identifies a query and the first position of its ranges.
func chainKey[T any](ck *checker[T], q State[T], lo int) string {
	return strconv.Itoa(lo) + ":" + ck.keyOf(q)
}
