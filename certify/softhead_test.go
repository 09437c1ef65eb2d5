package certify_test

import (
	"math/big"
	"testing"

	"github.com/transformer-cookbook/verify/certify"
	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/model/eval"
	"github.com/transformer-cookbook/verify/numeric"
)

// within returns the comparison of §Simulating Average-Hard Attention
// with Soft Attention on the one-hot lookup: c within 1/4 of the hard
// reference's, every other output exactly.
func within(labels []string) func(ref, got eval.PositionOutput) (bool, string) {
	quarter := big.NewRat(1, 4)
	return func(ref, got eval.PositionOutput) (bool, string) {
		for k := range ref.Values {
			want, _ := ref.Values[k].Rat()
			have, ok := got.Values[k].Rat()
			if !ok {
				return false, got.Values[k].Text + " is not a number"
			}
			d := new(big.Rat).Sub(have, want)
			if labels[k] == "c" && d.Abs(d).Cmp(quarter) <= 0 || labels[k] != "c" && d.Sign() == 0 {
				continue
			}
			return false, labels[k] + " = " + got.Values[k].Text + ", want " + want.RatString()
		}
		return true, ""
	}
}

// TestSoftmaxBesideHardSound: the softmax lookup of hardmax-softmax at
// a format, beside the one-hot lookup under average hardmax in exact
// arithmetic (the attention it simulates): at each length the analysis
// certifies, every input run whole (model.Run at the format, and the
// reference exactly) is right, and at each length it refuses, some
// input is wrong. A perturbed model (the temperature's weight moved)
// is held to the same.
func TestSoftmaxBesideHardSound(t *testing.T) {
	const N = 4
	ref := build(t, "lookup-onehot", model.AverageHardmax, N, nil)
	soft := build(t, "hardmax-softmax", model.Softmax, N, nil)
	labels := soft.Model.Output.Labels
	right := within(labels)
	for _, p := range []string{"fp8-e4m3", "bf16", "fp16", "fp32"} {
		for n := 1; n <= N; n++ {
			res, err := certify.Length(certify.Input{Reference: ref.Model, Model: soft.Model, Precision: numeric.MustParsePrecision(p),
				Symbols: soft.Symbols, Right: right}, n)
			if err != nil {
				t.Fatal(err)
			}
			if res.Refused {
				t.Fatalf("%s n = %d: the checker refused: %s", p, n, res.Why)
			}
			bad, count := wrongEvery(t, ref.Model, soft.Model, p, n, soft.Symbols, right)
			t.Logf("%s n = %d: certified %v (%s), %d inputs run, wrong %v", p, n, res.Certified, res.Why, count, bad)
			if res.Certified && bad != nil {
				t.Errorf("%s n = %d: certified, but the input %v is wrong", p, n, bad)
			}
		}
	}
}

// wrongEvery runs every input of length n that symbols allows through m
// at precision p and ref exactly, whole, and returns the first input
// right does not accept, and the number run.
func wrongEvery(t *testing.T, ref, m *model.Model, p string, n int, symbols func(i, n int) []int, right func(ref, got eval.PositionOutput) (bool, string)) (bad []int, count int) {
	t.Helper()
	runner, err := eval.New(numeric.MustParsePrecision(p), m)
	if err != nil {
		t.Fatal(err)
	}
	exact, err := eval.New(numeric.MustParsePrecision("exact"), ref)
	if err != nil {
		t.Fatal(err)
	}
	in := make([]int, n)
	var walk func(i int)
	walk = func(i int) {
		if i == n {
			count++
			want, err := exact.Run(in, false)
			if err != nil {
				t.Fatal(err)
			}
			got, err := runner.Run(in, false)
			if err != nil {
				t.Fatal(err)
			}
			for k := range want.Outputs {
				if ok, _ := right(want.Outputs[k], got.Outputs[k]); !ok && bad == nil {
					bad = append([]int(nil), in...)
				}
			}
			return
		}
		for _, s := range symbols(i+1, n) {
			in[i] = s
			walk(i + 1)
		}
	}
	walk(0)
	return bad, count
}

// scaleHead multiplies every entry of the first attention head's Q
// (which = "Q") or V of m by f, in place.
func scaleHead(m *model.Model, which string, f *big.Rat) {
	for _, l := range m.Layers {
		if l.Attention == nil {
			continue
		}
		hd := &l.Attention.Heads[0]
		mat := hd.Q
		if which == "V" {
			mat = hd.V
		}
		for k, e := range mat.Data {
			if !e.IsZeroLiteral() {
				mat.Data[k] = numeric.Mul(e, numeric.Lit(f))
			}
		}
		return
	}
}

// TestSoftmaxBesideHardPerturbed: the softmax lookup with its
// temperature changed (the weight log(8N) of W^Q divided by 8, so that
// the weights stop concentrating) and with W^V moved (by 2^-11, an ulp
// of fp16 at 1 and below bf16's, and by 1/2): at every length the
// analysis certifies, every input run whole is right; and where an
// input is wrong it does not certify. Some perturbation must be caught
// (wrong and not certified), or the test proves nothing.
func TestSoftmaxBesideHardPerturbed(t *testing.T) {
	const N = 3
	ref := build(t, "lookup-onehot", model.AverageHardmax, N, nil)
	caught := 0
	for _, tc := range []struct {
		which string
		f     *big.Rat
	}{{"Q", big.NewRat(1, 8)}, {"V", big.NewRat(2049, 2048)}, {"V", big.NewRat(3, 2)}} {
		soft := build(t, "hardmax-softmax", model.Softmax, N, nil)
		scaleHead(soft.Model, tc.which, tc.f)
		right := within(soft.Model.Output.Labels)
		for _, p := range []string{"bf16", "fp16", "fp32"} {
			for n := 1; n <= N; n++ {
				res, err := certify.Length(certify.Input{Reference: ref.Model, Model: soft.Model, Precision: numeric.MustParsePrecision(p),
					Symbols: soft.Symbols, Right: right}, n)
				if err != nil {
					t.Fatal(err)
				}
				if res.Refused {
					t.Fatalf("%s × %s, %s n = %d: the checker refused: %s", tc.which, tc.f.RatString(), p, n, res.Why)
				}
				bad, _ := wrongEvery(t, ref.Model, soft.Model, p, n, soft.Symbols, right)
				if res.Certified && bad != nil {
					t.Errorf("%s × %s, %s n = %d: certified, but the input %v is wrong", tc.which, tc.f.RatString(), p, n, bad)
				}
				if !res.Certified && bad != nil {
					caught++
				}
			}
		}
	}
	if caught == 0 {
		t.Error("no perturbation made an input wrong")
	}
	t.Logf("%d lengths wrong and not certified", caught)
}
