package certify

import (
	"github.com/transformer-cookbook/verify/certify/recheck"
)

// certificate writes what the analysis proved as a certificate for the
// independent checker (package recheck): the states after every step,
// and every head's facts at the queries it met.
func (a *analysis[T]) certificate() *recheck.Certificate[T] {
	c := &recheck.Certificate[T]{N: a.n, Certified: a.res.Certified, Decided: a.res.Decided}
	for k, t := range a.trail {
		st := a.steps[k]
		cs := recheck.Step[T]{Layer: st.layer, Attention: st.attn, Pooled: t.states.pooled}
		if t.states.pooled {
			cs.States = [][]recheck.State[T]{pairs(t.states.pool)}
		} else {
			for _, set := range t.states.at {
				cs.States = append(cs.States, pairs(set))
			}
		}
		for _, h := range t.heads {
			var facts []recheck.QueryFact[T]
			facts = make([]recheck.QueryFact[T], 0, len(h.facts))
			for _, f := range h.facts {
				qf := recheck.QueryFact[T]{Query: recheck.State[T]{Ref: h.queries.pairs[f.qid].ref, Model: h.queries.pairs[f.qid].checked},
					Lo: f.lo, Hi: f.hi, Kept: f.kept}
				if f.lists != nil && f.lists.cands != nil {
					// A conclusion carried from length to length:
					// its lists, written once.
					qf.Candidates, qf.Outputs = f.lists.cands.([]recheck.Item[T]), f.lists.outs.([]recheck.State[T])
					facts = append(facts, qf)
					continue
				}
				for _, it := range f.cands {
					qf.Candidates = append(qf.Candidates, recheck.Item[T]{Pos: it.pos,
						Key:   recheck.State[T]{Ref: h.keys.pairs[it.kid].ref, Model: h.keys.pairs[it.kid].checked},
						Value: recheck.State[T]{Ref: h.vals.pairs[it.vid].ref, Model: h.vals.pairs[it.vid].checked}})
				}
				for _, o := range f.outs {
					qf.Outputs = append(qf.Outputs, recheck.State[T]{Ref: h.outs.pairs[o].ref, Model: h.outs.pairs[o].checked})
				}
				for _, t := range f.ties {
					rt := recheck.Tie[T]{Counts: t.counts}
					for _, o := range t.outs {
						rt.Outputs = append(rt.Outputs, recheck.State[T]{Ref: h.outs.pairs[o].ref, Model: h.outs.pairs[o].checked})
					}
					for _, v := range t.vids {
						rt.Values = append(rt.Values, recheck.State[T]{Ref: h.vals.pairs[v].ref, Model: h.vals.pairs[v].checked})
					}
					qf.Ties = append(qf.Ties, rt)
				}
				if f.lists != nil {
					f.lists.cands, f.lists.outs = qf.Candidates, qf.Outputs
				}
				facts = append(facts, qf)
			}
			cs.Queries = append(cs.Queries, facts)
		}
		c.Steps = append(c.Steps, cs)
	}
	return c
}

// pairs lists a set's state pairs as the certificate's.
func pairs[T any](set *stateSet[T]) []recheck.State[T] {
	out := make([]recheck.State[T], len(set.list))
	for x, s := range set.list {
		out[x] = recheck.State[T]{Ref: s.ref, Model: s.checked}
	}
	return out
}

// Refusal begins the Why of a result whose proof the independent checker
// refused: a bug of the analysis, which callers (and tests) can tell from
// an ordinary failure to certify.
const Refusal = "the independent checker refused the analysis's proof (a bug of the engine's analysis)"

// refused, set by the package's tests, hears of every refusal: since a
// refusal is a bug of the analysis even where the result it withdraws
// is what a test expects, the tests fail on any (main_test.go).
var refused func(why string)

// recheck has the independent checker re-derive the certificate of what
// the analysis concluded; a refusal withdraws the conclusion. It is a bug
// of the analysis, and the reason says so.
func (a *analysis[T]) recheck() {
	res := a.res
	if !res.Certified && !res.Decided {
		return
	}
	c := a.certificate()
	if a.input.keepTyped {
		res.typed = c
	}
	if a.input.noRecheck {
		return
	}
	in := recheck.Input[T]{Reference: a.ref, Model: a.checked, Symbols: a.input.Symbols, MapSymbol: a.input.MapSymbol,
		Right: a.input.Right, Decides: a.input.Decides}
	var rep *recheck.Report
	var err error
	if a.chain != nil {
		rep, err = recheck.CheckNext(in, c, a.chain.session)
	} else {
		rep, err = recheck.Check(in, c)
	}
	if err != nil {
		res.Certified, res.Decided = false, false
		res.Why = Refusal + ": " + err.Error()
		res.Refused = true
		if refused != nil {
			refused(res.Why)
		}
		return
	}
	res.CheckWork = rep.Work
	if a.input.KeepCertificate {
		res.Certificate = recheck.Encode(a.backend, c)
	}
}
