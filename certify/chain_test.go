package certify

import (
	"fmt"
	"math/big"
	"testing"

	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/numeric"
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
	}
	cases := []tc{
		{"lookup", model.AverageHardmax, "fp16", 50, nil},
		{"lookup", model.LeftHardmax, "bf16", 20, nil},
		{"lookup", model.AverageHardmax, "fp8-e4m3", 8, nil},
		{"lookup-onehot", model.AverageHardmax, "fp16", 12, nil},
		{"pred", model.RightHardmax, "fp16", 12, nil},
		{"pred-strict", model.LeftHardmax, "bf16", 12, nil},
		{"induction-recent", model.RightHardmax, "fp16", 7, nil},
		{"first-uhat", model.LeftHardmax, "fp8-e5m2", 12, nil},
		{"multihead", model.LeftHardmax, "fp16", 10, nil},
		{"lookup", model.AverageHardmax, "fp32", 6, func(m *model.Model) *model.Model {
			return withEmbedding(t, m, "2:1", "j²", 1)
		}},
	}
	carried, certified := 0, 0
	for _, c := range cases {
		con := construct(t, c.recipe, c.w, c.maxN)
		m := con.Model
		if c.m != nil {
			m = c.m(m)
		}
		prec := numeric.MustParsePrecision(c.p)
		runner, err := model.New(prec, m)
		if err != nil {
			t.Fatal(err)
		}
		exact, err := model.Instantiate[*big.Rat](numeric.Exact{}, con.Model)
		if err != nil {
			t.Fatal(err)
		}
		base := Input{Reference: con.Model, Model: m, Precision: prec, Exact: exact, Runner: runner,
			Symbols: con.Symbols, MapSymbol: nil, Right: exactlyRight}
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
