package check

import (
	"errors"
	"fmt"
	"math/big"
	"math/rand/v2"
	"slices"

	"github.com/transformer-cookbook/verify/certify"
	"github.com/transformer-cookbook/verify/certify/recheck"
	"github.com/transformer-cookbook/verify/model/eval"
	"github.com/transformer-cookbook/verify/numeric"
)

// A limit L is certified only when every length up to it is: failures are
// not monotone in n for every construction, and a sweep checks a few
// lengths. The analysis certifies every length 1 … L in one pass over
// them, each length's work extending the last's where it can (a chain,
// certify.Chain: the lookup's length n adds one query and one key), within
// a budget of work for all of them.

// DefaultEveryBudget is the work the analysis and its checker may do for
// every length up to a limit together (Options.EveryBudget: components of
// the vectors they compute, as AnalysisBudget counts them), unless told
// otherwise: about a minute of CPU at most (some 5 million units a
// second), enough for the limits of the half-precision formats and most
// recipes' sweeps in a few seconds, not for every length of Dyck-1-2 to
// 256 (900 million units, three minutes) or of fp32's lookup to 4096
// (--every-budget 0 lifts it). The checker's work counts: it is often
// the larger share.
const DefaultEveryBudget = 1 << 28

// EveryLength is what the analysis found of every length of a range.
type EveryLength struct {
	// From and To are the range asked; Certified the longest length L
	// such that every length From … L is certified by the analysis or
	// run whole (From − 1: none).
	From      int `json:"from"`
	To        int `json:"to"`
	Certified int `json:"certified"`
	// Stopped says why the analysis stopped before To: at length At, a
	// length it did not certify (Why, the analysis's reason) or the
	// budget.
	At  int    `json:"at,omitempty"`
	Why string `json:"why,omitempty"`
	// Failed says At was run whole (every input: a length that needs no
	// proof) and an input fails there.
	Failed bool `json:"failed,omitempty"`
	// Work and CheckWork are the analysis's and the independent checker's
	// work over the lengths analysed, Carried the conclusions the chain
	// carried from one length to the next.
	Work      int64 `json:"work"`
	CheckWork int64 `json:"check_work"`
	Carried   int   `json:"carried"`
	// Restarts counts the lengths after which the chain was dropped,
	// having carried nothing to them (see Every).
	Restarts int `json:"restarts,omitempty"`
	// Level is the weakest evidence of the lengths From … Certified:
	// Exhaustive for a length run whole, Faithful for one the analysis
	// proved (Certified where a claim proves the construction); empty
	// when there is none.
	Level Level `json:"level,omitempty"`
}

// Every runs the analysis at every length from … to in increasing order,
// carrying each length's work to the next, and stops at the first length
// it does not certify or when the work passes budget (0: no bound). A
// length with few enough inputs to run whole is run whole instead (it
// needs no proof), and stops it where an input fails. The lengths' analyses are kept, as Length runs them, so that
// checking them later does not analyse them again.
func (ck *Checker) Every(from, to int, budget int64) *EveryLength {
	ev := &EveryLength{From: from, To: to, Certified: from - 1}
	if off := ck.analysisOff(); off != "" {
		ev.At, ev.Why = from, off
		return ev
	}
	if ck.lengthwise() {
		return ck.everyLengthwise(ev)
	}
	if pw := ck.positionwise(); pw != nil {
		return ck.everyPositionwise(ev, pw)
	}
	chain := certify.NewChain()
	chained := false // chain holds the work of the length before n
	for n := from; n <= to; n++ {
		if stop := ck.opts.Stop; stop != nil && stop() {
			ev.At, ev.Why = n, "interrupted"
			return ev
		}
		if _, exhaustive := ck.drawn(n); exhaustive {
			// Every input run (the checked lengths' runs are not at hand
			// here, and a length between them may not have been run): the
			// chain starts afresh after it.
			if lr := ck.Length(n); lr.Failure != nil {
				ev.At, ev.Failed = n, true
				ev.Why = fmt.Sprintf("every input run: %q fails (%s)", lr.Failure.Input, lr.Failure.Reason)
				return ev
			}
			ev.Certified, ev.Level = n, Weaker(ev.Level, Exhaustive)
			chain, chained = certify.NewChain(), false
			continue
		}
		if budget > 0 && ev.Work+ev.CheckWork > budget {
			ev.At, ev.Why = n, fmt.Sprintf("the analysis of every length ran out of its budget (%d units of work, the checker's included; --every-budget raises it)", budget)
			return ev
		}
		an := ck.analysedWith(n, chain)
		if an.res != nil {
			ev.Work += an.res.Work
			ev.CheckWork += an.res.CheckWork
			ev.Carried += an.res.Carried
		}
		if an.res == nil || !an.res.Certified {
			ev.At, ev.Why = n, an.why()
			return ev
		}
		ev.Certified, ev.Level = n, Weaker(ev.Level, ck.provenLevel())
		// A chain holds the tables of every length it analysed. Where a
		// length took nothing from the one before (Dyck-1-2's positions
		// i/n change every item with n), the next will take nothing
		// either, and the tables only grow: 8.5 GB for Dyck-1-2 in fp16 to
		// n = 256. The chain is dropped then; the next length starts one
		// afresh, as a length analysed alone does, so nothing proved
		// changes, only what is kept.
		if chained && an.res.Carried == 0 {
			chain, chained = certify.NewChain(), false
			ev.Restarts++
			continue
		}
		chained = true
	}
	return ev
}

// analysedWith runs the analysis of length n with chain, and keeps it
// where no analysis of n is kept yet. A kept one is not reused: the
// chain would start afresh after it, and Every's work would depend on
// which lengths were checked before (a sharded sweep's phase 2 does not
// hold phase 1's analyses), where a report must not.
func (ck *Checker) analysedWith(n int, chain *certify.Chain) *analysis {
	an := ck.analyseWith(n, chain)
	an.budgeted = true
	ck.mu.Lock()
	defer ck.mu.Unlock()
	if ck.analyses == nil {
		ck.analyses = map[int]*analysis{}
	}
	if _, ok := ck.analyses[n]; !ok {
		ck.analyses[n] = an
	}
	return an
}

// Certificate is the certificate of length n that the analysis wrote and
// the independent checker accepted, when Options.Certificates asked for
// it (nil: none).
func (ck *Checker) Certificate(n int) *recheck.Encoded {
	ck.mu.Lock()
	defer ck.mu.Unlock()
	if an, ok := ck.analyses[n]; ok && an.res != nil {
		return an.res.Certificate
	}
	return nil
}

// everyBudget is the budget of Every the options give.
func (o Options) everyBudget() int64 {
	switch {
	case o.EveryBudget < 0:
		return 0
	case o.EveryBudget == 0:
		return DefaultEveryBudget
	}
	return o.EveryBudget
}

// Suspected reports whether the analysis of length n, run already, found
// a reachable state that may be wrong or an order of scores the format
// breaks: the length has inputs worth running (Length runs them first).
func (ck *Checker) Suspected(n int) bool {
	ck.mu.Lock()
	defer ck.mu.Unlock()
	an, ok := ck.analyses[n]
	return ok && an.res != nil && !an.res.OverBudget && (len(an.res.Suspects) > 0 || len(an.res.Breaks) > 0)
}

// Certificates are the certificates of every length whose analysis
// certified it, in increasing length (Options.Certificates).
func (ck *Checker) Certificates() []*recheck.Encoded {
	ck.mu.Lock()
	defer ck.mu.Unlock()
	var ns []int
	for n, an := range ck.analyses {
		if an.res != nil && an.res.Certified && an.res.Certificate != nil {
			ns = append(ns, n)
		}
	}
	slices.Sort(ns)
	out := make([]*recheck.Encoded, len(ns))
	for k, n := range ns {
		out[k] = ck.analyses[n].res.Certificate
	}
	return out
}

// Recheck has the independent checker re-derive certificate e (of one
// length of this checker's construction and model at its precision, as
// the analysis wrote it), and returns what it proves, or why it does not
// hold. Certificates of lengths one after another share the checker's
// session, as the analysis's chain.
func (ck *Checker) Recheck(e *recheck.Encoded) (*recheck.Report, error) {
	if e == nil || e.N < 1 || e.N > ck.opts.MaxN {
		return nil, fmt.Errorf("a certificate of a length outside 1 … %d", ck.opts.MaxN)
	}
	probe, _ := ck.Con.Inputs(e.N, rand.New(rand.NewPCG(0, 1)), 1)
	if len(probe) == 0 || probe[0].Stream != nil {
		return nil, fmt.Errorf("the inputs of %s are not strings over a finite alphabet: nothing to certify", ck.Recipe.Name)
	}
	right, decides := ck.judges(probe[0])
	exact, err := ck.exactSpec()
	if err != nil {
		return nil, fmt.Errorf("exact arithmetic cannot compute the recipe's construction: %w", err)
	}
	inst, err := eval.Underlying(ck.Runner)
	if err != nil {
		return nil, err
	}
	v := &rechecker{ck: ck, e: e, inst: inst, right: right, decides: decides, exact: exact}
	if err := numeric.Visit(ck.opts.Precision, v); err != nil {
		return nil, err
	}
	return v.rep, v.err
}

// rechecker runs Recheck at the model's backend type.
type rechecker struct {
	ck      *Checker
	e       *recheck.Encoded
	inst    any
	exact   *eval.Instance[*big.Rat]
	right   func(ref, got eval.PositionOutput) (bool, string)
	decides func(ref, got eval.PositionOutput) bool
	rep     *recheck.Report
	err     error
}

func (v *rechecker) Rat(b numeric.Backend[*big.Rat]) error        { return recheckAt(v, b) }
func (v *rechecker) BigFloat(b numeric.Backend[*big.Float]) error { return recheckAt(v, b) }
func (v *rechecker) Float64(b numeric.Backend[float64]) error     { return recheckAt(v, b) }
func (v *rechecker) Float32(b numeric.Backend[float32]) error     { return recheckAt(v, b) }
func (v *rechecker) Interval(numeric.Backend[*numeric.Interval]) error {
	return errors.New("intervals are not analysed: no certificate is about them")
}

func recheckAt[T any](v *rechecker, b numeric.Backend[T]) error {
	ck := v.ck
	m, ok := v.inst.(*eval.Instance[T])
	if !ok {
		var err error
		if m, err = eval.Instantiate(b, ck.Con.Model); err != nil {
			return err
		}
	}
	c, err := recheck.Decode(m.B, v.e)
	if err != nil {
		v.err = err
		return nil
	}
	s, _ := ck.session.(*recheck.Session[T])
	if s == nil {
		s = recheck.NewSession[T]()
		ck.session = s
	}
	v.rep, v.err = recheck.CheckNext(recheck.Input[T]{Reference: v.exact, Model: m, Symbols: ck.Con.Symbols,
		MapSymbol: mapper(ck.Con.AdaptSymbols), Right: v.right, Decides: v.decides}, c, s)
	return nil
}
