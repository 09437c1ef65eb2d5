package certify_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/transformer-cookbook/verify/certify"
	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/model/eval"
	"github.com/transformer-cookbook/verify/numeric"
)

// mixedTies is one average-hard head over (1, a, out, out2) where every
// visible position ties (score q·k = 1) and the value writes va at an
// "a", vb at a "b" into out: a position averages the values of the
// positions it sees, a tie set of two value classes whose counts depend
// on the input. two adds a second head writing a's indicator into out2
// (a mean of 0s and 1s).
func mixedTies(va, vb int64, mask model.Mask, two bool) *model.Model {
	head := func(row []int64, outAt int) model.Head {
		v := [][]int64{{0, 0, 0, 0}, {0, 0, 0, 0}, {0, 0, 0, 0}, {0, 0, 0, 0}}
		v[outAt] = row
		return model.Head{Q: model.Ints([]int64{1, 0, 0, 0}), K: model.Ints([]int64{1, 0, 0, 0}), V: model.Ints(v...)}
	}
	heads := []model.Head{head([]int64{vb, va - vb, 0, 0}, 2)}
	if two {
		heads = append(heads, head([]int64{0, 1, 0, 0}, 3))
	}
	return &model.Model{
		Name:          "mixed-ties",
		Alphabet:      []string{"a", "b"},
		WordEmbedding: []model.Vector{model.IntVector(1, 1, 0, 0), model.IntVector(1, 0, 0, 0)},
		D:             4,
		Components:    []string{"1", "a", "out", "out2"},
		Layers:        []model.Layer{{Attention: &model.Attention{Heads: heads, Mask: mask, Weighting: model.AverageHardmax}}},
		Output:        model.Output{Kind: model.Readout, W: model.Ints([]int64{0, 0, 1, 0}, []int64{0, 0, 0, 1})},
	}
}

// runAll runs the model on every input over {a, b} of length n and
// returns the values every position gives at each output component
// (componentKey), and whether two inputs whose last position sees the same
// counts of a and b give it different outputs (the order matters).
func runAll(t *testing.T, m *model.Model, p string, n int) (map[string]bool, bool) {
	t.Helper()
	runner, err := eval.New(numeric.MustParsePrecision(p), m)
	if err != nil {
		t.Fatal(err)
	}
	outs := map[string]bool{}
	byCount := map[int]string{}
	order := false
	for code := range 1 << n {
		in := make([]int, n)
		as := 0
		for i := range in {
			in[i] = code >> i & 1 // 0: a, 1: b
			if in[i] == 0 {
				as++
			}
		}
		res, err := runner.Run(in, false)
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range res.Outputs {
			for c := range o.Values {
				outs[componentKey(o, c)] = true
			}
		}
		last := outputKey(res.Outputs[n-1])
		if m.Layers[0].Attention.Mask == model.Future {
			if k, ok := byCount[as]; ok && k != last {
				order = true
			}
			byCount[as] = last
		}
	}
	return outs, order
}

// componentKey names output component c's value: the analysis combines
// the two heads' outputs independently (an over-approximation), so the
// right outputs are judged component by component.
func componentKey(o eval.PositionOutput, c int) string {
	r, ok := o.Values[c].Rat()
	if !ok {
		return fmt.Sprintf("%d:%s", c, o.Values[c].Text)
	}
	return fmt.Sprintf("%d:%s", c, r.RatString())
}

func outputKey(o eval.PositionOutput) string {
	s := ""
	for _, v := range o.Values {
		r, ok := v.Rat()
		if !ok {
			s += v.Text + ";"
			continue
		}
		s += r.RatString() + ";"
	}
	return s
}

// TestMixedTiesByEnumeration: an average-hard head whose tie sets hold
// two values in counts the input chooses. Told that the right outputs
// are those that some input produces (every input run), the analysis
// must certify (it follows every composition, and every order where it
// matters); told that one of them is wrong, it must not: an analysis
// that left out a composition, or an order of the values that rounds
// otherwise (the count-only shortcut where two nonzero values share a
// component), would certify it anyway. The "order" cases are built so
// that two inputs with the same counts at the last position give it
// different outputs (checked), which the count-only shortcut misses.
func TestMixedTiesByEnumeration(t *testing.T) {
	for _, tc := range []struct {
		name      string
		va, vb    int64
		mask      model.Mask
		two       bool
		precision string
		n         int
		order     bool // two orders of one composition round apart
	}{
		{"one nonzero, fp16", 3, 0, model.Future, false, "fp16", 6, false},
		{"one nonzero, fp8-e4m3", 3, 0, model.Future, false, "fp8-e4m3", 6, false},
		{"one nonzero, bf16, no mask", 1, 0, model.NoMask, false, "bf16", 5, false},
		{"one nonzero, exact", 3, 1, model.Future, false, "exact", 5, false},
		{"two nonzero, fp8-e4m3", 3, 1, model.Future, false, "fp8-e4m3", 6, true},
		{"two nonzero, fp8-e5m2", 3, 1, model.Future, false, "fp8-e5m2", 6, true},
		{"two nonzero, bf16", 255, 1, model.Future, false, "bf16", 6, true},
		{"two nonzero, fp16", 2047, 1, model.Future, false, "fp16", 6, true},
		{"values swapped", 0, 3, model.Future, false, "fp16", 6, false},
		{"a second head", 3, 0, model.Future, true, "fp8-e4m3", 5, false},
		{"a second head, two nonzero", 3, 1, model.Future, true, "fp8-e4m3", 5, true},
		{"strict mask", 3, 0, model.StrictFuture, false, "fp16", 6, false},
		{"strict mask, two nonzero", 3, 1, model.StrictFuture, false, "fp8-e4m3", 6, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := mixedTies(tc.va, tc.vb, tc.mask, tc.two)
			outs, order := runAll(t, m, tc.precision, tc.n)
			if tc.order && !order {
				t.Fatalf("no two inputs of equal counts give the last position different outputs: the case cannot tell orders apart")
			}
			judge := func(right map[string]bool) func(_, got eval.PositionOutput) (bool, string) {
				return func(_, got eval.PositionOutput) (bool, string) {
					for c := range got.Values {
						if !right[componentKey(got, c)] {
							return false, "not among the outputs allowed"
						}
					}
					return true, ""
				}
			}
			all := func(int, int) []int { return []int{0, 1} }
			in := certify.Input{Reference: m, Model: m, Precision: numeric.MustParsePrecision(tc.precision), Symbols: all, Right: judge(outs)}
			res, err := certify.Length(in, tc.n)
			if err != nil {
				t.Fatal(err)
			}
			if !res.Certified || res.Refused {
				t.Fatalf("not certified against every output some input gives: %s", res.Why)
			}
			keys := make([]string, 0, len(outs))
			for k := range outs {
				keys = append(keys, k)
			}
			slices.Sort(keys)
			for _, k := range keys {
				less := map[string]bool{}
				for o := range outs {
					less[o] = o != k
				}
				in.Right = judge(less)
				res, err := certify.Length(in, tc.n)
				if err != nil {
					t.Fatal(err)
				}
				if res.Certified {
					t.Errorf("certified although some input outputs %s, called wrong", k)
				}
			}
		})
	}
}

// TestMixedTiesGivesUpWithReason: at an interval precision, where the
// count-only argument is not made, it says why rather than certify.
func TestMixedTiesGivesUpWithReason(t *testing.T) {
	m := mixedTies(3, 1, model.Future, false)
	all := func(int, int) []int { return []int{0, 1} }
	right := func(_, _ eval.PositionOutput) (bool, string) { return true, "" }
	res, err := certify.Length(certify.Input{Reference: m, Model: m, Precision: numeric.MustParsePrecision("interval:24"), Symbols: all, Right: right}, 4)
	if err != nil {
		t.Skipf("no interval precision: %v", err)
	}
	if res.Certified {
		t.Fatalf("certified at an interval precision, where the count-only argument is not made")
	}
	if want := "interval"; !strings.Contains(res.Why, want) {
		t.Errorf("why = %q, want it to say %q", res.Why, want)
	}
}
