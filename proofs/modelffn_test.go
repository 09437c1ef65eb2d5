package proofs

import (
	"strings"
	"testing"

	"github.com/transformer-cookbook/verify/exact"
	"github.com/transformer-cookbook/verify/exact/cpwl"
	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/numeric"
)

func TestFFNFromModel(t *testing.T) {
	ff := &model.FeedForward{
		W1: model.Ints([]int64{1, 0}, []int64{-1, 0}, []int64{1, -1}),
		W2: model.Ints([]int64{1, -1, -1}),
	}
	f, err := FFNFromModel(ff)
	if err != nil {
		t.Fatal(err)
	}
	// min(3, 5) = ReLU(3) − ReLU(−3) − ReLU(−2) = 3; min(5, 3) = 5 − 2.
	for _, tc := range []struct{ x, y, want string }{{"3", "5", "3"}, {"5", "3", "3"}, {"-1/2", "-1/3", "-1/2"}} {
		got, err := f.Eval(exact.Vector{Q(tc.x), Q(tc.y)})
		if err != nil || len(got) != 1 || got[0].Cmp(Q(tc.want)) != 0 {
			t.Errorf("f(%s, %s) = %v (%v), want %s", tc.x, tc.y, got, err, tc.want)
		}
	}
	// min(x, y) is x where x − y ≤ 0 and y where −x + y ≤ 0.
	pieces := []cpwl.Piece{
		Piece(Halfspaces(2, []string{"1", "-1", "0"}), Affine([][]string{{"1", "0"}}, "0")),
		Piece(Halfspaces(2, []string{"-1", "1", "0"}), Affine([][]string{{"0", "1"}}, "0")),
	}
	res, err := cpwl.Verify(f, Space(2), pieces, nil)
	if err != nil || res.Verdict != cpwl.Equal {
		t.Errorf("min from the model: %v, %v", res, err)
	}

	// Rational expressions are evaluated exactly: W2 = [1/2 + 1/2, …].
	ff.W2.Set(0, 0, numeric.Add(numeric.Frac(1, 2), numeric.Frac(1, 2)))
	if g, err := FFNFromModel(ff); err != nil || g.W2.At(0, 0).Cmp(Q("1")) != 0 {
		t.Errorf("W2[0][0] = 1/2 + 1/2: %v, %v", g, err)
	}

	bad := []struct {
		name string
		ff   *model.FeedForward
		msg  string
	}{
		{"irrational", &model.FeedForward{W1: model.Ints([]int64{1}), W2: model.Matrix{Rows: 1, Cols: 1, Data: []numeric.Expr{numeric.Sqrt(numeric.LitInt(2))}}}, "not rational"},
		{"gelu", &model.FeedForward{W1: model.Ints([]int64{1}), W2: model.Ints([]int64{1}), Activation: model.GELU}, "ReLU"},
		{"shape", &model.FeedForward{W1: model.Ints([]int64{1}), W2: model.Ints([]int64{1, 1})}, "W2"},
		{"nil", nil, "nil"},
	}
	for _, tc := range bad {
		if _, err := FFNFromModel(tc.ff); err == nil || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("%s: error %v, want one containing %q", tc.name, err, tc.msg)
		}
	}
}
