package recheck

import "math/big"

// Certificate is what the analysis proved at one length, for the models
// at the backend whose values are T.
type Certificate[T any] struct {
	N int
	// Steps holds one entry per sublayer, in the order Run applies them.
	Steps []Step[T]
	// Certified says every final state's output is right; Decided that
	// every final state's output is right or decides right.
	Certified, Decided bool
}

// Step is what the certificate says of one sublayer (an attention or a
// feed-forward sublayer, or a norm without one).
type Step[T any] struct {
	Layer     int // 0-based
	Attention bool
	// Pooled says States holds one set for every position; otherwise
	// States[i−1] is position i's.
	Pooled bool
	States [][]State[T]
	// Queries holds, for each head of an attention sublayer, what the
	// analysis concluded at each query over each visible range.
	Queries [][]QueryFact[T]
}

// State is a pair of vectors: the reference's, exact, and the checked
// model's.
type State[T any] struct {
	Ref   []*big.Rat
	Model []T
}

// QueryFact is what the analysis concluded for one query of one head
// over the visible positions Lo … Hi (Lo > Hi: none).
type QueryFact[T any] struct {
	Query  State[T]
	Lo, Hi int
	// Kept says the model keeps the exact order between every candidate
	// and every item at another visible position.
	Kept bool
	// Candidates are the items the reference can select: the keys whose
	// exact score can be maximal, with the values they come with.
	Candidates []Item[T]
	// Outputs are the head's outputs at the query, in both models.
	Outputs []State[T]
	// Ties, under average hardmax where tie sets can hold several
	// values (the order kept), lists every composition of a tie set the
	// positions allow, with the output over it; nil where every tie set
	// holds one value.
	Ties []Tie[T]
}

// Tie is one composition of a tie set: Counts[k] positions holding
// Values[k], all of one maximal score, and the head's outputs over them:
// one for each order of the values along the positions that gives the
// model a different sum (one output where the order cannot matter).
type Tie[T any] struct {
	Values  []State[T]
	Counts  []int
	Outputs []State[T]
}

// Item is a key and a value that position Pos can hold in one head.
type Item[T any] struct {
	Pos        int
	Key, Value State[T]
}
