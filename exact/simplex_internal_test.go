package exact

import (
	"errors"
	"testing"
)

// dantzig is the largest-coefficient rule: the entering variable has the
// largest reduced cost (ties to the lowest number), and the ratio test is
// Bland's. It is the textbook rule that cycles on Beale's example.
func dantzig(t *tableau) (enter, row int) {
	enter = -1
	for v := 0; v < 2*t.n+t.m; v++ {
		if !t.enterable(v) || t.reduced(v).Sign() <= 0 {
			continue
		}
		if enter < 0 || t.reduced(v).Cmp(t.reduced(enter)) > 0 {
			enter = v
		}
	}
	if enter < 0 {
		return -1, -1
	}
	return enter, t.ratioTest(enter)
}

// TestBealeCycling runs Beale's example in its textbook form (x ≥ 0 as
// variable bounds, the slacks as the starting basis, every right-hand side
// but one 0): the largest-coefficient rule returns to its starting basis
// after six pivots and never stops, while Bland's rule reaches the
// optimum 5/4. The first half shows that the example really exercises
// anti-cycling; without it the second half could pass by luck.
func TestBealeCycling(t *testing.T) {
	lp := &LP{
		C: vec(t, "3/4 -20 1/2 -6"),
		A: mat(t, 4, "1/4 -8 -1 9", "1/2 -12 -1/2 3", "0 0 1 0"),
		B: vec(t, "0 0 1"),
	}

	tab := newTableau(lp, make([]bool, 4))
	tab.rule = dantzig
	start := append([]int(nil), tab.basis...)
	tab.setObjective(lp.C, 2)
	returned := 0
	for i := 0; i < 60; i++ {
		v, r := tab.rule(tab)
		if v < 0 || r < 0 {
			t.Fatalf("largest-coefficient rule stopped after %d pivots; Beale's example should cycle", i)
		}
		tab.pivot(r, v)
		if equalInts(tab.basis, start) {
			returned++
			if i+1 != 6*returned {
				t.Errorf("back at the starting basis after %d pivots, want a cycle of 6", i+1)
			}
		}
	}
	if returned == 0 {
		t.Fatal("the largest-coefficient rule never returned to the starting basis")
	}

	tab = newTableau(lp, make([]bool, 4))
	tab.maxPivots = 60
	sol, err := tab.solve(lp.C)
	if errors.Is(err, errPivotLimit) {
		t.Fatal("Bland's rule cycled")
	}
	if err != nil {
		t.Fatal(err)
	}
	if sol.Status != Optimal || sol.Value.Cmp(rat(t, "5/4")) != 0 {
		t.Fatalf("Bland's rule: %v, value %v; want optimal, 5/4", sol.Status, sol.Value)
	}
	if !sol.X.Equal(vec(t, "1 0 1 0")) {
		t.Errorf("x = %v, want (1, 0, 1, 0)", sol.X)
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
