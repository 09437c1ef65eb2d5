package check

import (
	"errors"
	"fmt"
	"math/big"
	"runtime"
	"strings"
	"sync"

	"github.com/transformer-cookbook/verify/internal/plural"
	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/model/eval"
	"github.com/transformer-cookbook/verify/numeric"
	"github.com/transformer-cookbook/verify/recipes"
)

// irrational reports whether a reference holds an irrational value.
func irrational(w recipes.Want) bool {
	for _, e := range w.Reals {
		if _, ok, _ := e.Rat(); !ok {
			return true
		}
	}
	return false
}

// Cases checks the given inputs of con, run by runner: the report of one
// length, whose N and Exhaustive the caller sets (a construction whose
// model a test changed, inputs picked by hand).
func Cases(con *recipes.Construction, runner eval.Runner, inputs []recipes.Case) LengthReport {
	return checkLength(con, runner, inputs, 0, nil)
}

// caseResult is the outcome of one input.
type caseResult struct {
	// decided: every position decides right (Decides), exact or not.
	exact, passed, decided bool
	errs                   []*big.Rat // |error| per output value; nil entry: not finite
	failure                *Failure
}

// checkLength checks the inputs with workers goroutines, each input
// holding one of sh's slots while it runs; when sh quits, it hands out no
// more inputs and returns an empty report, which nobody reads.
func checkLength(con *recipes.Construction, runner eval.Runner, inputs []recipes.Case, workers int, sh *shared) LengthReport {
	m := con.Model
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	results := make([]caseResult, len(inputs))
	var wg sync.WaitGroup
	next := make(chan int)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for c := range next {
				if !sh.acquire() {
					continue
				}
				results[c] = checkCase(con, runner, inputs[c])
				sh.release()
			}
		}()
	}
	for c := range inputs {
		if sh.quitting() {
			break
		}
		next <- c
	}
	close(next)
	wg.Wait()
	if sh.quitting() {
		return LengthReport{}
	}

	lr := LengthReport{Cases: len(inputs)}
	var maxErr []*big.Rat
	inf := make([]bool, len(m.Output.Labels))
	for c, res := range results {
		if res.exact {
			lr.Exact++
		}
		if res.decided {
			lr.Decided++
		}
		if res.passed {
			lr.Passed++
		} else if (&Failure{Case: c, Undecided: res.failure.Undecided}).before(lr.Failure) {
			lr.Failure = res.failure
			lr.Failure.Case = c
		}
		for k, e := range res.errs {
			for len(maxErr) <= k {
				maxErr = append(maxErr, new(big.Rat))
			}
			if k >= len(inf) {
				inf = append(inf, false)
			}
			if e == nil {
				inf[k] = true
			} else if e.Cmp(maxErr[k]) > 0 {
				maxErr[k] = e
			}
		}
	}
	for k, e := range maxErr {
		if inf[k] {
			lr.MaxError = append(lr.MaxError, "inf")
			continue
		}
		// Through big.Float, not float64: errors beyond float64's range
		// (tiny ones at high precision) keep their value.
		lr.MaxError = append(lr.MaxError, new(big.Float).SetRat(e).Text('g', 3))
	}
	return lr
}

func checkCase(con *recipes.Construction, runner eval.Runner, c recipes.Case) caseResult {
	m := con.Model
	var out *eval.Result
	var err error
	if c.Stream != nil {
		h0 := c.Stream
		if con.Adapt != nil {
			if h0, err = con.Adapt(h0); err != nil {
				return caseResult{failure: &Failure{N: c.Len(), Input: CaseText(m, c), Reason: err.Error()}}
			}
		}
		out, err = runner.RunStream(h0, false)
		// The reference is computed on the input as the format holds it:
		// rounding an input is not the construction's error.
		c.Stream = RoundStream(runner, c.Stream)
	} else {
		symbols := c.Symbols
		if con.AdaptSymbols != nil {
			symbols = con.AdaptSymbols(symbols)
		}
		out, err = runner.Run(symbols, false)
	}
	if err != nil {
		reason := err.Error()
		if errors.Is(err, eval.ErrComparisonUndecided) {
			reason = "undecided: " + reason
		}
		// A value exact arithmetic cannot hold is not a wrong output but
		// a precision that cannot run the construction.
		cannot := errors.Is(err, numeric.ErrIrrational)
		return caseResult{failure: &Failure{N: c.Len(), Input: CaseText(m, c), Reason: reason, CannotRun: cannot, Undecided: errors.Is(err, eval.ErrComparisonUndecided)}}
	}
	if con.Valid != nil {
		if err := con.Valid(c); err != nil {
			return caseResult{failure: &Failure{N: c.Len(), Input: CaseText(m, c), Reason: "the recipe's input generator left its domain (a bug in the recipe): " + err.Error()}}
		}
	}
	want := con.Expected(c)
	if len(want) != len(out.Outputs) {
		return caseResult{failure: &Failure{N: c.Len(), Input: CaseText(m, c),
			Reason: fmt.Sprintf("the model gave %s and the reference %d (a bug in the recipe)", plural.Of(len(out.Outputs), "output"), len(want))}}
	}
	// Positions are judged as an enumeration judges them
	// (positionVerdict): most pass exactly, and cost no allocation.
	acc := verdict{exact: true, passed: true, decided: true}
	prec := runner.Precision()
	for i, w := range want {
		acc = acc.then(positionVerdict(prec, con, w, out.Outputs[i], i), acc.errs)
	}
	res := caseResult{exact: acc.exact, passed: acc.passed, decided: acc.decided, errs: acc.errs, failure: acc.failure}
	if f := res.failure; f != nil {
		f.N, f.Input = c.Len(), CaseText(m, c)
	}
	return res
}

// RoundStream returns the stream as the runner's format stores it; an
// entry the format cannot hold as a single point (an interval enclosure)
// stays exact.
func RoundStream(runner eval.Runner, h [][]*big.Rat) [][]*big.Rat {
	out := make([][]*big.Rat, len(h))
	for i, row := range h {
		out[i] = make([]*big.Rat, len(row))
		for k, x := range row {
			out[i][k] = x
			if v, ok := runner.Round(x).Rat(); ok {
				out[i][k] = v
			}
		}
	}
	return out
}

func decimal(r *big.Rat) string {
	f, _ := r.Float64()
	return fmt.Sprintf("%.3g", f)
}

// CaseText prints a case: its Text, or its symbols joined, with spaces
// when some symbol is longer than one character.
func CaseText(m *model.Model, c recipes.Case) string {
	if c.Text != "" || c.Stream != nil {
		return c.Text
	}
	sep := ""
	for _, s := range c.Symbols {
		if len(m.Alphabet[s]) > 1 {
			sep = " "
			break
		}
	}
	parts := make([]string, len(c.Symbols))
	for i, s := range c.Symbols {
		parts[i] = m.Alphabet[s]
	}
	return strings.Join(parts, sep)
}

func gotText(g eval.PositionOutput) []string {
	var out []string
	if g.Symbol != "" {
		out = append(out, g.Symbol)
	}
	for _, v := range g.Values {
		out = append(out, v.Text)
	}
	return out
}
