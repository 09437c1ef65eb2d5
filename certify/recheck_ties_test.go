package certify

import (
	"math/big"
	"strings"
	"testing"

	"github.com/transformer-cookbook/verify/certify/recheck"
	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/model/eval"
	"github.com/transformer-cookbook/verify/numeric"
)

// tiedPrefix is one average-hard head under the future mask where every
// position ties (q·k = 1) and the value writes 3 at an "a", 1 at a "b":
// each position's tie set holds two values in counts (and, at fp8, in
// orders) the input chooses.
func tiedPrefix() *model.Model {
	return &model.Model{
		Name:          "tied-prefix",
		Alphabet:      []string{"a", "b"},
		WordEmbedding: []model.Vector{model.IntVector(1, 1, 0), model.IntVector(1, 0, 0)},
		D:             3,
		Components:    []string{"1", "a", "out"},
		Layers: []model.Layer{{Attention: &model.Attention{
			Heads:     []model.Head{{Q: model.Ints([]int64{1, 0, 0}), K: model.Ints([]int64{1, 0, 0}), V: model.Ints([]int64{0, 0, 0}, []int64{0, 0, 0}, []int64{1, 2, 0})}},
			Mask:      model.Future,
			Weighting: model.AverageHardmax,
		}}},
		Output: model.Output{Kind: model.Readout, W: model.Ints([]int64{0, 0, 1})},
	}
}

// TestRecheckTieSets: the checker derives the tie sets' compositions,
// and their outputs over every order, itself: it accepts the true
// certificate, and refuses one that leaves a composition out, lists one
// the positions cannot make, gives a composition one output too few, or
// lists no tie sets at a query whose ties hold several values.
func TestRecheckTieSets(t *testing.T) {
	for _, p := range []string{"fp8-e4m3", "fp16"} {
		t.Run(p, func(t *testing.T) {
			m := tiedPrefix()
			prec := numeric.MustParsePrecision(p)
			runner, err := eval.New(prec, m)
			if err != nil {
				t.Fatal(err)
			}
			exact, err := eval.Instantiate[*big.Rat](numeric.Exact{}, m)
			if err != nil {
				t.Fatal(err)
			}
			always := func(_, _ eval.PositionOutput) (bool, string) { return true, "" }
			all := func(int, int) []int { return []int{0, 1} }
			res, err := Length(Input{Reference: m, Model: m, Precision: prec, Exact: exact, Runner: runner,
				Symbols: all, Right: always, noRecheck: true, keepTyped: true}, 5)
			if err != nil {
				t.Fatal(err)
			}
			if !res.Certified {
				t.Fatalf("not certified: %s", res.Why)
			}
			inst, err := eval.Underlying(runner)
			if err != nil {
				t.Fatal(err)
			}
			c := res.typed.(*recheck.Certificate[float64])
			in := recheck.Input[float64]{Reference: exact, Model: inst.(*eval.Instance[float64]), Symbols: all, Right: always}
			// The last query fact with tie sets, and the tie with the
			// most outputs (where the order matters at fp8).
			var fact *recheck.QueryFact[float64]
			for k := range c.Steps {
				for h := range c.Steps[k].Queries {
					for x := range c.Steps[k].Queries[h] {
						if f := &c.Steps[k].Queries[h][x]; len(f.Ties) > 1 {
							fact = f
						}
					}
				}
			}
			if fact == nil {
				t.Fatal("no fact lists tie sets: the test cannot tamper with them")
			}
			most := 0
			for x, tie := range fact.Ties {
				if len(tie.Outputs) > len(fact.Ties[most].Outputs) {
					most = x
				}
			}
			withTies := func(change func(f *recheck.QueryFact[float64])) *recheck.Certificate[float64] {
				bad := clone(c)
				for k := range bad.Steps {
					for h := range bad.Steps[k].Queries {
						for x := range bad.Steps[k].Queries[h] {
							f := &bad.Steps[k].Queries[h][x]
							f.Ties = append([]recheck.Tie[float64](nil), f.Ties...)
							if f.Lo == fact.Lo && f.Hi == fact.Hi && len(f.Ties) == len(fact.Ties) {
								change(f)
							}
						}
					}
				}
				return bad
			}
			cases := []struct {
				name, want string
				bad        *recheck.Certificate[float64]
			}{
				{"a composition left out", "omits the tie set", withTies(func(f *recheck.QueryFact[float64]) { f.Ties = f.Ties[1:] })},
				{"a composition's count raised", "cannot make", withTies(func(f *recheck.QueryFact[float64]) {
					tie := f.Ties[0]
					tie.Counts = append([]int(nil), tie.Counts...)
					tie.Counts[0] += f.Hi
					f.Ties[0] = tie
				})},
				{"no tie sets", "different values", withTies(func(f *recheck.QueryFact[float64]) { f.Ties = nil })},
			}
			if p == "fp8-e4m3" {
				if len(fact.Ties[most].Outputs) < 2 {
					t.Fatal("no tie set has two outputs at fp8-e4m3: the orders are not told apart")
				}
				cases = append(cases, struct {
					name, want string
					bad        *recheck.Certificate[float64]
				}{"an order's output left out", "does not list", withTies(func(f *recheck.QueryFact[float64]) {
					tie := f.Ties[most]
					tie.Outputs = tie.Outputs[1:]
					f.Ties[most] = tie
				})})
			}
			if _, err := recheck.Check(in, c); err != nil {
				t.Fatalf("the true certificate is refused: %v", err)
			}
			for _, tc := range cases {
				_, err := recheck.Check(in, tc.bad)
				if err == nil {
					t.Errorf("%s: accepted", tc.name)
					continue
				}
				if !strings.Contains(err.Error(), tc.want) {
					t.Errorf("%s: refused with %q, want it to say %q", tc.name, err, tc.want)
				}
			}
		})
	}
}
