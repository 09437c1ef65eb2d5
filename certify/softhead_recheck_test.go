package certify

import (
	"math/big"
	"testing"

	"github.com/transformer-cookbook/verify/certify/recheck"
	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/model/eval"
	"github.com/transformer-cookbook/verify/numeric"
)

// TestRecheckRefusesSoftTampering: the certificate of the softmax lookup
// of hardmax-softmax beside average hardmax at fp16 is accepted, and
// each false change to a softmax query's outputs (one left out, one
// added) or to the final states is refused, by the checker's own
// derivation of the softmax outputs.
func TestRecheckRefusesSoftTampering(t *testing.T) {
	const N, n = 3, 3
	ref := construct(t, "lookup-onehot", model.AverageHardmax, N)
	soft := construct(t, "hardmax-softmax", model.Softmax, N)
	prec := numeric.MustParsePrecision("fp16")
	runner, err := eval.New(prec, soft.Model)
	if err != nil {
		t.Fatal(err)
	}
	exact, err := eval.Instantiate[*big.Rat](numeric.Exact{}, ref.Model)
	if err != nil {
		t.Fatal(err)
	}
	quarter := big.NewRat(1, 4)
	labels := soft.Model.Output.Labels
	right := func(r, got eval.PositionOutput) (bool, string) {
		for k := range r.Values {
			want, _ := r.Values[k].Rat()
			have, ok := got.Values[k].Rat()
			if !ok {
				return false, "not a number"
			}
			d := new(big.Rat).Sub(have, want)
			if labels[k] == "c" && d.Abs(d).Cmp(quarter) > 0 || labels[k] != "c" && d.Sign() != 0 {
				return false, "wrong"
			}
		}
		return true, ""
	}
	res, err := Length(Input{Reference: ref.Model, Model: soft.Model, Precision: prec, Exact: exact, Runner: runner,
		Symbols: soft.Symbols, Right: right, noRecheck: true, keepTyped: true}, n)
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
	in := recheck.Input[float64]{Reference: exact, Model: inst.(*eval.Instance[float64]), Symbols: soft.Symbols, Right: right}
	b := in.Model.B
	softFact := func(c *recheck.Certificate[float64]) *recheck.QueryFact[float64] {
		for k := range c.Steps {
			for h := range c.Steps[k].Queries {
				for x := range c.Steps[k].Queries[h] {
					if f := &c.Steps[k].Queries[h][x]; f.Lo <= f.Hi && len(f.Outputs) > 1 {
						return f
					}
				}
			}
		}
		return nil
	}
	var ts []tampering[float64]
	for _, tc := range tamperings(b) {
		if tc.name == "a state left out" || tc.name == "a state's values changed" {
			ts = append(ts, tc)
		}
	}
	ts = append(ts,
		tampering[float64]{"a softmax output left out", "which the certificate does not list", func(c *recheck.Certificate[float64]) bool {
			f := softFact(c)
			if f == nil {
				return false
			}
			f.Outputs = f.Outputs[1:]
			return true
		}},
		tampering[float64]{"a softmax output added", "which the head cannot give", func(c *recheck.Certificate[float64]) bool {
			f := softFact(c)
			if f == nil {
				return false
			}
			o := f.Outputs[0]
			m := append([]float64(nil), o.Model...)
			m[0] = b.Add(b.New(), m[0], b.SetRat(b.New(), big.NewRat(1, 1024)))
			f.Outputs = append(append([]recheck.State[float64](nil), f.Outputs...), recheck.State[float64]{Ref: o.Ref, Model: m})
			return true
		}})
	tamper(t, c, in, ts)
}
