package basics

import (
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/model/eval"
	"github.com/transformer-cookbook/verify/numeric"
	"github.com/transformer-cookbook/verify/proofs"
	"github.com/transformer-cookbook/verify/proofs/internal/prooftest"
)

// The checkers of the representation and layer-norm claims must be able
// to reach another verdict: each test perturbs one case and expects the
// checker to notice.

// TestBooleanCellsFlip: every cell's checker refutes the opposite entry,
// and the ops checker refutes a representation NOT does not preserve.
func TestBooleanCellsFlip(t *testing.T) {
	for _, r := range reps {
		flipped := r
		flipped.gap, flipped.mean, flipped.fixVar = !r.gap, !r.mean, !r.fixVar
		for name, check := range map[string]func(rep) (*proofs.Evidence, error){"gap": gap, "mean": meanCell, "variance": varCell} {
			ev, err := check(r)
			if err != nil || ev.Verdict != proofs.Proved {
				t.Errorf("%s.%s as printed: %v %v", r.key, name, ev, err)
			}
			ev, err = check(flipped)
			if err != nil || ev.Verdict != proofs.Refuted {
				t.Errorf("%s.%s flipped: %v %v", r.key, name, ev, err)
			}
		}
	}
	// −1/+1 relabelled false = −1, true = 2: NOT = −x sends −1 to 1,
	// which represents nothing.
	bad := reps[2]
	if bad.key != "pm-one" {
		t.Fatalf("basReps[2] is %s", bad.key)
	}
	bad.trueSet = point("2")
	ev, err := opsCell(bad)
	if err != nil || ev.Verdict != proofs.Refuted {
		t.Errorf("ops on false = −1, true = 2: %v %v", ev, err)
	}
}

// TestAOArithmetic pins the binomial tail and the dimension by hand.
func TestAOArithmetic(t *testing.T) {
	// m = 4, ε = 1/2: |S_4| ≤ 2 for S ∈ {−2, 0, 2}: (4 + 6 + 4)/16.
	tail, inside := tail(4, big.NewRat(1, 2))
	if inside.Cmp(big.NewRat(14, 16)) != 0 || tail.Cmp(big.NewRat(2, 16)) != 0 {
		t.Errorf("m = 4, ε = 1/2: inside %s, tail %s", inside.RatString(), tail.RatString())
	}
	// N = 2, ε = 1/4, k = 1: ⌈192 ln 4⌉ = ⌈266.17…⌉ = 267.
	if m, err := aoDim(2, big.NewRat(1, 4), numeric.LitInt(1)); err != nil || m != 267 {
		t.Errorf("m = %d, %v, want 267", m, err)
	}
}

// TestRatioLemmaNeedsNoPositions: the refutation of "i/n by unmasked
// attention" rests on positions with equal inputs staying equal; give the
// same kind of random models a position encoding (i in the first
// component) and positions 2 and 3 of ^aa separate.
func TestRatioLemmaNeedsNoPositions(t *testing.T) {
	if ev := prooftest.Checked.Evidence(t, "pe.ratio.unmasked-bos"); ev.Verdict != proofs.Refuted {
		t.Fatalf("pe.ratio.unmasked-bos: %s, want REFUTED: %s", ev.Verdict, ev.Summary)
	}
	rng := rand.New(rand.NewPCG(13, 5))
	separated := 0
	for k := 0; k < 10; k++ {
		m, err := randomUnmasked(rng, model.AverageHardmax)
		if err != nil {
			t.Fatal(err)
		}
		d := m.D
		m.Position = &model.PositionEncoding{Name: "i", Vector: func(i, n int) model.Vector {
			v := make(model.Vector, d)
			v[0] = numeric.LitInt(int64(i))
			return v
		}}
		run, err := eval.New(numeric.MustParsePrecision("exact"), m)
		if err != nil {
			t.Fatal(err)
		}
		syms, _ := m.Tokenize("^aa")
		out, err := run.Run(syms, false)
		if err != nil {
			t.Fatal(err)
		}
		for c := range out.Outputs[1].Values {
			if out.Outputs[1].Values[c].Text != out.Outputs[2].Values[c].Text {
				separated++
				break
			}
		}
	}
	if separated == 0 {
		t.Error("no random model with a position encoding separates positions 2 and 3: the check could not tell")
	}
}
