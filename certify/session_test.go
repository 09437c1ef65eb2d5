package certify

import (
	"cmp"
	"fmt"
	"math/big"
	"testing"

	"github.com/transformer-cookbook/verify/certify/recheck"
	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/model/eval"
	"github.com/transformer-cookbook/verify/numeric"
)

// TestRecheckSessionRefusesStaleFacts: within a session, the checker
// carries what it verified at a query over 1 … n to the range 1 … n + 1
// only when the key of position n + 1 scores strictly below every
// candidate in both models. Where the new key ties with the candidates
// (a uniform head: every key scores the same), the fact of length n,
// handed on unchanged as the fact of length n + 1, leaves a candidate
// out and is false; the checker must refuse it, in the session as on its
// own. The test counts the stale facts it handed on, so that it cannot
// pass by tampering with nothing.
func TestRecheckSessionRefusesStaleFacts(t *testing.T) {
	cases := []struct {
		recipe string
		w      model.Weighting
		p      string
		maxN   int
	}{
		// Not a recipe: a head whose key at position 2 jumps above
		// position 1's at n = 3 (shiftingHead).
		{"", model.LeftHardmax, "fp32", 3},
		{"first-uhat", model.LeftHardmax, "exact", 6},
		{"first-uhat", model.LeftHardmax, "fp16", 6},
		{"identity-attn", model.LeftHardmax, "fp32", 8},
		{"identity-attn", model.AverageHardmax, "exact", 8},
	}
	stale := 0
	for _, c := range cases {
		var k int
		switch c.p {
		case "exact":
			k = staleFacts[*big.Rat](t, c.recipe, c.w, c.p, c.maxN)
		case "fp32":
			k = staleFacts[float32](t, c.recipe, c.w, c.p, c.maxN)
		default:
			k = staleFacts[float64](t, c.recipe, c.w, c.p, c.maxN)
		}
		if k == 0 {
			t.Errorf("%s %s at %s: no stale fact handed on", cmp.Or(c.recipe, "shifting head"), c.w, c.p)
		}
		stale += k
	}
	t.Logf("%d stale facts handed on, each refused", stale)
	if stale < 10 {
		t.Errorf("only %d stale facts handed on", stale)
	}
}

// staleFacts hands on the facts of each length 1 … maxN − 1 of the
// recipe's model to the next (handOn), and returns their count.
func staleFacts[T any](t *testing.T, recipe string, w model.Weighting, p string, maxN int) int {
	var certs []*recheck.Certificate[T]
	var in recheck.Input[T]
	for n := 1; n <= maxN; n++ {
		var c *recheck.Certificate[T]
		var cin recheck.Input[T]
		if recipe == "" {
			c, cin = modelCertificate[T](t, shiftingHead(), p, n)
		} else {
			c, cin = certificateOf[T](t, recipe, w, maxN, nil, p, n)
		}
		certs, in = append(certs, c), cin
	}
	stale := 0
	for n := 1; n < maxN; n++ {
		stale += handOn(t, fmt.Sprintf("%s %s at %s, n = %d → %d", cmp.Or(recipe, "shifting head"), w, p, n, n+1), in, certs[:n+1])
	}
	return stale
}

// handOn checks certs[0 … k−2] in one session, then certs[k−1] with every
// fact over 1 … n + 1 whose candidates differ from those of its query's
// fact over 1 … n at the length before replaced by that fact (its range
// extended), and requires a refusal, in the session and on its own. It
// returns the number of facts replaced (0: the certificate was left
// alone, and not checked).
func handOn[T any](t *testing.T, name string, in recheck.Input[T], certs []*recheck.Certificate[T]) int {
	t.Helper()
	prev, next := certs[len(certs)-2], certs[len(certs)-1]
	bad := clone(next)
	replaced := 0
	for k := range bad.Steps {
		for h := range bad.Steps[k].Queries {
			for x := range bad.Steps[k].Queries[h] {
				f := &bad.Steps[k].Queries[h][x]
				if f.Hi != next.N {
					continue
				}
				for _, g := range prev.Steps[k].Queries[h] {
					if g.Lo == f.Lo && g.Hi == prev.N && !samePositions(g.Candidates, f.Candidates) && sameState(in.Model.B, g.Query, f.Query) {
						*f = g
						f.Hi = next.N
						replaced++
						break
					}
				}
			}
		}
	}
	if replaced == 0 {
		return 0
	}
	s := recheck.NewSession[T]()
	for _, c := range certs[:len(certs)-1] {
		if _, err := recheck.CheckNext(in, c, s); err != nil {
			t.Fatalf("%s: the true certificate of n = %d is refused: %v", name, c.N, err)
		}
	}
	if _, err := recheck.CheckNext(in, bad, s); err == nil {
		t.Errorf("%s: %d facts of n = %d handed on to n = %d accepted in the session", name, replaced, prev.N, next.N)
	}
	if _, err := recheck.Check(in, bad); err == nil {
		t.Errorf("%s: %d facts of n = %d handed on to n = %d accepted", name, replaced, prev.N, next.N)
	}
	return replaced
}

// samePositions reports whether two lists of candidates hold the same
// positions, in order.
func samePositions[T any](x, y []recheck.Item[T]) bool {
	if len(x) != len(y) {
		return false
	}
	for k := range x {
		if x[k].Pos != y[k].Pos {
			return false
		}
	}
	return true
}

func sameState[T any](b numeric.Backend[T], x, y recheck.State[T]) bool {
	if len(x.Ref) != len(y.Ref) || len(x.Model) != len(y.Model) {
		return false
	}
	for c := range x.Ref {
		if x.Ref[c].Cmp(y.Ref[c]) != 0 || b.Cmp(x.Model[c], y.Model[c]) != numeric.Equal {
			return false
		}
	}
	return true
}

// shiftingHead is one head of leftmost hardmax over one symbol, whose
// value is 1 (so that every length is right), with keys read from a
// position encoding that depends on n: position 1 scores 0, position 2
// −2 at n = 2 and 5 from n = 3 on, position i ≥ 3 scores −i. At n = 3 the
// candidate moves from position 1 to position 2 although position 1
// holds what it held at n = 2, and the new position 3 scores below
// both: only the change at position 2 says that the fact of n = 2 does
// not carry.
func shiftingHead() *model.Model {
	const D = 3 // 1, the key, the output
	word := []model.Vector{{num(1), num(0), num(0)}}
	pos := &model.PositionEncoding{Name: "shifting", Vector: func(i, n int) model.Vector {
		k := int64(-i)
		switch {
		case i == 1:
			k = 0
		case i == 2 && n >= 3:
			k = 5
		}
		return model.Vector{num(0), num(k), num(0)}
	}}
	q, k, v := model.Zeros(1, D), model.Zeros(1, D), model.Zeros(D, D)
	q.Data[0], k.Data[1], v.Data[2*D+0] = num(1), num(1), num(1)
	r := model.Zeros(1, D)
	r.Data[2] = num(1)
	return &model.Model{Name: "shifting", Alphabet: []string{"a"}, WordEmbedding: word, Position: pos, D: D,
		Layers: []model.Layer{{Attention: &model.Attention{Mask: model.NoMask, Weighting: model.LeftHardmax, Scale: model.NoScale,
			Heads: []model.Head{{Q: q, K: k, V: v}}}}},
		Output: model.Output{Kind: model.Readout, W: r}}
}

// modelCertificate is certificateOf for a model that is its own reference.
func modelCertificate[T any](t *testing.T, m *model.Model, p string, n int) (*recheck.Certificate[T], recheck.Input[T]) {
	t.Helper()
	prec := numeric.MustParsePrecision(p)
	runner, err := eval.New(prec, m)
	if err != nil {
		t.Fatal(err)
	}
	exact, err := eval.Instantiate[*big.Rat](numeric.Exact{}, m)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Length(Input{Reference: m, Model: m, Precision: prec, Exact: exact, Runner: runner,
		Right: exactlyRight, noRecheck: true, keepTyped: true}, n)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Certified {
		t.Fatalf("%s at %s, n = %d: not certified: %s", m.Name, p, n, res.Why)
	}
	inst, err := eval.Underlying(runner)
	if err != nil {
		t.Fatal(err)
	}
	return res.typed.(*recheck.Certificate[T]), recheck.Input[T]{Reference: exact, Model: inst.(*eval.Instance[T]), Right: exactlyRight}
}
