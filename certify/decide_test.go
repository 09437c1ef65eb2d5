package certify

import (
	"fmt"
	"math/big"
	"reflect"
	"testing"

	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/model/eval"
	"github.com/transformer-cookbook/verify/numeric"
	"github.com/transformer-cookbook/verify/recipes"
)

// decided is one query's decision as a decider made it, with the work it
// charged and the outputs the head then held.
type decided struct {
	layer, head, qid, lo, hi, pos int
	kept                          bool
	cands                         []item
	outs                          []int
	why                           string
	// start is the work done before the decision, work what it charged.
	start, work int64
	heldOuts    int
}

// decisionLog is what one analysis decided, query after query, and how
// it ended.
type decisionLog struct {
	calls []decided
	// fast counts the queries fastDecider decided; left, those it left to
	// the general code; leftChanged, those it left having charged work
	// or added an output.
	fast, left, leftChanged int
	why                     string
	work                    int64
	overBudget              bool
}

// recorder logs the queries its decider decides.
type recorder[T any] struct {
	decider[T]
	fast bool
	log  *decisionLog
}

func (r recorder[T]) decide(a *analysis[T], h *head[T], q query) (decision, bool, string) {
	work, outs := a.res.Work, len(h.outs.pairs)
	d, done, why := r.decider.decide(a, h, q)
	if !done {
		r.log.left++
		if a.res.Work != work || len(h.outs.pairs) != outs {
			r.log.leftChanged++
		}
		return d, done, why
	}
	if r.fast {
		r.log.fast++
	}
	c := decided{layer: h.layer, head: h.num, qid: q.qid, lo: q.lo, hi: q.hi, pos: q.pos,
		why: why, start: work, work: a.res.Work - work, heldOuts: len(h.outs.pairs)}
	if why == "" { // else the decision is not used
		c.kept, c.cands, c.outs = d.kept, d.cands, d.outs
	}
	r.log.calls = append(r.log.calls, c)
	return d, done, why
}

// decideAll analyses in at length n with the deciders that fast says
// (fastDecider then generalDecider, or generalDecider alone), logging
// every decision (nil: the models are not analysed together).
func decideAll(t *testing.T, in Input, n int, fast bool) *decisionLog {
	t.Helper()
	ref, err := eval.Instantiate[*big.Rat](numeric.Exact{}, in.Reference)
	if err != nil {
		return nil // exact arithmetic cannot compute the reference
	}
	runner, err := eval.New(in.Precision, in.Model)
	if err != nil {
		return nil // the model cannot run at the precision
	}
	inst, err := eval.Underlying(runner)
	if err != nil {
		t.Fatal(err)
	}
	switch m := inst.(type) {
	case *eval.Instance[float64]:
		return decideWith(t, in, n, ref, m, fast)
	case *eval.Instance[float32]:
		return decideWith(t, in, n, ref, m, fast)
	case *eval.Instance[*big.Float]:
		return decideWith(t, in, n, ref, m, fast)
	case *eval.Instance[*big.Rat]:
		return decideWith(t, in, n, ref, m, fast)
	}
	t.Fatalf("%s: an instance of %T", in.Precision, inst)
	return nil
}

func decideWith[T any](t *testing.T, in Input, n int, ref *eval.Instance[*big.Rat], m *eval.Instance[T], fast bool) *decisionLog {
	log := &decisionLog{}
	res := &Result{N: n}
	a, why := newAnalysis(in, n, ref, m, res)
	if why != "" {
		return nil // not analysed (softmax, shapes that differ): nothing decided
	}
	a.deciders = []decider[T]{recorder[T]{decider: generalDecider[T]{}, log: log}}
	if fast {
		a.deciders = append([]decider[T]{recorder[T]{decider: fastDecider[T]{}, fast: true, log: log}}, a.deciders...)
	}
	log.why = a.run()
	log.work, log.overBudget = res.Work, res.OverBudget
	return log
}

// TestDecidersAgree: the two deciders of a query (decide.go) must decide,
// and charge the budget, alike. Each case is analysed twice, once with
// fastDecider offered every query first and once with generalDecider
// alone, and the two runs must log the same decisions in the same order
// (candidates, outputs and their ids, the work each decision charged),
// and end alike; fastDecider must charge nothing and add no output where
// it leaves a query. Each case runs with room to finish, and with budgets
// that end inside a decision (where one charges) and at half the work.
func TestDecidersAgree(t *testing.T) {
	type decideCase struct {
		name string
		in   Input
		n    int
	}
	var cases []decideCase
	add := func(name string, ref, m *model.Model, symbols func(i, n int) []int, p string, ns ...int) {
		for _, n := range ns {
			cases = append(cases, decideCase{fmt.Sprintf("%s at %s, n = %d", name, p, n),
				Input{Reference: ref, Model: m, Precision: numeric.MustParsePrecision(p), Symbols: symbols,
					Right: exactlyRight, MaxWork: 1 << 24}, n})
		}
	}
	// Average hardmax over tied keys: in fp16 six ones do not average to
	// one, so the tie counts decide (TestAverageCountsByHand).
	ties := oneHead{alphabet: []string{"a"}, ksym: []int64{0}, kpos: []int64{0, 0, 0, 0, 0, 0}, val: []int64{1}, mask: model.Future, w: model.AverageHardmax}
	add("six tied ones", ties.model("reference"), ties.model("checked"), nil, "fp16", 5, 6)
	twoKeys := oneHead{alphabet: []string{"a", "b"}, ksym: []int64{0, 0}, kpos: []int64{0, 0, 0, 0}, val: []int64{1, 1}, mask: model.NoMask, w: model.AverageHardmax}
	add("two keys a position, tied", twoKeys.model("reference"), twoKeys.model("checked"), nil, "fp32", 3, 4)
	// Every recipe that reads strings (eachAnalysis), at five
	// precisions.
	eachAnalysis(t, []int{2, 5}, func(name string, in Input, n int) {
		cases = append(cases, decideCase{name, in, n})
	})
	// The lookup with its key's negative weights 65/64 of the
	// construction's: the order breaks past some length, and the fast
	// decider leaves those queries to the general one.
	r, err := recipes.Get("lookup")
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []model.Weighting{model.AverageHardmax, model.LeftHardmax} {
		ref, err := r.Construct(w, 40, nil)
		if err != nil {
			t.Fatal(err)
		}
		con, err := r.Construct(w, 40, nil)
		if err != nil {
			t.Fatal(err)
		}
		k := con.Model.Layers[0].Attention.Heads[0].K
		for x, e := range k.Data {
			if v, ok, err := e.Rat(); err == nil && ok && v.Sign() < 0 {
				k.Data[x] = numeric.Lit(new(big.Rat).Mul(v, big.NewRat(65, 64)))
			}
		}
		add(fmt.Sprintf("lookup %s, W^K changed", w), ref.Model, con.Model, con.Symbols, "fp16", 9, 33)
	}

	var fastDecided, fastLeft, stoppedInside int
	compare := func(name string, in Input, n int) *decisionLog {
		general := decideAll(t, in, n, false)
		if general == nil {
			return nil
		}
		fast := decideAll(t, in, n, true)
		fastDecided += fast.fast
		fastLeft += fast.left
		if fast.leftChanged > 0 {
			t.Errorf("%s: the fast decider left %d queries having charged work or added an output", name, fast.leftChanged)
		}
		if len(fast.calls) != len(general.calls) {
			t.Errorf("%s: %d decisions with the fast decider, %d without", name, len(fast.calls), len(general.calls))
		}
		for x := range min(len(fast.calls), len(general.calls)) {
			if f, g := fast.calls[x], general.calls[x]; !reflect.DeepEqual(f, g) {
				t.Errorf("%s: decision %d:\nwith the fast decider %+v\nwithout             %+v", name, x, f, g)
				break
			}
		}
		if fast.why != general.why || fast.work != general.work || fast.overBudget != general.overBudget {
			t.Errorf("%s: with the fast decider the analysis ends (%q, work %d, over budget %v), without (%q, work %d, over budget %v)",
				name, fast.why, fast.work, fast.overBudget, general.why, general.work, general.overBudget)
		}
		if last := len(fast.calls) - 1; fast.overBudget && last >= 0 && fast.calls[last].why != "" {
			stoppedInside++
		}
		return general
	}
	for _, c := range cases {
		full := compare(c.name, c.in, c.n)
		if full == nil {
			continue
		}
		// Budgets spent by the first charge of a few decisions that
		// charge (the work done before them), and half the work.
		var budgets []int64
		for _, d := range full.calls {
			if d.work > 0 && len(budgets) < 3 {
				budgets = append(budgets, d.start)
			}
		}
		budgets = append(budgets, full.work/2)
		for _, b := range budgets {
			in := c.in
			in.MaxWork = b
			compare(fmt.Sprintf("%s, budget %d", c.name, b), in, c.n)
		}
	}
	if fastDecided < 100 || fastLeft == 0 || stoppedInside == 0 {
		t.Errorf("%d queries decided by the fast decider, %d left to the general one, %d budgets spent inside a decision: the cases hardly judge the two", fastDecided, fastLeft, stoppedInside)
	}
	t.Logf("%d cases; %d queries decided by the fast decider, %d left to the general one; %d budgets spent inside a decision", len(cases), fastDecided, fastLeft, stoppedInside)
}
