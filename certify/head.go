package certify

import (
	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/model/eval"
)

// item is a key and value a position can hold in one head.
type item struct {
	pos      int // 1-based
	kid, vid int
	w        witness
}

// head gathers what one head's analysis needs: its distinct queries,
// keys and values, the items of every position, and for every query the
// positions where it occurs.
type head[T any] struct {
	layer, num          int
	spec                *model.Attention
	queries, keys, vals *pairTable[T]
	outs                *pairTable[T]
	items               [][]item // per position, 0-based
	seen                []map[[2]int]bool
	outCache            map[[3]int][]int
	// avgCache holds the output id of m_r copies of one value in the
	// reference beside m_m of one in the model (averaged), by value ids
	// and counts: under hard attention the tied scores do not enter it.
	avgCache map[[4]int]int
	// terms holds the model's products of a value by the weight of one
	// of m tied positions, by value id and m (mixed.go).
	terms map[[2]int][]T
	// The scores of the keys for one query, the last one asked: a query's
	// order is checked and its outputs listed one after the other, and
	// keeping every query's would cost n² scores.
	scores keyScores[T]
	// dot says the exact score is q·k (eval.Steps.ScoreIsDot), and
	// fromFirst that every position sees a range of positions that starts
	// at 1 (visible); firstKeys are the model's keys of
	// itemIndex.firstKids.
	dot, fromFirst bool
	firstKeys      [][]T
	// idx indexes the items by position and key, and kf holds the keys
	// in float64, once gathered; fs, ms, cands, partners and partnerOff
	// are the fast decider's storage, reused from one query to the next.
	idx        *itemIndex
	kf         *keyFloats
	fs, ms     []float64
	cands      []int
	partners   []int32
	partnerOff []int
	// facts records what the analysis concluded at each query and range,
	// for the certificate (certificate.go).
	facts []fact
	// chain is the head's part of Input.Chain (nil: none).
	chain *headChain[T]
}

// fact is what a decider concluded for query qid over the visible
// positions lo … hi: whether the model keeps the exact order, the items
// the reference can select, and the outputs (ids in head.outs).
type fact struct {
	qid, lo, hi int
	kept        bool
	cands       []item
	outs        []int
	// ties: the compositions of tie sets of several values (mixed.go).
	ties []tieFact
	// lists, where the fact is a conclusion of a chain (carried from
	// the last length, or kept for the next), holds the certificate's
	// lists of its candidates and outputs, written once for every length
	// it stands for (nil: none).
	lists *certLists
}

// certLists holds a fact's candidates and outputs as the certificate
// writes them (a recheck.Item and recheck.State list of the backend's
// T), once written.
type certLists struct {
	cands, outs any
}

// visible is the interval of positions position i may attend to (lo > hi:
// none).
func visible(mask model.Mask, i, n int) (lo, hi int) {
	switch mask {
	case model.Future:
		return 1, i
	case model.StrictFuture:
		return 1, i - 1
	case model.Past:
		return i, n
	case model.StrictPast:
		return i + 1, n
	}
	return 1, n
}

// table is the head's table of queries, keys or values (p).
func (h *head[T]) table(p eval.Projection) *pairTable[T] {
	switch p {
	case eval.QueryProjection:
		return h.queries
	case eval.KeyProjection:
		return h.keys
	}
	return h.vals
}
