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
	"github.com/transformer-cookbook/verify/numeric"
	"github.com/transformer-cookbook/verify/recipes"
)

// sweep describes a run of a recipe's own check (check.Run) as the
// evidence for a claim: the recipe, weighting and parameters, the largest
// length, and the precision (exact unless set).
type sweep struct {
	recipe    string
	weighting model.Weighting
	params    map[string]string
	maxN      int
	precision string
	// cases is the number of random inputs per length beyond what can be
	// enumerated (a search); 0 means every length must be enumerated (a
	// proof for the finite domain).
	cases int
	seed  uint64
	// unlisted allows a weighting the paper does not give the recipe for.
	unlisted bool
	// allLengths runs every length even after one fails, so that a
	// literal recipe's failures can be counted at each length.
	allLengths bool
	// sqrtDKey reads the recipe's model under Definition def:attn: every
	// head's scores divided by √d_key (model.ScaleSqrtDKey). Only the
	// proofs' own runners honour it (attnSoftRun, attnScaledRun); check.Run
	// runs the recipe's model as built.
	sqrtDKey bool
}

func (s sweep) run() (*check.Report, *recipes.Recipe, error) {
	if s.sqrtDKey {
		return nil, nil, fmt.Errorf("%s: the recipe's own check runs its model as built, not under q·k/√d_key", s.describe())
	}
	r, err := recipes.Get(s.recipe)
	if err != nil {
		return nil, nil, err
	}
	p := "exact"
	if s.precision != "" {
		p = s.precision
	}
	lengths := make([]int, 0, s.maxN)
	for n := max(1, r.MinN); n <= s.maxN; n++ {
		lengths = append(lengths, n)
	}
	opts := check.Options{Precision: numeric.MustParsePrecision(p), Weighting: s.weighting, MaxN: s.maxN,
		Params: s.params, Lengths: lengths, Cases: max(s.cases, 1), Seed: s.seed, Exhaustive: 1 << 16, Unlisted: s.unlisted, AllLengths: s.allLengths}
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
		return nil, nil, fmt.Errorf("%s: the verdict at %s (passed: %v) differs from the one at %s (passed: %v): an enclosure is unsound", s.describe(), rep.Precision, rep.Passed, rep2.Precision, rep2.Passed)
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
func (s sweep) enclosuresIntersect(r *recipes.Recipe, lo, hi numeric.Precision) (int, error) {
	con, err := r.Construct(s.weighting, s.maxN, s.params)
	if err != nil {
		return 0, err
	}
	var runners [2]model.Runner
	for k, p := range []numeric.Precision{lo, hi} {
		if runners[k], err = model.New(p, con.Model); err != nil {
			return 0, err
		}
	}
	rng := rand.New(rand.NewPCG(s.seed, 0))
	compared := 0
	for n := max(1, r.MinN); n <= s.maxN; n++ {
		cases, _ := con.Inputs(n, rng, max(s.cases, 1<<16))
		for _, c := range cases {
			var res [2]*model.Result
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
				return 0, fmt.Errorf("%s: %w", s.describe(), err)
			}
			compared += k
		}
	}
	return compared, nil
}

// intersecting checks that every output value of a (run at precision lo)
// and b (at hi) could be the same number, and returns how many it
// compared.
func intersecting(a, b *model.Result, lo, hi numeric.Precision) (int, error) {
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

// runSymbols is runStream for an input of symbols.
func runSymbols(m *model.Model, p string, symbols []int) (*model.Result, error) {
	return runCrossChecked(m, p, func(r model.Runner) (*model.Result, error) { return r.Run(symbols, false) })
}

// runStream runs m on the input stream h at precision p; at an interval
// precision it runs h again at twice the bits and returns an error unless
// every output's two enclosures intersect (see sweep.run), so that every
// interval run of the registry is checked for soundness.
func runStream(m *model.Model, p string, h [][]*big.Rat) (*model.Result, error) {
	return runCrossChecked(m, p, func(r model.Runner) (*model.Result, error) { return r.RunStream(h, false) })
}

func runCrossChecked(m *model.Model, p string, run func(model.Runner) (*model.Result, error)) (*model.Result, error) {
	prec, err := numeric.ParsePrecision(p)
	if err != nil {
		return nil, err
	}
	runner, err := model.New(prec, m)
	if err != nil {
		return nil, err
	}
	res, err := run(runner)
	if err != nil || prec.Kind != numeric.KindInterval {
		return res, err
	}
	hi := numeric.Precision{Kind: numeric.KindInterval, Bits: 2 * prec.Bits}
	again, err := model.New(hi, m)
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

func (s sweep) describe() string {
	var ps []string
	for k, v := range s.params {
		ps = append(ps, k+"="+v)
	}
	sort.Strings(ps) // map order would make the summary, and docs/claims.md, flap
	d := fmt.Sprintf("%s under %s", s.recipe, recipes.WeightingAcronym(s.weighting))
	if r, err := recipes.Get(s.recipe); err == nil && len(r.Weightings) == 0 {
		d = s.recipe // no attention: the weighting plays no part
	}
	if len(ps) > 0 {
		d += " (" + strings.Join(ps, ", ") + ")"
	}
	if s.sqrtDKey {
		d += ", scores q·k/√d_key"
	}
	return d
}

// exhaustive proves a claim over a finite domain: every input of every
// length up to maxN, in exact arithmetic (or the sweep's precision where
// the claim is about one), or refutes it with the first failing input.
func exhaustive(s sweep) (*Evidence, error) {
	rep, _, err := s.run()
	if err != nil {
		return nil, err
	}
	cases := 0
	for _, lr := range rep.Lengths {
		cases += lr.Cases
		if !lr.Exhaustive && rep.Passed {
			return nil, fmt.Errorf("%s: length %d has too many inputs to enumerate (%d sampled); lower maxN or make it a search", s.describe(), lr.N, lr.Cases)
		}
	}
	if !rep.Passed {
		return failure(s, rep), nil
	}
	return &Evidence{Verdict: Proved, Summary: fmt.Sprintf("every input of length ≤ %d (%d inputs, %s, %s)", s.maxN, cases, rep.Precision, s.describe())}, nil
}

// search runs a seeded random sweep: HOLDS when nothing fails, REFUTED
// with the first failure.
func search(s sweep) (*Evidence, error) {
	rep, _, err := s.run()
	if err != nil {
		return nil, err
	}
	if !rep.Passed {
		return failure(s, rep), nil
	}
	cases := 0
	for _, lr := range rep.Lengths {
		cases += lr.Cases
	}
	how := fmt.Sprintf("%d inputs of lengths 1 … %d, every input where at most %d, else %d random ones per length (seed %d)", cases, s.maxN, 1<<16, s.cases, s.seed)
	return &Evidence{Verdict: Holds, Summary: fmt.Sprintf("no counterexample: %s, %s, %s", how, rep.Precision, s.describe())}, nil
}

func failure(s sweep, rep *check.Report) *Evidence {
	f := rep.FirstFailure
	sum := fmt.Sprintf("%s on %q", s.describe(), f.Input)
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

// runInput runs one input of a recipe (its symbols, or "x, y; x, y" for
// vector recipes) and compares every position with the recipe's
// reference: REFUTED with the first wrong position, else PROVED for that
// one input (a claim about a single example, like the paper's example
// strings), with the outputs in the summary.
func runInput(s sweep, input string) (*Evidence, error) {
	return runInputs(s, []string{input})
}

// runInputs is runInput over several inputs: PROVED for those inputs, or
// REFUTED with the first wrong one. Each input must lie in the recipe's
// domain.
func runInputs(s sweep, inputs []string) (*Evidence, error) {
	r, err := recipes.Get(s.recipe)
	if err != nil {
		return nil, err
	}
	con, err := r.Construct(s.weighting, s.maxN, s.params)
	if err != nil {
		return nil, err
	}
	p := "exact"
	if s.precision != "" {
		p = s.precision
	}
	runner, err := model.New(numeric.MustParsePrecision(p), con.Model)
	if err != nil {
		return nil, err
	}
	var outs []string
	for _, input := range inputs {
		var pos int
		var why string
		outs, pos, why, err = runOne(s, con, runner, p, input)
		if err != nil {
			return nil, err
		}
		if pos > 0 {
			sum := fmt.Sprintf("%s on %q, position %d: %s", s.describe(), input, pos, why)
			return &Evidence{Verdict: Refuted, Summary: sum, Explain: []string{sum}}, nil
		}
	}
	if len(inputs) == 1 {
		return &Evidence{Verdict: Proved, Summary: fmt.Sprintf("%s on %q, %s: every position as stated (%s)", s.describe(), inputs[0], p, strings.Join(outs, "; "))}, nil
	}
	return &Evidence{Verdict: Proved, Summary: fmt.Sprintf("%s, %s: every one of %d inputs as stated", s.describe(), p, len(inputs))}, nil
}

// runOne runs one input of con at precision p and compares every
// position with the reference: the outputs, or the first wrong position
// (1-based; 0 when every position is right) and what is wrong there.
func runOne(s sweep, con *recipes.Construction, runner model.Runner, p, input string) (outs []string, pos int, why string, err error) {
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
			return nil, 0, "", fmt.Errorf("%s on %q: outside the domain: %w", s.describe(), input, err)
		}
	}
	var res *model.Result
	if c.Stream != nil {
		res, err = runStream(con.Model, p, c.Stream)
		c.Stream = check.RoundStream(runner, c.Stream)
	} else {
		res, err = runSymbols(con.Model, p, c.Symbols)
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
