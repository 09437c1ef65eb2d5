package certify

import (
	"fmt"
	"math/big"

	"github.com/transformer-cookbook/verify/internal/plural"
	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/model/eval"
	"github.com/transformer-cookbook/verify/numeric"
)

// state is a pair of residual-stream states at one position: the
// reference's, exact, and the checked model's at its precision, with a
// partial input that produces them.
type state[T any] struct {
	pair[T]
	witness witness
}

// step is one sublayer, in the order Run applies them.
type step struct {
	layer int
	attn  bool
}

// states is the set of state pairs reachable at each position: the
// embeddings (embed, not held: enumerated from the symbols), one set per
// position, or one pool for every position once only position-wise work
// remains.
type states[T any] struct {
	embed  bool
	pooled bool
	at     []*stateSet[T] // per position, 0-based (when neither)
	pool   *stateSet[T]
}

// stateSet holds distinct state pairs.
type stateSet[T any] struct {
	list  []*state[T]
	index map[string]int
}

func newStateSet[T any]() *stateSet[T] { return &stateSet[T]{index: map[string]int{}} }

// models are the two models the analysis compares: the reference, run
// in exact arithmetic, and the checked model at its precision.
type models[T any] struct {
	ref     *eval.Instance[*big.Rat]
	checked *eval.Instance[T]
}

// analysis follows the state pairs of one length through the models.
type analysis[T any] struct {
	input Input
	n     int
	models[T]
	backend   numeric.Backend[T] // the checked model's
	res       *Result
	steps     []step
	maxStates int
	// liveR[k] and liveM[k] mark the components of each model's state
	// after step k−1 (k = 0: the embedding) that a later sublayer or the
	// output reads; the others are set to 0 before states are merged.
	liveR, liveM [][]bool
	// undecided says a final state decides wrong (Input.Decides), and
	// undecidedSuspects lists a few of them.
	undecided         bool
	undecidedSuspects []Suspect
	// readR[k] and readM[k] mark the components of the state before step
	// k that its residual connection (and post-norm) reads.
	readR, readM [][]bool
	// lastAttn is the index of the last attention step (−1: none): after
	// it the states are pooled.
	lastAttn int
	// deciders decide the queries of the heads (decide.go).
	deciders []decider[T]
	// proj caches the reference's projections, by layer, head and matrix.
	proj map[[3]int]*projections
	// alphabet lists every symbol: the symbols of a position when
	// Input.Symbols is nil.
	alphabet []int
	// trail holds, for each step done, the states after it and, for an
	// attention step, its heads (their tables and facts): what the
	// certificate is made of. heads is the last attention step's.
	trail []trailStep[T]
	heads []*head[T]
	// chain is Input.Chain's state at this length (nil: none).
	chain *chainState[T]
}

// trailStep is one step's part of the certificate.
type trailStep[T any] struct {
	states *states[T]
	heads  []*head[T]
}

// newAnalysis checks that the two models have the same shape and works out
// the steps and the live components; why says why they cannot be
// analysed together.
func newAnalysis[T any](in Input, n int, r *eval.Instance[*big.Rat], m *eval.Instance[T], res *Result) (*analysis[T], string) {
	a := &analysis[T]{input: in, n: n, models: models[T]{ref: r, checked: m}, backend: m.B, res: res, maxStates: in.MaxStates, lastAttn: -1, proj: map[[3]int]*projections{},
		deciders: deciders[T](in)}
	if a.maxStates <= 0 {
		a.maxStates = DefaultMaxStates
	}
	if in.Chain != nil {
		a.chain = chainFor[T](in.Chain, n)
		a.proj = a.chain.proj
		if a.chain.embeds == nil && independentOfN(r.Model) && independentOfN(m.Model) {
			a.chain.embeds = map[[2]int]*state[T]{}
		}
	}
	if r.Steps().Layers() != m.Steps().Layers() {
		return nil, fmt.Sprintf("the model has %s and the reference %d", plural.Of(m.Steps().Layers(), "layer"), r.Steps().Layers())
	}
	// The two are followed component by component, side by side.
	if r.Model.D != m.Model.D {
		return nil, fmt.Sprintf("the model's residual stream has %s and the reference's %d: the analysis follows the two through the same components",
			plural.Of(m.Model.D, "component"), r.Model.D)
	}
	for l := 0; l < r.Steps().Layers(); l++ {
		for _, attn := range []bool{true, false} {
			hr, hm := r.Steps().HasSublayer(l, attn), m.Steps().HasSublayer(l, attn)
			if hr != hm {
				return nil, fmt.Sprintf("layer %d: the model and the reference differ in their %s sublayer", l+1, kind(attn))
			}
			if !hr {
				continue
			}
			if attn {
				ar, am := r.Steps().Attention(l), m.Steps().Attention(l)
				if (ar == nil) != (am == nil) {
					return nil, fmt.Sprintf("layer %d: the model and the reference differ in their attention", l+1)
				}
				if ar != nil {
					// A softmax model beside a hard reference is decided
					// over every choice (softhead.go); else the two
					// weightings are one.
					softBesideHard := am.Weighting == model.Softmax && ar.Weighting != model.Softmax
					if ar.Weighting != am.Weighting && !softBesideHard || ar.Mask != am.Mask || len(ar.Heads) != len(am.Heads) {
						return nil, fmt.Sprintf("layer %d: the model's attention (%s, %s, %s) is not the reference's (%s, %s, %s)",
							l+1, am.Weighting, am.Mask, plural.Of(len(am.Heads), "head"), ar.Weighting, ar.Mask, plural.Of(len(ar.Heads), "head"))
					}
					if ar.Weighting == model.Softmax {
						return nil, fmt.Sprintf("layer %d: softmax attention weighs every position, and its weights are not a finite choice", l+1)
					}
					a.lastAttn = len(a.steps)
				}
			}
			a.steps = append(a.steps, step{l, attn})
		}
	}
	a.liveR, a.readR = liveness(r.Model, a.steps)
	a.liveM, a.readM = liveness(m.Model, a.steps)
	return a, ""
}

func kind(attn bool) string {
	if attn {
		return "attention"
	}
	return "feed-forward"
}

// run follows the states through every step and compares the outputs;
// it returns why it could not go on ("" when it could).
func (a *analysis[T]) run() string {
	cur := &states[T]{embed: true, pooled: a.lastAttn < 0}
	for k, st := range a.steps {
		var why string
		a.heads = nil
		if st.attn && a.ref.Steps().Attention(st.layer) != nil {
			cur, why = a.attention(k, st.layer, cur)
		} else {
			cur, why = a.positionWise(k, st, cur)
		}
		if why != "" {
			return why
		}
		a.trail = append(a.trail, trailStep[T]{states: cur, heads: a.heads})
	}
	return a.outputs(cur)
}

// each calls f with every state pair at position i (1-based; ignored for
// a pool), enumerating the embeddings of the position's symbols.
func (a *analysis[T]) each(cur *states[T], i int, f func(s *state[T]) string) string {
	switch {
	case cur.embed:
		for _, sym := range a.symbols(i) {
			s, why := a.embed(sym, i)
			if why != "" {
				return why
			}
			if why := a.visit(s, f); why != "" {
				return why
			}
		}
	case cur.pooled:
		for _, s := range cur.pool.list {
			if why := a.visit(s, f); why != "" {
				return why
			}
		}
	default:
		for _, s := range cur.at[i-1].list {
			if why := a.visit(s, f); why != "" {
				return why
			}
		}
	}
	return ""
}

// visit charges for a state, and calls f with it.
func (a *analysis[T]) visit(s *state[T], f func(s *state[T]) string) string {
	if why := a.charge(len(s.ref) + len(s.checked)); why != "" {
		return why
	}
	return f(s)
}

// positions lists the positions to enumerate: 1 … n, or one pass over a
// pool (position 0).
func (a *analysis[T]) positions(cur *states[T]) []int {
	if cur.pooled && !cur.embed {
		return []int{0}
	}
	ps := make([]int, a.n)
	for i := range ps {
		ps[i] = i + 1
	}
	return ps
}

// symbols lists the reference's symbols at position i (read only: one
// list may serve several positions).
func (a *analysis[T]) symbols(i int) []int {
	if a.input.Symbols != nil {
		return a.input.Symbols(i, a.n)
	}
	if a.alphabet == nil {
		a.alphabet = make([]int, len(a.ref.Model.Alphabet))
		for k := range a.alphabet {
			a.alphabet[k] = k
		}
	}
	return a.alphabet
}

// embed is the state pair of symbol sym at position i (kept by the chain
// where neither model's embedding depends on the length).
func (a *analysis[T]) embed(sym, i int) (*state[T], string) {
	if a.chain != nil && a.chain.embeds != nil {
		if s, ok := a.chain.embeds[[2]int{sym, i}]; ok {
			return s, ""
		}
	}
	s, why := a.embedNew(sym, i)
	if why == "" && a.chain != nil && a.chain.embeds != nil {
		a.chain.embeds[[2]int{sym, i}] = s
	}
	return s, why
}

// embedNew computes the state pair of symbol sym at position i.
func (a *analysis[T]) embedNew(sym, i int) (*state[T], string) {
	hr, err := a.ref.Steps().Embed(sym, i, a.n)
	if err != nil {
		return nil, "the reference's embedding: " + err.Error()
	}
	msym := sym
	if a.input.MapSymbol != nil {
		msym = a.input.MapSymbol(sym)
	}
	hm, err := a.checked.Steps().Embed(msym, i, a.n)
	if err != nil {
		return nil, "the model's embedding: " + err.Error()
	}
	return &state[T]{pair: pair[T]{ref: hr, checked: hm}, witness: single(i-1, sym)}, ""
}

// newStates returns empty sets for the states after step k.
func (a *analysis[T]) newStates(k int) *states[T] {
	next := &states[T]{pooled: k >= a.lastAttn}
	if next.pooled {
		next.pool = newStateSet[T]()
	} else {
		next.at = make([]*stateSet[T], a.n)
		for i := range next.at {
			next.at[i] = newStateSet[T]()
		}
	}
	return next
}

// add puts s, its dead components set to 0, into the set for position i
// after step k; why is set when the set grows past the cap.
func (a *analysis[T]) add(next *states[T], k, i int, s *state[T]) string {
	a.project(s, k+1)
	set := next.pool
	if !next.pooled {
		set = next.at[i-1]
	}
	key := a.key(s)
	if _, ok := set.index[key]; ok {
		return ""
	}
	set.index[key] = len(set.list)
	set.list = append(set.list, s)
	if len(set.list) > a.states() {
		a.res.States = len(set.list)
	}
	if len(set.list) > a.maxStates {
		where := fmt.Sprintf("position %d", i)
		if next.pooled {
			where = "all positions"
		}
		return fmt.Sprintf("more than %d distinct states at %s after %s: the analysis stops (raise the cap, or check by sampling)", a.maxStates, where, a.stepName(k))
	}
	return ""
}

func (a *analysis[T]) states() int { return a.res.States }

func (a *analysis[T]) stepName(k int) string {
	st := a.steps[k]
	return fmt.Sprintf("layer %d %s", st.layer+1, kind(st.attn))
}

// positionWise applies step k (a feed-forward sublayer, or a norm without
// a sublayer) to every state pair.
func (a *analysis[T]) positionWise(k int, st step, cur *states[T]) (*states[T], string) {
	next := a.newStates(k)
	// Each state's feed-forward costs its weights' multiply-adds, in
	// both models (the reference's in rationals: a unit a weight):
	// charged, so that the budget bounds the time where the states are
	// many (the outputs of tie sets of several values).
	cost := 0
	if ff := a.checked.Model.Layers[st.layer].FeedForward; !st.attn && ff != nil {
		cost = len(ff.W1.Data) + len(ff.W2.Data)
	}
	for _, i := range a.positions(cur) {
		why := a.each(cur, i, func(s *state[T]) string {
			if why := a.charge(cost); why != "" {
				return why
			}
			nr, err := sublayer(a.ref, st, s.ref)
			if err != nil {
				return fmt.Sprintf("%s of the reference: %v", a.stepName(k), err)
			}
			nm, err := sublayer(a.checked, st, s.checked)
			if err != nil {
				return fmt.Sprintf("%s of the model: %v", a.stepName(k), err)
			}
			return a.add(next, k, i, &state[T]{pair: pair[T]{ref: nr, checked: nm}, witness: s.witness})
		})
		if why != "" {
			return nil, why
		}
	}
	return next, ""
}

// sublayer applies a position-wise step to one state.
func sublayer[U any](inst *eval.Instance[U], st step, h []U) ([]U, error) {
	x, err := inst.Steps().SublayerInput(st.layer, st.attn, h)
	if err != nil {
		return nil, err
	}
	var out []U
	if !st.attn {
		if out, err = inst.Steps().FeedForward(st.layer, x); err != nil {
			return nil, err
		}
	}
	return inst.Steps().SublayerOutput(st.layer, st.attn, h, out)
}

// charge counts units of work; why is set once the budget is spent.
func (a *analysis[T]) charge(units int) string {
	a.res.Work += int64(units)
	if a.input.MaxWork > 0 && a.res.Work > a.input.MaxWork {
		a.res.OverBudget = true
		return fmt.Sprintf("the analysis stopped after %d units of work, its budget", a.input.MaxWork)
	}
	return ""
}

// keepChain records, once the length is analysed, what the next length
// of the chain starts from.
func (a *analysis[T]) keepChain() {
	if a.chain == nil {
		return
	}
	for _, t := range a.trail {
		for _, h := range t.heads {
			if h.chain != nil {
				h.chain.keep(h)
			}
		}
	}
	a.input.Chain.n = a.n
}

// independentOfN reports whether m's embedding is the same at every
// length (its position encoding, if any, does not depend on n).
func independentOfN(m *model.Model) bool {
	if m.Position == nil {
		return true
	}
	dep, known := m.Position.DependsOnN()
	return known && !dep
}
