package examples

import (
	"fmt"
	"math/big"
	"os"
	"strings"
	"testing"

	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/numeric"
	"github.com/transformer-cookbook/verify/proofs"
)

// Negative controls for the checkers of the worked examples (example_*.go).

// TestExDyckGrammar pins the recursive-descent recognizer on strings
// worked by hand.
func TestExDyckGrammar(t *testing.T) {
	for w, want := range map[string]bool{
		"": true, "()": true, "()(())": true, "(())(()())": true, "(()())": true,
		"(": false, ")": false, ")(": false, "())(()": false, "()((()": false, "(()": false, "())": false,
	} {
		if got := dyckGrammar(w); got != want {
			t.Errorf("%q: %v, want %v", w, got, want)
		}
	}
}

// TestExSingleUnitCatchesSmallLambda: with the weight N² on t instead of
// 2N² (z = B_i/i + N·t_i), a string whose only violation is B_N < 0 at
// its end gets z = B_N/N + N·(−B_N/N²) = 0 and accept 1: ")" at N = 1,
// ReLU(1 − 1·(−1) − 1·1) = 1. The checker refutes it; 2N² is proved.
func TestExSingleUnitCatchesSmallLambda(t *testing.T) {
	ev, err := checkSingleUnit(4, func(n int) *big.Rat { return big.NewRat(int64(n*n), 1) })
	if err != nil {
		t.Fatal(err)
	}
	if ev.Verdict != proofs.Refuted {
		t.Fatalf("λ = N²: verdict %s (%s), want REFUTED", ev.Verdict, ev.Summary)
	}
	if ev, err := checkSingleUnit(4, func(n int) *big.Rat { return big.NewRat(int64(2*n*n), 1) }); err != nil || ev.Verdict != proofs.Proved {
		t.Errorf("λ = 2N²: %v, %v", ev, err)
	}
}

// TestExUniform01CatchesWrongKey: with the violation head's key +o (it
// then selects the "(" positions when t > 0) the candidate construction
// fails, and the checker no longer claims a counterexample.
func TestExUniform01CatchesWrongKey(t *testing.T) {
	m, err := uniform01()
	if err != nil {
		t.Fatal(err)
	}
	h := m.Layers[2].Attention.Heads[0]
	flipped := false
	for r := 0; r < h.K.Rows; r++ {
		for c := 0; c < h.K.Cols; c++ {
			if x, _, _ := h.K.At(r, c).Rat(); x != nil && x.Sign() != 0 {
				h.K.Set(r, c, numeric.Lit(new(big.Rat).Neg(x)))
				flipped = true
			}
		}
	}
	if !flipped {
		t.Fatal("no key weight to flip")
	}
	ev, err := checkUniform01(m, 4)
	if err != nil {
		t.Fatal(err)
	}
	if ev.Verdict != proofs.Holds {
		t.Errorf("flipped key: verdict %s (%s), want HOLDS (no counterexample)", ev.Verdict, ev.Summary)
	}
}

// TestExAcceptModelCatchesDyck1N: dyck1-n built for N = 3 and run on
// strings up to length 4 is wrong somewhere (its thresholds are too
// coarse there), and checkAcceptModel reports it.
func TestExAcceptModelCatchesDyck1N(t *testing.T) {
	con, err := proofs.Construct("dyck1-n", model.AverageHardmax, 3, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, wrong, err := checkAcceptModel(con.Model, 3); err != nil || wrong != "" {
		t.Fatalf("N = 3 on lengths ≤ 3: %q, %v", wrong, err)
	}
	if _, wrong, err := checkAcceptModel(con.Model, 5); err != nil || wrong == "" {
		t.Errorf("N = 3 on lengths ≤ 5: no failure found (%v)", err)
	}
}

// TestDyck12LiteralBehaviour: what the printed Dyck-1-2 construction
// accepts, against an independent simulation of the paper's description
// (testdata/dyck12_literal.py, its output in dyck12_literal.txt): how many
// members of depth ≤ 2 it accepts, the smallest it rejects, and how many
// non-members it accepts, over every string of length ≤ 8.
func TestDyck12LiteralBehaviour(t *testing.T) {
	golden, err := os.ReadFile("testdata/dyck12_literal.txt")
	if err != nil {
		t.Fatal(err)
	}
	var okM, allM, okN, allN int
	var smallest string
	if _, err := fmt.Sscanf(string(golden), "members %d/%d smallest-rejected %s non-members %d/%d", &okM, &allM, &smallest, &okN, &allN); err != nil {
		t.Fatalf("testdata/dyck12_literal.txt: %v", err)
	}
	want := fmt.Sprintf("it accepts %d of the %d members of depth ≤ 2 (the smallest it rejects: %s) and %d of the %d non-members", okM, allM, smallest, okN, allN)
	got, err := dyck12LiteralBehaviour(8)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(got, want) {
		t.Errorf("dyck12-literal: %s\nwant (from the simulation): %s", got, want)
	}
}
