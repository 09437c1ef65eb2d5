package proofs

import (
	"fmt"
	"math/big"
	"math/rand/v2"
	"sort"
	"strings"

	"github.com/transformer-cookbook/verify/check"
	"github.com/transformer-cookbook/verify/internal/plural"
	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/model/eval"
	"github.com/transformer-cookbook/verify/numeric"
	"github.com/transformer-cookbook/verify/recipes"
)

// Sweep describes a run of a recipe's own check (check.Run) as the
// evidence for a claim: the recipe, weighting and parameters, the largest
// length, and the precision (exact unless set).
type Sweep struct {
	Recipe    string
	Weighting model.Weighting
	Params    map[string]string
	MaxN      int
	Precision string
	// Cases is the number of random inputs per length beyond what can be
	// enumerated (a search); 0 means every length must be enumerated (a
	// proof for the finite domain).
	Cases int
	Seed  uint64
	// Unlisted allows a weighting the paper does not give the recipe for.
	Unlisted bool
	// AllLengths runs every length even after one fails, so that a
	// literal recipe's failures can be counted at each length.
	AllLengths bool
	// SqrtDKey reads the recipe's model under Definition def:attn: every
	// head's scores divided by √d_key (model.ScaleSqrtDKey). Only the
	// proofs' own runners honour it (those of the attention chapter); check.Run
	// runs the recipe's model as built.
	SqrtDKey bool
}

// Run runs the recipe's own check (check.Run) as s describes it.
func (s Sweep) Run() (*check.Report, *recipes.Recipe, error) {
	if s.SqrtDKey {
		return nil, nil, fmt.Errorf("%s: the recipe's own check runs its model as built, not under q·k/√d_key", s.Describe())
	}
	r, err := recipes.Get(s.Recipe)
	if err != nil {
		return nil, nil, err
	}
	p := "exact"
	if s.Precision != "" {
		p = s.Precision
	}
	lengths := make([]int, 0, s.MaxN)
	for n := max(1, r.MinN); n <= s.MaxN; n++ {
		lengths = append(lengths, n)
	}
	opts := check.Options{Precision: numeric.MustParsePrecision(p), Weighting: s.Weighting, MaxN: s.MaxN,
		Params: s.Params, Lengths: lengths, Cases: max(s.Cases, 1), Seed: s.Seed, Exhaustive: 1 << 16, Unlisted: s.Unlisted, AllLengths: s.AllLengths}
	rep, err := check.Run(r, opts)
	if err != nil || opts.Precision.Kind != numeric.KindInterval {
		return rep, r, err
	}
	// A verdict from interval arithmetic rests on the enclosures being
	// sound; an unsound operation (rounding inward, say) would go
	// unnoticed at one precision, so the sweep is re-run at twice the bits:
	// the verdict must be the same, and every output's two enclosures must
	// intersect, as two sound enclosures of one number do.
	again := opts
	again.Precision = numeric.Precision{Kind: numeric.KindInterval, Bits: 2 * opts.Precision.Bits}
	rep2, err := check.Run(r, again)
	if err != nil {
		return nil, nil, err
	}
	if rep2.Passed != rep.Passed {
		return nil, nil, fmt.Errorf("%s: the verdict at %s (passed: %v) differs from the one at %s (passed: %v): an enclosure is unsound", s.Describe(), rep.Precision, rep.Passed, rep2.Precision, rep2.Passed)
	}
	outputs, err := s.enclosuresIntersect(r, opts.Precision, again.Precision)
	if err != nil {
		return nil, nil, err
	}
	rep.Precision += fmt.Sprintf(", re-checked at %s (the same verdict; the two enclosures of each of %s intersect)", rep2.Precision, plural.Of(outputs, "output"))
	return rep, r, nil
}

// enclosuresIntersect runs every input the sweep checks (or its seeded
// sample) at both interval precisions and returns the number of output
// values compared, or an error naming the first whose enclosures are
// disjoint.
func (s Sweep) enclosuresIntersect(r *recipes.Recipe, lo, hi numeric.Precision) (int, error) {
	con, err := r.Construct(s.Weighting, s.MaxN, s.Params)
	if err != nil {
		return 0, err
	}
	var runners [2]eval.Runner
	for k, p := range []numeric.Precision{lo, hi} {
		if runners[k], err = eval.New(p, con.Model); err != nil {
			return 0, err
		}
	}
	rng := rand.New(rand.NewPCG(s.Seed, 0))
	compared := 0
	for n := max(1, r.MinN); n <= s.MaxN; n++ {
		cases, _ := con.Inputs(n, rng, max(s.Cases, 1<<16))
		for _, c := range cases {
			var res [2]*eval.Result
			for k, runner := range runners {
				if c.Stream != nil {
					res[k], err = runner.RunStream(c.Stream, false)
				} else {
					res[k], err = runner.Run(c.Symbols, false)
				}
				if err != nil {
					return 0, err
				}
			}
			k, err := intersecting(res[0], res[1], lo, hi)
			if err != nil {
				return 0, fmt.Errorf("%s: %w", s.Describe(), err)
			}
			compared += k
		}
	}
	return compared, nil
}

// intersecting checks that every output value of a (run at precision lo)
// and b (at hi) could be the same number, and returns how many it
// compared.
func intersecting(a, b *eval.Result, lo, hi numeric.Precision) (int, error) {
	compared := 0
	for i := range a.Outputs {
		for j, x := range a.Outputs[i].Values {
			y := b.Outputs[i].Values[j]
			compared++
			if x.Lo == nil || y.Lo == nil {
				continue // not finite at either precision: nothing to intersect
			}
			if x.Hi.Cmp(y.Lo) < 0 || y.Hi.Cmp(x.Lo) < 0 {
				return 0, fmt.Errorf("position %d, output %d: [%s, %s] at %s and [%s, %s] at %s are disjoint: an enclosure is unsound",
					i+1, j+1, x.Lo.FloatString(20), x.Hi.FloatString(20), lo, y.Lo.FloatString(20), y.Hi.FloatString(20), hi)
			}
		}
	}
	return compared, nil
}

// RunSymbols is RunStream for an input of symbols.
func RunSymbols(m *model.Model, p string, symbols []int) (*eval.Result, error) {
	return RunCrossChecked(m, p, func(r eval.Runner) (*eval.Result, error) { return r.Run(symbols, false) })
}

// RunStream runs m on the input stream h at precision p; at an interval
// precision it runs h again at twice the bits and returns an error unless
// every output's two enclosures intersect (see sweep.run), so that every
// interval run of the registry is checked for soundness.
func RunStream(m *model.Model, p string, h [][]*big.Rat) (*eval.Result, error) {
	return RunCrossChecked(m, p, func(r eval.Runner) (*eval.Result, error) { return r.RunStream(h, false) })
}

// RunCrossChecked runs m at precision p through run and, when p is an
// interval precision, again at twice the bits: every output's two
// enclosures must intersect, or it is an error.
func RunCrossChecked(m *model.Model, p string, run func(eval.Runner) (*eval.Result, error)) (*eval.Result, error) {
	prec, err := numeric.ParsePrecision(p)
	if err != nil {
		return nil, err
	}
	runner, err := eval.New(prec, m)
	if err != nil {
		return nil, err
	}
	res, err := run(runner)
	if err != nil || prec.Kind != numeric.KindInterval {
		return res, err
	}
	hi := numeric.Precision{Kind: numeric.KindInterval, Bits: 2 * prec.Bits}
	again, err := eval.New(hi, m)
	if err != nil {
		return nil, err
	}
	res2, err := run(again)
	if err != nil {
		return nil, err
	}
	if _, err := intersecting(res, res2, prec, hi); err != nil {
		return nil, err
	}
	return res, nil
}

// Describe names the sweep in a summary: recipe, weighting, parameters,
// lengths and precision.
func (s Sweep) Describe() string {
	var ps []string
	for k, v := range s.Params {
		ps = append(ps, k+"="+v)
	}
	sort.Strings(ps) // map order would make the summary, and docs/claims.md, flap
	d := fmt.Sprintf("%s under %s", s.Recipe, recipes.WeightingAcronym(s.Weighting))
	if r, err := recipes.Get(s.Recipe); err == nil && len(r.Weightings) == 0 {
		d = s.Recipe // no attention: the weighting plays no part
	}
	if len(ps) > 0 {
		d += " (" + strings.Join(ps, ", ") + ")"
	}
	if s.SqrtDKey {
		d += ", scores q·k/√d_key"
	}
	return d
}

// Exhaustive proves a claim over a finite domain: every input of every
// length up to maxN, in exact arithmetic (or the sweep's precision where
// the claim is about one), or refutes it with the first failing input.
func Exhaustive(s Sweep) (*Evidence, error) {
	rep, _, err := s.Run()
	if err != nil {
		return nil, err
	}
	cases := 0
	for _, lr := range rep.Lengths {
		cases += lr.Cases
		if !lr.Exhaustive && rep.Passed {
			return nil, fmt.Errorf("%s: length %d has too many inputs to enumerate (%d sampled); lower maxN or make it a search", s.Describe(), lr.N, lr.Cases)
		}
	}
	if !rep.Passed {
		return Failure(s, rep), nil
	}
	return &Evidence{Verdict: Proved, Summary: fmt.Sprintf("every input of length ≤ %d (%d inputs, %s, %s)", s.MaxN, cases, rep.Precision, s.Describe())}, nil
}

// Search runs a seeded random sweep: HOLDS when nothing fails, REFUTED
// with the first failure.
func Search(s Sweep) (*Evidence, error) {
	rep, _, err := s.Run()
	if err != nil {
		return nil, err
	}
	if !rep.Passed {
		return Failure(s, rep), nil
	}
	cases := 0
	for _, lr := range rep.Lengths {
		cases += lr.Cases
	}
	how := fmt.Sprintf("%d inputs of lengths 1 … %d, every input where at most %d, else %d random ones per length (seed %d)", cases, s.MaxN, 1<<16, s.Cases, s.Seed)
	return &Evidence{Verdict: Holds, Summary: fmt.Sprintf("no counterexample: %s, %s, %s", how, rep.Precision, s.Describe())}, nil
}

// Failure is the evidence of a failed check: REFUTED by its first
// counterexample, as the report gives it.
func Failure(s Sweep, rep *check.Report) *Evidence {
	f := rep.FirstFailure
	sum := fmt.Sprintf("%s on %q", s.Describe(), f.Input)
	if f.Position > 0 {
		sum += fmt.Sprintf(", position %d: %s", f.Position, f.Reason)
	} else {
		sum += ": " + f.Reason
	}
	ev := &Evidence{Verdict: Refuted, Summary: sum, Explain: []string{
		"input: " + f.Input, fmt.Sprintf("position %d", f.Position),
		"expected: " + strings.Join(f.Expected, ", "), "actual: " + strings.Join(f.Actual, ", "),
		"reason: " + f.Reason, "precision: " + rep.Precision}}
	return ev
}

// RunInput runs one input of a recipe (its symbols, or "x, y; x, y" for
// vector recipes) and compares every position with the recipe's
// reference: REFUTED with the first wrong position, else PROVED for that
// one input (a claim about a single example, like the paper's example
// strings), with the outputs in the summary.
func RunInput(s Sweep, input string) (*Evidence, error) {
	return RunInputs(s, []string{input})
}

// RunInputs is RunInput over several inputs: PROVED for those inputs, or
// REFUTED with the first wrong one. Each input must lie in the recipe's
// domain.
func RunInputs(s Sweep, inputs []string) (*Evidence, error) {
	r, err := recipes.Get(s.Recipe)
	if err != nil {
		return nil, err
	}
	con, err := r.Construct(s.Weighting, s.MaxN, s.Params)
	if err != nil {
		return nil, err
	}
	p := "exact"
	if s.Precision != "" {
		p = s.Precision
	}
	runner, err := eval.New(numeric.MustParsePrecision(p), con.Model)
	if err != nil {
		return nil, err
	}
	var outs []string
	for _, input := range inputs {
		var pos int
		var why string
		outs, pos, why, err = RunOne(s, con, runner, p, input)
		if err != nil {
			return nil, err
		}
		if pos > 0 {
			sum := fmt.Sprintf("%s on %q, position %d: %s", s.Describe(), input, pos, why)
			return &Evidence{Verdict: Refuted, Summary: sum, Explain: []string{sum}}, nil
		}
	}
	if len(inputs) == 1 {
		return &Evidence{Verdict: Proved, Summary: fmt.Sprintf("%s on %q, %s: every position as stated (%s)", s.Describe(), inputs[0], p, strings.Join(outs, "; "))}, nil
	}
	return &Evidence{Verdict: Proved, Summary: fmt.Sprintf("%s, %s: every one of %d inputs as stated", s.Describe(), p, len(inputs))}, nil
}

// RunOne runs one input of con at precision p and compares every
// position with the reference: the outputs, or the first wrong position
// (1-based; 0 when every position is right) and what is wrong there.
func RunOne(s Sweep, con *recipes.Construction, runner eval.Runner, p, input string) (outs []string, pos int, why string, err error) {
	var c recipes.Case
	if con.Parse != nil {
		c, err = con.Parse(input)
	} else {
		var syms []int
		syms, err = con.Model.Tokenize(input)
		c = recipes.Case{Symbols: syms}
	}
	if err != nil {
		return nil, 0, "", err
	}
	if con.Valid != nil {
		if err := con.Valid(c); err != nil {
			return nil, 0, "", fmt.Errorf("%s on %q: outside the domain: %w", s.Describe(), input, err)
		}
	}
	var res *eval.Result
	if c.Stream != nil {
		res, err = RunStream(con.Model, p, c.Stream)
		c.Stream = check.RoundStream(runner, c.Stream)
	} else {
		res, err = RunSymbols(con.Model, p, c.Symbols)
	}
	if err != nil {
		return nil, 0, "", err
	}
	want := con.Expected(c)
	for i, got := range res.Outputs {
		if ok, why := check.Compare(want[i], got, con.Bounds, con.Model.Output.Labels); !ok {
			return nil, i + 1, why, nil
		}
		o := got.Symbol
		for _, v := range got.Values {
			o += " " + v.Text
		}
		outs = append(outs, strings.TrimSpace(o))
	}
	return outs, 0, "", nil
}

// Construct builds recipe name for weighting w and length maxN with
// params.
func Construct(name string, w model.Weighting, maxN int, params map[string]string) (*recipes.Construction, error) {
	r, err := recipes.Get(name)
	if err != nil {
		return nil, err
	}
	return r.Construct(w, maxN, params)
}
