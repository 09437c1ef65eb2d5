package certify

import (
	"errors"
	"fmt"
	"math/big"
	"strings"

	"github.com/transformer-cookbook/verify/certify/recheck"
	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/model/eval"
	"github.com/transformer-cookbook/verify/numeric"
)

// DefaultMaxStates is the cap on the state pairs held for one position (or
// in the pool) when Options.MaxStates is 0.
const DefaultMaxStates = 1 << 16

// Input is what Length certifies.
type Input struct {
	// Reference is the model whose exact computation is right on the
	// recipe's domain: the recipe's own construction.
	Reference *model.Model
	// Model is the model checked, at Precision: Reference itself for a
	// recipe, or a model read from a file.
	Model     *model.Model
	Precision numeric.Precision
	// Exact and Runner, when set, are Reference instantiated in exact
	// arithmetic and Model at Precision (eval.New), to be reused rather
	// than built again at every length: building a wide model costs more
	// than analysing a short length of it.
	Exact  *eval.Instance[*big.Rat]
	Runner eval.Runner
	// Symbols lists the reference's symbols a valid input of length n may
	// hold at position i (1-based); nil means every symbol.
	Symbols func(i, n int) []int
	// MapSymbol maps a symbol of the reference's alphabet to the checked
	// model's (nil: the same index).
	MapSymbol func(s int) int
	// Right decides one position as the checker does: the checked model's
	// output got against the reference's exact output ref. why says what
	// is wrong.
	Right func(ref, got eval.PositionOutput) (ok bool, why string)
	// Decides, when set, decides a position that Right finds wrong at
	// the level of its decision (a truth value nearer the right one than
	// the wrong one, the right symbol): Result.Decided says whether every
	// input decides right.
	Decides func(ref, got eval.PositionOutput) bool
	// MaxStates caps the state pairs held for one position (or in the
	// pool after the last attention sublayer); 0 means DefaultMaxStates.
	MaxStates int
	// MaxWork bounds the analysis's work, counted in components of the
	// vectors it computes (a state of width d costs d, a score of keys of
	// width d_k costs d_k): past it the analysis stops and says so. It is
	// counted, not timed, so that a report does not depend on the machine.
	// 0 means no bound.
	MaxWork int64

	// KeepCertificate keeps, in Result.Certificate, the certificate the
	// independent checker accepted.
	KeepCertificate bool
	// Chain, when set, carries the work of one length to the next, where
	// lengths are analysed one after another, each one longer than the
	// last (NewChain).
	Chain *Chain

	// unfactored makes the first pass project every embedding whole, as
	// it does held states (gatherStates): the tests compare it with the
	// factored pass (gatherEmbeddings).
	unfactored bool
	// noRecheck skips the independent checker, and keepTyped keeps the
	// certificate as it is (Result.typed): the benchmarks time the two
	// apart.
	noRecheck, keepTyped bool
	// general leaves every query to the general code: no symbol stands
	// for others of its list (sharedList), no score is computed or
	// compared on float64s apart (fastDecider): the tests compare it
	// with the default.
	general bool
}

// Result is what the analysis concluded at one length.
type Result struct {
	N int `json:"n"`
	// Certified: every input of length N gives, in the checked model at
	// its precision, an output that is right against the reference's
	// exact output.
	Certified bool `json:"certified"`
	// Decided: every input of length N gives an output that is right or,
	// where it is not, decides right (Input.Decides); false when the
	// analysis did not finish or Decides is nil.
	Decided bool `json:"decided,omitempty"`
	// Why is the first obstacle when not certified.
	Why string `json:"why,omitempty"`
	// Suspects are reachable final states whose output is wrong, with
	// the partial inputs that produce them; Breaks are orders of scores
	// the model breaks (which may or may not change an output). Candidates
	// makes inputs of both.
	Suspects []Suspect `json:"suspects,omitempty"`
	Breaks   []Suspect `json:"breaks,omitempty"`
	// States is the largest number of state pairs held at once for one
	// position or in the pool; Work is the work done (Input.MaxWork).
	States int   `json:"states"`
	Work   int64 `json:"work"`
	// OverBudget says the analysis stopped on Input.MaxWork.
	OverBudget bool `json:"over_budget,omitempty"`
	// CheckWork is the work the independent checker did to accept the
	// certificate (package recheck), counted as Work is; Refused says it
	// refused one, which withdrew the conclusion (Why says why).
	CheckWork int64 `json:"check_work,omitempty"`
	Refused   bool  `json:"refused,omitempty"`
	// Carried counts the conclusions at a query that Input.Chain carried
	// from the last length instead of working them out.
	Carried int `json:"carried,omitempty"`
	// Certificate is the certificate the checker accepted, when
	// Input.KeepCertificate asked for it.
	Certificate *recheck.Encoded `json:"-"`
	// typed is the certificate itself (a *recheck.Certificate of the
	// backend's values), when Input.keepTyped asks for it.
	typed any
}

// Suspect is a place where the checked model may differ from the
// reference on some input, with a partial input that produces it.
type Suspect struct {
	Where  string `json:"where"`
	Detail string `json:"detail"`
	// Witness assigns symbols of the reference's alphabet to some
	// positions (0-based); the other positions are free.
	Witness []Assign `json:"witness,omitempty"`
}

// Assign is one position's symbol in a witness.
type Assign struct {
	Pos    int `json:"pos"`
	Symbol int `json:"symbol"`
}

// Length runs the analysis for inputs of length n. An error means it
// could not run at all (bad input); a model it cannot analyse gives a
// Result with Why.
func Length(in Input, n int) (*Result, error) {
	if in.Reference == nil || in.Model == nil || in.Right == nil {
		return nil, errors.New("certify: no reference, model or comparison")
	}
	if n < 1 {
		return nil, fmt.Errorf("certify: length %d", n)
	}
	res := &Result{N: n}
	switch in.Precision.Kind {
	case numeric.KindInterval:
		res.Why = "interval arithmetic: the analysis compares points, and an interval's order can be undecided"
		return res, nil
	}
	r := in.Exact
	if r == nil {
		var err error
		if r, err = eval.Instantiate[*big.Rat](numeric.Exact{}, in.Reference); err != nil {
			res.Why = "exact arithmetic cannot compute the reference: " + err.Error()
			return res, nil
		}
	}
	v := &visitor{in: in, n: n, r: r, res: res}
	if err := numeric.Visit(in.Precision, v); err != nil {
		return nil, err
	}
	return res, nil
}

// visitor runs the analysis at the checked model's backend type.
type visitor struct {
	in  Input
	n   int
	r   *eval.Instance[*big.Rat]
	res *Result
}

func (v *visitor) Rat(b numeric.Backend[*big.Rat]) error { return run(v, b) }

// BigFloat runs the analysis of a bigfloat of at most 25 bits on the
// runner's float64 instance (eval.NarrowInstance), whose values are
// big.Float's while none leaves float64's share of the range, and again
// in big.Float when one did.
func (v *visitor) BigFloat(b numeric.Backend[*big.Float]) error {
	if inst, nb, ok := eval.NarrowInstance(v.in.Runner); ok && inst.Model == v.in.Model && nb.Exits() == 0 {
		analyse(v, inst)
		if nb.Exits() == 0 {
			return nil
		}
		*v.res = Result{N: v.n}
	}
	return run(v, b)
}
func (v *visitor) Float64(b numeric.Backend[float64]) error { return run(v, b) }
func (v *visitor) Float32(b numeric.Backend[float32]) error { return run(v, b) }
func (v *visitor) Interval(numeric.Backend[*numeric.Interval]) error {
	return errors.New("certify: intervals are not analysed")
}

func run[T any](v *visitor, b numeric.Backend[T]) error {
	runner, err := eval.Underlying(v.in.Runner)
	if err != nil {
		v.res.Why = fmt.Sprintf("the model cannot run at %s: %v", v.in.Precision, err)
		return nil
	}
	m, ok := runner.(*eval.Instance[T])
	if !ok || m.Model != v.in.Model {
		var err error
		if m, err = eval.Instantiate(b, v.in.Model); err != nil {
			v.res.Why = fmt.Sprintf("the model cannot run at %s: %v", v.in.Precision, err)
			return nil
		}
	}
	analyse(v, m)
	return nil
}

// analyse runs the analysis of m, the checked model at its precision,
// into v.res.
func analyse[T any](v *visitor, m *eval.Instance[T]) {
	a, why := newAnalysis(v.in, v.n, v.r, m, v.res)
	if why != "" {
		v.res.Why = why
		return
	}
	if why := a.run(); why != "" {
		if v.in.Chain != nil {
			*v.in.Chain = Chain{} // what it holds of this length is partial
		}
		v.res.Why = why
		if len(v.res.Breaks) > 0 && !strings.Contains(why, v.res.Breaks[0].Detail) {
			v.res.Why += "; before that, the model breaks an order of scores: " + v.res.Breaks[0].Where + ": " + v.res.Breaks[0].Detail
		}
		return
	}
	v.res.Certified = len(v.res.Suspects) == 0
	v.res.Decided = v.in.Decides != nil && !a.undecided
	a.keepChain()
	a.recheck()
	if v.res.Refused {
		return
	}
	if !v.res.Certified {
		v.res.Why = v.res.Suspects[0].Where + ": " + v.res.Suspects[0].Detail
		if len(v.res.Breaks) > 0 {
			v.res.Why += "; the model breaks an order of scores: " + v.res.Breaks[0].Where + ": " + v.res.Breaks[0].Detail
		}
	}
}
