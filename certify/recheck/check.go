package recheck

import (
	"errors"
	"fmt"
	"math/big"

	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/model/eval"
	"github.com/transformer-cookbook/verify/numeric"
)

// Input is what Check needs besides the certificate: the two models,
// instantiated, and the judgement of a position.
type Input[T any] struct {
	// Reference is the model whose exact computation is right, and
	// Model the model checked, at its precision.
	Reference *eval.Instance[*big.Rat]
	Model     *eval.Instance[T]
	// Symbols lists the reference's symbols a valid input of length n
	// may hold at position i (1-based); nil means every symbol. The
	// lists are read only.
	Symbols func(i, n int) []int
	// MapSymbol maps a symbol of the reference's alphabet to the checked
	// model's (nil: the same index).
	MapSymbol func(s int) int
	// Right decides one position: the checked model's output got against
	// the reference's exact output ref.
	Right func(ref, got eval.PositionOutput) (ok bool, why string)
	// Decides, when set, decides a position that Right finds wrong at the
	// level of its decision.
	Decides func(ref, got eval.PositionOutput) bool
	// Passes holds every query's candidates in passes over scored tables,
	// even where one pass could (held and heldInOnePass decide alike:
	// the tests compare them).
	Passes bool
}

// Report is what Check found true of a certificate it accepted.
type Report struct {
	// Certified: every input of the length is right; Decided: every
	// input is right or decides right (false when Input.Decides is nil).
	Certified, Decided bool
	// Work counts the components of the vectors Check computed, as the
	// analysis counts its own.
	Work int64
}

// Refusal is a fact of a certificate that Check found false, or a model
// it cannot check. Fact says which, in words.
type Refusal struct {
	Fact string
}

func (r *Refusal) Error() string { return "the certificate does not hold: " + r.Fact }

func refuse(format string, args ...any) error {
	return &Refusal{Fact: fmt.Sprintf(format, args...)}
}

// Check re-derives the facts of certificate c from the models of in, and
// returns what they prove; a *Refusal names the first fact that fails. It
// accepts a certificate that claims less than Check finds (Certified
// false while every output is right), never one that claims more.
func Check[T any](in Input[T], c *Certificate[T]) (*Report, error) {
	return CheckNext(in, c, nil)
}

// CheckNext is Check within a session s, which carries what it verified
// from one length to the next (Session); s nil is Check.
func CheckNext[T any](in Input[T], c *Certificate[T], s *Session[T]) (rep *Report, err error) {
	if s != nil {
		defer func() {
			if err != nil {
				// What it verified of a certificate it refused is not
				// carried to another.
				s.state, s.n = nil, 0
			}
		}()
	}
	if in.Reference == nil || in.Model == nil || in.Right == nil {
		return nil, errors.New("recheck: no reference, model or comparison")
	}
	if c == nil || c.N < 1 {
		return nil, refuse("no certificate, or one of length < 1")
	}
	ck, err := newChecker(in, c.N)
	if err != nil {
		return nil, err
	}
	ck.interned = map[memory]string{}
	if s != nil {
		ck.sess = s.at(c.N, lengthFree(in.Reference.Model) && lengthFree(in.Model.Model))
		ck.interned = ck.sess.interned
	}
	if len(c.Steps) != len(ck.steps) {
		return nil, refuse("the certificate has %d sublayers, the models %d", len(c.Steps), len(ck.steps))
	}
	var cur *stateSets[T] // nil: the embeddings
	for k, st := range ck.steps {
		cs := &c.Steps[k]
		if cs.Layer != st.layer || cs.Attention != st.attn {
			return nil, refuse("sublayer %d is layer %d's %s in the models, layer %d's %s in the certificate",
				k+1, st.layer+1, kind(st.attn), cs.Layer+1, kind(cs.Attention))
		}
		next, err := ck.claimed(k, cs)
		if err != nil {
			return nil, err
		}
		if st.attn && in.Reference.Steps().Attention(st.layer) != nil {
			err = ck.attention(k, cur, next, cs)
		} else {
			err = ck.positionWise(k, cur, next)
		}
		if err != nil {
			return nil, err
		}
		cur = next
	}
	rep, err = ck.outputs(cur)
	if err != nil {
		return nil, err
	}
	switch {
	case c.Certified && !rep.Certified:
		return nil, refuse("the certificate says every final state is right; %s", ck.wrong)
	case c.Decided && !rep.Decided:
		return nil, refuse("the certificate says every final state decides right; %s", ck.wrong)
	}
	rep.Work = ck.work
	if s != nil {
		s.done(c.N)
	}
	return rep, nil
}

// step is one sublayer, in the order Run applies them.
type step struct {
	layer int
	attn  bool
}

func kind(attn bool) string {
	if attn {
		return "attention"
	}
	return "feed-forward"
}

// checker holds one Check's work.
type checker[T any] struct {
	in    Input[T]
	n     int
	r     *eval.Instance[*big.Rat]
	m     *eval.Instance[T]
	b     numeric.Backend[T]
	steps []step
	// lastAttn is the index of the last attention step (−1: none): the
	// states after it are pooled.
	lastAttn int
	// liveR[k] and liveM[k]: the components of the state before step k
	// (k = len(steps): the final state) that a later step or the output
	// reads; readsR[k], readsM[k]: those step k's residual passes on.
	liveR, liveM   [][]bool
	readsR, readsM [][]bool
	work           int64
	// wrong describes the first final state found wrong.
	wrong string
	// sess is the session's state at this length (nil: none).
	sess *sessionState[T]
	// interned holds keyOf's keys (the session's, where there is one).
	interned map[memory]string
}

func newChecker[T any](in Input[T], n int) (*checker[T], error) {
	r, m := in.Reference, in.Model
	ck := &checker[T]{in: in, n: n, r: r, m: m, b: m.B, lastAttn: -1}
	if r.Steps().Layers() != m.Steps().Layers() || r.Model.D != m.Model.D {
		return nil, refuse("the model (%d layers, width %d) and the reference (%d, %d) differ in shape", m.Steps().Layers(), m.Model.D, r.Steps().Layers(), r.Model.D)
	}
	for l := 0; l < r.Steps().Layers(); l++ {
		for _, attn := range []bool{true, false} {
			if r.Steps().HasSublayer(l, attn) != m.Steps().HasSublayer(l, attn) {
				return nil, refuse("layer %d: the model and the reference differ in their %s sublayer", l+1, kind(attn))
			}
			if !r.Steps().HasSublayer(l, attn) {
				continue
			}
			if attn {
				ar, am := r.Steps().Attention(l), m.Steps().Attention(l)
				if (ar == nil) != (am == nil) || ar != nil && (ar.Weighting != am.Weighting && !(am.Weighting == model.Softmax && ar.Weighting != model.Softmax) || ar.Mask != am.Mask || len(ar.Heads) != len(am.Heads)) {
					return nil, refuse("layer %d: the model's attention is not the reference's in weighting, mask or heads", l+1)
				}
				if ar != nil && ar.Weighting == model.Softmax {
					return nil, refuse("layer %d: softmax attention weighs every position: its weights are not a finite choice", l+1)
				}
				if ar != nil {
					ck.lastAttn = len(ck.steps)
				}
			}
			ck.steps = append(ck.steps, step{l, attn})
		}
	}
	ck.liveR, ck.readsR = liveness(r.Model, ck.steps)
	ck.liveM, ck.readsM = liveness(m.Model, ck.steps)
	return ck, nil
}

// pooled says the states after step k are one set for every position.
func (ck *checker[T]) pooled(k int) bool { return k >= ck.lastAttn }

// stateSets holds a step's claimed states, indexed for membership: one
// set per position, or one for all (pooled).
type stateSets[T any] struct {
	pooled bool
	sets   []*stateSet[T]
}

// stateSet is a set of state pairs, told apart by their values as numbers.
type stateSet[T any] struct {
	list  []State[T]
	index map[string]bool
}

// at is the set of position i (1-based).
func (s *stateSets[T]) at(i int) *stateSet[T] {
	if s.pooled {
		return s.sets[0]
	}
	return s.sets[i-1]
}

// claimed indexes the states step k of the certificate claims, after
// checking their shape.
func (ck *checker[T]) claimed(k int, cs *Step[T]) (*stateSets[T], error) {
	pooled := ck.pooled(k)
	if cs.Pooled != pooled {
		return nil, refuse("after layer %d's %s the certificate's states are pooled = %v, but only position-wise work remains = %v", cs.Layer+1, kind(cs.Attention), cs.Pooled, pooled)
	}
	want := ck.n
	if pooled {
		want = 1
	}
	if len(cs.States) != want {
		return nil, refuse("after layer %d's %s the certificate has %d sets of states, want %d", cs.Layer+1, kind(cs.Attention), len(cs.States), want)
	}
	out := &stateSets[T]{pooled: pooled}
	d := ck.r.Model.D
	for _, list := range cs.States {
		set := &stateSet[T]{list: list, index: make(map[string]bool, len(list))}
		for _, s := range list {
			if len(s.Ref) != d || len(s.Model) != d {
				return nil, refuse("after layer %d's %s a state of the certificate is not of width %d", cs.Layer+1, kind(cs.Attention), d)
			}
			set.index[ck.keyOf(s)] = true
		}
		out.sets = append(out.sets, set)
	}
	return out, nil
}

// admit checks that state s, computed after step k at position i, lies
// in the claimed set (its dead components set to 0 first).
func (ck *checker[T]) admit(next *stateSets[T], k, i int, s State[T], from string) error {
	p := ck.project(s, k+1)
	if !next.at(i).index[ck.stateKey(p)] {
		where := fmt.Sprintf("position %d", i)
		if next.pooled {
			where = "any position"
		}
		st := ck.steps[k]
		return refuse("after layer %d's %s, %s can hold the state %s (from %s), which the certificate does not list",
			st.layer+1, kind(st.attn), where, ck.formatState(p), from)
	}
	return nil
}

// project sets to 0 the components of s that nothing at or after step k
// reads, unless they are not finite (a zero weight reads ∞ and NaN too).
// s is not written.
func (ck *checker[T]) project(s State[T], k int) State[T] {
	out := State[T]{Ref: make([]*big.Rat, len(s.Ref)), Model: make([]T, len(s.Model))}
	for c, x := range s.Ref {
		if ck.liveR[k][c] {
			out.Ref[c] = x
		} else {
			out.Ref[c] = new(big.Rat)
		}
	}
	for c, x := range s.Model {
		if ck.liveM[k][c] || !ck.b.Finite(x) {
			out.Model[c] = x
		} else {
			out.Model[c] = ck.b.New()
		}
	}
	return out
}

// symbols lists the reference's symbols position i may hold.
func (ck *checker[T]) symbols(i int) []int {
	if ck.in.Symbols != nil {
		return ck.in.Symbols(i, ck.n)
	}
	all := make([]int, len(ck.r.Model.Alphabet))
	for s := range all {
		all[s] = s
	}
	return all
}

// embed is the pair of embeddings of the reference's symbol sym at
// position i.
func (ck *checker[T]) embed(sym, i int) (State[T], error) {
	hr, err := ck.r.Steps().Embed(sym, i, ck.n)
	if err != nil {
		return State[T]{}, refuse("the reference's embedding of symbol %d at position %d: %v", sym, i, err)
	}
	msym := sym
	if ck.in.MapSymbol != nil {
		msym = ck.in.MapSymbol(sym)
	}
	hm, err := ck.m.Steps().Embed(msym, i, ck.n)
	if err != nil {
		return State[T]{}, refuse("the model's embedding of symbol %d at position %d: %v", msym, i, err)
	}
	ck.work += int64(2 * len(hr))
	return State[T]{Ref: hr, Model: hm}, nil
}

// each calls f with every state of cur at position i (the embeddings of
// its symbols when cur is nil).
func (ck *checker[T]) each(cur *stateSets[T], i int, f func(s State[T], from string) error) error {
	if cur == nil {
		for _, sym := range ck.symbols(i) {
			s, err := ck.embed(sym, i)
			if err != nil {
				return err
			}
			if err := f(s, fmt.Sprintf("the embedding of symbol %q", ck.r.Model.Alphabet[sym])); err != nil {
				return err
			}
		}
		return nil
	}
	for _, s := range cur.at(i).list {
		ck.work += int64(len(s.Ref) + len(s.Model))
		if err := f(s, "a state the certificate lists"); err != nil {
			return err
		}
	}
	return nil
}

// positions lists the positions whose states cur holds: 1 … n, or one
// pass (position 1) over a pool.
func (ck *checker[T]) positions(cur *stateSets[T]) []int {
	if cur != nil && cur.pooled {
		return []int{1}
	}
	ps := make([]int, ck.n)
	for i := range ps {
		ps[i] = i + 1
	}
	return ps
}

// positionWise checks step k, a feed-forward sublayer or a norm alone:
// every state of cur, sent through it, lies in next.
func (ck *checker[T]) positionWise(k int, cur, next *stateSets[T]) error {
	st := ck.steps[k]
	for _, i := range ck.positions(cur) {
		err := ck.each(cur, i, func(s State[T], from string) error {
			nr, err := sublayer(ck.r, st, s.Ref)
			if err != nil {
				return refuse("layer %d's %s of the reference on %s: %v", st.layer+1, kind(st.attn), from, err)
			}
			nm, err := sublayer(ck.m, st, s.Model)
			if err != nil {
				return refuse("layer %d's %s of the model on %s: %v", st.layer+1, kind(st.attn), from, err)
			}
			ck.work += int64(len(nr) + len(nm))
			return ck.admit(next, k, i, State[T]{Ref: nr, Model: nm}, from)
		})
		if err != nil {
			return err
		}
	}
	return nil
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

// outputs judges every final state: Certified when each is right,
// Decided when each is right or decides right.
func (ck *checker[T]) outputs(cur *stateSets[T]) (*Report, error) {
	rep := &Report{Certified: true, Decided: ck.in.Decides != nil}
	for _, i := range ck.positions(cur) {
		err := ck.each(cur, i, func(s State[T], from string) error {
			fr, err := ck.r.Steps().FinalNorm(s.Ref)
			if err != nil {
				return refuse("the reference's final norm on %s: %v", from, err)
			}
			ref, err := ck.r.Steps().Output(fr)
			if err != nil {
				return refuse("the reference's output on %s: %v", from, err)
			}
			fm, err := ck.m.Steps().FinalNorm(s.Model)
			var got eval.PositionOutput
			if err == nil {
				got, err = ck.m.Steps().Output(fm)
			}
			if err != nil {
				// An output that cannot be read is neither right nor
				// a decision.
				ck.note(fmt.Sprintf("the model's output on %s cannot be read: %v", ck.formatState(s), err))
				rep.Certified, rep.Decided = false, false
				return nil
			}
			if ok, why := ck.in.Right(ref, got); !ok {
				ck.note(fmt.Sprintf("the final state %s gives a wrong output: %s", ck.formatState(s), why))
				rep.Certified = false
				if ck.in.Decides == nil || !ck.in.Decides(ref, got) {
					rep.Decided = false
				}
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	return rep, nil
}

// note keeps the first wrong final state's description.
func (ck *checker[T]) note(why string) {
	if ck.wrong == "" {
		ck.wrong = why
	}
}

// lengthFree reports whether m's embedding is the same at every length:
// its position encoding, if any, does not depend on n.
func lengthFree(m *model.Model) bool {
	if m.Position == nil {
		return true
	}
	dep, known := m.Position.DependsOnN()
	return known && !dep
}
