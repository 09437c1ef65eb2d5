package certify

import (
	"fmt"
	"math/big"
	"testing"

	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/model/eval"
	"github.com/transformer-cookbook/verify/numeric"
	"github.com/transformer-cookbook/verify/recipes"
)

// TestChainIsEachLength: lengths analysed one after another with a chain
// (each head's conclusions carried to the next length, and the checker's
// session) reach, at every length, the verdict of the length analysed on
// its own: certified, decided, and never refused by the checker. On
// recipes with unmasked, causal and strict heads, one layer and three, at
// the formats where their orders break, across the first length that
// fails; and on the lookup with one position-only component made
// symbol-dependent (positions holding two keys). The test counts the
// conclusions the chain carried, so that it cannot pass by carrying none.
func TestChainIsEachLength(t *testing.T) {
	type tc struct {
		recipe string
		w      model.Weighting
		p      string
		maxN   int
		m      func(*model.Model) *model.Model
		// symbols, when set, narrows the inputs (nil: the recipe's).
		symbols func(con *recipes.Construction) func(i, n int) []int
	}
	cases := []tc{
		{"lookup", model.AverageHardmax, "fp16", 50, nil, nil},
		{"lookup", model.LeftHardmax, "bf16", 20, nil, nil},
		{"lookup", model.AverageHardmax, "fp8-e4m3", 8, nil, nil},
		{"lookup-onehot", model.AverageHardmax, "fp16", 12, nil, nil},
		{"pred", model.RightHardmax, "fp16", 12, nil, nil},
		{"pred-strict", model.LeftHardmax, "bf16", 12, nil, nil},
		{"induction-recent", model.RightHardmax, "fp16", 7, nil, nil},
		{"first-uhat", model.LeftHardmax, "fp8-e5m2", 12, nil, nil},
		{"multihead", model.LeftHardmax, "fp16", 10, nil, nil},
		{"lookup", model.AverageHardmax, "fp32", 6, func(m *model.Model) *model.Model {
			return withEmbedding(t, m, "2:1", "j²", 1)
		}, nil},
		// Uniform heads: each new key ties with the candidates, exactly
		// and in the model, so nothing is carried over a growing range.
		{"identity-attn", model.LeftHardmax, "fp16", 10, nil, nil},
		{"first-uhat", model.LeftHardmax, "bf16", 10, nil, nil},
		// Queries q ≤ 16 only: at n = 17, bf16 rounds the score of key 17
		// at query 16, 2·16·17 − 17² = 255, to 256, the candidate's, and
		// average hardmax mixes v_16 with v_17; no new query fails first
		// and hides it, so only the model's comparison of the new key with
		// the candidate stops the chain carrying query 16's conclusion.
		{"lookup", model.AverageHardmax, "bf16", 18, nil, queriesUpTo(16)},
	}
	carried, certified := 0, 0
	for _, c := range cases {
		con := construct(t, c.recipe, c.w, c.maxN)
		m := con.Model
		if c.m != nil {
			m = c.m(m)
		}
		prec := numeric.MustParsePrecision(c.p)
		runner, err := eval.New(prec, m)
		if err != nil {
			t.Fatal(err)
		}
		exact, err := eval.Instantiate[*big.Rat](numeric.Exact{}, con.Model)
		if err != nil {
			t.Fatal(err)
		}
		symbols := con.Symbols
		if c.symbols != nil {
			symbols = c.symbols(con)
		}
		base := Input{Reference: con.Model, Model: m, Precision: prec, Exact: exact, Runner: runner,
			Symbols: symbols, MapSymbol: nil, Right: exactlyRight}
		chained := base
		chained.Chain = NewChain()
		for n := 1; n <= c.maxN; n++ {
			name := fmt.Sprintf("%s %s at %s, n = %d", c.recipe, c.w, c.p, n)
			alone, err := Length(base, n)
			if err != nil {
				t.Fatal(err)
			}
			with, err := Length(chained, n)
			if err != nil {
				t.Fatal(err)
			}
			if with.Refused || alone.Refused {
				t.Errorf("%s: refused by the checker: %s / %s", name, with.Why, alone.Why)
			}
			if with.Certified != alone.Certified || with.Decided != alone.Decided {
				t.Errorf("%s: with the chain certified %v, decided %v (%s); alone %v, %v (%s)", name,
					with.Certified, with.Decided, with.Why, alone.Certified, alone.Decided, alone.Why)
			}
			if with.Certified {
				certified++
			}
			carried += with.Carried
		}
	}
	t.Logf("%d lengths certified, %d conclusions carried from one length to the next", certified, carried)
	if carried < 1000 || certified < 50 {
		t.Errorf("the test saw too little: %d carried, %d certified", carried, certified)
	}
}

// queriesUpTo narrows the lookup's inputs to the queries q ≤ most: the
// symbols "q:v" of the construction's lists whose q is at most most (one
// list per length, handed to every position, as the construction does).
func queriesUpTo(most int) func(con *recipes.Construction) func(i, n int) []int {
	return func(con *recipes.Construction) func(i, n int) []int {
		lists := map[int][]int{}
		return func(i, n int) []int {
			if l, ok := lists[n]; ok {
				return l
			}
			var l []int
			for _, s := range con.Symbols(i, n) {
				var q, v int
				if _, err := fmt.Sscanf(con.Model.Alphabet[s], "%d:%d", &q, &v); err == nil && q <= most {
					l = append(l, s)
				}
			}
			lists[n] = l
			return l
		}
	}
}

// TestChainExactTieByHand: a head whose keys all score the same in the
// reference, so that rightmost hardmax takes the last position, and fall
// with the position in the model, which takes the first; every value is
// 1, so every length is right. At each length the new key ties with the
// candidates exactly and falls below them in the model: the reference
// can select it, and a chain that carried the last length's conclusion
// (its candidates without the new position) would propose a false proof.
// The chain must reach each length's verdict alone, and the checker
// refuse nothing (TestMain).
func TestChainExactTieByHand(t *testing.T) {
	// Keys of 2⁶⁰ + 1 are not float64 numbers: their scores are compared
	// as rationals, the small ones as float64s.
	const big = 1<<60 + 1
	cases := []struct {
		p    string
		base int64
	}{{"exact", 0}, {"fp16", 0}, {"exact", big}}
	certified := 0
	for _, c := range cases {
		ref := oneHead{alphabet: []string{"a"}, ksym: []int64{0}, val: []int64{1}, w: model.RightHardmax}
		m := ref
		for j := range int64(6) {
			ref.kpos = append(ref.kpos, c.base)
			m.kpos = append(m.kpos, c.base-j)
		}
		p := fmt.Sprintf("%s, keys from %d", c.p, c.base)
		base := Input{Reference: ref.model("reference"), Model: m.model("checked"), Precision: numeric.MustParsePrecision(c.p), Right: exactlyRight}
		chained := base
		chained.Chain = NewChain()
		for n := 1; n <= len(ref.kpos); n++ {
			alone, err := Length(base, n)
			if err != nil {
				t.Fatal(err)
			}
			with, err := Length(chained, n)
			if err != nil {
				t.Fatal(err)
			}
			if !alone.Certified || !with.Certified {
				t.Errorf("%s, n = %d: certified alone %v (%s), with the chain %v (%s); every input is right", p, n, alone.Certified, alone.Why, with.Certified, with.Why)
			}
			if with.Certified {
				certified++
			}
		}
	}
	if certified < 15 {
		t.Errorf("only %d lengths certified", certified)
	}
}
