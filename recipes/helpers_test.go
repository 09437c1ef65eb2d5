package recipes_test

import (
	"math/big"
	"testing"

	"github.com/transformer-cookbook/verify/check"
	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/model/eval"
	"github.com/transformer-cookbook/verify/numeric"
	"github.com/transformer-cookbook/verify/recipes"
)

// construct builds r or fails the test.
func construct(t *testing.T, r *recipes.Recipe, w model.Weighting, maxN int, params map[string]string) *recipes.Construction {
	t.Helper()
	c, err := r.Construct(w, maxN, params)
	if err != nil {
		t.Fatalf("%s: %v", r.Name, err)
	}
	return c
}

// runCase runs one case of a construction at precision p and returns the
// outputs.
func runCase(t *testing.T, con *recipes.Construction, p string, c recipes.Case) []eval.PositionOutput {
	t.Helper()
	r, err := eval.New(numeric.MustParsePrecision(p), con.Model)
	if err != nil {
		t.Fatal(err)
	}
	var res *eval.Result
	if c.Stream != nil {
		res, err = r.RunStream(c.Stream, false)
	} else {
		res, err = r.Run(c.Symbols, false)
	}
	if err != nil {
		t.Fatalf("%s on %q: %v", con.Model.Name, check.CaseText(con.Model, c), err)
	}
	return res.Outputs
}

// rat parses an exact rational written like "-3/7" or "0.25".
func rat(s string) *big.Rat {
	r, ok := new(big.Rat).SetString(s)
	if !ok {
		panic("bad rational " + s)
	}
	return r
}

// rats parses several rationals.
func rats(ss ...string) []*big.Rat {
	out := make([]*big.Rat, len(ss))
	for i, s := range ss {
		out[i] = rat(s)
	}
	return out
}
